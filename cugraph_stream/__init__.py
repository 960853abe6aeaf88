"""cugraph_stream: standing graph queries kept exact while the graph changes.

>>> import pandas as pd, cugraph_stream as cgs
>>> g = cgs.StreamGraph.from_edgelist(pd.DataFrame({"source": [1, 2], "destination": [2, 3]}))
>>> q = g.track(cgs.BFS(source=1))
>>> _ = g.apply(pd.DataFrame({"source": [1], "destination": [3], "op": ["insert"]}))
>>> q.changes()[["vertex", "distance", "predecessor"]].values.tolist()
[[3, 1, 1]]
"""
from ._version import __version__
from .graph import GraphBrokenError, StreamGraph
from .queries import BFS, SSSP, WCC, PageRank, WidestPath
from .report import BatchReport, QueryReport

__all__ = ["__version__", "StreamGraph", "GraphBrokenError", "BFS", "SSSP", "WidestPath", "WCC", "PageRank",
           "BatchReport", "QueryReport"]
