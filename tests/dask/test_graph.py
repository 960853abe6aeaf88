"""``DistributedStreamGraph`` on a ``distributed.LocalCluster`` (CPU backend).

Every gathered result is checked against a single-process ``StreamGraph`` fed
the same batches and against the from-scratch SciPy references of
:mod:`cugraph_stream.verify`.  The workers are processes, so queries, batches,
reports and results really cross process boundaries; one test closes a worker
between batches and expects an error naming it.
"""
import numpy as np
import pandas as pd
import pytest

pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")

import dask.dataframe as dd

import cugraph_stream as cgs
from cugraph_stream.dask import (
    DistributedQuery,
    DistributedStreamGraph,
    WorkerLostError,
)
from cugraph_stream.datasets import mixed_stream, rmat
from cugraph_stream.verify import EdgeSnapshot, check_edges, check_result

KIND = {"SSSP": "sssp", "BFS": "bfs", "WidestPath": "widest", "WCC": "wcc",
        "PageRank": "pagerank"}
VALUE = {"SSSP": "distance", "BFS": "distance", "WidestPath": "width", "WCC": "labels",
         "PageRank": "pagerank"}


def _cluster():
    return distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                    dashboard_address=":0", silence_logs=40)


@pytest.fixture(scope="module")
def client():
    with _cluster() as cluster, distributed.Client(cluster) as client:
        yield client


@pytest.fixture(scope="module")
def stream():
    edges = rmat(7, edge_factor=8, seed=3)
    return mixed_stream(edges, 4, 60, delete_fraction=0.5, seed=3)


def _sources(initial, count):
    ids, counts = np.unique(initial["src"].to_numpy(), return_counts=True)
    return [int(v) for v in ids[np.argsort(-counts, kind="stable")][:count]]


def _check_against_references(g, local, snapshot, handles, local_queries):
    """Gathered results == single-process results == SciPy, query by query."""
    assert check_edges(g.edges(), snapshot) == []
    for w in g.workers:      # every replica holds the same graph
        assert check_edges(g.edges(worker=w), snapshot) == []
    for handle, local_query in zip(handles, local_queries):
        got = handle.result()
        expected = local_query.result()
        kind = KIND[handle.kind]
        source = local_query.source
        assert check_result(kind, got, snapshot, source=source,
                            weighted=getattr(local_query, "uses_weights", False)) == [], handle.name
        np.testing.assert_array_equal(got["vertex"], expected["vertex"])
        if kind == "pagerank":
            assert np.abs(got["pagerank"] - expected["pagerank"]).sum() < 1e-5
        else:
            np.testing.assert_array_equal(got[VALUE[handle.kind]], expected[VALUE[handle.kind]])


def test_queries_spread_over_workers_and_match_single_process(client, stream):
    initial = stream.initial
    sources = _sources(initial, 10)
    g = DistributedStreamGraph.from_edgelist(initial, weight="weight", client=client)
    local = cgs.StreamGraph.from_edgelist(initial, weight="weight")
    assert g.workers == tuple(sorted(client.nthreads()))

    make = [lambda s=s: cgs.SSSP(source=s) for s in sources]
    make += [lambda: cgs.BFS(source=sources[0]), lambda: cgs.WidestPath(source=sources[1]),
             lambda: cgs.WCC(), lambda: cgs.PageRank(tol=1e-7)]
    handles = g.track([m() for m in make])
    local_queries = [local.track(m()) for m in make]
    assert all(isinstance(h, DistributedQuery) for h in handles)
    placement = [h.worker for h in handles]
    assert placement == [g.workers[i % 2] for i in range(len(make))]      # round-robin
    assert sorted(q for d in g.describe().values() for q in d["queries"]) == \
        sorted(h.name for h in handles)

    snapshot = EdgeSnapshot.from_frame(initial, weight="weight")
    _check_against_references(g, local, snapshot, handles, local_queries)
    for batch in stream:
        reports = g.apply(batch, weight="weight")
        expected = local.apply(batch, weight="weight")
        snapshot.apply(batch, weight="weight")
        assert set(reports) == set(g.workers)
        for report in reports.values():
            for field in ("rows", "inserted", "deleted", "weight_updated", "ignored", "cancelled"):
                assert getattr(report, field) == getattr(expected, field), field
        _check_against_references(g, local, snapshot, handles, local_queries)

    # all SSSP results at once, as one dask DataFrame with a query column
    sssp = handles[:len(sources)]
    frame = g.results(sssp)
    assert isinstance(frame, dd.DataFrame)
    assert frame.npartitions == 2
    assert list(frame.columns) == ["query", "vertex", "distance", "predecessor"]
    gathered = frame.compute()
    assert sorted(gathered["query"].unique()) == sorted(h.name for h in sssp)
    for handle, local_query in zip(sssp, local_queries):
        rows = gathered[gathered["query"] == handle.name].drop(columns="query")
        expected = local_query.result()
        np.testing.assert_array_equal(rows["vertex"], expected["vertex"])
        np.testing.assert_array_equal(rows["distance"], expected["distance"])
    with pytest.raises(ValueError, match="one kind"):
        g.results()
    g.close()


def test_edge_list_from_a_dask_dataframe(client, stream):
    initial = stream.initial
    ddf = dd.from_pandas(initial, npartitions=3, sort=False)
    g = DistributedStreamGraph.from_edgelist(ddf, weight="weight", client=client,
                                             directed=False, weight_dtype="float64")
    snapshot = EdgeSnapshot.from_frame(initial, weight="weight", directed=False,
                                       weight_dtype="float64")
    for w in g.workers:
        assert check_edges(g.edges(worker=w), snapshot) == []
    wcc = g.track(cgs.WCC())
    assert check_result("wcc", wcc.result(), snapshot) == []
    assert g.number_of_edges() == snapshot.num_edges
    g.close()


def test_bad_batch_changes_no_replica(client, stream):
    initial = stream.initial
    sources = _sources(initial, 2)
    g = DistributedStreamGraph.from_edgelist(initial, weight="weight", client=client)
    # only the first worker tracks a query that forbids negative weights
    sssp = g.track(cgs.SSSP(source=sources[0]), worker=g.workers[0])
    bfs = g.track(cgs.BFS(source=sources[1]), worker=g.workers[1])
    before = {w: g.edges(worker=w) for w in g.workers}
    sssp_before, bfs_before = sssp.result(), bfs.result()
    bad = pd.DataFrame({"src": [sources[0], sources[1]], "dst": [sources[1], 12345],
                        "weight": [1.0, -2.0], "op": ["insert", "insert"]})
    with pytest.raises(ValueError, match=r"column 'weight' holds a negative weight .* at row 1"):
        g.apply(bad, weight="weight")
    with pytest.raises(ValueError, match="column 'op' not found"):
        g.apply(bad.drop(columns="op"), weight="weight")
    with pytest.raises(ValueError, match="column 'src' holds a null vertex id at row 0"):
        g.apply(pd.DataFrame({"src": [None, 1.0], "dst": [1, 2], "op": [1, 1]}))
    for w in g.workers:
        pd.testing.assert_frame_equal(g.edges(worker=w), before[w])
    pd.testing.assert_frame_equal(sssp.result(), sssp_before)
    pd.testing.assert_frame_equal(bfs.result(), bfs_before)
    # the same batch without the negative weight goes through everywhere
    good = bad.assign(weight=[1.0, 2.0])
    reports = g.apply(good, weight="weight")
    local = cgs.StreamGraph.from_edgelist(initial, weight="weight")
    expected = local.apply(good, weight="weight")
    assert [(r.inserted, r.weight_updated) for r in reports.values()] == \
        [(expected.inserted, expected.weight_updated)] * 2
    for w in g.workers:
        pd.testing.assert_frame_equal(g.edges(worker=w), local.edges())
    g.close()


def test_invalid_query_tracks_nothing(client, stream):
    g = DistributedStreamGraph.from_edgelist(stream.initial, weight="weight", client=client)
    source = _sources(stream.initial, 1)[0]
    with pytest.raises(ValueError, match="source vertex 987654321 is not in the graph"):
        g.track([cgs.SSSP(source=source), cgs.BFS(source=source),
                 cgs.SSSP(source=987654321)])
    assert g.queries == ()
    assert all(d["queries"] == [] for d in g.describe().values())
    q = g.track(cgs.SSSP(source=source))
    with pytest.raises(ValueError, match="already tracked"):
        g.track(cgs.SSSP(source=source))
    with pytest.raises(ValueError, match="worker"):
        g.track(cgs.WCC(), worker="tcp://10.0.0.1:1")
    g.untrack(q)
    with pytest.raises(ValueError, match="not tracked"):
        q.result()
    g.close()


def test_apply_stream_in_partition_order(client, stream):
    initial = stream.initial
    g = DistributedStreamGraph.from_edgelist(initial, weight="weight", client=client)
    source = _sources(initial, 1)[0]
    sssp = g.track(cgs.SSSP(source=source))
    updates = pd.concat(list(stream), ignore_index=True)
    ddf = dd.from_pandas(updates, npartitions=4, sort=False)
    reports = g.apply_stream(ddf, weight="weight", progress=False)
    assert len(reports) == 4
    snapshot = EdgeSnapshot.from_frame(initial, weight="weight")
    for i in range(4):
        part = ddf.get_partition(i).compute()
        assert [r.rows for r in reports[i].values()] == [len(part)] * 2
        snapshot.apply(part, weight="weight")
    assert check_edges(g.edges(), snapshot) == []
    assert check_result("sssp", sssp.result(), snapshot, source=source) == []

    # a bad partition: earlier partitions stay applied, it and later ones do not
    bad = updates.iloc[:40].copy()
    bad.loc[bad.index[25], "weight"] = float("nan")
    bad.loc[bad.index[:26], "op"] = 1
    ddf = dd.from_pandas(bad, npartitions=2, sort=False)
    first = ddf.get_partition(0).compute()
    with pytest.raises(ValueError, match=r"^partition 1 \(rows 20-39 of the stream\): column "
                                         r"'weight' holds a null weight at row 5 \(row 25 of the "
                                         r"stream\)") as caught:
        g.apply_stream(ddf, weight="weight", progress=False)
    assert caught.value.row == 25          # the worker's error kept its row through pickling
    snapshot.apply(first, weight="weight")
    assert check_edges(g.edges(worker=g.workers[1]), snapshot) == []
    g.close()


def test_lost_worker_is_reported_by_address_then_recovered():
    edges = rmat(6, edge_factor=8, seed=5)
    stream = mixed_stream(edges, 3, 40, seed=5)
    sources = _sources(stream.initial, 6)
    with _cluster() as cluster, distributed.Client(cluster) as client:
        g = DistributedStreamGraph.from_edgelist(stream.initial, weight="weight", client=client,
                                                 timeout=30)
        handles = g.track([cgs.SSSP(source=s) for s in sources])
        snapshot = EdgeSnapshot.from_frame(stream.initial, weight="weight")
        g.apply(stream[0], weight="weight")
        snapshot.apply(stream[0], weight="weight")

        victim = g.workers[1]
        nanny = next(n for n in cluster.workers.values() if n.worker_address == victim)
        client.sync(nanny.close)
        with pytest.raises(RuntimeError, match=victim) as caught:
            g.apply(stream[1], weight="weight")
        assert isinstance(caught.value, WorkerLostError)
        assert caught.value.worker == victim
        assert "applied on no worker" in str(caught.value)
        assert g.lost_workers() == [victim]

        moved = g.recover()
        assert {h.name for h in moved} == {h.name for h in handles[1::2]}
        assert victim not in g.workers and len(g.workers) == 1
        assert all(h.worker != victim for h in handles)
        for batch in stream[1:]:
            g.apply(batch, weight="weight")
            snapshot.apply(batch, weight="weight")
        assert check_edges(g.edges(), snapshot) == []
        gathered = g.results().compute()
        for handle, source in zip(handles, sources):
            rows = gathered[gathered["query"] == handle.name].drop(columns="query")
            assert check_result("sssp", rows.reset_index(drop=True), snapshot,
                                source=source) == []
        g.close()


@pytest.mark.gpu
def test_one_engine_per_gpu_under_dask_cuda():
    """The same code on ``dask_cuda.LocalCUDACluster``: GPU replicas, cuDF
    batches, dask-cudf streams and results, checked against the CPU engine."""
    dask_cuda = pytest.importorskip("dask_cuda")
    cupy = pytest.importorskip("cupy")
    cudf = pytest.importorskip("cudf")
    dask_cudf = pytest.importorskip("dask_cudf")
    from cugraph_stream.backends import available_backends

    if available_backends()["gpu"]:
        pytest.skip(f"no GPU backend: {available_backends()['gpu']}")
    stream = mixed_stream(rmat(10, edge_factor=8, seed=2), 4, 400, seed=2)
    sources = _sources(stream.initial, 8)
    with dask_cuda.LocalCUDACluster(dashboard_address=":0") as cluster, \
            distributed.Client(cluster) as client:
        g = DistributedStreamGraph.from_edgelist(cudf.from_pandas(stream.initial),
                                                 weight="weight", client=client, backend="gpu")
        assert {d["backend"] for d in g.describe().values()} == {"gpu"}
        gpus = cupy.cuda.runtime.getDeviceCount()
        assert len(g.describe()) == gpus                      # one replica per GPU
        local = cgs.StreamGraph.from_edgelist(stream.initial, weight="weight")
        handles = g.track([cgs.SSSP(source=s) for s in sources] + [cgs.WCC()])
        assert len({h.worker for h in handles}) == min(gpus, len(handles))   # spread over the GPUs
        local_queries = [local.track(cgs.SSSP(source=s)) for s in sources] + \
            [local.track(cgs.WCC())]
        snapshot = EdgeSnapshot.from_frame(stream.initial, weight="weight")
        for batch in stream[:2]:
            g.apply(cudf.from_pandas(batch), weight="weight")
            local.apply(batch, weight="weight")
            snapshot.apply(batch, weight="weight")
        rest = pd.concat(stream[2:], ignore_index=True)
        ddf = dd.from_pandas(cudf.from_pandas(rest), npartitions=2, sort=False)
        assert isinstance(ddf, dask_cudf.DataFrame) or \
            type(ddf._meta).__module__.split(".")[0] == "cudf"
        assert len(g.apply_stream(ddf, weight="weight", progress=False)) == ddf.npartitions
        for i in range(ddf.npartitions):
            part = ddf.get_partition(i).compute().to_pandas()
            local.apply(part, weight="weight")
            snapshot.apply(part, weight="weight")

        frame = g.results(handles[:-1])
        assert type(frame._meta).__module__.split(".")[0] == "cudf"     # dask-cudf
        gathered = frame.compute().to_pandas()
        for handle, local_query, source in zip(handles, local_queries, sources):
            rows = gathered[gathered["query"] == handle.name].drop(columns="query")
            rows = rows.reset_index(drop=True)
            assert check_result("sssp", rows, snapshot, source=source) == []
            np.testing.assert_array_equal(rows["distance"], local_query.result()["distance"])
        wcc = handles[-1].result().to_pandas()
        assert check_result("wcc", wcc, snapshot) == []
        g.close()
