"""What the queries read from the adjacency: entries, and bytes from host memory.

With the adjacency in host memory (placements ``host`` and ``cached``) every
list a query reads costs PCIe transactions of
:data:`~cugraph_stream.backends.base.READ_UNIT_BYTES` (64) bytes; with ``cached``,
lists in the GPU cache cost none.  The engine records each list it reads
(:meth:`cugraph_stream.engine.store.GraphStore.record_reads`) and
:class:`ReadCounters` keeps the totals on the device until the batch's
:class:`~cugraph_stream.report.BatchReport` asks for them.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..backends.base import READ_UNIT_BYTES, transactions  # noqa: F401  (the engine reads them from here)

#: bytes of one neighbour entry (``int32``)
NBR_ITEMSIZE = 4


READ_FIELDS = ("lists_read", "edges_read", "host_lists", "host_edges", "host_transactions",
               "cache_lists", "cache_edges", "cache_transactions")


def read_counts(ops, frontier, adjacency, in_cache=None, reads_weights=True, cached_weights=True):
    """What reading the lists of ``frontier`` costs, as an int64 array over :data:`READ_FIELDS`.

    Each entry of ``frontier`` is one read of that vertex's whole list.
    Empty lists read nothing and count nowhere.  A list is a *cache hit*
    when its vertex is in the cache (``in_cache``; ``None``: no cache, every
    list comes from host memory), and all its edges are then served by the
    cache; otherwise it is read from host memory in 64-byte transactions:
    per list, the 64-byte blocks its ``nbr`` range spans plus (with
    ``reads_weights``) those its ``wgt`` range spans (:func:`transactions`;
    lists start 128-byte aligned, so a list of ``d`` entries costs
    ``ceil(4 d / 64) + ceil(w d / 64)``).  A cache without weights
    (``cached_weights=False``) serves a hit's neighbours only: a hit that
    reads weights still costs the ``wgt`` transactions.

    Fields: ``lists_read``/``edges_read`` (all non-empty lists read and their
    entries), ``host_lists``/``host_edges``/``host_transactions`` (the part
    read from host memory), ``cache_lists``/``cache_edges`` (the hits) and
    ``cache_transactions`` (the host transactions the hits saved: what they
    would have cost without the cache, less the weight transactions a
    neighbour-only cache leaves to host memory).
    Stays on the device (no synchronisation; one operator call,
    :meth:`Backend.count_reads <cugraph_stream.backends.base.Backend.count_reads>`).

    >>> from cugraph_stream.backends import get_backend
    >>> from cugraph_stream.engine.adjacency import Adjacency
    >>> ops = get_backend("cpu")
    >>> adj = Adjacency(ops, np.float32, with_twin=False)
    >>> adj.ensure_vertices(3)
    >>> _ = adj.append(np.array([0] * 40 + [1]), np.arange(41), np.ones(41, np.float32))
    >>> dict(zip(READ_FIELDS, read_counts(ops, np.array([0, 1, 2]), adj, np.array([False, True, False])).tolist()))
    ... # doctest: +NORMALIZE_WHITESPACE
    {'lists_read': 2, 'edges_read': 41, 'host_lists': 1, 'host_edges': 40, 'host_transactions': 6,
     'cache_lists': 1, 'cache_edges': 1, 'cache_transactions': 2}
    """
    counts = ops.xp.zeros(len(READ_FIELDS), dtype=ops.xp.int64)
    ops.count_reads(counts, frontier, adjacency.degree, adjacency.start, in_cache,
                    np.dtype(adjacency.wgt.dtype).itemsize if reads_weights else 0, cached_weights)
    return counts


@dataclass
class ReadCounters:
    """Running totals of :func:`read_counts` over a batch, kept on the device.

    ``add`` queues no synchronisation; :meth:`totals` brings them back once.

    >>> from cugraph_stream.backends import get_backend
    >>> from cugraph_stream.engine.adjacency import Adjacency
    >>> ops = get_backend("cpu")
    >>> adj = Adjacency(ops, np.float64, with_twin=False)
    >>> adj.ensure_vertices(2)
    >>> _ = adj.append(np.array([0, 0, 1]), np.array([1, 0, 0]), np.ones(3))
    >>> counters = ReadCounters(ops)
    >>> counters.add(np.array([0, 1]), adj, in_cache=np.array([True, False]))
    >>> counters.add(np.array([0]), adj)                     # no cache: from host memory
    >>> t = counters.totals()
    >>> t["edges_read"], t["cache_edges"], t["host_edges"], t["host_bytes"], t["hit_ratio"]
    (5, 2, 3, 256, 0.4)
    """

    ops: object
    counts: object = field(default=None)

    def __post_init__(self):
        if self.counts is None:
            self.reset()

    def reset(self):
        self.counts = self.ops.xp.zeros(len(READ_FIELDS), dtype=self.ops.xp.int64)

    def add(self, frontier, adjacency, in_cache=None, reads_weights=True, cached_weights=True, times=1,
            accesses=None):
        """Count ``times`` reads of the lists of ``frontier`` (one step's reads, or
        as many identical steps'; see :func:`read_counts`), and with ``accesses``
        (an :class:`~cugraph_stream.backends.base.AccessCounts`) their accesses, in the same pass."""
        if frontier.size and times:
            self.ops.count_reads(self.counts, frontier, adjacency.degree, adjacency.start, in_cache,
                                 np.dtype(adjacency.wgt.dtype).itemsize if reads_weights else 0, cached_weights,
                                 times, accesses)

    def totals(self):
        """Plain ints per field, plus ``host_bytes`` (64 per transaction),
        ``cache_saved_bytes`` (64 per transaction the hits saved), ``hit_ratio``
        (cache edges / edges read) and ``list_hit_ratio`` (cache lists / lists read)."""
        values = dict(zip(READ_FIELDS, (int(x) for x in self.ops.to_host(self.counts))))
        values["host_bytes"] = READ_UNIT_BYTES * values["host_transactions"]
        values["cache_saved_bytes"] = READ_UNIT_BYTES * values["cache_transactions"]
        values["hit_ratio"] = values["cache_edges"] / values["edges_read"] if values["edges_read"] else 0.0
        values["list_hit_ratio"] = (values["cache_lists"] / values["lists_read"]) if values["lists_read"] else 0.0
        return values
