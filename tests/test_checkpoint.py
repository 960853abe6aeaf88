"""Checkpoints: ``StreamGraph.save`` / ``StreamGraph.load`` (:mod:`cugraph_stream.checkpoint`),
and ``pickle`` / ``copy.deepcopy``.

The guarantee under test: a loaded graph answers as the saved one did
(results and ``changes()`` equal), and the same batches applied to both keep
them equal: values exactly, predecessors valid (and equal on the CPU, where
everything is deterministic and the lists are rebuilt in their saved order),
PageRank within 1e-12 in L1 (equal on the CPU).  A damaged, truncated or
foreign checkpoint raises ``CheckpointError`` naming what is wrong.
"""
import copy
import json
import os
import pickle
import random
import threading

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.ipc
import pytest

import cugraph_stream as cgs
from cugraph_stream.backends import available_backends
from cugraph_stream.checkpoint import FORMAT, VERSION, CheckpointError
from reference import (CACHE_OPTIONS, ModelGraph, check_edges, check_query, host, make_batch,
                       random_batch)

WEIGHTS = [0.0, 0.25, 0.5, 1.0, 1.5, 2.0, 3.25, 7.0, 1e-300]
#: int64 ids at both ends of the range, and -1 (a legal id that predecessor -1 also spells)
EXTREMES = [-2**63, -2**63 + 1, -1, 2**63 - 2, 2**63 - 1]
SOURCE = 2**63 - 1


# ------------------------------------------------------------------ helpers
def _memory(placement):
    return CACHE_OPTIONS if placement == "cached" else {}


def track_all(g):
    """Every kind, incremental (a restored query continues exactly as the saved one, ties
    included, only on a fixed path), plus SSSP and PageRank in recompute mode."""
    inc = "incremental"
    return [g.track(cgs.SSSP(source=SOURCE, mode=inc)), g.track(cgs.BFS(source=SOURCE, mode=inc)),
            g.track(cgs.WidestPath(source=SOURCE, mode=inc)), g.track(cgs.WCC(mode=inc)),
            g.track(cgs.PageRank(tol=1e-9, mode=inc)), g.track(cgs.SSSP(source=SOURCE, mode="recompute")),
            g.track(cgs.PageRank(alpha=0.8, tol=1e-7, mode="recompute"))]


def scenario(backend, placement, directed, weight_dtype="float64", seed=0):
    """A graph with every query tracked, after batches, vertex removals and isolated
    vertices, whose free list is not empty; returns ``(g, model, rng, ids)``."""
    rng = random.Random(seed)
    ids = EXTREMES + sorted(rng.randrange(-2**62, 2**62) for _ in range(40))
    model = ModelGraph(directed, weight_dtype)
    rows = [(rng.choice(ids), rng.choice(ids), 1, rng.choice(WEIGHTS)) for _ in range(150)]
    rows.append((SOURCE, ids[5], 1, 1.0))
    g = cgs.StreamGraph.from_edgelist(make_batch(rows).drop(columns="op"), weight="weight", directed=directed,
                                      backend=backend, weight_dtype=weight_dtype, placement=placement,
                                      **_memory(placement))
    model.apply_rows(rows)
    track_all(g)
    for _ in range(3):
        apply(g, model, random_batch(rng, model, ids, 30, WEIGHTS))
    isolated = [7, -7, 2**62 + 1]
    g.add_vertices(np.array(isolated))
    model.add_vertices(isolated)
    apply(g, model, random_batch(rng, model, ids, 30, WEIGHTS))
    # low internal ids (the smallest external ids came first): freed, below the bound
    removed = [-2**63, -2**63 + 1, ids[6]]
    g.remove_vertices(np.array(removed))
    model.remove_vertices(removed)
    assert g._store.vertices.free.size > 0
    return g, model, rng, ids


def apply(graphs, model, rows):
    model.apply_rows(rows)
    batch = make_batch(rows)
    for g in graphs if isinstance(graphs, (list, tuple)) else [graphs]:
        g.apply(batch, weight="weight")


def snapshot(g):
    """Every query's result and changes (host frames), in tracking order."""
    out = []
    for q in g.queries:
        out.append(host(q.result()))
        out.append(host(q.changes()))
    return out


def test_pagerank_changes_survive_save_and_load(tmp_path):
    g, model, rng, ids = scenario("cpu", "device", directed=True)
    h = cgs.StreamGraph.load(g.save(tmp_path / "graph.ckpt"))
    for qg, qh in zip(g.queries, h.queries):
        if isinstance(qg, cgs.PageRank):
            assert len(qg.changes()) > 0
            pd.testing.assert_frame_equal(host(qg.changes()), host(qh.changes()))


def assert_same_answers(g, h):
    """``h`` answers exactly as ``g`` (results, changes, edges, vertices)."""
    assert [q.name for q in h.queries] == [q.name for q in g.queries]
    for a, b in zip(snapshot(g), snapshot(h)):
        pd.testing.assert_frame_equal(a, b)
    pd.testing.assert_frame_equal(host(g.edges()), host(h.edges()))
    pd.testing.assert_series_equal(host(g.vertices()), host(h.vertices()))


def assert_continues_alike(g, h, model, strict, where):
    """After the same batches: values equal, predecessors valid, PageRank close
    (``strict``: everything equal)."""
    g.check_consistency()
    h.check_consistency()
    check_edges(h, model, where)
    for qg, qh in zip(g.queries, h.queries):
        a, b = host(qg.result()), host(qh.result())
        check_query(qh, model, where=f"{where}: loaded {qh.name}")
        if strict:
            pd.testing.assert_frame_equal(a, b, obj=f"{where}: {qh.name}")
            if hasattr(qg, "changes"):
                pd.testing.assert_frame_equal(host(qg.changes()), host(qh.changes()), obj=f"{where}: changes")
        elif "pagerank" in a:       # both within the bound of the exact ranks (GPU sums: any order)
            assert np.abs(a["pagerank"].to_numpy() - b["pagerank"].to_numpy()).sum() <= 2 * qg.error_tol, where
        else:
            value = [c for c in a.columns if c not in ("vertex", "predecessor")]
            pd.testing.assert_frame_equal(a[["vertex"] + value], b[["vertex"] + value], obj=f"{where}: {qh.name}")


# ---------------------------------------------------------------- round trips
@pytest.mark.parametrize("directed, weight_dtype", [(True, "float64"), (False, "float64"), (False, "float32")])
def test_round_trip_answers_alike_and_continues_batch_for_batch(backend, placement, directed, weight_dtype,
                                                                tmp_path):
    g, model, rng, ids = scenario(backend, placement, directed, weight_dtype)
    saved = g.save(tmp_path / "graph.ckpt")
    assert saved == tmp_path / "graph.ckpt"
    h = cgs.StreamGraph.load(saved)
    assert (h.backend, h.placement, h.directed, h.weight_dtype) == (backend, placement, directed,
                                                                    np.dtype(weight_dtype))
    assert_same_answers(g, h)
    assert np.array_equal(host_array(g._store.vertices.free), host_array(h._store.vertices.free))
    for cached_g, cached_h in zip(g._store.cached, h._store.cached):   # the hotness too
        bound = g._store.vertex_bound
        assert np.array_equal(host_array(cached_g[2].words(bound)), host_array(cached_h[2].words(bound)))
    newcomers = [11, -11, 2**63 - 3]       # new vertices get the ids the saved graph would give them
    for step in range(5):
        apply([g, h], model, random_batch(rng, model, ids + newcomers, 30, WEIGHTS))
        if step == 2:
            gone = [x for x in sorted(model.vertices)[:2] if x != SOURCE]
            for graph in (g, h):
                graph.remove_vertices(np.array(gone))
            model.remove_vertices(gone)
        assert_continues_alike(g, h, model, strict=backend == "cpu", where=f"batch {step}")
    assert np.array_equal(host_array(g._store.vertices.sorted_ids()[1]),
                          host_array(h._store.vertices.sorted_ids()[1]))


def test_a_hotness_window_with_shifts_pending_round_trips(tmp_path):
    """A batch that reads no list leaves its hotness shift pending
    (``engine/hotness.py``): the checkpoint holds the window as it stands, and
    the loaded graph's window equals the saved one's, then and after more batches."""
    g, model, rng, ids = scenario("cpu", "cached", directed=True)
    present = {(u, v) for u, v in model.edges}
    absent = next((u, v) for u in ids for v in ids if (u, v) not in present)
    apply(g, model, [(absent[0], absent[1], -1, 1.0)])      # a delete that finds no edge: no query reads
    windows = [hotness for _, _, hotness in g._store.cached]
    assert all(hotness.pending for hotness in windows)
    h = cgs.StreamGraph.load(g.save(tmp_path / "graph.ckpt"))
    bound = g._store.vertex_bound
    for _ in range(3):
        for (_, _, a), (_, _, b) in zip(g._store.cached, h._store.cached):
            assert np.array_equal(host_array(a.words(bound)), host_array(b.words(bound)))
            assert np.array_equal(host_array(a.score(upto=bound)), host_array(b.score(upto=bound)))
        apply([g, h], model, random_batch(rng, model, ids, 30, WEIGHTS))
        bound = g._store.vertex_bound
    assert_continues_alike(g, h, model, strict=True, where="after the pending shifts")


def host_array(array):
    return array.get() if hasattr(array, "get") else np.asarray(array)


def test_empty_and_edgeless_graphs_round_trip(backend, tmp_path):
    g = cgs.StreamGraph(backend=backend, directed=False)
    h = cgs.StreamGraph.load(g.save(tmp_path / "empty"))
    assert (h.number_of_vertices(), h.number_of_edges(), h.queries, h.directed) == (0, 0, (), False)
    g.add_vertices(np.array([3, -3]))
    g.track(cgs.PageRank(mode="incremental"))
    g.track(cgs.BFS(source=3, mode="incremental"))
    h = cgs.StreamGraph.load(g.save(tmp_path / "empty"))
    assert_same_answers(g, h)
    for graph in (g, h):
        graph.apply(pd.DataFrame({"src": [3], "dst": [-3], "op": [1]}))
    assert_same_answers(g, h)


def test_the_files_are_plain_arrow_tables(tmp_path):
    g, _, _, _ = scenario("cpu", "device", directed=False)
    path = g.save(tmp_path / "ckpt")
    meta = json.loads((path / "metadata.json").read_text())
    assert (meta["format"], meta["version"], meta["cugraph_stream_version"]) == (FORMAT, VERSION, cgs.__version__)
    assert meta["graph"]["directed"] is False and meta["graph"]["weight_dtype"] == "float64"
    assert meta["counts"]["vertices"] == g.number_of_vertices() and meta["counts"]["edges"] == g.number_of_edges()
    assert sorted(meta["files"]) == sorted(set(os.listdir(path)) - {"metadata.json"})
    assert [q["kind"] for q in meta["queries"]] == ["SSSP", "BFS", "WidestPath", "WCC", "PageRank", "SSSP",
                                                   "PageRank"]
    assert meta["queries"][0]["params"] == {"mode": "incremental", "source": SOURCE}

    def read(name):
        return pa.ipc.open_file(pa.memory_map(str(path / name))).read_all().to_pandas()

    vertices, edges = read("vertices.arrow"), read("edges.arrow")
    external = dict(zip(vertices["internal"], vertices["external"]))
    assert sorted(external.values()) == host(g.vertices()).tolist()
    src, dst = edges["src"].map(external), edges["dst"].map(external)
    got = pd.DataFrame({"src": np.minimum(src, dst), "dst": np.maximum(src, dst), "weight": edges["weight"]})
    pd.testing.assert_frame_equal(got.sort_values(["src", "dst"]).reset_index(drop=True), host(g.edges()))
    sssp = read("query-0.arrow")
    distance = dict(zip(sssp["internal"].map(external), sssp["value"]))
    result = host(g.queries[0].result())
    assert [distance[v] for v in result["vertex"]] == result["distance"].tolist()


def test_load_picks_the_saved_backend_or_the_one_asked_for(backend, tmp_path):
    g, _, _, _ = scenario(backend, "device", directed=True)
    path = g.save(tmp_path / "ckpt")
    assert cgs.StreamGraph.load(path).backend == backend
    h = cgs.StreamGraph.load(path, backend="cpu")
    assert h.backend == "cpu"
    assert_same_answers(g, h)


@pytest.mark.gpu
def test_a_checkpoint_moves_between_gpu_and_cpu(tmp_path):
    reason = available_backends().get("gpu")
    if reason:
        pytest.skip(f"backend 'gpu' unavailable: {reason}")
    g, model, rng, ids = scenario("gpu", "cached", directed=True)
    on_cpu = cgs.StreamGraph.load(g.save(tmp_path / "from-gpu"), backend="cpu")
    assert on_cpu.backend == "cpu"
    assert_same_answers(g, on_cpu)
    back = cgs.StreamGraph.load(on_cpu.save(tmp_path / "from-cpu"), backend="gpu")
    assert back.backend == "gpu"
    assert_same_answers(g, back)
    for step in range(3):
        apply([g, on_cpu, back], model, random_batch(rng, model, ids, 30, WEIGHTS))
        assert_continues_alike(g, on_cpu, model, strict=False, where=f"cpu, batch {step}")
        assert_continues_alike(g, back, model, strict=False, where=f"gpu again, batch {step}")


# ------------------------------------------------------------ damaged files
@pytest.fixture
def saved(tmp_path):
    g, _, _, _ = scenario("cpu", "device", directed=True)
    return g.save(tmp_path / "ckpt")


def _rewrite_metadata(path, change):
    meta = json.loads((path / "metadata.json").read_text())
    change(meta)
    (path / "metadata.json").write_text(json.dumps(meta))


def test_a_truncated_file_is_named(saved):
    data = (saved / "edges.arrow").read_bytes()
    (saved / "edges.arrow").write_bytes(data[: len(data) // 2])
    with pytest.raises(CheckpointError, match=f"checkpoint file edges.arrow is damaged or truncated: "
                                              f"{len(data) // 2} bytes, expected {len(data)}"):
        cgs.StreamGraph.load(saved)


def test_a_flipped_byte_is_found(saved):
    data = bytearray((saved / "query-0.arrow").read_bytes())
    data[len(data) // 2] ^= 0x01
    (saved / "query-0.arrow").write_bytes(bytes(data))
    with pytest.raises(CheckpointError, match="query-0.arrow is damaged or truncated: .*SHA-256 differs"):
        cgs.StreamGraph.load(saved)


def test_a_missing_file_is_named(saved):
    (saved / "free.arrow").unlink()
    with pytest.raises(CheckpointError, match="checkpoint file free.arrow is missing"):
        cgs.StreamGraph.load(saved)


def test_missing_truncated_or_foreign_metadata(saved, tmp_path):
    text = (saved / "metadata.json").read_text()
    (saved / "metadata.json").write_text(text[: len(text) // 2])
    with pytest.raises(CheckpointError, match="not a cugraph_stream checkpoint: its metadata.json is not valid JSON"):
        cgs.StreamGraph.load(saved)
    (saved / "metadata.json").write_text(json.dumps({"format": "parquet-dataset", "version": 1}))
    with pytest.raises(CheckpointError, match="not a cugraph_stream checkpoint: .* names format 'parquet-dataset'"):
        cgs.StreamGraph.load(saved)
    (saved / "metadata.json").write_text("[1, 2, 3]")
    with pytest.raises(CheckpointError, match="not a cugraph_stream checkpoint"):
        cgs.StreamGraph.load(saved)
    (saved / "metadata.json").unlink()
    with pytest.raises(CheckpointError, match="not a cugraph_stream checkpoint: it holds no metadata.json"):
        cgs.StreamGraph.load(saved)
    with pytest.raises(FileNotFoundError, match="no checkpoint at"):
        cgs.StreamGraph.load(tmp_path / "nowhere")
    (tmp_path / "a-file").write_text("hello")
    with pytest.raises(CheckpointError, match="not a cugraph_stream checkpoint"):
        cgs.StreamGraph.load(tmp_path / "a-file")
    assert issubclass(CheckpointError, ValueError)


def test_a_newer_version_is_refused(saved):
    _rewrite_metadata(saved, lambda meta: meta.update(version=VERSION + 1))
    with pytest.raises(CheckpointError, match=f"checkpoint version {VERSION + 1} is newer than this "
                                              rf"cugraph_stream \({cgs.__version__}\)"):
        cgs.StreamGraph.load(saved)


def _replace_table(path, name, table):
    """Write ``table`` as ``name`` and record it in the metadata (a well-formed but wrong file)."""
    import hashlib

    with pa.OSFile(str(path / name), "wb") as sink, pa.ipc.new_file(sink, table.schema) as writer:
        writer.write_table(table)
    data = (path / name).read_bytes()
    _rewrite_metadata(path, lambda meta: meta["files"].update(
        {name: {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest(), "rows": table.num_rows}}))


def test_well_formed_files_with_wrong_contents_are_refused(saved, tmp_path):
    def edges():
        return pa.ipc.open_file(pa.memory_map(str(saved / "edges.arrow"))).read_all()

    good = edges()
    bound = json.loads((saved / "metadata.json").read_text())["counts"]["vertex_bound"]
    _replace_table(saved, "edges.arrow", good.set_column(0, "src", pa.array(np.full(good.num_rows, bound))))
    with pytest.raises(CheckpointError, match="edges.arrow names a vertex that is not live"):
        cgs.StreamGraph.load(saved)
    _replace_table(saved, "edges.arrow", good.set_column(2, "weight", good.column("weight").cast(pa.float32())))
    with pytest.raises(CheckpointError, match="column 'weight' of checkpoint file edges.arrow has dtype float32"):
        cgs.StreamGraph.load(saved)
    _replace_table(saved, "edges.arrow", good.drop_columns(["dst"]))
    with pytest.raises(CheckpointError, match="edges.arrow lacks column 'dst'"):
        cgs.StreamGraph.load(saved)
    doubled = pa.concat_tables([good, good])           # every edge twice: a multigraph
    _replace_table(saved, "edges.arrow", doubled)
    with pytest.raises(CheckpointError, match="inconsistent"):
        cgs.StreamGraph.load(saved)
    _replace_table(saved, "edges.arrow", good)
    cgs.StreamGraph.load(saved)                         # put back: loads again


# --------------------------------------------------------------- atomic save
def _siblings(path):
    return sorted(name for name in os.listdir(path.parent) if name != path.name)


def test_save_replaces_an_earlier_checkpoint(tmp_path):
    path = tmp_path / "ckpt"
    g, model, rng, ids = scenario("cpu", "device", directed=True)
    g.save(path)
    apply(g, model, random_batch(rng, model, ids, 30, WEIGHTS))
    g.save(path)
    assert _siblings(path) == []                        # no temporary or old directories left
    assert_same_answers(g, cgs.StreamGraph.load(path))


def test_save_refuses_to_overwrite_what_is_not_a_checkpoint(tmp_path):
    g = cgs.StreamGraph.from_edgelist(pd.DataFrame({"src": [0], "dst": [1]}))
    folder = tmp_path / "photos"
    folder.mkdir()
    (folder / "cat.jpg").write_bytes(b"meow")
    with pytest.raises(ValueError, match="refusing to overwrite .*photos.*not a cugraph_stream checkpoint"):
        g.save(folder)
    (tmp_path / "notes.txt").write_text("keep me")
    with pytest.raises(ValueError, match="refusing to overwrite"):
        g.save(tmp_path / "notes.txt")
    assert sorted(os.listdir(folder)) == ["cat.jpg"] and (tmp_path / "notes.txt").read_text() == "keep me"
    assert sorted(os.listdir(tmp_path)) == ["notes.txt", "photos"]


def test_a_failed_save_leaves_the_earlier_checkpoint_alone(tmp_path, monkeypatch):
    import cugraph_stream.checkpoint as checkpoint

    path = tmp_path / "ckpt"
    g, model, rng, ids = scenario("cpu", "device", directed=False)
    g.save(path)
    before = snapshot(g)
    apply(g, model, random_batch(rng, model, ids, 30, WEIGHTS))
    write_table, calls = checkpoint._write_table, []

    def failing(*args):
        calls.append(args)
        if len(calls) == 3:
            raise OSError(28, "No space left on device")
        return write_table(*args)

    monkeypatch.setattr(checkpoint, "_write_table", failing)
    with pytest.raises(OSError, match="No space left"):
        g.save(path)
    assert _siblings(path) == []
    for a, b in zip(before, snapshot(cgs.StreamGraph.load(path))):
        pd.testing.assert_frame_equal(a, b)


def test_only_this_packages_queries_can_be_saved(tmp_path):
    class Shortest(cgs.SSSP):
        pass

    g = cgs.StreamGraph.from_edgelist(pd.DataFrame({"src": [0], "dst": [1]}))
    g.track(Shortest(source=0))
    with pytest.raises(ValueError, match="cannot checkpoint Shortest"):
        g.save(tmp_path / "ckpt")
    assert os.listdir(tmp_path) == []


def test_save_while_another_thread_applies_batches_saves_one_committed_state(tmp_path):
    g, model, rng, ids = scenario("cpu", "device", directed=True)
    batches = []
    for _ in range(25):
        rows = random_batch(rng, model, ids, 30, WEIGHTS)
        model.apply_rows(rows)
        batches.append(make_batch(rows))

    def state(graph):
        return (host(graph.edges()).to_csv(), host(graph.queries[0].result()).to_csv(),
                host(graph.queries[4].result()).to_csv())

    committed = [state(g)]
    done = threading.Event()

    def writer():
        try:
            for batch in batches:
                g.apply(batch, weight="weight")
                committed.append(state(g))        # only this thread changes g
        finally:
            done.set()

    thread = threading.Thread(target=writer)
    thread.start()
    paths = []
    while not done.is_set() or not paths:
        paths.append(g.save(tmp_path / f"ckpt-{len(paths)}"))
    thread.join()
    assert len(paths) >= 2
    for path in paths:
        loaded = cgs.StreamGraph.load(path)
        loaded.check_consistency()
        assert state(loaded) in committed, path


# ------------------------------------------------------------ pickle, deepcopy
@pytest.mark.parametrize("how", ["pickle", "deepcopy"])
@pytest.mark.parametrize("placement", ["device", "cached"])
def test_pickle_and_deepcopy_copy_a_graph_that_continues_alike(how, placement):
    g, model, rng, ids = scenario("cpu", placement, directed=True)
    h = pickle.loads(pickle.dumps(g)) if how == "pickle" else copy.deepcopy(g)
    assert h.lock is not g.lock
    assert_same_answers(g, h)
    for step in range(3):
        apply([g, h], model, random_batch(rng, model, ids, 30, WEIGHTS))
        assert_continues_alike(g, h, model, strict=True, where=f"{how}, batch {step}")


@pytest.mark.gpu
@pytest.mark.parametrize("how", ["pickle", "deepcopy"])
def test_pickle_and_deepcopy_of_a_gpu_graph(how):
    reason = available_backends().get("gpu")
    if reason:
        pytest.skip(f"backend 'gpu' unavailable: {reason}")
    g, model, rng, ids = scenario("gpu", "device", directed=True)
    h = pickle.loads(pickle.dumps(g)) if how == "pickle" else copy.deepcopy(g)
    assert_same_answers(g, h)
    apply([g, h], model, random_batch(rng, model, ids, 30, WEIGHTS))
    assert_continues_alike(g, h, model, strict=False, where=how)


# ------------------------------------------------------------ PageRank's options
def _weighted_pagerank_graph(backend, placement):
    rng = random.Random(11)
    ids = list(range(30))
    rows = [(rng.choice(ids), rng.choice(ids), 1, rng.choice(WEIGHTS)) for _ in range(90)]
    g = cgs.StreamGraph.from_edgelist(make_batch(rows).drop(columns="op"), weight="weight", backend=backend,
                                      placement=placement, **_memory(placement))
    model = ModelGraph(True, "float64")
    model.apply_rows(rows)
    personalization = pd.DataFrame({"vertex": [1, 2, 5], "values": [1.0, 0.5, 2.0]})
    g.track(cgs.PageRank(tol=1e-9))
    g.track(cgs.PageRank(tol=1e-9, personalization=personalization, stop="change"))
    g.track(cgs.PageRank(tol=1e-9, weighted=False, personalization=personalization))
    for _ in range(2):
        apply(g, model, random_batch(rng, model, ids, 20, WEIGHTS))
    g.remove_vertices(np.array([5]))            # a personalization vertex: its share renormalised
    model.remove_vertices([5])
    return g, model, rng, [v for v in ids if v != 5]     # (5 back would hold no teleport: not as the reference)


def test_weighted_and_personalised_pagerank_round_trip(backend, placement, tmp_path):
    g, model, rng, ids = _weighted_pagerank_graph(backend, placement)
    h = cgs.StreamGraph.load(g.save(tmp_path / "ckpt"))
    assert_same_answers(g, h)
    assert [q.uses_weights for q in h.queries] == [True, True, False]
    assert h.queries[1].engine.personalised and h.queries[1].stop == "change"
    for step in range(3):
        apply([g, h], model, random_batch(rng, model, ids, 20, WEIGHTS))
        assert_continues_alike(g, h, model, strict=backend == "cpu", where=f"batch {step}")


def test_a_checkpoint_from_before_weighted_pagerank_loads_unweighted(tmp_path):
    g, model, rng, ids = _weighted_pagerank_graph("cpu", "device")
    path = g.save(tmp_path / "ckpt")
    unweighted = g.queries[2]

    def strip(meta):             # what an older version wrote: no weighting, stop or personalization
        (entry,) = meta["queries"] = meta["queries"][2:]
        for key in ("weighted", "stop", "personalization"):
            del entry["params"][key]
        for key in ("personalised", "teleport_total"):
            entry["state"].pop(key)

    _rewrite_metadata(path, strip)
    h = cgs.StreamGraph.load(path)
    (q,) = h.queries
    assert not q.uses_weights and q.weighted is False and not q.engine.personalised
    pd.testing.assert_frame_equal(host(q.result()), host(unweighted.result()))
    apply(h, model, random_batch(rng, model, ids, 10, WEIGHTS))
    check_query(q, model, where="after a batch")            # the unweighted, uniform reference
