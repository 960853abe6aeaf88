"""What every benchmark script shares: the machine and package versions, progress
output, argument types, memory figures, device timing and JSON encoding."""

from __future__ import annotations

import argparse
import gc
import os
import platform
import resource
import sys
from time import perf_counter

import numpy as np

#: modules whose version a run records when it has imported them
VERSIONED_MODULES = ("numpy", "scipy", "pandas", "pyarrow", "cugraph_stream", "networkit",
                     "cupy", "cudf", "pylibcugraph", "rmm", "tqdm", "matplotlib")


# ---------------------------------------------------------------------------
# machine and versions
# ---------------------------------------------------------------------------

def machine_info():
    """Platform, CPU model and count, memory, load and Python version of this machine."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        usable = os.cpu_count()
    info = {
        "platform": platform.platform(),
        "cpu": cpu,
        "cpu_count": os.cpu_count(),
        "usable_cpus": usable,
        "memory_bytes": _total_memory(),
        "python": platform.python_version(),
    }
    if hasattr(os, "getloadavg"):
        info["load_average"] = [round(x, 2) for x in os.getloadavg()]
    return info


def _total_memory():
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def versions(modules=VERSIONED_MODULES):
    """``{module: version}`` of the listed modules this process has imported."""
    out = {}
    for name in modules:
        module = sys.modules.get(name)
        if module is not None:
            out[name] = str(getattr(module, "__version__", "unknown"))
    return out


def cupy_with_a_device(script):
    """CuPy, where it imports and sees a GPU; else None, after saying that ``script``
    needs them (its caller then exits 2)."""
    try:
        import cupy
        cupy.cuda.runtime.getDeviceCount()
    except Exception as error:          # no CuPy, or no device
        write(f"{script} needs CuPy and a GPU: {type(error).__name__}: {error}")
        return None
    return cupy


def gpu_info():
    """Name, memory and driver/runtime versions of the current CUDA device, or None."""
    cupy = sys.modules.get("cupy")
    if cupy is None:
        return None
    try:
        device = cupy.cuda.Device()
        props = cupy.cuda.runtime.getDeviceProperties(device.id)
        return {
            "name": props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"]),
            "memory_bytes": int(props["totalGlobalMem"]),
            "driver_version": cupy.cuda.runtime.driverGetVersion(),
            "runtime_version": cupy.cuda.runtime.runtimeGetVersion(),
        }
    except RuntimeError as error:  # no device, or a driver fault (CUDARuntimeError): say so
        return {"error": f"{type(error).__name__}: {error}"}


# ---------------------------------------------------------------------------
# memory
# ---------------------------------------------------------------------------

def peak_rss_bytes():
    """Peak resident set size of this process so far (``getrusage``)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(peak) if sys.platform == "darwin" else int(peak) * 1024


def current_rss_bytes():
    """Resident set size of this process now (Linux ``/proc``), or None."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


def gpu_pool_bytes():
    """Bytes held by CuPy's default memory pool and the engines' pool (their
    high-water mark while no block is freed back to the device), or None
    without CuPy."""
    cupy = sys.modules.get("cupy")
    if cupy is None:
        return None
    from cugraph_stream.backends.gpu import engine_memory_pool

    return int(cupy.get_default_memory_pool().total_bytes() + engine_memory_pool().total_bytes())


# ---------------------------------------------------------------------------
# timing
# ---------------------------------------------------------------------------

def sync_device():
    """Wait for the current CUDA stream when CuPy is in use (no-op otherwise)."""
    cupy = sys.modules.get("cupy")
    if cupy is not None:
        cupy.cuda.get_current_stream().synchronize()


def timed(fn):
    """``(fn(), seconds)``, the device synchronised before and after."""
    sync_device()
    t0 = perf_counter()
    out = fn()
    sync_device()
    return out, perf_counter() - t0


def collect_garbage():
    """A full garbage collection now, untimed: run before each timed series, so that the
    collector does not take the garbage of a benchmark's setup (imports, graphs,
    frames, the baseline's runs) inside whichever timed batch its thresholds pick.
    In a process that imported cuDF and pylibcugraph (about 230,000 objects) a
    full collection took 85-97 ms on a lent H200's host (2026-11-29), and one fell
    inside the first timed SSSP batch of ``benchmarks.gpu_vs_pylibcugraph``
    (95.7 ms where the next took 3.7); a batch's report counts the collector's
    time inside it (``BatchReport.gc_s``, :mod:`cugraph_stream.collector`).
    """
    gc.collect()


class OtherWork:
    """Host work of another kind, run between timed batches: ``ms`` milliseconds
    of Python reading a heap of about ``mb`` megabytes of small objects (dicts
    of an int and a str), as a pipeline's own code between two batches would.

    A batch applied right after another finds its code and data in the CPU's
    caches; after other work it loads them again (on the project's VM a
    one-row CPU batch, R-MAT 16 with SSSP, took 0.16 ms at the median back to
    back and 0.75 ms after 20 ms of this over the default 56 MB,
    2026-11-28).  ``ms=0`` does nothing (batches back to back).

    >>> work = OtherWork(ms=1, mb=1)
    >>> work.run() >= 0
    True
    """

    def __init__(self, ms=0.0, mb=56):
        self.seconds = ms / 1e3
        # (a dict with its int and str takes about 280 bytes: mb megabytes in mb * 3,600 of them)
        self.heap = [{"a": i, "b": str(i)} for i in range(int(mb * 3_600))] if ms > 0 else []

    def run(self):
        """Run for the set time; return a number derived from what was read (so nothing is skipped)."""
        total, end = 0, perf_counter() + self.seconds
        while self.seconds and perf_counter() < end:
            for item in self.heap[::7]:
                total += item["a"]
        return total


# ---------------------------------------------------------------------------
# progress and output
# ---------------------------------------------------------------------------

def progress(iterable, total, desc, disabled, unit="batch"):
    """A tqdm progress bar on stderr over ``iterable`` (plain iterable when disabled)."""
    if disabled:
        return iterable
    try:
        from tqdm import tqdm
    except ImportError:
        return iterable
    return tqdm(iterable, total=total, desc=desc, unit=unit, leave=False,
                file=sys.stderr, disable=None)


def write(line):
    """Print a line without breaking an active tqdm bar."""
    try:
        from tqdm import tqdm
    except ImportError:
        print(line, flush=True)
    else:
        tqdm.write(line, file=sys.stdout)
        sys.stdout.flush()


def json_default(obj):
    """``json.dump`` hook for NumPy scalars and arrays."""
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    raise TypeError(f"not JSON serializable: {type(obj).__name__}")


# ---------------------------------------------------------------------------
# queries
# ---------------------------------------------------------------------------

def make_query(kind, source, mode="incremental", alpha=0.85, tol=1e-6, weighted=False, stop="error"):
    """The cugraph_stream query object of ``kind`` ("sssp", "bfs", "wcc", "pagerank", ...:
    any spelling of :func:`cugraph_stream.queries.make`); ``source`` is ignored by
    kinds without one; ``weighted`` is PageRank's: False by default, the PageRank
    the baselines (SciPy, NetworKit, the cross-checks) compute and the published
    figures measured; None for cuGraph's default (weighted on a weighted graph); ``stop``
    is PageRank's too (what ``tol`` bounds)."""
    from cugraph_stream.queries import make

    return make(kind, source, mode=mode, alpha=alpha, tol=tol, weighted=weighted, stop=stop)


# ---------------------------------------------------------------------------
# argument types
# ---------------------------------------------------------------------------

def positive(kind):
    """argparse type: a positive ``kind`` (int or float)."""
    return _number(kind, lambda value: value > 0, "must be positive")


def zero_or_more(kind):
    """argparse type: a ``kind`` (int or float) of at least 0."""
    return _number(kind, lambda value: value >= 0, "must be >= 0")


def _number(kind, accepted, requirement):
    """argparse type: a ``kind`` for which ``accepted(value)`` holds, else an error saying ``requirement``."""
    def parse(text):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
        if not accepted(value):
            raise argparse.ArgumentTypeError(f"{requirement}, got {text}")
        return value
    parse.__name__ = kind.__name__
    return parse


def choice_list(allowed, what):
    """argparse type: a comma-separated, de-duplicated subset of ``allowed``."""
    def parse(text):
        items = [k.strip().lower() for k in text.split(",") if k.strip()]
        bad = [k for k in items if k not in allowed]
        if bad or not items:
            raise argparse.ArgumentTypeError(
                f"unknown {what} {bad}; choose from {','.join(allowed)}")
        return list(dict.fromkeys(items))
    parse.__name__ = what
    return parse
