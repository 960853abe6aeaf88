"""An edge list in pieces: read one piece at a time, each possibly more than once.

``StreamGraph.from_edgelist`` loads an edge list larger than the device
piece by piece (see :mod:`cugraph_stream.engine.bulk_load`).  It takes the
pieces as a sequence of frames (a list of frames, or any object with
``len()`` and ``[i]`` that hands out a frame per index, such as one that
reads a file or generates rows when asked), a dask DataFrame (a piece per
partition), or one frame cut into slices of rows (:class:`RowSlices`).

Examples
--------
>>> import pandas as pd
>>> pieces = edge_list_pieces(pd.DataFrame({"src": [0, 1, 2], "dst": [1, 2, 0]}), piece_rows=2)
>>> len(pieces), pieces[1]["src"].tolist()
(2, [2])
>>> edge_list_pieces(pd.DataFrame({"src": [0]}), piece_rows=2) is None      # small enough at once
True
"""
from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from ..arrays import is_cudf
from .columns import _is_arrow, num_rows
from .partitions import is_dask_frame

__all__ = ["DaskPieces", "RowSlices", "edge_list_pieces", "is_frame", "row_slice"]


def is_frame(table):
    """Whether ``table`` is one frame (pandas, cuDF, pyarrow or a dict of
    columns) rather than pieces of one."""
    return isinstance(table, (pd.DataFrame, dict)) or _is_arrow(table) or is_cudf(table)


def row_slice(table, start, stop):
    """Rows ``start:stop`` of a pandas, cuDF or pyarrow frame or a dict of columns
    (views where the library gives them).

    >>> row_slice({"a": [1, 2, 3]}, 1, 3)
    {'a': [2, 3]}
    """
    if isinstance(table, pd.DataFrame) or is_cudf(table):
        return table.iloc[start:stop]
    if _is_arrow(table):
        return table.slice(start, stop - start)
    return {name: values[start:stop] for name, values in table.items()}


class RowSlices(Sequence):
    """A frame as consecutive slices of at most ``piece_rows`` rows."""

    def __init__(self, table, piece_rows):
        self.table = table
        self.piece_rows = int(piece_rows)
        self.rows = num_rows(table)

    def __len__(self):
        return -(-self.rows // self.piece_rows)

    def __getitem__(self, index):
        if not 0 <= index < len(self):
            raise IndexError(index)
        start = index * self.piece_rows
        return row_slice(self.table, start, min(start + self.piece_rows, self.rows))


class DaskPieces(Sequence):
    """The partitions of a dask (or dask-cudf) DataFrame, each computed when asked for."""

    def __init__(self, ddf):
        self.parts = ddf.to_delayed()

    def __len__(self):
        return len(self.parts)

    def __getitem__(self, index):
        return self.parts[index].compute()


def edge_list_pieces(table, piece_rows=None):
    """The pieces to load ``table`` in, or None to load it at once.

    Parameters
    ----------
    table : frame, sequence of frames or dask DataFrame
        An edge list (see the module docstring).
    piece_rows : int, optional
        The most rows a piece may have: a frame with more is cut into
        :class:`RowSlices`.  None: a frame is loaded at once.

    Returns
    -------
    Sequence or None
    """
    if is_dask_frame(table):
        return DaskPieces(table)
    if is_frame(table):
        if piece_rows is None or num_rows(table) <= piece_rows:
            return None
        return RowSlices(table, piece_rows)
    if isinstance(table, (str, bytes)) or not (hasattr(table, "__len__") and hasattr(table, "__getitem__")):
        raise ValueError(f"the edge list must be a frame (pandas, cuDF, pyarrow, dict of columns), a sequence "
                         f"of frames or a dask DataFrame, got {type(table).__module__}.{type(table).__name__}")
    if len(table) == 0:
        raise ValueError("the edge list is an empty sequence of pieces: pass at least one frame")
    return table
