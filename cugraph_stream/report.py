"""What a batch did: counts, work done and wall time per phase."""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

from .collector import collector_seconds


#: a report's repr shows its garbage collection from this many seconds (a full
#: collection; the young generations' take microseconds)
GC_SHOWN_S = 1e-3


class PhaseClock:
    """Times the phases of one operation without waiting for the device.

    Each :meth:`lap` marks the end of a phase on the device's queue
    (``ops.mark()``: a CUDA event on the GPU, the clock on the CPU) and costs
    no synchronisation; :meth:`times` reads the marks once the device has
    passed the last one (after the synchronisation that ends the
    operation's transaction).  On the GPU a phase's time is therefore the
    time the device's queue spent between two marks, which includes the
    host's launch gaps.

    Examples
    --------
    >>> from cugraph_stream.backends import get_backend
    >>> clock = PhaseClock(get_backend("cpu"))
    >>> clock.lap("validate"); clock.lap("store"); clock.lap("store")
    >>> sorted(clock.times())
    ['store', 'validate']

    ``on_lap(name)``, when given, is called as each phase ends on the host
    (a progress bar's hook: it does not wait for the device either).
    :meth:`collector_s` is how long Python's garbage collector has run since
    the clock was made (:mod:`cugraph_stream.collector`).
    """

    def __init__(self, ops, on_lap=None):
        self.ops = ops
        self.on_lap = on_lap
        self._collector_start = collector_seconds()
        self._marks = [(None, ops.mark())]

    def collector_s(self):
        """Seconds the garbage collector ran since this clock was made."""
        return collector_seconds() - self._collector_start

    def lap(self, name):
        """End phase ``name`` here (a repeated name adds up)."""
        self._marks.append((name, self.ops.mark()))
        if self.on_lap is not None:
            self.on_lap(name)

    def times(self):
        """Seconds per phase name, in the order the phases first ended; the
        marks go back to the backend (``ops.release_marks``), so a clock's
        times are read once."""
        out = {}
        for (_, start), (name, end) in zip(self._marks, self._marks[1:]):
            out[name] = out.get(name, 0.0) + self.ops.elapsed(start, end)
        self.ops.release_marks([mark for _, mark in self._marks])
        self._marks = []
        return out


@dataclass
class QueryReport:
    """Work and time one tracked query spent on a batch.

    ``host_edges_read``, ``host_bytes``, ``cache_hits`` and
    ``cache_saved_bytes`` are this query's share of the :class:`BatchReport`
    figures of the same names (without the cache's own loads).  ``converged`` is False only for a PageRank with
    ``fail_on_nonconvergence=False`` that stopped at ``max_iter`` above its
    ``tol``.

    ``path`` is ``"incremental"`` or ``"recompute"``: which way the update
    ran.  ``path_reason`` says why (the query's mode, or in ``mode="auto"``
    the estimated seconds of both paths, a probe, or an incremental update
    that gave up; in any mode, a batch that changed nothing), and
    ``estimated_incremental_s`` / ``estimated_recompute_s``
    are the cost model's estimates (NaN when the mode fixed the path; see
    :mod:`cugraph_stream.engine.cost_model`).
    """

    name: str
    invalidated: int = 0
    activated: int = 0
    edges_scanned: int = 0
    correct_s: float = 0.0
    compute_s: float = 0.0
    host_edges_read: int = 0
    host_bytes: int = 0
    cache_hits: int = 0
    cache_saved_bytes: int = 0
    converged: bool = True
    path: str = "incremental"
    path_reason: str = ""
    estimated_incremental_s: float = math.nan
    estimated_recompute_s: float = math.nan


@dataclass
class BatchReport:
    """Returned by :meth:`StreamGraph.apply` (and by vertex additions and removals).

    Attributes
    ----------
    rows : int
        Rows in the batch.
    inserted, deleted, weight_updated : int
        Edges that appeared, disappeared, or changed weight.
    unchanged : int
        Present edges re-inserted with the weight they had.
    ignored : int
        Delete rows that found their edge absent (rows applied in order).
    cancelled : int
        Edges whose rows changed them and changed them back (for example an
        insert then a delete of a new edge).
    expired : int
        Edges deleted by the graph's time window (``from_edgelist(window=...)``)
        at the end of this batch: those whose time is at or before the newest
        time seen minus the window.  They are included in ``deleted`` (or, for
        edges this batch inserted, in ``cancelled``).
    new_vertices, removed_vertices : int
    invalidated, activated, edges_scanned : int
        Totals over the tracked queries (see ``queries``); ``edges_scanned``
        counts the adjacency entries the queries read.
    host_edges_read, host_bytes : int
        With placement ``"host"`` or ``"cached"``: the entries the queries
        read from host memory, and the bytes requested from it, counted in
        whole 64-byte transactions per list read (neighbours, plus weights
        where the query reads them), plus, with ``"cached"``, the transfers
        that loaded lists into the cache.  0 with placement ``"device"``.
    cache_hits, cache_hit_ratio : int, float
        With ``"cached"``: entries served by the cache, and their share
        of all entries read.  The cache's refresh time is ``times["cache"]``.
    cache_saved_bytes : int
        With ``"cached"``: the host bytes the cache's hits saved (the 64-byte
        transactions they would have read from host memory).
    cache_refresh, cache_refresh_reason : str
        With ``"cached"``: what the batch's cache refresh did, ``"full"``
        (selection, evictions and loads), ``"partial"`` (the cached lists
        the batch changed are loaded again), ``"skipped"`` (they are only
        evicted) or ``"cleared"`` (the cache was emptied: keeping it cost more
        than it saved), and why (see :mod:`cugraph_stream.engine.cache_policy`);
        ``""`` with the other placements.
    cache_loaded_bytes : int
        With ``"cached"``: host bytes the refresh's loads read (included in
        ``host_bytes``).
    device_memory_bytes : int
        Device memory held by the graph store and the tracked queries' state
        (0 on the CPU backend).
    launches, syncs : int
        What the operation asked of the device, counted by the operator
        layer that every backend shares (the same on the CPU and the GPU):
        operator calls, and host synchronisation points (operators whose
        results the host reads, such as a count or a result of data-dependent
        length; see :class:`~cugraph_stream.backends.base.DeviceCalls`).
    gc_s : float
        Seconds Python's garbage collector ran during the operation, in
        whichever phase it interrupted (a collection stops the interpreter:
        a full one walks every object of the process, 85-97 ms on a lent
        H200's host in a process that imported cuDF and pylibcugraph; see
        :mod:`cugraph_stream.collector`).  Counted in ``times`` too (on the
        GPU, as far as the device's queue waited for the host meanwhile).
    ignored_columns : list of str
        Columns of the batch that no part of the call read (for example a
        weight column sent to an unweighted graph, whose inserts weigh 1).
    times : dict
        Seconds per phase: ``validate``, ``reduce``, ``window`` (a graph
        with edge times), ``store``, ``cache`` (with placement ``"cached"``), and ``<query>:correct`` /
        ``<query>:compute`` per tracked query.  Phase boundaries are marked
        on the device's queue without waiting for it (see
        :class:`PhaseClock`).
    queries : list of QueryReport

    Examples
    --------
    >>> BatchReport(rows=3, inserted=2, ignored=1, times={"store": 0.002})
    BatchReport(rows=3 +2 -0 ~0 unchanged=0 ignored=1 cancelled=0 vertices=+0/-0 invalidated=0 activated=0 edges_scanned=0 time=2.000ms)
    """

    rows: int = 0
    inserted: int = 0
    deleted: int = 0
    weight_updated: int = 0
    unchanged: int = 0
    ignored: int = 0
    cancelled: int = 0
    expired: int = 0
    new_vertices: int = 0
    removed_vertices: int = 0
    invalidated: int = 0
    activated: int = 0
    edges_scanned: int = 0
    host_edges_read: int = 0
    host_bytes: int = 0
    cache_hits: int = 0
    cache_hit_ratio: float = 0.0
    cache_saved_bytes: int = 0
    cache_refresh: str = ""
    cache_refresh_reason: str = ""
    cache_loaded_bytes: int = 0
    device_memory_bytes: int = 0
    launches: int = 0
    syncs: int = 0
    gc_s: float = 0.0
    ignored_columns: list = field(default_factory=list)
    times: dict = field(default_factory=dict)
    queries: list = field(default_factory=list)

    @property
    def total_s(self):
        """Wall seconds of the whole operation."""
        return float(sum(self.times.values()))

    def add_query(self, query_report):
        self.queries.append(query_report)
        self.invalidated += query_report.invalidated
        self.activated += query_report.activated
        self.edges_scanned += query_report.edges_scanned
        self.host_edges_read += query_report.host_edges_read
        self.host_bytes += query_report.host_bytes
        self.cache_hits += query_report.cache_hits
        self.cache_saved_bytes += query_report.cache_saved_bytes

    def set_times(self, times):
        """Take the phase ``times`` of a :class:`PhaseClock`, the queries' own included."""
        self.times = dict(times)
        for query_report in self.queries:
            query_report.correct_s = self.times.get(f"{query_report.name}:correct", 0.0)
            query_report.compute_s = self.times.get(f"{query_report.name}:compute", 0.0)

    def to_dict(self):
        """Plain dict (JSON-ready), with ``total_s``."""
        out = asdict(self)
        out["total_s"] = self.total_s
        for query in out["queries"]:         # (JSON has no NaN: estimates not made are null)
            for key in ("estimated_incremental_s", "estimated_recompute_s"):
                if math.isnan(query[key]):
                    query[key] = None
        return out

    def __repr__(self):
        return (f"BatchReport(rows={self.rows} +{self.inserted} -{self.deleted} ~{self.weight_updated} "
                f"unchanged={self.unchanged} ignored={self.ignored} cancelled={self.cancelled} "
                f"{f'expired={self.expired} ' if self.expired else ''}"
                f"vertices=+{self.new_vertices}/-{self.removed_vertices} invalidated={self.invalidated} "
                f"activated={self.activated} edges_scanned={self.edges_scanned} "
                f"time={1e3 * self.total_s:.3f}ms"
                f"{f' gc={1e3 * self.gc_s:.3f}ms' if self.gc_s >= GC_SHOWN_S else ''})")
