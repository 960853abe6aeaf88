"""Loading a backend's compiled kernels before a graph's first batches need them.

numba loads each compiled kernel of the CPU backend
(:mod:`cugraph_stream.backends.cpu_kernels`) from its disk cache the first
time a process calls it: 4-7 ms a kernel on the project's 2-core machine.
A bulk load and a computation from scratch call only a few of them, so a
graph's first batches loaded the rest, about ten kernels: at R-MAT scale 16
the first 10,000-row batch took 27-52 ms and the second 10-12 ms, where later
ones take about 4 ms (``StreamGraph.apply`` of the same stream, timed in one
process).  The GPU backend compiles each ``kernels/*.cu`` module with NVRTC
(or reads it from the disk cache) on its first use in a process, and CuPy
its own kernels: the first 10,000-row PageRank batch at R-MAT scale 22 took
165 ms on a lent H100 where the next took 18 ms, and the cost model of
``mode="auto"`` took those 165 ms for the incremental path's cost.

:func:`warm_up` runs the batch path once, on a tiny graph of the same kind
(direction, weight dtype, query kind, and for PageRank weighted or not) on a
backend of the same kind, so that those kernels load while a query is being
tracked, the step that computes it from scratch anyway, not inside the first
batches.  It runs once per process and kind, and only for backends that load
kernels lazily (:attr:`~cugraph_stream.backends.base.Backend.loads_kernels_lazily`):
a private backend of the same kind
(:meth:`~cugraph_stream.backends.base.Backend.spare`) runs it, so the caller's
backend, its scratch and whatever wraps its operators are not touched.

>>> import pandas as pd, cugraph_stream as cgs
>>> from cugraph_stream.backends import get_backend
>>> warm_up(get_backend("cpu", compiled=False), True, "float32", cgs.SSSP(source=0))    # nothing to load
False
"""
from __future__ import annotations

import math
import threading

import numpy as np

#: (backend name, directed, weight dtype, query kind) already warmed in this process
_warmed = set()
_lock = threading.Lock()


def _example(query):
    """A query like ``query`` (its kind and, for PageRank, whether the ranks use the
    weights) that runs its incremental kernels on the tiny graph (vertex 0 a source),
    and the variant's name; None for a kind this module does not know (nothing is
    warmed for it)."""
    from .queries import BFS, SSSP, WCC, PageRank, WidestPath
    kind = type(query)
    if kind is WCC:
        return WCC(mode="incremental"), ""
    if kind is PageRank:        # (weighted or not: other kernels; track settled which)
        weighted = bool(query.uses_weights)
        return PageRank(mode="incremental", weighted=weighted), f"weighted={weighted}"
    if kind in (SSSP, BFS, WidestPath):
        return kind(source=0, mode="incremental"), ""
    return None, ""


def _tiny_graph_batches(rng, n):
    """Four batches on vertices ``0..n-1`` plus new ones: inserts that outgrow lists and
    name a new vertex, deletes of edges that paths run through, two inserts (a
    correction small enough for PageRank's sparse pushes, which stop at ``n / 16``
    vertices; :func:`warm_up` lets them run whatever the error bound), and one
    insert alone, which a batch of one row applies in one operator call
    (:mod:`~cugraph_stream.engine.single_row`): the few-row batches of the
    general path and the one-row path both load their kernels."""
    hub = np.zeros(3 * n, dtype=np.int64)
    inserts = {"source": np.concatenate((hub, [n - 1])), "destination": np.concatenate((rng.integers(1, n, 3 * n),
                                                                                       [n + 5])),
               "weight": np.concatenate((rng.random(3 * n) + 1, [2.0])), "op": np.ones(3 * n + 1, dtype=np.int8)}
    path = np.arange(n - 1)
    deletes = {"source": path, "destination": path + 1, "weight": np.ones(n - 1),
               "op": np.full(n - 1, -1, dtype=np.int8)}
    two = {"source": [n // 2, n // 2 + 1], "destination": [n // 2 + 1, n // 2 + 2], "weight": [1.5, 1.5],
           "op": np.ones(2, dtype=np.int8)}
    one = {"source": [n // 2 + 2], "destination": [n // 2 + 3], "weight": [1.5], "op": np.ones(1, dtype=np.int8)}
    return inserts, deletes, two, one


def warm_up(ops, directed, weight_dtype, query):
    """Run a tiny graph's batch path once per process on a backend like ``ops`` (see the module docstring).

    Parameters
    ----------
    ops : Backend
        The caller's backend (only its kind is read).
    directed : bool
    weight_dtype : dtype
    query : Query
        The query being tracked (SSSP, BFS, WidestPath, WCC or PageRank; only
        its kind and variant are read).

    Returns
    -------
    bool
        Whether it ran now.
    """
    if not ops.loads_kernels_lazily:
        return False
    example, variant = _example(query)
    if example is None:
        return False
    key = (ops.name, bool(directed), np.dtype(weight_dtype).str, type(query), variant)
    with _lock:
        if key in _warmed:
            return False
        _warmed.add(key)
    import pandas as pd

    from .graph import StreamGraph
    from .queries import PageRank

    rng = np.random.default_rng(0)
    n = 64
    path = np.arange(n - 1)
    edges = pd.DataFrame({"source": np.concatenate((path, rng.integers(0, n, n))),
                          "destination": np.concatenate((path + 1, rng.integers(0, n, n))),
                          "weight": np.concatenate((np.ones(n - 1), rng.random(n) + 1))})
    spare = ops.spare()
    graph = StreamGraph.from_edgelist(edges, weight="weight", directed=directed, backend=spare,
                                      weight_dtype=weight_dtype)
    graph.track(example)
    if isinstance(example, PageRank):       # the last batch pushes sparse, however far its bound is from tol
        example.engine.sparse_levels = math.inf
    for i, batch in enumerate(_tiny_graph_batches(rng, n)):
        frame = pd.DataFrame(batch)
        if i == 1:
            # columns in the backend's memory, as cuDF frames give them (checked by a kernel of their own)
            frame = {name: spare.asarray(np.asarray(values)) for name, values in batch.items()}
            if isinstance(example, PageRank):       # the residual made exact, as a warm restart does
                example.engine.refresh_next()
        graph.apply(frame, weight="weight")
    return True
