"""Batch reduction: many rows in order, one net change per edge.

A batch's effect equals applying its rows in order; this module computes
that net effect without applying rows one by one.  Rows are grouped by edge
(stable sort, so row order survives inside a group); the edge's state before
each row follows from the row before it (or from the store for the first
row); the last row decides the final state.  Insert-then-delete pairs,
duplicates and re-inserts of the same weight therefore cost nothing
downstream.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .hash_index import arc_key
from .runs import runs

INSERT = 1
DELETE = -1


@dataclass
class ReducedBatch:
    """Net effect of a batch on the edges (internal ids; undirected: ``u <= v``)."""

    insert_u: object
    insert_v: object
    insert_w: object
    delete_u: object
    delete_v: object
    update_u: object
    update_v: object
    update_w: object
    counts: dict = field(default_factory=dict)


def reduce_batch(store, u, v, w, op):
    """Reduce rows ``(u, v, w, op)`` (internal ids of existing vertices) to net changes.

    Parameters
    ----------
    store : GraphStore
        The graph before the batch (only read).
    u, v : int64 arrays
        Internal ids of each row's endpoints.
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
    n = int(u.size)
    if n == 0:
        empty = xp.empty(0, dtype=xp.int64)
        ew = xp.empty(0, dtype=store.weight_dtype)
        return ReducedBatch(empty, empty, ew, empty, empty, empty, empty, ew,
                            dict(inserted=0, deleted=0, weight_updated=0, unchanged=0, cancelled=0, ignored=0))
    key = arc_key(xp, u, v)
    order = xp.argsort(key, kind="stable")
    key, op, w = key[order], op[order], w[order]
    first, _, group = runs(xp, key)
    starts_group = xp.zeros(n, dtype=bool)
    starts_group[first] = True
    last = xp.concatenate((first[1:] - 1, xp.asarray([n - 1], dtype=first.dtype)))

    slot = store.index.get(key[first])
    present_before = slot >= 0
    weight_before = xp.where(present_before, store.out.wgt[xp.maximum(slot, 0)], 0).astype(w.dtype)

    # state just before each row: from the store for a group's first row,
    # else from the row before it
    is_insert = op == INSERT
    row_present = xp.where(starts_group, present_before[group],
                           xp.concatenate((xp.zeros(1, dtype=bool), is_insert[:-1])))
    row_weight = xp.where(starts_group, weight_before[group], xp.concatenate((w[:1], w[:-1])))
    ignored_rows = ~is_insert & ~row_present
    effective = (~is_insert & row_present) | (is_insert & (~row_present | (w != row_weight)))
    any_effect = xp.bincount(group, weights=effective.astype(xp.float64), minlength=first.size) > 0

    present_after = is_insert[last]
    weight_after = w[last]
    ku, kv = (key[first] >> 32), (key[first] & 0xFFFFFFFF)
    inserted = ~present_before & present_after
    deleted = present_before & ~present_after
    both = present_before & present_after
    updated = both & (weight_after != weight_before)
    no_net = (both & ~updated) | (~present_before & ~present_after)
    per_key = xp.stack((inserted, deleted, updated, both & ~updated & ~any_effect, no_net & any_effect))
    totals = per_key.sum(axis=1).tolist() + [int(ignored_rows.sum())]      # two transfers, not six
    counts = dict(zip(("inserted", "deleted", "weight_updated", "unchanged", "cancelled", "ignored"),
                      (int(t) for t in totals)))
    return ReducedBatch(ku[inserted], kv[inserted], weight_after[inserted],
                        ku[deleted], kv[deleted],
                        ku[updated], kv[updated], weight_after[updated], counts)
