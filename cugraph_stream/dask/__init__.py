"""Scale-out with Dask: one ``StreamGraph`` per Dask worker, held as a Dask actor.

Mirrors the single-process API, as cuGraph's ``cugraph.dask`` mirrors
``cugraph``:

* :class:`DistributedStreamGraph` places one replica of the graph on every
  worker (one per GPU under ``dask_cuda.LocalCUDACluster``), spreads standing
  queries over the replicas, broadcasts every update batch to all of them
  (validated everywhere before it is applied anywhere) and gathers results
  as a dask (or dask-cudf) DataFrame with a ``query`` column.
* :class:`GraphReplica` is the actor class: one ``StreamGraph`` and the
  queries tracked on it.
* :func:`iter_partitions` walks a dask DataFrame partition by partition, in
  order (used by ``StreamGraph.apply_stream`` and
  ``DistributedStreamGraph.apply_stream``).

Importing this package needs neither dask nor distributed; using it does
(``pip install cugraph-stream[dask]``).
"""
from .graph import DistributedQuery, DistributedStreamGraph, WorkerLostError
from ..frame.partitions import iter_partitions
from .replica import GraphReplica

__all__ = [
           "DistributedQuery",
           "DistributedStreamGraph",
           "GraphReplica",
           "WorkerLostError",
           "iter_partitions",
]
