"""The hot-subgraph cache's bookkeeping against brute-force Python models.

Every test runs on the NumPy backend (CI) and, under the ``gpu`` marker, on
CuPy: the cache is written once against ``ops.xp`` and the operators.  A
batch's refresh runs the steps of ``GraphStore.refresh_cache`` for one cache
(:func:`refresh`: evict, then load), with candidates given or selected within
the cache's whole budget (:func:`select`).
"""
import numpy as np
import pytest

from cugraph_stream.backends import get_backend
from cugraph_stream.engine.cache import HotCache, RefreshReport, changed_lists
from cugraph_stream.engine.cache_selection import select_in_chunks
from cugraph_stream.engine.hotness import Hotness
from list_helpers import empty, host, host_list, make_adjacency


def refresh(cache, candidates, changed_vertices, adj):
    """One cache's part of a batch's refresh: :meth:`HotCache.evict`, then :meth:`HotCache.load`."""
    report = RefreshReport()
    cache.evict(candidates, changed_vertices, adj, report)
    cache.load(candidates, adj, report)
    return report


def select(cache, score, adj):
    """The cache's most valuable lists within its whole budget (chunks of one byte, no room left)."""
    return select_in_chunks(cache.ops, [cache.list_values(score, adj)], [1], cache.usable_bytes, room_share=0)[0]


def cached_list(ops, cache, adj, v):
    """A cached list read from its chunk (weights from the host store when the cache holds none)."""
    c, o, d = int(cache.chunk_id[v]), int(cache.chunk_offset[v]), int(cache.cached_degree[v])
    chunk = cache.chunks[c]
    weights = chunk.wgt[o:o + d] if cache.weights else adj.wgt[int(adj.start[v]):int(adj.start[v]) + d]
    nbr = host(ops, chunk.nbr[o:o + d])
    if cache.id_bytes == 3:         # little-endian 3-byte rows
        assert nbr.shape == (d, 3) and nbr.dtype == np.uint8
        nbr = [int(a) + 256 * int(b) + 65536 * int(c) for a, b, c in nbr.tolist()]
    else:
        nbr = nbr.tolist()
    return nbr, host(ops, weights).tolist()


# ---------------------------------------------------------------------- refresh
def check_cache(ops, cache, adj, candidates, n):
    """The refresh invariants, checked with plain Python loops (independent of ``HotCache.check``)."""
    cache.check(adj)
    assert cache.held_bytes <= cache.budget_bytes
    assert cache.allocator.held_bytes <= cache.budget_bytes
    in_cache = host(ops, cache.in_cache)[:n]
    cached = np.flatnonzero(in_cache).tolist()
    assert set(cached) <= set(candidates)
    intervals = {}
    for v in cached:
        c, o, d = int(cache.chunk_id[v]), int(cache.chunk_offset[v]), int(cache.cached_degree[v])
        chunk = cache.chunks[c]
        assert chunk is not None and (chunk.wgt is not None) == cache.weights
        assert d == int(adj.degree[v]) > 0
        assert 0 <= o and o + d <= cache.chunk_slots
        assert cached_list(ops, cache, adj, v) == host_list(ops, adj, v)
        intervals.setdefault(c, []).append((o, o + d))
    held = [c for c, chunk in enumerate(cache.chunks) if chunk is not None]
    assert sorted(intervals) == held                                         # no chunk held without a list
    for c, spans in intervals.items():
        spans.sort()
        assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:]))          # no overlap
        live = sum(b - a for a, b in spans)
        assert spans[-1][1] <= int(cache.fill[c]) <= cache.chunk_slots
        assert live + int(cache.garbage[c]) == int(cache.fill[c])           # the rest is garbage
    for v in set(range(n)) - set(cached):
        assert int(cache.chunk_id[v]) == -1
    view = cache.view(adj)
    for v in range(n):
        nbr, wgt = view.neighbors(v)
        assert (host(ops, nbr).tolist(), host(ops, wgt).tolist()) == host_list(ops, adj, v)
    return cached


def mutate(ops, adj, rng, n, dtype, hub_bias):
    """A random batch of appends and removals; returns the vertices whose lists changed."""
    changed = set()
    k = int(rng.integers(0, 40))
    u = np.where(rng.random(k) < hub_bias, rng.integers(0, 4, k), rng.integers(0, n, k))
    if k:
        v = rng.integers(0, 10 ** 6, k)
        w = rng.random(k).astype(dtype)
        adj.append(ops.asarray(u), ops.asarray(v), ops.asarray(w))
        changed.update(u.tolist())
    owners, slots = [], []
    degree = host(ops, adj.degree)[:n]
    start = host(ops, adj.start)[:n]
    for x in rng.choice(n, size=int(rng.integers(0, 6)), replace=False).tolist():
        if degree[x]:
            picked = rng.choice(int(degree[x]), size=int(rng.integers(1, degree[x] + 1)), replace=False)
            owners += [x] * picked.size
            slots += (int(start[x]) + picked).tolist()
            changed.add(x)
    if slots:
        adj.remove(ops.asarray(np.array(owners)), ops.asarray(np.array(slots)))
    return changed


@pytest.mark.parametrize("dtype, weights, id_bytes", [(np.float32, True, 4), (np.float64, True, 4),
                                                      (np.float32, False, 4), (np.float32, True, 3),
                                                      (np.float32, False, 3)])
@pytest.mark.parametrize("budget_lists, chunk_lists", [(1000, 64), (40, 8), (12, 4), (3, 2), (2, 2), (0, 1)])
@pytest.mark.parametrize("seed", [0, 1])
def test_refresh_against_model(ops, dtype, weights, id_bytes, budget_lists, chunk_lists, seed):
    """Random streams: after every refresh the cache matches the store and its invariants hold.

    Budgets are in units of 32 slots (lists hold 0 to 50 entries); the
    smallest ones force evictions every batch and chunks are a few lists
    each, so compaction, merging and release all happen.
    """
    rng = np.random.default_rng(seed)
    n = 60
    slot_bytes = id_bytes + np.dtype(dtype).itemsize * weights
    cache = HotCache(ops, dtype, budget_bytes=budget_lists * 64 * slot_bytes,
                     chunk_bytes=chunk_lists * 64 * slot_bytes, weights=weights, id_bytes=id_bytes)
    assert cache.slot_bytes == slot_bytes and (cache.max_chunks > 0) == (budget_lists > 0)
    adj = make_adjacency(ops, n, dtype, {u: list(range(int(rng.integers(0, 50)))) for u in range(n)})
    hot = Hotness(ops, tau=int(rng.integers(1, 4)))
    hot.ensure_vertices(n)
    hot.record(ops.asarray(rng.integers(0, n, 200)))
    totals = dict(evicted=0, compacted=0, merged=0, released=0, reloaded=0)
    previous = set()
    for batch in range(30):
        changed = mutate(ops, adj, rng, n, dtype, hub_bias=0.5) if batch else set()
        if batch % 7 == 6:
            adj.compact()                        # lists move in host memory; the cache must not care
        candidates = host(ops, select(cache, hot.score(), adj)).tolist()
        assert len(set(candidates)) == len(candidates)
        report = refresh(cache, ops.asarray(np.array(candidates, dtype=np.int64)),
                               ops.asarray(np.array(sorted(changed), dtype=np.int64)), adj)
        cached = check_cache(ops, cache, adj, candidates, n)
        # evicted exactly: the cached lists that left the candidates or changed
        expected_evicted = {v for v in previous if v not in candidates or v in changed}
        assert report.evicted == len(expected_evicted)
        assert report.evicted_changed == len(expected_evicted & changed)
        assert report.loaded_lists == len(set(cached) - (previous - expected_evicted))
        assert report.cached_lists == len(cached) and report.held_bytes == cache.held_bytes
        assert report.garbage_slots == int(cache.garbage.sum())
        assert report.load_bytes % 64 == 0 and (report.loaded_lists == 0) == (report.load_bytes == 0)
        room = cache.usable_bytes - sum(int(adj.degree[v]) * slot_bytes for v in candidates)
        if room >= cache.max_chunks * cache.chunk_bytes // 2 and cache.max_chunks:
            # plenty of room: every candidate is cached, so changed candidates were reloaded
            assert set(cached) == set(candidates) and report.not_loaded == 0
        totals["evicted"] += report.evicted
        totals["compacted"] += report.compacted_chunks
        totals["merged"] += report.merged_chunks
        totals["released"] += report.released_chunks
        totals["reloaded"] += len(set(cached) & changed & previous)
        previous = set(cached)
        hot.advance()
        frontier = np.where(rng.random(30) < 0.6, rng.integers(0, 8, 30), rng.integers(0, n, 30))
        hot.record(ops.asarray(frontier))
    if budget_lists == 0:
        assert cache.max_chunks == 0 and not previous and totals["evicted"] == 0
    else:
        assert totals["evicted"] > 0
    if budget_lists >= 40:
        assert totals["reloaded"] > 0
    if 0 < budget_lists <= 12:
        assert totals["compacted"] > 0
    if 0 < budget_lists <= 12 and cache.max_chunks > 1:
        assert totals["merged"] > 0 and totals["released"] > 0


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_tiny_budget_evicts_every_batch(ops, dtype):
    """The hot set moves every batch and the cache holds two lists: every refresh evicts and loads."""
    n = 40
    slot_bytes = 4 + np.dtype(dtype).itemsize
    cache = HotCache(ops, dtype, budget_bytes=64 * slot_bytes)
    assert cache.max_chunks == 1 and cache.chunk_slots == 64
    adj = make_adjacency(ops, n, dtype, {u: list(range(1, 31 + u % 3)) for u in range(n)})
    hot = Hotness(ops, tau=1)
    hot.ensure_vertices(n)
    for batch in range(12):
        hot.record(ops.asarray(np.array([3 * batch % n, (3 * batch + 1) % n, (3 * batch + 2) % n])),
                   counts=ops.asarray(np.array([3, 2, 1])))
        candidates = select(cache, hot.score(), adj)
        report = refresh(cache, candidates, empty(ops), adj)
        hot.advance()
        cached = check_cache(ops, cache, adj, host(ops, candidates).tolist(), n)
        assert sorted(cached) == sorted([3 * batch % n, (3 * batch + 1) % n])   # the two hottest
        assert report.loaded_lists == 2 and report.evicted == (2 if batch else 0)
        assert cache.chunks_held == 1 and cache.held_bytes == cache.budget_bytes


def test_lazy_compaction_most_garbage_first(ops):
    """Evicted lists stay garbage until the loads need their room; then the chunk with the
    most garbage is compacted (its lists slide down in offset order), and only that one.
    A chunk left with more garbage than lists is compacted at once."""
    dtype = np.float32
    sizes = {0: 20, 1: 20, 2: 20, 3: 16, 4: 24, 5: 20, 6: 26, 7: 4}
    adj = make_adjacency(ops, 8, dtype, {v: list(range(d)) for v, d in sizes.items()})
    cache = HotCache(ops, dtype, budget_bytes=2 * 64 * 8, chunk_bytes=64 * 8)   # 2 chunks of 64 slots

    def batch(candidates):
        return refresh(cache, ops.asarray(np.array(candidates)), empty(ops), adj)

    report = batch([0, 1, 2, 3, 4, 5])
    assert report.loaded_lists == 6 and list(cache.fill) == [60, 60]
    report = batch([0, 2, 3, 5])                         # 1 leaves chunk 0, 4 leaves chunk 1
    assert report.evicted == 2 and report.compacted_chunks == 0 and list(cache.garbage) == [20, 24]
    report = batch([0, 2, 3, 5, 7])                      # 4 entries: chunk 0's tail holds them
    assert report.compacted_chunks == 0 and int(cache.chunk_id[7]) == 0 and list(cache.fill) == [64, 60]
    report = batch([0, 2, 3, 5, 7, 6])                   # 26 entries: the tails hold 4
    assert report.compacted_chunks == 1 and report.moved_lists == 1 and report.moved_edges == 20
    assert list(cache.garbage) == [20, 0] and int(cache.chunk_offset[5]) == 16     # chunk 1 (24) went first
    assert int(cache.chunk_id[6]) == 1 and int(cache.chunk_offset[6]) == 36 and list(cache.fill) == [64, 62]
    assert report.loaded_lists == 1 and report.not_loaded == 0 and report.garbage_slots == 20
    check_cache(ops, cache, adj, [0, 2, 3, 5, 7, 6], 8)
    report = batch([3, 5, 7, 6])                         # chunk 0: 60 of 64 slots garbage
    assert report.compacted_chunks == 1 and list(cache.garbage) == [0, 0] and list(cache.fill) == [4, 62]
    check_cache(ops, cache, adj, [3, 5, 7, 6], 8)


def test_chunks_with_garbage_only_are_released_and_compacted_ones_merged(ops):
    dtype = np.float32
    n = 17
    adj = make_adjacency(ops, n, dtype, {u: list(range(16)) for u in range(n)})
    cache = HotCache(ops, dtype, budget_bytes=4 * 64 * 8, chunk_bytes=64 * 8)   # 4 chunks of 4 lists
    assert cache.max_chunks == 4 and cache.chunk_slots == 64
    refresh(cache, ops.asarray(np.arange(13)), empty(ops), adj)
    assert cache.chunks_held == 4 and list(cache.fill) == [64, 64, 64, 16]
    # chunk 0 loses everything: released; chunk 1 keeps vertex 4 only (garbage 48 > 16): compacted,
    # and its list merges into chunk 3's tail, which frees chunk 1 as well
    report = refresh(cache, ops.asarray(np.array([4] + list(range(8, 13)))), empty(ops), adj)
    assert report.released_chunks == 2 and report.compacted_chunks == 1 and report.merged_chunks == 1
    assert int(cache.chunk_id[4]) == 3 and cache.chunks_held == 2 and list(cache.fill) == [0, 0, 64, 32]
    check_cache(ops, cache, adj, [4] + list(range(8, 13)), n)
    chosen = [4] + list(range(8, 17)) + [0, 1, 2, 3]       # 8 more lists: chunk 3's tail and 2 new chunks
    report = refresh(cache, ops.asarray(np.array(chosen)), empty(ops), adj)
    assert report.compacted_chunks == 0 and report.allocated_chunks == 2 and report.loaded_lists == 8
    assert report.not_loaded == 0 and cache.chunks_held == 4
    check_cache(ops, cache, adj, chosen, n)
    report = refresh(cache, empty(ops), empty(ops), adj)
    assert report.evicted == 14 and cache.chunks_held == 0 and cache.allocator.held_bytes == 0
    check_cache(ops, cache, adj, [], n)


def test_changed_lists_are_reloaded(ops):
    dtype = np.float64
    adj = make_adjacency(ops, 3, dtype, {0: [1, 2], 1: [2], 2: [0]})
    cache = HotCache(ops, dtype, budget_bytes=1 << 14, chunk_bytes=1 << 12)
    cands = ops.asarray(np.array([1, 0]))
    refresh(cache, cands, empty(ops), adj)
    adj.append(ops.asarray(np.array([0] * 40)), ops.asarray(np.arange(100, 140)), ops.asarray(np.ones(40)))
    adj.remove(ops.asarray(np.array([1])), ops.asarray(np.array([int(adj.start[1])])))
    report = refresh(cache, cands, ops.asarray(np.array([0, 1, 0])), adj)
    assert report.evicted == 2 and report.evicted_changed == 2
    assert report.loaded_lists == 1 and report.loaded_edges == 42            # vertex 1's list is empty now
    assert cached_list(ops, cache, adj, 0) == host_list(ops, adj, 0) and len(cached_list(ops, cache, adj, 0)[0]) == 42
    assert not bool(cache.in_cache[1])
    check_cache(ops, cache, adj, [1, 0], 3)


def test_lists_over_a_chunk_are_never_cached(ops):
    dtype = np.float32
    adj = make_adjacency(ops, 3, dtype, {0: list(range(100)), 1: [1], 2: list(range(64))})
    cache = HotCache(ops, dtype, budget_bytes=10 ** 6, chunk_bytes=64 * 8)
    assert cache.chunk_slots == 64
    hot = Hotness(ops)
    hot.record(ops.asarray(np.array([0, 0, 0, 1, 2, 2])))
    candidates = select(cache, hot.score(), adj)
    assert host(ops, candidates).tolist() == [1, 2]
    report = refresh(cache, ops.asarray(np.array([0, 2, 1])), empty(ops), adj)   # 0 is skipped even if asked
    assert report.loaded_lists == 2 and not bool(cache.in_cache[0])
    check_cache(ops, cache, adj, [0, 2, 1], 3)


def test_not_loaded_when_tails_are_too_short(ops):
    dtype = np.float32
    adj = make_adjacency(ops, 3, dtype, {0: list(range(40)), 1: list(range(40)), 2: [3]})
    cache = HotCache(ops, dtype, budget_bytes=128 * 8, chunk_bytes=128 * 8)       # one chunk of 128 slots
    report = refresh(cache, ops.asarray(np.array([0, 1, 2])), empty(ops), adj)
    assert report.loaded_lists == 3 and int(cache.fill[0]) == 81
    cache.clear()
    assert cache.chunks_held == 0 and not bool(cache.in_cache.any())
    cache = HotCache(ops, dtype, budget_bytes=2 * 96 * 8, chunk_bytes=96 * 8)
    assert cache.chunk_slots == 64 and cache.max_chunks == 3    # 96 rounds down to 64 slots; 3 fit the budget
    report = refresh(cache, ops.asarray(np.array([0, 1, 2])), empty(ops), adj)
    assert report.loaded_lists == 3 and report.allocated_chunks == 2          # 40 | 40 + 1
    cache = HotCache(ops, dtype, budget_bytes=64 * 8, chunk_bytes=64 * 8)
    report = refresh(cache, ops.asarray(np.array([0, 1, 2])), empty(ops), adj)
    assert report.loaded_lists == 1 and report.not_loaded == 2                # next fit: 1 and 2 find no room
    check_cache(ops, cache, adj, [0, 1, 2], 3)


def test_caches_sharing_an_allocator_share_its_capacity(ops):
    """Two caches (weights and neighbours only) of one allocator: together they never hold
    more than its capacity, and chunks one gives up serve the other."""
    dtype = np.float32
    budget = 4 * 512
    allocator = ops.chunk_allocator(budget)
    out = HotCache(ops, dtype, budget, chunk_bytes=512, allocator=allocator)
    inn = HotCache(ops, dtype, budget, chunk_bytes=512, allocator=allocator, weights=False)
    assert (out.chunk_slots, inn.chunk_slots, out.max_chunks, inn.max_chunks) == (64, 128, 4, 4)
    adj = make_adjacency(ops, 12, dtype, {u: list(range(60)) for u in range(12)})
    refresh(out, ops.asarray(np.array([0, 1, 2])), empty(ops), adj)
    report = refresh(inn, ops.asarray(np.arange(12)), empty(ops), adj)
    assert out.chunks_held == 3 and inn.chunks_held == 1 and report.not_loaded == 10
    assert allocator.held_bytes == budget
    refresh(out, empty(ops), empty(ops), adj)                                   # out gives its chunks back
    report = refresh(inn, ops.asarray(np.arange(8)), empty(ops), adj)
    assert inn.chunks_held == 4 and report.not_loaded == 0 and allocator.held_bytes == budget
    check_cache(ops, out, adj, [], 12)
    check_cache(ops, inn, adj, list(range(8)), 12)
    assert all(chunk is None or chunk.wgt is None for chunk in inn.chunks)


def test_packed_ids_widen_when_an_id_outgrows_3_bytes(ops):
    """A packed cache told of an id of 2**24 empties itself, then reloads with 4-byte ids."""
    dtype = np.float32
    big = (1 << 24) + 5
    adj = make_adjacency(ops, 3, dtype, {0: [1, (1 << 24) - 1], 1: [0], 2: [2]})
    cache = HotCache(ops, dtype, budget_bytes=1 << 12, chunk_bytes=1 << 11, weights=False, id_bytes=3)
    packed_slots = cache.chunk_slots
    refresh(cache, ops.asarray(np.array([0, 1])), empty(ops), adj)
    check_cache(ops, cache, adj, [0, 1], 3)
    assert not cache.ensure_id_bound(1 << 24) and cache.chunks_held == 1
    _ = adj.append(ops.asarray(np.array([2])), ops.asarray(np.array([big])), ops.asarray(np.ones(1, dtype)))
    assert cache.ensure_id_bound(big + 1)
    assert cache.id_bytes == 4 and cache.chunks_held == 0 and not bool(cache.in_cache.any())
    assert cache.chunk_slots < packed_slots and cache.allocator.held_bytes == 0
    report = refresh(cache, ops.asarray(np.array([2, 0, 1])), ops.asarray(np.array([2])), adj)
    assert report.loaded_lists == 3
    check_cache(ops, cache, adj, [2, 0, 1], 3)
    assert cached_list(ops, cache, adj, 2)[0] == [2, big]


def test_check_reports_a_stale_list(ops):
    dtype = np.float32
    adj = make_adjacency(ops, 2, dtype, {0: [1], 1: [0]})
    cache = HotCache(ops, dtype, budget_bytes=1 << 12, chunk_bytes=1 << 12)
    refresh(cache, ops.asarray(np.array([0, 1])), empty(ops), adj)
    adj.wgt[int(adj.start[0])] = 9.0               # a change the refresh was not told about
    with pytest.raises(RuntimeError, match="weights differ"):
        cache.check(adj)


def test_changed_lists_from_a_store_delta(ops):
    from cugraph_stream.engine.reduce import reduce_batch
    from cugraph_stream.engine.store import GraphStore

    store = GraphStore(ops, directed=True, weight_dtype=np.float32)
    ids = store.add_vertices(ops.asarray(np.array([10, 20, 30])))
    batch = reduce_batch(store, ids[ops.asarray(np.array([0, 1]))], ids[ops.asarray(np.array([1, 2]))],
                         ops.asarray(np.ones(2, np.float32)), ops.asarray(np.ones(2, np.int8)))
    delta = store.apply(batch)
    assert sorted(host(ops, changed_lists(ops, delta, "out")).tolist()) == [0, 1]
    assert sorted(host(ops, changed_lists(ops, delta, "in")).tolist()) == [1, 2]
    with pytest.raises(ValueError, match="side"):
        changed_lists(ops, delta, "both")


@pytest.mark.parametrize("budget, chunk", [(-1, 1 << 20), (1 << 20, 0)])
def test_bad_sizes(budget, chunk):
    with pytest.raises(ValueError, match="budget_bytes|chunk_bytes"):
        HotCache(get_backend("cpu"), np.float32, budget_bytes=budget, chunk_bytes=chunk)


def test_default_chunks_are_32_mib():
    cache = HotCache(get_backend("cpu"), np.float32, budget_bytes=4 << 30)
    assert cache.chunk_bytes <= 32 << 20 and cache.chunk_slots == (32 << 20) // 8 and cache.max_chunks == 128


@pytest.mark.parametrize("weights", [True, False])
def test_chunks_split_the_budget_evenly(weights):
    """15.7 chunks' worth of budget makes 16 equal chunks, not 15 of 32 MiB and 0.7 unused."""
    budget = int(15.7 * (32 << 20))
    cache = HotCache(get_backend("cpu"), np.float32, budget_bytes=budget, weights=weights)
    assert cache.max_chunks == 16 and cache.chunk_bytes <= 32 << 20 and cache.chunk_slots % 64 == 0
    assert budget - 16 * 256 <= cache.usable_bytes <= budget


def test_a_cached_store_offers_what_backends_read(ops):
    """The engine's adjacencies and caches have every attribute the operator interface declares."""
    from cugraph_stream.backends.base import AdjacencyLists, CachedLists
    from cugraph_stream.engine.store import GraphStore

    store = GraphStore(ops, directed=True, weight_dtype=np.float32, placement="cached", cache_budget=1 << 12)
    for adj in (store.out, store.inn):
        assert isinstance(adj, AdjacencyLists) and isinstance(adj.cache, CachedLists)
    assert isinstance(GraphStore(ops, directed=False, weight_dtype=np.float32).out, AdjacencyLists)


def test_a_batch_whose_cache_growth_fails_leaves_a_cache_that_works(monkeypatch):
    """A ``MemoryError`` while a batch grows the cache's per-vertex arrays (kept
    without a journal) rolls the batch back and leaves the arrays of one size:
    the same batch then applies, the cache holds the store's lists, and BFS
    equals a recomputation."""
    import pandas as pd

    import cugraph_stream as cgs
    from cugraph_stream.engine import cache as cache_module
    from failing_memory import AllocationFaults

    grow = cache_module.ensure_vertex_capacity
    armed = []

    def second_allocation_fails(xp, owner, names, n, journal=None):
        if not (armed and armed.pop()):
            return grow(xp, owner, names, n, journal)
        with AllocationFaults(at=1):
            return grow(xp, owner, names, n, journal)

    monkeypatch.setattr(cache_module, "ensure_vertex_capacity", second_allocation_fails)
    chain = pd.DataFrame({"source": np.arange(1000), "destination": np.arange(1, 1001)})
    g = cgs.StreamGraph.from_edgelist(chain, backend="cpu", placement="cached", cache_budget=1 << 20)
    q = g.track(cgs.BFS(source=0))
    for _ in range(3):
        g.apply(pd.DataFrame({"source": [0], "destination": [5]}), op=None)
    growth_batch = pd.DataFrame({"source": np.arange(1000, 1100), "destination": np.arange(1001, 1101)})
    armed.append(True)
    with pytest.raises(MemoryError):
        g.apply(growth_batch, op=None)
    assert not armed                                    # (the failure was injected)
    cache = g._store.out.cache
    assert len({getattr(cache, name).size for name in cache._PER_VERTEX}) == 1
    g.apply(growth_batch, op=None)
    for k in range(5):
        g.apply(pd.DataFrame({"source": [1050 + k], "destination": [3 + k]}), op=None)
    g._store.check_cache()
    fresh = g.track(cgs.BFS(source=0, mode="recompute"))
    assert q.result().sort_values("vertex").reset_index(drop=True).equals(
        fresh.result().sort_values("vertex").reset_index(drop=True))
