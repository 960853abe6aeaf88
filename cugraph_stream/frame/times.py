"""Edge times and time windows at the frame layer: read, check and convert.

A graph built with ``time="ts"`` records each edge's time, read from the
column ``ts`` of every batch; with ``window=w`` it also deletes, after every
batch, the edges whose time is at or before the newest time seen minus
``w`` (see :mod:`cugraph_stream.engine.window`).  Times are numbers (int or
float columns) or datetimes (NumPy ``datetime64``, pandas ``datetime64``
columns naive or tz-aware, Arrow timestamps, cuDF datetimes); ``w`` is a
number for numbers and a timedelta (``datetime.timedelta``,
``numpy.timedelta64``, ``pandas.Timedelta``) for datetimes.

:class:`TimeSpec` holds what a graph decided when it was built: the kind of
its times, their dtype in the engine (int64 nanoseconds since the epoch, UTC,
for datetimes; int64 or float64 for numbers), the time zone shown by
``edges()``, and the window in those units.  :func:`read_times` checks a
batch's time column against it and returns the engine's array; every
``ValueError`` names the column and the first offending row.
"""
from __future__ import annotations

import datetime
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..arrays import is_cudf, is_cupy, library
from .columns import column_names, read_column

_INT64_MAX = np.iinfo(np.int64).max
_NUMBERS = "numbers"
_DATETIMES = "datetimes"


@dataclass(frozen=True)
class TimeSpec:
    """How a graph reads and keeps edge times (decided by ``from_edgelist``).

    Attributes
    ----------
    column : str
        The time column of every batch.
    kind : {"numbers", "datetimes"}
    dtype : {"int64", "float64"}
        The engine's dtype of times: int64 nanoseconds since the epoch (UTC)
        for datetimes; int64 for integer times with an integer window (or
        none), float64 otherwise.
    window : int, float or None
        The window in the engine's units (nanoseconds for datetimes); None
        records times without expiring edges.
    tz : str or None
        Time zone of tz-aware datetimes (shown by ``edges()``); None for naive
        datetimes and numbers.

    Examples
    --------
    >>> import pandas as pd
    >>> spec = TimeSpec.infer({"ts": pd.to_datetime(["2026-01-01"])}, "ts", pd.Timedelta(minutes=5))
    >>> spec.kind, spec.dtype, spec.window, spec.window_value()
    ('datetimes', 'int64', 300000000000, Timedelta('0 days 00:05:00'))
    >>> TimeSpec.infer({"ts": [1, 2]}, "ts", 10).dtype, TimeSpec.infer({"ts": [1, 2]}, "ts", 0.5).dtype
    ('int64', 'float64')
    >>> TimeSpec.infer({"ts": [1, 2]}, "ts", pd.Timedelta(minutes=5))
    Traceback (most recent call last):
    ...
    ValueError: window Timedelta('0 days 00:05:00') is a timedelta, but column 'ts' holds numbers; use a number window, or datetime times
    """

    column: str
    kind: str
    dtype: str
    window: object = None
    tz: object = None

    @classmethod
    def infer(cls, table, column, window):
        """The spec for times read from ``column`` of ``table`` (a graph's first
        batch) with ``window``; ``ValueError`` when they do not go together."""
        if not isinstance(column, str):
            raise ValueError(f"time must be a column name, got {column!r}")
        window_kind, window_value = _window(window)
        if column not in _names(table):
            raise ValueError(f"column {column!r} not found (time={column!r}); "
                             f"the table has columns {_names(table)}")
        values, _, kind, tz = time_column(table, column)
        if window_kind is not None and window_kind != kind:
            hint = ("use a timedelta window, or number times" if kind == _DATETIMES
                    else "use a number window, or datetime times")
            what = "a timedelta" if window_kind == _DATETIMES else "a number"
            raise ValueError(f"window {window!r} is {what}, but column {column!r} holds {kind}; {hint}")
        if kind == _DATETIMES:
            dtype = "int64"
        else:
            integral = values.dtype.kind in "iu" and (window is None or isinstance(window_value, int))
            dtype = "int64" if integral else "float64"
            if window_value is not None:
                window_value = int(window_value) if dtype == "int64" else float(window_value)
        return cls(column, kind, dtype, window_value, None if tz is None else str(tz))

    def window_value(self):
        """The window as given: a number, or a ``pandas.Timedelta`` for datetimes (None: no window)."""
        if self.window is None or self.kind == _NUMBERS:
            return self.window
        return pd.Timedelta(int(self.window), unit="ns")

    def to_dict(self):
        """JSON-ready fields (for checkpoints)."""
        return {"column": self.column, "kind": self.kind, "dtype": self.dtype,
                "window": self.window, "tz": self.tz}

    @classmethod
    def from_dict(cls, fields):
        return cls(fields["column"], fields["kind"], fields["dtype"], fields.get("window"), fields.get("tz"))

    def show_column(self, frame):
        """``frame`` (pandas or cuDF) with its column :attr:`column` of engine times
        shown as :meth:`show` does."""
        if self.kind == _NUMBERS:
            return frame
        if isinstance(frame, pd.DataFrame):
            frame[self.column] = self.show(frame[self.column].to_numpy())
            return frame
        times = frame[self.column].astype("datetime64[ns]")          # cuDF
        if self.tz is not None:
            times = times.dt.tz_localize("UTC").dt.tz_convert(self.tz)
        frame[self.column] = times
        return frame

    def show(self, values):
        """Times from the engine (host NumPy array) as users gave them: numbers, or a pandas
        datetime array (tz-aware where the times were)."""
        if self.kind == _NUMBERS:
            return values
        times = pd.to_datetime(np.asarray(values, dtype=np.int64).view("datetime64[ns]"))
        if self.tz is not None:
            times = times.tz_localize("UTC").tz_convert(self.tz)
        return times


def _names(table):
    return column_names(table)


def _get(table, name):
    """The column ``name`` of ``table``, as the table's library hands it out."""
    if isinstance(table, pd.DataFrame) or is_cudf(table):
        return table[name]
    if library(table) == "pyarrow" and hasattr(type(table), "column_names"):
        return table.column(name)
    return table[name]


def _window(window):
    """``(kind, value)`` of a window: a number, or nanoseconds of a timedelta; ``(None, None)`` for None."""
    if window is None:
        return None, None
    if isinstance(window, (datetime.timedelta, np.timedelta64)):
        delta = pd.Timedelta(window)
        if delta is pd.NaT or pd.isna(delta) or delta.value <= 0:
            raise ValueError(f"window must be a positive timedelta, got {window!r}")
        return _DATETIMES, int(delta.value)
    if isinstance(window, (bool, np.bool_)) or not isinstance(window, (int, float, np.integer, np.floating)):
        raise ValueError(f"window must be a positive number or a timedelta, got {window!r}")
    if not (np.isfinite(window) and window > 0):
        raise ValueError(f"window must be a positive finite number, got {window!r}")
    return _NUMBERS, int(window) if isinstance(window, (int, np.integer)) else float(window)


# ================================================================ reading
def time_column(table, name):
    """``(values, nulls, kind, tz)`` of a time column.

    ``values``: a NumPy (or, for cuDF and CuPy input, CuPy) array, int64
    nanoseconds since the epoch (UTC) for datetimes (0 where null), the
    column's own numeric dtype for numbers; ``nulls``: a boolean mask or
    None; ``kind``: ``"numbers"`` or ``"datetimes"``; ``tz``: the time zone of
    tz-aware datetimes, else None.

    >>> import pandas as pd
    >>> values, nulls, kind, tz = time_column(pd.DataFrame({"t": pd.to_datetime(
    ...     ["1970-01-01 00:00:01", None]).tz_localize("Europe/Paris")}), "t")
    >>> values.tolist(), nulls.tolist(), kind, str(tz)
    ([-3599000000000, 0], [False, True], 'datetimes', 'Europe/Paris')
    """
    column = _get(table, name)
    if isinstance(column, pd.Series):
        return _from_pandas(column, name)
    if library(column) == "pyarrow":
        return _from_arrow(column, name)
    if is_cudf(column):
        return _from_cudf(column, name)
    if is_cupy(column):
        return _numbers(column, None, name)
    if isinstance(column, np.ndarray) and column.dtype.kind != "O":
        if column.ndim != 1:
            raise ValueError(f"column {name!r} must be one-dimensional, got shape {column.shape}")
        if column.dtype.kind == "M":
            return _from_datetime64(column, None)
        values, nulls = read_column({name: column}, name)
        return _numbers(values, nulls, name)
    if not hasattr(column, "dtype"):
        column = list(column)
    return _from_pandas(pd.Series(column), name)


def _from_datetime64(values, tz):
    values = values.astype("datetime64[ns]")
    nulls = np.isnat(values)
    ints = values.view(np.int64).copy()
    if nulls.any():
        ints[nulls] = 0
        return ints, nulls, _DATETIMES, tz
    return ints, None, _DATETIMES, tz


def _naive_utc(series):
    """``(series, tz)``: datetimes (a pandas or cuDF Series) as naive UTC, and the time
    zone they had (None for naive ones)."""
    tz = getattr(series.dtype, "tz", None)
    if tz is not None:
        series = series.dt.tz_convert("UTC").dt.tz_localize(None)
    return series, tz


def _refuse_timedeltas(dtype, name):
    if dtype.kind == "m":
        raise ValueError(f"column {name!r} holds timedeltas; times must be numbers or datetimes")


def _from_pandas(series, name):
    dtype = series.dtype
    if dtype.kind == "M":
        series, tz = _naive_utc(series)
        return _from_datetime64(series.to_numpy(dtype="datetime64[ns]"), tz)
    if dtype.kind == "O":
        inferred = pd.api.types.infer_dtype(series, skipna=True)
        if inferred in ("datetime", "datetime64", "date"):
            try:
                converted = pd.to_datetime(series)
            except (ValueError, TypeError) as error:
                raise ValueError(f"column {name!r} holds datetimes that do not convert to one "
                                 f"time line ({error})") from None
            return _from_pandas(converted, name)
    _refuse_timedeltas(dtype, name)
    values, nulls = read_column(pd.DataFrame({name: series}), name)
    return _numbers(values, nulls, name)


def _from_arrow(column, name):
    import pyarrow as pa
    import pyarrow.compute as pc

    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks() if column.num_chunks != 1 else column.chunk(0)
    if pa.types.is_date(column.type):
        column = column.cast(pa.timestamp("ns"))
    if pa.types.is_timestamp(column.type):
        tz = column.type.tz
        nulls = column.is_null().to_numpy(zero_copy_only=False) if column.null_count else None
        ints = pc.fill_null(column.cast(pa.timestamp("ns", tz)).cast(pa.int64()), 0)
        return ints.to_numpy(zero_copy_only=False).astype(np.int64), nulls, _DATETIMES, tz
    if pa.types.is_duration(column.type):
        raise ValueError(f"column {name!r} holds durations; times must be numbers or datetimes")
    values, nulls = read_column({name: column}, name)
    return _numbers(values, nulls, name)


def _from_cudf(series, name):
    dtype = series.dtype
    if dtype.kind == "M":
        series, tz = _naive_utc(series)
        nulls = series.isna().values if series.has_nulls else None
        ints = series.astype("datetime64[ns]").astype("int64")
        if nulls is not None:
            ints = ints.fillna(0)
        return ints.values, nulls, _DATETIMES, tz
    _refuse_timedeltas(dtype, name)
    values, nulls = read_column({name: series}, name)
    return _numbers(values, nulls, name)


def _numbers(values, nulls, name):
    kind = values.dtype.kind
    if kind == "O":
        series = pd.Series(values, dtype=object)
        odd = series.map(lambda x: isinstance(x, (bool, np.bool_, str, bytes, complex)))
        number = pd.to_numeric(series.mask(odd), errors="coerce")
        bad = (odd | (number.isna() & ~series.isna())).to_numpy(dtype=bool)
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            raise ValueError(f"column {name!r} holds {values[row]!r} at row {row}, not a time "
                             "(times must be numbers or datetimes)")
        values = number.to_numpy(dtype=np.float64, na_value=np.nan)
        nulls = np.isnan(values)
        nulls = nulls if nulls.any() else None
        kind = "f"
    if kind not in "iuf":
        raise ValueError(f"column {name!r} must hold numbers or datetimes as times, not {values.dtype}")
    return values, nulls, _NUMBERS, None


def _xp(values):
    if is_cupy(values):
        import cupy
        return cupy
    return np


def _first(mask):
    return int(_xp(mask).flatnonzero(mask)[0])


def read_times(table, spec, is_insert, column=None):
    """Each row's time for the engine (``spec.dtype``; 0 on delete rows), checked.

    Parameters
    ----------
    table : the batch
    spec : TimeSpec
    is_insert : bool array (NumPy or CuPy)
        Which rows insert.  Delete rows may hold null times, or lack the
        time column altogether when no row inserts.
    column : str, optional
        The time column of this batch (default: ``spec.column``).

    Raises
    ------
    ValueError
        Naming the column and the first offending row: a null or non-finite
        time on an insert row, a time of the other kind (datetimes in a graph
        of number times, or the reverse; naive datetimes in a graph of
        tz-aware ones, or the reverse), a fraction in a graph of integer
        times.

    Examples
    --------
    >>> import numpy as np
    >>> spec = TimeSpec("ts", "numbers", "int64", 10)
    >>> read_times({"ts": [5.0, None]}, spec, np.array([True, False])).tolist()
    [5, 0]
    >>> read_times({"ts": [5.0, None]}, spec, np.array([True, True]))
    Traceback (most recent call last):
    ...
    ValueError: column 'ts' holds a null time at row 1, an insert row
    """
    name = spec.column if column is None else column
    xp = _xp(is_insert)
    n = int(is_insert.size)
    if name not in _names(table):
        if not bool(is_insert.any()):
            return xp.zeros(n, dtype=spec.dtype)
        raise ValueError(f"column {name!r} not found; this graph records edge times, so every "
                         f"batch with insert rows needs it (the table has columns {_names(table)})")
    values, nulls, kind, tz = time_column(table, name)
    if nulls is not None and bool(_xp(nulls).asarray(nulls).all()):     # no time at all: delete rows only
        bad = xp.asarray(nulls) & is_insert
        if bool(bad.any()):
            raise ValueError(f"column {name!r} holds a null time at row {_first(bad)}, an insert row")
        return xp.zeros(n, dtype=spec.dtype)
    if kind != spec.kind:
        raise ValueError(f"column {name!r} holds {kind}, but this graph's times are {spec.kind}")
    if kind == _DATETIMES and (tz is None) != (spec.tz is None):
        if spec.tz is None:
            raise ValueError(f"column {name!r} holds tz-aware datetimes ({tz}), but this graph's "
                             "times are naive datetimes")
        raise ValueError(f"column {name!r} holds naive datetimes, but this graph's times are "
                         f"tz-aware ({spec.tz})")
    values = xp.asarray(values)
    if nulls is not None:
        nulls = xp.asarray(nulls)
        bad = nulls & is_insert
        if bool(bad.any()):
            raise ValueError(f"column {name!r} holds a null time at row {_first(bad)}, an insert row")
    if kind == _DATETIMES:
        return xp.where(is_insert, values, 0).astype(xp.int64)
    if values.dtype.kind == "f":
        bad = ~xp.isfinite(values) & is_insert
        if nulls is not None:
            bad &= ~nulls
        if bool(bad.any()):
            row = _first(bad)
            raise ValueError(f"column {name!r} holds time {float(values[row])} at row {row}; "
                             "times must be finite")
        if spec.dtype == "int64":
            bad = ((values != xp.floor(values)) | (xp.abs(values) >= 2.0 ** 63)) & is_insert
            if bool(bad.any()):
                row = _first(bad)
                raise ValueError(f"column {name!r} holds time {float(values[row])} at row {row}, "
                                 "not an int64; this graph's times are integers")
    elif values.dtype.kind == "u" and spec.dtype == "int64":
        bad = (values > _INT64_MAX) & is_insert
        if bool(bad.any()):
            row = _first(bad)
            raise ValueError(f"column {name!r} holds time {int(values[row])} at row {row}, beyond int64")
    if values.shape[0] != n:
        raise ValueError(f"column {name!r} has {values.shape[0]} rows, the batch {n}")
    zero = xp.zeros((), dtype=spec.dtype)
    with np.errstate(invalid="ignore"):
        return xp.where(is_insert, values, zero).astype(spec.dtype)
