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


def reduce_rows_of_ends(store, src, dst, w, op):
    """:func:`reduce_batch` of rows naming their ends by external id (``src``,
    ``dst``), with the lookup of their internal ids, in one wait for both.

    Returns ``(reduced, ids, missing)``: ``ids`` the ends' internal ids (the
    sources', then the destinations'; -1 where absent); ``reduced`` as
    :func:`reduce_batch` gives it and ``missing`` None, where every insert
    row names known vertices; else ``reduced`` None and ``missing`` the
    ends of insert rows that no vertex has (repeats kept, in no order): the
    caller creates them and reduces the rows again.

    Examples
    --------
    >>> import numpy as np
    >>> from cugraph_stream.backends import get_backend
    >>> from cugraph_stream.backends.rows import INSERT
    >>> from cugraph_stream.engine.store import GraphStore
    >>> store = GraphStore(get_backend("cpu"), directed=True, weight_dtype=np.float32)
    >>> _ = store.add_vertices(np.array([10, 20]))
    >>> reduced, ids, missing = reduce_rows_of_ends(store, np.array([10]), np.array([20]), np.ones(1, np.float32),
    ...                                            np.array([INSERT], dtype=np.int8))
    >>> ids.tolist(), reduced.counts["inserted"], missing
    ([0, 1], 1, None)
    >>> reduce_rows_of_ends(store, np.array([10]), np.array([30]), np.ones(1, np.float32),
    ...                     np.array([INSERT], dtype=np.int8))[2].tolist()
    [30]
    """
    return store.ops.net_changes_of_ends(*store.vertices.lookup_index(), src, dst, op, w, store.index.table,
                                         store.out, undirected=not store.directed)
