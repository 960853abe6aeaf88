"""Adjacency (gapped CSR) against per-vertex Python lists."""
import numpy as np
import pytest

from cugraph_stream.backends import get_backend
from cugraph_stream.engine import adjacency as adjacency_module
from cugraph_stream.engine.adjacency import END_ROOM_MAX_SLOTS, MAX_SLOTS, SLOT_DTYPE, Adjacency, list_room


def lists_of(adj, n):
    return {u: sorted(zip(adj.neighbors(u).tolist(),
                          adj.wgt[int(adj.start[u]):int(adj.start[u]) + int(adj.degree[u])].tolist()))
            for u in range(n) if int(adj.degree[u])}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_append_remove_compact_against_lists(dtype):
    ops = get_backend("cpu")
    rng = np.random.default_rng(1)
    n = 50
    adj = Adjacency(ops, dtype, with_twin=True)
    adj.ensure_vertices(n)
    model = {u: [] for u in range(n)}
    payload = {}   # slot -> (u, v): checks that moves report every moved entry
    for step in range(80):
        k = int(rng.integers(1, 200))
        u = rng.integers(0, n, size=k)
        u[: k // 2] = 0                                    # one hub grows and shrinks
        v = rng.integers(0, 10**6, size=k)
        w = rng.random(k).astype(dtype)
        slots, moves = adj.append(u, v, w)
        if moves is not None:
            moved = {int(t): payload.pop(int(s)) for s, t in zip(moves.source, moves.target)}
            payload.update(moved)
        for uu, vv, ww, ss in zip(u.tolist(), v.tolist(), w.tolist(), slots.tolist()):
            model[uu].append((vv, ww))
            payload[ss] = (uu, vv)
        # remove a random half of some lists
        victims = [(uu, s) for s, (uu, vv) in payload.items() if rng.random() < 0.4]
        if victims:
            vu = np.array([x[0] for x in victims])
            vs = np.array([x[1] for x in victims])
            removed = [payload.pop(int(s)) for s in vs]
            moves = adj.remove(vu, vs)
            moved = {int(t): payload.pop(int(s)) for s, t in zip(moves.source, moves.target)}
            payload.update(moved)
            for uu, vv in removed:
                model[uu] = _drop_one(model[uu], vv)
        if adj.needs_compaction() or step % 25 == 24:
            moves = adj.compact()
            payload = {int(t): payload[int(s)] for s, t in zip(moves.source, moves.target)}
        got = lists_of(adj, n)
        assert got == {u: sorted(es) for u, es in model.items() if es}
        for slot, (uu, vv) in payload.items():
            assert int(adj.nbr[slot]) == vv
            assert int(adj.start[uu]) <= slot < int(adj.start[uu] + adj.degree[uu])
        owned = np.flatnonzero(adj.capacity[:n])
        assert (list_room(np, adj.capacity[owned], adj.align) == adj.capacity[owned]).all()
        assert (adj.start[owned] % np.minimum(adj.capacity[owned], adj.align) == 0).all()
        assert adj.nbr.ctypes.data % 4096 == 0 and adj.wgt.ctypes.data % 4096 == 0
        assert (adj.degree[:n] <= adj.capacity[:n]).all()


def _drop_one(entries, v):
    for i, (vv, _) in enumerate(entries):
        if vv == v:
            return entries[:i] + entries[i + 1:]
    raise AssertionError("removed an entry that was not there")


@pytest.mark.parametrize("weight_dtype", [np.float32, np.float64])
def test_no_list_straddles_a_128_byte_boundary_it_need_not(weight_dtype):
    """A list that fits in 128 bytes lies within one 128-byte segment of every
    slot array; a larger one starts on a boundary; lists hold size classes."""
    ops = get_backend("cpu")
    adj = Adjacency(ops, weight_dtype, with_twin=True)
    n = 200
    adj.ensure_vertices(n)
    rng = np.random.default_rng(5)
    for _ in range(6):
        u = rng.integers(0, n, 400) ** 2 % n          # skewed degrees: short lists and long ones
        adj.append(u, rng.integers(0, n, u.size), np.ones(u.size, weight_dtype))
        owned = np.flatnonzero(adj.capacity[:n])
        for array in (adj.nbr, adj.wgt, adj.twin):
            first = (array.ctypes.data + array.itemsize * adj.start[owned]) // 128
            last = (array.ctypes.data + array.itemsize * (adj.start[owned] + adj.capacity[owned]) - 1) // 128
            fits = adj.capacity[owned] * array.itemsize <= 128
            assert (first[fits] == last[fits]).all()
            assert ((array.ctypes.data + array.itemsize * adj.start[owned][~fits]) % 128 == 0).all()
    assert adj.end % adj.align == 0


def test_size_classes_keep_a_power_law_graph_small():
    """Bulk-loaded lists take at most 1.3 slots per entry on a skewed degree
    distribution (one 128-byte unit per list took 2.2; the size class of 1.25x
    the degree, 1.6)."""
    ops = get_backend("cpu")
    rng = np.random.default_rng(0)
    n = 20_000
    degree = np.minimum(rng.zipf(1.8, n), 5_000)
    src = np.repeat(np.arange(n), degree)
    adj = Adjacency(ops, np.float32, with_twin=False)
    adj.ensure_vertices(n)
    adj.build(src, rng.integers(0, n, src.size).astype(np.int32), np.ones(src.size, np.float32))
    assert adj.end <= 1.3 * src.size
    assert list_room(np, np.array([1, 2, 3, 17, 32, 40]), 32).tolist() == [4, 4, 4, 32, 32, 64]


def test_version_changes_whenever_a_list_may_start_elsewhere():
    """Operators keep per-vertex list addresses until ``version`` changes
    (the GPU backend's ``_lists``): a change of ``start`` or of the slot
    arrays' memory under an unchanged version would make them read stale
    lists."""
    ops = get_backend("cpu")
    rng = np.random.default_rng(5)
    adj = Adjacency(ops, np.float32, with_twin=True)

    def where_lists_are():
        return adj.version, adj.start.copy(), adj.nbr.ctypes.data, adj.wgt.ctypes.data

    def check(before, what):
        version, start, nbr, wgt = before
        moved = (start.shape != adj.start.shape or not np.array_equal(start, adj.start)
                 or (nbr, wgt) != (adj.nbr.ctypes.data, adj.wgt.ctypes.data))
        assert adj.version != version or not moved, f"{what} moved lists without a new version"

    n = 8
    adj.ensure_vertices(n)
    for step in range(120):
        before = where_lists_are()
        if step % 30 == 29:                              # new vertices
            n += 5
            adj.ensure_vertices(n)
            check(before, "ensure_vertices")
            continue
        k = int(rng.integers(1, 60))
        u = rng.integers(0, n, size=k)
        adj.append(u, rng.integers(0, 10**6, size=k), rng.random(k).astype(np.float32))
        check(before, "append")
        before = where_lists_are()
        live = np.flatnonzero(adj.degree[:n])
        owners = live[rng.random(live.size) < 0.3]
        if owners.size:
            slots = adj.start[owners] + adj.degree[owners] - 1      # each drops its last entry
            adj.remove(owners, slots)
            check(before, "remove")
        before = where_lists_are()
        if step % 17 == 16:
            empty = np.flatnonzero(adj.degree[:n] == 0)
            adj.release(empty)
            check(before, "release")
            before = where_lists_are()
            adj.compact()
            check(before, "compact")


def test_slot_pointers_take_four_bytes_and_bound_the_slots():
    """Twin pointers (and the edge index's values) are 4-byte slots, so an
    adjacency refuses, before allocating, to grow past :data:`MAX_SLOTS`."""
    adj = Adjacency(get_backend("cpu"), np.float32, with_twin=True)
    assert adj.twin.dtype == SLOT_DTYPE and SLOT_DTYPE.itemsize == 4
    with pytest.raises(MemoryError, match="at most 4,294,967,264 slots"):     # whole 32-slot units
        adj._ensure_slots(MAX_SLOTS + 1)
    assert adj.slot_capacity == 4 * adj.align


def test_end_room_is_an_eighth_at_most_its_cap_and_the_slots_grow_by_an_eighth(monkeypatch):
    """A load leaves :func:`end_room` past its lists (an eighth, capped); a batch that
    outgrows the arrays grows them by an eighth, or to what it needs if more."""
    ops = get_backend("cpu")
    u = np.repeat(np.arange(40), 30)
    v = np.tile(np.arange(30), 40)
    for cap in (END_ROOM_MAX_SLOTS, 64):
        monkeypatch.setattr(adjacency_module, "END_ROOM_MAX_SLOTS", cap)
        adj = Adjacency(ops, np.float32, with_twin=True)
        adj.ensure_vertices(40)
        adj.build(u, v, np.ones(u.size, np.float32))
        room = min(adj.end // 8, cap)
        assert adj.slot_capacity == adj.end + room + (-(adj.end + room)) % adj.align
    have = adj.slot_capacity
    adj._ensure_slots(have + 1)
    grown = have + have // 8
    assert adj.slot_capacity == grown + (-grown) % adj.align
    adj._ensure_slots(3 * have)                            # more than an eighth: what is asked
    assert adj.slot_capacity == 3 * have
