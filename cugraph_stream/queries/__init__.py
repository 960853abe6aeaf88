"""Standing queries tracked by a :class:`~cugraph_stream.StreamGraph`, and
:data:`KINDS`, the registry of their kinds (:mod:`.kinds`)."""
from .base import MonotonicQuery, Query
from .bfs import BFS
from .kinds import KINDS, lookup, make
from .pagerank import PageRank
from .sssp import SSSP
from .wcc import WCC
from .widest_path import WidestPath

__all__ = ["Query", "MonotonicQuery", "BFS", "SSSP", "WidestPath", "WCC", "PageRank", "KINDS", "lookup", "make"]
