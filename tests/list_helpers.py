"""Neighbour lists for the engine's tests: adjacencies built from plain dicts, and lists read back.

Imported by the cache, cache view and read-accounting tests (``tests/`` is on
``sys.path``, see ``conftest.py``).
"""
import numpy as np

from cugraph_stream.engine.adjacency import Adjacency


def host(ops, a):
    """``a`` as a NumPy array."""
    return np.asarray(ops.to_host(a))


def empty(ops):
    """No vertices, on ``ops``'s device."""
    return ops.asarray(np.zeros(0, dtype=np.int64))


def make_adjacency(ops, n, dtype, lists):
    """An adjacency whose vertex ``u`` has neighbours ``lists[u]`` (weights ``u + 0.5``)."""
    adj = Adjacency(ops, dtype, with_twin=False)
    adj.ensure_vertices(n)
    u = np.array([x for x, nb in lists.items() for _ in nb], dtype=np.int64)
    v = np.array([y for nb in lists.values() for y in nb], dtype=np.int64)
    if u.size:
        adj.append(ops.asarray(u), ops.asarray(v), ops.asarray((u + 0.5).astype(dtype)))
    return adj


def host_list(ops, adj, v):
    """``(neighbours, weights)`` of ``v``'s list in the store, as Python lists."""
    s, d = int(adj.start[v]), int(adj.degree[v])
    return host(ops, adj.nbr[s:s + d]).tolist(), host(ops, adj.wgt[s:s + d]).tolist()
