"""Time windows: each live edge's time, and the edges that fall out of the window.

A :class:`TimeWindow` keeps, for every edge of the graph, the time of the
insert row that last set it (an insert of a present edge refreshes it), and
the newest time any insert row has carried so far.  After the rows of a
batch, the edges whose time is at or before ``newest - window`` have expired:
:meth:`TimeWindow.advance` names them, and the graph deletes them in the
same batch (its rows are followed by one delete row per expired edge, so
the batch's reduction sees them last).

The state is two arrays sorted by arc key (see
:func:`~cugraph_stream.engine.hash_index.arc_key`; an undirected edge under
its canonical orientation ``u <= v``, as the store keeps it): ``keys`` and
``times`` (int64; float64 times are kept as their bits, so one merge operator
serves both).  A batch costs a stable sort of its rows, a binary search of
its distinct edges in ``keys``, and a few passes over the state (remove the
edges the batch names, merge the ones it inserts, split off the expired):
O(rows log rows + edges) elementwise work, no per-row Python loop, the same
code on NumPy and CuPy.  The new arrays replace the old ones through the
store's journal (:meth:`Journal.assign`), so a batch that fails later rolls
the window back with the rest of the graph.

Times are plain numbers here: the frame layer turns datetimes into int64
nanoseconds since the epoch (UTC) and timedeltas into int64 nanoseconds
(see :mod:`cugraph_stream.frame.times`).
"""
from __future__ import annotations

import math

import numpy as np

from .hash_index import arc_key
from .journal import Journal
from .reduce import INSERT

_LOW = 0xFFFFFFFF
_INT64_MIN = -2 ** 63


class TimeWindow:
    """Per-edge times of a graph, and expiry of the edges older than a window.

    Parameters
    ----------
    ops : Backend
        The graph's operators.
    directed : bool
        Whether ``(u, v)`` and ``(v, u)`` are different edges; an undirected
        edge is kept under ``(min, max)``.
    window : int, float or None
        Edges whose time is at or before ``newest - window`` expire; None
        only records times.  Must be positive (an int with ``dtype="int64"``).
    dtype : {"int64", "float64"}
        The dtype of times.
    journal : Journal, optional
        Where state changes are recorded (the store's, so that a failed batch
        rolls the window back); a private one by default.

    Attributes
    ----------
    newest : int, float or None
        The newest time of any insert row so far (None before the first).

    Examples
    --------
    >>> import numpy as np
    >>> from cugraph_stream.backends import get_backend
    >>> tw = TimeWindow(get_backend("cpu"), directed=True, window=10)
    >>> ins = np.ones(3, dtype=np.int8)
    >>> tw.advance(np.array([0, 1, 2]), np.array([1, 2, 0]), np.array([1, 5, 8]), ins)
    (array([], dtype=int64), array([], dtype=int64))
    >>> u, v = tw.advance(np.array([2]), np.array([3]), np.array([13]), ins[:1])   # 13 - 10 = 3
    >>> u.tolist(), v.tolist(), tw.newest, len(tw)
    ([0], [1], 13, 3)
    >>> tw.times_of(np.array([1, 2]), np.array([2, 3])).tolist()
    [5, 13]
    """

    def __init__(self, ops, directed, window=None, dtype="int64", journal=None):
        xp = ops.xp
        self.ops = ops
        self.directed = bool(directed)
        self.dtype = np.dtype(dtype)
        if self.dtype not in (np.dtype(np.int64), np.dtype(np.float64)):
            raise ValueError(f"dtype must be int64 or float64, got {dtype!r}")
        self.window = _check_window(window, self.dtype)
        self.journal = Journal() if journal is None else journal
        self.keys = xp.empty(0, dtype=xp.int64)
        self.times = xp.empty(0, dtype=xp.int64)      # float64 times: their bits
        self.newest = None

    # ------------------------------------------------------------- reading
    def __len__(self):
        return int(self.keys.size)

    @property
    def cutoff(self):
        """Edges whose time is at or before this have expired (None: nothing expires)."""
        if self.window is None or self.newest is None:
            return None
        return self.newest - self.window

    def _key(self, u, v):
        xp = self.ops.xp
        if not self.directed:
            u, v = xp.minimum(u, v), xp.maximum(u, v)
        return arc_key(xp, u, v)

    def _as_times(self, bits):
        """Times in :attr:`dtype` from the int64 array kept in :attr:`times`."""
        return bits.view(self.ops.xp.float64) if self.dtype.kind == "f" else bits

    def times_of(self, u, v):
        """Times of the edges ``(u, v)`` (all present), in :attr:`dtype`."""
        xp = self.ops.xp
        bits = self.ops.lookup_sorted(self.keys, self.times, self._key(u, v))
        return self._as_times(xp.ascontiguousarray(bits))

    def edges(self):
        """``(u, v, times)`` of every edge (undirected: ``u <= v``), sorted by ``(u, v)``."""
        return self.keys >> 32, self.keys & _LOW, self._as_times(self.times)

    # ------------------------------------------------------------- changing
    def advance(self, u, v, times, codes):
        """Fold a batch's rows into the window; return the edges that expire.

        Parameters
        ----------
        u, v : int64 arrays
            Internal ids of each row's endpoints (-1 on delete rows naming an
            unknown vertex).
        times : array
            Each row's time in :attr:`dtype` (any value on delete rows).
        codes : int8 array
            ``1`` insert, ``-1`` delete.

        Returns
        -------
        (u, v) : int64 arrays
            The edges, present once the rows are applied, whose time is at or
            before the new ``newest - window`` (undirected: ``u <= v``); the
            window no longer holds them.  The caller deletes them from the
            graph after the rows.

        The last row of an edge decides: an insert sets the edge's time to
        the row's, a delete forgets the edge.  ``newest`` becomes the largest
        time of any insert row, if it exceeds the previous one.
        """
        ops, xp = self.ops, self.ops.xp
        times = xp.asarray(times).astype(self.dtype, copy=False)
        key = self._key(u, v)
        if key.size > 1:
            order = xp.argsort(key, kind="stable")
            key, codes, times = key[order], codes[order], times[order]
        last = xp.ones(key.size, dtype=bool)
        if key.size > 1:
            last[:-1] = key[1:] != key[:-1]
        batch_key, batch_code, batch_time = ops.compress(last, key, codes, times)
        keys, bits = self.keys, self.times
        if keys.size and batch_key.size:                   # edges the batch names leave the state ...
            at = xp.minimum(xp.searchsorted(keys, batch_key), keys.size - 1)
            named = keys[at] == batch_key
            keep = xp.ones(keys.size, dtype=bool)
            keep[at[named]] = False
            keys, bits = ops.compress(keep, keys, bits)
        insert_key, insert_time = ops.compress(batch_code == INSERT, batch_key, batch_time)
        if insert_key.size:                                # ... and those it inserts come back
            keys, bits = ops.merge_sorted(keys, bits, insert_key, insert_time.view(xp.int64))
        newest = self.newest
        inserts = codes == INSERT
        if key.size and bool(inserts.any()):               # (every insert row counts, the overwritten too)
            largest = _scalar(xp.where(inserts, times, _lowest(self.dtype)).max(), self.dtype)
            newest = largest if newest is None else max(newest, largest)
        expired = xp.empty(0, dtype=xp.int64)
        cutoff = None if self.window is None or newest is None else newest - self.window
        if cutoff is not None and keys.size and not (self.dtype.kind == "i" and cutoff < _INT64_MIN):
            old = self._as_times(bits) <= cutoff
            expired, = ops.compress(old, keys)
            if expired.size:
                keys, bits = ops.compress(~old, keys, bits)
        self.journal.assign(self, "keys", keys)
        self.journal.assign(self, "times", bits)
        self.journal.assign(self, "newest", newest)
        return expired >> 32, expired & _LOW

    def drop_vertices(self, internal):
        """Forget every edge with an endpoint among ``internal`` (vertices being removed)."""
        xp = self.ops.xp
        if internal.size == 0 or self.keys.size == 0:
            return
        gone = xp.unique(internal)
        u, v = self.keys >> 32, self.keys & _LOW
        hit = _isin(xp, u, gone) | _isin(xp, v, gone)
        keys, bits = self.ops.compress(~hit, self.keys, self.times)
        self.journal.assign(self, "keys", keys)
        self.journal.assign(self, "times", bits)

    def restore(self, u, v, times, newest):
        """Fill an empty window with saved edges ``(u, v)`` (distinct; undirected:
        any orientation), their ``times`` and the saved ``newest``."""
        xp = self.ops.xp
        if self.keys.size:
            raise ValueError("TimeWindow.restore needs an empty window")
        key = self._key(self.ops.asarray(u, dtype=xp.int64), self.ops.asarray(v, dtype=xp.int64))
        times = self.ops.asarray(times).astype(self.dtype, copy=False)
        order = xp.argsort(key)
        key, times = key[order], times[order]
        if key.size > 1 and bool((key[1:] == key[:-1]).any()):
            raise ValueError("the window names an edge twice")
        self.keys, self.times = key, xp.ascontiguousarray(times).view(xp.int64)
        self.newest = None if newest is None else _scalar(newest, self.dtype)

    def check(self, u, v):
        """Raise ``RuntimeError`` unless the window holds exactly the edges ``(u, v)``
        (the store's, from :meth:`GraphStore.edge_arrays`)."""
        xp = self.ops.xp
        stored = xp.sort(self._key(u, v))
        if stored.shape != self.keys.shape or not bool((stored == self.keys).all()):
            raise RuntimeError(f"the time window holds {len(self)} edges that differ from the "
                               f"store's {int(stored.size)}")
        if self.dtype.kind == "f" and self.keys.size and not bool(xp.isfinite(self._as_times(self.times)).all()):
            raise RuntimeError("the time window holds a non-finite time")

    def memory_bytes(self):
        return self.ops.memory_bytes(self.keys, self.times)


def _check_window(window, dtype):
    """``window`` as a Python number of ``dtype``'s kind; ``ValueError`` unless positive."""
    if window is None:
        return None
    if isinstance(window, (bool, np.bool_)) or not isinstance(window, (int, float, np.integer, np.floating)):
        raise ValueError(f"window must be a positive number, got {window!r}")
    if dtype.kind == "i":
        if not float(window).is_integer():
            raise ValueError(f"window must be an integer when times are integers, got {window!r}")
        window = int(window)
    else:
        window = float(window)
    if not (math.isfinite(window) and window > 0):
        raise ValueError(f"window must be a positive finite number, got {window!r}")
    return window


def _lowest(dtype):
    return np.iinfo(np.int64).min if dtype.kind == "i" else -np.inf


def _scalar(value, dtype):
    """A Python int or float (one host read of a 0-d array)."""
    return int(value) if dtype.kind == "i" else float(value)


def _isin(xp, values, sorted_set):
    at = xp.minimum(xp.searchsorted(sorted_set, values), sorted_set.size - 1)
    return sorted_set[at] == values
