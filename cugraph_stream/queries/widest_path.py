"""Widest (maximum bottleneck) paths."""
from __future__ import annotations

from ..algorithms import widest_path_rule
from .base import MonotonicQuery


class WidestPath(MonotonicQuery):
    """Per vertex, the largest minimum edge weight over paths from ``source``.

    Columns ``vertex``, ``width`` and ``predecessor``.  The source's width is
    the weight dtype's maximum; unreachable vertices get width 0 and
    predecessor -1 (a vertex reached only through zero-weight edges has width
    0 and a real predecessor).  Weights must be non-negative.

    Examples
    --------
    >>> import pandas as pd, cugraph_stream as cgs
    >>> g = cgs.StreamGraph.from_edgelist(
    ...     pd.DataFrame({"source": [0, 0, 1], "destination": [1, 2, 2], "w": [5.0, 1.0, 3.0]}), weight="w")
    >>> g.track(cgs.WidestPath(source=0)).result()["width"].tolist()[1:]
    [5.0, 3.0]
    """

    kind = "WidestPath"
    short_name = "widest"
    takes_source = True
    weighted = True
    value_column = "width"
    needs_nonnegative_weights = True

    def __init__(self, source, mode="auto"):
        super().__init__(source, mode)

    @classmethod
    def rule(cls, weight_dtype, directed):
        return widest_path_rule(weight_dtype)

    def _values(self, internal):
        xp = self.engine.ops.xp
        width = self.engine.value[internal]
        return xp.where(width == self.engine.rule.unreachable, 0, width).astype(width.dtype)
