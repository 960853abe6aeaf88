"""Batch reduction: many rows in order, one net change per edge.

A batch's effect equals applying its rows in order; this module computes
that net effect without applying rows one by one.  Rows are grouped by edge
(stable sort, so row order survives inside a group); the backend's
``net_changes`` operator then follows each edge from its state in the store
through its rows.  Insert-then-delete pairs, duplicates and re-inserts of
the same weight therefore cost nothing downstream.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .hash_index import arc_key

_LOW = 0xFFFFFFFF      # the target half of an arc key


@dataclass
class ReducedBatch:
    """Net effect of a batch on the edges (internal ids; undirected: ``u <= v``).

    ``delete_at`` and ``update_at``, when not None, hold the arc index's table
    positions of the deleted and updated edges (found by the reduction, valid
    until the store changes), so that :meth:`GraphStore.apply` need not probe
    for them again.
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
    xp = store.ops.xp
    if not store.directed:
        u, v = xp.minimum(u, v), xp.maximum(u, v)
    key = arc_key(xp, u, v)
    if key.size > 1 and not store.ops.net_changes_any_order:   # (one row needs no sort: a sort is several launches)
        order = xp.argsort(key, kind="stable")
        key, op, w = key[order], op[order], w[order]
    net = store.ops.net_changes(key, op, w, store.index.table, store.out)
    return ReducedBatch(net.inserted >> 32, net.inserted & _LOW, net.inserted_weights, net.deleted >> 32,
                        net.deleted & _LOW, net.updated >> 32, net.updated & _LOW, net.updated_weights,
                        net.counts, net.deleted_at, net.updated_at)
