"""PageRankEngine: O(changed edges) corrections and the L1 guarantee."""
import numpy as np
import pytest

from cugraph_stream.backends import get_backend
from cugraph_stream.engine.pagerank import PageRankEngine
from cugraph_stream.engine.reduce import reduce_batch
from cugraph_stream.engine.store import GraphStore


def exact_pagerank(store, alpha):
    """Dense solve of the PageRank linear system (uniform teleport and dangling)."""
    n = store.vertex_bound
    alive = store.vertices.alive[:n]
    u, v, _ = store.edge_arrays()
    if not store.directed:
        u, v = np.concatenate((u, v[u != v])), np.concatenate((v, u[u != v]))
    deg = np.bincount(u, minlength=n)
    m = int(alive.sum())
    idx = -np.ones(n, int)
    idx[alive] = np.arange(m)
    A = np.zeros((m, m))
    np.add.at(A, (idx[v], idx[u]), 1.0 / deg[u])
    dangling = np.zeros(m)
    dangling[idx[np.flatnonzero(alive & (deg == 0))]] = 1.0
    M = alpha * (A + np.outer(np.ones(m), dangling) / m)
    x = np.linalg.solve(np.eye(m) - M, (1 - alpha) / m * np.ones(m))
    out = np.zeros(n)
    out[alive] = x / x.sum()
    return out


def insert(store, u, v, op=1):
    u, v = np.atleast_1d(u), np.atleast_1d(v)
    return store.apply(reduce_batch(store, u, v, np.ones(u.size, np.float32), np.full(u.size, op, np.int8)))


@pytest.mark.parametrize("directed", [True, False])
def test_every_update_is_within_tol(directed):
    rng = np.random.default_rng(4)
    store = GraphStore(get_backend("cpu"), directed, np.float32)
    store.add_vertices(np.arange(40))
    insert(store, rng.integers(0, 40, 120), rng.integers(0, 40, 120))
    engine = PageRankEngine(store, alpha=0.85, tol=1e-8)
    engine.initialize()
    engine.converge()
    for step in range(15):
        u, v = rng.integers(0, 40, 30), rng.integers(0, 40, 30)
        delta = insert(store, u, v, op=1 if step % 2 else -1)
        delta.new_vertices = store.add_vertices(np.array([100 + step]))
        engine.correct(delta)
        engine.converge()
        alive = store.vertices.sorted_internal
        got = np.zeros(store.vertex_bound)
        got[alive] = engine.ranks(alive)
        assert np.abs(got - exact_pagerank(store, 0.85)).sum() <= 1e-8


def test_hub_gaining_an_edge_touches_only_the_new_neighbour():
    store = GraphStore(get_backend("cpu"), True, np.float32)
    store.add_vertices(np.arange(1002))
    insert(store, np.zeros(1000, int), np.arange(1, 1001))
    engine = PageRankEngine(store, alpha=0.85, tol=1e-6)
    engine.initialize()
    engine.converge()
    residual_before = engine.residual[:1002].copy()
    work = engine.correct(insert(store, 0, 1001))
    changed = np.flatnonzero(engine.residual[:1002] != residual_before)
    assert set(changed.tolist()) <= {0, 1001}      # the hub and its new neighbour only
    assert work.edges_scanned == 1


def test_a_new_isolated_vertex_converges():
    # its residual is only the uniform share: a sparse push of s moves nothing,
    # so convergence must fall back to dense rounds (this used to loop forever)
    store = GraphStore(get_backend("cpu"), True, np.float32)
    store.add_vertices(np.arange(30))
    insert(store, np.arange(29), np.arange(1, 30))
    engine = PageRankEngine(store, alpha=0.85, tol=1e-9)
    engine.initialize()
    engine.converge()
    delta = store.empty_delta()
    delta.new_vertices = store.add_vertices(np.array([99]))
    engine.correct(delta)
    engine.converge()
    alive = store.vertices.sorted_internal
    got = np.zeros(store.vertex_bound)
    got[alive] = engine.ranks(alive)
    assert np.abs(got - exact_pagerank(store, 0.85)).sum() <= 1e-9
