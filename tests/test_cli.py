"""The ``cugraph-stream`` command line (demo, replay) and its SciPy check helpers.

Results written by the CLI are checked here against SciPy and NetworkX
computed from edge lists built by hand or with pandas, not with the CLI's own
check helpers.
"""
import os
import shutil
import subprocess
import sys

import networkx as nx
import numpy as np
import pandas as pd
import pytest
import scipy.sparse
from scipy.sparse.csgraph import connected_components, dijkstra, shortest_path

from cugraph_stream import verify
from cugraph_stream.cli import main
from cugraph_stream.verify import EdgeSnapshot, check_result, compute_reference
from cugraph_stream.datasets import mixed_stream, rmat

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
F32MAX = np.finfo(np.float32).max
I32MAX = np.iinfo(np.int32).max


# ---------------------------------------------------------------------------
# independent expectations
# ---------------------------------------------------------------------------

def expected_results(vertices, src, dst, weight, source, directed=True):
    """SciPy/NetworkX results for the graph (vertices: sorted external ids)."""
    vertices = np.asarray(vertices, np.int64)
    n = vertices.size
    s = np.searchsorted(vertices, src)
    d = np.searchsorted(vertices, dst)
    w = np.asarray(weight, np.float64)
    csr = scipy.sparse.csr_matrix((w, (s, d)), shape=(n, n))
    r = int(np.searchsorted(vertices, source))
    dist = dijkstra(csr, directed=directed, indices=r)
    hops = shortest_path(csr, directed=directed, indices=r, unweighted=True)
    _, comp = connected_components(csr, directed=directed, connection="weak")
    first = {}
    for i, c in enumerate(comp):  # tiny graphs
        first.setdefault(c, vertices[i])
    labels = np.array([first[c] for c in comp], np.int64)
    G = nx.DiGraph() if directed else nx.Graph()
    G.add_nodes_from(vertices.tolist())
    G.add_weighted_edges_from(zip(np.asarray(src).tolist(), np.asarray(dst).tolist(), w.tolist()))
    # PageRank uses the weights of a weighted graph, as cuGraph's (1 each without a weight column)
    pr = nx.pagerank(G, alpha=0.85, weight="weight", tol=1e-14, max_iter=10000)
    return {
        "distance": np.where(np.isinf(dist), F32MAX, dist),
        "hops": np.where(np.isinf(hops), I32MAX, hops).astype(np.int64),
        "labels": labels,
        "pagerank": np.array([pr[v] for v in vertices.tolist()]),
    }


def widest_expected(vertices, src, dst, weight, source, directed=True):
    """Widest-path widths by Bellman-Ford over (max, min) (tiny graphs)."""
    edges = list(zip(src, dst, weight))
    if not directed:
        edges += [(b, a, w) for a, b, w in edges]
    width = {v: np.float32(0) for v in vertices}
    width[source] = F32MAX
    changed = True
    while changed:
        changed = False
        for a, b, w in edges:
            cand = min(width[a], np.float32(w))
            if cand > width[b]:
                width[b] = cand
                changed = True
    return np.array([width[v] for v in vertices], np.float32)


def check_frames(out, exp, source):
    sssp = pd.read_parquet(out / f"sssp_{source}.parquet")
    assert list(sssp.columns) == ["vertex", "distance", "predecessor"]
    np.testing.assert_allclose(sssp.distance.to_numpy(np.float64), exp["distance"], rtol=1e-5)
    bfs = pd.read_parquet(out / f"bfs_{source}.parquet")
    np.testing.assert_array_equal(bfs.distance.to_numpy(np.int64), exp["hops"])
    wcc = pd.read_parquet(out / "wcc.parquet")
    np.testing.assert_array_equal(wcc.labels.to_numpy(), exp["labels"])
    pr = pd.read_parquet(out / "pagerank.parquet")
    assert np.abs(pr.pagerank.to_numpy() - exp["pagerank"]).sum() <= 1e-6 + 1e-9
    return sssp, bfs, wcc, pr


# ---------------------------------------------------------------------------
# demo
# ---------------------------------------------------------------------------

def test_demo_tiny(tmp_path, capsys):
    out = tmp_path / "demo"
    assert main(["demo", "--scale", "8", "--batches", "3", "--batch-size", "50",
                 "--seed", "2", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "OK" in text
    assert sum(line.startswith("batch ") for line in text.splitlines()) == 3
    assert "BatchReport(rows=50" in text

    # rebuild the final graph independently: G0 + inserts - deletes
    stream = mixed_stream(rmat(8, seed=2), 3, 50, seed=2)
    ups = pd.concat(stream.batches, ignore_index=True)
    final = pd.concat([stream.initial, ups[ups.op == 1].drop(columns="op")])
    dels = ups[ups.op == -1]
    key = final.src * 2**20 + final.dst
    final = final[~key.isin(dels.src * 2**20 + dels.dst)]
    vertices = np.union1d(np.union1d(stream.initial.src, stream.initial.dst),
                          np.union1d(ups.src[ups.op == 1], ups.dst[ups.op == 1]))
    ids, counts = np.unique(stream.initial.src, return_counts=True)
    source = int(ids[np.argmax(counts)])
    exp = expected_results(vertices, final.src, final.dst, final.weight, source)
    sssp, *_ = check_frames(out, exp, source)
    np.testing.assert_array_equal(sssp.vertex.to_numpy(), vertices)


def test_demo_python_m_and_default_out(tmp_path):
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run(
        [sys.executable, "-m", "cugraph_stream", "demo", "--scale", "6", "--edge-factor", "4",
         "--batches", "2", "--batch-size", "10"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "OK" in proc.stdout
    assert sorted(os.listdir(tmp_path / "demo-out")) == [
        "bfs_0.parquet", "pagerank.parquet", "sssp_0.parquet", "wcc.parquet"]


def test_demo_quiet_and_bad_sizes(tmp_path, capsys):
    assert main(["demo", "--scale", "5", "--batches", "1", "--batch-size", "5", "--quiet",
                 "--out", str(tmp_path)]) == 0
    assert capsys.readouterr().out == ""
    assert main(["demo", "--scale", "3", "--batches", "100", "--batch-size", "100",
                 "--out", str(tmp_path)]) == 2
    assert "exceeds" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        main(["demo", "--scale", "0"])
    assert exc.value.code == 2
    assert "--scale" in capsys.readouterr().err


# ---------------------------------------------------------------------------
# replay
# ---------------------------------------------------------------------------

EDGES = pd.DataFrame({"src": [0, 1, 0, 2, 3, 5], "dst": [1, 2, 2, 3, 4, 6],
                      "weight": [1.0, 2.0, 5.0, 1.0, 3.0, 1.0]})
UPDATES = pd.DataFrame({
    "src":    [0, 4, 7, 1, 5, 9, 3, 3],
    "dst":    [2, 0, 8, 2, 6, 9, 4, 4],
    "weight": [None, 2.0, 1.0, 0.5, None, 1.0, 1.0, None],
    "op":     ["delete", "INSERT", "insert", "insert", "delete", "delete", "insert", "Delete"],
    "batch":  ["b1", "b1", "b2", "b2", "b1", "b3", "b3", "b3"],
})
# after all updates: 0->2, 5->6 and 3->4 are gone, 1->2 has weight 0.5;
# 9 never becomes a vertex (only named by a delete row); 5 and 6 stay, isolated
FINAL = pd.DataFrame({"src": [0, 1, 2, 4, 7], "dst": [1, 2, 3, 0, 8],
                      "weight": [1.0, 0.5, 1.0, 2.0, 1.0]})
VERTICES = np.arange(9)


def _save(df, path):
    if str(path).endswith(".csv"):
        df.to_csv(path, index=False)
    else:
        df.to_parquet(path, index=False)
    return str(path)


@pytest.mark.parametrize("ext", ["csv", "parquet"])
@pytest.mark.parametrize("split", [[], ["--batch-size", "3"], ["--batch-column", "batch"]])
def test_replay_directed(tmp_path, capsys, ext, split):
    updates = UPDATES
    if ext == "parquet":  # numeric ops there
        updates = UPDATES.assign(op=np.where(UPDATES.op.str.lower() == "insert", 1, -1))
    e = _save(EDGES, tmp_path / f"edges.{ext}")
    u = _save(updates, tmp_path / f"updates.{ext}")
    out = tmp_path / "out"
    code = main(["replay", "--edges", e, "--updates", u, "--query", "sssp:0",
                 "--query", "bfs:0", "--query", "wcc", "--query", "pagerank",
                 "--query", "widest:0", "--out", str(out), "--check", *split])
    text = capsys.readouterr().out
    assert code == 0, text
    nbatches = 3 if split else 1  # 8 rows: by 3 rows, or b1/b2/b3
    assert sum(line.startswith("batch ") for line in text.splitlines()) == nbatches
    assert "OK" in text
    exp = expected_results(VERTICES, FINAL.src, FINAL.dst, FINAL.weight, 0)
    sssp, bfs, wcc, pr = check_frames(out, exp, 0)
    np.testing.assert_array_equal(sssp.vertex.to_numpy(), VERTICES)
    assert sssp.predecessor.tolist() == [-1, 0, 1, 2, -1, -1, -1, -1, -1]
    widest = pd.read_parquet(out / "widest_0.parquet")
    np.testing.assert_array_equal(
        widest.width.to_numpy(),
        widest_expected(VERTICES.tolist(), FINAL.src, FINAL.dst, FINAL.weight, 0))


def test_replay_batch_column_order(tmp_path, capsys):
    e = _save(EDGES, tmp_path / "e.csv")
    u = _save(UPDATES, tmp_path / "u.csv")
    assert main(["replay", "--edges", e, "--updates", u, "--query", "wcc",
                 "--batch-column", "batch", "--out", str(tmp_path / "o")]) == 0
    lines = [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("batch ")]
    # b1 (3 rows, one of them after b2's rows in the file), then b2, then b3
    assert [ln.split("rows=")[1].split()[0] for ln in lines] == ["3", "2", "3"]


def test_replay_undirected_and_renamed_columns(tmp_path, capsys):
    rename = {"src": "a", "dst": "b", "weight": "w"}
    e = _save(EDGES.rename(columns=rename), tmp_path / "e.parquet")
    u = _save(UPDATES.rename(columns={**rename, "op": "kind"}), tmp_path / "u.parquet")
    out = tmp_path / "out"
    assert main(["replay", "--edges", e, "--updates", u, "--undirected", "--source", "a",
                 "--destination", "b", "--weight", "w", "--op", "kind",
                 "--query", "sssp:4", "--query", "bfs:4", "--query", "wcc",
                 "--query", "pagerank", "--out", str(out), "--check"]) == 0
    exp = expected_results(VERTICES, FINAL.src, FINAL.dst, FINAL.weight, 4, directed=False)
    check_frames(out, exp, 4)


def test_replay_unweighted(tmp_path):
    e = _save(EDGES.drop(columns="weight"), tmp_path / "e.csv")
    u = _save(UPDATES.drop(columns="weight"), tmp_path / "u.csv")
    out = tmp_path / "out"
    assert main(["replay", "--edges", e, "--updates", u, "--query", "sssp:0",
                 "--out", str(out), "--check", "--quiet"]) == 0
    sssp = pd.read_parquet(out / "sssp_0.parquet")
    assert sssp.distance.tolist()[:4] == [0.0, 1.0, 2.0, 3.0]  # every weight is 1


@pytest.mark.parametrize(
    "args, message",
    [
        (["--edges", "missing.csv"], "does not exist"),
        (["--edges", "e.txt"], "must end in .csv or .parquet"),
        (["--source", "nope"], "--source"),
        (["--weight", "nope"], "nope"),
        (["--op", "nope"], "--op"),
        (["--batch-column", "nope"], "--batch-column"),
        (["--query", "sssp:99"], "99"),
        (["--updates", "bad_op.csv"], "op"),
        (["--updates", "bad_id.csv"], "src"),
    ],
)
def test_replay_bad_input(tmp_path, capsys, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    _save(EDGES, tmp_path / "e.csv")
    (tmp_path / "e.txt").write_text("0 1\n")
    _save(UPDATES, tmp_path / "u.csv")
    _save(UPDATES.assign(op="upsert"), tmp_path / "bad_op.csv")
    _save(UPDATES.assign(src=[0, 1.5, 2, 3, 4, 5, 6, 7]), tmp_path / "bad_id.csv")
    base = {"--edges": "e.csv", "--updates": "u.csv", "--query": "wcc"}
    for flag, value in zip(args[::2], args[1::2]):
        base[flag] = value
    argv = ["replay", "--out", "o"] + [x for kv in base.items() for x in kv]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "cugraph-stream replay: error:" in err and message in err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    "argv, message",
    [
        (["replay", "--edges", "e.csv", "--updates", "u.csv"], "--query"),
        (["replay", "--edges", "e.csv", "--updates", "u.csv", "--query", "sssp"], "sssp:0"),
        (["replay", "--edges", "e.csv", "--updates", "u.csv", "--query", "katz"], "unknown"),
        (["replay", "--edges", "e.csv", "--updates", "u.csv", "--query", "wcc:3"], "no arg"),
        (["replay", "--edges", "e.csv", "--updates", "u.csv", "--query", "wcc",
          "--batch-size", "2", "--batch-column", "b"], "not allowed"),
        (["replay", "--edges", "e.csv", "--updates", "u.csv", "--query", "wcc",
          "--batch-size", "0"], "at least 1"),
        ([], "COMMAND"),
        (["frobnicate"], "invalid choice"),
    ],
)
def test_usage_errors(capsys, argv, message):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_version(capsys):
    import cugraph_stream
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    assert capsys.readouterr().out == f"cugraph-stream {cugraph_stream.__version__}\n"


@pytest.mark.parametrize("argv", [
    ["--version"],
    ["--help"],
    ["doctor"],
    ["doctor", "--json"],
    ["demo", "--scale", "6", "--edge-factor", "4", "--batches", "2", "--batch-size", "10"],
])
@pytest.mark.parametrize("unbuffered", [False, True])
def test_closed_pipe_ends_quietly(tmp_path, argv, unbuffered):
    """``cugraph-stream ... | head -1``: the reader goes away (here before the first
    line, so every write fails); no traceback, no "Broken pipe", status 141 as a
    shell reports for SIGPIPE (0 where argparse's --help/--version printing
    swallows the error itself, writing unbuffered)."""
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop("PYTHONUNBUFFERED", None)
    if unbuffered:
        env["PYTHONUNBUFFERED"] = "1"
    proc = subprocess.Popen([sys.executable, "-m", "cugraph_stream", *argv], cwd=tmp_path, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    proc.stdout.close()
    try:
        err = proc.stderr.read()
        status = proc.wait(timeout=300)
    finally:
        proc.kill()
    assert "Traceback" not in err and "Broken pipe" not in err and "BrokenPipe" not in err, err
    assert status == 141 or (status == 0 and unbuffered and argv[0].startswith("--")), (status, err)


def test_reader_that_stops_after_one_line(tmp_path):
    """A real ``| head -1``: the first line of the report, and nothing on stderr."""
    head = shutil.which("head")
    if head is None:
        pytest.skip("no head command")
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    cli = subprocess.Popen([sys.executable, "-m", "cugraph_stream", "doctor"], cwd=tmp_path, env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    first = subprocess.run([head, "-1"], stdin=cli.stdout, capture_output=True, text=True, timeout=300)
    cli.stdout.close()
    err = cli.stderr.read()
    assert cli.wait(timeout=300) in (0, 141)
    assert first.stdout.startswith("cugraph_stream ") and first.stdout.count("\n") == 1, first.stdout
    assert err == "", err


def test_console_script_entry_point():
    text = open(os.path.join(ROOT, "pyproject.toml")).read()
    assert 'cugraph-stream = "cugraph_stream.cli:main"' in text


# ---------------------------------------------------------------------------
# the check helpers catch wrong results
# ---------------------------------------------------------------------------

def _frames():
    import cugraph_stream as cgs
    g = cgs.StreamGraph.from_edgelist(FINAL, source="src", destination="dst", weight="weight",
                                      weight_dtype="float32")
    g.add_vertices([5, 6])
    qs = {k: g.track(q) for k, q in [("sssp", cgs.SSSP(source=0)), ("bfs", cgs.BFS(source=0)),
                                     ("wcc", cgs.WCC()), ("pagerank", cgs.PageRank()),
                                     ("widest", cgs.WidestPath(source=0))]}
    return {k: q.result().copy() for k, q in qs.items()}


def test_check_helpers_accept_and_reject():
    snap = EdgeSnapshot.from_frame(FINAL, weight="weight")
    snap.apply(pd.DataFrame({"src": [5], "dst": [6], "op": ["insert"]}))
    snap.apply(pd.DataFrame({"src": [5], "dst": [6], "op": ["delete"]}))
    assert snap.vertices().tolist() == [0, 1, 2, 3, 4, 5, 6, 7, 8]
    frames = _frames()
    for kind, frame in frames.items():
        src = 0 if kind in ("sssp", "bfs", "widest") else None
        assert check_result(kind, frame, snap, source=src) == [], kind

    bad = frames["sssp"].copy()
    bad.loc[2, "distance"] = 2.5
    assert "distance" in check_result("sssp", bad, snap, source=0)[0]
    bad = frames["sssp"].copy()
    bad.loc[3, "predecessor"] = 0  # 0->3 is no edge
    assert "not an edge" in check_result("sssp", bad, snap, source=0)[0]
    bad = frames["bfs"].copy()
    bad.loc[8, "distance"] = 1
    assert "distance" in check_result("bfs", bad, snap, source=0)[0]
    bad = frames["wcc"].copy()
    bad.loc[8, "labels"] = 8
    assert "label" in check_result("wcc", bad, snap)[0]
    bad = frames["pagerank"].copy()
    bad.loc[0, "pagerank"] += 1e-3
    assert "L1" in check_result("pagerank", bad, snap)[0]
    bad = frames["widest"].copy()
    bad.loc[1, "width"] = 0.5
    assert check_result("widest", bad, snap, source=0)
    bad = frames["sssp"].iloc[:-1]
    assert "vertex column" in check_result("sssp", bad, snap, source=0)[0]


def test_check_detects_predecessor_cycle():
    # zero-weight cycle 1 <-> 2: predecessors 1->2 and 2->1 give equal values but no tree
    edges = pd.DataFrame({"src": [0, 1, 2], "dst": [1, 2, 1], "weight": [1.0, 0.0, 0.0]})
    snap = EdgeSnapshot.from_frame(edges, weight="weight")
    frame = pd.DataFrame({"vertex": [0, 1, 2], "distance": np.float32([0, 1, 1]),
                          "predecessor": [-1, 2, 1]})
    assert "cycle" in check_result("sssp", frame, snap, source=0)[0]
    frame.loc[1, "predecessor"] = 0
    assert check_result("sssp", frame, snap, source=0) == []


def test_snapshot_semantics():
    snap = EdgeSnapshot(directed=False)
    snap.apply(pd.DataFrame({"src": [1, 2, 3], "dst": [2, 1, 3], "w": [1.0, 4.0, 2.0],
                             "op": [1, 1, 1]}), weight="w")
    assert snap.edges().values.tolist() == [[1, 2, 4.0], [3, 3, 2.0]]
    # deleting an absent edge or an edge of unknown vertices does nothing
    snap.apply(pd.DataFrame({"src": [1, 7], "dst": [3, 8], "op": ["delete", "delete"]}))
    assert snap.num_edges == 2 and snap.num_vertices == 3
    # insert then delete in one batch: vertex created, edge absent
    snap.apply(pd.DataFrame({"src": [4, 4], "dst": [5, 5], "op": ["insert", "delete"]}))
    assert snap.vertices().tolist() == [1, 2, 3, 4, 5] and snap.num_edges == 2
    assert np.isnan(snap.edge_weight([4], [5])[0])
    assert snap.edge_weight([2, 1], [1, 2]).tolist() == [4.0, 4.0]
    ref = compute_reference("wcc", snap)
    assert len(np.unique(ref["component"])) == 4


def test_bfs_levels_pointer_jumping():
    # path 0-1-2-...-99 plus a branch: levels from the BFS tree
    n = 100
    src = np.arange(n - 1)
    csr = scipy.sparse.csr_matrix((np.ones(n - 1), (src, src + 1)), shape=(n + 1, n + 1))
    ref = verify.reference_bfs(csr, 0)
    assert ref["distance"][:n].tolist() == list(range(n))
    assert ref["distance"][n] == -1
