"""Weakly connected components."""
from __future__ import annotations

from ..algorithms import wcc_rule
from .base import MonotonicQuery


class WCC(MonotonicQuery):
    """Component label per vertex: the smallest vertex id of its component.

    On directed graphs, components of the underlying undirected graph.
    Columns ``vertex`` and ``labels`` (as cuGraph's
    ``weakly_connected_components``).  Labels are vertex keys: with integer
    keys the smallest key of the component; with encoded keys (strings,
    multi-column keys: :mod:`cugraph_stream.frame.keys`) the key of the
    member seen first (the smallest code), in the key's dtype (multi-column
    keys: columns ``0_labels``, ``1_labels``, ...).  Compare partitions, not
    labels, across graphs built in another order.

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

    def __init__(self, mode="auto"):
        super().__init__(None, mode)

    def _value_columns(self, internal):
        keys = self._keys
        if keys is None:
            return super()._value_columns(internal)
        return keys.columns(self.value_column, self._values(internal))

    @classmethod
    def rule(cls, weight_dtype, directed):
        return wcc_rule(symmetric=directed)
