import numpy as np
import pandas as pd
import pytest

from cugraph_stream.datasets import rmat
from cugraph_stream.datasets.rmat import _CHUNK


def _keys(df):
    return df.src.to_numpy() * (1 << 32) + df.dst.to_numpy()


def test_columns_dtypes_and_index():
    df = rmat(10, seed=3)
    assert list(df.columns) == ["src", "dst", "weight"]
    assert df.src.dtype == np.int64 and df.dst.dtype == np.int64
    assert df.weight.dtype == np.float32
    assert isinstance(df.index, pd.RangeIndex) and df.index.start == 0


@pytest.mark.parametrize("directed", [True, False])
def test_simple_graph(directed):
    df = rmat(11, edge_factor=8, seed=1, directed=directed)
    src, dst = df.src.to_numpy(), df.dst.to_numpy()
    assert (src != dst).all()
    assert src.min() >= 0 and max(src.max(), dst.max()) < 2**11
    keys = _keys(df)
    assert (np.diff(keys) > 0).all()  # sorted by (src, dst), no duplicates
    if not directed:
        assert (src < dst).all()  # each undirected edge once
    # duplicates and self loops are removed: fewer edges than drawn
    assert 0.5 * 8 * 2**11 < len(df) < 8 * 2**11


def test_deterministic_for_seed():
    a = rmat(9, seed=7)
    b = rmat(9, seed=7)
    c = rmat(9, seed=8)
    pd.testing.assert_frame_equal(a, b)
    assert not a.equals(c)


def test_many_chunks_deterministic_and_unique():
    # more edges than one chunk: chunk boundaries must not create duplicates
    scale, ef = 16, 2 * _CHUNK >> 16
    df = rmat(scale, edge_factor=ef + 1, seed=2, weights=None)
    assert list(df.columns) == ["src", "dst"]
    assert len(df) < (ef + 1) << scale
    assert (np.diff(_keys(df)) > 0).all()
    pd.testing.assert_frame_equal(df, rmat(scale, edge_factor=ef + 1, seed=2, weights=None))


def test_weights_range_and_dtype():
    df = rmat(10, weights=(2.0, 3.0), weight_dtype="float64", seed=4)
    assert df.weight.dtype == np.float64
    assert df.weight.min() >= 2.0 and df.weight.max() < 3.0
    # roughly uniform
    assert abs(df.weight.mean() - 2.5) < 0.02
    tiny = rmat(8, weights=(1.0, float(np.nextafter(np.float32(1), np.float32(2)))), seed=0)
    assert (tiny.weight == 1.0).all()  # [low, high) even when high is the next float


def test_quadrant_probabilities():
    # distribution of the top bit pair follows a, b, c, d (before dedup, close after)
    a, b, c = 0.4, 0.3, 0.2
    scale = 12
    df = rmat(scale, edge_factor=64, a=a, b=b, c=c, seed=0, weights=None)
    half = 1 << (scale - 1)
    s_hi, d_hi = df.src >= half, df.dst >= half
    n = len(df)
    # top-left quadrant loses many duplicates; compare the ratios of the others
    frac_b = (~s_hi & d_hi).sum() / n
    frac_c = (s_hi & ~d_hi).sum() / n
    assert frac_b > frac_c
    assert 1.2 < frac_b / frac_c < 1.8  # 0.3 / 0.2 = 1.5
    # uniform R-MAT (Erdos-Renyi like): quadrants equally likely
    er = rmat(scale, edge_factor=4, a=0.25, b=0.25, c=0.25, seed=0, weights=None)
    q = ((er.src >= half) * 2 + (er.dst >= half)).value_counts(normalize=True)
    assert np.allclose(q.sort_index().to_numpy(), 0.25, atol=0.01)


def test_skewed_degrees():
    df = rmat(12, seed=0, weights=None)
    deg = np.bincount(df.src.to_numpy(), minlength=2**12)
    assert deg.argmax() == 0  # vertex 0 is the hub without permutation
    assert deg.max() > 20 * deg.mean()


def test_permute():
    plain = rmat(10, seed=5, weights=None)
    perm = rmat(10, seed=5, weights=None, permute=True)
    assert len(perm) == len(plain)  # relabelling keeps the edge count
    assert (np.diff(_keys(perm)) > 0).all()
    # degree sequences are the same multiset
    d1 = np.sort(np.bincount(plain.src, minlength=1024))
    d2 = np.sort(np.bincount(perm.src, minlength=1024))
    assert (d1 == d2).all()
    assert not plain.equals(perm)
    und = rmat(10, seed=5, weights=None, permute=True, directed=False)
    assert (und.src < und.dst).all()


def test_undirected_collapses_reverse_pairs():
    directed = rmat(9, seed=6, weights=None)
    undirected = rmat(9, seed=6, weights=None, directed=False)
    lo = np.minimum(directed.src, directed.dst)
    hi = np.maximum(directed.src, directed.dst)
    expected = pd.DataFrame({"src": lo, "dst": hi}).drop_duplicates()
    expected = expected.sort_values(["src", "dst"]).reset_index(drop=True)
    pd.testing.assert_frame_equal(undirected, expected)


@pytest.mark.parametrize(
    "kwargs, name",
    [
        ({"scale": 0}, "scale"),
        ({"scale": 32}, "scale"),
        ({"scale": 2.5}, "scale"),
        ({"scale": True}, "scale"),
        ({"scale": 4, "edge_factor": 0}, "edge_factor"),
        ({"scale": 4, "a": 1.5}, "a"),
        ({"scale": 4, "b": -0.1}, "b"),
        ({"scale": 4, "a": 0.5, "b": 0.3, "c": 0.3}, "a + b + c"),
        ({"scale": 4, "seed": -1}, "seed"),
        ({"scale": 4, "weights": (3.0, 1.0)}, "weights"),
        ({"scale": 4, "weights": (1.0, float("inf"))}, "weights"),
        ({"scale": 4, "weights": 5}, "weights"),
        ({"scale": 4, "weight_dtype": "int32"}, "weight_dtype"),
        ({"scale": 4, "weight_dtype": "nonsense"}, "weight_dtype"),
        ({"scale": 4, "backend": "tpu"}, "backend"),
    ],
)
def test_bad_arguments(kwargs, name):
    with pytest.raises(ValueError, match=name.replace("+", r"\+")):
        rmat(**kwargs)


def test_gpu_backend_without_cupy():
    try:
        import cupy  # noqa: F401
    except ImportError:
        with pytest.raises(ValueError, match="CuPy"):
            rmat(4, backend="gpu")
    else:  # pragma: no cover - only where a GPU is present
        out = rmat(6, backend="gpu", seed=1)
        src = out["src"]
        src = src.get() if hasattr(src, "get") else src.to_numpy()
        assert len(src) > 0
