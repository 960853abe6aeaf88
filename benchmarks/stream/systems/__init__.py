"""The systems a stream benchmark runs side by side on the same snapshots.

========================  ==========================================================
name                      what runs
========================  ==========================================================
``cpu``                   cugraph_stream, CPU backend, incremental
``cpu-recompute``         the same engine, ``mode="recompute"``
``scipy``                 SciPy recomputation (CSR + csgraph, PageRank iteration)
``networkit``             NetworKit dynamic algorithms (CPU peer)
``gpu``                   cugraph_stream, GPU backend, adjacency in GPU memory
``gpu-recompute``         the same engine, ``mode="recompute"``
``pylibcugraph``          pylibcugraph recomputation on the GPU
``gpu-host``              GPU backend, ``placement="host"`` (zero-copy; issue 4)
``gpu-host-recompute``    the same, ``mode="recompute"`` (issue 4)
``gpu-cached``            GPU backend, ``placement="cached"`` (issue 4)
========================  ==========================================================
"""

from __future__ import annotations

from .base import KINDS, System, Unavailable
from .engine import EngineSystem
from .networkit_dynamic import NetworKitSystem
from .pylibcugraph_recompute import PylibcugraphSystem
from .scipy_recompute import SciPySystem

#: every system name, in the order runs and tables list them
NAMES = ("cpu", "cpu-recompute", "scipy", "networkit", "gpu", "gpu-recompute", "pylibcugraph",
         "gpu-host", "gpu-host-recompute", "gpu-cached")
#: what ``--systems auto`` selects: every system available on the machine
AUTO = ("cpu", "cpu-recompute", "scipy", "networkit", "gpu", "gpu-recompute", "pylibcugraph")
#: systems of the host-memory placements (a GPU): asked for and unavailable, they stop the run
PLACEMENT_SYSTEMS = ("gpu-host", "gpu-host-recompute", "gpu-cached")

__all__ = ["AUTO", "KINDS", "NAMES", "PLACEMENT_SYSTEMS", "System", "Unavailable",
           "make_system"]


def make_system(name, cache_budget_fraction=0.125, networkit_threads=1):
    """A fresh instance of system ``name`` (``cache_budget_fraction``: gpu-cached;
    ``networkit_threads``: networkit, 0 for NetworKit's default)."""
    engines = {
        "cpu": ("cpu", "incremental", None),
        "cpu-recompute": ("cpu", "recompute", None),
        "gpu": ("gpu", "incremental", "device"),
        "gpu-recompute": ("gpu", "recompute", "device"),
        "gpu-host": ("gpu", "incremental", "host"),
        "gpu-host-recompute": ("gpu", "recompute", "host"),
        "gpu-cached": ("gpu", "incremental", "cached"),
    }
    if name in engines:
        backend, mode, placement = engines[name]
        return EngineSystem(name, backend, mode, placement,
                            cache_budget_fraction if placement == "cached" else None)
    if name == "networkit":
        return NetworKitSystem(networkit_threads)
    others = {"scipy": SciPySystem, "pylibcugraph": PylibcugraphSystem}
    if name not in others:
        raise ValueError(f"system: unknown system {name!r}; choose from {', '.join(NAMES)}")
    return others[name]()
