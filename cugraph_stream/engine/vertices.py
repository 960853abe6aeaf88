"""Vertex lifecycle: external int64 ids to dense internal ids, with id reuse.

External ids are arbitrary int64 values.  Internal ids are dense, so every
per-vertex array of the engine is indexed directly; an internal id freed by
vertex removal is handed to the next new vertex (last freed, first reused).
Freed ids above the highest live one are given up instead, so the vertex
bound (and every per-vertex array sized by it) comes back down when a graph
shrinks.
Lookups use a sorted copy of the live external ids (binary search), which
also gives results in vertex order for free.
"""
from __future__ import annotations

from .growth import ensure_vertex_capacity, fit_vertex_capacity
from .journal import Journal


class VertexTable:
    """Live vertices and the external/internal id mapping.

    Examples
    --------
    >>> import numpy as np
    >>> from cugraph_stream.backends import get_backend
    >>> vt = VertexTable(get_backend("cpu"))
    >>> vt.add(np.array([-5, 2**62])).tolist()
    [0, 1]
    >>> vt.lookup(np.array([2**62, 3])).tolist()
    [1, -1]
    >>> vt.remove(np.array([0]))
    >>> vt.add(np.array([9])).tolist()        # id 0 is reused
    [0]
    >>> vt.remove(np.array([1])); vt.size     # the top id is given up
    1
    """

    def __init__(self, ops, journal=None):
        xp = ops.xp
        self.ops = ops
        self.journal = Journal() if journal is None else journal
        self.external = xp.empty(0, dtype=xp.int64)   # external id of each internal id
        self.alive = xp.zeros(0, dtype=bool)
        self.size = 0                                 # internal ids handed out so far
        self.count = 0                                # live vertices
        self.free = xp.empty(0, dtype=xp.int64)       # freed internal ids, reused last-in first-out
        self.sorted_external = xp.empty(0, dtype=xp.int64)
        self.sorted_internal = xp.empty(0, dtype=xp.int64)

    def lookup(self, external):
        """Internal ids of ``external`` ids; -1 where a vertex does not exist."""
        return self.ops.lookup_sorted(self.sorted_external, self.sorted_internal, external)

    def add(self, external):
        """Create vertices for absent ``external`` ids (ascending, distinct); return their internal ids."""
        xp, journal = self.ops.xp, self.journal
        k = int(external.size)
        if k == 0:
            return xp.empty(0, dtype=xp.int64)
        reused = min(k, int(self.free.size))
        internal = xp.concatenate((self.free[self.free.size - reused:][::-1],
                                   xp.arange(self.size, self.size + k - reused, dtype=xp.int64)))
        sorted_external, sorted_internal = self.ops.merge_sorted(
            self.sorted_external, self.sorted_internal, external, internal)
        journal.assign(self, "free", self.free[: self.free.size - reused])
        journal.assign(self, "size", self.size + k - reused)
        ensure_vertex_capacity(xp, self, ("external", "alive"), self.size, journal)
        journal.write(self.external, internal, external)
        journal.write(self.alive, internal, True)
        journal.assign(self, "sorted_external", sorted_external)
        journal.assign(self, "sorted_internal", sorted_internal)
        journal.assign(self, "count", self.count + k)
        return internal

    def remove(self, internal):
        """Delete live vertices ``internal`` (distinct); their ids become reusable."""
        xp, journal = self.ops.xp, self.journal
        if internal.size == 0:
            return
        keep = xp.ones(self.count, dtype=bool)
        keep[xp.searchsorted(self.sorted_external, self.external[internal])] = False
        journal.write(self.alive, internal, False)
        free = xp.concatenate((self.free, internal))
        if bool((internal == self.size - 1).any()):       # the top id went: lower the bound
            live = xp.flatnonzero(self.alive[: self.size])
            bound = int(live[-1]) + 1 if live.size else 0
            free = free[free < bound]
            journal.assign(self, "size", bound)
        journal.assign(self, "free", free)
        journal.assign(self, "sorted_external", self.sorted_external[keep])
        journal.assign(self, "sorted_internal", self.sorted_internal[keep])
        journal.assign(self, "count", self.count - int(internal.size))

    def fit(self):
        """Shrink the per-vertex arrays to the bound (see :func:`fit_vertex_capacity`)."""
        return fit_vertex_capacity(self.ops.xp, self, ("external", "alive"), self.size, self.journal)

    def memory_bytes(self):
        return self.ops.memory_bytes(self.external, self.alive, self.free,
                                     self.sorted_external, self.sorted_internal)
