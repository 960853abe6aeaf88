"""The CPU backend's compiled (numba) kernels against its NumPy operators, on random inputs.

Each operator runs twice on equal copies of its inputs, once per path; the
results must agree wherever the contract fixes them (positions, orders and
tie-breaking parents may differ where it leaves them free).
"""
import copy

import numpy as np
import pytest

from cugraph_stream.algorithms import bfs_rule, sssp_rule, wcc_rule, widest_path_rule
from cugraph_stream.backends import cpu_kernels, get_backend
from cugraph_stream.backends.base import DELETED_KEY, DELETED_SLOT, EMPTY_SLOT
from cugraph_stream.backends.cpu import CPUBackend
from cugraph_stream.engine.adjacency import SLOT_DTYPE, Adjacency
from cugraph_stream.engine.arc_index import ArcIndex
from cugraph_stream.engine.hash_index import arc_key

pytest.importorskip("numba")
from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

COMPILED = CPUBackend(compiled=True)
NUMPY = CPUBackend(compiled=False)
seeds = st.integers(0, 2**32 - 1)


def test_the_switches(monkeypatch):
    assert COMPILED.compiled and not NUMPY.compiled
    assert get_backend("cpu", compiled=False).kernels is None
    monkeypatch.setenv(cpu_kernels.ENV_VAR, "0")
    assert not get_backend("cpu").compiled and get_backend("cpu", compiled=True).compiled
    monkeypatch.setenv(cpu_kernels.ENV_VAR, "1")
    assert get_backend("cpu").compiled
    monkeypatch.setattr(cpu_kernels, "numba", None)
    assert not get_backend("cpu").compiled
    with pytest.raises(ValueError, match="numba"):
        get_backend("cpu", compiled=True)


def _table(rng, size, keys, tombstones=0):
    table = np.full(size, -1, dtype=np.int64)
    NUMPY.hash_claim(table, keys)
    if tombstones:
        table[NUMPY.hash_find(table, keys[:tombstones])] = DELETED_KEY
    return table


@given(seeds, st.integers(0, 600), st.integers(0, 200))
def test_hash_find_claim_build(seed, n, tombstones):
    rng = np.random.default_rng(seed)
    keys = np.unique(rng.integers(0, 2**40, n + 300))
    rng.shuffle(keys)
    held, fresh = keys[:n], keys[n:]
    table = _table(rng, 2048, held, min(tombstones, n))
    queries = rng.permutation(keys)
    assert (COMPILED.hash_find(table, queries) == NUMPY.hash_find(table, queries)).all()
    tables = [table.copy(), table.copy()]
    for ops, t in zip((COMPILED, NUMPY), tables):
        pos, replaced = ops.hash_claim(t, fresh)
        assert len(set(pos.tolist())) == fresh.size and (replaced == table[pos]).all() and (replaced < 0).all()
        assert (t[pos] == fresh).all() and (ops.hash_find(t, fresh) == pos).all()
        untouched = np.ones(t.size, dtype=bool)
        untouched[pos] = False
        assert (t[untouched] == table[untouched]).all()
    # a table either path claimed reads the same on the other
    assert (NUMPY.hash_find(tables[0], queries) == COMPILED.hash_find(tables[0], queries)).all()
    empty = np.full(2048, -1, dtype=np.int64)
    placed = COMPILED.hash_build(empty, keys[:900])
    assert (NUMPY.hash_find(empty, keys[:900]) == placed).all()


@given(seeds, st.sampled_from([1024, 3072, 18432, 2**32 + 1024, 7 * 2**40]))
def test_arc_home_reduces_the_hash_to_any_capacity(seed, capacity):
    """The compiled home, the NumPy home and Python's exact arithmetic agree, below the capacity."""
    from cugraph_stream.backends.cpu import arc_home
    keys = np.random.default_rng(seed).integers(0, 2**63 - 1, 200)
    exact = [((int(k) * 0x9E3779B97F4A7C15 % 2**64) * capacity) >> 64 for k in keys]
    assert arc_home(keys, capacity).tolist() == exact
    assert [cpu_kernels._arc_home(int(k), capacity) for k in keys[:20]] == exact[:20]
    assert max(exact) < capacity


def _arc_index(adj, n, tombstones=0):
    """The arc index of ``adj``'s lists, the first ``tombstones`` arcs erased (but
    left in their lists, which the index then never matches); returns ``(index, keys)``."""
    slots, owners = NUMPY.expand_segments(adj.start[:n], adj.degree[:n])
    keys = (owners << 32) | adj.nbr[slots].astype(np.int64)
    index = ArcIndex(NUMPY, adj)
    index.build(keys, slots)
    if tombstones:
        index.table[index.locate(keys[:tombstones])] = DELETED_SLOT
    return index, keys


@given(seeds, st.integers(1, 40), st.integers(0, 300), st.integers(0, 100))
def test_arc_find_claim_build_locate(seed, n, edges, tombstones):
    rng = np.random.default_rng(seed)
    adj = _adjacency(NUMPY, n, rng, edges)
    index, keys = _arc_index(adj, n, min(tombstones, edges))
    table = index.table
    others = rng.integers(0, n, (50, 2))
    queries = np.concatenate((keys, (others[:, 0] << 32) | others[:, 1], [-1, -(5 << 32)]))
    found = NUMPY.arc_find(table, adj, queries)
    assert (COMPILED.arc_find(table, adj, queries) == found).all()
    held = found[: keys.size] >= 0
    assert (COMPILED.arc_locate(table, keys[held], table[found[: keys.size][held]]) == found[: keys.size][held]).all()
    gone = keys[~held]                          # erased: claim them again, at made-up slots
    slots = np.arange(gone.size, dtype=np.int64) + 10**6
    tables = [table.copy(), table.copy()]
    for ops, t in zip((COMPILED, NUMPY), tables):
        pos, replaced = ops.arc_claim(t, gone, slots)
        assert len(set(pos.tolist())) == gone.size and (replaced == table[pos]).all()
        assert set(replaced.tolist()) <= {EMPTY_SLOT, DELETED_SLOT}
        assert (t[pos] == slots).all() and (ops.arc_locate(t, gone, slots) == pos).all()
        untouched = np.ones(t.size, dtype=bool)
        untouched[pos] = False
        assert (t[untouched] == table[untouched]).all()
    held_keys, held_slots = keys[held], table[found[: keys.size][held]]
    for ops in (COMPILED, NUMPY):                # a bulk build: every arc found where it was entered
        built = np.full(table.size, EMPTY_SLOT, dtype=SLOT_DTYPE)
        ops.arc_build(built, held_keys, held_slots)
        assert (built[NUMPY.arc_find(built, adj, held_keys)] == held_slots).all()
        assert np.array_equal(np.sort(built[built < DELETED_SLOT]), np.sort(held_slots))


@given(seeds, st.integers(1, 30), st.integers(1, 300), st.integers(1, 400), st.sampled_from([np.float32, np.float64]),
       st.booleans())
def test_net_changes(seed, n, edges, rows, dtype, undirected):
    rng = np.random.default_rng(seed)
    adj = _adjacency(NUMPY, n, rng, edges, dtype=dtype)
    index, _ = _arc_index(adj, n)
    u, v = rng.integers(0, n, rows), rng.integers(0, n, rows)
    u = np.where(rng.random(rows) < 0.05, -1, u)        # a vertex the graph lacks: no such edge
    codes = np.where(u < 0, -1, rng.choice([1, -1], rows)).astype(np.int8)
    weights = rng.integers(1, 9, rows).astype(dtype)
    expected = NUMPY.net_changes(u, v, codes, weights, index.table, adj, undirected)     # (sorts by key)
    got = COMPILED.net_changes(u, v, codes, weights, index.table, adj, undirected)       # (batch order)
    assert got.counts == expected.counts
    for found, at in (((got.deleted_u, got.deleted_v), got.deleted_at), ((got.updated_u, got.updated_v), got.updated_at)):
        assert (at == NUMPY.arc_find(index.table, adj, arc_key(np, *found))).all()
    for columns in (("inserted_u", "inserted_v", "inserted_weights", "inserted_keys"),
                    ("deleted_u", "deleted_v", "deleted_at"),
                    ("updated_u", "updated_v", "updated_weights", "updated_at")):
        rows_got = sorted(zip(*(getattr(got, c).tolist() for c in columns)))
        rows_expected = sorted(zip(*(getattr(expected, c).tolist() for c in columns)))
        assert rows_got == rows_expected
        for c in columns:
            assert getattr(got, c).dtype == getattr(expected, c).dtype


def _adjacency(ops, n, rng, edges, dtype=np.float32, with_twin=False, room=0):
    adj = Adjacency(ops, dtype, with_twin=with_twin)
    adj.ensure_vertices(n)
    key = np.unique(rng.integers(0, n, edges) * n + rng.integers(0, n, edges))    # a simple graph
    u, v = key // n, key % n
    w = rng.integers(1, 9, key.size).astype(dtype)
    order = np.argsort(u, kind="stable")
    adj.build(u[order], v[order], w[order])
    if with_twin:
        adj.twin[: adj.end] = rng.integers(0, 10**6, adj.end)
    return adj


def _lists(adj, n):
    return [sorted(zip(adj.neighbors(x).tolist(), adj.wgt[adj.start[x]:adj.start[x] + adj.degree[x]].tolist()))
            for x in range(n)]


@given(seeds, st.integers(1, 40), st.integers(0, 300), st.integers(0, 200))
def test_place_entries(seed, n, edges, rows):
    rng = np.random.default_rng(seed)
    base = _adjacency(NUMPY, n, rng, edges)
    owners = rng.integers(0, n, rows)
    neighbours = rng.integers(0, n, rows)
    weights = rng.integers(1, 9, rows).astype(np.float32)
    preset = rng.random(rows) < 0.2
    results = []
    for ops, grouped in ((NUMPY, True), (COMPILED, False)):
        adj = copy.deepcopy(base)
        adj.ops = ops
        order = np.argsort(owners, kind="stable") if grouped else np.arange(rows)
        slots = np.where(preset, 10**9, -1)[order]
        placement = ops.place_entries(adj, owners[order], neighbours[order], weights[order], slots)
        outgrown, need, count = placement.outgrown, placement.need, placement.count
        assert count == outgrown.size
        placed = slots >= 0
        fresh = placed & ~preset[order]
        assert (adj.nbr[slots[fresh]] == neighbours[order][fresh]).all()
        assert (adj.wgt[slots[fresh]] == weights[order][fresh]).all()
        results.append((dict(zip(outgrown.tolist(), need.tolist())), _lists(adj, n), adj.degree.tolist()))
    assert results[0] == results[1]
    if rows:
        assert all((count == 0).all() for count in COMPILED._counts)      # scratch left clean


@given(seeds, st.integers(1, 30), st.integers(1, 300), st.floats(0, 1), st.booleans())
def test_close_holes(seed, n, edges, fraction, with_twin):
    rng = np.random.default_rng(seed)
    base = _adjacency(NUMPY, n, rng, edges, with_twin=with_twin)
    slots, owners = NUMPY.expand_segments(base.start[:n], base.degree[:n])
    pick = np.sort(rng.choice(slots.size, int(fraction * slots.size), replace=False))
    slots, owners = slots[pick], owners[pick]
    by_slot = np.argsort(slots)                 # close_holes takes rows in slot order
    slots, owners = slots[by_slot], owners[by_slot]
    results = []
    for ops in (NUMPY, COMPILED):
        adj = copy.deepcopy(base)
        owner, source, target = ops.close_holes(adj, owners, slots)
        moved = sorted(zip(owner.tolist(), source.tolist(), target.tolist()))
        if with_twin:
            assert (adj.twin[target] == base.twin[source]).all()
        results.append((moved, _lists(adj, n), adj.degree.tolist()))
    assert results[0] == results[1]


@given(seeds, st.integers(1, 30), st.integers(1, 300), st.floats(0, 1), st.booleans(), st.booleans())
def test_remove_entries(seed, n, edges, fraction, with_twin, keep):
    """Rows in any order; the pre-images restore the adjacency (as the journal does)."""
    rng = np.random.default_rng(seed)
    base = _adjacency(NUMPY, n, rng, edges, with_twin=with_twin)
    slots, owners = NUMPY.expand_segments(base.start[:n], base.degree[:n])
    pick = rng.choice(slots.size, int(fraction * slots.size), replace=False)     # unsorted
    slots, owners = slots[pick], owners[pick]
    results = []
    for ops in (NUMPY, COMPILED):
        adj = copy.deepcopy(base)
        removed = ops.remove_entries(adj, owners, slots, keep)
        assert removed.count == removed.owner.size
        moved = sorted(zip(removed.owner.tolist(), removed.source.tolist(), removed.target.tolist()))
        results.append((moved, _lists(adj, n), adj.degree.tolist()))
        if not keep:
            assert removed.removed is None and removed.moved is None
            continue
        arrays = (adj.nbr, adj.wgt, adj.twin)
        for array, kept_array, moved_values in zip(arrays, (base.nbr, base.wgt, base.twin), removed.moved):
            if array is not None:
                assert (moved_values == kept_array[removed.source]).all()
        for array, values in zip(arrays, removed.removed):      # undo, as Journal.rollback would
            if array is not None:
                array[removed.slots] = values
        adj.degree[removed.lists] = removed.degree
        assert _lists(adj, n) == _lists(base, n) and adj.degree.tolist() == base.degree.tolist()
        for array, kept_array in zip(arrays, (base.nbr, base.wgt, base.twin)):
            if array is not None:
                assert (array[slots] == kept_array[slots]).all()
    assert results[0] == results[1]


RULES = [sssp_rule(np.float32), sssp_rule(np.float64), bfs_rule(), widest_path_rule(np.float64),
         wcc_rule(False), wcc_rule(True)]


def _state(rng, rule, n, reached=0.5):
    if rule.unreachable is None:
        value = rng.permutation(n).astype(rule.value_dtype) * 3
    else:
        value = np.full(n, rule.unreachable, dtype=rule.value_dtype)
        hit = rng.random(n) < reached
        value[hit] = rng.integers(0, 40, int(hit.sum())).astype(rule.value_dtype)
    return value, np.full(n, -1, dtype=np.int64)


def _graph(rng, n, edges, rule):
    adj = _adjacency(NUMPY, n, rng, edges, dtype=np.float64 if rule.value_dtype == np.float64 else np.float32)
    inn = _adjacency(NUMPY, n, rng, edges, dtype=adj.weight_dtype)
    return adj, inn


def _extend(rule, x, w):
    return {"add": lambda: x + rule.value_dtype.type(w), "add_one": lambda: x + 1,
            "min": lambda: min(x, rule.value_dtype.type(w)), "copy": lambda: x}[rule.extend]()


def _weight(adj, u, v):
    """A weight of arc u -> v in ``adj`` equal to what produced ``candidate`` (any parallel arc)."""
    s, d = int(adj.start[u]), int(adj.degree[u])
    return [w for x, w in zip(adj.nbr[s:s + d].tolist(), adj.wgt[s:s + d].tolist()) if x == v]


@given(seeds, st.sampled_from(range(len(RULES))), st.integers(1, 40), st.integers(0, 300))
def test_converge(seed, which, n, edges):
    rule = RULES[which]
    rng = np.random.default_rng(seed)
    out, inn = _graph(rng, n, edges, rule)
    adjs = (out, inn) if rule.symmetric else (out,)
    value, parent = _state(rng, rule, n)
    frontier = np.flatnonzero(value != rule.unreachable) if rule.unreachable is not None else np.arange(n)
    frontier = rng.permutation(frontier)[: max(1, frontier.size // 2)] if frontier.size else frontier
    results = []
    for ops in (NUMPY, COMPILED):
        v, p = value.copy(), parent.copy()
        activated, _ = ops.converge(adjs, frontier, v, p, rule)
        changed = np.flatnonzero((v != value) | (p != parent))
        assert set(changed.tolist()) <= set(activated.tolist())
        for x in changed.tolist():              # each new parent gives the value along a present arc
            candidates = [_extend(rule, v[p[x]], w) for a in adjs for w in _weight(a, p[x], x)]
            assert v[x] in candidates
        results.append(v)
    assert (results[0] == results[1]).all()
    assert not COMPILED._flag.any()


@given(seeds, st.sampled_from(range(len(RULES))), st.integers(1, 40), st.integers(0, 300), st.integers(0, 50))
def test_relax_arcs_and_pull(seed, which, n, edges, arcs):
    rule = RULES[which]
    rng = np.random.default_rng(seed)
    out, inn = _graph(rng, n, edges, rule)
    value, parent = _state(rng, rule, n)
    u, v = rng.integers(0, n, arcs), rng.integers(0, n, arcs)
    w = rng.integers(0, 9, arcs).astype(out.weight_dtype)
    targets = rng.permutation(n)[: rng.integers(0, n + 1)]
    results = []
    for ops in (NUMPY, COMPILED):
        val, par = value.copy(), parent.copy()
        improved = ops.relax_arcs(u, v, w, val, par, rule)
        assert sorted(improved.tolist()) == np.flatnonzero(val != value).tolist()
        for x in improved.tolist():
            assert val[x] in [_extend(rule, value[a], b) for a, c, b in zip(u, v, w) if c == x and a == par[x]]
        pulled_from = val.copy()
        edges_read = ops.pull([inn], targets, val, par, rule).get()
        assert edges_read == int(inn.degree[targets].sum())
        for x in np.flatnonzero(val != pulled_from).tolist():
            assert val[x] in [_extend(rule, pulled_from[par[x]], b) for b in _weight(inn, x, par[x])]
        results.append(val)
    assert (results[0] == results[1]).all()
    assert not COMPILED._flag.any()


@given(seeds, st.integers(1, 40), st.integers(0, 300), st.booleans())
def test_invalidate(seed, n, edges, symmetric):
    rng = np.random.default_rng(seed)
    rule = wcc_rule(symmetric)
    out, inn = _graph(rng, n, edges, rule)
    adjs = (out, inn) if symmetric else (out,)
    parent = np.where(rng.random(n) < 0.7, rng.integers(0, n, n), -1)
    seeds_ = rng.integers(0, n, rng.integers(0, 6))
    results = []
    for ops in (NUMPY, COMPILED):
        invalidated, edges_read = ops.invalidate(adjs, seeds_, parent)
        assert len(set(invalidated.tolist())) == invalidated.size
        results.append((sorted(invalidated.tolist()), edges_read))
    assert results[0] == results[1]
    assert not COMPILED._flag.any()


@given(seeds, st.integers(1, 3000), st.integers(0, 3000))
def test_lookup_sorted(seed, n, queries):
    rng = np.random.default_rng(seed)
    keys = np.unique(rng.integers(-2**62, 2**62, n))
    values = rng.integers(0, 10**6, keys.size)
    q = np.concatenate((rng.choice(keys, queries), rng.integers(-2**62, 2**62, queries // 3)))
    assert (COMPILED.lookup_sorted(keys, values, q) == NUMPY.lookup_sorted(keys, values, q)).all()


@given(seeds, st.integers(0, 3000), st.integers(0, 3000))
def test_lookup_dense(seed, n, queries):
    rng = np.random.default_rng(seed)
    table = rng.integers(-1, 10**6, n).astype(rng.choice([np.int32, np.int64]))
    q = np.concatenate((rng.integers(-5, n + 5, queries), rng.integers(-2**62, 2**62, queries // 3)))
    assert (COMPILED.lookup_dense(table, q) == NUMPY.lookup_dense(table, q)).all()


@given(seeds, st.integers(0, 300), st.integers(0, 300))
def test_merge_sorted(seed, n, m):
    rng = np.random.default_rng(seed)
    keys, more = np.sort(rng.integers(-50, 50, n)), np.sort(rng.integers(-50, 50, m))
    values, more_values = rng.integers(0, 10**6, n), rng.integers(0, 10**6, m)
    got = COMPILED.merge_sorted(keys, values, more, more_values)
    expected = NUMPY.merge_sorted(keys, values, more, more_values)
    assert all((g == e).all() for g, e in zip(got, expected))


@given(seeds, st.integers(1, 300), st.integers(0, 40), st.integers(0, 500), st.booleans())
def test_record_changes(seed, n, forced, touched, with_parents):
    rng = np.random.default_rng(seed)
    value = rng.integers(0, 3, n).astype(np.float32)
    parent = rng.integers(-1, 3, n).astype(np.int64)
    previous = (rng.integers(0, 3, n).astype(np.float32), rng.integers(-1, 3, n).astype(np.int64))
    alive = rng.random(n) < 0.8
    forced = rng.choice(n, min(forced, n), replace=False)
    touched = rng.integers(0, n, touched)
    out = []
    for ops in (NUMPY, COMPILED):
        kept = (previous[0].copy(), previous[1].copy())
        (changed, count), replaced = ops.record_changes(forced, touched, value, parent, *kept, alive, with_parents,
                                                        keep=True)
        assert count == changed.size and np.unique(changed).size == changed.size
        positions, (held_value, held_parent) = replaced.read(replaced.count)
        order = np.argsort(positions)
        out.append((sorted(changed.tolist()), kept[0].tolist(), kept[1].tolist(), positions[order].tolist(),
                    held_value[order].tolist(), held_parent[order].tolist()))
    assert out[0] == out[1]
    assert not COMPILED._flag.any()         # scratch left clean


@given(seeds, st.integers(1, 60), st.integers(0, 600), st.sampled_from([4, 32, 128]), st.integers(0, 1 << 20),
       st.booleans())
def test_plan_moves(seed, n, edges, align, base, counted):
    rng = np.random.default_rng(seed)
    adj = _adjacency(NUMPY, n, rng, edges)
    vertices = rng.permutation(n)[: rng.integers(0, n + 1)]
    need = adj.degree[vertices] + rng.integers(1, 3 * align, vertices.size)
    base -= base % align
    if counted:                   # (a count of some of them: the rest must not count)
        count = int(rng.integers(0, vertices.size + 1))
        plans = [ops.plan_moves(adj, vertices, need, base, align, count=count) for ops in (NUMPY, COMPILED)]
    else:
        plans = [ops.plan_moves(adj, vertices, need, base, align) for ops in (NUMPY, COMPILED)]
    numpy_plan, compiled_plan = ([np.asarray(x).tolist() for x in plan] for plan in plans)
    assert compiled_plan == numpy_plan


@given(seeds, st.integers(1, 30), st.integers(0, 300), st.booleans())
def test_move_lists(seed, n, edges, with_twin):
    rng = np.random.default_rng(seed)
    base = _adjacency(NUMPY, n, rng, edges, with_twin=with_twin)
    vertices = rng.permutation(n)[: rng.integers(1, n + 1)]
    degree = base.degree[vertices]
    room = np.maximum(degree, 1) + rng.integers(0, 3, vertices.size)
    new_start = base.end + np.cumsum(room) - room
    first = np.cumsum(degree) - degree
    out = []
    for ops in (NUMPY, COMPILED):
        adj = copy.deepcopy(base)
        adj._ensure_slots(base.end + int(room.sum()))
        moves = ops.move_lists(adj, vertices, new_start, room, first, int(degree.sum()))
        out.append(([m.tolist() for m in moves], _lists(adj, n), adj.start.tolist(), adj.capacity.tolist(),
                    None if adj.twin is None else adj.twin[moves[2]].tolist()))
    assert out[0] == out[1]


@given(seeds, st.integers(1, 40), st.integers(0, 300), st.booleans())
def test_gather_sum(seed, n, edges, weighted):
    """One pass over the lists where they lie against a gathered plan and
    ``np.add.reduceat``, over the lists of any subset of vertices, in any order
    (empty lists included), unweighted and weighted."""
    rng = np.random.default_rng(seed)
    adj = _adjacency(NUMPY, n, rng, edges)
    vertices = rng.permutation(np.flatnonzero(rng.random(n) < 0.7))
    values = rng.standard_normal(n)
    expected, read = NUMPY.gather_sum(NUMPY.gather_plan(adj, vertices, weighted=weighted), values)
    got, read_compiled = COMPILED.gather_sum(COMPILED.gather_plan(adj, vertices, weighted=weighted), values)
    assert read_compiled == read == int(adj.degree[vertices].sum())
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)
    assert got.dtype == expected.dtype and got.shape == (vertices.size,)


@given(seeds, st.integers(1, 40), st.integers(0, 60), st.integers(0, 60))
def test_pagerank_correct_arcs(seed, n, inserted, deleted):
    """Distinct arcs inserted and deleted, sources shared between both (a source's
    insertions and deletions may cancel), degrees after the batch from 0 up; the
    same ranks, residuals, sums and sources (in any order) on both paths, and the
    per-vertex flags cleared."""
    rng = np.random.default_rng(seed)
    keys = rng.choice(n * n, min(inserted + deleted, n * n), replace=False)
    inserted = min(inserted, keys.size)
    u, v = keys // n, keys % n
    degree = rng.integers(0, 3, n) + np.bincount(u[:inserted], minlength=n)
    rank, residual = rng.random(n), rng.standard_normal(n)
    out = []
    for ops in (NUMPY, COMPILED):
        arrays = [rank.copy(), residual.copy()]
        sources, sums = ops.pagerank_correct_arcs(*arrays, degree, u[:inserted], v[:inserted], u[inserted:],
                                                  v[inserted:], 0.85)
        out.append((np.sort(sources).tolist(), sums, *arrays))
    assert out[0][0] == out[1][0] == np.unique(u).tolist()
    np.testing.assert_allclose(out[1][1], out[0][1], rtol=1e-12, atol=1e-12)
    for got, expected in zip(out[1][2:], out[0][2:]):
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)
    assert not COMPILED._scratch_flag(n)[:n].any()
