"""PageRank."""
from __future__ import annotations

from ..engine.pagerank import PageRankEngine
from ..frame.output import make_frame
from .base import Query


class PageRank(Query):
    """PageRank with damping ``alpha``, within L1 distance ``tol`` of the exact vector.

    Ranks sum to 1, teleport is uniform and dangling vertices' rank is spread
    uniformly (as ``networkx.pagerank(G, alpha, weight=None)`` and cuGraph's
    ``pagerank`` on an unweighted graph).  Edge weights are ignored.  After
    every batch the L1 distance to the exact PageRank is at most ``tol``.

    Examples
    --------
    >>> import pandas as pd, cugraph_stream as cgs
    >>> g = cgs.StreamGraph.from_edgelist(pd.DataFrame({"src": [0, 1, 2], "dst": [1, 2, 0]}))
    >>> g.track(cgs.PageRank(tol=1e-9)).result()["pagerank"].round(6).tolist()
    [0.333333, 0.333333, 0.333333]
    """

    def __init__(self, alpha=0.85, tol=1e-6, mode="incremental"):
        super().__init__(mode)
        if not 0.0 < float(alpha) < 1.0:
            raise ValueError(f"alpha must lie in (0, 1), got {alpha!r}")
        if not float(tol) > 0.0:
            raise ValueError(f"tol must be positive, got {tol!r}")
        self.alpha = float(alpha)
        self.tol = float(tol)

    def _params(self):
        params = {"alpha": self.alpha, "tol": self.tol}
        params.update(super()._params())
        return params

    def _make_engine(self, store):
        return PageRankEngine(store, self.alpha, self.tol, incremental=self.mode == "incremental")

    def result(self):
        """Columns ``vertex`` and ``pagerank``, sorted by vertex."""
        self._require_graph()
        store = self.graph._store
        internal = store.vertices.sorted_internal
        rank = self.engine.rank[internal]
        total = rank.sum()
        return make_frame(self.graph._ops, {"vertex": store.vertices.external[internal],
                                            "pagerank": rank / total if float(total) != 0.0 else rank})
