"""TimeWindow against a plain-Python model of per-edge times and expiry."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cugraph_stream.engine import window as window_module
from cugraph_stream.engine.journal import Journal
from cugraph_stream.engine.window import TimeWindow

rows = st.lists(st.tuples(st.integers(-1, 4), st.integers(0, 4), st.integers(-3, 12), st.sampled_from([1, -1])),
                max_size=25)


class Model:
    """Per-edge times as a dict, rows applied one by one."""

    def __init__(self, directed, window):
        self.directed, self.window = directed, window
        self.times, self.newest = {}, None

    def advance(self, batch):
        for u, v, t, op in batch:
            if u < 0 or v < 0:          # an unknown vertex: delete rows only
                continue
            key = (u, v) if self.directed else (min(u, v), max(u, v))
            if op == 1:
                self.times[key] = t
                self.newest = t if self.newest is None else max(self.newest, t)
            else:
                self.times.pop(key, None)
        expired = set()
        if self.window is not None and self.newest is not None:
            expired = {k for k, t in self.times.items() if t <= self.newest - self.window}
        for key in expired:
            del self.times[key]
        return expired


def arrays(ops, batch, dtype):
    u = np.array([r[0] for r in batch], dtype=np.int64)
    v = np.array([r[1] for r in batch], dtype=np.int64)
    t = np.array([r[2] for r in batch], dtype=dtype)
    op = np.array([r[3] for r in batch], dtype=np.int8)
    return ops.asarray(u), ops.asarray(v), ops.asarray(t), ops.asarray(op)


def fixed(batch):
    """The rows as the window sees them (insert rows name known vertices)."""
    return [(max(u, 0) if op == 1 else u, v, t, op) for u, v, t, op in batch]


def state(ops, tw):
    u, v, t = (ops.to_host(a).tolist() for a in tw.edges())
    return dict(zip(zip(u, v), t))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(batches=st.lists(rows, max_size=12), directed=st.booleans(), window=st.sampled_from([None, 1, 3, 7]),
       floats=st.booleans(), small_log=st.booleans())
def test_window_matches_the_model(ops, batches, directed, window, floats, small_log):
    """Also with a log of 4 pairs at first: it grows, and is rebuilt once stale pairs pile up."""
    window_module._MIN_LOG = 4 if small_log else 1024
    dtype = np.float64 if floats else np.int64
    tw = TimeWindow(ops, directed, window=None if window is None else dtype(window).item(),
                    dtype=np.dtype(dtype).name)
    model = Model(directed, window)
    for batch in batches:
        batch = fixed(batch)
        u, v = tw.advance(*arrays(ops, batch, dtype))
        expected = model.advance(batch)
        got = set(zip(ops.to_host(u).tolist(), ops.to_host(v).tolist()))
        assert got == expected
        assert state(ops, tw) == model.times
        assert tw.newest == model.newest
        assert len(tw) == len(model.times)
        keys = sorted(model.times)
        tw.check(ops.asarray(np.array([k[0] for k in keys], dtype=np.int64)),
                 ops.asarray(np.array([k[1] for k in keys], dtype=np.int64)))
    window_module._MIN_LOG = 1024


def test_float_times_keep_their_order(ops):
    """Negative times, -0.0 and subnormals compare as floats (the log keeps ordered integer keys)."""
    tw = TimeWindow(ops, directed=True, window=1e-300, dtype="float64")
    times = np.array([-1e300, -5e-324, -0.0, 5e-324, 1e-300, 2e-300])
    n = times.size
    tw.advance(ops.asarray(np.arange(n)), ops.asarray(np.arange(1, n + 1)), ops.asarray(times),
               ops.asarray(np.ones(n, dtype=np.int8)))
    # newest 2e-300, cutoff 1e-300: all but the newest expire
    assert state(ops, tw) == {(5, 6): 2e-300}
    tw = TimeWindow(ops, directed=True, dtype="float64")
    tw.advance(ops.asarray(np.arange(n)), ops.asarray(np.arange(1, n + 1)), ops.asarray(times),
               ops.asarray(np.ones(n, dtype=np.int8)))
    assert list(state(ops, tw).values()) == [-1e300, -5e-324, 0.0, 5e-324, 1e-300, 2e-300]


def test_last_row_decides_and_old_inserts_expire_at_once(ops):
    tw = TimeWindow(ops, directed=True, window=5)
    ins, dele = np.int8(1), np.int8(-1)
    u, v = tw.advance(ops.asarray(np.array([0, 0, 1, 1])), ops.asarray(np.array([1, 1, 2, 2])),
                      ops.asarray(np.array([10, 2, 10, 0])), ops.asarray(np.array([ins, ins, ins, dele])))
    # (0, 1): its last insert has time 2 <= 10 - 5, so it expires in the same batch; (1, 2): deleted
    assert ops.to_host(u).tolist() == [0] and ops.to_host(v).tolist() == [1] and len(tw) == 0
    assert tw.newest == 10 and tw.cutoff == 5


def test_undirected_rows_name_one_edge(ops):
    tw = TimeWindow(ops, directed=False, window=100)
    one = ops.asarray(np.array([1], dtype=np.int8))
    tw.advance(ops.asarray(np.array([3])), ops.asarray(np.array([1])), ops.asarray(np.array([5])), one)
    tw.advance(ops.asarray(np.array([1])), ops.asarray(np.array([3])), ops.asarray(np.array([7])), one)
    assert state(ops, tw) == {(1, 3): 7}
    assert ops.to_host(tw.times_of(ops.asarray(np.array([3])), ops.asarray(np.array([1])))).tolist() == [7]


def test_drop_vertices_forgets_their_edges(ops):
    tw = TimeWindow(ops, directed=True)
    tw.advance(ops.asarray(np.array([0, 1, 2])), ops.asarray(np.array([1, 2, 3])),
               ops.asarray(np.array([1, 2, 3])), ops.asarray(np.ones(3, dtype=np.int8)))
    tw.drop_vertices(ops.asarray(np.array([2])))
    assert state(ops, tw) == {(0, 1): 1}


def test_rollback_through_the_journal(ops):
    journal = Journal()
    tw = TimeWindow(ops, directed=True, window=3, journal=journal)
    one = ops.asarray(np.ones(1, dtype=np.int8))
    tw.advance(ops.asarray(np.array([0])), ops.asarray(np.array([1])), ops.asarray(np.array([1])), one)
    journal.begin()
    tw.advance(ops.asarray(np.array([1])), ops.asarray(np.array([2])), ops.asarray(np.array([9])), one)
    assert len(tw) == 1 and tw.newest == 9
    journal.rollback()
    assert state(ops, tw) == {(0, 1): 1} and tw.newest == 1


def test_restore_and_check(ops):
    tw = TimeWindow(ops, directed=False, window=5.0, dtype="float64")
    tw.restore(np.array([4, 0]), np.array([1, 2]), np.array([1.5, -0.5]), 3.0)
    assert state(ops, tw) == {(0, 2): -0.5, (1, 4): 1.5} and tw.newest == 3.0
    tw.check(ops.asarray(np.array([0, 1])), ops.asarray(np.array([2, 4])))
    with pytest.raises(RuntimeError, match="differ"):
        tw.check(ops.asarray(np.array([0])), ops.asarray(np.array([2])))
    with pytest.raises(ValueError, match="twice"):
        TimeWindow(ops, directed=False).restore(np.array([1, 2]), np.array([2, 1]), np.array([0, 0]), 0)


@pytest.mark.parametrize("window, dtype", [(0, "int64"), (-1.0, "float64"), (float("inf"), "float64"),
                                           (1.5, "int64"), (True, "int64"), ("5", "int64")])
def test_bad_windows(window, dtype):
    from cugraph_stream.backends import get_backend
    with pytest.raises(ValueError, match="window"):
        TimeWindow(get_backend("cpu"), True, window=window, dtype=dtype)
