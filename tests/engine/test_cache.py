"""Hot-subgraph cache policy and bookkeeping against brute-force Python models.

Every test runs on the NumPy backend (CI) and, under the ``gpu`` marker, on
CuPy: the cache is written once against ``ops.xp`` and the operators.
"""
import numpy as np
import pytest

from cugraph_stream.backends import get_backend
from cugraph_stream.engine.adjacency import Adjacency
from cugraph_stream.engine.cache import HotCache, changed_lists, list_alignment, rounded_slots, select_candidates
from cugraph_stream.engine.reads import READ_FIELDS, ReadCounters, read_counts, transactions
from cugraph_stream.engine.hotness import Hotness


def host(ops, a):
    return np.asarray(ops.to_host(a))


def empty(ops):
    return ops.asarray(np.zeros(0, dtype=np.int64))


def host_list(ops, adj, v):
    s, d = int(adj.start[v]), int(adj.degree[v])
    return host(ops, adj.nbr[s:s + d]).tolist(), host(ops, adj.wgt[s:s + d]).tolist()


def cached_list(ops, cache, v):
    c, o, d = int(cache.chunk_id[v]), int(cache.chunk_offset[v]), int(cache.cached_degree[v])
    chunk = cache.chunks[c]
    return host(ops, chunk.nbr[o:o + d]).tolist(), host(ops, chunk.wgt[o:o + d]).tolist()


def make_adjacency(ops, n, dtype, lists):
    """An adjacency whose vertex ``u`` has neighbours ``lists[u]`` (weights ``u + 0.5``)."""
    adj = Adjacency(ops, dtype, with_twin=False)
    adj.ensure_vertices(n)
    u = np.array([x for x, nb in lists.items() for _ in nb], dtype=np.int64)
    v = np.array([y for nb in lists.values() for y in nb], dtype=np.int64)
    if u.size:
        adj.append(ops.asarray(u), ops.asarray(v), ops.asarray((u + 0.5).astype(dtype)))
    return adj


# ------------------------------------------------------------------------ sizes
def test_alignment_sizes_and_transactions_brute_force():
    rng = np.random.default_rng(3)
    for itemsize in (2, 4, 8):
        start = rng.integers(0, 500, 300)
        degree = rng.integers(0, 200, 300)
        got = transactions(np, start, degree, itemsize)
        for s, d, t in zip(start.tolist(), degree.tolist(), got.tolist()):
            segments = {(byte // 128) for i in range(s, s + d) for byte in range(i * itemsize, (i + 1) * itemsize)}
            assert t == len(segments)
    for dtype in (np.float16, np.float32, np.float64):
        align = list_alignment(dtype)
        assert (align * 4) % 128 == 0 and (align * np.dtype(dtype).itemsize) % 128 == 0
        degree = rng.integers(0, 300, 100)
        assert rounded_slots(degree, align).tolist() == [-(-d // align) * align for d in degree.tolist()]


# -------------------------------------------------------------------- selection
def brute_select(score, degree, budget, slot_bytes, align, max_slots):
    ranked = sorted((v for v in range(min(len(score), len(degree)))
                     if score[v] > 0 and degree[v] > 0
                     and (max_slots is None or -(-degree[v] // align) * align <= max_slots)),
                    key=lambda v: (-score[v], v))
    chosen, used = [], 0
    for v in ranked:
        used += -(-degree[v] // align) * align * slot_bytes
        if used > budget:
            break
        chosen.append(v)
    return chosen


def test_select_candidates_against_brute_force(ops):
    rng = np.random.default_rng(7)
    for trial in range(150):
        n = int(rng.integers(0, 120))
        score = rng.integers(0, 4 if trial % 2 else 3070, n)          # few distinct values: many ties
        degree = rng.integers(0, 300, int(rng.integers(max(n - 5, 0), n + 5)))
        degree[rng.random(degree.size) < 0.2] = 0
        align = int(rng.choice([32, 64]))
        slot_bytes = int(rng.choice([6, 8, 12]))
        max_slots = None if trial % 3 == 0 else int(rng.integers(1, 400))
        total = int((rounded_slots(degree, align) * slot_bytes).sum())
        budget = int(rng.integers(0, total + 2)) if trial % 5 else total + 1000
        got = select_candidates(ops, ops.asarray(score), ops.asarray(degree), budget, slot_bytes, align, max_slots)
        expected = brute_select(score.tolist(), degree.tolist(), budget, slot_bytes, align, max_slots)
        assert host(ops, got).tolist() == expected


def test_select_ties_go_to_the_smaller_id(ops):
    score = ops.asarray(np.array([4, 4, 9, 4, 4]))
    degree = ops.asarray(np.array([1, 1, 1, 1, 1]))
    got = select_candidates(ops, score, degree, 3 * 32 * 8, 8, 32)
    assert host(ops, got).tolist() == [2, 0, 1]


def test_select_with_hotness_scores_near_the_top(ops):
    hot = Hotness(ops, tau=1)
    hot.ensure_vertices(5)
    hot.record(ops.asarray(np.array([4, 1])), counts=ops.asarray(np.array([2 ** 32 - 1, 2 ** 32 - 2])))
    degree = ops.asarray(np.array([3, 3, 3, 3, 3]))
    got = select_candidates(ops, hot.score(), degree, 10 ** 6, 8, 32)
    assert host(ops, got).tolist() == [4, 1]


# ---------------------------------------------------------------------- refresh
def check_cache(ops, cache, adj, candidates, n):
    """The refresh invariants, checked with plain Python loops (independent of ``HotCache.check``)."""
    cache.check(adj)
    assert cache.held_bytes <= cache.budget_bytes
    assert cache.allocator.held_bytes <= cache.budget_bytes
    assert cache.allocator.chunks_held == cache.chunks_held
    in_cache = host(ops, cache.in_cache)[:n]
    cached = np.flatnonzero(in_cache).tolist()
    assert set(cached) <= set(candidates)
    itemsize = np.dtype(cache.weight_dtype).itemsize
    intervals = {}
    for v in cached:
        c, o, d = int(cache.chunk_id[v]), int(cache.chunk_offset[v]), int(cache.cached_degree[v])
        chunk = cache.chunks[c]
        assert chunk is not None
        assert d == int(adj.degree[v]) > 0
        assert 0 <= o and o + d <= cache.chunk_slots
        assert (cache.allocator.address(chunk.nbr) + 4 * o) % 128 == 0          # both arrays 128-byte aligned
        assert (cache.allocator.address(chunk.wgt) + itemsize * o) % 128 == 0
        assert cached_list(ops, cache, v) == host_list(ops, adj, v)
        intervals.setdefault(c, []).append((o, o + -(-d // cache.align) * cache.align))
    held = [c for c, chunk in enumerate(cache.chunks) if chunk is not None]
    assert sorted(intervals) == held                                         # no chunk held empty
    for c, spans in intervals.items():
        spans.sort()
        assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:]))          # no overlap
        assert spans[-1][1] == int(cache.fill[c]) <= cache.chunk_slots
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


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("budget_lists, chunk_lists", [(1000, 64), (40, 8), (12, 4), (3, 2), (2, 2), (0, 1)])
@pytest.mark.parametrize("seed", [0, 1])
def test_refresh_against_model(ops, dtype, budget_lists, chunk_lists, seed):
    """Random streams: after every refresh the cache matches the store and its invariants hold.

    Budgets are in units of one aligned 32- or 64-slot list; the smallest ones
    force evictions every batch and chunks are a few lists each, so
    compaction, merging and release all happen.
    """
    rng = np.random.default_rng(seed)
    n = 60
    align = list_alignment(dtype)
    slot_bytes = 4 + np.dtype(dtype).itemsize
    cache = HotCache(ops, dtype, budget_bytes=budget_lists * align * slot_bytes,
                     chunk_bytes=chunk_lists * align * slot_bytes)
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
        candidates = host(ops, cache.select(hot.score(), adj)).tolist()
        assert len(set(candidates)) == len(candidates)
        report = cache.refresh(ops.asarray(np.array(candidates, dtype=np.int64)),
                               ops.asarray(np.array(sorted(changed), dtype=np.int64)), adj)
        cached = check_cache(ops, cache, adj, candidates, n)
        # evicted exactly: the cached lists that left the candidates or changed
        expected_evicted = {v for v in previous if v not in candidates or v in changed}
        assert report.evicted == len(expected_evicted)
        assert report.evicted_changed == len(expected_evicted & changed)
        assert report.loaded_lists == len(set(cached) - (previous - expected_evicted))
        assert report.cached_lists == len(cached) and report.held_bytes == cache.held_bytes
        assert report.load_bytes % 128 == 0 and (report.loaded_lists == 0) == (report.load_bytes == 0)
        room = cache.usable_bytes - sum(-(-int(adj.degree[v]) // align) * align * slot_bytes for v in candidates)
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
        assert totals["evicted"] > 0 and totals["compacted"] > 0
    if budget_lists >= 40:
        assert totals["reloaded"] > 0
    if 0 < budget_lists < 1000 and chunk_lists < budget_lists:
        assert totals["released"] > 0


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_tiny_budget_evicts_every_batch(ops, dtype):
    """The hot set moves every batch and the cache holds two lists: every refresh evicts and loads."""
    n = 40
    align = list_alignment(dtype)
    slot_bytes = 4 + np.dtype(dtype).itemsize
    cache = HotCache(ops, dtype, budget_bytes=2 * align * slot_bytes)
    assert cache.max_chunks == 1 and cache.chunk_slots == 2 * align
    adj = make_adjacency(ops, n, dtype, {u: [u + 1, u + 2, u + 3][: 1 + u % 3] for u in range(n)})
    hot = Hotness(ops, tau=1)
    hot.ensure_vertices(n)
    for batch in range(12):
        hot.record(ops.asarray(np.array([3 * batch % n, (3 * batch + 1) % n, (3 * batch + 2) % n])),
                   counts=ops.asarray(np.array([3, 2, 1])))
        candidates = cache.select(hot.score(), adj)
        report = cache.refresh(candidates, empty(ops), adj)
        hot.advance()
        cached = check_cache(ops, cache, adj, host(ops, candidates).tolist(), n)
        assert sorted(cached) == sorted([3 * batch % n, (3 * batch + 1) % n])   # the two hottest
        assert report.loaded_lists == 2 and report.evicted == (2 if batch else 0)
        assert cache.chunks_held == 1 and cache.held_bytes == cache.budget_bytes


def test_compaction_closes_gaps_in_offset_order(ops):
    dtype = np.float32
    lists = {0: list(range(40)), 1: [7], 2: list(range(33)), 3: [1, 2], 4: [5]}
    adj = make_adjacency(ops, 5, dtype, lists)
    cache = HotCache(ops, dtype, budget_bytes=1 << 16, chunk_bytes=1 << 16)
    everyone = ops.asarray(np.array([0, 1, 2, 3, 4]))
    cache.refresh(everyone, empty(ops), adj)
    assert [int(cache.chunk_offset[v]) for v in range(5)] == [0, 64, 96, 160, 192]
    report = cache.refresh(ops.asarray(np.array([0, 2, 4])), empty(ops), adj)
    assert report.evicted == 2 and report.compacted_chunks == 1 and report.moved_lists == 2
    assert [int(cache.chunk_offset[v]) for v in (0, 2, 4)] == [0, 64, 128]
    assert int(cache.fill[0]) == 160
    check_cache(ops, cache, adj, [0, 2, 4], 5)


def test_changed_lists_are_reloaded(ops):
    dtype = np.float64
    adj = make_adjacency(ops, 3, dtype, {0: [1, 2], 1: [2], 2: [0]})
    cache = HotCache(ops, dtype, budget_bytes=1 << 14, chunk_bytes=1 << 12)
    cands = ops.asarray(np.array([1, 0]))
    cache.refresh(cands, empty(ops), adj)
    adj.append(ops.asarray(np.array([0] * 40)), ops.asarray(np.arange(100, 140)), ops.asarray(np.ones(40)))
    adj.remove(ops.asarray(np.array([1])), ops.asarray(np.array([int(adj.start[1])])))
    report = cache.refresh(cands, ops.asarray(np.array([0, 1, 0])), adj)
    assert report.evicted == 2 and report.evicted_changed == 2
    assert report.loaded_lists == 1 and report.loaded_edges == 42            # vertex 1's list is empty now
    assert cached_list(ops, cache, 0) == host_list(ops, adj, 0) and len(cached_list(ops, cache, 0)[0]) == 42
    assert not bool(cache.in_cache[1])
    check_cache(ops, cache, adj, [1, 0], 3)


def test_empty_chunks_are_released_and_partial_ones_merged(ops):
    dtype = np.float32
    n = 12
    adj = make_adjacency(ops, n, dtype, {u: [u] for u in range(n)})
    cache = HotCache(ops, dtype, budget_bytes=4 * 4 * 32 * 8, chunk_bytes=4 * 32 * 8)   # 4 chunks of 4 lists
    assert cache.max_chunks == 4 and cache.chunk_slots == 128
    cache.refresh(ops.asarray(np.arange(n)), empty(ops), adj)
    assert cache.chunks_held == 3 and list(cache.fill[:3]) == [128, 128, 128]
    # chunk 0 loses everything; chunks 1 and 2 keep one list each: 0 is released, 2 merges into 1
    report = cache.refresh(ops.asarray(np.array([5, 9])), empty(ops), adj)
    assert report.released_chunks == 2 and report.merged_chunks == 1 and report.allocated_chunks == 0
    assert cache.chunks_held == 1 and cache.allocator.chunks_held == 1
    assert {int(cache.chunk_id[5]), int(cache.chunk_id[9])} == {1}
    check_cache(ops, cache, adj, [5, 9], n)
    report = cache.refresh(empty(ops), empty(ops), adj)
    assert report.evicted == 2 and cache.chunks_held == 0 and cache.allocator.held_bytes == 0
    check_cache(ops, cache, adj, [], n)


def test_lists_over_a_chunk_are_never_cached(ops):
    dtype = np.float32
    adj = make_adjacency(ops, 3, dtype, {0: list(range(100)), 1: [1], 2: list(range(64))})
    cache = HotCache(ops, dtype, budget_bytes=10 ** 6, chunk_bytes=64 * 8)
    assert cache.chunk_slots == 64
    hot = Hotness(ops)
    hot.record(ops.asarray(np.array([0, 0, 0, 1, 2, 2])))
    candidates = cache.select(hot.score(), adj)
    assert host(ops, candidates).tolist() == [2, 1]
    report = cache.refresh(ops.asarray(np.array([0, 2, 1])), empty(ops), adj)   # 0 is skipped even if asked
    assert report.loaded_lists == 2 and not bool(cache.in_cache[0])
    check_cache(ops, cache, adj, [0, 2, 1], 3)


def test_not_loaded_when_tails_are_too_short(ops):
    dtype = np.float32
    adj = make_adjacency(ops, 3, dtype, {0: list(range(40)), 1: list(range(40)), 2: [3]})
    cache = HotCache(ops, dtype, budget_bytes=192 * 8, chunk_bytes=192 * 8)       # one chunk of 192 slots
    report = cache.refresh(ops.asarray(np.array([0, 1, 2])), empty(ops), adj)
    assert report.loaded_lists == 3 and int(cache.fill[0]) == 160
    cache.clear()
    assert cache.chunks_held == 0 and not bool(cache.in_cache.any())
    cache = HotCache(ops, dtype, budget_bytes=2 * 96 * 8, chunk_bytes=96 * 8)       # two chunks of 96 slots
    assert cache.chunk_slots == 64 and cache.max_chunks == 3    # 96 rounds down to 64 slots; 3 fit the budget
    report = cache.refresh(ops.asarray(np.array([0, 1, 2])), empty(ops), adj)
    assert report.loaded_lists == 3 and report.allocated_chunks == 3
    cache = HotCache(ops, dtype, budget_bytes=64 * 8, chunk_bytes=64 * 8)
    report = cache.refresh(ops.asarray(np.array([0, 1, 2])), empty(ops), adj)
    assert report.loaded_lists == 1 and report.not_loaded == 2
    check_cache(ops, cache, adj, [0, 1, 2], 3)


def test_view_gather_matches_the_store(ops):
    dtype = np.float64
    rng = np.random.default_rng(5)
    n = 30
    adj = make_adjacency(ops, n, dtype, {u: rng.integers(0, n, int(rng.integers(0, 70))).tolist() for u in range(n)})
    cache = HotCache(ops, dtype, budget_bytes=6 * 96 * 12, chunk_bytes=2 * 96 * 12)
    cache.refresh(ops.asarray(rng.permutation(n)[:12]), empty(ops), adj)
    assert cache.chunks_held >= 2
    vertices = rng.integers(0, n, 50)
    owners, nbr, wgt = cache.view(adj).gather(ops, ops.asarray(vertices))
    expected = [(i, x, y) for i, v in enumerate(vertices.tolist()) for x, y in zip(*host_list(ops, adj, v))]
    assert list(zip(host(ops, owners).tolist(), host(ops, nbr).tolist(), host(ops, wgt).tolist())) == expected
    view = cache.view(adj)
    in_cache = host(ops, view.in_cache)
    assert view.start.size == view.length.size == in_cache.size == adj.start.size
    assert (host(ops, view.start)[~in_cache] == host(ops, adj.start)[~in_cache]).all()
    assert (host(ops, view.length) == host(ops, adj.degree)).all()
    assert (host(ops, view.chunk)[~in_cache] == -1).all()
    pointers = host(ops, view.nbr_pointers)
    for c, chunk in enumerate(cache.chunks):
        assert int(pointers[c]) == (0 if chunk is None else cache.allocator.address(chunk.nbr))


def test_check_reports_a_stale_list(ops):
    dtype = np.float32
    adj = make_adjacency(ops, 2, dtype, {0: [1], 1: [0]})
    cache = HotCache(ops, dtype, budget_bytes=1 << 12, chunk_bytes=1 << 12)
    cache.refresh(ops.asarray(np.array([0, 1])), empty(ops), adj)
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


# ------------------------------------------------------------------- accounting
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_read_counts_against_brute_force(ops, dtype):
    rng = np.random.default_rng(11)
    n = 50
    adj = make_adjacency(ops, n, dtype, {u: list(range(int(rng.integers(0, 100)))) * (u % 4 > 0) for u in range(n)})
    itemsize = np.dtype(dtype).itemsize
    counters = ReadCounters(ops)
    expected_total = dict.fromkeys(READ_FIELDS, 0)
    for step in range(6):
        frontier = rng.integers(0, n, int(rng.integers(0, 40)))
        in_cache = rng.random(n) < 0.4
        reads_weights = bool(step % 2)
        cache_mask = None if step == 5 else ops.asarray(in_cache)
        got = dict(zip(READ_FIELDS, host(ops, read_counts(ops, ops.asarray(frontier), adj, cache_mask,
                                                          reads_weights)).tolist()))
        expected = dict.fromkeys(READ_FIELDS, 0)
        for v in frontier.tolist():
            d, s = int(adj.degree[v]), int(adj.start[v])
            if d == 0:
                continue
            expected["lists_read"] += 1
            expected["edges_read"] += d
            if cache_mask is not None and in_cache[v]:
                expected["cache_lists"] += 1
                expected["cache_edges"] += d
            else:
                expected["host_lists"] += 1
                expected["host_edges"] += d
                segments = {(4 * i) // 128 for i in range(s, s + d)}
                expected["host_transactions"] += len(segments)
                if reads_weights:
                    expected["host_transactions"] += len({(itemsize * i) // 128 for i in range(s, s + d)})
        assert got == expected
        assert got["edges_read"] == got["host_edges"] + got["cache_edges"]
        counters.add(ops.asarray(frontier), adj, cache_mask, reads_weights)
        expected_total = {k: expected_total[k] + expected[k] for k in READ_FIELDS}
    totals = counters.totals()
    assert {k: totals[k] for k in READ_FIELDS} == expected_total
    assert totals["host_bytes"] == 128 * expected_total["host_transactions"]
    assert totals["hit_ratio"] == pytest.approx(expected_total["cache_edges"] / expected_total["edges_read"])
    counters.reset()
    assert counters.totals()["edges_read"] == 0 and counters.totals()["hit_ratio"] == 0.0


def test_read_counts_with_a_live_cache(ops):
    dtype = np.float32
    adj = make_adjacency(ops, 4, dtype, {0: list(range(40)), 1: [1], 2: list(range(5)), 3: []})
    cache = HotCache(ops, dtype, budget_bytes=1 << 12, chunk_bytes=1 << 12)
    cache.refresh(ops.asarray(np.array([0, 1])), empty(ops), adj)
    counters = ReadCounters(ops)
    counters.add(ops.asarray(np.array([0, 1, 2, 3])), adj, cache.in_cache)
    t = counters.totals()
    assert (t["lists_read"], t["cache_lists"], t["host_lists"]) == (3, 2, 1)
    assert (t["edges_read"], t["cache_edges"], t["host_edges"], t["host_transactions"]) == (46, 41, 5, 2)
    assert t["list_hit_ratio"] == pytest.approx(2 / 3)
