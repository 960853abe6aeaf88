"""Where the adjacency lives: the memory a graph of a given size needs on the device.

``placement="auto"`` keeps the whole store in device memory when it fits the
device memory budget, and otherwise keeps the adjacency in host memory with
the rest of the budget as the hot-subgraph cache.  The estimate follows the
store's layout (:mod:`cugraph_stream.engine.adjacency`,
:mod:`cugraph_stream.engine.hash_index`): lists with a quarter of room and a
quarter more at the end of the slot arrays after a bulk load, twin pointers
in a directed store, an edge index at most half full.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

PLACEMENTS = ("device", "host", "cached", "auto")

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


def device_footprint(num_vertices, num_edges, directed, weight_dtype, queries=1):
    """Estimate the device bytes of a store of ``num_edges`` edges built in one load.

    >>> f = device_footprint(1000, 10_000, directed=True, weight_dtype="float32")
    >>> f.adjacency, f.index, f.per_vertex
    (500000, 524288, 105000)
    """
    arcs = 2 * int(num_edges)                    # directed: out and in; undirected: both directions
    slot_bytes = 4 + np.dtype(weight_dtype).itemsize + (8 if directed else 0)
    adjacency = int(arcs * slot_bytes * 1.25 * 1.25)
    out_arcs = int(num_edges) if directed else arcs
    capacity = 1024
    while capacity < 2 * out_arcs:
        capacity *= 2
    adjacencies = 2 if directed else 1
    per_vertex = int(num_vertices) * (adjacencies * _PER_ADJACENCY_VERTEX_BYTES + _VERTEX_TABLE_BYTES
                                      + queries * _QUERY_VERTEX_BYTES)
    return DeviceFootprint(adjacency, 16 * capacity, per_vertex)


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
