import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from cugraph_stream.datasets import DELETE, INSERT, EdgeStream, mixed_stream, rmat


def _edge_set(df):
    return set(zip(df.src.tolist(), df.dst.tolist()))


def _replay(stream):
    """Apply the batches to the initial edge set with Python sets (test oracle)."""
    edges = _edge_set(stream.initial)
    for batch in stream:
        for s, d, op in zip(batch.src.tolist(), batch.dst.tolist(), batch.op.tolist()):
            if op == 1:
                assert (s, d) not in edges  # insertions are of absent edges
                edges.add((s, d))
            else:
                assert (s, d) in edges  # deletions are of present edges
                edges.remove((s, d))
    return edges


def test_protocol():
    edges = rmat(10, seed=1)
    stream = mixed_stream(edges, num_batches=5, batch_size=200, delete_fraction=0.3, seed=2)
    assert isinstance(stream, EdgeStream)
    assert len(stream) == 5 and all(len(b) == 200 for b in stream)
    assert stream.num_deletes == 300 and stream.num_inserts == 700
    updates = pd.concat(stream.batches, ignore_index=True)
    assert list(updates.columns) == ["src", "dst", "weight", "op"]
    assert updates.op.dtype == np.int8
    assert set(updates.op.unique()) == {INSERT, DELETE}
    assert (updates.op == -1).sum() == 300
    # distinct sampled edges
    assert not updates.duplicated(["src", "dst"]).any()
    # inserts absent from G0, deletes present in G0
    g0 = _edge_set(stream.initial)
    ins = updates[updates.op == 1]
    dels = updates[updates.op == -1]
    assert not (_edge_set(ins) & g0)
    assert _edge_set(dels) <= g0
    assert len(stream.initial) == len(edges) - 700
    # final graph = input minus deletions
    assert _replay(stream) == _edge_set(edges) - _edge_set(dels)
    # weights carried along from the input
    merged = updates.merge(edges, on=["src", "dst"], suffixes=("", "_in"))
    assert len(merged) == len(updates) and (merged.weight == merged.weight_in).all()
    # initial keeps the input order
    assert stream.initial.index.equals(pd.RangeIndex(len(stream.initial)))
    keys = stream.initial.src.to_numpy() * 2**20 + stream.initial.dst.to_numpy()
    assert (np.diff(keys) > 0).all()


def test_shuffled_across_batches():
    edges = rmat(10, seed=1)
    stream = mixed_stream(edges, num_batches=4, batch_size=250, seed=0)
    fractions = [(b.op == -1).mean() for b in stream]
    assert all(0.3 < f < 0.7 for f in fractions)  # deletes are mixed in, not grouped


def test_deterministic():
    edges = rmat(9, seed=1)
    a = mixed_stream(edges, 3, 50, seed=4)
    b = mixed_stream(edges, 3, 50, seed=4)
    c = mixed_stream(edges, 3, 50, seed=5)
    pd.testing.assert_frame_equal(a.initial, b.initial)
    for x, y in zip(a, b):
        pd.testing.assert_frame_equal(x, y)
    assert not a.batches[0].equals(c.batches[0])


@pytest.mark.parametrize("fraction, deletes", [(0.0, 0), (1.0, 40), (0.25, 10)])
def test_delete_fraction_extremes(fraction, deletes):
    edges = rmat(8, seed=0)
    s = mixed_stream(edges, 4, 10, delete_fraction=fraction)
    assert s.num_deletes == deletes
    assert len(s.initial) == len(edges) - (40 - deletes)
    assert sum(int((b.op == -1).sum()) for b in s) == deletes


def test_no_weight_column_and_other_inputs():
    edges = {"a": np.arange(20), "b": np.arange(1, 21)}
    s = mixed_stream(edges, 2, 5, source="a", destination="b")
    assert list(s.batches[0].columns) == ["src", "dst", "op"]
    table = pa.table({"src": np.arange(20), "dst": np.arange(1, 21), "weight": np.ones(20)})
    s = mixed_stream(table, 2, 5)
    assert list(s.batches[0].columns) == ["src", "dst", "weight", "op"]
    s = mixed_stream(pd.DataFrame({"src": [0, 1], "dst": [1, 2]}), 0, 1)
    assert len(s) == 0 and len(s.initial) == 2
    assert list(iter(s)) == []


def test_duplicates_collapsed():
    # (0, 1) twice and (1, 0): a directed stream sees 2 distinct edges, undirected 1
    edges = pd.DataFrame({"src": [0, 0, 1], "dst": [1, 1, 0], "weight": [1.0, 2.0, 3.0]})
    s = mixed_stream(edges, 1, 2, delete_fraction=0.0)
    assert len(s.initial) == 0
    assert sorted(s.batches[0].weight.tolist()) == [2.0, 3.0]  # last duplicate kept
    with pytest.raises(ValueError, match="1 distinct edges"):
        mixed_stream(edges, 1, 2, directed=False)
    s = mixed_stream(edges, 1, 1, directed=False, delete_fraction=1.0)
    assert len(s.initial) == 1 and s.initial.weight.tolist() == [3.0]


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"num_batches": -1}, "num_batches"),
        ({"num_batches": 1.5}, "num_batches"),
        ({"batch_size": 0}, "batch_size"),
        ({"delete_fraction": 1.5}, "delete_fraction"),
        ({"delete_fraction": "half"}, "delete_fraction"),
        ({"seed": -3}, "seed"),
        ({"num_batches": 100, "batch_size": 100}, "exceeds"),
        ({"source": "s"}, "source"),
        ({"weight": "w"}, "weight"),
    ],
)
def test_bad_arguments(kwargs, match):
    edges = pd.DataFrame({"src": range(10), "dst": range(1, 11)})
    args = {"num_batches": 2, "batch_size": 2, **kwargs}
    with pytest.raises(ValueError, match=match):
        mixed_stream(edges, **args)


def test_bad_edges():
    with pytest.raises(ValueError, match="edges must be"):
        mixed_stream([(0, 1)], 1, 1)
    with pytest.raises(ValueError, match="integers"):
        mixed_stream(pd.DataFrame({"src": [0.5], "dst": [1]}), 0, 1)
