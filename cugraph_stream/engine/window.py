"""Time windows: each live edge's time, and the edges that fall out of the window.

A :class:`TimeWindow` keeps, for every edge of the graph, the time of the
insert row that last set it (an insert of a present edge refreshes it), and
the newest time any insert row has carried so far.  After the rows of a
batch, the edges whose time is at or before ``newest - window`` have expired:
:meth:`TimeWindow.advance` names them, and the graph deletes them in the
same batch (its rows are followed by one delete row per expired edge, so
the batch's reduction sees them last).

Two structures, both in the backend's memory and changed through the
store's journal (so a batch that fails later rolls the window back with the
rest of the graph):

* ``index``: an :class:`~cugraph_stream.engine.hash_index.EdgeIndex` from
  each live edge's arc key (an undirected edge under ``u <= v``, as the
  store keeps it) to its time: O(1) per row to set, refresh or forget.
* ``log``: ``(time, key)`` pairs sorted by time, one appended per edge an
  insert sets; pairs whose edge was deleted or refreshed since stay behind
  (a pair is current when the index still maps its key to its time).  The
  expired edges are the current pairs of the prefix of the log at or before
  the cutoff (one binary search), and that prefix is dropped.  Times that
  arrive in order are appended; an earlier time is merged into the suffix
  of later ones.  When stale pairs outnumber the live edges the log is
  rebuilt from the index.

A batch therefore costs O(rows log rows) for grouping its rows by edge, hash
probes per distinct edge, O(expired) for the expiry, and the length of the
log's suffix that an out-of-order time lands in: not a pass over the graph's
edges.  Times are int64 here; float64 times are kept as ordered integer keys
(:func:`~cugraph_stream.floats.ordered_bits`), so every comparison is an
exact integer one on both backends; the frame layer turns datetimes into
int64 nanoseconds since the epoch (:mod:`cugraph_stream.frame.times`).
"""
from __future__ import annotations

import math

import numpy as np

from ..backends.rows import INSERT
from ..floats import exact_astype, ordered_bits
from .hash_index import EdgeIndex, arc_key
from .journal import Journal

_LOW = 0xFFFFFFFF
_INT64_MIN, _INT64_MAX = -2 ** 63, 2 ** 63 - 1
_MIN_LOG = 1024


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
    memory : {"device", "host"}
        Where the index and the log live (the store's placement memory: a
        graph kept in host memory keeps its times there too).

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

    def __init__(self, ops, directed, window=None, dtype="int64", journal=None, memory="device"):
        self.ops = ops
        self.memory = memory
        self.directed = bool(directed)
        self.dtype = np.dtype(dtype)
        if self.dtype not in (np.dtype(np.int64), np.dtype(np.float64)):
            raise ValueError(f"dtype must be int64 or float64, got {dtype!r}")
        self.window = _check_window(window, self.dtype)
        self.journal = Journal() if journal is None else journal
        self.index = EdgeIndex(ops, memory=memory, journal=self.journal)     # arc key -> time (ordered int64)
        self.newest = None
        # the log: (time, key) sorted by time in log_time/log_key[log_start:log_end]
        self.log_time, self.log_key = self._empty_log(_MIN_LOG if self.window is not None else 0)
        self.log_start = self.log_end = 0

    def _empty_log(self, size):
        xp = self.ops.xp
        return (self.ops.aligned_empty(size, xp.int64, memory=self.memory),
                self.ops.aligned_empty(size, xp.int64, memory=self.memory))

    def bind(self, journal):
        """Record later changes in ``journal`` (the graph's store was replaced)."""
        self.journal = self.index.journal = journal

    # ------------------------------------------------------------- reading
    def __len__(self):
        return self.index.live

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

    def _encode(self, times):
        """Times of :attr:`dtype` as the int64 keys kept (float64: ordered, -0.0 as 0.0)."""
        xp = self.ops.xp
        times = xp.asarray(times)
        if self.dtype.kind == "f":
            return ordered_bits(xp.ascontiguousarray(exact_astype(times, xp.float64)))     # (subnormals kept)
        return times.astype(xp.int64, copy=False)

    def _decode(self, keys):
        """Times of :attr:`dtype` from kept keys (the inverse of :meth:`_encode`)."""
        xp = self.ops.xp
        if self.dtype.kind == "i":
            return keys
        bits = xp.where(keys < 0, (keys - 1) ^ np.int64(_INT64_MAX), keys)
        return xp.ascontiguousarray(bits).view(xp.float64)

    def _live(self):
        """``(positions, keys)`` of the live entries of the index, in table order."""
        xp = self.ops.xp
        held = xp.flatnonzero(self.index.keys >= 0)
        return held, self.index.keys[held]

    def times_of(self, u, v):
        """Times of the edges ``(u, v)`` (all present), in :attr:`dtype`."""
        at = self.index.locate(self._key(u, v))
        return self._decode(self.index.values[at])

    def edges(self):
        """``(u, v, times)`` of every edge (undirected: ``u <= v``), sorted by ``(u, v)``."""
        xp = self.ops.xp
        held, keys = self._live()
        order = xp.argsort(keys)
        keys = keys[order]
        return keys >> 32, keys & _LOW, self._decode(self.index.values[held[order]])

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
        ops, xp, index = self.ops, self.ops.xp, self.index
        key, times = self._key(u, v), self._encode(times)
        # an unknown vertex (-1, delete rows only) gives a negative key: make it one no edge has
        key = xp.where(key < 0, np.int64(_INT64_MAX), key)
        if key.size > 1:
            order = xp.argsort(key, kind="stable")
            key, codes, times = key[order], codes[order], times[order]
        last = xp.ones(key.size, dtype=bool)
        if key.size > 1:
            last[:-1] = key[1:] != key[:-1]
        inserts = codes == INSERT
        # one host read: the distinct edges named, whether any row inserts, and the newest time
        named, any_insert, largest = ops.host_ints(last.sum(), inserts.any(),
                                                   xp.where(inserts, times, _INT64_MIN).max() if key.size else 0)
        batch_key, batch_code, batch_time = key, codes, times
        if named < key.size:
            batch_key, batch_code, batch_time = ops.compress(last, key, codes, times)
        at = ops.hash_find(index.keys, batch_key)                 # -1: absent
        setting, present = batch_code == INSERT, at >= 0
        refresh_at, refresh_key, refresh_time = ops.compress(present & setting, at, batch_key, batch_time)
        gone_key, gone_at = ops.compress(present & ~setting, batch_key, at)
        new_key, new_time = ops.compress(~present & setting, batch_key, batch_time)
        self.journal.write(index.values, refresh_at, refresh_time)
        index.erase(gone_key, gone_at)
        index.insert(new_key, new_time)
        newest = self.newest
        if any_insert:
            largest = self._host_time(largest)
            newest = largest if newest is None else max(newest, largest)
            self.journal.assign(self, "newest", newest)
        if self.window is None:
            return xp.empty(0, dtype=xp.int64), xp.empty(0, dtype=xp.int64)
        self._log(xp.concatenate((refresh_time, new_time)), xp.concatenate((refresh_key, new_key)))
        expired = self._expire(newest - self.window) if newest is not None else (key[:0], key[:0])
        index.fit()
        return expired

    def _host_time(self, key):
        """A kept int64 key as a Python time of :attr:`dtype`."""
        if self.dtype.kind == "i":
            return int(key)
        return float(self._decode(self.ops.xp.asarray([key], dtype=self.ops.xp.int64))[0])

    def _cutoff_key(self, cutoff):
        """The kept key of ``cutoff``; None where no time is at or before it."""
        if self.dtype.kind == "i":
            return None if cutoff < _INT64_MIN else min(int(cutoff), _INT64_MAX)
        return int(ordered_bits(np.array([cutoff], dtype=np.float64))[0])

    def _log(self, times, keys):
        """Add ``(times, keys)`` pairs to the log, keeping it sorted by time."""
        ops, xp, journal = self.ops, self.ops.xp, self.journal
        m = int(times.size)
        if m == 0:
            return
        if m > 1 and not bool((times[1:] >= times[:-1]).all()):      # (a batch of one time needs no sort)
            order = xp.argsort(times, kind="stable")
            times, keys = times[order], keys[order]
        start, end = self.log_start, self.log_end
        if end - start > 2 * self.index.live + _MIN_LOG:         # mostly stale pairs: start afresh
            self._rebuild_log(times, keys)
            return
        first, = ops.host_ints(times[0])
        tail = end
        if end > start:             # where the new pairs go: after every pair not later than the first
            tail = start + int(xp.searchsorted(self.log_time[start:end], xp.asarray(first), side="right"))
        if end + m > self.log_time.size:
            self._grow(m)               # the live part moves to the front
            tail, end = tail - start, self.log_end
        if tail < end:              # an earlier time: merge with the later suffix
            journal.save(self.log_time, slice(tail, end))
            journal.save(self.log_key, slice(tail, end))
            times, keys = self.ops.merge_sorted(self.log_time[tail:end], self.log_key[tail:end], times, keys)
        self.log_time[tail:tail + times.size] = times       # beyond log_end, or saved above
        self.log_key[tail:tail + times.size] = keys
        journal.assign(self, "log_end", tail + int(times.size))

    def _grow(self, more):
        """Room for ``more`` pairs: a new array holding the live part of the log from 0."""
        journal = self.journal
        start, end = self.log_start, self.log_end
        size = max(_MIN_LOG, 2 * (end - start + more))
        log_time, log_key = self._empty_log(size)
        log_time[:end - start], log_key[:end - start] = self.log_time[start:end], self.log_key[start:end]
        journal.assign(self, "log_time", log_time)
        journal.assign(self, "log_key", log_key)
        journal.assign(self, "log_start", 0)
        journal.assign(self, "log_end", end - start)

    def _rebuild_log(self, times=None, keys=None):
        """The log afresh from the index's live pairs (the pairs ``times``, ``keys``
        of this batch are among them already)."""
        xp, journal = self.ops.xp, self.journal
        held, live_keys = self._live()
        live_times = self.index.values[held]
        order = xp.argsort(live_times, kind="stable")
        n = int(order.size)
        size = max(_MIN_LOG, 2 * n)
        log_time, log_key = self._empty_log(size)
        log_time[:n], log_key[:n] = live_times[order], live_keys[order]
        journal.assign(self, "log_time", log_time)
        journal.assign(self, "log_key", log_key)
        journal.assign(self, "log_start", 0)
        journal.assign(self, "log_end", n)

    def _expire(self, cutoff):
        """Forget the edges at or before ``cutoff``; return them as ``(u, v)``."""
        ops, xp, index = self.ops, self.ops.xp, self.index
        empty = xp.empty(0, dtype=xp.int64)
        limit = self._cutoff_key(cutoff)
        start, end = self.log_start, self.log_end
        if limit is None or end == start:
            return empty, empty
        past = int(xp.searchsorted(self.log_time[start:end], xp.asarray(limit, dtype=xp.int64), side="right"))
        if past == 0:
            return empty, empty
        times, keys = self.log_time[start:start + past], self.log_key[start:start + past]
        self.journal.assign(self, "log_start", start + past)
        at = ops.hash_find(index.keys, keys)
        current = (at >= 0) & (index.values[xp.maximum(at, 0)] == times)
        keys, at = ops.compress(current, keys, at)
        if keys.size > 1:           # a pair logged twice (the same time set twice)
            keys, first = xp.unique(keys, return_index=True)
            at = at[first]
        index.erase(keys, at)
        return keys >> 32, keys & _LOW

    def drop_vertices(self, internal):
        """Forget every edge with an endpoint among ``internal`` (vertices being removed)."""
        xp = self.ops.xp
        if internal.size == 0 or self.index.live == 0:
            return
        gone = self.ops.sorted_distinct(internal)
        held, keys = self._live()
        hit = _isin(xp, keys >> 32, gone) | _isin(xp, keys & _LOW, gone)
        keys, held = self.ops.compress(hit, keys, held)
        self.index.erase(keys, held)        # their log pairs are stale now
        self.index.fit()

    def restore(self, u, v, times, newest):
        """Fill an empty window with saved edges ``(u, v)`` (distinct; undirected:
        any orientation), their ``times`` and the saved ``newest``."""
        xp = self.ops.xp
        if self.index.live:
            raise ValueError("TimeWindow.restore needs an empty window")
        key = self._key(self.ops.asarray(u, dtype=xp.int64), self.ops.asarray(v, dtype=xp.int64))
        if key.size > 1 and int(self.ops.sorted_distinct(key).size) != int(key.size):
            raise ValueError("the window names an edge twice")
        self.index.insert(key, self._encode(self.ops.asarray(times)))
        self.newest = None if newest is None else (int(newest) if self.dtype.kind == "i" else float(newest))
        if self.window is not None:
            self._rebuild_log()

    def check(self, u, v):
        """Raise ``RuntimeError`` unless the window holds exactly the edges ``(u, v)``
        (the store's, from :meth:`GraphStore.edge_arrays`) and logs each one's time."""
        xp = self.ops.xp
        stored = xp.sort(self._key(u, v))
        held, keys = self._live()
        order = xp.argsort(keys)
        keys, times = keys[order], self.index.values[held[order]]
        if stored.shape != keys.shape or not bool((stored == keys).all()):
            raise RuntimeError(f"the time window holds {len(self)} edges that differ from the "
                               f"store's {int(stored.size)}")
        if self.window is None or keys.size == 0:
            return
        log_time = self.log_time[self.log_start:self.log_end]
        log_key = self.log_key[self.log_start:self.log_end]
        if log_time.size > 1 and bool((log_time[1:] < log_time[:-1]).any()):
            raise RuntimeError("the time window's log is not sorted by time")
        rank = xp.minimum(xp.searchsorted(keys, log_key), keys.size - 1)
        logged = (keys[rank] == log_key) & (times[rank] == log_time)
        found = xp.zeros(keys.size, dtype=bool)
        found[rank[logged]] = True
        if not bool(found.all()):
            raise RuntimeError("the time window's log lacks the time of a live edge")
        limit = self._cutoff_key(self.cutoff)
        if limit is not None and bool((times <= limit).any()):
            raise RuntimeError("the time window holds an expired edge")

    def memory_bytes(self):
        return self.index.memory_bytes() + self.ops.memory_bytes(self.log_time, self.log_key)


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


def _isin(xp, values, sorted_set):
    at = xp.minimum(xp.searchsorted(sorted_set, values), sorted_set.size - 1)
    return sorted_set[at] == values
