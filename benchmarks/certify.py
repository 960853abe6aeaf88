"""Exactness certificates for graphs larger than memory, computed by streaming their pieces.

A graph given as pieces (:func:`cugraph_stream.datasets.rmat_pieces`, or any
sequence of frames read as rows of inserts in order) may be too large for any
reference (SciPy, the whole edge list) to fit in memory beside the engine.
The results of the engine can still be *proved* exact, one snapshot at a
time, by reading the pieces again one by one:

* the edge set of a snapshot is the union of the pieces' edges with a
  :class:`ChangeLog` applied (per changed edge: present now or not);
* :func:`certify_sssp` checks Bellman's conditions: ``dist[source] == 0``,
  no current edge can shorten a distance, and every reached vertex has a
  predecessor edge that is current and tight.  With positive weights these
  prove the distances equal the shortest ones (predecessors strictly
  decrease the distance, so they lead back to the source);
* :func:`certify_pagerank` computes one power-iteration step ``y = G x``
  from the engine's ranks ``x`` and bounds the error by Banach's fixed
  point theorem: ``|x - x*|_1 <= |y - x|_1 / (1 - alpha)``.  Out-degrees
  count distinct edges: the base summary (:func:`summarize_base`) counts
  them once by hash-partitioned passes, and remembers the edges held by
  several pieces so that a snapshot's single pass can take the extra copies
  back out.

Nothing here uses the engine's code or store: only the pieces, the batches
recorded in the log and the results.  Memory: a few arrays over the vertex
ids, one piece, and the edges held by several pieces (about 3% of the edges
of an R-MAT graph at scale 20; 16 bytes each).  Arrays live where
``xp`` (``numpy`` or ``cupy``) puts them; the change log is a small host
structure.  Vertex ids must lie in ``[0, 2**31)`` (edge keys are
``src << 32 | dst`` in an int64).

Examples
--------
>>> import numpy as np
>>> from benchmarks.certify import ChangeLog, certify_pagerank, certify_sssp
>>> pieces = [{"src": np.array([0, 1]), "dst": np.array([1, 2]), "weight": np.array([2.0, 3.0])},
...           {"src": np.array([0]), "dst": np.array([1]), "weight": np.array([2.0])}]   # (0, 1) twice
>>> log = ChangeLog()
>>> log.record({"src": [0], "dst": [2], "weight": [9.0], "op": ["insert"]})
>>> inf = np.inf
>>> certify_sssp(pieces, log, 0, np.array([0.0, 2.0, 5.0]), np.array([-1, 0, 1])).passed
True
>>> certify_sssp(pieces, log, 0, np.array([0.0, 2.0, 4.0]), np.array([-1, 0, 1])).violations
{'source': 0, 'relaxation': 0, 'predecessor_missing': 0, 'predecessor_not_tight': 1}
>>> exact = np.array([0.1976, 0.2816, 0.5209])     # PageRank of 0->1, 0->2, 1->2 (alpha 0.85), 4 digits
>>> cert = certify_pagerank(pieces, log, exact, alpha=0.85, tol=1e-3, num_vertex_ids=3)
>>> cert.passed, cert.edges, cert.vertices
(True, 3, 3)
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from time import perf_counter

import numpy as np

from cugraph_stream.datasets.rmat import mix64

__all__ = ["ChangeLog", "BaseSummary", "SsspCertificate", "PagerankCertificate", "summarize_base", "read_piece",
           "certify_sssp", "certify_pagerank", "certify_snapshot", "certify_vertices", "edge_keys",
           "dense_column", "KEY_SHIFT", "PIECES_PER_RANGE"]

#: vertex ids take the low 32 bits of an edge key, sources the high ones
KEY_SHIFT = 32
_LOW_MASK = (1 << KEY_SHIFT) - 1
#: the base summary's hash partitions hold about this many pieces' rows each (by default)
PIECES_PER_RANGE = 4
#: relative slack of the PageRank check on top of (1 + alpha) * tol, as the engine's own
_RELATIVE_SLACK = 1e-6
#: absolute slack: float64 rounding of the power step's sums (far below any tol the engine takes)
_ABSOLUTE_SLACK = 1e-9


# ---------------------------------------------------------------------------
# edges and frames
# ---------------------------------------------------------------------------

def edge_keys(xp, src, dst):
    """The int64 keys ``src << 32 | dst`` of edges (ids in ``[0, 2**31)``): sorting
    keys sorts edges by ``(src, dst)``.

    >>> import numpy as np
    >>> edge_keys(np, np.array([0, 1]), np.array([5, 0])).tolist()
    [5, 4294967296]
    """
    return (xp.asarray(src).astype(xp.int64) << KEY_SHIFT) | xp.asarray(dst).astype(xp.int64)


def _key_ends(xp, keys):
    """``(src, dst)`` of edge keys."""
    return keys >> KEY_SHIFT, keys & _LOW_MASK


def _column(frame, name, xp):
    """Column ``name`` of a dict of arrays (NumPy, CuPy, lists), pandas or cuDF frame
    as an array of ``xp``."""
    return _as_array(frame[name], xp)


def _as_array(column, xp):
    """``column`` (a NumPy or CuPy array, a list, a pandas or cuDF Series) as an array of ``xp``."""
    if type(column).__module__.startswith("cupy"):
        return column if xp is not np else column.get()
    if xp is not np and hasattr(column, "to_cupy"):          # cuDF, staying on the device
        return column.to_cupy()
    if hasattr(column, "to_numpy"):                           # pandas (and cuDF read on the host)
        column = column.to_numpy()
    return xp.asarray(column)


@dataclass
class PieceEdges:
    """One piece's edges, sorted by key and distinct (the last row of a repeat wins)."""

    src: object
    dst: object
    weight: object
    keys: object


def read_piece(pieces, index, xp=np, columns=("src", "dst", "weight")):
    """Piece ``index`` of ``pieces`` as :class:`PieceEdges` (read, i.e. regenerated, once):
    its edges sorted by key, a repeated edge once with its last row's weight.  A
    sequence with an ``arrays(index)`` method (:class:`~cugraph_stream.datasets.RmatPieces`)
    is read through it, without building the frame.

    >>> import numpy as np
    >>> piece = read_piece([{"src": np.array([1, 0, 1]), "dst": np.array([0, 1, 0]),
    ...                      "weight": np.array([1.0, 2.0, 3.0])}], 0)
    >>> piece.src.tolist(), piece.dst.tolist(), piece.weight.tolist()
    ([0, 1], [1, 0], [2.0, 3.0])
    """
    source, destination, weight = columns
    if hasattr(pieces, "arrays") and columns == ("src", "dst", "weight"):
        src, dst, w = pieces.arrays(index)          # RmatPieces: the arrays, without a frame around them
        keys = edge_keys(xp, _as_array(src, xp), _as_array(dst, xp))
        w = _as_array(w, xp)
        del src, dst
    else:
        frame = pieces[index]
        keys = edge_keys(xp, _column(frame, source, xp), _column(frame, destination, xp))
        w = _column(frame, weight, xp)
        del frame
    if keys.size > 1 and not bool((keys[1:] > keys[:-1]).all()):
        order = xp.argsort(keys, kind="stable")
        keys, w = keys[order], w[order]
        last = xp.ones(keys.size, dtype=bool)
        last[:-1] = keys[1:] != keys[:-1]                   # the last row of each repeated key
        keys, w = keys[last], w[last]
    src, dst = _key_ends(xp, keys)
    return PieceEdges(src, dst, w, keys)


def _num_rows(pieces):
    """Rows of all pieces: ``pieces.rows`` where the sequence says (an upper bound), else counted."""
    rows = getattr(pieces, "rows", None)
    if rows is not None:
        return int(rows)
    return sum(_frame_rows(pieces[i]) for i in range(len(pieces)))


def _frame_rows(frame):
    """Rows of a frame (a dict of arrays too)."""
    if isinstance(frame, dict):
        return len(next(iter(frame.values()))) if frame else 0
    return len(frame)


def _lookup(xp, sorted_keys, queries):
    """``(found, position)``: whether each query is in ``sorted_keys``, and where."""
    if sorted_keys.size == 0:
        return xp.zeros(queries.shape, dtype=bool), xp.zeros(queries.shape, dtype=xp.int64)
    position = xp.minimum(xp.searchsorted(sorted_keys, queries), sorted_keys.size - 1)
    return sorted_keys[position] == queries, position


def dense_column(frame, column, num_vertex_ids, xp, fill, vertex="vertex"):
    """Column ``column`` of a result frame (one row per vertex) as a dense array over the
    vertex ids ``[0, num_vertex_ids)``, ``fill`` where the frame has no row.

    Returns ``(values, vertices)``: the dense array (the column's dtype) and the frame's
    vertex ids.

    >>> import pandas as pd, numpy as np
    >>> values, vertices = dense_column(pd.DataFrame({"vertex": [2, 0], "distance": [1.5, 0.0]}),
    ...                                 "distance", 4, np, np.inf)
    >>> values.tolist(), vertices.tolist()
    ([0.0, inf, 1.5, inf], [2, 0])
    """
    vertices = _column(frame, vertex, xp).astype(xp.int64)
    values = _column(frame, column, xp)
    dense = xp.full(int(num_vertex_ids), fill, dtype=values.dtype)
    dense[vertices] = values
    return dense, vertices


# ---------------------------------------------------------------------------
# the change log
# ---------------------------------------------------------------------------

class ChangeLog:
    """The edges that applied batches changed: per edge key, present now or not.

    A small host structure (NumPy arrays sorted by key), as large as the
    number of distinct edges the batches named.  Rows apply in order, as
    ``StreamGraph.apply`` applies them: the last row of an edge decides
    whether it is present, and an insert's weight is the edge's weight.  The
    vertices named by insert rows are remembered (a vertex exists from the
    first insert row naming it; deletes remove none).  Whether a changed edge
    is also in the base edge list (the pieces) is learnt by the certificates'
    passes (``in_base``: -1 unknown, 0 no, 1 yes).

    Examples
    --------
    >>> log = ChangeLog()
    >>> log.record({"src": [1, 1, 2], "dst": [2, 2, 3], "weight": [5.0, None, 1.0],
    ...             "op": ["insert", "delete", "insert"]})
    >>> len(log), log.present.tolist(), log.inserted_vertices.tolist()
    (2, [False, True], [1, 2, 3])
    """

    def __init__(self):
        self.keys = np.empty(0, dtype=np.int64)
        self.present = np.empty(0, dtype=bool)
        self.weight = np.empty(0, dtype=np.float64)
        self.in_base = np.empty(0, dtype=np.int8)
        self.inserted_vertices = np.empty(0, dtype=np.int64)
        self.batches = 0
        self.rows = 0

    def __len__(self):
        return int(self.keys.size)

    def __repr__(self):
        return (f"ChangeLog({self.batches} batches, {self.rows} rows, {len(self)} edges changed, "
                f"{int(self.present.sum())} present)")

    def record(self, batch, source="src", destination="dst", weight="weight", op="op"):
        """Record an applied batch: a frame (dict of arrays, pandas or cuDF) with
        source, destination, weight (read on insert rows) and op columns (``"insert"``
        / ``"delete"`` in any case, or ``1`` / ``-1``)."""
        src = np.asarray(_column(batch, source, np), dtype=np.int64)
        dst = np.asarray(_column(batch, destination, np), dtype=np.int64)
        inserts = _insert_rows(_column(batch, op, np))
        weights = np.zeros(src.size, dtype=np.float64)
        if inserts.any():
            weights[inserts] = np.asarray(_column(batch, weight, np)[inserts], dtype=np.float64)
        if src.size and (min(src.min(), dst.min()) < 0 or max(src.max(), dst.max()) > _LOW_MASK >> 1):
            raise ValueError("ChangeLog: vertex ids must lie in [0, 2**31)")
        keys = edge_keys(np, src, dst)
        # the last row of each edge decides
        unique, first_from_end = np.unique(keys[::-1], return_index=True)
        last = keys.size - 1 - first_from_end
        self._merge(unique, inserts[last], weights[last])
        named = np.concatenate((src[inserts], dst[inserts]))
        self.inserted_vertices = np.union1d(self.inserted_vertices, named)
        self.batches += 1
        self.rows += int(src.size)

    def _merge(self, keys, present, weight):
        """Set the state of ``keys`` (sorted, distinct): update known ones, add new ones."""
        found, position = _lookup(np, self.keys, keys)
        self.present[position[found]] = present[found]
        self.weight[position[found]] = weight[found]
        new = ~found
        merged = np.concatenate((self.keys, keys[new]))
        order = np.argsort(merged, kind="stable")
        self.keys = merged[order]
        self.present = np.concatenate((self.present, present[new]))[order]
        self.weight = np.concatenate((self.weight, weight[new]))[order]
        self.in_base = np.concatenate((self.in_base, np.full(int(new.sum()), -1, dtype=np.int8)))[order]

    def lookup(self, keys):
        """``(changed, present)`` for edge keys (host arrays): whether the log holds each
        key, and whether that edge is present now (False where not changed)."""
        keys = np.asarray(keys, dtype=np.int64)
        found, position = _lookup(np, self.keys, keys)
        present = (found & self.present[position]) if self.keys.size else found
        return found, present

    def learn_base(self, positions, in_base):
        """Record whether the changed edges at ``positions`` are in the base edge list."""
        self.in_base[np.asarray(positions)] = np.asarray(in_base, dtype=np.int8)


def _insert_rows(op):
    """Mask of insert rows of an op column (strings or +1 / -1); ValueError on anything else."""
    op = np.asarray(op)
    if op.dtype.kind in "iuf":
        inserts, deletes = op == 1, op == -1
    else:
        text = np.char.lower(np.char.strip(op.astype(str)))
        inserts, deletes = text == "insert", text == "delete"
    if not (inserts | deletes).all():
        row = int(np.flatnonzero(~(inserts | deletes))[0])
        raise ValueError(f"ChangeLog: op must be insert/delete or 1/-1, got {op[row]!r} at row {row}")
    return inserts


class _LogOnDevice:
    """The change log's arrays on ``xp``'s device, for one pass."""

    def __init__(self, log, xp):
        self.xp = xp
        self.keys = xp.asarray(log.keys)
        self.present = xp.asarray(log.present)
        self.weight = xp.asarray(log.weight)
        self.in_base = xp.asarray(log.in_base)
        self.unknown = np.flatnonzero(log.in_base < 0)         # host positions to learn this pass
        self.unknown_keys = xp.asarray(log.keys[self.unknown])
        self.unknown_found = xp.zeros(self.unknown.size, dtype=bool)

    def untouched(self, keys):
        """Mask of ``keys`` the log does not hold (base edges as the pieces have them)."""
        found, _ = _lookup(self.xp, self.keys, keys)
        return ~found

    def learn(self, piece):
        """Note which unknown log keys this piece holds."""
        if self.unknown.size:
            found, _ = _lookup(self.xp, piece.keys, self.unknown_keys)
            self.unknown_found |= found

    def present_edges(self):
        """``(src, dst, weight)`` of the log's edges present now."""
        keys = self.keys[self.present]
        src, dst = _key_ends(self.xp, keys)
        return src, dst, self.weight[self.present]

    def finish(self, log):
        """Write what this pass learnt back to the host log; returns the in-base
        flags of every log key (device)."""
        if self.unknown.size:
            found = _to_host(self.unknown_found)
            log.learn_base(self.unknown, found)
            self.in_base[self.xp.asarray(self.unknown)] = self.xp.asarray(found.astype(np.int8))
        return self.in_base


def _to_host(array):
    return array.get() if hasattr(array, "get") else np.asarray(array)


# ---------------------------------------------------------------------------
# the base summary: distinct out-degrees and repeated edges, computed once
# ---------------------------------------------------------------------------

@dataclass
class BaseSummary:
    """What a snapshot's certificate needs to know about the base edge list (the
    union of the pieces) that one pass over the pieces cannot tell: distinct
    out-degrees, and the edges that several pieces hold.

    Attributes
    ----------
    num_vertex_ids : int
        Vertex ids lie in ``[0, num_vertex_ids)``.
    vertices : array of bool
        Which ids the base edge list names (its vertices).
    out_degree : array of int64
        Distinct out-degree of every id in the base edge list.
    repeated_keys : array of int64
        Sorted keys of the edges held by more than one piece.
    extra_copies : array of int64
        For each repeated key: the number of pieces holding it, less one.
    edges : int
        Distinct edges of the base edge list.
    rows : int
        Rows read from the pieces (per piece distinct).
    ranges, passes : int
        Hash partitions of the sources, and passes over the pieces made.
    seconds : float
        Time taken.
    """

    num_vertex_ids: int
    vertices: object
    out_degree: object
    repeated_keys: object
    extra_copies: object
    edges: int
    rows: int
    ranges: int
    passes: int
    seconds: float

    def memory_bytes(self):
        return int(sum(a.nbytes for a in (self.vertices, self.out_degree, self.repeated_keys,
                                          self.extra_copies)))


def summarize_base(pieces, xp=np, num_vertex_ids=None, range_rows=None,
                   columns=("src", "dst", "weight")):
    """Summarise the base edge list of ``pieces`` (:class:`BaseSummary`), holding at most
    about ``range_rows`` edge keys at a time.

    The sources are split into ``ceil(rows / range_rows)`` partitions by a hash of
    their id (:func:`~cugraph_stream.datasets.rmat.mix64`, so that R-MAT's hubs and
    id ranges spread); one pass over the pieces per partition collects the keys of its
    sources, sorts them and counts each distinct edge once (its out-degree) and the
    pieces holding it (a repeated edge when more than one).  The first pass also
    marks the vertices.  Cost: one regeneration of every piece per partition.

    Parameters
    ----------
    pieces : sequence of frames
        Dicts of arrays, pandas or cuDF frames (``len()`` and ``[i]``).
    xp : module
        ``numpy`` or ``cupy``: where the arrays live.
    num_vertex_ids : int, optional
        Bound of the vertex ids; default ``pieces.num_vertex_ids``.
    range_rows : int, optional
        Keys a partition may hold; default :data:`PIECES_PER_RANGE` pieces' rows.
    columns : tuple of str
        Source, destination and weight columns of the pieces.

    Examples
    --------
    >>> import numpy as np
    >>> pieces = [{"src": np.array([0, 0, 1]), "dst": np.array([1, 2, 2]), "weight": np.ones(3)},
    ...           {"src": np.array([0, 2]), "dst": np.array([1, 0]), "weight": np.ones(2)}]
    >>> base = summarize_base(pieces, num_vertex_ids=4, range_rows=2)
    >>> base.edges, base.out_degree.tolist(), base.repeated_keys.tolist(), base.vertices.tolist()
    (4, [2, 1, 1, 0], [1], [True, True, True, False])
    """
    t0 = perf_counter()
    num_vertex_ids = int(num_vertex_ids if num_vertex_ids is not None else pieces.num_vertex_ids)
    rows = _num_rows(pieces)
    if range_rows is None:
        range_rows = PIECES_PER_RANGE * max(1, math.ceil(rows / max(1, len(pieces))))
    ranges = max(1, math.ceil(rows / int(range_rows)))
    vertices = xp.zeros(num_vertex_ids, dtype=bool)
    out_degree = xp.zeros(num_vertex_ids, dtype=xp.int64)
    repeated, extra = [], []
    rows_read = 0
    for part in range(ranges):
        chunks = []
        for i in range(len(pieces)):
            piece = read_piece(pieces, i, xp, columns)
            if part == 0:
                _check_ids(xp, piece, num_vertex_ids)
                vertices[piece.src] = True
                vertices[piece.dst] = True
                rows_read += int(piece.keys.size)
            mine = piece.keys if ranges == 1 else piece.keys[_partition(xp, piece.src, ranges) == part]
            chunks.append(mine)
            del piece
        keys, copies = _count_copies(xp, xp.concatenate(chunks) if chunks else xp.empty(0, xp.int64))
        del chunks
        out_degree += _bincount(xp, _key_ends(xp, keys)[0], num_vertex_ids).astype(xp.int64)
        several = copies > 1
        repeated.append(keys[several])
        extra.append(copies[several] - 1)
    repeated_keys = xp.concatenate(repeated)
    order = xp.argsort(repeated_keys)
    return BaseSummary(num_vertex_ids, vertices, out_degree, repeated_keys[order],
                       xp.concatenate(extra)[order], int(out_degree.sum()), rows_read, ranges, ranges,
                       perf_counter() - t0)


def _bincount(xp, index, size, weights=None):
    """``xp.bincount(index, weights, minlength=size)`` (weights summed in float64, by
    NumPy and CuPy alike), with an empty ``index`` too."""
    if index.size == 0:
        return xp.zeros(size, dtype=xp.int64 if weights is None else xp.float64)
    counts = xp.bincount(index, weights=weights, minlength=size)
    return counts if weights is None else counts.astype(xp.float64, copy=False)


def _partition(xp, src, ranges):
    """The hash partition of each source (0 to ``ranges - 1``)."""
    return (mix64(xp, src) % xp.uint64(ranges)).astype(xp.int64)


def _count_copies(xp, keys):
    """``(distinct keys, copies of each)`` of ``keys`` (sorted here)."""
    if keys.size == 0:
        return keys, xp.empty(0, dtype=xp.int64)
    keys = xp.sort(keys)
    starts = xp.ones(keys.size, dtype=bool)
    starts[1:] = keys[1:] != keys[:-1]
    first = xp.flatnonzero(starts)
    copies = xp.diff(xp.concatenate((first, xp.asarray([keys.size], dtype=first.dtype))))
    return keys[first], copies.astype(xp.int64)


def _check_ids(xp, piece, num_vertex_ids):
    if piece.keys.size and (int(piece.src.min()) < 0 or int(piece.dst.min()) < 0
                            or int(xp.maximum(piece.src.max(), piece.dst.max())) >= num_vertex_ids):
        raise ValueError(f"a piece names a vertex id outside [0, {num_vertex_ids})")


# ---------------------------------------------------------------------------
# certificates
# ---------------------------------------------------------------------------

@dataclass
class SsspCertificate:
    """The outcome of :func:`certify_sssp`.

    ``violations`` counts, per kind: ``source`` (``dist[source] != 0`` or a
    predecessor on the source), ``relaxation`` (current edges ``u -> v`` with
    ``dist[v] > dist[u] + w``: counted per edge and piece), ``predecessor_missing``
    (reached vertices but the source whose predecessor is no current edge into
    them) and ``predecessor_not_tight`` (``dist[v] != dist[pred[v]] + w``).
    ``first`` gives, per kind with violations, the smallest offending vertex.
    """

    passed: bool
    violations: dict
    first: dict
    reached: int
    edges_checked: int
    seconds: float = 0.0

    def raise_for_failure(self):
        """Raise ``AssertionError`` with :meth:`summary` unless the certificate passed."""
        if not self.passed:
            raise AssertionError(self.summary())

    def summary(self):
        if self.passed:
            return f"SSSP exact ({self.reached:,} reached, {self.edges_checked:,} edge rows checked)"
        bad = ", ".join(f"{kind} {count:,} (first vertex {self.first[kind]})"
                        for kind, count in self.violations.items() if count)
        return f"SSSP NOT exact: {bad}"


@dataclass
class PagerankCertificate:
    """The outcome of :func:`certify_pagerank`: ``residual_l1`` is ``|G x - x|_1`` for
    one power step ``G`` on the snapshot, ``error_bound`` the certified L1 distance to
    the exact PageRank, ``residual_l1 / (1 - alpha)``; ``passed`` when the residual is
    at most ``threshold`` = ``(1 + alpha) tol (1 + 1e-6) + 1e-9`` (what an L1 error of
    ``tol`` allows).  ``vertices``, ``edges`` (distinct) and ``dangling`` describe
    the snapshot; ``rank_sum`` is ``sum(x)``."""

    passed: bool
    residual_l1: float
    error_bound: float
    threshold: float
    vertices: int
    edges: int
    dangling: int
    rank_sum: float
    seconds: float = 0.0

    def raise_for_failure(self):
        """Raise ``AssertionError`` with :meth:`summary` unless the certificate passed."""
        if not self.passed:
            raise AssertionError(self.summary())

    def summary(self):
        verdict = "within tol" if self.passed else "NOT within tol"
        return (f"PageRank {verdict}: |Gx - x|_1 = {self.residual_l1:.3g} (<= {self.threshold:.3g}), "
                f"certified L1 error <= {self.error_bound:.3g}")


class _SsspCheck:
    """Bellman's conditions, accumulated edge by edge over one pass."""

    def __init__(self, xp, source, dist, pred):
        self.xp = xp
        self.source = int(source)
        dist = xp.asarray(dist)
        if dist.dtype.kind != "f":
            dist = dist.astype(xp.float64)
        self.dist = xp.where(dist >= xp.finfo(dist.dtype).max, xp.asarray(xp.inf, dtype=dist.dtype), dist)
        self.pred = xp.asarray(pred).astype(xp.int64, copy=False)
        n = int(self.dist.size)
        self.pred_found = xp.zeros(n, dtype=bool)
        self.pred_tight = xp.zeros(n, dtype=bool)
        self.relaxation = 0
        self.first_relaxation = None
        self.edges_checked = 0

    def edges(self, src, dst, weight):
        xp = self.xp
        du, dv = self.dist[src], self.dist[dst]
        through = du + weight.astype(self.dist.dtype)            # as the engine adds: in the distances' dtype
        shorter = xp.isfinite(du) & (dv > through)
        count = int(shorter.sum())
        if count:
            self.relaxation += count
            first = int(dst[shorter].min())
            self.first_relaxation = first if self.first_relaxation is None else min(first, self.first_relaxation)
        is_pred = self.pred[dst] == src
        self.pred_found[dst[is_pred]] = True
        self.pred_tight[dst[is_pred & (dv == through)]] = True
        self.edges_checked += int(src.size)

    def finish(self):
        xp = self.xp
        reached = xp.isfinite(self.dist)
        others = reached.copy()
        others[self.source] = False
        missing = others & ~self.pred_found
        loose = others & self.pred_found & ~self.pred_tight
        source_ok = bool(self.dist[self.source] == 0) and int(self.pred[self.source]) == -1
        violations = {"source": 0 if source_ok else 1, "relaxation": self.relaxation,
                      "predecessor_missing": int(missing.sum()), "predecessor_not_tight": int(loose.sum())}
        first = {"source": self.source if not source_ok else None, "relaxation": self.first_relaxation,
                 "predecessor_missing": _first(xp, missing), "predecessor_not_tight": _first(xp, loose)}
        first = {kind: vertex for kind, vertex in first.items() if vertex is not None}
        return SsspCertificate(not any(violations.values()), violations, first, int(reached.sum()),
                               self.edges_checked)


def _first(xp, mask):
    where = xp.flatnonzero(mask)
    return int(where[0]) if where.size else None


class _PagerankStep:
    """One power-iteration step ``y = G x`` over one pass, out-degrees counted distinct.

    Edges from sources whose out-degree the pass is still learning (a changed edge of
    unknown base membership) are kept aside and pushed once the pass ends."""

    def __init__(self, xp, base, log, log_device, ranks, alpha, tol):
        self.xp, self.base, self.alpha, self.tol = xp, base, float(alpha), float(tol)
        n = base.num_vertex_ids
        self.x = xp.asarray(ranks, dtype=xp.float64)
        if self.x.size != n:
            raise ValueError(f"ranks: expected {n} values (one per vertex id), got {self.x.size}")
        self.vertices = base.vertices.copy()
        if log.inserted_vertices.size:
            self.vertices[xp.asarray(log.inserted_vertices)] = True
        # out-degrees now, but for the changed edges of unknown base membership
        self.degree = base.out_degree.copy()
        known = log_device.in_base >= 0
        delta = log_device.present.astype(xp.int64) - log_device.in_base.astype(xp.int64)
        self._add_degrees(log_device.keys[known], delta[known])
        self.pending = xp.zeros(n, dtype=bool)
        self.pending[_key_ends(xp, log_device.unknown_keys)[0]] = True
        self.y = xp.zeros(n, dtype=xp.float64)
        self.share = self._shares()
        self.share[self.pending] = 0.0
        self.set_aside = []

    def _add_degrees(self, keys, delta):
        xp = self.xp
        if keys.size:
            self.degree += _bincount(xp, _key_ends(xp, keys)[0], self.degree.size,
                                     delta.astype(xp.float64)).astype(xp.int64)

    def _shares(self):
        """``x[u] / d(u)`` (0 for dangling vertices)."""
        xp = self.xp
        return xp.where(self.degree > 0, self.x / xp.maximum(self.degree, 1), 0.0)

    def _push(self, src, dst, share):
        self.y += _bincount(self.xp, dst, self.y.size, share[src])

    def edges(self, src, dst):
        """Base edges untouched by the log, as a piece holds them (repeats across pieces
        are taken back out in :meth:`finish`)."""
        waiting = self.pending[src]
        self._push(src[~waiting], dst[~waiting], self.share)
        if bool(waiting.any()):
            self.set_aside.append((src[waiting], dst[waiting]))

    def finish(self, log_device, in_base):
        xp = self.xp
        unknown = xp.asarray(log_device.unknown)
        if unknown.size:
            delta = log_device.present[unknown].astype(xp.int64) - in_base[unknown].astype(xp.int64)
            self._add_degrees(log_device.keys[unknown], delta)
        share = self._shares()
        for src, dst in self.set_aside:
            self._push(src, dst, share)
        # take back the extra copies of repeated base edges the log did not change
        untouched = log_device.untouched(self.base.repeated_keys)
        src, dst = _key_ends(xp, self.base.repeated_keys[untouched])
        self.y -= _bincount(xp, dst, self.y.size, share[src] * self.base.extra_copies[untouched])
        src, dst, _ = log_device.present_edges()
        self._push(src, dst, share)
        n = int(self.vertices.sum())
        dangling = self.vertices & (self.degree == 0)
        teleport = (self.alpha * float(self.x[dangling].sum()) + (1.0 - self.alpha)) / n
        y = self.alpha * self.y + self.vertices * teleport
        residual = float(xp.abs(y - self.x).sum())
        threshold = (1.0 + self.alpha) * self.tol * (1.0 + _RELATIVE_SLACK) + _ABSOLUTE_SLACK
        return PagerankCertificate(residual <= threshold, residual, residual / (1.0 - self.alpha), threshold,
                                   n, int(self.degree.sum()), int(dangling.sum()), float(self.x.sum()))


def certify_snapshot(pieces, log, xp=np, base=None, sssp=None, pagerank=None,
                     columns=("src", "dst", "weight"), num_vertex_ids=None):
    """Certify SSSP and PageRank results of one snapshot in a single pass over the pieces.

    Parameters
    ----------
    pieces : sequence of frames
        The base edge list, in pieces (each read once here).
    log : ChangeLog
        The batches applied since; what the pass learns about its edges is recorded
        in it.
    xp : module
        ``numpy`` or ``cupy``.
    base : BaseSummary, optional
        Needed with ``pagerank``; computed here when missing (more passes).
    sssp : tuple, optional
        ``(source, dist, pred)``: distances and predecessors over the vertex ids
        (dense, :func:`dense_column`; unreached: ``inf`` or the dtype's maximum,
        predecessor -1).  Weights must be positive.
    pagerank : tuple, optional
        ``(ranks, alpha, tol)``: ranks over the vertex ids (0 where no vertex), the
        damping factor and the L1 error the engine promises (``weighted=False``
        PageRank, uniform teleport).
    columns : tuple of str
        Source, destination and weight columns of the pieces.
    num_vertex_ids : int, optional
        Without ``base``: bound of the vertex ids (default ``pieces.num_vertex_ids``,
        or the size of ``dist``).

    Returns
    -------
    (SsspCertificate or None, PagerankCertificate or None)
    """
    t0 = perf_counter()
    if pagerank is not None and base is None:
        base = summarize_base(pieces, xp, num_vertex_ids, columns=columns)
    log_device = _LogOnDevice(log, xp)
    check = None if sssp is None else _SsspCheck(xp, *sssp)
    step = None if pagerank is None else _PagerankStep(xp, base, log, log_device, *pagerank)
    for i in range(len(pieces)):
        piece = read_piece(pieces, i, xp, columns)
        log_device.learn(piece)
        untouched = log_device.untouched(piece.keys)
        src, dst, weight = piece.src[untouched], piece.dst[untouched], piece.weight[untouched]
        del piece, untouched
        if check is not None:
            check.edges(src, dst, weight)
        if step is not None:
            step.edges(src, dst)
    in_base = log_device.finish(log)
    sssp_certificate = pagerank_certificate = None
    if check is not None:
        check.edges(*log_device.present_edges())
        sssp_certificate = check.finish()
    if step is not None:
        pagerank_certificate = step.finish(log_device, in_base)
    seconds = perf_counter() - t0
    for certificate in (sssp_certificate, pagerank_certificate):
        if certificate is not None:
            certificate.seconds = seconds
    return sssp_certificate, pagerank_certificate


def certify_sssp(pieces, log, source, dist, pred, xp=np, columns=("src", "dst", "weight")):
    """Prove SSSP distances exact on the snapshot ``pieces`` + ``log`` (one pass).

    Checks ``dist[source] == 0`` (predecessor -1); for every current edge
    ``(u, v, w)`` with finite ``dist[u]``: ``dist[v] <= dist[u] + w``; for every
    reached ``v != source``: ``(pred[v], v)`` is a current edge and ``dist[v] ==
    dist[pred[v]] + w``.  Sums are taken in the distances' dtype, as the engine
    takes them.  With weights > 0 this proves every distance the shortest (and
    every unreached vertex unreachable).

    Parameters
    ----------
    pieces : sequence of frames
    log : ChangeLog
    source : int
    dist, pred : arrays over the vertex ids (:func:`dense_column`)
        Unreached: ``inf`` or the dtype's maximum, predecessor -1.
    xp : module
        ``numpy`` or ``cupy``.
    columns : tuple of str

    Returns
    -------
    SsspCertificate
        ``passed``, the violations per kind and the first offending vertex of each.

    Examples
    --------
    >>> import numpy as np
    >>> pieces = [{"src": np.array([0, 1, 0]), "dst": np.array([1, 2, 2]), "weight": np.array([1.0, 1.0, 5.0])}]
    >>> cert = certify_sssp(pieces, ChangeLog(), 0, np.array([0.0, 1.0, 3.0]), np.array([-1, 0, 0]))
    >>> cert.passed, cert.violations["relaxation"], cert.first
    (False, 1, {'relaxation': 2, 'predecessor_not_tight': 2})
    """
    certificate, _ = certify_snapshot(pieces, log, xp, sssp=(source, dist, pred), columns=columns)
    return certificate


def certify_pagerank(pieces, log, ranks, alpha, xp=np, tol=1e-6, base=None, columns=("src", "dst", "weight"),
                     num_vertex_ids=None):
    """Certify PageRank (``weighted=False``) within ``tol`` (L1) on the snapshot
    ``pieces`` + ``log``: one power step ``y`` from ``ranks`` ``x``, with distinct
    out-degrees ``d(u)``::

        y[v] = alpha * sum_{u -> v} x[u] / d(u) + (alpha * dangling mass + 1 - alpha) / N

    over the ``N`` vertices of the snapshot (those of the pieces and of insert rows;
    deletes remove none).  An L1 error of at most ``tol`` gives ``|y - x|_1 <= (1 +
    alpha) tol``, which is checked; ``|y - x|_1 / (1 - alpha)`` bounds the error
    (Banach).  Sums in float64.

    Parameters
    ----------
    pieces : sequence of frames
    log : ChangeLog
    ranks : array over the vertex ids
        The engine's ranks, 0 where no vertex.
    alpha : float
    xp : module
    tol : float
        The L1 error the engine promises (``PageRank(tol=...)``, ``stop="error"``).
    base : BaseSummary, optional
        :func:`summarize_base` of ``pieces``: computed here when missing (passes over
        the pieces; give it to certify many snapshots).
    columns : tuple of str
    num_vertex_ids : int, optional
        Without ``base``: bound of the vertex ids (default ``pieces.num_vertex_ids``).

    Returns
    -------
    PagerankCertificate

    Examples
    --------
    >>> import numpy as np
    >>> pieces = [{"src": np.array([0, 1, 2]), "dst": np.array([1, 2, 0]), "weight": np.ones(3)}]
    >>> certify_pagerank(pieces, ChangeLog(), np.full(3, 1 / 3), 0.85, num_vertex_ids=3).passed
    True
    >>> certify_pagerank(pieces, ChangeLog(), np.array([0.5, 0.25, 0.25]), 0.85, num_vertex_ids=3).passed
    False
    """
    _, certificate = certify_snapshot(pieces, log, xp, base=base, pagerank=(ranks, alpha, tol), columns=columns,
                                      num_vertex_ids=num_vertex_ids)
    return certificate


def certify_vertices(base, log, vertex_ids, xp=np):
    """Whether a result's vertex ids are exactly the snapshot's vertices.

    Returns ``(expected, missing, extra)``: the number of vertices of the snapshot,
    how many of them ``vertex_ids`` lacks and how many ids it holds that are none.

    >>> import numpy as np
    >>> base = summarize_base([{"src": np.array([0]), "dst": np.array([2]), "weight": np.ones(1)}],
    ...                       num_vertex_ids=4)
    >>> certify_vertices(base, ChangeLog(), np.array([0, 1]))
    (2, 1, 1)
    """
    vertices = base.vertices.copy()
    if log.inserted_vertices.size:
        vertices[xp.asarray(log.inserted_vertices)] = True
    named = xp.zeros(vertices.size, dtype=bool)
    named[xp.asarray(vertex_ids).astype(xp.int64)] = True
    return int(vertices.sum()), int((vertices & ~named).sum()), int((named & ~vertices).sum())

