"""The two oracles agree: ``cugraph_stream.verify`` (shipped, used by the CLI and the
benchmarks) and ``tests/reference.py`` (the test suite's), on random graphs and streams."""
import random

import numpy as np
import pandas as pd
import pytest

from cugraph_stream.verify import EdgeSnapshot, compute_reference
from reference import (ModelGraph, reference_bfs, reference_pagerank, reference_sssp, reference_wcc,
                       reference_widest)

WEIGHTS = [0.0, 0.5, 1.0, 2.0, 3.0, 7.25, 100.0]


def first_member(labels):
    """Per vertex, the first vertex of its component: equal for equal partitions."""
    _, first, inverse = np.unique(labels, return_index=True, return_inverse=True)
    return first[inverse]


def rows_frame(rows):
    return pd.DataFrame({"src": np.array([r[0] for r in rows], dtype=np.int64),
                         "dst": np.array([r[1] for r in rows], dtype=np.int64),
                         "op": ["insert" if r[2] == 1 else "delete" for r in rows],
                         "weight": [np.nan if r[3] is None else float(r[3]) for r in rows]})


@pytest.mark.parametrize("directed", [True, False], ids=["directed", "undirected"])
@pytest.mark.parametrize("seed", range(4))
def test_verify_and_the_test_references_agree(directed, seed):
    rng = random.Random(seed)
    ids = [rng.randrange(-2**40, 2**40) for _ in range(30)]
    model, snapshot = ModelGraph(directed, "float64"), EdgeSnapshot(directed, "float64")
    for step in range(4):
        present = list(model.edges)
        rows = [(rng.choice(ids), rng.choice(ids), 1, rng.choice(WEIGHTS)) for _ in range(40)]
        rows += [(u, v, -1, None) for u, v in rng.sample(present, min(10, len(present)))]
        model.apply_rows(rows)
        snapshot.apply(rows_frame(rows), weight="weight")
        assert snapshot.vertices().tolist() == [int(v) for v in model.sorted_vertices()]
        source = int(model.sorted_vertices()[0])
        where = f"seed {seed}, step {step}"

        distance, reached = reference_sssp(model, source)
        got = compute_reference("sssp", snapshot, source)["distance"]
        assert np.array_equal(np.isfinite(got), reached), where
        np.testing.assert_allclose(got[reached], distance[reached], rtol=1e-12, err_msg=where)

        hops, reached = reference_bfs(model, source)
        got = compute_reference("bfs", snapshot, source)["distance"]
        assert np.array_equal(got >= 0, reached) and np.array_equal(got[reached], hops[reached]), where

        width, reached = reference_widest(model, source)
        got = compute_reference("widest", snapshot, source)["width"]
        assert np.array_equal(got, width), where

        labels = reference_wcc(model)             # smallest id of each component
        components = compute_reference("wcc", snapshot)["component"]
        assert np.array_equal(first_member(components), first_member(labels)), where

        ranks = compute_reference("pagerank", snapshot, tol=1e-13)
        ranks = ranks["pagerank"] if isinstance(ranks, dict) else ranks
        assert np.abs(np.asarray(ranks) - reference_pagerank(model)).sum() < 1e-9, where


def test_weighted_and_personalised_pagerank_reference_is_networkx():
    nx = pytest.importorskip("networkx")
    rows = pd.DataFrame({"src": [0, 0, 1, 2, 2, 3, 4], "dst": [1, 2, 2, 0, 2, 0, 4],
                         "weight": [1.0, 3.0, 1.0, 1.0, 0.5, 0.0, 1e-300]})
    snapshot = EdgeSnapshot.from_frame(rows, weight="weight", directed=True, weight_dtype="float64")
    G = nx.DiGraph()
    G.add_weighted_edges_from(rows.itertuples(index=False))
    for personalization in (None, {1: 1.0, 3: 2.0}):
        got = compute_reference("pagerank", snapshot, weighted=True, tol=1e-13,
                                personalization=None if personalization is None
                                else (list(personalization), list(personalization.values())))["pagerank"]
        expected = nx.pagerank(G, personalization=personalization, tol=1e-14, max_iter=100000)
        assert np.abs(got - np.array([expected[v] for v in range(5)])).sum() < 1e-9
