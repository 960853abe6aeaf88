"""Hot-subgraph cache policy and bookkeeping against brute-force Python models.

Every test runs on the NumPy backend (CI) and, under the ``gpu`` marker, on
CuPy: the cache is written once against ``ops.xp`` and the operators.
"""
import numpy as np
import pytest

from cugraph_stream.backends import get_backend
from cugraph_stream.engine.adjacency import Adjacency
from cugraph_stream.backends.chunks import HostChunkAllocator
from cugraph_stream.engine.cache import (HotCache, allot_chunks, changed_lists, list_values, select_candidates,
                                          select_in_chunks)
from cugraph_stream.engine.reads import READ_FIELDS, ReadCounters, read_counts, transactions
from cugraph_stream.engine.hotness import Hotness


def host(ops, a):
    return np.asarray(ops.to_host(a))


def empty(ops):
    return ops.asarray(np.zeros(0, dtype=np.int64))


def host_list(ops, adj, v):
    s, d = int(adj.start[v]), int(adj.degree[v])
    return host(ops, adj.nbr[s:s + d]).tolist(), host(ops, adj.wgt[s:s + d]).tolist()


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
def test_transactions_brute_force():
    rng = np.random.default_rng(3)
    for itemsize in (2, 4, 8):
        start = rng.integers(0, 500, 300)
        degree = rng.integers(0, 200, 300)
        got = transactions(np, start, degree, itemsize)
        for s, d, t in zip(start.tolist(), degree.tolist(), got.tolist()):
            segments = {(byte // 128) for i in range(s, s + d) for byte in range(i * itemsize, (i + 1) * itemsize)}
            assert t == len(segments)


# -------------------------------------------------------------------- selection
def brute_values(score, degree, slot_bytes, itemsizes, max_slots):
    """(vertex, cost, density) of every eligible list, by plain Python arithmetic."""
    rows = []
    for v in range(min(len(score), len(degree))):
        d = int(degree[v])
        if score[v] > 0 and d > 0 and (max_slots is None or d <= max_slots):
            saved = sum(-(-d * size // 128) for size in itemsizes)
            rows.append((v, d * slot_bytes, np.float32(float(score[v]) * saved / (d * slot_bytes))))
    return rows


def brute_select(parts, budget):
    ranked = sorted(((density, p, v, cost) for p, rows in enumerate(parts) for v, cost, density in rows),
                    key=lambda r: (-r[0], r[1], r[2]))
    chosen, used = [[] for _ in parts], 0
    for _, p, v, cost in ranked:
        used += cost
        if used > budget:
            break
        chosen[p].append(v)
    return chosen


def test_select_candidates_against_brute_force(ops):
    rng = np.random.default_rng(7)
    for trial in range(150):
        parts, expected_parts = [], []
        for _ in range(int(rng.integers(1, 4))):
            n = int(rng.integers(0, 120))
            score = rng.integers(0, 4 if trial % 2 else 3070, n)          # few distinct values: many ties
            degree = rng.integers(0, 300, int(rng.integers(max(n - 5, 0), n + 5)))
            degree[rng.random(degree.size) < 0.2] = 0
            slot_bytes = int(rng.choice([4, 6, 8, 12]))
            itemsizes = (4,) if slot_bytes == 4 else (4, slot_bytes - 4)
            max_slots = None if trial % 3 == 0 else int(rng.integers(1, 400))
            values = list_values(ops, ops.asarray(score), ops.asarray(degree), slot_bytes, itemsizes, max_slots)
            rows = brute_values(score.tolist(), degree.tolist(), slot_bytes, itemsizes, max_slots)
            assert host(ops, values.vertices).tolist() == [r[0] for r in rows]
            assert host(ops, values.cost).tolist() == [r[1] for r in rows]
            assert host(ops, values.density).tolist() == [float(r[2]) for r in rows]
            parts.append(values)
            expected_parts.append(rows)
        total = sum(r[1] for rows in expected_parts for r in rows)
        budget = int(rng.integers(0, total + 2)) if trial % 5 else total + 1000
        got = select_candidates(ops, parts, budget)
        assert [host(ops, g).tolist() for g in got] == brute_select(expected_parts, budget)


def test_select_in_chunks_gives_whole_chunks(ops):
    """Each cache takes a prefix of its own ranking within whole chunks; the chunks shared out
    follow the joint ranking (largest remainder) and never exceed the total."""
    rng = np.random.default_rng(8)
    for trial in range(60):
        parts, rows = [], []
        for _ in range(int(rng.integers(1, 4))):
            n = int(rng.integers(0, 80))
            score, degree = rng.integers(0, 20, n), rng.integers(0, 40, n)
            slot_bytes = int(rng.choice([4, 8]))
            itemsizes = (4,) if slot_bytes == 4 else (4, 4)
            parts.append(list_values(ops, ops.asarray(score), ops.asarray(degree), slot_bytes, itemsizes))
            rows.append(brute_values(score.tolist(), degree.tolist(), slot_bytes, itemsizes, None))
        chunk_bytes = [int(rng.integers(1, 5)) * 64 for _ in parts]
        total = int(rng.integers(0, 12))
        room_share = float(rng.choice([0.0, 1 / 8]))
        got = [host(ops, g).tolist() for g in select_in_chunks(ops, parts, chunk_bytes, total, room_share)]
        joint = brute_select(rows, total * max(chunk_bytes))
        wanted = [sum(cost for v, cost, _ in r if v in set(j)) for r, j in zip(rows, joint)]
        allot = allot_chunks(wanted, chunk_bytes, total * max(chunk_bytes))
        assert sum(n * c for n, c in zip(allot, chunk_bytes)) <= total * max(chunk_bytes)
        assert all(n <= -(-w // c) for n, w, c in zip(allot, wanted, chunk_bytes))
        for r, g, n_chunks, c in zip(rows, got, allot, chunk_bytes):
            assert g == brute_select([r], int(n_chunks * c * (1 - room_share)))[0] if n_chunks else g == []


def test_short_lists_are_worth_more_per_byte(ops):
    """A read of 1 entry costs a whole 128-byte transaction: per cached byte, it saves 32 times
    what a read of a 32-entry list saves."""
    values = list_values(ops, ops.asarray(np.array([1, 1, 1])), ops.asarray(np.array([32, 1, 33])), 4, (4,))
    assert host(ops, values.density).tolist() == [1 / 128, 1 / 4, np.float32(2 / 132)]
    got = select_candidates(ops, [values], budget_bytes=4 + 4 * 33)
    assert host(ops, got[0]).tolist() == [1, 2]            # then the 33-entry list: 2 transactions


def test_select_ties_go_to_the_earlier_part_then_the_smaller_id(ops):
    score = ops.asarray(np.array([4, 4, 9, 4, 4]))
    degree = ops.asarray(np.array([1, 1, 1, 1, 1]))
    out = list_values(ops, score, degree, 8, (4, 4))
    inn = list_values(ops, score, degree, 8, (4, 4))
    got = select_candidates(ops, [out, inn], 4 * 8)
    assert [host(ops, g).tolist() for g in got] == [[2, 0, 1], [2]]


def test_select_with_hotness_scores_near_the_top(ops):
    hot = Hotness(ops, tau=1)
    hot.ensure_vertices(5)
    # densities compare in float32: scores apart by less than one part in 2**24 would tie
    hot.record(ops.asarray(np.array([4, 1])), counts=ops.asarray(np.array([2 ** 32 - 1, 2 ** 32 - 2 ** 9])))
    degree = ops.asarray(np.array([3, 3, 3, 3, 3]))
    got = select_candidates(ops, [list_values(ops, hot.score(), degree, 8, (4, 4))], 10 ** 6)
    assert host(ops, got[0]).tolist() == [4, 1]


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
        assert report.garbage_slots == int(cache.garbage.sum())
        assert report.load_bytes % 128 == 0 and (report.loaded_lists == 0) == (report.load_bytes == 0)
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
        candidates = cache.select(hot.score(), adj)
        report = cache.refresh(candidates, empty(ops), adj)
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

    def refresh(candidates):
        return cache.refresh(ops.asarray(np.array(candidates)), empty(ops), adj)

    report = refresh([0, 1, 2, 3, 4, 5])
    assert report.loaded_lists == 6 and list(cache.fill) == [60, 60]
    report = refresh([0, 2, 3, 5])                         # 1 leaves chunk 0, 4 leaves chunk 1
    assert report.evicted == 2 and report.compacted_chunks == 0 and list(cache.garbage) == [20, 24]
    report = refresh([0, 2, 3, 5, 7])                      # 4 entries: chunk 0's tail holds them
    assert report.compacted_chunks == 0 and int(cache.chunk_id[7]) == 0 and list(cache.fill) == [64, 60]
    report = refresh([0, 2, 3, 5, 7, 6])                   # 26 entries: the tails hold 4
    assert report.compacted_chunks == 1 and report.moved_lists == 1 and report.moved_edges == 20
    assert list(cache.garbage) == [20, 0] and int(cache.chunk_offset[5]) == 16     # chunk 1 (24) went first
    assert int(cache.chunk_id[6]) == 1 and int(cache.chunk_offset[6]) == 36 and list(cache.fill) == [64, 62]
    assert report.loaded_lists == 1 and report.not_loaded == 0 and report.garbage_slots == 20
    check_cache(ops, cache, adj, [0, 2, 3, 5, 7, 6], 8)
    report = refresh([3, 5, 7, 6])                         # chunk 0: 60 of 64 slots garbage
    assert report.compacted_chunks == 1 and list(cache.garbage) == [0, 0] and list(cache.fill) == [4, 62]
    check_cache(ops, cache, adj, [3, 5, 7, 6], 8)


def test_chunks_with_garbage_only_are_released_and_compacted_ones_merged(ops):
    dtype = np.float32
    n = 17
    adj = make_adjacency(ops, n, dtype, {u: list(range(16)) for u in range(n)})
    cache = HotCache(ops, dtype, budget_bytes=4 * 64 * 8, chunk_bytes=64 * 8)   # 4 chunks of 4 lists
    assert cache.max_chunks == 4 and cache.chunk_slots == 64
    cache.refresh(ops.asarray(np.arange(13)), empty(ops), adj)
    assert cache.chunks_held == 4 and list(cache.fill) == [64, 64, 64, 16]
    # chunk 0 loses everything: released; chunk 1 keeps vertex 4 only (garbage 48 > 16): compacted,
    # and its list merges into chunk 3's tail, which frees chunk 1 as well
    report = cache.refresh(ops.asarray(np.array([4] + list(range(8, 13)))), empty(ops), adj)
    assert report.released_chunks == 2 and report.compacted_chunks == 1 and report.merged_chunks == 1
    assert int(cache.chunk_id[4]) == 3 and cache.chunks_held == 2 and list(cache.fill) == [0, 0, 64, 32]
    check_cache(ops, cache, adj, [4] + list(range(8, 13)), n)
    chosen = [4] + list(range(8, 17)) + [0, 1, 2, 3]       # 8 more lists: chunk 3's tail and 2 new chunks
    report = cache.refresh(ops.asarray(np.array(chosen)), empty(ops), adj)
    assert report.compacted_chunks == 0 and report.allocated_chunks == 2 and report.loaded_lists == 8
    assert report.not_loaded == 0 and cache.chunks_held == 4
    check_cache(ops, cache, adj, chosen, n)
    report = cache.refresh(empty(ops), empty(ops), adj)
    assert report.evicted == 14 and cache.chunks_held == 0 and cache.allocator.held_bytes == 0
    check_cache(ops, cache, adj, [], n)


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
    candidates = cache.select(hot.score(), adj)
    assert host(ops, candidates).tolist() == [1, 2]
    report = cache.refresh(ops.asarray(np.array([0, 2, 1])), empty(ops), adj)   # 0 is skipped even if asked
    assert report.loaded_lists == 2 and not bool(cache.in_cache[0])
    check_cache(ops, cache, adj, [0, 2, 1], 3)


def test_not_loaded_when_tails_are_too_short(ops):
    dtype = np.float32
    adj = make_adjacency(ops, 3, dtype, {0: list(range(40)), 1: list(range(40)), 2: [3]})
    cache = HotCache(ops, dtype, budget_bytes=128 * 8, chunk_bytes=128 * 8)       # one chunk of 128 slots
    report = cache.refresh(ops.asarray(np.array([0, 1, 2])), empty(ops), adj)
    assert report.loaded_lists == 3 and int(cache.fill[0]) == 81
    cache.clear()
    assert cache.chunks_held == 0 and not bool(cache.in_cache.any())
    cache = HotCache(ops, dtype, budget_bytes=2 * 96 * 8, chunk_bytes=96 * 8)
    assert cache.chunk_slots == 64 and cache.max_chunks == 3    # 96 rounds down to 64 slots; 3 fit the budget
    report = cache.refresh(ops.asarray(np.array([0, 1, 2])), empty(ops), adj)
    assert report.loaded_lists == 3 and report.allocated_chunks == 2          # 40 | 40 + 1
    cache = HotCache(ops, dtype, budget_bytes=64 * 8, chunk_bytes=64 * 8)
    report = cache.refresh(ops.asarray(np.array([0, 1, 2])), empty(ops), adj)
    assert report.loaded_lists == 1 and report.not_loaded == 2                # next fit: 1 and 2 find no room
    check_cache(ops, cache, adj, [0, 1, 2], 3)


def test_caches_sharing_an_allocator_share_its_capacity(ops):
    """Two caches (weights and neighbours only) of one allocator: together they never hold
    more than its capacity, and chunks one gives up serve the other."""
    dtype = np.float32
    budget = 4 * 512
    allocator = HostChunkAllocator(capacity_bytes=budget) if ops.xp is np else None
    if allocator is None:
        from cugraph_stream.backends.chunks import chunk_allocator
        allocator = chunk_allocator(ops, budget)
    out = HotCache(ops, dtype, budget, chunk_bytes=512, allocator=allocator)
    inn = HotCache(ops, dtype, budget, chunk_bytes=512, allocator=allocator, weights=False)
    assert (out.chunk_slots, inn.chunk_slots, out.max_chunks, inn.max_chunks) == (64, 128, 4, 4)
    adj = make_adjacency(ops, 12, dtype, {u: list(range(60)) for u in range(12)})
    out.refresh(ops.asarray(np.array([0, 1, 2])), empty(ops), adj)
    report = inn.refresh(ops.asarray(np.arange(12)), empty(ops), adj)
    assert out.chunks_held == 3 and inn.chunks_held == 1 and report.not_loaded == 10
    assert allocator.held_bytes == budget
    out.refresh(empty(ops), empty(ops), adj)                                   # out gives its chunks back
    report = inn.refresh(ops.asarray(np.arange(8)), empty(ops), adj)
    assert inn.chunks_held == 4 and report.not_loaded == 0 and allocator.held_bytes == budget
    check_cache(ops, out, adj, [], 12)
    check_cache(ops, inn, adj, list(range(8)), 12)
    assert all(chunk is None or chunk.wgt is None for chunk in inn.chunks)


@pytest.mark.parametrize("weights", [True, False])
@pytest.mark.parametrize("id_bytes", [4, 3])
def test_view_gather_matches_the_store(ops, weights, id_bytes):
    dtype = np.float64
    rng = np.random.default_rng(5)
    n = 30
    # neighbour ids up to 2**24 - 1: every byte of a packed id matters
    adj = make_adjacency(ops, n, dtype, {u: rng.integers(0, 1 << 24, int(rng.integers(0, 70))).tolist()
                                         for u in range(n)})
    slot_bytes = id_bytes + 8 * weights
    cache = HotCache(ops, dtype, budget_bytes=6 * 64 * slot_bytes, chunk_bytes=2 * 64 * slot_bytes, weights=weights,
                     id_bytes=id_bytes)
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
    pointers, weight_pointers = host(ops, view.nbr_pointers), host(ops, view.wgt_pointers)
    tag = (1 << 63) if id_bytes == 3 else 0
    for c, chunk in enumerate(cache.chunks):
        assert int(pointers[c]) == (0 if chunk is None else cache.allocator.address(chunk.nbr) | tag)
        assert int(weight_pointers[c]) == (0 if chunk is None or not weights else cache.allocator.address(chunk.wgt))


def test_packed_ids_widen_when_an_id_outgrows_3_bytes(ops):
    """A packed cache told of an id of 2**24 empties itself, then reloads with 4-byte ids."""
    dtype = np.float32
    big = (1 << 24) + 5
    adj = make_adjacency(ops, 3, dtype, {0: [1, (1 << 24) - 1], 1: [0], 2: [2]})
    cache = HotCache(ops, dtype, budget_bytes=1 << 12, chunk_bytes=1 << 11, weights=False, id_bytes=3)
    packed_slots = cache.chunk_slots
    cache.refresh(ops.asarray(np.array([0, 1])), empty(ops), adj)
    check_cache(ops, cache, adj, [0, 1], 3)
    assert not cache.ensure_id_bound(1 << 24) and cache.chunks_held == 1
    _ = adj.append(ops.asarray(np.array([2])), ops.asarray(np.array([big])), ops.asarray(np.ones(1, dtype)))
    assert cache.ensure_id_bound(big + 1)
    assert cache.id_bytes == 4 and cache.chunks_held == 0 and not bool(cache.in_cache.any())
    assert cache.chunk_slots < packed_slots and cache.allocator.held_bytes == 0
    report = cache.refresh(ops.asarray(np.array([2, 0, 1])), ops.asarray(np.array([2])), adj)
    assert report.loaded_lists == 3
    check_cache(ops, cache, adj, [2, 0, 1], 3)
    assert cached_list(ops, cache, adj, 2)[0] == [2, big]


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


@pytest.mark.parametrize("weights", [True, False])
def test_chunks_split_the_budget_evenly(weights):
    """15.7 chunks' worth of budget makes 16 equal chunks, not 15 of 32 MiB and 0.7 unused."""
    budget = int(15.7 * (32 << 20))
    cache = HotCache(get_backend("cpu"), np.float32, budget_bytes=budget, weights=weights)
    assert cache.max_chunks == 16 and cache.chunk_bytes <= 32 << 20 and cache.chunk_slots % 64 == 0
    assert budget - 16 * 256 <= cache.usable_bytes <= budget


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
        cached_weights = step != 3                 # step 3: a neighbour-only cache, read with weights
        cache_mask = None if step == 5 else ops.asarray(in_cache)
        got = dict(zip(READ_FIELDS, host(ops, read_counts(ops, ops.asarray(frontier), adj, cache_mask,
                                                          reads_weights, cached_weights)).tolist()))
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
                if reads_weights and not cached_weights:        # the weights still come from host memory
                    expected["host_transactions"] += len({(itemsize * i) // 128 for i in range(s, s + d)})
            else:
                expected["host_lists"] += 1
                expected["host_edges"] += d
                segments = {(4 * i) // 128 for i in range(s, s + d)}
                expected["host_transactions"] += len(segments)
                if reads_weights:
                    expected["host_transactions"] += len({(itemsize * i) // 128 for i in range(s, s + d)})
        assert got == expected
        assert got["edges_read"] == got["host_edges"] + got["cache_edges"]
        times = step % 3                           # 0: nothing; 2: two identical steps at once
        counters.add(ops.asarray(frontier), adj, cache_mask, reads_weights, cached_weights, times=times)
        expected_total = {k: expected_total[k] + times * expected[k] for k in READ_FIELDS}
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
