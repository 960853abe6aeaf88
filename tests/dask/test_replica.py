"""``GraphReplica`` (the actor class) as a plain object: two-phase batches,
all-or-none tracking, stacked results.  No Dask needed."""
import pandas as pd
import pytest

import cugraph_stream as cgs
from cugraph_stream.dask import GraphReplica

EDGES = pd.DataFrame({"src": [0, 1, 2], "dst": [1, 2, 3], "w": [1.0, 2.0, 3.0]})


def test_prepare_validates_and_commit_applies():
    replica = GraphReplica(EDGES, weight="w")
    reference = cgs.StreamGraph.from_edgelist(EDGES, weight="w")
    batch = pd.DataFrame({"src": [3, 0], "dst": [0, 1], "w": [1.0, None], "op": ["insert", "delete"]})
    replica.prepare("t", batch, weight="w")
    assert replica.number_of_edges() == 3            # nothing applied before commit
    report = replica.commit("t")
    expected = reference.apply(batch, weight="w")
    assert (report.inserted, report.deleted) == (expected.inserted, expected.deleted) == (1, 1)
    pd.testing.assert_frame_equal(replica.edges(), reference.edges())
    with pytest.raises(KeyError):
        replica.commit("t")                          # a token commits once


def test_prepare_rejects_what_apply_rejects_and_keeps_nothing():
    replica = GraphReplica(EDGES, weight="w")
    negative = pd.DataFrame({"src": [0], "dst": [3], "w": [-1.0], "op": ["insert"]})
    replica.prepare("ok", negative, weight="w")      # no SSSP tracked: negative weights are fine
    replica.discard("ok")
    replica.track([cgs.SSSP(source=0)])
    with pytest.raises(ValueError, match=r"column 'w' holds a negative weight -1.0 at row 0, "
                                         r"but SSSP\(source=0\) needs non-negative weights"):
        replica.prepare("bad", negative, weight="w")
    with pytest.raises(ValueError, match="column 'op' holds an unknown op 'upsert' at row 0"):
        replica.prepare("bad", negative.assign(op="upsert", w=1.0), weight="w")
    assert replica._pending == {}
    replica.discard("never-prepared")                # harmless


def test_track_is_all_or_none():
    replica = GraphReplica(EDGES, weight="w")
    with pytest.raises(ValueError, match="source vertex 42 is not in the graph"):
        replica.track([cgs.BFS(source=0), cgs.WCC(), cgs.BFS(source=42)])
    assert replica.queries == {} and replica.graph.queries == ()
    assert replica.track([cgs.BFS(source=0)]) == ["BFS(source=0)"]
    with pytest.raises(ValueError, match="already tracked"):
        replica.track([cgs.BFS(source=0)])


def test_results_stack_queries_with_a_query_column():
    replica = GraphReplica(EDGES, weight="w")
    names = replica.track([cgs.SSSP(source=0), cgs.SSSP(source=2)])
    stacked = replica.results(names)
    assert list(stacked.columns) == ["query", "vertex", "distance", "predecessor"]
    for name, source in zip(names, (0, 2)):
        expected = cgs.StreamGraph.from_edgelist(EDGES, weight="w").track(
            cgs.SSSP(source=source)).result()
        rows = stacked[stacked["query"] == name].drop(columns="query").reset_index(drop=True)
        pd.testing.assert_frame_equal(rows, expected)
    meta = replica.results_meta(names)
    assert len(meta) == 0 and meta.dtypes.equals(stacked.dtypes)
    with pytest.raises(ValueError, match="not tracked on this worker"):
        replica.result("WCC()")
