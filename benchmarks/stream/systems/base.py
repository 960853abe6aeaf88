"""What a system is to the harness: built on G0, stepped batch by batch, and
asked for its results on the current snapshot in one common form.

Common form of results (``System.values``), rows in the order of
``snapshot.vertices()`` (sorted external ids):

* ``sssp``: ``{"distance": float64}``, ``inf`` where unreachable;
* ``bfs``: ``{"distance": int64}``, ``-1`` where unreachable;
* ``wcc``: ``{"labels": int64}``, any labelling of the components;
* ``pagerank``: ``{"pagerank": float64, "error": float}``, ``error`` the L1
  error bound the system guarantees.

A step returns one record per batch::

    {"total_s": wall seconds of the whole batch,
     "phases": {phase: seconds},                     # system-wide phases
     "queries": {kind: {"time_s", "compute_s", "phases", "edges_read",
                        "host_bytes", "cache_hit_ratio"}}}

``time_s`` is what one query costs (a share of a graph update common to
several queries counts in full for each), ``compute_s`` the algorithm alone;
figures a system cannot measure are ``None``.
"""

from __future__ import annotations

KINDS = ("sssp", "bfs", "wcc", "pagerank")


class Unavailable(Exception):
    """The system cannot run here; the message says why."""


class System:
    """Base class: see the module docstring."""

    #: short name, used on the command line and in tables
    name = "system"
    #: one line for tables: what runs
    description = ""
    #: recompute baselines get a speedup column in tables
    is_baseline = False
    #: the system's predecessors and labels follow cugraph_stream's result
    #: contract (checked with cugraph_stream.verify.check_result)
    has_contract = False

    @classmethod
    def unavailable_reason(cls):
        """Why the system cannot run here, or None."""

    def unavailable(self):
        """Why this instance cannot run here, or None."""
        return self.unavailable_reason()

    def require_available(self):
        """Raise :class:`Unavailable` (with the reason) unless this instance can run here."""
        reason = self.unavailable()
        if reason:
            raise Unavailable(reason)

    def build(self, workload, kinds, params):
        """Build on G0 and compute the initial results; return build figures."""
        raise NotImplementedError

    def step(self, b, batch, snapshot):
        """Apply batch ``b`` (the snapshot is already advanced); return its record."""
        raise NotImplementedError

    def values(self, kind, snapshot):
        """Results on ``snapshot`` in the common form."""
        raise NotImplementedError

    def frame(self, kind):
        """The result frame of ``kind`` (systems with ``has_contract`` only), else None."""

    def memory(self):
        """Bytes the system reports holding (engine's own accounting), or None."""

    def close(self):
        """Release what the system holds."""


def query_record(time_s, compute_s, phases=None, edges_read=None, host_bytes=None,
                 cache_hit_ratio=None, **extra):
    """One query's figures for one batch (see the module docstring); ``extra``
    keys (iteration counts...) are kept as they are."""
    return {"time_s": float(time_s), "compute_s": float(compute_s), "phases": dict(phases or {}),
            "edges_read": edges_read, "host_bytes": host_bytes, "cache_hit_ratio": cache_hit_ratio,
            **extra}
