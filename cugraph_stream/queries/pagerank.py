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
    mode : {"incremental", "recompute"}

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

    def __init__(self, alpha=0.85, tol=1e-6, max_iter=None, fail_on_nonconvergence=True, mode="incremental"):
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
        return PageRankEngine(store, self.alpha, self.tol, incremental=self.mode == "incremental",
                              max_iter=self.max_iter, fail_on_nonconvergence=self.fail_on_nonconvergence)

    def result(self):
        """Columns ``vertex`` and ``pagerank``, sorted by vertex."""
        with self._committed():
            store = self.engine.store
            internal = store.vertices.sorted_internal
            rank = self.engine.rank[internal]
            total = rank.sum()
            return make_frame(self.engine.ops, {**self._vertex_columns(store.vertices.external[internal]),
                                                self.value_column: rank / total if float(total) != 0.0 else rank})
