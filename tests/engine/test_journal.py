"""The undo journal: entries undo exactly, newest first; nothing is kept outside a transaction."""
import numpy as np
import pytest

from cugraph_stream.engine.journal import Journal, RollbackError
from cugraph_stream.interrupts import DeferredInterrupts


class State:
    def __init__(self):
        self.values = np.arange(10, dtype=np.int64)
        self.count = 3


class Participant:
    def __init__(self):
        self.rolled_back = 0

    def rollback(self):
        self.rolled_back += 1


def test_rollback_restores_writes_assignments_and_replaced_arrays():
    s, journal = State(), Journal()
    original = s.values
    journal.begin()
    journal.write(s.values, np.array([1, 1, 4]), np.array([7, 8, 9]))   # repeats: the first pre-image wins
    journal.write(s.values, slice(5, 7), -1)
    journal.write(s.values, 9, 99)
    journal.assign(s, "count", 4)
    grown = np.zeros(20, dtype=np.int64)
    grown[:10] = s.values
    journal.assign(s, "values", grown)          # a grown array replaces the old one
    journal.write(s.values, np.array([0, 15]), 5)
    journal.save_all(s.values)
    s.values[:] = 3                             # a whole rewrite after save_all
    journal.rollback()
    assert s.values is original and s.values.tolist() == list(range(10)) and s.count == 3
    assert not journal.recording and len(journal) == 0


def test_saved_and_on_rollback_run_in_reverse_order():
    s, journal, order = State(), Journal(), []
    journal.begin()
    journal.on_rollback(lambda: order.append("first"))
    s.values[2] = 42                            # written by an "operator" that reports the old value
    journal.saved(s.values, np.array([2]), np.array([2]))
    journal.on_rollback(lambda: order.append(int(s.values[2])))
    journal.rollback()
    assert order == [42, "first"] and s.values[2] == 2


def test_participants_roll_back_once_after_the_entries():
    s, journal, p = State(), Journal(), Participant()
    seen = []
    p.rollback = lambda: seen.append(s.count)
    journal.begin()
    assert journal.enlist(p) and not journal.enlist(p)      # joins once
    journal.assign(s, "count", 9)
    journal.rollback()
    assert seen == [3]
    assert not journal.enlist(p)                            # no transaction open


def test_commit_keeps_everything_and_nothing_is_recorded_outside_a_transaction():
    s, journal = State(), Journal()
    journal.write(s.values, 0, 5)               # no transaction: a plain write
    journal.assign(s, "count", 1)
    assert s.values[0] == 5 and s.count == 1 and len(journal) == 0
    journal.begin()
    journal.write(s.values, 1, 6)
    assert len(journal) == 1
    journal.commit()
    journal.rollback()                          # nothing open: nothing undone
    assert s.values[:2].tolist() == [5, 6]


def test_one_transaction_at_a_time():
    journal = Journal()
    journal.begin()
    with pytest.raises(RuntimeError, match="already open"):
        journal.begin()


def test_a_failing_undo_raises_rollback_error():
    journal = Journal()
    journal.begin()

    def broken():
        raise MemoryError("no memory left to undo")
    journal.on_rollback(broken)
    with pytest.raises(RollbackError, match="MemoryError: no memory left to undo"):
        journal.rollback()
    assert not journal.recording


def test_a_deferred_interrupt_is_raised_at_the_next_entry():
    s, journal = State(), Journal()
    interrupts = DeferredInterrupts()
    journal.begin(interrupts)
    journal.write(s.values, 0, 50)
    interrupts.pending = True                   # as the SIGINT handler would set it
    with pytest.raises(KeyboardInterrupt):
        journal.write(s.values, 1, 77)
    assert s.values[:2].tolist() == [50, 1]     # stopped before the second write
    assert not interrupts.pending               # raised once
    journal.rollback()
    assert s.values[:2].tolist() == [0, 1]


@pytest.mark.parametrize("with_ops", [False, True])
def test_distinct_writes_keep_their_pre_images_and_repeats_are_caught(with_ops, monkeypatch):
    from cugraph_stream.backends import get_backend

    s = State()
    journal = Journal(get_backend("cpu") if with_ops else None)
    journal.begin()
    journal.write(s.values, np.array([2, 7, -1]), np.array([20, 70, 90]), distinct=True)
    journal.write(s.values, np.array([7]), 700, distinct=True)
    assert s.values.tolist() == [0, 1, 20, 3, 4, 5, 6, 700, 8, 90]
    monkeypatch.setattr(Journal, "verify_distinct", True)
    with pytest.raises(AssertionError, match="repeated positions"):
        journal.write(s.values, np.array([3, -7]), np.array([1, 2]), distinct=True)     # -7 is 3
    journal.rollback()
    assert s.values.tolist() == list(range(10))
