"""``PageRank.changes(threshold)`` against the difference of two ``result()`` frames."""
import numpy as np
import pandas as pd
import pytest

import cugraph_stream as cgs
from cugraph_stream.datasets import mixed_stream, rmat
from reference import check_pagerank_changes, host


@pytest.mark.parametrize("mode", ["incremental", "recompute"])
def test_changes_are_the_ranks_that_moved(backend, mode):
    stream = mixed_stream(rmat(8, edge_factor=6, seed=3), 4, 60, delete_fraction=0.5, seed=3)
    g = cgs.StreamGraph.from_edgelist(stream.initial, weight="weight", backend=backend)
    pr = g.track(cgs.PageRank(tol=1e-8, mode=mode))
    assert len(host(pr.changes())) == g.number_of_vertices()          # track: every vertex
    for i, batch in enumerate(stream):
        before = host(pr.result())
        g.apply(batch, weight="weight")
        for threshold in (None, 1e-4, 1e-3, 0.0):
            check_pagerank_changes(pr, before, where=f"batch {i}", threshold=threshold)
        listed = host(pr.changes(1e-4))
        assert 0 < len(listed) < g.number_of_vertices(), f"batch {i}: {len(listed)} rows"
    # new vertices are listed whatever their rank, removed ones are not
    before = host(pr.result())
    gone = int(before["vertex"].iloc[0])
    g.remove_vertices(np.array([gone]))
    g.add_vertices(np.array([10**12]))
    check_pagerank_changes(pr, before, where="vertices", threshold=1.0)
    assert host(pr.changes(1.0))["vertex"].tolist() == [10**12]


def test_a_rolled_back_batch_leaves_the_changes_of_the_one_before():
    g = cgs.StreamGraph.from_edgelist(pd.DataFrame({"src": [0, 1, 2, 3], "dst": [1, 2, 0, 0]}))
    pr = g.track(cgs.PageRank(tol=1e-9))
    g.apply(pd.DataFrame({"src": [4], "dst": [1], "op": ["insert"]}))
    changes, result = host(pr.changes(1e-3)), host(pr.result())
    pr.engine.max_iter = 0                     # the next batch cannot converge: rolled back
    with pytest.raises(RuntimeError, match="did not reach tol"):
        g.apply(pd.DataFrame({"src": [2, 5], "dst": [3, 0], "op": ["insert", "insert"]}))
    pd.testing.assert_frame_equal(host(pr.result()), result)
    pd.testing.assert_frame_equal(host(pr.changes(1e-3)), changes)
    pr.engine.max_iter = 1000
    g.apply(pd.DataFrame({"src": [2, 5], "dst": [3, 0], "op": ["insert", "insert"]}))
    check_pagerank_changes(pr, result, where="after the rollback", threshold=1e-3)


@pytest.mark.parametrize("threshold", [-1e-9, float("nan"), float("inf"), "0.1", True, None])
def test_bad_threshold(threshold):
    g = cgs.StreamGraph.from_edgelist(pd.DataFrame({"src": [0], "dst": [1]}))
    pr = g.track(cgs.PageRank())
    if threshold is None:                      # the default: tol
        assert host(pr.changes())["vertex"].tolist() == [0, 1]
        return
    with pytest.raises(ValueError, match="threshold must be a finite real number >= 0"):
        pr.changes(threshold)


def test_untracked():
    with pytest.raises(ValueError, match="not tracked"):
        cgs.PageRank().changes()
