"""Loading an edge list whose vertex ids are spread over int64 (hashed or arbitrary ids).

Such ids are not dense, so making them distinct sorts them
(``Backend.sorted_distinct``); this times ``from_edgelist`` on them and,
for scale, the two ways to make the same ids distinct on the host:
``np.unique`` (which NumPy 2.4 hashes, then sorts) and a sort that drops
adjacent repeats.  The edges are the stream of
:func:`benchmarks.keys_overhead.make_stream` (``2**scale`` ids drawn from
the int64 range, ``edge_factor`` edges per id).  Compare two checkouts by
running it from each one's folder, alternately (``python -m`` imports the
package of the current folder, whatever ``PYTHONPATH`` says).

    python -m benchmarks.sparse_id_load --scale 18 --repeats 3
"""
from __future__ import annotations

import argparse
import time

import numpy as np

import cugraph_stream as cgs

from .keys_overhead import make_stream


def _seconds(call):
    start = time.perf_counter()
    result = call()
    return time.perf_counter() - start, result


def sorted_unique(values):
    """Distinct ``values``, ascending, by a sort and a pass over neighbours."""
    values = np.sort(values)
    keep = np.ones(values.size, dtype=bool)
    np.not_equal(values[1:], values[:-1], out=keep[1:])
    return values[keep]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=int, default=18)
    parser.add_argument("--edge-factor", type=int, default=16)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--backend", choices=("cpu", "gpu"), default="cpu")
    args = parser.parse_args(argv)
    edges, _, _ = make_stream(args.scale, args.edge_factor, 0, 1, 0)
    ids = np.concatenate((edges["src"].to_numpy(), edges["dst"].to_numpy()))
    for repeat in range(args.repeats):
        unique_s, expected = _seconds(lambda: np.unique(ids))
        sort_s, got = _seconds(lambda: sorted_unique(ids))
        assert np.array_equal(expected, got)
        load_s, graph = _seconds(lambda: cgs.StreamGraph.from_edgelist(
            edges, source="src", destination="dst", weight="w", backend=args.backend, progress=False))
        assert graph.number_of_vertices() == expected.size
        print(f"round {repeat}: {len(edges):,} rows, {expected.size:,} ids ({np.__version__}): "
              f"np.unique {1e3 * unique_s:.1f} ms, sort + drop repeats {1e3 * sort_s:.1f} ms; "
              f"from_edgelist ({args.backend}) {load_s:.2f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
