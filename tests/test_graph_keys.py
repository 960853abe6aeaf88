"""Graphs named by arbitrary vertex keys (issue 20, item 2): strings, categoricals,
integers of any width, multi-column keys, in pandas, Arrow and dicts.

Results on NetworkX's bundled graphs with string node names must equal
NetworkX's own, without any renumbering by the test.
"""
import math

import networkx as nx
import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from reference import host

import cugraph_stream as cgs
from cugraph_stream.backends.faults import FaultInjector


def frame_of(G, weight=True):
    edges = nx.to_pandas_edgelist(G)
    df = pd.DataFrame({"src": edges["source"], "dst": edges["target"]})
    if weight:
        df["w"] = edges["weight"].astype(float)
    return df


def as_dict(frame, value, key="vertex"):
    frame = host(frame)
    return dict(zip(frame[key].tolist(), frame[value].tolist()))


def partition(labels):
    groups = {}
    for vertex, label in labels.items():
        groups.setdefault(label, set()).add(vertex)
    return sorted(sorted(group) for group in groups.values())


def edge_set(g):
    e = host(g.edges())
    cols = list(e.columns)
    return {(s, d, float(w)) for s, d, w in zip(e[cols[0]], e[cols[1]], e[cols[2]])}


# --------------------------------------------------------------- NetworkX graphs
def test_les_miserables_equals_networkx(backend):
    G = nx.les_miserables_graph()
    g = cgs.StreamGraph.from_edgelist(frame_of(G), source="src", destination="dst", weight="w",
                                      directed=False, backend=backend, weight_dtype="float64")
    sssp = g.track(cgs.SSSP(source="Myriel"))
    bfs = g.track(cgs.BFS(source="Valjean"))
    wcc = g.track(cgs.WCC())
    pagerank = g.track(cgs.PageRank(tol=1e-10))

    expected = nx.single_source_dijkstra_path_length(G, "Myriel", weight="weight")
    assert as_dict(sssp.result(), "distance") == pytest.approx(expected)
    result = host(sssp.result())
    for vertex, pred, dist in zip(result["vertex"], result["predecessor"], result["distance"]):
        if vertex == "Myriel":
            assert pd.isna(pred)              # no predecessor: null for string keys
        else:
            assert math.isclose(expected[pred] + G[pred][vertex]["weight"], dist)
    assert as_dict(bfs.result(), "distance") == nx.single_source_shortest_path_length(G, "Valjean")
    assert partition(as_dict(wcc.result(), "labels")) == sorted(sorted(c) for c in nx.connected_components(G))
    ranks = as_dict(pagerank.result(), "pagerank")
    reference = nx.pagerank(G, weight="weight", tol=1e-12)      # weighted, as cuGraph's on a weighted graph
    assert sum(abs(ranks[v] - reference[v]) for v in G) < 1e-6
    assert set(host(g.vertices()).tolist()) == set(G)
    assert host(result)["vertex"].dtype == host(g.vertices()).dtype

    # a batch of string keys: remove Myriel's edges to Napoleon, add a newcomer
    batch = pd.DataFrame({"src": ["Myriel", "Newcomer"], "dst": ["Napoleon", "Valjean"], "w": [None, 0.5],
                          "op": ["delete", "insert"]})
    g.apply(batch, source="src", destination="dst", weight="w", op="op")
    G.remove_edge("Myriel", "Napoleon")
    G.add_edge("Newcomer", "Valjean", weight=0.5)
    reached = {v: d for v, d in as_dict(sssp.result(), "distance").items() if d < np.finfo(np.float64).max}
    assert reached == pytest.approx(nx.single_source_dijkstra_path_length(G, "Myriel", weight="weight"))
    changed = host(sssp.changes())
    assert {"Napoleon", "Newcomer"} <= set(changed["vertex"])
    assert partition(as_dict(wcc.result(), "labels")) == sorted(sorted(c) for c in nx.connected_components(G))


def test_florentine_families_from_arrow_dictionary_columns(backend):
    G = nx.florentine_families_graph()
    G.remove_nodes_from(list(nx.isolates(G)))        # (Pucci: no edge, so not in an edge list)
    edges = nx.to_pandas_edgelist(G)
    table = pa.table({"src": pa.array(edges["source"]).dictionary_encode(),
                      "dst": pa.array(edges["target"]).dictionary_encode()})
    g = cgs.StreamGraph.from_edgelist(table, source="src", destination="dst", directed=False, backend=backend)
    bfs = g.track(cgs.BFS(source="Medici"))
    assert as_dict(bfs.result(), "distance") == nx.single_source_shortest_path_length(G, "Medici")
    g.remove_vertices(["Strozzi", "Peruzzi"])
    G.remove_nodes_from(["Strozzi", "Peruzzi"])
    assert as_dict(bfs.result(), "distance") == nx.single_source_shortest_path_length(G, "Medici")
    assert set(host(g.vertices()).tolist()) == set(G)


def test_categorical_keys_are_decoded(backend):
    df = pd.DataFrame({"src": pd.Categorical(["a", "b", "c"]), "dst": pd.Categorical(["b", "c", "a"])})
    g = cgs.StreamGraph.from_edgelist(df, source="src", destination="dst", backend=backend)
    paths = g.track(cgs.SSSP(source="a"))
    assert as_dict(paths.result(), "distance") == {"a": 0.0, "b": 1.0, "c": 2.0}
    assert as_dict(paths.result(), "predecessor")["c"] == "b"


# ----------------------------------------------------------- integer widths
@pytest.mark.parametrize("dtype", ["int32", "uint8", "int16", "uint64"])
def test_integer_keys_keep_their_dtype(dtype, backend):
    values = [1, 2, 3, 250] if dtype != "uint64" else [1, 2, 3, 2**64 - 2]
    if dtype == "int16":
        values = [-5, 2, 3, 250]
    src = np.array(values[:3], dtype=dtype)
    dst = np.array(values[1:], dtype=dtype)
    g = cgs.StreamGraph.from_edgelist({"src": src, "dst": dst}, source="src", destination="dst", backend=backend)
    paths = g.track(cgs.SSSP(source=values[0]))
    labels = g.track(cgs.WCC())
    frame = paths.result()
    on_gpu = type(frame).__module__.startswith("cudf")
    result = frame.to_pandas(nullable=True) if on_gpu else frame
    assert result["vertex"].dtype in (np.dtype(dtype), pd.api.types.pandas_dtype(dtype.capitalize()
                                                                                 .replace("Uint", "UInt")))
    assert result["vertex"].tolist() == sorted(values)
    # unsigned keys: a nullable column (cuDF's own nulls on the GPU, pandas' UInt dtypes on the CPU)
    assert (frame["predecessor"].dtype if on_gpu else result["predecessor"].dtype) == (
        np.dtype(dtype) if np.dtype(dtype).kind == "i" or on_gpu
        else pd.api.types.pandas_dtype(dtype.capitalize().replace("Uint", "UInt")))
    pred = dict(zip(result["vertex"].tolist(), result["predecessor"].tolist()))
    assert pred[values[3]] == values[2] and pred[values[1]] == values[0]
    none = pred[values[0]]
    assert none == -1 if np.dtype(dtype).kind == "i" else pd.isna(none)
    assert host(labels.result())["labels"].dtype == np.dtype(dtype)
    assert host(labels.result())["labels"].tolist() == [min(values)] * 4
    e = host(g.edges())
    assert e[e.columns[0]].dtype == np.dtype(dtype) and host(g.vertices()).dtype == np.dtype(dtype)
    with pytest.raises(ValueError, match="row 1"):
        g.apply({"src": np.array([1, -1 if np.dtype(dtype).kind == "u" else 2**40]), "dst": np.array([2, 3])},
                source="src", destination="dst", op=None)


def test_int64_graph_results_are_unchanged(backend):
    g = cgs.StreamGraph.from_edgelist(pd.DataFrame({"src": [0, 1], "dst": [1, 2]}), source="src",
                                      destination="dst", backend=backend)
    result = host(g.track(cgs.SSSP(source=0)).result())
    assert result["vertex"].dtype == np.int64 and result["predecessor"].tolist() == [-1, 0, 1]


# ---------------------------------------------------------------- multi-column
def test_multi_column_keys(backend):
    df = pd.DataFrame({"a": ["x", "x", "y"], "b": [1, 2, 1], "c": ["x", "y", "z"], "d": [2, 1, 9],
                       "w": [1.0, 2.0, 4.0]})
    g = cgs.StreamGraph.from_edgelist(df, source=["a", "b"], destination=["c", "d"], weight="w", backend=backend)
    paths = g.track(cgs.SSSP(source=("x", 1)))
    result = host(paths.result())
    assert list(result.columns) == ["0_vertex", "1_vertex", "distance", "0_predecessor", "1_predecessor"]
    rows = {(a, b): (dist, p, q) for a, b, dist, p, q in result.itertuples(index=False)}
    assert rows[("x", 1)][0] == 0.0 and pd.isna(rows[("x", 1)][1])
    assert rows[("z", 9)][:2] == (7.0, "y") and rows[("z", 9)][2] == 1
    e = host(g.edges())
    assert list(e.columns) == ["a", "b", "c", "d", "w"]
    assert {tuple(r) for r in e.itertuples(index=False)} == {("x", 1, "x", 2, 1.0), ("x", 2, "y", 1, 2.0),
                                                            ("y", 1, "z", 9, 4.0)}
    vertices = host(g.vertices())
    assert list(vertices.columns) == ["0_vertex", "1_vertex"] and len(vertices) == 4
    g.apply(pd.DataFrame({"a": ["x"], "b": [1], "c": ["z"], "d": [9], "w": [1.5]}), source=["a", "b"],
            destination=["c", "d"], weight="w", op=None)
    assert host(paths.changes())["distance"].tolist() == [1.5]
    g.remove_vertices(pd.DataFrame({"a": ["y"], "b": [1]}))
    assert len(host(g.vertices())) == 3
    with pytest.raises(ValueError, match="source of tracked"):
        g.remove_vertices([("x", 1)])
    with pytest.raises(ValueError, match="vertex keys of 1 column.s. given, but this graph.s vertex keys have 2"):
        g.apply(pd.DataFrame({"a": ["x"], "c": ["z"]}), source="a", destination="c", op=None)


# ------------------------------------------------------------------ lifecycle
def test_string_keys_into_an_int_graph_are_rejected_and_change_nothing(backend):
    g = cgs.StreamGraph.from_edgelist(pd.DataFrame({"src": [0], "dst": [1]}), source="src", destination="dst",
                                      backend=backend)
    with pytest.raises(ValueError, match=r"column 'dst' holds vertex key 'b' at row 0, but this graph's vertex "
                                         r"keys are integers"):
        g.apply(pd.DataFrame({"src": [1], "dst": ["b"]}), source="src", destination="dst", op=None)
    assert g.number_of_vertices() == 2
    h = cgs.StreamGraph.from_edgelist(pd.DataFrame({"src": ["a"], "dst": ["b"]}), source="src",
                                      destination="dst", backend=backend)
    with pytest.raises(ValueError, match="column 'src' holds a null vertex id at row 1"):
        h.apply(pd.DataFrame({"src": ["a", None], "dst": ["b", "c"]}), source="src", destination="dst", op=None)
    with pytest.raises(ValueError, match="source vertex"):
        h.track(cgs.SSSP(source="nobody"))


def test_validate_and_failed_batches_leave_the_key_table_alone(backend):
    g = cgs.StreamGraph.from_edgelist(pd.DataFrame({"src": ["a", "b"], "dst": ["b", "c"]}), source="src",
                                      destination="dst", backend=backend)
    paths = g.track(cgs.BFS(source="a"))
    keys = g._keys
    size = len(keys)
    batch = pd.DataFrame({"src": ["c", "new1"], "dst": ["new2", "a"]})
    g.validate(batch, source="src", destination="dst", op=None)
    assert len(keys) == size
    failures = 0
    at = 0
    while True:
        with FaultInjector(g._ops, at=at) as fault:
            try:
                g.apply(batch, source="src", destination="dst", op=None)
            except MemoryError:
                pass
        if not fault.fired:
            break
        failures += 1
        assert len(keys) == size, f"failed at operator call {at}: the key table kept new keys"
        assert set(host(g.vertices())) == {"a", "b", "c"}
        at += 3
    assert failures > 3
    assert len(keys) == size + 2
    unreached = np.iinfo(np.int32).max
    assert as_dict(paths.result(), "distance") == {"a": 0, "b": 1, "c": 2, "new2": 3, "new1": unreached}


def test_add_and_remove_vertices_take_keys(backend):
    g = cgs.StreamGraph(backend=backend)
    g.add_vertices(pd.Series(["p", "q"]))
    g.add_vertices(["q", "r"])
    assert sorted(host(g.vertices()).tolist()) == ["p", "q", "r"]
    g.apply(pd.DataFrame({"src": ["p"], "dst": ["q"]}), source="src", destination="dst", op=None)
    paths = g.track(cgs.SSSP(source="p"))
    with pytest.raises(ValueError, match="source of tracked"):
        g.remove_vertices(["p"])
    with pytest.raises(ValueError, match="not in the graph"):
        g.remove_vertices(["zz"])
    g.remove_vertices(["q"])
    assert as_dict(paths.result(), "distance") == {"p": 0.0, "r": np.finfo(np.float32).max}


def test_checkpoint_round_trip_with_string_keys(tmp_path, backend):
    G = nx.les_miserables_graph()
    g = cgs.StreamGraph.from_edgelist(frame_of(G), source="src", destination="dst", weight="w",
                                      directed=False, backend=backend)
    g.track(cgs.SSSP(source="Myriel", mode="incremental"))
    g.track(cgs.WCC(mode="incremental"))
    saved = g.save(tmp_path / "ckpt")
    h = cgs.StreamGraph.load(saved, backend=backend)
    for q, r in zip(g.queries, h.queries):
        pd.testing.assert_frame_equal(host(q.result()), host(r.result()))
    assert h.queries[0].source == "Myriel"
    batch = pd.DataFrame({"src": ["Newcomer"], "dst": ["Myriel"], "w": [0.25]})
    for graph in (g, h):
        graph.apply(batch, source="src", destination="dst", weight="w", op=None)
    pd.testing.assert_frame_equal(host(g.queries[0].result()), host(h.queries[0].result()))
    pd.testing.assert_frame_equal(host(g.edges()), host(h.edges()))


def test_checkpoint_round_trip_with_multi_column_and_int32_keys(tmp_path, backend):
    df = pd.DataFrame({"a": ["x", "y"], "b": np.array([1, 2], dtype=np.int32), "c": ["y", "z"],
                       "d": np.array([2, 3], dtype=np.int32)})
    g = cgs.StreamGraph.from_edgelist(df, source=["a", "b"], destination=["c", "d"], backend=backend)
    g.track(cgs.BFS(source=("x", 1), mode="incremental"))
    h = cgs.StreamGraph.load(g.save(tmp_path / "multi"), backend=backend)
    pd.testing.assert_frame_equal(host(g.queries[0].result()), host(h.queries[0].result()))
    assert h.queries[0].source == ("x", 1)
    narrow = cgs.StreamGraph.from_edgelist({"s": np.array([5], dtype=np.int32), "t": np.array([6], dtype=np.int32)},
                                           source="s", destination="t", backend=backend)
    loaded = cgs.StreamGraph.load(narrow.save(tmp_path / "narrow"), backend=backend)
    assert host(loaded.vertices()).dtype == np.int32


@pytest.mark.gpu
def test_cudf_string_keys_on_the_gpu_equal_the_cpu():
    """cuDF string and two-column keys on the GPU backend (key table in GPU memory)
    give the CPU backend's results, ``changes()`` and edges."""
    cudf = pytest.importorskip("cudf")
    G = nx.les_miserables_graph()
    frame = frame_of(G)
    frame["n"] = np.int32(7)
    for source, destination in (("src", "dst"), (["src", "n"], ["dst", "n"])):
        start = ("Myriel", 7) if isinstance(source, list) else "Myriel"
        graphs = [cgs.StreamGraph.from_edgelist(cudf.from_pandas(frame) if b == "gpu" else frame, source=source,
                                                destination=destination, weight="w", directed=False, backend=b)
                  for b in ("gpu", "cpu")]
        assert graphs[0]._keys.device and not graphs[1]._keys.device
        queries = [g.track(cgs.SSSP(source=start)) for g in graphs]
        batch = pd.DataFrame({"src": ["Myriel", "Newcomer"], "dst": ["Napoleon", "Valjean"], "w": [None, 0.5],
                              "n": np.int32([7, 7]), "op": ["delete", "insert"]})
        for g, b in zip(graphs, ("gpu", "cpu")):
            g.apply(cudf.from_pandas(batch) if b == "gpu" else batch, source=source, destination=destination)
        gpu, cpu = (host(q.result()) for q in queries)
        assert gpu["distance"].tolist() == pytest.approx(cpu["distance"].tolist())
        key = [c for c in cpu.columns if c.endswith("vertex")]
        assert gpu[key].astype(object).values.tolist() == cpu[key].astype(object).values.tolist()
        assert len(host(queries[0].changes())) == len(host(queries[1].changes()))
        if not isinstance(source, list):
            assert edge_set(graphs[0]) == edge_set(graphs[1])
