"""Validate a batch of update rows and turn it into plain arrays.

Every check runs before anything changes, and each error names the column
and the first offending row (0-based position; the error carries it as
``.row``, see :func:`row_error`), so a batch applies whole or not at all.
Columns that arrive on the GPU (cuDF, CuPy) are checked there: the op and
weight columns by the graph's backend in one pass
(:meth:`~cugraph_stream.backends.base.Backend.check_rows`), the rest with
CuPy; only the offending value travels to the host, for the message.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..arrays import is_cudf
from ..backends.rows import DELETE, INSERT, RowCheck, array_module, op_codes
from ..floats import exact_astype, negative
from .columns import column_names, num_rows, read_column, require_columns

_INT64_LIMIT = 2.0 ** 63


def row_error(message, row):
    """A ``ValueError`` about one row of a batch, carrying its 0-based position as ``.row``
    (the message names it too, "... at row <row> ...").  A plain ``ValueError``: it
    prints and pickles (errors of Dask workers) as one, ``.row`` included.

    >>> error = row_error("column 'src' holds a null vertex id at row 3", 3)
    >>> type(error).__name__, error.row, str(error)
    ('ValueError', 3, "column 'src' holds a null vertex id at row 3")
    """
    error = ValueError(message)
    error.row = int(row)
    return error


@dataclass
class Rows:
    """Validated rows of a batch (NumPy arrays, or CuPy arrays for device input).

    ``check``: what the one pass over the op and weight columns found (a
    :class:`~cugraph_stream.backends.rows.RowCheck`), and ``reject``: what
    raises the ``ValueError`` naming the first offending row when it found
    one.  :func:`read_rows` settles it (:meth:`verify`) before it returns,
    unless asked not to for a check still on the device (columns on the GPU):
    then the caller does, and the check's summary comes to the host with the
    batch's next wait.
    """

    src: object      # int64 external ids
    dst: object      # int64 external ids
    weight: object   # graph weight dtype; 0 on delete rows
    op: object       # int8: 1 insert, -1 delete
    check: RowCheck = None
    reject: object = None           # callable; raises the error of a bad batch
    time: object = None            # each row's time (frame.times.read_times), for a graph that records times

    def __len__(self):
        return int(self.src.size)

    def verify(self):
        """Raise the batch's ``ValueError`` (naming the column and row) if the check
        found a row in error; else nothing (the check's summary read on the host)."""
        if self.check.bad:
            self.reject()

    @property
    def largest_weight(self):
        """The largest weight magnitude of any row (0 on delete rows)."""
        return self.check.largest

    @property
    def fractional_weights(self):
        """Whether some row's weight is not a whole number."""
        return self.check.fractional


def _first(mask):
    return int(array_module(mask).flatnonzero(mask)[0])


def _show(values, row):
    item = values[row]
    return item.item() if getattr(item, "ndim", None) == 0 else item    # NumPy/CuPy scalars


def _is_cudf_strings(values):
    return type(values) is not np.ndarray and is_cudf(values)


def _reject_kind(values, nulls, column, what, hint):
    """Raise ``ValueError`` for a bool or complex column, naming its first non-null row."""
    kind = "boolean" if values.dtype.kind == "b" else "complex"
    present = ~nulls if nulls is not None else array_module(values).ones(values.size, dtype=bool)
    if not present.any():           # empty, or nulls only: no value to show
        raise ValueError(f"column {column!r} holds {kind} {what}s ({values.dtype}); {hint}")
    row = _first(present)
    raise row_error(f"column {column!r} holds a {kind} {what} {_show(values, row)!r} at row {row}; {hint}", row)


def parse_ids(values, nulls, column):
    """Vertex ids as int64; ``ValueError`` naming ``column`` and the row otherwise.

    >>> parse_ids(np.array([1.0, -2.0]), None, "src").tolist()
    [1, -2]
    >>> parse_ids(np.array([1.0, 2.5]), None, "src")
    Traceback (most recent call last):
    ...
    ValueError: column 'src' holds a non-integer vertex id 2.5 at row 1
    """
    if not _is_cudf_strings(values) and values.dtype.kind in "bc":
        _reject_kind(values, nulls, column, "vertex id", "vertex ids must be integers")
    if nulls is not None:
        row = _first(nulls)
        raise row_error(f"column {column!r} holds a null vertex id at row {row}", row)
    if _is_cudf_strings(values):
        raise ValueError(f"column {column!r} must hold integer vertex ids, not {values.dtype}")
    if values.dtype == np.int64:         # (told here: on the GPU, no launch, whatever astype does)
        return values
    xp = array_module(values)
    kind = values.dtype.kind
    if kind == "i":
        return values.astype(xp.int64)
    if kind == "u":
        too_big = values > np.iinfo(np.int64).max
        if too_big.any():
            row = _first(too_big)
            raise row_error(f"column {column!r} holds vertex id {_show(values, row)} at row {row}, beyond int64", row)
        return values.astype(xp.int64)
    if kind == "f":
        for bad, what in ((~xp.isfinite(values), "a non-finite vertex id"),
                          (values != xp.floor(values), "a non-integer vertex id"),
                          ((values < -_INT64_LIMIT) | (values >= _INT64_LIMIT), "a vertex id beyond int64")):
            if bad.any():
                row = _first(bad)
                raise row_error(f"column {column!r} holds {what} {_show(values, row)} at row {row}", row)
        return values.astype(xp.int64)
    if kind == "O":
        return _object_ids(values, column)
    raise ValueError(f"column {column!r} must hold integer vertex ids, not {values.dtype}")


def _object_ids(values, column):
    out = np.empty(values.size, dtype=np.int64)
    for row, item in enumerate(values):
        if isinstance(item, (bool, np.bool_)):
            raise row_error(f"column {column!r} holds a boolean vertex id {item!r} at row {row}; "
                            "vertex ids must be integers", row)
        if isinstance(item, (int, np.integer)) and -2 ** 63 <= int(item) < 2 ** 63:
            out[row] = int(item)
        elif isinstance(item, (float, np.floating)) and float(item).is_integer() and \
                -_INT64_LIMIT <= item < _INT64_LIMIT:
            out[row] = int(item)
        else:
            raise row_error(f"column {column!r} holds {item!r} at row {row}, not an int64 vertex id", row)
    return out


def parse_ops(values, nulls, column, check=True):
    """Ops as int8 (1 insert, -1 delete) from ``"insert"``/``"delete"`` (any case) or 1/-1.

    ``check=False`` leaves unknown ops as 0 instead of raising (the caller
    checks them together with other columns).

    >>> parse_ops(np.array(["Insert", "DELETE", 1, -1], dtype=object), None, "op").tolist()
    [1, -1, 1, -1]
    """
    if nulls is not None:
        row = _first(nulls)
        raise row_error(f"column {column!r} holds a null op at row {row}", row)
    if _is_cudf_strings(values):
        lowered = values.str.strip().str.lower()
        codes = (lowered == "insert").values.astype("int8") - (lowered == "delete").values.astype("int8")
        shown = values.to_pandas()
    elif values.dtype.kind in "iuf":
        codes = op_codes(values)
        shown = values
    elif values.dtype.kind in "OUS":
        codes = _object_ops(values)
        shown = values
    else:
        codes = np.zeros(values.size, dtype=np.int8)
        shown = values
    unknown = codes == 0
    if check and unknown.any():
        row = _first(unknown)
        raise row_error(f"column {column!r} holds an unknown op {_show(shown, row)!r} at row {row}; "
                        "expected 'insert' or 'delete' (any case), or 1 or -1", row)
    return codes


_OP_WORDS = {"insert": INSERT, "delete": DELETE}
_NUMBERS = (int, float, np.integer, np.floating)
_BOOLS = (bool, np.bool_)


def _op_word(item):
    return _OP_WORDS.get(item.strip().lower(), 0)


def _object_ops(values):
    """Op codes of an object (or NumPy string) array; 0 for anything but an op word or 1/-1.

    A large column of strings only is coded by its distinct values.  Otherwise
    one pass in Python, lowering each distinct string once; numbers other than
    plain ints and floats of int64/uint64 range go through ``pd.to_numeric``
    as a group, whose conversions (NumPy scalars, huge ints) decide what
    equals 1 or -1.
    """
    if values.size >= 256 and pd.api.types.infer_dtype(values, skipna=False) == "string":
        index, distinct = pd.factorize(values)
        return np.array([_op_word(word) for word in distinct], dtype=np.int8)[index]
    codes = []
    words = {}              # string -> code: a batch holds few spellings
    numeric = []            # rows holding a number (not a bool)
    for row, item in enumerate(values):
        if isinstance(item, str):
            code = words.get(item)
            if code is None:
                code = words[item] = _op_word(item)
            codes.append(code)
        else:
            if isinstance(item, _NUMBERS) and not isinstance(item, _BOOLS):
                numeric.append(row)
            codes.append(0)
    codes = np.array(codes, dtype=np.int8)
    if numeric:
        items = values[numeric]
        if all(type(x) is float or (type(x) is int and -2 ** 63 <= x < 2 ** 64) for x in items):
            codes[numeric] = [INSERT if x == 1 else DELETE if x == -1 else 0 for x in items]
        else:
            number = pd.to_numeric(pd.Series(items, dtype=object)).to_numpy()
            codes[numeric] = np.where(number == 1, INSERT, np.where(number == -1, DELETE, 0))
    return codes


def weight_numbers(values, nulls, column, is_insert):
    """The numbers of a weight column (integers or floats; objects read as
    float64, NaN where null), which must hold real numbers and no null on an
    insert row; ``ValueError`` naming ``column`` and the row otherwise.

    >>> weight_numbers(np.array([2, "1.5", None], dtype=object), np.array([False, False, True]), "w",
    ...                np.array([True, True, False])).tolist()
    [2.0, 1.5, nan]
    """
    if _is_cudf_strings(values):
        raise ValueError(f"column {column!r} must hold numeric weights, not {values.dtype}")
    if values.dtype.kind in "bc":
        _reject_kind(values, nulls, column, "weight", "weights must be real numbers")
    if values.dtype.kind not in "iufO":
        raise ValueError(f"column {column!r} must hold numeric weights, not {values.dtype}")
    if values.dtype.kind == "O":
        values = _object_weights(values, column)
    if nulls is not None and (nulls & is_insert).any():
        row = _first(nulls & is_insert)
        raise row_error(f"column {column!r} holds a null weight at row {row}, an insert row", row)
    return values


def parse_weights(values, nulls, column, is_insert, weight_dtype):
    """Weights in ``weight_dtype`` (0 on rows that are not inserts); insert rows
    must hold finite numbers, within the range of ``weight_dtype``.

    >>> parse_weights(np.array([1.5, np.nan]), None, "w", np.array([True, False]), np.float32).tolist()
    [1.5, 0.0]
    >>> parse_weights(np.array([1.5, 1e39]), None, "w", np.array([True, True]), np.float32)
    Traceback (most recent call last):
    ...
    ValueError: column 'w' holds weight 1e+39 at row 1, beyond the range of float32
    """
    values = weight_numbers(values, nulls, column, is_insert)
    xp = array_module(values)
    weights = exact_astype(values, np.float64)            # (subnormals kept on the GPU too)
    with np.errstate(over="ignore", invalid="ignore"):     # reported below, by row
        cast = exact_astype(xp.where(is_insert, weights, 0.0), weight_dtype)
    bad = ~xp.isfinite(cast)        # on insert rows only: delete rows hold 0
    if bad.any():
        row = _first(bad)
        if not np.isfinite(float(weights[row])):
            raise row_error(f"column {column!r} holds weight {_show(weights, row)} at row {row}; "
                            "weights must be finite", row)
        raise row_error(f"column {column!r} holds weight {_show(weights, row)} at row {row}, "
                        f"beyond the range of {np.dtype(weight_dtype)}", row)
    return cast


def _object_weights(values, column):
    series = pd.Series(values, dtype=object)
    # pandas reads True as 1 and keeps complex numbers: check the types first
    odd = series.map(lambda x: isinstance(x, (bool, np.bool_, complex, np.complexfloating)))
    number = pd.to_numeric(series.mask(odd), errors="coerce")
    bad = (odd | (number.isna() & ~series.isna())).to_numpy(dtype=bool)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        item = values[row]
        if isinstance(item, (bool, np.bool_)):
            raise row_error(f"column {column!r} holds a boolean weight {item!r} at row {row}; "
                            "weights must be real numbers", row)
        if isinstance(item, (complex, np.complexfloating)):
            raise row_error(f"column {column!r} holds a complex weight {item!r} at row {row}; "
                            "weights must be real numbers", row)
        raise row_error(f"column {column!r} holds a non-numeric weight {item!r} at row {row}", row)
    return number.to_numpy(dtype=np.float64, na_value=np.nan)


def _flat(names):
    """Column names, with the lists of multi-column vertex keys spread out."""
    out = []
    for name in names:
        out.extend(name if isinstance(name, (list, tuple)) else [name])
    return out


def _plain_numbers(column):
    """Whether a column as :func:`read_column` reads it (or None: no column)
    holds numbers without nulls, which :meth:`Backend.check_rows` takes as they are."""
    if column is None:
        return True
    values, nulls = column
    return nulls is None and not _is_cudf_strings(values) and values.dtype.kind in "iuf"


def read_rows(table, source, destination, weight, op, weight_dtype, ops, nonnegative_for=None,
              default_weight=1.0, missing_weight=None, keys=None, verify=True):
    """Validate ``table`` and return its :class:`Rows`.

    ``weight=None`` gives every insert the weight ``default_weight``;
    ``op=None`` makes every row an insert (edge lists).  ``nonnegative_for``
    is a query that needs non-negative weights, or its name (insert rows
    with a negative weight are then an error, which names it), or None.  ``missing_weight``
    names the weight column of a weighted graph that ``table`` lacks: a
    batch of deletes needs none, an insert row is an error.  ``keys`` (a
    :class:`~cugraph_stream.frame.keys.KeyEncoder`) turns the vertex key
    columns (``source`` and ``destination``: a name each, or lists of names
    for multi-column keys) into int64 ids; without it they must hold int64
    ids.

    The op and weight checks run as one pass over the rows, the operator
    :meth:`~cugraph_stream.backends.base.Backend.check_rows` of ``ops`` (the
    graph's backend): one launch and one copy to the host on the GPU for
    columns of numbers there; columns of strings or objects, or with nulls,
    are first parsed into numbers here.  Only a batch that fails it is
    checked again, column by column, to name the first offending row.
    Without a weight column the ops are checked all the same.  ``verify=False``
    leaves a verdict still on the device to the caller (:meth:`Rows.verify`,
    before anything changes): on the GPU it then comes with the batch's next
    wait instead of a wait of its own.
    """
    require_columns(table, _flat([source, destination, weight, op]))
    n = num_rows(table)
    if keys is None:
        src = parse_ids(*read_column(table, source), source)
        dst = parse_ids(*read_column(table, destination), destination)
    else:
        src, dst = keys.encode(table, source), keys.encode(table, destination)
    xp = array_module(src)
    op_column = read_column(table, op) if op is not None else None
    if weight is None:
        codes = parse_ops(*op_column, op, check=False) if op is not None else xp.full(n, INSERT, dtype=xp.int8)
        codes = xp.asarray(codes)        # ops parsed on the host (strings) join device ids
        is_insert = codes == INSERT
        if op is not None and (codes == 0).any():
            parse_ops(*op_column, op)        # raises, naming the first unknown op
        if missing_weight is not None and n and (op is None or is_insert.any()):
            row = _first(is_insert)
            raise ValueError(f"column {missing_weight!r} not found, but row {row} inserts an edge and "
                             f"this graph is weighted (built with weight column {missing_weight!r}); "
                             f"the table has columns {column_names(table)}: pass weight= to name its "
                             "weight column, or default_weight= to weigh its inserts")
        if nonnegative_for is not None and negative(np.array([default_weight], dtype=weight_dtype))[0] \
                and n and is_insert.any():
            raise ValueError(f"default_weight is {default_weight}, but {nonnegative_for} needs "
                             "non-negative weights")
        weights = xp.where(is_insert, default_weight, 0).astype(weight_dtype)
        largest = abs(float(default_weight)) if n else 0.0
        fractional = bool(n) and not float(default_weight).is_integer()
        return Rows(src, dst, weights, codes, RowCheck.of(codes, weights, False, largest, fractional))
    weight_column = read_column(table, weight)
    if _plain_numbers(op_column) and _plain_numbers(weight_column):     # the columns as they are
        values = xp.asarray(weight_column[0])
        checked = ops.check_rows(None if op is None else xp.asarray(op_column[0]), values, weight_dtype,
                                 nonnegative_for is not None)
    else:                                   # parsed into numbers first (ops parsed on the host join device ids)
        codes = xp.asarray(parse_ops(*op_column, op, check=False)) if op is not None else None
        is_insert = codes == INSERT if codes is not None else True      # (no op column: every row inserts)
        values = xp.asarray(weight_numbers(*weight_column, weight, is_insert))
        checked = ops.check_rows(codes, values, weight_dtype, nonnegative_for is not None)

    def reject():                           # name the first offending row
        if op is not None:
            parse_ops(*op_column, op)
        parse_weights(values, None, weight, checked.codes == INSERT, weight_dtype)
        row = _first(negative(checked.weights))
        raise row_error(f"column {weight!r} holds a negative weight {float(checked.weights[row])} at row {row}, "
                        f"but {nonnegative_for} needs non-negative weights", row)

    rows = Rows(src, dst, checked.weights, checked.codes, checked, reject)
    if verify or not checked.pending:       # (a verdict on the host already: at once)
        rows.verify()
    return rows
