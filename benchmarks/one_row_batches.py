"""Per-batch cost of one-row pandas batches on the CPU: reading a new frame, and a whole apply.

Every batch a user sends is a new DataFrame, and a new frame's first column
reads are what pandas charges most for; this times both ``read_rows`` on
fresh one-row frames and ``apply`` of one-row insert batches with SSSP
tracked (R-MAT-like random graph, 2^14 vertices, 2^17 edges).  Compare two
checkouts by running it in each (``PYTHONPATH=<checkout> python -m
benchmarks.one_row_batches``), alternating.

Run: python -m benchmarks.one_row_batches [--batches 2000]
"""
from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

import cugraph_stream as cgs
from cugraph_stream.backends import get_backend
from cugraph_stream.frame.batch import read_rows


def _frames(rng, n, count):
    return [pd.DataFrame({"src": rng.integers(0, n, 1), "dst": rng.integers(0, n, 1),
                          "weight": np.float32([rng.random()]), "op": ["insert"]}) for _ in range(count)]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", type=int, default=2000)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(0)
    n, m = 1 << 14, 1 << 17
    edges = pd.DataFrame({"src": rng.integers(0, n, m), "dst": rng.integers(0, n, m),
                          "weight": rng.random(m).astype(np.float32)})
    ops = get_backend("cpu")
    reads = []
    for frame in _frames(rng, n, args.batches):
        start = time.perf_counter()
        read_rows(frame, "src", "dst", "weight", "op", np.float32, ops)
        reads.append(time.perf_counter() - start)
    g = cgs.StreamGraph.from_edgelist(edges, source="src", destination="dst", weight="weight")
    g.track(cgs.SSSP(source=0))
    batches = _frames(rng, n, args.batches)
    applies = []
    for i, frame in enumerate(batches):
        start = time.perf_counter()
        g.apply(frame, source="src", destination="dst", weight="weight")
        if i >= args.batches // 10:                    # the first tenth warms up
            applies.append(time.perf_counter() - start)
    print(f"read_rows of a new one-row frame: median {1e6 * np.median(reads):.1f} us")
    print(f"apply of a one-row batch (SSSP tracked): median {1e6 * np.median(applies):.1f} us, "
          f"p99 {1e6 * np.percentile(applies, 99):.1f} us")


if __name__ == "__main__":
    main()
