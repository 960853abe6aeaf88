"""The reference reader of the hot cache: every vertex's list, from a chunk or from host memory.

:meth:`HotCache.view <cugraph_stream.engine.cache.HotCache.view>` returns a
:class:`CacheView`: per vertex, where its list is (chunk and offset, or
slot in the host store) and the arrays to read it from.  It reads lists
the way a kernel reading the ``cached`` placement would, on the host side:
the reference that :meth:`~cugraph_stream.engine.cache.HotCache.check` and
the tests compare the store with.

Examples
--------
>>> from cugraph_stream.backends import get_backend
>>> from cugraph_stream.engine.adjacency import Adjacency
>>> from cugraph_stream.engine.cache import HotCache, RefreshReport
>>> ops = get_backend("cpu")
>>> adj = Adjacency(ops, np.float32, with_twin=False)
>>> adj.ensure_vertices(3)
>>> _ = adj.append(np.array([0, 0, 2]), np.array([1, 2, 0]), np.array([1., 2., 3.], np.float32))
>>> cache = HotCache(ops, np.float32, budget_bytes=4096, chunk_bytes=2048, id_bytes=3)
>>> cache.load(np.array([0]), adj, RefreshReport())
>>> view = cache.view(adj)
>>> [view.neighbors(v)[0].tolist() for v in range(3)], view.in_cache[:3].tolist()
([[1, 2], [], [0]], [True, False, False])
>>> owners, nbr, wgt = view.gather(ops, np.array([2, 0]))
>>> owners.tolist(), nbr.tolist(), wgt.tolist()
([0, 1, 1], [0, 1, 2], [3.0, 1.0, 2.0])
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..chunk_layout import read_ids


@dataclass
class CacheView:
    """How to find every vertex's list: in a cache chunk or in the host store.

    The host-side reference reader (:meth:`HotCache.check
    <cugraph_stream.engine.cache.HotCache.check>` and the tests read lists
    through it).  A backend finds the same lists through what
    :class:`~cugraph_stream.backends.base.CachedLists` declares of the cache
    (the GPU backend derives per-vertex addresses from it, kept until the
    adjacency's ``version`` changes).

    Vertex ``v`` with ``in_cache[v]`` has its ``length[v]`` neighbours at
    ``chunk_nbr[chunk[v]][start[v]:start[v] + length[v]]`` (packed or not:
    read them with :func:`~cugraph_stream.chunk_layout.read_ids`; weights
    in ``chunk_wgt`` when ``cached_weights``, else in the host store);
    otherwise at ``host_nbr[start[v]:start[v] + length[v]]``.  A kernel
    takes the chunk base addresses ``nbr_pointers[chunk[v]]`` and
    ``wgt_pointers[chunk[v]]`` (``uint64``; the neighbour address tagged
    with :data:`~cugraph_stream.chunk_layout.PACKED_IDS_TAG` when the
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
