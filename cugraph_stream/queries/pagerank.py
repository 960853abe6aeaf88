"""PageRank."""
from __future__ import annotations

import numpy as np

from ..engine.pagerank import PageRankEngine, smallest_tol
from ..frame.output import make_frame
from .base import Query


class PageRank(Query):
    """PageRank with damping ``alpha``, within L1 distance ``tol`` of the exact vector.

    Ranks sum to 1, teleport is uniform and dangling vertices' rank is spread
    uniformly (as ``networkx.pagerank(G, alpha, weight=None)`` and cuGraph's
    ``pagerank`` on an unweighted graph).  Edge weights are ignored.  After
    every batch the L1 distance to the exact PageRank is at most ``tol``.

    Parameters
    ----------
    alpha : float
        Damping factor, in (0, 1).
    tol : float
        Bound on the L1 distance to the exact PageRank after every batch; at
        least :func:`~cugraph_stream.engine.pagerank.smallest_tol` of
        ``alpha`` (1.5e-12 for 0.85), below which float64 rounding keeps
        the bound from being met.
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

    Examples
    --------
    >>> import pandas as pd, cugraph_stream as cgs
    >>> g = cgs.StreamGraph.from_edgelist(pd.DataFrame({"source": [0, 1, 2], "destination": [1, 2, 0]}))
    >>> g.track(cgs.PageRank(tol=1e-9)).result()["pagerank"].round(6).tolist()
    [0.333333, 0.333333, 0.333333]
    """

    kind = "PageRank"
    short_name = "pagerank"
    value_column = "pagerank"

    def __init__(self, alpha=0.85, tol=1e-6, max_iter=None, fail_on_nonconvergence=True, mode="auto"):
        super().__init__(mode)
        if not 0.0 < float(alpha) < 1.0:
            raise ValueError(f"alpha must lie in (0, 1), got {alpha!r}")
        if not float(tol) >= smallest_tol(alpha):
            raise ValueError(f"tol must be at least {smallest_tol(alpha):.2g} for alpha={float(alpha)} "
                             f"(float64 rounding keeps a smaller L1 bound out of reach), got {tol!r}")
        if max_iter is not None and not (isinstance(max_iter, (int, np.integer)) and max_iter >= 1):
            raise ValueError(f"max_iter must be a positive integer or None, got {max_iter!r}")
        self.alpha = float(alpha)
        self.tol = float(tol)
        self.max_iter = None if max_iter is None else int(max_iter)
        self.fail_on_nonconvergence = bool(fail_on_nonconvergence)

    def _params(self):
        params = {"alpha": self.alpha, "tol": self.tol}
        if self.max_iter is not None:
            params["max_iter"] = self.max_iter
        if not self.fail_on_nonconvergence:
            params["fail_on_nonconvergence"] = False
        params.update(super()._params())
        return params

    def _make_engine(self, store):
        return PageRankEngine(store, self.alpha, self.tol, incremental=self.mode != "recompute",
                              max_iter=self.max_iter, fail_on_nonconvergence=self.fail_on_nonconvergence)

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
            every result: a change above it is more than the estimates'
            error can account for.  0 lists every vertex whose rank changed
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
            store, xp = engine.store, engine.ops.xp
            internal = store.vertices.sorted_internal
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
            internal = store.vertices.sorted_internal
            rank = self.engine.rank[internal]
            total = rank.sum()
            return make_frame(self.engine.ops, {**self._vertex_columns(store.vertices.external[internal]),
                                                self.value_column: rank / total if float(total) != 0.0 else rank})
