"""Unit tests of :mod:`cugraph_stream.frame.keys`: vertex keys to int64 ids and back."""
import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from cugraph_stream.engine.journal import Journal
from cugraph_stream.frame.keys import VertexKeys, _HostTable


def encode(keys, table, *columns, journal=None):
    encoder = keys.encoder()
    ids = [encoder.encode(table, column) for column in columns]
    encoder.commit(journal)
    return [x.tolist() for x in ids]


# ------------------------------------------------------------------ integers
@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32"])
def test_integer_keys_are_the_ids_and_keep_their_dtype(dtype):
    keys = VertexKeys()
    values = np.array([3, 1, 100], dtype=dtype)
    assert encode(keys, {"s": values}, "s") == [[3, 1, 100]]
    assert keys.kind == "int" and keys.dtypes == (np.dtype(dtype),)
    out = keys.decode(np.array([1, 100], dtype=np.int64))
    assert out.dtype == np.dtype(dtype) and out.tolist() == [1, 100]
    assert len(keys) == 0                       # no table


def test_int64_fast_path_returns_the_column_without_a_copy_of_its_values():
    keys = VertexKeys()
    values = np.arange(5, dtype=np.int64)
    encoder = keys.encoder()
    ids = encoder.encode({"s": values}, "s")
    assert ids.dtype == np.int64 and np.array_equal(ids, values)
    decoded = keys.decode(ids)
    assert decoded is ids                       # int64 keys decode to themselves


def test_uint64_keys_cover_every_value_and_keep_order():
    keys = VertexKeys()
    values = np.array([0, 5, 2**63, 2**64 - 1], dtype=np.uint64)
    (ids,) = encode(keys, {"s": values}, "s")
    assert ids == sorted(ids)                   # order kept by the top-bit flip
    assert keys.decode(np.array(ids)).tolist() == values.tolist()
    assert keys.decode(np.array(ids)).dtype == np.uint64
    assert keys.lookup([5]).tolist() == [ids[1]]


def test_predecessor_none_is_minus_one_for_signed_and_null_for_unsigned():
    signed, unsigned = VertexKeys(), VertexKeys()
    encode(signed, {"s": np.array([1, 2], dtype=np.int32)}, "s")
    encode(unsigned, {"s": np.array([1, 2], dtype=np.uint8)}, "s")
    none = np.array([True, False])
    out = signed.decode(np.array([0, 2]), none=none)
    assert out.dtype == np.int32 and out.tolist() == [-1, 2]
    out = unsigned.decode(np.array([0, 2]), none=none)
    assert str(out.dtype) == "UInt8" and out.isna().tolist() == [True, False]


def test_floats_and_object_ints_read_as_int64_keys():
    keys = VertexKeys()
    assert encode(keys, {"s": [1.0, -2.0]}, "s") == [[1, -2]]
    assert keys.dtypes == (np.dtype(np.int64),)
    assert encode(keys, {"s": np.array([7, 8], dtype=object)}, "s") == [[7, 8]]


def test_integer_beyond_the_recorded_dtype_names_column_and_row():
    keys = VertexKeys()
    encode(keys, {"s": np.array([1], dtype=np.int16)}, "s")
    with pytest.raises(ValueError, match=r"column 'dst' holds vertex id 70000 at row 2, beyond this graph's "
                                         r"vertex key dtype int16"):
        encode(keys, {"dst": np.array([1, 2, 70000])}, "dst")
    unsigned = VertexKeys()
    encode(unsigned, {"s": np.array([1], dtype=np.uint32)}, "s")
    with pytest.raises(ValueError, match=r"column 's' holds vertex id -1 at row 1"):
        encode(unsigned, {"s": np.array([0, -1])}, "s")


def test_strings_into_an_integer_graph_are_rejected_by_column_and_row():
    keys = VertexKeys()
    encode(keys, {"s": np.array([1, 2])}, "s")
    with pytest.raises(ValueError, match=r"column 'src' holds vertex key 'a' at row 0, but this graph's "
                                         r"vertex keys are integers \(int64\), not strings"):
        encode(keys, pd.DataFrame({"src": ["a", "b"]}), "src")
    with pytest.raises(ValueError, match="vertex keys of 2 column"):
        encode(keys, pd.DataFrame({"a": [1], "b": [2]}), ["a", "b"])


def test_booleans_and_fractions_are_still_rejected():
    with pytest.raises(ValueError, match="boolean vertex id"):
        encode(VertexKeys(), {"s": np.array([True, False])}, "s")
    with pytest.raises(ValueError, match="non-integer vertex id 2.5 at row 1"):
        encode(VertexKeys(), {"s": np.array([1.0, 2.5])}, "s")


# ------------------------------------------------------------------- strings
@pytest.mark.parametrize("fmt", ["pandas", "object", "arrow", "arrow-dictionary", "dict", "categorical"])
def test_string_keys_get_codes_in_first_seen_order(fmt):
    src, dst = ["bob", "ann", "bob"], ["cy", "bob", "ann"]
    if fmt == "pandas":
        table = pd.DataFrame({"s": src, "d": dst})
    elif fmt == "object":
        table = pd.DataFrame({"s": pd.Series(src, dtype=object), "d": pd.Series(dst, dtype=object)})
    elif fmt == "arrow":
        table = pa.table({"s": src, "d": dst})
    elif fmt == "arrow-dictionary":
        table = pa.table({"s": pa.array(src).dictionary_encode(), "d": pa.array(dst).dictionary_encode()})
    elif fmt == "dict":
        table = {"s": src, "d": np.array(dst)}
    else:
        table = pd.DataFrame({"s": pd.Categorical(src), "d": pd.Categorical(dst, categories=["z", "cy", "bob",
                                                                                               "ann"])})
    keys = VertexKeys()
    assert encode(keys, table, "s", "d") == [[0, 1, 0], [2, 0, 1]]
    assert keys.kind == "encoded" and len(keys) == 3
    assert list(keys.decode(np.array([2, 1, 0]))) == ["cy", "ann", "bob"]
    assert keys.lookup(["ann", "nobody"]).tolist() == [1, -1]


def test_pandas_string_dtype_is_kept_in_the_output():
    keys = VertexKeys()
    encode(keys, pd.DataFrame({"s": pd.array(["a", "b"], dtype="string")}), "s")
    out = keys.decode(np.array([1, 0]), none=np.array([True, False]))
    assert isinstance(out.dtype, pd.StringDtype)
    assert pd.isna(out[0]) and out[1] == "a"


def test_table_grows_by_levels_and_keeps_codes():
    keys = VertexKeys()
    seen = []
    for batch in range(40):
        names = [f"v{batch * 7 + i}" for i in range(7)] + [f"v{i}" for i in range(0, batch * 7, 13)]
        (ids,) = encode(keys, {"s": names}, "s")
        seen.extend(name for name in names if name not in seen)
        assert ids == [seen.index(name) for name in names]
    table = keys.state.table
    assert len(table.levels) <= 8                # geometric levels, not one per batch
    assert list(keys.decode(np.arange(len(seen)))) == seen
    assert list(keys.decode(np.array([len(seen) - 1, 0, 3]))) == [seen[-1], seen[0], seen[3]]


def test_host_table_take_across_levels():
    table = _HostTable((), 1)
    for chunk in (["a", "b", "c", "d"], ["e"], ["f", "g"], ["h"]):
        table = table.extend(pd.Index(chunk))
    assert len(table) == 8
    assert list(table.take(np.array([7, 0, 4, 5, 2]))[0]) == ["h", "a", "e", "f", "c"]


def test_null_and_bool_keys_name_column_and_row():
    with pytest.raises(ValueError, match="column 'd' holds a null vertex id at row 1"):
        encode(VertexKeys(), pd.DataFrame({"s": ["a", "b"], "d": ["c", None]}), "s", "d")
    keys = VertexKeys()
    encode(keys, {"s": ["a"]}, "s")
    with pytest.raises(ValueError, match="column 's' holds vertex key 5 at row 0, but this graph's vertex keys "
                                         "are strings"):
        encode(keys, {"s": np.array([5])}, "s")


# -------------------------------------------------------------- multi-column
def test_multi_column_keys_of_mixed_dtypes():
    keys = VertexKeys()
    table = pd.DataFrame({"a": ["x", "y", "x"], "b": np.array([1, 2, 2], dtype=np.int32),
                          "c": ["y", "x", "x"], "d": np.array([2, 1, 3], dtype=np.int32)})
    assert encode(keys, table, ["a", "b"], ["c", "d"]) == [[0, 1, 2], [1, 0, 3]]
    assert keys.width == 2 and keys.dtypes[1] == np.dtype(np.int32)
    first, second = keys.decode(np.array([3, 1]))
    assert list(first) == ["x", "y"] and second.tolist() == [3, 2] and second.dtype == np.int32
    assert keys.lookup(("x", 2)).tolist() == [2]
    assert keys.lookup([("y", 2), ("y", 9)]).tolist() == [1, -1]
    assert keys.lookup(pd.DataFrame({"p": ["x"], "q": [3]})).tolist() == [3]
    columns = keys.columns("predecessor", np.array([0, 1]), none=np.array([True, False]))
    assert list(columns) == ["0_predecessor", "1_predecessor"]
    assert pd.isna(columns["0_predecessor"][0]) and columns["1_predecessor"][1] == 2


def test_multi_column_errors():
    keys = VertexKeys()
    encode(keys, pd.DataFrame({"a": ["x"], "b": [1]}), ["a", "b"])
    with pytest.raises(ValueError, match="vertex keys of 1 column"):
        encode(keys, pd.DataFrame({"a": ["x"]}), "a")
    with pytest.raises(ValueError, match=r"column 'b' holds vertex key 'q' at row 0, but this graph's vertex "
                                         r"keys hold integers \(int64\) there, not strings"):
        encode(keys, pd.DataFrame({"a": ["x"], "b": ["q"]}), ["a", "b"])
    with pytest.raises(ValueError, match="column 'b' holds a null vertex id at row 0"):
        encode(keys, pd.DataFrame({"a": ["x"], "b": pd.array([None], dtype="Int64")}), ["a", "b"])
    with pytest.raises(ValueError, match="row 0 is 'x', not a key of 2 parts"):
        keys.lookup(["x"])


# ---------------------------------------------------------------- lifecycle
def test_encoding_changes_nothing_until_commit_and_rollback_takes_keys_back():
    keys = VertexKeys()
    encode(keys, {"s": ["a", "b"]}, "s")
    encoder = keys.encoder()
    assert encoder.encode({"s": ["c", "a"]}, "s").tolist() == [2, 0]
    assert len(keys) == 2                                   # only proposed
    journal = Journal()
    journal.begin()
    encoder.commit(journal)
    assert len(keys) == 3
    journal.rollback()
    assert len(keys) == 2 and keys.lookup(["c"]).tolist() == [-1]
    assert encode(keys, {"s": ["d"]}, "s") == [[2]]         # the code is handed out again


def test_first_batch_rollback_leaves_the_kind_undecided():
    keys = VertexKeys()
    journal = Journal()
    journal.begin()
    encode(keys, {"s": ["a"]}, "s", journal=journal)
    assert keys.kind == "encoded"
    journal.rollback()
    assert keys.kind is None
    assert encode(keys, {"s": np.array([4])}, "s") == [[4]] and keys.kind == "int"


def test_describe_and_restore_round_trip():
    keys = VertexKeys()
    encode(keys, pd.DataFrame({"a": ["x", "y"], "b": np.array([1, 2], dtype=np.uint16)}), ["a", "b"])
    copy = VertexKeys()
    copy.restore(keys.describe(), keys.table_columns())
    assert copy.describe() == keys.describe()
    assert copy.lookup([("y", 2), ("x", 1)]).tolist() == [1, 0]
    assert copy.decode(np.array([1]))[1].dtype == np.uint16
    ints = VertexKeys()
    encode(ints, {"s": np.array([1], dtype=np.int32)}, "s")
    again = VertexKeys()
    again.restore(ints.describe(), ints.table_columns())
    assert again.kind == "int" and again.dtypes == (np.dtype(np.int32),)


# ------------------------------------------------------------------ on the GPU
@pytest.mark.gpu
def test_device_table_gives_the_host_tables_codes():
    """The cuDF key table (merge, drop_duplicates, concat, take) codes keys as the
    pandas one does, batch after batch, for string and two-column keys."""
    cudf = pytest.importorskip("cudf")
    rng = np.random.default_rng(3)
    for width in (1, 2):
        host, device = VertexKeys(), VertexKeys(device=True)
        columns = ["s"] if width == 1 else ["s", "n"]
        for batch in range(6):
            frame = pd.DataFrame({"s": [f"v{i}" for i in rng.integers(0, 40, 50)],
                                  "n": rng.integers(0, 3, 50).astype(np.int32)})
            names = columns[0] if width == 1 else columns
            a = encode(host, frame, names)
            b = encode(device, cudf.from_pandas(frame), names)
            assert a == b, f"width {width}, batch {batch}"
        codes = np.array([len(host) - 1, 0, 3])
        want = host.decode_parts(codes)
        got = device.decode_parts(__import__("cupy").asarray(codes))
        for w, g in zip(want, got):
            assert list(w) == g.to_pandas().tolist()
        none = __import__("cupy").asarray([True, False, False])
        nulled = device.decode_parts(__import__("cupy").asarray(codes), none=none)
        assert nulled[0].isna().to_pandas().tolist() == [True, False, False]


@pytest.mark.gpu
def test_device_table_rollback_and_restore():
    cudf = pytest.importorskip("cudf")
    keys = VertexKeys(device=True)
    encode(keys, cudf.DataFrame({"s": ["a", "b"]}), "s")
    journal = Journal()
    journal.begin()
    encode(keys, pd.DataFrame({"s": ["c"]}), "s", journal=journal)      # host input, copied to the GPU
    assert len(keys) == 3
    journal.rollback()
    assert len(keys) == 2
    copy = VertexKeys(device=True)
    copy.restore(keys.describe(), {name: np.asarray(column) for name, column in keys.table_columns().items()},
                 device=True)
    assert copy.lookup(["b", "a", "zz"]).tolist() == [1, 0, -1]


@pytest.mark.parametrize("bad, message", [(True, "boolean vertex id True at row 2"),
                                          ([1, 2], r"holds \[1, 2\] at row 2, not a vertex key")])
def test_first_batch_of_object_keys_rejects_bools_and_sequences(bad, message):
    with pytest.raises(ValueError, match=message):
        encode(VertexKeys(), {"s": np.array(["a", 1, bad], dtype=object)}, "s")
