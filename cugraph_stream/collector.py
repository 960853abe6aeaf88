"""How long Python's garbage collector has run in this process, for the reports.

A collection stops every thread of the interpreter for as long as it walks
the objects of its generations: a full one walks every object the process
holds, which took 85-97 ms on a lent H200's host in a process that had
imported cuDF and pylibcugraph (about 230,000 objects; 2026-11-29), far
more than a batch of the engine's.  It runs in whatever code allocates when
the collector's thresholds say so, a batch included, and its time then shows
as that batch's (in the phase it interrupted).  :class:`PhaseClock
<cugraph_stream.report.PhaseClock>` reads :func:`collector_seconds` when an
operation starts and ends, and :class:`~cugraph_stream.report.BatchReport`
reports the difference as ``gc_s``, so that such a batch says why it was
slow.  A process that must hold its latency can call ``gc.collect()`` and
``gc.freeze()`` once its graphs are loaded (README, "On the GPU").

The clock is one callback in :data:`gc.callbacks`, added on the first call
of :func:`collector_seconds`; it costs two clock reads per collection.

>>> import gc
>>> before = collector_seconds()
>>> _ = gc.collect()
>>> collector_seconds() > before
True
"""
from __future__ import annotations

import gc
import threading
from time import perf_counter


class _CollectorClock:
    """A :data:`gc.callbacks` entry summing the seconds between each collection's
    ``"start"`` and ``"stop"``."""

    def __init__(self):
        self.seconds = 0.0
        self._started = None

    def __call__(self, phase, info):
        if phase == "start":
            self._started = perf_counter()
        elif self._started is not None:
            self.seconds += perf_counter() - self._started
            self._started = None


_clock = None
_lock = threading.Lock()


def collector_seconds():
    """Seconds the garbage collector has run in this process since this module's
    clock was installed (by the first call)."""
    global _clock
    if _clock is None:
        with _lock:
            if _clock is None:
                clock = _CollectorClock()
                gc.callbacks.append(clock)
                _clock = clock
    return _clock.seconds
