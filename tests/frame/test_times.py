"""Time columns of every input type, windows, and the errors that name column and row."""
import datetime

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from cugraph_stream.frame.times import TimeSpec, read_times, time_column

SECOND = 10 ** 9
INSERTS = np.array([True, True])


@pytest.mark.parametrize("table", [
    pd.DataFrame({"t": pd.to_datetime(["1970-01-01 00:00:01", "1970-01-01 00:00:02"])}),
    pd.DataFrame({"t": pd.to_datetime(["1970-01-01 00:00:01", "1970-01-01 00:00:02"]).as_unit("s")}),
    {"t": np.array(["1970-01-01T00:00:01", "1970-01-01T00:00:02"], dtype="datetime64[ms]")},
    {"t": [datetime.datetime(1970, 1, 1, 0, 0, 1), pd.Timestamp("1970-01-01 00:00:02")]},
    pd.DataFrame({"t": pd.Series([pd.Timestamp(1, unit="s"), pd.Timestamp(2, unit="s")], dtype=object)}),
    pa.table({"t": pa.array([1, 2], type=pa.timestamp("s"))}),
    pa.table({"t": pa.chunked_array([pa.array([1000], type=pa.timestamp("ms")),
                                     pa.array([2000], type=pa.timestamp("ms"))])}),
])
def test_naive_datetimes_of_every_type(table):
    values, nulls, kind, tz = time_column(table, "t")
    assert (np.asarray(values).tolist(), nulls, kind, tz) == ([SECOND, 2 * SECOND], None, "datetimes", None)


@pytest.mark.parametrize("table", [
    pd.DataFrame({"t": pd.to_datetime([1, 2], unit="s").tz_localize("UTC").tz_convert("Asia/Tokyo")}),
    pa.table({"t": pa.array([1, 2], type=pa.timestamp("s", tz="Asia/Tokyo"))}),
])
def test_aware_datetimes_are_utc_nanoseconds(table):
    values, _, kind, tz = time_column(table, "t")
    assert np.asarray(values).tolist() == [SECOND, 2 * SECOND] and kind == "datetimes" and str(tz) == "Asia/Tokyo"


@pytest.mark.parametrize("table, dtype", [
    ({"t": np.array([1, 2])}, "int64"), ({"t": [1, 2]}, "int64"),
    (pd.DataFrame({"t": pd.array([1, None], dtype="Int64")}), "int64"),
    ({"t": np.array([1.5, 2.0])}, "float64"), (pa.table({"t": pa.array([1, None])}), "int64"),
    ({"t": np.array([1, 2], dtype=np.uint32)}, "int64"),
])
def test_number_columns(table, dtype):
    spec = TimeSpec.infer(table, "t", 3)
    assert spec.kind == "numbers" and spec.dtype == dtype and spec.window == 3


def test_windows_and_their_kinds():
    dates = {"t": pd.to_datetime(["2026-01-01"])}
    for window in (datetime.timedelta(seconds=3), np.timedelta64(3, "s"), pd.Timedelta(seconds=3)):
        spec = TimeSpec.infer(dates, "t", window)
        assert spec.window == 3 * SECOND and spec.window_value() == pd.Timedelta(seconds=3)
    assert TimeSpec.infer(dates, "t", None).window is None
    assert TimeSpec.infer({"t": [1]}, "t", 2.5).dtype == "float64"
    with pytest.raises(ValueError, match="is a timedelta, but column 't' holds numbers"):
        TimeSpec.infer({"t": [1]}, "t", datetime.timedelta(seconds=1))
    with pytest.raises(ValueError, match="is a number, but column 't' holds datetimes"):
        TimeSpec.infer(dates, "t", 5)
    for bad in (0, -1, float("nan"), float("inf"), True, "1h", pd.Timedelta(0), -pd.Timedelta(seconds=1)):
        with pytest.raises(ValueError, match="window"):
            TimeSpec.infer({"t": [1]}, "t", bad)
    with pytest.raises(ValueError, match="column 'ts' not found"):
        TimeSpec.infer({"t": [1]}, "ts", 1)


def test_spec_round_trips_through_a_dict():
    spec = TimeSpec("ts", "datetimes", "int64", 5 * SECOND, "Europe/Paris")
    assert TimeSpec.from_dict(spec.to_dict()) == spec
    shown = spec.show(np.array([0]))
    assert str(shown.tz) == "Europe/Paris" and shown[0] == pd.Timestamp(0, tz="UTC")


NUMBERS = TimeSpec("ts", "numbers", "int64", 10)
FLOATS = TimeSpec("ts", "numbers", "float64", 10.0)
DATES = TimeSpec("ts", "datetimes", "int64", SECOND)
AWARE = TimeSpec("ts", "datetimes", "int64", SECOND, "UTC")


@pytest.mark.parametrize("spec, column, inserts, message", [
    (NUMBERS, [1.0, None], INSERTS, "column 'ts' holds a null time at row 1, an insert row"),
    (FLOATS, [1.0, np.inf], INSERTS, "column 'ts' holds time inf at row 1; times must be finite"),
    (NUMBERS, [1.0, 2.5], INSERTS, "column 'ts' holds time 2.5 at row 1, not an int64"),
    (NUMBERS, np.array([1, 2 ** 64 - 1], dtype=np.uint64), INSERTS, "beyond int64"),
    (NUMBERS, pd.to_datetime(["2026-01-01", "2026-01-02"]), INSERTS, "holds datetimes, but this graph's times are numbers"),
    (DATES, [1, 2], INSERTS, "holds numbers, but this graph's times are datetimes"),
    (DATES, pd.to_datetime(["2026-01-01", None]), INSERTS, "column 'ts' holds a null time at row 1"),
    (DATES, pd.to_datetime(["2026-01-01", "2026-01-02"]).tz_localize("UTC"), INSERTS, "tz-aware"),
    (AWARE, pd.to_datetime(["2026-01-01", "2026-01-02"]), INSERTS, "naive datetimes"),
    (NUMBERS, ["a", 1], INSERTS, "column 'ts' holds 'a' at row 0, not a time"),
    (NUMBERS, pd.to_timedelta([1, 2], unit="s"), INSERTS, "timedeltas"),
])
def test_read_times_errors(spec, column, inserts, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        read_times(pd.DataFrame({"ts": column}), spec, inserts)


def test_delete_rows_may_hold_nulls_or_lack_the_column():
    deletes = np.array([False, False])
    assert read_times(pd.DataFrame({"ts": [None, None]}, dtype=float), FLOATS, deletes).tolist() == [0.0, 0.0]
    assert read_times({"src": [1, 2]}, NUMBERS, deletes).tolist() == [0, 0]
    with pytest.raises(ValueError, match="column 'ts' not found; this graph records edge times"):
        read_times({"src": [1, 2]}, NUMBERS, np.array([False, True]))
    dates = pd.DataFrame({"ts": pd.to_datetime([None, "1970-01-01 00:00:03"])})
    assert read_times(dates, DATES, np.array([False, True])).tolist() == [0, 3 * SECOND]


def test_integral_floats_join_integer_times():
    assert read_times({"ts": [3.0, 4.0]}, NUMBERS, INSERTS).tolist() == [3, 4]
    assert read_times({"ts": [3, 2 ** 62]}, FLOATS, INSERTS).dtype == np.float64
