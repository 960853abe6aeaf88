"""Per-batch cost of a time window (``from_edgelist(time=..., window=...)``).

R-MAT graph, a mixed stream of batches (``datasets.mixed_stream``), SSSP
tracked; three graphs apply the same batches:

* ``plain``: no times;
* ``times``: times recorded, a window nothing falls out of (the bookkeeping alone);
* ``expiring``: the initial edges' times spread over ``[0, spread)``, batch
  ``i`` at time ``spread + i``, window ``spread``: every batch also expires
  about ``edges / spread`` old edges (more work for the store and the query).

Prints, per graph, the median and p90 wall time of a batch and of its
``window`` phase (``BatchReport.times["window"]``) and the edges expired::

    python -m benchmarks.window_overhead --scale 16 --batch-size 10000 --batches 20 --backend cpu
"""
from __future__ import annotations

import argparse
import time

import numpy as np


def main(argv=None):
    import cugraph_stream as cgs
    from cugraph_stream.datasets import mixed_stream, rmat

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=int, default=16)
    parser.add_argument("--batch-size", type=int, default=10_000)
    parser.add_argument("--batches", type=int, default=20)
    parser.add_argument("--spread", type=int, default=200)
    parser.add_argument("--backend", default="cpu")
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=2, help="runs of the three setups, interleaved")
    args = parser.parse_args(argv)

    edges = rmat(args.scale, seed=1)
    stream = mixed_stream(edges, args.batches + args.warmup, args.batch_size, seed=2)
    rng = np.random.default_rng(3)
    initial = stream.initial.copy()
    initial["ts"] = rng.integers(0, args.spread, len(initial))
    print(f"R-MAT scale {args.scale}: {len(initial)} initial edges, {len(stream.batches)} batches of "
          f"{args.batch_size} rows, backend {args.backend}")
    setups = {"plain": {}, "times": {"time": "ts", "window": 10 ** 12},
              "expiring": {"time": "ts", "window": args.spread}}
    for name, options in [item for _ in range(args.rounds) for item in setups.items()]:
        g = cgs.StreamGraph.from_edgelist(initial, source="src", destination="dst", weight="weight",
                                          backend=args.backend, **options)
        source = int(initial["src"].iloc[0])
        g.track(cgs.SSSP(source=source))
        walls, windows, expired = [], [], 0
        for i, batch in enumerate(stream.batches):
            batch = batch.assign(ts=args.spread + i)
            start = time.perf_counter()
            report = g.apply(batch, source="src", destination="dst", weight="weight", op="op")
            wall = time.perf_counter() - start
            if i >= args.warmup:
                walls.append(wall)
                windows.append(report.times.get("window", 0.0))
                expired += getattr(report, "expired", 0)
        walls, windows = np.array(walls) * 1e3, np.array(windows) * 1e3
        print(f"{name:9s} batch median {np.median(walls):7.2f} ms  p90 {np.percentile(walls, 90):7.2f} ms   "
              f"window phase median {np.median(windows):6.2f} ms  p90 {np.percentile(windows, 90):6.2f} ms   "
              f"expired {expired} ({expired / len(walls):.0f} a batch), edges now {g.number_of_edges()}")


if __name__ == "__main__":
    main()
