"""The workload every system of a run sees: an R-MAT graph cut into an initial
graph G0 and a stream of mixed batches (Grapin's protocol), with the snapshot
after each batch kept by :class:`cugraph_stream.verify.EdgeSnapshot`."""

from __future__ import annotations

from dataclasses import dataclass
from time import perf_counter

import numpy as np
import pandas as pd

from cugraph_stream.datasets import mixed_stream, rmat
from cugraph_stream.verify import EdgeSnapshot

#: weights of the generated graph: uniform in [1, 64), as in the other benchmarks
WEIGHTS = (1.0, 64.0)


class WorkloadError(ValueError):
    """The workload asked for cannot be built (more updates than edges...)."""


@dataclass
class Workload:
    """An initial graph, its batches and the figures of their making.

    Attributes
    ----------
    stream : cugraph_stream.datasets.EdgeStream
        ``initial`` (G0) and ``batches`` (pandas, columns src, dst, weight, op).
    snapshot0 : EdgeSnapshot
        G0 as the oracle sees it; :meth:`snapshots` advances copies of it.
    source : int
        Source vertex of SSSP and BFS: the vertex with the most out-edges in G0.
    universe : numpy.ndarray
        Sorted ids of every vertex G0 or an insert row names (systems that need
        all their vertices up front, NetworKit, create these).
    figures : dict
        Sizes and preparation times.
    """

    stream: object
    snapshot0: EdgeSnapshot
    source: int
    universe: np.ndarray
    figures: dict

    @property
    def batches(self):
        return self.stream.batches

    def snapshots(self):
        """Yield ``(b, batch, snapshot)`` after each batch (one snapshot advanced in place)."""
        snapshot = self.snapshot0.copy()
        for b, batch in enumerate(self.stream.batches):
            snapshot.apply(batch, weight="weight", op="op")
            yield b, batch, snapshot


def generate_edges(scale, edge_factor, seed, generate="cpu"):
    """The R-MAT edge list (pandas) and the seconds it took."""
    t0 = perf_counter()
    edges = rmat(scale, edge_factor=edge_factor, seed=seed, weights=WEIGHTS, backend=generate)
    if generate == "gpu":
        edges = _to_host_frame(edges)
    return edges, perf_counter() - t0


def build_workload(scale, edge_factor, batches, batch_size, delete_fraction, seed,
                   generate="cpu", edges=None):
    """Generate the graph and the stream.

    Parameters
    ----------
    scale, edge_factor : int
        R-MAT size (a=0.57, b=0.19, c=0.19; duplicates and self loops removed).
    batches, batch_size : int
        ``batches`` batches of ``batch_size`` rows; ``batches * batch_size``
        distinct edges are drawn.
    delete_fraction : float
        Share of the drawn edges that are deletions (kept in G0); the others
        are insertions (left out of G0).
    seed : int
        Seed of the graph and of the stream.
    generate : {"cpu", "gpu"}
        Where R-MAT runs (``"gpu"`` needs CuPy; the edges come back to host
        memory, where the stream and the snapshots are built).
    edges : tuple, optional
        ``generate_edges(scale, edge_factor, seed, generate)``'s result, to
        reuse one graph across runs (sweeps).

    Raises
    ------
    WorkloadError
        If the graph has fewer edges than the stream draws.
    """
    edges, generate_s = edges or generate_edges(scale, edge_factor, seed, generate)
    total = batches * batch_size
    if total > len(edges):
        raise WorkloadError(f"batches * batch_size = {total} exceeds the {len(edges)} edges of the "
                         f"R-MAT graph of scale {scale}, edge factor {edge_factor}")
    t0 = perf_counter()
    stream = mixed_stream(edges, batches, batch_size, delete_fraction=delete_fraction, seed=seed)
    num_drawn = len(edges)
    snapshot0 = EdgeSnapshot.from_frame(stream.initial, weight="weight")
    initial_src = stream.initial["src"].to_numpy()
    source = int(np.argmax(np.bincount(initial_src))) if initial_src.size else 0
    inserted = [b.loc[b["op"] > 0, ["src", "dst"]].to_numpy().ravel() for b in stream.batches]
    universe = np.union1d(snapshot0.vertices(), np.concatenate(inserted) if inserted else np.empty(0, np.int64))
    stream_s = perf_counter() - t0
    figures = {"rmat_edges": num_drawn, "g0_edges": len(stream.initial),
               "g0_vertices": snapshot0.num_vertices, "universe_vertices": int(universe.size),
               "inserts": stream.num_inserts, "deletes": stream.num_deletes,
               "generate_s": generate_s, "stream_s": stream_s}
    return Workload(stream, snapshot0, source, universe.astype(np.int64), figures)


def _to_host_frame(edges):
    """A pandas DataFrame from R-MAT's GPU output (cuDF, or a dict of CuPy arrays)."""
    if hasattr(edges, "to_pandas"):
        return edges.to_pandas()
    import cupy

    return pd.DataFrame({name: cupy.asnumpy(col) for name, col in edges.items()})
