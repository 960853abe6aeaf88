"""PageRank."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..arrays import is_cudf
from ..engine.pagerank import PageRankEngine, smallest_tol
from ..frame.keys import VertexKeys
from ..frame.output import make_frame
from .base import Query

#: the stopping rules: a bound on the L1 error, or cuGraph's bound on one step's change
STOPS = ("error", "change")


class PageRank(Query):
    """PageRank with damping ``alpha``, within L1 distance ``tol`` of the exact vector.

    Ranks sum to 1.  As cuGraph's ``pagerank``: on a weighted graph the
    transition ``u -> v`` has probability ``w(u, v) / W(u)``, ``W(u)`` the
    sum of ``u``'s out-weights (undirected edges carry their weight both
    ways; self loops count), unless ``weighted=False``; teleport is uniform
    unless a ``personalization`` is given; a dangling vertex (no out-edge,
    or weighted only zero-weight ones) spreads its rank as the teleport
    does.  The ranks are ``networkx.pagerank(G, alpha, personalization,
    weight="weight")`` (``weight=None`` unweighted).

    Parameters
    ----------
    alpha : float
        Damping factor, in (0, 1).
    tol : float
        With ``stop="error"`` (default): bound on the L1 distance to the
        exact PageRank after every batch.  With ``stop="change"``
        (cuGraph's and pylibcugraph's ``epsilon``): bound on how much one
        more power-iteration step would change the ranks, in L1
        (``|G x - x|_1 <= tol``); the L1 error is then at most
        ``tol / (1 - alpha)`` (``G`` shrinks differences by ``alpha``), so
        ``stop="change"`` with ``tol`` is ``stop="error"`` with
        ``tol / (1 - alpha)``.  At least
        :func:`~cugraph_stream.engine.pagerank.smallest_tol` of ``alpha``
        (1.5e-12 for 0.85) for ``"error"`` and ``(1 - alpha)`` times that
        for ``"change"``, below which float64 rounding keeps the bound from
        being met.
    max_iter : int, optional
        Most power-iteration rounds (over every vertex) of one update, as
        cuGraph's ``max_iter``; default twice what ``tol`` needs from
        scratch, at least 100.
    fail_on_nonconvergence : bool
        As in cuGraph: when ``max_iter`` rounds leave the bound above
        ``tol``, raise ``RuntimeError`` (default; the batch is rolled back,
        or ``track`` leaves nothing attached); with False, keep the result
        and report ``converged=False`` in the batch's :class:`QueryReport`.
    mode : {"auto", "incremental", "recompute"}
        See :class:`~cugraph_stream.queries.base.Query`.
    weighted : bool, optional
        None (default): use the edge weights when the graph is weighted, as
        ``cugraph.pagerank(G)`` does; False: every out-edge counts the same
        (the ranks before weights were supported); True: use the weights,
        and refuse (``ValueError`` from ``track``) an unweighted graph.
        Weighted, weights must be non-negative while the query is tracked
        (a batch with a negative one raises ``ValueError`` naming it).
    personalization : DataFrame, optional
        Columns ``vertex`` and ``values`` (pandas or cuDF), as cuGraph's
        ``pagerank(personalization=...)``: the teleport vector, values
        finite, non-negative, not all zero, normalised to sum 1; vertices
        without a row get teleport 0, and dangling rank follows the same
        vector (NetworkX's ``dangling=None``).  Every vertex must be in the
        graph when tracked (``ValueError`` naming the row).  A
        personalization vertex removed later loses its share, renormalised
        over the others; a batch removing all of them raises ``ValueError``
        (and is rolled back).
    stop : {"error", "change"}
        What ``tol`` bounds; see ``tol``.

    Examples
    --------
    >>> import pandas as pd, cugraph_stream as cgs
    >>> g = cgs.StreamGraph.from_edgelist(pd.DataFrame({"source": [0, 1, 2], "destination": [1, 2, 0]}))
    >>> g.track(cgs.PageRank(tol=1e-9)).result()["pagerank"].round(6).tolist()
    [0.333333, 0.333333, 0.333333]

    Weights count on a weighted graph (``weighted=False`` ignores them):

    >>> edges = pd.DataFrame({"src": [0, 0, 1, 2], "dst": [1, 2, 2, 0], "w": [1.0, 3.0, 1.0, 1.0]})
    >>> g = cgs.StreamGraph.from_edgelist(edges, source="src", destination="dst", weight="w")
    >>> g.track(cgs.PageRank(tol=1e-9)).result()["pagerank"].round(4).tolist()
    [0.4223, 0.1397, 0.438]
    >>> g.track(cgs.PageRank(tol=1e-9, weighted=False)).result()["pagerank"].round(4).tolist()
    [0.3878, 0.2148, 0.3974]

    Personalised, teleporting to vertex 1 only:

    >>> p = g.track(cgs.PageRank(tol=1e-9, personalization=pd.DataFrame({"vertex": [1], "values": [1.0]})))
    >>> p.result()["pagerank"].round(4).tolist()
    [0.3558, 0.2256, 0.4186]
    """

    kind = "PageRank"
    short_name = "pagerank"
    value_column = "pagerank"
    _recomputes_warm = True

    def __init__(self, alpha=0.85, tol=1e-6, max_iter=None, fail_on_nonconvergence=True, mode="auto",
                 weighted=None, personalization=None, stop="error"):
        super().__init__(mode)
        if not 0.0 < float(alpha) < 1.0:
            raise ValueError(f"alpha must lie in (0, 1), got {alpha!r}")
        if stop not in STOPS:
            raise ValueError(f"stop must be one of {STOPS}, got {stop!r}")
        least = smallest_tol(alpha) * (1.0 if stop == "error" else 1.0 - float(alpha))
        if not float(tol) >= least:
            raise ValueError(f"tol must be at least {least:.2g} for alpha={float(alpha)} and stop={stop!r} "
                             f"(float64 rounding keeps a smaller L1 bound out of reach), got {tol!r}")
        if weighted is not None and not isinstance(weighted, (bool, np.bool_)):
            raise ValueError(f"weighted must be None, True or False, got {weighted!r}")
        self.weighted = None if weighted is None else bool(weighted)
        self.stop = stop
        self.personalization = None if personalization is None else _personalization_table(personalization)
        self._uses_weights = bool(weighted)         # settled by track (see :meth:`_settle_weights`)
        self._follows_graph = False                 # None on a graph whose columns are not known yet
        if max_iter is not None and not (isinstance(max_iter, (int, np.integer)) and max_iter >= 1):
            raise ValueError(f"max_iter must be a positive integer or None, got {max_iter!r}")
        self.alpha = float(alpha)
        self.tol = float(tol)
        self.max_iter = None if max_iter is None else int(max_iter)
        self.fail_on_nonconvergence = bool(fail_on_nonconvergence)

    @property
    def uses_weights(self):
        """Whether the ranks use the edge weights: ``weighted``, or for None whether
        the tracking graph is weighted (settled by ``track``)."""
        return self._uses_weights

    @property
    def needs_nonnegative_weights(self):
        """Weighted PageRank refuses negative weights (a transition probability cannot be
        negative); so does ``weighted=None`` on a graph that may still become weighted."""
        return self._uses_weights or self._follows_graph

    @property
    def error_tol(self):
        """The bound on the L1 error after every batch: ``tol``, or ``tol / (1 - alpha)``
        with ``stop="change"``."""
        return self.tol if self.stop == "error" else self.tol / (1.0 - self.alpha)

    def _settle_weights(self, graph_weighted, recorded=True):
        """Decide whether to use the weights, for a graph weighted or not (``track``).

        On a graph that has not seen an edge list yet (``recorded`` False: its
        columns are not known), ``weighted=None`` starts unweighted and turns
        weighted with the first batch that brings a weight column
        (:meth:`_graph_became_weighted`); ``weighted=True`` is accepted there."""
        if self.weighted and not graph_weighted and recorded:
            raise ValueError(f"weighted: {self.name} needs a weighted graph, but this graph has no weight "
                             "column (pass weighted=None or False, or build the graph with weight=)")
        self._uses_weights = bool(graph_weighted) if self.weighted is None else self.weighted
        self._follows_graph = self.weighted is None and not graph_weighted and not recorded

    def _graph_became_weighted(self, journal):
        """The graph records a weight column (its first batch has one): ``weighted=None``
        starts using the weights (journaled: the batch may still fail)."""
        if not self._follows_graph or self.engine is None:
            return
        journal.assign(self, "_follows_graph", False)
        journal.assign(self, "_uses_weights", True)
        self.engine.use_weights()

    def _params(self):
        params = {"alpha": self.alpha, "tol": self.tol}
        if self.max_iter is not None:
            params["max_iter"] = self.max_iter
        if not self.fail_on_nonconvergence:
            params["fail_on_nonconvergence"] = False
        if self.weighted is not None:
            params["weighted"] = self.weighted
        if self.personalization is not None:
            params["personalization"] = f"<{len(self.personalization[0])} vertices>"
        if self.stop != "error":
            params["stop"] = self.stop
        params.update(super()._params())
        return params

    def _personalization_internal(self, store):
        """``(internal ids, values)`` of the personalization on ``store``, or None;
        ``ValueError`` naming the first row whose vertex is not in the graph."""
        if self.personalization is None:
            return None
        ops = store.ops
        vertices, values = self.personalization
        keys = self._keys if self._keys is not None else VertexKeys()
        if keys.kind is None:
            internal = np.full(len(values), -1, dtype=np.int64)
        else:
            if keys.width != 1:
                raise ValueError("personalization: graphs with multi-column vertex keys are not supported")
            external = keys.lookup(vertices, "personalization")
            known = ops.to_host(external) >= 0 if keys.encoded else np.ones(len(values), dtype=bool)
            internal = ops.to_host(store.vertices.lookup(ops.asarray(external))).astype(np.int64)
            internal[~known] = -1
        missing = np.flatnonzero(internal < 0)
        if missing.size:
            row = int(missing[0])
            raise ValueError(f"personalization: row {row} names vertex {_show(vertices[row])!r}, which is not in "
                             "the graph")
        return internal, values

    def _validate(self, store):
        self._personalization_internal(store)

    def _make_engine(self, store):
        return PageRankEngine(store, self.alpha, self.error_tol, incremental=self.mode != "recompute",
                              max_iter=self.max_iter, fail_on_nonconvergence=self.fail_on_nonconvergence,
                              weighted=self._uses_weights, personalization=self._personalization_internal(store),
                              warm_restart=self.mode == "auto")

    def changes(self, threshold=None):
        """Rows of :meth:`result` whose rank the last update moved by more than ``threshold``.

        The last update is the last batch (or ``track``, which adds every
        vertex); vertices it added are listed whatever their rank, removed
        ones are not (they have no row).

        Parameters
        ----------
        threshold : float, optional
            Smallest absolute change of a vertex's (normalised) PageRank that
            counts, at least 0; default ``tol``, the bound on the L1 error of
            every result (with ``stop="change"``, the ``tol`` given): a
            change above it is more than the estimates' error can account
            for.  0 lists every vertex whose rank changed
            at all (after most batches nearly every vertex, as the ranks are
            renormalised).

        Returns
        -------
        DataFrame
            Columns ``vertex`` and ``pagerank`` (the current rank), sorted by vertex.

        Raises
        ------
        ValueError
            If ``threshold`` is not a non-negative real number, or the query
            is not tracked.

        Examples
        --------
        >>> import pandas as pd, cugraph_stream as cgs
        >>> g = cgs.StreamGraph.from_edgelist(pd.DataFrame({"src": [0, 1, 2], "dst": [1, 2, 0]}))
        >>> pr = g.track(cgs.PageRank(tol=1e-9))
        >>> pr.changes()["vertex"].tolist()           # track computed every vertex
        [0, 1, 2]
        >>> _ = g.apply(pd.DataFrame({"src": [3], "dst": [0], "op": ["insert"]}))
        >>> pr.result().round(4)                      # each was 1/3 before
           vertex  pagerank
        0       0    0.3326
        1       1    0.3202
        2       2    0.3097
        3       3    0.0375
        >>> pr.changes(threshold=0.01).round(4)       # 0 moved by 0.0007; 3 is new
           vertex  pagerank
        0       1    0.3202
        1       2    0.3097
        2       3    0.0375
        """
        if threshold is None:
            threshold = self.tol
        if isinstance(threshold, (bool, np.bool_)) or not isinstance(threshold, (int, float, np.integer,
                                                                                   np.floating)) \
                or not float(threshold) >= 0.0 or not np.isfinite(threshold):
            raise ValueError(f"threshold must be a finite real number >= 0, got {threshold!r}")
        with self._committed():
            engine = self.engine
            store = engine.store
            internal = store.vertices.sorted_ids()[1]
            moved = internal[engine.moved(internal, float(threshold))]
            rank = engine.rank[internal]
            total = rank.sum()
            values = engine.rank[moved]
            return make_frame(engine.ops, {"vertex": store.vertices.external[moved],
                                           self.value_column: values / total if float(total) != 0.0 else values})

    def result(self):
        """Columns ``vertex`` and ``pagerank``, sorted by vertex."""
        with self._committed():
            store = self.engine.store
            internal = store.vertices.sorted_ids()[1]
            rank = self.engine.rank[internal]
            total = rank.sum()
            return make_frame(self.engine.ops, {**self._vertex_columns(store.vertices.external[internal]),
                                                self.value_column: rank / total if float(total) != 0.0 else rank})


def _personalization_table(table):
    """``(vertices, values)`` (host arrays) of a personalization frame, checked: columns
    ``vertex`` and ``values``, distinct vertices, finite non-negative values, positive
    sum; ``values`` normalised to sum 1."""
    if is_cudf(table):
        table = table.to_pandas()
    columns = [str(c) for c in getattr(table, "columns", [])]
    for name in ("vertex", "values"):
        if name not in columns:
            raise ValueError(f"personalization: column {name!r} not found; the table has columns {columns}")
    vertices = np.asarray(table["vertex"])
    try:
        values = np.asarray(table["values"], dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise ValueError(f"personalization: column 'values' must be numeric ({error})") from None
    if vertices.size == 0:
        raise ValueError("personalization: the table has no rows")
    bad = np.flatnonzero(~(np.isfinite(values) & (values >= 0.0)))
    if bad.size:
        row = int(bad[0])
        raise ValueError(f"personalization: row {row} (vertex {_show(vertices[row])!r}) has value {float(values[row])!r}; "
                         "values must be finite and non-negative")
    repeated = np.flatnonzero(pd.Series(vertices).duplicated().to_numpy())
    if repeated.size:
        row = int(repeated[0])
        raise ValueError(f"personalization: vertex {_show(vertices[row])!r} (row {row}) appears more than once")
    total = float(values.sum())
    if not total > 0.0:
        raise ValueError("personalization: the values sum to 0; at least one must be positive")
    return vertices, values / total


def _show(key):
    """A vertex key as users wrote it (a NumPy scalar as its Python value)."""
    return key.item() if hasattr(key, "item") else key
