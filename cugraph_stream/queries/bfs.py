"""Breadth-first search."""
from __future__ import annotations

from ..algorithms import bfs_rule
from .base import MonotonicQuery


class BFS(MonotonicQuery):
    """Hop distances from ``source``; weights are ignored.

    Result columns follow cuGraph's ``bfs``: ``vertex``, ``distance`` (int32;
    unreachable vertices get the int32 maximum) and ``predecessor``.

    Examples
    --------
    >>> import pandas as pd, cugraph_stream as cgs
    >>> g = cgs.StreamGraph.from_edgelist(pd.DataFrame({"source": [5, 6], "destination": [6, 7]}))
    >>> g.track(cgs.BFS(source=6)).result()["distance"].tolist()
    [2147483647, 0, 1]
    """

    kind = "BFS"
    short_name = "bfs"
    takes_source = True
    value_column = "distance"

    def __init__(self, source, mode="auto"):
        super().__init__(source, mode)

    @classmethod
    def rule(cls, weight_dtype, directed):
        return bfs_rule()
