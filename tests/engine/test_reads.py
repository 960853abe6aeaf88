"""Read accounting against brute-force Python models: 64-byte transactions, host and cache reads.

Every test runs on the NumPy backend (CI) and, under the ``gpu`` marker, on CuPy.
"""
import numpy as np
import pytest

from cugraph_stream.engine.cache import HotCache, RefreshReport
from cugraph_stream.engine.reads import READ_FIELDS, READ_UNIT_BYTES, ReadCounters, read_counts, transactions

UNIT = READ_UNIT_BYTES
from list_helpers import host, make_adjacency


def test_transactions_brute_force():
    rng = np.random.default_rng(3)
    for itemsize in (2, 4, 8):
        start = rng.integers(0, 500, 300)
        degree = rng.integers(0, 200, 300)
        got = transactions(np, start, degree, itemsize)
        for s, d, t in zip(start.tolist(), degree.tolist(), got.tolist()):
            segments = {(byte // UNIT) for i in range(s, s + d) for byte in range(i * itemsize, (i + 1) * itemsize)}
            assert t == len(segments)


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
                expected["cache_transactions"] += len({(4 * i) // UNIT for i in range(s, s + d)})
                if reads_weights and not cached_weights:        # the weights still come from host memory
                    expected["host_transactions"] += len({(itemsize * i) // UNIT for i in range(s, s + d)})
                elif reads_weights:                             # ... or the cache saved them too
                    expected["cache_transactions"] += len({(itemsize * i) // UNIT for i in range(s, s + d)})
            else:
                expected["host_lists"] += 1
                expected["host_edges"] += d
                segments = {(4 * i) // UNIT for i in range(s, s + d)}
                expected["host_transactions"] += len(segments)
                if reads_weights:
                    expected["host_transactions"] += len({(itemsize * i) // UNIT for i in range(s, s + d)})
        assert got == expected
        assert got["edges_read"] == got["host_edges"] + got["cache_edges"]
        times = step % 3                           # 0: nothing; 2: two identical steps at once
        counters.add(ops.asarray(frontier), adj, cache_mask, reads_weights, cached_weights, times=times)
        expected_total = {k: expected_total[k] + times * expected[k] for k in READ_FIELDS}
    totals = counters.totals()
    assert {k: totals[k] for k in READ_FIELDS} == expected_total
    assert totals["host_bytes"] == UNIT * expected_total["host_transactions"]
    assert totals["cache_saved_bytes"] == UNIT * expected_total["cache_transactions"]
    assert totals["hit_ratio"] == pytest.approx(expected_total["cache_edges"] / expected_total["edges_read"])
    counters.reset()
    assert counters.totals()["edges_read"] == 0 and counters.totals()["hit_ratio"] == 0.0


def test_read_counts_with_a_live_cache(ops):
    dtype = np.float32
    adj = make_adjacency(ops, 4, dtype, {0: list(range(40)), 1: [1], 2: list(range(5)), 3: []})
    cache = HotCache(ops, dtype, budget_bytes=1 << 12, chunk_bytes=1 << 12)
    cache.load(ops.asarray(np.array([0, 1])), adj, RefreshReport())        # a fresh cache: nothing to evict
    counters = ReadCounters(ops)
    counters.add(ops.asarray(np.array([0, 1, 2, 3])), adj, cache.in_cache)
    t = counters.totals()
    assert (t["lists_read"], t["cache_lists"], t["host_lists"]) == (3, 2, 1)
    assert (t["edges_read"], t["cache_edges"], t["host_edges"], t["host_transactions"]) == (46, 41, 5, 2)
    assert t["list_hit_ratio"] == pytest.approx(2 / 3)
    assert t["cache_transactions"] == 3 + 3 + 1 + 1          # neighbours and weights of lists 0 and 1
