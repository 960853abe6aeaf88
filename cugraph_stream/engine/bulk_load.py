"""A bulk load's rows, and the ranges of vertices it builds the store in.

A bulk load (:meth:`~cugraph_stream.engine.store.GraphStore.load_rows`)
reduces an edge list (a repeated edge keeps its last row's weight) and lays
out every adjacency list once.  An edge list larger than the device is held
in host memory (:meth:`EdgeRows.in_host_memory`: internal ids and weights,
12 bytes a row while the ids fit 4 bytes, 8 when the graph is unweighted)
and read in chunks; the lists are then built one range of vertices at a
time (:func:`vertex_ranges`), so that the device sorts no more than one
range's arcs at once: the out-lists by ranges of sources, then the in-lists
by ranges of targets.

Examples
--------
>>> import numpy as np
>>> from cugraph_stream.backends import get_backend
>>> rows = EdgeRows(get_backend("cpu"), np.array([0, 2, 0]), np.array([1, 0, 1]),
...                 np.array([1., 2., 3.], dtype=np.float32))
>>> u, v, w = rows.reduced(0, 3, directed=True)             # the last row of 0 -> 1 wins
>>> u.tolist(), v.tolist(), w.tolist()
([0, 2], [1, 0], [3.0, 2.0])
>>> vertex_ranges(np, np.array([5, 1, 1, 4, 0]), 6)
[(0, 2), (2, 5)]
"""
from __future__ import annotations

import numpy as np

__all__ = ["EdgeRows", "vertex_ranges"]


class EdgeRows:
    """The rows of a bulk load: internal ids ``u``, ``v`` and weights ``w``, in row
    order, read ``chunk_rows`` rows at a time.

    The arrays may live in device memory (a load at once) or in pinned host
    memory that the device reads in place (:meth:`in_host_memory`, filled
    with :meth:`write`).  ``w`` may be a scalar: every row's weight (an
    unweighted graph's 1), stored once.
    """

    def __init__(self, ops, u, v, w, chunk_rows=None):
        self.ops = ops
        self.u, self.v, self.w = u, v, w
        self.size = int(u.size)
        self.chunk_rows = max(int(chunk_rows or self.size), 1)

    @classmethod
    def in_host_memory(cls, ops, rows, num_vertices, weight_dtype, chunk_rows=None, weight=None):
        """Room for ``rows`` rows in host memory: ids in 4 bytes while
        ``num_vertices`` allows, else 8; weights of ``weight_dtype``, or none
        where every row weighs ``weight``."""
        xp = ops.xp
        ids = xp.int32 if num_vertices < 2**31 else xp.int64
        u, v = (ops.aligned_empty(rows, ids, memory="host") for _ in range(2))
        w = (ops.aligned_empty(rows, weight_dtype, memory="host") if weight is None
             else np.asarray(weight, dtype=weight_dtype))     # (a host scalar on any backend)
        return cls(ops, u, v, w, chunk_rows=chunk_rows)

    def write(self, at, u, v, w):
        """Store rows ``at, at + 1, ...`` (device arrays of internal ids and weights;
        the weights are not stored where all rows weigh the same)."""
        end = at + int(u.size)
        self.u[at:end], self.v[at:end] = u, v
        if self.w.ndim:
            self.w[at:end] = w

    def release(self):
        """Let go of the rows (a load in ranges reads them no more): their memory is
        freed once no one else holds the arrays."""
        self.u = self.v = self.w = None

    def chunks(self):
        """``(u, v, w)`` of each chunk of rows, in order, on the device (ids as int64)."""
        xp = self.ops.xp
        for at in range(0, self.size, self.chunk_rows):
            end = min(at + self.chunk_rows, self.size)
            w = (xp.ascontiguousarray(self.w[at:end]) if self.w.ndim
                 else xp.full(end - at, self.w[()], dtype=self.w.dtype))
            yield self.u[at:end].astype(xp.int64, copy=False), self.v[at:end].astype(xp.int64, copy=False), w

    def count_ends(self, n, directed, target=False):
        """Rows per vertex (of ``n``): of each source, or each ``target``; of both
        ends of an undirected graph's edges (a loop once).  Repeated edges count
        every time: a bound on the degrees."""
        xp = self.ops.xp
        counts = xp.zeros(n, dtype=xp.int64)
        for u, v, _ in self.chunks():
            if directed:
                counts += xp.bincount(v if target else u, minlength=n)
            else:
                counts += xp.bincount(u, minlength=n) + xp.bincount(v[u != v], minlength=n)
        return counts

    def reduced(self, lo, hi, directed, target=False, whole=False):
        """The distinct edges ``(u, v, w)`` whose source (or ``target``; either end of
        an undirected edge, then ``u <= v``) is in ``[lo, hi)``, each with its
        last row's weight, sorted by ``(u, v)``.  ``whole``: every row is in
        the range (no selection)."""
        xp = self.ops.xp
        parts = []
        for u, v, w in self.chunks():
            if not directed:
                u, v = xp.minimum(u, v), xp.maximum(u, v)
            if not whole:
                ends = (v if target else u) if directed else None
                inside = ((ends >= lo) & (ends < hi) if directed
                          else (u >= lo) & (u < hi) | (v >= lo) & (v < hi))
                u, v, w = self.ops.compress(inside, u, v, w)
            parts.append((u, v, w))
        u, v, w = (parts[0][i] if len(parts) == 1 else xp.concatenate([part[i] for part in parts])
                   for i in range(3))
        last = self.ops.last_rows_by_arc(u, v)
        return u[last], v[last], w[last]


def vertex_ranges(xp, counts, most):
    """Split vertices ``[0, counts.size)`` into consecutive ranges of at most
    ``most`` counted arcs each (a vertex with more has a range of its own):
    ``[(lo, hi), ...]``.

    >>> import numpy as np
    >>> vertex_ranges(np, np.array([2, 9, 1, 1]), 4)
    [(0, 1), (1, 2), (2, 4)]
    """
    n = int(counts.size)
    total = xp.cumsum(counts)
    ranges, lo, before = [], 0, 0
    while lo < n:
        hi = int(xp.searchsorted(total, before + most, side="right"))
        hi = min(max(hi, lo + 1), n)
        ranges.append((lo, hi))
        before = int(total[hi - 1])
        lo = hi
    return ranges
