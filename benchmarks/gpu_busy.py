"""How busy a batch keeps the GPU: the kernels' own time against the batch's wall time.

    python -m benchmarks.gpu_busy --scale 22 --rows 10000 --batches 3
    python -m benchmarks.gpu_busy --scale 22 --rows 1 --batches 20
    python -m benchmarks.gpu_busy --scale 22 --rows 10000 --batches 3 --queries pagerank
    python -m benchmarks.gpu_busy --scale 22 --rows 1000000 --batches 3 --ingest

A diagnostic for issue 17 (the per-batch floor), not a comparison.  Like
``benchmarks/batch_profile.py`` it builds an R-MAT graph, tracks SSSP from
its hub (or the ``--queries`` given: sssp, pagerank) and applies 5 untimed
batches of ``--rows`` rows (pandas frames for a single row, column dicts of
CuPy arrays otherwise).  ``--ingest`` measures an ingestion instead, as
``benchmarks.gpu_vs_pylibcugraph``'s (which starts from its stream's G0, a
part of the R-MAT graph, where this starts from the whole graph): no query
tracked, each measured batch ``--rows`` new edges between uniformly random
ids below ``2**scale`` (column dicts of CuPy arrays), applied to a fresh
copy of the graph (built untimed; one untimed batch first loads the
kernels).  Then it runs twice:

* plainly, timing ``--batches`` batches (wall time, the device synchronised
  before and after);
* under Nsight Compute (``ncu --profile-from-start off --metrics
  gpu__time_duration.sum``), which profiles only the ``--batches`` batches
  between ``cudaProfilerStart`` and ``cudaProfilerStop``: each kernel's own
  duration.  ncu serialises kernels and adds its own time between them, so
  only the durations are read from that run.

It prints the kernel time per batch against the wall time per batch (their
ratio says how much of a batch the host drives rather than the device
computes) and the kernels that took most.  Needs ``ncu`` on ``PATH`` or in
``/usr/local/cuda/bin`` (the lent GPU machine has it) and a GPU.
"""
from __future__ import annotations

import argparse
import collections
import csv
import io
import json
import os
import shutil
import subprocess
import sys
import time

#: the untimed batches before the measured ones
WARM_BATCHES = 5


def kernel_times(text):
    """``(total_us, launches, per_kernel)`` from the CSV that ``ncu --csv --metrics
    gpu__time_duration.sum`` prints (other lines are skipped); ``per_kernel``
    maps a kernel's name (without its parameter list) to ``[us, launches]``.

    >>> header = '"ID","Kernel Name","Metric Name","Metric Unit","Metric Value"'
    >>> rows = ['"0","void take<unsigned int>(const T1 *, long long)","gpu__time_duration.sum","ns","4,864"',
    ...         '"1","arc_find","gpu__time_duration.sum","usecond","2.5"']
    >>> total, launches, per = kernel_times("\\n".join(["==PROF== Connected", header] + rows))
    >>> round(total, 3), launches, per["void take<unsigned int>"]
    (7.364, 2, [4.864, 1])
    """
    lines = [line for line in text.splitlines() if line.startswith('"')]
    per_kernel = collections.defaultdict(lambda: [0.0, 0])
    scale = {"ns": 1e-3, "nsecond": 1e-3, "us": 1.0, "usecond": 1.0, "ms": 1e3, "msecond": 1e3}
    for row in csv.DictReader(io.StringIO("\n".join(lines))):
        if row.get("Metric Name") != "gpu__time_duration.sum":
            continue
        us = float(row["Metric Value"].replace(",", "")) * scale[row["Metric Unit"]]
        entry = per_kernel[row["Kernel Name"].split("(")[0]]
        entry[0] += us
        entry[1] += 1
    total = sum(us for us, _ in per_kernel.values())
    return total, sum(n for _, n in per_kernel.values()), dict(per_kernel)


def _ncu():
    return shutil.which("ncu") or next((p for p in ("/usr/local/cuda/bin/ncu",) if os.path.exists(p)), None)


def run_batches(args):
    """The measured part (a child process): build, warm, then time or profile the batches."""
    from cugraph_stream.backends import get_backend

    from .batch_profile import tracked_stream

    ops = get_backend("gpu")
    if args.ingest:
        wall, graph, hub = ingest_batches(ops, args)
    else:
        graph, hub, batches = tracked_stream(ops, args.scale, args.edge_factor, args.rows,
                                             args.batches + WARM_BATCHES, args.seed, warm=WARM_BATCHES,
                                             queries=args.queries.split(","))

        def apply_all():
            for batch in batches:
                graph.apply(batch, weight="weight")

        wall = _timed(ops, args, apply_all)
    report = graph.last_report
    print(json.dumps({"wall_us": 1e6 * wall / args.batches, "syncs": report.syncs, "launches": report.launches,
                      "edges": graph.number_of_edges(), "hub": hub}))


def _timed(ops, args, work):
    """Seconds of ``work()``, the device synchronised before and after (profiled
    between the two in the ``profile`` child)."""
    ops.synchronize()
    if args.child == "profile":
        ops.xp.cuda.runtime.profilerStart()
    start = time.perf_counter()
    work()
    ops.synchronize()
    seconds = time.perf_counter() - start
    if args.child == "profile":
        ops.xp.cuda.runtime.profilerStop()
    return seconds


def ingest_batches(ops, args):
    """``--ingest``: ``(seconds, last graph, None)`` of ``--batches`` batches of
    ``--rows`` new random edges, each applied to a fresh copy of an R-MAT
    graph, after one untimed."""
    import cugraph_stream as cgs
    from cugraph_stream.datasets import rmat

    xp = ops.xp
    edges = rmat(args.scale, edge_factor=args.edge_factor, seed=args.seed, backend=ops.name)
    rng = xp.random.RandomState(args.seed + 7)
    n = 2 ** args.scale
    batch = {"src": rng.randint(0, n, args.rows, dtype=xp.int64), "dst": rng.randint(0, n, args.rows, dtype=xp.int64),
             "weight": rng.random_sample(args.rows).astype(xp.float32), "op": xp.ones(args.rows, dtype=xp.int8)}
    wall, graph = 0.0, None
    for timed in [False] + [True] * args.batches:
        del graph
        graph = cgs.StreamGraph.from_edgelist(edges, source="src", destination="dst", weight="weight", backend=ops)
        if timed:
            wall += _timed(ops, args, lambda: graph.apply(batch, weight="weight"))
        else:
            graph.apply(batch, weight="weight")
    return wall, graph, None


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", type=int, default=22)
    ap.add_argument("--edge-factor", type=int, default=16)
    ap.add_argument("--rows", type=int, default=10_000, help="rows per batch")
    ap.add_argument("--batches", type=int, default=3, help="measured batches (after 5 untimed ones)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--top", type=int, default=12, help="kernels listed")
    ap.add_argument("--queries", default="sssp", help="tracked queries, comma-separated: sssp, pagerank "
                                                       "(unweighted, as the benchmarks track it)")
    ap.add_argument("--ingest", action="store_true",
                    help="time the ingestion of --rows new random edges into fresh copies of the graph (no query)")
    ap.add_argument("--out", help="write the figures as JSON here")
    ap.add_argument("--child", choices=("time", "profile"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        run_batches(args)
        return 0
    ncu = _ncu()
    if ncu is None:
        print("ncu (Nsight Compute) not found: this diagnostic reads kernel durations from it", file=sys.stderr)
        return 2
    child = [sys.executable, "-m", "benchmarks.gpu_busy", "--scale", str(args.scale), "--edge-factor",
             str(args.edge_factor), "--rows", str(args.rows), "--batches", str(args.batches), "--seed", str(args.seed),
             "--queries", args.queries] + (["--ingest"] if args.ingest else [])
    plain = subprocess.run(child + ["--child", "time"], capture_output=True, text=True)
    profiled = subprocess.run([ncu, "--profile-from-start", "off", "--metrics", "gpu__time_duration.sum", "--csv"]
                              + child + ["--child", "profile"], capture_output=True, text=True)
    for run in (plain, profiled):
        if run.returncode:
            print(f"{' '.join(run.args)} failed ({run.returncode}):\n{run.stderr[-3000:]}", file=sys.stderr)
            return 1
    timed = json.loads(plain.stdout.strip().splitlines()[-1])
    total, launches, per_kernel = kernel_times(profiled.stdout)
    n = args.batches
    busy = total / n
    tracked = ("no query, ingesting new random edges into fresh copies" if args.ingest
               else args.queries.replace("sssp", f"SSSP from {timed['hub']}"))
    print(f"R-MAT scale {args.scale}, {timed['edges']:,} edges, {tracked}; {n} batches of "
          f"{args.rows} rows: wall {timed['wall_us']:,.0f} us a batch, kernels {busy:,.0f} us a batch "
          f"({launches / n:.1f} launches), busy {busy / timed['wall_us']:.0%}; last report {timed['syncs']} syncs, "
          f"{timed['launches']} operator calls")
    print("| kernel | us / batch | launches / batch |\n| --- | ---: | ---: |")
    ranked = sorted(per_kernel.items(), key=lambda item: -item[1][0])
    for name, (us, count) in ranked[:args.top]:
        print(f"| {name} | {us / n:,.1f} | {count / n:.1f} |")
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"config": vars(args), "wall_us_per_batch": timed["wall_us"], "kernel_us_per_batch": busy,
                       "launches_per_batch": launches / n, "syncs": timed["syncs"],
                       "kernels": {k: {"us_per_batch": us / n, "launches_per_batch": c / n}
                                   for k, (us, c) in ranked}}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
