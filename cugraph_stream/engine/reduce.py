"""Batch reduction: many rows in order, one net change per edge.

A batch's effect equals applying its rows in order; this module computes
that net effect without applying rows one by one.  The backend's
``net_changes`` operator follows each edge from its state in the store
through its rows, in row order (it groups the rows by edge itself: a batch
hash table on the GPU and in the compiled CPU kernels, a stable sort in
NumPy), and hands each changed edge back with its ends.
Insert-then-delete pairs, duplicates and re-inserts of the same weight
therefore cost nothing downstream.
"""
from __future__ import annotations


def reduce_batch(store, u, v, w, op, unresolved=None):
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
    unresolved : int or one-element device array, optional
        How many ends of insert rows had no id when ``u`` and ``v`` were
        looked up (the count of ``VertexTable.find_rows``' ``missing``, read
        in the same wait as the reduction's counts).

    Returns
    -------
    NetChanges or None
        The operator's result (:class:`~cugraph_stream.backends.base.NetChanges`:
        internal ids, ``u <= v`` on an undirected graph), with ``counts``:
        ``inserted``, ``deleted``, ``weight_updated``, ``unchanged``
        (re-inserts of the same weight), ``cancelled`` (edges
        whose rows changed them and then changed them back) and ``ignored``
        (delete rows that found their edge absent).  None where
        ``unresolved`` is not zero: ``u`` and ``v`` lack the ids of
        vertices still to be created, and the rows must be reduced again
        once they are.
    """
    return store.ops.net_changes(u, v, op, w, store.index.table, store.out, undirected=not store.directed,
                                 unresolved=unresolved)
