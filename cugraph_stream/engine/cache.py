"""The hot-subgraph cache: the most valuable neighbour lists, copied into fast memory.

With the ``cached`` placement the adjacency stays in host memory, read in
place by the GPU, and the lists whose caching saves the most host memory
traffic, judged by how often they were read over the last ``tau`` batches
(:class:`~cugraph_stream.engine.hotness.Hotness`), are also kept in GPU memory
under a byte budget (Grapin, sections 5 and 6).  This module is the policy
and the bookkeeping, written once against ``ops.xp`` and the operators, so
that the NumPy backend runs (and tests) exactly what the GPU runs:

* :func:`list_values` and :func:`select_candidates`: the lists to hold, by
  host bytes saved per cached byte (sort, prefix sum, binary search), over
  one cache or jointly over the caches that share one budget.
* :class:`HotCache`: the cache itself, a CSR stored in fixed-size chunks,
  brought up to date once per batch by :meth:`HotCache.refresh` (Grapin's
  Algorithm 3: evict, compact, consolidate, allocate, load), and the
  per-vertex arrays kernels read it through (:meth:`HotCache.view`).
(What the queries read, from the cache and from host memory, is counted by
:mod:`cugraph_stream.engine.reads`.)

Where this departs from Grapin, and why:

* **Value per byte, not hotness alone.**  Host memory is read in 128-byte
  transactions, so a read of a 3-entry list costs as much as a read of a
  32-entry one.  A list's value is ``score * transactions per read`` and
  lists are ranked by value per cached byte (a greedy knapsack): many short,
  often-read lists beat one long list of the same bytes.
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
array (and ``wgt`` array, with weights; :mod:`cugraph_stream.backends.chunks`
describes packed ids).  Each chunk is filled from slot 0; ``fill`` counts the
slots used, live lists and garbage, and ``garbage`` the slots of evicted
lists not yet compacted away.  Lists are recorded per
vertex: chunk id, offset in the chunk, cached degree and an in-cache flag.
Per-chunk state (a few hundred chunks at most) lives on the host; per-vertex
state lives on the device.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..backends.chunks import (PACKED_ID_LIMIT, PACKED_IDS_TAG, SECTION_ALIGN, check_id_bytes, chunk_allocator,
                               chunk_layout, read_ids)
from .adjacency import ALIGN_BYTES
from .growth import MIN_VERTICES, ensure_vertex_capacity
from .reads import NBR_ITEMSIZE, transactions

#: default chunk size (Grapin's 32 MB)
DEFAULT_CHUNK_BYTES = 32 << 20

#: a chunk is compacted to make room only once this share of its slots is garbage
COMPACT_MIN_SHARE = 1 / 256
#: share of a cache's chunks the joint selection leaves free for changed lists to reload into
#: (more room lets garbage gather longer, so each compaction frees more: 1/128 cost the
#: scale-24 benchmark about 6 compactions a batch)
LOAD_ROOM_SHARE = 1 / 32

_CANDIDATE = 1
_CHANGED = 2
#: bit pattern of float32 infinity: ``_FLOAT32_INF - bits`` orders non-negative float32 values descending
_FLOAT32_INF = 0x7F800000


# ---------------------------------------------------------------------- selection
@dataclass
class ListValues:
    """The lists one cache could hold, and what holding each is worth.

    Attributes
    ----------
    vertices : array of int64
        Eligible vertices, ascending.
    cost : array of int64
        Cached bytes of each one's list.
    density : array of float32
        Host bytes a cached copy would have saved over the window, per cached
        byte (up to a constant factor shared by all caches).
    """

    vertices: object
    cost: object
    density: object


def list_values(ops, score, degree, slot_bytes, read_itemsizes, max_list_slots=None):
    """What caching each list is worth: host transactions saved per cached byte.

    A read of a list of ``d`` entries from host memory costs, per array read
    (``read_itemsizes``: 4 for the neighbours, plus the weight itemsize when
    the cache holds weights), ``ceil(d * itemsize / 128)`` transactions (the
    store starts every list on a 128-byte boundary).  Over the window the
    list was read ``score`` times, so caching it would have saved ``score``
    times that; it costs ``d * slot_bytes`` bytes of cache.

    Parameters
    ----------
    ops : Backend
    score : array of int
        Non-negative hotness per vertex (:meth:`Hotness.score`).
    degree : array of int
        Entries per list; vertices beyond ``min(score.size, degree.size)`` are ignored.
    slot_bytes : int
        Cached bytes per entry.
    read_itemsizes : tuple of int
        Itemsizes of the arrays a cached copy serves.
    max_list_slots : int, optional
        Longer lists are never cached (a list must fit in one chunk).

    Returns
    -------
    ListValues
        Vertices with score 0 or degree 0 never qualify.

    Examples
    --------
    >>> from cugraph_stream.backends import get_backend
    >>> v = list_values(get_backend("cpu"), np.array([3, 3, 0, 3]), np.array([1, 32, 5, 33]), 4, (4,))
    >>> v.vertices.tolist(), v.cost.tolist(), v.density.tolist()    # 1 transaction for 4 bytes, for 128, 2 for 132
    ([0, 1, 3], [4, 128, 132], [0.75, 0.0234375, 0.04545454680919647])
    """
    xp = ops.xp
    n = min(int(score.size), int(degree.size))
    score = score[:n]
    degree = degree[:n].astype(xp.int64, copy=False)
    eligible = (score > 0) & (degree > 0)
    if max_list_slots is not None:
        eligible &= degree <= int(max_list_slots)
    vertices = xp.flatnonzero(eligible)
    length = degree[vertices]
    saved = xp.zeros(vertices.size, dtype=xp.int64)
    for itemsize in read_itemsizes:               # a loop over arrays, not vertices
        saved += (length * int(itemsize) + ALIGN_BYTES - 1) // ALIGN_BYTES
    cost = length * int(slot_bytes)
    density = (score[vertices].astype(xp.float64) * saved) / cost
    return ListValues(vertices, cost, density.astype(xp.float32))


def _rank(ops, parts):
    """Positions (in the concatenation of ``parts``) of every list, most valuable
    first, and the lists' costs in that order."""
    xp = ops.xp
    density = xp.concatenate([part.density for part in parts])
    cost = xp.concatenate([part.cost for part in parts])
    # non-negative float32 values order like their bit patterns: a stable sort of the patterns,
    # negated, ranks by density and keeps ties in position order (the earlier part, then the
    # smaller id), with 32-bit keys
    ranked = xp.argsort(_FLOAT32_INF - density.view(xp.int32), kind="stable")
    return ranked, cost[ranked]


def _prefix(ops, costs, budget_bytes):
    """How many of ``costs`` (in order) fit ``budget_bytes`` together."""
    xp = ops.xp
    used = xp.cumsum(costs)
    return int(xp.searchsorted(used, xp.asarray([int(budget_bytes)], dtype=used.dtype), side="right")[0])


def select_candidates(ops, parts, budget_bytes):
    """The lists worth most per byte that fit ``budget_bytes`` together, over one or more caches.

    The lists of all ``parts`` (one :class:`ListValues` per cache sharing
    the budget) are ranked by ``density`` (descending; ties: the earlier
    part, then the smaller vertex id, so the choice is deterministic on
    every backend), and the longest prefix of the ranking whose costs fit
    the budget is taken.  The prefix stops at the first list that does not
    fit, as in Grapin (a smaller, less valuable list behind it is not taken
    instead).

    Parameters
    ----------
    ops : Backend
    parts : list of ListValues
        One per cache sharing the budget (:func:`list_values`).
    budget_bytes : int

    Returns
    -------
    list of arrays of int64
        Per part, its chosen vertices, most valuable first.

    Examples
    --------
    >>> from cugraph_stream.backends import get_backend
    >>> ops = get_backend("cpu")
    >>> out = list_values(ops, np.array([5, 0, 9, 5]), np.array([10, 50, 40, 3]), 4, (4,))
    >>> inn = list_values(ops, np.array([1, 1]), np.array([1, 2]), 4, (4,))
    >>> out.density.tolist(), inn.density.tolist()     # out 0 and in 1 tie: the earlier part first
    ([0.125, 0.11249999701976776, 0.4166666567325592], [0.25, 0.125])
    >>> [c.tolist() for c in select_candidates(ops, [out, inn], budget_bytes=4 * 16)]
    [[3, 0], [0, 1]]
    >>> [c.tolist() for c in select_candidates(ops, [out, inn], budget_bytes=4 * 15)]
    [[3, 0], [0]]
    """
    xp = ops.xp
    if budget_bytes <= 0 or sum(int(part.vertices.size) for part in parts) == 0:
        return [xp.empty(0, dtype=xp.int64) for _ in parts]
    ranked, costs = _rank(ops, parts)
    chosen = ranked[:_prefix(ops, costs, budget_bytes)]
    candidates, first = [], 0
    for part in parts:                          # a loop over caches
        size = int(part.vertices.size)
        candidates.append(part.vertices[chosen[(chosen >= first) & (chosen < first + size)] - first])
        first += size
    return candidates


def allot_chunks(wanted_bytes, chunk_bytes, capacity_bytes):
    """Whole chunks per cache for what its lists want (largest remainder), within ``capacity_bytes``.

    ``wanted_bytes`` sum to at most ``capacity_bytes``.  Cache ``i`` gets
    ``floor(wanted_bytes[i] / chunk_bytes[i])`` chunks, then
    what is left of the capacity goes a chunk at a time to the caches with
    the largest unserved fraction (none to a cache that wants nothing more).

    >>> allot_chunks([20, 1597], [100, 100], 1600), allot_chunks([60, 30], [100, 100], 100)
    ([0, 16], [1, 0])
    >>> allot_chunks([150, 250], [100, 100], 600), allot_chunks([150, 140], [50, 100], 300)
    ([2, 3], [3, 1])
    """
    wanted = np.asarray(wanted_bytes, dtype=np.float64) / np.asarray(chunk_bytes, dtype=np.float64)
    allot = np.floor(wanted).astype(np.int64)
    left = int(capacity_bytes) - int((allot * np.asarray(chunk_bytes, dtype=np.int64)).sum())
    for i in np.argsort(-(wanted - allot), kind="stable").tolist():
        if wanted[i] > allot[i] and left >= chunk_bytes[i]:
            allot[i] += 1
            left -= int(chunk_bytes[i])
    return allot.tolist()


def select_in_chunks(ops, parts, chunk_bytes, total_chunks, room_share=LOAD_ROOM_SHARE):
    """:func:`select_candidates` for caches that hold their lists in whole chunks of one budget.

    The joint ranking over ``total_chunks`` chunks decides what each cache
    deserves; each cache ``i`` then gets a whole number of its chunks of
    ``chunk_bytes[i]``, together within ``total_chunks`` chunks of the
    largest size (:func:`allot_chunks`: a cache whose lists deserve
    a sliver of a chunk gets none, rather than a chunk held for a few
    lists), and takes its most valuable lists within them, leaving
    ``room_share`` of the chunks free so that lists that change reload into
    chunk tails without compaction.

    Parameters
    ----------
    ops : Backend
    parts : list of ListValues
        One per cache sharing the budget.
    chunk_bytes : list of int
        Bytes of one chunk of each cache.
    total_chunks : int
        Chunks of the largest size the budget holds.
    room_share : float
        Share of each cache's chunks left free (default :data:`LOAD_ROOM_SHARE`).

    Returns
    -------
    list of arrays of int64
        Per part, its chosen vertices, most valuable first.

    Examples
    --------
    >>> from cugraph_stream.backends import get_backend
    >>> ops = get_backend("cpu")
    >>> out = list_values(ops, np.array([1, 1]), np.array([1, 2]), 8, (4, 4))      # 24 bytes, worth little
    >>> inn = list_values(ops, np.array([5] * 6), np.array([60] * 6), 4, (4,))     # 6 lists of 240 bytes
    >>> [c.tolist() for c in select_candidates(ops, [out, inn], 4 * 256)]
    [[0, 1], [0, 1, 2, 3]]
    >>> [c.tolist() for c in select_in_chunks(ops, [out, inn], [256, 256], 4, room_share=0)]
    [[], [0, 1, 2, 3]]
    """
    xp = ops.xp
    sizes = [int(part.vertices.size) for part in parts]
    if total_chunks <= 0 or sum(sizes) == 0:
        return [xp.empty(0, dtype=xp.int64) for _ in parts]
    ranked, costs = _rank(ops, parts)
    count = _prefix(ops, costs, int(total_chunks) * max(chunk_bytes))
    firsts = np.cumsum([0] + sizes).tolist()
    # per cache, its lists in ranked order (a mask over the ranking); sums, not a weighted
    # bincount, whose atomics would all hit one counter per cache
    mine = [(ranked >= firsts[i]) & (ranked < firsts[i + 1]) for i in range(len(parts))]
    wanted = ops.to_host(xp.stack([xp.where(m[:count], costs[:count], 0).sum() for m in mine]))
    allot = allot_chunks(wanted, chunk_bytes, int(total_chunks) * max(chunk_bytes))
    candidates = []
    for i, part in enumerate(parts):             # a loop over caches
        room = int(allot[i] * chunk_bytes[i] * (1.0 - room_share))
        # the cache's most valuable lists within its room: a prefix of its lists in ranked order
        taken = mine[i] & (xp.cumsum(xp.where(mine[i], costs, 0)) <= room)
        candidates.append(part.vertices[ranked[taken] - firsts[i]])
    return candidates


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
    """What one :meth:`HotCache.refresh` did.

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
        128-byte host memory transactions the loads read (``nbr``, and
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
        """Bytes requested from host memory by the loads (whole 128-byte transactions)."""
        return ALIGN_BYTES * self.load_transactions


@dataclass
class CacheView:
    """How to find every vertex's list: in a cache chunk or in the host store.

    The host-side reference reader (:meth:`HotCache.check` and the tests
    read lists through it); the GPU kernels find the same lists through
    per-vertex addresses (``GPUBackend._lists``).

    Vertex ``v`` with ``in_cache[v]`` has its ``length[v]`` neighbours at
    ``chunk_nbr[chunk[v]][start[v]:start[v] + length[v]]`` (packed or not:
    read them with :func:`~cugraph_stream.backends.chunks.read_ids`; weights
    in ``chunk_wgt`` when ``cached_weights``, else in the host store);
    otherwise at ``host_nbr[start[v]:start[v] + length[v]]``.  A kernel
    takes the chunk base addresses ``nbr_pointers[chunk[v]]`` and
    ``wgt_pointers[chunk[v]]`` (``uint64``; the neighbour address tagged
    with :data:`~cugraph_stream.backends.chunks.PACKED_IDS_TAG` when the
    ids are packed) instead of the chunk arrays.

    Attributes
    ----------
    start : array of int64
        Offset in the vertex's chunk (cached) or slot in the host store.
    length : array of int64
        Entries of the list.
    in_cache : array of bool
    chunk : array of int32
        Chunk id, ``-1`` when not cached.
    host_start : array of int64
        Slot of every list in the host store.
    cached_weights : bool
        Whether the chunks hold weights.
    chunk_nbr, chunk_wgt : tuple of arrays
        Per chunk id, the chunk's slot arrays (``None`` for unused ids, and
        every ``chunk_wgt`` without cached weights).
    nbr_pointers, wgt_pointers : array of uint64
        Per chunk id, the data address of those arrays (0 for unused ids).
    host_nbr, host_wgt : arrays
        The host store's slot arrays.
    """

    start: object
    length: object
    in_cache: object
    chunk: object
    host_start: object
    cached_weights: bool
    chunk_nbr: tuple
    chunk_wgt: tuple
    nbr_pointers: object
    wgt_pointers: object
    host_nbr: object
    host_wgt: object

    def neighbors(self, v):
        """``(nbr, wgt)`` of one vertex, read where the kernels would read it."""
        s, d, h = int(self.start[v]), int(self.length[v]), int(self.host_start[v])
        if not bool(self.in_cache[v]):
            return self.host_nbr[s:s + d], self.host_wgt[s:s + d]
        c = int(self.chunk[v])
        wgt = self.chunk_wgt[c][s:s + d] if self.cached_weights else self.host_wgt[h:h + d]
        return read_ids(self.chunk_nbr[c], slice(s, s + d)), wgt

    def gather(self, ops, vertices):
        """Every entry of the lists of ``vertices``, read through the view.

        Returns ``(owners, nbr, wgt)``: entries in vertex order (each list in
        slot order) and the index in ``vertices`` each came from.  The
        reference for what a kernel reading the ``cached`` placement sees.
        """
        xp = ops.xp
        lengths = self.length[vertices]
        out_start = xp.cumsum(lengths) - lengths
        _, owners = ops.expand_segments(out_start, lengths)
        total = int(owners.size)
        nbr = xp.empty(total, dtype=self.host_nbr.dtype)
        wgt = xp.empty(total, dtype=self.host_wgt.dtype)
        if total == 0:
            return owners, nbr, wgt
        cached = self.in_cache[vertices]
        # weights from the host store: every list's, unless the chunks hold them
        from_host = xp.flatnonzero(~cached) if self.cached_weights else xp.arange(vertices.size)
        source, owner = ops.expand_segments(self.host_start[vertices[from_host]], lengths[from_host])
        target = out_start[from_host][owner] + (source - self.host_start[vertices[from_host]][owner])
        wgt[target] = self.host_wgt[source]
        uncached = xp.flatnonzero(~cached)
        source, owner = ops.expand_segments(self.start[vertices[uncached]], lengths[uncached])
        target = out_start[uncached][owner] + (source - self.start[vertices[uncached]][owner])
        nbr[target] = self.host_nbr[source]
        picked = xp.flatnonzero(cached)
        if picked.size:
            by_chunk = picked[xp.argsort(self.chunk[vertices[picked]])]
            chunk_of = self.chunk[vertices[by_chunk]]
            ids = np.unique(ops.to_host(chunk_of))
            bounds = ops.to_host(xp.searchsorted(chunk_of, xp.asarray(ids, dtype=chunk_of.dtype), side="right"))
            source, owner = ops.expand_segments(self.start[vertices[by_chunk]], lengths[by_chunk])
            target = out_start[by_chunk][owner] + (source - self.start[vertices[by_chunk]][owner])
            element_bounds = ops.to_host(xp.searchsorted(owner, xp.asarray(bounds), side="left"))
            first = 0
            for c, stop in zip(ids.tolist(), element_bounds.tolist()):
                piece = slice(first, stop)
                nbr[target[piece]] = read_ids(self.chunk_nbr[c], source[piece])
                if self.cached_weights:
                    wgt[target[piece]] = self.chunk_wgt[c][source[piece]]
                first = stop
        return owners, nbr, wgt


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
        ``capacity_bytes`` bounds the chunks held.  Default:
        :func:`~cugraph_stream.backends.chunks.chunk_allocator` for ``ops``
        with a capacity of :attr:`usable_bytes` (on the GPU: chunks from an
        RMM pool of that size, reserved when the cache is made, or from
        CuPy's pool without RMM).  Caches given the same allocator share its
        capacity.
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
        Per chunk id, the :class:`~cugraph_stream.backends.chunks.Chunk` or ``None``.
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
    >>> report = cache.refresh(np.array([2, 0]), np.array([], dtype=np.int64), adj)
    >>> report.loaded_lists, report.allocated_chunks, cache.in_cache[:3].tolist()
    (2, 1, [True, False, True])
    >>> view = cache.view(adj)
    >>> view.neighbors(0)[0].tolist(), int(view.chunk[0]), int(view.start[0]), int(view.start[2])
    ([1, 2], 0, 1, 0)
    >>> report = cache.refresh(np.array([0]), np.array([0]), adj)   # 2 left, 0 changed: reloaded
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
            allocator = chunk_allocator(ops, self.usable_bytes or None)
        self.allocator = allocator
        self.chunk_id = xp.zeros(0, dtype=xp.int32)
        self.chunk_offset = xp.zeros(0, dtype=xp.int32)
        self.cached_degree = xp.zeros(0, dtype=xp.int32)
        self.in_cache = xp.zeros(0, dtype=bool)
        self._flags = xp.zeros(0, dtype=xp.uint8)   # refresh scratch, left zero
        self._bound_seen = 0     # the highest bound a refresh scanned since: vertices may be cached below it

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
        if self.id_bytes == 4 or int(bound) <= PACKED_ID_LIMIT:
            return False
        self.clear()
        self._size_chunks(4)
        return True

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
        for name in self._PER_VERTEX:
            setattr(self, name, self.ops.xp.zeros(size, dtype=getattr(self, name).dtype))
        self.chunk_id[:] = -1
        return True

    @property
    def usable_bytes(self):
        """Bytes the cache can hold: whole chunks within the budget."""
        return self.max_chunks * self.chunk_bytes

    @property
    def chunks_held(self):
        return sum(chunk is not None for chunk in self.chunks)

    @property
    def held_bytes(self):
        """Bytes of the chunks this cache holds now (never above the budget)."""
        return self.chunks_held * self.chunk_bytes

    def memory_bytes(self):
        """Device bytes of the cache: chunks, per-vertex arrays and chunk tables."""
        per_vertex = self.ops.memory_bytes(*(getattr(self, name) for name in self._PER_VERTEX))
        return self.held_bytes + per_vertex + self.ops.memory_bytes(self.nbr_pointers, self.wgt_pointers)

    # --------------------------------------------------------------- selection
    def list_values(self, score, adjacency):
        """:func:`list_values` of ``adjacency``'s lists with this cache's sizes: what a
        cached copy saves (neighbours, and weights if held) per byte; lists over one
        chunk are left out."""
        read_itemsizes = (NBR_ITEMSIZE,) + ((self.weight_dtype.itemsize,) if self.weights else ())
        return list_values(self.ops, score, adjacency.degree, self.slot_bytes, read_itemsizes,
                           self.chunk_slots)

    def select(self, score, adjacency):
        """Candidates for :meth:`refresh` when the cache has its budget to itself:
        :func:`select_candidates` over :meth:`list_values`, within :attr:`usable_bytes`."""
        return select_candidates(self.ops, [self.list_values(score, adjacency)], self.usable_bytes)[0]

    # ----------------------------------------------------------------- refresh
    def refresh(self, candidates, changed_vertices, adjacency, bound=None):
        """Bring the cache up to date with a batch (Grapin's Algorithm 3, compacting lazily).

        Call once per batch, after the host store applied the batch and
        before any kernel reads lists.  :meth:`evict` then :meth:`load`;
        caches sharing one allocator evict all before any loads.

        Parameters
        ----------
        candidates : array of int
            Distinct vertices, most valuable first (:meth:`select`).
        changed_vertices : array of int
            Vertices whose list changed (repeats allowed; see :func:`changed_lists`).
        adjacency : Adjacency
            The host store of the cached direction.
        bound : int, optional
            Vertex ids are below ``bound`` (the store's vertex bound): scans of
            the per-vertex arrays stop there instead of at their capacity.

        Returns
        -------
        RefreshReport
        """
        report = RefreshReport()
        self.evict(candidates, changed_vertices, adjacency, report, bound)
        self.load(candidates, adjacency, report, bound)
        return report

    def _scan_bound(self, bound):
        """How far per-vertex scans go: ``bound``, or all of the arrays when it is None."""
        return int(self.in_cache.size) if bound is None else min(int(bound), int(self.in_cache.size))

    def evict(self, candidates, changed_vertices, adjacency, report, bound=None):
        """Step 1: evict cached vertices that are not in ``candidates`` and those in
        ``changed_vertices`` (their lists changed in this batch).  Their slots
        become garbage; chunks left with garbage only are released, chunks
        left with more garbage than lists are compacted (and merged where
        another chunk's tail takes them), so that their memory serves
        whichever cache of the budget needs it."""
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
        report.evicted = int(evicted.size)
        if report.evicted == 0:
            return
        report.evicted_changed = int(evicted_changed)
        lost = xp.bincount(self.chunk_id[evicted].astype(xp.int64),
                           weights=self.cached_degree[evicted].astype(xp.float64), minlength=self.max_chunks)
        self.garbage += self.ops.to_host(lost).astype(np.int64)
        self._forget(evicted)
        for c in range(self.max_chunks):
            if self.chunks[c] is None:
                continue
            if self.garbage[c] == self.fill[c]:
                self._release_chunk(c)
                report.released_chunks += 1
            elif 2 * self.garbage[c] > self.fill[c]:
                self._compact(c, report, scanned)

    def _forget(self, vertices):
        self.in_cache[vertices] = False
        self.chunk_id[vertices] = -1
        self.chunk_offset[vertices] = 0
        self.cached_degree[vertices] = 0

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
        """Steps 2-4: compact chunks while the pending lists need the room, then
        allocate chunks as needed (within the budget) and load the candidates
        not in the cache, most valuable first, list by list from the host
        store (``adjacency.nbr/wgt[start[v]:start[v] + degree[v]]``, read in
        place): into the free tails of the chunks in id order, then into new
        chunks (next fit).  Lists that find no room compact further chunks,
        as long as some hold garbage.  Candidates with an empty list or a
        list over one chunk are skipped; those that find no room in the end
        are counted in ``not_loaded``.  Fills in the report's state fields."""
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
        report.cached_lists, report.cached_edges = (int(x) for x in self.ops.to_host(xp.stack((
            self.in_cache[:scanned].sum(dtype=xp.int64),
            self.cached_degree[:scanned].sum(dtype=xp.int64)))))
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
        self.fill[c] = self.garbage[c] = 0
        self.nbr_pointers[c] = 0
        self.wgt_pointers[c] = 0

    def clear(self):
        """Evict everything and release every chunk."""
        self._forget(self.ops.xp.flatnonzero(self.in_cache))
        for c in range(self.max_chunks):
            if self.chunks[c] is not None:
                self._release_chunk(c)
        self._bound_seen = 0

    # ---------------------------------------------------------------- rollback
    def snapshot(self, bound=None):
        """What the cache holds, for :meth:`reload` after a failed batch: per vertex
        (below ``bound``, when given), where its list lies (chunk and offset as one
        number; -1 when not cached), and the id format.  One pass, no synchronisation."""
        xp = self.ops.xp
        bound = self._scan_bound(bound)
        place = self.chunk_id[:bound].astype(xp.int64) * self.chunk_slots + self.chunk_offset[:bound]
        return xp.where(self.in_cache[:bound], place, -1), self.id_bytes

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
        chunk's ``fill``; no chunk holds garbage only; the chunks held stay
        within the budget; uncached vertices point nowhere; the address
        tables match.
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
        if self.held_bytes > self.budget_bytes or self.allocator.held_bytes > self.budget_bytes:
            problems.append(f"chunks hold {self.held_bytes} bytes, over the budget of {self.budget_bytes}")
        held = np.array([c is not None for c in self.chunks], dtype=bool)
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
