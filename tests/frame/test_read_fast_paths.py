"""The cheap paths of reading a batch (``frame.columns`` and ``frame.batch.read_rows``).

Plain NumPy columns (in pandas frames and dicts) are read without building a
Series or asking pandas for nulls, column names are checked without listing
them, ops are coded in one pass (by distinct value for a long column of
strings), and the host-side checks use fewer NumPy calls.  Each of these
must read exactly what the general path reads: the same arrays, the same null
masks, and the same ``ValueError`` naming the column and the first offending
row.  The messages are pinned verbatim here.
"""
import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from cugraph_stream.backends import get_backend
from cugraph_stream.floats import negative, ordered_bits
from cugraph_stream.frame.batch import parse_ops, read_rows
from cugraph_stream.frame.columns import read_column, require_columns

NAMES = ("src", "dst", "weight", "op")


def read(table, weight="weight", op="op", weight_dtype=np.float32, nonnegative_for=None):
    return read_rows(table, "src", "dst", weight, op, weight_dtype, get_backend("cpu"), nonnegative_for=nonnegative_for)


def rejects(table, message, **kw):
    with pytest.raises(ValueError) as exc:
        read(table, **kw)
    assert str(exc.value) == message


def batch(fmt, **columns):
    """A four-row batch in ``fmt``; ``columns`` replace the good ones."""
    cols = {"src": np.array([1, 2, 3, 4]), "dst": np.array([2, 3, 4, 5]),
            "weight": np.array([1.0, 2.0, 0.5, 1.5]), "op": np.array([1, 1, -1, 1], dtype=np.int8)}
    cols.update(columns)
    if fmt == "pandas":
        return pd.DataFrame(cols)
    if fmt == "arrow":
        return pa.table(cols)
    if fmt == "series":
        return {k: pd.Series(v) for k, v in cols.items()}
    return cols


NUMPY_DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint32", "uint64", "float16", "float32",
                "float64", "bool", ">i8", ">f8"]


@pytest.mark.parametrize("dtype", NUMPY_DTYPES)
@pytest.mark.parametrize("with_nan", [False, True])
def test_numpy_column_reads_like_a_series(dtype, with_nan):
    array = np.array([0, 1, 1, 0, 1], dtype=dtype)
    if with_nan:
        if np.dtype(dtype).kind != "f":
            pytest.skip("only floats hold NaN")
        array[[1, 3]] = np.nan
    series = pd.Series(array)
    expected_nulls = series.isna().to_numpy()
    for table in ({"x": array}, pd.DataFrame({"x": array}), {"x": series}):
        values, nulls = read_column(table, "x")
        assert values.dtype == series.to_numpy().dtype
        np.testing.assert_array_equal(values, series.to_numpy())
        if expected_nulls.any():
            assert nulls.tolist() == expected_nulls.tolist()
        else:
            assert nulls is None
        assert not values.flags.writeable
    values, _ = read_column({"x": array}, "x")
    assert not np.shares_memory(values, array)      # a copy, as through pd.Series: never the caller's array


def test_list_and_tuple_columns_read_like_arrays():
    for column in ([1, 2, 3], (1.0, float("nan"), 3.0), range(3)):
        values, nulls = read_column({"x": column}, "x")
        expected = pd.Series(np.asarray(column))
        np.testing.assert_array_equal(values, expected.to_numpy())
        assert (nulls is None) == (not expected.isna().any())


@pytest.mark.parametrize("fmt", ["pandas", "series"])
def test_nullable_int64_id_with_a_null(fmt):
    rejects(batch(fmt, src=pd.array([1, 2, None, 4], dtype="Int64")),
            "column 'src' holds a null vertex id at row 2")
    values, nulls = read_column(batch(fmt, src=pd.array([1, 2**62 + 1, None, 4], dtype="Int64")), "src")
    assert values.tolist() == [1, 2**62 + 1, 0, 4] and nulls.tolist() == [False, False, True, False]


@pytest.mark.parametrize("fmt", ["pandas", "dict", "series"])
def test_float_nan_id_is_a_null_id(fmt):
    rejects(batch(fmt, dst=np.array([2.0, 3.0, np.nan, np.nan])), "column 'dst' holds a null vertex id at row 2")


def test_float_nan_id_in_arrow_is_not_a_null():
    # arrow keeps NaN apart from null: a NaN id is a non-finite one
    rejects(batch("arrow", dst=np.array([2.0, 3.0, np.nan, 5.0])),
            "column 'dst' holds a non-finite vertex id nan at row 2")


@pytest.mark.parametrize("fmt", ["pandas", "dict", "arrow", "series"])
def test_float_ids(fmt):
    rows = read(batch(fmt, src=np.array([1.0, -2.0, 2.0 ** 62, -0.0])))
    assert rows.src.dtype == np.int64 and rows.src.tolist() == [1, -2, 2 ** 62, 0]
    rejects(batch(fmt, src=np.array([1.0, 2.5, 3.0, 4.0])), "column 'src' holds a non-integer vertex id 2.5 at row 1")
    rejects(batch(fmt, src=np.array([1.0, 2.0, 3.0, 2.0 ** 63])),
            f"column 'src' holds a vertex id beyond int64 {2.0 ** 63} at row 3")


@pytest.mark.parametrize("fmt", ["pandas", "dict", "series"])
def test_nan_weight_is_a_null_weight(fmt):
    rejects(batch(fmt, weight=np.array([1.0, np.nan, 0.5, 1.5])),
            "column 'weight' holds a null weight at row 1, an insert row")
    rows = read(batch(fmt, weight=np.array([1.0, 2.0, np.nan, 1.5])))    # on a delete row: fine
    assert rows.weight.tolist() == [1.0, 2.0, 0.0, 1.5] and rows.op.tolist() == [1, 1, -1, 1]


@pytest.mark.parametrize("fmt", ["pandas", "dict", "arrow"])
@pytest.mark.parametrize("weight_dtype", [np.float32, np.float64])
def test_negative_weights_by_their_bits(fmt, weight_dtype):
    tiny = np.finfo(weight_dtype).smallest_subnormal
    rows = read(batch(fmt, weight=np.array([1.0, -0.0, 0.0, 2.0])), weight_dtype=weight_dtype, nonnegative_for="SSSP")
    assert rows.largest_weight == 2.0
    rejects(batch(fmt, weight=np.array([1.0, 2.0, 0.5, -float(tiny)])),
            f"column 'weight' holds a negative weight {-float(tiny)} at row 3, but SSSP needs non-negative weights",
            weight_dtype=weight_dtype, nonnegative_for="SSSP")
    rows = read(batch(fmt, weight=np.array([1.0, 2.0, -7.0, -1.0])), weight_dtype=weight_dtype)
    assert rows.weight.tolist() == [1.0, 2.0, 0.0, -1.0] and rows.largest_weight == 2.0


def test_negative_matches_ordered_bits():
    for dtype, width in ((np.float32, np.int32), (np.float64, np.int64)):
        special = np.array([-np.inf, -1.0, -0.0, 0.0, np.inf, np.nan, -np.nan,
                            np.finfo(dtype).smallest_subnormal, -np.finfo(dtype).smallest_subnormal], dtype=dtype)
        noise = np.random.default_rng(0).integers(np.iinfo(width).min, np.iinfo(width).max, 10_000,
                                                  dtype=width).view(dtype)
        for weights in (special, noise):
            assert negative(weights).tolist() == (ordered_bits(weights) < 0).tolist()


OP_WORDS = ["insert", "DELETE", " Insert ", "delete\n", "iNsErT", "Delete"]
OP_CODES = [1, -1, 1, -1, 1, -1]


def string_ops(fmt, words):
    if fmt == "pandas str":
        return pd.Series(words, dtype="str")
    if fmt == "pandas object":
        return pd.Series(words, dtype=object)
    if fmt == "arrow":
        return pa.array(words, pa.string())
    if fmt == "numpy str":
        return np.array(words)
    return np.array(words, dtype=object)


STRING_FORMATS = ["pandas str", "pandas object", "arrow", "numpy str", "numpy object"]


@pytest.mark.parametrize("fmt", STRING_FORMATS)
@pytest.mark.parametrize("rows", [6, 300])      # 300: a long column of strings, coded by distinct value
def test_string_op_column(fmt, rows):
    words = (OP_WORDS * rows)[:rows]
    codes = (OP_CODES * rows)[:rows]
    n = len(words)
    table = {"src": np.arange(n), "dst": np.arange(n) + 1, "weight": np.ones(n), "op": string_ops(fmt, words)}
    assert read(table).op.tolist() == codes
    bad = list(words)
    bad[-2] = "upsert"
    table["op"] = string_ops(fmt, bad)
    rejects(table, f"column 'op' holds an unknown op 'upsert' at row {n - 2}; "
                   "expected 'insert' or 'delete' (any case), or 1 or -1")
    rejects(table, f"column 'op' holds an unknown op 'upsert' at row {n - 2}; "
                   "expected 'insert' or 'delete' (any case), or 1 or -1", weight=None)
    if fmt != "numpy str":
        bad[-2] = None
        table["op"] = string_ops(fmt, bad)
        rejects(table, f"column 'op' holds a null op at row {n - 2}")


def test_object_ops_with_numbers():
    values = np.array(["insert", 1, -1.0, np.int8(1), np.float32(-1.0), " DELETE", 2, 1.5, True, None,
                       2 ** 63, -1, 2 ** 64 - 1, np.str_("Insert")], dtype=object)
    assert parse_ops(values, None, "op", check=False).tolist() == [1, 1, -1, 1, -1, -1, 0, 0, 0, 0, 0, -1, 0, 1]
    long = np.array(["insert", 1, "Delete", -1] * 80, dtype=object)        # long, but not strings only
    assert parse_ops(long, None, "op").tolist() == [1, 1, -1, -1] * 80
    with pytest.raises(ValueError, match=r"^column 'op' holds an unknown op True at row 0;"):
        parse_ops(np.array([True, "insert"], dtype=object), None, "op")


@pytest.mark.parametrize("fmt", ["table", "batch", "chunked"])
def test_arrow_table_with_nulls(fmt):
    cols = {"src": pa.array([1, 2, 3, 4]), "dst": pa.array([2, 3, 4, 5]),
            "weight": pa.array([1.0, 2.0, None, 1.5]), "op": pa.array(["insert", "insert", "delete", "Insert"])}

    def make(**spoil):
        data = {**cols, **{k: pa.array(v) for k, v in spoil.items()}}
        if fmt == "batch":
            return pa.record_batch(list(data.values()), names=list(data))
        table = pa.table(data)
        if fmt == "chunked":
            table = pa.concat_tables([table.slice(0, 1), table.slice(1)])
        return table

    rows = read(make())          # a null weight on a delete row
    assert rows.weight.tolist() == [1.0, 2.0, 0.0, 1.5] and rows.op.tolist() == [1, 1, -1, 1]
    rejects(make(src=[1, None, 3, 4]), "column 'src' holds a null vertex id at row 1")
    rejects(make(dst=[2, 3, 4, None]), "column 'dst' holds a null vertex id at row 3")
    rejects(make(weight=[1.0, None, 2.0, 1.5]), "column 'weight' holds a null weight at row 1, an insert row")
    rejects(make(op=["insert", None, "delete", "insert"]), "column 'op' holds a null op at row 1")
    values, nulls = read_column(make(src=[1, None, 2**62 + 1, 4]), "src")
    assert values.tolist() == [1, 0, 2**62 + 1, 4] and nulls.tolist() == [False, True, False, False]


def test_column_names_checked_as_listed():
    good = {name: np.array([1, 2]) for name in NAMES}
    # names that are not strings, or that read alike, take the general path
    frame = pd.DataFrame(good)
    frame.columns = [0, 1, 2, 3]
    with pytest.raises(ValueError, match=r"^column 0 not found; the table has columns \['0', '1', '2', '3'\]$"):
        require_columns(frame, [0, 1])
    frame = pd.DataFrame({**good, "x": [0, 0]})
    frame.columns = ["src", "dst", "weight", "1", 1]
    with pytest.raises(ValueError, match=r"^column '1' appears 2 times in the table; column names must be unique$"):
        require_columns(frame, ["src", "1"])
    frame.columns = ["src", "dst", "weight", "nan", np.nan]
    with pytest.raises(ValueError, match=r"^column 'nan' appears 2 times"):
        require_columns(frame, ["nan"])
    with pytest.raises(ValueError, match=r"^column '1' appears 2 times"):
        require_columns({**good, "1": good["src"], 1: good["src"]}, ["1"])
    table = pa.Table.from_arrays([pa.array([1])] * 3, names=["src", "dst", "src"])
    with pytest.raises(ValueError, match=r"^column 'src' appears 2 times"):
        require_columns(table, ["dst", "src"])
    require_columns(table, ["dst", None])            # a repeated column that is not asked for is fine
    for table in (pd.DataFrame(good), pa.table(good), good):
        require_columns(table, ["src", "dst", None, "op"])
        with pytest.raises(ValueError, match=r"^column 'w' not found; the table has columns "
                                             r"\['src', 'dst', 'weight', 'op'\]$"):
            require_columns(table, ["src", "w"])


@pytest.mark.parametrize("dtype", ["string", "str", object])
def test_string_column_of_a_frame_reads_like_its_series(dtype):
    from cugraph_stream.frame.columns import _from_pandas

    frame = pd.DataFrame({"op": pd.array(["insert", None, "DELETE"], dtype=dtype), "x": [1, 2, 3]})
    values, nulls = read_column(frame, "op")
    expected_values, expected_nulls = _from_pandas(frame["op"])
    assert values.dtype == object and values.tolist() == expected_values.tolist()
    assert nulls.tolist() == expected_nulls.tolist() == [False, True, False]


def test_frame_columns_are_found_again_in_a_new_frame_with_other_labels():
    # the label cache holds one Index: a new frame's columns are never read by the old positions
    first = pd.DataFrame({"a": [1], "b": [2]})
    assert read_column(first, "b")[0].tolist() == [2]
    second = pd.DataFrame({"b": [3], "a": [4]})
    assert read_column(second, "b")[0].tolist() == [3] and read_column(second, "a")[0].tolist() == [4]
    numbered = pd.DataFrame({0: [5], "a": [6]})
    assert read_column(numbered, "a")[0].tolist() == [6]


@pytest.mark.parametrize("dtype", ["str", "string", "string[pyarrow]", object])
def test_column_labels_read_alike_whatever_the_index_dtype(dtype):
    # (pandas 3's str labels are listed through their Arrow array: a missing label as tolist gives it)
    from cugraph_stream.frame.columns import column_names

    frame = pd.DataFrame([[1, 2, 3]])
    frame.columns = pd.Index(["src", "dst", None], dtype=dtype)
    assert column_names(frame) == [str(label) for label in frame.columns.tolist()]
    frame.columns = pd.Index(["src", "dst", "w"], dtype=dtype)
    assert column_names(frame) == ["src", "dst", "w"] and read_column(frame, "w")[0].tolist() == [3]
