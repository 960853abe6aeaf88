"""What the vertex-key layer costs on the int64 fast path (issue 20, item 2).

Applies the same stream of int64-keyed batches twice per round, alternating:
``keys``, the graph as it is (every batch's id columns go through
:class:`cugraph_stream.frame.keys.VertexKeys`), and a baseline; prints the
median time per batch of each and their ratio (the target is <= 1.05).

The baseline is either ``bypass`` (default: the same code with the graph's
key layer replaced by a bare ``parse_ids`` of each id column, in this
process) or ``--against PATH``: another checkout (e.g. the main branch
before keys) run in a subprocess with ``PYTHONPATH=PATH``, one round each in
turn.

Two workloads: ``--rows 10000`` batches (throughput) and ``--rows 1``
(latency, where a per-call cost shows most).  Each tracks SSSP and WCC.

Usage::

    python -m benchmarks.keys_overhead                              # CPU, bypass baseline
    python -m benchmarks.keys_overhead --against /work/main         # CPU, vs another checkout
    python -m benchmarks.keys_overhead --backend gpu --scale 20     # the lent GPU
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np
import pandas as pd


def make_stream(scale, edge_factor, batches, rows, seed):
    """Initial edges and ``batches`` update frames on int64 ids spread over the int64 range."""
    rng = np.random.default_rng(seed)
    n = 1 << scale
    ids = np.unique(rng.integers(-2**62, 2**62, size=n, dtype=np.int64))
    m = n * edge_factor
    edges = pd.DataFrame({"src": ids[rng.integers(0, ids.size, m)], "dst": ids[rng.integers(0, ids.size, m)],
                          "w": rng.uniform(0.5, 10.0, m)})
    frames = []
    for _ in range(batches):
        pick = rng.integers(0, m, rows)
        delete = rng.random(rows) < 0.4
        src = np.where(delete, edges["src"].to_numpy()[pick], ids[rng.integers(0, ids.size, rows)])
        dst = np.where(delete, edges["dst"].to_numpy()[pick], ids[rng.integers(0, ids.size, rows)])
        frames.append(pd.DataFrame({"src": src, "dst": dst, "w": rng.uniform(0.5, 10.0, rows),
                                    "op": np.where(delete, -1, 1)}))
    return edges, ids[0], frames


class _BypassEncoder:
    """The key layer reduced to what it replaced: ``parse_ids`` of each id column."""

    def encode(self, table, columns):
        from cugraph_stream.frame.batch import parse_ids
        from cugraph_stream.frame.columns import read_column

        return parse_ids(*read_column(table, columns), columns)

    def commit(self, journal=None):
        pass


def bypass_keys(graph):
    """Make ``graph`` read int64 ids without its key layer (outputs still decode through it:
    identity for int64 keys)."""
    keys = graph._keys
    keys.encoder = lambda extend=True: _BypassEncoder()
    return graph


def run_once(args, bypass):
    """Seconds per batch (a list) of one pass over the stream."""
    import cugraph_stream as cgs

    edges, source, frames = make_stream(args.scale, args.edge_factor, args.batches + args.warmup,
                                        args.rows, args.seed)
    if args.backend == "gpu":
        try:
            import cudf

            frames = [cudf.from_pandas(f) for f in frames]
        except ImportError:
            pass
    g = cgs.StreamGraph.from_edgelist(edges, source="src", destination="dst", weight="w",
                                      backend=args.backend)
    if bypass:
        bypass_keys(g)
    g.track(cgs.SSSP(source=source))
    g.track(cgs.WCC())
    times = []
    for i, frame in enumerate(frames):
        start = time.perf_counter()
        g.apply(frame, source="src", destination="dst", weight="w", op="op")
        if i >= args.warmup:
            times.append(time.perf_counter() - start)
    return times


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--backend", default="cpu", choices=["cpu", "gpu"])
    parser.add_argument("--scale", type=int, default=16, help="2**scale vertices")
    parser.add_argument("--edge-factor", type=int, default=8)
    parser.add_argument("--rows", type=int, nargs="+", default=[10000, 1], help="rows per batch (workloads)")
    parser.add_argument("--batches", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=5, help="alternating rounds of keys and baseline")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--against", default=None, help="a checkout to compare with (subprocess)")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--bypass", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.worker:                      # one pass, for --against: print the times as JSON
        print(json.dumps(run_once(args, bypass=args.bypass)))
        return 0

    baseline_name = f"{args.against}" if args.against else "bypass"
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    summary = {}
    for rows in args.rows:
        run = argparse.Namespace(**{**vars(args), "rows": rows})
        ours, theirs = [], []
        for _ in range(args.rounds):
            if args.against is None:            # in this process, alternating
                ours.append(statistics.median(run_once(run, bypass=False)))
                theirs.append(statistics.median(run_once(run, bypass=True)))
            else:                               # each checkout in a fresh process, alternating
                ours.append(statistics.median(_subprocess(run, here)))
                theirs.append(statistics.median(_subprocess(run, args.against)))
        a, b = statistics.median(ours), statistics.median(theirs)
        summary[rows] = (a, b, a / b)
        print(f"{args.backend} rows={rows:>6}: keys {a * 1e3:9.3f} ms/batch, {baseline_name} {b * 1e3:9.3f} "
              f"ms/batch, ratio {a / b:.3f}  (medians of {args.rounds} rounds x {args.batches} batches)",
              flush=True)
    return 0 if all(ratio <= 1.05 for _, _, ratio in summary.values()) else 1


def _subprocess(run, checkout):
    """Seconds per batch of one pass with ``cugraph_stream`` imported from ``checkout``."""
    checkout = os.path.abspath(checkout)
    command = [sys.executable, "-c", "import runpy, sys; sys.argv.pop(0); runpy.run_path(sys.argv[0], run_name='__main__')",
               os.path.abspath(__file__), "--worker", "--backend", run.backend, "--scale", str(run.scale),
               "--edge-factor", str(run.edge_factor), "--rows", str(run.rows), "--batches", str(run.batches),
               "--warmup", str(run.warmup), "--seed", str(run.seed)]
    env = dict(os.environ, PYTHONPATH=checkout)
    out = subprocess.run(command, env=env, cwd=checkout, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


if __name__ == "__main__":
    sys.exit(main())
