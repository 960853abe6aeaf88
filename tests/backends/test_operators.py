"""Every backend's operators against plain-Python references (the CPU is the reference
backend; a GPU backend runs the same tests under the ``gpu`` marker)."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cugraph_stream.algorithms import bfs_rule, sssp_rule, wcc_rule, widest_path_rule
from cugraph_stream.backends.base import DELETED_SLOT, DEVICE_CALLS, EMPTY_SLOT
from cugraph_stream.backends.rows import DELETE, INSERT
from cugraph_stream.engine.adjacency import SLOT_DTYPE, Adjacency
from cugraph_stream.engine.arc_index import ArcIndex
from cugraph_stream.engine.hash_index import arc_key


def host(ops, a):
    return np.asarray(ops.to_host(a))


def make_adjacency(ops, n, edges, dtype=np.float64):
    adj = Adjacency(ops, dtype, with_twin=False)
    adj.ensure_vertices(n)
    u, v, w = (np.array(x) for x in zip(*edges)) if edges else (np.zeros(0, int),) * 3
    adj.append(ops.asarray(u.astype(np.int64)), ops.asarray(v.astype(np.int64)), ops.asarray(w.astype(dtype)))
    return adj


def indexed_arcs(ops, n, weights):
    """An out-adjacency of ``n`` vertices holding the arcs ``weights`` maps
    (``{(u, v): w}``), and its arc index: ``(adjacency, index)``."""
    adj = Adjacency(ops, np.float64, with_twin=False)
    adj.ensure_vertices(n)
    arcs = sorted(weights)
    u = np.array([a for a, _ in arcs], dtype=np.int64)
    v = np.array([b for _, b in arcs], dtype=np.int64)
    w = np.array([weights[a] for a in arcs], dtype=np.float64)
    slots = adj.build(ops.asarray(u), ops.asarray(v), ops.asarray(w))
    index = ArcIndex(ops, adj)
    index.build(arc_key(ops.xp, ops.asarray(u), ops.asarray(v)), slots)
    return adj, index


def test_expand_segments(ops):
    pos, owner = ops.expand_segments(ops.asarray(np.array([5, 0, 9])), ops.asarray(np.array([2, 0, 3])))
    assert host(ops, pos).tolist() == [5, 6, 9, 10, 11]
    assert host(ops, owner).tolist() == [0, 0, 2, 2, 2]


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint16, np.uint32, np.int32, np.int64, np.float32,
                                   np.float64])
def test_take_and_put_match_indexing(ops, dtype):
    """Gathers and scatters at int64 positions (negative ones from the end) equal NumPy's
    indexing, float32 subnormals and -0.0 kept bit for bit; a value of another dtype
    is cast as NumPy casts."""
    rng = np.random.default_rng(3)
    n = 1000
    if np.dtype(dtype).kind == "f":
        base = rng.standard_normal(n).astype(dtype)
        base[:3] = [np.finfo(dtype).smallest_subnormal, -0.0, -np.finfo(dtype).smallest_subnormal]
    else:
        base = rng.integers(0, 2 if dtype is np.bool_ else 100, n).astype(dtype)
    index = rng.integers(-n, n, 300)
    taken = host(ops, ops.take(ops.asarray(base), ops.asarray(index)))
    assert taken.dtype == base.dtype and taken.tobytes() == base[index].tobytes()
    assert host(ops, ops.take(ops.asarray(base), ops.asarray(index[:0]))).size == 0

    expected, array = base.copy(), ops.asarray(base)
    targets = rng.choice(np.arange(-n, n), 200, replace=False)
    targets = targets[np.unique(np.where(targets < 0, targets + n, targets), return_index=True)[1]]
    values = base[rng.integers(0, n, targets.size)][::-1].copy()
    expected[targets] = values
    ops.put(array, ops.asarray(targets), ops.asarray(values))
    assert host(ops, array).tobytes() == expected.tobytes()
    one = dtype(1) if dtype is np.bool_ else base[2]
    expected[targets[:50]] = one
    ops.put(array, ops.asarray(targets[:50]), one)
    assert host(ops, array).tobytes() == expected.tobytes()
    expected[targets[50:60]] = np.arange(10)             # int64 values: cast to the array's dtype
    ops.put(array, ops.asarray(targets[50:60]), ops.asarray(np.arange(10)))
    assert host(ops, array).tobytes() == expected.tobytes()

    # exchange: the same writes, returning what they overwrote (distinct positions)
    for positions, written in ((targets[60:], values[60:]), (targets[:40], one), (targets[40:50], np.arange(10))):
        before = expected[positions].copy()
        expected[positions] = written
        old = ops.exchange(array, ops.asarray(positions), written if np.ndim(written) == 0 else ops.asarray(written))
        assert host(ops, old).dtype == base.dtype and host(ops, old).tobytes() == before.tobytes()
        assert host(ops, array).tobytes() == expected.tobytes()


_CONVERTED = (np.int32, np.uint32, np.int64)


@pytest.mark.parametrize("source, target", [(s, t) for s in _CONVERTED for t in _CONVERTED if s != t])
def test_take_and_put_convert_integers_as_numpy_casts(ops, source, target):
    """A gather into another integer dtype, and a scatter of values of another one,
    wrap and extend signs as NumPy's casts do (the GPU converts in its kernel)."""
    rng = np.random.default_rng(5)
    info = np.iinfo(source)
    base = rng.integers(info.min, info.max, 500, dtype=source, endpoint=True)
    base[:4] = [info.min, info.max, 0, 1]
    index = rng.integers(-500, 500, 300)
    taken = host(ops, ops.take(ops.asarray(base), ops.asarray(index), target))
    assert taken.dtype == target and taken.tolist() == base[index].astype(target).tolist()
    expected, array = np.zeros(500, dtype=target), ops.asarray(np.zeros(500, dtype=target))
    targets = rng.permutation(500)[:200]
    expected[targets] = base[:200]
    ops.put(array, ops.asarray(targets), ops.asarray(base[:200]))
    assert host(ops, array).tolist() == expected.tolist()
    before = expected[targets].copy()
    expected[targets] = base[200:400]
    old = ops.exchange(array, ops.asarray(targets), ops.asarray(base[200:400]))
    assert host(ops, old).tolist() == before.tolist() and host(ops, array).tolist() == expected.tolist()


def test_join_matches_concatenate(ops):
    parts = [np.arange(5), np.empty(0, dtype=np.int64), np.arange(10, 16)]
    device = [ops.asarray(p) for p in parts] + [ops.asarray(np.arange(20, 26))[::2]]   # (a strided view)
    joined = host(ops, ops.join(device))
    assert joined.tolist() == np.concatenate(parts + [np.arange(20, 26)[::2]]).tolist()
    tiny = np.array([np.finfo(np.float32).smallest_subnormal, -0.0], dtype=np.float32)
    assert host(ops, ops.join([ops.asarray(tiny), ops.asarray(tiny[::-1].copy())])).tobytes() == \
        np.concatenate((tiny, tiny[::-1])).tobytes()
    one = ops.asarray(np.array([7]))
    copy = ops.join([one])
    copy[0] = 8                          # a new array, not a view
    assert host(ops, one).tolist() == [7]
    mixed = host(ops, ops.join([ops.asarray(np.array([1], dtype=np.int32)), ops.asarray(np.array([2.5]))]))
    assert mixed.tolist() == [1.0, 2.5]


def test_no_items_is_one_empty_array_per_dtype_on_the_device(ops):
    device_type = type(ops.xp.empty(0))
    for spellings in ((np.int64, "int64", np.dtype(np.int64)), (np.float32, "float32", np.dtype("float32"))):
        arrays = [ops.no_items(dtype) for dtype in spellings]
        assert all(a is arrays[0] for a in arrays)
        assert type(arrays[0]) is device_type and arrays[0].shape == (0,)
        assert arrays[0].dtype == np.dtype(spellings[0])
    assert ops.no_items() is ops.no_items(np.int64)
    assert ops.no_items(np.int32) is not ops.no_items(np.int64)
    assert ops.spare().no_items() is not ops.no_items()        # (each backend its own)
    assert host(ops, ops.join([ops.no_items(), ops.asarray(np.arange(3))])).tolist() == [0, 1, 2]


def test_unique_and_factorize(ops):
    rng = np.random.default_rng(0)
    ids = rng.integers(0, 500, 3000)
    assert sorted(host(ops, ops.unique(ops.asarray(ids), 500)).tolist()) == sorted(set(ids.tolist()))
    values = rng.integers(-2**63, 2**63 - 1, 50, dtype=np.int64)[rng.integers(0, 50, 400)]
    uniques, codes = ops.factorize(ops.asarray(values))
    assert (host(ops, uniques)[host(ops, codes)] == values).all()
    assert len(set(host(ops, uniques).tolist())) == host(ops, uniques).size


def test_scatter_add_accumulates_duplicates(ops):
    for n in (8, 100000):
        target = ops.asarray(np.zeros(n))
        ops.scatter_add(target, ops.asarray(np.array([1, 1, 3])), ops.asarray(np.array([0.5, 0.25, 2.0])))
        assert host(ops, target)[[1, 3]].tolist() == [0.75, 2.0]


def test_host_ints_and_floats_read_each_scalar_exactly(ops):
    big = 2**62 + 1                     # (not a float64: read through one, it would round)
    ints = ops.asarray(np.array([big, 5], dtype=np.int64))
    assert ops.host_ints(ints[0], ints.sum() - ints[0], np.int64(3), True, ints[:1]) == [big, 5, 3, 1, big]
    floats = ops.asarray(np.array([0.1, 1e-300]))
    assert ops.host_floats(floats[0], floats[1:].sum(), ops.asarray(np.float32([0.5]))[0], 2, big) == [
        0.1, 1e-300, 0.5, 2.0, float(big)]
    assert ops.host_floats() == []


@pytest.mark.parametrize("count", [1, 7, 300, 200_000])     # (200,000: more blocks than a GPU's passes launch)
@pytest.mark.parametrize("indexed", [False, True])
@pytest.mark.parametrize("weighted", [False, True])
def test_l1_deviation_is_the_distance_from_the_sum_spread_as_p(ops, count, indexed, weighted):
    rng = np.random.default_rng(count)
    values, weights = rng.normal(size=count + 5), rng.random(count + 5)
    index = np.sort(rng.choice(count + 5, count, replace=False)) if indexed else slice(2, 2 + count)
    x = values[index]
    p = weights[index] / weights[index].sum() if weighted else np.full(count, 1.0 / count)
    got = ops.l1_deviation(ops.asarray(values), ops.asarray(index) if indexed else index,
                           ops.asarray(weights) if weighted else None, float(weights[index].sum()))
    assert got == pytest.approx(np.abs(x - x.sum() * p).sum(), rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("count", [0, 1, 300, 200_000])
@pytest.mark.parametrize("indexed", [False, True])
@pytest.mark.parametrize("masked", [False, True])
def test_masked_sums_are_the_sum_and_the_sum_where_the_mask_is_set(ops, count, indexed, masked):
    rng = np.random.default_rng(count)
    values, mask = rng.normal(size=count + 5), rng.random(count) < 0.3
    index = rng.choice(count + 5, count, replace=False) if indexed else slice(3, 3 + count)
    got = ops.masked_sums(ops.asarray(values), ops.asarray(index) if indexed else index,
                          ops.asarray(mask) if masked else None)
    x = values[index]
    assert got == pytest.approx([x.sum(), x[mask].sum() if masked else 0.0], rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("count", [0, 1, 300, 200_000])
@pytest.mark.parametrize("indexed", [False, True])
@pytest.mark.parametrize("weighted", [False, True])
def test_deviation_and_sums_are_l1_deviation_and_masked_sums_in_one_read(ops, count, indexed, weighted):
    rng = np.random.default_rng(count + 1)
    values, sums_of, weights = rng.normal(size=count + 5), rng.random(count + 5), rng.random(count + 5)
    mask = rng.random(count) < 0.3
    index = np.sort(rng.choice(count + 5, count, replace=False)) if indexed else slice(2, 2 + count)
    x, y = values[index], sums_of[index]
    p = weights[index] / weights[index].sum() if weighted else np.full(count, 1.0 / max(count, 1))
    before = DEVICE_CALLS.syncs
    got = ops.deviation_and_sums(ops.asarray(values), ops.asarray(sums_of), ops.asarray(index) if indexed else index,
                                 ops.asarray(mask), ops.asarray(weights) if weighted else None,
                                 float(weights[index].sum()))
    assert DEVICE_CALLS.syncs - before == 1
    want = [np.abs(x - x.sum() * p).sum(), y.sum(), y[mask].sum()]
    assert got == pytest.approx(want, rel=1e-12, abs=1e-12)


def _corrected(rank, residual, sources, t_old, t_new, at, arc_v, gain, alpha):
    """``Backend.pagerank_correct`` written out in plain NumPy (``rank`` and ``residual``
    changed in place); returns its sums."""
    before = rank[sources].copy()
    base = np.where(t_old > 0, t_old, t_new)
    per_unit = np.divide(alpha * before, base, out=np.zeros(sources.size), where=base > 0)
    np.add.at(residual, arc_v, per_unit[at] * gain)
    ratio = np.divide(t_new, t_old, out=np.ones(sources.size), where=t_old > 0)
    after = np.where((t_old > 0) & (t_new > 0), before * ratio, before)
    rank[sources] = after
    residual[sources] += before - after
    return [(after - before).sum(), before[(t_new == 0) & (t_old > 0)].sum(),
            before[(t_old == 0) & (t_new > 0)].sum()]


@pytest.mark.parametrize("count", [1, 300, 200_000])     # (200,000: more blocks than the GPU's launch has)
def test_pagerank_correct_matches_its_definition(ops, count):
    # totals that appear (0 -> t), vanish (t -> 0), stay 0, and arcs sharing ends (the GPU
    # adds them atomically)
    rng = np.random.default_rng(count)
    n = 2 * count + 10
    sources = rng.choice(n, count, replace=False)
    t_old, t_new = rng.integers(0, 4, count).astype(float), rng.integers(0, 4, count).astype(float)
    arcs = 3 * count
    at, arc_v, gain = rng.integers(0, count, arcs), rng.integers(0, 10, arcs), rng.normal(size=arcs)
    rank, residual = rng.random(n), rng.normal(size=n)
    arrays = [ops.asarray(a.copy()) for a in (rank, residual)]
    got = ops.pagerank_correct(*arrays, *(ops.asarray(a) for a in (sources, t_old, t_new, at, arc_v, gain)), 0.85)
    want = _corrected(rank, residual, sources, t_old, t_new, at, arc_v, gain, 0.85)
    assert got == pytest.approx(want, rel=1e-12, abs=1e-9)
    np.testing.assert_allclose(host(ops, arrays[0]), rank, rtol=1e-15)
    np.testing.assert_allclose(host(ops, arrays[1]), residual, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("inserted, deleted", [(0, 0), (1, 0), (0, 1), (300, 200), (150_000, 100_000)])
def test_pagerank_correct_arcs_is_pagerank_correct_with_unit_gains(ops, inserted, deleted):
    # distinct arcs, many a source; out-degrees before the batch of 0 to 2 besides the deleted
    # arcs, so that some sources are left without out-arcs and some had none before
    rng = np.random.default_rng(inserted + deleted)
    n = 1000 if inserted + deleted < 1000 else 300_000
    keys = rng.choice(n * n, inserted + deleted, replace=False)
    u, v = keys // n, keys % n
    kept = rng.integers(0, 3, n)
    degree = kept + np.bincount(u[:inserted], minlength=n)
    rank, residual = rng.random(n), rng.normal(size=n)
    arrays = [ops.asarray(a.copy()) for a in (rank, residual)]
    sources, sums = ops.pagerank_correct_arcs(*arrays, ops.asarray(degree), *(ops.asarray(a) for a in (
        u[:inserted], v[:inserted], u[inserted:], v[inserted:])), 0.85)
    distinct = np.unique(u)
    assert np.sort(host(ops, sources)).tolist() == distinct.tolist()
    t_old = (kept + np.bincount(u[inserted:], minlength=n))[distinct].astype(float)
    want = _corrected(rank, residual, distinct, t_old, degree[distinct].astype(float), np.searchsorted(distinct, u),
                      v, np.r_[np.ones(inserted), -np.ones(deleted)], 0.85)
    assert sums == pytest.approx(want, rel=1e-12, abs=1e-9)
    np.testing.assert_allclose(host(ops, arrays[0]), rank, rtol=1e-15)
    np.testing.assert_allclose(host(ops, arrays[1]), residual, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("personalised", [False, True])
@pytest.mark.parametrize("indexed", [False, True])
def test_pagerank_spread_is_one_pull_round(ops, indexed, personalised):
    # against its definition in plain NumPy (a GPU backend fuses it into two launches)
    rng = np.random.default_rng(5)
    n = 3000
    edges = {(int(a), int(b)): float(w) for a, b, w in zip(rng.integers(0, n, 20000), rng.zipf(1.5, 20000) % n,
                                                             rng.random(20000))}
    edges.update({(int(a), 7): 1.0 for a in range(0, n, 2)})         # a list long enough for a block
    adj = make_adjacency(ops, n, [(b, a, w) for (a, b), w in edges.items()])      # in-lists
    index = np.sort(rng.choice(n, n - 40, replace=False)) if indexed else slice(0, n)
    vertices = index if indexed else np.arange(n)
    factor = 0.85 / rng.integers(1, 9, vertices.size)
    dangling = rng.random(vertices.size) < 0.2
    factor[dangling] = 0.0
    rank, residual = rng.random(n), rng.normal(size=n)
    share = np.zeros(n)
    shift, teleport = 0.3, (rng.random(n) if personalised else None)
    amount = residual[vertices] + (shift * teleport[vertices] if personalised else shift)
    plan = ops.gather_plan(adj, ops.asarray(vertices))
    arrays = [ops.asarray(a.copy()) for a in (rank, residual, share)]
    sums, read = ops.pagerank_spread(plan, shift, None if teleport is None else ops.asarray(teleport),
                                     ops.asarray(factor), ops.asarray(dangling), *arrays,
                                     ops.asarray(index) if indexed else index)
    added, held = sums.get()
    share[vertices] = amount * factor
    received = np.zeros(n)
    for (a, b), _ in edges.items():     # unweighted pull over b's in-list
        received[b] += share[a]
    assert added == pytest.approx(amount.sum()) and held == pytest.approx(amount[dangling].sum())
    pulled = set(vertices.tolist())
    assert read == sum(1 for (_, b) in edges if b in pulled)
    rank[vertices] += amount
    residual[vertices] += received[vertices] - amount
    got_rank, got_residual, got_share = (host(ops, a) for a in arrays)
    np.testing.assert_allclose(got_rank, rank, rtol=1e-12)
    np.testing.assert_allclose(got_share, share, rtol=1e-12)
    np.testing.assert_allclose(got_residual, residual, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("personalised", [False, True])
def test_pagerank_spread_rounds_carry_the_teleport_share_from_round_to_round(ops, personalised):
    # three rounds in one call against three calls, the shift grown on the host from each's sums
    rng = np.random.default_rng(9)
    n = 2000
    edges = {(int(a), int(b)) for a, b in zip(rng.integers(0, n, 12000), rng.zipf(1.6, 12000) % n)}
    adj = make_adjacency(ops, n, [(b, a, 1.0) for a, b in edges])         # in-lists
    out_degree = np.bincount([a for a, _ in edges], minlength=n)
    dangling = out_degree == 0
    factor = np.where(dangling, 0.0, 0.85 / np.maximum(out_degree, 1))
    teleport = rng.random(n) if personalised else None
    divisor = float(teleport.sum()) if personalised else float(n)
    rank, residual = rng.random(n), rng.normal(scale=1e-3, size=n)
    plan = ops.gather_plan(adj, ops.asarray(np.arange(n)))
    args = [None if teleport is None else ops.asarray(teleport), ops.asarray(factor), ops.asarray(dangling)]
    together = [ops.asarray(a.copy()) for a in (rank, residual, np.zeros(n))]
    sums, read = ops.pagerank_spread(plan, 0.4, *args, *together, slice(0, n), 3, 0.85, divisor)
    apart, shift, added = [ops.asarray(a.copy()) for a in (rank, residual, np.zeros(n))], 0.4, [0.0, 0.0]
    for _ in range(3):
        round_sums, _ = ops.pagerank_spread(plan, shift, *args, *apart, slice(0, n))
        s, d = round_sums.get()
        shift += (0.85 * d + 0.15 * s) / divisor
        added = [added[0] + s, added[1] + d]
    assert read == 3 * len(edges)
    assert sums.get() == pytest.approx(added, rel=1e-9, abs=1e-12)
    for got, want in zip(together, apart):
        np.testing.assert_allclose(host(ops, got), host(ops, want), rtol=1e-11, atol=1e-14)


def test_hash_claim_find_build(ops):
    rng = np.random.default_rng(1)
    keys = np.unique(rng.integers(0, 2**40, 700))
    table = ops.asarray(np.full(2048, -1, dtype=np.int64))
    pos, replaced = ops.hash_claim(table, ops.asarray(keys))
    assert (host(ops, replaced) == -1).all() and len(set(host(ops, pos).tolist())) == keys.size
    assert (host(ops, ops.hash_find(table, ops.asarray(keys))) == host(ops, pos)).all()
    assert (host(ops, ops.hash_find(table, ops.asarray(keys + 2**41))) == -1).all()
    fresh = ops.asarray(np.full(2048, -1, dtype=np.int64))
    placed = ops.hash_build(fresh, ops.asarray(keys))
    assert (host(ops, ops.hash_find(fresh, ops.asarray(keys))) == host(ops, placed)).all()


def test_hash_claim_reports_what_each_key_replaced(ops):
    # keys racing for the same home slots, some landing on tombstones: each position
    # is claimed once, and ``replaced`` is what the table held there before
    rng = np.random.default_rng(2)
    keys = np.unique(rng.integers(0, 2**40, 300))
    table = ops.asarray(np.full(1024, -1, dtype=np.int64))
    first, _ = ops.hash_claim(table, ops.asarray(keys[:200]))
    table[first[::3]] = -2                                   # erase a third of them
    before = host(ops, table).copy()
    pos, replaced = ops.hash_claim(table, ops.asarray(keys[200:]))
    pos, replaced = host(ops, pos), host(ops, replaced)
    assert len(set(pos.tolist())) == pos.size
    assert (replaced == before[pos]).all() and set(replaced.tolist()) <= {-1, -2}
    assert (replaced == -2).any() and (host(ops, table)[pos] == keys[200:]).all()
    untouched = np.setdiff1d(np.arange(1024), pos)
    assert (host(ops, table)[untouched] == before[untouched]).all()


@pytest.mark.parametrize("seed", range(3))
def test_arc_find_claim_locate(ops, seed):
    """Arcs found through their lists, claimed onto empty and deleted positions,
    located by their slots; absent arcs (same source, or same home) not found."""
    rng = np.random.default_rng(seed)
    n = 60
    arcs = {(int(u), int(v)): 1.0 for u, v in rng.integers(0, n, (900, 2))}
    adj, index = indexed_arcs(ops, n, arcs)
    u, v = (np.array(x, dtype=np.int64) for x in zip(*sorted(arcs)))
    keys = ops.asarray((u << 32) | v)
    at = ops.arc_find(index.table, adj, keys)
    slots = host(ops, index.table)[host(ops, at)]
    assert (host(ops, at) >= 0).all() and (host(ops, adj.nbr)[slots] == v).all()
    assert (slots >= host(ops, adj.start)[u]).all() and (slots < host(ops, adj.start + adj.degree)[u]).all()
    assert host(ops, ops.arc_locate(index.table, keys, ops.asarray(slots))).tolist() == host(ops, at).tolist()
    absent = [(a, b) for a in range(n) for b in range(n) if (a, b) not in arcs][:300]
    absent_keys = np.array([(a << 32) | b for a, b in absent] + [-1, -(1 << 40)], dtype=np.int64)
    assert (host(ops, ops.arc_find(index.table, adj, ops.asarray(absent_keys))) == -1).all()

    # erase a third, then claim positions for arcs entered again at made-up slots
    gone = ops.asarray(np.arange(0, u.size, 3))
    table = index.table
    table[at[gone]] = DELETED_SLOT
    before = host(ops, table).copy()
    new_slots = np.arange(int(gone.size), dtype=np.int64) + 10**6
    pos, replaced = ops.arc_claim(table, keys[gone], ops.asarray(new_slots))
    pos, replaced = host(ops, pos), host(ops, replaced)
    assert len(set(pos.tolist())) == pos.size and (host(ops, table)[pos] == new_slots).all()
    assert (replaced == before[pos]).all() and set(replaced.tolist()) <= {EMPTY_SLOT, DELETED_SLOT}
    assert (replaced == DELETED_SLOT).any()
    untouched = np.setdiff1d(np.arange(table.size), pos)
    assert (host(ops, table)[untouched] == before[untouched]).all()
    assert host(ops, ops.arc_locate(table, keys[gone], ops.asarray(new_slots))).tolist() == pos.tolist()


def test_arc_locate_of_an_arc_not_in_the_index_raises(ops):
    """A broken index (an arc not at the slot it is looked for at) raises ``KeyError``: on
    the CPU at the call, on the GPU at the next synchronisation (a kernel cannot raise;
    a transaction's commit synchronises, so the batch rolls back), and only once."""
    adj, index = indexed_arcs(ops, 4, {(0, 1): 1.0, (1, 2): 1.0})
    absent = ops.asarray(np.array([(2 << 32) | 3], dtype=np.int64))
    with pytest.raises(KeyError, match="not in the index"):
        ops.arc_locate(index.table, absent, ops.asarray(np.array([0], dtype=np.int64)))
        ops.synchronize()
    ops.synchronize()
    present = ops.asarray(np.array([1 << 32 | 2], dtype=np.int64))
    slot = ops.asarray(host(ops, index.table)[host(ops, ops.arc_find(index.table, adj, present))])
    assert host(ops, ops.arc_locate(index.table, present, slot)).tolist() == host(
        ops, ops.arc_find(index.table, adj, present)).tolist()
    ops.synchronize()


@pytest.mark.parametrize("with_twin", [True, False])
def test_arc_erase_takes_the_entries_and_leaves_tombstones(ops, with_twin):
    rng = np.random.default_rng(5)
    n = 60
    arcs = {(int(u), int(v)): float(rng.integers(1, 9)) for u, v in rng.integers(0, n, (800, 2))}
    adj, index = indexed_arcs(ops, n, arcs)
    if with_twin:                               # (made-up twins: only carried, never followed here)
        adj.twin = ops.asarray(rng.integers(0, 2**32 - 2, adj.nbr.size).astype(SLOT_DTYPE))
    u, v = (np.array(x, dtype=np.int64) for x in zip(*sorted(arcs)))
    keys = (u << 32) | v
    at = host(ops, ops.arc_find(index.table, adj, ops.asarray(keys)))
    gone = rng.choice(keys.size, keys.size // 3, replace=False)
    table_before = host(ops, index.table).copy()
    slots, weights, twins = ops.arc_erase(index.table, adj, ops.asarray(at[gone]))
    want = table_before[at[gone]].astype(np.int64)
    assert host(ops, slots).tolist() == want.tolist()
    assert host(ops, weights).tolist() == host(ops, adj.wgt)[want].tolist()
    assert (twins is None) != with_twin
    if with_twin:
        assert host(ops, twins).tolist() == host(ops, adj.twin)[want].astype(np.int64).tolist()
    table = host(ops, index.table)
    assert (table[at[gone]] == DELETED_SLOT).all()
    kept = np.setdiff1d(np.arange(table.size), at[gone])
    assert (table[kept] == table_before[kept]).all()
    found = host(ops, ops.arc_find(index.table, adj, ops.asarray(keys)))
    assert (found[gone] == -1).all() and (np.delete(found, gone) == np.delete(at, gone)).all()


def rotated_lists(rng, start, degree, vertices):
    """Moves that rotate each list of ``vertices`` (of two entries or more) by one
    slot, every entry onto the slot the one before it leaves (a compaction's
    worst case for an index found while it is written): ``(owners, sources,
    targets)``, host arrays."""
    owners, sources, targets = [], [], []
    for u in vertices:
        first, d = int(start[u]), int(degree[u])
        if d < 2:
            continue
        slots = np.arange(first, first + d)
        owners += [u] * d
        sources += slots.tolist()
        targets += np.roll(slots, 1).tolist()
    return tuple(np.array(x, dtype=np.int64) for x in (owners, sources, targets))


def moved(ops, array, sources, targets):
    """``array`` with the entries at ``sources`` moved to ``targets`` (device arrays written in place)."""
    values = host(ops, array).copy()
    values[targets] = values[sources]
    array[...] = ops.asarray(values)


@pytest.mark.parametrize("seed", range(3))
def test_arc_repoint_follows_moved_entries(ops, seed):
    """Entries rotated within their lists (each onto a slot another moved entry left):
    the index finds every arc at its new slot, each position written once, its
    pre-image the old slot."""
    rng = np.random.default_rng(seed)
    n = 80
    arcs = {(int(u), int(v)): 1.0 for u, v in rng.integers(0, n, (1500, 2))}
    adj, index = indexed_arcs(ops, n, arcs)
    owners, sources, targets = rotated_lists(rng, host(ops, adj.start), host(ops, adj.degree),
                                             rng.choice(n, n // 2, replace=False))
    moved(ops, adj.nbr, sources, targets)
    positions, previous = ops.arc_repoint(index.table, adj, *(ops.asarray(x) for x in (owners, sources, targets)))
    positions, previous = host(ops, positions), host(ops, previous)
    assert len(set(positions.tolist())) == positions.size and previous.tolist() == sources.tolist()
    nbr, start, degree = host(ops, adj.nbr), host(ops, adj.start), host(ops, adj.degree)
    held = {(u, int(nbr[s])): s for u in range(n) for s in range(int(start[u]), int(start[u] + degree[u]))}
    keys = np.array([(u << 32) | v for u, v in held], dtype=np.int64)
    at = host(ops, ops.arc_find(index.table, adj, ops.asarray(keys)))
    assert host(ops, index.table)[at].tolist() == list(held.values())


@pytest.mark.parametrize("seed", range(3))
def test_follow_twins_points_out_entries_at_moved_in_entries(ops, seed):
    """In-entries rotated within their lists: each arc's out-entry (found through the
    index) gets its new in-slot as its twin, and only those twins change."""
    from cugraph_stream.engine.store import GraphStore

    rng = np.random.default_rng(seed)
    n = 80
    pairs = sorted({(int(u), int(v)) for u, v in rng.integers(0, n, (1500, 2))})
    u, v = (np.array(x, dtype=np.int64) for x in zip(*pairs))
    store = GraphStore(ops, True, np.float32)
    store.add_vertices(ops.asarray(np.arange(n)))
    store.load(ops.asarray(u), ops.asarray(v), ops.asarray(np.ones(u.size, np.float32)))
    out, inn = store.out, store.inn
    owners, sources, targets = rotated_lists(rng, host(ops, inn.start), host(ops, inn.degree),
                                             rng.choice(n, n // 2, replace=False))
    moved(ops, inn.nbr, sources, targets)
    twins_before = host(ops, out.twin).copy()
    slots, previous = ops.follow_twins(store.index.table, out, inn, *(ops.asarray(x) for x in (owners, targets)))
    slots, previous = host(ops, slots), host(ops, previous)
    assert previous.tolist() == sources.tolist() and (twins_before[slots] == previous).all()
    in_slot = {(int(w), int(x)): s for x in range(n) for s in range(int(host(ops, inn.start)[x]),
               int(host(ops, inn.start)[x] + host(ops, inn.degree)[x])) for w in [host(ops, inn.nbr)[s]]}
    out_nbr, out_start, out_degree = host(ops, out.nbr), host(ops, out.start), host(ops, out.degree)
    twin = host(ops, out.twin)
    for a in range(n):
        for s in range(int(out_start[a]), int(out_start[a] + out_degree[a])):
            assert twin[s] == in_slot[(a, int(out_nbr[s]))]
    untouched = np.setdiff1d(np.arange(twin.size), slots)
    assert (twin[untouched] == twins_before[untouched]).all()


def random_indexed_arcs(ops, seed):
    """An out-adjacency of 300 vertices with random arcs, its arc index, and the
    arcs' keys and slots: ``(adjacency, index, keys, slots)``."""
    rng = np.random.default_rng(seed)
    n = 300
    arcs = {(int(u), int(v)): 1.0 for u, v in rng.integers(0, n, (5000, 2))}
    adj, index = indexed_arcs(ops, n, arcs)
    u, v = (np.array(x, dtype=np.int64) for x in zip(*sorted(arcs)))
    keys = ops.asarray((u << 32) | v)
    slots = ops.asarray(host(ops, index.table)[host(ops, ops.arc_find(index.table, adj, keys))])
    return adj, index, keys, slots


def test_arc_build_matches_claims(ops):
    adj, index, keys, slots = random_indexed_arcs(ops, 3)
    for build in (True, False):
        table = ops.asarray(np.full(index.capacity, EMPTY_SLOT, dtype=SLOT_DTYPE))
        if build:
            ops.arc_build(table, keys, slots)
        else:
            ops.arc_claim(table, keys, slots)
        assert host(ops, ops.arc_find(table, adj, keys)).min() >= 0
        assert (np.sort(host(ops, table)[host(ops, table) < DELETED_SLOT]) == np.sort(host(ops, slots))).all()


@pytest.mark.parametrize("memory", ["device", "host"])
def test_a_table_builder_that_copies_its_own_table_writes_every_position(ops, memory):
    # ArcIndex.begin_build fills a new table with EMPTY_SLOT only where the builder enters
    # arcs into it; one that copies a working table (the GPU's, for a table in host memory)
    # must leave nothing of what the table held before
    adj, index, keys, slots = random_indexed_arcs(ops, 4)
    stale = DELETED_SLOT - 1                   # neither empty nor any arc's slot
    table = ops.aligned_empty(index.capacity, SLOT_DTYPE, memory=memory)
    table.fill(stale)
    builder = ops.arc_table_builder(table)
    if not builder.copies_whole_table:
        table.fill(EMPTY_SLOT)
    half = int(keys.size) // 2
    builder.enter(keys[:half], slots[:half])
    builder.enter(keys[half:], slots[half:])
    builder.finish()
    held = host(ops, table)
    assert not (held == stale).any()
    assert host(ops, ops.arc_find(table, adj, keys)).min() >= 0
    assert (np.sort(held[held < DELETED_SLOT]) == np.sort(host(ops, slots))).all()


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("rows, named", [(300, 50), (900, 3)])      # keys of 1-20 rows; of about 300 rows
@pytest.mark.parametrize("sorted_rows", [False, True])
def test_net_changes_follow_rows_in_order(ops, seed, rows, named, sorted_rows):
    """Rows in batch order or sorted by edge (with edges of more rows than the
    GPU's walk orders itself: its fallback); each changed edge comes back
    with its ends."""
    rng = np.random.default_rng(seed)
    stored = {int(k): float(rng.integers(1, 4)) for k in rng.choice(40, 20, replace=False)}
    adj, index = indexed_arcs(ops, 50, {(0, k): w for k, w in stored.items()})   # key k: the arc 0 -> k
    row_keys = rng.choice(rng.choice(50, named, replace=False), rows)
    row_ops = rng.choice(np.array([1, -1], dtype=np.int8), rows)
    row_w = rng.integers(1, 4, rows).astype(np.float64)
    order = np.argsort(row_keys, kind="stable") if sorted_rows else np.arange(rows)

    net = ops.net_changes(ops.asarray(np.zeros(rows, dtype=np.int64)), ops.asarray(row_keys[order]),
                          ops.asarray(row_ops[order]), ops.asarray(row_w[order]), index.table, adj)
    inserted, inserted_w, deleted, updated, updated_w, counts = (
        net.inserted_v, net.inserted_weights, net.deleted_v, net.updated_v, net.updated_weights, net.counts)
    assert host(ops, net.inserted_keys).tolist() == host(ops, inserted).tolist()     # (keys of arcs 0 -> k)
    for sources in (net.inserted_u, net.deleted_u, net.updated_u):
        assert not host(ops, sources).any()
    for found, at in ((deleted, net.deleted_at), (updated, net.updated_at)):     # where the index holds them
        assert host(ops, at).tolist() == host(ops, ops.arc_find(index.table, adj, found)).tolist()

    state, changed, ignored = dict(stored), set(), 0
    for k, o, w in zip(row_keys.tolist(), row_ops.tolist(), row_w.tolist()):
        if o == 1:
            changed |= {k} if state.get(k) != w else set()
            state[k] = w
        else:
            changed |= {k} if k in state else set()
            ignored += k not in state
            state.pop(k, None)
    named = set(row_keys.tolist())
    want_inserted = {k: state[k] for k in named if k in state and k not in stored}
    want_updated = {k: state[k] for k in named if k in state and k in stored and state[k] != stored[k]}
    assert dict(zip(host(ops, inserted).tolist(), host(ops, inserted_w).tolist())) == want_inserted
    assert dict(zip(host(ops, updated).tolist(), host(ops, updated_w).tolist())) == want_updated
    assert sorted(host(ops, deleted).tolist()) == sorted(k for k in named if k in stored and k not in state)
    same = {k for k in named if state.get(k) == stored.get(k)}
    assert counts == dict(inserted=len(want_inserted), deleted=int(deleted.size), weight_updated=len(want_updated),
                          unchanged=len({k for k in same - changed if k in stored}),
                          cancelled=len(same & changed), ignored=ignored)


@pytest.mark.parametrize("seed", range(3))
def test_close_holes_keeps_the_surviving_entries(ops, seed):
    rng = np.random.default_rng(seed)
    n = 6
    edges = [(int(u), int(v), float(v)) for u in range(n) for v in rng.choice(200, rng.integers(0, 90), replace=False)]
    adj = make_adjacency(ops, n, edges)
    lists = {u: [] for u in range(n)}
    start, degree = host(ops, adj.start), host(ops, adj.degree)
    for u in range(n):
        lists[u] = list(range(start[u], start[u] + degree[u]))
    nbr_before = host(ops, adj.nbr).copy()
    removed = np.array(sorted(s for u in range(n) for s in lists[u] if rng.random() < 0.4), dtype=np.int64)
    owners = np.array([u for s in removed for u in range(n) if s in lists[u]], dtype=np.int64)

    owner, source, target = (host(ops, a) for a in ops.close_holes(adj, ops.asarray(owners), ops.asarray(removed)))

    degree_after, nbr_after, wgt_after = host(ops, adj.degree), host(ops, adj.nbr), host(ops, adj.wgt)
    for u in range(n):
        kept = sorted(nbr_before[s] for s in lists[u] if s not in set(removed.tolist()))
        now = nbr_after[start[u]:start[u] + degree_after[u]]
        assert sorted(now.tolist()) == kept and (wgt_after[start[u]:start[u] + degree_after[u]] == now).all()
    assert (nbr_after[target] == nbr_before[source]).all()
    assert set(target.tolist()) <= set(removed.tolist())
    assert all(start[o] <= t < start[o] + degree_after[o] for o, t in zip(owner, target))


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("rows", [1, 40, 9000])          # one row; one block on a GPU; four launches there
@pytest.mark.parametrize("with_twin", [False, True])
def test_remove_entries_in_any_order_and_undo(ops, seed, rows, with_twin):
    """Rows in any order: every list keeps its other entries (in its first
    positions), each move carries what its source holds, every target was a
    removed slot below the list's new degree; the pre-images undo it all, as
    the journal does; the per-list scratch is left clean for the next call."""
    rng = np.random.default_rng(seed)
    n = 64
    degrees = rng.integers(0, 400, n)
    degrees[:3] = [0, 1, 2000]                         # an empty list, one entry, a hub
    u = np.repeat(np.arange(n), degrees)
    v = rng.integers(0, 10**6, u.size)
    adj = Adjacency(ops, np.float32, with_twin=with_twin)
    adj.ensure_vertices(n)
    w = rng.standard_normal(u.size).astype(np.float32)
    w[::5] = np.finfo(np.float32).smallest_subnormal          # kept bit for bit
    adj.build(ops.asarray(u), ops.asarray(v), ops.asarray(w))
    if with_twin:
        adj.twin[:] = ops.asarray(rng.integers(0, 2**32 - 3, adj.twin.size).astype(SLOT_DTYPE))
    before = {name: host(ops, getattr(adj, name)).copy() for name in ("nbr", "wgt", "twin", "degree", "start")
              if getattr(adj, name) is not None}
    start, degree = before["start"][:n], before["degree"][:n]
    slots = np.concatenate([np.arange(start[x], start[x] + degree[x]) for x in range(n)])
    owners = np.repeat(np.arange(n), degree)
    pick = rng.choice(slots.size, min(rows, slots.size), replace=False)       # unsorted
    slots, owners = slots[pick], owners[pick]
    for keep in (True, False):
        removed = ops.remove_entries(adj, ops.asarray(owners), ops.asarray(slots), keep)
        removed = removed.read(*ops.read_counts(removed.count))
        after = {name: host(ops, getattr(adj, name)) for name in before}
        gone = set(slots.tolist())
        for x in range(n):
            kept = sorted((before["nbr"][s], before["wgt"][s].tobytes()) for s in range(start[x], start[x] + degree[x])
                          if s not in gone)
            assert after["degree"][x] == len(kept)
            now = range(start[x], start[x] + after["degree"][x])
            assert sorted((after["nbr"][s], after["wgt"][s].tobytes()) for s in now) == kept
        owner, source, target = (host(ops, a) for a in (removed.owner, removed.source, removed.target))
        assert set(target.tolist()) <= gone and not set(source.tolist()) & gone
        assert all(start[o] <= t < start[o] + after["degree"][o] <= s for o, s, t in zip(owner, source, target))
        for name in ("nbr", "wgt", "twin"):
            if name in before:
                assert after[name][target].tobytes() == before[name][source].tobytes()
        if not keep:
            assert removed.removed is None and removed.moved is None
            break
        arrays = (adj.nbr, adj.wgt, adj.twin)
        for array, name, values in zip(arrays, ("nbr", "wgt", "twin"), removed.moved):
            if array is not None:
                assert host(ops, values).tobytes() == before[name][source].tobytes()
        for array, values in zip(arrays, removed.removed):      # undo, as Journal.rollback does
            if array is not None:
                array[removed.slots] = values
        adj.degree[removed.lists] = removed.degree
        for name in before:
            assert host(ops, getattr(adj, name)).tobytes() == before[name].tobytes(), name


def paired_adjacencies(ops, n, arcs, dtype, rng):
    """The out-adjacency (with twins, random ones) and in-adjacency of ``arcs``
    (``(src, dst)``, distinct) over ``n`` vertices, as a directed store holds them."""
    src, dst = arcs
    out, inn = Adjacency(ops, dtype, with_twin=True), Adjacency(ops, dtype, with_twin=False)
    w = rng.standard_normal(src.size).astype(dtype)
    w[::5] = np.finfo(dtype).smallest_subnormal             # kept bit for bit
    for adj, (a, b) in ((out, (src, dst)), (inn, (dst, src))):
        adj.ensure_vertices(n)
        adj.build(ops.asarray(a), ops.asarray(b), ops.asarray(w), src_sorted=adj is out)
    out.twin[:] = ops.asarray(rng.integers(0, 2**32 - 3, out.twin.size).astype(SLOT_DTYPE))
    return out, inn


def arc_slots(ops, adj, owners, neighbours):
    """The slot of each arc ``owners[i] -> neighbours[i]`` in ``adj``'s lists."""
    start, degree, nbr = host(ops, adj.start), host(ops, adj.degree), host(ops, adj.nbr)
    where = {(o, int(nbr[s])): s for o in set(owners.tolist()) for s in range(start[o], start[o] + degree[o])}
    return np.array([where[o, b] for o, b in zip(owners.tolist(), neighbours.tolist())], dtype=np.int64)


# (5,000 rows: past the one block a GPU adjacency removes them in)
@pytest.mark.parametrize("rows", [0, 1, 80, 5000])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("keep", [True, False])
def test_remove_arcs_removes_from_both_adjacencies_as_remove_entries_does_from_each(ops, rows, dtype, keep):
    """The deleted arcs' out-entries (with twins) and in-entries, rows in any
    order: each adjacency ends as remove_entries leaves it alone, each side's
    moves and pre-images are its own, and the pre-images undo it all."""
    rng = np.random.default_rng(rows)
    n = 64
    key = np.unique(rng.integers(0, n, 9000) * n + rng.integers(0, n, 9000))
    key = np.concatenate((key, np.arange(1, n) * n))        # a hub: 0 <- every other vertex
    key = np.unique(key)
    src, dst = key // n, key % n
    pick = rng.permutation(src.size)[:rows]
    u, v = src[pick], dst[pick]
    paired, single = (paired_adjacencies(ops, n, (src, dst), dtype, np.random.default_rng(rows)) for _ in range(2))
    before = [{name: host(ops, getattr(adj, name)).copy() for name in ("nbr", "wgt", "twin", "degree")
               if getattr(adj, name) is not None} for adj in paired]
    slots = [arc_slots(ops, paired[0], u, v), arc_slots(ops, paired[1], v, u)]
    removed = ops.remove_arcs(paired, (ops.asarray(u), ops.asarray(v)), tuple(ops.asarray(s) for s in slots), keep)
    counts = ops.read_counts(*(r.count for r in removed))
    alone = [ops.remove_entries(adj, ops.asarray(o), ops.asarray(s), keep)
             for adj, o, s in zip(single, (u, v), slots)]
    ops.read_counts(*(r.count for r in alone))
    for adj, other, r, count, state in zip(paired, single, removed, counts, before):
        r = r.read(count)
        start, degree = host(ops, adj.start)[:n], host(ops, adj.degree)[:n]
        assert degree.tolist() == host(ops, other.degree)[:n].tolist()
        lists = [[sorted(zip(*(host(ops, getattr(a, name))[s:s + d].tolist() for name in ("nbr", "wgt", "twin")
                                if getattr(a, name) is not None))) for s, d in zip(start, degree)]
                 for a in (adj, other)]
        assert lists[0] == lists[1]                             # each list holds the same entries
        source, target = host(ops, r.source), host(ops, r.target)
        for name in state:
            if name != "degree":
                assert host(ops, getattr(adj, name))[target].tobytes() == state[name][source].tobytes()
        if not keep:
            assert r.removed is None
            continue
        for array, values in zip((adj.nbr, adj.wgt, adj.twin), r.removed):     # undo, as Journal.rollback does
            if array is not None:
                array[r.slots] = values
        adj.degree[r.lists] = r.degree
        for name in state:
            assert host(ops, getattr(adj, name)).tobytes() == state[name].tobytes(), name


def test_remove_arcs_that_fails_midway_changes_nothing():
    """Where the second adjacency's removal fails, the first's is undone before the
    error is raised (the journal has entered neither)."""
    from cugraph_stream.backends import get_backend
    from cugraph_stream.backends.faults import FaultInjector

    ops = get_backend("cpu")
    rng = np.random.default_rng(3)
    n = 30
    key = np.unique(rng.integers(0, n, 400) * n + rng.integers(0, n, 400))
    src, dst = key // n, key % n
    adjs = paired_adjacencies(ops, n, (src, dst), np.float32, rng)
    before = [{name: host(ops, getattr(adj, name)).copy() for name in ("nbr", "wgt", "twin", "degree")
               if getattr(adj, name) is not None} for adj in adjs]
    u, v = src[::3], dst[::3]
    slots = (arc_slots(ops, adjs[0], u, v), arc_slots(ops, adjs[1], v, u))
    copies = paired_adjacencies(ops, n, (src, dst), np.float32, rng)
    with FaultInjector(ops) as counter:                 # the calls of a removal, counted on copies
        ops.remove_arcs(copies, (u, v), slots)
    second = [k for k, name in enumerate(counter.names) if name == "remove_entries"][1]
    with FaultInjector(ops, at=second) as fault:        # the second adjacency's removal fails
        with pytest.raises(MemoryError):
            ops.remove_arcs(adjs, (u, v), slots)
    assert fault.fired
    for adj, state in zip(adjs, before):
        for name in state:
            assert host(ops, getattr(adj, name)).tobytes() == state[name].tobytes(), name


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("kept", [False, True])
def test_place_entries_fills_lists_with_room_and_reports_the_others(ops, seed, dtype, kept):
    """Rows in any order where the backend takes them so (grouped by owner
    otherwise); rows placed before are left alone; a second call after the
    outgrown lists moved places the rest (the per-list scratch starts clean),
    with what the first call kept or without it."""
    rng = np.random.default_rng(seed)
    n, rows = 12, 80
    adj = Adjacency(ops, dtype, with_twin=False)
    adj.ensure_vertices(n)
    key = np.unique(rng.integers(0, n, 150) * n + rng.integers(0, n, 150))
    u, v = key // n, key % n
    adj.build(ops.asarray(u), ops.asarray(v), ops.asarray(rng.integers(1, 9, u.size).astype(dtype)))
    owners = rng.choice(n, rows, p=np.arange(1, n + 1) / (n * (n + 1) / 2))      # a few long lists
    neighbours = rng.integers(0, 1000, rows)
    weights = rng.integers(1, 99, rows).astype(dtype)
    weights[::7] = np.finfo(dtype).smallest_subnormal * rng.integers(1, 9, weights[::7].size)
    preset = rng.random(rows) < 0.2
    if not ops.place_entries_any_order:
        order = np.argsort(owners, kind="stable")
        owners, neighbours, weights, preset = owners[order], neighbours[order], weights[order], preset[order]
    start, degree, capacity = (host(ops, a)[:n].copy() for a in (adj.start, adj.degree, adj.capacity))
    nbr_before, wgt_before = host(ops, adj.nbr).copy(), host(ops, adj.wgt).copy()
    pending = np.bincount(owners[~preset], minlength=n)
    fits = degree + pending <= capacity
    slots = ops.asarray(np.where(preset, 10**9, -1))

    placement = ops.place_entries(adj, ops.asarray(owners), ops.asarray(neighbours), ops.asarray(weights), slots,
                                  degrees=True)
    outgrown, need = placement.read(*ops.read_counts(placement.count))

    assert host(ops, placement.old_degree).tolist() == degree[owners].tolist()     # every row's, before the call
    assert dict(zip(host(ops, outgrown).tolist(), host(ops, need).tolist())) == {
        x: int(degree[x] + pending[x]) for x in range(n) if not fits[x]}
    got = host(ops, slots)
    assert (got[preset] == 10**9).all()
    assert (got[~preset & ~fits[owners]] < 0).all()
    placed = ~preset & fits[owners]
    assert (host(ops, adj.degree)[:n] == np.where(fits, degree + pending, degree)).all()
    nbr, wgt = host(ops, adj.nbr), host(ops, adj.wgt)
    for x in range(n):
        mine = got[placed & (owners == x)]
        assert sorted(mine.tolist()) == list(range(start[x] + degree[x], start[x] + degree[x] + len(mine)))
    assert (nbr[got[placed]] == neighbours[placed]).all() and (wgt[got[placed]] == weights[placed]).all()
    untouched = np.ones(nbr.size, dtype=bool)
    untouched[got[placed]] = False
    bits = {4: np.int32, 8: np.int64}[wgt.itemsize]          # (unused slots may hold NaNs)
    assert (nbr[untouched] == nbr_before[untouched]).all()
    assert (wgt.view(bits)[untouched] == wgt_before.view(bits)[untouched]).all()

    adj._relocate(outgrown, need)           # the outgrown lists move; the rest of the rows follow them
    again = ops.place_entries(adj, ops.asarray(owners), ops.asarray(neighbours), ops.asarray(weights), slots,
                              must_fit=True, kept=placement.kept if kept else None)
    assert again.old_degree is None
    ops.synchronize()                       # (a device reports a list that lacked room here)
    got, nbr, wgt = host(ops, slots), host(ops, adj.nbr), host(ops, adj.wgt)
    assert (got[preset] == 10**9).all() and (got[~preset] >= 0).all()
    assert (host(ops, adj.degree)[:n] == degree + pending).all()
    assert (nbr[got[~preset]] == neighbours[~preset]).all() and (wgt[got[~preset]] == weights[~preset]).all()
    start, degree = host(ops, adj.start), host(ops, adj.degree)
    assert all(start[o] <= s < start[o] + degree[o] for o, s in zip(owners[~preset], got[~preset]))
    assert np.unique(got[~preset]).size == int((~preset).sum())


# (5,000 rows: past the one block a GPU adjacency places them in)
@pytest.mark.parametrize("rows", [0, 1, 80, 5000])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_place_arcs_places_in_both_adjacencies_as_place_entries_does_in_each(ops, rows, dtype):
    """The arcs in the out-adjacency and their reverses in the in-adjacency, rows in
    any order: each list gets what place_entries gives it (or reports the degree it
    needs), and each row's slot in either adjacency holds it."""
    rng = np.random.default_rng(rows)
    n = 40
    key = np.unique(rng.integers(0, n, 300) * n + rng.integers(0, n, 300))
    src, dst = key // n, key % n
    weights0 = rng.integers(1, 9, src.size).astype(dtype)

    def built():
        out, inn = (Adjacency(ops, dtype, with_twin=False) for _ in range(2))
        for adj, (a, b) in ((out, (src, dst)), (inn, (dst, src))):
            adj.ensure_vertices(n)
            adj.build(ops.asarray(a), ops.asarray(b), ops.asarray(weights0), src_sorted=adj is out)
        return out, inn

    u = rng.choice(n, rows, p=np.arange(1, n + 1) / (n * (n + 1) / 2))       # a few long lists
    v = rng.integers(0, n, rows)
    w = rng.integers(1, 99, rows).astype(dtype)
    paired, single = built(), built()
    placements = ops.place_arcs(paired, ops.asarray(u), ops.asarray(v), ops.asarray(w), degrees=True)
    counts = ops.read_counts(*(p.count for p in placements))
    for adj, alone, (owners, neighbours), placement, count in zip(paired, single, ((u, v), (v, u)), placements,
                                                                  counts):
        degree = host(ops, alone.degree)[:n].copy()
        order = np.argsort(owners, kind="stable") if not ops.place_entries_any_order else np.arange(rows)
        expected = ops.place_entries(alone, ops.asarray(owners[order]), ops.asarray(neighbours[order]),
                                     ops.asarray(w[order]))
        outgrown, need = placement.read(count)
        want_outgrown, want_need = expected.read(*ops.read_counts(expected.count))
        assert (dict(zip(host(ops, outgrown).tolist(), host(ops, need).tolist()))
                == dict(zip(host(ops, want_outgrown).tolist(), host(ops, want_need).tolist())))
        assert host(ops, placement.old_degree).tolist() == degree[owners].tolist()
        assert host(ops, adj.degree)[:n].tolist() == host(ops, alone.degree)[:n].tolist()
        lists = [[sorted(zip(nbr[s:s + d].tolist(), wgt[s:s + d].tolist())) for s, d in zip(start[:n], size[:n])]
                 for start, size, nbr, wgt in ((host(ops, a.start), host(ops, a.degree), host(ops, a.nbr),
                                                host(ops, a.wgt)) for a in (adj, alone))]
        assert lists[0] == lists[1]         # each list holds the same entries
        start, size = host(ops, adj.start)[:n], host(ops, adj.degree)[:n]
        slots = host(ops, placement.slots)
        fits = slots >= 0
        assert (fits == (host(ops, expected.slots)[np.argsort(order)] >= 0)).all()
        assert (host(ops, adj.nbr)[slots[fits]] == neighbours[fits]).all()
        assert (host(ops, adj.wgt)[slots[fits]] == w[fits]).all()
        assert all(start[o] <= s < start[o] + size[o] for o, s in zip(owners[fits], slots[fits]))


def test_place_entries_without_slots_places_every_row_in_fresh_slots(ops):
    """``slots=None``: every row is new; the Placement's slots say where each went
    (-1 where its list lacks room), and a second call with them places the rest."""
    adj = Adjacency(ops, np.float64, with_twin=False)
    adj.ensure_vertices(3)
    adj.build(ops.asarray(np.array([0, 1, 2])), ops.asarray(np.array([1, 2, 0])), ops.asarray(np.ones(3)))
    room = int(host(ops, adj.capacity)[1]) - 1                # list 1 takes this many more (list 2 one)
    owners = np.array([1] * room + [0] * (room + 5) + [2])    # list 0 outgrows its room
    neighbours = np.arange(owners.size)
    if not ops.place_entries_any_order:
        order = np.argsort(owners, kind="stable")
        owners, neighbours = owners[order], neighbours[order]
    placement = ops.place_entries(adj, ops.asarray(owners), ops.asarray(neighbours),
                                  ops.asarray(np.ones(owners.size)))
    outgrown, need = placement.read(*ops.read_counts(placement.count))
    assert host(ops, outgrown).tolist() == [0] and host(ops, need).tolist() == [1 + room + 5]
    slots = host(ops, placement.slots)
    assert (slots[owners == 0] < 0).all() and (slots[owners != 0] >= 0).all()
    assert (host(ops, adj.nbr)[slots[owners != 0]] == neighbours[owners != 0]).all()
    adj._relocate(outgrown, need)
    ops.place_entries(adj, ops.asarray(owners), ops.asarray(neighbours), ops.asarray(np.ones(owners.size)),
                      placement.slots, must_fit=True, kept=placement.kept)
    ops.synchronize()
    slots = host(ops, placement.slots)
    assert (slots >= 0).all() and (host(ops, adj.nbr)[slots] == neighbours).all()


@pytest.mark.parametrize("kept", [False, True])
def test_place_entries_that_must_fit_raise_where_a_list_lacks_room(ops, kept):
    """``must_fit`` promises room; a list without it is a broken invariant: the
    host raises at the call, a device at the next synchronize (also where the
    rows go to the places a first call kept for them)."""
    adj = Adjacency(ops, np.float64, with_twin=False)
    adj.ensure_vertices(2)
    adj.build(ops.asarray(np.array([0])), ops.asarray(np.array([1])), ops.asarray(np.array([1.0])))
    rows = 4 * int(host(ops, adj.capacity)[0])              # more than list 0 holds
    owners, neighbours = ops.asarray(np.zeros(rows, dtype=np.int64)), ops.asarray(np.ones(rows, dtype=np.int64))
    slots, first = ops.asarray(np.full(rows, -1)), None
    if kept:                                # (a first call finds the list without room; it does not move)
        first = ops.place_entries(adj, owners, neighbours, ops.asarray(np.ones(rows)))
        slots = first.slots
        assert ops.read_counts(first.count) == [1]
    with pytest.raises(RuntimeError, match="must_fit|given room"):
        ops.place_entries(adj, owners, neighbours, ops.asarray(np.ones(rows)), slots, must_fit=True,
                          kept=None if first is None else first.kept)
        ops.synchronize()
    ops.synchronize()                       # the fault is reported once


def test_read_counts_reads_device_counts_together_and_passes_host_ints(ops):
    counts = [ops.asarray(np.array([7], dtype=np.uint64)), 3, ops.asarray(np.array([0], dtype=np.int64))]
    before = ops.calls.snapshot()
    assert ops.read_counts(*counts) == [7, 3, 0]
    assert ops.calls.since(before) == (1, 1)


# (on the GPU, 3000: more than one chunk for one block; 70,000: a block a chunk, the last one
# partial; 1,100,000: more chunks than the block that makes their offsets walks at once)
@pytest.mark.parametrize("lists,counted", [(lists, counted) for lists in (0, 1, 37, 3000, 70_000)
                                           for counted in (None, "host", "device")]
                         + [(1_100_000, "device")])
def test_plan_moves_lays_fresh_room_out_by_size_class(ops, lists, counted):
    """Each list gets the size class of 1.5x its need; whole units first, then each
    smaller class, in the lists' order within a class: every list starts at a
    multiple of its class, and the total is padded to whole units.  Given a
    count (``counted``: a host int, or a count left on the device, which the
    GPU's kernels read there), only that many of the lists are planned, the
    rest of the arrays a bound the plan's ``read`` trims away."""
    rng = np.random.default_rng(lists)
    n, align, base = max(4000, lists + 1000), 32, 1 << 20
    adj = Adjacency(ops, np.float32, with_twin=False)
    adj.ensure_vertices(n)
    start, degree = rng.integers(0, 1 << 19, n), rng.integers(0, 300, n)
    degree = np.where(rng.random(n) < 0.6, rng.integers(0, 12, n), degree)        # (many small lists)
    capacity = degree + rng.integers(0, 40, n)
    for name, values in (("start", start), ("degree", degree), ("capacity", capacity)):
        getattr(adj, name)[:n] = ops.asarray(values)
    vertices = rng.choice(n, lists, replace=False)
    need = degree[vertices] + rng.integers(1, 200, lists) * (rng.random(lists) < 0.5) + 1
    if counted is None:
        plan = ops.plan_moves(adj, ops.asarray(vertices), ops.asarray(need), base, align)
    else:                                   # (past the count: other lists, and needs, that must not count)
        extra = np.setdiff1d(np.arange(n), vertices)[:50]
        count = lists if counted == "host" else ops.asarray(np.array([lists], dtype=np.uint64))
        bounded = (ops.asarray(np.concatenate((vertices, extra))),
                   ops.asarray(np.concatenate((need, np.full(extra.size, 500)))))
        before = ops.calls.snapshot()
        plan = ops.plan_moves(adj, *bounded, base, align, count=count)
        assert ops.calls.since(before) == (1, 0)
        plan = plan.read(*ops.read_counts(*plan.counts), count=lists)

    def size_class(slots):
        if slots >= align:
            return -(-slots // align) * align
        return max(1 << (slots - 1).bit_length(), 4)

    room = [size_class(x + x // 2) for x in need.tolist()]
    new_start, at = [None] * lists, base
    for cls in sorted({min(r, align) for r in room}, reverse=True):       # whole units, then 16, 8, 4
        for i, r in enumerate(room):
            if min(r, align) == cls:
                new_start[i], at = at, at + r
    padding = -(at - base) % align
    assert host(ops, plan.room).tolist() == room
    assert host(ops, plan.new_start).tolist() == new_start
    assert all(s % min(r, align) == 0 for s, r in zip(new_start, room))
    assert host(ops, plan.first).tolist() == (np.cumsum(degree[vertices]) - degree[vertices]).tolist()
    assert host(ops, plan.old_start).tolist() == start[vertices].tolist()
    assert host(ops, plan.old_capacity).tolist() == capacity[vertices].tolist()
    before = ops.calls.snapshot()
    totals = ops.read_counts(*plan.counts)          # (left on the device: read with other counts)
    assert ops.calls.since(before) == (1, 1)
    assert totals == [at - base + padding, int(degree[vertices].sum()), int(capacity[vertices].sum()) + padding]
    assert plan.read(*totals).counts == tuple(totals)


# (large ids: on the CPU, more ids than its counting sorts take, up to the largest id an
# arc key holds; sorted: rows already in arc order, which the CPU does not sort again)
@pytest.mark.parametrize("rows,case", [(0, ""), (1, ""), (5000, ""), (5000, "large ids"), (5000, "sorted")])
def test_last_rows_by_arc_keep_each_arcs_last_row_in_arc_order(ops, rows, case):
    rng = np.random.default_rng(rows)
    u, v = rng.integers(0, 40, rows), rng.integers(0, 40, rows)          # (many repeated arcs)
    if case == "large ids":
        u[: rows // 10] = 2**31 - 1
    if case == "sorted":
        by_arc = np.lexsort((v, u))
        u, v = u[by_arc], v[by_arc]
    got = host(ops, ops.last_rows_by_arc(ops.asarray(u), ops.asarray(v)))
    last = {}
    for i, arc in enumerate(zip(u.tolist(), v.tolist())):
        last[arc] = i
    assert got.tolist() == [last[arc] for arc in sorted(last)]


@pytest.mark.parametrize("entries", [0, 1, 5000])
@pytest.mark.parametrize("owners_sorted", [False, True])
def test_slots_in_lists_keep_each_lists_entries_in_order(ops, entries, owners_sorted):
    rng = np.random.default_rng(entries)
    lists = 300
    owners = rng.integers(0, lists, entries)
    if owners_sorted:
        owners.sort()
    start = rng.permutation(lists) * 100                  # (room for 100 entries a list)
    got = host(ops, ops.slots_in_lists(ops.asarray(owners), ops.asarray(start), owners_sorted=owners_sorted))
    expected, seen = [], {}
    for o in owners.tolist():
        expected.append(int(start[o]) + seen.get(o, 0))
        seen[o] = seen.get(o, 0) + 1
    assert got.tolist() == expected


# (on the GPU, 3000 lists: several blocks of lists and of entries; one list of 2,000 entries)
@pytest.mark.parametrize("n", [5, 3000])
def test_move_lists_moves_whole_lists_and_reports_every_entry(ops, n):
    rng = np.random.default_rng(3)
    degrees = [3, 0, 40, 7, 33] if n == 5 else np.where(rng.random(n) < 0.3, 0, rng.integers(1, 9, n))
    if n > 5:
        degrees[n // 2] = 2000
    edges = [(u, int(v), float(v)) for u in range(n) for v in rng.choice(2 * max(degrees), degrees[u], replace=False)]
    adj = make_adjacency(ops, n, edges)
    adj.twin = ops.asarray(np.arange(adj.slot_capacity, dtype=np.int64) + 1000)
    vertices = np.array([3, 1, 2]) if n == 5 else rng.permutation(n)[:2 * n // 3]
    start, degree = host(ops, adj.start).copy(), host(ops, adj.degree)
    before = {name: host(ops, getattr(adj, name)).copy() for name in ("nbr", "wgt", "twin")}
    room = np.full(vertices.size, 2048)
    adj._ensure_slots(adj.end + int(room.sum()))
    new_start = adj.end + np.cumsum(room) - room
    first = np.concatenate(([0], np.cumsum(degree[vertices])[:-1]))

    owner, source, target = (host(ops, a) for a in ops.move_lists(
        adj, ops.asarray(vertices), ops.asarray(new_start), ops.asarray(room), ops.asarray(first),
        int(degree[vertices].sum())))

    assert host(ops, adj.start)[vertices].tolist() == new_start.tolist()
    assert host(ops, adj.capacity)[vertices].tolist() == room.tolist()
    expected_source = np.concatenate([np.arange(start[u], start[u] + degree[u]) for u in vertices])
    assert source.tolist() == expected_source.tolist()
    assert owner.tolist() == np.repeat(vertices, degree[vertices]).tolist()
    assert target.tolist() == np.concatenate([np.arange(s, s + degree[u]) for u, s in zip(vertices, new_start)]).tolist()
    for name, old in before.items():
        assert (host(ops, getattr(adj, name))[target] == old[source]).all()


@pytest.mark.parametrize("id_formats", [(4, 3), (3, 3), (3, 4), (4, 4)])
def test_copy_lists_copies_every_entry_between_formats(ops, id_formats):
    from cugraph_stream.chunk_layout import read_ids, write_ids

    rng = np.random.default_rng(sum(id_formats))
    lengths = np.array([0, 1, 5, 3000, 0, 64, 2], dtype=np.int64)
    size = int(lengths.sum()) + 500
    source_start = np.r_[0, np.cumsum(lengths)[:-1]] + 100
    target_start = np.r_[0, np.cumsum(lengths[::-1])[:-1]][::-1] + 7        # reversed order, shifted

    def ids_array(id_bytes, ids):
        array = np.zeros((size, 3), dtype=np.uint8) if id_bytes == 3 else np.zeros(size, dtype=np.int32)
        write_ids(np, array, np.arange(size), ids)
        return array

    ids = rng.integers(0, 1 << 24, size)
    if id_formats[0] == 4:          # as a load reads the host store: in place, from host memory
        source_ids = ops.aligned_empty(size, np.int32, memory="host")
        source_ids[:] = ops.asarray(ids_array(4, ids))
    else:
        source_ids = ops.asarray(ids_array(3, ids))
    target_ids = ops.asarray(ids_array(id_formats[1], np.full(size, -1 & 0xFFFFFF)))
    weights32, weights64 = rng.random(size).astype(np.float32), rng.random(size)
    target32, target64 = ops.asarray(np.zeros(size, np.float32)), ops.asarray(np.zeros(size))
    ops.copy_lists([(source_ids, target_ids), (ops.asarray(weights32), target32), (ops.asarray(weights64), target64)],
                   ops.asarray(source_start), ops.asarray(target_start), ops.asarray(lengths))

    expected_ids, expected32, expected64 = np.full(size, 0xFFFFFF), np.zeros(size, np.float32), np.zeros(size)
    for s, t, d in zip(source_start, target_start, lengths):
        expected_ids[t:t + d] = ids[s:s + d]
        expected32[t:t + d], expected64[t:t + d] = weights32[s:s + d], weights64[s:s + d]
    assert (read_ids(np.asarray(host(ops, target_ids)), slice(None)) == expected_ids).all()
    assert (host(ops, target32) == expected32).all() and (host(ops, target64) == expected64).all()
    ops.copy_lists([(source_ids, target_ids)], *(ops.asarray(np.zeros(0, np.int64)) for _ in range(3)))


def test_lookup_sorted_pairs_equal_keys_only(ops):
    keys = np.array([-2**63, -5, 0, 7, 2**62], dtype=np.int64)
    values = np.array([4, 3, 2, 1, 0], dtype=np.int64)
    queries = np.array([7, 8, -2**63, 2**62, 2**63 - 1, -6, 0], dtype=np.int64)
    found = ops.lookup_sorted(ops.asarray(keys), ops.asarray(values), ops.asarray(queries))
    assert host(ops, found).tolist() == [1, -1, 4, 0, -1, -1, 2]
    empty = ops.asarray(np.empty(0, dtype=np.int64))
    assert host(ops, ops.lookup_sorted(empty, empty, ops.asarray(queries))).tolist() == [-1] * queries.size
    # a lookup of the queries an earlier one missed: ids found before are kept, even where
    # these keys would pair the query with another value
    before = np.array([5, -1, -1, 6, -1, 9, -1], dtype=np.int64)
    found_before = ops.asarray(before)
    again = ops.lookup_missing(ops.asarray(keys), ops.asarray(values), ops.asarray(queries), found_before)
    assert host(ops, again).tolist() == [5, -1, 4, 6, -1, 9, 2]
    assert host(ops, found_before).tolist() == before.tolist()           # (a new array)
    assert host(ops, ops.lookup_missing(empty, empty, ops.asarray(queries), found_before)).tolist() == \
        before.tolist()


def test_lookup_dense_reads_the_table_inside_its_range_only(ops):
    table = ops.asarray(np.array([4, -1, 9, 0], dtype=np.int32))
    queries = ops.asarray(np.array([2, 3, 4, -1, 1, 0, 2**62, -2**63], dtype=np.int64))
    found = ops.lookup_dense(table, queries)
    assert found.dtype == np.int64 and host(ops, found).tolist() == [9, 0, -1, -1, -1, 4, -1, -1]
    empty = ops.asarray(np.empty(0, dtype=np.int64))
    assert host(ops, ops.lookup_dense(empty, queries)).tolist() == [-1] * 8
    # the lookups of vertices read a dense map given as (map, None)
    assert host(ops, ops.lookup_sorted(table, None, queries)).tolist() == [9, 0, -1, -1, -1, 4, -1, -1]
    known = ops.asarray(np.array([-1, 7, -1, -1, -1, -1, 5, -1], dtype=np.int64))
    assert host(ops, ops.lookup_missing(table, None, queries, known)).tolist() == [9, 7, -1, -1, -1, 4, 5, -1]
    assert host(ops, ops.lookup_sorted(ops.asarray(np.empty(0, dtype=np.int32)), None, queries)).tolist() == [-1] * 8


def _vertex_index(ops, keys, values, form):
    """Sorted ``keys`` (distinct) paired with ``values``, as the lookups of vertices
    take them: ``(keys, values)`` (``"sorted"``), or a dense map and None
    (``"dense"``: keys non-negative), as ``VertexTable.lookup_index`` gives them."""
    if form == "sorted":
        return ops.asarray(keys), ops.asarray(values)
    dense = np.full(int(keys.max()) + 3, -1, dtype=np.int32)
    dense[keys] = values
    return ops.asarray(dense), None


@pytest.mark.parametrize("sizes", [(0, 5), (5, 0), (40, 13), (1, 300)])
def test_merge_sorted_keeps_keys_ascending_with_their_values(ops, sizes):
    rng = np.random.default_rng(sum(sizes))
    pool = rng.choice(np.arange(-10**6, 10**6), sum(sizes), replace=False)
    keys, more = np.sort(pool[: sizes[0]]), np.sort(pool[sizes[0]:])
    merged_keys, merged_values = (host(ops, a) for a in ops.merge_sorted(
        ops.asarray(keys), ops.asarray(keys * 3), ops.asarray(more), ops.asarray(more * 3)))
    assert merged_keys.tolist() == sorted(pool.tolist())
    assert (merged_values == merged_keys * 3).all()


@pytest.mark.parametrize("sizes", [(0, 5), (5, 0), (40, 13), (300, 700)])
def test_merge_sorted_is_stable_among_equal_keys(ops, sizes):
    """Equal keys (times of a window's log): the first input's come first, each in its order."""
    rng = np.random.default_rng(sum(sizes))
    keys, more = (np.sort(rng.integers(0, 20, size)) for size in sizes)
    values, more_values = np.arange(sizes[0]), 10**6 + np.arange(sizes[1])
    merged_keys, merged_values = (host(ops, a) for a in ops.merge_sorted(
        ops.asarray(keys), ops.asarray(values), ops.asarray(more), ops.asarray(more_values)))
    pairs = sorted([(k, 0, v) for k, v in zip(keys, values)] + [(k, 1, v) for k, v in zip(more, more_values)])
    assert merged_keys.tolist() == [k for k, _, _ in pairs]
    assert merged_values.tolist() == [v for _, _, v in pairs]


@pytest.mark.parametrize("reuse", [0, 3, 7])
@pytest.mark.parametrize("mapped", [True, False])
def test_enter_vertices_writes_every_record_and_returns_the_pre_images(ops, reuse, mapped):
    rng = np.random.default_rng(reuse)
    ids = np.sort(rng.choice(500, 7, replace=False))
    reused = rng.choice(40, reuse, replace=False)              # freed internal ids, in the order they are reused
    first = 40
    external, alive = rng.integers(0, 900, 60), rng.random(60) < 0.5
    dense = rng.integers(-1, 60, 512).astype(np.int32)
    held = (np.full(16, -9), np.full(16, -9), 5)
    arrays = [ops.asarray(a.copy()) for a in (external, alive, dense, held[0], held[1])]
    internal, replaced = ops.enter_vertices(ops.asarray(ids), ops.asarray(reused), first, arrays[0], arrays[1],
                                            arrays[2] if mapped else None, (arrays[3], arrays[4], held[2]))
    want = np.concatenate((reused, np.arange(first, first + ids.size - reuse)))
    assert host(ops, internal).tolist() == want.tolist()
    assert host(ops, replaced[0]).tolist() == external[want].tolist()
    assert host(ops, replaced[1]).tolist() == alive[want].tolist()
    expected_external, expected_alive, expected_dense = external.copy(), alive.copy(), dense.copy()
    expected_external[want], expected_alive[want] = ids, True
    if mapped:
        assert host(ops, replaced[2]).tolist() == dense[ids].tolist()
        expected_dense[ids] = want
    else:
        assert replaced[2] is None
    assert host(ops, arrays[0]).tolist() == expected_external.tolist()
    assert host(ops, arrays[1]).tolist() == expected_alive.tolist()
    assert host(ops, arrays[2]).tolist() == expected_dense.tolist()
    assert host(ops, arrays[3]).tolist() == [-9] * 5 + ids.tolist() + [-9] * 4
    assert host(ops, arrays[4]).tolist() == [-9] * 5 + want.tolist() + [-9] * 4


@pytest.mark.parametrize("keep", [False, True])
@pytest.mark.parametrize("with_parents", [True, False])
def test_record_changes_reports_each_live_changed_vertex_once(ops, with_parents, keep):
    rng = np.random.default_rng(4)
    n = 300
    value = rng.integers(0, 3, n).astype(np.float32)
    parent = rng.integers(-1, 3, n).astype(np.int64)
    previous_value = rng.integers(0, 3, n).astype(np.float32)
    previous_parent = rng.integers(-1, 3, n).astype(np.int64)
    alive = rng.random(n) < 0.8
    forced = rng.choice(n, 20, replace=False)
    touched = rng.integers(0, n, 500)
    seen = set(forced.tolist()) | set(touched.tolist())
    differs = (value != previous_value) | ((parent != previous_parent) if with_parents else False)
    expected = {v for v in seen if alive[v] and (differs[v] or v in set(forced.tolist()))}
    arrays = [ops.asarray(a.copy()) for a in (value, parent, previous_value, previous_parent)]

    recorded = ops.record_changes(ops.asarray(forced), ops.asarray(touched), *arrays, ops.asarray(alive),
                                  with_parents, keep=keep)
    if keep:                    # what the records held, at each vertex whose records changed, once
        recorded, replaced = recorded
        positions, (held_value, held_parent) = replaced.read(*ops.read_counts(replaced.count))
        positions, held_value, held_parent = (host(ops, a) for a in (positions, held_value, held_parent))
        rewritten = {v for v in seen if value[v] != previous_value[v] or parent[v] != previous_parent[v]}
        assert sorted(positions.tolist()) == sorted(rewritten)
        assert (held_value == previous_value[positions]).all() and (held_parent == previous_parent[positions]).all()
    changed = host(ops, recorded.read(*ops.read_counts(recorded.count)))

    assert sorted(changed.tolist()) == sorted(expected)
    recorded = sorted(seen)
    assert (host(ops, arrays[2])[recorded] == value[recorded]).all()
    assert (host(ops, arrays[3])[recorded] == parent[recorded]).all()
    untouched = sorted(set(range(n)) - seen)
    assert (host(ops, arrays[2])[untouched] == previous_value[untouched]).all()


RULES = {"sssp": sssp_rule(np.float64), "bfs": bfs_rule(), "widest": widest_path_rule(np.float64),
         "wcc": wcc_rule(False)}


def reference_relax(rule, edges, frontier, value):
    best = {}
    for u, v, w in edges:
        if u not in frontier:
            continue
        if rule.unreachable is not None and value[u] == rule.unreachable:
            continue
        cand = {"add": value[u] + w, "add_one": value[u] + 1, "min": min(value[u], w), "copy": value[u]}[rule.extend]
        better = cand < value[v] if rule.order == "min" else cand > value[v]
        if better and (v not in best or (cand < best[v] if rule.order == "min" else cand > best[v])):
            best[v] = cand
    return best


@pytest.mark.parametrize("name", sorted(RULES))
def test_relax_writes_the_best_candidate_and_a_producing_parent(ops, name):
    rule = RULES[name]
    rng = np.random.default_rng(2)
    n = 60
    edges = list({(int(a), int(b)): float(c) for a, b, c in
                  zip(rng.integers(0, n, 400), rng.integers(0, n, 400), rng.integers(0, 4, 400))}.items())
    edges = [(a, b, c) for (a, b), c in edges]
    adj = make_adjacency(ops, n, edges)
    value = rng.integers(0, 20, n).astype(rule.value_dtype)
    if rule.unreachable is not None:
        value[::5] = rule.unreachable
    frontier = np.unique(rng.integers(0, n, 20))
    if rule.unreachable is not None:          # relax's precondition: frontier values are reachable
        frontier = frontier[value[frontier] != rule.unreachable]
    expected = reference_relax(rule, edges, set(frontier.tolist()), value)
    dev_value, parent = ops.asarray(value.copy()), ops.asarray(np.full(n, -1, dtype=np.int64))
    improved, read = ops.relax(adj, ops.asarray(frontier), dev_value, parent, rule)
    got = host(ops, dev_value)
    assert sorted(host(ops, improved).tolist()) == sorted(expected)
    assert {v: got[v] for v in expected} == expected
    weights = {(a, b): c for a, b, c in edges}
    for v in expected:
        p = int(host(ops, parent)[v])
        assert p in frontier and (p, v) in weights
    assert read == sum(1 for a, _, _ in edges if a in set(frontier.tolist()))


def test_invalidate_runs_until_no_vertex_is_left(ops):
    # a chain 0 -> 1 -> ... -> 9 of parents plus unrelated edges
    edges = [(i, i + 1, 1.0) for i in range(9)] + [(0, 5, 1.0), (3, 7, 1.0)]
    adj = make_adjacency(ops, 12, edges)
    parent = np.array([-1, 0, 1, 2, 3, 4, 5, 6, 7, 8, -1, -1])
    invalidated, _ = ops.invalidate([adj], ops.asarray(np.array([2])), ops.asarray(parent))
    assert sorted(host(ops, invalidated).tolist()) == list(range(2, 10))


@pytest.fixture(params=["default", "narrow", "all-hubs", "grid", "grid-hubs"])
def fused_limits(request, monkeypatch):
    """Run the GPU's one-block phases with their default limits; with limits
    so narrow that they hand every wide level to the grid-wide push and a
    longer queue to the per-step launches; with every list counted a hub
    (the whole block scans each one, and a level's hubs beyond what the
    block sets aside fall back to their warps); with every push on the
    whole grid; and on the grid with every list a hub and room for only
    three of them a level (the others fall back to their warps)."""
    from cugraph_stream.backends import gpu
    if request.param == "narrow":
        monkeypatch.setattr(gpu, "_FUSED_LEVEL_LIMIT", 3)
        monkeypatch.setattr(gpu, "_FUSED_QUEUE_LIMIT", 10)
    if request.param in ("all-hubs", "grid-hubs"):
        monkeypatch.setattr(gpu, "_LARGE_DEGREE", 1)
    if request.param.startswith("grid"):
        monkeypatch.setattr(gpu, "_FUSED_LEVEL_LIMIT", 0)
    if request.param == "grid-hubs":
        monkeypatch.setattr(gpu, "_GRID_HUBS", 3)
    return request.param


@pytest.mark.parametrize("name", ["sssp", "wcc"])
def test_converge_reaches_the_fixpoint(ops, fused_limits, name):
    rule = RULES[name]
    rng = np.random.default_rng(5)
    n = 300
    edges = {(int(a), int(b)): float(c) for a, b, c in
             zip(rng.integers(0, n, 1500), rng.integers(0, n, 1500), rng.integers(0, 5, 1500))}
    out = make_adjacency(ops, n, [(a, b, c) for (a, b), c in edges.items()])
    inn = make_adjacency(ops, n, [(b, a, c) for (a, b), c in edges.items()])
    if name == "sssp":
        value = np.full(n, rule.unreachable, dtype=rule.value_dtype)
        value[0], frontier, adjs = 0, np.array([0]), [out]
    else:
        value, frontier, adjs = np.arange(n, dtype=rule.value_dtype), np.arange(n), [out, inn]
    dev_value, parent = ops.asarray(value), ops.asarray(np.full(n, -1, dtype=np.int64))
    activated, read = ops.converge(adjs, ops.asarray(frontier), dev_value, parent, rule)

    got, parents = host(ops, dev_value), host(ops, parent)
    if name == "sssp":
        import scipy.sparse as sp
        from scipy.sparse.csgraph import dijkstra
        (a, b), c = zip(*edges.keys()), list(edges.values())
        distances = dijkstra(sp.csr_matrix((np.array(c) + 1e-300, (a, b)), shape=(n, n)), indices=0)
        reached = np.isfinite(distances)
        assert np.allclose(got[reached], distances[reached]) and (got[~reached] == rule.unreachable).all()
        for v in np.flatnonzero(reached)[1:]:
            assert got[parents[v]] + edges[(int(parents[v]), int(v))] == got[v]
    else:
        import scipy.sparse as sp
        from scipy.sparse.csgraph import connected_components
        (a, b) = zip(*edges.keys())
        _, labels = connected_components(sp.csr_matrix((np.ones(len(a)), (a, b)), shape=(n, n)), connection="weak")
        smallest = {lab: int(np.flatnonzero(labels == lab).min()) for lab in np.unique(labels)}
        assert got.tolist() == [smallest[lab] for lab in labels]
    assert set(host(ops, activated).tolist()) >= set(frontier.tolist()) and read > 0


def test_converge_of_a_wide_phase_with_a_giant_list(ops):
    """A push phase wider than one block holds, at the default limits: levels of
    tens of thousands of vertices (the GPU's per-step launches), and a source
    list of 40,000 entries.  Integer weights: float sums are exact,
    so every reached vertex's parent arc must give exactly its distance."""
    import scipy.sparse as sp
    from scipy.sparse.csgraph import dijkstra

    rule = RULES["sssp"]
    rng = np.random.default_rng(11)
    n, m, giant = 60_000, 240_000, 40_000
    src = np.concatenate((np.zeros(giant, dtype=np.int64), rng.integers(0, n, m)))
    dst = np.concatenate((rng.choice(np.arange(1, n), giant, replace=False), rng.integers(0, n, m)))
    keep = np.unique(src * n + dst, return_index=True)[1]
    src, dst = src[keep], dst[keep]
    w = rng.integers(1, 6, src.size).astype(np.float64)
    out = make_adjacency(ops, n, list(zip(src.tolist(), dst.tolist(), w.tolist())))
    value = np.full(n, rule.unreachable, dtype=rule.value_dtype)
    value[0] = 0
    dev_value, parent = ops.asarray(value), ops.asarray(np.full(n, -1, dtype=np.int64))

    activated, read = ops.converge([out], ops.asarray(np.array([0])), dev_value, parent, rule)

    got, parents = host(ops, dev_value), host(ops, parent)
    distances = dijkstra(sp.csr_matrix((w, (src, dst)), shape=(n, n)), indices=0)
    reached = np.isfinite(distances)
    assert (got[reached] == distances[reached]).all() and (got[~reached] == rule.unreachable).all()
    weight = dict(zip((src * n + dst).tolist(), w.tolist()))
    for v in np.flatnonzero(reached)[1:]:
        assert got[parents[v]] + weight[int(parents[v]) * n + int(v)] == got[v]
    assert set(np.flatnonzero(reached).tolist()) <= set(host(ops, activated).tolist()) and read >= giant


def _sssp_from_zero(ops, n, m, seed):
    """``(adjacency, src, dst, w, value, parent)``: a random graph with integer
    weights and SSSP's values (0 at vertex 0) and parents on the device."""
    rng = np.random.default_rng(seed)
    keys = np.unique(rng.integers(0, n, m) * n + rng.integers(0, n, m))
    src, dst = keys // n, keys % n
    w = rng.integers(0, 6, src.size).astype(np.float64)
    adj = make_adjacency(ops, n, list(zip(src.tolist(), dst.tolist(), w.tolist())))
    value = np.full(n, RULES["sssp"].unreachable, dtype=RULES["sssp"].value_dtype)
    value[0] = 0
    return adj, src, dst, w, ops.asarray(value), ops.asarray(np.full(n, -1, dtype=np.int64))


def _check_sssp_from_zero(ops, n, src, dst, w, value, parent):
    import scipy.sparse as sp
    from scipy.sparse.csgraph import dijkstra

    got, parents = host(ops, value), host(ops, parent)
    distances = dijkstra(sp.csr_matrix((w + 1e-300, (src, dst)), shape=(n, n)), indices=0)
    reached = np.isfinite(distances)
    assert (got[reached] == np.round(distances[reached])).all()
    assert (got[~reached] == RULES["sssp"].unreachable).all()
    weight = dict(zip((src * n + dst).tolist(), w.tolist()))
    for v in np.flatnonzero(reached)[1:]:
        assert got[parents[v]] + weight[int(parents[v]) * n + int(v)] == got[v]


def test_converge_on_the_grid_starts_its_stamps_over_before_they_wrap(ops, monkeypatch):
    """The grid-wide push stamps a vertex with the number of the level it
    joins; with too few numbers left before the stamps would wrap (and stop
    admitting vertices), they start over from zero instead, in the same
    array (every stamp cleared), and later pushes go on from there."""
    if ops.name != "gpu":
        pytest.skip("the grid-wide push is the GPU's")
    from cugraph_stream.backends import gpu
    monkeypatch.setattr(gpu, "_FUSED_LEVEL_LIMIT", 0)
    n = 2_000
    stamp, _ = ops._stamps(n)
    stamp.fill(0xFFFFFFF0)      # (stamps above the new epochs: each would keep its vertex out)
    ops._epoch = 0xFFFFFFFF - 10
    for seed in range(3):
        adj, src, dst, w, value, parent = _sssp_from_zero(ops, n, 8_000, seed)
        ops.converge([adj], ops.asarray(np.array([0])), value, parent, RULES["sssp"])
        _check_sssp_from_zero(ops, n, src, dst, w, value, parent)
        assert 0 < ops._epoch < 1_000
    assert ops._scratches["stamp"] is stamp


def test_converge_counts_the_grid_after_the_block_as_a_second_wait(ops, monkeypatch):
    """A push whose level outgrows the one block goes on on the whole grid:
    two reads, both counted."""
    if ops.name != "gpu":
        pytest.skip("the one-block and grid-wide pushes are the GPU's")
    from cugraph_stream.backends import gpu
    monkeypatch.setattr(gpu, "_FUSED_LEVEL_LIMIT", 3)
    n = 2_000
    adj, src, dst, w, value, parent = _sssp_from_zero(ops, n, 8_000, 7)
    frontier = ops.asarray(np.array([0]))
    before = ops.calls.snapshot()
    ops.converge([adj], frontier, value, parent, RULES["sssp"])
    assert ops.calls.since(before) == (1, 2)
    _check_sssp_from_zero(ops, n, src, dst, w, value, parent)


@pytest.mark.parametrize("narrow", [False, True], ids=["block", "handed-to-the-grid"])
def test_converge_pushes_a_counted_frontier_from_its_count_alone(ops, monkeypatch, narrow):
    """A frontier as correction_frontier leaves it (a Counted whose count a device
    keeps) is pushed from its first ``count`` entries only: the one-block push
    reads the count on the device, one wait in all; a count wider than the
    block takes is handed on to the grid-wide push at once, a second wait,
    counted."""
    from cugraph_stream.backends import gpu
    from cugraph_stream.backends.base import Counted

    if narrow:
        monkeypatch.setattr(gpu, "_FUSED_LEVEL_LIMIT", 2)
    rule = RULES["sssp"]
    n = 20
    adj = make_adjacency(ops, n, [(i, i + 1, 1.0) for i in range(9)] + [(12, 13, 1.0)])     # 10..19 apart
    value = np.full(n, rule.unreachable, dtype=rule.value_dtype)
    value[0] = 0
    value[12] = 0                     # (were 12 pushed from, 13 would be activated)
    dev_value, parent = ops.asarray(value), ops.asarray(np.full(n, -1, dtype=np.int64))
    frontier = Counted(ops.asarray(np.array([0, 15, 17, 12, 16])), ops.asarray(np.array([3], dtype=np.uint64)))
    before = ops.calls.snapshot()
    activated, read = ops.converge([adj], frontier, dev_value, parent, rule)
    assert ops.calls.since(before) == (1, 2 if narrow and ops.name == "gpu" else 1)
    assert sorted(host(ops, activated).tolist()) == [*range(10), 15, 17] and read == 9
    assert host(ops, dev_value)[:10].tolist() == list(range(10)) and host(ops, dev_value)[13] == rule.unreachable


def test_invalidate_with_narrow_and_wide_levels(ops, fused_limits):
    # a tree of parents: 0 -> 1..4, each of those -> 4 children, ...; plus a chain
    n = 200
    parent = np.full(n, -1)
    parent[1:85] = (np.arange(1, 85) - 1) // 4
    parent[100:150] = np.arange(99, 149)
    parent[100] = 3
    edges = [(int(parent[v]), v, 1.0) for v in range(n) if parent[v] >= 0] + [(5, 120, 1.0), (150, 160, 1.0)]
    adj = make_adjacency(ops, n, edges)
    invalidated, read = ops.invalidate([adj], ops.asarray(np.array([0])), ops.asarray(parent))
    assert sorted(host(ops, invalidated).tolist()) == list(range(0, 85)) + list(range(100, 150))
    assert read == len(edges) - 1


@pytest.mark.parametrize("seeds", [[5, 5, 0, 5], [3, 1, 3, 100, 7, 1], list(range(0, 200, 3)) * 2])
def test_invalidate_takes_seeds_repeated_or_below_one_another(ops, fused_limits, seeds):
    """Seeds may repeat and lie in one another's subtrees (the GPU's block marks
    them itself): every vertex below a seed, each once."""
    n = 200
    parent = np.full(n, -1)
    parent[1:n] = (np.arange(1, n) - 1) // 3
    adj = make_adjacency(ops, n, [(int(parent[v]), v, 1.0) for v in range(1, n)])
    invalidated, _ = ops.invalidate([adj], ops.asarray(np.array(seeds)), ops.asarray(parent))
    got = host(ops, invalidated).tolist()
    below = {v for v in range(n) if any(_is_below(parent, v, s) for s in seeds)}
    assert len(got) == len(set(got)) and set(got) == below


def _is_below(parent, v, ancestor):
    while v >= 0:
        if v == ancestor:
            return True
        v = parent[v]
    return False


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("name", ["sssp", "wcc"])
@pytest.mark.parametrize("groups", [(40, 0, 25), (10, 5, 7, 3, 9)])
@pytest.mark.parametrize("one_block", [True, False])
def test_correction_frontier_is_the_reached_and_the_improved_each_once(ops, seed, name, groups, one_block,
                                                                       monkeypatch):
    """The invalidated vertices re-seeding reached (all of them for labels) and the
    targets the arcs improve, each once, with the values relax_arcs writes;
    on the GPU in one block (up to four groups of arcs) and in a launch each."""
    from cugraph_stream.backends import gpu
    if not one_block:
        monkeypatch.setattr(gpu, "_ONE_BLOCK_CORRECTION", 0)
    rule = RULES[name]
    rng = np.random.default_rng(seed)
    n = 500
    unreachable = rule.unreachable
    value = rng.integers(0, 1000, n).astype(rule.value_dtype)
    if unreachable is not None:
        value[rng.random(n) < 0.3] = unreachable
    parent = np.full(n, -1)
    invalidated = rng.choice(np.arange(250, n), 60, replace=False)     # targets and invalidated overlap
    arcs = []
    for size in groups:                                               # sources below 250 improve no further
        u, v = rng.integers(0, 250, size), rng.integers(250, n, size)
        arcs.append((u, v, rng.integers(0, 50, size).astype(np.float64)))
    expected_value = value.copy()
    for u, v, w in arcs:
        for a, b, c in zip(u, v, w):
            if unreachable is not None and value[a] == unreachable:
                continue
            candidate = value[a] + c if rule.uses_weights else value[a]     # (labels: the smallest)
            if candidate < expected_value[b]:
                expected_value[b] = candidate
    improved = set(np.flatnonzero(expected_value < value).tolist())
    reached = {int(x) for x in invalidated if unreachable is None or value[x] != unreachable}
    dev_value, dev_parent = ops.asarray(value.copy()), ops.asarray(parent.copy())
    frontier = ops.correction_frontier(dev_value, dev_parent, rule, ops.asarray(invalidated),
                                       [tuple(ops.asarray(a) for a in arc) for arc in arcs])
    got = host(ops, ops.read_counted(frontier)).tolist()
    assert len(got) == len(set(got)) and set(got) == improved | reached
    assert (host(ops, dev_value) == expected_value).all()


@pytest.mark.parametrize("name", sorted(RULES))
@pytest.mark.parametrize("seed", range(3))
def test_relax_arcs_only_writes_what_relax_arcs_writes_and_reads_nothing(ops, name, seed):
    """Values and parents as :meth:`relax_arcs` leaves them (one target per arc:
    the one-row insert's case, where no two arcs race for a target), counted as a
    launch and no synchronisation; relax_arcs afterwards still finds exactly the
    targets its arcs improve (no byte map left set)."""
    rule = RULES[name]
    rng = np.random.default_rng(seed)
    n = 200
    value = rng.integers(0, 100, n).astype(rule.value_dtype)
    if rule.unreachable is not None:
        value[rng.random(n) < 0.3] = rule.unreachable
    parent = rng.integers(-1, n, n)
    u, v = rng.integers(0, n, 40), rng.permutation(n)[:40]
    w = rng.integers(0, 30, 40).astype(np.float64)
    results = []
    arcs = [ops.asarray(a) for a in (u, v, w)]
    for relax in ("relax_arcs", "relax_arcs_only"):
        dev_value, dev_parent = ops.asarray(value.copy()), ops.asarray(parent.copy())
        before = DEVICE_CALLS.snapshot()
        getattr(ops, relax)(*arcs, dev_value, dev_parent, rule)
        calls = DEVICE_CALLS.since(before)
        results.append((host(ops, dev_value), host(ops, dev_parent), calls))
    (value_1, parent_1, calls_1), (value_2, parent_2, calls_2) = results
    assert (value_1 == value_2).all() and (parent_1 == parent_2).all()
    assert calls_1 == (1, 1) and calls_2 == (1, 0)
    more = ops.asarray(value_2.copy())
    improved = ops.relax_arcs(*(ops.asarray(a) for a in (v[:20], u[:20], w[:20])), more, ops.asarray(parent_2), rule)
    assert sorted(host(ops, improved).tolist()) == sorted(set(np.flatnonzero(host(ops, more) != value_2).tolist()))


def test_invalidate_finds_each_vertex_once_over_two_adjacencies(ops, fused_limits):
    # weak connectivity reads both directions: with arcs both ways, a child sits in
    # both of its parent's lists (hubs among them), and must still be found once
    n = 300
    parent = np.full(n, -1)
    parent[1:n] = np.where(np.arange(1, n) < 40, 0, (np.arange(1, n) - 1) // 7)
    arcs = [(int(parent[v]), v, 1.0) for v in range(1, n)] + [(v, int(parent[v]), 1.0) for v in range(1, n, 2)]
    out = make_adjacency(ops, n, arcs)
    inn = make_adjacency(ops, n, [(v, u, w) for u, v, w in arcs])
    invalidated, _ = ops.invalidate([out, inn], ops.asarray(np.array([0])), ops.asarray(parent))
    assert sorted(host(ops, invalidated).tolist()) == list(range(n))


@pytest.mark.parametrize("name", ["sssp", "widest"])
@pytest.mark.parametrize("binned", [False, True], ids=["one-launch", "binned"])
def test_pull_reseeds_targets_from_their_best_in_neighbour(ops, fused_limits, name, binned, monkeypatch):
    """On the GPU a few targets take a block each in one launch, the entries read
    counted on the device and read with the next wait (no wait of their own);
    more are binned by degree after a read of the bins' sizes (a wait)."""
    from cugraph_stream.backends import gpu
    if binned:
        monkeypatch.setattr(gpu, "_ONE_LAUNCH_FRONTIER", 0)
    rule = RULES[name]
    rng = np.random.default_rng(6)
    n = 1200
    # vertex 0 has an in-list of 1100 entries (a hub: a block scans it), the others short ones
    pairs = {(int(a), 0) for a in rng.choice(np.arange(1, n), 1100, replace=False)}
    pairs |= {(int(a), int(b)) for a, b in zip(rng.integers(0, n, 3000), rng.integers(1, n, 3000))}
    edges = {pair: float(rng.integers(1, 6)) for pair in pairs}
    inn = make_adjacency(ops, n, [(b, a, c) for (a, b), c in edges.items()])
    value = rng.integers(0, 50, n).astype(rule.value_dtype)
    value[::7] = rule.unreachable
    targets = np.array([0, 5, 17, 300, 999])
    value[targets] = rule.unreachable
    dev_value, parent = ops.asarray(value.copy()), ops.asarray(np.full(n, -1, dtype=np.int64))

    targets_on = ops.asarray(targets)
    before = ops.calls.snapshot()
    pulled = ops.pull([inn], targets_on, dev_value, parent, rule)
    assert ops.calls.since(before) == (1, int(binned and ops.name == "gpu"))
    read = pulled.get()

    got, parents = host(ops, dev_value), host(ops, parent)
    for v in targets.tolist():
        sources = [(a, c) for (a, b), c in edges.items() if b == v and value[a] != rule.unreachable]
        candidates = [value[a] + c if rule.extend == "add" else min(value[a], c) for a, c in sources]
        if not candidates:
            assert got[v] == rule.unreachable and parents[v] == -1
            continue
        assert got[v] == (min(candidates) if rule.order == "min" else max(candidates))
        p = int(parents[v])
        assert (p, v) in edges and (value[p] + edges[(p, v)] if rule.extend == "add"
                                    else min(value[p], edges[(p, v)])) == got[v]
    assert read == sum(1 for (_, b) in edges if b in set(targets.tolist()))


def test_pagerank_push_moves_mass(ops):
    adj = make_adjacency(ops, 3, [(0, 1, 1.0), (0, 2, 1.0)])
    rank, residual = ops.asarray(np.zeros(3)), ops.asarray(np.array([1.0, 0.0, 0.0]))
    receivers, read = ops.pagerank_push(adj, ops.asarray(np.array([0])), ops.asarray(np.array([1.0])),
                                        rank, residual, 0.5)
    assert host(ops, rank).tolist() == [1.0, 0.0, 0.0]
    assert host(ops, residual).tolist() == [0.0, 0.25, 0.25]
    assert sorted(host(ops, receivers).tolist()) == [1, 2] and read == 2


def test_pagerank_push_over_hub_lists(ops):
    """Out-lists from 0 to 5000 entries (the GPU cuts lists into segments of 1024
    entries, a warp each) against NumPy: every neighbour gets alpha * amount / degree
    once, each pushed vertex's amount moves from its residual into its rank."""
    rng = np.random.default_rng(5)
    degrees = [0, 1, 31, 1023, 1024, 1025, 2048, 5000]
    n = 6000
    lists = {u: rng.choice(n, d, replace=False).tolist() for u, d in enumerate(degrees)}
    adj = make_adjacency(ops, n, [(u, v, 1.0) for u, vs in lists.items() for v in vs])
    active = np.array([7, 0, 5, 1, 3, 6, 2])
    amount = rng.random(active.size)
    rank, residual = np.zeros(n), rng.random(n)
    got_rank, got_residual = ops.asarray(rank.copy()), ops.asarray(residual.copy())
    receivers, read = ops.pagerank_push(adj, ops.asarray(active), ops.asarray(amount), got_rank, got_residual, 0.85)
    for u, a in zip(active.tolist(), amount.tolist()):
        rank[u] += a
        residual[u] -= a
        for v in lists[u]:
            residual[v] += 0.85 * a / degrees[u]
    assert np.allclose(host(ops, got_rank), rank, rtol=1e-12, atol=0)
    assert np.allclose(host(ops, got_residual), residual, rtol=1e-12, atol=1e-15)
    assert sorted(host(ops, receivers).tolist()) == sorted({v for u in active.tolist() for v in lists[u]})
    assert read == sum(degrees[u] for u in active.tolist())


def test_gather_sum_pulls_over_lists(ops):
    adj = make_adjacency(ops, 4, [(0, 1, 1.0), (0, 3, 1.0), (2, 0, 1.0), (2, 1, 1.0), (2, 3, 1.0)])
    plan = ops.gather_plan(adj, ops.asarray(np.array([2, 1, 0])))
    sums, read = ops.gather_sum(plan, ops.asarray(np.array([1.0, 10.0, 100.0, 1000.0])))
    assert host(ops, sums).tolist() == [1011.0, 0.0, 1010.0] and read == 5


def test_gather_sum_over_hub_lists(ops):
    """Lists from 0 to 5000 entries (the GPU reads those of 1024 and more with a block each),
    against NumPy sums; vertices may repeat and come in any order."""
    rng = np.random.default_rng(4)
    degrees = [0, 1, 31, 32, 33, 1023, 1024, 1025, 2048, 5000]
    n = 6000
    edges = [(u, int(v), 1.0) for u, d in enumerate(degrees) for v in rng.choice(n, d, replace=False)]
    adj = make_adjacency(ops, n, edges)
    values = rng.random(n)
    vertices = np.array([9, 0, 6, 5, 3, 9, 1, 7, 2, 4, 8, 6])
    sums, read = ops.gather_sum(ops.gather_plan(adj, ops.asarray(vertices)), ops.asarray(values))
    lists = {u: [v for a, v, _ in edges if a == u] for u in range(len(degrees))}
    expected = [values[lists[u]].sum() for u in vertices]
    assert np.allclose(host(ops, sums), expected, rtol=1e-12) and read == sum(degrees[u] for u in vertices)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_weighted_pagerank_push_over_hub_lists(ops, dtype):
    """Weighted push: each neighbour gets alpha * amount * w / W(u), zero-weight arcs
    nothing (but their heads count as receivers); a vertex with W(u) == 0 sends nothing."""
    rng = np.random.default_rng(6)
    degrees = [0, 1, 3, 31, 1023, 1025, 2048, 5000]
    n = 6000
    lists = {u: rng.choice(n, d, replace=False).tolist() for u, d in enumerate(degrees)}
    weights = {u: [float(dtype(x)) for x in rng.choice([0.0, 0.5, 1.0, 3.25, 7.0], d)]
               for u, d in enumerate(degrees)}
    weights[2] = [0.0, 0.0, 0.0]                        # only zero-weight arcs: dangling
    adj = make_adjacency(ops, n, [(u, v, w) for u in lists for v, w in zip(lists[u], weights[u])], dtype=dtype)
    out_weight = np.zeros(n)
    for u in lists:
        out_weight[u] = sum(weights[u])
    active = np.array([7, 0, 2, 5, 1, 3, 6, 4])
    amount = rng.random(active.size)
    rank, residual = np.zeros(n), rng.random(n)
    got_rank, got_residual = ops.asarray(rank.copy()), ops.asarray(residual.copy())
    receivers, read = ops.pagerank_push(adj, ops.asarray(active), ops.asarray(amount), got_rank, got_residual,
                                        0.85, out_weight=ops.asarray(out_weight))
    for u, a in zip(active.tolist(), amount.tolist()):
        rank[u] += a
        residual[u] -= a
        if out_weight[u] > 0:
            for v, w in zip(lists[u], weights[u]):
                residual[v] += 0.85 * a * w / out_weight[u]
    assert np.allclose(host(ops, got_rank), rank, rtol=1e-12, atol=0)
    assert np.allclose(host(ops, got_residual), residual, rtol=1e-12, atol=1e-15)
    pushed = [u for u in active.tolist() if out_weight[u] > 0]
    assert set(host(ops, receivers).tolist()) == {v for u in pushed for v in lists[u]}
    assert read >= sum(degrees[u] for u in pushed)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_weighted_gather_sum_over_hub_lists(ops, dtype):
    """A weighted plan sums weight * value over each list (every schedule: thread, warp, block)."""
    rng = np.random.default_rng(7)
    degrees = [0, 1, 31, 32, 33, 1023, 1024, 1025, 2048, 5000]
    n = 6000
    edges = [(u, int(v), float(dtype(rng.choice([0.0, 0.25, 1.0, 6.5])))) for u, d in enumerate(degrees)
             for v in rng.choice(n, d, replace=False)]
    adj = make_adjacency(ops, n, edges, dtype=dtype)
    values = rng.random(n)
    vertices = np.array([9, 0, 6, 5, 3, 9, 1, 7, 2, 4, 8, 6])
    sums, read = ops.gather_sum(ops.gather_plan(adj, ops.asarray(vertices), weighted=True), ops.asarray(values))
    lists = {u: [(v, w) for a, v, w in edges if a == u] for u in range(len(degrees))}
    expected = [sum(w * values[v] for v, w in lists[u]) for u in vertices]
    assert np.allclose(host(ops, sums), expected, rtol=1e-12) and read == sum(degrees[u] for u in vertices)
    unweighted, _ = ops.gather_sum(ops.gather_plan(adj, ops.asarray(vertices)), ops.asarray(values))
    assert np.allclose(host(ops, unweighted), [values[[v for v, _ in lists[u]]].sum() for u in vertices])


def test_net_changes_ignores_rows_of_missing_vertices(ops):
    """A row naming a vertex the graph lacks (-1, a negative key) is a delete row
    of no edge: ignored, whatever the table holds."""
    adj, index = indexed_arcs(ops, 8, {(0, 7): 1.0})
    u = np.array([-1, 0, -1, 0, 0], dtype=np.int64)
    v = np.array([3, -1, -1, 5, 7], dtype=np.int64)
    codes = np.array([-1, -1, -1, 1, -1], dtype=np.int8)
    net = ops.net_changes(ops.asarray(u), ops.asarray(v), ops.asarray(codes), ops.asarray(np.ones(5)), index.table, adj)
    assert host(ops, net.inserted_v).tolist() == [5] and host(ops, net.deleted_v).tolist() == [7]
    assert net.updated_v.size == 0
    assert net.counts == dict(inserted=1, deleted=1, weight_updated=0, unchanged=0, cancelled=0, ignored=3)


@pytest.mark.parametrize("target, code, weight, outcome", [
    (5, 1, 1.0, "inserted"), (7, 1, 1.0, "unchanged"), (7, 1, 2.0, "weight_updated"), (7, -1, 0.0, "deleted"),
    (5, -1, 0.0, "ignored"), (-1, -1, 0.0, "ignored")])
def test_net_changes_of_one_row(ops, target, code, weight, outcome):
    """A one-row batch ``0 -> target`` (the GPU's sorted kernel alone, with no batch
    table) against the store."""
    adj, index = indexed_arcs(ops, 8, {(0, 7): 1.0})
    net = ops.net_changes(ops.asarray(np.array([0])), ops.asarray(np.array([target])),
                          ops.asarray(np.array([code], dtype=np.int8)), ops.asarray(np.array([weight])), index.table,
                          adj)
    expected = dict.fromkeys(("inserted", "deleted", "weight_updated", "unchanged", "cancelled", "ignored"), 0)
    expected[outcome] = 1
    assert net.counts == expected
    listed = {"inserted": (net.inserted_u, net.inserted_v), "deleted": (net.deleted_u, net.deleted_v),
              "weight_updated": (net.updated_u, net.updated_v)}
    for name, (sources, targets) in listed.items():
        edges = list(zip(host(ops, sources).tolist(), host(ops, targets).tolist()))
        assert edges == ([(0, target)] if name == outcome else []), name
    if outcome == "weight_updated":
        assert host(ops, net.updated_weights).tolist() == [weight]


@pytest.mark.parametrize("size", [0, 1, 31, 32, 33, 1023, 1024, 1025, 5000, 70000])
def test_compress_keeps_the_flagged_entries_in_order(ops, size):
    rng = np.random.default_rng(size)
    mask = rng.random(size) < 0.3
    a, b = np.arange(size, dtype=np.int64) * 3, rng.random(size)
    got = ops.compress(ops.asarray(mask), ops.asarray(a), ops.asarray(b))
    assert host(ops, got[0]).tolist() == a[mask].tolist()
    assert host(ops, got[1]).tolist() == b[mask].tolist()


def test_asarrays_moves_mixed_columns_at_once(ops):
    columns = [np.array([1, -2, 3], dtype=np.int64), np.array([0.5, 1.5, np.nan], dtype=np.float32),
               np.array([1, -1, 1], dtype=np.int8), np.array([2**62], dtype=np.int64), np.zeros(0)]
    moved = ops.asarrays(*columns)
    for want, got in zip(columns, moved):
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(host(ops, got), want)


def _bfs_tree(n, arcs, source):
    """Hop distances (int32, unreachable = int32 max) and a BFS parent per vertex."""
    unreachable = np.iinfo(np.int32).max
    dist, parent = np.full(n, unreachable, dtype=np.int32), np.full(n, -1, dtype=np.int64)
    dist[source], level = 0, [source]
    out = {}
    for u, v in arcs:
        out.setdefault(u, []).append(v)
    while level:
        nxt = []
        for u in level:
            for v in out.get(u, ()):
                if dist[v] == unreachable:
                    dist[v], parent[v] = dist[u] + 1, u
                    nxt.append(v)
        level = nxt
    return dist, parent


@pytest.mark.parametrize("seed, levels", [(0, 100), (1, 100), (2, 1), (3, 3)])
def test_invalidate_keeping_ties_invalidates_exactly_enough(ops, seed, levels):
    """After deleting tree edges, every vertex left valid keeps its true new hop
    distance through a valid parent; the invalidated ones are among those the
    plain closure invalidates, and far fewer on a graph full of ties."""
    rule = RULES["bfs"]
    rng = np.random.default_rng(seed)
    n = 400
    arcs = sorted({(int(a), int(b)) for a, b in zip(rng.integers(0, n, 3000), rng.integers(0, n, 3000)) if a != b})
    dist, parent = _bfs_tree(n, arcs, 0)
    tree = [(int(parent[v]), v) for v in range(n) if parent[v] >= 0]
    deleted = {tree[i] for i in rng.choice(len(tree), 25, replace=False)}
    remaining = [a for a in arcs if a not in deleted]
    out = make_adjacency(ops, n, [(u, v, 1.0) for u, v in remaining])
    inn = make_adjacency(ops, n, [(v, u, 1.0) for u, v in remaining])
    seeds = np.array(sorted(v for _, v in deleted))
    value, dev_parent = ops.asarray(dist.copy()), ops.asarray(parent.copy())
    invalidated, examined, read = ops.invalidate_keeping_ties([out], inn, ops.asarray(seeds), value, dev_parent,
                                                              rule, levels)
    invalidated, examined, new_parent = (host(ops, a) for a in (invalidated, examined, dev_parent))
    assert len(set(invalidated.tolist())) == invalidated.size and read > 0
    closure, _ = ops.invalidate([out], ops.asarray(seeds), ops.asarray(parent.copy()))
    assert set(invalidated.tolist()) <= set(host(ops, closure).tolist())
    assert invalidated.size < host(ops, closure).size            # ties kept some of the subtrees
    true_dist, _ = _bfs_tree(n, remaining, 0)
    valid = np.ones(n, dtype=bool)
    valid[invalidated] = False
    edges = set(remaining)
    changed = set((np.flatnonzero(new_parent != parent)).tolist())
    assert changed <= set(examined.tolist())          # only candidates get new parents
    for v in np.flatnonzero(valid & (dist != rule.unreachable)):
        assert dist[v] == true_dist[v], v
        if v != 0:
            p = int(new_parent[v])
            assert valid[p] and (p, int(v)) in edges and dist[p] + 1 == dist[v], v


@pytest.mark.parametrize("deleted, others", [(25, 200), (200, 6000), (6000, 200)])
def test_invalidate_keeping_ties_takes_the_children_as_counted(ops, deleted, others):
    """Seeds given as children_of's Counted (on the GPU its count still on the
    device, its array longer than the count) leave, as the same seeds as an
    array do, every valid vertex at its true new hop distance through a valid
    parent, and invalidate only vertices of the plain closure.  (Which tie
    keeps a vertex, and so which vertices a wide level keeps, depends on the
    GPU's timing: the two runs are checked each, not compared.)  ``deleted``
    tree arcs and ``others`` arcs that are none: 6,000 of either makes an
    array longer than one block's level, of few or of many children."""
    rule = RULES["bfs"]
    rng = np.random.default_rng(deleted)
    n = 3 * max(deleted, others) + 400
    arcs = sorted({(int(a), int(b)) for a, b in zip(rng.integers(0, n, 8 * n), rng.integers(0, n, 8 * n)) if a != b})
    dist, parent = _bfs_tree(n, arcs, 0)
    tree = [(int(parent[v]), v) for v in range(n) if parent[v] >= 0]
    picked = [tree[i] for i in rng.choice(len(tree), min(deleted, len(tree)), replace=False)]
    non_tree = [arcs[i] for i in rng.permutation(len(arcs))[:2 * others]
                if parent[arcs[i][1]] != arcs[i][0]][:others]          # (no children: the count is below the size)
    du, dv = (np.array([a[k] for a in picked + non_tree]) for k in (0, 1))
    remaining = sorted(set(arcs) - set(picked) - set(non_tree))
    edges = set(remaining)
    out = make_adjacency(ops, n, [(u, v, 1.0) for u, v in remaining])
    inn = make_adjacency(ops, n, [(v, u, 1.0) for u, v in remaining])
    true_dist, _ = _bfs_tree(n, remaining, 0)
    closure, _ = ops.invalidate([out], ops.asarray(np.array([v for _, v in picked])), ops.asarray(parent.copy()))
    closure = set(host(ops, closure).tolist())
    for counted in (False, True):
        value, dev_parent = ops.asarray(dist.copy()), ops.asarray(parent.copy())
        children = ops.children_of(dev_parent, ops.asarray(du), ops.asarray(dv))
        seeds = children if counted else ops.read_counted(children)
        invalidated, _, _ = ops.invalidate_keeping_ties([out], inn, seeds, value, dev_parent, rule, 3)
        invalidated, new_parent = host(ops, invalidated), host(ops, dev_parent)
        assert invalidated.size and len(set(invalidated.tolist())) == invalidated.size
        assert set(invalidated.tolist()) <= closure, counted
        valid = np.ones(n, dtype=bool)
        valid[invalidated] = False
        for v in np.flatnonzero(valid & (dist != rule.unreachable)):
            assert dist[v] == true_dist[v], (counted, v)
            if v != 0:
                p = int(new_parent[v])
                assert valid[p] and (p, int(v)) in edges and dist[p] + 1 == dist[v], (counted, v)


def test_invalidate_keeping_ties_revisits_a_kept_vertex_whose_new_parent_falls_later(ops):
    """0 -> 1 -> 2 -> 3 -> 4 and 0 -> 5 -> 6 -> 7 -> 8 -> 9, with 4 -> 9 too (9's parent:
    8).  Deleting 0 -> 1 and 8 -> 9: 9 is kept by 4 at once, but 4 falls three
    levels later (it hangs below 1), and then 9, its child now, falls too."""
    rule = RULES["bfs"]
    arcs = [(0, 1), (1, 2), (2, 3), (3, 4), (0, 5), (5, 6), (6, 7), (7, 8), (8, 9), (4, 9)]
    dist, parent = _bfs_tree(10, arcs, 0)
    parent[9] = 8
    remaining = [a for a in arcs if a not in ((0, 1), (8, 9))]
    out = make_adjacency(ops, 10, [(u, v, 1.0) for u, v in remaining])
    inn = make_adjacency(ops, 10, [(v, u, 1.0) for u, v in remaining])
    dev_parent = ops.asarray(parent.copy())
    invalidated, examined, _ = ops.invalidate_keeping_ties([out], inn, ops.asarray(np.array([1, 9])),
                                                           ops.asarray(dist.copy()), dev_parent, rule, 8)
    assert sorted(host(ops, invalidated).tolist()) == [1, 2, 3, 4, 9]
    assert sorted(host(ops, examined).tolist()) == [1, 2, 3, 4, 9, 9] and host(ops, dev_parent)[9] == 4


def test_invalidate_keeping_ties_invalidates_whole_subtrees_past_its_levels(ops):
    """A chain 0 -> 1 -> 2 -> 3 -> 4 -> 5 and 0 -> 7 -> 8 -> 9 -> 4 (4 ties through 9):
    deleting 0 -> 1 invalidates 1, 2, 3 and keeps 4, found at the fourth level; with
    three levels searched, 4 is past them and goes with its subtree."""
    rule = RULES["bfs"]
    arcs = [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (0, 7), (7, 8), (8, 9), (9, 4)]
    dist, parent = _bfs_tree(10, arcs, 0)
    assert dist[4] == 4 and parent[4] == 3
    remaining = [a for a in arcs if a != (0, 1)]
    out = make_adjacency(ops, 10, [(u, v, 1.0) for u, v in remaining])
    inn = make_adjacency(ops, 10, [(v, u, 1.0) for u, v in remaining])
    for levels, expected, parent_of_4 in ((4, [1, 2, 3], 9), (3, [1, 2, 3, 4, 5], 3)):
        dev_parent = ops.asarray(parent.copy())
        invalidated, _, _ = ops.invalidate_keeping_ties([out], inn, ops.asarray(np.array([1])),
                                                        ops.asarray(dist.copy()), dev_parent, rule, levels)
        assert sorted(host(ops, invalidated).tolist()) == expected, levels
        assert host(ops, dev_parent)[4] == parent_of_4, levels


@pytest.mark.parametrize("leaves, seeds_hub", [(5000, True), (5000, False), (300, True), (300, False)])
def test_invalidate_keeping_ties_past_a_wide_level(ops, leaves, seeds_hub):
    """0 -> 1 -> each leaf, 0 -> 2 -> every other leaf (a tie), each leaf -> a
    grandchild.  Deleting 0 -> 1 (seed: 1): a level of 5,000 leaves is wider
    than the GPU's one block takes, the levels after it run one launch each.
    Seeding the leaves too, twice (10,001 seeds), skips the block altogether;
    with 300 leaves the block runs every level.  Each way: the tied leaves are
    kept (parent 2), the others invalidated with their grandchildren."""
    rule = RULES["bfs"]
    leaf = np.arange(3, 3 + leaves)
    grandchild = leaf + leaves
    arcs = ([(0, 1), (0, 2)] + [(1, int(x)) for x in leaf] + [(2, int(x)) for x in leaf[::2]]
            + [(int(x), int(y)) for x, y in zip(leaf, grandchild)])
    n = 3 + 2 * leaves
    dist, parent = _bfs_tree(n, arcs, 0)
    parent[leaf] = 1
    remaining = [a for a in arcs if a != (0, 1)]
    out = make_adjacency(ops, n, [(u, v, 1.0) for u, v in remaining])
    inn = make_adjacency(ops, n, [(v, u, 1.0) for u, v in remaining])
    seeds = np.array([1]) if seeds_hub else np.concatenate(([1], leaf, leaf))      # (repeats allowed)
    dev_parent = ops.asarray(parent.copy())
    invalidated, examined, read = ops.invalidate_keeping_ties([out], inn, ops.asarray(seeds),
                                                              ops.asarray(dist.copy()), dev_parent, rule, 3)
    untied = leaf[1::2]
    assert sorted(host(ops, invalidated).tolist()) == sorted([1] + untied.tolist() + (untied + leaves).tolist())
    assert sorted(set(host(ops, examined).tolist())) == sorted([1] + leaf.tolist() + (untied + leaves).tolist())
    new_parent = host(ops, dev_parent)
    assert (new_parent[leaf[::2]] == 2).all() and (new_parent[untied] == 1).all() and read > 0


@pytest.mark.parametrize("ids", ["dense", "sparse", "negative", "small", "one block", "one block, extremes",
                                 "one", "none", "one block and one more", "runs across chunks",
                                 "one value, many chunks", "dense up to the bound", "dense and one past the bound",
                                 "dense up to the GPU's bound", "dense and one past the GPU's bound",
                                 "dense, one id at the top", "dense past the GPU's largest map"])
def test_sorted_distinct_is_numpys_unique(ops, ids):
    """The GPU sorts up to 4,096 values in one block (padded with the largest int64);
    more, it reads their range: ids that fit a byte map (``marks_fit``: non-negative,
    below 16 per value plus 65,536) are marked and the marks compacted a chunk of
    1,024 per block; others are sorted and deduped a chunk per block, runs of equal
    values crossing the chunks.  The CPU marks from 65,536 values on, below 4 per
    value plus 65,536."""
    rng = np.random.default_rng(7)
    extremes = np.array([np.iinfo(np.int64).max, np.iinfo(np.int64).min, -1, 0] * 3)
    values = {"dense": rng.integers(0, 50_000, 200_000),            # the bitmap path on the CPU
              "sparse": rng.integers(0, 2**40, 200_000),
              "negative": rng.integers(-5, 50_000, 200_000),
              "small": rng.integers(0, 10, 100),
              "one block": rng.integers(-2**62, 2**62, 4096) // 3 * 3 % 2**20,
              "one block, extremes": np.concatenate((rng.integers(-2**63, 2**63 - 1, 3000), extremes)),
              "one": np.array([5]),
              "none": np.empty(0, dtype=np.int64),
              "one block and one more": rng.integers(0, 3000, 4097),
              "runs across chunks": rng.permutation(np.repeat(rng.integers(-2**63, 2**63 - 1, 900), 7)),
              "one value, many chunks": np.full(5000, -7),
              "dense up to the bound": np.append(rng.integers(0, 9000, 69_999), 4 * 70_000 + 65_535),
              "dense and one past the bound": np.append(rng.integers(0, 9000, 69_999), 4 * 70_000 + 65_536),
              "dense up to the GPU's bound": np.append(rng.integers(0, 9000, 69_999), 16 * 70_000 + 65_535),
              "dense and one past the GPU's bound": np.append(rng.integers(0, 9000, 69_999), 16 * 70_000 + 65_536),
              "dense, one id at the top": np.append(rng.integers(0, 9000, 9999), 2**63 - 1),
              "dense past the GPU's largest map": np.append(rng.integers(0, 9000, 1_100_000), 2**24)}[ids]
    got = ops.to_host(ops.sorted_distinct(ops.asarray(values)))
    assert got.dtype == np.int64 and got.tolist() == np.unique(values).tolist()
    distinct, lowest, highest = ops.sorted_distinct_range(ops.asarray(values))   # (read in the same wait)
    assert ops.to_host(distinct).tolist() == got.tolist()
    if values.size:
        assert (lowest, highest) == (int(values.min()), int(values.max()))
        assert type(lowest) is int and type(highest) is int
    else:
        assert lowest is None and highest is None


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])   # (ops: stateless)
@given(st.lists(st.integers(-2**62, 2**62), max_size=300), st.integers(0, 2**32 - 1))
def test_sorted_union_is_the_sorted_distinct_union(ops, pool, seed):
    # both sides drawn from one pool: values on one side, on the other, or on both
    rng = np.random.default_rng(seed)
    pool = np.array(pool, dtype=np.int64)
    values, more_values = (np.unique(pool[rng.random(pool.size) < 0.6]) for _ in range(2))
    got = ops.to_host(ops.sorted_union(ops.asarray(values), ops.asarray(more_values)))
    assert got.dtype == np.int64 and got.tolist() == np.union1d(values, more_values).tolist()


@pytest.mark.parametrize("rows", [0, 1, 700])
@pytest.mark.parametrize("form", ["sorted", "dense"])
def test_lookup_rows_finds_the_endpoints_and_gathers_the_missing_ones(ops, rows, form):
    rng = np.random.default_rng(rows)
    keys = np.unique(rng.integers(-2**62, 2**62, 500) if form == "sorted" else rng.integers(0, 2000, 500))
    values = rng.permutation(keys.size).astype(np.int64)
    src = rng.choice(np.concatenate((keys, rng.integers(-2**62, 2**62, 50))), rows)
    dst = rng.choice(np.concatenate((keys, [2**63 - 1, -2**63])), rows)
    inserting = rng.random(rows) < 0.5
    codes = np.where(inserting, INSERT, DELETE).astype(np.int8)
    index = _vertex_index(ops, keys, values, form)
    ids, missing = ops.lookup_rows(*index, ops.asarray(src), ops.asarray(dst), ops.asarray(codes))
    table = dict(zip(keys.tolist(), values.tolist()))
    ends = np.concatenate((src, dst))
    assert host(ops, ids).tolist() == [table.get(x, -1) for x in ends.tolist()]
    want = [x for x, ins in zip(ends.tolist(), np.concatenate((inserting, inserting))) if ins and x not in table]
    assert sorted(host(ops, missing).tolist()) == sorted(want)
    # the same without waiting: the count stays where it was made, until read
    found, counted = ops.find_rows(*index, ops.asarray(src), ops.asarray(dst), ops.asarray(codes))
    assert host(ops, found).tolist() == host(ops, ids).tolist()
    assert sorted(host(ops, ops.read_counted(counted)).tolist()) == sorted(want)


def test_missing_ends_are_the_unknown_ends_of_insert_rows(ops):
    ids = np.array([-1, 4, -1, -1, 2, -1], dtype=np.int64)        # sources of three rows, then destinations
    ends = np.array([10, 11, 12, 13, 14, 15], dtype=np.int64)
    codes = np.array([INSERT, INSERT, DELETE], dtype=np.int8)
    missing = ops.missing_ends(ops.asarray(ids), ops.asarray(ends), ops.asarray(codes))
    assert sorted(host(ops, ops.read_counted(missing)).tolist()) == [10, 13]


@pytest.mark.parametrize("rows", [1, 3, 300])
def test_net_changes_reads_the_unresolved_count_with_its_own(ops, rows):
    """``unresolved``: a count of ends still without ids, read in the same wait;
    zero leaves the result as without it, anything else gives None."""
    rng = np.random.default_rng(rows)
    adj, index = indexed_arcs(ops, 50, {(0, 7): 1.0, (3, 4): 2.0})
    u, v = rng.integers(0, 50, rows), rng.integers(0, 50, rows)
    u[0], v[0] = 3, 4
    codes = np.where(rng.random(rows) < 0.5, 1, -1).astype(np.int8)
    args = (ops.asarray(u), ops.asarray(v), ops.asarray(codes), ops.asarray(rng.random(rows)), index.table, adj)
    plain = ops.net_changes(*args)
    for count in (0, 2):
        for unresolved in (count, ops.asarray(np.array([count], dtype=np.uint64))):
            net = ops.net_changes(*args, unresolved=unresolved)
            if count:
                assert net is None
            else:
                assert net.counts == plain.counts
                for a, b in zip(net[:-1], plain[:-1]):
                    assert sorted(host(ops, a).tolist()) == sorted(host(ops, b).tolist())


@pytest.mark.parametrize("rows", [1, 2, 5, 16, 64, 65, 300])      # (on the GPU one block up to 64 rows)
@pytest.mark.parametrize("undirected", [False, True])
@pytest.mark.parametrize("new_vertex", [False, True])
@pytest.mark.parametrize("form", ["sorted", "dense"])
def test_net_changes_of_ends_looks_up_and_reduces(ops, rows, undirected, new_vertex, form):
    """Rows naming their ends by external id: each end's internal id, and the net
    change of each edge through its rows in order (a model of the rows), or,
    where an insert row names an end no vertex has, no changes and those ends."""
    rng = np.random.default_rng(rows + 7 * undirected + 13 * new_vertex)
    n = 12
    external = rng.choice(np.arange(-2**40, 2**40, 2**30) if form == "sorted" else np.arange(100), n, replace=False)
    order = np.argsort(external)
    keys, values = external[order], np.arange(n)[order]
    pairs = {(int(a), int(b)) for a, b in rng.integers(0, n, (15, 2))}
    if undirected:
        pairs = {(min(a, b), max(a, b)) for a, b in pairs}
    stored = {pair: float(rng.integers(1, 4)) for pair in pairs}
    arcs = dict(stored)
    if undirected:
        arcs.update({(b, a): w for (a, b), w in stored.items()})
    adj, index = indexed_arcs(ops, n, arcs)
    ends = np.concatenate((external, [2**62 + 1]))          # the last names no vertex
    src, dst = rng.choice(ends, rows), rng.choice(ends, rows)
    src[:rows // 2] = rng.choice(external, rows // 2)       # (most rows name edges that exist, or may)
    codes = rng.choice(np.array([INSERT, DELETE], dtype=np.int8), rows)
    codes[(src == ends[-1]) | (dst == ends[-1])] = DELETE   # unknown ends on delete rows only ...
    if new_vertex:
        src[rows - 1], codes[rows - 1] = ends[-1], INSERT   # ... but for one insert row
    weights = rng.integers(1, 4, rows).astype(np.float64)

    changes, ids, missing = ops.net_changes_of_ends(
        *_vertex_index(ops, keys, values, form), ops.asarray(src), ops.asarray(dst), ops.asarray(codes),
        ops.asarray(weights), index.table, adj, undirected=undirected)
    internal = dict(zip(external.tolist(), range(n)))
    assert host(ops, ids).tolist() == [internal.get(x, -1) for x in np.concatenate((src, dst)).tolist()]
    if new_vertex:
        assert changes is None
        inserting = codes == INSERT
        unknown = int(((src == ends[-1]) & inserting).sum() + ((dst == ends[-1]) & inserting).sum())
        assert host(ops, missing).tolist() == [ends[-1]] * unknown
        return
    assert missing is None
    state, ignored = dict(stored), 0
    for a, b, o, w in zip(src.tolist(), dst.tolist(), codes.tolist(), weights.tolist()):
        edge = (internal.get(a, -1), internal.get(b, -1))
        edge = (min(edge), max(edge)) if undirected and -1 not in edge else edge
        if o == INSERT:
            state[edge] = w
        else:
            ignored += edge not in state
            state.pop(edge, None)
    got = {name: sorted(zip(*(host(ops, a).tolist() for a in arrays)))
           for name, arrays in (("inserted", (changes.inserted_u, changes.inserted_v, changes.inserted_weights)),
                                ("deleted", (changes.deleted_u, changes.deleted_v)),
                                ("updated", (changes.updated_u, changes.updated_v, changes.updated_weights)))}
    assert got["inserted"] == sorted((a, b, w) for (a, b), w in state.items() if (a, b) not in stored)
    assert got["deleted"] == sorted(edge for edge in stored if edge not in state)
    assert got["updated"] == sorted((a, b, w) for (a, b), w in state.items() if stored.get((a, b), w) != w)
    assert changes.counts["ignored"] == ignored
    assert changes.counts["inserted"] == len(got["inserted"]) and changes.counts["deleted"] == len(got["deleted"])


@pytest.mark.parametrize("undirected", [False, True])
def test_arc_keys(ops, undirected):
    rng = np.random.default_rng(7)
    u, v = rng.integers(-1, 2**31 - 1, 300), rng.integers(-1, 2**31 - 1, 300)
    u[:3], v[:3] = [-1, 5, -1], [4, -1, -1]             # rows naming a vertex the graph lacks
    keys = host(ops, ops.arc_keys(ops.asarray(u), ops.asarray(v), undirected=undirected))
    a, b = (np.minimum(u, v), np.maximum(u, v)) if undirected else (u, v)
    assert keys.tolist() == arc_key(np, a, b).tolist()
    assert (keys[:3] < 0).all()


@pytest.mark.parametrize("undirected", [False, True])
def test_net_changes_of_new_edges_and_missing_vertices(ops, undirected):
    """Each inserted edge comes back with its ends (ascending on an undirected
    graph) and its arc key; a row naming a vertex the graph lacks (-1) is ignored."""
    rng = np.random.default_rng(3)
    n = 3000
    u, v = rng.integers(0, n, 200), rng.integers(0, n, 200)
    u[:2], v[:2] = n - 1, [0, n - 2]
    adj, index = indexed_arcs(ops, n, {})
    codes = np.ones(200, dtype=np.int8)
    codes[-2:] = -1
    u[-2:], v[-1] = -1, -1
    net = ops.net_changes(ops.asarray(u), ops.asarray(v), ops.asarray(codes), ops.asarray(np.ones(200)),
                          index.table, adj, undirected=undirected)
    a, b = (np.minimum(u, v), np.maximum(u, v)) if undirected else (u, v)
    want = sorted(set(zip(a[:-2].tolist(), b[:-2].tolist())))
    got = sorted(zip(host(ops, net.inserted_u).tolist(), host(ops, net.inserted_v).tolist()))
    assert got == want
    assert sorted(host(ops, net.inserted_keys).tolist()) == sorted(arc_key(np, *map(np.array, zip(*want))).tolist())
    assert net.counts["ignored"] == 2 and net.counts["inserted"] == len(want)


def random_parents_and_arcs(size, n=600):
    """``(rng, parent, u, v)``: a random parent per vertex (-1: none) and ``size``
    random arcs ``u -> v``, the first half of them parent arcs."""
    rng = np.random.default_rng(size)
    parent = rng.integers(-1, n, n)
    u, v = rng.integers(0, n, size), rng.integers(0, n, size)
    u[: size // 2] = parent[v[: size // 2]]
    return rng, parent, u, v


@pytest.mark.parametrize("size", [0, 1, 500])
def test_weak_children_of_are_the_ends_of_cut_parent_arcs(ops, size):
    """Either end of a deleted arc whose reverse is absent, against the definition."""
    rng, parent, u, v = random_parents_and_arcs(size)
    u, v = np.where(np.arange(size) % 2, v, u), np.where(np.arange(size) % 2, u, v)     # some parent arcs reversed
    reverse_at = np.where(rng.random(size) < 0.3, rng.integers(0, 99, size), -1)
    got = ops.read_counted(ops.weak_children_of(*(ops.asarray(a) for a in (parent, u, v, reverse_at))))
    gone = reverse_at < 0
    expected = v[(parent[v] == u) & gone].tolist() + u[(parent[u] == v) & gone].tolist()
    assert sorted(host(ops, got).tolist()) == sorted(expected)


@pytest.mark.parametrize("size", [0, 1, 500])
def test_children_reached_and_reset_values(ops, size):
    """The three small steps of a monotonic correction, against NumPy."""
    rng, parent, u, v = random_parents_and_arcs(size)
    n = parent.size
    children = ops.children_of(ops.asarray(parent), ops.asarray(u), ops.asarray(v))
    got = host(ops, ops.read_counted(children))
    assert sorted(got.tolist()) == sorted(v[parent[v] == u].tolist())
    closure, _ = ops.invalidate([make_adjacency(ops, n, [])], children, ops.asarray(parent))   # (count unread)
    assert sorted(host(ops, closure).tolist()) == sorted(set(got.tolist()))
    for dtype, unreachable in ((np.float32, np.inf), (np.float64, np.inf), (np.int32, np.iinfo(np.int32).max),
                               (np.int64, -1)):
        value = rng.integers(0, 9, n).astype(dtype)
        value[rng.random(n) < 0.4] = unreachable
        vertices = rng.choice(n, size, replace=False)
        got = host(ops, ops.reached(ops.asarray(value), ops.asarray(vertices), unreachable))
        assert sorted(got.tolist()) == sorted(vertices[value[vertices] != unreachable].tolist())
        for source in (None, int(vertices[0]) if size else 3, n - 1):
            want_value, want_parent = value.copy(), parent.copy()
            want_value[vertices], want_parent[vertices] = unreachable, -1
            if source is not None:
                want_value[source] = 0
            device_value, device_parent = ops.asarray(value.copy()), ops.asarray(parent.copy())
            ops.reset_values(device_value, device_parent, ops.asarray(vertices), unreachable, source,
                             None if source is None else 0)
            assert host(ops, device_value).tolist() == want_value.tolist()
            assert host(ops, device_parent).tolist() == want_parent.tolist()


@pytest.mark.parametrize("arcs, parent_share", [(6000, 0.02), (6000, 0.9)])
def test_invalidate_takes_children_counted_on_the_device_past_a_blocks_level(ops, arcs, parent_share):
    """children_of's Counted with more entries than one block's level (few of them
    children, or most) invalidates what the children as an array invalidate."""
    rng = np.random.default_rng(arcs + int(10 * parent_share))
    n = 20_000
    parent = np.where(rng.random(n) < 0.9, rng.integers(0, n, n), -1)
    u, v = rng.integers(0, n, arcs), rng.integers(0, n, arcs)
    tree = rng.random(arcs) < parent_share
    u[tree] = parent[v[tree]]
    adj = make_adjacency(ops, n, [(int(parent[x]), x, 1.0) for x in range(n) if parent[x] >= 0])
    children = ops.children_of(ops.asarray(parent), ops.asarray(u), ops.asarray(v))
    listed = host(ops, ops.read_counted(children))
    from_counted, _ = ops.invalidate([adj], children, ops.asarray(parent))
    from_array, _ = ops.invalidate([adj], ops.asarray(listed), ops.asarray(parent))
    assert sorted(host(ops, from_counted).tolist()) == sorted(host(ops, from_array).tolist())
    assert set(listed.tolist()) <= set(host(ops, from_counted).tolist())


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cached=st.dictionaries(st.integers(0, 29), st.tuples(st.integers(0, 3), st.integers(0, 99), st.integers(1, 300)),
                              max_size=20),
       ids=st.lists(st.integers(0, 29), max_size=50), priced=st.booleans(), weight_itemsize=st.sampled_from([0, 4, 8]))
def test_uncache_lists_evicts_each_cached_id_once_and_prices_it(ops, cached, ids, priced, weight_itemsize):
    from types import SimpleNamespace

    from cugraph_stream.backends.base import READ_UNIT_BYTES, ListPrice

    n, chunks, slots = 30, 4, 1000
    state = {"in_cache": np.zeros(n, bool), "chunk_id": np.full(n, -1, np.int32),
             "chunk_offset": np.zeros(n, np.int32), "cached_degree": np.zeros(n, np.int32)}
    for v, (c, offset, d) in cached.items():
        state["in_cache"][v], state["chunk_id"][v], state["chunk_offset"][v], state["cached_degree"][v] = \
            True, c, offset, d
    rng = np.random.default_rng(len(ids))
    degree = rng.integers(0, 500, n).astype(np.int64)
    words = rng.integers(0, 2 ** 32, n, dtype=np.uint64).astype(np.uint32)
    itemsizes = (4,) + ((weight_itemsize,) if weight_itemsize else ())
    lists = SimpleNamespace(**{name: ops.asarray(a.copy()) for name, a in state.items()})
    price = ListPrice(ops.asarray(degree), ops.asarray(words), 3, 10, itemsizes) if priced else None
    evicted, places, held, lost, value = ops.uncache_lists(lists, ops.asarray(np.array(ids, np.int64)), chunks,
                                                           slots, price)
    want = sorted(set(ids) & set(cached))
    got = host(ops, evicted).tolist()
    assert sorted(got) == want and len(got) == len(want)
    assert dict(zip(got, host(ops, places).tolist())) == {v: cached[v][0] * slots + cached[v][1] for v in want}
    assert dict(zip(got, host(ops, held).tolist())) == {v: cached[v][2] for v in want}
    want_lost = np.zeros(chunks, np.int64)
    for v in want:
        want_lost[cached[v][0]] += cached[v][2]
    assert lost.tolist() == want_lost.tolist()
    score = {v: sum((int(words[v]) >> (10 * age)) & 1023 for age in range(3)) for v in want}
    reads = {v: sum(-(-int(degree[v]) * s // READ_UNIT_BYTES) for s in itemsizes) for v in want}
    fits = [v for v in want if 0 < degree[v] <= cached[v][2]]          # only what a partial refresh reloads
    assert value == (sum(score[v] * reads[v] for v in fits) if priced else 0)
    for name, a in state.items():
        a[want] = {"in_cache": False, "chunk_id": -1, "chunk_offset": 0, "cached_degree": 0}[name]
        assert host(ops, getattr(lists, name)).tolist() == a.tolist(), name


def _random_cache_lists(rng, n, chunks, slots):
    """Per-vertex arrays of a cache holding about half of ``n`` vertices' lists (host arrays)."""
    in_cache = rng.random(n) < 0.5
    return {"in_cache": in_cache, "chunk_id": np.where(in_cache, rng.integers(0, chunks, n), -1).astype(np.int32),
            "chunk_offset": np.where(in_cache, rng.integers(0, slots - 10, n), 0).astype(np.int32),
            "cached_degree": np.where(in_cache, rng.integers(1, 10, n), 0).astype(np.int32)}


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("itemsizes", [None, (4,), (4, 4, 8)])     # (three sizes: the GPU's kernel takes two)
def test_uncache_lists_in_several_caches_equals_a_call_for_each(ops, seed, itemsizes):
    """Several caches' evictions in one operator call (one wait on the GPU) give what
    a call for each gives, and leave each cache's arrays as it leaves them; priced
    or not (a price the GPU's kernel does not take goes the base class's way)."""
    from types import SimpleNamespace

    from cugraph_stream.backends.base import ListPrice

    rng = np.random.default_rng(seed)
    n, chunks, slots = 40, 3, 100
    states = [_random_cache_lists(rng, n, chunks, slots) for _ in range(3)]
    ids = [rng.integers(0, n, 25), np.zeros(0, np.int64), rng.integers(0, n, 60)]
    price = None if itemsizes is None else ListPrice(
        ops.asarray(rng.integers(0, 12, n).astype(np.int64)),
        ops.asarray(rng.integers(0, 2 ** 32, n, dtype=np.uint64).astype(np.uint32)), 3, 10, itemsizes)

    def caches():
        return [SimpleNamespace(**{name: ops.asarray(a.copy()) for name, a in state.items()}) for state in states]
    together, apart = caches(), caches()
    results = ops.uncache_lists_in([(lists, ops.asarray(i), chunks, slots, price)
                                    for lists, i in zip(together, ids)])
    assert len(results) == 3
    for lists, i, result, alone_lists in zip(together, ids, results, apart):
        alone = ops.uncache_lists(alone_lists, ops.asarray(i), chunks, slots, price)
        order, alone_order = np.argsort(host(ops, result[0])), np.argsort(host(ops, alone[0]))
        for got, want in zip(result[:3], alone[:3]):
            assert host(ops, got)[order].tolist() == host(ops, want)[alone_order].tolist()
        assert result[3].tolist() == alone[3].tolist() and result[4] == alone[4]
        for name in states[0]:
            assert host(ops, getattr(lists, name)).tolist() == host(ops, getattr(alone_lists, name)).tolist()


def test_uncache_lists_in_undoes_the_caches_before_one_that_fails():
    """All or nothing: the second cache's eviction fails (an id beyond its arrays),
    and the first cache's evicted lists are cached again where they were."""
    from types import SimpleNamespace

    from cugraph_stream.backends import get_backend

    rng = np.random.default_rng(4)
    state = _random_cache_lists(rng, 40, 3, 100)
    first, second = (SimpleNamespace(**{name: a.copy() for name, a in state.items()}) for _ in range(2))
    with pytest.raises(IndexError):
        get_backend("cpu").uncache_lists_in([(first, np.arange(40), 3, 100, None),
                                             (second, np.array([3, 400]), 3, 100, None)])
    for name, a in state.items():
        assert getattr(first, name).tolist() == a.tolist() and getattr(second, name).tolist() == a.tolist(), name


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(evicted=st.dictionaries(st.integers(0, 29), st.tuples(st.integers(0, 3), st.integers(0, 99), st.integers(1, 9)),
                               max_size=20),
       released=st.sets(st.integers(0, 3)), weight_itemsize=st.sampled_from([0, 4, 8]))
def test_recache_in_place_takes_back_the_lists_that_fit_their_slots(ops, evicted, released, weight_itemsize):
    from types import SimpleNamespace

    from cugraph_stream.backends.base import READ_UNIT_BYTES

    n, chunks, slots = 30, 4, 1000
    rng = np.random.default_rng(len(evicted))
    degree = rng.integers(0, 12, n).astype(np.int64)
    start = (rng.integers(0, 50, n) * 16).astype(np.int64)
    pointers = np.array([0 if c in released else 4096 * (c + 1) for c in range(chunks)], np.uint64)
    lists = SimpleNamespace(in_cache=ops.asarray(np.zeros(n, bool)), chunk_id=ops.asarray(np.full(n, -1, np.int32)),
                            chunk_offset=ops.asarray(np.zeros(n, np.int32)),
                            cached_degree=ops.asarray(np.zeros(n, np.int32)), nbr_pointers=ops.asarray(pointers))
    adjacency = SimpleNamespace(degree=ops.asarray(degree), start=ops.asarray(start))
    vertices = sorted(evicted)
    places = np.array([evicted[v][0] * slots + evicted[v][1] for v in vertices], np.int64)
    held = np.array([evicted[v][2] for v in vertices], np.int64)
    placed, regained, reads = ops.recache_in_place(lists, ops.asarray(np.array(vertices, np.int64)),
                                                   ops.asarray(places), ops.asarray(held), adjacency, slots,
                                                   weight_itemsize)
    want = [v for v in vertices if 0 < degree[v] <= evicted[v][2] and evicted[v][0] not in released]
    assert sorted(host(ops, placed).tolist()) == want
    want_regained = np.zeros(chunks, np.int64)
    for v in want:
        want_regained[evicted[v][0]] += degree[v]
    assert regained.tolist() == want_regained.tolist()

    def blocks(v, itemsize):
        return len({byte // READ_UNIT_BYTES for i in range(start[v], start[v] + degree[v])
                    for byte in range(i * itemsize, (i + 1) * itemsize)})
    assert reads == sum(blocks(v, 4) + (blocks(v, weight_itemsize) if weight_itemsize else 0) for v in want)
    in_cache, chunk_id = host(ops, lists.in_cache), host(ops, lists.chunk_id)
    offset, cached = host(ops, lists.chunk_offset), host(ops, lists.cached_degree)
    for v in range(n):
        if v in want:
            assert (in_cache[v], chunk_id[v], offset[v], cached[v]) == (True, *evicted[v][:2], degree[v])
        else:
            assert (in_cache[v], chunk_id[v], offset[v], cached[v]) == (False, -1, 0, 0)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(entries=st.lists(st.tuples(st.integers(0, 9), st.integers(0, 15)), max_size=40),
       per_entry=st.booleans(), bits=st.sampled_from([4, 8, 32]))
def test_add_to_field_saturates_the_low_field_and_keeps_the_rest(ops, entries, per_entry, bits):
    field_max = (1 << bits) - 1
    rng = np.random.default_rng(len(entries))
    words = rng.integers(0, 2 ** 32, 10, dtype=np.uint64).astype(np.uint32)
    vertices = np.array([v for v, _ in entries], dtype=np.int64)
    added = np.array([min(a, field_max) for _, a in entries], dtype=np.uint32) if per_entry else 3
    expected = words.copy()
    for i, v in enumerate(vertices.tolist()):
        a = int(added[i]) if per_entry else 3
        low = int(expected[v]) & field_max
        expected[v] = (int(expected[v]) ^ low) | min(low + a, field_max)
    distinct = len(set(vertices.tolist())) == len(vertices)
    device_words = ops.asarray(words)
    ops.add_to_field(device_words, ops.asarray(vertices), ops.asarray(added) if per_entry else added, field_max,
                     distinct)
    assert host(ops, device_words).tolist() == expected.tolist()


@pytest.mark.parametrize("shift,mask", [(10, (1 << 30) - 1), (16, 0xFFFFFFFF), (1, 0x7)])
def test_shift_fields_moves_every_field_up_and_drops_what_passes_the_mask(ops, shift, mask):
    words = np.random.default_rng(shift).integers(0, 2 ** 32, 1000, dtype=np.uint64).astype(np.uint32)
    expected = [(int(w) << shift) & mask for w in words.tolist()]
    device_words = ops.asarray(words)
    out = ops.xp.empty_like(device_words)
    ops.shift_fields(device_words, shift, mask, out)
    assert host(ops, out).tolist() == expected
    ops.shift_fields(device_words, shift, mask, device_words)          # in place
    assert host(ops, device_words).tolist() == expected


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(frontier=st.lists(st.integers(0, 11), max_size=60), times=st.integers(1, 40), distinct=st.booleans(),
       cached=st.booleans())
def test_count_reads_counts_the_accesses_in_the_same_pass(ops, frontier, times, distinct, cached):
    """``accesses`` adds what ``add_to_field`` would (repeats accumulate, saturating at the
    field's maximum, empty lists included) and leaves the read counts as they were."""
    from cugraph_stream.backends.base import AccessCounts

    if distinct:
        frontier = sorted(set(frontier))
    rng = np.random.default_rng(len(frontier) + times)
    degree = rng.integers(0, 50, 12).astype(np.int64)
    start = np.cumsum(np.concatenate(([0], degree[:-1]))).astype(np.int64)
    in_cache = ops.asarray(rng.random(12) < 0.5) if cached else None
    words = rng.integers(0, 2 ** 32, 12, dtype=np.uint64).astype(np.uint32)
    field_max = 31
    frontier = ops.asarray(np.array(frontier, dtype=np.int64))
    alone, together = (ops.xp.zeros(8, dtype=ops.xp.int64) for _ in range(2))
    expected_words = ops.asarray(words.copy())
    ops.count_reads(alone, frontier, ops.asarray(degree), ops.asarray(start), in_cache, 4, True, times)
    ops.add_to_field(expected_words, frontier, min(times, field_max), field_max, distinct)
    counted_words = ops.asarray(words.copy())
    ops.count_reads(together, frontier, ops.asarray(degree), ops.asarray(start), in_cache, 4, True, times,
                    AccessCounts(counted_words, field_max, min(times, field_max), distinct))
    assert host(ops, together).tolist() == host(ops, alone).tolist()
    assert host(ops, counted_words).tolist() == host(ops, expected_words).tolist()
