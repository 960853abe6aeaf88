import gzip

import numpy as np
import pandas as pd
import pytest
import scipy.io
import scipy.sparse

from cugraph_stream.datasets import (
    read_csv,
    read_edgelist,
    read_matrix_market,
    read_parquet,
    read_snap,
)


def _write(path, text):
    path.write_text(text)
    return path


# --- SNAP -----------------------------------------------------------------

def test_snap_unweighted(tmp_path):
    p = _write(tmp_path / "g.txt",
               "# Directed graph\n# FromNodeId\tToNodeId\n0\t1\n1 2\n  2   0\n\n")
    df = read_snap(p)
    assert list(df.columns) == ["src", "dst"]
    assert df.src.dtype == np.int64
    assert df.src.tolist() == [0, 1, 2] and df.dst.tolist() == [1, 2, 0]


def test_snap_weighted_and_extra_columns(tmp_path):
    p = _write(tmp_path / "g.txt", "0 1 2.5 999\n3 4 1 1000\n")
    df = read_snap(p, weight_dtype="float32")
    assert list(df.columns) == ["src", "dst", "weight"]
    assert df.weight.dtype == np.float32
    assert df.weight.tolist() == [2.5, 1.0]


def test_snap_large_ids_exact(tmp_path):
    big = 2**60 + 1  # not representable as float64
    p = _write(tmp_path / "g.txt", f"{big} -5\n")
    df = read_snap(p)
    assert df.src.iloc[0] == big and df.dst.iloc[0] == -5


def test_snap_gzip_and_empty(tmp_path):
    p = tmp_path / "g.txt.gz"
    with gzip.open(p, "wt") as f:
        f.write("# c\n5 6\n")
    assert read_snap(p).values.tolist() == [[5, 6]]
    empty = read_snap(_write(tmp_path / "e.txt", "# nothing\n"))
    assert len(empty) == 0 and list(empty.columns) == ["src", "dst"]


def test_snap_errors(tmp_path):
    with pytest.raises(ValueError, match="does not exist"):
        read_snap(tmp_path / "missing.txt")
    with pytest.raises(ValueError, match="at least 2 columns"):
        read_snap(_write(tmp_path / "one.txt", "1\n2\n"))
    with pytest.raises(ValueError, match="src"):
        read_snap(_write(tmp_path / "frac.txt", "1.5 2\n"))
    with pytest.raises(ValueError, match="path"):
        read_snap(42)


# --- Matrix Market ----------------------------------------------------------

def test_matrix_market_general(tmp_path):
    m = scipy.sparse.coo_matrix(([0.5, 2.0, 3.0], ([0, 1, 2], [1, 2, 0])), shape=(3, 3))
    p = tmp_path / "g.mtx"
    scipy.io.mmwrite(p, m)
    df = read_matrix_market(p).sort_values(["src", "dst"]).reset_index(drop=True)
    assert df.src.tolist() == [0, 1, 2] and df.dst.tolist() == [1, 2, 0]
    assert df.weight.dtype == np.float64 and df.weight.tolist() == [0.5, 2.0, 3.0]


def test_matrix_market_symmetric_expands(tmp_path):
    p = _write(tmp_path / "s.mtx",
               "%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n2 1 1.5\n3 3 4\n")
    df = read_matrix_market(p).sort_values(["src", "dst"]).reset_index(drop=True)
    assert df[["src", "dst"]].values.tolist() == [[0, 1], [1, 0], [2, 2]]
    assert df.weight.tolist() == [1.5, 1.5, 4.0]


def test_matrix_market_pattern_and_errors(tmp_path):
    p = _write(tmp_path / "p.mtx",
               "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2\n")
    df = read_matrix_market(p)
    assert list(df.columns) == ["src", "dst"] and df.values.tolist() == [[0, 1]]
    dense = _write(tmp_path / "d.mtx", "%%MatrixMarket matrix array real general\n1 1\n3\n")
    with pytest.raises(ValueError, match="coordinate"):
        read_matrix_market(dense)
    cplx = _write(tmp_path / "c.mtx",
                  "%%MatrixMarket matrix coordinate complex general\n2 2 1\n1 2 1 1\n")
    with pytest.raises(ValueError, match="complex"):
        read_matrix_market(cplx)
    with pytest.raises(ValueError, match="Matrix Market"):
        read_matrix_market(_write(tmp_path / "bad.mtx", "hello\n"))


# --- Parquet and CSV --------------------------------------------------------

@pytest.fixture(params=["csv", "parquet"])
def fmt(request):
    return request.param


def _save(df, path, fmt):
    if fmt == "csv":
        df.to_csv(path, index=False)
    else:
        df.to_parquet(path, index=False)
    return path


def _read(fmt, path, **kw):
    return (read_csv if fmt == "csv" else read_parquet)(path, **kw)


def test_tabular_roundtrip(tmp_path, fmt):
    df = pd.DataFrame({"src": [0, 1, -7], "dst": [1, 2**40, 0], "weight": [1.0, 2.5, 3.0]})
    out = _read(fmt, _save(df, tmp_path / f"g.{fmt}", fmt))
    pd.testing.assert_frame_equal(out, df)


def test_tabular_renamed_columns_and_op(tmp_path, fmt):
    df = pd.DataFrame({"a": [0, 1], "b": [1, 2], "w": [1, 2], "kind": ["insert", "delete"]})
    p = _save(df, tmp_path / f"g.{fmt}", fmt)
    out = _read(fmt, p, source="a", destination="b", weight="w", op="kind")
    assert list(out.columns) == ["src", "dst", "weight", "op"]
    assert out.weight.dtype == np.float64  # integer weights become float
    assert out.op.tolist() == ["insert", "delete"]
    # default weight name is optional
    out = _read(fmt, p, source="a", destination="b")
    assert list(out.columns) == ["src", "dst"]
    out = _read(fmt, p, source="a", destination="b", weight=None)
    assert list(out.columns) == ["src", "dst"]


def test_tabular_missing_columns(tmp_path, fmt):
    p = _save(pd.DataFrame({"a": [0], "b": [1]}), tmp_path / f"g.{fmt}", fmt)
    with pytest.raises(ValueError, match="source: column 'src' not found"):
        _read(fmt, p)
    with pytest.raises(ValueError, match="weight: column 'w' not found"):
        _read(fmt, p, source="a", destination="b", weight="w")
    with pytest.raises(ValueError, match="op: column 'op' not found"):
        _read(fmt, p, source="a", destination="b", op="op")
    with pytest.raises(ValueError, match="source must be a column name"):
        _read(fmt, p, source=1)


def test_tabular_null_id(tmp_path, fmt):
    df = pd.DataFrame({"src": [0, None, 2], "dst": [1, 2, 3]})
    p = _save(df, tmp_path / f"g.{fmt}", fmt)
    with pytest.raises(ValueError, match="src: .* row 1"):
        _read(fmt, p)


def test_parquet_float32_weight_kept(tmp_path):
    df = pd.DataFrame({"src": [0], "dst": [1], "weight": np.array([1.5], np.float32)})
    p = _save(df, tmp_path / "g.parquet", "parquet")
    assert read_parquet(p).weight.dtype == np.float32
    assert read_parquet(p, weight_dtype="float64").weight.dtype == np.float64
    with pytest.raises(ValueError, match="weight_dtype"):
        read_parquet(p, weight_dtype="int8")


def test_parquet_bad_file(tmp_path):
    with pytest.raises(ValueError, match="Parquet"):
        read_parquet(_write(tmp_path / "x.parquet", "not parquet"))


def test_csv_empty(tmp_path):
    with pytest.raises(ValueError, match="empty"):
        read_csv(_write(tmp_path / "e.csv", ""))
    out = read_csv(_write(tmp_path / "h.csv", "src,dst\n"))
    assert len(out) == 0 and out.src.dtype == np.int64


# --- dispatch ---------------------------------------------------------------

def test_read_edgelist_dispatch(tmp_path):
    df = pd.DataFrame({"src": [0, 1], "dst": [1, 2], "weight": [1.0, 2.0]})
    df.to_csv(tmp_path / "g.csv", index=False)
    df.to_csv(tmp_path / "g.tsv", index=False, sep="\t")
    df.to_csv(tmp_path / "g.csv.gz", index=False)
    df.to_parquet(tmp_path / "g.parquet", index=False)
    df.to_parquet(tmp_path / "g.pq", index=False)
    _write(tmp_path / "g.txt", "0 1 1\n1 2 2\n")
    _write(tmp_path / "g.mtx",
           "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 2 1\n2 3 2\n")
    for name in ["g.csv", "g.tsv", "g.csv.gz", "g.parquet", "g.pq", "g.txt", "g.mtx"]:
        out = read_edgelist(tmp_path / name)
        pd.testing.assert_frame_equal(out, df, obj=name)
    with pytest.raises(ValueError, match="unknown edge-list format"):
        read_edgelist(_write(tmp_path / "g.xyz", "0 1\n"))
