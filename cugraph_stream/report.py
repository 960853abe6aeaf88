"""What a batch did: counts, work done and wall time per phase."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field


@dataclass
class QueryReport:
    """Work and time one tracked query spent on a batch.

    ``host_edges_read``, ``host_bytes`` and ``cache_hits`` are this query's
    share of the :class:`BatchReport` figures of the same names (without the
    cache's own loads).  ``converged`` is False only for a PageRank with
    ``fail_on_nonconvergence=False`` that stopped at ``max_iter`` above its
    ``tol``.
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
    converged: bool = True


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
    new_vertices, removed_vertices : int
    invalidated, activated, edges_scanned : int
        Totals over the tracked queries (see ``queries``); ``edges_scanned``
        counts the adjacency entries the queries read.
    host_edges_read, host_bytes : int
        With placement ``"host"`` or ``"cached"``: the entries the queries
        read from host memory, and the bytes requested from it, counted in
        whole 128-byte transactions per list read (neighbours, plus weights
        where the query reads them), plus, with ``"cached"``, the transfers
        that loaded lists into the cache.  0 with placement ``"device"``.
    cache_hits, cache_hit_ratio : int, float
        With ``"cached"``: entries served by the cache, and their share
        of all entries read.  The cache's refresh time is ``times["cache"]``.
    device_memory_bytes : int
        Device memory held by the graph store and the tracked queries' state
        (0 on the CPU backend).
    times : dict
        Wall seconds per phase: ``validate``, ``reduce``, ``store``, and
        ``<query>:correct`` / ``<query>:compute`` per tracked query.
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
    new_vertices: int = 0
    removed_vertices: int = 0
    invalidated: int = 0
    activated: int = 0
    edges_scanned: int = 0
    host_edges_read: int = 0
    host_bytes: int = 0
    cache_hits: int = 0
    cache_hit_ratio: float = 0.0
    device_memory_bytes: int = 0
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
        self.times[f"{query_report.name}:correct"] = query_report.correct_s
        self.times[f"{query_report.name}:compute"] = query_report.compute_s

    def to_dict(self):
        """Plain dict (JSON-ready), with ``total_s``."""
        out = asdict(self)
        out["total_s"] = self.total_s
        return out

    def __repr__(self):
        return (f"BatchReport(rows={self.rows} +{self.inserted} -{self.deleted} ~{self.weight_updated} "
                f"unchanged={self.unchanged} ignored={self.ignored} cancelled={self.cancelled} "
                f"vertices=+{self.new_vertices}/-{self.removed_vertices} invalidated={self.invalidated} "
                f"activated={self.activated} edges_scanned={self.edges_scanned} "
                f"time={1e3 * self.total_s:.3f}ms)")
