"""The ``cugraph_stream`` logger: what a graph did and how long it took, quiet by default.

The package logs through the standard :mod:`logging` module under the name
``cugraph_stream`` and configures nothing but a :class:`logging.NullHandler`,
so nothing is printed unless the application asks for it:

* ``INFO``: one line per call that changes a graph (``from_edgelist``,
  ``apply``, ``add_vertices``, ``remove_vertices``, ``track``) with its
  counts and wall time (and the garbage collector's share, from 1 ms:
  :attr:`BatchReport.gc_s`);
* ``DEBUG``: the same calls' phase timings (validate, reduce, store, each
  query's correct and compute phases), as in :attr:`BatchReport.times`.

Examples
--------
>>> import logging, sys, pandas as pd, cugraph_stream as cgs
>>> handler = logging.StreamHandler(sys.stdout)
>>> handler.setFormatter(logging.Formatter("%(name)s %(levelname)s %(message)s"))
>>> logger.addHandler(handler); logger.setLevel(logging.INFO)
>>> g = cgs.StreamGraph.from_edgelist(pd.DataFrame({"source": [0], "destination": [1]}))  # doctest: +ELLIPSIS
cugraph_stream INFO apply: 1 rows, +1 -0 ~0 edges, +2 vertices in ...
>>> logger.removeHandler(handler); logger.setLevel(logging.NOTSET)
"""
from __future__ import annotations

import logging

from .report import GC_SHOWN_S

logger = logging.getLogger("cugraph_stream")
logger.addHandler(logging.NullHandler())


def log_report(what, report):
    """Log a :class:`~cugraph_stream.report.BatchReport`: a line at INFO, its phases at DEBUG."""
    if not logger.isEnabledFor(logging.INFO):
        return
    logger.info("%s: %d rows, +%d -%d ~%d edges, +%d vertices in %.3f ms%s", what, report.rows, report.inserted,
                report.deleted, report.weight_updated, report.new_vertices, 1e3 * report.total_s,
                f" ({1e3 * report.gc_s:.3f} ms of it garbage collection)" if report.gc_s >= GC_SHOWN_S else "")
    if logger.isEnabledFor(logging.DEBUG):
        logger.debug("%s phases (ms): %s", what,
                     ", ".join(f"{phase} {1e3 * seconds:.3f}" for phase, seconds in report.times.items()))
