"""Input validation: every bad input of docs/api.md raises a ValueError naming
the column and the first offending row, for pandas, pyarrow and dict inputs,
and changes nothing (edges, vertices, every tracked result, ``changes()``).
Valid variants (op spelling, 1/-1, null weights on delete rows, nullable and
float ids) are accepted and mean what they say."""
import re

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import cugraph_stream as cgs
from reference import ALL_KINDS, Harness

# ----------------------------------------------------------------- the batch
# five good rows; the cases below spoil one or two cells
GOOD = {
    "src": [1, 2, 0, 3, 4],
    "dst": [2, 3, 1, 4, 5],
    "weight": [1.0, 2.0, None, 0.5, 1.5],
    "op": ["insert", "insert", "delete", "insert", "insert"],
}
GOOD_ROWS = [(1, 2, 1, 1.0), (2, 3, 1, 2.0), (0, 1, -1, None), (3, 4, 1, 0.5), (4, 5, 1, 1.5)]
NAMES = {"src": "src", "dst": "dst", "weight": "weight", "op": "op"}


def columns(**spoil):
    cols = {k: list(v) for k, v in GOOD.items()}
    for key, changes in spoil.items():
        for row, value in changes:
            cols[key][row] = value
    return cols


def _is_int(x):
    return isinstance(x, (int, np.integer)) and not isinstance(x, bool)


def to_frame(cols, fmt, names=NAMES):
    """Build a batch in ``fmt`` from column lists (None = null)."""
    out = {}
    for key, vals in cols.items():
        name = names[key]
        nonnull = [v for v in vals if v is not None]
        ints = all(_is_int(v) for v in nonnull)
        strs = any(isinstance(v, str) for v in nonnull)
        has_null = len(nonnull) < len(vals)
        if fmt == "pandas":
            if strs:
                out[name] = pd.Series(vals, dtype=object)
            elif ints and has_null:
                out[name] = pd.array(vals, dtype="Int64")
            elif ints:
                out[name] = np.array(vals, dtype=np.int64)
            else:
                out[name] = np.array([np.nan if v is None else v for v in vals], dtype=np.float64)
        elif fmt == "pandas_alt":
            # the other pandas spellings: float NaN for null ids, Float64 NA
            # for null weights, pandas' inferred string dtype for ops
            if strs:
                out[name] = pd.Series(vals)
            elif ints and has_null and key != "op":
                out[name] = np.array([np.nan if v is None else v for v in vals], dtype=np.float64)
            elif ints and has_null:
                out[name] = pd.Series(vals, dtype=object)
            elif ints:
                out[name] = pd.array(vals, dtype="Int64")
            else:
                out[name] = pd.array([pd.NA if v is None else v for v in vals], dtype="Float64")
        elif fmt == "arrow":
            if strs:
                out[name] = pa.array(vals, pa.string())
            elif ints:
                out[name] = pa.array(vals, pa.int64())
            else:
                out[name] = pa.array([None if v is None else float(v) for v in vals], pa.float64())
        elif fmt == "dict":
            if strs or (key == "op" and has_null):
                out[name] = np.array(vals, dtype=object) if has_null else np.array(vals)
            elif ints and not has_null:
                out[name] = np.array(vals, dtype=np.int64)
            else:
                out[name] = np.array([np.nan if v is None else v for v in vals], dtype=np.float64)
        else:
            raise ValueError(fmt)
    if fmt.startswith("pandas"):
        return pd.DataFrame(out)
    if fmt == "arrow":
        return pa.table(out)
    return out


FORMATS = ["pandas", "pandas_alt", "arrow", "dict"]


def make_harness(kinds=ALL_KINDS, directed=True):
    h = Harness(cgs, directed=directed, weight_dtype="float64",
                edges=[(0, 1, 1.0), (1, 2, 1.0), (2, 0, 3.0), (0, 3, 0.0), (3, 3, 1.0)],
                vertices=[7], sources={"SSSP": 0, "BFS": 0, "WidestPath": 0},
                kinds=kinds, modes=("incremental",))
    # a first apply so that changes() holds something worth keeping
    h.apply([(0, 2, 1, 0.5), (1, 2, -1, None), (9, 0, 1, 2.0)])
    return h


def assert_names(exc, column, row):
    msg = str(exc.value)
    assert re.search(r"""['"`]""" + re.escape(column) + r"""['"`]""", msg), \
        f"message does not name column {column!r}: {msg!r}"
    if row is not None:
        assert re.search(r"\brow %d\b" % row, msg), f"message does not name row {row}: {msg!r}"


def expect_rejected(h, batch, column, row, **kw):
    before = h.state()
    args = dict(source="src", destination="dst", weight="weight", op="op")
    args.update(kw)
    with pytest.raises(ValueError) as exc:
        h.g.apply(batch, **args)
    assert_names(exc, column, row)
    h.assert_state(before, f"after rejected batch ({column}, row {row})")
    # and the graph still works: the good batch applies and every check passes
    h.apply(GOOD_ROWS)
    return exc


# -------------------------------------------------------------------- cases
BAD = {
    "null src": (dict(src=[(3, None)]), "src", 3),
    "null dst": (dict(dst=[(1, None)]), "dst", 1),
    "null id on a delete row": (dict(dst=[(2, None)]), "dst", 2),
    "first of two null ids": (dict(src=[(1, None), (3, None)]), "src", 1),
    "fractional dst": (dict(dst=[(2, 1.5)]), "dst", 2),
    "fractional src": (dict(src=[(4, -0.5)]), "src", 4),
    "fractional huge src": (dict(src=[(0, 2.0 ** 40 + 0.5)]), "src", 0),
    "nan weight": (dict(weight=[(1, float("nan"))]), "weight", 1),
    "inf weight": (dict(weight=[(3, float("inf"))]), "weight", 3),
    "-inf weight": (dict(weight=[(0, float("-inf"))]), "weight", 0),
    "null weight on insert": (dict(weight=[(4, None)]), "weight", 4),
    "negative weight with SSSP tracked": (dict(weight=[(3, -0.5)]), "weight", 3),
    "first of two negative weights": (dict(weight=[(1, -1.0), (4, -2.0)]), "weight", 1),
    "unknown op word": (dict(op=[(1, "add")]), "op", 1),
    "unknown op prefix": (dict(op=[(4, "ins")]), "op", 4),
    "unknown op update": (dict(op=[(0, "update")]), "op", 0),
    "null op": (dict(op=[(2, None)]), "op", 2),
}


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_input_rejected(case, fmt):
    spoil, column, row = BAD[case]
    h = make_harness()
    batch = to_frame(columns(**spoil), fmt)
    expect_rejected(h, batch, column, row)


@pytest.mark.parametrize("fmt", ["pandas", "arrow", "dict"])
@pytest.mark.parametrize("bad_op,row", [(0, 2), (2, 0), (-2, 4)])
def test_bad_integer_op(fmt, bad_op, row):
    h = make_harness()
    cols = columns()
    cols["op"] = [1, 1, -1, 1, 1]
    cols["op"][row] = bad_op
    expect_rejected(h, to_frame(cols, fmt), "op", row)


@pytest.mark.parametrize("fmt", ["pandas", "arrow", "dict"])
@pytest.mark.parametrize("missing", ["src", "dst", "weight", "op"])
def test_missing_column(fmt, missing):
    h = make_harness()
    cols = columns()
    del cols[missing]
    expect_rejected(h, to_frame(cols, fmt), missing, None)


@pytest.mark.parametrize("fmt", ["pandas", "arrow", "dict"])
def test_custom_column_names_in_messages(fmt):
    names = {"src": "a", "dst": "b", "weight": "w", "op": "kind"}
    h = make_harness()
    kw = dict(source="a", destination="b", weight="w", op="kind")
    expect_rejected(h, to_frame(columns(src=[(2, None)]), fmt, names), "a", 2, **kw)
    expect_rejected(h, to_frame(columns(weight=[(3, float("nan"))]), fmt, names), "w", 3, **kw)
    expect_rejected(h, to_frame(columns(op=[(4, "nope")]), fmt, names), "kind", 4, **kw)
    cols = to_frame(columns(), fmt, names)
    expect_rejected(h, cols, "source_col", None, source="source_col", destination="b",
                    weight="w", op="kind")


@pytest.mark.parametrize("kinds", [("WidestPath",), ("SSSP",), ("SSSP", "WidestPath", "BFS"), ("PageRank",)])
@pytest.mark.parametrize("fmt", ["pandas", "arrow", "dict"])
def test_negative_weight_rejected_while_weight_query_tracked(kinds, fmt):
    # (PageRank uses the weights of this weighted graph, as cuGraph's does)
    h = make_harness(kinds=kinds)
    expect_rejected(h, to_frame(columns(weight=[(0, -3.0)]), fmt), "weight", 0)


@pytest.mark.parametrize("fmt", ["pandas", "arrow", "dict"])
def test_negative_weight_accepted_without_weight_queries(fmt):
    h = make_harness(kinds=("BFS", "WCC", "PageRank"))
    h.untrack(next(i for i, (kind, _, _) in enumerate(h.queries) if kind == "PageRank"))
    h.track("PageRank", weighted=False)              # weighted=False ignores the weights
    cols = columns(weight=[(3, -0.5)])
    rows = [r if i != 3 else (3, 4, 1, -0.5) for i, r in enumerate(GOOD_ROWS)]
    h.apply_batch(to_frame(cols, fmt), rows, source="src", destination="dst",
                  weight="weight", op="op")


@pytest.mark.parametrize("fmt", ["pandas", "arrow", "dict"])
def test_nan_weight_rejected_without_weight_queries(fmt):
    h = make_harness(kinds=("WCC", "PageRank"))
    expect_rejected(h, to_frame(columns(weight=[(1, float("nan"))]), fmt), "weight", 1)


def test_bad_row_after_many_good_rows():
    h = make_harness()
    n = 1000
    cols = {"src": list(range(n)), "dst": list(range(1, n + 1)), "weight": [1.0] * n,
            "op": ["insert"] * n}
    cols["dst"][777] = None
    expect_rejected(h, to_frame(cols, "pandas"), "dst", 777)
    cols["dst"][777] = 778
    cols["weight"][901] = float("inf")
    expect_rejected(h, to_frame(cols, "arrow"), "weight", 901)


def test_rejected_batch_on_undirected_graph_changes_nothing():
    h = make_harness(directed=False)
    expect_rejected(h, to_frame(columns(op=[(4, "upsert")]), "pandas"), "op", 4)
    expect_rejected(h, to_frame(columns(src=[(4, 0.25)]), "dict"), "src", 4)


# ---------------------------------------------------------- from_edgelist
@pytest.mark.parametrize("fmt", ["pandas", "arrow", "dict"])
@pytest.mark.parametrize("spoil,column,row", [
    (dict(src=[(2, None)]), "src", 2),
    (dict(dst=[(4, 3.5)]), "dst", 4),
    (dict(weight=[(1, float("nan"))]), "weight", 1),
    (dict(weight=[(3, float("inf"))]), "weight", 3),
])
def test_from_edgelist_rejects(fmt, spoil, column, row):
    cols = columns(**spoil)
    cols["weight"][2] = 1.0
    del cols["op"]
    with pytest.raises(ValueError) as exc:
        cgs.StreamGraph.from_edgelist(to_frame(cols, fmt), source="src", destination="dst",
                                      weight="weight")
    assert_names(exc, column, row)


def test_from_edgelist_missing_column():
    df = pd.DataFrame({"src": [1, 2], "dst": [2, 3]})
    with pytest.raises(ValueError) as exc:
        cgs.StreamGraph.from_edgelist(df, source="src", destination="dst", weight="weight")
    assert_names(exc, "weight", None)
    with pytest.raises(ValueError) as exc:
        cgs.StreamGraph.from_edgelist(df, source="from", destination="dst")
    assert_names(exc, "from", None)


# ------------------------------------------------------------ valid variants
@pytest.mark.parametrize("fmt", FORMATS)
def test_op_words_any_case(fmt):
    h = make_harness()
    cols = columns(op=[(0, "INSERT"), (1, "Insert"), (2, "DeLeTe"), (3, "iNSERT"), (4, "insert")])
    h.apply_batch(to_frame(cols, fmt), GOOD_ROWS, source="src", destination="dst",
                  weight="weight", op="op")
    cols = columns(op=[(0, "DELETE"), (1, "Delete"), (2, "INSERT"), (3, "delete"), (4, "dElEtE")])
    cols["weight"][2] = 4.0
    rows = [(1, 2, -1, None), (2, 3, -1, None), (0, 1, 1, 4.0), (3, 4, -1, None), (4, 5, -1, None)]
    h.apply_batch(to_frame(cols, fmt), rows, source="src", destination="dst",
                  weight="weight", op="op")


@pytest.mark.parametrize("make", [
    lambda v: pd.DataFrame({"op": np.array(v, dtype=np.int64)}),
    lambda v: pd.DataFrame({"op": np.array(v, dtype=np.int8)}),
    lambda v: pd.DataFrame({"op": pd.array(v, dtype="Int64")}),
    lambda v: pa.table({"op": pa.array(v, pa.int8())}),
    lambda v: pa.table({"op": pa.array(v, pa.int64())}),
    lambda v: {"op": np.array(v, dtype=np.int32)},
    lambda v: {"op": np.array(v, dtype=np.int64)},
], ids=["pd-int64", "pd-int8", "pd-Int64", "pa-int8", "pa-int64", "np-int32",
        "np-int64"])
def test_op_integers(make):
    h = make_harness()
    ops = [1, 1, -1, 1, 1]
    frame = make(ops)
    cols = columns()
    cols.pop("op")
    rest = to_frame(cols, "pandas" if isinstance(frame, pd.DataFrame) else
                    "arrow" if isinstance(frame, pa.Table) else "dict")
    if isinstance(frame, pd.DataFrame):
        batch = rest.assign(op=frame["op"].array)
    elif isinstance(frame, pa.Table):
        batch = rest.append_column("op", frame["op"])
    else:
        batch = dict(rest, op=frame["op"])
    h.apply_batch(batch, GOOD_ROWS, source="src", destination="dst", weight="weight", op="op")


@pytest.mark.parametrize("fmt", FORMATS)
def test_null_weights_on_delete_rows(fmt):
    h = make_harness()
    cols = {"src": [0, 1, 2, 0], "dst": [1, 2, 0, 3], "weight": [None, None, 5.0, None],
            "op": ["delete", "delete", "insert", "delete"]}
    rows = [(0, 1, -1, None), (1, 2, -1, None), (2, 0, 1, 5.0), (0, 3, -1, None)]
    h.apply_batch(to_frame(cols, fmt), rows, source="src", destination="dst",
                  weight="weight", op="op")


def test_nullable_int64_ids_without_nulls():
    h = make_harness()
    df = pd.DataFrame({"src": pd.array([1, 2, 0, 3, 4], dtype="Int64"),
                       "dst": pd.array([2, 3, 1, 4, 5], dtype="Int64"),
                       "weight": pd.array([1.0, 2.0, None, 0.5, 1.5], dtype="Float64"),
                       "op": ["insert", "insert", "delete", "insert", "insert"]})
    h.apply_batch(df, GOOD_ROWS, source="src", destination="dst", weight="weight", op="op")


@pytest.mark.parametrize("fmt", ["pandas", "arrow", "dict"])
def test_float_ids_with_integral_values(fmt):
    h = make_harness()
    big = float(2 ** 53)
    cols = {"src": [1.0, -3.0, big, 0.0], "dst": [2.0, 1.0, 0.0, -0.0],
            "weight": [1.0, 2.0, 3.0, 4.0], "op": ["insert"] * 4}
    rows = [(1, 2, 1, 1.0), (-3, 1, 1, 2.0), (2 ** 53, 0, 1, 3.0), (0, 0, 1, 4.0)]
    h.apply_batch(to_frame(cols, fmt), rows, source="src", destination="dst",
                  weight="weight", op="op")
    assert 2 ** 53 in h.g.vertices().tolist()


@pytest.mark.parametrize("fmt", ["pandas", "arrow", "dict"])
def test_other_integer_id_widths(fmt):
    h = make_harness()
    src = [1, 2, -1, 3]
    dst = [2, 3, 1, 4]
    if fmt == "pandas":
        batch = pd.DataFrame({"src": np.array(src, np.int32), "dst": np.array(dst, np.int16),
                              "weight": [1.0, 1.0, 1.0, 1.0], "op": ["insert"] * 4})
    elif fmt == "arrow":
        batch = pa.table({"src": pa.array(src, pa.int32()), "dst": pa.array(dst, pa.int8()),
                          "weight": pa.array([1.0] * 4, pa.float32()),
                          "op": pa.array(["insert"] * 4)})
    else:
        batch = {"src": np.array(src, np.int32), "dst": np.array(dst, np.int64),
                 "weight": np.ones(4, np.float32), "op": np.array(["insert"] * 4)}
    rows = [(s, d, 1, 1.0) for s, d in zip(src, dst)]
    h.apply_batch(batch, rows, source="src", destination="dst", weight="weight", op="op")


def test_extreme_ids_accepted():
    h = make_harness()
    lo, hi = -2 ** 63, 2 ** 63 - 1
    for fmt in ("pandas", "arrow", "dict"):
        cols = {"src": [lo, hi, lo], "dst": [hi, 0, lo], "weight": [1.0, 2.0, 0.0],
                "op": ["insert", "insert", "insert"]}
        h.apply_batch(to_frame(cols, fmt), [(lo, hi, 1, 1.0), (hi, 0, 1, 2.0), (lo, lo, 1, 0.0)],
                      source="src", destination="dst", weight="weight", op="op")
        cols["op"] = ["delete"] * 3
        h.apply_batch(to_frame(cols, fmt), [(lo, hi, -1, None), (hi, 0, -1, None),
                                            (lo, lo, -1, None)],
                      source="src", destination="dst", weight="weight", op="op")


@pytest.mark.parametrize("fmt", ["pandas", "arrow", "dict"])
def test_no_weight_column_inserts_weight_one(fmt):
    h = make_harness()
    cols = columns()
    del cols["weight"]
    rows = [(s, d, o, None) for s, d, o, _ in GOOD_ROWS]
    h.apply_batch(to_frame(cols, fmt), rows, source="src", destination="dst", weight=None,
                  op="op", default_weight=1.0)
    assert h.model.edges[(3, 4)] == 1.0


@pytest.mark.parametrize("fmt", ["pandas", "arrow", "dict"])
def test_weighted_graph_refuses_inserts_without_its_weight_column(fmt):
    h = make_harness()                      # built with weight="weight"
    cols = columns()
    del cols["weight"]
    with pytest.raises(ValueError, match="default_weight=") as exc:
        h.g.apply(to_frame(cols, fmt), source="src", destination="dst")
    assert_names(exc, "weight", 0)
    h.check_all("after the refused batch", None)
    deletes = {"src": [0], "dst": [2], "op": ["delete"]}          # deletes need no weight
    h.apply_batch(to_frame(deletes, fmt), [(0, 2, -1, None)], source="src", destination="dst")


def test_unweighted_graph_ignores_a_bad_weight_column_and_says_so():
    # an unweighted graph reads no weight column: whatever sits in a column
    # called "weight" is not read, and the report lists it
    g = cgs.StreamGraph.from_edgelist(pd.DataFrame({"src": [0], "dst": [1]}), source="src", destination="dst")
    assert not g.schema.weighted
    cols = columns(weight=[(0, float("nan")), (1, -5.0)])
    report = g.apply(to_frame(cols, "pandas"))
    assert report.ignored_columns == ["weight"]
    assert set(g.edges()["weight"].tolist()) == {1.0}


@pytest.mark.parametrize("fmt", ["pandas", "arrow", "dict"])
def test_empty_batch(fmt):
    h = make_harness()
    cols = {"src": np.zeros(0, np.int64), "dst": np.zeros(0, np.int64),
            "weight": np.zeros(0), "op": np.array([], dtype=str)}
    if fmt == "pandas":
        batch = pd.DataFrame(cols)
    elif fmt == "arrow":
        batch = pa.table({"src": pa.array([], pa.int64()), "dst": pa.array([], pa.int64()),
                          "weight": pa.array([], pa.float64()), "op": pa.array([], pa.string())})
    else:
        batch = cols
    rep = h.apply_batch(batch, [], source="src", destination="dst", weight="weight", op="op")
    assert rep.rows == 0


# --------------------------------------------------------------- row numbers
def test_row_is_position_not_index_label():
    h = make_harness()
    df = to_frame(columns(dst=[(1, None)]), "pandas")
    df.index = [50, 40, 30, 20, 10]
    expect_rejected(h, df, "dst", 1)
    df = to_frame(columns(weight=[(3, float("inf"))]), "pandas").iloc[1:]   # index 1..4
    expect_rejected(h, df, "weight", 2)


def test_arrow_chunked_columns():
    # a table of several record batches: row numbers count across chunks
    h = make_harness()
    t = to_frame(columns(src=[(4, None)]), "arrow")
    t = pa.concat_tables([t.slice(0, 2), t.slice(2, 2), t.slice(4, 1)])
    assert t.column("src").num_chunks > 1
    expect_rejected(h, t, "src", 4)
    t = pa.concat_tables([to_frame(columns(), "arrow").slice(0, 3),
                          to_frame(columns(), "arrow").slice(3, 2)])
    h.apply_batch(t, GOOD_ROWS, source="src", destination="dst", weight="weight", op="op")


# ----------------------------------------------------------- inputs untouched
@pytest.mark.parametrize("fmt", ["pandas", "dict"])
def test_apply_does_not_modify_its_input(fmt):
    h = make_harness()
    rows = [(9, 1, 1, 3.0), (4, 2, 1, 1.0), (1, 2, -1, None), (0, 9, 1, 0.5), (2, 2, 1, 1.0)]
    cols = {"src": [r[0] for r in rows], "dst": [r[1] for r in rows],
            "weight": [r[3] for r in rows],
            "op": ["insert" if r[2] == 1 else "delete" for r in rows]}
    batch = to_frame(cols, fmt)
    copy = batch.copy(deep=True) if fmt == "pandas" else {k: v.copy() for k, v in batch.items()}
    h.apply_batch(batch, rows, source="src", destination="dst", weight="weight", op="op")
    if fmt == "pandas":
        pd.testing.assert_frame_equal(batch, copy)
    else:
        for k in copy:
            np.testing.assert_array_equal(batch[k], copy[k])


def test_results_are_snapshots():
    h = make_harness()
    got = [(q.result(), q.result().copy(deep=True)) for _, _, q in h.queries]
    edges = h.g.edges()
    edges_copy = edges.copy(deep=True)
    h.apply([(0, 1, -1, None), (0, 2, -1, None), (5, 0, 1, 0.25), (5, 1, 1, 0.0)])
    for a, b in got:
        pd.testing.assert_frame_equal(a, b)
    pd.testing.assert_frame_equal(edges, edges_copy)
    # and writing into a returned frame does not reach the graph
    for _, _, q in h.queries:
        r = q.result()
        col = r.columns[1]
        r[col] = r[col].to_numpy()[::-1].copy()
    h.check_all("after writing into returned frames")


# ------------------------------------------------------------ out of range
@pytest.mark.parametrize("value", [1e19, -1e19, 2.0 ** 63])
def test_float_id_beyond_int64_rejected(value):
    # integral, but no int64 holds it: must not wrap around silently
    h = make_harness()
    expect_rejected(h, to_frame(columns(src=[(3, value)]), "pandas"), "src", 3)


def test_uint64_id_beyond_int64_rejected():
    h = make_harness()
    cols = columns()
    batch = to_frame(cols, "dict")
    batch["dst"] = np.array([2, 3, 1, 2 ** 64 - 1, 5], dtype=np.uint64)
    expect_rejected(h, batch, "dst", 3)


def test_weight_beyond_float32_rejected():
    # 1e39 is finite in float64 but infinite once stored as float32
    h = Harness(cgs, directed=True, weight_dtype="float32", edges=[(0, 1, 1.0)],
                sources={"SSSP": 0, "BFS": 0, "WidestPath": 0}, modes=("incremental",))
    expect_rejected(h, to_frame(columns(weight=[(4, 1e39)]), "arrow"), "weight", 4)


# ------------------------------------------------- unknown op, no weight column
UNKNOWN_OP = "expected 'insert' or 'delete' (any case), or 1 or -1"


def op_batch(fmt, ops):
    """GOOD's ids with ``ops`` as the op column and no weight column."""
    cols = columns()
    del cols["weight"]
    cols["op"] = list(ops)
    return to_frame(cols, fmt)


@pytest.mark.parametrize("fmt", ["pandas", "arrow", "dict"])
@pytest.mark.parametrize("ops,row,shown", [
    (["insert", "add", "delete", "insert", "insert"], 1, "'add'"),
    (["insert", "insert", "del", "insert", "insert"], 2, "'del'"),
    (["bogus", "insert", "delete", "insert", "insert"], 0, "'bogus'"),
    ([1, 1, 0, 1, 1], 2, "0"),
    ([1, 1, -1, 1, 2], 4, "2"),
])
def test_unknown_op_without_weight_column(fmt, ops, row, shown):
    h = make_harness()
    before = h.state()
    batch = op_batch(fmt, ops)
    message = re.escape(f"column 'op' holds an unknown op {shown} at row {row}; {UNKNOWN_OP}")
    with pytest.raises(ValueError, match="^" + message + "$"):
        h.g.validate(batch, weight=None)
    with pytest.raises(ValueError, match="^" + message + "$"):
        h.g.apply(batch, weight=None)
    h.assert_state(before, "after an unknown op without a weight column")
    expect_rejected(h, batch, "op", row, weight=None)


@pytest.mark.parametrize("fmt", ["pandas", "arrow", "dict"])
def test_valid_ops_without_weight_column(fmt):
    h = make_harness()
    assert h.g.validate(op_batch(fmt, [1, 1, -1, 1, 1]), weight=None, default_weight=1.0) is None
    rows = [(s, d, o, None) for s, d, o, _ in GOOD_ROWS]
    h.apply_batch(op_batch(fmt, [1, 1, -1, 1, 1]), rows, weight=None, default_weight=1.0)


def test_unknown_op_without_weight_column_in_apply_stream():
    dd = pytest.importorskip("dask.dataframe")
    h = make_harness()
    parts = pd.DataFrame({"src": [0, 1, 2, 3], "dst": [5, 6, 7, 8],
                          "op": ["insert", "insert", "insert", "add"]})
    ddf = dd.from_pandas(parts, npartitions=2, sort=False)
    first = ddf.get_partition(0).compute()
    expected = cgs.StreamGraph.from_edgelist(h.g.edges(), weight="weight", weight_dtype="float64")
    expected.apply(first, source="src", destination="dst", default_weight=1.0)
    with pytest.raises(ValueError, match="^" + re.escape(
            f"partition 1 (rows 2-3 of the stream): column 'op' holds an unknown op 'add' at row 1 "
            f"(row 3 of the stream); {UNKNOWN_OP}") + "$"):
        h.g.apply_stream(ddf, default_weight=1.0, progress=False)
    # partition 0 stays applied, partition 1 changed nothing
    pd.testing.assert_frame_equal(h.g.edges(), expected.edges())


# ------------------------------------------------------ duplicate column names
@pytest.mark.parametrize("name", ["src", "dst", "weight", "op"])
def test_duplicate_column_name_rejected(name):
    h = make_harness()
    df = to_frame(columns(), "pandas")
    df = pd.concat([df, df[[name]]], axis=1)
    assert list(df.columns).count(name) == 2
    with pytest.raises(ValueError, match=f"^column '{name}' appears 2 times in the table; "
                                         "column names must be unique$"):
        h.g.validate(df, weight="weight")
    expect_rejected(h, df, name, None)


def test_duplicate_column_name_rejected_in_arrow():
    h = make_harness()
    t = to_frame(columns(), "arrow")
    t = t.append_column("src", t.column("dst"))
    expect_rejected(h, t, "src", None)


def test_duplicate_column_name_rejected_without_weight_column():
    h = make_harness()
    df = op_batch("pandas", ["insert"] * 5)
    df = pd.concat([df, df[["op"]]], axis=1)
    expect_rejected(h, df, "op", None, weight=None)


def test_duplicate_column_that_is_not_read_is_fine():
    h = make_harness()
    df = to_frame(columns(), "pandas")
    df = pd.concat([df, pd.DataFrame({"note": ["a"] * 5}), pd.DataFrame({"note": ["b"] * 5})], axis=1)
    h.apply_batch(df, GOOD_ROWS, source="src", destination="dst", weight="weight", op="op")


# ------------------------------------------------------ complex and bool weights
@pytest.mark.filterwarnings("error")      # no ComplexWarning: the weight is rejected before a cast
@pytest.mark.parametrize("fmt", ["pandas", "dict"])
def test_complex_weight_column_rejected(fmt):
    h = make_harness()
    batch = to_frame(columns(), fmt)
    batch["weight"] = np.array([np.nan, 1.0 + 2j, 3.0, 4.0, 5.0])     # row 0: null
    with pytest.raises(ValueError, match=r"^column 'weight' holds a complex weight \(1\+2j\) at row 1; "
                                         r"weights must be real numbers$"):
        h.g.validate(batch, weight="weight")
    expect_rejected(h, batch, "weight", 1)


@pytest.mark.filterwarnings("error")
@pytest.mark.parametrize("fmt", ["pandas", "dict"])
@pytest.mark.parametrize("value", [2 + 1j, complex(3, 0), np.complex64(1 - 1j)])
def test_complex_in_object_weight_column_rejected(fmt, value):
    h = make_harness()
    batch = to_frame(columns(), fmt)
    batch["weight"] = np.array([1.0, 2.0, None, value, 1.5], dtype=object)
    exc = expect_rejected(h, batch, "weight", 3)
    assert "complex weight" in str(exc.value)


@pytest.mark.parametrize("fmt", ["pandas", "dict"])
@pytest.mark.parametrize("value", [True, False, np.True_])
def test_bool_in_object_weight_column_rejected(fmt, value):
    h = make_harness()
    batch = to_frame(columns(), fmt)
    batch["weight"] = np.array([1.0, 2.0, None, 0.5, value], dtype=object)
    with pytest.raises(ValueError, match=r"^column 'weight' holds a boolean weight .* at row 4; "
                                         r"weights must be real numbers$"):
        h.g.validate(batch, weight="weight")
    expect_rejected(h, batch, "weight", 4)


def test_bool_on_a_delete_row_of_an_object_weight_column_rejected():
    # like a non-numeric weight, a bool is wrong whatever the row's op
    h = make_harness()
    batch = to_frame(columns(), "pandas")
    batch["weight"] = np.array([1.0, 2.0, True, 0.5, 1.5], dtype=object)
    expect_rejected(h, batch, "weight", 2)


@pytest.mark.parametrize("make", [
    lambda: pd.DataFrame({"weight": [True, False, True, True, True]}),
    lambda: pa.table({"weight": pa.array([True, False, True, True, True])}),
    lambda: {"weight": np.ones(5, dtype=bool)},
], ids=["pandas", "arrow", "dict"])
def test_bool_weight_column_rejected(make):
    h = make_harness()
    part = make()
    cols = columns()
    del cols["weight"]
    if isinstance(part, pd.DataFrame):
        batch = to_frame(cols, "pandas").assign(weight=part["weight"].to_numpy())
    elif isinstance(part, pa.Table):
        batch = to_frame(cols, "arrow").append_column("weight", part.column("weight"))
    else:
        batch = dict(to_frame(cols, "dict"), **part)
    exc = expect_rejected(h, batch, "weight", 0)
    assert "boolean weight" in str(exc.value)


def test_nullable_boolean_weight_column_names_first_non_null_row():
    h = make_harness()
    batch = to_frame(columns(), "pandas")
    batch["weight"] = pd.array([None, None, True, False, True], dtype="boolean")
    expect_rejected(h, batch, "weight", 2)


# ----------------------------------------------------- bool ids and bool ops
@pytest.mark.parametrize("fmt", ["pandas", "arrow", "dict"])
@pytest.mark.parametrize("column", ["src", "dst"])
def test_bool_id_column_rejected(fmt, column):
    h = make_harness()
    ids = np.array([True, False, True, True, False])
    batch = to_frame(columns(), fmt)
    if fmt == "arrow":
        batch = batch.set_column(batch.column_names.index(column), column, pa.array(ids))
    else:
        batch[column] = ids
    with pytest.raises(ValueError, match=f"^column '{column}' holds a boolean vertex id True at row 0; "
                                         "vertex ids must be integers$"):
        h.g.validate(batch, weight="weight")
    expect_rejected(h, batch, column, 0)


def test_nullable_boolean_id_column_is_reported_as_bool():
    h = make_harness()
    batch = to_frame(columns(), "pandas")
    batch["src"] = pd.array([None, False, True, True, False], dtype="boolean")
    exc = expect_rejected(h, batch, "src", 1)
    assert "boolean vertex id" in str(exc.value)


def test_bool_in_object_id_column_rejected():
    h = make_harness()
    batch = to_frame(columns(), "pandas")
    batch["dst"] = pd.Series([2, 3, 1, True, 5], dtype=object)
    expect_rejected(h, batch, "dst", 3)


@pytest.mark.parametrize("weight", ["weight", None])
@pytest.mark.parametrize("make", [
    lambda v: pd.Series(np.array(v, dtype=bool)),
    lambda v: pd.array(v, dtype="boolean"),
    lambda v: pa.array(v, pa.bool_()),
    lambda v: np.array(v, dtype=bool),
], ids=["pd-bool", "pd-boolean", "pa-bool", "np-bool"])
def test_bool_op_column_rejected(make, weight):
    # True must not be read as op 1 (nor False as anything)
    h = make_harness()
    ops = make([True, True, False, True, True])
    cols = columns()
    cols.pop("op")
    if isinstance(ops, pa.Array):
        batch = to_frame(cols, "arrow").append_column("op", ops)
    elif isinstance(ops, np.ndarray):
        batch = dict(to_frame(cols, "dict"), op=ops)
    else:
        batch = to_frame(cols, "pandas").assign(op=ops)
    with pytest.raises(ValueError, match="^" + re.escape(
            f"column 'op' holds an unknown op True at row 0; {UNKNOWN_OP}") + "$"):
        h.g.validate(batch, weight=weight)
    expect_rejected(h, batch, "op", 0, weight=weight)


@pytest.mark.parametrize("weight", ["weight", None])
def test_bool_in_object_op_column_rejected(weight):
    h = make_harness()
    batch = to_frame(columns(), "pandas")
    batch["op"] = pd.Series([1, 1, -1, True, 1], dtype=object)
    expect_rejected(h, batch, "op", 3, weight=weight)


# ------------------------------------------------------- multi-dimensional columns
@pytest.mark.parametrize("column", ["src", "dst", "weight", "op"])
def test_two_dimensional_dict_column_rejected(column):
    h = make_harness()
    batch = to_frame(columns(), "dict")
    batch[column] = np.zeros((5, 2))
    with pytest.raises(ValueError, match=f"^column '{column}' must be one-dimensional, "
                                         r"got shape \(5, 2\)$"):
        h.g.validate(batch, weight="weight")
    expect_rejected(h, batch, column, None)


@pytest.mark.parametrize("value", [np.array(3), 3, np.zeros((5, 1)), [[1, 2]] * 5, [[1, 2], [3]] * 2 + [[4]]])
def test_other_non_one_dimensional_dict_columns_rejected(value):
    h = make_harness()
    batch = to_frame(columns(), "dict")
    batch["src"] = value
    exc = expect_rejected(h, batch, "src", None)
    assert "must be one-dimensional" in str(exc.value)


@pytest.mark.parametrize("column", ["src", "dst", "weight", "op"])
@pytest.mark.parametrize("cell", [[1, 2], np.array([1, 2]), np.array([1])], ids=["list", "array", "array1"])
def test_pandas_object_column_of_sequences_rejected(column, cell):
    h = make_harness()
    df = to_frame(columns(), "pandas")
    values = df[column].astype(object).to_list()
    values[3] = cell
    df[column] = pd.Series(values, dtype=object)
    exc = expect_rejected(h, df, column, 3)
    assert repr(cell) in str(exc.value)      # shown as it is, not unwrapped


@pytest.mark.parametrize("column", ["src", "weight", "op"])
def test_arrow_list_column_rejected(column):
    h = make_harness()
    t = to_frame(columns(), "arrow")
    index = t.column_names.index(column)
    t = t.set_column(index, column, pa.array([[1, 2]] * 5))
    exc = expect_rejected(h, t, column, 0)
    assert "[1 2]" in str(exc.value) or "[1, 2]" in str(exc.value)
