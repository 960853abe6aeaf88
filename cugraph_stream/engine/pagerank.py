"""Incremental PageRank by residual push, with an L1 error guarantee.

PageRank ``x`` (the convention of NetworkX and cuGraph: teleport to the
vector ``v``, dangling rank spread as ``v`` too) is the fixpoint ``x = G x``
of the Google matrix
``G p = alpha * P^T p + (alpha * D(p) + (1 - alpha) * sum(p)) * v``, where
``P`` is the row-normalised adjacency (dangling rows zero), ``D(p)`` the rank
held by dangling vertices and ``v`` the teleport vector (it sums to 1):
uniform, ``1 / N`` on each of the ``N`` vertices, or a personalization.
Unweighted, ``P[u, w] = 1 / deg(u)``; weighted, ``P[u, w] = w(u, w) / W(u)``
with ``W(u)`` the sum of ``u``'s out-weights (non-negative), and ``u`` is
dangling when ``W(u) == 0`` (no out-edges, or only zero-weight ones): the
semantics of ``networkx.pagerank(G, alpha, personalization, weight=...)``.
The engine keeps an estimate ``p`` (any scale; results are ``p / sum(p)``)
and its residual ``r = G p - p``, split into a per-vertex part
``s = alpha * P^T p - p`` and a teleport share ``g * v`` with
``g = alpha * D(p) + (1 - alpha) * sum(p)`` (one scalar).

Pushing an amount ``a`` at ``u`` adds ``a`` to ``p[u]``, takes it from
``s[u]`` and sends ``alpha * a * P[u, w]`` to each out-neighbour ``w``;
``g`` follows from ``sum(p)`` and ``D(p)``.  Any amount keeps the invariant.
The engine pushes the residual ``r[u] = s[u] + g v[u]`` at the few vertices
a batch touched while they are few and a push or two there can meet the
bound (pushing ``s[u]`` alone, as it once did,
moved the teleport share ``g v[u]`` every vertex holds at the fixpoint:
after a one-row batch the bound grew a thousandfold and dense rounds had to
take it back), then the whole residual everywhere: a power-iteration
step in residual form, which contracts like the Google matrix's second
eigenvalue (a linear system with a constant teleport source would only
contract by ``alpha``).  :meth:`PageRankEngine.error_bound` turns the
residual into a bound on the L1 error; after every update it is at most
``tol``.

The bound.  ``G`` is column-stochastic (every column sums to 1: a vertex
sends ``alpha`` of its rank along its arcs, or ``alpha`` as dangling rank,
and ``1 - alpha`` as teleport, all spread by distributions that sum to 1),
so ``sum(G p) = sum(p)`` and the residual sums to zero:
``sum(r) = sum(s) + g = 0``, that is ``g = -sum(s)`` and
``r = s - sum(s) * v``, computed from ``s`` and ``v`` alone.  With
``x = p / sum(p)`` and ``x*`` the exact PageRank, ``x - x* = (G x - x) +
G (x - x*)`` where ``x - x*`` sums to zero, and ``G`` shrinks the L1 norm
of such vectors by ``alpha`` at least, so
``|x - x*|_1 <= |G x - x|_1 / (1 - alpha) = |r|_1 / ((1 - alpha) sum(p))``.
With a uniform ``v`` this is the residual's deviation from its mean.

When ``u``'s out-edges change, its out-total ``T(u)`` (``deg(u)``
unweighted, ``W(u)`` weighted) goes from ``T_old`` to ``T_new``, and
``p[u]`` is rescaled by ``T_new / T_old``: the neighbours ``u`` keeps at an
unchanged weight then receive exactly what they did before, so only the
arcs added, removed or reweighted and ``u`` itself need residual
corrections (``alpha * p[u] / T_old`` per unit of weight each arc gains or
loses).  A batch's correction costs O(changed edges), not O(degree) per
changed source (a hub gaining one edge does not touch its other
neighbours).  Weighted, the engine keeps ``W`` per vertex (``out_weight``,
float64, journaled), updated from the batch's arc changes; it is
recomputed exactly from the lists at the start (:meth:`initialize`),
whenever the residual is (:meth:`PageRankEngine._refresh_residual`), and
at a source whose update cancels most of its total (the new total would be
mostly rounding: the lists are read, O(degree) at such sources only), and
is 0 exactly at a vertex left without out-edges, so ``W == 0`` (dangling)
is decided exactly.

A personalization keeps its raw values per vertex (``teleport``,
journaled) and their sum over the live vertices: ``v = teleport / sum``.
Vertices the graph gains later have no entry (``v = 0``); when a
personalization vertex is removed, its share is renormalised over the
remaining ones (``ValueError`` in the batch, rolled back, once none
remains).  Changing ``v`` needs no correction: ``s`` does not depend on it
and the bound reads ``v`` afresh.

``rank`` and ``residual`` are the working arrays; ``committed_rank`` and
``committed_residual`` hold what the last update published.  An update ends
by copying the entries it wrote into the committed arrays (journaled, all of
them after a dense round), so a failed batch rolls back by copying them back
(:meth:`PageRankEngine.rollback`).

``previous_rank`` holds the committed estimate as it was before the last
update (NaN at the vertices that update added), with its sum in
``previous_rank_sum``, for :meth:`PageRankEngine.moved` (``changes()``).  It
differs from ``committed_rank`` only where the last update wrote, so the
next commit brings it up to date at those vertices alone (journaled too).
"""
from __future__ import annotations

import math

import numpy as np

from ..floats import exact_astype
from .growth import ensure_vertex_capacity, fit_vertex_capacity
from .monotonic import Work

#: the per-vertex arrays (grown and shrunk with the store's vertex bound)
_PER_VERTEX = ("rank", "residual", "committed_rank", "committed_residual", "previous_rank")
#: the extra per-vertex arrays of a weighted engine and of a personalised one
_WEIGHTED = ("out_weight",)
_PERSONALISED = ("teleport",)
#: push only the touched vertices while they are fewer than this share of all vertices
SPARSE_SHARE = 1 / 16
#: ... and while this many pushes there would bring the bound down to the goal, each shrinking it by
#: ``alpha`` at best (the pushed residual moves on, times ``alpha``, where a dense round shrinks the
#: bound 5-6x by letting residuals of either sign cancel); else dense rounds at once.  Chosen by
#: ``benchmarks.ab_constants --queries pagerank`` (R-MAT 22 on an H200, R-MAT 16 on the CPU, 1 to
#: 10,000 rows): 2 was 0.72-0.96x the time of pushing while the support stayed small, and never
#: slower by more than noise
SPARSE_LEVELS = 2
#: dense rounds run back to back, without reading the error bound between them, while each is
#: needed even if the bound shrank this many times faster a round than over the rounds before
#: (:func:`rounds_ahead`)
CONTRACTION_MARGIN = 2.0
#: ``sum(p)`` is brought back to the vertex count (by a power of two) once it drifts this far away
RESCALE_FACTOR = 2.0 ** 20
#: the residual is recomputed exactly once ``sum(p)`` has shrunk this much since it last was
DRIFT_FACTOR = 16.0
#: a source's out-weight total is read from its list when the batch's changes leave it this
#: small relative to the weight they moved (the running sum would be mostly rounding)
CANCELLATION = 2.0 ** -20
#: weighted: a source whose out-weight total is below this (subnormal-range weights) spreads by
#: pushes (``alpha * a * (w / W)``, no overflow) rather than through ``alpha * a / W`` in the gather
TINY_TOTAL = 2.0 ** -900
#: weighted: a batch moving more than this many times a source's out-weight total (or at a source
#: whose total is or becomes below :data:`TINY_TOTAL`) is not corrected arc by arc (the rescale
#: ``W_new / W_old`` and the per-unit corrections could overflow, or underflow the source's rank:
#: a total of 1 replaced by a subnormal one took ``sum(p)`` to 1e-311): the residual is recomputed
#: exactly instead
EXTREME_CHANGE = 2.0 ** 200


def smallest_tol(alpha):
    """The smallest ``tol`` the float64 residuals reach reliably for damping ``alpha``.

    Rounding leaves each residual a few units in the last place of the rank
    it came with, and the error bound divides their sum by ``1 - alpha``: a
    thousand units of float64 roundoff, scaled so.

    >>> f"{smallest_tol(0.85):.2g}"
    '1.5e-12'
    """
    return 1000 * float(np.finfo(np.float64).eps) / (1.0 - float(alpha))


def rounds_needed(alpha, tol):
    """Dense rounds (power-iteration steps) that take the error bound from its
    worst start, ``2 / (1 - alpha)``, down to the ``tol / 2`` an update aims
    for: each contracts it by ``alpha`` at least.

    >>> rounds_needed(0.85, 1e-6)
    106
    """
    return math.ceil(math.log(tol * (1.0 - alpha) / 4.0) / math.log(alpha))


def rounds_ahead(checks, goal):
    """Dense rounds to run before the error bound is read again.

    ``checks`` holds ``(bound, rounds so far)`` at every bound read since the
    residual was last made exact, the last one now (above ``goal``).  From the
    bound's fastest shrinking per round between two reads so far, made
    :data:`CONTRACTION_MARGIN` times faster still, every round while the bound
    could still be above ``goal`` is needed: those run back to back (a read
    saved each, on a GPU a wait).  One round while fewer than two shrinkings
    were seen (a batch's first round can shrink the bound far less than the
    next ones), or where the bound did not shrink.

    >>> rounds_ahead([(8e-2, 0), (2.2e-2, 1)], 1e-6)
    1
    >>> rounds_ahead([(8e-2, 0), (2.2e-2, 1), (5.4e-3, 2)], 1e-6)    # 0.245 a round: 1e-6 in 7, 5 surely needed
    5
    >>> rounds_ahead([(2.2e-2, 1), (5.4e-3, 2), (1.3e-6, 7)], 1e-6)
    1
    """
    rates = [(bound / before) ** (1.0 / (now - then))
             for (before, then), (bound, now) in zip(checks, checks[1:]) if now > then]
    if len(rates) < 2 or not 0 < rates[-1] < 1:
        return 1
    fastest = min(rates) / CONTRACTION_MARGIN
    bound = checks[-1][0]
    return max(1, math.ceil(math.log(bound / goal) / math.log(1.0 / fastest)))


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
        False restarts after every batch (recompute mode): from scratch, or
        with ``warm_restart`` from the estimate the last update left.
    warm_restart : bool
        The recompute path keeps ``p`` (0 at the batch's new and removed
        vertices) and recomputes the residual exactly from the lists before
        its dense rounds, as pylibcugraph's ``pagerank`` warm-started from
        the previous ranks does: the path ``mode="auto"`` times against the
        incremental one.  False (``mode="recompute"``): ``p = 1`` everywhere,
        a computation that shares nothing with the last one.
    max_iter : int, optional
        Most dense rounds of one update; default twice :func:`rounds_needed`
        (at least 100).  Sparse rounds are bounded by the support they grow.
    fail_on_nonconvergence : bool
        Raise ``RuntimeError`` when ``max_iter`` rounds leave the bound above
        ``tol`` (default); else stop there and say so in :attr:`converged`.
    weighted : bool
        Weigh transitions by the edge weights (non-negative; see the module
        docstring); False: every out-edge counts the same.
    personalization : tuple of arrays, optional
        ``(internal ids, values)``: the teleport vector, ``values`` (finite,
        non-negative, positive sum, distinct live vertices) normalised to
        sum 1; default uniform.

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

    #: (the cost model's give-up does not apply: sparse pushes turn into dense rounds by themselves)
    give_up_above = None
    #: an incremental update never gives up for a recomputation (see engine.cost_model)
    gives_up = False
    gave_up = False

    def __init__(self, store, alpha=0.85, tol=1e-6, incremental=True, max_iter=None,
                 fail_on_nonconvergence=True, weighted=False, personalization=None, warm_restart=False):
        xp = store.ops.xp
        self.weighted = bool(weighted)
        self.personalised = personalization is not None
        self._per_vertex = _PER_VERTEX + (_WEIGHTED if self.weighted else ()) + (
            _PERSONALISED if self.personalised else ())
        self.out_weight = xp.zeros(0, dtype=xp.float64) if self.weighted else None     # W(u)
        self.teleport = xp.zeros(0, dtype=xp.float64) if self.personalised else None   # raw values
        self.teleport_total = 0.0           # their sum over the live vertices
        self._pending_teleport = personalization    # installed by the first initialize
        self._refresh_needed = False        # corrections skipped (or a warm restart): recompute s first
        self.store = store
        self.ops = store.ops
        self.alpha = float(alpha)
        self.tol = float(tol)
        self.incremental = incremental
        self.warm_restart = bool(warm_restart)
        self.max_iter = max(100, 2 * rounds_needed(self.alpha, self.tol)) if max_iter is None else int(max_iter)
        self.fail_on_nonconvergence = bool(fail_on_nonconvergence)
        self.sparse_levels = None       # SPARSE_LEVELS for this engine (None: the module's, read when used)
        self.converged = True                           # whether the last update reached ``tol``
        # the error bound the last update ended at, and the bound its batch left before any push
        # (their difference: what a batch adds, which decides how far below tol an update aims)
        self.end_bound = self.start_bound = 0.0
        self.rank = xp.zeros(0, dtype=xp.float64)
        self.residual = xp.zeros(0, dtype=xp.float64)   # s: the residual without the uniform share
        self.committed_rank = xp.zeros(0, dtype=xp.float64)
        self.committed_residual = xp.zeros(0, dtype=xp.float64)
        self.support = xp.empty(0, dtype=xp.int64)      # vertices the last batch gave residual to
        self.previous_rank = xp.zeros(0, dtype=xp.float64)  # committed_rank before the last update
        self.previous_rank_sum = 0.0
        self.published_rank_sum = 0.0       # rank_sum as the last update published it
        self._last_written = None           # where previous_rank differs from committed_rank (None: anywhere)
        self._new = None                    # vertices this update adds (None: all, a first computation)
        self.rank_sum = 0.0
        self.dangling_rank = 0.0                        # D(p)
        self._unsettled = []            # spreads' sums not yet added to them (see _settle)
        self._deviation = 0.0           # the residual's L1 deviation last read (the bound's numerator)
        self._written = []              # vertices this update wrote (besides ``support``), or None: all
        self._before = None             # the scalars when the open transaction began
        # sum(p) when the residual was last computed exactly (see :meth:`_refresh_residual`)
        self.exact_rank_sum = 0.0

    @property
    def support(self):
        """The distinct vertices the batch gave residual to (sparse pushes start
        there), made from the parts :meth:`correct` left when first read: an
        update that goes to dense rounds at once never reads it."""
        if self._support_parts is not None:
            parts, self._support_parts = self._support_parts, None
            self._support = self.ops.unique(self.ops.xp.concatenate(parts), self.rank.size)
        return self._support

    @support.setter
    def support(self, vertices):
        self._support, self._support_parts = vertices, None

    def _ensure(self):
        """Per-vertex arrays for every vertex below the store's bound; join the
        store's open transaction."""
        journal = self.store.journal
        if journal.enlist(self):
            self._before = (self.rank_sum, self.dangling_rank, self.converged, self.exact_rank_sum,
                            self.previous_rank_sum, self.published_rank_sum, self._last_written, self._new,
                            self.teleport_total)
        ensure_vertex_capacity(self.ops.xp, self, self._per_vertex, self.store.vertex_bound, journal)

    def fit_capacity(self):
        """Shrink the per-vertex arrays once the store's vertex bound is far below
        them (after vertices were removed; see :func:`fit_vertex_capacity`)."""
        if fit_vertex_capacity(self.ops.xp, self, self._per_vertex, self.store.vertex_bound, self.store.journal):
            self.store.journal.assign(self, "_last_written", None)     # indices may lie beyond the new size

    def _commit(self):
        """Copy what this update wrote into the committed arrays (journaled), after
        keeping the committed estimate it started from in ``previous_rank``."""
        xp, journal = self.ops.xp, self.store.journal
        self._keep_previous()
        if self._written is None:
            written = slice(None)
            journal.save_all(self.committed_rank)
            journal.save_all(self.committed_residual)
        else:
            written = self.ops.unique(xp.concatenate(self._written + [self.support]), self.rank.size)
            journal.save(self.committed_rank, written)
            journal.save(self.committed_residual, written)
        self.committed_rank[written] = self.rank[written]
        self.committed_residual[written] = self.residual[written]
        self._last_written = None if self._written is None else written
        self._written = []

    def _keep_previous(self):
        """``previous_rank`` := ``committed_rank`` (the estimate before this update, which
        differs from the previous one only where the last update wrote), NaN at the
        vertices this update adds; ``previous_rank_sum`` its sum (journaled)."""
        xp, journal = self.ops.xp, self.store.journal
        last, new = self._last_written, self._new
        if last is None:
            journal.save_all(self.previous_rank)
            self.previous_rank[...] = self.committed_rank
        elif last.size:
            journal.save(self.previous_rank, last)
            self.previous_rank[last] = self.committed_rank[last]
        if new is None:                         # a first computation: every vertex is new
            journal.save_all(self.previous_rank)
            self.previous_rank[...] = xp.nan
        elif new.size:                          # (written by this update: cleared at the next commit)
            journal.save(self.previous_rank, new)
            self.previous_rank[new] = xp.nan
        self.previous_rank_sum = self.published_rank_sum
        self._new = xp.empty(0, dtype=xp.int64)

    def moved(self, vertices, threshold):
        """Which of the live internal ``vertices`` the last update moved by more than
        ``threshold`` (normalised PageRank, absolute difference) or added.

        Compares ``p / sum(p)`` now with the same before the update (the result
        of the previous update, up to the rounding of the sums).

        >>> import numpy as np
        >>> from cugraph_stream.backends import get_backend
        >>> from cugraph_stream.engine.store import GraphStore
        >>> store = GraphStore(get_backend("cpu"), directed=True, weight_dtype=np.float32)
        >>> ids = store.add_vertices(np.array([0, 1]))
        >>> engine = PageRankEngine(store, alpha=0.85, tol=1e-9)
        >>> _ = engine.initialize(); _ = engine.converge()
        >>> engine.moved(ids, 0.0).tolist()          # a first computation adds every vertex
        [True, True]
        """
        xp = self.ops.xp
        rank = self.committed_rank[vertices]
        total = rank.sum()
        now = rank / xp.where(total != 0.0, total, 1.0)
        before = self.previous_rank[vertices] / (self.previous_rank_sum or xp.nan)
        return ~(xp.abs(now - before) <= threshold)            # NaN (added vertices): moved

    def rollback(self):
        """Put the committed arrays back into the working ones (after the journal
        restored them) and the scalars as they were; see the module docstring."""
        self.rank[...] = self.committed_rank
        self.residual[...] = self.committed_residual
        (self.rank_sum, self.dangling_rank, self.converged, self.exact_rank_sum, self.previous_rank_sum,
         self.published_rank_sum, self._last_written, self._new, self.teleport_total) = self._before
        self.support = self.ops.xp.empty(0, dtype=self.ops.xp.int64)
        self._written = []
        self._unsettled = []
        self._refresh_needed = False

    def _alive(self):
        """The live vertices' internal ids: ``arange(n)`` when they are all of
        ``0 .. n - 1`` (no vertex removed; the sorted ids, whose merge of a
        batch's new vertices costs a sort, are not read), else as the vertex
        table sorts them.  So :meth:`_index` of it is a slice exactly when it
        is ``arange(n)``, in the slice's order."""
        store = self.store
        if store.num_vertices == store.vertex_bound:
            return self.ops.xp.arange(store.vertex_bound, dtype=self.ops.xp.int64)
        return store.vertices.sorted_ids()[1]

    def _live_index(self):
        """:meth:`_index` of the live vertices, without making them when it is a slice."""
        store = self.store
        if store.num_vertices == store.vertex_bound:
            return slice(0, store.vertex_bound)
        return store.vertices.sorted_ids()[1]

    def _index(self, alive):
        """``alive`` (a set) as an index into per-vertex arrays: ``slice(0, n)`` when
        the live vertices are all of ``0 .. n - 1`` (no vertex removed, so no gather
        or scatter), in id order; else ``alive`` itself."""
        return slice(0, int(alive.size)) if alive.size == self.store.vertex_bound else alive

    def refresh_next(self):
        """Recompute the residual exactly at the next update's start, as a warm restart
        does (:func:`~cugraph_stream.warm_up.warm_up` runs that path once)."""
        self._refresh_needed = True

    def use_weights(self):
        """Turn an unweighted engine weighted (journaled), inside the store's transaction:
        ``W`` and ``s`` are recomputed exactly from the lists (nothing to read on a
        graph without edges, the case this is for: a graph that learns its weight
        column from its first batch)."""
        if self.weighted:
            return
        journal, xp = self.store.journal, self.ops.xp
        self._ensure()
        journal.assign(self, "weighted", True)
        journal.assign(self, "_per_vertex", self._per_vertex + _WEIGHTED)
        journal.assign(self, "out_weight", xp.zeros(self.rank.size, dtype=xp.float64))
        if self.store.num_edges:
            self._refresh_residual(self._alive())
        self._written = None

    def _out_total(self, vertices):
        """``T(u)``: the out-degree, or weighted the out-weight total ``W(u)``."""
        return self.out_weight[vertices] if self.weighted else self.store.out.degree[vertices]

    def _dangling(self, vertices):
        return self._out_total(vertices) == 0

    def _teleport_share(self, index):
        """``g * v`` at ``index`` (an index of live vertices): the residual each holds on top of ``s``."""
        scale, teleport, _ = self._teleport_scale()
        return scale if teleport is None else scale * teleport[index]

    def _teleport_scale(self):
        """``(g / d, t, d)`` with ``g * v = (g / d) * t`` (``t`` None: ``g * v = g / d`` at
        every live vertex): ``d`` the personalization's total, or the vertex count."""
        n = self.store.num_vertices
        if not n:
            return 0.0, None, 1.0
        g = self.alpha * self.dangling_rank + (1.0 - self.alpha) * self.rank_sum
        divisor = self.teleport_total if self.personalised else float(n)
        return g / divisor, self.teleport if self.personalised else None, divisor

    def _install_teleport(self):
        """Write the personalization given to the constructor (once, at the first initialize)."""
        xp = self.ops.xp
        internal, values = self._pending_teleport
        internal = self.ops.asarray(internal, dtype=xp.int64)
        values = self.ops.asarray(values, dtype=xp.float64)
        self.store.journal.save_all(self.teleport)
        self.teleport[...] = 0.0
        self.teleport[internal] = values
        (self.teleport_total,) = self.ops.host_floats(values.sum())
        self._pending_teleport = None

    def _exact_out_weight(self, vertices):
        """``W`` of ``vertices`` (an array) summed from their out-lists; returns ``(totals, edges read)``."""
        xp = self.ops.xp
        plan = self.ops.gather_plan(self.store.out, vertices, weighted=True)
        totals, read = self.ops.gather_sum(plan, xp.ones(self.rank.size, dtype=xp.float64))
        self.store.record_reads(self.store.out, vertices, reads_weights=True, distinct=True)
        return totals, read

    def _refresh_out_weight(self, alive):
        """Recompute ``W`` exactly at every live vertex (weighted; journaled).  Returns the edges read."""
        if not self.weighted:
            return 0
        index = self._index(alive)
        totals, read = self._exact_out_weight(alive)
        self.store.journal.save_all(self.out_weight)
        self.out_weight[index] = totals
        return read

    def initialize(self):
        """Start from ``p = 1`` on every vertex (one push of 1 everywhere)."""
        self._ensure()
        self._written = None
        if self._pending_teleport is not None:
            self._install_teleport()
        alive = self._alive()
        read = self._refresh_out_weight(alive)
        self.rank[alive] = 0.0
        self.residual[alive] = 0.0
        self.rank_sum = self.dangling_rank = 0.0
        self.support = self.ops.xp.empty(0, dtype=self.ops.xp.int64)
        work = self._spread(self._spread_plan(alive), shift=1.0)          # p = 1 from a zero residual
        self._settle()
        self.exact_rank_sum = self.rank_sum          # a spread from zero computes the residual exactly
        self._record_spreads(alive, 1)
        work.edges_scanned += read
        return work

    def _spread_plan(self, alive):
        """What every spread over ``alive`` shares while the graph stays put:
        ``(index of alive, gather plan, alpha / T(u) or 0 when dangling, dangling,
        share)``, ``share`` a per-vertex buffer each spread rewrites at ``alive`` (zero
        elsewhere: vertices outside ``alive`` have no arcs).  Weighted, the plan
        multiplies by the arc weights (``alpha * w(u, v) / W(u)`` in all)."""
        xp = self.ops.xp
        index = self._index(alive)          # (a slice: alive is arange(n), in the slice's order)
        total = self._out_total(index)
        dangling = total == 0
        tiny = None
        if self.weighted:               # (alpha / W overflows for subnormal totals: those push instead)
            small = ~dangling & (total < TINY_TOTAL)
            if self.ops.host_ints(small.sum())[0]:
                positions = xp.flatnonzero(small)       # positions in ``index``
                tiny = (positions, alive[positions])
                total = xp.where(small, 0, total)        # (their factor: 0)
        none = total == 0
        factor = xp.where(none, 0.0, self.alpha / xp.where(none, 1, total))
        share = xp.zeros(self.rank.size, dtype=xp.float64)
        plan = index, self.ops.gather_plan(self.store.inn, alive, weighted=self.weighted), factor, dangling, share
        return plan + (tiny,)

    def _push_tiny(self, plan, part):
        """Send ``alpha * part`` of the plan's tiny-total vertices (it has some) along
        their out-arcs (``part`` per tiny vertex), leaving their own rank and residual
        alone; returns the edges read."""
        vertices = plan[5][1]
        sink = self.ops.xp.zeros(self.rank.size, dtype=self.ops.xp.float64)
        _, read = self.ops.pagerank_push(self.store.out, vertices, part, sink, self.residual, self.alpha,
                                         out_weight=self.out_weight)
        self.residual[vertices] += part          # (the push took it from their residuals)
        return read

    def _tiny_amounts(self, plan, shift, teleport):
        """What :meth:`_spread` pushes at the plan's tiny-total vertices (None without them)."""
        tiny = plan[5]
        if tiny is None:
            return None
        vertices = tiny[1]
        return self.residual[vertices] + (shift if teleport is None else shift * teleport[vertices])

    def _spread(self, plan, rounds=1, shift=None):
        """Push the residual ``r = s + g v`` at every live vertex at once
        (``shift`` given: ``s + shift``), ``rounds`` times back to back, ``g``
        following the rounds (:meth:`Backend.pagerank_spread`): a pull-based
        product over the in-adjacency (no atomics), ``plan`` from
        :meth:`_spread_plan`, which has no tiny-total vertices when ``rounds >
        1``.  Reads the in-list of every live vertex each round; the caller
        records those reads (:meth:`_record_spreads`)."""
        alive, gather, factor, dangling, share = plan[:5]      # alive: an index (:meth:`_index`)
        teleport, divisor = None, 1.0
        if shift is None:
            self._settle()              # (on a GPU a wait, unless settled already: converge's checks are)
            shift, teleport, divisor = self._teleport_scale()
        tiny = self._tiny_amounts(plan, shift, teleport)        # (before the spread takes them)
        sums, read = self.ops.pagerank_spread(gather, shift, teleport, factor, dangling, self.rank, self.residual,
                                              share, alive, rounds, self.alpha, divisor)
        self._unsettled.append(sums)
        if tiny is not None:
            read += self._push_tiny(plan, tiny)
        return Work(activated=rounds * int(factor.size), edges_scanned=read)

    def _settle(self):
        """Add what the spreads since the last call put into ``p`` and ``D(p)`` to
        ``sum(p)`` and ``D(p)``: their sums, read from a GPU with the wait that
        followed (the round's error bound), not with a wait of their own."""
        for sums in self._unsettled:
            added, added_dangling = sums.get()
            self.rank_sum += added
            self.dangling_rank += added_dangling
        self._unsettled = []

    def _rescale(self, index, n):
        """Bring ``sum(p)`` back near ``n`` when it has drifted by more than
        :data:`RESCALE_FACTOR` (vertices removed with their rank make it shrink
        batch after batch); a power-of-two factor, so nothing rounds."""
        if not n or RESCALE_FACTOR ** -1 <= self.rank_sum / n <= RESCALE_FACTOR:
            return
        # (the exponent from logarithms: n / sum(p) itself may overflow; at most 2**1000 a step)
        factor = math.ldexp(1.0, max(min(round(math.log2(n) - math.log2(self.rank_sum)), 1000), -1000))
        self.rank[index] *= factor
        self.residual[index] *= factor
        self.rank_sum *= factor
        self.dangling_rank *= factor
        self.exact_rank_sum *= factor
        self._written = None

    def _refresh_residual(self, alive, plan=None):
        """Recompute ``s = alpha * P^T p - p`` exactly, in one pass over the in-lists
        (weighted: ``W`` first, in one pass over the out-lists).  Returns the
        :class:`Work` and the spread plan (a new one when ``W`` was recomputed).

        Corrections made while ``p`` had a much larger scale (before vertices
        holding most of the rank were removed) leave roundoff in ``s`` that can
        exceed what ``tol`` allows at the current scale; dense rounds cannot
        remove it, a fresh residual does."""
        weights_read = self._refresh_out_weight(alive)
        if plan is None or self.weighted:
            plan = self._spread_plan(alive)
        index, gather, factor, dangling, share = plan[:5]
        alive = index
        p = self.rank[alive]
        share[alive] = p * factor
        received, read = self.ops.gather_sum(gather, share)
        self.residual[alive] = received - p
        if plan[5] is not None:
            read += self._push_tiny(plan, p[plan[5][0]])
        self._settle()                  # (the exact sums below replace whatever was added to them)
        self.rank_sum, self.dangling_rank = self.ops.masked_sums(self.rank, alive, dangling)
        self.exact_rank_sum = self.rank_sum
        return Work(activated=int(p.size), edges_scanned=read + weights_read), plan

    def _record_spreads(self, alive, rounds):
        """Record ``rounds`` spreads' reads at once: each read the same lists."""
        self.store.record_reads(self.store.inn, alive, reads_weights=self.weighted, distinct=True, times=rounds)

    def _push(self, active, amount):
        """Push ``amount`` at the few vertices ``active``, keeping ``sum(p)`` and
        ``D(p)`` current.  Returns the :class:`Work` and the vertices that
        received residual."""
        added, added_dangling = self.ops.masked_sums(amount, slice(0, amount.size), self._dangling(active))
        self.rank_sum += added
        self.dangling_rank += added_dangling
        receivers, read = self.ops.pagerank_push(self.store.out, active, amount, self.rank, self.residual,
                                                 self.alpha, out_weight=self.out_weight if self.weighted else None)
        self.store.record_reads(self.store.out, active, reads_weights=self.weighted, distinct=True)
        return Work(activated=int(active.size), edges_scanned=read), receivers

    def correct(self, delta):
        """Residual corrections for the batch's :class:`StoreDelta` (O(changed edges))."""
        ops = self.ops
        self._ensure()
        self._new = delta.new_vertices          # (added vertices: changed, whatever their rank)
        journal = self.store.journal
        new, removed = delta.new_vertices, delta.removed_vertices
        for array in (self.out_weight, self.teleport):      # (recycled ids may have held a value)
            if array is not None and new.size:
                journal.save(array, new)
                array[new] = 0.0
        if self.personalised and removed.size:
            self._remove_teleport(removed)
        if not self.incremental:
            return self._restart(delta) if self.warm_restart else self.initialize()
        self.rank[new] = 0.0                   # p = 0: their residual is the uniform share
        self.residual[new] = 0.0
        work = Work()
        touched = [self.support, new]
        if self.weighted:
            sources, arc_v, read, sums = self._correct_weighted(delta)
            touched += [sources, arc_v]
        else:                                   # reweighting changes nothing unweighted
            sources, sums = ops.pagerank_correct_arcs(self.rank, self.residual, self.store.out.degree,
                                                      delta.inserted_u, delta.inserted_v, delta.deleted_u,
                                                      delta.deleted_v, self.alpha)
            read = 0
            touched += [sources, delta.inserted_v, delta.deleted_v]
        if sources.size:
            # sources that became dangling join D(p); those that stopped leave it
            changed, joined, left = sums
            self.rank_sum += changed
            self.dangling_rank += joined - left
            work.edges_scanned = delta.changed_arcs + read
        removed = delta.removed_vertices
        if self._written is not None:
            self._written.append(removed)
        if removed.size:                 # removed vertices have no edges left: all dangling
            (held,) = ops.host_floats(self.rank[removed].sum())
            self.rank_sum -= held
            self.dangling_rank -= held
            self.rank[removed] = 0.0
            self.residual[removed] = 0.0
            self._clear_out_weight(removed)
        self._support_parts = touched           # (made distinct if read: see support)
        return work

    def _correct_weighted(self, delta):
        """:meth:`correct`'s corrections for the arcs of a weighted engine: each arc
        gains its weight change, ``W`` is updated (:meth:`_new_totals`).  Returns
        ``(sources, arc ends, edges read, sums)``, ``sums`` those of
        :meth:`Backend.pagerank_correct` (nothing corrected: no sources)."""
        xp, ops = self.ops.xp, self.ops
        arc_u = xp.concatenate((delta.inserted_u, delta.deleted_u, delta.updated_u))
        arc_v = xp.concatenate((delta.inserted_v, delta.deleted_v, delta.updated_v))
        if not arc_u.size:
            return arc_u, arc_v, 0, None
        # (exact_astype: CuPy's float32 -> float64 astype reads a subnormal weight as 0, and a vertex
        # whose only out-weights are subnormal would pass for dangling)
        inserted, deleted, new_w, old_w = (exact_astype(w, xp.float64) for w in (
            delta.inserted_w, delta.deleted_w, delta.updated_new, delta.updated_old))
        gain = xp.concatenate((inserted, -deleted, new_w - old_w))
        sources = xp.sort(ops.unique(arc_u, self.rank.size))
        at = xp.searchsorted(sources, arc_u)
        change = xp.zeros(sources.size, dtype=xp.float64)
        ops.scatter_add(change, at, gain)
        t_old, t_new, read, extreme = self._new_totals(sources, at, gain, change)
        if extreme is not None:      # not corrected there: s is recomputed before converging
            self._refresh_needed = True
            keep = ~extreme[at]
            arc_u, arc_v, gain = arc_u[keep], arc_v[keep], gain[keep]
            sources, t_old, t_new = sources[~extreme], t_old[~extreme], t_new[~extreme]
            at = xp.searchsorted(sources, arc_u)
        sums = ops.pagerank_correct(self.rank, self.residual, sources, t_old, t_new, at, arc_v, gain, self.alpha)
        return sources, arc_v, read, sums

    def _restart(self, delta):
        """The recompute path warm-started (see ``warm_restart``): ``p`` kept, 0 at
        the batch's new and removed vertices; :meth:`converge` recomputes ``W``
        and the residual exactly from the lists (one pass each) before its
        dense rounds.  No per-arc correction is made."""
        xp = self.ops.xp
        removed = delta.removed_vertices
        for vertices in (delta.new_vertices, removed):
            self.rank[vertices] = 0.0
            self.residual[vertices] = 0.0
        self._clear_out_weight(removed)
        self.support = xp.empty(0, dtype=xp.int64)
        self._written = None
        self._refresh_needed = True
        return Work()

    def _clear_out_weight(self, removed):
        """``W = 0`` at ``removed`` vertices (journaled; weighted only): they have no
        out-edges left."""
        if self.weighted and removed.size:
            self.store.journal.save(self.out_weight, removed)
            self.out_weight[removed] = 0.0

    def _new_totals(self, sources, at, gain, change):
        """``(W_old, W_new, edges read, extreme)`` at the batch's ``sources`` (sorted,
        distinct; a weighted engine), whose arcs ``at`` (indices into ``sources``)
        gained ``gain`` of weight, ``change`` the sum per source.  ``W`` is
        updated (journaled): 0 where no out-edge is left, read from the lists
        where the change cancels most of it (see :data:`CANCELLATION`);
        ``extreme`` flags the sources not to correct arc by arc (see
        :data:`EXTREME_CHANGE`), None when there is none."""
        xp, ops = self.ops.xp, self.ops
        degree = self.store.out.degree[sources]
        t_old = self.out_weight[sources]
        t_new = xp.where(degree == 0, 0.0, t_old + change)
        moved = xp.zeros(sources.size, dtype=xp.float64)
        ops.scatter_add(moved, at, xp.abs(gain))
        scale = t_old + moved
        suspect = xp.flatnonzero((degree > 0) & (scale > 0) & (t_new <= CANCELLATION * scale))
        read = 0
        if suspect.size:
            exact, read = self._exact_out_weight(sources[suspect])
            t_new[suspect] = exact
        self.store.journal.save(self.out_weight, sources)
        self.out_weight[sources] = t_new
        base = xp.where(t_old > 0, t_old, t_new)
        extreme = (base > 0) & ((base < TINY_TOTAL) | (moved / EXTREME_CHANGE > base)
                                | ((t_new > 0) & (t_new < TINY_TOTAL)))
        return t_old, t_new, read, extreme if ops.host_ints(extreme.sum())[0] else None

    def _remove_teleport(self, removed):
        """Drop the personalization entries of ``removed`` vertices (journaled): the
        others' shares are renormalised; ``ValueError`` when none is left."""
        ops = self.ops
        (lost,) = ops.host_floats(self.teleport[removed].sum())
        if lost == 0.0:
            return
        self.store.journal.save(self.teleport, removed)
        self.teleport[removed] = 0.0
        (self.teleport_total,) = ops.host_floats(self.teleport[self._live_index()].sum())
        if not self.teleport_total > 0.0:
            raise ValueError("personalization: the batch removes every vertex of the personalization "
                             "(PageRank's teleport vector would be empty)")

    def error_bound(self, dangling=None):
        """Bound on the L1 distance between ``p / sum(p)`` and the exact PageRank.

        ``|r|_1 / ((1 - alpha) sum(p))`` with ``r = s - sum(s) * v`` (the
        module docstring derives it): with ``x = p / sum(p)`` and ``G`` the
        Google matrix, ``G x - x = r / sum(p)`` and
        ``|x - x*|_1 <= |G x - x|_1 / (1 - alpha)``.  With uniform teleport,
        ``r`` is ``s``'s deviation from its mean.  Given ``dangling`` (the
        dangling flags of the live vertices, in :meth:`_live_index`'s order),
        ``sum(p)`` and ``D(p)`` are made exact in the same read (the sums of
        the spreads since the last settle are in them).
        """
        if self.store.num_vertices == 0:
            self._settle()
            self._deviation = 0.0
            return 0.0
        teleport = self.teleport if self.personalised else None
        if dangling is None:
            self._deviation = self.ops.l1_deviation(self.residual, self._live_index(), teleport, self.teleport_total)
            self._settle()          # (after the deviation's wait, which read the spreads' sums too)
        else:
            self._deviation, self.rank_sum, self.dangling_rank = self.ops.deviation_and_sums(
                self.residual, self.rank, self._live_index(), dangling, teleport, self.teleport_total)
            self._unsettled = []
        return self._bound()

    def converge(self):
        """Push until the error bound is at most ``tol``, then commit.

        Nothing is pushed while the bound already holds; otherwise pushes go
        on down to :meth:`_aim` (``tol / 2`` while batches add less than that,
        so that the next one often needs no push; else ``tol``).
        After ``max_iter`` dense rounds above ``tol``: ``RuntimeError`` with
        ``fail_on_nonconvergence`` (the transaction then rolls back), else
        the update ends there with :attr:`converged` False.
        """
        xp = self.ops.xp
        work = Work()
        alive = self._alive()
        n = self.store.num_vertices
        index = self._index(alive)
        if self._refresh_needed:            # (the residual is recomputed below: no bound of it yet)
            self.rank_sum, bound = self.ops.masked_sums(self.rank, index)[0], None
        else:                               # (sum(p) and D(p) exact once per update at least)
            bound = self.error_bound(self._dangling(index))
        exact = bound is not None           # sum(p) and D(p) exact since the last spread
        if n and self.rank_sum <= 0.0:                     # nothing to normalise yet: start over
            work = self.initialize()                # (its spread from zero sums sum(p) and D(p) exactly)
            alive = self._alive()
            index, bound, exact = self._index(alive), None, True
        self._rescale(index, n)                 # (by a power of two: the bound is unchanged)
        plan = None
        if self.rank_sum * DRIFT_FACTOR < self.exact_rank_sum or self._refresh_needed:
            # roundoff of corrections made at the larger scale: relative to sum(p) it grew as
            # much as sum(p) shrank (removed vertices take their rank), and the bound below
            # reads the stored residual: make it exact again first
            step, plan = self._refresh_residual(alive)
            self._refresh_needed = False
            work.activated += step.activated
            work.edges_scanned += step.edges_scanned
            self._written = None
            bound, exact = None, True
        goal = self.tol
        aim = self._aim()
        sparse = True
        spreads = 0
        refreshed = plan is not None
        checks = []                 # (bound, spreads) at each dense step's bound since the last refresh
        stall = 0.5 * (1.0 + self.alpha)       # a dense round contracts the bound by alpha or better
        first = True
        while True:
            if bound is None:
                bound = self.error_bound()
            if first:
                self.start_bound, first = bound, False
            if bound <= goal and not exact:     # (the bound divides by sum(p): make it exact)
                self.rank_sum, self.dangling_rank = self.ops.masked_sums(
                    self.rank, index, self._dangling(index) if plan is None else plan[3])
                bound, exact = self._bound(), True
            if bound <= goal:
                self.converged = True
                break
            goal = aim
            levels = SPARSE_LEVELS if self.sparse_levels is None else self.sparse_levels
            sparse = sparse and bound * self.alpha ** levels <= goal and 0 < self.support.size < SPARSE_SHARE * n
            if not sparse and spreads == self.max_iter:
                self.converged = bound <= self.tol
                if self.converged:
                    break
                if self.fail_on_nonconvergence:
                    raise RuntimeError(f"PageRank did not reach tol={self.tol} in max_iter={self.max_iter} "
                                       f"rounds (error bound {bound:.3g})")
                break
            if sparse:
                residual = self.residual[self.support] + self._teleport_share(self.support)      # r = s + g v
                step, receivers = self._push(self.support, residual)
                grown = self.ops.unique(xp.concatenate((self.support, receivers)), self.rank.size)
                # a round that reaches no new vertex cannot spread the correction further:
                # the rest (the uniform share among it) needs dense rounds
                sparse = grown.size > self.support.size
                self.support, exact = grown, False
            else:
                plan = plan if plan is not None else self._spread_plan(alive)
                since = spreads - checks[-1][1] if checks else None
                checks.append((bound, spreads))
                if since and bound > stall ** since * checks[-2][0] and not refreshed:
                    step, plan = self._refresh_residual(alive, plan)   # stuck at roundoff: clear it once
                    refreshed, exact = True, True
                    checks = []
                else:
                    rounds = 1 if plan[5] is not None else min(rounds_ahead(checks, goal), self.max_iter - spreads)
                    step = self._spread(plan, rounds)
                    spreads, exact = spreads + rounds, False
                self._written = None
            work.activated += step.activated
            work.edges_scanned += step.edges_scanned
            self.store.journal.checkpoint()          # a deferred Ctrl-C stops here
            bound = None
        self._record_spreads(alive, spreads + refreshed)      # a refresh reads what a spread does
        self.end_bound = bound            # (the last one computed: exact when the update converged)
        self._commit()
        self.published_rank_sum = self.rank_sum
        self.support = xp.empty(0, dtype=xp.int64)
        return work

    def _bound(self):
        """The error bound of the residual's deviation last read, over ``sum(p)``."""
        if self.store.num_vertices == 0:
            return 0.0
        if self.rank_sum <= 0.0:
            return float("inf")
        return self._deviation / ((1.0 - self.alpha) * self.rank_sum)

    def _aim(self):
        """The bound an update pushes down to once it pushes at all: ``tol / 2``, so
        that a next batch adding less than ``tol / 2`` needs no push; ``tol``
        when the last batch added more than that (the margin would not spare
        the next update anything, and it costs a dense round).

        >>> engine = PageRankEngine.__new__(PageRankEngine)
        >>> engine.tol, engine.end_bound = 1e-6, 2e-7
        >>> engine.start_bound = 5e-7; engine._aim()        # batches add 3e-7: keep the margin
        5e-07
        >>> engine.start_bound = 1e-5; engine._aim()        # they add 1e-5
        1e-06
        """
        added = self.start_bound - self.end_bound
        return self.tol if added > 0.5 * self.tol else 0.5 * self.tol

    def ranks(self, vertices):
        """Normalised PageRank of internal ``vertices`` (sums to 1 over all live vertices)."""
        return self.rank[vertices] / self.rank_sum

    def memory_bytes(self):
        extra = [a for a in (self.out_weight, self.teleport) if a is not None]
        return self.ops.memory_bytes(self.rank, self.residual, self.committed_rank, self.committed_residual,
                                     self.previous_rank, self.support, *extra)

    # ------------------------------------------------------------ checkpoints
    def export_state(self):
        """The committed state, for a checkpoint (see :mod:`cugraph_stream.checkpoint`).

        Returns a dict: ``internal`` (the live vertices, ascending), their
        ``rank`` (the unnormalised estimate ``p``), ``residual`` (``s``) and
        ``previous_rank`` (``p`` before the last update, NaN where it added
        the vertex) as host NumPy arrays, and the scalars ``rank_sum``,
        ``dangling_rank``, ``converged`` and ``previous_rank_sum``; weighted,
        ``weighted`` (True) and ``out_weight`` (``W``); personalised,
        ``personalised`` (True), ``teleport`` (the raw values) and
        ``teleport_total``.  Read it under the graph's lock.
        """
        ops, xp = self.ops, self.ops.xp
        live = xp.flatnonzero(self.store.vertices.alive[: self.store.vertex_bound])
        state = {"internal": ops.to_host(live), "rank": ops.to_host(self.committed_rank[live]),
                "residual": ops.to_host(self.committed_residual[live]),
                "previous_rank": ops.to_host(self.previous_rank[live]),
                "previous_rank_sum": float(self.previous_rank_sum), "rank_sum": float(self.rank_sum),
                "dangling_rank": float(self.dangling_rank), "converged": bool(self.converged),
                "exact_rank_sum": float(self.exact_rank_sum)}
        if self.weighted:
            state["weighted"] = True
            state["out_weight"] = ops.to_host(self.out_weight[live])
        if self.personalised:
            state["personalised"] = True
            state["teleport"] = ops.to_host(self.teleport[live])
            state["teleport_total"] = float(self.teleport_total)
        return state

    def import_state(self, state):
        """Take the state of :meth:`export_state` (host or device arrays) as the
        committed one, on a store restored with the same vertices: working and
        committed arrays both get it; other vertices hold rank and residual 0.
        Without ``previous_rank`` (and ``previous_rank_sum``), :meth:`moved`
        finds nothing moved until the next update.  A weighted engine without
        ``out_weight`` recomputes ``W`` from the lists; ``teleport`` makes the
        engine personalised."""
        ops, xp = self.ops, self.ops.xp
        if state.get("teleport") is not None and not self.personalised:
            self.personalised = True
            self._per_vertex += _PERSONALISED
            self.teleport = xp.zeros(0, dtype=xp.float64)
        self._ensure()
        self._pending_teleport = None
        internal = ops.asarray(state["internal"], dtype=xp.int64)
        for name in ("rank", "residual"):
            array = getattr(self, name)
            array[...] = 0.0
            array[internal] = ops.asarray(state[name], dtype=xp.float64)
        self.committed_rank[...] = self.rank
        self.committed_residual[...] = self.residual
        self.previous_rank[...] = self.rank
        if state.get("previous_rank") is not None:      # differs from rank at any live vertex
            self.previous_rank[internal] = ops.asarray(state["previous_rank"], dtype=xp.float64)
            self._last_written = None
        else:                                           # as if the last update changed nothing
            self._last_written = xp.empty(0, dtype=xp.int64)
        self._new = xp.empty(0, dtype=xp.int64)
        self.rank_sum = float(state["rank_sum"])
        self.dangling_rank = float(state["dangling_rank"])
        self.converged = bool(state["converged"])
        # (checkpoints before exact_rank_sum existed: as if the saved residual were exact)
        self.exact_rank_sum = float(state.get("exact_rank_sum", self.rank_sum))
        self.published_rank_sum = self.rank_sum
        self._unsettled = []
        self.previous_rank_sum = float(state.get("previous_rank_sum", self.rank_sum))
        self.support = xp.empty(0, dtype=xp.int64)
        self._written = []
        if self.weighted:
            self.out_weight[...] = 0.0
            if state.get("out_weight") is not None:
                self.out_weight[internal] = ops.asarray(state["out_weight"], dtype=xp.float64)
            else:
                self._refresh_out_weight(self._alive())
        if self.personalised:
            self.teleport[...] = 0.0
            self.teleport[internal] = ops.asarray(state["teleport"], dtype=xp.float64)
            (total,) = ops.host_floats(self.teleport[internal].sum())
            self.teleport_total = float(state.get("teleport_total", total))
            if not self.teleport_total > 0.0:
                raise ValueError("personalization: no live vertex holds a positive value")
