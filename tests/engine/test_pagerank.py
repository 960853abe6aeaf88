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


#: how an engine follows batches: corrections, or a restart from scratch or from its last estimate
PATHS = {"incremental": {}, "cold restart": {"incremental": False},
         "warm restart": {"incremental": False, "warm_restart": True}}


def converged_engine(directed, n, arcs, tol, rng, **options):
    """A store of ``n`` vertices and ``arcs`` random arcs, and a PageRank engine converged on it."""
    store = GraphStore(get_backend("cpu"), directed, np.float32)
    store.add_vertices(np.arange(n))
    insert(store, rng.integers(0, n, arcs), rng.integers(0, n, arcs))
    engine = PageRankEngine(store, alpha=0.85, tol=tol, **options)
    engine.initialize()
    engine.converge()
    return store, engine


def every_rank(store, engine):
    """The engine's ranks per vertex id (0 where no vertex lives)."""
    alive = store.vertices.sorted_ids()[1]
    got = np.zeros(store.vertex_bound)
    got[alive] = engine.ranks(alive)
    return got


@pytest.mark.parametrize("path", sorted(PATHS))
@pytest.mark.parametrize("directed", [True, False])
def test_every_update_is_within_tol(directed, path):
    rng = np.random.default_rng(4)
    store, engine = converged_engine(directed, 40, 120, 1e-8, rng, **PATHS[path])
    for step in range(15):
        u, v = rng.integers(0, 40, 30), rng.integers(0, 40, 30)
        delta = insert(store, u, v, op=1 if step % 2 else -1)
        delta.new_vertices = store.add_vertices(np.array([100 + step]))
        engine.correct(delta)
        engine.converge()
        assert np.abs(every_rank(store, engine) - exact_pagerank(store, 0.85)).sum() <= 1e-8


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
    assert np.abs(every_rank(store, engine) - exact_pagerank(store, 0.85)).sum() <= 1e-9


# ------------------------------------------------------------------ weighted
def apply_rows(store, u, v, w, op):
    u, v, w, op = (np.atleast_1d(np.asarray(x)) for x in (u, v, w, op))
    return store.apply(reduce_batch(store, u, v, w.astype(np.float32), op.astype(np.int8)))


def exact_weighted_pagerank(store, alpha, teleport=None):
    """Dense solve with transition w / W(u); dangling where W(u) == 0; teleport (per
    internal id, over live vertices) default uniform."""
    n = store.vertex_bound
    alive = store.vertices.alive[:n]
    u, v, w = store.edge_arrays()
    w = w.astype(np.float64)
    if not store.directed:
        loop = u == v
        u, v, w = np.concatenate((u, v[~loop])), np.concatenate((v, u[~loop])), np.concatenate((w, w[~loop]))
    total = np.bincount(u, weights=w, minlength=n)
    m = int(alive.sum())
    idx = -np.ones(n, int)
    idx[alive] = np.arange(m)
    tele = np.ones(m) / m if teleport is None else teleport[alive] / teleport[alive].sum()
    P = np.zeros((m, m))
    keep = total[u] > 0
    np.add.at(P, (idx[v[keep]], idx[u[keep]]), w[keep] / total[u[keep]])
    dangling = np.flatnonzero(alive & (total == 0))
    P[:, idx[dangling]] = tele[:, None]
    x = np.linalg.solve(np.eye(m) - alpha * P, (1 - alpha) * tele)
    out = np.zeros(n)
    out[alive] = x / x.sum()
    return out


def test_a_hub_reweighting_one_edge_touches_only_that_neighbour():
    store = GraphStore(get_backend("cpu"), True, np.float32)
    store.add_vertices(np.arange(1002))
    apply_rows(store, np.zeros(1000, int), np.arange(1, 1001), np.linspace(0.5, 3.0, 1000), np.ones(1000))
    engine = PageRankEngine(store, alpha=0.85, tol=1e-6, weighted=True)
    engine.initialize()
    engine.converge()
    residual_before = engine.residual[:1002].copy()
    work = engine.correct(apply_rows(store, 0, 7, 9.0, 1))          # a present edge, reweighted
    changed = np.flatnonzero(engine.residual[:1002] != residual_before)
    assert set(changed.tolist()) <= {0, 7} and work.edges_scanned == 1
    u, _, w = store.edge_arrays()
    assert engine.out_weight[0] == pytest.approx(float(w[u == 0].astype(np.float64).sum()), rel=1e-12)


@pytest.mark.parametrize("path", sorted(PATHS))
@pytest.mark.parametrize("directed", [True, False])
@pytest.mark.parametrize("personalised", [False, True])
def test_weighted_updates_stay_within_tol_and_keep_exact_out_weights(directed, personalised, path):
    rng = np.random.default_rng(8 + directed)
    store = GraphStore(get_backend("cpu"), directed, np.float32)
    ids = store.add_vertices(np.arange(40))
    weights = np.array([0.0, 0.0, 0.5, 1.0, 2.5, 7.0, 1e-4])
    apply_rows(store, rng.integers(0, 40, 120), rng.integers(0, 40, 120), rng.choice(weights, 120), np.ones(120))
    teleport = None
    personalization = None
    if personalised:
        teleport = np.zeros(store.vertex_bound)
        chosen = ids[[1, 4, 9, 30]]
        teleport[chosen] = [1.0, 0.5, 2.0, 0.0]
        personalization = (chosen, teleport[chosen] / teleport[chosen].sum())
    engine = PageRankEngine(store, alpha=0.85, tol=1e-9, weighted=True, personalization=personalization,
                            **PATHS[path])
    engine.initialize()
    engine.converge()
    for step in range(20):
        u, v = rng.integers(0, 40, 25), rng.integers(0, 40, 25)
        op = rng.choice([1, 1, -1], 25)
        delta = apply_rows(store, u, v, rng.choice(weights, 25), op)
        engine.correct(delta)
        engine.converge()
        t = None if teleport is None else np.resize(teleport, store.vertex_bound)
        assert np.abs(every_rank(store, engine) - exact_weighted_pagerank(store, 0.85, t)).sum() <= 1e-9, step
        a, b, w = store.edge_arrays()
        if not directed:
            loop = a == b
            a, w = np.concatenate((a, b[~loop])), np.concatenate((w, w[~loop]))
        exact = np.bincount(a, weights=w.astype(np.float64), minlength=store.vertex_bound)
        np.testing.assert_allclose(engine.out_weight[: store.vertex_bound], exact, rtol=1e-9, atol=0)
        assert ((engine.out_weight[: store.vertex_bound] == 0) == (exact == 0)).all()   # dangling exactly


def test_zero_weight_only_lists_are_dangling_after_cancellation():
    # 0 -> 1 weighs 1e6, 0 -> 2 weighs 0: deleting the heavy arc leaves W(0) == 0 exactly
    store = GraphStore(get_backend("cpu"), True, np.float32)
    store.add_vertices(np.arange(3))
    apply_rows(store, [0, 0, 1], [1, 2, 2], [1e6, 0.0, 1.0], [1, 1, 1])
    engine = PageRankEngine(store, alpha=0.85, tol=1e-10, weighted=True)
    engine.initialize()
    engine.converge()
    engine.correct(apply_rows(store, [0, 0], [1, 2], [0.0, 1e-3], [-1, 1]))   # delete; reweight 0 -> 1e-3
    engine.converge()
    assert engine.out_weight[0] == np.float64(np.float32(1e-3))
    engine.correct(apply_rows(store, 0, 2, 0.0, 1))                         # back to zero: dangling
    engine.converge()
    assert engine.out_weight[0] == 0.0
    got = engine.ranks(np.arange(3))
    assert np.abs(got - exact_weighted_pagerank(store, 0.85)).sum() <= 1e-10


@pytest.mark.parametrize("directed", [True, False])
def test_a_total_that_becomes_subnormal_is_not_rescaled_into_underflow(directed):
    # one vertex, its self loop reweighted from 1 to a subnormal weight: rescaling its rank by
    # W_new / W_old (1e-311) took sum(p) to 1e-311, and the next rescale overflowed (found by
    # hypothesis in test_differential)
    store = GraphStore(get_backend("cpu"), directed, np.float64)
    store.add_vertices(np.arange(1))

    def rows(w):
        return store.apply(reduce_batch(store, np.zeros(1, np.int64), np.zeros(1, np.int64), np.array([w]),
                                        np.ones(1, np.int8)))
    rows(1.0)
    engine = PageRankEngine(store, alpha=0.85, tol=1e-10, weighted=True)
    engine.initialize()
    engine.converge()
    engine.correct(rows(2.225073858507e-311))
    engine.converge()
    assert engine.rank_sum > 0.5 and engine.ranks(np.arange(1)).tolist() == [1.0]


def test_a_warm_restart_reads_about_what_corrections_do_and_removed_vertices_lose_their_rank():
    # the same graph and batch for each path: corrections settle part of the batch's
    # change before the rounds (the rescale at its sources), a warm restart leaves all
    # of it to them, and a cold one starts from p = 1 (error bound 1.6 before its rounds,
    # against 0.014 warm and 0.0096 corrected)
    read = {}
    for path in PATHS:
        store, engine = converged_engine(True, 300, 3000, 1e-9, np.random.default_rng(12), **PATHS[path])
        delta = insert(store, np.array([1, 2, 3]), np.array([4, 5, 6]))
        read[path] = engine.correct(delta).edges_scanned + engine.converge().edges_scanned
        engine.correct(store.remove_vertices(np.array([7, 8])))
        engine.converge()
        if path == "warm restart":          # (a cold one resets the live vertices only)
            assert engine.rank[[7, 8]].tolist() == [0.0, 0.0]
        assert np.abs(every_rank(store, engine) - exact_pagerank(store, 0.85)).sum() <= 1e-9, path
    # (the incremental path also reads the batch's 3 arcs, and its rounds may end where the restart's do)
    assert read["incremental"] <= read["warm restart"] + 3, read
    assert read["warm restart"] < min(1.25 * read["incremental"], read["cold restart"]), read


@pytest.mark.parametrize("path", ["incremental", "warm restart"])
def test_dense_rounds_run_back_to_back_and_end_where_one_at_a_time_does(path, monkeypatch):
    # a batch that needs many dense rounds: after two rounds read one by one, the rounds
    # surely needed run without a bound read between them, and the update ends after as
    # many rounds as reading the bound after each (a margin of 1e300) would take it
    from cugraph_stream.engine import pagerank

    def run(margin):
        monkeypatch.setattr(pagerank, "CONTRACTION_MARGIN", margin)
        store, engine = converged_engine(True, 400, 4000, 1e-10, np.random.default_rng(21), **PATHS[path])
        calls, spread = [], PageRankEngine._spread
        monkeypatch.setattr(PageRankEngine, "_spread",
                            lambda self, plan, rounds=1, shift=None: calls.append(rounds) or spread(self, plan,
                                                                                                   rounds, shift))
        rng = np.random.default_rng(22)
        engine.correct(insert(store, rng.integers(0, 400, 300), rng.integers(0, 400, 300)))
        engine.converge()
        monkeypatch.setattr(PageRankEngine, "_spread", spread)
        assert np.abs(every_rank(store, engine) - exact_pagerank(store, 0.85)).sum() <= 1e-10
        return calls

    runs, one_by_one = run(pagerank.CONTRACTION_MARGIN), run(1e300)
    assert max(one_by_one) == 1 and len(one_by_one) >= 8
    assert len(runs) < len(one_by_one) and max(runs) > 1
    assert sum(runs) == sum(one_by_one)
