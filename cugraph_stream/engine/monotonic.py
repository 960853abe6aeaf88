"""Dependency memoization (DM): incremental monotonic queries.

Each vertex keeps a value and a parent: the in-neighbour whose value (sent
along the edge by the query's :class:`~cugraph_stream.algorithms.Rule`) gave
it.  After a batch:

1. *Correction.*  A deleted or worsened edge ``u -> v`` with
   ``parent[v] == u`` invalidates ``v``; every vertex whose parent is
   invalidated is invalidated too, until none is left.  Invalidated vertices
   are reset and re-seeded from their neighbours that still hold valid
   values.  Inserted and improved edges are relaxed directly (only those
   edges: the rest of their sources' lists did not change).
2. *Compute.*  The vertices whose values improved push along their edges
   until nothing improves.

Valid vertices keep values that some path of the new graph achieves, so the
push phase converges to the same fixpoint as a computation from scratch,
which :class:`MonotonicEngine` also offers (``incremental=False``): the
engine's own recompute mode, used as a reference and a baseline.

``previous_value`` and ``previous_parent`` hold the committed result (what
the last update published); ``value`` and ``parent`` are the working copy an
update changes.  The update ends by committing the vertices it changed
(journaled), so a failed batch rolls back by copying the committed result
over the working one (:meth:`MonotonicEngine.rollback`).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..backends.base import Counted
from .growth import ensure_vertex_capacity, fit_vertex_capacity

#: levels below the seeds where invalidation looks for another parent at the same value (on the
#: GPU in one block with the rest of the invalidation while levels are narrow, else a host round
#: trip each; deeper candidates are invalidated with their subtrees)
KEEP_TIE_LEVELS = 3


@dataclass
class Work:
    """What one phase of a query update cost."""

    invalidated: int = 0
    activated: int = 0
    edges_scanned: int = 0


def _joined(ops, arrays):
    """The int64 arrays one after another, copying only where two or more hold entries."""
    full = [a for a in arrays if a.size]
    if len(full) == 1:
        return full[0]
    return ops.join(full) if full else ops.no_items()


class MonotonicEngine:
    """Incremental state of one monotonic query over a :class:`GraphStore`.

    Parameters
    ----------
    store : GraphStore
    rule : Rule
        The algorithm.
    source : int or None
        Internal id of the source vertex (None for connected components).
    incremental : bool
        False recomputes from scratch after every batch (recompute mode).
    parents_in_result : bool
        Whether a new parent alone makes a vertex "changed" (False for
        connected components, whose results show labels only).

    Examples
    --------
    >>> import numpy as np
    >>> from cugraph_stream.backends import get_backend
    >>> from cugraph_stream.engine.store import GraphStore
    >>> from cugraph_stream.engine.reduce import reduce_batch
    >>> from cugraph_stream.algorithms import sssp_rule
    >>> store = GraphStore(get_backend("cpu"), directed=True, weight_dtype=np.float64)
    >>> ids = store.add_vertices(np.array([0, 1, 2]))
    >>> _ = store.apply(reduce_batch(store, np.array([0, 1, 0]), np.array([1, 2, 2]),
    ...                              np.array([1.0, 1.0, 5.0]), np.ones(3, np.int8)))
    >>> engine = MonotonicEngine(store, sssp_rule(np.float64), source=0)
    >>> _ = engine.initialize(); _ = engine.converge()
    >>> engine.value[:3].tolist(), engine.parent[:3].tolist()
    ([0.0, 1.0, 2.0], [-1, 0, 1])
    >>> delta = store.apply(reduce_batch(store, np.array([1]), np.array([2]), np.zeros(1), -np.ones(1, np.int8)))
    >>> work = engine.correct(delta)
    >>> _ = engine.converge()
    >>> engine.value[:3].tolist(), engine.parent[:3].tolist()
    ([0.0, 1.0, 5.0], [-1, 0, 0])
    """

    #: an incremental update gives up for a recomputation once its invalidation reads
    #: more than ``give_up_above`` (see engine.cost_model)
    gives_up = True

    #: whether a computation from scratch runs ``ops.bfs_levels`` (set per engine; the
    #: class defaults serve engines pickled before it existed)
    levels = False
    _from_scratch = False

    def __init__(self, store, rule, source=None, incremental=True, parents_in_result=True):
        xp = store.ops.xp
        self.store = store
        self.ops = store.ops
        self.rule = rule
        self.source = source
        self.incremental = incremental
        self.parents_in_result = parents_in_result
        symmetric = rule.symmetric and store.directed
        self.push_adjacencies = (store.out, store.inn) if symmetric else (store.out,)
        self.pull_adjacencies = (store.inn, store.out) if symmetric else (store.inn,)
        self.value = xp.empty(0, dtype=rule.value_dtype)
        self.parent = xp.empty(0, dtype=xp.int64)
        self.previous_value = xp.empty(0, dtype=rule.value_dtype)
        self.previous_parent = xp.empty(0, dtype=xp.int64)
        self.changed = xp.empty(0, dtype=xp.int64)
        self._frontier = xp.empty(0, dtype=xp.int64)
        #: the entries the correction's pull read, as ops.pull returns them (a device's
        #: count read with the push's wait), counted in the push's work
        self._pulled = None
        self._touched = []
        self._new = xp.empty(0, dtype=xp.int64)
        self._changed_before = self._changed_pending()      # ``changed`` when the open transaction began
        self.converged = True                    # (a monotonic update always converges)
        #: work (entries scanned + vertices) after which an incremental correction gives up and
        #: recomputes from scratch (None: never); set per update by the query's cost model
        self.give_up_above = None
        #: why the last correction gave up (a sentence), or False
        self.gave_up = False
        # from scratch, BFS runs level by level (ops.bfs_levels) instead of pushing;
        # False keeps the generic push (benchmarks compare the two)
        self.levels = bool(getattr(rule, "levels", False)) and source is not None
        self._from_scratch = False

    #: the count of ``_changed`` while it is still on the device (see :attr:`changed`)
    _changed_count = None

    @property
    def changed(self):
        """The vertices the last update changed, each once, in no order.  The
        update leaves their count on the device, and it is read here, when
        asked for (``changes()``, a checkpoint): no batch waits for it."""
        count = self._changed_count
        if count is not None:               # (a host backend's count needs no read)
            count = count if isinstance(count, int) else self.ops.read_counts(count)[0]
            self._changed, self._changed_count = self._changed[:count], None
        return self._changed

    @changed.setter
    def changed(self, vertices):
        self._changed, self._changed_count = vertices, None

    def _changed_pending(self):
        """``changed`` as it is kept (with its count, unread), for a rollback to put back."""
        return self._changed, self._changed_count

    def __setstate__(self, state):
        if "changed" in state:              # (an engine pickled before the count was kept apart)
            state["_changed"] = state.pop("changed")
            state["_changed_before"] = (state["_changed_before"], None)
        self.__dict__.update(state)

    # ----------------------------------------------------------------- state
    def _ensure(self):
        """Per-vertex arrays for every vertex below the store's bound; join the
        store's open transaction."""
        journal = self.store.journal
        if journal.enlist(self):
            self._changed_before = self._changed_pending()
        ensure_vertex_capacity(self.ops.xp, self, ("value", "previous_value", "parent", "previous_parent"),
                               self.store.vertex_bound, journal)

    def fit_capacity(self):
        """Shrink the per-vertex arrays once the store's vertex bound is far below
        them (after vertices were removed; see :func:`fit_vertex_capacity`)."""
        fit_vertex_capacity(self.ops.xp, self, ("value", "previous_value", "parent", "previous_parent"),
                            self.store.vertex_bound, self.store.journal)

    def rollback(self):
        """Put the committed result back into the working arrays (after the journal
        restored the committed ones); see the module docstring."""
        xp = self.ops.xp
        self.value[...] = self.previous_value
        self.parent[...] = self.previous_parent
        self._changed, self._changed_count = self._changed_before
        self._frontier = xp.empty(0, dtype=xp.int64)
        self._pulled = None
        self._touched = []
        self._new = xp.empty(0, dtype=xp.int64)
        self._from_scratch = False

    def _reset(self, vertices):
        """Values a vertex holds before anything reaches it; parents -1."""
        if self.rule.unreachable is None:
            self.value[vertices] = self.store.vertices.external[vertices]
            self.parent[vertices] = -1
            if self.source is not None:
                self.value[self.source] = self.rule.source_value
        else:
            self.ops.reset_values(self.value, self.parent, vertices, self.rule.unreachable, self.source,
                                  self.rule.source_value)

    def _alive(self):
        return self.store.vertices.sorted_ids()[1]

    # ----------------------------------------------------------------- phases
    def initialize(self):
        """Compute from scratch; every vertex counts as changed."""
        self._ensure()
        alive = self._alive()
        self._new = alive
        self._touched = []
        return self._start_from_scratch(alive)

    def _start_from_scratch(self, alive):
        xp = self.ops.xp
        self._from_scratch = self.levels        # converge() runs ops.bfs_levels, which resets every vertex
        if not self._from_scratch:
            self._reset(alive)
        if self.source is not None:
            self._frontier = xp.asarray([self.source], dtype=xp.int64)
        else:
            self._frontier = alive
        self._touched.append(alive)
        return Work()

    def correct(self, delta):
        """Apply the batch's :class:`StoreDelta`: invalidate, reset, re-seed, relax new edges."""
        ops, rule = self.ops, self.rule
        self._ensure()
        self.gave_up = False
        self._pulled = None
        new = delta.new_vertices
        self._new = new
        self._touched = [new, delta.removed_vertices]
        if new.size:
            self._reset(new)
        if not self.incremental:
            return self._start_from_scratch(self._alive())

        parent = self.parent
        du, dv = delta.deleted_u, delta.deleted_v
        seeds, children = [], None
        if du.size and not delta.spares(parent):       # (a deleted arc may hold a tree edge)
            if len(self.push_adjacencies) == 2:
                # weak connectivity: an arc also carries values backwards, and
                # u -> v deleted still leaves u and v adjacent if v -> u exists
                children = ops.weak_children_of(parent, du, dv, self.store.locate(dv, du))
            else:
                children = ops.children_of(parent, du, dv)      # (their count unread: see below)
        improved_u = improved_v = improved_w = None
        if rule.uses_weights and delta.updated_u.size:
            uu, uv, new_w = delta.updated_u, delta.updated_v, delta.updated_new
            worse = rule.is_worse_weight(delta.updated_old, new_w)
            seeds += ops.compress(worse & (parent[uv] == uu), uv)
            improved_u, improved_v, improved_w = ops.compress(~worse, uu, uv, new_w)
        keep_ties = rule.keeps_ties(self.store.fractional_weights) and len(self.push_adjacencies) == 1
        if children is not None and seeds:
            seeds.append(ops.read_counted(children))
        # the deleted tree arcs' children alone go to the invalidation with their count
        # on the device (its own read tells how many it invalidated)
        seeds = children if children is not None and not seeds else _joined(self.ops, seeds)
        work = Work()
        invalidated = ops.no_items()
        if (seeds.array if isinstance(seeds, Counted) else seeds).size:
            if keep_ties:
                # distances tie often (hop counts, whole-number weights): a vertex that another
                # in-neighbour holds at the same distance keeps it, and only the vertices whose
                # distance grows are invalidated
                invalidated, examined, work.edges_scanned = ops.invalidate_keeping_ties(
                    self.push_adjacencies, self.pull_adjacencies[0], seeds, self.value, self.parent, rule,
                    KEEP_TIE_LEVELS)
                self._touched.append(examined)       # (kept ones have new parents)
            else:
                invalidated, work.edges_scanned = ops.invalidate(self.push_adjacencies, seeds, self.parent)
            if self.give_up_above is not None and work.edges_scanned + invalidated.size > self.give_up_above:
                # re-seeding and re-pushing the invalidated part would cost more than recomputing
                self.gave_up = (f"{int(invalidated.size)} vertices invalidated, {work.edges_scanned} entries "
                                f"read, over a recomputation's {self.give_up_above:.0f}")
                self._touched.append(invalidated)
                self._start_from_scratch(self._alive())
                return Work(invalidated=int(invalidated.size), edges_scanned=work.edges_scanned)
            self._reset(invalidated)
            for adj in self.push_adjacencies:
                self.store.record_reads(adj, invalidated, reads_weights=False, distinct=True)
            self._pulled = ops.pull(self.pull_adjacencies, invalidated, self.value, self.parent, rule)
            for adj in self.pull_adjacencies:
                self.store.record_reads(adj, invalidated, reads_weights=rule.uses_weights, distinct=True)
        if delta.removed_vertices.size:
            self._reset(delta.removed_vertices)
        work.invalidated = int(invalidated.size)

        arcs = [(delta.inserted_u, delta.inserted_v, delta.inserted_w)]
        if improved_u is not None:
            arcs.append((improved_u, improved_v, improved_w))
        if len(self.push_adjacencies) == 2:         # (weak connectivity: backwards too)
            arcs += [(v, u, w) for u, v, w in arcs]
        # the reached invalidated vertices and the targets the new arcs improve
        # (a one-row insert whose ends' values came with its status: known on the host,
        # so its arc is relaxed without reading anything back)
        known = (self._improving_arcs(delta) if delta.inserted_row is not None and not invalidated.size
                 and improved_u is None else None)
        if known is not None:
            for u, v, w in known:
                ops.relax_arcs_only(u, v, w, self.value, self.parent, rule)
            self._frontier = known[0][1] if known else invalidated
        elif invalidated.size or any(u.size for u, _, _ in arcs):
            self._frontier = ops.correction_frontier(self.value, self.parent, rule, invalidated, arcs)
        else:
            self._frontier = invalidated
        self._touched.append(invalidated)
        return work

    def _improving_arcs(self, delta):
        """The arc of the one-row insert ``delta`` (its ``inserted_row``, an
        :class:`~cugraph_stream.engine.single_row.InsertedRow`) that improves a
        value of this query, as :meth:`correct` relaxes it (both ways on an
        undirected graph or for weak connectivity), from the values its ends
        held: a list of at most one ``(u, v, w)`` of one-entry arrays, whose
        ``v`` is then the whole frontier.  None where the host cannot tell
        (the ends' values were not read), or where the arc improves both
        ways (which no rule whose value sent is no better than its source's
        allows): then :meth:`correct` reads the frontier as for any batch."""
        row = delta.inserted_row
        ends = row.ends_of(self.value)
        if ends is None:
            return None
        at_u, at_v = ends
        forward = self.rule.improves(at_u, row.weight, at_v)
        backward = ((row.both_ways or len(self.push_adjacencies) == 2)
                    and self.rule.improves(at_v, row.weight, at_u))
        u, v, w = delta.inserted_u, delta.inserted_v, delta.inserted_w
        if forward and backward:
            return None
        if forward:
            return [(u[:1], v[:1], w[:1])]
        if backward:            # (an undirected edge's second arc is v -> u; weak connectivity reverses the one)
            return [(u[1:2], v[1:2], w[1:2])] if row.both_ways else [(v[:1], u[:1], w[:1])]
        return []

    def converge(self):
        """Push from the active vertices until no value improves."""
        activated, edges_read = self.ops.no_items(), 0
        if self._from_scratch:
            self._from_scratch = False
            activated, edges_read = self.ops.bfs_levels(self.store.out, self.store.inn, self.source,
                                                        self.store.vertex_bound, self.value, self.parent, self.rule)
        elif isinstance(self._frontier, Counted) or self._frontier.size:
            # (a correction's frontier, its count perhaps still on the device, is pushed
            # from, a wait even where it is empty; a batch that improved nothing pushes nothing)
            activated, edges_read = self.ops.converge(self.push_adjacencies, self._frontier, self.value,
                                                      self.parent, self.rule)
        if self._pulled is not None:
            edges_read += self._pulled.get()
            self._pulled = None
        self._touched.append(activated)
        for adj in self.push_adjacencies:
            self.store.record_reads(adj, activated, reads_weights=self.rule.uses_weights)
        self._frontier = self.ops.no_items()
        self._check_overflow()
        self._record_changes()
        return Work(activated=int(activated.size), edges_scanned=edges_read)

    def _check_overflow(self):
        """Raise ``OverflowError`` if a path sum overflowed the value dtype.

        A sum that rounds to the dtype's maximum or beyond cannot be told from
        "unreachable" (the maximum): the vertex would be reported unreachable
        although a path reaches it.  Only sums (SSSP) can overflow, and only
        when the largest weight times the vertex count (with room for
        rounding) reaches the maximum; then every arc from a reached vertex
        is checked, once per update, in chunks of the edges that the device
        holds (:meth:`GraphStore.edge_chunks`: the edges may be more than
        the device).  The vertex named is the first stranded one in the
        order of :meth:`GraphStore.edge_arrays`, whatever the chunks: the
        edges' own direction first, then (undirected) the mirror direction.
        """
        rule, store = self.rule, self.store
        if rule.extend != "add":
            return
        n = store.num_vertices
        limit = float(rule.unreachable)
        if store.largest_weight * n * (1.0 + n * float(np.finfo(rule.value_dtype).eps)) < limit:
            return
        first_mirrored = None                       # undirected: the first stranded through a mirror arc
        for u, v, w in store.edge_chunks(self.ops.bulk_load_rows()):
            stranded = self._stranded(u, v, w)
            if stranded is not None:
                self._raise_overflow(stranded, limit)
            if not store.directed and first_mirrored is None:
                first_mirrored = self._stranded(v, u, w)
        if first_mirrored is not None:
            self._raise_overflow(first_mirrored, limit)

    def _stranded(self, u, v, w):
        """The first ``v`` (internal id) of arcs ``u -> v`` of weight ``w`` that is
        left unreachable although its sum from a reached ``u`` overflowed; None if none."""
        rule = self.rule
        reached = self.value[u] != rule.unreachable
        with np.errstate(over="ignore"):
            over = reached & (self.value[u] + w.astype(rule.value_dtype) >= rule.unreachable)
        stranded = v[over][self.value[v[over]] == rule.unreachable]
        return int(stranded[0]) if stranded.size else None

    def _raise_overflow(self, stranded, limit):
        """Raise the ``OverflowError`` that names vertex ``stranded`` (internal id)."""
        vertex = int(self.store.vertices.external[stranded])
        raise OverflowError(f"vertex {vertex} is reachable but its shortest distance is at least the "
                            f"largest {np.dtype(self.rule.value_dtype)} ({limit:.4g}), which marks "
                            "unreachable vertices; use weight_dtype='float64' or smaller weights")

    def _record_changes(self):
        """Commit: remember which live vertices changed value or parent in this
        update, and copy their values and parents into the committed result."""
        journal = self.store.journal
        touched = _joined(self.ops, self._touched)       # (one part, as most batches touch, is not copied)
        self._touched = []
        if touched.size == 0 and self._new.size == 0:      # nothing touched: nothing changed
            self.changed = touched
            return
        keep = journal.recording            # (the operator keeps the pre-image of every record it changes)
        recorded = self.ops.record_changes(self._new, touched, self.value, self.parent, self.previous_value,
                                           self.previous_parent, self.store.vertices.alive, self.parents_in_result,
                                           keep=keep)
        if keep:
            recorded, replaced = recorded
            journal.replaced((self.previous_value, self.previous_parent), replaced)
        self._changed, self._changed_count = recorded.array, recorded.count

    def memory_bytes(self):
        return self.ops.memory_bytes(self.value, self.parent, self.previous_value, self.previous_parent)

    # ------------------------------------------------------------ checkpoints
    def export_state(self):
        """The committed result, for a checkpoint (see :mod:`cugraph_stream.checkpoint`).

        Returns a dict of host NumPy arrays: ``internal`` (the live vertices,
        ascending), their ``value`` and ``parent`` (internal ids, -1 for none),
        and ``changed`` (the vertices the last update changed, as
        ``changes()`` lists them).  Read it under the graph's lock.
        """
        ops, xp = self.ops, self.ops.xp
        live = xp.flatnonzero(self.store.vertices.alive[: self.store.vertex_bound])
        return {"internal": ops.to_host(live), "value": ops.to_host(self.previous_value[live]),
                "parent": ops.to_host(self.previous_parent[live]),
                "changed": ops.to_host(self.changed).copy()}

    def import_state(self, state):
        """Take the result of :meth:`export_state` (host or device arrays) as the
        committed one, on a store restored with the same vertices.

        Working and committed arrays both get it; vertices below the bound
        that are not live hold the values of a reset (as removed vertices do).
        Raises ``ValueError`` if the values are not of the rule's dtype.
        """
        ops, xp = self.ops, self.ops.xp
        self._ensure()
        value = ops.asarray(state["value"])
        if value.dtype != self.value.dtype:
            raise ValueError(f"values of dtype {value.dtype}, expected {self.value.dtype}")
        internal = ops.asarray(state["internal"], dtype=xp.int64)
        self._reset(xp.arange(self.store.vertex_bound, dtype=xp.int64))
        self.value[internal] = value
        self.parent[internal] = ops.asarray(state["parent"], dtype=xp.int64)
        self.previous_value[...] = self.value
        self.previous_parent[...] = self.parent
        self.changed = xp.array(ops.asarray(state["changed"], dtype=xp.int64))
        self._changed_before = self._changed_pending()
