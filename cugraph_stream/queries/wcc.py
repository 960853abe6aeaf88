"""Weakly connected components."""
from __future__ import annotations

from ..algorithms import wcc_rule
from .base import MonotonicQuery


class WCC(MonotonicQuery):
    """Component label per vertex: the smallest vertex id of its component.

    On directed graphs, components of the underlying undirected graph.
    Columns ``vertex`` and ``labels`` (as cuGraph's
    ``weakly_connected_components``).

    Examples
    --------
    >>> import pandas as pd, cugraph_stream as cgs
    >>> g = cgs.StreamGraph.from_edgelist(pd.DataFrame({"source": [9, 4], "destination": [3, 8]}))
    >>> g.track(cgs.WCC()).result()["labels"].tolist()
    [3, 4, 4, 3]
    """

    kind = "WCC"
    short_name = "wcc"
    value_column = "labels"
    has_predecessor = False

    def __init__(self, mode="incremental"):
        super().__init__(None, mode)

    @classmethod
    def rule(cls, weight_dtype, directed):
        return wcc_rule(symmetric=directed)
