"""Where a batch's host time goes: every operator call, and on the GPU every CuPy call, by engine line.

    python -m benchmarks.host_calls --scale 20 --rows 1 --batches 300
    python -m benchmarks.host_calls --scale 22 --rows 10000 --batches 10
    python -m benchmarks.host_calls --backend cpu --scale 16 --rows 1 --batches 300

A diagnostic for issue 17 (the per-batch floor), not a comparison.  A batch
on the GPU keeps the device busy for a small part of its wall time
(``benchmarks/gpu_busy.py``): the host drives it, and each call into CuPy
costs host time whether or not it launches anything.  This script builds an
R-MAT graph, tracks SSSP from its hub and applies untimed batches of
``--rows`` rows (as ``benchmarks/gpu_busy.py``: pandas frames for a single
row, column dicts of device arrays otherwise), then times ``--batches`` more
with timers around

* every operator of the backend (top-level calls: an operator another one
  calls counts in its caller), by operator and the engine line that called it;
* on the GPU, CuPy's array functions (``cupy.empty``, ``concatenate``,
  ``where``, ...) and ``ndarray`` methods and operators (indexing, ``==``,
  ``astype``, ``get``, ...), top-level calls only, by function and the
  package line that called it (inside an operator too).

It prints each table's calls per batch and host microseconds per batch,
largest first.  The timers cost host time themselves (a batch runs about
1.5-2x slower under them), so compare the rows with each other, not with
a plain run.  ``--micro`` first times single CuPy calls on small arrays in
a loop (the unit costs the tables are made of).
"""
from __future__ import annotations

import argparse
import collections
import functools
import os
import sys
import time

import numpy as np

#: the CuPy functions and ndarray members timed on the GPU
CUPY_FUNCTIONS = ("empty", "zeros", "full", "ones", "arange", "asarray", "ascontiguousarray", "concatenate", "where",
                  "flatnonzero", "nonzero", "argsort", "sort", "cumsum", "searchsorted", "unique", "bincount",
                  "minimum", "maximum", "count_nonzero", "empty_like", "zeros_like", "asnumpy")
NDARRAY_MEMBERS = ("__getitem__", "__setitem__", "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__",
                   "__and__", "__or__", "__invert__", "__add__", "__sub__", "__mul__", "__neg__", "__truediv__",
                   "astype", "copy", "fill", "get", "set", "sum", "any", "all", "view", "reshape", "max", "min")
#: untimed batches before the measured ones
WARM_BATCHES = 5


@functools.cache
def _package_dir():
    import cugraph_stream

    return os.path.dirname(os.path.abspath(cugraph_stream.__file__)) + os.sep


def engine_line(frame):
    """``path:line(function)`` of the innermost frame at or above ``frame`` in the
    package (path from the package's folder), or ``"?"``.

    >>> import sys
    >>> engine_line(sys._getframe())
    '?'
    """
    package = _package_dir()
    while frame is not None and not frame.f_code.co_filename.startswith(package):
        frame = frame.f_back
    if frame is None:
        return "?"
    return f"{frame.f_code.co_filename[len(package):]}:{frame.f_lineno}({frame.f_code.co_name})"


class HostTimer:
    """Host time and calls of wrapped callables, by ``(label, engine line)``;
    only the outermost wrapped call of a nesting counts (per ``group``: the
    operators' timers and CuPy's nest independently).

    >>> timer = HostTimer()
    >>> class Box:
    ...     def add(self, a, b):
    ...         return a + b
    >>> timer.wrap(Box, "add", "Box.add")
    >>> Box().add(2, 3)
    5
    >>> [(label, calls) for (label, _), (_, calls) in timer.table().items()]
    [('Box.add', 1)]
    >>> timer.restore(); Box.add.__name__, getattr(Box.add, "__wrapped__", None)
    ('add', None)
    """

    def __init__(self):
        self.seconds = collections.defaultdict(float)
        self.calls = collections.Counter()
        self._depth = collections.Counter()
        self._wrapped = []          # (owner, name, its own attribute or None if inherited), to restore

    def restore(self):
        """Put every wrapped callable back (the last wrapped first)."""
        while self._wrapped:
            owner, name, own = self._wrapped.pop()
            if own is None:
                delattr(owner, name)
            else:
                setattr(owner, name, own)

    def reset(self):
        self.seconds.clear()
        self.calls.clear()

    def wrap(self, owner, name, label, group="", when=None):
        """Time ``owner.name`` (its top-level calls, where ``when(args)`` holds, if given)."""
        original = getattr(owner, name)
        self._wrapped.append((owner, name, vars(owner).get(name)))

        @functools.wraps(original)
        def timed(*args, **kwargs):
            if self._depth[group] or (when is not None and not when(args)):
                return original(*args, **kwargs)
            self._depth[group] += 1
            start = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                key = (label, engine_line(sys._getframe(1)))
                self.seconds[key] += time.perf_counter() - start
                self.calls[key] += 1
                self._depth[group] -= 1
        setattr(owner, name, timed)

    def table(self):
        """``{(label, line): (seconds, calls)}``, most seconds first."""
        keys = sorted(self.seconds, key=lambda key: -self.seconds[key])
        return {key: (self.seconds[key], self.calls[key]) for key in keys}


def print_table(title, table, batches, top):
    """Print the ``top`` rows of a :meth:`HostTimer.table` per batch."""
    total = sum(seconds for seconds, _ in table.values())
    calls = sum(count for _, count in table.values())
    print(f"\n{title}: {1e6 * total / batches:,.0f} us a batch in {calls / batches:.1f} calls")
    print("| us / batch | calls / batch | us / call | call | line |\n| ---: | ---: | ---: | --- | --- |")
    for (label, line), (seconds, count) in list(table.items())[:top]:
        print(f"| {1e6 * seconds / batches:,.1f} | {count / batches:.2f} | {1e6 * seconds / count:,.1f} | "
              f"`{label}` | {line} |")


def micro(xp):
    """Host microseconds of single CuPy calls on small arrays (2,000 each, then one synchronisation)."""
    x, index = xp.zeros(1 << 20, dtype=xp.int64), xp.arange(8, dtype=xp.int64)
    kernel = xp.RawKernel(r'extern "C" __global__ void one(long long* a) { a[threadIdx.x] += 1; }', "one")
    calls = {"RawKernel launch": lambda: kernel((1,), (8,), (x,)), "empty(8)": lambda: xp.empty(8, dtype=xp.int64),
             "zeros(8)": lambda: xp.zeros(8, dtype=xp.int64), "x[:8] (slice)": lambda: x[:8],
             "x[index] (gather)": lambda: x[index], "x[:8] == 1 (ufunc)": lambda: x[:8] == 1,
             "concatenate of two": lambda: xp.concatenate((index, index)), "x[:8].get()": lambda: x[:8].get()}
    for name, call in calls.items():
        call()
        xp.cuda.runtime.deviceSynchronize()
        start = time.perf_counter()
        for _ in range(2000):
            call()
        xp.cuda.runtime.deviceSynchronize()
        print(f"{name}: {(time.perf_counter() - start) / 2000 * 1e6:.2f} us")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--backend", choices=("gpu", "cpu"), default="gpu")
    ap.add_argument("--scale", type=int, default=20)
    ap.add_argument("--edge-factor", type=int, default=16)
    ap.add_argument("--rows", type=int, default=1, help="rows per batch")
    ap.add_argument("--batches", type=int, default=300, help="measured batches (after 5 untimed ones)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--top", type=int, default=30, help="rows listed per table")
    ap.add_argument("--micro", action="store_true", help="first time single CuPy calls")
    args = ap.parse_args(argv)

    from cugraph_stream.backends import get_backend

    from .batch_profile import tracked_stream

    ops = get_backend(args.backend)
    if args.micro and args.backend == "gpu":
        micro(ops.xp)
    graph, hub, batches = tracked_stream(ops, args.scale, args.edge_factor, args.rows, args.batches + WARM_BATCHES,
                                         args.seed, warm=WARM_BATCHES)
    timer = HostTimer()
    try:
        walls = _timed_batches(timer, ops, graph, batches, args.backend)
    finally:
        timer.restore()
    n = len(walls)
    report = graph.last_report
    print(f"\nR-MAT scale {args.scale}, SSSP from {hub}, {args.backend}: {n} batches of {args.rows} rows, "
          f"median {1e6 * np.median(walls):,.0f} us a batch under the timers; last report {report.syncs} syncs, "
          f"{report.launches} operator calls")
    rows = timer.table()
    operators = {key: value for key, value in rows.items() if key[0] in operator_names(ops)}
    print_table("operators", operators, n, args.top)
    if args.backend == "gpu":
        print_table("CuPy calls (inside operators too)",
                    {key: value for key, value in rows.items() if key not in operators}, n, args.top)
    return 0


def operator_names(ops):
    """The operators of ``ops`` that the timers wrap: those ``DEVICE_CALLS`` counts,
    and ``join`` (an array-namespace step, uncounted)."""
    cls = type(ops)
    return sorted(name for name in dir(cls) if not name.startswith("_")
                  and (name == "join" or getattr(getattr(cls, name, None), "counted", False)))


def _timed_batches(timer, ops, graph, batches, backend):
    """Wrap the operators (and CuPy, on the GPU) in ``timer``, apply ``batches``;
    return each one's wall seconds."""
    xp = ops.xp
    for name in operator_names(ops):
        timer.wrap(type(ops), name, name, group="operators")
    if backend == "gpu":
        for name in CUPY_FUNCTIONS:
            timer.wrap(xp, name, f"cupy.{name}")
        # indexing by an array (a gather or scatter kernel) apart from slices (views)
        timer.wrap(xp.ndarray, "__getitem__", "ndarray[:]")
        timer.wrap(xp.ndarray, "__getitem__", "ndarray[array]",
                   when=lambda args: isinstance(args[1], (xp.ndarray, tuple, list)))
        for name in NDARRAY_MEMBERS[1:]:
            timer.wrap(xp.ndarray, name, f"ndarray.{name}")
    walls = []
    for batch in batches:
        start = time.perf_counter()
        graph.apply(batch, weight="weight")
        walls.append(time.perf_counter() - start)
    return walls


if __name__ == "__main__":
    sys.exit(main())
