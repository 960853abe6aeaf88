"""Read named columns out of the tables users hand us.

Supported tables: pandas DataFrames, pyarrow Tables and RecordBatches, cuDF
DataFrames, and mappings of column name to 1-D array (NumPy, CuPy or
anything array-like).  A column comes back as an array plus a mask of its
null entries (None where there are none), so that validation can name the
first offending row whatever the input type.  cuDF and CuPy columns stay on
the GPU (CuPy arrays, no copy through host memory); cuDF string columns come
back as the cuDF Series itself, for parsing on the device.
"""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from ..arrays import is_cudf, is_cupy, library


def _is_arrow(table):
    # (asked of the type: a Table builds its list of names on every access)
    return library(table) == "pyarrow" and hasattr(type(table), "column_names")


def column_names(table):
    """Column names of ``table``.

    >>> column_names({"src": [1], "dst": [2]})
    ['src', 'dst']
    """
    if isinstance(table, pd.DataFrame):
        names = _LabelCache.labels(table.columns)       # (iterating the Index itself costs 5x more)
        return list(names) if all(type(c) is str for c in names) else [str(c) for c in names]
    if is_cudf(table):
        return [str(c) for c in _cudf_names(table)]
    if _is_arrow(table):
        return list(table.column_names)
    if isinstance(table, Mapping):
        return [str(c) for c in table.keys()]
    raise TypeError("expected a pandas DataFrame, a pyarrow Table or a mapping of column name to array, "
                    f"got {type(table).__name__}")


def num_rows(table):
    """Number of rows of ``table``."""
    if isinstance(table, pd.DataFrame) or _is_arrow(table) or is_cudf(table):
        return int(len(table))
    lengths = set()
    for name, values in table.items():
        try:
            lengths.add(len(values))
        except TypeError:           # a scalar or a 0-d array: no rows
            raise ValueError(f"column {name!r} must be one-dimensional, "
                             f"got shape {np.shape(values)}") from None
    if len(lengths) > 1:
        raise ValueError(f"columns have different lengths: {sorted(lengths)}")
    return lengths.pop() if lengths else 0


def _unique_string_names(table):
    """The names of ``table`` as a container to test with ``in``, when they
    are all strings and unique (told cheaply, pandas caches both facts), else
    None: then ``name in`` it answers what :func:`require_columns` asks of
    :func:`column_names` (present once), for a ``str`` name."""
    if isinstance(table, pd.DataFrame):
        # (a list of the labels: asking a new frame's Index is_unique or
        # inferred_type costs 20-40 us, a third of a one-row batch's reading)
        names = _LabelCache.labels(table.columns)
        if all(type(name) is str for name in names) and len(set(names)) == len(names):
            return names
        return None
    if type(table) is dict:
        return table if all(type(key) is str for key in table) else None
    if _is_arrow(table):
        names = set(table.column_names)
        return names if len(names) == table.num_columns else None
    return None


def column_dtype(table, name):
    """The NumPy dtype of column ``name`` of ``table``, told without reading its values
    where the table knows it (None when it cannot be told, e.g. a list of Python objects
    is read as object).

    >>> column_dtype(pd.DataFrame({"w": np.ones(2, dtype=np.float32)}), "w")
    dtype('float32')
    >>> column_dtype({"w": [1, 2]}, "w")
    dtype('int64')
    """
    try:
        if _is_arrow(table):
            return _arrow_dtype(table.schema.field(name).type)
        column = table[name]
    except KeyError:                # a missing column: reported by require_columns
        return None
    if library(column) == "pyarrow":
        return _arrow_dtype(column.type)
    dtype = getattr(column, "dtype", None)
    if dtype is None:
        dtype = np.asarray(column).dtype
    dtype = getattr(dtype, "numpy_dtype", dtype)          # pandas' nullable dtypes
    try:
        return np.dtype(dtype)
    except TypeError:
        return None


def _arrow_dtype(arrow_type):
    try:
        return np.dtype(arrow_type.to_pandas_dtype())
    except (NotImplementedError, TypeError):
        return None


def require_columns(table, names):
    """Raise ``ValueError`` naming the first of ``names`` that ``table`` lacks or holds twice.

    Names that are None are skipped; other columns may repeat.

    >>> require_columns(pd.DataFrame([[1, 2, 3]], columns=["src", "src", "dst"]), ["dst", "src"])
    Traceback (most recent call last):
    ...
    ValueError: column 'src' appears 2 times in the table; column names must be unique
    """
    lookup = _unique_string_names(table)
    if lookup is not None and all(name is None or (type(name) is str and name in lookup) for name in names):
        return                      # the common case, without listing the names
    present = column_names(table)
    for name in names:
        if name is None:
            continue
        count = present.count(name)
        if count == 0:
            raise ValueError(f"column {name!r} not found; the table has columns {present}")
        if count > 1:
            raise ValueError(f"column {name!r} appears {count} times in the table; "
                             "column names must be unique")


def read_column(table, name):
    """Return ``(values, nulls)``: a NumPy array and a boolean null mask (or None).

    Integer columns with nulls keep their exact values (nulls read as 0 in
    ``values``), so huge int64 ids survive.

    >>> values, nulls = read_column(pd.DataFrame({"x": pd.array([5, None], dtype="Int64")}), "x")
    >>> values.tolist(), nulls.tolist()
    ([5, 0], [False, True])
    """
    if isinstance(table, pd.DataFrame):
        return _from_pandas_frame(table, name)
    if type(table) is not dict:     # (a dict is neither, told without asking for its library)
        if _is_arrow(table):
            return _from_arrow(table.column(name))
        if is_cudf(table):
            return _from_cudf_frame(table, name)
    column = table[name]
    if type(column) is not np.ndarray:      # (nor is a NumPy array any of these)
        if isinstance(column, pd.Series):
            return _from_pandas(column)
        if library(column) == "pyarrow":
            return _from_arrow(column)
        if is_cudf(column):
            return _from_cudf(column)
        if is_cupy(column):
            return _one_dimensional(column, name), None
    try:
        array = np.asarray(column)
    except ValueError as error:     # ragged nested lists
        raise ValueError(f"column {name!r} must be one-dimensional: {error}") from None
    array = _one_dimensional(array, name)
    if array.dtype.kind in _NUMERIC:
        # what pd.Series(array).to_numpy() gives, without the Series: a
        # read-only copy (never the caller's array) of the same dtype
        values = array.copy()
        values.flags.writeable = False
        return _numeric(values)
    return _from_pandas(pd.Series(array))


def _one_dimensional(array, name):
    if array.ndim != 1:
        raise ValueError(f"column {name!r} must be one-dimensional, got shape {array.shape}")
    return array


def _mask_or_none(mask):
    mask = np.asarray(mask, dtype=bool)
    return mask if mask.any() else None


# NumPy dtype kinds read without pandas' null detection: bool and integer
# arrays hold no nulls, and a float array's nulls are its NaNs
_NUMERIC = frozenset("iufb")


def _numeric(values):
    """``(values, nulls)`` of a NumPy bool, integer or float array, as pandas reads it (NaN is null)."""
    if values.dtype.kind == "f":
        nulls = np.isnan(values)
        return values, (nulls if nulls.any() else None)
    return values, None


class _LabelCache:
    """The labels of the last pandas column Index asked about, as a tuple.

    A batch's columns are read one by one from the same frame; a new
    frame's ``Index.get_loc`` builds a hash table first (40 us), while a
    tuple of four labels is searched in well under a microsecond, and the
    labels of pandas 3's string Index cost about 11 us each time they are
    listed by ``tolist`` (5 us through its Arrow array).  Holds the Index
    itself (not its id), so a recycled id is never mistaken for it.
    """

    cached = (None, None)       # (Index, its labels), replaced whole (another thread may read it)

    @classmethod
    def labels(cls, columns):
        index, labels = cls.cached
        if index is not columns:
            arrow = getattr(columns.array, "__arrow_array__", None)     # (pandas 3's str labels)
            labels = tuple(arrow().to_pylist()) if arrow is not None else ()
            if arrow is None or None in labels:     # (a missing label: as tolist gives it)
                labels = tuple(columns.tolist())
            cls.cached = (columns, labels)
        return labels

    @classmethod
    def position(cls, columns, name):
        labels = cls.labels(columns)
        if labels.count(name) != 1:
            return None
        return labels.index(name)


def _from_pandas_frame(table, name):
    """:func:`_from_pandas` of ``table[name]``, without building the Series for a
    NumPy bool, integer or float column or a string column: ``DataFrame.__getitem__``
    on a frame that has not handed out the column yet costs 30-40 us in pandas
    3, and a one-row batch reads four columns of a new frame (on the CPU its
    whole update takes about 300 us); the column's array comes out of the
    frame's blocks in a few microseconds."""
    try:
        position = _LabelCache.position(table.columns, name)
        if position is not None:
            array = table._get_column_array(position)
            if type(array) is np.ndarray and array.dtype.kind in _NUMERIC:
                view = array.view()             # read-only, as pandas' copy-on-write hands it out
                view.flags.writeable = False
                return _numeric(view)
            if isinstance(array.dtype, pd.StringDtype):       # what _from_pandas does, on the array
                return array.to_numpy(dtype=object), _mask_or_none(array.isna())
    except (AttributeError, KeyError, TypeError):       # another pandas layout: the public way
        pass
    return _from_pandas(table[name])


def _from_pandas(series):
    dtype = series.dtype
    if isinstance(dtype, np.dtype) and dtype.kind in _NUMERIC:
        return _numeric(series.to_numpy())
    if isinstance(dtype, pd.api.extensions.ExtensionDtype):
        nulls = _mask_or_none(series.array.isna())      # what series.isna() wraps
        if dtype.kind in "iub":
            return series.to_numpy(dtype=dtype.numpy_dtype, na_value=0), nulls
        if dtype.kind == "f":
            return series.to_numpy(dtype=dtype.numpy_dtype, na_value=np.nan), nulls
    else:
        nulls = _mask_or_none(pd.isna(series.to_numpy()))   # what series.isna() holds
    if dtype.kind in "iufbc":
        return series.to_numpy(), nulls
    return series.to_numpy(dtype=object), nulls


def _from_arrow(column):
    import pyarrow as pa
    import pyarrow.compute as pc

    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks() if column.num_chunks != 1 else column.chunk(0)
    if pa.types.is_dictionary(column.type):
        column = column.dictionary_decode()
    nulls = _mask_or_none(column.is_null().to_numpy(zero_copy_only=False)) if column.null_count else None
    if pa.types.is_integer(column.type) or pa.types.is_boolean(column.type):
        if column.null_count:
            column = pc.fill_null(column, pa.scalar(0, type=column.type) if not pa.types.is_boolean(column.type)
                                  else pa.scalar(False))
        return column.to_numpy(zero_copy_only=False), nulls
    if pa.types.is_floating(column.type):
        return column.to_numpy(zero_copy_only=False), nulls
    return column.to_numpy(zero_copy_only=False), nulls    # 1-D, also for list columns


def _cudf_names(table):
    """The column names of cuDF frame ``table``, from its column store
    (``DataFrame._data``, which cuDF's own algorithms read): ``columns``
    builds a pandas Index, about 0.15 ms in cuDF 26.10."""
    try:
        return tuple(table._data.names)
    except (AttributeError, TypeError):
        return tuple(table.columns)


def cudf_column(table, name):
    """Column ``name`` of cuDF frame ``table`` as cuDF holds it (a column with a
    ``dtype``, a ``null_count`` and ``__cuda_array_interface__`` where numeric),
    without building a Series: ``DataFrame.__getitem__`` costs about 0.1-0.2 ms
    in cuDF 26.10, a tenth of a 10,000-row batch's whole update on the GPU.
    None where the frame's column store is not there to read (another cuDF
    layout): read ``table[name]`` then."""
    try:
        return table._data[name]
    except (AttributeError, KeyError, TypeError):
        return None


def _from_cudf_frame(table, name):
    """A numeric cuDF column without nulls as a CuPy view (see :func:`cudf_column`).
    Anything else (strings, nulls, another cuDF layout) goes through ``table[name]``."""
    column = cudf_column(table, name)
    try:
        if column is not None and column.dtype.kind in "iuf" and column.null_count == 0:
            import cupy

            return cupy.asarray(column), None
    except (AttributeError, TypeError, ValueError):
        pass
    return _from_cudf(table[name])


def _from_cudf(series):
    nulls = series.isna().values if series.has_nulls else None
    kind = series.dtype.kind
    if kind in "iub":
        return (series.fillna(0) if nulls is not None else series).values, nulls
    if kind == "f":
        return series.to_cupy(na_value=np.nan) if nulls is not None else series.values, nulls
    return series, nulls
