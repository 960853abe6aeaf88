"""Hotness: packed per-vertex access counts over a sliding window of batches, against a Python model."""
from collections import deque

import numpy as np
import pytest

from cugraph_stream.backends import get_backend
from cugraph_stream.engine.hotness import Hotness


def host(ops, a):
    return np.asarray(ops.to_host(a))


class WindowModel:
    """Per-batch dictionaries of exact counts; each field saturates on its own."""

    def __init__(self, tau, field_max):
        self.field_max = field_max
        self.batches = deque([{}], maxlen=tau)

    def record(self, vertices, counts):
        current = self.batches[-1]
        for v, c in zip(vertices, counts):
            current[v] = current.get(v, 0) + c

    def advance(self):
        self.batches.append({})

    def batch(self, age, n):
        counts = self.batches[-1 - age] if age < len(self.batches) else {}
        return [min(counts.get(v, 0), self.field_max) for v in range(n)]

    def score(self, n):
        return [sum(min(b.get(v, 0), self.field_max) for b in self.batches) for v in range(n)]


@pytest.mark.parametrize("tau", [1, 2, 3, 4, 5, 8, 32])
def test_window_against_model(ops, tau):
    rng = np.random.default_rng(tau)
    n = 40
    hot = Hotness(ops, tau=tau)
    hot.ensure_vertices(n)
    model = WindowModel(tau, hot.field_max)
    assert hot.field_bits == 32 // tau and hot.field_max == 2 ** (32 // tau) - 1
    for _ in range(3 * tau + 6):
        for _ in range(int(rng.integers(0, 4))):
            k = int(rng.integers(0, 30))
            vertices = rng.integers(0, n, k)                       # repeats on purpose
            branch = rng.random()
            if branch < 0.3:
                hot.record(ops.asarray(vertices))
                model.record(vertices.tolist(), [1] * k)
            elif branch < 0.6:                                      # distinct, the same count each
                vertices = rng.permutation(n)[:k]
                times = int(rng.integers(0, 3 * hot.field_max + 2)) if rng.random() < 0.3 else int(rng.integers(0, 4))
                hot.record(ops.asarray(vertices), distinct=True, times=times)
                model.record(vertices.tolist(), [times] * k)
            else:
                counts = rng.integers(0, 3 * hot.field_max + 2, k) if rng.random() < 0.3 else rng.integers(0, 4, k)
                hot.record(ops.asarray(vertices), counts=ops.asarray(counts))
                model.record(vertices.tolist(), counts.tolist())
        assert host(ops, hot.score())[:n].tolist() == model.score(n)
        assert host(ops, hot.score(ops.asarray(np.arange(n)[::-1])))[::-1].tolist() == model.score(n)
        assert host(ops, hot.score(upto=n - 3)).tolist() == model.score(n)[:n - 3]
        for age in range(tau):
            assert host(ops, hot.batch_counts(age))[:n].tolist() == model.batch(age, n)
        assert int(host(ops, hot.score()).max(initial=0)) <= hot.max_score
        hot.advance()
        model.advance()


def test_advance_drops_exactly_the_oldest_batch(ops):
    hot = Hotness(ops, tau=3)
    hot.ensure_vertices(4)
    hot.record(ops.asarray(np.array([1])), counts=ops.asarray(np.array([7])))
    hot.advance()
    hot.record(ops.asarray(np.array([1, 2])))
    hot.advance()
    assert host(ops, hot.score())[:4].tolist() == [0, 8, 1, 0]
    hot.advance()                                   # the batch with 7 is now 3 batches old: gone
    assert host(ops, hot.score())[:4].tolist() == [0, 1, 1, 0]
    hot.advance()
    assert host(ops, hot.score())[:4].tolist() == [0, 0, 0, 0]


def test_saturation_keeps_other_fields(ops):
    hot = Hotness(ops, tau=3)                       # 10-bit fields
    hot.ensure_vertices(3)
    v = ops.asarray(np.array([2]))
    hot.record(v, counts=ops.asarray(np.array([5000])))
    assert host(ops, hot.score(v)).tolist() == [1023]
    hot.record(v)                                   # still saturated, no carry into the next field
    assert host(ops, hot.batch_counts(0, v)).tolist() == [1023]
    assert host(ops, hot.batch_counts(1, v)).tolist() == [0]
    hot.advance()
    hot.record(ops.asarray(np.array([2] * 3000)))   # duplicates saturate too
    assert host(ops, hot.score(v)).tolist() == [2046]
    hot.advance()
    hot.advance()
    assert host(ops, hot.score(v)).tolist() == [1023]
    assert int(host(ops, hot.words())[2]) < 2 ** 30   # the shifted-out field left no bits above the window


def test_tau_one_uses_the_whole_word(ops):
    hot = Hotness(ops, tau=1)
    hot.ensure_vertices(2)
    hot.record(ops.asarray(np.array([0, 1])), counts=ops.asarray(np.array([2 ** 31, 2 ** 40])))
    assert host(ops, hot.score())[:2].tolist() == [2 ** 31, 2 ** 32 - 1]
    hot.record(ops.asarray(np.array([0, 1])), distinct=True, times=2 ** 31 + 5)     # saturates, no wrap
    assert host(ops, hot.score())[:2].tolist() == [2 ** 32 - 1, 2 ** 32 - 1]
    hot.advance()
    assert host(ops, hot.score())[:2].tolist() == [0, 0]


def test_duplicates_accumulate_and_distinct_fast_path(ops):
    hot = Hotness(ops, tau=3)
    hot.ensure_vertices(5)
    hot.record(ops.asarray(np.array([3, 3, 3, 0])))
    hot.record(ops.asarray(np.array([2, 2])), counts=ops.asarray(np.array([4, 5])))
    hot.record(ops.asarray(np.array([4, 3])), distinct=True)
    hot.record(ops.asarray(np.array([1, 4])), counts=ops.asarray(np.array([-3, 2])), distinct=True)
    assert host(ops, hot.score())[:5].tolist() == [1, 0, 9, 4, 3]


def test_growth_and_forget(ops):
    hot = Hotness(ops, tau=2)
    hot.ensure_vertices(3)
    hot.record(ops.asarray(np.array([1])))
    hot.record(ops.asarray(np.array([5000])))       # beyond the capacity: grows, keeps the rest
    assert hot.counts.size >= 5001
    assert host(ops, hot.score(ops.asarray(np.array([1, 5000, 7])))).tolist() == [1, 1, 0]
    hot.forget(ops.asarray(np.array([1])))
    assert host(ops, hot.score(ops.asarray(np.array([1, 5000])))).tolist() == [0, 1]
    hot.record(ops.asarray(np.array([], dtype=np.int64)))
    assert hot.memory_bytes() == 4 * hot.counts.size
    hot.record(ops.asarray(np.array([9000, 6])), bound=9001)     # the caller's bound: no search for the max
    assert hot.counts.size >= 9001
    assert host(ops, hot.score(ops.asarray(np.array([9000, 6, 5000])))).tolist() == [1, 1, 1]
    upto = int(hot.counts.size) + 100                             # beyond the capacity: grows first
    scores = host(ops, hot.score(upto=upto))
    assert scores.size == upto and scores[[6, 5000, 9000]].tolist() == [1, 1, 1] and int(scores.sum()) == 3


@pytest.mark.parametrize("tau", [0, 33, -1])
def test_bad_tau(tau):
    with pytest.raises(ValueError, match="tau"):
        Hotness(get_backend("cpu"), tau=tau)


def test_bad_age():
    hot = Hotness(get_backend("cpu"), tau=3)
    with pytest.raises(ValueError, match="age"):
        hot.batch_counts(3)


@pytest.mark.parametrize("tau", [1, 3, 8])
def test_repeats_add_up_alike_with_and_without_the_bound(ops, tau):
    """With ``bound``, repeated vertices are tallied over the vertices (no sort); without,
    they are sorted together: the words come out the same, saturation included."""
    rng = np.random.default_rng(tau)
    tallied, sorted_ = Hotness(ops, tau), Hotness(ops, tau)
    for hot in (tallied, sorted_):
        hot.ensure_vertices(50)
    for step in range(6):
        vertices = ops.asarray(rng.integers(0, 50, 400))          # many repeats
        counts = None if step % 2 else ops.asarray(rng.integers(0, 40, 400))
        times = int(rng.integers(1, 4))
        tallied.record(vertices, counts=counts, bound=50, times=times)
        sorted_.record(vertices, counts=counts, times=times)
        assert ops.to_host(tallied.counts).tolist() == ops.to_host(sorted_.counts).tolist()
        assert int(ops.to_host(tallied.score()).max()) > 0
        tallied.advance()
        sorted_.advance()


def test_repeats_beyond_a_lowered_bound_are_counted(ops):
    """Removing the newest vertices lowers the store's bound while the queries still read
    their lists in the same batch: the tally covers every vertex the counts hold."""
    hot = Hotness(ops, tau=3)
    hot.ensure_vertices(100)
    hot.record(ops.asarray(np.array([90, 90, 3, 90])), bound=10)
    assert ops.to_host(hot.score())[[3, 90]].tolist() == [1, 3]


@pytest.mark.parametrize("tau", [1, 3])
def test_a_rolled_back_transaction_restores_the_window_it_advanced(ops, tau):
    """In a transaction, advance writes the shifted words to a new array (one pass, no
    copy of the old one); records after it need no pre-image; a rollback puts the old
    words back, and a committed advance keeps the new ones."""
    from cugraph_stream.engine.journal import Journal

    journal = Journal(ops)
    hot = Hotness(ops, tau=tau, journal=journal)
    hot.ensure_vertices(8)
    hot.record(ops.asarray(np.array([1, 1, 5])))
    before = host(ops, hot.counts).tolist()
    journal.begin()
    hot.advance()
    hot.record(ops.asarray(np.array([2, 5])))
    # the pending count and the replaced array: no copy of any words kept
    assert all(entry[0] is setattr for entry in journal._entries) and hot.pending == 0
    journal.rollback()
    assert host(ops, hot.counts).tolist() == before and hot.pending == 0
    journal.begin()
    hot.advance()
    hot.record(ops.asarray(np.array([2])))
    journal.commit()
    model = WindowModel(tau, hot.field_max)
    model.record([1, 1, 5], [1, 1, 1])
    model.advance()
    model.record([2], [1])
    assert host(ops, hot.score())[:8].tolist() == model.score(8)


def test_transactions_that_commit_or_roll_back_keep_the_window_exact(ops):
    """Advances reuse the words the previous one replaced: across committed and
    rolled-back transactions, and two advances in one, the words always equal a
    NumPy model of the shifts."""
    from cugraph_stream.engine.journal import Journal

    rng = np.random.default_rng(7)
    journal = Journal(ops)
    hot = Hotness(ops, tau=3, journal=journal)
    hot.ensure_vertices(16)
    model = host(ops, hot.counts).astype(np.uint64)

    def shifted(words):
        return (words << np.uint64(hot.field_bits)) & np.uint64(hot.window_mask)

    for _ in range(30):
        journal.begin()
        expected = model.copy()
        for _ in range(int(rng.integers(1, 3))):          # one advance a batch, sometimes two
            expected = shifted(expected)
            hot.advance()
            vertices = rng.integers(0, 16, 5)
            hot.record(ops.asarray(vertices))
            np.add.at(expected, vertices, 1)
        if rng.random() < 0.4:
            journal.rollback()
        else:
            journal.commit()
            model = expected
        assert host(ops, hot.words()).tolist() == model.tolist()
    assert hot.memory_bytes() <= 2 * 4 * int(hot.counts.size)


@pytest.mark.parametrize("tau", [1, 3, 8])
def test_batches_that_read_nothing_cost_no_pass(ops, tau):
    """An advance only counts a pending shift (no operator call); the first record
    after pending shifts applies them all; in between, every reader of the window
    (words, scores, batch counts, prices, checkpoints) reads what shifting at
    every advance would give, across committed and rolled-back transactions."""
    from cugraph_stream.engine.journal import Journal

    rng = np.random.default_rng(tau)
    n = 12
    journal = Journal(ops)
    hot = Hotness(ops, tau=tau, journal=journal)
    hot.ensure_vertices(n)
    degree = ops.asarray(rng.integers(1, 40, n).astype(np.int64))
    everyone = ops.asarray(np.arange(n))
    bits, mask = np.uint64(hot.field_bits), np.uint64(hot.window_mask)
    model = np.zeros(n, dtype=np.uint64)             # the words, shifted at every advance
    for step in range(6 * tau + 6):
        journal.begin()
        expected = model.copy()
        for _ in range(int(rng.integers(1, 3))):
            before = ops.calls.snapshot()
            hot.advance()
            assert ops.calls.since(before) == (0, 0)
            expected = np.zeros_like(expected) if tau == 1 else (expected << bits) & mask
            if rng.random() < 0.3:                   # most batches read no list
                vertices = ops.asarray(rng.integers(0, n, 5))
                before = ops.calls.snapshot()
                hot.record(vertices, bound=n)
                shifted = ops.calls.since(before)
                before = ops.calls.snapshot()
                hot.record(vertices, bound=n)            # (no shift pending now)
                assert shifted[0] <= ops.calls.since(before)[0] + 1 and hot.pending == 0   # one pass at most
                np.add.at(expected, host(ops, vertices), 2)
        if rng.random() < 0.3:
            journal.rollback()
        else:
            journal.commit()
            model = expected
        assert 0 <= hot.pending <= tau
        assert host(ops, hot.words(upto=n)).tolist() == model.tolist()
        fields = [(model >> (np.uint64(age) * bits)) & np.uint64(hot.field_max) for age in range(tau)]
        score = sum(f.astype(np.int64) for f in fields)
        assert host(ops, hot.score(upto=n)).tolist() == score.tolist()
        assert host(ops, hot.score(everyone)).tolist() == score.tolist()
        for age in range(tau):
            assert host(ops, hot.batch_counts(age, everyone)).tolist() == fields[age].tolist()
        price = hot.price(degree, (4,), n)
        assert host(ops, price.score(ops.xp, everyone)).tolist() == score.tolist()
        state = hot.export_state(upto=n)
        assert np.asarray(state["internal"]).tolist() == np.flatnonzero(model).tolist()
        assert np.asarray(state["counts"]).tolist() == model[model != 0].tolist()
    copy = Hotness(ops, tau=tau)
    copy.import_state(hot.export_state(upto=n))
    assert copy.pending == 0 and host(ops, copy.words(upto=n)).tolist() == model.tolist()
