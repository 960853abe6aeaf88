"""The dynamic graph store: vertices, out- and in-adjacency, and the arc index.

A directed graph keeps an out-adjacency and an in-adjacency (the engine
re-seeds invalidated vertices from their in-neighbours); each out-entry knows
its in-entry's slot (``twin``), so deleting ``u -> v`` never scans ``v``'s
list, and an in-entry finds its out-entry through the arc index.
An undirected graph keeps one adjacency holding both arcs of every edge (one
arc for a self loop), which serves as in- and out-adjacency at once.  The
arc index maps each arc of the out-adjacency to its slot.

:meth:`GraphStore.apply` turns a batch's net changes
(:class:`~cugraph_stream.backends.base.NetChanges`) into a :class:`StoreDelta`: the arcs that appeared, disappeared or changed weight,
which is all the incremental queries need to know about a batch.

Changes run inside :meth:`GraphStore.transaction`: every part of the store
(vertex table, adjacencies, arc index, hotness) records what it overwrites
in the store's :class:`~cugraph_stream.engine.journal.Journal`, and the
queries' engines do the same for their committed state, so an exception
anywhere in a batch restores the graph and its results exactly.
"""
from __future__ import annotations

import contextlib
import warnings
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from ..backends.base import NetChanges
from ..log import logger
from .adjacency import Adjacency, list_room, read_plans
from .cache import DEFAULT_CHUNK_BYTES, HotCache, RefreshReport, changed_lists, evict_changed
from .cache_policy import RefreshDecision, RefreshOutcome, RefreshPolicy
from .cache_selection import select_in_chunks
from .arc_index import ArcIndex
from .bulk_load import EdgeRows, vertex_ranges
from .hash_index import arc_key
from .hotness import DEFAULT_TAU, Hotness
from .journal import Journal, RollbackError
from .placement import Placement
from .reads import READ_UNIT_BYTES, ReadCounters
from .vertices import VertexTable

#: Inserted arcs from which a batch plans the relocation of the lists that
#: outgrew their room before it reads how many did (a device plans on the
#: placement's count where it lies; :meth:`Adjacency.plan_ahead`), so one
#: read brings the removals', the placements' and the plan's counts: a wait
#: fewer where lists outgrow, a plan launched for nothing where none do.
#: Batches of 10,000 rows of an R-MAT stream always relocate some lists.
#: Measured side by side (benchmarks.ab_constants, 2026-11-29, H200):
#: 0, 1024 and never within 1% at 10,000 and at 1,000 rows.
PLAN_AHEAD_ARCS = 1024


class CachedSide(NamedTuple):
    """A cached adjacency of the store: its ``side`` (``"out"`` or ``"in"``), the
    ``adjacency`` (whose ``cache`` holds the copies) and the ``hotness`` that
    picks what to cache."""

    side: str
    adjacency: Adjacency
    hotness: Hotness


@dataclass
class HostReads:
    """What a query read from host memory in one update (see :meth:`GraphStore.counting_reads`)."""

    host_edges: int = 0
    host_bytes: int = 0
    cache_edges: int = 0
    cache_saved_bytes: int = 0


@dataclass
class StoreDelta:
    """Arc-level changes of one batch (internal ids; undirected edges give both arcs)."""

    inserted_u: object
    inserted_v: object
    inserted_w: object
    deleted_u: object
    deleted_v: object
    deleted_w: object
    updated_u: object
    updated_v: object
    updated_old: object
    updated_new: object
    new_vertices: object
    removed_vertices: object
    #: parent arrays (by identity) of which no deleted arc holds a tree edge
    #: (either way), where that is known: a query keeping one of them needs
    #: no invalidation for the deletions (see engine/single_row.py)
    spared_parents: tuple = ()
    #: a one-row insert's arc with the values its ends held, where known
    #: (:class:`~cugraph_stream.engine.single_row.InsertedRow`): a query whose
    #: values it improves nowhere needs no correction
    inserted_row: object = None

    @property
    def changed_arcs(self):
        return int(self.inserted_u.size + self.deleted_u.size + self.updated_u.size)

    def spares(self, parent):
        """Whether no deleted arc holds an edge of the tree of ``parent`` (known only
        where :attr:`spared_parents` holds that very array)."""
        return any(spared is parent for spared in self.spared_parents)


class _Removal(NamedTuple):
    """A removal :meth:`GraphStore._begin_delete` started: the deleted arcs' ``weights``
    and a ``RemovedEntries`` per adjacency (none without arcs)."""

    weights: Any
    removed: Any


class GraphStore:
    """A simple graph (no multi-edges) under batched updates.

    ``placement`` (a :class:`~cugraph_stream.engine.placement.Placement`, or
    its kind with the options of :meth:`Placement.resolve`) says where the
    adjacency slot arrays and the arc index live; per-vertex arrays stay on
    the device.  ``"cached"`` is ``"host"`` plus a :class:`HotCache` per
    adjacency (:attr:`cached`, a :class:`CachedSide` each), sharing one
    budget of ``cache_budget`` bytes (chunks of ``chunk_bytes`` from one
    allocator), filled with the lists whose cached
    copies save the most host memory traffic per byte, judged by the reads
    of the last ``tau`` batches (:class:`Hotness`), and refreshed by
    :meth:`refresh_cache` after every change: in full only when that pays
    (:attr:`refresh_policy`, a
    :class:`~cugraph_stream.engine.cache_policy.RefreshPolicy` fed by
    :meth:`observe_refresh`), otherwise only the lists the change touched.  A directed store's
    in-adjacency cache holds neighbour ids only: its main readers (PageRank,
    BFS and WCC re-seeding) take no weights, so weights would halve what it
    holds; SSSP and widest paths read the few weights they need there from
    host memory.  The caches store neighbour ids in 3 bytes while the
    vertex ids stay below 2**24, in 4 beyond.

    Examples
    --------
    >>> import numpy as np
    >>> from cugraph_stream.backends import get_backend
    >>> from cugraph_stream.engine.reduce import reduce_batch
    >>> store = GraphStore(get_backend("cpu"), directed=True, weight_dtype=np.float32)
    >>> ids = store.add_vertices(np.array([10, 20, 30]))
    >>> batch = reduce_batch(store, ids[[0, 0]], ids[[1, 2]], np.ones(2, np.float32), np.ones(2, np.int8))
    >>> delta = store.apply(batch)
    >>> store.num_edges, sorted(store.inn.neighbors(int(ids[2])).tolist())
    (2, [0])
    """

    def __init__(self, ops, directed, weight_dtype, placement="device", cache_budget=0, tau=DEFAULT_TAU,
                 chunk_bytes=DEFAULT_CHUNK_BYTES):
        self.ops = ops
        self.directed = bool(directed)
        self.weight_dtype = np.dtype(weight_dtype)
        if not isinstance(placement, Placement):        # the options of Placement.resolve
            placement = Placement.resolve(placement, cache_budget, tau, chunk_bytes)
        self.placement = placement
        self.journal = Journal(ops)
        self.vertices = VertexTable(ops, self.journal)
        self.out = Adjacency(ops, self.weight_dtype, with_twin=self.directed, memory=placement.memory,
                             journal=self.journal)
        # the in-adjacency keeps no twin pointers: an in-entry that moves finds its
        # out-entry through the arc index (_follow_in)
        self.inn = (Adjacency(ops, self.weight_dtype, with_twin=False, memory=placement.memory, journal=self.journal)
                    if self.directed else self.out)
        self.index = ArcIndex(ops, self.out, memory=placement.memory, journal=self.journal)
        self.num_edges = 0
        # an upper bound on every weight's magnitude (never lowered): whether a path sum can overflow
        self.largest_weight = 0.0
        # whether some weight was ever not a whole number (never lowered): ties are rarer then
        self.fractional_weights = False
        # what the queries read from host memory, counted where the adjacency lives there
        self.reads = ReadCounters(ops) if placement.counts_reads else None
        self.cached = []                    # a CachedSide per cached adjacency
        self.refresh_policy = None          # whether each refresh pays (placement "cached")
        self.last_refresh = None            # what the last refresh_cache did
        if placement.cached:
            budget = placement.cache_budget
            allocator = ops.chunk_allocator(budget or None)     # one capacity for every cache
            sides = (("out", self.out, True), ("in", self.inn, False)) if self.directed else (("out", self.out, True),)
            for side, adj, weights in sides:
                adj.cache = HotCache(ops, self.weight_dtype, budget, placement.chunk_bytes, allocator,
                                     weights=weights, id_bytes=3)
                self.cached.append(CachedSide(side, adj, Hotness(ops, placement.tau, self.journal)))
            self.refresh_policy = RefreshPolicy(ops.host_read_bandwidth())
            self._no_vertices = ops.xp.empty(0, dtype=ops.xp.int64)     # an empty cache's changed lists
        self._cache_snapshots = None      # what the caches held when this transaction first refreshed them
        self._cache_undo = None           # or, until they are taken, the evictions since (see _snapshot_caches)

    # ---------------------------------------------------------- transactions
    @contextlib.contextmanager
    def transaction(self, interrupts=None):
        """Run a change of the store (and of the engines reading it) all or nothing.

        Opens the journal; on an exception, undoes every journaled change and
        rolls back the participants (the queries' engines, the caches), then
        re-raises (:class:`~cugraph_stream.engine.journal.RollbackError`, from
        the original error, if the rollback fails too); otherwise waits for the
        device (so that a failed kernel fails the transaction, not the next
        one) and commits, unless a deferred Ctrl-C is pending: then it rolls
        back too.
        ``interrupts`` (:class:`~cugraph_stream.interrupts.DeferredInterrupts`)
        is polled at every journal entry.

        Examples
        --------
        >>> import numpy as np
        >>> from cugraph_stream.backends import get_backend
        >>> store = GraphStore(get_backend("cpu"), directed=True, weight_dtype=np.float32)
        >>> try:
        ...     with store.transaction():
        ...         _ = store.add_vertices(np.array([7, 8]))
        ...         raise MemoryError("out of memory halfway")
        ... except MemoryError:
        ...     pass
        >>> store.num_vertices
        0
        """
        self.journal.begin(interrupts)
        self.journal.enlist(self)
        self._cache_snapshots = self._cache_undo = None
        try:
            yield self
            self.ops.synchronize()
            self.journal.checkpoint()        # a Ctrl-C that came during the work undoes it
        except BaseException as error:
            try:
                self.journal.rollback()
            except RollbackError as failure:
                raise RollbackError(f"{failure}, while undoing {type(error).__name__}: {error}") from error
            raise
        self.journal.commit()

    def rollback(self):
        """Participant's part of a rollback (the journal restored the arrays): addresses
        derived from the lists are stale, operator scratch may be half written, and
        the caches reload what they held before.  A broken invariant that the
        failed work's kernels reported on the device is raised by no later
        wait: it is warned of here (``RuntimeWarning``), beside the error
        that failed the transaction."""
        for adj in (self.out, self.inn):
            adj.version += 1
        self.ops.discard_scratch()
        for message in self.ops.discard_faults():
            warnings.warn(f"the device reported a broken invariant in a transaction that failed and was rolled "
                          f"back: {message} (a defect in cugraph_stream)", RuntimeWarning, stacklevel=2)
        snapshots = self._cache_snapshots
        if snapshots is None and self._cache_undo is not None:
            snapshots = self._caches_before()       # from the evictions' undo
        self._cache_snapshots = self._cache_undo = None
        if snapshots is not None:
            for (_, adj, _), snapshot in zip(self.cached, snapshots):
                adj.cache.reload(snapshot, adj, bound=self.vertex_bound)
                adj.version += 1

    @contextlib.contextmanager
    def counting_reads(self):
        """Count what the block reads from host memory: yields a :class:`HostReads`,
        filled in when the block ends (zeros with placement ``"device"``)."""
        reads = HostReads()
        if self.reads is None:
            yield reads
            return
        self.reads.reset()
        yield reads
        totals = self.reads.totals()
        reads.host_edges, reads.host_bytes, reads.cache_edges, reads.cache_saved_bytes = (
            totals["host_edges"], totals["host_bytes"], totals["cache_edges"], totals["cache_saved_bytes"])

    @property
    def num_vertices(self):
        return self.vertices.count

    @property
    def vertex_bound(self):
        """Internal ids are below this bound."""
        return self.vertices.size

    def note_weights(self, largest, fractional=False):
        """Raise :attr:`largest_weight` to ``largest`` (a batch's largest weight magnitude),
        and set :attr:`fractional_weights` when the batch has a weight that is not a
        whole number."""
        if largest > self.largest_weight:
            self.journal.assign(self, "largest_weight", float(largest))
        if fractional and not self.fractional_weights:
            self.journal.assign(self, "fractional_weights", True)

    # -------------------------------------------------------------- vertices
    def add_vertices(self, external, lowest=None, highest=None):
        """Create vertices for absent external ids (ascending, distinct; the first and
        the last ``lowest`` and ``highest``, where known: see ``VertexTable.add``);
        return internal ids."""
        internal = self.vertices.add(external, lowest, highest)
        self.out.ensure_vertices(self.vertices.size)
        self.inn.ensure_vertices(self.vertices.size)
        for _, adj, hotness in self.cached:
            adj.cache.ensure_vertices(int(adj.start.size))
            hotness.ensure_vertices(int(adj.start.size))
            hotness.forget(internal)          # a reused id starts cold
        return internal

    def empty_delta(self):
        """A :class:`StoreDelta` with no changes (vertex-only operations fill it in)."""
        xp = self.ops.xp
        empty = xp.empty(0, dtype=xp.int64)
        empty_w = xp.empty(0, dtype=self.weight_dtype)
        return StoreDelta(empty, empty, empty_w, empty, empty, empty_w, empty, empty, empty_w, empty_w,
                          empty, empty)

    def remove_vertices(self, internal):
        """Remove live vertices with all their edges; return the :class:`StoreDelta`.

        The per-vertex arrays keep their size until :meth:`fit_memory` (the
        queries first read the removed vertices' entries)."""
        xp = self.ops.xp
        slots, owner = self.out.slots_of(internal)
        u, v = internal[owner], self.out.nbr[slots].astype(xp.int64)
        if self.directed:
            slots, owner = self.inn.slots_of(internal)
            u = xp.concatenate((u, self.inn.nbr[slots].astype(xp.int64)))
            v = xp.concatenate((v, internal[owner]))
        else:
            u, v = xp.minimum(u, v), xp.maximum(u, v)
        key = self.ops.sorted_distinct(arc_key(xp, u, v))
        empty = xp.empty(0, dtype=xp.int64)
        empty_w = xp.empty(0, dtype=self.weight_dtype)
        delta = self.apply(NetChanges(empty, empty, empty_w, None, key >> 32, key & 0xFFFFFFFF, None,
                                      empty, empty, empty_w, None, {}))
        self.out.release(internal)
        if self.directed:
            self.inn.release(internal)
        self.vertices.remove(internal)
        self._compact_if_needed()           # the released lists are garbage now
        delta.removed_vertices = internal
        return delta

    # ---------------------------------------------------------------- memory
    def compact(self):
        """Rewrite every list contiguously (whatever the garbage) and :meth:`fit_memory`."""
        self._follow_out(self.out.compact())
        if self.directed:
            self._follow_in(self.inn.compact())
        self.fit_memory()

    def fit_memory(self):
        """Give back what a shrunk graph no longer needs: per-vertex capacity far above
        the vertex bound (vertex table, adjacencies, hotness; a cache whose arrays
        shrink is emptied, to reload at the next refresh) and edge-index slots far
        above the edges.  Returns whether anything shrank."""
        self._snapshot_caches()
        bound = self.vertex_bound
        shrunk = self.vertices.fit()
        for adj in ((self.out, self.inn) if self.directed else (self.out,)):
            shrunk |= adj.fit_vertices(bound)
        for _, adj, hotness in self.cached:
            shrunk |= hotness.fit_vertices(bound)
            if adj.cache.fit_vertices(bound):
                adj.version += 1
                shrunk = True
        shrunk |= self.index.fit()
        if shrunk:
            self.ops.discard_scratch()        # sized for the old bound
        return shrunk

    # ----------------------------------------------------------------- edges
    def _arcs(self, u, v, w=None):
        """Arcs of edges ``(u, v)`` (with weights ``w``): the edges themselves,
        plus the mirror arcs of an undirected graph's non-loop edges."""
        xp = self.ops.xp
        if self.directed:
            return u, v, w
        mirror = u != v
        return (xp.concatenate((u, v[mirror])), xp.concatenate((v, u[mirror])),
                None if w is None else xp.concatenate((w, w[mirror])))

    def find(self, u, v):
        """Out-adjacency slots of arcs ``u -> v``; -1 where absent."""
        return self.index.get(arc_key(self.ops.xp, u, v))

    def locate(self, u, v):
        """Arc-index positions of arcs ``u -> v``; -1 where absent: whether each
        is present, without reading its slot (two launches, no wait)."""
        return self.index.locate(self.ops.arc_keys(u, v))

    def apply(self, changes):
        """Apply a batch's net changes (:class:`~cugraph_stream.backends.base.NetChanges`,
        as :func:`~cugraph_stream.engine.reduce.reduce_batch` gives them: internal
        ids, ``u <= v`` on an undirected graph); return the arc-level :class:`StoreDelta`.

        The table positions (``deleted_at``, ``updated_at``: valid until the
        store changes) and ``inserted_keys`` spare probing and computing them
        again; None where not known."""
        # (an undirected graph's mirror arcs were not looked up by the reduction)
        delete_at, update_at = (changes.deleted_at, changes.updated_at) if self.directed else (None, None)
        du, dv, _ = self._arcs(changes.deleted_u, changes.deleted_v)
        uu, uv, uw = self._arcs(changes.updated_u, changes.updated_v, changes.updated_weights)
        iu, iv, iw = self._arcs(changes.inserted_u, changes.inserted_v, changes.inserted_weights)
        # the removals and then the placements are launched before one read of what
        # they left to do (the entries that moved into holes, the lists that outgrew
        # their room): a batch that deletes and inserts waits once for both
        removal = self._begin_delete(du, dv, delete_at)
        pending = self._begin_insert(iu, iv, iw)
        # (many inserts: the relocation of the lists that outgrew their room is planned
        # before that read too, and its totals come with it)
        ahead = [adj.plan_ahead(p) for adj, p in zip(self._adjacencies(), pending)] \
            if iu.size >= PLAN_AHEAD_ARCS else None
        counts = [r.count for r in removal.removed] + [p.placement.count for p in pending]
        totals = [t for r in ahead or () if r is not None for t in r.plan.counts]
        counts = self.ops.read_counts(*counts, *totals) if counts else []
        removals, placements = len(removal.removed), len(removal.removed) + len(pending)
        moved, outgrown = counts[:removals], counts[removals:placements]
        if ahead is not None:
            totals = iter(counts[placements:])
            ahead = [None if r is None else r.read(k, next(totals), next(totals), next(totals))
                     for r, k in zip(ahead, outgrown)]
        dw = self._finish_delete(removal, moved)
        old = self._reweight(uu, uv, uw, update_at)       # (after the index follows the moved entries)
        self._finish_insert(iu, iv, pending, outgrown,
                            changes.inserted_keys if self.directed else None, ahead)  # (undirected: two arcs an edge)
        self.journal.assign(self, "num_edges",
                            self.num_edges + int(changes.inserted_u.size) - int(changes.deleted_u.size))
        self._compact_if_needed()
        self.index.fit()
        empty = self.ops.no_items()
        return StoreDelta(iu, iv, iw, du, dv, dw, uu, uv, old, uw, empty, empty)

    def load(self, u, v, w):
        """Bulk-insert edges ``(u, v, w)`` (device arrays) into a store without edges.

        Rows are inserts in order (a repeated edge keeps its last weight).
        The CSR, the arc index and the twins are written in one pass each
        instead of batch by batch.  Returns the :class:`StoreDelta`.
        """
        delta = self.empty_delta()
        if u.size:
            delta.inserted_u, delta.inserted_v, delta.inserted_w = self.load_rows(EdgeRows(self.ops, u, v, w))
        return delta

    def load_rows(self, rows, range_arcs=None):
        """Bulk-insert :class:`~cugraph_stream.engine.bulk_load.EdgeRows` into a store
        without edges, in ranges of vertices of at most ``range_arcs`` rows'
        arcs each (None: at once).

        Rows are inserts in order (a repeated edge keeps its last weight).
        Returns the arcs ``(u, v, w)`` loaded, when they were loaded at once,
        else None (their arrays would be as large as the store).
        """
        xp = self.ops.xp
        if self.num_edges or self.out.end:
            raise ValueError("GraphStore.load needs a store without edges")
        if rows.size == 0:
            empty = xp.empty(0, dtype=xp.int64)
            return empty, empty, xp.empty(0, dtype=self.weight_dtype)
        n = int(self.out.start.size)
        whole = range_arcs is None or rows.size <= range_arcs
        if whole:
            ranges, builder = [(0, n)], None        # the index is sized once the arcs are known
        else:
            bound = rows.count_ends(n, self.directed)
            ranges = vertex_ranges(xp, bound, range_arcs)
            self.out.reserve_load(self.out.load_bound(bound), len(ranges))
            builder = self.index.begin_build(int(bound.sum()))
            del bound
        in_degree = owner = None
        if self.directed and not whole:     # the in-lists are built from the out-lists and their owners
            in_degree = xp.zeros(n, dtype=xp.int64)
            owner = self.ops.aligned_empty(self.out.slot_capacity, xp.int32 if n < 2**31 else xp.int64,
                                           memory=self.out.memory)
            owner.fill(-1)
        edges = arcs = 0
        for number, (lo, hi) in enumerate(ranges, 1):
            eu, ev, ew = rows.reduced(lo, hi, self.directed, whole=whole)
            au, av, aw = self._arcs(eu, ev, ew)
            if not self.directed and not whole:
                au, av, aw = self.ops.compress((au >= lo) & (au < hi), au, av, aw)
            # (an undirected edge is counted in the range of its smaller end)
            edges += int(eu.size) if self.directed or whole else int(((eu >= lo) & (eu < hi)).sum())
            if builder is None:
                builder = self.index.begin_build(int(au.size))
            # (directed: the arcs come sorted by source, from rows.reduced; undirected:
            # each edge's mirror arc follows the edges, so the sources are not)
            slots = self.out.build_range(au, av, aw, lo, hi, src_sorted=self.directed)
            builder.enter(arc_key(xp, au, av), slots)
            arcs += int(au.size)
            logger.debug("bulk load: out-lists of vertices [%d, %d), range %d of %d: %d arcs",
                         lo, hi, number, len(ranges), int(au.size))
            if self.directed and whole:
                # each in-list holds its sources in the arcs' order (ascending)
                self.out.twin[slots] = self.inn.build(av, au, aw, src_sorted=False)    # (fresh slots)
            elif self.directed:
                in_degree += xp.bincount(av, minlength=n)
                owner[slots] = au
        if in_degree is not None:
            rows.release()                  # the in-lists are read from the out-lists
            self._load_in_lists(in_degree, owner, range_arcs)
        self.index.finish_build(builder, arcs)
        self.journal.assign(self, "num_edges", edges)
        return (au, av, aw) if whole else None

    def _load_in_lists(self, in_degree, owner, range_arcs):
        """The in-lists of a directed load in ranges, from the out-lists (their arcs
        are distinct, and each knows its out-slot: its twin): ranges of targets
        of at most ``range_arcs`` arcs, each gathered by one sequential pass over
        the out-slots and their ``owner`` (the source; -1 for a free slot).

        The twins are written into a device copy where the slot arrays are host
        memory and the device has room (scattered writes across the bus cost
        about 10 s per 286M arcs on an H100), then copied once.
        """
        xp = self.ops.xp
        ranges = vertex_ranges(xp, in_degree, range_arcs)
        self.inn.reserve_load(self.inn.load_bound(in_degree), len(ranges))
        end = self.out.end
        twin = self.out.twin
        if self.out.across_the_bus:
            try:
                twin = xp.zeros(end, dtype=twin.dtype)
            except MemoryError:
                twin = self.out.twin
        for number, (lo, hi) in enumerate(ranges, 1):
            parts = []
            for at in range(0, end, range_arcs):
                stop = min(at + range_arcs, end)
                u, v = owner[at:stop].astype(xp.int64), self.out.nbr[at:stop].astype(xp.int64)
                inside = (u >= 0) & (v >= lo) & (v < hi)
                parts.append(self.ops.compress(inside, u, v, self.out.wgt[at:stop],
                                               xp.arange(at, stop, dtype=xp.int64)))
            u, v, w, out_slots = (xp.concatenate([part[i] for part in parts]) for i in range(4))
            twin[out_slots] = self.inn.build_range(v, u, w, lo, hi, src_sorted=False)
            logger.debug("bulk load: in-lists of vertices [%d, %d), range %d of %d: %d arcs", lo, hi, number,
                         len(ranges), int(v.size))
        if twin is not self.out.twin:
            self.out.twin[:end] = twin

    def _begin_delete(self, u, v, at=None):
        """Start removing arcs ``u -> v`` (present; at table positions ``at`` of the edge
        index, when known): the arc index forgets them and gives their slots,
        weights and twins (one operator call), and both adjacencies remove
        their entries (one more), without waiting for the device.
        Returns the :class:`_Removal` for :meth:`_finish_delete`."""
        if u.size == 0:
            return _Removal(self.ops.no_items(self.weight_dtype), ())
        if at is None:
            at = self.locate(u, v)               # deleted arcs are present (see reduce_batch)
        # (the positions become tombstones now: the moved entries followed below are
        # found by their own slots or keys, never at a deleted arc's position)
        slots, weights, in_slots = self.index.erase_entries(at)
        if self.directed:
            removed = Adjacency.begin_remove_arcs((self.out, self.inn), (u, v), (slots, in_slots))
        else:
            removed = [self.out.begin_remove(u, slots)]
        return _Removal(weights, removed)

    def _finish_delete(self, removal, moved):
        """Finish :meth:`_begin_delete`'s removal, given how many entries ``moved`` in
        each adjacency (read on the host): the arc index follows the moved
        out-entries, the moved in-entries' twins are rewritten.  Returns the
        deleted arcs' weights."""
        if removal.removed:
            self._follow_out(self.out.finish_remove(removal.removed[0], moved[0]))
            if self.directed:
                self._follow_in(self.inn.finish_remove(removal.removed[1], moved[1]))
        return removal.weights

    def _reweight(self, u, v, w, at=None):
        """Give present arcs ``u -> v`` (at table positions ``at``, when known) weights
        ``w``; return their old weights."""
        if u.size == 0:
            return w
        if at is None:
            at = self.locate(u, v)
        slots = self.index.slots_at(at)
        old = self.ops.take(self.out.wgt, slots)
        self.journal.write(self.out.wgt, slots, w)
        if self.directed:
            self.journal.write(self.inn.wgt, self.ops.take(self.out.twin, slots, self.ops.xp.int64), w)
        return old

    def _adjacencies(self):
        """The adjacencies an arc is entered in: the out- and the in-adjacency, or
        (undirected) the one holding both arcs of an edge."""
        return (self.out, self.inn) if self.directed else (self.out,)

    def _begin_insert(self, u, v, w):
        """Start inserting arcs ``u -> v`` (absent) of weights ``w``: each adjacency
        places the entries its lists have room for (one operator call), without
        waiting for the device.  Returns a ``PendingAppend`` per adjacency
        (none without arcs) for :meth:`_finish_insert`."""
        if u.size == 0:
            return []
        return Adjacency.begin_append_arcs(self._adjacencies(), u, v, w)

    def _finish_insert(self, u, v, pending, outgrown, keys=None, plans=None):
        """Finish :meth:`_begin_insert`, given how many lists ``outgrown`` their room in
        each adjacency (read on the host): both plan the moves of those (unless
        ``plans``, read with those counts, planned them ahead), one read tells
        how much room they take, the lists move and take the rest of their
        entries; the arc index takes the new arcs (``keys``: their arc keys, if
        known) and the twins are written."""
        if not pending:
            return
        adjacencies = self._adjacencies()
        if plans is None:
            plans = read_plans(self.ops, [adj.plan_append(p, k) for adj, p, k in zip(adjacencies, pending, outgrown)])
        slots, moves = self.out.finish_append(pending[0], plans[0])
        self._follow_out(moves)
        self.index.insert(self.ops.arc_keys(u, v) if keys is None else keys, slots)
        if self.directed:
            # (an outgrown list got none of its rows before its move: the moved
            # in-entries are arcs the index holds already)
            in_slots, moves = self.inn.finish_append(pending[1], plans[1])
            self._follow_in(moves)
            self.ops.put(self.out.twin, slots, in_slots)      # new entries' slots: nothing to keep

    def _follow_out(self, moves):
        """Point the arc index at moved out-entries (their twins move with them)."""
        if moves is None or moves.size == 0:
            return
        self.index.repoint(moves.owner, moves.source, moves.target)

    def _follow_in(self, moves):
        """Point the out-adjacency twins at moved in-entries: the in-entry of
        ``u -> v`` in ``v``'s list finds its out-entry through the arc index
        (every moved entry's arc is in it: deleted arcs leave the index first,
        inserted ones enter it before any in-entry is followed); one operator
        call, ``follow_twins``."""
        if moves is None or moves.size == 0:
            return
        out_slots, previous = self.ops.follow_twins(self.index.table, self.out, self.inn, moves.owner, moves.target)
        self.journal.exchanged((self.out.twin, out_slots, previous))      # (distinct arcs' slots)

    def _compact_if_needed(self):
        if self.out.needs_compaction():
            self._follow_out(self.out.compact())
        if self.directed and self.inn.needs_compaction():
            self._follow_in(self.inn.compact())

    # --------------------------------------------------------------- reading
    def edge_arrays(self):
        """``(u, v, w)``: every edge once (undirected: the arc with ``u <= v``)."""
        return next(self.edge_chunks())

    def edge_chunks(self, most=None):
        """:meth:`edge_arrays` in chunks of the edges of ranges of sources, each of at
        most ``most`` arcs (or one source's; None: one chunk)."""
        xp = self.ops.xp
        degree = self.out.degree[: self.vertex_bound]
        ranges = [(0, int(degree.size))] if most is None else vertex_ranges(xp, degree, most)
        for lo, hi in ranges:
            yield self._edges_from(lo + xp.flatnonzero(degree[lo:hi] > 0))

    def _edges_from(self, vertices):
        """``(u, v, w)`` of the out-lists of ``vertices`` (as :meth:`edge_arrays`)."""
        xp = self.ops.xp
        slots, owner = self.out.slots_of(vertices)
        u, v, w = vertices[owner], self.out.nbr[slots].astype(xp.int64), self.out.wgt[slots]
        if not self.directed:
            keep = u <= v
            u, v, w = u[keep], v[keep], w[keep]
        return u, v, w

    def record_reads(self, adj, vertices, reads_weights, distinct=False, times=1):
        """Count ``times`` reads of the whole lists of ``vertices`` in ``adj``
        (see ``ReadCounters``), and their accesses for the cache's hotness
        (``distinct``: ``vertices`` holds no repeats, which saves a sort).
        Rounds that read the same lists over and over (PageRank's dense
        rounds) record them once with ``times`` set to the number of rounds."""
        if self.reads is None or times == 0 or vertices.size == 0:
            return
        cache = adj.cache
        hotness = next((hotness for _, cached, hotness in self.cached if cached is adj), None)
        accesses = None if hotness is None else hotness.accesses(self.vertex_bound, distinct, times)
        self.reads.add(vertices, adj, in_cache=None if cache is None else cache.in_cache,
                       reads_weights=reads_weights, cached_weights=cache is None or cache.weights, times=times,
                       accesses=accesses)      # (one pass: the reads' costs and the hotness)

    def refresh_cache(self, delta, kind=None):
        """Bring every cache up to date with a change (after :meth:`apply`,
        :meth:`remove_vertices` or :meth:`load`, before any query reads lists),
        in full, in part or not at all: ``kind`` (one of
        :data:`~cugraph_stream.engine.cache_policy.REFRESH_KINDS`), or by
        default what :attr:`refresh_policy` decides.

        ``"full"``: the lists of all caches are ranked together by host bytes
        saved per cached byte, and the budget's chunks shared out accordingly
        (:func:`~cugraph_stream.engine.cache_selection.select_in_chunks`); every cache
        evicts the lists that left the candidates or changed, then every
        cache loads (so that chunks one cache gives up serve the others).
        ``"partial"``: every cache evicts the lists that changed, then loads
        again in place those that still fit their slots.  ``"skipped"``: every
        cache evicts the lists that changed.
        ``"cleared"``: every cache is emptied (its upkeep costs more than it
        saves).  Either way no cache serves a stale list, and the hotness
        window moves on by one batch.  Returns the :class:`RefreshReport` of
        each cache; :attr:`last_refresh` tells what was done and why
        (:class:`~cugraph_stream.engine.cache_policy.RefreshOutcome`).
        """
        caches = [adj.cache for _, adj, _ in self.cached]
        bound = self.vertex_bound           # per-vertex scans stop there, not at the arrays' capacity
        decision = self.refresh_policy.decide_full() if kind is None else RefreshDecision(kind, "asked for")
        if decision is None and any(cache.chunks_held for cache in caches):
            decision = self.refresh_policy.decide_clear()           # None: keep the cache
        full = decision is not None and decision.kind == "full"
        if full or any(cache.changes_id_format(bound) for cache in caches):
            self._snapshot_caches()         # else only once a cache changes (most skipped refreshes: never)
        # packed ids while they fit 3 bytes (a cache that changes format empties itself)
        emptied = [cache.ensure_id_bound(bound) for cache in caches]
        reports = [RefreshReport() for _ in self.cached]
        if full:
            parts = [cache.list_values(hotness.score(upto=bound), adj)
                     for (_, adj, hotness), cache in zip(self.cached, caches)]
            candidates = select_in_chunks(self.ops, parts, [cache.chunk_bytes for cache in caches],
                                          min(cache.max_chunks for cache in caches))
            for (side, adj, _), chosen, report in zip(self.cached, candidates, reports):
                adj.cache.evict(chosen, changed_lists(self.ops, delta, side), adj, report, bound)
        elif decision is not None and decision.kind == "cleared":
            self._snapshot_caches()
            for cache, report in zip(caches, reports):
                cache.report_state(report, bound, counted=True)
                report.evicted, report.released_chunks = report.cached_lists, report.chunks
                cache.clear()
            candidates = [None] * len(caches)
        else:
            # (an empty cache has nothing to evict: no need to gather the changed lists)
            evictions = evict_changed(
                self.ops, [(adj.cache, changed_lists(self.ops, delta, side) if adj.cache.chunks_held
                            else self._no_vertices, adj, report, hotness)
                           for (side, adj, hotness), report in zip(self.cached, reports)], bound,
                noted=self._note_eviction)
            candidates = evictions
            if decision is None:
                # the reads of the changed lists that fit their slots again, over the hotness window:
                # what reloading them in place would save over the next one
                value_bytes = READ_UNIT_BYTES * sum(eviction.value for eviction in evictions)
                decision = self.refresh_policy.decide_partial(value_bytes)
        for (_, adj, hotness), chosen, report, changed_format in zip(self.cached, candidates, reports, emptied):
            if decision.kind in ("skipped", "cleared"):
                adj.cache.report_state(report, bound, counted=True)
            elif decision.kind == "partial":
                adj.cache.reload_in_place(chosen, adj, report)
            else:
                adj.cache.load(chosen, adj, report, bound)
            hotness.advance()
            if decision.kind != "skipped" or report.evicted or changed_format:
                adj.version += 1       # cached copies may have moved (else every list is where it was)
        self.last_refresh = RefreshOutcome(decision.kind, decision.reason,
                                           sum(report.load_bytes for report in reports),
                                           sum(report.cached_lists for report in reports))
        return reports

    def observe_refresh(self, refresh_s, saved_bytes, missed_bytes):
        """Tell :attr:`refresh_policy` what the last refresh (:attr:`last_refresh`) cost and
        what the queries then read from the lists in host memory (after the batch committed)."""
        if self.last_refresh is not None:
            self.refresh_policy.observe(self.last_refresh.kind, refresh_s, saved_bytes, missed_bytes,
                                        self.last_refresh.cached_lists)

    def _snapshot_caches(self):
        """What the caches held before anything changed them, once per transaction (for a
        rollback), taken before the first change that the evictions' undo does not cover.

        A refresh without a selection only evicts lists and loads some of them
        again where they were: it notes its evictions (:meth:`_note_eviction`)
        instead, and the snapshot is taken from the caches as they are, with
        the evicted lists put back where they were, only when something else
        would change them (a full refresh, a clearing) or at a rollback.  So a
        skipped or partial refresh costs no pass over the vertices."""
        if self.journal.recording and self._cache_snapshots is None and self.cached:
            self._cache_snapshots = self._caches_before()
        self._cache_undo = None

    def _caches_before(self):
        """Every cache's :meth:`~cugraph_stream.engine.cache.HotCache.snapshot`, with the evictions noted."""
        # every vertex, not only those below the bound: a removal may have lowered it already
        undo = self._cache_undo or [[] for _ in self.cached]
        return [adj.cache.snapshot(u) for (_, adj, _), u in zip(self.cached, undo)]

    def _note_eviction(self, k, eviction):
        """Keep what cache ``k`` evicted (an :class:`~cugraph_stream.engine.cache.Eviction`)
        for :meth:`_snapshot_caches`, until a snapshot is taken."""
        if not self.journal.recording or self._cache_snapshots is not None or eviction.undo[0].size == 0:
            return
        if self._cache_undo is None:
            self._cache_undo = [[] for _ in self.cached]
        self._cache_undo[k].append(eviction.undo)

    def check_cache(self):
        """Raise ``RuntimeError`` unless every cached list equals the store's (a debugging aid)."""
        for _, adj, _ in self.cached:
            adj.cache.check(adj)

    def memory_bytes(self):
        held = self.out.memory_bytes() + self.index.memory_bytes() + self.vertices.memory_bytes()
        held += sum(adj.cache.memory_bytes() + hotness.memory_bytes() for _, adj, hotness in self.cached)
        return held + (self.inn.memory_bytes() if self.directed else 0)

    def device_memory_bytes(self):
        """Bytes held in device memory: everything with placement ``"device"``;
        the per-vertex arrays (and the caches with ``"cached"``) otherwise."""
        if self.placement.kind == "device":
            return self.memory_bytes()
        adjacencies = (self.out, self.inn) if self.directed else (self.out,)
        per_vertex = sum(self.ops.memory_bytes(a.start, a.degree, a.capacity) for a in adjacencies)
        caches = sum(adj.cache.memory_bytes() + hotness.memory_bytes() for _, adj, hotness in self.cached)
        return per_vertex + self.vertices.memory_bytes() + caches

    def check_consistency(self):
        """Raise ``RuntimeError`` if an internal invariant is broken (a debugging aid)."""
        xp = self.ops.xp
        problems = []
        bound = self.vertex_bound
        alive = self.vertices.alive[:bound]
        for name, adj in (("out", self.out), ("in", self.inn)):
            degree, capacity, start = adj.degree[:bound], adj.capacity[:bound], adj.start[:bound]
            if bool((degree > capacity).any()):
                problems.append(f"{name}: a degree exceeds its capacity")
            if bool((degree[~alive] != 0).any()):
                problems.append(f"{name}: a removed vertex keeps edges")
            owned = xp.flatnonzero(capacity > 0)
            owned_capacity = capacity[owned]
            if bool((list_room(xp, owned_capacity, adj.align) != owned_capacity).any()):
                problems.append(f"{name}: a capacity is not a size class")
            if bool((start[owned] % xp.minimum(owned_capacity, adj.align) != 0).any()):
                problems.append(f"{name}: a list does not start at a multiple of its size class")
            if adj.end % adj.align:
                problems.append(f"{name}: the end of the lists is not aligned to {adj.align} slots")
            order = owned[xp.argsort(start[owned])]
            if order.size > 1 and bool((start[order][1:] < (start[order] + capacity[order])[:-1]).any()):
                problems.append(f"{name}: two lists overlap")
            if order.size and int((start[order] + capacity[order]).max()) > adj.end:
                problems.append(f"{name}: a list lies beyond the end")
            if adj.garbage + int(adj.capacity.sum()) != adj.end:
                problems.append(f"{name}: owned and garbage slots do not add up to the slots handed out")
        edges = arcs = 0
        for u, v, _ in self.edge_chunks(self.ops.bulk_load_rows()):    # (the edges may be more than the device)
            au, av, _ = self._arcs(u, v)
            edges += int(u.size)
            arcs += self._check_arcs(au, av, problems)
        if edges != self.num_edges:
            problems.append(f"edge count {self.num_edges} != stored edges {edges}")
        if self.index.live != arcs:
            problems.append(f"index holds {self.index.live} arcs, store {arcs}")
        if self.directed and int(self.inn.degree[:bound].sum()) != arcs:
            problems.append("in-adjacency holds a different number of arcs")
        if int(alive.sum()) != self.vertices.count:
            problems.append("vertex count disagrees with the alive mask")
        if problems:                        # (each chunk of edges may add the same problem)
            raise RuntimeError("graph store is inconsistent: " + "; ".join(dict.fromkeys(problems)))

    def _check_arcs(self, au, av, problems):
        """Append to ``problems`` what is wrong with arcs ``au -> av``: all the arcs
        of a range of sources (:meth:`edge_chunks`, then :meth:`_arcs`), so that a
        repeated arc repeats within them.  Returns how many arcs they are."""
        xp = self.ops.xp
        keys = arc_key(xp, au, av)
        if int(self.ops.sorted_distinct(keys).size) != int(keys.size):
            problems.append("a multi-edge is stored")
        slots = self.index.get(keys)
        if bool((slots < 0).any()):
            problems.append("an arc is missing from the index")
        else:
            if bool((self.out.nbr[slots].astype(xp.int64) != av).any()):
                problems.append("the index points at a wrong slot")
            if self.directed:
                twin = self.out.twin[slots].astype(xp.int64)
                mirrored = self.inn.nbr[twin].astype(xp.int64)
                inside = (twin >= self.inn.start[av]) & (twin < self.inn.start[av] + self.inn.degree[av])
                if bool((~inside).any()) or bool((mirrored != au).any()):
                    problems.append("out-adjacency twin pointers miss their in-entries")
                if bool((self.inn.wgt[twin] != self.out.wgt[slots]).any()):
                    problems.append("in- and out-adjacency weights disagree")
        return int(keys.size)

    # ------------------------------------------------------------ checkpoints
    def edge_positions(self):
        """:meth:`edge_arrays` in list order, with where each edge sits in its lists.

        Returns ``(u, v, w, u_position, v_position)``: the edges as
        :meth:`edge_arrays` gives them (undirected: ``u <= v``), ordered by
        ``u`` and then by their place in ``u``'s out-list; ``u_position`` is
        that place, ``v_position`` the place of the edge in ``v``'s in-list
        (undirected: of the arc ``v -> u`` in ``v``'s list).  With them,
        :meth:`restore_edges` rebuilds every list in the same order, which
        keeps the order the engines read neighbours in (ties between parents,
        float sums) as it was.
        """
        xp = self.ops.xp
        vertices = xp.flatnonzero(self.out.degree[: self.vertex_bound] > 0)
        slots, owner = self.out.slots_of(vertices)
        u, v, w = vertices[owner], self.out.nbr[slots].astype(xp.int64), self.out.wgt[slots]
        u_position = slots - self.out.start[u]
        if self.directed:
            return u, v, w, u_position, self.out.twin[slots] - self.inn.start[v]
        keep = u <= v
        u, v, w, u_position = u[keep], v[keep], w[keep], u_position[keep]
        return u, v, w, u_position, self.find(v, u) - self.out.start[v]     # a loop: its own slot

    def restore_vertices(self, internal, external, size, free):
        """Give an empty store a saved vertex table (see :meth:`VertexTable.restore`),
        sizing the per-vertex arrays of the adjacencies, caches and hotness for it."""
        if self.num_edges or self.out.end or self.vertices.size:
            raise ValueError("GraphStore.restore_vertices needs an empty store")
        self.vertices.restore(internal, external, size, free)
        self.out.ensure_vertices(self.vertex_bound)
        self.inn.ensure_vertices(self.vertex_bound)
        for _, adj, hotness in self.cached:
            adj.cache.ensure_vertices(int(adj.start.size))
            hotness.ensure_vertices(int(adj.start.size))

    def restore_edges(self, u, v, w, u_position, v_position):
        """Bulk-insert distinct edges ``(u, v, w)`` (undirected: ``u <= v``) into a
        store without edges, each list in the order of the positions
        :meth:`edge_positions` gives (only their order within a list counts).

        As :meth:`load` (one pass for the lists, the arc index and the twins),
        but keeping a saved list order instead of sorting by neighbour.
        """
        xp = self.ops.xp
        if self.num_edges or self.out.end:
            raise ValueError("GraphStore.restore_edges needs a store without edges")
        if u.size == 0:
            return
        if self.directed:
            by_u = xp.lexsort(xp.stack((u_position, u)))
            au, av, aw = u[by_u], v[by_u], w[by_u]
        else:
            mirror = u != v
            au, av, aw = self._arcs(u, v, w)
            position = xp.concatenate((u_position, v_position[mirror]))
            by_u = xp.lexsort(xp.stack((position, au)))
            au, av, aw = au[by_u], av[by_u], aw[by_u]
        slots = self.out.build(au, av, aw)
        self.index.build(arc_key(xp, au, av), slots)
        if self.directed:
            by_v = xp.lexsort(xp.stack((v_position[by_u], av)))
            in_slots = xp.empty_like(slots)
            in_slots[by_v] = self.inn.build(av[by_v], au[by_v], aw[by_v])
            self.out.twin[slots] = in_slots
        self.journal.assign(self, "num_edges", int(u.size))

