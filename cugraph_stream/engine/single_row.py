"""A batch of one row in one operator call: issue 17's one-row floor.

The general path (:func:`~cugraph_stream.engine.reduce.reduce_rows_of_ends`,
then :meth:`GraphStore.apply <cugraph_stream.engine.store.GraphStore.apply>`)
serves batches of any size: a lookup and reduction, the removals and
placements with a read of what they left to do, the index claim and the twins,
each an operator call of its own and two waits before any query runs.  A
stream of single rows (a user applying each event as it arrives) pays all of
that per row.  :func:`apply_single_row` applies the usual one-row batch
instead with one operator,
:meth:`~cugraph_stream.backends.base.Backend.apply_single_row` (on the GPU one
thread of one launch, the row passed as kernel scalars: no copy of the row to
the device), and one wait for its status:

* an insert of an absent edge between known vertices whose lists both have
  room, a delete of a present edge, a weight update;
* an insert of a present edge with its weight, a delete of an absent edge.

On an undirected graph the edge's two arcs (one for a loop) change together.
Anything else (an insert that creates a vertex, a list without room, an
index due for a rebuild, cached lists) is left to the general path, whose
result it equals: the operator writes nothing then, and says so in its
status.

The operator's writes are undone, where the batch fails later, by one journal
step that reads its record then (:meth:`~cugraph_stream.engine.journal.Journal.undone_by`),
registered before the status is read: a failure at that read leaves nothing
unjournaled.
"""
from __future__ import annotations

import functools

from typing import Any, NamedTuple

from ..backends.base import (SINGLE_DELETED, SINGLE_FALLBACK, SINGLE_IGNORED, SINGLE_INSERTED, SINGLE_ROW_TREES,
                             SINGLE_UNCHANGED, SINGLE_UPDATED, SR_AT, SR_AT_WAS, SR_CUTS, SR_ENDS, SR_IN_DEGREE,
                             SR_IN_LAST, SR_IN_SLOT, SR_MIRROR_AT, SR_MIRROR_AT_WAS, SR_MIRROR_MOVED_AT, SR_MOVED_AT,
                             SR_NEW, SR_OLD, SR_OUT_DEGREE, SR_OUT_LAST, SR_OUT_SLOT, SR_STATUS, SR_TWIN_AT, SR_U,
                             SR_V, end_value)
from ..backends.rows import INSERT
from .store import StoreDelta

#: the counts of :class:`~cugraph_stream.backends.base.NetChanges` a status makes 1
_COUNTED = {SINGLE_INSERTED: "inserted", SINGLE_DELETED: "deleted", SINGLE_UPDATED: "weight_updated",
            SINGLE_UNCHANGED: "unchanged", SINGLE_IGNORED: "ignored"}


class InsertedRow(NamedTuple):
    """A one-row insert's arc as the host knows it after the row's one wait: its
    ``weight`` (a host scalar), whether the edge is also the arc ``v -> u``
    (``both_ways``: an undirected edge), and per tracked tree the values its
    ends held before the row: ``ends``, pairs ``(value array, (at_u, at_v))``.
    A query whose values the arc improves nowhere needs no correction, and
    one whose values it improves knows where (the end it improves) without a
    read (:meth:`~cugraph_stream.engine.monotonic.MonotonicEngine._improving_arcs`)."""

    weight: Any
    both_ways: bool
    ends: tuple

    def ends_of(self, value):
        """``(at_u, at_v)`` of value array ``value`` (by identity), or None where not read."""
        for array, held in self.ends:
            if array is value:
                return held
        return None


def takes_single_rows(store):
    """Whether :func:`apply_single_row` may serve ``store`` (a store without
    cached lists); it still falls back row by row."""
    return not store.cached


def apply_single_row(store, src, dst, weight, op, trees=()):
    """Apply the one-row batch ``src -> dst`` (external ids, host ints) of op ``op``
    (:data:`~cugraph_stream.backends.rows.INSERT` or ``DELETE``) and weight
    ``weight`` (a host scalar of the store's weight dtype) to ``store``, in
    one operator call and one wait, where it can (see the module docstring).

    ``trees``: pairs ``(parent, value)`` of the tracked queries' trees (the
    first :data:`~cugraph_stream.backends.base.SINGLE_ROW_TREES` are read).
    The same wait tells for a deleted arc which trees it holds no edge of,
    and the delta's ``spared_parents`` names them (their queries skip the
    invalidation: a one-row delete of an arc off every tracked tree waits for
    its status and the commit only); for an inserted arc it brings the
    values its ends held, in the delta's ``inserted_row``
    (:class:`InsertedRow`: a query whose values the arc improves nowhere
    skips the correction, so such an insert waits for its status and the
    commit only, too; one whose values it improves pushes from the improved
    end without reading its frontier).

    Returns ``(counts, delta)`` as the general path gives them (the
    :class:`~cugraph_stream.backends.base.NetChanges` counts and the
    :class:`~cugraph_stream.engine.store.StoreDelta`), or None where the
    general path must apply the row (nothing changed).

    Examples
    --------
    >>> import numpy as np
    >>> from cugraph_stream.backends import get_backend
    >>> from cugraph_stream.engine.reduce import reduce_batch
    >>> from cugraph_stream.engine.store import GraphStore
    >>> store = GraphStore(get_backend("cpu"), directed=True, weight_dtype=np.float32)
    >>> ids = store.add_vertices(np.array([10, 20, 30]))
    >>> _ = store.apply(reduce_batch(store, ids[[0]], ids[[1]], np.ones(1, np.float32), np.ones(1, np.int8)))
    >>> counts, delta = apply_single_row(store, 10, 20, np.float32(4), 1)      # 10 -> 20 reweighted
    >>> counts["weight_updated"], delta.updated_old.tolist(), delta.updated_new.tolist()
    (1, [1.0], [4.0])
    >>> counts, delta = apply_single_row(store, 10, 20, np.float32(0), -1)     # and deleted
    >>> counts["deleted"], store.num_edges, store.out.neighbors(int(ids[0])).tolist()
    (1, 0, [])
    >>> apply_single_row(store, 10, 99, np.float32(1), 1) is None               # 99 is new: the general path
    True
    """
    # an edge's arcs: the edge itself, and an undirected edge's mirror arc (not a loop's)
    arcs = 1 if store.directed or src == dst else 2
    if not takes_single_rows(store) or (op == INSERT and not store.index.has_room(arcs)):
        return None
    ops, journal, out, inn = store.ops, store.journal, store.out, store.inn
    ids = store.vertices.lookup_index()
    table = store.index.table
    journal.checkpoint()
    trees = tuple(trees[:SINGLE_ROW_TREES])
    row = ops.apply_single_row(ids, src, dst, weight, op, table, out, inn, trees)
    journal.undone_by(functools.partial(_undo, ops, row, table, (out.nbr, out.wgt, out.twin, out.degree),
                                        (inn.nbr, inn.wgt, inn.degree)))
    record = ops.read_words(row.record)
    status, cuts = int(record[SR_STATUS]), int(record[SR_CUTS])
    if status == SINGLE_FALLBACK:
        return None
    counts = dict(inserted=0, deleted=0, weight_updated=0, unchanged=0, cancelled=0, ignored=0)
    counts[_COUNTED[status]] = 1
    none, no_weights = ops.no_items(), ops.no_items(store.weight_dtype)
    inserted = deleted = updated = (none, none, no_weights)
    updated_new = no_weights
    if status in (SINGLE_INSERTED, SINGLE_DELETED, SINGLE_UPDATED):
        # (the record holds u, v, u from SR_U: an undirected edge's arcs u -> v and v -> u)
        u, v = row.record[SR_U:SR_U + arcs], row.record[SR_V:SR_V + arcs]
        new, old = row.weights[SR_NEW:SR_NEW + arcs], row.weights[SR_OLD:SR_OLD + arcs]
    inserted_row = None
    if status == SINGLE_INSERTED:
        inserted = (u, v, new)
        journal.assign(store, "num_edges", store.num_edges + 1)
        store.index.count_entered(arcs)
        inserted_row = InsertedRow(weight, arcs == 2, tuple(
            (value, (end_value(record, SR_ENDS + 2 * k, value.dtype), end_value(record, SR_ENDS + 2 * k + 1,
                                                                                value.dtype)))
            for k, (_, value) in enumerate(trees)))
    elif status == SINGLE_DELETED:
        deleted = (u, v, old)
        journal.assign(store, "num_edges", store.num_edges - 1)
        store.index.count_erased(arcs)
        store.index.fit()
    elif status == SINGLE_UPDATED:
        updated, updated_new = (u, v, old), new
    spared = tuple(parent for k, (parent, _) in enumerate(trees) if not cuts >> k & 1) if op != INSERT else ()
    return counts, StoreDelta(*inserted, *deleted, *updated, updated_new, none, none, spared, inserted_row)


def _undo(ops, row, table, out_arrays, in_arrays):
    """Rollback step of :func:`apply_single_row`: its writes undone, newest
    first, from its record read now (``out_arrays``: the out-adjacency's
    ``(nbr, wgt, twin, degree)`` it wrote, ``in_arrays`` the in-adjacency's
    ``(nbr, wgt, degree)``: the same lists' for an undirected graph, whose
    ``twin`` is None)."""
    record = [int(word) for word in ops.to_host(row.record)]
    old = ops.to_host(row.weights)[SR_OLD]
    out_nbr, out_wgt, out_twin, out_degree = out_arrays
    in_nbr, in_wgt, in_degree = in_arrays
    status, u, v = record[SR_STATUS], record[SR_U], record[SR_V]
    out_slot, in_slot = record[SR_OUT_SLOT], record[SR_IN_SLOT]
    second = in_slot >= 0           # (an entry in v's list besides u's: all but an undirected loop)
    if status == SINGLE_INSERTED:
        if record[SR_MIRROR_AT] >= 0:
            table[record[SR_MIRROR_AT]] = record[SR_MIRROR_AT_WAS]
        table[record[SR_AT]] = record[SR_AT_WAS]
        if second:
            in_degree[v] = record[SR_IN_DEGREE]
        out_degree[u] = record[SR_OUT_DEGREE]
    elif status == SINGLE_UPDATED:
        if second:
            in_wgt[in_slot] = old
        out_wgt[out_slot] = old
    elif status == SINGLE_DELETED:
        if record[SR_TWIN_AT] >= 0:
            out_twin[record[SR_TWIN_AT]] = record[SR_IN_LAST]
        if record[SR_MIRROR_MOVED_AT] >= 0:
            table[record[SR_MIRROR_MOVED_AT]] = record[SR_IN_LAST]
        if record[SR_MIRROR_AT] >= 0:
            table[record[SR_MIRROR_AT]] = record[SR_MIRROR_AT_WAS]
        if record[SR_MOVED_AT] >= 0:
            table[record[SR_MOVED_AT]] = record[SR_OUT_LAST]
        table[record[SR_AT]] = record[SR_AT_WAS]
        if second:
            in_degree[v] = record[SR_IN_DEGREE]
            in_nbr[in_slot], in_wgt[in_slot] = u, old
        out_degree[u] = record[SR_OUT_DEGREE]
        out_nbr[out_slot], out_wgt[out_slot] = v, old
        if out_twin is not None:
            out_twin[out_slot] = in_slot
