"""Zero-copy reads against compacted bulk copies, per list length and active share (issue 19, deliverable 3).

HyTGraph (``../shared/papers``) chooses, per round, how the GPU reads the
active neighbour lists of a graph held in host memory: in place over the
bus (zero-copy), or compacted by the CPU into a staging buffer and copied in
one bulk transfer (``cudaMemcpyAsync``), or as the whole slot range that
covers them.  This measures the three on the machine it runs on, to
calibrate such a choice.  Lists of ``d`` 4-byte neighbour ids lie end to end
in ``--gib`` GiB of pinned, mapped host memory (what placement ``"host"``
holds, :func:`cugraph_stream.backends.pinned.pinned_host_array`); a round
reads a random ``share`` of them (ascending, as a frontier of vertex ids is)
and sums their entries on the GPU:

``zero-copy``
    a CuPy gather of the active rows straight from the pinned array, then a sum;
``compacted``
    ``--threads`` CPU threads copy the active rows into a pinned staging
    buffer (NumPy ``take`` along rows), one ``cudaMemcpyAsync`` moves it to
    the device, a sum there (the times of the three parts add up: nothing
    overlaps, as a first engine would do it);
``span``
    one ``cudaMemcpyAsync`` of the rows from the first active one to the
    last, then a gather of the active rows on the device and a sum.

Every path's sum is checked against NumPy's (the run stops on a mismatch).
Printed per list length and share: the useful MB (active entries x 4
bytes), each path's best time of ``--repeat`` and useful GB/s, the
128-byte segments the zero-copy reads touch, list by list, the zero-copy
rate counted in the distinct 64-byte blocks the active lists span (the
unit the bus moves: the rate near the sequential one in every case but the
smallest shares, where 128-byte segments would exceed what the bus carries),
and the fastest path.  Needs CuPy and a GPU::

    python -m benchmarks.transfer_paths                       # 2 GiB, the default lengths and shares
    python -m benchmarks.transfer_paths --gib 0.25 --degrees 4,256 --shares 0.01,1 --json $OUT/paths.json
"""
from __future__ import annotations

import argparse
import ctypes
import json
import os
import sys
import threading
import time

import numpy as np

from .common import cupy_with_a_device, json_default, machine_info, positive, versions, write

GiB = 1 << 30
DEGREES = (1, 4, 16, 64, 256, 4096)
SHARES = (0.001, 0.01, 0.1, 1.0)
PATHS = ("zero-copy", "compacted", "span")


def parse_args(argv=None):
    p = argparse.ArgumentParser(prog="python -m benchmarks.transfer_paths", description=__doc__.splitlines()[0])
    p.add_argument("--gib", type=positive(float), default=2.0, help="host array size in GiB (default 2)")
    p.add_argument("--degrees", type=_ints, default=DEGREES, help="list lengths, comma-separated")
    p.add_argument("--shares", type=_floats, default=SHARES, help="active shares of the lists, comma-separated")
    p.add_argument("--threads", type=positive(int), default=min(os.cpu_count() or 1, 16),
                   help="CPU threads that compact (default: the cores, at most 16)")
    p.add_argument("--repeat", type=positive(int), default=3, help="timed runs per path; the best is kept")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", help="write every figure to this file")
    return p.parse_args(argv)


def _ints(text):
    values = tuple(int(x) for x in text.split(","))
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError(f"expected positive integers, got {text!r}")
    return values


def _floats(text):
    values = tuple(float(x) for x in text.split(","))
    if not values or not all(0 < x <= 1 for x in values):
        raise argparse.ArgumentTypeError(f"expected shares in (0, 1], got {text!r}")
    return values


def host_view(cp, array):
    """A NumPy view of a CuPy array held in pinned host memory (same bytes)."""
    n = int(array.size)
    buffer = (ctypes.c_int32 * n).from_address(int(array.data.ptr))
    return np.ctypeslib.as_array(buffer)


def parallel_take(source, rows, out, threads):
    """``out[:] = source[rows]`` along the rows, split among ``threads`` (NumPy
    releases the GIL while it copies)."""
    parts = np.array_split(np.arange(rows.size), max(min(threads, rows.size), 1))
    workers = [threading.Thread(target=np.take, args=(source, rows[p], 0, out[p[0]:p[-1] + 1]))
               for p in parts if p.size]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()


def blocks_touched(rows, degree, unit):
    """Distinct blocks of ``unit`` bytes that the active rows (ascending) span together:
    what the bus moves if it moves whole blocks (a block two rows share counts once)."""
    first = rows * degree * 4 // unit
    last = ((rows + 1) * degree * 4 - 1) // unit
    covered = np.concatenate(([-1], np.maximum.accumulate(last)[:-1]))     # the last block counted so far
    return int(np.clip(last - np.maximum(first, covered + 1) + 1, 0, None).sum())


def segments_touched(rows, degree):
    """128-byte segments that the active rows' bytes span (the arrays start on 4 KiB)."""
    first = rows * degree * 4 // 128
    last = ((rows + 1) * degree * 4 - 1) // 128
    return int((last - first + 1).sum())


class Paths:
    """The three ways of reading rows of one ``(lists, degree)`` view of the host array."""

    def __init__(self, cp, host, host_np, staging_np, staging, device, threads):
        self.cp, self.host, self.host_np = cp, host, host_np
        self.staging_np, self.staging, self.device, self.threads = staging_np, staging, device, threads

    def _copy(self, target, source, nbytes):
        rt = self.cp.cuda.runtime
        rt.memcpyAsync(int(target.data.ptr), int(source.data.ptr), nbytes, rt.memcpyHostToDevice,
                       self.cp.cuda.get_current_stream().ptr)

    def run(self, path, degree, rows_np, rows):
        """``(sum, seconds, parts)`` of one read of ``rows`` by ``path``."""
        cp = self.cp
        lists = self.host.size // degree
        host2d = self.host[:lists * degree].reshape(lists, degree)
        m = rows_np.size
        start, end = cp.cuda.Event(), cp.cuda.Event()
        parts = {}
        if path == "zero-copy":
            start.record()
            total = host2d[rows].sum(dtype=cp.int64)
            end.record()
            end.synchronize()
            seconds = cp.cuda.get_elapsed_time(start, end) / 1e3
        elif path == "compacted":
            source = self.host_np[:lists * degree].reshape(lists, degree)
            out = self.staging_np[:m * degree].reshape(m, degree)
            began = time.perf_counter()
            parallel_take(source, rows_np, out, self.threads)
            parts["cpu_gather_s"] = time.perf_counter() - began
            start.record()
            self._copy(self.device, self.staging, m * degree * 4)
            middle = cp.cuda.Event()
            middle.record()
            total = self.device[:m * degree].sum(dtype=cp.int64)
            end.record()
            end.synchronize()
            parts["copy_s"] = cp.cuda.get_elapsed_time(start, middle) / 1e3
            parts["sum_s"] = cp.cuda.get_elapsed_time(middle, end) / 1e3
            seconds = sum(parts.values())
        else:
            first, last = int(rows_np[0]), int(rows_np[-1])
            span = (last - first + 1) * degree
            start.record()
            self._copy(self.device, host2d[first], span * 4)
            middle = cp.cuda.Event()
            middle.record()
            total = self.device[:span].reshape(-1, degree)[rows - first].sum(dtype=cp.int64)
            end.record()
            end.synchronize()
            parts["copy_s"] = cp.cuda.get_elapsed_time(start, middle) / 1e3
            parts["gather_sum_s"] = cp.cuda.get_elapsed_time(middle, end) / 1e3
            seconds = cp.cuda.get_elapsed_time(start, end) / 1e3
        return int(total), seconds, parts


def main(argv=None):
    args = parse_args(argv)
    cp = cupy_with_a_device("transfer_paths")
    if cp is None:
        return 2
    from cugraph_stream.backends.pinned import pinned_host_array

    n = int(args.gib * GiB) // 4
    n -= n % max(args.degrees)
    rng = np.random.default_rng(args.seed)
    host = pinned_host_array(cp, n, np.int32, 4096)
    host_np = host_view(cp, host)
    host_np[:] = rng.integers(0, 1 << 10, n, dtype=np.int32)
    staging = pinned_host_array(cp, n, np.int32, 4096)
    paths = Paths(cp, host, host_np, host_view(cp, staging), staging, cp.empty(n, dtype=cp.int32), args.threads)
    write(f"{args.gib:g} GiB of pinned host memory ({n:,} ids); compacting with {args.threads} CPU threads; "
          f"best of {args.repeat}")
    write("| list length | active share | useful MB | zero-copy ms | GB/s | compacted ms (cpu + copy + sum) "
          "| GB/s | span ms | GB/s | zero-copy segments MB | zero-copy GB/s in 64-byte blocks | fastest |")
    write("| ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | --- |")
    rows_out = []
    for degree in args.degrees:
        lists = n // degree
        source = host_np[:lists * degree].reshape(lists, degree)
        for share in args.shares:
            m = max(int(round(share * lists)), 1)
            rows_np = np.sort(rng.choice(lists, m, replace=False)) if m < lists else np.arange(lists)
            rows = cp.asarray(rows_np)
            want = int(source[rows_np].sum(dtype=np.int64))
            best = {}
            for path in PATHS:
                for run in range(args.repeat + 1):         # the first compiles and warms
                    total, seconds, parts = paths.run(path, degree, rows_np, rows)
                    if total != want:
                        write(f"MISMATCH: {path} summed {total}, NumPy {want} (length {degree}, share {share})")
                        return 1
                    if run and (path not in best or seconds < best[path][0]):
                        best[path] = (seconds, parts)
            useful = m * degree * 4
            rate = {path: useful / best[path][0] / 1e9 for path in PATHS}
            fastest = min(PATHS, key=lambda p: best[p][0])
            c = best["compacted"][1]
            write(f"| {degree} | {share:g} | {useful / 1e6:,.1f} | {1e3 * best['zero-copy'][0]:.3f} | "
                  f"{rate['zero-copy']:.1f} | {1e3 * best['compacted'][0]:.3f} ({1e3 * c['cpu_gather_s']:.3f} + "
                  f"{1e3 * c['copy_s']:.3f} + {1e3 * c['sum_s']:.3f}) | {rate['compacted']:.1f} | "
                  f"{1e3 * best['span'][0]:.3f} | {rate['span']:.1f} | "
                  f"{segments_touched(rows_np, degree) * 128 / 1e6:,.1f} | "
                  f"{blocks_touched(rows_np, degree, 64) * 64 / best['zero-copy'][0] / 1e9:.1f} | {fastest} |")
            rows_out.append({"degree": degree, "share": share, "lists": m, "useful_bytes": useful,
                             "segment_bytes": segments_touched(rows_np, degree) * 128,
                             "block64_bytes": blocks_touched(rows_np, degree, 64) * 64, "fastest": fastest,
                             **{f"{p}_s": best[p][0] for p in PATHS},
                             **{f"compacted_{k}": v for k, v in c.items()},
                             **{f"span_{k}": v for k, v in best["span"][1].items()}})
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"config": vars(args), "machine": machine_info(), "versions": versions(), "rows": rows_out},
                      f, indent=1, default=json_default)
    return 0


if __name__ == "__main__":
    sys.exit(main())
