"""The compiled CPU kernels split over threads (cugraph_stream.backends.cpu_threads) give
what one thread gives, on inputs large enough to be split."""
import os
import signal

import numpy as np
import pytest

from cugraph_stream.backends import cpu_threads
from cugraph_stream.backends.cpu import CPUBackend
from cugraph_stream.engine.adjacency import Adjacency
from cugraph_stream.engine.arc_index import ArcIndex
from cugraph_stream.engine.hash_index import arc_key

pytest.importorskip("numba")
COMPILED = CPUBackend(compiled=True)


def test_split_covers_every_item_once_and_raises_what_a_range_raised(monkeypatch):
    monkeypatch.setenv(cpu_threads.ENV_VAR, "3")
    seen = np.zeros(100, dtype=np.int64)

    def count(lo, hi):
        seen[lo:hi] += 1
    cpu_threads.split(count, 100, min_items=10)
    assert (seen == 1).all()

    def fail(lo, hi):
        if lo > 0:
            raise KeyError("a later range")
    with pytest.raises(KeyError, match="a later range"):
        cpu_threads.split(fail, 100, min_items=10)


def test_thread_count_refuses_what_is_not_a_positive_integer(monkeypatch):
    for given in ("0", "-2", "many"):
        monkeypatch.setenv(cpu_threads.ENV_VAR, given)
        with pytest.raises(ValueError, match=cpu_threads.ENV_VAR):
            cpu_threads.thread_count()
    monkeypatch.setenv(cpu_threads.ENV_VAR, "5")
    assert cpu_threads.thread_count() == 5


def _graph(rng, n, m):
    """An out-adjacency of ``n`` vertices with ``m`` random arcs (a hub among them), and its arc index."""
    u = np.concatenate((rng.integers(0, n, m - 3000), np.zeros(3000, dtype=np.int64)))
    v = rng.integers(0, n, m)
    keys = np.unique((u << 32) | v)
    u, v = keys >> 32, keys & 0xFFFFFFFF
    adj = Adjacency(COMPILED, np.float64, with_twin=False)
    adj.ensure_vertices(n)
    slots = adj.build(u, v, rng.random(u.size))
    index = ArcIndex(COMPILED, adj)
    index.build(arc_key(np, u, v), slots)
    return adj, index, keys, slots


@pytest.mark.parametrize("threads", ["2", "3"])
def test_split_kernels_match_one_thread(monkeypatch, threads):
    rng = np.random.default_rng(int(threads))
    adj, index, keys, slots = _graph(rng, 5000, 400_000)
    absent = (rng.integers(0, 5000, 20000) << 32) | rng.integers(5000, 6000, 20000)
    queries = rng.permutation(np.concatenate((keys[:30000], absent, [-1])))
    values = rng.random(5000)
    plan_all = COMPILED.gather_plan(adj, np.arange(5000))
    plan_weighted = COMPILED.gather_plan(adj, rng.permutation(5000)[:4000], weighted=True)
    results = {}
    for count in ("1", threads):
        monkeypatch.setenv("CUGRAPH_STREAM_CPU_THREADS", count)
        found = COMPILED.arc_find(index.table, adj, queries)
        at = COMPILED.arc_find(index.table, adj, keys)
        located = COMPILED.arc_locate(index.table, keys, slots)
        sums = [COMPILED.gather_sum(plan, values) for plan in (plan_all, plan_weighted)]
        results[count] = (found, at, located, sums)
    one, many = results["1"], results[threads]
    assert (one[0] == many[0]).all() and (one[1] == many[1]).all() and (one[2] == many[2]).all()
    assert (one[1] >= 0).all() and (one[2] == one[1]).all() and (one[0][np.isin(queries, absent)] == -1).all()
    for (sums_one, read_one), (sums_many, read_many) in zip(one[3], many[3]):
        assert read_one == read_many and sums_one.tobytes() == sums_many.tobytes()     # the same order of sums


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this platform")
def test_a_forked_child_gets_threads_of_its_own(monkeypatch):
    """A child forked after the pool ran work hands work to threads that exist
    (the parent's pool has none there: the child would wait forever)."""
    monkeypatch.setenv(cpu_threads.ENV_VAR, "2")
    assert cpu_threads.both(lambda: 1, lambda: 2, lambda k, result: None) == [1, 2]     # (the pool made)
    pid = os.fork()
    if pid == 0:                                # the child: exit 0 if both ran, be killed if it hangs
        signal.alarm(10)
        try:
            done = cpu_threads.both(lambda: 1, lambda: 2, lambda k, result: None) == [1, 2]
            seen = np.zeros(100, dtype=np.int64)
            cpu_threads.split(lambda lo, hi: seen.__setitem__(slice(lo, hi), 1), 100, min_items=10)
            os._exit(0 if done and seen.all() else 1)
        finally:
            os._exit(2)
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, f"the child ended with status {status}"
