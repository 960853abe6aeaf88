"""Time windows on a StreamGraph: ``from_edgelist(time=..., window=...)``.

After every batch the graph's edges must equal a plain-Python model of the
windowed edge set (rows applied in order, then the edges whose time is at or
before the newest time minus the window deleted), ``BatchReport.expired``
must count those, and every tracked query must equal the from-scratch
references (``tests/reference.py``) on the model.  Also: atomicity under an
injected failure at every operator call, validation errors, checkpoints,
vertex removal and reuse, compaction, datetimes (naive, tz-aware, Arrow).
"""
import datetime
import os

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from failing_memory import AllocationFaults
from reference import ModelGraph, check_query, example_budget, host

import cugraph_stream as cgs
from cugraph_stream.backends import get_backend
from cugraph_stream.backends.faults import FaultInjector

BASE = pd.Timestamp("2026-11-26 09:00")
UNIVERSE = list(range(6))
UNKNOWN = 10 ** 6            # a vertex no insert row names


class WindowModel:
    """A :class:`ModelGraph` plus each edge's time and the newest time seen."""

    def __init__(self, directed, window):
        self.graph = ModelGraph(directed, "float64")
        self.window, self.times, self.newest = window, {}, None

    def apply(self, rows):
        """Rows ``(src, dst, op, weight, time)`` in order, then expiry; returns
        ``(expected report counts, expired edge keys)``."""
        for s, d, op, _, t in rows:
            key = self.graph.key(s, d)
            if op == 1:
                self.times[key] = t
                self.newest = t if self.newest is None else max(self.newest, t)
            else:
                self.times.pop(key, None)
        expired = []
        if self.window is not None and self.newest is not None:
            expired = sorted(k for k, t in self.times.items() if t <= self.newest - self.window)
        for key in expired:
            del self.times[key]
        counts = self.graph.apply_rows([(s, d, op, w) for s, d, op, w, _ in rows] +
                                       [(k[0], k[1], -1, None) for k in expired])
        counts["rows"] = len(rows)
        return counts, expired


def frame(rows, kind, fmt="pandas"):
    """A batch frame with columns src, dst, op, weight, ts (times as ``kind``)."""
    times = [None if t is None else t for *_, t in rows]
    columns = {"src": np.array([r[0] for r in rows], dtype=np.int64),
               "dst": np.array([r[1] for r in rows], dtype=np.int64),
               "op": np.array([r[2] for r in rows], dtype=np.int8),
               "weight": np.array([np.nan if r[3] is None else r[3] for r in rows], dtype=np.float64),
               "ts": as_times(times, kind)}
    if fmt == "arrow":
        return pa.table({k: pa.array(v, from_pandas=True) if not isinstance(v, pd.Series)
                         else pa.Array.from_pandas(v) for k, v in columns.items()})
    if fmt == "dict":
        return {k: (v.to_numpy() if isinstance(v, pd.Series) else v) for k, v in columns.items()}
    return pd.DataFrame(columns)


def as_times(times, kind):
    if kind == "ints":
        return pd.array(times, dtype="Int64") if None in times else np.array(times, dtype=np.int64)
    if kind == "floats":
        return np.array([np.nan if t is None else t / 4 for t in times], dtype=np.float64)
    stamps = pd.Series([pd.NaT if t is None else BASE + pd.Timedelta(seconds=t) for t in times],
                       dtype="datetime64[ns]")
    return stamps.dt.tz_localize("UTC").dt.tz_convert("Asia/Kolkata") if kind == "aware" else stamps


def as_window(window, kind):
    if window is None:
        return None
    return {"ints": window, "floats": window / 4}.get(kind, pd.Timedelta(seconds=window))


def check_edges(g, model, where):
    e = host(g.edges())
    expected = sorted((k[0], k[1], w) for k, w in model.graph.edges.items())
    got = list(zip(e["src"].tolist(), e["dst"].tolist(), e["weight"].astype(float).tolist()))
    assert got == expected, f"{where}: edges differ"
    assert len(e) == len(model.times)
    g.check_consistency()


@st.composite
def batches(draw):
    rows, n = [], draw(st.integers(1, 10))
    base = draw(st.integers(0, 4))
    for _ in range(n):
        kind = draw(st.sampled_from(["insert", "insert", "refresh", "delete", "delete_unknown",
                                     "insert_delete", "duplicate"]))
        u, v = draw(st.sampled_from(UNIVERSE)), draw(st.sampled_from(UNIVERSE))
        t = base + draw(st.integers(-6, 6))          # mostly rising, sometimes out of order
        w = float(draw(st.integers(1, 4)))
        null = draw(st.booleans())
        if kind in ("insert", "refresh"):
            rows.append((u, v, 1, w, t))
        elif kind == "delete":
            rows.append((u, v, -1, None, None if null else t))
        elif kind == "delete_unknown":
            rows.append((u, UNKNOWN, -1, None, None))
        elif kind == "insert_delete":
            rows += [(u, v, 1, w, t), (v, u, -1, None, None if null else t)]
        else:
            rows += [(u, v, 1, w, t), (u, v, 1, w + 1, t + draw(st.integers(-3, 3)))]
    return rows


@settings(max_examples=example_budget(30), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(stream=st.lists(batches(), min_size=1, max_size=6), directed=st.booleans(),
       window=st.sampled_from([None, 1, 3, 8]), kind=st.sampled_from(["ints", "floats", "naive", "aware"]),
       fmt=st.sampled_from(["pandas", "arrow", "dict"]), shift=st.integers(0, 40))
def test_differential(backend, stream, directed, window, kind, fmt, shift):
    """After every batch: edges == the windowed model, expired counted, queries == references."""
    model = WindowModel(directed, window)
    first = [(u, u + 1, 1, 1.0, shift) for u in UNIVERSE[:-1]]      # a path: every vertex exists
    counts, expired = model.apply(first)
    g = cgs.StreamGraph.from_edgelist(frame(first, kind), source="src", destination="dst", weight="weight",
                                      directed=directed, backend=backend, weight_dtype="float64",
                                      time="ts", window=as_window(window, kind))
    assert g.last_report.expired == len(expired)
    check_edges(g, model, "from_edgelist")
    queries = [g.track(cgs.SSSP(source=0)), g.track(cgs.BFS(source=1)), g.track(cgs.WCC()),
               g.track(cgs.WidestPath(source=2))]
    for i, rows in enumerate(stream):
        rows = [(s, d, op, w, None if t is None else t + shift * (i + 1)) for s, d, op, w, t in rows]
        counts, expired = model.apply(rows)
        report = g.apply(frame(rows, kind, fmt), source="src", destination="dst", weight="weight", op="op")
        where = f"batch {i}"
        assert report.expired == len(expired), where
        event(f"a batch expires edges: {bool(expired)}")
        for name, count in counts.items():
            assert getattr(report, name) == count, f"{where}: {name}"
        check_edges(g, model, where)
        for q in queries:
            check_query(q, model.graph, where=f"{where}: {q.name}")


def test_expiry_by_example():
    g = cgs.StreamGraph.from_edgelist({"src": [0, 1], "dst": [1, 2], "ts": [1, 5]}, source="src",
                                      destination="dst", time="ts", window=10)
    paths = g.track(cgs.BFS(source=0))
    report = g.apply({"src": [2, 0], "dst": [3, 1], "ts": [11, 9], "op": [1, 1]}, source="src",
                     destination="dst")
    # newest 11: cutoff 1; (0, 1) was refreshed to 9 by this batch, so nothing expires
    assert report.expired == 0 and host(g.edges())["ts"].tolist() == [9, 5, 11]
    report = g.apply({"src": [3], "dst": [4], "ts": [16], "op": [1]}, source="src", destination="dst")
    assert report.expired == 1 and report.deleted == 1           # (1, 2) at 5 <= 16 - 10
    assert host(paths.result())["distance"].tolist()[:2] == [0, 1]
    assert host(paths.result())["distance"].tolist()[2] == np.iinfo(np.int32).max
    # an insert with an old time expires in the same batch, counted as cancelled
    report = g.apply({"src": [7], "dst": [8], "ts": [2], "op": [1]}, source="src", destination="dst")
    assert (report.expired, report.inserted, report.cancelled, report.new_vertices) == (1, 0, 1, 2)
    assert g.number_of_edges() == 3


def test_no_window_records_times_only():
    g = cgs.StreamGraph.from_edgelist({"s": [0, 1], "d": [1, 2], "t": [0.5, 100.0]}, source="s",
                                      destination="d", time="t")
    assert g.last_report.expired == 0
    g.apply({"s": [0], "d": [1], "t": [1e9], "op": ["insert"]}, source="s", destination="d")
    assert host(g.edges())["t"].tolist() == [1e9, 100.0]


def test_datetimes_with_timedelta_windows():
    clicks = pd.DataFrame({"src": [1, 2], "dst": [2, 3],
                           "ts": pd.to_datetime(["2026-11-26 09:00", "2026-11-26 09:10"]).tz_localize("UTC")})
    for window in (datetime.timedelta(minutes=15), np.timedelta64(15, "m"), pd.Timedelta("15min")):
        g = cgs.StreamGraph.from_edgelist(clicks, source="src", destination="dst", time="ts", window=window)
        later = pa.table({"src": [3], "dst": [4], "op": ["insert"],
                          "ts": pa.array([pd.Timestamp("2026-11-26 10:20", tz="Europe/Paris")],
                                         type=pa.timestamp("us", tz="Europe/Paris"))})
        assert g.apply(later, source="src", destination="dst").expired == 1      # 09:20 UTC: 09:00 goes
        e = host(g.edges())
        assert str(e["ts"].dt.tz) == "UTC" and e["ts"].tolist() == [
            pd.Timestamp("2026-11-26 09:10", tz="UTC"), pd.Timestamp("2026-11-26 09:20", tz="UTC")]


def test_validation_changes_nothing():
    g = cgs.StreamGraph.from_edgelist({"src": [0], "dst": [1], "ts": [5]}, source="src", destination="dst",
                                      time="ts", window=10)
    q = g.track(cgs.SSSP(source=0))
    before, report = host(g.edges()), g.last_report
    bad = [({"src": [1, 2], "dst": [2, 3], "op": [1, 1], "ts": [6.0, None]},
            "column 'ts' holds a null time at row 1, an insert row"),
           ({"src": [1, 2], "dst": [2, 3], "op": [1, 1], "ts": [6.0, np.inf]}, "column 'ts' holds time inf at row 1"),
           ({"src": [1], "dst": [2], "op": [1], "ts": [6.5]}, "column 'ts' holds time 6.5 at row 0"),
           ({"src": [1], "dst": [2], "op": [1]}, "column 'ts' not found"),
           ({"src": [1], "dst": [2], "op": [1], "ts": pd.to_datetime(["2026-01-01"])}, "holds datetimes")]
    for batch, message in bad:
        for call in (g.validate, g.apply):
            with pytest.raises(ValueError, match=message.replace("(", r"\(")):
                call(batch, source="src", destination="dst")
    assert host(g.edges()).equals(before) and g.last_report is report
    assert host(q.result())["distance"].tolist() == [0.0, 1.0]
    # delete rows may hold null times, or come without the column
    assert g.validate({"src": [0], "dst": [1], "op": [-1], "ts": [None]}, source="src", destination="dst") is None
    assert g.apply({"src": [0], "dst": [1], "op": [-1]}, source="src", destination="dst").deleted == 1


def test_from_edgelist_errors():
    edges = {"src": [0], "dst": [1], "ts": [5]}
    with pytest.raises(ValueError, match="needs time="):
        cgs.StreamGraph.from_edgelist(edges, source="src", destination="dst", window=3)
    with pytest.raises(ValueError, match="is a timedelta, but column 'ts' holds numbers"):
        cgs.StreamGraph.from_edgelist(edges, source="src", destination="dst", time="ts",
                                      window=datetime.timedelta(seconds=3))
    with pytest.raises(ValueError, match="is a number, but column 'ts' holds datetimes"):
        cgs.StreamGraph.from_edgelist(dict(edges, ts=pd.to_datetime(["2026-01-01"])), source="src",
                                      destination="dst", time="ts", window=3)
    with pytest.raises(ValueError, match="column 'when' not found"):
        cgs.StreamGraph.from_edgelist(edges, source="src", destination="dst", time="when", window=3)
    with pytest.raises(ValueError, match="window must be a positive"):
        cgs.StreamGraph.from_edgelist(edges, source="src", destination="dst", time="ts", window=0)


def window_state(g):
    spec, window = g._times
    return (spec, window.newest, [a.tolist() for a in window.edges()])


def windowed_graph(ops, directed):
    """A graph with a window of 5 and float64 weights (its first batch replaces its float32
    store, and the window follows), SSSP and WCC tracked; ``(graph, queries, batch)``."""
    g = cgs.StreamGraph.from_edgelist({"src": [0, 1, 2, 3], "dst": [1, 2, 3, 4], "ts": [1, 2, 3, 4],
                                       "w": [1.0, 2.0, 1.0, 1.0]}, source="src", destination="dst",
                                      weight="w", directed=directed, backend=ops, time="ts", window=5)
    assert g.weight_dtype == np.float64
    queries = [g.track(cgs.SSSP(source=0)), g.track(cgs.WCC())]
    batch = {"src": [4, 1, 5, 0], "dst": [5, 2, 6, 9], "op": [1, 1, 1, -1], "ts": [7, 8, 2, None],
             "w": [1.0, 3.0, 1.0, None]}
    return g, queries, batch


def apply_failing_everywhere(g, queries, batch, fault_at):
    """Apply ``batch`` with ``fault_at(k)`` (a context manager failing the k-th call of
    something, with ``fired``) for k = 0, 1, ... until it runs through; after every
    failure edges, times, newest and results must be as they were.  Returns the
    report and the number of failures."""
    before = (host(g.edges()), window_state(g), [host(q.result()) for q in queries], g.last_report)
    at = 0
    while True:
        with fault_at(at) as fault:
            try:
                report = g.apply(batch, source="src", destination="dst")
            except MemoryError:
                assert fault.fired
        if not fault.fired:
            return report, at
        assert host(g.edges()).equals(before[0]), at
        assert window_state(g) == before[1], at
        assert all(host(q.result()).equals(r) for q, r in zip(queries, before[2])), at
        assert g.last_report is before[3]
        g.check_consistency()
        at += 1


def check_after_the_batch(g, report):
    # newest 8, cutoff 3: (0,1) at 1, (1,2) refreshed to 8 stays, (2,3) at 3 goes, (5,6) at 2 goes at once
    assert report.expired == 3
    assert host(g.edges())[["src", "dst", "ts"]].values.tolist() == [[1, 2, 8], [3, 4, 4], [4, 5, 7]]
    g.check_consistency()


@pytest.mark.parametrize("directed", [True, False])
def test_atomic_under_injected_failures(backend, directed):
    """A failure at any operator call of a batch leaves edges, times, newest and results as they were."""
    ops = get_backend(backend)
    g, queries, batch = windowed_graph(ops, directed)
    report, failures = apply_failing_everywhere(
        g, queries, batch, lambda at: FaultInjector(ops, at=at, error=MemoryError("injected")))
    assert failures > 5
    check_after_the_batch(g, report)


@pytest.mark.parametrize("directed", [True, False])
def test_atomic_under_allocation_failures(directed):
    """The same, failing every NumPy allocation the package makes on the CPU in turn
    (``failing_memory.AllocationFaults``), between an operator's writes too."""
    g, queries, batch = windowed_graph(get_backend("cpu"), directed)
    report, failures = apply_failing_everywhere(g, queries, batch, lambda at: AllocationFaults(at=at))
    assert failures > 50
    check_after_the_batch(g, report)


def test_checkpoint_round_trip(tmp_path):
    stamps = pd.to_datetime(["2026-11-26 09:00", "2026-11-26 09:05", "2026-11-26 09:07"]).tz_localize("UTC")
    g = cgs.StreamGraph.from_edgelist(pd.DataFrame({"src": [0, 1, 2], "dst": [1, 2, 0], "ts": stamps}),
                                      source="src", destination="dst", directed=False, time="ts",
                                      window=pd.Timedelta(minutes=10))
    g.track(cgs.WCC(mode="incremental"))
    h = cgs.StreamGraph.load(g.save(os.fspath(tmp_path / "ckpt")))
    assert host(h.edges()).equals(host(g.edges())) and window_state(h) == window_state(g)
    later = pd.DataFrame({"src": [3], "dst": [4], "op": ["insert"],
                          "ts": pd.to_datetime(["2026-11-26 09:12"]).tz_localize("UTC")})
    reports = [graph.apply(later, source="src", destination="dst") for graph in (g, h)]
    assert reports[0].expired == reports[1].expired == 1
    assert host(h.edges()).equals(host(g.edges()))
    assert host(h.queries[0].result()).equals(host(g.queries[0].result()))
    h.check_consistency()


def test_checkpoint_without_times_loads(tmp_path):
    g = cgs.StreamGraph.from_edgelist({"src": [0], "dst": [1]}, source="src", destination="dst")
    h = cgs.StreamGraph.load(g.save(os.fspath(tmp_path / "plain")))
    assert h._times is None and list(host(h.edges()).columns) == ["src", "dst", "weight"]


def test_removed_vertices_take_their_times_along():
    g = cgs.StreamGraph.from_edgelist({"src": [0, 1, 2], "dst": [1, 2, 3], "ts": [1, 2, 3]}, source="src",
                                      destination="dst", time="ts", window=100)
    g.remove_vertices([1])
    g.check_consistency()
    # the freed internal id goes to vertex 7: its edge gets its own time, not (0, 1)'s or (1, 2)'s
    g.apply({"src": [7], "dst": [0], "ts": [50], "op": [1]}, source="src", destination="dst")
    g.check_consistency()
    assert host(g.edges())[["src", "dst", "ts"]].values.tolist() == [[2, 3, 3], [7, 0, 50]]
    report = g.apply({"src": [9], "dst": [8], "ts": [103], "op": [1]}, source="src", destination="dst")
    assert report.expired == 1                    # (2, 3) at 3 <= 103 - 100
    g.check_consistency()


def test_compact_keeps_the_window():
    n = 5000
    g = cgs.StreamGraph.from_edgelist({"src": np.arange(n), "dst": np.arange(1, n + 1), "ts": np.arange(n)},
                                      source="src", destination="dst", time="ts", window=10 ** 6)
    g.apply({"src": np.arange(n - 10), "dst": np.arange(1, n - 9), "op": np.full(n - 10, -1)},
            source="src", destination="dst")
    g.compact()
    g.check_consistency()
    assert host(g.edges())["ts"].tolist() == list(range(n - 10, n))
    assert g.apply({"src": [0], "dst": [1], "ts": [n + 10 ** 6 - 6], "op": [1]}, source="src",
                   destination="dst").expired == 5


def test_pickle_keeps_the_window():
    import pickle

    g = cgs.StreamGraph.from_edgelist({"src": [0, 1], "dst": [1, 2], "ts": [1, 5]}, source="src",
                                      destination="dst", time="ts", window=3)
    h = pickle.loads(pickle.dumps(g))
    assert window_state(h) == window_state(g)
    assert h.apply({"src": [5], "dst": [6], "ts": [9], "op": [1]}, source="src", destination="dst").expired == 1
    assert len(window_state(g)[2][0]) == 1 and len(window_state(h)[2][0]) == 1


def test_schema_remembers_the_time_column(tmp_path):
    g = cgs.StreamGraph.from_edgelist({"src": [0], "dst": [1], "ts": [5]}, source="src", destination="dst",
                                      time="ts", window=10)
    assert (g.schema.time, g.schema.window) == ("ts", 10)
    report = g.apply({"src": [1], "dst": [2], "ts": [20], "op": [1]})        # the schema's columns
    assert report.expired == 1 and report.ignored_columns == []
    report = g.apply({"src": [2], "dst": [3], "when": [21], "op": [1]}, time="when")   # another, for one call
    assert report.expired == 0 and host(g.edges())["ts"].tolist() == [20, 21]
    with pytest.raises(ValueError, match="column 'ts' not found"):
        g.validate({"src": [2], "dst": [3], "when": [21], "op": [1]})
    h = cgs.StreamGraph.from_edgelist({"s": [0], "d": [1], "ts": pd.to_datetime(["2026-01-01"])}, source="s",
                                      destination="d", time="ts", window=datetime.timedelta(hours=1))
    loaded = cgs.StreamGraph.load(h.save(os.fspath(tmp_path / "h")))
    assert loaded.schema == h.schema and loaded.schema.window == pd.Timedelta(hours=1)


def test_frame_datetimes_per_backend(backend):
    """Datetime columns (naive and tz-aware) of the backend's frames: pandas on the CPU, cuDF on the GPU."""
    frames = pytest.importorskip("cudf") if backend == "gpu" else pd
    stamps = pd.to_datetime(["2026-11-26 09:00", "2026-11-26 09:10", "2026-11-26 09:25"])
    for tz in (None, "UTC"):
        def column(values, tz=tz):
            values = pd.Series(pd.to_datetime(values))
            return frames.Series(values if tz is None else values.dt.tz_localize(tz))
        edges = frames.DataFrame({"src": [0, 1, 2], "dst": [1, 2, 3], "ts": column(stamps)})
        g = cgs.StreamGraph.from_edgelist(edges, source="src", destination="dst", backend=backend, time="ts",
                                          window=pd.Timedelta(minutes=20))
        bfs = g.track(cgs.BFS(source=0))
        assert g.last_report.expired == 1                        # 09:00 <= 09:25 - 20 min
        later = frames.DataFrame({"src": [3, 1], "dst": [4, 2], "op": [1, -1],
                                  "ts": column(["2026-11-26 09:50", None])})
        report = g.apply(later)                                  # (2, 3) at 09:25 <= 09:30; (1, 2) deleted
        assert (report.expired, report.deleted) == (1, 2)
        e = host(g.edges())
        assert e[["src", "dst"]].values.tolist() == [[3, 4]]
        assert e["ts"].tolist() == [pd.Timestamp("2026-11-26 09:50", tz=tz)]
        assert host(bfs.result())["distance"].tolist()[0] == 0
        g.check_consistency()
