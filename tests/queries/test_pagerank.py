"""PageRank's options: weights (cuGraph's default on weighted graphs),
personalization and the stopping rule, against independent references
(``tests/reference.py``: a direct solve, itself checked against NetworkX) after
every batch of random operation streams."""
import random

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, note, settings
from hypothesis import strategies as st

import cugraph_stream as cgs
from cugraph_stream.engine.cost_model import PathChoice
from cugraph_stream.engine.pagerank import smallest_tol
from reference import Harness, ModelGraph, example_budget, host, networkx_pagerank, reference_pagerank

WEIGHTS = [0.0, 0.0, 0.5, 1.0, 1.0, 2.0, 3.0, 7.25, 1e-6, 100.0]


def frame(rows):
    return pd.DataFrame({"src": [r[0] for r in rows], "dst": [r[1] for r in rows],
                         "w": [float(r[2]) for r in rows]})


def ranks(q):
    return host(q.result())["pagerank"].to_numpy()


# ------------------------------------------------------------------ references
@pytest.mark.parametrize("directed", [True, False], ids=["directed", "undirected"])
@pytest.mark.parametrize("personalised", [False, True], ids=["uniform", "personalised"])
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("n", [30, 450], ids=["direct-solve", "power-iteration"])
def test_reference_matches_networkx(directed, personalised, weighted, n):
    rng = random.Random(n + 7 * directed)
    m = ModelGraph(directed, "float64")
    m.add_vertices(range(n))
    rows = [(rng.randrange(n), rng.randrange(n), 1, rng.choice(WEIGHTS)) for _ in range(3 * n)]
    rows += [(3, 3, 1, 2.0), (4, 5, 1, 0.0)]            # a self loop; a zero-weight arc
    m.apply_rows(rows)
    personalization = {v: rng.choice([0.0, 1.0, 2.5]) for v in range(0, n, 3)} if personalised else None
    if personalization is not None:
        personalization[0] = 1.0
    a = reference_pagerank(m, 0.85, weighted, personalization)
    b = networkx_pagerank(m, 0.85, weighted, personalization)
    assert np.abs(a - b).sum() < 1e-9


# ------------------------------------------------------------------ semantics
def test_weighted_ranks_are_networkx_weighted():
    nx = pytest.importorskip("networkx")
    rows = [(0, 1, 1.0), (0, 2, 3.0), (1, 2, 1.0), (2, 0, 1.0), (2, 2, 0.5), (3, 0, 0.0), (1, 3, 2.0)]
    g = cgs.StreamGraph.from_edgelist(frame(rows), source="src", destination="dst", weight="w")
    G = nx.DiGraph()
    G.add_weighted_edges_from(rows)
    personalization = {1: 2.0, 3: 1.0}
    for options, expected in [({}, nx.pagerank(G, tol=1e-13)),
                              ({"weighted": False}, nx.pagerank(G, weight=None, tol=1e-13)),
                              ({"personalization": pd.DataFrame({"vertex": [1, 3], "values": [2.0, 1.0]})},
                               nx.pagerank(G, personalization=personalization, tol=1e-13))]:
        q = g.track(cgs.PageRank(tol=1e-10, **options))
        assert np.abs(ranks(q) - np.array([expected[v] for v in range(4)])).sum() <= 1e-10, options


def test_zero_weight_out_edges_make_a_vertex_dangling():
    # 1's only out-edge weighs 0: its rank is spread as teleport, as NetworkX does
    g = cgs.StreamGraph.from_edgelist(frame([(0, 1, 1.0), (1, 2, 0.0), (2, 0, 1.0)]), source="src",
                                      destination="dst", weight="w")
    q = g.track(cgs.PageRank(tol=1e-10))
    m = ModelGraph(True, "float32")
    m.apply_rows([(0, 1, 1, 1.0), (1, 2, 1, 0.0), (2, 0, 1, 1.0)])
    assert np.abs(ranks(q) - reference_pagerank(m, 0.85, weighted=True)).sum() <= 1e-10
    # reweighting 1 -> 2 away from zero makes 1 send its rank along it again, and back
    for w in (2.0, 0.0, 5.0):
        g.apply(pd.DataFrame({"src": [1], "dst": [2], "w": [w], "op": ["insert"]}))
        m.apply_rows([(1, 2, 1, w)])
        assert np.abs(ranks(q) - reference_pagerank(m, 0.85, weighted=True)).sum() <= 1e-10, w


def test_weighted_option_is_checked():
    unweighted = cgs.StreamGraph.from_edgelist(pd.DataFrame({"src": [0], "dst": [1]}), source="src",
                                               destination="dst")
    with pytest.raises(ValueError, match="weighted: .* needs a weighted graph"):
        unweighted.track(cgs.PageRank(weighted=True))
    q = unweighted.track(cgs.PageRank())
    assert not q.uses_weights and not q.needs_nonnegative_weights
    with pytest.raises(ValueError, match="weighted must be None, True or False"):
        cgs.PageRank(weighted="yes")


def test_negative_weights_are_refused_while_weighted_pagerank_is_tracked():
    g = cgs.StreamGraph.from_edgelist(frame([(0, 1, -1.0), (1, 0, 1.0)]), source="src", destination="dst",
                                      weight="w")
    with pytest.raises(ValueError, match=r"needs non-negative weights.*\(0, 1\) weighs -1"):
        g.track(cgs.PageRank())
    g.track(cgs.PageRank(weighted=False))          # unweighted: the weights do not matter
    g.apply(pd.DataFrame({"src": [0], "dst": [1], "w": [2.0], "op": ["insert"]}))
    q = g.track(cgs.PageRank())
    before = ranks(q)
    with pytest.raises(ValueError, match="w"):
        g.apply(pd.DataFrame({"src": [1], "dst": [0], "w": [-0.5], "op": ["insert"]}))
    np.testing.assert_array_equal(ranks(q), before)


def test_weighted_none_follows_a_graph_that_learns_its_weights_from_its_first_batch():
    g = cgs.StreamGraph()
    g.add_vertices(np.array([0, 1, 2]))
    q = g.track(cgs.PageRank(tol=1e-10))
    assert not q.uses_weights and q.needs_nonnegative_weights        # it may still become weighted
    with pytest.raises(ValueError):                                  # refused, and rolled back
        g.apply(pd.DataFrame({"source": [0], "destination": [1], "w": [-1.0], "op": ["insert"]}), weight="w")
    assert not q.uses_weights
    g.apply(pd.DataFrame({"source": [0, 0, 1], "destination": [1, 2, 2], "w": [1.0, 4.0, 1.0],
                          "op": ["insert"] * 3}), weight="w")
    assert q.uses_weights
    m = ModelGraph(True, "float32")
    m.add_vertices([0, 1, 2])
    m.apply_rows([(0, 1, 1, 1.0), (0, 2, 1, 4.0), (1, 2, 1, 1.0)])
    assert np.abs(ranks(q) - reference_pagerank(m, 0.85, weighted=True)).sum() <= 1e-10


def test_personalization_is_checked():
    g = cgs.StreamGraph.from_edgelist(frame([(0, 1, 1.0), (1, 2, 1.0)]), source="src", destination="dst",
                                      weight="w")
    bad = [(pd.DataFrame({"vertex": [0, 7], "values": [1.0, 1.0]}), "row 1 names vertex 7"),
           (pd.DataFrame({"vertex": [0, 1], "values": [1.0, -1.0]}), "row 1 .* non-negative"),
           (pd.DataFrame({"vertex": [0, 1], "values": [0.0, 0.0]}), "the values sum to 0"),
           (pd.DataFrame({"vertex": [0, 0], "values": [1.0, 1.0]}), "vertex 0 .row 1. appears more than once"),
           (pd.DataFrame({"v": [0], "values": [1.0]}), "column 'vertex' not found")]
    for table, message in bad:
        with pytest.raises(ValueError, match="personalization: " + message):
            g.track(cgs.PageRank(personalization=table))
    assert not g.queries
    q = g.track(cgs.PageRank(personalization=pd.DataFrame({"vertex": [2, 0], "values": [3.0, 1.0]})))
    vertices, values = q.personalization
    assert vertices.tolist() == [2, 0] and values.tolist() == [0.75, 0.25]


def test_personalization_vertices_removed_are_renormalised_and_the_last_is_refused():
    g = cgs.StreamGraph.from_edgelist(frame([(0, 1, 1.0), (1, 2, 2.0), (2, 0, 1.0), (3, 0, 1.0)]),
                                      source="src", destination="dst", weight="w")
    q = g.track(cgs.PageRank(tol=1e-10, personalization=pd.DataFrame({"vertex": [1, 3], "values": [1.0, 3.0]})))
    g.remove_vertices(np.array([3]))
    m = ModelGraph(True, "float32")
    m.apply_rows([(0, 1, 1, 1.0), (1, 2, 1, 2.0), (2, 0, 1, 1.0)])
    assert np.abs(ranks(q) - reference_pagerank(m, 0.85, True, {1: 1.0})).sum() <= 1e-10
    g.add_vertices(np.array([3]))           # back, but without its entry
    m.add_vertices([3])
    assert np.abs(ranks(q) - reference_pagerank(m, 0.85, True, {1: 1.0})).sum() <= 1e-10
    before, edges = host(q.result()), host(g.edges())
    with pytest.raises(ValueError, match="personalization: the batch removes every vertex"):
        g.remove_vertices(np.array([1]))
    pd.testing.assert_frame_equal(host(q.result()), before)
    pd.testing.assert_frame_equal(host(g.edges()), edges)
    g.apply(pd.DataFrame({"src": [1], "dst": [3], "w": [1.0], "op": ["insert"]}))      # still tracked, still exact
    m.apply_rows([(1, 3, 1, 1.0)])
    assert np.abs(ranks(q) - reference_pagerank(m, 0.85, True, {1: 1.0})).sum() <= 1e-10


def test_stop_change_is_cugraphs_epsilon():
    rows = [(i, (i * 7 + 3) % 40, 1.0 + i % 3) for i in range(40)] + [(i, (i + 1) % 40, 1.0) for i in range(40)]
    g = cgs.StreamGraph.from_edgelist(frame(rows), source="src", destination="dst", weight="w")
    q = g.track(cgs.PageRank(tol=1e-7, stop="change"))
    assert q.error_tol == pytest.approx(1e-7 / 0.15)
    engine = q.engine
    x = engine.rank[: 40] / engine.rank_sum
    # one power-iteration step changes the ranks by at most tol (in L1)
    assert engine.error_bound() * (1 - 0.85) <= 1e-7
    m = ModelGraph(True, "float32")
    m.apply_rows([(u, v, 1, w) for u, v, w in rows])
    assert np.abs(x - reference_pagerank(m, 0.85, weighted=True)).sum() <= 1e-7 / 0.15
    with pytest.raises(ValueError, match="stop must be one of"):
        cgs.PageRank(stop="residual")
    cgs.PageRank(tol=smallest_tol(0.85) * 0.16, stop="change")
    with pytest.raises(ValueError, match="tol must be at least"):
        cgs.PageRank(tol=smallest_tol(0.85) * 0.1, stop="change")
    with pytest.raises(ValueError, match="tol must be at least"):
        cgs.PageRank(tol=smallest_tol(0.85) * 0.5)


# ------------------------------------------------------------------ random streams
def _options(data, ids, weighted, personalised):
    options = {"weighted": weighted}
    if personalised:
        chosen = data.draw(st.lists(st.sampled_from(ids), min_size=1, max_size=4, unique=True),
                           label="personalization vertices")
        values = data.draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 3.0]), min_size=len(chosen),
                                    max_size=len(chosen)), label="personalization values")
        values[0] = 1.0
        options["personalization"] = pd.DataFrame({"vertex": chosen, "values": values})
    return options


def _rows(data, model, universe):
    rows = []
    for _ in range(data.draw(st.integers(1, 10), label="rows")):
        present = sorted(model.edges)
        kind = data.draw(st.sampled_from(["insert", "insert", "delete", "reweight", "to_zero", "self_loop"]),
                         label="row kind")
        if kind in ("delete", "reweight", "to_zero") and present:
            u, v = data.draw(st.sampled_from(present))
            w = {"delete": None, "reweight": data.draw(st.sampled_from(WEIGHTS)), "to_zero": 0.0}[kind]
            rows.append((u, v, -1 if kind == "delete" else 1, w))
        elif kind == "self_loop":
            u = data.draw(st.sampled_from(universe))
            rows.append((u, u, data.draw(st.sampled_from([1, -1])), data.draw(st.sampled_from(WEIGHTS))))
        else:
            u, v = data.draw(st.sampled_from(universe)), data.draw(st.sampled_from(universe))
            rows.append((u, v, 1, data.draw(st.sampled_from(WEIGHTS))))
    return rows


@pytest.mark.parametrize("directed", [True, False], ids=["directed", "undirected"])
@pytest.mark.parametrize("variant", ["weighted", "personalised", "weighted-personalised"])
@settings(max_examples=example_budget(25))
@given(data=st.data())
def test_random_streams_stay_within_tol(variant, directed, backend, data):
    weighted = variant != "personalised"
    ids = list(range(data.draw(st.integers(4, 14), label="vertices")))
    init = data.draw(st.lists(st.tuples(st.sampled_from(ids), st.sampled_from(ids), st.sampled_from(WEIGHTS)),
                              min_size=1, max_size=30), label="initial edges")
    wdt = data.draw(st.sampled_from(["float32", "float64"]), label="weight dtype")
    tol = data.draw(st.sampled_from([1e-6, 1e-9]), label="tol")
    h = Harness(cgs, directed=directed, weight_dtype=wdt, backend=backend, edges=init, vertices=ids,
                kinds=(), tol=tol)
    options = _options(data, ids, weighted, "personalised" in variant)
    keep = set(options["personalization"]["vertex"]) if "personalization" in options else set()
    for mode in ("incremental", "recompute", "auto"):
        q = h.track("PageRank", mode, **options)
        if mode == "auto":          # its recompute path on every batch: warm restarts
            q._choose = lambda changed, size: PathChoice("recompute", "forced by the test")
    universe = ids + [100, 101, 102]
    for _ in range(data.draw(st.integers(1, 8), label="ops")):
        op = data.draw(st.sampled_from(["batch"] * 5 + ["remove", "add"]), label="op")
        if op == "batch":
            rows = _rows(data, h.model, universe)
            note(f"apply {rows}")
            h.apply(rows)
        elif op == "remove":
            # keep one positive personalization vertex (removing all is refused: tested above)
            anchor = next(iter(sorted(v for v, x in zip(options["personalization"]["vertex"],
                                                          options["personalization"]["values"]) if x > 0)), None) \
                if keep else None
            candidates = sorted(h.model.vertices - {anchor})
            if candidates:
                gone = data.draw(st.lists(st.sampled_from(candidates), min_size=1, max_size=3, unique=True),
                                 label="remove")
                note(f"remove_vertices {gone}")
                h.remove_vertices(gone)
        else:
            new = data.draw(st.lists(st.sampled_from(universe), min_size=1, max_size=2, unique=True), label="add")
            note(f"add_vertices {new}")
            h.add_vertices(new)


def test_extreme_weights_stay_finite_and_exact():
    # subnormal totals (1 / W overflows) and batches moving 1e300 times a total (the rescale
    # W_new / W_old would overflow) take the overflow-free paths
    g = cgs.StreamGraph(weight_dtype="float64")
    q = g.track(cgs.PageRank(tol=1e-9))
    m = ModelGraph(True, "float64")
    for rows in ([(0, 0, 5e-324)], [(0, 1, 1.0)], [(1, 2, 1e-310), (2, 0, 1e300)], [(0, 1, 5e-324)],
                 [(2, 1, 1e-300), (2, 0, 1e-300)], [(1, 2, 1e300)], [(1, 0, 1e-320)]):
        g.apply(pd.DataFrame({"source": [r[0] for r in rows], "destination": [r[1] for r in rows],
                              "weight": [r[2] for r in rows], "op": ["insert"] * len(rows)}), weight="weight")
        m.apply_rows([(a, b, 1, w) for a, b, w in rows])
        got = ranks(q)
        assert np.isfinite(got).all()
        assert np.abs(got - reference_pagerank(m, 0.85, weighted=True)).sum() <= 1e-9, rows
