"""Batch reduction: many rows in order, one net change per edge.

A batch's effect equals applying its rows in order; this module computes
that net effect without applying rows one by one.  The backend's
``net_changes`` operator follows each edge from its state in the store
through its rows, in row order: rows grouped by edge by a stable sort, or
by the operator itself where it takes them in any order.
Insert-then-delete pairs, duplicates and re-inserts of the same weight
therefore cost nothing downstream.
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class ReducedBatch:
    """Net effect of a batch on the edges (internal ids; undirected: ``u <= v``).

    ``delete_at`` and ``update_at``, when not None, hold the arc index's table
    positions of the deleted and updated edges (found by the reduction, valid
    until the store changes), so that :meth:`GraphStore.apply` need not probe
    for them again; ``insert_keys``, when not None, the inserted edges' keys
    (:func:`~cugraph_stream.engine.hash_index.arc_key`, ascending ends on an
    undirected graph), so that it need not compute them again.
    """

    insert_u: object
    insert_v: object
    insert_w: object
    delete_u: object
    delete_v: object
    update_u: object
    update_v: object
    update_w: object
    counts: dict = field(default_factory=dict)
    delete_at: object = None
    update_at: object = None
    insert_keys: object = None


def reduce_batch(store, u, v, w, op):
    """Reduce rows ``(u, v, w, op)`` to net changes.

    Parameters
    ----------
    store : GraphStore
        The graph before the batch (only read).
    u, v : int64 arrays
        Internal ids of each row's endpoints; -1 for a vertex the graph
        lacks (delete rows only: such a row is ignored).
    w : array of the store's weight dtype
        Weight of each row (any value on delete rows).
    op : int8 array
        ``1`` for insert rows, ``-1`` for delete rows.

    Returns
    -------
    ReducedBatch
        With ``counts``: ``inserted``, ``deleted``, ``weight_updated``,
        ``unchanged`` (re-inserts of the same weight), ``cancelled`` (edges
        whose rows changed them and then changed them back) and ``ignored``
        (delete rows that found their edge absent).
    """
    net = store.ops.net_changes(u, v, op, w, store.index.table, store.out, undirected=not store.directed)
    return ReducedBatch(net.inserted_u, net.inserted_v, net.inserted_weights, net.deleted_u, net.deleted_v,
                        net.updated_u, net.updated_v, net.updated_weights, net.counts, net.deleted_at,
                        net.updated_at, net.inserted_keys)
