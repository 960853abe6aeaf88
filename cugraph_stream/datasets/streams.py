"""Update streams built from a static edge list.

:func:`mixed_stream` follows the evaluation protocol of Grapin (PVLDB 2025):
sample edges of the graph uniformly at random, make some of them deletions
(present in the initial graph, deleted by the stream) and the rest insertions
(absent from the initial graph, inserted by the stream), and shuffle them into
batches of a fixed size.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

__all__ = ["EdgeStream", "mixed_stream", "INSERT", "DELETE"]

#: ``op`` value of an insert row in the batches of an :class:`EdgeStream`.
INSERT = np.int8(1)
#: ``op`` value of a delete row in the batches of an :class:`EdgeStream`.
DELETE = np.int8(-1)


@dataclass
class EdgeStream:
    """An initial graph and the batches of updates that follow it.

    Attributes
    ----------
    initial : pandas.DataFrame
        Edges of the initial graph G0: ``src``, ``dst`` (int64) and, when the
        source edge list had one, ``weight``.
    batches : list of pandas.DataFrame
        Update batches: the columns of ``initial`` plus ``op`` (int8), ``1``
        for an insertion and ``-1`` for a deletion (the values ``StreamGraph.apply``
        accepts besides the strings ``"insert"``/``"delete"``, and cheaper to
        build and to parse).  Delete rows carry the deleted edge's weight.
    num_inserts, num_deletes : int
        Insert and delete rows over all batches.

    Iterating over the stream yields the batches; ``len`` is their number.
    """

    initial: pd.DataFrame
    batches: list = field(default_factory=list)
    num_inserts: int = 0
    num_deletes: int = 0

    def __iter__(self):
        return iter(self.batches)

    def __len__(self):
        return len(self.batches)

    def __getitem__(self, index):
        return self.batches[index]

    def __repr__(self):
        return (f"EdgeStream(initial={len(self.initial)} edges, "
                f"batches={len(self.batches)}, inserts={self.num_inserts}, "
                f"deletes={self.num_deletes})")


def mixed_stream(edges, num_batches, batch_size, delete_fraction=0.5, seed=0,
                 directed=True, source="src", destination="dst", weight="weight"):
    """Split an edge list into an initial graph and a stream of mixed updates.

    ``num_batches * batch_size`` distinct edges are sampled uniformly at
    random.  ``round(delete_fraction * num_batches * batch_size)`` of them
    become deletions: they stay in the initial graph and the stream deletes
    them.  The rest become insertions: they are left out of the initial graph
    and the stream inserts them.  The updates are shuffled and cut into
    ``num_batches`` batches of ``batch_size`` rows.  After the whole stream,
    the graph holds the input edges minus the deleted ones.

    Parameters
    ----------
    edges : pandas.DataFrame, pyarrow.Table or dict of arrays
        The edge list.  Repeated edges (for ``directed=False``, also
        ``(u, v)`` and ``(v, u)``) are collapsed first, keeping the last row,
        as :meth:`StreamGraph.from_edgelist` would.
    num_batches : int
        Number of batches (0 or more).
    batch_size : int
        Rows per batch (1 or more).
    delete_fraction : float, optional
        Fraction of the sampled edges that become deletions, in ``[0, 1]``.
    seed : int, optional
        Seed of the random generator; the same seed gives the same stream.
    directed : bool, optional
        Whether ``(u, v)`` and ``(v, u)`` are different edges.
    source, destination, weight : str, optional
        Column names in ``edges``.  The weight column is optional when named
        ``"weight"`` (the default) and absent; ``None`` ignores weights.

    Returns
    -------
    EdgeStream
        Columns are renamed to ``src``, ``dst``, ``weight``; ``initial`` keeps
        the input order of its edges.

    Raises
    ------
    ValueError
        If an argument is out of range or the edge list has fewer distinct
        edges than ``num_batches * batch_size``.

    Examples
    --------
    >>> import pandas as pd
    >>> from cugraph_stream.datasets import mixed_stream
    >>> edges = pd.DataFrame({"src": range(10), "dst": range(1, 11),
    ...                       "weight": [1.0] * 10})
    >>> s = mixed_stream(edges, num_batches=2, batch_size=3, seed=0)
    >>> s
    EdgeStream(initial=7 edges, batches=2, inserts=3, deletes=3)
    >>> [len(b) for b in s], list(s.batches[0].columns)
    ([3, 3], ['src', 'dst', 'weight', 'op'])
    >>> sorted(pd.concat(s.batches).op.tolist())
    [-1, -1, -1, 1, 1, 1]
    """
    num_batches = _check_int("num_batches", num_batches, 0)
    batch_size = _check_int("batch_size", batch_size, 1)
    if (isinstance(delete_fraction, bool) or not isinstance(delete_fraction, numbers.Real)
            or not 0.0 <= float(delete_fraction) <= 1.0):
        raise ValueError(f"delete_fraction must be in [0, 1], got {delete_fraction!r}")
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")

    df = _edge_frame(edges, source, destination, weight)
    src = df["src"].to_numpy()
    dst = df["dst"].to_numpy()
    # Collapse repeated edges (keep the last row, as from_edgelist does).
    if not directed:
        src, dst = np.minimum(src, dst), np.maximum(src, dst)
    dup = _duplicated_pairs(src, dst)
    if dup.any():
        df = df.loc[~dup].reset_index(drop=True)

    m = len(df)
    total = num_batches * batch_size
    if total > m:
        raise ValueError(
            f"num_batches * batch_size = {total} exceeds the {m} distinct edges of edges"
        )
    n_delete = int(round(float(delete_fraction) * total))

    rng = np.random.default_rng(int(seed))
    chosen = rng.choice(m, size=total, replace=False)  # random order
    inserts = chosen[n_delete:]          # the first n_delete stay in G0 and are deleted

    keep = np.ones(m, dtype=bool)
    keep[inserts] = False
    initial = df.loc[keep].reset_index(drop=True)

    op = np.empty(total, dtype=np.int8)
    op[:n_delete] = DELETE
    op[n_delete:] = INSERT
    order = rng.permutation(total)
    rows = chosen[order]
    updates = df.take(rows).reset_index(drop=True)
    updates["op"] = op[order]
    batches = [
        updates.iloc[i * batch_size:(i + 1) * batch_size].reset_index(drop=True)
        for i in range(num_batches)
    ]
    return EdgeStream(initial=initial, batches=batches,
                      num_inserts=total - n_delete, num_deletes=n_delete)


def _duplicated_pairs(src, dst):
    """Mask of rows whose (src, dst) pair occurs again later."""
    if src.size == 0:
        return np.zeros(0, bool)
    lo = int(min(src.min(), dst.min()))
    span = int(max(src.max(), dst.max())) - lo + 1
    if span <= 1 << 31:
        key = (src - lo) * span + (dst - lo)
        # Usually there is no duplicate at all: a sort (or a sortedness check)
        # proves it much faster than hashing.
        ordered = key if bool((key[1:] > key[:-1]).all()) else np.sort(key)
        if not (ordered[1:] == ordered[:-1]).any():
            return np.zeros(key.size, bool)
        return pd.Series(key, copy=False).duplicated(keep="last").to_numpy()
    frame = pd.DataFrame({"a": src, "b": dst}, copy=False)
    return frame.duplicated(keep="last").to_numpy()


def _check_int(name, value, low):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low:
        raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")
    return int(value)


def _edge_frame(edges, source, destination, weight):
    """Columns src, dst[, weight] of ``edges`` as a pandas DataFrame."""
    if isinstance(edges, pd.DataFrame):
        df = edges
    elif isinstance(edges, dict):
        df = pd.DataFrame(edges, copy=False)
    elif hasattr(edges, "to_pandas"):  # pyarrow.Table, cudf.DataFrame
        df = edges.to_pandas()
    else:
        raise ValueError(
            "edges must be a pandas DataFrame, a pyarrow Table or a dict of arrays, "
            f"got {type(edges).__name__}"
        )
    names = {"src": source, "dst": destination}
    if weight is not None:
        names["weight"] = weight
    out = {}
    for key, name in names.items():
        if name in df.columns:
            out[key] = df[name].to_numpy()
        elif key == "weight" and name == "weight":
            continue
        else:
            arg = {"src": "source", "dst": "destination"}[key] if key != "weight" else "weight"
            raise ValueError(f"{arg}: column {name!r} not found in edges")
    for key in ("src", "dst"):
        if out[key].dtype.kind not in "iu":
            raise ValueError(
                f"{names[key]}: vertex ids must be integers, got dtype {out[key].dtype}"
            )
        out[key] = out[key].astype(np.int64, copy=False)
    return pd.DataFrame(out, copy=False)
