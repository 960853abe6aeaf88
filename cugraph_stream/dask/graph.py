"""``DistributedStreamGraph``: one graph replica per Dask worker, queries spread over them.

Every worker of the cluster (or the ones named) holds a full replica of the
graph in a :class:`~cugraph_stream.dask.GraphReplica` actor: one engine per
worker, so one per GPU under ``dask_cuda.LocalCUDACluster``.  Standing queries
are spread over the replicas (the least loaded first), so thousands of SSSP
sources run in parallel; every update batch is sent to every replica,
validated by all of them before any applies it, and applied; results come back
as a dask DataFrame (dask-cudf when the replicas run on the GPU) with a
``query`` column naming the query of each row.

A worker lost mid-stream makes the next call raise :class:`WorkerLostError`
(a ``RuntimeError``) naming the worker, not hang; :meth:`recover` then moves
its queries to the surviving replicas.

Needs ``dask[dataframe]`` and ``distributed`` (``pip install
'cugraph-stream[dask]'``); for GPUs, ``dask-cuda`` and ``dask-cudf`` too.
The example needs a cluster, so it is not run as a doctest::

    from distributed import Client, LocalCluster
    import cugraph_stream as cgs
    from cugraph_stream.dask import DistributedStreamGraph

    client = Client(LocalCluster(n_workers=2, threads_per_worker=1))
    g = DistributedStreamGraph.from_edgelist(edges, weight="weight", client=client)
    paths = g.track([cgs.SSSP(source=s) for s in sources])   # spread over the workers
    g.apply(batch, weight="weight")                          # {worker: BatchReport}
    g.results().compute()                                    # query, vertex, distance, predecessor
"""
from __future__ import annotations

import asyncio
import contextlib
import itertools
import time
import uuid

from ..queries.base import Query
from ..arrays import is_cudf
from ..frame.partitions import apply_partitions, is_dask_frame, require_dask_frame, require_stream_columns
from ..frame.schema import EdgeSchema, weight_argument
from .replica import GraphReplica, concat_frames

__all__ = ["DistributedQuery", "DistributedStreamGraph", "WorkerLostError"]

#: seconds between liveness checks while waiting for a worker's answer
POLL_S = 0.5
_GONE = ("error", "lost", "cancelled")


def _distributed():
    try:
        import distributed
    except ImportError as error:
        raise ImportError("cugraph_stream.dask needs the 'distributed' package: "
                          "pip install 'cugraph-stream[dask]'") from error
    return distributed


class WorkerLostError(RuntimeError):
    """A worker holding a graph replica was lost or stopped answering.

    Attributes
    ----------
    worker : str
        Address of the worker.
    """

    def __init__(self, worker, message):
        super().__init__(message)
        self.worker = worker

    def with_partition(self, index):
        """The same error, its message prefixed with the stream partition it came from."""
        return WorkerLostError(self.worker, f"partition {index}: {self}")


class DistributedQuery:
    """A query tracked by a :class:`DistributedStreamGraph` (returned by ``track``).

    Attributes
    ----------
    name : str
        The query's name, e.g. ``"SSSP(source=0)"``; the value of the
        ``query`` column in gathered results.
    kind : str
        The query class, e.g. ``"SSSP"``.
    """

    def __init__(self, graph, name, kind):
        self._graph = graph
        self.name = name
        self.kind = kind

    @property
    def worker(self):
        """Address of the worker whose replica maintains this query."""
        return self._graph._placement[self.name]

    def result(self):
        """The query's current result (pandas, or cuDF on GPU workers)."""
        return self._graph.result(self)

    def changes(self):
        """Rows of :meth:`result` changed by the last batch (BFS, SSSP, widest path, WCC)."""
        return self._graph.changes(self)

    def __repr__(self):
        return f"DistributedQuery({self.name}, worker={self.worker!r})"


def _replica_results(replica, names):
    """Task run on a replica's worker: that replica's stacked results."""
    return replica.results(names).result()


class DistributedStreamGraph:
    """A graph replicated on Dask workers, with standing queries spread over them.

    Parameters
    ----------
    client : distributed.Client, optional
        The cluster to use (default: the current default client).
    workers : list of str, optional
        Worker addresses to hold replicas (default: every worker of the
        cluster, one replica each).
    directed, backend, weight_dtype
        As in :class:`~cugraph_stream.StreamGraph`; ``backend="gpu"`` runs
        every replica on its worker's GPU (one GPU per worker under
        ``dask_cuda.LocalCUDACluster``).
    timeout : float, optional
        Seconds to wait for a worker's answer before declaring it lost
        (default: no limit; a worker that dies is detected within about
        ``POLL_S`` seconds whatever the timeout).

    Notes
    -----
    Not thread-safe: drive one graph from one thread.  Every replica holds
    the whole graph; what scales is the number of standing queries.
    """

    def __init__(self, client=None, workers=None, directed=True, backend="cpu",
                 weight_dtype=None, timeout=None):
        self._setup(client, workers, directed, backend, weight_dtype, timeout)
        self._start(None, "source", "destination", None)

    @classmethod
    def from_edgelist(cls, edges, source="source", destination="destination", weight=None, directed=True,
                      backend="cpu", weight_dtype=None, client=None, workers=None,
                      timeout=None, *, edge_attr=None):
        """Replicate a graph built from an edge list on the workers.

        Parameters
        ----------
        edges : pandas DataFrame, pyarrow Table, dict of arrays, or dask DataFrame
            The edge list.  A dask (or dask-cudf) DataFrame is gathered on each
            worker from its partitions (worker to worker, not through the
            client); other tables are scattered from the client once.
        source, destination, weight, edge_attr, directed, backend, weight_dtype
            As in ``StreamGraph.from_edgelist``.
        client, workers, timeout
            As in :class:`DistributedStreamGraph`.

        Raises
        ------
        ValueError
            On bad input, as ``StreamGraph.from_edgelist``; no replica is kept.
        """
        graph = cls.__new__(cls)
        graph._setup(client, workers, directed, backend, weight_dtype, timeout)
        graph._start(edges, source, destination, weight_argument(weight, edge_attr))
        return graph

    # ----------------------------------------------------------------- setup
    def _setup(self, client, workers, directed, backend, weight_dtype, timeout):
        distributed = _distributed()
        if client is None:
            try:
                client = distributed.get_client()
            except ValueError:
                raise ValueError("client: no Dask client given and no default client; "
                                 "pass client=distributed.Client(...)") from None
        present = list(client.nthreads())
        if workers is None:
            workers = sorted(present)
        else:
            workers = [str(w) for w in workers]
            for worker in workers:
                if worker not in present:
                    raise ValueError(f"workers: {worker!r} is not a worker of the cluster "
                                     f"(workers: {sorted(present)})")
            if len(set(workers)) != len(workers):
                raise ValueError(f"workers: names a worker twice: {workers}")
        if not workers:
            raise ValueError("workers: the cluster has no worker to hold a replica")
        if timeout is not None and not timeout > 0:
            raise ValueError(f"timeout must be a positive number of seconds or None, got {timeout!r}")
        self._client = client
        self._workers = list(workers)
        self._options = {"directed": bool(directed), "backend": backend,
                         "weight_dtype": weight_dtype}
        self.timeout = timeout
        self._id = uuid.uuid4().hex[:12]
        self._batches = itertools.count()
        self._actor_futures = {}
        self._actors = {}
        self._placement = {}     # query name -> worker address
        self._specs = {}         # query name -> the (unattached) query object, for recover()
        self._handles = {}       # query name -> DistributedQuery

    def _start(self, edges, source, destination, weight):
        client, workers = self._client, self._workers
        if edges is None:
            inputs = {w: None for w in workers}
        elif is_dask_frame(edges):
            require_dask_frame(edges, "edges")
            columns = EdgeSchema().columns([str(c) for c in edges.columns], source, destination, weight, op=None)
            source, destination = columns.source, columns.destination
            require_stream_columns(edges, [source, destination, weight])
            parts = client.compute(edges.to_delayed())
            inputs = {w: client.submit(concat_frames, parts, workers=[w],
                                       allow_other_workers=False, pure=False)
                      for w in workers}
        else:
            [scattered] = client.scatter([edges], workers=workers, broadcast=True, hash=False)
            inputs = {w: scattered for w in workers}
        for i, worker in enumerate(workers):
            self._actor_futures[worker] = client.submit(
                GraphReplica, inputs[worker], source, destination, weight, actor=True,
                workers=[worker], allow_other_workers=False, pure=False,
                key=f"GraphReplica-{self._id}-{i}", **self._options)
        errors = {}
        for worker, future in self._actor_futures.items():
            try:
                self._actors[worker] = self._wait_future(future, worker, "building its replica")
            except Exception as error:   # noqa: BLE001 - reported below, after cleanup
                errors[worker] = error
        del inputs
        if errors:
            self.close()
            raise next(iter(errors.values()))

    def _wait_future(self, future, worker, what):
        """Result of a distributed Future, watching that ``worker`` stays alive."""
        distributed = _distributed()
        deadline = None if self.timeout is None else time.monotonic() + self.timeout
        while True:
            try:
                distributed.wait([future], timeout=POLL_S)
            except (TimeoutError, asyncio.TimeoutError, distributed.TimeoutError):
                if worker not in self._client.nthreads():
                    raise WorkerLostError(worker, f"worker {worker} was lost while {what}") from None
                if deadline is not None and time.monotonic() > deadline:
                    raise WorkerLostError(worker, f"worker {worker} did not finish {what} "
                                                  f"within {self.timeout} s") from None
                continue
            if future.status == "error":
                error = future.exception()
                if isinstance(error, (ValueError, TypeError, ImportError, MemoryError)):
                    raise error
                raise WorkerLostError(worker, f"worker {worker} failed while {what}: "
                                              f"{type(error).__name__}: {error}") from error
            return future.result()

    # ------------------------------------------------------------ properties
    @property
    def client(self):
        """The ``distributed.Client`` of the cluster."""
        return self._client

    @property
    def workers(self):
        """Addresses of the workers holding a replica, in placement order."""
        return tuple(self._workers)

    @property
    def directed(self):
        return self._options["directed"]

    @property
    def backend(self):
        return self._options["backend"]

    @property
    def queries(self):
        """The tracked queries (:class:`DistributedQuery`), in tracking order."""
        return tuple(self._handles.values())

    def __repr__(self):
        kind = "directed" if self.directed else "undirected"
        return (f"DistributedStreamGraph({kind}, backend={self.backend!r}, "
                f"workers={len(self._workers)}, queries={len(self._placement)})")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        """Release every replica (the actors and their graphs)."""
        futures = list(self._actor_futures.values())
        self._actor_futures.clear()
        self._actors.clear()
        if futures:
            with contextlib.suppress(Exception):     # the client may be closing already
                self._client.cancel(futures)

    # ------------------------------------------------------- calling actors
    def _check_alive(self, worker, what):
        future = self._actor_futures.get(worker)
        if future is None or future.status in _GONE:
            status = "released" if future is None else future.status
            raise WorkerLostError(worker, f"worker {worker} holding a graph replica was lost "
                                          f"(replica {status}) before {what}")

    def _wait_actor(self, call, worker, what):
        deadline = None if self.timeout is None else time.monotonic() + self.timeout
        while True:
            try:
                return call.result(timeout=POLL_S)
            except (TimeoutError, asyncio.TimeoutError):
                if call.done():          # the method itself raised a TimeoutError
                    raise
                future = self._actor_futures.get(worker)
                if future is None or future.status in _GONE or worker not in self._client.nthreads():
                    raise WorkerLostError(worker, f"worker {worker} holding a graph replica was "
                                                  f"lost during {what}") from None
                if deadline is not None and time.monotonic() > deadline:
                    raise WorkerLostError(worker, f"worker {worker} did not answer {what} within "
                                                  f"{self.timeout} s") from None
            except OSError as error:     # connection refused or closed (CommClosedError)
                raise WorkerLostError(worker, f"worker {worker} holding a graph replica was lost "
                                              f"during {what}: {error}") from error
            except RuntimeError as error:
                if "Worker holding Actor was lost" in str(error):
                    raise WorkerLostError(worker, f"worker {worker} holding a graph replica was "
                                                  f"lost during {what}") from error
                raise

    def _gather(self, calls, what):
        """Wait for actor calls ``{worker: ActorFuture}``; ``(results, errors)`` by worker."""
        results, errors = {}, {}
        for worker, call in calls.items():
            try:
                results[worker] = self._wait_actor(call, worker, what)
            except Exception as error:   # noqa: BLE001 - sorted out by the caller
                errors[worker] = error
        return results, errors

    def _call(self, method, args_by_worker, what):
        """Call ``method`` on several replicas at once; ``(results, errors)``.

        ``args_by_worker`` maps a worker to the positional arguments of its call.
        """
        calls, errors = {}, {}
        for worker, args in args_by_worker.items():
            try:
                self._check_alive(worker, what)
                calls[worker] = getattr(self._actors[worker], method)(*args)
            except Exception as error:   # noqa: BLE001
                errors[worker] = error
        results, more = self._gather(calls, what)
        errors.update(more)
        return results, errors

    def _call_one(self, worker, method, *args):
        results, errors = self._call(method, {worker: args}, f"{method}()")
        if errors:
            raise errors[worker]
        return results[worker]

    @staticmethod
    def _first(errors, order):
        """The error to raise: a lost worker first, else the first worker's error."""
        lost = [e for e in errors.values() if isinstance(e, WorkerLostError)]
        if lost:
            return lost[0]
        return errors[next(w for w in order if w in errors)]

    # --------------------------------------------------------------- queries
    def _name_of(self, query):
        name = query.name if isinstance(query, DistributedQuery) else query
        if name not in self._placement:
            raise ValueError(f"query {name!r} is not tracked by this graph")
        return name

    def track(self, queries, worker=None):
        """Track one query or a list of queries, spread over the replicas.

        Each query goes to the replica with the fewest queries (ties: the
        first in :attr:`workers` order), so a list is spread round-robin.

        Parameters
        ----------
        queries : Query or list of Query
            New, untracked query objects (``cgs.SSSP(source=0)``, ...); each is
            copied to its worker, the object given stays untracked.
        worker : str, optional
            Put every query on this worker instead.

        Returns
        -------
        DistributedQuery or list of DistributedQuery
            As given: one handle for one query, a list for a list.

        Raises
        ------
        ValueError
            If a query is invalid (its source is not a vertex, a negative
            weight for SSSP, ...) or a query of the same name is tracked;
            then none of the given queries is tracked.
        """
        single = not isinstance(queries, (list, tuple))
        batch = [queries] if single else list(queries)
        names = []
        for i, query in enumerate(batch):
            if not isinstance(query, Query):
                raise ValueError(f"queries: item {i} is not a cugraph_stream query: {query!r}")
            if getattr(query, "graph", None) is not None:
                raise ValueError(f"queries: {query.name} is already tracked by a graph; "
                                 "create a new query object")
            if query.name in self._placement or query.name in names:
                raise ValueError(f"queries: {query.name} is already tracked")
            names.append(query.name)
        if worker is not None and worker not in self._workers:
            raise ValueError(f"worker: {worker!r} holds no replica of this graph "
                             f"(workers: {self._workers})")
        load = {w: 0 for w in self._workers}
        for w in self._placement.values():
            load[w] += 1
        groups = {}
        for query in batch:
            target = worker or min(self._workers, key=lambda w: load[w])
            load[target] += 1
            groups.setdefault(target, []).append(query)
        done, errors = self._call("track", {w: (qs,) for w, qs in groups.items()},
                                  "tracking queries")
        if errors:
            self._call("untrack", {w: (added,) for w, added in done.items()}, "untracking")
            raise self._first(errors, self._workers)
        for target, group in groups.items():
            for query in group:
                self._placement[query.name] = target
                self._specs[query.name] = query
                self._handles[query.name] = DistributedQuery(self, query.name, query.kind)
        handles = [self._handles[name] for name in names]
        return handles[0] if single else handles

    def untrack(self, queries):
        """Stop maintaining one query or a list of queries (handles or names)."""
        batch = [queries] if not isinstance(queries, (list, tuple)) else list(queries)
        names = [self._name_of(q) for q in batch]
        groups = {}
        for name in names:
            groups.setdefault(self._placement[name], []).append(name)
        _, errors = self._call("untrack", {w: (ns,) for w, ns in groups.items()}, "untracking")
        for name in names:
            if self._placement[name] not in errors:
                del self._placement[name], self._specs[name], self._handles[name]
        if errors:
            raise self._first(errors, self._workers)

    def result(self, query):
        """Result of one query (a pandas DataFrame, cuDF on GPU workers)."""
        name = self._name_of(query)
        return self._call_one(self._placement[name], "result", name)

    def changes(self, query):
        """``changes()`` of one query: rows its last batch changed."""
        name = self._name_of(query)
        return self._call_one(self._placement[name], "changes", name)

    def results(self, queries=None):
        """Results of several queries of one kind as one dask DataFrame.

        One partition per worker, computed where the replica lives; the
        first column, ``query``, holds each row's query name, then the
        query's own columns (``vertex``, ``distance``, ``predecessor`` for
        SSSP...).  A dask-cudf DataFrame when the replicas run on the GPU.

        Parameters
        ----------
        queries : list of DistributedQuery or str, optional
            Default: every tracked query (they must then be of one kind).
        """
        names = list(self._placement) if queries is None else [self._name_of(q) for q in queries]
        if not names:
            raise ValueError("queries: no query to gather; track one first")
        kinds = sorted({self._handles[name].kind for name in names})
        if len(kinds) > 1:
            raise ValueError(f"queries: results() gathers queries of one kind (their columns "
                             f"differ), got {', '.join(kinds)}; pass queries=[...] of one kind")
        groups = {}
        for name in names:
            groups.setdefault(self._placement[name], []).append(name)
        order = [w for w in self._workers if w in groups]
        for w in order:
            self._check_alive(w, "gathering results")
        meta = self._call_one(order[0], "results_meta", groups[order[0]])
        parts = [self._client.submit(_replica_results, self._actor_futures[w], groups[w],
                                     workers=[w], allow_other_workers=False, pure=False)
                 for w in order]
        if is_cudf(meta):
            import dask_cudf  # noqa: F401  (registers the cuDF backend of dask.dataframe)
        import dask.dataframe as dd

        return dd.from_delayed(parts, meta=meta, verify_meta=False)

    # --------------------------------------------------------------- updates
    def apply(self, batch, source=None, destination=None, weight=None, op="op", *, edge_attr=None,
              default_weight=None):
        """Apply a batch of edge updates on every replica; all or none.

        Every replica first validates the batch (the checks of
        ``StreamGraph.apply``, including non-negative weights where a
        replica tracks SSSP or widest path); only when all accept it does
        any apply it.

        Parameters
        ----------
        batch : pandas DataFrame, pyarrow Table, dict of arrays (cuDF on GPU workers)
        source, destination, weight, op, edge_attr, default_weight
            As in ``StreamGraph.apply`` (each replica's graph columns by default).

        Returns
        -------
        dict
            Worker address -> its ``BatchReport`` (graph counts agree; the
            query parts cover the queries on that worker).

        Raises
        ------
        ValueError
            Bad input, naming the column and the first offending row; no
            replica changed.
        WorkerLostError
            A worker was lost; the message names it and says whether the
            surviving replicas applied the batch (they always agree).
        """
        token = f"{self._id}-{next(self._batches)}"
        args = (token, batch, source, destination, weight, op, edge_attr, default_weight)
        prepared, errors = self._call("prepare", {w: args for w in self._workers},
                                      "validating a batch")
        if errors:
            self._call("discard", {w: (token,) for w in prepared}, "discarding a batch")
            error = self._first(errors, self._workers)
            if isinstance(error, WorkerLostError):
                raise WorkerLostError(error.worker, f"{error}; the batch was applied on no "
                                                    f"worker") from error
            raise error
        reports, errors = self._call("commit", {w: (token,) for w in self._workers},
                                     "applying a batch")
        if errors:
            error = self._first(errors, self._workers)
            applied = ", ".join(reports) or "none"
            if isinstance(error, WorkerLostError):
                raise WorkerLostError(error.worker, f"{error}; the batch was applied on the "
                                                    f"other workers ({applied})") from error
            raise RuntimeError(f"replicas diverged: applying a validated batch failed on "
                               f"worker {next(iter(errors))} ({type(error).__name__}: {error}) "
                               f"but succeeded on {applied}") from error
        return reports

    def apply_stream(self, ddf, source=None, destination=None, weight=None, op="op", progress=True, *,
                     edge_attr=None, default_weight=None):
        """Apply a dask (or dask-cudf) DataFrame partition by partition, in order.

        Each partition is one atomic batch of :meth:`apply`; partitions are
        computed on the cluster one at a time (the next while the current one
        is applied), never the whole frame at once.

        Returns
        -------
        list of dict
            One ``{worker: BatchReport}`` per partition.

        Raises
        ------
        ValueError, WorkerLostError
            As :meth:`apply`, with the partition index in the message; the
            partitions before it stay applied, that one and the later ones
            are not.
        """
        return apply_partitions(ddf, [source, destination, weight_argument(weight, edge_attr), op],
                                lambda part: self.apply(part, source=source, destination=destination,
                                                        weight=weight, op=op, edge_attr=edge_attr,
                                                        default_weight=default_weight),
                                progress=progress, client=self._client)

    # --------------------------------------------------------------- reading
    def describe(self):
        """``{worker: {backend, vertices, edges, queries, memory_bytes, ...}}``."""
        results, errors = self._call("describe", {w: () for w in self._workers}, "describe()")
        if errors:
            raise self._first(errors, self._workers)
        return results

    def number_of_vertices(self):
        return self._call_one(self._workers[0], "number_of_vertices")

    def number_of_edges(self):
        """Edges (an undirected edge counts once)."""
        return self._call_one(self._workers[0], "number_of_edges")

    def edges(self, worker=None):
        """``StreamGraph.edges()`` of one replica (default: the first)."""
        return self._call_one(worker or self._workers[0], "edges")

    # -------------------------------------------------------------- recovery
    def lost_workers(self):
        """Workers whose replica was lost (their queries are stranded until :meth:`recover`)."""
        nthreads = self._client.nthreads()
        return [w for w in self._workers
                if self._actor_futures[w].status in _GONE or w not in nthreads]

    def recover(self):
        """Forget lost replicas and re-track their queries on the surviving ones.

        The survivors always agree (see :meth:`apply`), so a moved query is
        recomputed from scratch on the current graph.

        Returns
        -------
        list of DistributedQuery
            The queries that moved.
        """
        lost = self.lost_workers()
        if not lost:
            return []
        survivors = [w for w in self._workers if w not in lost]
        if not survivors:
            raise RuntimeError(f"every worker holding a replica was lost: {lost}")
        stranded = [name for name, w in self._placement.items() if w in lost]
        for w in lost:
            self._workers.remove(w)
            self._actors.pop(w, None)
            future = self._actor_futures.pop(w, None)
            if future is not None:
                future.release()
        specs = [self._specs[name] for name in stranded]
        for name in stranded:
            del self._placement[name], self._specs[name], self._handles[name]
        if specs:
            self.track(specs)
        return [self._handles[name] for name in stranded]
