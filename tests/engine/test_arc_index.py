"""ArcIndex over a live out-adjacency: against the lists themselves, through
insertions, deletions, relocations and compactions (the store's order of
work), with tombstone reuse, bounded growth and rollback."""
import numpy as np
import pytest

from cugraph_stream.backends import get_backend
from cugraph_stream.backends.base import DELETED_SLOT, EMPTY_SLOT, SLOT_DTYPE, ArcTableBuilder
from cugraph_stream.engine.adjacency import Adjacency
from cugraph_stream.engine.arc_index import MIN_CAPACITY, ArcIndex
from cugraph_stream.engine.hash_index import arc_key
from cugraph_stream.engine.journal import Journal


@pytest.fixture(params=[True, False], ids=["compiled", "numpy"])
def ops(request):
    if request.param:
        pytest.importorskip("numba")
    return get_backend("cpu", compiled=request.param)


class IndexedLists:
    """An out-adjacency and its arc index, changed the way ``GraphStore`` changes them."""

    def __init__(self, ops, n, journal=None):
        self.journal = Journal() if journal is None else journal
        self.adj = Adjacency(ops, np.float32, with_twin=False, journal=self.journal)
        self.adj.ensure_vertices(n)
        self.index = ArcIndex(ops, self.adj, journal=self.journal)

    def follow(self, moves):
        if moves is not None and moves.owner.size:
            self.index.repoint(moves.owner, moves.source, moves.target)

    def insert(self, u, v):
        slots, moves = self.adj.append(u, v, np.ones(u.size, dtype=np.float32))
        self.follow(moves)
        self.index.insert(arc_key(np, u, v), slots)

    def delete(self, u, v):
        slots, _, _ = self.index.erase_entries(self.index.locate(arc_key(np, u, v)))
        self.follow(self.adj.remove(u, slots))

    def compact(self):
        self.follow(self.adj.compact())

    def arcs(self):
        """``{(u, v): slot}`` read from the lists."""
        adj = self.adj
        return {(u, int(adj.nbr[s])): s for u in range(adj.start.size)
                for s in range(int(adj.start[u]), int(adj.start[u] + adj.degree[u]))}

    def check(self, n):
        held = self.arcs()
        assert self.index.live == len(held)
        probe = [(u, v) for u in range(n) for v in range(n)]
        keys = np.array([(u << 32) | v for u, v in probe], dtype=np.int64)
        assert self.index.get(keys).tolist() == [held.get(arc, -1) for arc in probe]


def random_arcs(rng, n, count, present, absent):
    """Up to ``count`` distinct arcs of ``n`` vertices, present in ``present`` or not (``absent``)."""
    pairs = {(int(u), int(v)) for u, v in rng.integers(0, n, (count, 2))}
    pairs = sorted(p for p in pairs if (p in present) != absent)
    u = np.array([p[0] for p in pairs], dtype=np.int64)
    v = np.array([p[1] for p in pairs], dtype=np.int64)
    return u, v


def test_random_operations_match_the_lists(ops):
    rng = np.random.default_rng(0)
    n = 40
    lists = IndexedLists(ops, n)
    for step in range(40):
        lists.insert(*random_arcs(rng, n, 120, lists.arcs(), absent=True))
        lists.delete(*random_arcs(rng, n, 60, lists.arcs(), absent=False))
        if step % 7 == 6:
            lists.compact()
        if step % 5 == 4:
            lists.index.fit()
        lists.check(n)


def test_a_compaction_onto_slots_that_other_lists_leave(ops):
    # after a compaction, slot values of the new layout were, before it, other lists'
    # slots: every entry is found by its old slot before any is rewritten
    rng = np.random.default_rng(1)
    n = 30
    lists = IndexedLists(ops, n)
    lists.insert(*random_arcs(rng, n, 400, {}, absent=True))
    for _ in range(3):                      # relocations leave garbage before the lists
        lists.insert(*random_arcs(rng, n, 200, lists.arcs(), absent=True))
    before = lists.arcs()
    lists.compact()
    after = lists.arcs()
    assert set(before) == set(after) and set(before.values()) & set(after.values())
    lists.check(n)


def test_sweep_keeps_the_table_bounded(ops):
    n = 100
    lists = IndexedLists(ops, n)
    u = np.arange(n, dtype=np.int64).repeat(10)
    v = (u * 7 + np.tile(np.arange(10), n)) % n
    for _ in range(40):
        lists.insert(u, v)
        lists.delete(u, v)
        lists.index.fit()
    assert lists.index.live == 0 and lists.index.capacity <= 4 * MIN_CAPACITY


def test_rollback_restores_the_table_across_reuse_moves_and_rebuilds(ops):
    rng = np.random.default_rng(2)
    n = 50
    journal = Journal()
    lists = IndexedLists(ops, n, journal)
    lists.insert(*random_arcs(rng, n, 300, {}, absent=True))
    table, held = lists.index.table.copy(), lists.arcs()
    for grow in (False, True):
        journal.begin()
        gone = random_arcs(rng, n, 100, held, absent=False)
        lists.delete(*gone)
        lists.insert(*gone)                                  # onto the tombstones just made
        assert (lists.index.table == DELETED_SLOT).sum() < (table == DELETED_SLOT).sum() + gone[0].size
        if grow:                                             # relocations, a compaction, a larger table
            lists.insert(*random_arcs(rng, n, 2000, lists.arcs(), absent=True))
            lists.compact()
            assert lists.index.capacity > table.size
        journal.rollback()
        assert np.array_equal(lists.index.table, table) and lists.arcs() == held
        lists.check(n)


@pytest.mark.parametrize("working", [False, True], ids=["in place", "working table"])
def test_a_build_empties_the_new_table_only_for_a_builder_that_enters_arcs_into_it(ops, monkeypatch, working):
    # a builder with a working table of its own copies it whole over the new table (the GPU's,
    # for a table in host memory): filling that one with EMPTY_SLOT first would be wasted
    rng = np.random.default_rng(11)
    pairs = np.unique(rng.integers(0, 60, (400, 2)), axis=0)
    u, v = pairs[:, 0], pairs[:, 1]
    adj = Adjacency(ops, np.float32, with_twin=False)
    adj.ensure_vertices(60)
    slots = adj.build(u, v, np.ones(u.size, dtype=np.float32))
    index = ArcIndex(ops, adj)
    keys = arc_key(np, u, v)

    stale = DELETED_SLOT - 1                    # what an uninitialised table may hold
    real_empty = ops.aligned_empty

    def uninitialised(n, dtype, align=4096, memory="device"):
        table = real_empty(n, dtype, align=align, memory=memory)
        table.fill(stale)
        return table
    monkeypatch.setattr(ops, "aligned_empty", uninitialised)
    if working:
        monkeypatch.setattr(ops, "arc_table_builder", lambda table: ArcTableBuilder(
            ops, table, working=np.full(table.size, EMPTY_SLOT, dtype=SLOT_DTYPE)))
    builder = index.begin_build(int(keys.size))
    assert builder.copies_whole_table == working
    assert (index.table == (stale if working else EMPTY_SLOT)).all()
    builder.enter(keys[:100], slots[:100])
    builder.enter(keys[100:], slots[100:])
    index.finish_build(builder, int(keys.size))
    assert not (index.table == stale).any()
    assert (index.get(keys) == slots).all()
    absent = np.array(sorted({(a, b) for a in range(60) for b in range(60)} - set(map(tuple, pairs.tolist()))))
    assert (index.get(arc_key(np, absent[:, 0], absent[:, 1])) == -1).all()
