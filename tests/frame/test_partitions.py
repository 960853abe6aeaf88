"""Streams from Dask: ``iter_partitions`` and ``StreamGraph.apply_stream``.

Results after a stream are checked against the SciPy references of
:mod:`cugraph_stream.verify` on an edge snapshot fed the same partitions, and
against a graph fed the partitions one ``apply`` at a time.
"""
import numpy as np
import pandas as pd
import pytest

dd = pytest.importorskip("dask.dataframe")

import dask

import cugraph_stream as cgs
from cugraph_stream.frame.partitions import iter_partitions
from cugraph_stream.datasets import mixed_stream, rmat
from cugraph_stream.verify import EdgeSnapshot, check_edges, check_result


@pytest.fixture(scope="module")
def stream():
    return mixed_stream(rmat(7, edge_factor=8, seed=11), 6, 50, delete_fraction=0.5, seed=11)


def test_iter_partitions_yields_partitions_in_order_one_at_a_time():
    frame = pd.DataFrame({"src": np.arange(10), "dst": np.arange(10) + 1})
    ddf = dd.from_pandas(frame, npartitions=4, sort=False)
    computed = []

    def record(part, index):
        computed.append(index)
        return part

    # each partition passes through a task that logs when it is computed
    parts = [dask.delayed(record)(d, i) for i, d in enumerate(ddf.to_delayed())]
    logged = dd.from_delayed(parts, meta=frame.iloc[:0], verify_meta=False)
    seen = []
    with dask.config.set(scheduler="threads"):          # tasks run in this process
        for index, part in iter_partitions(logged, progress=False):
            assert computed == list(range(index + 1))  # never ahead of the consumer
            seen.append(part)
    pd.testing.assert_frame_equal(pd.concat(seen), frame)
    with pytest.raises(ValueError, match="ddf must be a dask or dask-cudf DataFrame"):
        next(iter_partitions(frame))


def test_apply_stream_equals_applying_each_partition(stream):
    sources = stream.initial["src"].value_counts().index[:2].tolist()
    updates = pd.concat(list(stream), ignore_index=True)
    ddf = dd.from_pandas(updates, npartitions=5, sort=False)

    g = cgs.StreamGraph.from_edgelist(stream.initial, weight="weight")
    sssp, wcc = g.track(cgs.SSSP(source=sources[0])), g.track(cgs.WCC())
    reports = g.apply_stream(ddf, weight="weight", progress=False)

    one_by_one = cgs.StreamGraph.from_edgelist(stream.initial, weight="weight")
    snapshot = EdgeSnapshot.from_frame(stream.initial, weight="weight")
    assert len(reports) == ddf.npartitions
    for i, report in enumerate(reports):
        part = ddf.get_partition(i).compute()
        expected = one_by_one.apply(part, weight="weight")
        snapshot.apply(part, weight="weight")
        assert isinstance(report, cgs.BatchReport)
        assert (report.rows, report.inserted, report.deleted, report.ignored) == \
            (expected.rows, expected.inserted, expected.deleted, expected.ignored)
    pd.testing.assert_frame_equal(g.edges(), one_by_one.edges())
    assert check_edges(g.edges(), snapshot) == []
    assert check_result("sssp", sssp.result(), snapshot, source=sources[0]) == []
    assert check_result("wcc", wcc.result(), snapshot) == []


def test_bad_partition_names_it_and_keeps_earlier_partitions(stream):
    updates = pd.concat(list(stream), ignore_index=True).iloc[:90].copy()
    updates["op"] = updates["op"].map({1: "insert", -1: "delete"})
    updates.loc[updates.index[70], "op"] = "upsert"
    ddf = dd.from_pandas(updates, npartitions=3, sort=False)
    g = cgs.StreamGraph.from_edgelist(stream.initial, weight="weight")
    snapshot = EdgeSnapshot.from_frame(stream.initial, weight="weight")
    assert [len(ddf.get_partition(i).compute()) for i in range(3)] == [30, 30, 30]
    with pytest.raises(ValueError, match=r"^partition 2 \(rows 60-89 of the stream\): column 'op' "
                                         r"holds an unknown op 'upsert' at row 10 \(row 70 of the "
                                         r"stream\); expected") as caught:
        g.apply_stream(ddf, weight="weight", progress=False)
    assert caught.value.row == 70 and updates["op"].iloc[caught.value.row] == "upsert"
    for i in range(2):
        snapshot.apply(ddf.get_partition(i).compute(), weight="weight")
    assert check_edges(g.edges(), snapshot) == []


def test_partition_rows_count_from_the_start_of_the_stream(stream):
    """Rows count over the partitions before, empty ones too; an error that names no
    row still gets the partition's rows in the stream."""
    updates = pd.concat(list(stream), ignore_index=True).iloc[:20].copy()
    updates["weight"] = updates["weight"].astype(object)
    updates.loc[updates.index[9], "weight"] = "heavy"
    updates.loc[updates.index[9], "op"] = 1
    parts = [updates.iloc[:8], updates.iloc[8:8], updates.iloc[8:20]]
    ddf = dd.from_delayed([dask.delayed(p) for p in parts], meta=updates.iloc[:0], verify_meta=False)
    g = cgs.StreamGraph.from_edgelist(stream.initial, weight="weight")
    with pytest.raises(ValueError, match=r"^partition 2 \(rows 8-19 of the stream\): column 'weight' "
                                         r"holds a non-numeric weight 'heavy' at row 1 \(row 9 of "
                                         r"the stream\)$"):
        g.apply_stream(ddf, weight="weight", progress=False)
    from cugraph_stream.frame.partitions import apply_partitions

    def reject(part):
        raise ValueError("no")
    empty = dd.from_delayed([dask.delayed(updates.iloc[:3]), dask.delayed(updates.iloc[:0])],
                            meta=updates.iloc[:0], verify_meta=False)
    with pytest.raises(ValueError, match=r"^partition 1 \(no rows, after 3 of the stream\): no$"):
        apply_partitions(empty, ["src"], lambda part: len(part) or reject(part), progress=False)
    with pytest.raises(ValueError, match=r"^partition 0 \(rows 0-2 of the stream\): no$"):
        apply_partitions(empty, ["src"], reject, progress=False)


def test_missing_column_is_reported_before_any_partition(stream):
    g = cgs.StreamGraph.from_edgelist(stream.initial, weight="weight")
    edges_before = g.edges()
    ddf = dd.from_pandas(pd.concat(list(stream), ignore_index=True), npartitions=2, sort=False)
    with pytest.raises(ValueError, match="column 'w' not found"):
        g.apply_stream(ddf, weight="w", progress=False)
    with pytest.raises(ValueError, match="ddf must be a dask"):
        g.apply_stream(stream[0], weight="weight")
    pd.testing.assert_frame_equal(g.edges(), edges_before)


def test_progress_bar_and_quiet(stream, capsys):
    pytest.importorskip("tqdm")
    ddf = dd.from_pandas(pd.concat(list(stream)[:2], ignore_index=True), npartitions=3,
                         sort=False)
    g = cgs.StreamGraph.from_edgelist(stream.initial, weight="weight")
    g.apply_stream(ddf, weight="weight", progress=True)
    err = capsys.readouterr().err
    assert "partitions" in err and "3/3" in err
    g.apply_stream(ddf, weight="weight", progress=False)
    assert capsys.readouterr().err == ""
