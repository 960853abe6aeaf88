"""Single-source shortest paths."""
from __future__ import annotations

from ..algorithms import sssp_rule
from .base import MonotonicQuery


class SSSP(MonotonicQuery):
    """Shortest-path distances from ``source`` (non-negative weights).

    Result columns follow cuGraph's ``sssp``: ``vertex``, ``distance`` (in the
    graph's weight dtype; unreachable vertices get the dtype's maximum) and
    ``predecessor`` (-1 for the source and unreachable vertices).

    Examples
    --------
    >>> import pandas as pd, cugraph_stream as cgs
    >>> g = cgs.StreamGraph.from_edgelist(pd.DataFrame({"source": [0, 1], "destination": [1, 2], "w": [2.0, 3.0]}),
    ...                                   weight="w")
    >>> q = g.track(cgs.SSSP(source=0))
    >>> q.result()["distance"].tolist()
    [0.0, 2.0, 5.0]
    """

    kind = "SSSP"
    short_name = "sssp"
    takes_source = True
    weighted = True
    value_column = "distance"
    needs_nonnegative_weights = True

    def __init__(self, source, mode="auto"):
        super().__init__(source, mode)

    @classmethod
    def rule(cls, weight_dtype, directed):
        return sssp_rule(weight_dtype)
