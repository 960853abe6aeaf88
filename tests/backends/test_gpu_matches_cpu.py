"""The GPU backend against the CPU backend, batch by batch, on random streams.

Both engines reach the same fixpoint (values are the best over paths of a
left-to-right fold of the weights, in the same dtype), so BFS, SSSP,
WidestPath and WCC must agree exactly; PageRank agrees within the two
tolerances.  Predecessors may differ on ties; each must be valid.
"""
import numpy as np
import pandas as pd
import pytest

import cugraph_stream as cgs
from cugraph_stream.backends import available_backends

pytestmark = [pytest.mark.gpu,
              pytest.mark.skipif(available_backends()["gpu"] is not None,
                                 reason=str(available_backends()["gpu"]))]

QUERIES = {"sssp": lambda s: cgs.SSSP(s), "bfs": lambda s: cgs.BFS(s),
           "bfs_recompute": lambda s: cgs.BFS(s, mode="recompute"), "widest": lambda s: cgs.WidestPath(s),
           "wcc": lambda s: cgs.WCC(),
           # weighted (the default on these weighted graphs, zero weights included), unweighted, personalised
           "pagerank": lambda s: cgs.PageRank(tol=1e-7),
           "pagerank_unweighted": lambda s: cgs.PageRank(tol=1e-7, weighted=False),
           "pagerank_personalised": lambda s: cgs.PageRank(tol=1e-7, personalization=pd.DataFrame(
               {"vertex": [s], "values": [1.0]}))}


def host_frame(frame):
    return frame.to_pandas() if hasattr(frame, "to_pandas") else frame


def check_predecessors(result, value_column, edges, directed, extend):
    weights = {(a, b): w for a, b, w in edges.itertuples(index=False)}
    if not directed:
        weights.update({(b, a): w for (a, b), w in list(weights.items())})
    values = dict(zip(result["vertex"], result[value_column]))
    for v, p in zip(result["vertex"], result["predecessor"]):
        if p == -1:
            continue
        assert (p, v) in weights, f"predecessor {p} of {v} is not an in-neighbour"
        assert values[v] == extend(values[p], weights[(p, v)]), f"predecessor {p} does not yield {v}'s value"


def random_batch(rng, ids, edges, size):
    present = edges[["src", "dst"]].to_numpy()
    rows = []
    for _ in range(size):
        if len(present) and rng.random() < 0.5:
            a, b = present[rng.integers(len(present))]
            rows.append((a, b, np.nan, "delete"))
        else:
            rows.append((rng.choice(ids), rng.choice(ids), float(rng.integers(0, 8)), "insert"))
    return pd.DataFrame(rows, columns=["src", "dst", "weight", "op"])


@pytest.mark.parametrize("directed", [True, False])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gpu_and_cpu_agree_after_every_batch(directed, dtype):
    rng = np.random.default_rng(11 + directed)
    ids = rng.integers(-2**62, 2**62, 300)
    initial = pd.DataFrame({"src": rng.choice(ids, 1500), "dst": rng.choice(ids, 1500),
                            "weight": rng.integers(0, 8, 1500).astype(float)})
    graphs = {b: cgs.StreamGraph.from_edgelist(initial, weight="weight", directed=directed, backend=b,
                                               weight_dtype=dtype) for b in ("cpu", "gpu")}
    source = int(initial["src"].iloc[0])
    tracked = {b: {k: g.track(make(source)) for k, make in QUERIES.items()} for b, g in graphs.items()}
    cast = np.dtype(dtype).type
    extends = {"sssp": lambda a, w: cast(a) + cast(w), "bfs": lambda a, w: a + 1, "bfs_recompute": lambda a, w: a + 1,
               "widest": lambda a, w: min(cast(a), cast(w))}
    for step in range(25):
        edges = graphs["cpu"].edges()
        batch = random_batch(rng, ids, edges, 200)
        if step % 7 == 6:
            victims = rng.choice(graphs["cpu"].vertices().to_numpy(), 5, replace=False)
            victims = [v for v in victims if v != source]
            for g in graphs.values():
                g.remove_vertices(victims)
        reports = {b: g.apply(batch, weight="weight") for b, g in graphs.items()}
        for field in ("inserted", "deleted", "weight_updated", "ignored", "cancelled", "new_vertices"):
            assert getattr(reports["cpu"], field) == getattr(reports["gpu"], field), field
        for g in graphs.values():
            g.check_consistency()
        edges = graphs["cpu"].edges()
        assert edges.equals(host_frame(graphs["gpu"].edges()).astype(edges.dtypes))
        for name in QUERIES:
            cpu = tracked["cpu"][name].result()
            gpu = host_frame(tracked["gpu"][name].result())
            assert cpu["vertex"].tolist() == gpu["vertex"].tolist()
            column = cpu.columns[1]
            if name.startswith("pagerank"):
                assert np.abs(cpu[column].to_numpy() - gpu[column].to_numpy()).sum() <= 2e-7
                continue
            assert cpu[column].tolist() == gpu[column].tolist(), f"{name} differs at step {step}"
            if name in extends:
                check_predecessors(gpu, column, edges, directed, extends[name])
                reachable = gpu["predecessor"] != -1
                assert (cpu["predecessor"] == -1).tolist() == (~reachable).tolist()
            changed_cpu = set(tracked["cpu"][name].changes()["vertex"])
            changed_gpu = set(host_frame(tracked["gpu"][name].changes())["vertex"])
            if name == "wcc":
                assert changed_cpu == changed_gpu


def test_cudf_input_stays_on_the_device():
    cudf = pytest.importorskip("cudf")
    batch = cudf.DataFrame({"src": [1, 2, 3], "dst": [2, 3, 1], "weight": [1.0, 2.0, None],
                            "op": ["insert", "INSERT", "delete"]})
    g = cgs.StreamGraph(backend="gpu")
    report = g.apply(batch, weight="weight")
    assert (report.inserted, report.ignored) == (2, 1)
    q = g.track(cgs.SSSP(source=1))
    result = q.result()
    assert type(result).__module__.startswith("cudf")
    assert result["distance"].to_pandas().tolist() == [0.0, 1.0, 3.0]
    bad = cudf.DataFrame({"src": [1, None], "dst": [2, 3], "op": [1, 1]})
    with pytest.raises(ValueError, match=r"'src'.*row 1"):
        g.apply(bad)


def test_numeric_cudf_columns_are_read_in_place():
    cudf = pytest.importorskip("cudf")
    from cugraph_stream.frame.columns import read_column

    frame = cudf.DataFrame({"src": np.array([2**62, 5, -3]), "dst": np.array([1, 2**62, 5]),
                            "weight": np.array([0.5, 2.0, 0.0], np.float32), "op": np.array([1, 1, -1], np.int8)})
    for name in frame.columns:
        values, nulls = read_column(frame, name)
        assert nulls is None and values.data.ptr == frame[name].values.data.ptr   # a view, not a copy
        assert values.get().tolist() == frame[name].to_pandas().tolist()
    values, nulls = read_column(cudf.DataFrame({"src": [7, None, 9]}), "src")
    assert nulls.get().tolist() == [False, True, False] and values.get().tolist() == [7, 0, 9]


@pytest.mark.parametrize("query", sorted(QUERIES))
def test_rmat_with_hubs_gpu_matches_cpu(query):
    """R-MAT has hubs of thousands of edges: the warp and block schedules run."""
    from cugraph_stream.datasets import mixed_stream, rmat

    edges = rmat(13, seed=3)
    stream = mixed_stream(edges, num_batches=6, batch_size=2000, seed=4)
    source = int(np.bincount(stream.initial["src"]).argmax())
    graphs = {b: cgs.StreamGraph.from_edgelist(stream.initial, weight="weight", backend=b) for b in ("cpu", "gpu")}
    tracked = {b: g.track(QUERIES[query](source)) for b, g in graphs.items()}
    for step, batch in enumerate(stream.batches):
        for g in graphs.values():
            g.apply(batch, weight="weight")
        cpu, gpu = tracked["cpu"].result(), host_frame(tracked["gpu"].result())
        column = cpu.columns[1]
        if query.startswith("pagerank"):
            assert np.abs(cpu[column].to_numpy() - gpu[column].to_numpy()).sum() <= 2e-7
        else:
            differ = int((cpu[column].to_numpy() != gpu[column].to_numpy()).sum())
            assert differ == 0, f"{query}: {differ} values differ after batch {step}"
