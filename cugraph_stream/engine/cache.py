"""The hot-subgraph cache: the most-read neighbour lists, copied into fast memory.

With the ``cached`` placement the adjacency stays in host memory, read in
place by the GPU, and the lists read most over the last ``tau`` batches
(:class:`~cugraph_stream.engine.hotness.Hotness`) are also kept in GPU memory
under a byte budget (Grapin, sections 5 and 6).  This module is the policy
and the bookkeeping, written once against ``ops.xp`` and the operators, so
that the NumPy backend runs (and tests) exactly what the GPU runs:

* :func:`select_candidates`: the hottest vertices whose lists fit the budget
  (sort, prefix sum, binary search).
* :class:`HotCache`: the cache itself, a CSR stored in fixed-size chunks,
  brought up to date once per batch by :meth:`HotCache.refresh` (Grapin's
  Algorithm 3: evict, compact the chunks that lost lists, consolidate,
  allocate, load), and the per-vertex arrays kernels read it through
  (:meth:`HotCache.view`).
(What the queries read, from the cache and from host memory, is counted by
:mod:`cugraph_stream.engine.reads`.)

Layout.  A list of ``d`` entries occupies ``ceil(d / align) * align`` slots
(``align`` slots are 128 bytes of neighbours and at least 128 bytes of
weights, as in :class:`~cugraph_stream.engine.adjacency.Adjacency`), so every
cached list starts on a 128-byte boundary of its chunk's ``nbr`` and ``wgt``
arrays.  Each chunk is filled from slot 0 without gaps (refresh compacts),
and its lists are recorded per vertex: chunk id, offset in the chunk, cached
degree and an in-cache flag.  Per-chunk state (a few hundred chunks at most)
lives on the host; per-vertex state lives on the device.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..backends.chunks import SECTION_ALIGN, chunk_allocator
from .adjacency import ALIGN_BYTES
from .growth import ensure_vertex_capacity
from .reads import NBR_ITEMSIZE, transactions

#: default chunk size (Grapin's 32 MB)
DEFAULT_CHUNK_BYTES = 32 << 20

_CANDIDATE = 1
_CHANGED = 2


# --------------------------------------------------------------------------- sizes
def list_alignment(weight_dtype):
    """Slots per 128 bytes of both slot arrays: lists start and grow in multiples of this.

    >>> list_alignment(np.float32), list_alignment(np.float64), list_alignment(np.float16)
    (32, 32, 64)
    """
    return max(ALIGN_BYTES // NBR_ITEMSIZE, ALIGN_BYTES // np.dtype(weight_dtype).itemsize)


def rounded_slots(degree, align):
    """Slots a list of ``degree`` entries occupies: ``degree`` rounded up to ``align``.

    >>> rounded_slots(np.array([0, 1, 32, 33]), 32).tolist()
    [0, 32, 32, 64]
    """
    return degree + (-degree) % align


# ---------------------------------------------------------------------- selection
def select_candidates(ops, score, degree, budget_bytes, slot_bytes, align, max_list_slots=None):
    """The hottest vertices whose cached lists fit ``budget_bytes`` together.

    Vertices are ranked by ``score`` (descending; ties: the smaller vertex id
    first, so the choice is deterministic on every backend), and the longest
    prefix of the ranking whose lists fit the budget is returned, in rank
    order.  A list's cached size is ``rounded_slots(degree, align) *
    slot_bytes`` (its degree rounded up to the 128-byte alignment, times the
    bytes of one neighbour plus one weight).  The prefix stops at the first
    list that does not fit, as in Grapin (a smaller, colder list behind it is
    not taken instead).

    Parameters
    ----------
    ops : Backend
    score : array of int
        Non-negative integer hotness per vertex (:meth:`Hotness.score`).
    degree : array of int
        Entries per list; vertices beyond ``min(score.size, degree.size)`` are ignored.
    budget_bytes : int
    slot_bytes : int
        Bytes of one cached slot (``4 + weight itemsize``).
    align : int
        Slots per alignment unit (:func:`list_alignment`).
    max_list_slots : int, optional
        Lists of more rounded slots are never cached: a list must fit in one
        chunk (pass the chunk's slots).

    Returns
    -------
    array of int64
        Candidate vertices, hottest first.  Vertices with score 0 or degree 0
        never qualify.

    Examples
    --------
    >>> from cugraph_stream.backends import get_backend
    >>> ops = get_backend("cpu")
    >>> score = np.array([5, 0, 9, 5, 7])
    >>> degree = np.array([10, 50, 40, 3, 0])
    >>> select_candidates(ops, score, degree, 4 * 32 * 8, slot_bytes=8, align=32).tolist()
    [2, 0, 3]
    >>> select_candidates(ops, score, degree, 3 * 32 * 8, slot_bytes=8, align=32).tolist()
    [2, 0]
    """
    xp = ops.xp
    n = min(int(score.size), int(degree.size))
    empty = xp.empty(0, dtype=xp.int64)
    if n == 0 or budget_bytes <= 0:
        return empty
    score = score[:n]
    degree = degree[:n].astype(xp.int64, copy=False)
    slots = rounded_slots(degree, align)
    eligible = (score > 0) & (degree > 0)
    if max_list_slots is not None:
        eligible &= slots <= int(max_list_slots)
    vertices = xp.flatnonzero(eligible)
    if vertices.size == 0:
        return empty
    hotness = score[vertices].astype(xp.int64)
    top = int(hotness.max())
    id_bits = max(int(n - 1).bit_length(), 1)
    if top.bit_length() + id_bits > 63:
        raise ValueError(f"score values up to {top} are too large to rank {n} vertices")
    # one key per vertex: colder is larger, then the id; distinct keys, so any sort is deterministic
    key = ((top - hotness) << id_bits) | vertices
    ranked = vertices[xp.argsort(key)]
    total = xp.cumsum(slots[ranked] * int(slot_bytes))
    count = int(xp.searchsorted(total, xp.asarray([int(budget_bytes)], dtype=total.dtype), side="right")[0])
    return ranked[:count]


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
        Chunks that lost lists and were compacted; chunks emptied into
        another chunk's free space; chunks given back (empty or merged);
        chunks newly allocated.
    moved_lists, moved_edges : int
        Lists (and their entries) moved inside the cache by compaction and merging.
    loaded_lists, loaded_edges : int
        Lists (and entries) copied from host memory into the cache.
    load_transactions : int
        128-byte host memory transactions the loads read (``nbr`` and ``wgt``).
    not_loaded : int
        Candidates left uncached for lack of room in the chunks the budget
        allows (chunk tails too short for them).
    cached_lists, cached_edges, held_bytes, chunks : int
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

    Vertex ``v`` with ``in_cache[v]`` has its ``length[v]`` entries at
    ``chunk_nbr[chunk[v]][start[v]:start[v] + length[v]]`` (weights in
    ``chunk_wgt``); otherwise at ``host_nbr[start[v]:start[v] + length[v]]``.
    A kernel takes the chunk base addresses ``nbr_pointers[chunk[v]]`` and
    ``wgt_pointers[chunk[v]]`` (``uint64``; typed pointers to ``int32`` and to
    the weight type) instead of the chunk arrays.

    Attributes
    ----------
    start : array of int64
        Offset in the vertex's chunk (cached) or slot in the host store.
    length : array of int64
        Entries of the list.
    in_cache : array of bool
    chunk : array of int32
        Chunk id, ``-1`` when not cached.
    chunk_nbr, chunk_wgt : tuple of arrays
        Per chunk id, the chunk's slot arrays (``None`` for unused ids).
    nbr_pointers, wgt_pointers : array of uint64
        Per chunk id, the data address of those arrays (0 for unused ids).
    host_nbr, host_wgt : arrays
        The host store's slot arrays.
    """

    start: object
    length: object
    in_cache: object
    chunk: object
    chunk_nbr: tuple
    chunk_wgt: tuple
    nbr_pointers: object
    wgt_pointers: object
    host_nbr: object
    host_wgt: object

    def neighbors(self, v):
        """``(nbr, wgt)`` of one vertex, read where the kernels would read it."""
        s, d = int(self.start[v]), int(self.length[v])
        if bool(self.in_cache[v]):
            c = int(self.chunk[v])
            return self.chunk_nbr[c][s:s + d], self.chunk_wgt[c][s:s + d]
        return self.host_nbr[s:s + d], self.host_wgt[s:s + d]

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
        uncached = xp.flatnonzero(~cached)
        source, owner = ops.expand_segments(self.start[vertices[uncached]], lengths[uncached])
        target = out_start[uncached][owner] + (source - self.start[vertices[uncached]][owner])
        nbr[target] = self.host_nbr[source]
        wgt[target] = self.host_wgt[source]
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
                nbr[target[piece]] = self.chunk_nbr[c][source[piece]]
                wgt[target[piece]] = self.chunk_wgt[c][source[piece]]
                first = stop
        return owners, nbr, wgt


# ---------------------------------------------------------------------------- cache
class HotCache:
    """Hot neighbour lists of one adjacency, in fixed-size chunks under a byte budget.

    Parameters
    ----------
    ops : Backend
        Operators of the device that holds the cache (and reads the host store).
    weight_dtype : dtype
        Weight dtype of the cached adjacency.
    budget_bytes : int
        Most bytes the chunks may hold together.
    chunk_bytes : int
        Bytes of one chunk (default 32 MiB).  A chunk holds ``chunk_slots``
        slots of ``nbr`` (int32) and of ``wgt``: ``chunk_bytes // (4 +
        weight itemsize)`` rounded down to 64 slots.  A budget below one
        chunk makes a single chunk of the budget's size, so small budgets
        still cache something.  Lists larger than one chunk are never cached.
    allocator : object, optional
        Chunk memory (see :mod:`cugraph_stream.backends.chunks`); default:
        :func:`~cugraph_stream.backends.chunks.chunk_allocator` for ``ops``
        (on the GPU: chunks from an RMM pool of :attr:`usable_bytes`, reserved
        when the cache is made, or from CuPy's pool without RMM).

    Attributes
    ----------
    chunk_id, chunk_offset, cached_degree : arrays of int32, per vertex
        Where a cached list is: its chunk, its first slot there, its entries
        (``-1``, 0, 0 for a vertex not in the cache).
    in_cache : array of bool, per vertex
    chunks : list
        Per chunk id, the :class:`~cugraph_stream.backends.chunks.Chunk` or ``None``.
    fill : numpy array of int64, per chunk id
        Slots used from slot 0 (the chunk's lists are packed without gaps).

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
    ([1, 2], 0, 32, 0)
    >>> report = cache.refresh(np.array([0]), np.array([0]), adj)   # 2 left, 0 changed
    >>> report.evicted, report.loaded_lists, int(cache.chunk_offset[0])
    (2, 1, 0)
    """

    def __init__(self, ops, weight_dtype, budget_bytes, chunk_bytes=DEFAULT_CHUNK_BYTES, allocator=None):
        budget_bytes, chunk_bytes = int(budget_bytes), int(chunk_bytes)
        if budget_bytes < 0:
            raise ValueError(f"budget_bytes must be non-negative, got {budget_bytes}")
        if chunk_bytes <= 0:
            raise ValueError(f"chunk_bytes must be positive, got {chunk_bytes}")
        xp = ops.xp
        self.ops = ops
        self.weight_dtype = np.dtype(weight_dtype)
        self.slot_bytes = NBR_ITEMSIZE + self.weight_dtype.itemsize
        self.align = list_alignment(self.weight_dtype)
        # chunk slots: a multiple of the list alignment and of SECTION_ALIGN / 4, so that
        # a chunk's allocation is exactly chunk_slots * slot_bytes (no padding)
        granule = max(self.align, SECTION_ALIGN // NBR_ITEMSIZE)
        slots = min(chunk_bytes, budget_bytes) // self.slot_bytes
        self.chunk_slots = slots - slots % granule
        if self.chunk_slots >= 2**31:
            raise ValueError(f"chunk_bytes={chunk_bytes} gives chunks of 2**31 slots or more")
        self.chunk_bytes = self.chunk_slots * self.slot_bytes
        self.max_chunks = budget_bytes // self.chunk_bytes if self.chunk_slots else 0
        self.budget_bytes = budget_bytes
        if allocator is None:
            # on the GPU: an RMM pool of exactly the usable budget, reserved up front
            allocator = chunk_allocator(ops, self.weight_dtype, pool_bytes=self.usable_bytes or None)
        self.allocator = allocator
        self.chunks = [None] * self.max_chunks
        self.fill = np.zeros(self.max_chunks, dtype=np.int64)
        self.nbr_pointers = xp.zeros(self.max_chunks, dtype=xp.uint64)
        self.wgt_pointers = xp.zeros(self.max_chunks, dtype=xp.uint64)
        self.chunk_id = xp.zeros(0, dtype=xp.int32)
        self.chunk_offset = xp.zeros(0, dtype=xp.int32)
        self.cached_degree = xp.zeros(0, dtype=xp.int32)
        self.in_cache = xp.zeros(0, dtype=bool)
        self._flags = xp.zeros(0, dtype=xp.uint8)   # refresh scratch, left zero

    # ------------------------------------------------------------------ sizing
    _PER_VERTEX = ("chunk_id", "chunk_offset", "cached_degree", "in_cache", "_flags")

    def ensure_vertices(self, n):
        """Make the per-vertex arrays hold at least ``n`` vertices (new ones not cached)."""
        have = int(self.chunk_id.size)
        ensure_vertex_capacity(self.ops.xp, self, self._PER_VERTEX, n)
        if self.chunk_id.size > have:
            self.chunk_id[have:] = -1

    @property
    def usable_bytes(self):
        """Bytes the cache can hold: whole chunks within the budget."""
        return self.max_chunks * self.chunk_bytes

    @property
    def chunks_held(self):
        return sum(chunk is not None for chunk in self.chunks)

    @property
    def held_bytes(self):
        """Bytes of the chunks allocated now (never above the budget)."""
        return self.chunks_held * self.chunk_bytes

    def memory_bytes(self):
        """Device bytes of the cache: chunks, per-vertex arrays and chunk tables."""
        per_vertex = self.ops.memory_bytes(*(getattr(self, name) for name in self._PER_VERTEX))
        return self.held_bytes + per_vertex + self.ops.memory_bytes(self.nbr_pointers, self.wgt_pointers)

    # --------------------------------------------------------------- selection
    def select(self, score, adjacency):
        """Candidates for :meth:`refresh`: :func:`select_candidates` with this cache's sizes.

        The budget is :attr:`usable_bytes`; lists over one chunk are left out.
        """
        return select_candidates(self.ops, score, adjacency.degree, self.usable_bytes,
                                 self.slot_bytes, self.align, self.chunk_slots)

    # ----------------------------------------------------------------- refresh
    def refresh(self, candidates, changed_vertices, adjacency):
        """Bring the cache up to date with a batch (Grapin's Algorithm 3).

        Call once per batch, after the host store applied the batch and
        before any kernel reads lists.

        1. Evict cached vertices that are not in ``candidates`` and those in
           ``changed_vertices`` (their lists changed in this batch).
        2. Compact only the chunks that lost lists: their surviving lists
           slide down, in offset order, to close the gaps.
        3. Consolidate: release chunks left empty, then move each compacted
           chunk's lists into the free tail of another chunk that can take
           them all (the fullest such chunk) and release it.
        4. Allocate chunks as needed (up to the budget) and load the
           candidates not in the cache, hottest first, list by list from the
           host store (``adjacency.nbr/wgt[start[v]:start[v] + degree[v]]``,
           read in place), each at a 128-byte aligned offset: into the free
           tails of the chunks in id order, then into new chunks (next fit).
           Candidates with an empty list or a list over one chunk are skipped;
           those that find no room are counted in ``not_loaded``.

        Parameters
        ----------
        candidates : array of int
            Distinct vertices, hottest first (:meth:`select`).
        changed_vertices : array of int
            Vertices whose list changed (repeats allowed; see :func:`changed_lists`).
        adjacency : Adjacency
            The host store of the cached direction.

        Returns
        -------
        RefreshReport
        """
        xp = self.ops.xp
        self.ensure_vertices(int(adjacency.start.size))
        candidates = candidates.astype(xp.int64, copy=False)
        changed_vertices = changed_vertices.astype(xp.int64, copy=False)
        report = RefreshReport()
        survivors, affected = self._evict(candidates, changed_vertices, report)
        self._compact(survivors, affected, report)
        self._consolidate(survivors, affected, report)
        self._load(candidates, adjacency, report)
        report.cached_lists = int(self.in_cache.sum())
        report.cached_edges = int(self.cached_degree.sum(dtype=xp.int64))
        report.held_bytes = self.held_bytes
        report.chunks = self.chunks_held
        return report

    def _evict(self, candidates, changed, report):
        """Step 1.  Returns the cached vertices kept, and the ids of chunks that lost lists."""
        xp = self.ops.xp
        cached = xp.flatnonzero(self.in_cache)
        nothing = np.empty(0, dtype=np.int64)
        if cached.size == 0:
            return cached, nothing
        flags = self._flags
        flags[candidates] = _CANDIDATE
        flags[changed] |= _CHANGED
        state = flags[cached]
        flags[candidates] = 0
        flags[changed] = 0
        keep = state == _CANDIDATE
        evicted = cached[~keep]
        if evicted.size == 0:
            return cached, nothing
        report.evicted = int(evicted.size)
        report.evicted_changed = int(((state & _CHANGED) != 0).sum())
        lost = xp.bincount(self.chunk_id[evicted].astype(xp.int64), minlength=self.max_chunks)
        self._forget(evicted)
        return cached[keep], np.flatnonzero(self.ops.to_host(lost))

    def _forget(self, vertices):
        self.in_cache[vertices] = False
        self.chunk_id[vertices] = -1
        self.chunk_offset[vertices] = 0
        self.cached_degree[vertices] = 0

    def _compact(self, survivors, affected, report):
        """Step 2: close the gaps in the chunks that lost lists."""
        xp = self.ops.xp
        if affected.size == 0:
            return
        report.compacted_chunks = int(affected.size)
        self.fill[affected] = 0
        is_affected = xp.zeros(self.max_chunks, dtype=bool)
        is_affected[xp.asarray(affected)] = True
        residents = survivors[is_affected[self.chunk_id[survivors]]]
        if residents.size == 0:
            return
        chunk = self.chunk_id[residents].astype(xp.int64)
        order = xp.argsort(chunk * self.chunk_slots + self.chunk_offset[residents])
        residents, chunk = residents[order], chunk[order]
        old = self.chunk_offset[residents].astype(xp.int64)
        length = self.cached_degree[residents].astype(xp.int64)
        size = rounded_slots(length, self.align)
        begin = xp.cumsum(size) - size
        group_first = xp.searchsorted(chunk, chunk, side="left")
        new = begin - begin[group_first]
        used = self.ops.to_host(xp.bincount(chunk, weights=size, minlength=self.max_chunks))
        self.fill[affected] = used[affected].astype(np.int64)
        moving = xp.flatnonzero(new != old)
        if moving.size:
            report.moved_lists += int(moving.size)
            report.moved_edges += int(length[moving].sum())
            self._move_within_chunks(chunk[moving], old[moving], new[moving], length[moving])
        self.chunk_offset[residents] = new.astype(xp.int32)

    def _move_within_chunks(self, chunk, old, new, length):
        """Move lists (sorted by chunk) from offset ``old`` to ``new`` of their chunk."""
        xp = self.ops.xp
        source, owner = self.ops.expand_segments(old, length)
        target = new[owner] + (source - old[owner])
        element_chunk = chunk[owner]
        ids = np.unique(self.ops.to_host(chunk))
        stops = self.ops.to_host(xp.searchsorted(element_chunk, xp.asarray(ids), side="right"))
        first = 0
        for c, stop in zip(ids.tolist(), stops.tolist()):   # a loop over chunks
            piece = slice(first, stop)
            storage = self.chunks[c]
            # the right side is gathered before the scatter: overlapping moves are safe
            storage.nbr[target[piece]] = storage.nbr[source[piece]]
            storage.wgt[target[piece]] = storage.wgt[source[piece]]
            first = stop

    def _consolidate(self, survivors, affected, report):
        """Step 3: release empty chunks; merge compacted chunks into others' free tails."""
        xp = self.ops.xp
        for c in range(self.max_chunks):
            if self.chunks[c] is not None and self.fill[c] == 0:
                self._release_chunk(c)
                report.released_chunks += 1
        sources = [int(c) for c in affected if self.chunks[c] is not None]
        for s in sorted(sources, key=lambda c: (int(self.fill[c]), -c)):   # emptiest first; ties: higher id moves
            need = int(self.fill[s])
            if self.chunks[s] is None or need == 0:
                continue
            room = [(self.chunk_slots - int(self.fill[d]), d) for d in range(self.max_chunks)
                    if d != s and self.chunks[d] is not None and self.chunk_slots - int(self.fill[d]) >= need]
            if not room:
                continue
            _, d = min(room)                       # best fit: the least room that suffices
            base = int(self.fill[d])
            self.chunks[d].nbr[base:base + need] = self.chunks[s].nbr[:need]
            self.chunks[d].wgt[base:base + need] = self.chunks[s].wgt[:need]
            residents = survivors[self.chunk_id[survivors] == s]
            self.chunk_id[residents] = d
            self.chunk_offset[residents] += base
            self.fill[d] += need
            self.fill[s] = 0
            self._release_chunk(s)
            report.merged_chunks += 1
            report.released_chunks += 1
            report.moved_lists += int(residents.size)
            report.moved_edges += int(self.cached_degree[residents].sum(dtype=xp.int64))

    def _load(self, candidates, adjacency, report):
        """Step 4: allocate chunks and load the candidates not in the cache."""
        xp, ops = self.ops.xp, self.ops
        if candidates.size == 0:
            return
        pending = candidates[~self.in_cache[candidates]]
        degree = adjacency.degree[pending].astype(xp.int64)
        size = rounded_slots(degree, self.align)
        fits = xp.flatnonzero((degree > 0) & (size <= self.chunk_slots))
        pending, degree, size = pending[fits], degree[fits], size[fits]
        count = int(pending.size)
        if count == 0:
            return
        end = ops.to_host(xp.cumsum(size))            # one transfer; the packing runs on the host
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
            if self.chunks[c] is not None and self.chunk_slots - self.fill[c] >= self.align:
                place(c)
        while placed < count and self.chunks_held < self.max_chunks:
            place(self._allocate_chunk())
            report.allocated_chunks += 1
        report.not_loaded = count - placed
        if placed == 0:
            return
        loaded, degree, size = pending[:placed], degree[:placed], size[:placed]
        stops = xp.asarray(np.array([p[2] for p in placements], dtype=np.int64))
        which = xp.searchsorted(stops, xp.arange(placed, dtype=xp.int64), side="right")
        chunk = xp.asarray(np.array([p[0] for p in placements], dtype=np.int64))[which]
        shift = xp.asarray(np.array([p[3] for p in placements], dtype=np.int64))[which]
        offset = xp.cumsum(size) - size + shift
        self.chunk_id[loaded] = chunk.astype(xp.int32)
        self.chunk_offset[loaded] = offset.astype(xp.int32)
        self.cached_degree[loaded] = degree.astype(xp.int32)
        self.in_cache[loaded] = True
        host_start = adjacency.start[loaded].astype(xp.int64)
        source, owner = ops.expand_segments(host_start, degree)
        target = offset[owner] + (source - host_start[owner])
        element_end = ops.to_host(xp.cumsum(degree))
        for c, first, stop, _ in placements:          # a loop over chunks
            piece = slice(int(element_end[first - 1]) if first else 0, int(element_end[stop - 1]))
            self.chunks[c].nbr[target[piece]] = adjacency.nbr[source[piece]]
            self.chunks[c].wgt[target[piece]] = adjacency.wgt[source[piece]]
        report.loaded_lists = placed
        report.loaded_edges = int(element_end[-1])
        itemsize = np.dtype(adjacency.wgt.dtype).itemsize
        report.load_transactions = int((transactions(xp, host_start, degree, NBR_ITEMSIZE)
                                        + transactions(xp, host_start, degree, itemsize)).sum())

    # ------------------------------------------------------------------ chunks
    def _allocate_chunk(self):
        c = self.chunks.index(None)
        storage = self.allocator.allocate(self.chunk_slots)
        self.chunks[c] = storage
        self.fill[c] = 0
        self.nbr_pointers[c] = self.allocator.address(storage.nbr)
        self.wgt_pointers[c] = self.allocator.address(storage.wgt)
        return c

    def _release_chunk(self, c):
        self.allocator.release(self.chunks[c])
        self.chunks[c] = None
        self.fill[c] = 0
        self.nbr_pointers[c] = 0
        self.wgt_pointers[c] = 0

    def clear(self):
        """Evict everything and release every chunk."""
        self._forget(self.ops.xp.flatnonzero(self.in_cache))
        for c in range(self.max_chunks):
            if self.chunks[c] is not None:
                self._release_chunk(c)

    # ----------------------------------------------------------------- reading
    def view(self, adjacency):
        """Where every vertex's list is, cache or store (see :class:`CacheView`)."""
        xp = self.ops.xp
        n = int(adjacency.start.size)
        self.ensure_vertices(n)
        in_cache = self.in_cache[:n]
        start = xp.where(in_cache, self.chunk_offset[:n].astype(xp.int64), adjacency.start.astype(xp.int64))
        length = xp.where(in_cache, self.cached_degree[:n].astype(xp.int64), adjacency.degree.astype(xp.int64))
        return CacheView(start, length, in_cache, self.chunk_id[:n],
                         tuple(None if c is None else c.nbr for c in self.chunks),
                         tuple(None if c is None else c.wgt for c in self.chunks),
                         self.nbr_pointers, self.wgt_pointers, adjacency.nbr, adjacency.wgt)

    def check(self, adjacency):
        """Raise ``RuntimeError`` unless the cache agrees with the host store (a debugging aid).

        Checks: every cached list equals the host store's list of its vertex
        (entries and weights, in order); cached lists lie inside allocated
        chunks, start 128-byte aligned, do not overlap and pack each chunk
        from slot 0 (``fill``); no chunk is empty; the chunks held stay within
        the budget; uncached vertices point nowhere; the address tables match.
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
        if bool((self.fill[held] <= 0).any()):
            problems.append("an empty chunk is held")
        if bool((self.fill[~held] != 0).any()) or bool((self.fill > self.chunk_slots).any()):
            problems.append("a chunk fill is out of range")
        nbr_addresses = ops.to_host(self.nbr_pointers)
        wgt_addresses = ops.to_host(self.wgt_pointers)
        for c in range(self.max_chunks):
            storage = self.chunks[c]
            expected = (0, 0) if storage is None else (self.allocator.address(storage.nbr),
                                                       self.allocator.address(storage.wgt))
            if (int(nbr_addresses[c]), int(wgt_addresses[c])) != expected:
                problems.append(f"chunk {c}: the address table is stale")
        if cached.size:
            chunk = self.chunk_id[cached].astype(xp.int64)
            offset = self.chunk_offset[cached].astype(xp.int64)
            length = self.cached_degree[cached].astype(xp.int64)
            size = rounded_slots(length, self.align)
            if bool((chunk < 0).any()) or bool((chunk >= self.max_chunks).any()):
                problems.append("a cached list has a chunk id out of range")
            elif not bool(xp.asarray(held)[chunk].all()):
                problems.append("a cached list points at a chunk that is not held")
            else:
                if bool((offset % self.align != 0).any()):
                    problems.append(f"a cached list is not aligned to {self.align} slots")
                if bool((length <= 0).any()):
                    problems.append("an empty list is cached")
                fill = xp.asarray(self.fill)
                if bool((offset < 0).any()) or bool((offset + size > fill[chunk]).any()):
                    problems.append("a cached list lies beyond its chunk's fill")
                order = xp.argsort(chunk * self.chunk_slots + offset)
                c_sorted, o_sorted, s_sorted = chunk[order], offset[order], size[order]
                same = c_sorted[1:] == c_sorted[:-1]
                if bool((same & (o_sorted[1:] < o_sorted[:-1] + s_sorted[:-1])).any()):
                    problems.append("two cached lists overlap")
                used = ops.to_host(xp.bincount(chunk, weights=size, minlength=self.max_chunks))
                if not np.array_equal(used.astype(np.int64), self.fill):
                    problems.append("a chunk is not packed from slot 0 (fill != slots of its lists)")
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
