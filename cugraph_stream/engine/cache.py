"""The hot-subgraph cache: copies of the most valuable neighbour lists, in fast memory.

With the ``cached`` placement the adjacency stays in host memory, read in
place by the GPU, and the lists whose caching saves the most host memory
traffic (:mod:`cugraph_stream.engine.cache_selection`) are also kept in GPU
memory under a byte budget (Grapin, sections 5 and 6).  This module is the
cache itself, written once against ``ops.xp`` and the operators, so that
the NumPy backend runs (and tests) exactly what the GPU runs:
:class:`HotCache`, a CSR stored in fixed-size chunks, with the per-vertex
arrays backends read it through
(:class:`~cugraph_stream.backends.base.CachedLists`), and the steps that
bring it up to date: :meth:`HotCache.evict` and :meth:`HotCache.load`
(Grapin's Algorithm 3: evict, compact, consolidate, allocate, load) for a
full refresh, :func:`evict_changed` and
:meth:`HotCache.reload_in_place` for the cheaper ones
(:mod:`cugraph_stream.engine.cache_policy` decides), each counted in a
:class:`RefreshReport`.  (What the queries read, from the
cache and from host memory, is counted by :mod:`cugraph_stream.engine.reads`;
the host-side reference reader is :mod:`cugraph_stream.engine.cache_view`.)

One refresh protocol, once per batch, in
:meth:`~cugraph_stream.engine.store.GraphStore.refresh_cache` (after the
host store applied the batch, before any kernel reads lists): for a full
refresh, select the lists of every cache of the budget together
(:func:`~cugraph_stream.engine.cache_selection.select_in_chunks`), then
every cache evicts, then every cache loads (so that chunks one cache gives
up serve the others); otherwise every cache evicts its changed lists and,
for a partial refresh, reloads in place those that still fit; then the
hotness window moves on.

Where this departs from Grapin, and why:

* **Packed lists.**  Cached lists are packed one after the other in their
  chunk (CSR, no 128-byte alignment): alignment matters for host memory
  transactions, not for GPU memory, and would multiply the bytes of short
  lists.
* **Packed ids.**  While every vertex id is below 2**24 (16.7M vertices), a
  cache made with ``id_bytes=3`` stores each neighbour id in 3 bytes (the
  host store keeps 4): the same bytes hold a third more lists.  A cache
  told of a larger id (:meth:`HotCache.ensure_id_bound`) empties itself and
  goes on with 4-byte ids.
* **Neighbours only, when the readers take no weights.**  A cache made with
  ``weights=False`` holds neighbour ids only; weights are then read from the
  host store (PageRank, BFS and WCC read no weights of the in-adjacency).
* **Lazy compaction.**  Evicted lists leave garbage in their chunk; a chunk
  is compacted when it holds more garbage than lists, or when the lists to
  load need the room (the chunk with the most garbage first, and only once
  it holds :data:`COMPACT_MIN_SHARE` of its slots as garbage).  Grapin
  compacts every chunk that lost a list, every batch: with changes spread
  over the graph, that moves the whole cache every batch.

Layout.  A list of ``d`` entries occupies ``d`` slots of its chunk's ``nbr``
array (and ``wgt`` array, with weights; :mod:`cugraph_stream.chunk_layout`
describes the bytes and packed ids).  Each chunk is filled from slot 0;
``fill`` counts the slots used, live lists and garbage, and ``garbage`` the
slots of evicted lists not yet compacted away.  Lists are recorded per
vertex: chunk id, offset in the chunk, cached degree and an in-cache flag.
Per-chunk state (a few hundred chunks at most) lives on the host; per-vertex
state lives on the device.  Chunk memory comes from the backend's
allocator (:meth:`~cugraph_stream.backends.base.Backend.chunk_allocator`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from ..chunk_layout import PACKED_ID_LIMIT, PACKED_IDS_TAG, SECTION_ALIGN, check_id_bytes, chunk_layout
from .cache_selection import list_values
from .cache_view import CacheView
from .growth import MIN_VERTICES, ensure_vertex_capacity
from .reads import NBR_ITEMSIZE, READ_UNIT_BYTES, transactions

#: default chunk size (Grapin's 32 MB)
DEFAULT_CHUNK_BYTES = 32 << 20

#: a chunk is compacted to make room only once this share of its slots is garbage
COMPACT_MIN_SHARE = 1 / 256

_CANDIDATE = 1
_CHANGED = 2


# ---------------------------------------------------------------------- changes
def changed_lists(ops, delta, side="out"):
    """Vertices whose list in one adjacency a :class:`~cugraph_stream.engine.store.StoreDelta` changed.

    ``side="out"``: owners in the out-adjacency (the sources of inserted,
    deleted and re-weighted arcs; an undirected store's single adjacency);
    ``side="in"``: owners in a directed store's in-adjacency (the targets).
    May hold repeats.  Lists that only moved in host memory (relocation,
    compaction) keep their content and are not listed.
    """
    xp = ops.xp
    if side not in ("out", "in"):
        raise ValueError(f"side must be 'out' or 'in', got {side!r}")
    parts = ((delta.inserted_u, delta.deleted_u, delta.updated_u) if side == "out"
             else (delta.inserted_v, delta.deleted_v, delta.updated_v))
    return xp.concatenate([p.astype(xp.int64, copy=False) for p in parts])


# -------------------------------------------------------------------------- reports
@dataclass
class RefreshReport:
    """What refreshing one cache for a batch did: its :meth:`HotCache.evict`, then its
    :meth:`HotCache.load` (:meth:`~cugraph_stream.engine.store.GraphStore.refresh_cache`).

    Attributes
    ----------
    evicted : int
        Lists removed from the cache (left the candidates, or changed).
    evicted_changed : int
        Of those, lists whose vertex changed in this batch.
    compacted_chunks, merged_chunks, released_chunks, allocated_chunks : int
        Chunks compacted to make room for loads; chunks emptied into another
        chunk's free tail; chunks given back (holding only garbage, or
        merged); chunks newly allocated.
    moved_lists, moved_edges : int
        Lists (and their entries) moved inside the cache by compaction and merging.
    loaded_lists, loaded_edges : int
        Lists (and entries) copied from host memory into the cache.
    load_transactions : int
        Host memory transactions (of 64 bytes) the loads read (``nbr``, and
        ``wgt`` when the cache holds weights).
    not_loaded : int
        Candidates left uncached for lack of room in the chunks the budget
        allows (chunk tails too short for them).
    cached_lists, cached_edges, garbage_slots, held_bytes, chunks : int
        State after the refresh.
    """

    evicted: int = 0
    evicted_changed: int = 0
    compacted_chunks: int = 0
    merged_chunks: int = 0
    released_chunks: int = 0
    allocated_chunks: int = 0
    moved_lists: int = 0
    moved_edges: int = 0
    loaded_lists: int = 0
    loaded_edges: int = 0
    load_transactions: int = 0
    not_loaded: int = 0
    cached_lists: int = 0
    cached_edges: int = 0
    garbage_slots: int = 0
    held_bytes: int = 0
    chunks: int = 0

    @property
    def load_bytes(self):
        """Bytes requested from host memory by the loads (whole 64-byte transactions)."""
        return READ_UNIT_BYTES * self.load_transactions


class Eviction(NamedTuple):
    """What :func:`evict_changed` evicted, for :meth:`HotCache.reload_in_place`
    and for a rollback snapshot (:meth:`HotCache.snapshot`).

    Attributes
    ----------
    vertices, places, held : arrays of int64
        Every evicted vertex, its former place and the entries its copy held.
    value : int
        With a hotness given: the transactions that the reads of those lists
        that would fit their slots again cost over the hotness window (what
        reloading them in place saves over the next one, see
        :class:`~cugraph_stream.backends.base.ListPrice`); else 0.
    """

    vertices: Any
    places: Any
    held: Any
    value: int

    @property
    def undo(self):
        """``(vertices, places)``: what :meth:`HotCache.snapshot` puts back."""
        return self.vertices, self.places

    @classmethod
    def none(cls, xp):
        empty = xp.empty(0, dtype=xp.int64)
        return cls(empty, empty, empty, 0)


class _EvictionRequest(NamedTuple):
    """A cache's part of :func:`evict_changed`: the arguments of
    ``uncache_lists`` and the bounds of the vertices scanned."""

    arguments: tuple
    scanned: int
    upto: int


def evict_changed(ops, requests, bound=None, noted=None):
    """Refresh step 1 of a refresh without a selection (skipped or partial, see
    :mod:`cugraph_stream.engine.cache_policy`), in every cache: evict only the
    cached lists of the vertices whose lists changed (and of vertices at or
    above ``bound`` if it came down since the last refresh), so that no cache
    serves a stale list.  One operator call for all
    (:meth:`~cugraph_stream.backends.base.Backend.uncache_lists_in`: a launch
    per cache and one synchronisation on the GPU), at the cost of the batch,
    not of the vertices.

    ``requests`` holds each cache's ``(cache, changed_vertices, adjacency,
    report, hotness)``: the :class:`HotCache`, the vertices whose list changed
    (repeats allowed; see :func:`changed_lists`), the host store of its
    direction, the :class:`RefreshReport` to add to, and its adjacency's
    :class:`~cugraph_stream.engine.hotness.Hotness` (or None), with which
    the eviction also prices reloading the lists in place.
    ``noted(k, eviction)`` is given cache ``k``'s :class:`Eviction` once
    every cache has evicted, before any cache's counts change (a failure
    after that leaves a rollback the record of what to put back).  Returns
    the evictions, in the order of ``requests``.
    """
    asked = [cache._eviction_request(changed, adjacency, bound, hotness)
             for cache, changed, adjacency, _, hotness in requests]
    pending = [(k, request) for k, request in enumerate(asked) if request is not None]
    results = ops.uncache_lists_in([request.arguments for _, request in pending]) if pending else []
    evictions = [cache._no_eviction for cache, *_ in requests]
    for (k, _), (evicted, places, held, _, value) in zip(pending, results):
        evictions[k] = Eviction(evicted, places, held, value)
        if noted is not None:
            noted(k, evictions[k])
    for (k, request), result in zip(pending, results):
        cache, report = requests[k][0], requests[k][3]
        cache._account(result, report, request.scanned, compact=False)
        report.evicted_changed = (report.evicted if request.scanned == request.upto
                                  else int((evictions[k].vertices < request.scanned).sum()))
    return evictions


# ---------------------------------------------------------------------------- cache
class HotCache:
    """Neighbour lists of one adjacency, in fixed-size chunks under a byte budget.

    Parameters
    ----------
    ops : Backend
        Operators of the device that holds the cache (and reads the host store).
    weight_dtype : dtype
        Weight dtype of the cached adjacency.
    budget_bytes : int
        Most bytes the chunks may hold together (shared with the other
        caches of the same ``allocator``, when one is given).
    chunk_bytes : int
        Most bytes of one chunk (default 32 MiB).  The budget is split into
        the fewest chunks of at most this size, all of one size (so that no
        part of the budget is left over; a multiple of 512 bytes where the
        budget allows), each holding ``chunk_slots`` slots of ``nbr``, and
        of ``wgt`` with ``weights``, a multiple of 64.  A budget below one
        chunk makes a single chunk of the budget's size, so small budgets
        still cache something.  Lists larger than one chunk are never
        cached.
    allocator : object, optional
        Chunk memory (see :mod:`cugraph_stream.backends.chunks`); its
        ``capacity_bytes`` bounds the chunks held.  Default: the backend's
        (:meth:`ops.chunk_allocator
        <cugraph_stream.backends.base.Backend.chunk_allocator>`) with a
        capacity of :attr:`usable_bytes` (on the GPU: chunks from an RMM pool
        of that size, reserved when the cache is made, or from CuPy's pool
        without RMM).  Caches given the same allocator share its capacity.
    weights : bool
        Hold the weights too (default), or neighbour ids only (readers then
        take the weights from the host store).
    id_bytes : {4, 3}
        Bytes per cached neighbour id.  3 (packed) needs every id below
        2**24: whoever adds vertices calls :meth:`ensure_id_bound`.

    Attributes
    ----------
    chunk_id, chunk_offset, cached_degree : arrays of int32, per vertex
        Where a cached list is: its chunk, its first slot there, its entries
        (``-1``, 0, 0 for a vertex not in the cache).
    in_cache : array of bool, per vertex
    chunks : list
        Per chunk id, the :class:`~cugraph_stream.chunk_layout.Chunk` or ``None``.
    fill : numpy array of int64, per chunk id
        Slots used from slot 0: live lists and garbage.
    garbage : numpy array of int64, per chunk id
        Slots of evicted lists, free again once the chunk is compacted.

    Examples
    --------
    >>> from cugraph_stream.backends import get_backend
    >>> from cugraph_stream.engine.adjacency import Adjacency
    >>> ops = get_backend("cpu")
    >>> adj = Adjacency(ops, np.float32, with_twin=False)
    >>> adj.ensure_vertices(3)
    >>> _ = adj.append(np.array([0, 0, 2]), np.array([1, 2, 0]), np.array([1., 2., 3.], np.float32))
    >>> cache = HotCache(ops, np.float32, budget_bytes=4096, chunk_bytes=2048)
    >>> cache.chunk_slots, cache.max_chunks
    (256, 2)
    >>> report = RefreshReport()                 # one batch: evict, then load
    >>> cache.evict(np.array([2, 0]), np.array([], dtype=np.int64), adj, report)
    >>> cache.load(np.array([2, 0]), adj, report)
    >>> report.loaded_lists, report.allocated_chunks, cache.in_cache[:3].tolist()
    (2, 1, [True, False, True])
    >>> view = cache.view(adj)
    >>> view.neighbors(0)[0].tolist(), int(view.chunk[0]), int(view.start[0]), int(view.start[2])
    ([1, 2], 0, 1, 0)
    >>> report = RefreshReport()                 # the next: 2 left, 0 changed (reloaded)
    >>> cache.evict(np.array([0]), np.array([0]), adj, report)
    >>> cache.load(np.array([0]), adj, report)
    >>> report.evicted, report.released_chunks, report.loaded_lists, int(cache.chunk_offset[0])
    (2, 1, 1, 0)
    >>> packed = HotCache(ops, np.float32, budget_bytes=4096, chunk_bytes=2048, weights=False, id_bytes=3)
    >>> packed.chunk_slots, packed.chunk_bytes        # 3 bytes a slot: 640 slots in 2048 bytes
    (640, 2048)
    """

    def __init__(self, ops, weight_dtype, budget_bytes, chunk_bytes=DEFAULT_CHUNK_BYTES, allocator=None,
                 weights=True, id_bytes=4):
        budget_bytes, chunk_bytes = int(budget_bytes), int(chunk_bytes)
        if budget_bytes < 0:
            raise ValueError(f"budget_bytes must be non-negative, got {budget_bytes}")
        if chunk_bytes <= 0:
            raise ValueError(f"chunk_bytes must be positive, got {chunk_bytes}")
        id_bytes = check_id_bytes(id_bytes)
        xp = ops.xp
        self.ops = ops
        self.weight_dtype = np.dtype(weight_dtype)
        self.weights = bool(weights)
        self.budget_bytes = budget_bytes
        self._most_chunk_bytes = chunk_bytes
        self._size_chunks(id_bytes)
        if allocator is None:
            # on the GPU: an RMM pool of exactly the usable budget, reserved up front
            allocator = ops.chunk_allocator(self.usable_bytes or None)
        self.allocator = allocator
        self.chunk_id = xp.zeros(0, dtype=xp.int32)
        self.chunk_offset = xp.zeros(0, dtype=xp.int32)
        self.cached_degree = xp.zeros(0, dtype=xp.int32)
        self.in_cache = xp.zeros(0, dtype=bool)
        self._flags = xp.zeros(0, dtype=xp.uint8)   # refresh scratch, left zero
        self._bound_seen = 0     # the highest bound a refresh scanned since: vertices may be cached below it
        self._held = (0, 0)      # (lists, entries) cached, kept up to date without a scan
        self._no_eviction = Eviction.none(xp)       # what evicting from an empty cache returns (never written)

    @property
    def _chunk_weight_dtype(self):
        return self.weight_dtype if self.weights else None

    def _size_chunks(self, id_bytes):
        """Set the slot format and the chunk sizes for ``id_bytes`` per id, with no chunk held."""
        xp, budget_bytes = self.ops.xp, self.budget_bytes
        self.id_bytes = int(id_bytes)
        self.slot_bytes = self.id_bytes + (self.weight_dtype.itemsize if self.weights else 0)
        granule = 64
        most = min(self._most_chunk_bytes, budget_bytes)
        slots = most // self.slot_bytes
        slots -= slots % granule
        even = 0
        if slots:       # the fewest chunks of at most that size that cover the budget, all of one size
            count = -(-budget_bytes // (most - most % (2 * SECTION_ALIGN) or most))
            # a multiple of 512 bytes, allocated whatever the slot format: caches of any format
            # then make chunks of the same bytes, which a shared RMM pool hands from one to the other
            even = budget_bytes // count
            even -= even % (2 * SECTION_ALIGN)
            slots = max(even // self.slot_bytes - even // self.slot_bytes % granule, granule)
            while slots > granule and chunk_layout(slots, self._chunk_weight_dtype, self.id_bytes)[0] > even:
                slots -= granule        # the weight array starts on a SECTION_ALIGN boundary
        self.chunk_slots = slots
        if self.chunk_slots >= 2**31:
            raise ValueError(f"chunk_bytes={self._most_chunk_bytes} gives chunks of 2**31 slots or more")
        layout = chunk_layout(slots, self._chunk_weight_dtype, self.id_bytes)[0] if slots else 0
        self.chunk_bytes = max(even, layout)
        self.max_chunks = budget_bytes // self.chunk_bytes if self.chunk_slots else 0
        self.chunks = [None] * self.max_chunks
        self._chunk_count = 0               # chunks not None (asked for several times a batch)
        self.fill = np.zeros(self.max_chunks, dtype=np.int64)
        self.garbage = np.zeros(self.max_chunks, dtype=np.int64)
        self.nbr_pointers = xp.zeros(self.max_chunks, dtype=xp.uint64)
        self.wgt_pointers = xp.zeros(self.max_chunks, dtype=xp.uint64)

    def ensure_id_bound(self, bound):
        """Make the cache hold neighbour ids below ``bound``.

        A cache of packed (3-byte) ids told of ids of 2**24 or more empties
        itself and goes on with 4-byte ids (its lists reload at the next
        refresh).  Returns whether it changed format.

        >>> from cugraph_stream.backends import get_backend
        >>> cache = HotCache(get_backend("cpu"), np.float32, 1 << 20, id_bytes=3)
        >>> cache.ensure_id_bound(1 << 24), cache.ensure_id_bound((1 << 24) + 1), cache.id_bytes
        (False, True, 4)
        """
        if not self.changes_id_format(bound):
            return False
        self.clear()
        self._size_chunks(4)
        return True

    def changes_id_format(self, bound):
        """Whether :meth:`ensure_id_bound` of ``bound`` would empty the cache for 4-byte ids."""
        return self.id_bytes == 3 and int(bound) > PACKED_ID_LIMIT

    # ------------------------------------------------------------------ sizing
    _PER_VERTEX = ("chunk_id", "chunk_offset", "cached_degree", "in_cache", "_flags")

    def ensure_vertices(self, n):
        """Make the per-vertex arrays hold at least ``n`` vertices (new ones not cached)."""
        have = int(self.chunk_id.size)
        ensure_vertex_capacity(self.ops.xp, self, self._PER_VERTEX, n)
        if self.chunk_id.size > have:
            self.chunk_id[have:] = -1

    def fit_vertices(self, n):
        """Shrink the per-vertex arrays to about ``n`` vertices once they hold four
        times more; the cache is emptied then (the next refresh reloads it).
        Returns whether they shrank."""
        if int(self.chunk_id.size) <= 2 * max(2 * n, MIN_VERTICES):
            return False
        self.clear()
        size = max(2 * n, MIN_VERTICES)
        # (all made before any is replaced: a failed allocation leaves them of one size)
        fresh = {name: self.ops.xp.zeros(size, dtype=getattr(self, name).dtype) for name in self._PER_VERTEX}
        fresh["chunk_id"][:] = -1
        for name, array in fresh.items():
            setattr(self, name, array)
        return True

    @property
    def usable_bytes(self):
        """Bytes the cache can hold: whole chunks within the budget."""
        return self.max_chunks * self.chunk_bytes

    @property
    def chunks_held(self):
        return self._chunk_count

    @property
    def held_bytes(self):
        """Bytes of the chunks this cache holds now (never above the budget)."""
        return self.chunks_held * self.chunk_bytes

    def memory_bytes(self):
        """Device bytes of the cache: chunks, per-vertex arrays and chunk tables."""
        per_vertex = self.ops.memory_bytes(*(getattr(self, name) for name in self._PER_VERTEX))
        return self.held_bytes + per_vertex + self.ops.memory_bytes(self.nbr_pointers, self.wgt_pointers)

    # --------------------------------------------------------------- selection
    @property
    def read_itemsizes(self):
        """Item sizes of the reads a cached copy saves: neighbour ids, and weights if held."""
        return (NBR_ITEMSIZE,) + ((self.weight_dtype.itemsize,) if self.weights else ())

    def list_values(self, score, adjacency):
        """:func:`list_values` of ``adjacency``'s lists with this cache's sizes: what a
        cached copy saves (neighbours, and weights if held) per byte; lists over one
        chunk are left out."""
        return list_values(self.ops, score, adjacency.degree, self.slot_bytes, self.read_itemsizes,
                           self.chunk_slots)

    # ----------------------------------------------------------------- refresh
    # once per batch, GraphStore.refresh_cache: every cache of the budget evicts, then every one loads
    def _scan_bound(self, bound):
        """How far per-vertex scans go: ``bound``, or all of the arrays when it is None."""
        return int(self.in_cache.size) if bound is None else min(int(bound), int(self.in_cache.size))

    def evict(self, candidates, changed_vertices, adjacency, report, bound=None):
        """Refresh step 1: evict the cached vertices that are not in ``candidates``
        and those in ``changed_vertices`` (their lists changed in this batch).

        Their slots become garbage; chunks left with garbage only are
        released, chunks left with more garbage than lists are compacted (and
        merged where another chunk's tail takes them), so that their memory
        serves whichever cache of the budget needs it.  Every cache of one
        allocator evicts before any loads.

        Parameters
        ----------
        candidates : array of int
            Distinct vertices, most valuable first
            (:func:`~cugraph_stream.engine.cache_selection.select_in_chunks`).
        changed_vertices : array of int
            Vertices whose list changed (repeats allowed; see :func:`changed_lists`).
        adjacency : Adjacency
            The host store of the cached direction.
        report : RefreshReport
            What was done is added to it.
        bound : int, optional
            Vertex ids are below ``bound`` (the store's vertex bound): scans of
            the per-vertex arrays stop there instead of at their capacity.
        """
        xp = self.ops.xp
        self.ensure_vertices(int(adjacency.start.size))
        scanned = self._scan_bound(bound)
        # the bound comes down when the top vertices are removed: their lists go too
        upto, self._bound_seen = max(scanned, self._bound_seen), scanned
        if self.chunks_held == 0:
            return
        flags = self._flags
        candidates = candidates.astype(xp.int64, copy=False)
        changed = changed_vertices.astype(xp.int64, copy=False)
        flags[candidates] = _CANDIDATE
        flags[changed] |= _CHANGED
        evicted = xp.flatnonzero(self.in_cache[:upto] & (flags[:upto] != _CANDIDATE))
        evicted_changed = ((flags[evicted] & _CHANGED) != 0).sum()
        flags[candidates] = 0
        flags[changed] = 0
        if evicted.size == 0:
            return
        report.evicted_changed = int(evicted_changed)
        self._drop(evicted, report, scanned)

    def _eviction_request(self, changed_vertices, adjacency, bound, hotness):
        """What :func:`evict_changed` asks ``uncache_lists`` for (an :class:`_EvictionRequest`),
        or None where the cache holds nothing."""
        xp = self.ops.xp
        self.ensure_vertices(int(adjacency.start.size))
        scanned = self._scan_bound(bound)
        upto, self._bound_seen = max(scanned, self._bound_seen), scanned
        if self.chunks_held == 0:
            return None
        changed = changed_vertices.astype(xp.int64, copy=False)
        if scanned < upto:                    # vertices beyond the bound (removed) go too
            changed = xp.concatenate((changed, xp.flatnonzero(self.in_cache[scanned:upto]) + scanned))
        price = None if hotness is None else hotness.price(adjacency.degree, self.read_itemsizes, scanned)
        return _EvictionRequest((self, changed, self.max_chunks, self.chunk_slots, price), scanned, upto)

    def reload_in_place(self, eviction, adjacency, report):
        """Refresh step 2 of a partial refresh (after :func:`evict_changed`): cache again
        the evicted lists that still fit the slots they held (their new list is no
        longer, and their chunk was not released), copied from the host store.
        The others stay evicted until a full refresh.  Nothing moves and no chunk
        is allocated: one launch and one synchronisation to place them
        (:meth:`~cugraph_stream.backends.base.Backend.recache_in_place`), one
        launch to copy them (:meth:`~cugraph_stream.backends.base.Backend.copy_to_cache`).
        Fills in the report's loads and state fields."""
        if eviction.vertices.size:
            weight_itemsize = np.dtype(adjacency.wgt.dtype).itemsize if self.weights else 0
            placed, regained, reads = self.ops.recache_in_place(
                self, eviction.vertices, eviction.places, eviction.held, adjacency, self.chunk_slots, weight_itemsize)
            if placed.size:
                self.ops.copy_to_cache(self, placed, adjacency)
                self.garbage -= regained
                entries = int(regained.sum())
                self._held = (self._held[0] + int(placed.size), self._held[1] + entries)
                report.loaded_lists += int(placed.size)
                report.loaded_edges += entries
                report.load_transactions += reads
        report.not_loaded = report.evicted_changed - report.loaded_lists
        self.report_state(report, counted=True)

    def _drop(self, vertices, report, scanned, compact=True, price=None):
        """Evict the cached lists of ``vertices`` (repeats allowed; those not cached
        are left alone): their slots become garbage; release the chunks left
        with garbage only and (``compact``) compact those left with more
        garbage than lists.  Counts the evictions in ``report`` and returns
        them as an :class:`Eviction` (with ``price``, valued).

        A refresh without a selection (:func:`evict_changed`) does not compact:
        a skipped one loads nothing, and a partial one reloads lists in place
        (:meth:`reload_in_place`).  On the lent H200 at R-MAT scale 24,
        SSSP alone, compactions at eviction cost 12.3 ms a batch (0.4 a batch,
        about 31 ms each) against 10.8 ms for the whole batch in placement
        ``"host"``."""
        result = self.ops.uncache_lists(self, vertices, self.max_chunks, self.chunk_slots, price)
        self._account(result, report, scanned, compact)
        evicted, places, held, _, value = result
        return Eviction(evicted, places, held, value)

    def _account(self, result, report, scanned, compact):
        """The cache's counts after ``uncache_lists`` evicted lists (``result``, the
        operator's): garbage, lists held, chunks released and (``compact``)
        compacted, and ``report``'s count of evictions."""
        evicted, _, _, lost, _ = result
        report.evicted += int(evicted.size)
        self.garbage += lost
        self._held = (self._held[0] - int(evicted.size), self._held[1] - int(lost.sum()))
        for c in range(self.max_chunks):
            if self.chunks[c] is None:
                continue
            if self.garbage[c] == self.fill[c]:
                self._release_chunk(c)
                report.released_chunks += 1
            elif compact and 2 * self.garbage[c] > self.fill[c]:
                self._compact(c, report, scanned)

    def _compact(self, c, report, scanned):
        """Step 2, for chunk ``c``: its live lists slide down, in offset order, over the garbage
        (its residents are found among the first ``scanned`` vertices)."""
        xp = self.ops.xp
        residents = xp.flatnonzero(self.chunk_id[:scanned] == c)     # uncached vertices hold -1
        old = self.chunk_offset[residents].astype(xp.int64)
        order = xp.argsort(old)
        residents, old = residents[order], old[order]
        length = self.cached_degree[residents].astype(xp.int64)
        new = xp.cumsum(length) - length
        moving = xp.flatnonzero(new != old)       # the lists after the first gap: a suffix
        if moving.size:
            source, target, moved = old[moving], new[moving], length[moving]
            low, moved_edges = (int(x) for x in self.ops.to_host(xp.stack((source[0], moved.sum()))))
            report.moved_lists += int(moving.size)
            report.moved_edges += moved_edges
            # the lists read a copy of the slots they leave: their new places overlap them
            storage, fill = self.chunks[c], int(self.fill[c])
            pairs = [(storage.nbr[low:fill].copy(), storage.nbr)]
            if self.weights:
                pairs.append((storage.wgt[low:fill].copy(), storage.wgt))
            self.ops.copy_lists(pairs, source - low, target, moved)
            self.chunk_offset[residents] = new.astype(xp.int32)
        self.fill[c] -= self.garbage[c]
        self.garbage[c] = 0
        report.compacted_chunks += 1
        self._consolidate(c, residents, report)

    def _consolidate(self, s, residents, report):
        """Step 3, for the just compacted chunk ``s``: move its lists into the free
        tail of another chunk that can take them all (the least room that
        suffices) and release it, so that its memory serves any cache."""
        need = int(self.fill[s])
        room = [(self.chunk_slots - int(self.fill[d]), d) for d in range(self.max_chunks)
                if d != s and self.chunks[d] is not None and self.chunk_slots - int(self.fill[d]) >= need]
        if not room:
            return
        _, d = min(room)
        base = int(self.fill[d])
        self.chunks[d].nbr[base:base + need] = self.chunks[s].nbr[:need]
        if self.weights:
            self.chunks[d].wgt[base:base + need] = self.chunks[s].wgt[:need]
        self.chunk_id[residents] = d
        self.chunk_offset[residents] += base
        self.fill[d] += need
        self._release_chunk(s)
        report.merged_chunks += 1
        report.released_chunks += 1
        report.moved_lists += int(residents.size)
        report.moved_edges += need

    def _new_chunks_allowed(self):
        """Chunks this cache could still allocate: its table's free ids, within the allocator's capacity."""
        free_ids = self.max_chunks - self.chunks_held
        capacity = getattr(self.allocator, "capacity_bytes", None)
        if capacity is None:
            return free_ids
        return max(min(free_ids, (capacity - self.allocator.held_bytes) // self.chunk_bytes), 0)

    def load(self, candidates, adjacency, report, bound=None):
        """Refresh steps 2-4, after every cache of the allocator evicted (:meth:`evict`,
        whose parameters these are): compact chunks while the pending lists
        need the room, then allocate chunks as needed (within the budget) and
        load the candidates not in the cache, most valuable first, list by
        list from the host store (``adjacency.nbr/wgt[start[v]:start[v] +
        degree[v]]``, read in place): into the free tails of the chunks in id
        order, then into new chunks (next fit).  Lists that find no room
        compact further chunks, as long as some hold garbage.  Candidates with
        an empty list or a list over one chunk are skipped; those that find no
        room in the end are counted in ``not_loaded``.  Fills in the report's
        state fields."""
        xp = self.ops.xp
        self.ensure_vertices(int(adjacency.start.size))
        scanned = self._scan_bound(bound)
        self._bound_seen = max(self._bound_seen, scanned)
        candidates = candidates.astype(xp.int64, copy=False)
        pending = candidates[~self.in_cache[candidates]]
        degree = adjacency.degree[pending].astype(xp.int64)
        fits = xp.flatnonzero((degree > 0) & (degree <= self.chunk_slots))
        pending, degree = pending[fits], degree[fits]
        need = int(degree.sum())
        while need > self._room() and self._compact_dirtiest(report, scanned):      # lazily: most garbage first
            pass
        placed = self._place(pending, degree, adjacency, report) if pending.size else 0
        while placed < pending.size and self._compact_dirtiest(report, scanned):   # next fit left lists out
            placed += self._place(pending[placed:], degree[placed:], adjacency, report)
        report.not_loaded = int(pending.size) - placed
        self.report_state(report, bound, counted=True)

    def report_state(self, report, bound=None, counted=False):
        """Fill in the state fields of ``report`` (lists and entries cached, garbage, chunks).

        ``counted``: take the lists and entries from the counts the cache keeps
        as it loads and evicts (no pass over the vertices, no synchronisation);
        else count them afresh."""
        xp = self.ops.xp
        if not counted:
            scanned = self._scan_bound(bound)
            self._held = tuple(int(x) for x in self.ops.to_host(xp.stack((
                self.in_cache[:scanned].sum(dtype=xp.int64),
                self.cached_degree[:scanned].sum(dtype=xp.int64)))))
        report.cached_lists, report.cached_edges = self._held
        report.garbage_slots = int(self.garbage.sum())
        report.held_bytes = self.held_bytes
        report.chunks = self.chunks_held

    def _room(self):
        """Free slots: the tails of the chunks held, and the chunks still allowed."""
        tails = sum(self.chunk_slots - int(self.fill[c]) for c in range(self.max_chunks) if self.chunks[c] is not None)
        return tails + self._new_chunks_allowed() * self.chunk_slots

    def _compact_dirtiest(self, report, scanned):
        """Compact the held chunk with the most garbage; False when no chunk holds
        at least ``COMPACT_MIN_SHARE`` of its slots as garbage (compacting a whole
        chunk for less would cost more than the lists it makes room for)."""
        least = max(int(COMPACT_MIN_SHARE * self.chunk_slots), 1)
        dirty = [c for c in range(self.max_chunks) if self.chunks[c] is not None and self.garbage[c] >= least]
        if not dirty:
            return False
        self._compact(max(dirty, key=lambda c: (int(self.garbage[c]), -c)), report, scanned)
        return True

    def _place(self, pending, degree, adjacency, report):
        """Step 4: put ``pending`` (lists of ``degree`` entries) into chunk tails, next fit;
        returns how many (a prefix of ``pending``) found room."""
        xp, ops = self.ops.xp, self.ops
        count = int(pending.size)
        end = ops.to_host(xp.cumsum(degree))          # one transfer; the packing runs on the host
        placements = []                               # (chunk id, first list, stop list, offset shift)
        placed = 0

        def place(c):
            nonlocal placed
            consumed = int(end[placed - 1]) if placed else 0
            stop = int(np.searchsorted(end, consumed + self.chunk_slots - int(self.fill[c]), side="right"))
            if stop > placed:
                placements.append((c, placed, stop, int(self.fill[c]) - consumed))
                self.fill[c] += int(end[stop - 1]) - consumed
                placed = stop

        for c in range(self.max_chunks):             # free tails of the chunks held, in id order
            if placed == count:
                break
            if self.chunks[c] is not None and self.fill[c] < self.chunk_slots:
                place(c)
        while placed < count and self._new_chunks_allowed():
            try:
                c = self._allocate_chunk()
            except MemoryError:     # the device pool cannot carve another chunk (fragmented): no room
                break
            place(c)
            report.allocated_chunks += 1
        if placed == 0:
            return 0
        loaded, degree = pending[:placed], degree[:placed]
        stops = xp.asarray(np.array([p[2] for p in placements], dtype=np.int64))
        which = xp.searchsorted(stops, xp.arange(placed, dtype=xp.int64), side="right")
        chunk = xp.asarray(np.array([p[0] for p in placements], dtype=np.int64))[which]
        shift = xp.asarray(np.array([p[3] for p in placements], dtype=np.int64))[which]
        offset = xp.cumsum(degree) - degree + shift
        self.chunk_id[loaded] = chunk.astype(xp.int32)
        self.chunk_offset[loaded] = offset.astype(xp.int32)
        self.cached_degree[loaded] = degree.astype(xp.int32)
        self.in_cache[loaded] = True
        host_start = adjacency.start[loaded].astype(xp.int64)
        for c, first, stop, _ in placements:          # a loop over chunks
            pairs = [(adjacency.nbr, self.chunks[c].nbr)]
            if self.weights:
                pairs.append((adjacency.wgt, self.chunks[c].wgt))
            ops.copy_lists(pairs, host_start[first:stop], offset[first:stop], degree[first:stop])
        report.loaded_lists += placed
        report.loaded_edges += int(end[placed - 1])
        self._held = (self._held[0] + placed, self._held[1] + int(end[placed - 1]))
        load = transactions(xp, host_start, degree, NBR_ITEMSIZE)
        if self.weights:
            load = load + transactions(xp, host_start, degree, np.dtype(adjacency.wgt.dtype).itemsize)
        report.load_transactions += int(load.sum())
        return placed

    # ------------------------------------------------------------------ chunks
    def _allocate_chunk(self):
        c = self.chunks.index(None)
        storage = self.allocator.allocate(self.chunk_slots, self._chunk_weight_dtype, self.id_bytes,
                                          self.chunk_bytes)
        self.chunks[c] = storage
        self._chunk_count += 1
        self.fill[c] = self.garbage[c] = 0
        self.nbr_pointers[c] = np.uint64(self._nbr_address(storage))
        self.wgt_pointers[c] = 0 if storage.wgt is None else self.allocator.address(storage.wgt)
        return c

    def _nbr_address(self, storage):
        """What kernels take as a chunk's neighbour address: tagged when the ids are packed."""
        return self.allocator.address(storage.nbr) | (PACKED_IDS_TAG if self.id_bytes == 3 else 0)

    def _release_chunk(self, c):
        self.allocator.release(self.chunks[c])
        self.chunks[c] = None
        self._chunk_count -= 1
        self.fill[c] = self.garbage[c] = 0
        self.nbr_pointers[c] = 0
        self.wgt_pointers[c] = 0

    def clear(self):
        """Evict everything and release every chunk: a fill of each per-vertex array and
        of each chunk table (no search for the cached vertices, no launch per chunk)."""
        for c in range(self.max_chunks):
            if self.chunks[c] is not None:
                self.allocator.release(self.chunks[c])
                self.chunks[c] = None
        self._chunk_count = 0
        self.fill[:] = self.garbage[:] = 0
        self.nbr_pointers.fill(0)
        self.wgt_pointers.fill(0)
        self.in_cache.fill(False)
        self.chunk_id.fill(-1)
        self.chunk_offset.fill(0)
        self.cached_degree.fill(0)
        self._bound_seen = 0
        self._held = (0, 0)                 # nothing held: no scan needed to say so

    # ---------------------------------------------------------------- rollback
    def snapshot(self, undo=None):
        """What the cache holds, for :meth:`reload` after a failed batch: per vertex,
        where its list lies (chunk and offset as one number; -1 when not cached),
        and the id format.  One pass, no synchronisation.

        ``undo``: the ``(vertices, places)`` of the :class:`Eviction` s since the
        state wanted, in order, which the snapshot puts back (the earliest place
        of a vertex evicted twice), so that a store may take it after a refresh
        that only evicted lists and loaded some of them again.  No list may
        have moved inside the cache since (a compaction)."""
        xp = self.ops.xp
        place = self.chunk_id.astype(xp.int64) * self.chunk_slots + self.chunk_offset
        place = xp.where(self.in_cache, place, -1)
        for vertices, places in reversed(undo or ()):
            place[vertices] = places
        return place, self.id_bytes

    def reload(self, snapshot, adjacency, bound=None):
        """Hold again the lists of ``snapshot`` (from :meth:`snapshot`), read from
        ``adjacency`` as it is now (restored by a rollback): the cache is emptied
        and they are loaded in their old order, so the same lists are cached
        (only their places in the chunks may differ)."""
        xp = self.ops.xp
        place, id_bytes = snapshot
        self.clear()
        self._flags[:] = 0                  # a refresh that failed halfway may have left some set
        if id_bytes != self.id_bytes:
            self._size_chunks(id_bytes)
        cached = xp.flatnonzero(place >= 0)
        self.load(cached[xp.argsort(place[cached])], adjacency, RefreshReport(), bound)

    # ----------------------------------------------------------------- reading
    def view(self, adjacency):
        """Where every vertex's list is, cache or store (see :class:`CacheView`)."""
        xp = self.ops.xp
        n = int(adjacency.start.size)
        self.ensure_vertices(n)
        in_cache = self.in_cache[:n]
        host_start = adjacency.start.astype(xp.int64)
        start = xp.where(in_cache, self.chunk_offset[:n].astype(xp.int64), host_start)
        length = xp.where(in_cache, self.cached_degree[:n].astype(xp.int64), adjacency.degree.astype(xp.int64))
        return CacheView(start, length, in_cache, self.chunk_id[:n], host_start, self.weights,
                         tuple(None if c is None else c.nbr for c in self.chunks),
                         tuple(None if c is None else c.wgt for c in self.chunks),
                         self.nbr_pointers, self.wgt_pointers, adjacency.nbr, adjacency.wgt)

    def check(self, adjacency):
        """Raise ``RuntimeError`` unless the cache agrees with the host store (a debugging aid).

        Checks: every cached list equals the host store's list of its vertex
        (entries, and weights when held, in order); cached lists lie inside
        allocated chunks, do not overlap and, with the garbage, make up each
        chunk's ``fill``; no chunk holds garbage only; the chunks held are
        counted right and stay within the budget; uncached vertices point
        nowhere; the address tables match.
        """
        xp, ops = self.ops.xp, self.ops
        problems = []
        n = int(adjacency.start.size)
        self.ensure_vertices(n)
        cached = xp.flatnonzero(self.in_cache)
        if int(cached.size) and int(cached.max()) >= n:
            problems.append("a vertex beyond the store is cached")
            cached = cached[cached < n]
        uncached = ~self.in_cache
        if bool((self.chunk_id[uncached] != -1).any()) or bool((self.cached_degree[uncached] != 0).any()):
            problems.append("an uncached vertex keeps a chunk or a degree")
        scanned = (int(self.in_cache.sum()), int(self.cached_degree.sum(dtype=xp.int64)))
        if self._held != scanned:
            problems.append(f"the counted lists and entries {self._held} are not those held {scanned}")
        if self.held_bytes > self.budget_bytes or self.allocator.held_bytes > self.budget_bytes:
            problems.append(f"chunks hold {self.held_bytes} bytes, over the budget of {self.budget_bytes}")
        held = np.array([c is not None for c in self.chunks], dtype=bool)
        if self._chunk_count != int(held.sum()):
            problems.append(f"{self._chunk_count} chunks counted, {int(held.sum())} held")
        if bool((self.fill[held] - self.garbage[held] <= 0).any()):
            problems.append("a chunk holding no live list is held")
        if (bool((self.fill[~held] != 0).any()) or bool((self.garbage[~held] != 0).any())
                or bool((self.fill > self.chunk_slots).any()) or bool((self.garbage < 0).any())):
            problems.append("a chunk fill or garbage count is out of range")
        if any(c is not None and (c.wgt is None) == self.weights for c in self.chunks):
            problems.append("a chunk's weight array does not match the cache's weights setting")
        if any(c is not None and (c.nbr.ndim == 2) != (self.id_bytes == 3) for c in self.chunks):
            problems.append("a chunk's neighbour array does not match the cache's id format")
        nbr_addresses = ops.to_host(self.nbr_pointers)
        wgt_addresses = ops.to_host(self.wgt_pointers)
        for c in range(self.max_chunks):
            storage = self.chunks[c]
            expected = (0, 0) if storage is None else (
                self._nbr_address(storage), 0 if storage.wgt is None else self.allocator.address(storage.wgt))
            if (int(nbr_addresses[c]), int(wgt_addresses[c])) != expected:
                problems.append(f"chunk {c}: the address table is stale")
        if cached.size:
            chunk = self.chunk_id[cached].astype(xp.int64)
            offset = self.chunk_offset[cached].astype(xp.int64)
            length = self.cached_degree[cached].astype(xp.int64)
            if bool((chunk < 0).any()) or bool((chunk >= self.max_chunks).any()):
                problems.append("a cached list has a chunk id out of range")
            elif not bool(xp.asarray(held)[chunk].all()):
                problems.append("a cached list points at a chunk that is not held")
            else:
                if bool((length <= 0).any()):
                    problems.append("an empty list is cached")
                fill = xp.asarray(self.fill)
                if bool((offset < 0).any()) or bool((offset + length > fill[chunk]).any()):
                    problems.append("a cached list lies beyond its chunk's fill")
                order = xp.argsort(chunk * self.chunk_slots + offset)
                c_sorted, o_sorted, l_sorted = chunk[order], offset[order], length[order]
                same = c_sorted[1:] == c_sorted[:-1]
                if bool((same & (o_sorted[1:] < o_sorted[:-1] + l_sorted[:-1])).any()):
                    problems.append("two cached lists overlap")
                live = ops.to_host(xp.bincount(chunk, weights=length, minlength=self.max_chunks))
                if not np.array_equal(live.astype(np.int64) + self.garbage, self.fill):
                    problems.append("a chunk's fill is not its live slots plus its garbage")
                if bool((length != adjacency.degree[cached]).any()):
                    problems.append("a cached degree differs from the host store's")
                else:
                    view = self.view(adjacency)
                    _, nbr, wgt = view.gather(ops, cached)
                    slots, _ = adjacency.slots_of(cached)
                    if not bool((nbr == adjacency.nbr[slots]).all()):
                        problems.append("a cached list's neighbours differ from the host store's")
                    if not bool((wgt == adjacency.wgt[slots]).all()):
                        problems.append("a cached list's weights differ from the host store's")
        if problems:
            raise RuntimeError("hot cache is inconsistent: " + "; ".join(problems))
