"""Graphs and update streams for tests, benchmarks and examples.

Generators (:func:`rmat`; :func:`rmat_pieces` for graphs larger than
memory, in pieces generated on demand), readers of common edge-list formats
(:func:`read_snap`, :func:`read_matrix_market`, :func:`read_parquet`,
:func:`read_csv`, :func:`read_edgelist`) and update streams
(:func:`mixed_stream`, :class:`EdgeStream`).  Everything here returns plain
DataFrames with the columns ``src``, ``dst`` and ``weight`` and needs nothing
from the rest of the package.

Examples
--------
>>> from cugraph_stream.datasets import rmat, mixed_stream
>>> stream = mixed_stream(rmat(10, seed=0), num_batches=3, batch_size=50)
>>> len(stream), len(stream.batches[0])
(3, 50)
"""

from .readers import read_csv, read_edgelist, read_matrix_market, read_parquet, read_snap
from .rmat import RmatPieces, edge_weight, rmat, rmat_pieces
from .streams import DELETE, INSERT, EdgeStream, mixed_stream

__all__ = [
    "rmat",
    "rmat_pieces",
    "RmatPieces",
    "edge_weight",
    "read_snap",
    "read_matrix_market",
    "read_parquet",
    "read_csv",
    "read_edgelist",
    "EdgeStream",
    "mixed_stream",
    "INSERT",
    "DELETE",
]
