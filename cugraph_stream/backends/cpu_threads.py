"""The CPU's cores for the compiled kernels.

The compiled kernels (:mod:`cugraph_stream.backends.cpu_kernels`) release
the GIL, so a kernel whose outputs are per item (a probe per key, a sum per
vertex) runs on several Python threads at once, each on a range of the
items, with no other change.  :func:`split` does that for large inputs: the
calling thread takes the first range and a shared pool the others; small
inputs, where handing out work costs more than it saves, stay on the calling
thread.  The arc-index probes of a batch and PageRank's dense rounds go this
way; work that writes shared state (placing entries, claiming positions, a
push queue) stays sequential, except where it writes two separate structures:
:func:`both` runs two such calls at once (a batch's removals and placements
in the out- and the in-adjacency).

The number of threads is ``CUGRAPH_STREAM_CPU_THREADS`` (a positive
integer; ``1`` turns the splitting off), or else the cores this process may
run on.

>>> import numpy as np
>>> out = np.zeros(10, dtype=np.int64)
>>> def square(lo, hi):
...     out[lo:hi] = np.arange(lo, hi) ** 2
>>> split(square, 10, min_items=1)
>>> out.tolist()
[0, 1, 4, 9, 16, 25, 36, 49, 64, 81]
"""
from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor

#: environment variable naming the number of threads (1: no splitting)
ENV_VAR = "CUGRAPH_STREAM_CPU_THREADS"

_pool = None
_pool_lock = threading.Lock()


def thread_count():
    """Threads a split uses: ``CUGRAPH_STREAM_CPU_THREADS``, or the cores this process may run on.

    >>> thread_count() >= 1
    True
    """
    given = os.environ.get(ENV_VAR, "").strip()
    if given:
        try:
            count = int(given)
        except ValueError:
            raise ValueError(f"{ENV_VAR} must be a positive integer, got {given!r}") from None
        if count < 1:
            raise ValueError(f"{ENV_VAR} must be a positive integer, got {given!r}")
        return count
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:          # (not on Linux)
        return os.cpu_count() or 1


def _shared_pool(workers):
    """The pool of at least ``workers`` threads."""
    global _pool
    with _pool_lock:
        if _pool is None or _pool._max_workers < workers:
            _pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="cugraph-stream-cpu")
        return _pool


def _forget_pool():
    """In a forked child: the parent's pool has no threads there (work handed to it
    would never run), and its lock may have been held by a thread that is gone."""
    global _pool, _pool_lock
    _pool, _pool_lock = None, threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pool)


def split(work, n, min_items):
    """Run ``work(lo, hi)`` over ``[0, n)`` in ranges of at least ``min_items`` items,
    one per thread (at most :func:`thread_count`), and wait for all of them.

    ``work`` must write only its own range's outputs.  An exception of any
    range is raised after every range has finished.
    """
    parts = n // max(int(min_items), 1)
    if parts > 1:                   # (the thread count is asked only then: a system call)
        parts = min(thread_count(), parts)
    if parts <= 1:
        work(0, n)
        return
    bounds = [n * k // parts for k in range(parts + 1)]
    pool = _shared_pool(parts - 1)
    others = [pool.submit(work, bounds[k], bounds[k + 1]) for k in range(1, parts)]
    try:
        work(bounds[0], bounds[1])
    finally:
        for future in others:
            future.exception()          # waits; the result() below re-raises
    for future in others:
        future.result()


def both(first, second, undo, parallel=True):
    """``[first(), second()]``, all or nothing: ``second`` runs on another thread
    while this one runs ``first``, where ``parallel`` and more than one thread
    is allowed (else one after the other).  Where one of them raises,
    ``undo(k, result)`` is called with the result of the other (``k``: 0 for
    ``first``, 1 for ``second``) if it returned, and the error is raised
    (``first``'s where both raised) once both have finished.

    >>> done = []
    >>> both(lambda: 1, lambda: 2, lambda k, result: done.append(k))
    [1, 2]
    >>> def fail():
    ...     raise KeyError("the second")
    >>> both(lambda: 1, fail, lambda k, result: done.append((k, result)))
    Traceback (most recent call last):
    ...
    KeyError: 'the second'
    >>> done                                   # the first's result was undone
    [(0, 1)]
    """
    if not parallel or thread_count() < 2:
        result = first()
        try:
            return [result, second()]
        except BaseException:
            undo(0, result)
            raise
    other = _shared_pool(1).submit(second)
    try:
        result = first()
    except BaseException:
        if other.exception() is None:           # (waits for the second)
            undo(1, other.result())
        raise
    try:
        return [result, other.result()]
    except BaseException:
        undo(0, result)
        raise
