"""Incremental PageRank by residual push, with an L1 error guarantee.

The engine solves the unnormalised system ``y = (1 - alpha) * 1 + alpha * P^T y``
where ``P`` is the row-normalised adjacency and dangling vertices' rows are
zero, then reports ``y / sum(y)``.  That ratio is exactly PageRank with a
uniform teleport and dangling rank spread uniformly (the convention of
NetworkX and cuGraph), and the unnormalised system does not depend on the
number of vertices, so adding or removing a vertex touches only that vertex.

It keeps an estimate ``p`` and the residual
``r = (1 - alpha) + alpha * P^T p - p`` of every vertex; a push at ``u`` moves
``r[u]`` into ``p[u]`` and sends ``alpha * r[u] / deg(u)`` to each
out-neighbour.  The exact answer is ``p + (I - alpha P^T)^-1 r``, so
``|y - p|_1 <= |r|_1 / (1 - alpha)``, which bounds the error of the
normalised result; pushes continue until that bound is at most ``tol``.

When ``u``'s out-edges change from ``d_old`` to ``d_new`` edges, ``p[u]`` is
rescaled by ``d_new / d_old``: the neighbours ``u`` keeps then receive exactly
what they did before, so only the added and removed neighbours and ``u``
itself need residual corrections.  A batch's correction costs O(changed
edges), not O(degree) per changed source (a hub gaining one edge does not
touch its other neighbours).
"""
from __future__ import annotations

from .monotonic import Work


class PageRankEngine:
    """Incremental PageRank over a :class:`GraphStore`.

    Parameters
    ----------
    store : GraphStore
    alpha : float
        Damping factor.
    tol : float
        Bound on the L1 distance between the result and the exact PageRank.
    incremental : bool
        False restarts from scratch after every batch (recompute mode).

    Examples
    --------
    >>> import numpy as np
    >>> from cugraph_stream.backends import get_backend
    >>> from cugraph_stream.engine.store import GraphStore
    >>> from cugraph_stream.engine.reduce import reduce_batch
    >>> store = GraphStore(get_backend("cpu"), directed=True, weight_dtype=np.float32)
    >>> ids = store.add_vertices(np.array([0, 1]))
    >>> _ = store.apply(reduce_batch(store, ids[:1], ids[1:], np.ones(1, np.float32), np.ones(1, np.int8)))
    >>> engine = PageRankEngine(store, alpha=0.85, tol=1e-9)
    >>> _ = engine.initialize(); _ = engine.converge()
    >>> np.round(engine.ranks(ids), 6).tolist()     # networkx.pagerank gives the same
    [0.350877, 0.649123]
    """

    def __init__(self, store, alpha=0.85, tol=1e-6, incremental=True):
        xp = store.ops.xp
        self.store = store
        self.ops = store.ops
        self.alpha = float(alpha)
        self.tol = float(tol)
        self.incremental = incremental
        self.rank = xp.zeros(0, dtype=xp.float64)
        self.residual = xp.zeros(0, dtype=xp.float64)
        self.support = xp.empty(0, dtype=xp.int64)   # every vertex whose residual may be non-zero
        self.rank_sum = 0.0

    def _ensure(self):
        xp = self.ops.xp
        n = self.store.vertex_bound
        have = int(self.rank.size)
        if n <= have:
            return
        size = max(n, 2 * have, 1024)
        for name in ("rank", "residual"):
            grown = xp.zeros(size, dtype=xp.float64)
            grown[:have] = getattr(self, name)
            setattr(self, name, grown)

    def initialize(self):
        """Start from ``p = 0``, ``r = 1 - alpha`` on every vertex."""
        self._ensure()
        alive = self.store.vertices.sorted_internal
        self.rank[alive] = 0.0
        self.residual[alive] = 1.0 - self.alpha
        self.support = alive
        self.rank_sum = 0.0
        return Work()

    def correct(self, delta):
        """Residual corrections for the batch's :class:`StoreDelta` (O(changed edges))."""
        xp, ops = self.ops.xp, self.ops
        self._ensure()
        if not self.incremental:
            self._clear(delta.removed_vertices)
            return self.initialize()
        new = delta.new_vertices
        self.rank[new] = 0.0
        self.residual[new] = 1.0 - self.alpha
        work = Work()
        if delta.inserted_u.size or delta.deleted_u.size:
            added = xp.sort(delta.inserted_u)
            dropped = xp.sort(delta.deleted_u)
            sources = xp.unique(xp.concatenate((added, dropped)))
            gained = xp.searchsorted(added, sources, side="right") - xp.searchsorted(added, sources)
            lost = xp.searchsorted(dropped, sources, side="right") - xp.searchsorted(dropped, sources)
            d_new = self.store.out.degree[sources]
            d_old = d_new - gained + lost
            before = self.rank[sources]
            # what u sent each neighbour before; kept neighbours keep getting it
            per_edge = self.alpha * before / xp.where(d_old > 0, d_old, d_new)
            ops.scatter_add(self.residual, delta.inserted_v,
                            per_edge[xp.searchsorted(sources, delta.inserted_u)])
            ops.scatter_add(self.residual, delta.deleted_v,
                            -per_edge[xp.searchsorted(sources, delta.deleted_u)])
            rescale = (d_old > 0) & (d_new > 0)
            after = xp.where(rescale, before * d_new / xp.where(d_old > 0, d_old, 1), before)
            self.rank[sources] = after
            self.residual[sources] += before - after
            self.rank_sum += float((after - before).sum())
            self.support = xp.concatenate((self.support, sources, delta.inserted_v, delta.deleted_v))
            work.edges_scanned = delta.changed_arcs
        self._clear(delta.removed_vertices)
        self.support = ops.unique(xp.concatenate((self.support, new)), self.rank.size)
        return work

    def _clear(self, removed):
        if removed.size:
            self.rank_sum -= float(self.rank[removed].sum())
            self.rank[removed] = 0.0
            self.residual[removed] = 0.0

    def _target(self, rank_sum, rank_norm):
        """Largest residual mass whose error bound stays within ``tol``.

        With ``E = |r|_1 / (1 - alpha)`` bounding ``|y - p|_1``, the normalised
        error is at most ``E / (sum(p) - E) * (1 + |p|_1 / sum(p))``.
        """
        if rank_sum <= 0.0:
            return 0.0
        factor = 1.0 + rank_norm / rank_sum
        return (1.0 - self.alpha) * self.tol * rank_sum / (factor + self.tol)

    def converge(self):
        """Push until the L1 error bound is at most ``tol``."""
        xp, ops = self.ops.xp, self.ops
        work = Work()
        alive = self.store.vertices.sorted_internal
        # exact sums once per update; kept current through the pushes below
        self.rank_sum = float(self.rank[alive].sum())
        rank_norm = float(xp.abs(self.rank[alive]).sum())
        support = self.support
        while True:
            magnitude = xp.abs(self.residual[support])
            mass = float(magnitude.sum())
            target = self._target(self.rank_sum, max(rank_norm, self.rank_sum))
            if mass <= target:
                rank_norm = float(xp.abs(self.rank[alive]).sum())
                if mass <= self._target(self.rank_sum, rank_norm):
                    break
                continue
            # residuals below this share of the allowed mass may stay behind
            threshold = 0.5 * target / max(int(support.size), 1)
            push = magnitude > threshold
            active = support[push]
            pushed = float(self.residual[active].sum())
            receivers, read = ops.pagerank_push(self.store.out, active, self.rank, self.residual, self.alpha)
            self.rank_sum += pushed
            rank_norm += abs(pushed) if pushed < 0 else pushed
            work.activated += int(active.size)
            work.edges_scanned += read
            support = ops.unique(xp.concatenate((support[~push & (magnitude > 0)], receivers)), self.rank.size)
        self.support = support
        return work

    def ranks(self, vertices):
        """Normalised PageRank of internal ``vertices`` (sums to 1 over all live vertices)."""
        return self.rank[vertices] / self.rank_sum

    def memory_bytes(self):
        return self.ops.memory_bytes(self.rank, self.residual, self.support)
