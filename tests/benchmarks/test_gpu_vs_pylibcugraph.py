"""``python -m benchmarks.gpu_vs_pylibcugraph`` without a GPU: its arguments, the
stream it draws (NumPy stand-ins for CuPy), its figures and cross-checks, the
whole run on the CPU engine, and the baseline's wiring against a stand-in for
pylibcugraph built on SciPy (it follows pylibcugraph's signatures and its
checks of ``renumber=False`` graphs; the real one runs in the GPU test)."""
import json
from types import SimpleNamespace

import numpy as np
import pytest
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components, dijkstra

from benchmarks import gpu_vs_pylibcugraph as bench
from benchmarks.pylibcugraph_baseline import VARIANTS, PylibcugraphBaseline, int32_fits
from cugraph_stream.verify import pagerank_operator, reference_pagerank

ALL_VARIANTS = set(VARIANTS)
TINY = ["--backend", "cpu", "--scale", "9", "--edge-factor", "8", "--batches", "3", "--batch-size", "60",
        "--ingest-rows", "500"]


# ---------------------------------------------------------------------------
# a stand-in for pylibcugraph (NumPy arrays, SciPy algorithms)
# ---------------------------------------------------------------------------

class FakeGraph:
    def __init__(self, src, dst, w, vertices, renumber, transposed, symmetric):
        if renumber:
            ids = np.unique(np.concatenate([a for a in (vertices, src, dst) if a is not None]))
            self.internal = lambda a: np.searchsorted(ids, a)
        else:
            # pylibcugraph widens mixed dtypes to int64 with a warning: the int32 variant must not mix them
            assert src.dtype == dst.dtype and (vertices is None or vertices.dtype == src.dtype)
            n = int(vertices.size) if vertices is not None else int(max(src.max(), dst.max())) + 1
            if vertices is not None and not np.array_equal(vertices, np.arange(n)):
                raise ValueError("Vertex list must be numbered consecutively from 0 when 'renumber' is 'false'")
            ids = np.arange(n, dtype=src.dtype)
            self.internal = lambda a: np.asarray(a)
        self.ids, self.dtype = ids, src.dtype
        n = ids.size
        u, v = self.internal(src), self.internal(dst)
        self.csr = csr_matrix((np.ones(u.size) if w is None else w.astype(np.float64), (u, v)), shape=(n, n))
        self.src, self.dst, self.n = u, v, n
        self.renumber, self.transposed, self.symmetric = renumber, transposed, symmetric
        # results come in no particular order where pylibcugraph renumbers
        self.order = np.random.default_rng(0).permutation(n) if renumber else np.arange(n)


class FakePlc:
    """The pylibcugraph calls the baseline makes, with pylibcugraph's signatures."""

    __version__ = "fake"

    def __init__(self, fault=None):
        self.fault = fault
        self.graphs = []

    def ResourceHandle(self, handle=None):  # pylibcugraph's class names
        return object()

    def GraphProperties(self, is_symmetric=False, is_multigraph=False):
        return SimpleNamespace(is_symmetric=is_symmetric, is_multigraph=is_multigraph)

    def SGGraph(self, resource_handle, graph_properties, src_or_offset_array, dst_or_index_array,
                weight_array=None, store_transposed=False, renumber=False, do_expensive_check=False,
                vertices_array=None):
        g = FakeGraph(src_or_offset_array, dst_or_index_array, weight_array, vertices_array, renumber,
                      store_transposed, graph_properties.is_symmetric)
        self.graphs.append(g)
        return g

    def _out(self, g, values):
        return g.ids[g.order], values[g.order]

    def sssp(self, resource_handle, graph, source, cutoff, compute_predecessors, do_expensive_check):
        d = dijkstra(graph.csr, directed=True, indices=int(graph.internal(np.asarray([source]))[0]))
        d = np.where(np.isinf(d), np.finfo(np.float32).max, d).astype(np.float32)
        if self.fault == "sssp":
            d[np.flatnonzero(d < 1e30)[-1]] += 1.0
        v, d = self._out(graph, d)
        return v, d, np.full(v.size, -1, graph.dtype)

    def bfs(self, handle, graph, sources, direction_optimizing, depth_limit, compute_predecessors,
            do_expensive_check):
        assert sources.dtype == graph.dtype
        d = dijkstra(graph.csr, directed=True, indices=int(graph.internal(sources)[0]), unweighted=True)
        levels = np.full(d.size, np.iinfo(graph.dtype).max, graph.dtype)
        levels[np.isfinite(d)] = d[np.isfinite(d)]
        v, d = self._out(graph, levels)
        return d, np.full(v.size, -1, graph.dtype), v

    def weakly_connected_components(self, resource_handle, graph, offsets, indices, weights, labels,
                                    do_expensive_check):
        assert graph.symmetric
        _, comp = connected_components(graph.csr, directed=True, connection="weak")
        if self.fault == "wcc":       # a vertex of the largest component alone
            comp[np.flatnonzero(comp == np.bincount(comp).argmax())[0]] = comp.max() + 1
        return self._out(graph, comp.astype(graph.dtype))

    def pagerank(self, resource_handle, graph, precomputed_vertex_out_weight_vertices,
                 precomputed_vertex_out_weight_sums, initial_guess_vertices, initial_guess_values, alpha,
                 epsilon, max_iterations, do_expensive_check, fail_on_nonconvergence=True):
        assert graph.transposed
        if initial_guess_vertices is not None:
            assert initial_guess_vertices.dtype == graph.dtype
            assert np.all(initial_guess_vertices < graph.n if not graph.renumber
                          else np.isin(initial_guess_vertices, graph.ids))
        # (within epsilon in L1, so that looser epsilons are measurably less accurate)
        ranks = reference_pagerank(pagerank_operator(graph.src, graph.dst, graph.n), alpha, tol=epsilon)["pagerank"]
        return self._out(graph, ranks.astype(np.float32))


# ---------------------------------------------------------------------------
# arguments
# ---------------------------------------------------------------------------

def test_arguments_and_the_queries_of_each_mode():
    args = bench.parse_args([])
    assert (args.scale, args.batches, args.batch_size, args.latency, args.sweep) == (22, 10, 10000, 0, None)
    assert (args.weights, args.source, args.sweep_batches, args.backend) == ("real", "hub", 3, "gpu")
    assert bench.mode_queries(args, "batches") == ["sssp", "bfs", "wcc", "pagerank"]
    assert bench.mode_queries(args, "latency") == ["sssp"]
    args = bench.parse_args(["--queries", "wcc,SSSP,wcc", "--sweep", "1,10,1_000", "--latency", "1000",
                             "--weights", "integer", "--source", "random"])
    assert bench.mode_queries(args, "latency") == bench.mode_queries(args, "sweep") == ["wcc", "sssp"]
    assert args.sweep == [1, 10, 1000] and args.latency == 1000
    assert bench.parse_args([]).baseline_variants == list(VARIANTS)
    assert bench.parse_args(["--baseline-variants", "int64-renumbered,int32"]).baseline_variants == [
        "int32", "int64-renumbered"]
    args = bench.parse_args(["--stop", "change", "--plc-epsilons", "1e-6,5e-7,1e-6"])
    assert args.stop == "change" and args.plc_epsilons == [1e-6, 5e-7]
    assert bench.parse_args([]).stop == "error" and bench.parse_args([]).plc_epsilons is None
    for bad in (["--queries", "sssp,pr"], ["--sweep", "0,10"], ["--sweep", "x"], ["--weights", "int"],
                ["--source", "max"], ["--latency", "-1"], ["--batch-size", "0"], ["--skip", "latency"],
                ["--baseline-variants", "int16"], ["--stop", "iterations"], ["--plc-epsilons", "0,1e-6"],
                ["--plc-epsilons", "small"]):
        with pytest.raises(SystemExit):
            bench.parse_args(bad)


def test_help_documents_the_modes(capsys):
    with pytest.raises(SystemExit):
        bench.parse_args(["--help"])
    out = capsys.readouterr().out
    for flag in ("--latency", "--sweep", "--weights", "--source", "--no-baseline", "int64-renumbered"):
        assert flag in out


# ---------------------------------------------------------------------------
# the stream
# ---------------------------------------------------------------------------

def _edges(m=2000, bound=256, seed=0):
    rng = np.random.default_rng(seed)
    keys = np.unique(rng.integers(0, bound * bound, 3 * m))
    keys = keys[(keys // bound) != (keys % bound)][:m]
    return {"src": keys // bound, "dst": keys % bound,
            "weight": rng.uniform(1, 64, keys.size).astype(np.float32)}, bound


def _check_snapshots(stream, batches, masks, seens):
    """Replaying the batches on a set of edges gives each mask; vertices only grow."""
    edges = {(int(s), int(d)) for s, d, p in zip(stream.src, stream.dst, stream.initial_mask) if p}
    vertices = {v for e in edges for v in e}
    for batch, mask, seen in zip(batches, masks, seens):
        keys = list(zip(batch["src"].tolist(), batch["dst"].tolist()))
        assert len(set(keys)) == len(keys)                       # distinct rows
        for key, op in zip(keys, batch["op"].tolist()):
            assert (key in edges) == (op == -1)                   # deletes of present, inserts of absent edges
            (edges.discard if op == -1 else edges.add)(key)
            if op == 1:
                vertices.update(key)
        src, dst, w, vs = stream.snapshot(mask, seen)
        assert set(zip(src.tolist(), dst.tolist())) == edges and src.size == len(edges)
        assert vs.tolist() == sorted(vertices) and vs.dtype == np.int64
        assert np.array_equal(w, stream.w[:mask.size][mask])


def test_grapin_stream_holds_out_the_inserts_and_keeps_snapshots_apart_from_the_engine():
    edges, bound = _edges()
    stream = bench.Stream.grapin(np, edges, 4, 50, seed=3, id_bound=bound)
    assert stream.initial["src"].size == edges["src"].size - 100
    ops = np.concatenate([b["op"] for b in stream.batches])
    assert (ops == 1).sum() == (ops == -1).sum() == 100
    _check_snapshots(stream, stream.batches, stream.masks, stream.seens)
    _, initial, batches, masks = bench.make_stream(np, edges, 4, 50, 3)   # the older interface
    assert np.array_equal(initial["src"], stream.initial["src"]) and len(masks) == len(batches) == 4
    integer = bench.Stream.grapin(np, edges, 4, 50, seed=3, weights="integer", id_bound=bound)
    assert np.array_equal(integer.row_index, stream.row_index)                # same rows, other weights
    assert set(np.unique(integer.w).tolist()) <= set(range(1, 65)) and integer.w.dtype == np.float32
    with pytest.raises(ValueError, match="distinct edges"):
        bench.Stream.grapin(np, edges, 100, 100, seed=3)


@pytest.mark.parametrize("sizes", [[1, 1, 3, 7], [10, 1000, 5000]])
def test_drawn_batches_outgrow_the_pool_with_new_random_edges(sizes):
    edges, bound = _edges(m=1500)
    stream = bench.Stream.grapin(np, edges, 2, 40, seed=5, id_bound=bound)
    pool = stream.src.size
    points = bench.draw_sweep(stream, sizes, 2)
    batches = [b for _, drawn in points for b, _, _ in drawn]
    assert [b["src"].size for b in batches] == [s for s in sizes for _ in range(2)]
    _check_snapshots(stream, batches, [m for _, d in points for _, m, _ in d], [s for _, d in points for _, _, s in d])
    keys = stream.src * bound + stream.dst
    assert np.unique(keys).size == keys.size and (stream.src != stream.dst).all()
    assert (stream.src.size > pool) == (max(sizes) > 1000) and stream.src.max() < bound
    one_row_ops = [int(b["op"][0]) for b in batches if b["src"].size == 1]
    assert set(one_row_ops) <= {-1, 1}


def test_sample_distinct_draws_distinct_values_in_range():
    rng = np.random.RandomState(0)
    for n, k in ((10, 10), (10, 3), (1_000_000, 1000), (5, 0)):
        x = bench.sample_distinct(np, rng, n, k)
        assert x.size == k and np.unique(x).size == k and (x.size == 0 or (x.min() >= 0 and x.max() < n))
    big = bench.sample_distinct(np, rng, 1_000_000, 1000)
    assert not np.all(np.diff(big) > 0)          # random order, not sorted
    with pytest.raises(ValueError):
        bench.sample_distinct(np, rng, 3, 4)


def test_single_rows_come_from_the_stream_or_are_drawn():
    edges, bound = _edges()
    stream = bench.Stream.grapin(np, edges, 2, 50, seed=1, id_bound=bound)
    rows, mask, seen = stream.single_rows(30)
    assert np.array_equal(rows["src"], stream.batches[0]["src"][:30]) and rows["op"].dtype == np.int8
    rows, mask, seen = stream.single_rows(500)              # more than the stream's 100 rows
    assert rows["src"].size == 500
    _check_snapshots(stream, [rows], [mask], [seen])


def test_sources():
    src = np.array([3, 3, 3, 5, 7, 7])
    assert bench.pick_source(np, src, "hub", 0) == (3, 3)
    picks = {bench.pick_source(np, src, "random", s)[0] for s in range(20)}
    assert picks == {3, 5, 7}
    assert bench.pick_source(np, src, "random", 4) == bench.pick_source(np, src, "random", 4)


# ---------------------------------------------------------------------------
# figures and checks
# ---------------------------------------------------------------------------

def test_latency_summary_percentiles_and_rate():
    s = bench.latency_summary([0.001] * 98 + [0.002, 0.010])
    assert s["batches"] == 100 and s["p50_ms"] == pytest.approx(1.0) and s["max_ms"] == pytest.approx(10.0)
    assert s["p99_ms"] == pytest.approx(np.percentile([1.0] * 98 + [2.0, 10.0], 99))
    assert s["mean_ms"] == pytest.approx(1.1) and s["updates_per_s"] == pytest.approx(100 / 0.110)
    assert bench.latency_summary([])["p50_ms"] is None


def test_summary_divides_the_fastest_baseline_by_the_engine():
    rows = [{"rows": 10, "apply_s": 0.010, "syncs": 2, "launches": None,
             "baselines": {"int32": {"algo_s": 0.050, "graph_s": 0.1},
                           "int64-renumbered": {"algo_s": 0.100, "graph_s": 0.2}}},
            {"rows": 10, "apply_s": 0.030, "syncs": 4, "launches": None,
             "baselines": {"int32": {"algo_s": 0.150, "graph_s": 0.1},
                           "int64-renumbered": {"algo_s": 0.060, "graph_s": 0.2}}}]
    s = bench.summarise(rows)
    assert s["fastest_baseline"] == "int64-renumbered" and s["mean_baseline_ms"] == pytest.approx(80.0)
    assert s["ratio"] == pytest.approx(80.0 / 20.0) and s["updates_per_s"] == pytest.approx(20 / 0.04)
    assert s["mean_syncs"] == 3 and s["mean_launches"] is None
    assert bench.summarise([{"rows": 1, "apply_s": 0.001}])["ratio"] is None


def test_equal_error_takes_the_fastest_baseline_at_least_as_accurate_as_the_engine():
    keys = {"int32": "int32", "tight": bench.baseline_key("int32", 2.5e-7, 1e-6),
            "tighter": bench.baseline_key("int64-renumbered", 1e-7, 1e-6)}
    assert keys["tight"] == "int32 epsilon=2.5e-07"

    def row(engine_error, **baselines):
        return {"rows": 10, "apply_s": 0.004, "engine_l1_error": engine_error,
                "baselines": {keys[k]: {"algo_s": t, "graph_s": 0.1, "l1_error": e}
                              for k, (t, e) in baselines.items()}}

    rows = [row(2e-8, int32=(0.002, 6e-8), tight=(0.003, 2.5e-8), tighter=(0.005, 1e-8)),
            row(4e-8, int32=(0.002, 7e-8), tight=(0.003, 3.5e-8), tighter=(0.005, 1e-8))]
    s = bench.summarise(rows)
    # the plain ratio stays at --tol; at equal error: the tight run (mean 3e-8 <= the engine's 3e-8)
    assert s["fastest_baseline"] == "int32" and s["ratio"] == pytest.approx(0.5)
    assert s["equal_error_baseline"] == keys["tight"] and s["equal_error_ratio"] == pytest.approx(0.75)
    assert bench.equal_error_baseline(s["baselines"], 1e-9) is None
    assert bench.equal_error_baseline(s["baselines"], None) is None
    assert bench.summarise([{"rows": 1, "apply_s": 0.001}])["equal_error_ratio"] is None


def _frame(**columns):
    import pandas as pd

    return pd.DataFrame(columns)


@pytest.mark.parametrize("kind", ["sssp", "bfs", "wcc", "pagerank"])
def test_cross_check_accepts_equal_results_and_catches_differences(kind):
    vertices = np.array([2, 5, 9, 11])
    column = {"sssp": "distance", "bfs": "distance", "wcc": "labels", "pagerank": "pagerank"}[kind]
    values = {"sssp": np.array([0.0, 1.5, 3.0, np.finfo(np.float32).max], np.float32),
              "bfs": np.array([0, 1, 2, np.iinfo(np.int32).max], np.int32),
              "wcc": np.array([2, 2, 9, 9]), "pagerank": np.array([0.1, 0.2, 0.3, 0.4])}[kind]
    engine = _frame(vertex=vertices, **{column: values})
    order = np.array([3, 1, 0, 2])                          # pylibcugraph's rows in another order
    base_values = {"wcc": np.array([5, 5, 11, 11])}.get(kind, values)
    base = {"vertex": vertices[order], column: base_values[order]}
    assert bench.cross_check(np, kind, engine, vertices, base, 1e-6) is None
    wrong = base_values.copy()
    wrong[{"wcc": 2}.get(kind, 1)] = {"wcc": 5, "pagerank": 0.25}.get(kind, 2)
    assert bench.cross_check(np, kind, engine, vertices, {**base, column: wrong[order]}, 1e-6)
    assert "vertex sets differ" in bench.cross_check(np, kind, engine, np.array([2, 5, 9, 12]), base, 1e-6)
    short = {k: v[:3] for k, v in base.items()}
    assert "pylibcugraph returned 3 vertices" in bench.cross_check(np, kind, engine, vertices, short, 1e-6)


def test_int32_limits():
    assert int32_fits(2**22, 2**26) and not int32_fits(2**31, 10) and not int32_fits(10, 2**30)


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_baseline_variants_hand_pylibcugraph_the_right_graph(variant):
    plc = FakePlc()
    base = PylibcugraphBaseline(plc, np, variant=variant)
    src, dst = np.array([10, 10, 20, 40]), np.array([20, 30, 30, 10])
    w = np.array([1.0, 5.0, 2.0, 1.0], np.float32)
    vertices = np.array([10, 20, 30, 40, 77])               # 77 is isolated
    result, t = base.run("sssp", src, dst, w, 10, vertices)
    g = plc.graphs[-1]
    assert g.renumber == (variant != "int32")
    assert g.dtype == (np.int32 if variant.startswith("int32") else np.int64)
    order = np.argsort(result["vertex"])
    assert result["vertex"][order].tolist() == vertices.tolist() and t >= 0 and base.last_graph_s >= 0
    assert result["distance"][order][:3].tolist() == [0.0, 1.0, 3.0]
    result, _ = base.run("pagerank", src, dst, w, 10, vertices)
    assert sorted(result["vertex"].tolist()) == vertices.tolist()
    grown = np.array([5, 10, 20, 30, 40, 77])               # a new vertex shifts the numbers: the warm start follows
    result, _ = base.run("pagerank", np.append(src, 5), np.append(dst, 10), np.append(w, 1.0), 10, grown)
    assert sorted(result["vertex"].tolist()) == grown.tolist()
    result, _ = base.run("wcc", src, dst, None, 10, vertices)
    assert plc.graphs[-1].symmetric and result["labels"].size == 5


# ---------------------------------------------------------------------------
# whole runs
# ---------------------------------------------------------------------------

def _run(tmp_path, *extra, baseline=None):
    out = tmp_path / "out.json"
    status = bench.main([*TINY, "--out", str(out), *extra], baseline_module=baseline)
    with open(out) as f:
        return status, json.load(f)


def test_a_cpu_run_of_every_mode_writes_its_figures(tmp_path, capsys):
    status, data = _run(tmp_path, "--latency", "40", "--latency-warmup", "3", "--sweep", "1,100,3000",
                        "--sweep-batches", "2", "--queries", "sssp,wcc")
    assert status == 0 and data["ok"] and data["failures"] == []
    assert set(data["queries"]) == {"sssp", "wcc"} and data["baseline_variants"] == []
    row = data["queries"]["sssp"]["batches"][0]
    assert {"apply_s", "syncs", "launches", "report", "baselines"} <= set(row) and row["rows"] == 60
    assert row["syncs"] == row["report"].get("syncs")            # null until BatchReport counts them
    lat = data["latency"]["sssp"]
    s = lat["summary"]
    assert s["batches"] == 40 and lat["warmup"] == 3 and s["p99_ms"] >= s["p50_ms"] > 0
    assert s["updates_per_s"] > 0 and len(lat["batches"]) == 40 and not s["checked"]
    assert {"apply_s", "syncs", "launches", "op"} <= set(lat["batches"][0])
    points = data["sweep"]["wcc"]
    assert [p["rows"] for p in points] == [1, 100, 3000] and all(len(p["batches"]) == 2 for p in points)
    ingest = data["ingest"]
    assert ingest["rows"] == 500 and ingest["first_seconds"] > 0 and data["source"]["out_degree"] > 0
    assert len(ingest["seconds_all"]) == 5 and ingest["seconds"] == float(np.median(ingest["seconds_all"]))
    assert ingest["pool_growth_bytes"] == [None] * 5          # (no memory pools on the CPU)
    out = capsys.readouterr().out
    assert "| sssp |" in out and "Latency mode" in out and "Batch-size sweep" in out and "Ingest" in out


def test_no_reference_without_a_reference_tol(tmp_path):
    status, data = _run(tmp_path, "--queries", "pagerank", "--ingest-rows", "0", "--reference-tol", "0",
                        "--baseline-variants", "int32", baseline=FakePlc())
    assert status == 0 and data["queries"]["pagerank"]["summary"]["engine_mean_l1_error"] is None
    assert all("l1_error" not in r["baselines"]["int32"] for r in data["queries"]["pagerank"]["batches"])


def test_integer_weights_and_a_random_source(tmp_path):
    status, data = _run(tmp_path, "--weights", "integer", "--source", "random", "--queries", "sssp",
                        "--ingest-rows", "0", "--baseline-variants", "int32", baseline=FakePlc())
    assert status == 0 and "ingest" not in data and data["baseline_variants"] == ["int32"]
    assert all(set(r["baselines"]) == {"int32"} for r in data["queries"]["sssp"]["batches"])
    assert data["source"]["mode"] == "random" and data["config"]["weights"] == "integer"


def test_the_baseline_runs_both_variants_on_every_snapshot_and_the_ratio_uses_the_faster(tmp_path, capsys):
    status, data = _run(tmp_path, "--latency", "20", "--sweep", "1,300", "--sweep-batches", "2",
                        baseline=FakePlc())
    assert status == 0, data["failures"]
    assert data["baseline_variants"] == list(VARIANTS)
    for q in data["queries"].values():
        assert all(set(r["baselines"]) == ALL_VARIANTS for r in q["batches"])
        s = q["summary"]
        fastest = min(s["baselines"], key=lambda v: s["baselines"][v]["mean_ms"])
        assert s["fastest_baseline"] == fastest
        assert s["ratio"] == pytest.approx(s["baselines"][fastest]["mean_ms"] / s["mean_apply_ms"])
        # the same batches back to back on a second graph (its results checked against the first's)
        seconds = q["back_to_back_s"]
        assert len(seconds) == len(q["batches"]) and all(t > 0 for t in seconds)
        b = s["back_to_back"]
        assert b["mean_apply_ms"] == pytest.approx(1e3 * np.mean(seconds))
        assert b["ratio"] == pytest.approx(s["baselines"][fastest]["mean_ms"] / b["mean_apply_ms"])
    assert data["latency"]["sssp"]["summary"]["checked"]
    assert set(data["latency"]["sssp"]["final_baselines"]) == ALL_VARIANTS
    assert all(p["summary"]["ratio"] > 0 for p in data["sweep"]["pagerank"])
    # PageRank's true errors, against a reference within 1e-10 that followed the same batches:
    # the engine's and the stand-in's within their bounds
    for row in data["queries"]["pagerank"]["batches"]:
        assert 0 < row["engine_l1_error"] <= 1e-6 + 1e-10
        assert all(0 <= x["l1_error"] < 1e-6 for x in row["baselines"].values())
    s = data["queries"]["pagerank"]["summary"]
    assert s["engine_mean_l1_error"] > 0 and all(b["mean_l1_error"] is not None for b in s["baselines"].values())
    assert "engine_l1_error" not in data["queries"]["sssp"]["batches"][0]
    out = capsys.readouterr().out
    assert "MISMATCH" not in out and "pagerank: mean true L1 error against a reference within L1 1e-10" in out
    assert "sssp back to back (the same batches, nothing between them): mean" in out


def test_pagerank_at_several_epsilons_and_with_cugraphs_stopping_rule(tmp_path, capsys):
    status, data = _run(tmp_path, "--queries", "pagerank", "--ingest-rows", "0", "--baseline-variants", "int32",
                        "--plc-epsilons", "1e-3,1e-6,1e-9", "--stop", "change", baseline=FakePlc())
    assert status == 0, data["failures"]
    keys = {"int32 epsilon=0.001", "int32", "int32 epsilon=1e-09"}
    batches = data["queries"]["pagerank"]["batches"]
    assert all(set(r["baselines"]) == keys for r in batches)
    # stop="change": tol bounds one more step's change, the error tol / (1 - alpha)
    assert all(0 < r["engine_l1_error"] <= 1e-6 / 0.15 + 1e-10 for r in batches)
    s = data["queries"]["pagerank"]["summary"]
    assert s["fastest_baseline"] == "int32"
    matched = s["equal_error_baseline"]
    accurate = [k for k, b in s["baselines"].items() if b["mean_l1_error"] <= s["engine_mean_l1_error"]]
    assert matched == min(accurate, key=lambda k: s["baselines"][k]["mean_ms"])
    assert "int32 epsilon=0.001" not in accurate and "int32 epsilon=1e-09" in accurate
    assert s["equal_error_ratio"] == pytest.approx(s["baselines"][matched]["mean_ms"] / s["mean_apply_ms"])
    out = capsys.readouterr().out
    assert f"pagerank at equal or better measured error: fastest pylibcugraph as accurate as the engine: {matched}" \
        in out


def test_skipped_modes_and_a_latency_run_beyond_the_stream(tmp_path):
    status, data = _run(tmp_path, "--skip", "batches,ingest", "--latency", "20", "--queries", "sssp,pagerank",
                        baseline=FakePlc())
    assert status == 0 and data["queries"] == {} and "ingest" not in data
    assert data["graph"]["g0_edges"] == data["graph"]["pool_edges"] - 90          # G0 as with the batch mode
    # no stream at all: G0 is the whole graph; the rows are drawn (inserts of new random edges)
    status, data = _run(tmp_path, "--batches", "0", "--ingest-rows", "0", "--latency", "300",
                        "--latency-warmup", "0", "--queries", "sssp,pagerank", baseline=FakePlc())
    assert status == 0, data["failures"]
    assert set(data["latency"]) == {"sssp", "pagerank"} and data["queries"] == {}
    ops = [r["op"] for r in data["latency"]["pagerank"]["batches"]]
    assert len(ops) == 300 and ops.count(1) == ops.count(-1) == 150
    assert data["latency"]["pagerank"]["summary"]["checked"]


@pytest.mark.parametrize("fault", ["sssp", "wcc"])
def test_a_wrong_baseline_result_fails_the_run_after_writing_it(tmp_path, capsys, fault):
    status, data = _run(tmp_path, "--queries", fault, "--ingest-rows", "0", baseline=FakePlc(fault=fault))
    assert status == 1 and not data["ok"]
    assert all(fault in f for f in data["failures"]) and len(data["failures"]) >= 3 * 4   # G0 + 3, 3 variants
    assert "MISMATCH" in capsys.readouterr().out


def test_back_to_back_results_that_differ_from_the_checked_runs_fail_the_run(tmp_path, capsys, monkeypatch):
    from benchmarks import ab_constants
    calls = iter(range(1000))
    monkeypatch.setattr(ab_constants, "values_of", lambda query: np.array([next(calls)]))
    status, data = _run(tmp_path, "--queries", "sssp", "--ingest-rows", "0", baseline=FakePlc())
    assert status == 1 and data["failures"] == ["sssp back to back: results differ from the checked run's"]
    assert "MISMATCH sssp back to back" in capsys.readouterr().out


def test_each_timed_series_starts_after_a_full_collection_and_one_inside_a_batch_is_reported(
        tmp_path, capsys, monkeypatch):
    """The collector's own thresholds are off here, so the only full collections are the
    script's and one forced inside the checked run's second batch (in its store update):
    that batch's report counts it, and its record, its series' summary and the printed
    notes show it; the other series none."""
    import gc

    import cugraph_stream as cgs

    from cugraph_stream.engine.store import GraphStore

    events, apply, store_apply, collecting = [], cgs.StreamGraph.apply, GraphStore.apply, []

    def apply_and_collect_once(self, *args, **kwargs):
        events.append("apply")
        if "collect" in events and events.count("apply") - events.index("collect") == 2:
            collecting.append(True)     # (inside the second apply after the first series' collection)
        return apply(self, *args, **kwargs)

    def store_apply_collecting(self, *args, **kwargs):
        if collecting:
            collecting.clear()
            gc.collect()
        return store_apply(self, *args, **kwargs)

    monkeypatch.setattr(GraphStore, "apply", store_apply_collecting)
    collect = bench.collect_garbage
    monkeypatch.setattr(cgs.StreamGraph, "apply", apply_and_collect_once)
    monkeypatch.setattr(bench, "collect_garbage", lambda: events.append("collect") or collect())
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        status, data = _run(tmp_path, "--queries", "sssp", "--ingest-rows", "0", "--latency", "4",
                            "--latency-warmup", "2")
    finally:
        if was_enabled:
            gc.enable()
    assert status == 0
    # (before: the warm-up's and G0's loads) the batches; G0 loaded again and the batches back to
    # back; G0 loaded again, two untimed single rows, the timed ones
    build = ["apply"]
    assert events[events.index("collect"):] == ["collect", *["apply"] * 3, *build, "collect", *["apply"] * 3,
                                                *build, *["apply"] * 2, "collect", *["apply"] * 4]
    rows = data["queries"]["sssp"]["batches"]
    assert [("gc_ms" in r) for r in rows] == [False, True, False] and rows[1]["gc_ms"] >= 0.1
    s = data["queries"]["sssp"]["summary"]
    assert s["gc_batches"] == 1 and s["gc_ms"] == rows[1]["gc_ms"]
    assert s["back_to_back"]["gc_batches"] == 0 and data["queries"]["sssp"]["back_to_back_gc_ms"] == [0.0] * 3
    assert data["latency"]["sssp"]["summary"]["gc_batches"] == 0
    out = capsys.readouterr().out
    assert "sssp batch 1: 60 rows, apply" in out and f"gc_ms {rows[1]['gc_ms']}" in out
    assert (f"Garbage collection of 1 ms or more inside timed batches (counted in the figures): sssp batches: 1 "
            f"({rows[1]['gc_ms']:.1f} ms)") in out


# ---------------------------------------------------------------------------
# on the GPU
# ---------------------------------------------------------------------------

@pytest.mark.gpu
@pytest.mark.parametrize("baseline", ["no-baseline", "pylibcugraph"])
def test_a_small_gpu_run_of_every_mode(tmp_path, baseline):
    from cugraph_stream.backends import available_backends

    reason = available_backends().get("gpu")
    if reason:
        pytest.skip(f"backend 'gpu' unavailable: {reason}")
    if baseline == "pylibcugraph":
        pytest.importorskip("pylibcugraph")
    out = tmp_path / "gpu.json"
    extra = ["--no-baseline"] if baseline == "no-baseline" else []
    status = bench.main(["--scale", "12", "--batches", "2", "--batch-size", "500", "--ingest-rows", "2000",
                         "--latency", "30", "--sweep", "1,100,20000", "--sweep-batches", "2",
                         "--weights", "integer", "--source", "random", "--out", str(out), *extra])
    data = json.loads(out.read_text())
    assert status == 0, data["failures"]
    assert data["latency"]["sssp"]["summary"]["batches"] == 30 and len(data["sweep"]["sssp"]) == 3
    growth = data["ingest"]["pool_growth_bytes"]
    assert len(growth) == len(data["ingest"]["seconds_all"]) and all(isinstance(b, int) for b in growth)
    if baseline == "pylibcugraph":
        assert all(set(r["baselines"]) == ALL_VARIANTS
                   for q in data["queries"].values() for r in q["batches"])
