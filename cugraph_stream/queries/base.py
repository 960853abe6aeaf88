"""Standing queries: what users track on a :class:`StreamGraph`.

A query object names an algorithm and its parameters; once tracked, it owns
an engine state (:mod:`cugraph_stream.engine`) that every batch updates, and
it turns that state into result frames in external vertex ids.
"""
from __future__ import annotations

import contextlib
import weakref

import numpy as np

from ..engine.cost_model import CostModel, PathChoice
from ..engine.monotonic import MonotonicEngine
from ..frame.keys import VertexKeys
from ..frame.output import make_frame
from ..report import QueryReport

MODES = ("auto", "incremental", "recompute")


class Query:
    """Base of all standing queries.

    Parameters
    ----------
    mode : {"auto", "incremental", "recompute"}
        ``"auto"`` (the default) chooses before every batch whichever of the
        two paths its :class:`~cugraph_stream.engine.cost_model.CostModel`
        estimates cheaper; ``"incremental"`` always updates the previous
        result; ``"recompute"`` recomputes from scratch after every batch
        that changed the graph, with the same engine (a reference and a
        baseline).  A batch that changed no edge or vertex (re-inserts of
        the same weight, deletes of absent edges) takes the incremental
        path in every mode: there is nothing to correct.  (``"auto"``'s
        recompute path restarts PageRank from its last ranks, warm-started
        as pylibcugraph's is, rather than from scratch.)  Every path gives
        the same result; each batch's :class:`~cugraph_stream.report.QueryReport`
        says which ran (``path``) and why (``path_reason``, the estimates).

    Attributes
    ----------
    kind : str
        The query's kind, its key in :data:`cugraph_stream.queries.KINDS`
        (``"SSSP"``, ``"BFS"``, ``"WidestPath"``, ``"WCC"``, ``"PageRank"``);
        subclasses inherit it.
    source : object or None
        The source vertex (its key: an int, a string, a tuple for
        multi-column keys) of the kinds that take one, else None.
    """

    #: key of this kind in :data:`cugraph_stream.queries.KINDS` (set by each kind)
    kind = None
    #: lower-case name used by the command line, result files and :mod:`cugraph_stream.verify`
    short_name = None
    #: whether the query is computed from a source vertex
    takes_source = False
    #: the source vertex (its key); None for kinds without one
    source = None
    #: the tracking graph's :class:`~cugraph_stream.frame.keys.VertexKeys` (set by ``track``)
    _keys = None
    #: whether edge weights matter to the result
    weighted = False
    #: name of the value column in result frames
    value_column = "value"
    #: whether edge weights must be non-negative while this query is tracked
    needs_nonnegative_weights = False
    #: whether ``mode="auto"``'s recompute path is another computation than ``track``'s
    #: (PageRank's warm restart): ``track``'s time then only stands in for its rate
    _recomputes_warm = False

    def __init__(self, mode="auto"):
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
        self.mode = mode
        self._graph = None     # a weak reference to the tracking graph: it holds its queries, not the other way
        self.engine = None
        #: the :class:`~cugraph_stream.engine.cost_model.CostModel` of ``mode="auto"`` (set by ``track``;
        #: replace it to inject rates)
        self.cost_model = None
        self._last_update = None    # (path, work, changed, graph size) of the last update, for the cost model
        self._track_work = None     # (work, graph size) of track's computation from scratch

    @property
    def graph(self):
        """The graph that tracks this query, or None (not tracked, or the graph is gone:
        a query keeps its engine, so its last results stay readable)."""
        return None if self._graph is None else self._graph()

    def __getstate__(self):
        state = self.__dict__.copy()
        state["_graph"] = self.graph            # weak references do not pickle
        return state

    def __setstate__(self, state):
        graph = state.pop("_graph")
        self.__dict__.update(state)
        self._graph = None if graph is None else weakref.ref(graph)

    @property
    def name(self):
        """Short label used in reports, e.g. ``SSSP(source=0)``."""
        return type(self).__name__ + "(" + ", ".join(f"{k}={v!r}" for k, v in self._params().items()) + ")"

    def _params(self):
        params = {}
        if self.mode != "auto":
            params["mode"] = self.mode
        return params

    def __repr__(self):
        return self.name

    # ------------------------------------------------------------ life cycle
    def _start(self, store):
        """Validate, then compute from scratch on ``store``; returns the engine (not yet bound)."""
        if self.graph is not None:
            raise ValueError(f"{self.name} is already tracked by a graph; create a new query object")
        self._validate(store)
        engine = self._make_engine(store)
        self._track_work = (_total(engine.initialize(), engine.converge()), _size(store))
        return engine

    def _observe_track(self, seconds):
        """Teach the cost model (``mode="auto"`` only) what ``track``'s computation from
        scratch cost (``seconds`` of wall time, the transaction's synchronisation included)."""
        if self.mode != "auto":
            return
        if self.cost_model is None:
            self.cost_model = CostModel(self.engine.ops.name)
        self.cost_model.observe_recompute(*self._track_work, seconds, stand_in=self._recomputes_warm)

    def _bind(self, graph, engine):
        """Become ``graph``'s tracked query, kept by ``engine`` (once its transaction committed)."""
        self._graph, self.engine = weakref.ref(graph), engine

    def _detach(self):
        self._graph, self.engine = None, None

    def _validate(self, store):
        """Raise ``ValueError`` if the query cannot run on ``store``'s graph."""

    def _make_engine(self, store):
        raise NotImplementedError

    def _update(self, delta, clock):
        """Bring the result up to date with a batch; return a :class:`QueryReport`
        (its times come from ``clock``, a :class:`~cugraph_stream.report.PhaseClock`,
        once the batch is published)."""
        engine, size = self.engine, _size(self.engine.store)
        changed = delta.changed_arcs + int(delta.new_vertices.size + delta.removed_vertices.size)
        choice = self._choose(changed, size)
        engine.incremental = choice.path == "incremental"
        # an incremental update gives up (and recomputes) once its work passes a recomputation's
        engine.give_up_above = self.cost_model.recompute_budget(size) \
            if self.mode == "auto" and engine.incremental else None
        name = self.name
        fix = engine.correct(delta)
        clock.lap(f"{name}:correct")
        run = engine.converge()
        clock.lap(f"{name}:compute")
        if engine.gave_up:
            choice = PathChoice("recompute", f"gave up incremental: {engine.gave_up}", choice.incremental_s,
                                choice.recompute_s)
        # (an update of a batch that changed nothing teaches the cost model no rate)
        self._last_update = (choice.path, _total(fix, run), changed, size) if changed else None
        return QueryReport(name, invalidated=fix.invalidated, activated=fix.activated + run.activated,
                           edges_scanned=fix.edges_scanned + run.edges_scanned, converged=engine.converged,
                           path=choice.path, path_reason=choice.reason, estimated_incremental_s=choice.incremental_s,
                           estimated_recompute_s=choice.recompute_s)

    def _choose(self, changed, size):
        """The :class:`PathChoice` of the next update: the mode's, or the cost model's;
        in any mode the incremental path for a batch that changed nothing (re-inserts
        of the same weight, deletes of absent edges): an update with nothing to
        correct, where a recomputation would only compute the same result again."""
        if changed == 0:
            return PathChoice("incremental", "the batch changed no edge or vertex")
        if self.mode != "auto":
            return PathChoice(self.mode, f"mode={self.mode!r}")
        if self.cost_model is None:             # (restored from a checkpoint)
            self.cost_model = CostModel(self.engine.ops.name)
        return self.cost_model.choose(changed, size, bounded=self.engine.gives_up)

    def _observe(self, query_report):
        """Teach the cost model the last update's time (its :class:`QueryReport`, once published)."""
        if self.cost_model is None or self._last_update is None:
            return
        path, work, changed, size = self._last_update
        self._last_update = None
        self.cost_model.observe(path, query_report.correct_s + query_report.compute_s, work, changed)
        if path == "recompute":
            self.cost_model.observe_recompute(work, size)

    def _require_graph(self):
        if self.engine is None:
            raise ValueError(f"{self.name} is not tracked by any graph; call graph.track(query) first")

    @contextlib.contextmanager
    def _committed(self):
        """Hold the graph's lock while reading: results of a committed state, never
        of a batch in progress in another thread."""
        self._require_graph()
        graph = self.graph
        with contextlib.nullcontext() if graph is None else graph.lock:
            self._require_graph()        # untracked while waiting
            yield

    def result(self):
        """The current result as a DataFrame, one row per vertex, sorted by vertex."""
        raise NotImplementedError

    def _vertex_columns(self, external):
        """The ``vertex`` column(s) of ``external`` ids, in the graph's vertex keys."""
        return (self._keys if self._keys is not None else VertexKeys()).columns("vertex", external)


def _total(*works):
    """The work of ``works`` (:class:`Work`) in one number: entries scanned plus vertices handled."""
    return sum(w.edges_scanned + w.activated + w.invalidated for w in works)


def _size(store):
    """What a computation from scratch grows with: vertices plus edges."""
    return store.num_vertices + store.num_edges


class MonotonicQuery(Query):
    """A query kept by dependency memoization (value and parent per vertex)."""

    #: whether result frames carry a predecessor column
    has_predecessor = True

    def __init__(self, source=None, mode="auto"):
        super().__init__(mode)
        self.source = source

    def _params(self):
        params = {} if self.source is None else {"source": self.source}
        params.update(super()._params())
        return params

    @classmethod
    def rule(cls, weight_dtype, directed):
        """The relaxation :class:`~cugraph_stream.algorithms.Rule` this kind runs
        on a graph of ``weight_dtype`` weights, directed or not.

        Examples
        --------
        >>> from cugraph_stream import SSSP, WCC
        >>> SSSP.rule("float32", directed=True).extend, WCC.rule("float64", directed=True).symmetric
        ('add', True)
        """
        raise NotImplementedError

    def _rule(self, store):
        return self.rule(store.weight_dtype, store.directed)

    def _internal_source(self, store):
        """Internal id of the source vertex (-1 if it is not in the graph), or None."""
        if self.source is None:
            return None
        keys = self._keys if self._keys is not None else VertexKeys()
        if keys.width == 1 and (np.ndim(self.source) != 0 or isinstance(self.source, tuple)):
            raise ValueError(f"source must be one vertex key, got {self.source!r}")
        if keys.width > 1 and not (isinstance(self.source, tuple) and len(self.source) == keys.width):
            raise ValueError(f"source must be one vertex key, a tuple of {keys.width} parts, "
                             f"got {self.source!r}")
        if keys.kind is None:
            return -1                            # no vertex yet
        external = keys.lookup(self.source, "source")
        if keys.encoded and int(external[0]) < 0:          # a key never seen
            return -1
        return int(store.ops.to_host(store.vertices.lookup(store.ops.asarray(external)))[0])

    def _validate(self, store):
        if self.source is not None and self._internal_source(store) < 0:
            raise ValueError(f"source vertex {self.source} is not in the graph")

    def _make_engine(self, store):
        return MonotonicEngine(store, self._rule(store), source=self._internal_source(store),
                               incremental=self.mode != "recompute", parents_in_result=self.has_predecessor)

    def _values(self, internal):
        """Result values of ``internal`` vertices (subclasses convert conventions)."""
        return self.engine.value[internal]

    def _frame(self, internal):
        store, ops = self.engine.store, self.engine.ops
        xp, keys = ops.xp, (self._keys if self._keys is not None else VertexKeys())
        external = store.vertices.external
        columns = self._vertex_columns(external[internal])
        columns.update(self._value_columns(internal))
        if self.has_predecessor:
            parent = self.engine.parent[internal]
            none = parent < 0
            ids = external[xp.maximum(parent, 0)]
            columns.update(keys.columns("predecessor", ids, none=none if bool(none.any()) else None))
        return make_frame(ops, columns)

    def _value_columns(self, internal):
        """``{value column: values}`` of ``internal`` vertices (WCC: labels are vertices too)."""
        return {self.value_column: self._values(internal)}

    def result(self):
        """One row per vertex, sorted by vertex (integer keys), or in first-seen order
        (encoded keys: strings, multi-column keys).

        Vertex-valued columns (``vertex``, ``predecessor``, WCC's ``labels``)
        hold the graph's vertex keys in their dtypes; multi-column keys give
        ``0_vertex``, ``1_vertex``, ... (cuGraph's names).  ``predecessor`` is
        -1 for "none" with signed integer keys, null otherwise.

        Examples
        --------
        >>> import pandas as pd, cugraph_stream as cgs
        >>> g = cgs.StreamGraph.from_edgelist(pd.DataFrame({"source": ["b", "a"], "destination": ["a", "c"]}))
        >>> g.track(cgs.BFS(source="b")).result()
          vertex  distance predecessor
        0      b         0         NaN
        1      a         1           b
        2      c         2           a
        """
        with self._committed():
            return self._frame(self.engine.store.vertices.sorted_ids()[1])

    def changes(self):
        """Rows of :meth:`result` whose value or predecessor changed in the last update."""
        with self._committed():
            xp = self.engine.ops.xp
            changed = self.engine.changed
            order = xp.argsort(self.engine.store.vertices.external[changed])
            return self._frame(changed[order])
