"""StreamGraph basics: construction, edges()/vertices(), vertex lifecycle,
reports, undirected edge identity, and a memory-bounded sweep."""
import random

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import cugraph_stream as cgs
from reference import CACHE_OPTIONS, Harness, ModelGraph, ScriptedRefreshPolicy, check_edges, host, make_batch

COUNT_FIELDS = ("rows", "inserted", "deleted", "weight_updated", "unchanged", "ignored",
                "cancelled", "new_vertices", "removed_vertices", "invalidated", "activated",
                "edges_scanned")


def apply(g, rows, **kw):
    return g.apply(make_batch(rows, **kw), source="src", destination="dst", weight="weight",
                   op="op")


def ins(u, v, w=1.0):
    return (u, v, 1, w)


def dele(u, v):
    return (u, v, -1, None)


# ------------------------------------------------------------------- empty
@pytest.mark.parametrize("directed", [True, False])
def test_empty_graph(directed, backend):
    g = cgs.StreamGraph(directed=directed, backend=backend)
    assert g.number_of_vertices() == 0 and g.number_of_edges() == 0
    assert g.directed == directed
    assert g.backend == backend
    assert g.weight_dtype == np.dtype("float32")
    e = host(g.edges())             # cuDF frames on the GPU backend when cuDF is installed
    assert isinstance(e, pd.DataFrame) and list(e.columns) == ["source", "destination", "weight"]
    assert len(e) == 0
    assert e["source"].dtype == np.int64 and e["destination"].dtype == np.int64
    v = host(g.vertices())
    assert isinstance(v, pd.Series) and v.name == "vertex" and v.dtype == np.int64 and len(v) == 0
    g.check_consistency()
    wcc = g.track(cgs.WCC())
    pr = g.track(cgs.PageRank())
    assert list(wcc.result().columns) == ["vertex", "labels"] and len(wcc.result()) == 0
    assert list(pr.result().columns) == ["vertex", "pagerank"] and len(pr.result()) == 0
    rep = apply(g, [ins(3, 4)])
    assert rep.inserted == 1 and rep.new_vertices == 2
    assert host(wcc.result())["labels"].tolist() == [3, 3]
    assert np.allclose(host(pr.result())["pagerank"].to_numpy().sum(), 1.0)


@pytest.mark.parametrize("wdt", ["float32", "float64"])
def test_weight_dtype_property(wdt):
    g = cgs.StreamGraph(weight_dtype=wdt)
    assert isinstance(g.weight_dtype, np.dtype) and g.weight_dtype == np.dtype(wdt)
    g2 = cgs.StreamGraph(weight_dtype=np.float64)
    assert g2.weight_dtype == np.dtype("float64")


# ------------------------------------------------------------ from_edgelist
@pytest.mark.parametrize("fmt", ["pandas", "arrow", "dict"])
@pytest.mark.parametrize("directed", [True, False])
def test_from_edgelist(fmt, directed):
    a = np.array([5, -2**63, 2**63 - 1, 5, 7, 7, 5], dtype=np.int64)
    b = np.array([6, 5, 5, 6, 7, 5, 7], dtype=np.int64)
    w = np.array([1.0, 2.0, 3.0, 4.0, 0.0, 6.0, 7.0])
    df = pd.DataFrame({"a": a, "b": b, "w": w})
    data = (df if fmt == "pandas" else pa.Table.from_pandas(df, preserve_index=False)
            if fmt == "arrow" else {"a": a, "b": b, "w": w})
    g = cgs.StreamGraph.from_edgelist(data, source="a", destination="b", weight="w",
                                      directed=directed, weight_dtype="float64")
    m = ModelGraph(directed, "float64")
    m.apply_rows([ins(x, y, z) for x, y, z in zip(a, b, w)])   # later duplicates update
    check_edges(g, m)
    g.check_consistency()
    assert g.directed == directed and g.weight_dtype == np.dtype("float64")
    if not directed:
        # (5, 7) then (7, 5): one edge, the later weight
        assert g.number_of_edges() == 5
        e = g.edges()
        assert e[(e.a == 5) & (e.b == 7)]["w"].tolist() == [7.0]


def test_from_edgelist_without_weight():
    df = pd.DataFrame({"src": [1, 2, 3], "dst": [2, 3, 1], "weight": [5.0, 6.0, 7.0]})
    g = cgs.StreamGraph.from_edgelist(df)
    assert g.edges()["weight"].tolist() == [1.0, 1.0, 1.0]
    assert g.weight_dtype == np.dtype("float32")
    g = cgs.StreamGraph.from_edgelist(df, weight="weight")
    assert g.edges()["weight"].tolist() == [5.0, 6.0, 7.0]


def test_from_edgelist_empty():
    df = pd.DataFrame({"src": np.zeros(0, np.int64), "dst": np.zeros(0, np.int64)})
    g = cgs.StreamGraph.from_edgelist(df)
    assert g.number_of_vertices() == 0 and g.number_of_edges() == 0


# ---------------------------------------------------------------- edges()
@pytest.mark.parametrize("wdt", ["float32", "float64"])
def test_edges_sorted_and_typed(wdt):
    g = cgs.StreamGraph(weight_dtype=wdt)
    rows = [ins(9, 1, 0.1), ins(-5, 3, 2.0), ins(9, -7, 1.0), ins(2**63 - 1, -2**63, 4.0),
            ins(-5, -6, 0.0), ins(3, 3, 1.5)]
    apply(g, rows)
    e = g.edges()
    keys = list(zip(e["src"], e["dst"]))
    assert keys == sorted(keys)
    assert e["src"].dtype == np.int64 and e["dst"].dtype == np.int64
    # the stored weight is the weight-dtype value
    assert e["weight"].dtype in (np.dtype(wdt), np.dtype("float64"))
    m = ModelGraph(True, wdt)
    m.apply_rows(rows)
    check_edges(g, m)
    v = g.vertices()
    assert v.tolist() == sorted({-2**63, -7, -6, -5, 1, 3, 9, 2**63 - 1})
    assert v.name == "vertex" and v.dtype == np.int64


def test_undirected_edge_identity():
    g = cgs.StreamGraph(directed=False, weight_dtype="float64")
    rep = apply(g, [ins(2, 1, 3.0)])
    assert rep.inserted == 1
    assert g.edges().values.tolist() == [[1, 2, 3.0]]
    rep = apply(g, [ins(1, 2, 5.0)])
    assert rep.weight_updated == 1 and rep.inserted == 0
    assert g.number_of_edges() == 1
    assert g.edges().values.tolist() == [[1, 2, 5.0]]
    rep = apply(g, [ins(2, 1, 5.0)])
    assert rep.unchanged == 1
    rep = apply(g, [ins(3, 3, 1.0), ins(4, 3, 1.0), ins(3, 4, 2.0)])
    assert rep.inserted == 2 and rep.new_vertices == 2
    assert g.number_of_edges() == 3
    e = g.edges()
    assert (e["src"] <= e["dst"]).all()
    assert e.values.tolist() == [[1, 2, 5.0], [3, 3, 1.0], [3, 4, 2.0]]
    rep = apply(g, [dele(2, 1), dele(1, 2)])
    assert rep.deleted == 1 and rep.ignored == 1
    assert g.number_of_edges() == 2
    g.check_consistency()


def test_directed_edges_are_distinct():
    g = cgs.StreamGraph(directed=True, weight_dtype="float64")
    rep = apply(g, [ins(1, 2, 1.0), ins(2, 1, 2.0), ins(1, 1, 0.0)])
    assert rep.inserted == 3 and g.number_of_edges() == 3
    apply(g, [dele(2, 1)])
    assert g.edges().values.tolist() == [[1, 1, 0.0], [1, 2, 1.0]]


def test_rows_apply_in_order():
    g = cgs.StreamGraph(weight_dtype="float64")
    rep = apply(g, [ins(1, 2, 5.0), ins(1, 2, 3.0)])
    assert g.edges()["weight"].tolist() == [3.0] and rep.inserted == 1
    rep = apply(g, [dele(1, 2), ins(1, 2, 7.0)])
    assert g.edges()["weight"].tolist() == [7.0] and rep.weight_updated == 1
    rep = apply(g, [ins(1, 2, 1.0), dele(1, 2)])
    assert g.number_of_edges() == 0 and rep.deleted == 1
    rep = apply(g, [dele(1, 2), ins(1, 2, 2.0), dele(1, 2)])
    assert g.number_of_edges() == 0
    assert rep.ignored == 1 and rep.cancelled == 1 and rep.deleted == 0


def test_counts_cancelled_unchanged_ignored():
    g = cgs.StreamGraph(weight_dtype="float64")
    apply(g, [ins(1, 2, 1.0), ins(2, 3, 2.0), ins(3, 4, 3.0)])
    rep = apply(g, [ins(1, 2, 1.0),                 # unchanged
                    ins(2, 3, 9.0), ins(2, 3, 2.0),  # cancelled (changed, then back)
                    dele(3, 4), ins(3, 4, 3.0),      # cancelled
                    ins(5, 6, 1.0), dele(5, 6),      # cancelled, but 5 and 6 now exist
                    dele(7, 8),                      # ignored (unknown vertices)
                    dele(1, 3)])                     # ignored (absent edge)
    assert (rep.rows, rep.inserted, rep.deleted, rep.weight_updated, rep.unchanged,
            rep.ignored, rep.cancelled, rep.new_vertices) == (9, 0, 0, 0, 1, 2, 3, 2)
    assert g.vertices().tolist() == [1, 2, 3, 4, 5, 6]
    g.check_consistency()


# ----------------------------------------------------------- vertex lifecycle
def test_vertex_lifecycle():
    g = cgs.StreamGraph()
    apply(g, [ins(1, 2)])
    apply(g, [dele(1, 2)])
    assert g.vertices().tolist() == [1, 2]       # losing the last edge keeps a vertex
    rep = apply(g, [dele(8, 9), dele(1, 9), dele(9, 1)])
    assert rep.ignored == 3 and rep.new_vertices == 0
    assert g.vertices().tolist() == [1, 2]       # delete rows create nothing
    rep = apply(g, [dele(5, 6), ins(5, 6), dele(5, 6)])
    assert rep.new_vertices == 2 and rep.ignored == 1 and rep.cancelled == 1
    assert g.vertices().tolist() == [1, 2, 5, 6]


def test_add_vertices():
    g = cgs.StreamGraph()
    apply(g, [ins(1, 2)])
    rep = g.add_vertices(np.array([3, 1, 3, -2**63], dtype=np.int64))
    assert rep.new_vertices == 2
    assert g.vertices().tolist() == [-2**63, 1, 2, 3]
    assert g.number_of_edges() == 1
    rep = g.add_vertices([1, 2])
    assert rep.new_vertices == 0
    rep = g.add_vertices(pd.Series([10, 11]))
    assert rep.new_vertices == 2
    g.check_consistency()


def test_remove_vertices():
    for directed in (True, False):
        g = cgs.StreamGraph(directed=directed, weight_dtype="float64")
        apply(g, [ins(1, 2), ins(2, 3), ins(3, 2), ins(4, 2), ins(2, 2), ins(4, 5)])
        rep = g.remove_vertices(np.array([2], dtype=np.int64))
        assert rep.removed_vertices == 1
        assert g.vertices().tolist() == [1, 3, 4, 5]
        assert g.edges()[["src", "dst"]].values.tolist() == [[4, 5]]
        assert g.number_of_edges() == 1
        g.check_consistency()
        rep = g.remove_vertices([1, 5])
        assert rep.removed_vertices == 2
        assert g.number_of_edges() == 0 and g.vertices().tolist() == [3, 4]


def _state(g, qs):
    return (g.edges(), g.vertices(), g.number_of_vertices(), g.number_of_edges(),
            [q.result() for q in qs], [q.changes() for q in qs])


def _same(a, b):
    pd.testing.assert_frame_equal(a[0], b[0])
    pd.testing.assert_series_equal(a[1], b[1])
    assert a[2:4] == b[2:4]
    for x, y in zip(a[4] + a[5], b[4] + b[5]):
        pd.testing.assert_frame_equal(x, y)


def test_remove_vertices_errors_change_nothing():
    g = cgs.StreamGraph(weight_dtype="float64")
    apply(g, [ins(1, 2), ins(2, 3), ins(3, 4)])
    qs = [g.track(cgs.SSSP(source=1)), g.track(cgs.WCC()), g.track(cgs.BFS(source=2))]
    apply(g, [ins(4, 5)])
    before = _state(g, qs)
    with pytest.raises(ValueError):
        g.remove_vertices([99])
    _same(before, _state(g, qs))
    with pytest.raises(ValueError):
        g.remove_vertices([3, 99])         # all-or-nothing: 3 stays
    _same(before, _state(g, qs))
    with pytest.raises(ValueError):
        g.remove_vertices([1])             # a tracked source
    _same(before, _state(g, qs))
    with pytest.raises(ValueError):
        g.remove_vertices([4, 2])          # 2 is a tracked source
    _same(before, _state(g, qs))
    g.check_consistency()


@pytest.mark.parametrize("directed", [True, False])
def test_id_reuse_does_not_leak_old_state(directed, backend):
    rng = random.Random(1)
    ids = list(range(60))
    edges = [(rng.choice(ids), rng.choice(ids), rng.choice([0.0, 1.0, 2.0])) for _ in range(200)]
    h = Harness(cgs, directed=directed, weight_dtype="float64", backend=backend, edges=edges,
                sources={"SSSP": 0, "BFS": 0, "WidestPath": 0})
    # remove well-connected vertices (internal ids get recycled) ...
    gone = [v for v in range(1, 30) if v in h.model.vertices]
    h.remove_vertices(gone)
    # ... then bring some ids back and create new ones: all isolated
    h.add_vertices([5, 6, 7, 1000, 1001, -1000])
    for v in (5, 6, 7, 1000, 1001, -1000):
        assert not any(v in k for k in h.model.edges)
    # delete rows naming removed ids are ignored; edges of removed vertices stay gone
    h.apply([(10, 11, -1, None), (gone[-1], 0, -1, None), (5, 0, -1, None)])
    h.apply([(0, 5, 1, 1.0), (5, 1001, 1, 0.0), (12, 0, 1, 2.0)])
    h.remove_vertices([5, 1001])
    h.add_vertices(list(range(2000, 2040)))
    h.apply([(0, 2000, 1, 1.0), (2000, 2001, 1, 1.0)])


# ----------------------------------------------------------------- reports
def test_report_fields_and_repr():
    g = cgs.StreamGraph(weight_dtype="float64")
    apply(g, [ins(0, 1), ins(1, 2), ins(2, 3)])
    g.track(cgs.SSSP(source=0, mode="incremental"))
    g.track(cgs.WCC(mode="incremental"))
    g.track(cgs.PageRank(mode="incremental"))
    rep = apply(g, [dele(0, 1), ins(0, 2, 5.0), ins(3, 4), dele(7, 8)])
    assert isinstance(rep, cgs.BatchReport)
    for f in COUNT_FIELDS:
        assert int(getattr(rep, f)) >= 0, f
    assert (rep.rows, rep.inserted, rep.deleted, rep.ignored, rep.new_vertices) == (4, 2, 1, 1, 1)
    assert rep.removed_vertices == 0
    assert isinstance(rep.times, dict)
    for k, v in rep.times.items():
        assert isinstance(k, str) and float(v) >= 0.0
    assert float(rep.total_s) >= 0.0
    assert len(rep.queries) == 3
    for qr in rep.queries:
        assert isinstance(qr, cgs.QueryReport)
    d = rep.to_dict()
    assert isinstance(d, dict)
    for f in ("rows", "inserted", "deleted", "weight_updated", "unchanged", "ignored",
              "cancelled", "new_vertices", "removed_vertices"):
        assert d[f] == getattr(rep, f), f
    r = repr(rep)
    assert isinstance(r, str) and "\n" not in r and len(r) > 0
    assert rep.invalidated >= 1 and rep.edges_scanned >= 0
    rep = g.add_vertices([50, 51])
    assert isinstance(rep, cgs.BatchReport) and rep.new_vertices == 2
    rep = g.remove_vertices([50])
    assert isinstance(rep, cgs.BatchReport) and rep.removed_vertices == 1
    assert "\n" not in repr(rep)


def test_a_garbage_collection_inside_a_batch_is_in_its_report(monkeypatch):
    """``gc_s``: the collector's seconds inside the operation (a full collection forced
    inside the store's update), counted in its times and shown by its repr; none
    while the collector is off, and none for a vertex call without one."""
    import gc

    from cugraph_stream.engine.store import GraphStore

    g = cgs.StreamGraph(weight_dtype="float64")
    apply(g, [ins(0, 1), ins(1, 2)])
    g.track(cgs.SSSP(source=0, mode="incremental"))
    store_apply = GraphStore.apply

    def apply_and_collect(self, *args, **kwargs):
        gc.collect()
        return store_apply(self, *args, **kwargs)

    was_enabled = gc.isenabled()
    gc.disable()
    try:
        rep = apply(g, [ins(2, 3), ins(0, 3, 0.5)])
        assert rep.gc_s == 0.0 and " gc=" not in repr(rep)
        monkeypatch.setattr(GraphStore, "apply", apply_and_collect)
        rep = apply(g, [dele(2, 3), ins(3, 4)])
        assert 0.0 < rep.gc_s <= rep.total_s and rep.to_dict()["gc_s"] == rep.gc_s
        assert (" gc=" in repr(rep)) == (rep.gc_s >= 1e-3)
        assert g.add_vertices([9]).gc_s == 0.0
    finally:
        if was_enabled:
            gc.enable()
    assert g.last_report.new_vertices == 1 and host(g.edges()).shape[0] == 4


def test_weight_none_gives_weight_one():
    g = cgs.StreamGraph(weight_dtype="float64")
    batch = pd.DataFrame({"src": [1, 2], "dst": [2, 3], "op": ["insert", "insert"]})
    g.apply(batch)
    assert g.edges()["weight"].tolist() == [1.0, 1.0]
    batch = pd.DataFrame({"src": [1], "dst": [2], "weight": [4.0], "op": ["insert"]})
    rep = g.apply(batch, weight=None)
    assert g.edges()["weight"].tolist() == [1.0, 1.0] and rep.unchanged == 1
    rep = g.apply(batch, weight="weight")
    assert g.edges()["weight"].tolist() == [4.0, 1.0] and rep.weight_updated == 1


def test_default_column_names():
    g = cgs.StreamGraph()
    g.apply(pd.DataFrame({"src": [1], "dst": [2], "op": [1]}))
    g.apply({"src": np.array([2]), "dst": np.array([3]), "op": np.array(["insert"])})
    g.apply(pa.table({"src": [3], "dst": [4], "op": ["INSERT"]}))
    assert g.number_of_edges() == 3


# ------------------------------------------------------------------ sweeps
def _memory(g):
    for name in ("memory_bytes", "memory_usage", "nbytes"):
        if hasattr(g, name):
            val = getattr(g, name)
            return int(val() if callable(val) else val)
    return None


@pytest.mark.parametrize("directed", [True, False])
def test_sweep_same_edges_counts(directed, backend):
    """Insert and delete the same 1000 edges 100 times: counts stay right."""
    rng = np.random.default_rng(0)
    g = cgs.StreamGraph(directed=directed, backend=backend)
    base = pd.DataFrame({"src": rng.integers(0, 500, 2000), "dst": rng.integers(0, 500, 2000),
                         "weight": rng.random(2000), "op": "insert"})
    g.apply(base, weight="weight")
    m = ModelGraph(directed, "float32")
    m.apply_rows(list(zip(base.src, base.dst, [1] * len(base), base.weight)))
    n_base, v_base = m.number_of_edges(), m.number_of_vertices()
    assert g.number_of_edges() == n_base
    keys = set()
    src, dst = [], []
    while len(src) < 1000:
        u, v = int(rng.integers(500, 2000)), int(rng.integers(0, 2000))
        k = (u, v) if directed or u <= v else (v, u)
        if k not in keys:
            keys.add(k)
            src.append(u); dst.append(v)
    ins_b = pd.DataFrame({"src": src, "dst": dst, "weight": 1.0, "op": "insert"})
    del_b = pd.DataFrame({"src": src, "dst": dst, "weight": np.nan, "op": "delete"})
    g.track(cgs.WCC())
    for i in range(100):
        rep = g.apply(ins_b, weight="weight")
        assert rep.inserted == 1000 and g.number_of_edges() == n_base + 1000
        rep = g.apply(del_b, weight="weight")
        assert rep.deleted == 1000 and g.number_of_edges() == n_base
    g.check_consistency()
    n_v = len(set(src) | set(dst) | m.vertices)
    assert g.number_of_vertices() == n_v and v_base <= n_v


def test_sweep_memory_bounded(backend, placement):
    """Insert and delete the same 1000 edges 100 times: memory does not grow."""
    rng = np.random.default_rng(1)
    g = cgs.StreamGraph(backend=backend, placement=placement, **(CACHE_OPTIONS if placement == "cached" else {}))
    if _memory(g) is None:
        pytest.skip("the graph exposes no memory figure")
    src, dst = rng.integers(0, 300, 1000), rng.integers(0, 300, 1000)
    ins_b = pd.DataFrame({"src": src, "dst": dst, "weight": 1.0, "op": "insert"})
    del_b = pd.DataFrame({"src": src, "dst": dst, "op": "delete"})
    for q in (cgs.SSSP(source=int(src[0])), cgs.WCC(), cgs.PageRank()):
        if isinstance(q, cgs.SSSP):
            g.apply(ins_b.iloc[:1], weight="weight")
        g.track(q)
    mem = []
    for i in range(100):
        g.apply(ins_b, weight="weight")
        g.apply(del_b)
        mem.append(_memory(g))
    assert g.number_of_edges() == 0
    assert mem[-1] <= 1.25 * max(mem[:5]) + 65536, f"memory grew: {mem[:3]} ... {mem[-3:]}"


# --------------------------------------------------------------- placement
def test_placement_is_validated_and_reported():
    assert cgs.StreamGraph().placement == "device"
    assert cgs.StreamGraph(placement="host").placement == "host"      # host memory either way on the CPU
    for bad in ("cached", "gpu", None):
        with pytest.raises(ValueError, match="placement"):
            cgs.StreamGraph(placement=bad)
    assert "placement='device'" in repr(cgs.StreamGraph())


@pytest.mark.gpu
def test_host_placement_keeps_the_adjacency_in_pinned_host_memory():
    from cugraph_stream.backends import available_backends

    if available_backends()["gpu"]:
        pytest.skip(available_backends()["gpu"])
    import cupy

    edges = pd.DataFrame({"src": [0, 1, 2, 5], "dst": [1, 2, 0, 0], "w": [1.0, 2.0, 3.0, 4.0]})
    g = cgs.StreamGraph.from_edgelist(edges, weight="w", backend="gpu", placement="host")
    q = g.track(cgs.SSSP(source=0))
    apply(g, [ins(0, 2, 0.5), dele(0, 1)])
    store = g._store
    runtime = cupy.cuda.runtime

    def memory_type(array):
        return runtime.pointerGetAttributes(array.data.ptr).type

    host, device = getattr(runtime, "memoryTypeHost", 1), getattr(runtime, "memoryTypeDevice", 2)
    for array in (store.out.nbr, store.out.wgt, store.out.twin, store.inn.nbr, store.index.table):
        assert memory_type(array) == host and array.data.ptr % 4096 == 0
    assert memory_type(store.out.degree) == device and memory_type(q.engine.value) == device
    result = q.result()
    result = result.to_pandas() if hasattr(result, "to_pandas") else result
    unreachable = float(np.finfo(g.weight_dtype).max)          # float64: the weights' own dtype
    assert g.weight_dtype == np.float64
    assert result["distance"].tolist() == [0.0, unreachable, 0.5, unreachable]


def test_host_placement_reports_what_the_queries_read_from_host_memory(backend):
    edges = pd.DataFrame({"src": [0, 1, 2, 0], "dst": [1, 2, 3, 3], "w": [1.0, 1.0, 1.0, 10.0]})
    g = cgs.StreamGraph.from_edgelist(edges, weight="w", backend=backend, placement="host")
    g.track(cgs.SSSP(source=0, mode="incremental"))
    report = apply(g, [dele(1, 2)])
    # 2 and 3 are invalidated: their out-lists are scanned for children (3's
    # is empty; 2's holds one entry, neighbours only: one 64-byte
    # transaction), their in-lists re-seed them (2's is empty; 3's holds 2
    # and 0, neighbours and weights: two transactions); 3 then pushes along
    # its empty out-list.
    assert (report.host_edges_read, report.host_bytes) == (3, 3 * 64)
    assert report.edges_scanned >= report.host_edges_read
    assert (report.device_memory_bytes > 0) == (backend == "gpu")
    # a second query's reads are its own; the batch's figures are the sums
    g.track(cgs.BFS(source=0, mode="incremental"))
    report = apply(g, [dele(0, 3)])
    sssp, bfs = report.queries
    assert sssp.host_bytes > 0 and bfs.host_bytes > 0
    assert report.host_bytes == sssp.host_bytes + bfs.host_bytes
    assert report.host_edges_read == sssp.host_edges_read + bfs.host_edges_read


def test_device_placement_reads_nothing_from_host_memory():
    g = cgs.StreamGraph.from_edgelist(pd.DataFrame({"src": [0, 1], "dst": [1, 2]}))
    g.track(cgs.BFS(source=0, mode="incremental"))
    report = apply(g, [dele(0, 1)])
    assert report.edges_scanned > 0 and (report.host_edges_read, report.host_bytes) == (0, 0)


def _random_rows(rng, n, count):
    return [(int(rng.integers(0, n)), int(rng.integers(0, n)), 1 if rng.random() < 0.5 else -1,
             float(rng.uniform(1, 5))) for _ in range(count)]


def test_cached_placement_serves_hot_lists_from_the_cache(backend):
    rng = np.random.default_rng(3)
    n = 300
    edges = pd.DataFrame({"src": rng.integers(0, n, 3000), "dst": rng.integers(0, n, 3000),
                          "w": rng.uniform(1, 5, 3000)})
    graphs = {placement: cgs.StreamGraph.from_edgelist(edges, weight="w", backend=backend, placement=placement,
                                                      **({"cache_budget": 32768, "chunk_bytes": 4096}
                                                         if placement == "cached" else {}))
              for placement in ("host", "cached")}
    queries = {p: (g.track(cgs.SSSP(source=int(edges.src[0]), mode="incremental")), g.track(cgs.PageRank(mode="incremental")))
               for p, g in graphs.items()}
    # a full refresh every batch, whatever the policy would measure (tests/engine/test_cache_policy.py tests it)
    graphs["cached"]._store.refresh_policy = ScriptedRefreshPolicy(("full",))
    reports = {p: [] for p in graphs}
    for _ in range(6):
        rows = _random_rows(rng, n, 60)
        for p, g in graphs.items():
            reports[p].append(g.apply(make_batch(rows), weight="weight"))
        graphs["cached"]._store.check_cache()
        for a, b in zip(*queries.values()):
            pd.testing.assert_frame_equal(host(a.result()), host(b.result()))
    last = reports["cached"][-1]
    assert last.cache_hits > 0 and 0 < last.cache_hit_ratio <= 1 and "cache" in last.times
    assert all(r.cache_hits == 0 and "cache" not in r.times for r in reports["host"])
    # the same lists are read either way; the cache serves some of them
    for cached, plain in zip(reports["cached"], reports["host"]):
        assert cached.edges_scanned == plain.edges_scanned
        assert cached.host_edges_read + cached.cache_hits == plain.host_edges_read


def test_cached_and_auto_placements_need_their_budgets():
    with pytest.raises(ValueError, match="cache_budget"):
        cgs.StreamGraph(placement="cached")
    with pytest.raises(ValueError, match="device_memory_budget"):
        cgs.StreamGraph(placement="auto")
    with pytest.raises(ValueError, match="cache_budget"):
        cgs.StreamGraph(placement="cached", cache_budget=-1)


def test_auto_placement_keeps_a_graph_that_fits_on_the_device(backend):
    edges = pd.DataFrame({"src": np.arange(1000), "dst": np.arange(1, 1001)})
    fits = cgs.StreamGraph.from_edgelist(edges, backend=backend, placement="auto", device_memory_budget=10**9)
    tight = cgs.StreamGraph.from_edgelist(edges, backend=backend, placement="auto", device_memory_budget=250_000)
    tiny = cgs.StreamGraph.from_edgelist(edges, backend=backend, placement="auto", device_memory_budget=1000)
    assert (fits.placement, tight.placement, tiny.placement) == ("device", "cached", "host")
    assert cgs.StreamGraph(placement="auto", device_memory_budget=0).placement == "device"
    for g in (fits, tight, tiny):
        assert g.number_of_edges() == 1000


@pytest.mark.parametrize("batch, match", [
    ({"src": [1, 2], "dst": [2, None], "w": [1.0, 1.0], "op": [1, 1]}, "column 'dst'"),
    ({"src": [1, 2], "dst": [2, 3], "w": [1.0, -2.0], "op": [1, 1]}, "negative weight -2.0 at row 1"),
    ({"src": [1], "dst": [2], "w": [1.0], "op": ["upsert"]}, "column 'op'"),
])
def test_validate_raises_what_apply_raises_and_changes_nothing(batch, match):
    g = cgs.StreamGraph.from_edgelist(pd.DataFrame({"src": [1], "dst": [2], "w": [0.5]}), weight="w")
    g.track(cgs.SSSP(1))
    before = g.edges()
    frame = pd.DataFrame(batch)
    with pytest.raises(ValueError, match=match):
        g.validate(frame, weight="w")
    with pytest.raises(ValueError, match=match):
        g.apply(frame, weight="w")
    assert g.edges().equals(before)
    assert g.validate(pd.DataFrame({"src": [1], "dst": [3], "w": [2.0], "op": [1]}), weight="w") is None
    assert g.edges().equals(before)                 # validating applies nothing


def test_a_dropped_graph_is_freed_at_once_and_its_queries_keep_their_results():
    # no reference cycle between a graph and its queries: dropping the graph frees it
    # without waiting for the cycle collector (graphs rebuilt in a loop would pile up)
    import gc
    import weakref
    gc.disable()
    try:
        g = cgs.StreamGraph.from_edgelist(pd.DataFrame({"src": [0, 1], "dst": [1, 2]}))
        q = g.track(cgs.BFS(source=0))
        assert q.graph is g
        gone = weakref.ref(g)
        del g
        assert gone() is None and q.graph is None
        assert q.result()["distance"].tolist() == [0, 1, 2]      # the last committed state
    finally:
        gc.enable()


def test_from_edgelist_shows_a_progress_bar_of_the_load_phases(capsys, monkeypatch):
    pytest.importorskip("tqdm")
    import cugraph_stream.graph as graph_module
    edges = pd.DataFrame({"source": [0, 1, 2], "destination": [1, 2, 3]})
    cgs.StreamGraph.from_edgelist(edges, progress=True)
    bar = capsys.readouterr().err
    assert "loading 3 edges" in bar and "3/3" in bar and "reduce" in bar
    cgs.StreamGraph.from_edgelist(edges)                          # below LOAD_PROGRESS_ROWS: none
    cgs.StreamGraph.from_edgelist(edges, progress=False)
    assert capsys.readouterr().err == ""
    monkeypatch.setattr(graph_module, "LOAD_PROGRESS_ROWS", 3)
    clicks = edges.assign(ts=[1, 2, 30])                          # a window adds its own phase
    g = cgs.StreamGraph.from_edgelist(clicks, time="ts", window=10)
    assert "3/3" in capsys.readouterr().err and g.last_report.expired == 2
    g.apply(pd.DataFrame({"source": [5], "destination": [6], "op": ["insert"], "ts": [31]}))
    assert capsys.readouterr().err == ""                          # batches: no bar
