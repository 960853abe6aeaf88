"""Fault injection at the operator layer: make the k-th operator call raise.

A test hook for the all-or-nothing contract.  :class:`FaultInjector` wraps
the operators of one :class:`~cugraph_stream.backends.base.Backend` instance
(the object passed as ``StreamGraph(backend=...)``), counts their calls and
raises a chosen exception at call ``at`` (0-based), once; every other call
runs unchanged, so the rollback that follows runs on working operators.
Sweeping ``at`` over every call of a batch fails the batch at every point
where the engine hands work to the device.  With ``at=None`` it only counts.

Examples
--------
>>> import numpy as np, pandas as pd, cugraph_stream as cgs
>>> from cugraph_stream.backends import get_backend
>>> ops = get_backend("cpu")
>>> g = cgs.StreamGraph.from_edgelist(pd.DataFrame({"source": [0, 1], "destination": [1, 2]}), backend=ops)
>>> q = g.track(cgs.BFS(source=0))
>>> batch = pd.DataFrame({"source": [2], "destination": [3]})
>>> with FaultInjector(ops, at=10, error=MemoryError("injected")) as fault:
...     try:
...         g.apply(batch, op=None)
...     except MemoryError:
...         print("rolled back")
rolled back
>>> fault.fired, fault.names[10] in operator_names(), g.number_of_edges(), q.result()["distance"].tolist()
(True, True, 2, [0, 1, 2])
>>> with FaultInjector(ops) as counter:         # counting only
...     _ = g.apply(batch, op=None)
>>> counter.calls > 10, q.result()["distance"].tolist()
(True, [0, 1, 2, 3])
"""
from __future__ import annotations

import inspect

from .base import Backend

#: Backend methods that are not operators: setup, the rollback's own cleanup, the
#: shared empty arrays, the timestamps of a report (read after the commit), and
#: the journal's gathers and scatters (``take``, ``put``: a failure there is one
#: at the journal entry beside it, whose pre-image is entered after its gather
#: and before its write)
NOT_OPERATORS = frozenset({"allocation_scope", "chunk_allocator", "discard_scratch", "discard_faults",
                           "unavailable_reason", "no_items", "mark", "elapsed", "release_marks", "take", "put",
                           "spare"})


def operator_names():
    """Names of the operators a backend supplies (public methods of :class:`Backend`)."""
    return sorted(name for name, member in inspect.getmembers(Backend, inspect.isfunction)
                  if not name.startswith("_") and name not in NOT_OPERATORS)


class FaultInjector:
    """Context manager counting the operator calls of ``ops`` and failing call ``at``.

    Parameters
    ----------
    ops : Backend
        The backend instance whose operators to wrap (instance attributes,
        removed on exit: other instances are unaffected).
    at : int or None
        0-based index of the call to fail; None only counts.
    error : BaseException or type
        What the failing call raises (default ``MemoryError``).

    Attributes
    ----------
    calls : int
        Operator calls seen so far (nested calls, such as ``relax`` inside
        the reference ``converge``, count too).
    fired : bool
        Whether the fault was raised.
    names : list of str
        The operator of each call, in order.
    """

    def __init__(self, ops, at=None, error=MemoryError):
        self.ops = ops
        self.at = at
        self.error = error
        self.calls = 0
        self.fired = False
        self.names = []

    def __enter__(self):
        for name in operator_names():
            setattr(self.ops, name, self._wrap(name, getattr(self.ops, name)))
        return self

    def _wrap(self, name, operator):
        def counted(*args, **kwargs):
            index = self.calls
            self.calls += 1
            self.names.append(name)
            if index == self.at:
                self.fired = True
                raise self.error() if isinstance(self.error, type) else self.error
            return operator(*args, **kwargs)
        return counted

    def __exit__(self, *exc):
        for name in operator_names():
            self.ops.__dict__.pop(name, None)
        return False
