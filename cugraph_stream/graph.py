"""``StreamGraph``: a graph that changes in batches, with standing queries kept current.

Every call that changes a graph is one transaction (see
:mod:`cugraph_stream.engine.journal`): input is validated before anything
changes, and an exception raised later (``MemoryError``, a CUDA out-of-memory
error, ``KeyboardInterrupt``, a query that cannot converge, an internal
error) rolls the graph, its store, its arc index, its caches and every
tracked query back to the state before the call, then propagates.  Ctrl-C
is held back while an operator is halfway through its writes and raised at
the next safe point, which rolls the call back: a ``KeyboardInterrupt`` out
of ``apply`` means the batch was not applied (unless it arrived in the last
instructions, after the commit: it is then delivered once the call
returns).  Should a rollback itself fail, the graph is marked broken and
every later call raises :class:`GraphBrokenError`, instead of answering from
an inconsistent state.

A graph may be shared by threads: changes are serialised by a lock
(:attr:`StreamGraph.lock`), and reads (``result()``, ``changes()``,
``edges()``) wait for a change in progress, so they always see a committed
state.
"""
from __future__ import annotations

import contextlib
import functools
import threading
import time

import numpy as np

from .arrays import is_cudf
from .backends import get_backend
from .engine.cache import DEFAULT_CHUNK_BYTES
from .engine.hotness import DEFAULT_TAU
from .engine.journal import RollbackError
from .engine.placement import Placement, device_footprint
from .engine.bulk_load import EdgeRows
from .engine.reduce import reduce_batch, reduce_rows_of_ends
from .engine.single_row import apply_single_row, takes_single_rows
from .engine.store import GraphStore
from .engine.window import TimeWindow
from .floats import ordered_bits
from .frame.batch import DELETE, INSERT, read_rows
from .frame.columns import column_dtype, column_names, num_rows
from .frame.keys import VertexKeys
from .frame.output import _cudf, make_frame
from .frame.partitions import PhaseProgress, apply_partitions, progress_bar, require_dask_frame
from .frame.pieces import edge_list_pieces, is_frame
from .frame.schema import OP, EdgeSchema, weight_argument, weight_dtype_of
from .frame.times import TimeSpec, read_times
from .interrupts import DeferredInterrupts
from .log import log_report, logger
from .report import BatchReport, PhaseClock
from .warm_up import warm_up


#: ``from_edgelist`` shows a progress bar by default from this many rows (a few seconds on the CPU)
LOAD_PROGRESS_ROWS = 20_000_000
#: batches of up to this many rows are reduced before their new vertices are known to
#: be none (the usual case for a few rows): one wait reads the lookup's count of
#: unknown vertices and the reduction's counts.  A guess that fails (an insert row
#: names a new vertex) costs a reduction more, not a wait: that wait gives the ends
#: to create, as a lookup alone would (``Backend.net_changes_of_ends``).  Where 0.5%
#: of the rows name a new vertex (the benchmarks' R-MAT 2^22 streams: 46 new
#: vertices in 10,000 rows) it fails for about 8% of 16-row batches.
SPECULATIVE_ROWS = 16
#: the phases of a bulk load, as ``BatchReport.times`` names them (the bar's steps)
_LOAD_PHASES = ("validate", "reduce", "store")


class GraphBrokenError(RuntimeError):
    """A failed call could not be rolled back: the graph refuses every later call."""


def _exclusive(method):
    """Run a method under the graph's lock, inside the backend's allocation scope,
    on a graph that is not broken."""
    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        with self.lock:
            if self._broken is not None:
                raise GraphBrokenError(self._broken)
            with self._ops.allocation_scope():
                return method(self, *args, **kwargs)
    return wrapper


class StreamGraph:
    """A dynamic graph whose tracked queries stay exact after every batch of changes.

    Build it from an edge list (:meth:`from_edgelist`, cuGraph's column
    names), track standing queries (:meth:`track`: :class:`SSSP`,
    :class:`BFS`, :class:`WidestPath`, :class:`WCC`, :class:`PageRank`),
    then apply batches of inserts and deletes (:meth:`apply`, or
    :meth:`apply_stream` for a Dask DataFrame).  Each batch applies whole
    or not at all; the queries' :meth:`~Query.result` and
    :meth:`~Query.changes` are current when it returns.

    Examples
    --------
    >>> import pandas as pd, cugraph_stream as cgs
    >>> edges = pd.DataFrame({"source": [0, 1], "destination": [1, 2], "weight": [1.0, 1.0]})
    >>> g = cgs.StreamGraph.from_edgelist(edges, edge_attr="weight")
    >>> q = g.track(cgs.SSSP(source=0))
    >>> batch = pd.DataFrame({"source": [0, 0], "destination": [2, 1], "weight": [0.5, None],
    ...                       "op": ["insert", "delete"]})
    >>> g.apply(batch).inserted            # the graph's columns are remembered
    1
    >>> q.result()
       vertex       distance  predecessor
    0       0   0.000000e+00           -1
    1       1  1.797693e+308           -1
    2       2   5.000000e-01            0

    Parameters
    ----------
    directed : bool
        Directed graph (default), or undirected: a row names the edge
        ``{source, destination}`` and both directions are stored.
    backend : {"cpu", "gpu", "auto"}
        Device of the engine.
    weight_dtype : {"float32", "float64"}, optional
        dtype of edge weights and of weighted results.  Default: the first
        batch's weight column decides (float32 stays float32, other numbers
        become float64), float32 without one.
    placement : {"device", "host", "cached", "auto"}
        Where the adjacency (and the arc index) lives.  ``"device"``
        (default): in the backend's memory (GPU memory for
        ``backend="gpu"``).  The others are for graphs larger than GPU
        memory.  ``"host"``: in pinned, page-aligned host memory that the
        GPU kernels read and patch in place over the interconnect
        (zero-copy); per-vertex arrays (results, parents, offsets, degrees,
        frontiers) stay on the GPU.  ``"cached"``: ``"host"`` plus a cache
        of neighbour lists under ``cache_budget`` bytes (one budget for both
        directions), those whose copies would have saved the most host
        memory transactions per byte over the reads of the last ``tau``
        batches, refreshed before each batch is computed; the GPU kernels
        read a cached list from GPU memory and every other list from host
        memory (see :mod:`cugraph_stream.engine.cache`).  On the CPU backend
        the cache's bookkeeping and report figures run the same way (the
        copies live in host memory there).  ``"auto"``: ``"device"`` when
        the graph fits ``device_memory_budget`` bytes of GPU memory, else
        ``"cached"`` with what the per-vertex arrays leave of that budget
        as the cache (``"host"`` when nothing is left); decided when
        :meth:`from_edgelist` builds the graph, an empty graph starts on the
        device.  On the CPU backend all of them keep the graph in host
        memory.
    cache_budget : int
        Bytes of GPU memory for the cache (``placement="cached"``).
    tau : int
        Batches in the hotness window (``placement="cached"``; default 3).
    chunk_bytes : int
        Most bytes of one cache chunk (default 32 MiB; the budget is split
        into the fewest equal chunks of at most this size).
    device_memory_budget : int
        GPU memory the graph may use (``placement="auto"``).
    """

    def __init__(self, directed=True, backend="cpu", weight_dtype=None, placement="device",
                 cache_budget=None, tau=DEFAULT_TAU, chunk_bytes=DEFAULT_CHUNK_BYTES, device_memory_budget=None):
        dtype = np.dtype(np.float32 if weight_dtype is None else weight_dtype)
        if dtype not in (np.dtype(np.float32), np.dtype(np.float64)):
            raise ValueError(f"weight_dtype must be float32 or float64, got {weight_dtype!r}")
        # None: the first batch's weight column decides (see _weight_dtype_for)
        self._weight_dtype_forced = weight_dtype is not None
        self._schema = EdgeSchema()
        if not isinstance(placement, Placement):      # an empty graph: "auto" is "device"
            placement = Placement.resolve(placement, cache_budget, tau, chunk_bytes, device_memory_budget)
        self._ops = get_backend(backend)
        with self._ops.allocation_scope():
            self._store = GraphStore(self._ops, directed, dtype, placement=placement)
        # vertex keys <-> int64 ids (frame/keys.py); encoded keys' table in GPU memory where cuDF is
        self._keys = VertexKeys(device=self._ops.xp is not np and _cudf() is not None)
        self._queries = []
        self._times = None                # (TimeSpec, TimeWindow) of a graph that records edge times
        self._phase_listener = None       # called as each phase of apply ends (from_edgelist's progress bar)
        self.last_report = None
        self._lock = threading.RLock()
        self._broken = None               # why the graph refuses calls, after a failed rollback

    # ---------------------------------------------------------- transactions
    @property
    def lock(self):
        """The re-entrant lock that serialises changes to this graph.

        Every method takes it; hold it yourself to read several results of one
        state while other threads apply batches::

            with g.lock:
                distances, labels = paths.result(), components.result()
        """
        return self._lock

    @contextlib.contextmanager
    def _transaction(self):
        """All or nothing: roll back on any exception (see the module docstring)."""
        with DeferredInterrupts() as interrupts:
            try:
                with self._store.transaction(interrupts):
                    yield
            except RollbackError as failure:
                self._broken = (f"this graph is broken: a failed call could not be rolled back "
                                f"({failure}); build it again (a checkpoint, or the edges)")
                raise GraphBrokenError(self._broken) from failure

    def __getstate__(self):
        state = self.__dict__.copy()
        del state["_lock"]             # locks do not pickle; a copy gets its own
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._lock = threading.RLock()

    @classmethod
    def from_edgelist(cls, df, source="source", destination="destination", weight=None, directed=True,
                      backend="cpu", weight_dtype=None, placement="device", *, edge_attr=None, time=None,
                      window=None, progress=None, piece_rows=None, **memory):
        """Build a graph from an edge list, remembering its columns for later batches.

        Rows are inserts applied in order: a repeated edge keeps its last
        weight.  The column names (and whether the graph is weighted) are
        recorded in :attr:`schema`: :meth:`apply`, :meth:`validate` and
        :meth:`apply_stream` read the same columns from every batch unless
        told otherwise.

        An edge list larger than the device is loaded in pieces: it is read
        twice, one piece at a time (validation and vertex ids, then the rows
        as internal ids and weights, 12 bytes a row, into host memory), and
        the store is built one range of vertices at a time, so the device
        never holds more than ``piece_rows`` rows of it.

        Parameters
        ----------
        df : pandas DataFrame, cuDF DataFrame, pyarrow Table, dict of arrays, sequence of those, or dask DataFrame
            The edges.  A sequence (a list, or any object with ``len()`` and
            ``[i]`` that returns a frame, such as one that reads a file or
            generates rows when asked; each piece is read twice and must
            read the same both times) or a dask DataFrame (a piece per
            partition) is loaded in pieces, rows in the order of the pieces.
        source, destination : str
            Vertex columns (cuGraph's defaults).  A table without
            ``source`` / ``destination`` but with ``src`` / ``dst`` (this
            package's defaults before 0.2) is read from those, with a
            ``FutureWarning``.
        weight, edge_attr : str, optional
            The weight column (``edge_attr`` is cuGraph's name for it; pass
            either).  Without one the graph is unweighted: every edge weighs
            1, even when the table has a column named ``weight`` (as in
            cuGraph, weights are read only when asked for).
        directed : bool
            Directed graph (default), or undirected.
        backend : {"cpu", "gpu", "auto"}
        weight_dtype : {"float32", "float64"}, optional
            Default: the weight column's own, as in cuGraph (float32 stays
            float32, float64 stays float64, integers become float64, exact up
            to 2**53); float32 for an unweighted graph.
        placement : {"device", "host", "cached", "auto"}
            As in :class:`StreamGraph`; ``"auto"`` is decided here from the
            edge list's size.
        time : str, optional
            A column of edge times: numbers, or datetimes (NumPy, pandas
            naive or tz-aware, Arrow timestamps, cuDF).  The graph then
            records each edge's time, read from this column of every batch
            (an insert of a present edge refreshes it; delete rows may hold
            nulls or lack the column); :meth:`edges` shows it.
        window : number or timedelta, optional
            With ``time``: after every batch, the edges whose time is at or
            before the newest time seen so far minus ``window`` are deleted
            in the same (atomic) batch and counted in
            :attr:`BatchReport.expired <cugraph_stream.report.BatchReport>`;
            an edge inserted with an old time expires in its own batch.  A
            number for number times, a ``datetime.timedelta``,
            ``numpy.timedelta64`` or ``pandas.Timedelta`` for datetimes.
            Every tracked query stays exact on the windowed edges.
        progress : bool, optional
            Show a tqdm progress bar on stderr (``tqdm.auto``: a widget in
            notebooks; when tqdm is installed) that advances as the load's
            phases end: validation, id mapping, the store (``BatchReport.times``
            names them).  Default: for edge lists of
            :data:`LOAD_PROGRESS_ROWS` rows or more, which take a few seconds
            on the CPU.
        piece_rows : int, optional
            The most rows of the edge list on the device at once: a frame
            with more is loaded in pieces of this many rows, and the store
            is built in ranges of vertices with at most this many arcs.
            Default: on the GPU, what the free device memory holds (192
            bytes a row); on the CPU, no limit.
        **memory
            ``cache_budget``, ``tau``, ``chunk_bytes``,
            ``device_memory_budget``: as in :class:`StreamGraph`.

        Returns
        -------
        StreamGraph

        Raises
        ------
        ValueError
            On bad input, naming the column and the first offending row.

        Examples
        --------
        >>> import pandas as pd, cugraph_stream as cgs
        >>> edges = pd.DataFrame({"source": [0, 1], "destination": [1, 2], "weight": [0.5, 2.0]})
        >>> g = cgs.StreamGraph.from_edgelist(edges, edge_attr="weight")
        >>> g.schema.weight, g.weight_dtype
        ('weight', dtype('float64'))
        >>> cgs.StreamGraph.from_edgelist(edges).schema.weighted       # weights only when asked for
        False

        A sliding window of 30 minutes over a click stream:

        >>> clicks = pd.DataFrame({"source": [1, 2, 3], "destination": [2, 3, 4], "ts": pd.to_datetime(
        ...     ["2026-11-26 09:00", "2026-11-26 09:20", "2026-11-26 09:40"])})
        >>> g = cgs.StreamGraph.from_edgelist(clicks, time="ts", window=pd.Timedelta(minutes=30))
        >>> g.last_report.expired                                 # 09:00 <= 09:40 - 30 min
        1
        >>> report = g.apply(pd.DataFrame({"source": [4], "destination": [5], "op": ["insert"],
        ...                                "ts": pd.to_datetime(["2026-11-26 09:55"])}))
        >>> report.expired, g.edges()[["source", "destination"]].values.tolist()
        (1, [[3, 4], [4, 5]])
        """
        weight = weight_argument(weight, edge_attr)
        rows = num_rows(df) if is_frame(df) else None
        if time is not None and rows is None:
            raise ValueError("time= needs the edge list in one frame: a windowed graph is not loaded in pieces")
        if placement == "auto":
            if rows is None:        # (pieces: counted, unless they say)
                rows = getattr(df, "rows", None) or sum(num_rows(piece) for piece in edge_list_pieces(df))
            footprint = device_footprint(2 * rows, rows, directed, weight_dtype or "float64")   # vertices: at most 2 per row
            placement, memory = Placement.resolve("auto", footprint=footprint, **memory), {}
        if window is not None and time is None:
            raise ValueError(f"window={window!r} needs time=, the column of edge times")
        spec = TimeSpec.infer(df, time, window) if time is not None else None
        graph = cls(directed=directed, backend=backend, weight_dtype=weight_dtype, placement=placement, **memory)
        if spec is not None:
            graph._record_times(spec)
            graph._schema = EdgeSchema(time=time, window=window)
        pieces = edge_list_pieces(df, piece_rows if piece_rows is not None else graph._ops.bulk_load_rows())
        if pieces is not None and spec is not None:
            raise ValueError(f"time= needs the edge list loaded at once, but its {rows:,} rows are more than "
                             f"piece_rows={piece_rows} (or than the device holds): a windowed graph is not "
                             f"loaded in pieces")
        if progress is None:
            rows = rows if rows is not None else getattr(pieces, "rows", 0)
            progress = rows >= LOAD_PROGRESS_ROWS
        desc = f"loading {rows:,} edges" if pieces is None else f"loading {len(pieces):,} pieces"
        bar = progress_bar(len(_LOAD_PHASES), progress, desc=desc, unit="phase")
        graph._phase_listener = PhaseProgress(bar, _LOAD_PHASES)
        try:
            if pieces is None:
                graph.apply(df, source=source, destination=destination, weight=weight, op=None)
            else:
                with graph.lock, graph._ops.allocation_scope():        # (as apply)
                    graph._load_pieces(pieces, source, destination, weight, piece_rows)
        finally:
            graph._phase_listener = None
            bar.close()
        return graph

    def from_cudf_edgelist(self, input_df, source="source", destination="destination", edge_attr=None,
                           weight=None, renumber=True, vertices=None):
        """Load an edge list into this empty graph, as ``cugraph.Graph.from_cudf_edgelist``.

        The spelling cuGraph users know: ``G = cgs.StreamGraph();
        G.from_cudf_edgelist(df, ...)`` is :meth:`from_edgelist` on a graph
        made first (its ``directed``, ``backend``, ``weight_dtype`` and
        placement are the constructor's).  A cuDF frame given to a CPU graph
        is copied to the host.

        Parameters
        ----------
        input_df : cuDF DataFrame (or pandas DataFrame, pyarrow Table, dict of arrays)
            The edges.
        source, destination : str
            Vertex columns.
        edge_attr, weight : str, optional
            The weight column (either name); None: unweighted.
        renumber : bool
            Accepted for cuGraph's signature; vertex ids are always mapped to
            dense internal ids (``True`` is all there is).
        vertices : array-like, optional
            Vertices to add, isolated ones included, as in cuGraph.

        Returns
        -------
        None
            As in cuGraph; the graph itself holds the edges.

        Raises
        ------
        ValueError
            If the graph already holds vertices, or on bad input (naming the
            column and row); nothing changes then.

        Examples
        --------
        >>> import pandas as pd, cugraph_stream as cgs
        >>> G = cgs.StreamGraph(directed=False)
        >>> G.from_pandas_edgelist(pd.DataFrame({"source": [0, 1], "destination": [1, 2]}))
        >>> G.number_of_edges(), G.directed
        (2, False)
        """
        if renumber is not True:
            raise ValueError("renumber=False is not supported: vertex ids are always renumbered internally "
                             "(results come back in the input's ids)")
        with self.lock:
            if self._store.vertices.count or self._store.out.end:
                raise ValueError("the graph already holds vertices or edges: from_cudf_edgelist loads an edge "
                                 "list into an empty graph (use apply() to change a graph)")
            if self.backend == "cpu" and is_cudf(input_df):
                input_df = input_df.to_pandas()         # the CPU engine reads host columns
            schema, self._schema = self._schema, EdgeSchema()       # this edge list's columns are recorded
            try:
                self.apply(input_df, source=source, destination=destination, weight=weight, op=None,
                           edge_attr=edge_attr)
            except BaseException:
                self._schema = schema
                raise
            if vertices is not None:
                self.add_vertices(vertices)

    def from_pandas_edgelist(self, pdf, source="source", destination="destination", edge_attr=None,
                             weight=None, renumber=True):
        """Load a pandas edge list into this empty graph, as
        ``cugraph.Graph.from_pandas_edgelist``; see :meth:`from_cudf_edgelist`."""
        self.from_cudf_edgelist(pdf, source=source, destination=destination, edge_attr=edge_attr,
                                weight=weight, renumber=renumber)

    def _record_times(self, spec, window=None):
        """Have this graph record edge times as ``spec`` (a
        :class:`~cugraph_stream.frame.times.TimeSpec`) says; ``window``: a
        restored :class:`~cugraph_stream.engine.window.TimeWindow`, else a new one."""
        if window is None:
            window = TimeWindow(self._ops, self.directed, spec.window, spec.dtype, journal=self._store.journal,
                                memory=self._store.placement.memory)
        self._times = (spec, window)

    # ------------------------------------------------------------ properties
    @property
    def directed(self):
        return self._store.directed

    @property
    def backend(self):
        """Name of the backend running the engine (``"cpu"`` or ``"gpu"``)."""
        return self._ops.name

    @property
    def weight_dtype(self):
        """dtype of the edge weights (float32 or float64)."""
        return self._store.weight_dtype

    @property
    def schema(self):
        """The :class:`~cugraph_stream.frame.schema.EdgeSchema`: the columns
        that batches are read from by default (recorded by the first edge
        list, see :meth:`from_edgelist`)."""
        return self._schema

    @property
    def placement(self):
        """Where the adjacency lives: ``"device"``, ``"host"`` or ``"cached"``
        (``"auto"`` resolved to one of them)."""
        return self._store.placement.kind

    @property
    def queries(self):
        """The tracked queries, in tracking order."""
        return tuple(self._queries)

    def number_of_vertices(self):
        """Vertices (isolated ones included)."""
        with self.lock:
            return self._store.num_vertices

    def number_of_edges(self):
        """Edges (an undirected edge counts once)."""
        with self.lock:
            return self._store.num_edges

    def memory_bytes(self, per_device=False):
        """Bytes held by the graph store and the tracked queries' state.

        With ``per_device=True``, a dict of where they are held: ``"device"``
        (GPU memory: the whole store with placement ``"device"``; the
        per-vertex arrays, the caches and the queries' state otherwise) and
        ``"host"`` (the rest; everything on the CPU backend).

        Examples
        --------
        >>> import numpy as np, cugraph_stream as cgs
        >>> g = cgs.StreamGraph.from_edgelist({"source": np.arange(1000), "destination": np.arange(1, 1001)})
        >>> held = g.memory_bytes(per_device=True)
        >>> sorted(held), held["device"], held["host"] == g.memory_bytes()     # the CPU backend
        (['device', 'host'], 0, True)
        """
        with self.lock:
            queries = sum(q.engine.memory_bytes() for q in self._queries)
            window = self._times[1].memory_bytes() if self._times else 0     # in the adjacency's memory
            held = self._store.memory_bytes() + queries + window
            if not per_device:
                return held
            device = 0
            if self._ops.has_device_memory:
                device = self._store.device_memory_bytes() + queries
                device += window if self._store.placement.memory == "device" else 0
            return {"device": device, "host": held - device}

    @_exclusive
    def compact(self):
        """Give memory back to what the graph holds now; returns :meth:`memory_bytes`.

        Rewrites every neighbour list contiguously (in the size class a bulk load gives its degree)
        and shrinks the per-vertex arrays (the store's and the queries') and
        the arc index once they are far larger than the vertices and edges
        need.  It happens by itself past a garbage threshold, which vertex
        removals reach; call it after deleting many edges of vertices you keep.

        Examples
        --------
        >>> import numpy as np, cugraph_stream as cgs
        >>> g = cgs.StreamGraph.from_edgelist({"source": np.arange(100_000), "destination": np.arange(1, 100_001)})
        >>> _ = g.track(cgs.BFS(source=0))
        >>> _ = g.apply({"source": np.arange(99_990), "destination": np.arange(1, 99_991), "op": np.full(99_990, -1)})
        >>> held = g.memory_bytes()
        >>> g.compact() < 0.6 * held           # 10 edges left; the 100,001 vertices stay
        True
        """
        with self._transaction():
            self._store.compact()
            self._fit_memory()
        return self.memory_bytes()

    def _fit_memory(self):
        self._store.fit_memory()
        for query in self._queries:
            query.engine.fit_capacity()

    def __repr__(self):
        kind = "directed" if self.directed else "undirected"
        return (f"StreamGraph({kind}, backend={self.backend!r}, placement={self.placement!r}, "
                f"vertices={self.number_of_vertices()}, "
                f"edges={self.number_of_edges()}, queries={len(self._queries)})")

    # --------------------------------------------------------------- queries
    @_exclusive
    def track(self, query):
        """Start maintaining ``query``; computes it from scratch and returns it.

        Parameters
        ----------
        query : SSSP, BFS, WidestPath, WCC or PageRank
            A query object not tracked by another graph.

        Returns
        -------
        Query
            ``query`` itself, now current: read it with ``result()`` and
            ``changes()`` after every batch.

        Raises
        ------
        ValueError
            If the query needs non-negative weights and an edge has a negative
            one, or its source is not a vertex.  If the computation fails (or
            is interrupted), nothing is attached and the graph is as before.

        Examples
        --------
        >>> import pandas as pd, cugraph_stream as cgs
        >>> g = cgs.StreamGraph.from_edgelist(pd.DataFrame({"source": [0], "destination": [1]}))
        >>> g.track(cgs.BFS(source=0)).result()["distance"].tolist()
        [0, 1]
        """
        settle = getattr(query, "_settle_weights", None)
        if settle is not None and query.graph is None:     # PageRank(weighted=None): weighted iff the graph is
            settle(self._schema.weighted, self._schema.recorded)
        if query.needs_nonnegative_weights:
            # (in chunks of what the device holds: the edges may be more than the device)
            for u, v, w in self._store.edge_chunks(self._ops.bulk_load_rows()):
                negative = ordered_bits(w) < 0
                if bool(negative.any()):
                    row = int(self._ops.to_host(self._ops.xp.flatnonzero(negative))[0])
                    external = self._store.vertices.external
                    raise ValueError(f"{query.name} needs non-negative weights, but edge "
                                     f"({self._keys.show(external[u[row]])!r}, "
                                     f"{self._keys.show(external[v[row]])!r}) weighs {float(w[row])}")
        # (once per process and kind: the kernels the batches will call load now, not in the first batches)
        warm_up(self._ops, self._store.directed, self._store.weight_dtype, query)
        started = time.perf_counter()
        query._keys = self._keys                 # the source is a key; results come back in keys
        with self._transaction():
            engine = query._start(self._store)
        query._bind(self, engine)
        self._queries.append(query)
        seconds = time.perf_counter() - started
        query._observe_track(seconds)
        logger.info("track %s: computed from scratch in %.3f ms", query.name, 1e3 * seconds)
        return query

    @_exclusive
    def untrack(self, query):
        """Stop maintaining ``query`` (a query this graph tracks; ``ValueError`` otherwise)."""
        if query not in self._queries:
            raise ValueError(f"{query.name} is not tracked by this graph")
        self._queries.remove(query)
        query._detach()

    # --------------------------------------------------------------- updates
    @_exclusive
    def validate(self, batch, source=None, destination=None, weight=None, op=OP, *, edge_attr=None,
                 default_weight=None, time=None):
        """Check ``batch`` as :meth:`apply` would, without applying it.

        Takes :meth:`apply`'s arguments.  Raises the ``ValueError`` that
        :meth:`apply` would raise (naming the column and the first offending
        row, including a negative weight while a tracked query needs
        non-negative ones); returns None for a batch :meth:`apply` accepts.

        Examples
        --------
        >>> import pandas as pd
        >>> import cugraph_stream as cgs
        >>> g = cgs.StreamGraph.from_edgelist(pd.DataFrame({"source": [1], "destination": [2], "w": [0.5]}),
        ...                                   weight="w")
        >>> _ = g.track(cgs.SSSP(1))
        >>> g.validate(pd.DataFrame({"source": [1], "destination": [3], "w": [2.0], "op": [1]}))
        >>> g.validate(pd.DataFrame({"source": [1], "destination": [2], "w": [-1.0], "op": [1]}))
        Traceback (most recent call last):
        ...
        ValueError: column 'w' holds a negative weight -1.0 at row 0, but SSSP(source=1) needs non-negative weights
        """
        columns = self._schema.columns(column_names(batch), source, destination, weight, edge_attr, op,
                                       default_weight, time)
        self._read(batch, columns, self._weight_dtype_for(batch, columns))

    def _weight_dtype_for(self, batch, columns):
        """The weight dtype ``batch`` is read in: the graph's, or, for a graph still
        without edges, queries and a dtype of its own, the weight column's (see
        :func:`~cugraph_stream.frame.schema.weight_dtype_of`)."""
        store = self._store
        if self._weight_dtype_forced or self._queries or store.vertices.size or store.out.end:
            return store.weight_dtype
        return weight_dtype_of(None if columns.weight is None else column_dtype(batch, columns.weight))

    def _read(self, batch, columns, weight_dtype, verify=True):
        """The batch's validated rows (vertex keys as int64 ids), and the
        :class:`~cugraph_stream.frame.keys.KeyEncoder` holding its new keys
        (committed by the transaction that applies the rows).  ``verify=False``:
        a check of the op and weight columns still on the GPU is settled by
        the caller (:meth:`~cugraph_stream.frame.batch.Rows.verify`, with the
        batch's first wait), except on a graph that records times, whose time
        column is checked against the ops."""
        keys = self._keys.encoder()
        rows = read_rows(batch, columns.source, columns.destination, columns.weight, columns.op, weight_dtype,
                         self._ops, nonnegative_for=self._nonnegative_for(), default_weight=columns.default_weight,
                         missing_weight=columns.missing_weight, keys=keys,
                         verify=verify or self._times is not None)
        if self._times is not None:         # each row's time, checked with the other columns
            rows.time = read_times(batch, self._times[0], rows.op == INSERT, columns.time)
        return rows, keys

    @_exclusive
    def apply(self, batch, source=None, destination=None, weight=None, op=OP, *, edge_attr=None,
              default_weight=None, time=None):
        """Apply a batch of edge updates; every tracked query is current on return.

        Parameters
        ----------
        batch : pandas DataFrame, cuDF DataFrame, pyarrow Table or dict of arrays
            One row per update.
        source, destination : str, optional
            Columns of vertex keys (a list of columns each for multi-column
            keys): integers of any width, strings, categoricals, or
            anything else of the graph's key dtypes (see
            :mod:`cugraph_stream.frame.keys`).  Default: the graph's
            (:attr:`schema`), those of its edge list.
        weight, edge_attr : str, optional
            Column of weights (may be null on delete rows); ``edge_attr`` is
            cuGraph's name for it.  Default: the graph's weight column.  A
            weighted graph refuses a batch that inserts edges without it,
            unless ``default_weight`` is given; an unweighted graph weighs
            inserts 1 and lists a weight column it does not read in
            :attr:`BatchReport.ignored_columns`.
        op : str or None
            Column of ops: ``"insert"``/``"delete"`` (any case) or 1/-1.  None
            makes every row an insert.
        default_weight : float, optional
            Weight of inserted edges when the batch has no weight column
            (default 1 on an unweighted graph).
        time : str, optional
            For a graph that records edge times (``from_edgelist(time=...)``):
            the column of times, if not the graph's.  Insert rows need a
            time; delete rows may hold nulls, and a batch of deletes only
            may lack the column.

        Returns
        -------
        BatchReport

        Raises
        ------
        ValueError
            On bad input, naming the column and the first offending row; the
            graph, the results and the last report stay as they were.
        Exception
            Any failure after validation (out of memory, ``KeyboardInterrupt``,
            a query that cannot converge) is raised after the graph, its
            results and the last report are rolled back to their state before
            the call (see the module docstring).

        Examples
        --------
        >>> import pandas as pd, cugraph_stream as cgs
        >>> g = cgs.StreamGraph.from_edgelist(pd.DataFrame({"source": [0], "destination": [1], "w": [2.0]}),
        ...                                   weight="w")
        >>> g.apply(pd.DataFrame({"source": [1], "destination": [2], "w": [9.0], "op": ["insert"]})).inserted
        1
        >>> g.apply(pd.DataFrame({"source": [2], "destination": [0], "op": ["insert"]}))
        Traceback (most recent call last):
        ...
        ValueError: column 'w' not found, but row 0 inserts an edge and this graph is weighted (built with weight column 'w'); the table has columns ['source', 'destination', 'op']: pass weight= to name its weight column, or default_weight= to weigh its inserts
        >>> g.apply(pd.DataFrame({"source": [2], "destination": [0], "op": ["insert"]}), default_weight=0.5).inserted
        1
        """
        ops = self._ops
        clock, calls = PhaseClock(ops, self._phase_listener), ops.calls.snapshot()
        present = column_names(batch)
        columns = self._schema.columns(present, source, destination, weight, edge_attr, op, default_weight,
                                       time)
        weight_dtype = self._weight_dtype_for(batch, columns)
        rows, keys = self._read(batch, columns, weight_dtype, verify=False)     # (verified by _apply_rows)
        report = BatchReport(rows=len(rows), ignored_columns=self._schema.ignored(present, columns))
        # (a single host row that the store may take in one operator call stays on the host)
        arrays = None if self._single_row(rows) else ops.asarrays(rows.src, rows.dst, rows.weight, rows.op)
        clock.lap("validate")
        store = self._store
        swapped = weight_dtype != store.weight_dtype       # an empty graph takes its first batch's dtype
        if swapped:
            self._store = GraphStore(ops, store.directed, weight_dtype, placement=store.placement)
        began = False
        try:
            with self._transaction():
                began = True
                if swapped:                 # undone last when the batch rolls back, not after its commit
                    self._store.journal.on_rollback(lambda: setattr(self, "_store", store))
                keys.commit(self._store.journal)
                first_columns = not self._schema.recorded
                if first_columns:                   # the first batch's columns, with the batch
                    self._store.journal.assign(self, "_schema", self._schema.recording(columns))
                if first_columns and columns.weight is not None:
                    for query in self._queries:     # PageRank(weighted=None) follows the graph's weights
                        follow = getattr(query, "_graph_became_weighted", None)
                        if follow is not None:
                            follow(self._store.journal)
                self._apply_rows(arrays, report, clock, rows)
        except BaseException:
            if swapped and not began:
                self._store = store
            raise
        self._publish(report, clock, calls, "apply")
        return report

    def _publish(self, report, clock, calls, what):
        """Fill in the report's times and device calls, make it the last report and log it
        (:mod:`cugraph_stream.log`; ``what`` names the call).

        Runs after the transaction's synchronisation: every timestamp of
        ``clock`` has passed, so nothing here waits for the device.
        """
        report.set_times(clock.times())
        report.launches, report.syncs = self._ops.calls.since(calls)
        report.gc_s = clock.collector_s()
        if report.cache_refresh:        # the cache's refresh policy learns what it cost and saved
            self._store.observe_refresh(report.times.get("cache", 0.0), report.cache_saved_bytes,
                                        report.host_bytes - report.cache_loaded_bytes)
        for query, query_report in zip(self._queries, report.queries):
            query._observe(query_report)
        self.last_report = report
        log_report(what, report)

    def _single_row(self, rows):
        """Whether :class:`Rows` ``rows`` is one host row, checked already, that
        :func:`~cugraph_stream.engine.single_row.apply_single_row` may apply."""
        store = self._store
        return (len(rows) == 1 and isinstance(rows.src, np.ndarray) and not rows.check.pending
                and self._times is None and store.num_edges > 0 and takes_single_rows(store))

    def _trees(self):
        """``(parent, value)`` of the tracked queries that keep trees (monotonic
        engines), each array covering every vertex."""
        bound = self._store.vertex_bound
        trees = ((getattr(query.engine, "parent", None), getattr(query.engine, "value", None))
                 for query in self._queries)
        return [(parent, value) for parent, value in trees
                if parent is not None and value is not None and parent.size >= bound and value.size >= bound]

    def _apply_rows(self, arrays, report, clock, rows):
        """The changing part of :meth:`apply`, on :class:`Rows` ``rows`` and their
        arrays on the backend's device (``arrays``: ``(src, dst, weight, op)``;
        None for a row :meth:`_single_row` may take, copied here if it must),
        inside a transaction.  The rows' check is verified after the batch's
        first wait (which brings its summary from the GPU), before the store
        changes: a bad batch raises ``ValueError`` there and rolls back."""
        ops, store = self._ops, self._store
        if arrays is None:
            rows.verify()
            single = apply_single_row(store, int(rows.src[0]), int(rows.dst[0]), rows.weight[0], int(rows.op[0]),
                                      self._trees())
            if single is not None:
                clock.lap("reduce")         # (the reduction and the store's change in one call: timed here)
                self._finish_rows(rows, report, clock, *single, ops.no_items())
                return
            arrays = ops.asarrays(rows.src, rows.dst, rows.weight, rows.op)
        src, dst, w, codes = arrays
        empty = store.num_edges == 0 and store.out.end == 0
        reduced = found = None
        if not empty and self._times is None and int(src.size) <= SPECULATIVE_ROWS:
            reduced, found = self._reduce_if_known(src, dst, w, codes)
            rows.verify()
        if reduced is not None:                 # (the rows named known vertices only)
            new_vertices = ops.no_items()
        else:
            only_inserts = empty and bool(ops.host_ints((codes == INSERT).all())[0])   # (one read, first batch only)
            fresh = only_inserts and store.num_vertices == 0
            u, v, new_vertices = self._vertices_of(src, dst, codes, fresh, found, rows.verify)
            if self._times is not None:
                clock.lap("reduce")             # (the id mapping, as without a window)
                u, v, w, codes = self._expire(u, v, w, codes, rows.time, report)
                clock.lap("window")
                only_inserts = empty and bool(ops.host_ints((codes == INSERT).all())[0])   # expired rows delete
            if only_inserts:                    # an empty store loads the rows at once
                clock.lap("reduce")             # (the id mapping: a bulk load reduces as it builds)
                delta = store.load(u, v, w)
                counts = dict(inserted=store.num_edges)
            else:
                reduced = reduce_batch(store, u, v, w, codes)     # rows naming unknown vertices: ignored
        if reduced is not None:
            counts = reduced.counts
            clock.lap("reduce")
            delta = store.apply(reduced)
        self._finish_rows(rows, report, clock, counts, delta, new_vertices)

    def _finish_rows(self, rows, report, clock, counts, delta, new_vertices):
        """:meth:`_apply_rows` once the store holds the rows: the report's counts, then the queries."""
        delta.new_vertices = new_vertices
        clock.lap("store")
        self._store.note_weights(rows.largest_weight, rows.fractional_weights)
        for name, count in counts.items():
            setattr(report, name, count)
        report.new_vertices = int(new_vertices.size)
        self._update_queries(delta, report, clock)

    def _load_pieces(self, pieces, source, destination, weight, piece_rows=None):
        """Load an edge list in ``pieces`` into this empty graph (see :meth:`from_edgelist`).

        Pass 1 validates every piece and collects its vertex keys; pass 2
        reads the pieces again as internal ids and weights into host memory
        (:class:`~cugraph_stream.engine.bulk_load.EdgeRows`); the store is
        then built in ranges of vertices of at most ``piece_rows`` arcs
        (default: what the device holds besides the arc index being built).
        One transaction, as :meth:`apply`.
        """
        ops, xp = self._ops, self._ops.xp
        clock, calls = PhaseClock(ops, self._phase_listener), ops.calls.snapshot()
        first = pieces[0]
        present = column_names(first)
        columns = self._schema.columns(present, source, destination, weight, None, None, None, None)
        weight_dtype = self._weight_dtype_for(first, columns)
        if weight_dtype != self._store.weight_dtype:        # (an empty graph takes its edges' dtype)
            self._store = GraphStore(ops, self._store.directed, weight_dtype, placement=self._store.placement)
        store = self._store
        report = BatchReport(rows=0, ignored_columns=self._schema.ignored(present, columns))
        with self._transaction():
            store.journal.assign(self, "_schema", self._schema.recording(columns))
            distinct, counts = xp.empty(0, dtype=xp.int64), []
            for index in range(len(pieces)):
                rows, keys = self._read_piece(pieces, index, columns, weight_dtype, counts,
                                              first if index == 0 else None)
                keys.commit(store.journal)
                store.note_weights(rows.largest_weight, rows.fractional_weights)
                src, dst = ops.asarrays(rows.src, rows.dst)
                # the piece's ids merged into those before (sorting all again: O(V log V) a piece)
                distinct = ops.sorted_union(distinct, ops.sorted_distinct(xp.concatenate((src, dst))))
                counts.append(len(rows))
            clock.lap("validate")
            logger.debug("load in pieces: %d pieces validated, %d rows, %d vertices", len(pieces), sum(counts),
                         int(distinct.size))
            new_vertices = store.add_vertices(distinct)
            del distinct
            report.rows = total = sum(counts)
            edge_rows = EdgeRows.in_host_memory(ops, total, store.vertices.size, weight_dtype, chunk_rows=piece_rows,
                                                weight=1 if columns.weight is None else None)
            at = 0
            for index in range(len(pieces)):
                rows, _ = self._read_piece(pieces, index, columns, weight_dtype, counts)
                src, dst, w = ops.asarrays(rows.src, rows.dst, rows.weight)
                u, v = store.vertices.lookup(src), store.vertices.lookup(dst)
                if bool(((u < 0) | (v < 0)).any()):
                    raise ValueError(f"piece {index} of the edge list names vertices it did not name when first "
                                     f"read: every piece must read the same each time")
                edge_rows.write(at, u, v, w)
                at += counts[index]
            clock.lap("reduce")
            if piece_rows is None:
                # what the device holds besides the arc index being built and the pre-images of the
                # per-vertex arrays the ranges write (start, degree, capacity of two adjacencies)
                reserved = store.index.bytes_for(total * (1 if store.directed else 2)) + 48 * store.vertices.size
                piece_rows = ops.bulk_load_rows(reserved_bytes=reserved)
                edge_rows.chunk_rows = max(piece_rows or total, 1)
            logger.debug("load in pieces: %d rows in host memory as internal ids; ranges of at most %s rows",
                         total, piece_rows)
            store.load_rows(edge_rows, range_arcs=piece_rows)
            del edge_rows
            ops.release_cached_memory()     # the ranges' arrays: tens of GB a large load no longer needs
            clock.lap("store")
            report.inserted, report.new_vertices = store.num_edges, int(new_vertices.size)
            delta = store.empty_delta()
            delta.new_vertices = new_vertices
            self._update_queries(delta, report, clock)
        self._publish(report, clock, calls, "apply")

    def _read_piece(self, pieces, index, columns, weight_dtype, counts, piece=None):
        """Piece ``index``'s validated rows (see :meth:`_read`; ``piece``: the piece,
        read already); a ``ValueError`` names the piece and its rows in the edge
        list.  ``counts``: the rows of the pieces read before, or of every piece
        (a second reading, which must give as many)."""
        first = sum(counts[:index])
        try:
            rows, keys = self._read(pieces[index] if piece is None else piece, columns, weight_dtype)
        except ValueError as error:
            raise ValueError(f"piece {index} of the edge list (from its row {first:,}): {error}") from None
        if index < len(counts) and len(rows) != counts[index]:
            raise ValueError(f"piece {index} of the edge list had {counts[index]:,} rows when first read and "
                             f"{len(rows):,} when read again: every piece must read the same each time")
        return rows, keys

    def _expire(self, u, v, w, codes, times, report):
        """Fold the rows into the time window; return them followed by a delete row
        per expired edge (after the batch's rows, so the reduction sees them last)."""
        xp = self._ops.xp
        window = self._times[1]
        window.bind(self._store.journal)        # (the store of an empty graph may have been replaced)
        expired_u, expired_v = window.advance(u, v, times, codes)
        report.expired = count = int(expired_u.size)
        if count == 0:
            return u, v, w, codes
        return (xp.concatenate((u, expired_u)), xp.concatenate((v, expired_v)),
                xp.concatenate((w, xp.zeros(count, dtype=w.dtype))),
                xp.concatenate((codes, xp.full(count, DELETE, dtype=codes.dtype))))

    def _reduce_if_known(self, src, dst, w, codes):
        """The rows reduced on the ids of the vertices known now, read in one wait
        with the count of the unknown ones that insert rows name: ``(reduced,
        None)``, or ``(None, found)`` where there are some (``found``: the
        lookup, ``(ids, missing)``, for :meth:`_vertices_of`)."""
        reduced, ids, missing = reduce_rows_of_ends(self._store, src, dst, w, codes)
        return (reduced, None) if reduced is not None else (None, (ids, missing))

    def _vertices_of(self, src, dst, codes, fresh=False, found=None, verify=None):
        """Internal ids of each row's endpoints, creating the vertices that
        insert rows (op ``codes``) name; -1 for unknown vertices named only by
        delete rows.
        ``fresh``: the graph has no vertices and every row inserts (a bulk
        load), so every endpoint is new and none is looked up first.
        ``found``: the rows' lookup when it was made already, ``(ids, missing)``
        as ``VertexTable.lookup_rows`` gives it.  ``verify``: called after the
        lookup's wait, before any vertex is created.

        Returns ``(u, v, new_vertices)``.
        """
        xp, store = self._ops.xp, self._store
        rows = int(src.size)
        if fresh:
            if verify is not None:
                verify()
            ends = xp.concatenate((src, dst))
            new_vertices = store.add_vertices(*self._ops.sorted_distinct_range(ends))
            ids = store.vertices.lookup(ends)          # every endpoint is in the table now
            return ids[:rows], ids[rows:], new_vertices
        ids, creating = store.vertices.lookup_rows(src, dst, codes) if found is None else found
        if verify is not None:
            verify()
        new_vertices = self._ops.no_items()
        if creating.size:          # rarely: most batches name known vertices only
            created, lowest, highest = self._ops.sorted_distinct_range(creating)
            new_vertices = store.add_vertices(created, lowest, highest)
            # every row naming a new vertex (delete rows after its insert too) gets its id
            ids = store.vertices.lookup_again(self._ops.join([src, dst]), ids, created, new_vertices)
        return ids[:rows], ids[rows:], new_vertices

    def _nonnegative_for(self):
        """The first tracked query that needs non-negative weights, or None (an error
        message names it; its name is not made for every batch)."""
        return next((q for q in self._queries if q.needs_nonnegative_weights), None)

    def _update_queries(self, delta, report, clock):
        store = self._store
        load_bytes = 0
        if store.cached:
            load_bytes = sum(refresh.load_bytes for refresh in store.refresh_cache(delta))
            clock.lap("cache")
            refresh = store.last_refresh
            report.cache_refresh, report.cache_refresh_reason = refresh.kind, refresh.reason
            report.cache_loaded_bytes = load_bytes
        for query in self._queries:
            with store.counting_reads() as reads:
                query_report = query._update(delta, clock)
            query_report.host_edges_read, query_report.host_bytes = reads.host_edges, reads.host_bytes
            query_report.cache_hits, query_report.cache_saved_bytes = reads.cache_edges, reads.cache_saved_bytes
            report.add_query(query_report)
        if store.placement.counts_reads:
            report.host_bytes += load_bytes
            read = report.host_edges_read + report.cache_hits
            report.cache_hit_ratio = report.cache_hits / read if read else 0.0
        if self._ops.has_device_memory:
            report.device_memory_bytes = store.device_memory_bytes() + sum(
                q.engine.memory_bytes() for q in self._queries)

    def _vertex_ids(self, ids, extend=False):
        """External ids of the vertex keys ``ids`` (see :meth:`add_vertices`), and their encoder."""
        table, names = self._keys.as_table(ids, "ids")
        keys = self._keys.encoder(extend=extend)
        return self._ops.asarray(keys.encode(table, names)), keys

    @_exclusive
    def add_vertices(self, ids):
        """Add isolated vertices; those already in the graph are left as they are.

        Parameters
        ----------
        ids : list, array or Series of vertex keys
            For multi-column keys: a DataFrame with one column per key part,
            or a list of tuples.

        Returns
        -------
        BatchReport
            ``new_vertices`` counts the vertices added.
        """
        ops, store = self._ops, self._store
        clock, calls = PhaseClock(ops), ops.calls.snapshot()
        external, keys = self._vertex_ids(ids, extend=True)
        external = ops.sorted_distinct(external)
        report = BatchReport(rows=int(external.size))
        with self._transaction():
            keys.commit(store.journal)
            new = store.add_vertices(external[store.vertices.lookup(external) < 0])
            delta = store.empty_delta()
            delta.new_vertices = new
            report.new_vertices = int(new.size)
            clock.lap("store")
            self._update_queries(delta, report, clock)
        self._publish(report, clock, calls, "add_vertices")
        return report

    @_exclusive
    def remove_vertices(self, ids):
        """Remove vertices and all their edges.

        Parameters
        ----------
        ids : list, array or Series of vertex keys
            As :meth:`add_vertices` takes them.

        Returns
        -------
        BatchReport
            ``removed_vertices`` and ``deleted`` (edges) count what went.

        Raises
        ------
        ValueError
            If an id is not a vertex or is the source of a tracked query;
            nothing changes then.
        """
        ops, store = self._ops, self._store
        clock, calls = PhaseClock(ops), ops.calls.snapshot()
        external, _ = self._vertex_ids(ids)
        internal = ops.to_host(store.vertices.lookup(external))
        if (internal < 0).any():
            row = int(np.flatnonzero(internal < 0)[0])
            key = _row_key(self._keys.as_table(ids, "ids")[0], row)
            raise ValueError(f"vertex {key!r} (ids, row {row}) is not in the graph")
        removed = set(internal.tolist())
        for query in self._queries:
            if query.source is not None and query.engine.source in removed:
                raise ValueError(f"vertex {query.source!r} is the source of tracked {query.name}; "
                                 "untrack it first")
        edges_before = store.num_edges
        internal = ops.sorted_distinct(ops.asarray(internal))
        report = BatchReport(rows=int(external.size), removed_vertices=int(internal.size))
        with self._transaction():
            if self._times is not None:
                self._times[1].drop_vertices(internal)
            delta = store.remove_vertices(internal)
            report.deleted = edges_before - store.num_edges
            clock.lap("store")
            self._update_queries(delta, report, clock)
            self._fit_memory()              # the bound may have come down
        self._publish(report, clock, calls, "remove_vertices")
        return report

    # --------------------------------------------------------------- reading
    @_exclusive
    def edges(self):
        """Edges as a DataFrame sorted by (source, destination), in the graph's column names.

        Columns: the :attr:`schema`'s source, destination and weight columns
        (``weight`` for an unweighted graph), as cuGraph's
        ``view_edge_list`` keeps the input's names; multi-column vertex keys
        give one column per key column, named as the input's.  Vertices in
        the graph's key dtypes.  An undirected edge appears once, with
        source <= destination; the order (and that comparison) is the
        keys' own for integer keys, and first-seen order for encoded keys
        (strings, multi-column keys: :mod:`cugraph_stream.frame.keys`).  A
        graph that records edge times (``from_edgelist(time=...)``) adds
        their column, under its name (datetimes as ``datetime64[ns]``, in
        their time zone).

        Examples
        --------
        >>> import pandas as pd, cugraph_stream as cgs
        >>> g = cgs.StreamGraph.from_edgelist(pd.DataFrame({"a": [1, 0], "b": [2, 1], "w": [0.5, 1.5]}),
        ...                                   source="a", destination="b", edge_attr="w")
        >>> g.edges()
           a  b    w
        0  0  1  1.5
        1  1  2  0.5
        """
        xp, store = self._ops.xp, self._store
        u, v, w = store.edge_arrays()
        src, dst = store.vertices.external[u], store.vertices.external[v]
        if not self.directed:
            src, dst = xp.minimum(src, dst), xp.maximum(src, dst)
        order = xp.lexsort(xp.stack((dst, src)))
        source, destination, weight = self._edge_columns()
        columns = {}
        for names, ends in ((source, src[order]), (destination, dst[order])):
            parts = self._keys.decode_parts(ends)
            if not isinstance(names, (list, tuple)):
                names = [names] if len(parts) == 1 else [f"{i}_{names}" for i in range(len(parts))]
            columns.update(zip(names, parts))
        columns[weight] = w[order]
        if self._times is None:
            return make_frame(self._ops, columns)
        spec, window = self._times            # each edge's time, as the batches gave it
        columns[spec.column] = window.times_of(u[order], v[order])
        return spec.show_column(make_frame(self._ops, columns))

    def _edge_columns(self):
        """Names of :meth:`edges`' source, destination and weight columns."""
        schema = self._schema
        return schema.source, schema.destination, schema.weight or "weight"

    @_exclusive
    def vertices(self):
        """Vertex keys: a Series named ``vertex`` (a DataFrame ``0_vertex``,
        ``1_vertex``, ... for multi-column keys), sorted (integer keys) or in
        first-seen order (encoded keys)."""
        frame = make_frame(self._ops, self._keys.columns("vertex", self._store.vertices.sorted_ids()[0]))
        return frame["vertex"] if self._keys.width == 1 else frame

    @_exclusive
    def check_consistency(self):
        """Raise ``RuntimeError`` if the store's invariants are broken (a debugging aid)."""
        self._store.check_consistency()
        if self._times is not None:
            self._times[1].check(*self._store.edge_arrays()[:2])

    # ------------------------------------------------------- streams from Dask
    def apply_stream(self, ddf, source=None, destination=None, weight=None, op=OP, progress=True, *,
                     edge_attr=None, default_weight=None):
        """Apply a dask (or dask-cudf) DataFrame of updates partition by partition.

        Partitions are applied in partition order, each as one atomic batch
        of :meth:`apply`; each is computed only when its turn comes, never
        the whole frame at once.

        Parameters
        ----------
        ddf : dask.dataframe.DataFrame
            Update rows; a dask-cudf DataFrame on the GPU backend.
        source, destination, weight, op, edge_attr, default_weight
            As in :meth:`apply` (the graph's columns by default).
        progress : bool
            Show a tqdm progress bar on stderr when tqdm is installed;
            ``False`` is quiet.

        Returns
        -------
        list of BatchReport
            One per partition, in order.

        Raises
        ------
        ValueError
            If ``ddf`` is not a dask DataFrame or lacks a column (before any
            partition is computed), or if a partition is bad input: the
            message starts with ``partition <index> (rows a-b of the
            stream):`` and then names the column and row, as :meth:`apply`
            does, with the row counted from the start of the stream too
            (``.row`` holds that one).  The partitions before the bad one stay
            applied; it and the ones after it are not.

        Examples
        --------
        >>> import pandas as pd, pytest, cugraph_stream as cgs
        >>> dd = pytest.importorskip("dask.dataframe")
        >>> g = cgs.StreamGraph.from_edgelist(pd.DataFrame({"source": [0], "destination": [1]}))
        >>> updates = dd.from_pandas(pd.DataFrame({"source": [1, 2, 0], "destination": [2, 3, 1],
        ...                                        "op": ["insert", "insert", "delete"]}),
        ...                          npartitions=2, sort=False)
        >>> [report.rows for report in g.apply_stream(updates, progress=False)]
        [2, 1]
        >>> g.edges()[["source", "destination"]].values.tolist()
        [[1, 2], [2, 3]]
        """
        require_dask_frame(ddf)
        columns = self._schema.columns([str(c) for c in ddf.columns], source, destination, weight, edge_attr,
                                       op, default_weight)
        return apply_partitions(ddf, [columns.source, columns.destination, columns.weight, columns.op],
                                lambda part: self.apply(part, source=columns.source,
                                                        destination=columns.destination, weight=weight,
                                                        op=op, edge_attr=edge_attr,
                                                        default_weight=default_weight),
                                progress=progress)

    # ----------------------------------------------------------- checkpoints
    @_exclusive
    def save(self, path):
        """Write the whole state to the checkpoint directory ``path``; returns ``path``.

        Saves the vertices (with their internal ids and the free list), the
        edges and weights, every tracked query with its parameters, values,
        parents (PageRank: its estimate and residuals) and last changes, and
        the cache's hotness, as Arrow IPC files and a ``metadata.json``
        (the layout: :mod:`cugraph_stream.checkpoint`).  :meth:`load` rebuilds
        the graph, on this backend or the other: the loaded graph's results
        and ``changes()`` equal these, and applying the same batches to both
        gives the same results (PageRank within float64 rounding, where the
        summation order differs).  Not saved: :attr:`last_report`, and the
        cache's contents (the first batch after loading reloads the cache from
        the saved hotness).

        Holds the graph's lock while writing, so the checkpoint is one
        committed state (batches from other threads wait).  Atomic: the files
        go to a temporary sibling directory, fsynced, then renamed to
        ``path``.  A checkpoint already at ``path`` is renamed aside and
        deleted once the new one is in place (for the instant between the two
        renames ``path`` does not exist; a crash there leaves both in
        ``.<name>.old-*`` and ``.<name>.tmp-*`` siblings).

        ``pickle`` and ``copy.deepcopy`` work too, for a copy in this process
        or another running the same version of cugraph_stream: of a CPU graph
        of any placement, of a GPU graph with ``placement="device"`` (a copy's
        arrays are plain device memory, so a ``"host"`` or ``"cached"`` GPU
        graph would not keep its placement, and its cache's chunks do not
        pickle).  A checkpoint is the open format meant to last: readable by
        any Arrow library, across versions, between backends, and for every
        placement.

        Parameters
        ----------
        path : str or os.PathLike
            A directory that does not exist yet, or an earlier checkpoint
            (replaced).

        Returns
        -------
        str or os.PathLike
            ``path``.

        Raises
        ------
        ValueError
            If ``path`` exists and is not a checkpoint (it is left alone), or
            a tracked query is not one of this package's.

        Examples
        --------
        >>> import os, shutil, tempfile, pandas as pd, cugraph_stream as cgs
        >>> g = cgs.StreamGraph.from_edgelist(pd.DataFrame({"source": [0, 1], "destination": [1, 2], "w": [2.0, 3.0]}),
        ...                                   weight="w")
        >>> paths = g.track(cgs.SSSP(source=0))
        >>> folder = tempfile.mkdtemp()
        >>> saved = g.save(os.path.join(folder, "graph.ckpt"))
        >>> sorted(os.listdir(saved))
        ['edges.arrow', 'free.arrow', 'metadata.json', 'query-0-changed.arrow', 'query-0.arrow', 'vertices.arrow']
        >>> h = cgs.StreamGraph.load(saved)
        >>> h.queries[0].result()["distance"].tolist()
        [0.0, 2.0, 5.0]
        >>> _ = h.apply(pd.DataFrame({"source": [0], "destination": [2], "w": [1.0]}), weight="w", op=None)
        >>> h.queries[0].changes()["distance"].tolist()
        [1.0]
        >>> shutil.rmtree(folder)
        """
        from .checkpoint import write_checkpoint

        return write_checkpoint(path, self._store, self._queries, self.backend, self._schema, times=self._times,
                                keys=self._keys)

    @classmethod
    def load(cls, path, backend=None):
        """The graph saved by :meth:`save` at ``path``, with its tracked queries.

        Parameters
        ----------
        path : str or os.PathLike
            A checkpoint directory.
        backend : {"cpu", "gpu", "auto"}, optional
            Default: the backend it was saved from where available here, else
            ``"cpu"``.  Placement and cache settings are the saved ones.

        Returns
        -------
        StreamGraph
            Its queries are in :attr:`queries`, in tracking order (new query
            objects: those of the saved graph stay with it).

        Raises
        ------
        FileNotFoundError
            If ``path`` does not exist.
        cugraph_stream.checkpoint.CheckpointError
            A ``ValueError``: ``path`` is not a checkpoint, was written by a
            newer version, or a file is missing, truncated or damaged (its
            message names the file).
        """
        from .checkpoint import read_checkpoint

        checkpoint = read_checkpoint(path)             # verified before anything is built
        graph = cls(**checkpoint.graph_options(backend))
        graph._schema = checkpoint.schema()
        with graph.lock, graph._ops.allocation_scope():
            checkpoint.restore_keys(graph._keys)
            checkpoint.restore_store(graph._store)
            times = checkpoint.restore_times(graph._store)
            if times is not None:
                graph._record_times(*times)
            for query, engine in checkpoint.restore_queries(graph._store, graph._keys):
                query._bind(graph, engine)
                if getattr(query, "weighted", False) is None and not query.uses_weights:
                    # PageRank(weighted=None) on a graph whose columns are not known yet
                    query._follows_graph = not graph._schema.recorded
                graph._queries.append(query)
        return graph

    # ------------------------------------------------------------- cuGraph
    @classmethod
    def from_cugraph(cls, G, backend="auto", weight_dtype=None, source=None, destination=None,
                     weight=None):
        """A graph holding the vertices and edges of the ``cugraph.Graph`` ``G``.

        Reads ``G.view_edge_list()``, ``G.is_directed()``, ``G.is_weighted()``
        and ``G.nodes()`` (so isolated vertices come along).  An unweighted
        ``G`` gives every edge weight 1.

        Parameters
        ----------
        G : cugraph.Graph
        backend : {"auto", "gpu", "cpu"}
        weight_dtype : {"float32", "float64"}, optional
            Default: float64 when ``G``'s weights are float64, else float32.
        source, destination, weight : str, optional
            Column names of ``G.view_edge_list()``; found by name (``src`` /
            ``source``, ``dst`` / ``destination``, ``weight`` / ``weights``)
            when not given.

        Raises
        ------
        ValueError
            If ``G`` is not a cuGraph graph or its columns cannot be found.
        """
        if not all(hasattr(G, name) for name in ("view_edge_list", "is_directed")):
            raise ValueError(f"G must be a cugraph.Graph, got {type(G).__module__}.{type(G).__name__}")
        edges = G.view_edge_list()
        columns = [str(c) for c in edges.columns]
        weighted = bool(G.is_weighted()) if hasattr(G, "is_weighted") else None

        def find(given, candidates, what, required=True):
            if given is not None:
                if given not in columns:
                    raise ValueError(f"{what}: column {given!r} not in G.view_edge_list() "
                                     f"(columns: {columns})")
                return given
            for name in candidates:
                if name in columns:
                    return name
            if required:
                raise ValueError(f"{what}: cannot tell which column of G.view_edge_list() "
                                 f"{columns} it is; pass {what}=")
            return None

        src = find(source, ("src", "source", getattr(G, "source_columns", None)), "source")
        dst = find(destination, ("dst", "destination", "target",
                                 getattr(G, "destination_columns", None)), "destination")
        w = find(weight, ("weight", "weights", "wgt", getattr(G, "weight_column", None)), "weight",
                 required=bool(weighted))
        if weighted is False and weight is None:
            w = None
        if weight_dtype is None:
            weight_dtype = "float64" if w is not None and str(edges[w].dtype) == "float64" else "float32"
        graph = cls(directed=bool(G.is_directed()), backend=backend, weight_dtype=weight_dtype)
        if graph.backend == "cpu" and hasattr(edges, "to_pandas"):
            edges = edges.to_pandas()           # the CPU engine reads host columns
        graph.apply(edges, source=src, destination=dst, weight=w, op=None)
        if hasattr(G, "nodes"):
            vertices = G.nodes()
            if len(vertices) > graph.number_of_vertices():
                graph.add_vertices(vertices)
        return graph

    def to_cugraph(self):
        """The current snapshot as a ``cugraph.Graph``, for any static cuGraph algorithm.

        Directed as this graph; edges and weights from :meth:`edges` (an
        undirected edge once); isolated vertices are passed through
        ``from_cudf_edgelist(vertices=...)`` where cuGraph accepts it.  A copy:
        later batches do not change it.

        Raises
        ------
        ImportError
            If cuGraph (or cuDF) is not installed.
        """
        cugraph = _import_optional("cugraph", "StreamGraph.to_cugraph")
        cudf = _import_optional("cudf", "StreamGraph.to_cugraph")
        edges = self.edges()
        if not is_cudf(edges):
            edges = cudf.from_pandas(edges)
        G = cugraph.Graph(directed=self.directed)
        kwargs = {}
        source, destination, _ = self._edge_columns()
        if isinstance(source, (list, tuple)):          # multi-column keys: cuGraph takes lists
            source, destination = list(source), list(destination)
            ends = [edges[names].rename(columns=dict(zip(names, range(len(names)))))
                    for names in (source, destination)]
            endpoints = len(cudf.concat(ends).drop_duplicates()) if len(edges) else 0
        else:
            endpoints = cudf.concat([edges[source], edges[destination]]).nunique() if len(edges) else 0
        if endpoints < self.number_of_vertices():
            if isinstance(source, list):
                raise ValueError("this graph has isolated vertices, which cuGraph takes (vertices=) "
                                 "only for one-column vertex keys; remove them first")
            import inspect

            if "vertices" not in inspect.signature(G.from_cudf_edgelist).parameters:
                raise ValueError("this graph has isolated vertices and this cuGraph version's "
                                 "from_cudf_edgelist takes no vertices=; remove them first")
            vertices = self.vertices()
            kwargs["vertices"] = (vertices if is_cudf(vertices)
                                  else cudf.Series(vertices.to_numpy()))
        weight = self._edge_columns()[2]
        G.from_cudf_edgelist(edges, source=source, destination=destination, edge_attr=weight,
                             renumber=True, **kwargs)
        return G


def _row_key(table, row):
    """The key at ``row`` of a table of key columns (for messages)."""
    columns = [table[c] for c in (table.columns if hasattr(table, "columns") else table)]
    values = [column.iloc[row] if hasattr(column, "iloc") else column[row] for column in columns]
    values = [v.item() if hasattr(v, "item") else v for v in values]
    return values[0] if len(values) == 1 else tuple(values)


def _import_optional(name, what):
    """Import an optional package, or raise an ``ImportError`` naming it."""
    import importlib

    try:
        return importlib.import_module(name)
    except ImportError as error:
        raise ImportError(f"{what} needs the {name!r} package, which is not installed or fails "
                          f"to import ({error}); install RAPIDS {name}: pip install "
                          f"'cugraph-stream[cu12]' (or [cu13]; '.[cu12]' from a checkout), or "
                          f"conda install -c rapidsai {name}") from error
