"""Where a graph's parts live: one :class:`Placement` value, resolved once from the user's options.

``StreamGraph(placement=...)`` takes ``"device"``, ``"host"``, ``"cached"`` or
``"auto"`` with a few options; :meth:`Placement.resolve` checks them and turns
them into a frozen :class:`Placement` that every layer reads as it is: the
store (which memory its slot arrays and arc index take, whether it counts
host reads, whether it keeps caches), the backends (through the adjacency's
``memory``) and the checkpoints.

``"auto"`` keeps the whole store in device memory when it fits the device
memory budget, and otherwise keeps the adjacency in host memory with the rest
of the budget as the hot-subgraph cache (:func:`choose_placement` on the
:func:`device_footprint` estimate).  The estimate follows the store's layout
(:mod:`cugraph_stream.engine.adjacency`, :mod:`cugraph_stream.engine.arc_index`):
lists in the size class :func:`~cugraph_stream.engine.adjacency.load_room` gives their
degree and 1/8 more at the end of the slot arrays after a bulk load (1.5 slots per arc
on a power-law graph), twin
pointers in a directed store's out-adjacency, an arc index (4 bytes a position) at most
half full.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..backends.base import SLOT_DTYPE
from .cache import DEFAULT_CHUNK_BYTES
from .hotness import DEFAULT_TAU

PLACEMENTS = ("device", "host", "cached", "auto")


def _is_count(value):
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool) and value >= 0


@dataclass(frozen=True)
class Placement:
    """Where a store keeps its parts (see the module docstring).

    Attributes
    ----------
    kind : {"device", "host", "cached"}
        ``"device"``: everything in the backend's memory; ``"host"``: the
        adjacency and the arc index in pinned host memory read in place (the
        per-vertex arrays stay on the device); ``"cached"``: ``"host"`` plus a
        cache of hot lists in device memory.
    cache_budget : int
        Bytes of the cache (``"cached"``; one budget for both directions).
    tau : int
        Batches in the hotness window (``"cached"``).
    chunk_bytes : int
        Most bytes of one cache chunk (``"cached"``).

    Examples
    --------
    >>> p = Placement.resolve("cached", cache_budget=1 << 20)
    >>> p.kind, p.memory, p.counts_reads, p.cached
    ('cached', 'host', True, True)
    >>> Placement.resolve("auto", device_memory_budget=1 << 30).kind      # an empty graph fits
    'device'
    """

    kind: str = "device"
    cache_budget: int = 0
    tau: int = DEFAULT_TAU
    chunk_bytes: int = DEFAULT_CHUNK_BYTES

    @property
    def memory(self):
        """Memory of the slot arrays and the arc index: ``"device"`` or ``"host"``
        (what ``Backend.aligned_empty`` takes)."""
        return "device" if self.kind == "device" else "host"

    @property
    def counts_reads(self):
        """Whether the queries' reads from host memory are counted (host memory holds the lists)."""
        return self.kind != "device"

    @property
    def cached(self):
        """Whether hot lists are cached in device memory."""
        return self.kind == "cached"

    @classmethod
    def resolve(cls, placement="device", cache_budget=None, tau=DEFAULT_TAU, chunk_bytes=DEFAULT_CHUNK_BYTES,
                device_memory_budget=None, footprint=None):
        """Check the user's options and decide ``"auto"``.

        ``"auto"`` needs ``device_memory_budget``; with the ``footprint`` of
        the graph about to be loaded (:func:`device_footprint`) it chooses
        between ``"device"`` and ``"cached"`` / ``"host"``
        (:func:`choose_placement`); without one (an empty graph) it is
        ``"device"``.  Raises ``ValueError`` naming the bad option.
        """
        if placement not in PLACEMENTS:
            raise ValueError(f"placement must be one of {list(PLACEMENTS)}, got {placement!r}")
        if placement == "cached" and not _is_count(cache_budget):
            raise ValueError(f"placement='cached' needs cache_budget, a number of bytes >= 0, got {cache_budget!r}")
        if placement == "auto":
            if not _is_count(device_memory_budget):
                raise ValueError("placement='auto' needs device_memory_budget, a number of bytes >= 0, "
                                 f"got {device_memory_budget!r}")
            placement, cache_budget = ("device", 0) if footprint is None else \
                choose_placement(footprint, device_memory_budget)
        return cls(placement, int(cache_budget or 0) if placement == "cached" else 0, int(tau), int(chunk_bytes))

#: per vertex, per adjacency: start, degree and capacity (int64)
_PER_ADJACENCY_VERTEX_BYTES = 3 * 8
#: per vertex in the vertex table: external id, alive flag, sorted copies
_VERTEX_TABLE_BYTES = 8 + 1 + 2 * 8
#: per vertex of a tracked query: value, parent and their previous copies
_QUERY_VERTEX_BYTES = 4 * 8


@dataclass(frozen=True)
class DeviceFootprint:
    """Bytes a store needs in device memory, by part (see :func:`device_footprint`)."""

    adjacency: int
    index: int
    per_vertex: int

    @property
    def total(self):
        return self.adjacency + self.index + self.per_vertex


#: slots per arc after a bulk load: the size classes of ``load_room`` (1.29 slots owned
#: per arc on R-MAT scale 18) and 1/8 more at the end (:mod:`cugraph_stream.engine.adjacency`)
SLOTS_PER_ARC = 1.5


def device_footprint(num_vertices, num_edges, directed, weight_dtype, queries=1):
    """Estimate the device bytes of a store of ``num_edges`` edges built in one load.

    >>> f = device_footprint(1000, 10_000, directed=True, weight_dtype="float32")
    >>> f.adjacency, f.index, f.per_vertex
    (300000, 131072, 105000)
    """
    arcs = 2 * int(num_edges)                    # directed: out and in; undirected: both directions
    slot_bytes = 4 + np.dtype(weight_dtype).itemsize + (2 if directed else 0)     # a 4-byte twin per out-arc
    adjacency = int(arcs * slot_bytes * SLOTS_PER_ARC)
    out_arcs = int(num_edges) if directed else arcs
    capacity = 1024
    while capacity < 2 * out_arcs:
        capacity *= 2
    adjacencies = 2 if directed else 1
    per_vertex = int(num_vertices) * (adjacencies * _PER_ADJACENCY_VERTEX_BYTES + _VERTEX_TABLE_BYTES
                                      + queries * _QUERY_VERTEX_BYTES)
    return DeviceFootprint(adjacency, SLOT_DTYPE.itemsize * capacity, per_vertex)


def choose_placement(footprint, device_memory_budget):
    """``("device", 0)`` when ``footprint`` fits the budget, else ``("cached",
    cache_budget)`` with what the per-vertex arrays leave of it (``("host", 0)``
    when nothing is left).

    >>> choose_placement(DeviceFootprint(100, 50, 10), 200)
    ('device', 0)
    >>> choose_placement(DeviceFootprint(1000, 500, 10), 200)
    ('cached', 190)
    >>> choose_placement(DeviceFootprint(1000, 500, 300), 200)
    ('host', 0)
    """
    budget = int(device_memory_budget)
    if footprint.total <= budget:
        return "device", 0
    left = budget - footprint.per_vertex
    return ("cached", left) if left > 0 else ("host", 0)
