"""Shortest paths from many sources at once, kept current by a Dask cluster.

One graph replica per Dask worker (one per GPU with --backend gpu), the SSSP
queries spread over the replicas, each update batch broadcast to all of them,
and every result gathered as one dask DataFrame with a ``query`` column.  At
the end a sample of the results is checked against SciPy from scratch.

Run (CPU, a LocalCluster of 2 worker processes):
    python examples/dask_sssp_many_sources.py
On GPUs (one worker per GPU; needs dask-cuda and dask-cudf):
    python examples/dask_sssp_many_sources.py --backend gpu
"""
import argparse
import time

import dask.dataframe as dd
import numpy as np
import pandas as pd
from distributed import Client, LocalCluster

import cugraph_stream as cgs
from cugraph_stream.dask import DistributedStreamGraph
from cugraph_stream.datasets import mixed_stream, rmat
from cugraph_stream.verify import EdgeSnapshot, check_result, to_pandas


def make_cluster(backend, workers):
    if backend == "gpu":
        from dask_cuda import LocalCUDACluster

        return LocalCUDACluster()                        # one worker per visible GPU
    return LocalCluster(n_workers=workers, threads_per_worker=1, dashboard_address=":0")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", choices=("cpu", "gpu"), default="cpu")
    parser.add_argument("--workers", type=int, default=2, help="CPU workers (default 2)")
    parser.add_argument("--scale", type=int, default=12, help="R-MAT scale (default 12)")
    parser.add_argument("--sources", type=int, default=64, help="SSSP sources (default 64)")
    parser.add_argument("--batches", type=int, default=6)
    parser.add_argument("--batch-size", type=int, default=2000)
    parser.add_argument("--check", type=int, default=8, help="sources checked against SciPy")
    args = parser.parse_args()

    edges = rmat(args.scale, edge_factor=8, seed=7)
    stream = mixed_stream(edges, args.batches, args.batch_size, seed=7)
    initial = stream.initial
    counts = initial["src"].value_counts()
    sources = [int(v) for v in counts.index[:args.sources]]

    with make_cluster(args.backend, args.workers) as cluster, Client(cluster) as client:
        t0 = time.perf_counter()
        graph = DistributedStreamGraph.from_edgelist(initial, source="src", destination="dst", weight="weight", client=client,
                                                     backend=args.backend)
        paths = graph.track([cgs.SSSP(source=s) for s in sources])
        per_worker = pd.Series([p.worker for p in paths]).value_counts().sort_index()
        print(f"{graph}: {graph.number_of_edges()} edges, {len(paths)} SSSP queries "
              f"({', '.join(f'{w}: {n}' for w, n in per_worker.items())}) "
              f"[{time.perf_counter() - t0:.2f}s]")

        # half of the batches one apply() each, the rest as a dask DataFrame stream
        half = len(stream) // 2
        snapshot = EdgeSnapshot.from_frame(initial, weight="weight")
        for i, batch in enumerate(stream[:half]):
            t0 = time.perf_counter()
            reports = graph.apply(batch, weight="weight")
            snapshot.apply(batch, weight="weight")
            report = next(iter(reports.values()))
            print(f"batch {i}: +{report.inserted} -{report.deleted} on {len(reports)} replicas, "
                  f"{sum(r.activated for r in reports.values())} vertices re-relaxed "
                  f"[{time.perf_counter() - t0:.3f}s]")
        rest = pd.concat(stream[half:], ignore_index=True)
        updates = dd.from_pandas(rest, npartitions=len(stream) - half, sort=False)
        t0 = time.perf_counter()
        graph.apply_stream(updates, weight="weight", progress=False)
        snapshot.apply(rest, weight="weight")
        print(f"apply_stream: {updates.npartitions} partitions "
              f"[{time.perf_counter() - t0:.3f}s]")

        results = graph.results()                        # one dask DataFrame, all sources
        gathered = to_pandas(results.compute())
        reached = gathered[gathered["predecessor"] >= 0]
        print(f"results: {results.npartitions} partitions, {len(gathered)} rows; "
              f"{len(reached)} (source, vertex) pairs reachable; mean distance "
              f"{reached['distance'].mean():.3f}")

        for source in sources[:args.check]:
            rows = gathered[gathered["query"] == f"SSSP(source={source})"]
            problems = check_result("sssp", rows.drop(columns="query").reset_index(drop=True),
                                    snapshot, source=source)
            assert not problems, problems
        assert np.isin(sources, gathered["vertex"]).all()
        print(f"checked {min(args.check, len(sources))} sources against SciPy: OK")
        graph.close()


if __name__ == "__main__":
    main()
