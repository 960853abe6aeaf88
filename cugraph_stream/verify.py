"""Independent from-scratch references to check query results against.

An edge set kept with plain NumPy from the same update rows
(:class:`EdgeSnapshot`), results computed from scratch with SciPy
(``reference_*``) and comparisons of a query's result frame with them
(:func:`check_result`): values, predecessor validity (an existing edge that
yields the vertex's value exactly) and tree shape.  Used by ``cugraph-stream
demo``, ``replay --check`` and the benchmarks; nothing here uses the engine
(query kinds are named as in :data:`cugraph_stream.queries.KINDS`).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from .queries import lookup


def to_pandas(frame):
    """A pandas DataFrame from pandas, cuDF or a dict of columns."""
    if isinstance(frame, pd.DataFrame):
        return frame
    if hasattr(frame, "to_pandas"):
        return frame.to_pandas()
    return pd.DataFrame(frame)


_SLOT_BITS = 32
_SLOT_MASK = (1 << _SLOT_BITS) - 1


class EdgeSnapshot:
    """The current edges and vertices of a graph, kept with plain NumPy.

    It follows the same rows as a :class:`~cugraph_stream.StreamGraph` and
    the same semantics (rows applied in order, inserting a present edge sets
    its weight, deleting an absent edge does nothing, vertices appear with
    the first insert row that names them, delete rows do not create
    vertices), but shares no code with the package: it is the oracle that
    results are checked against.  Apply a batch only after the graph
    accepted it.

    Vertices get stable *slots* in order of appearance; edges are packed
    slot keys in a sorted array.  :meth:`coo` gives the edges with vertices
    renumbered by *rank* (position among the sorted vertex ids), which is
    the row order of every result frame.

    Examples
    --------
    >>> import pandas as pd
    >>> s = EdgeSnapshot.from_frame(pd.DataFrame({"src": [5, 7], "dst": [7, 9]}))
    >>> s.apply(pd.DataFrame({"src": [5, 9], "dst": [7, 1], "op": ["delete", "insert"]}))
    >>> s.vertices().tolist(), s.edges().values.tolist()
    ([1, 5, 7, 9], [[7.0, 9.0, 1.0], [9.0, 1.0, 1.0]])
    """

    def __init__(self, directed=True, weight_dtype="float32"):
        self.directed = bool(directed)
        self.weight_dtype = np.dtype(weight_dtype)
        self._ids = np.empty(0, np.int64)            # external id of each slot
        self._sorted_ids = np.empty(0, np.int64)     # external ids, sorted
        self._sorted_slots = np.empty(0, np.int64)   # slot of each sorted id
        self._keys = np.empty(0, np.int64)           # sorted packed edge keys
        self._weight = np.empty(0, self.weight_dtype)
        self._table = None                           # id - min id -> slot (dense ids)

    @classmethod
    def from_frame(cls, frame, source="src", destination="dst", weight=None,
                   directed=True, weight_dtype="float32"):
        """Snapshot of ``StreamGraph.from_edgelist(frame, ...)``."""
        snap = cls(directed=directed, weight_dtype=weight_dtype)
        snap.apply(frame, source=source, destination=destination, weight=weight, op=None)
        return snap

    def copy(self):
        """An independent copy."""
        out = EdgeSnapshot(self.directed, self.weight_dtype)
        for name in ("_ids", "_sorted_ids", "_sorted_slots", "_keys", "_weight"):
            setattr(out, name, getattr(self, name).copy())
        out._table = self._table  # never modified in place, only replaced
        return out

    @property
    def num_vertices(self):
        return int(self._ids.size)

    @property
    def num_edges(self):
        return int(self._keys.size)

    def vertices(self):
        """Sorted external vertex ids (int64)."""
        return self._sorted_ids

    def _lookup(self, ids):
        """Slots of ``ids`` (-1 for unknown ids)."""
        out = np.full(ids.shape, -1, np.int64)
        known = self._sorted_ids
        if ids.size == 0 or known.size == 0:
            return out
        lo, hi = int(known[0]), int(known[-1])
        if hi - lo < 4 * known.size + (1 << 20):
            # Dense ids: one gather in a table instead of a binary search per id.
            if self._table is None:
                self._table = np.full(hi - lo + 1, -1, np.int64)
                self._table[known - lo] = self._sorted_slots
            inside = (ids >= lo) & (ids <= hi)
            out[inside] = self._table[ids[inside] - lo]
            return out
        pos = np.minimum(np.searchsorted(known, ids), known.size - 1)
        found = known[pos] == ids
        out[found] = self._sorted_slots[pos[found]]
        return out

    def _add_vertices(self, ids):
        ids = _sorted_unique(ids)
        new = ids[self._lookup(ids) < 0]
        if new.size == 0:
            return
        first = self._ids.size
        self._ids = np.concatenate([self._ids, new])
        slots = np.arange(first, first + new.size, dtype=np.int64)
        if self._sorted_ids.size == 0:
            self._sorted_ids, self._sorted_slots = new, slots
        else:
            all_ids = np.concatenate([self._sorted_ids, new])
            all_slots = np.concatenate([self._sorted_slots, slots])
            order = np.argsort(all_ids, kind="stable")
            self._sorted_ids = all_ids[order]
            self._sorted_slots = all_slots[order]
        self._table = None

    def _pack(self, s, d):
        if not self.directed:
            s, d = np.minimum(s, d), np.maximum(s, d)
        return (s << _SLOT_BITS) | d

    def apply(self, batch, source="src", destination="dst", weight=None, op="op"):
        """Apply update rows (``op=None``: all rows are inserts)."""
        batch = to_pandas(batch)
        src = batch[source].to_numpy().astype(np.int64)
        dst = batch[destination].to_numpy().astype(np.int64)
        n = src.size
        ops = np.ones(n, np.int8) if op is None else _op_codes(batch[op])
        if weight is None:
            w = np.ones(n, self.weight_dtype)
        else:
            w = batch[weight].to_numpy(dtype=np.float64, na_value=np.nan)
            w = w.astype(self.weight_dtype)
        insert = ops > 0
        self._add_vertices(np.concatenate([src[insert], dst[insert]]))
        s, d = self._lookup(src), self._lookup(dst)
        known = (s >= 0) & (d >= 0)  # delete rows naming unknown vertices do nothing
        keys = self._pack(s[known], d[known])
        ops, w = ops[known], w[known]
        # The last row of an edge decides its state.
        if bool((keys[1:] > keys[:-1]).all()):  # already sorted and unique (common)
            order, ordered = np.arange(keys.size), keys
        else:
            order = np.argsort(keys, kind="stable")
            ordered = keys[order]
        last_of_run = np.ones(keys.size, bool)
        np.not_equal(ordered[1:], ordered[:-1], out=last_of_run[:-1])
        uniq, last = ordered[last_of_run], order[last_of_run]
        last_insert = ops[last] > 0
        if self._keys.size == 0:
            self._keys = uniq[last_insert]
            self._weight = w[last[last_insert]]
            return
        # Drop every touched edge, then put back the ones inserted last.
        pos = np.searchsorted(self._keys, uniq)
        present = pos < self._keys.size
        present[present] = self._keys[pos[present]] == uniq[present]
        if present.any():
            keep = np.ones(self._keys.size, bool)
            keep[pos[present]] = False
            self._keys = self._keys[keep]
            self._weight = self._weight[keep]
        put = uniq[last_insert]
        at = np.searchsorted(self._keys, put)
        self._keys = np.insert(self._keys, at, put)
        self._weight = np.insert(self._weight, at, w[last[last_insert]])

    def _rank_of_slot(self):
        rank = np.empty(self._ids.size, np.int64)
        rank[self._sorted_slots] = np.arange(self._ids.size, dtype=np.int64)
        return rank

    def coo(self):
        """``(src, dst, weight)`` with vertices as ranks (undirected: each edge once)."""
        rank = self._rank_of_slot()
        return (rank[self._keys >> _SLOT_BITS], rank[self._keys & _SLOT_MASK],
                self._weight)

    def edges(self):
        """DataFrame ``src, dst, weight`` sorted by (src, dst), like ``StreamGraph.edges()``."""
        s = self._ids[self._keys >> _SLOT_BITS]
        d = self._ids[self._keys & _SLOT_MASK]
        if not self.directed:
            s, d = np.minimum(s, d), np.maximum(s, d)
        order = np.lexsort((d, s))
        return pd.DataFrame({"src": s[order], "dst": d[order], "weight": self._weight[order]})

    def edge_weight(self, src, dst):
        """Weights of the edges ``src -> dst`` (external ids); NaN where absent."""
        src = np.asarray(src, np.int64)
        dst = np.asarray(dst, np.int64)
        s, d = self._lookup(src), self._lookup(dst)
        out = np.full(src.shape, np.nan, np.float64)
        ok = (s >= 0) & (d >= 0)
        keys = self._pack(s[ok], d[ok])
        pos = np.minimum(np.searchsorted(self._keys, keys), max(self._keys.size - 1, 0))
        hit = np.zeros(keys.shape, bool)
        if self._keys.size:
            hit = self._keys[pos] == keys
        idx = np.flatnonzero(ok)
        out[idx[hit]] = self._weight[pos[hit]]
        return out


def _sorted_unique(values):
    """``np.unique`` by sorting (faster than hashing for large int arrays)."""
    values = np.sort(values)
    if values.size:
        keep = np.ones(values.size, bool)
        np.not_equal(values[1:], values[:-1], out=keep[1:])
        values = values[keep]
    return values


def _op_codes(column):
    """``op`` column as int8 +1/-1 (the graph validated it already)."""
    values = column.to_numpy()
    if values.dtype.kind in "iuf":
        return np.where(values.astype(np.float64) > 0, 1, -1).astype(np.int8)
    text = pd.Series(values).astype(str).str.strip().str.lower()
    out = np.where(text.isin(["insert", "1", "+1"]), 1, -1).astype(np.int8)
    return out


def symmetrize(src, dst, weight):
    """Both directions of each undirected edge (self loops once)."""
    off = src != dst
    return (np.concatenate([src, dst[off]]), np.concatenate([dst, src[off]]),
            np.concatenate([weight, weight[off]]))


def scipy_csr(src, dst, weight, n, directed=True):
    """``scipy.sparse.csr_matrix`` of the graph (rows are sources)."""
    import scipy.sparse

    if not directed:
        src, dst, weight = symmetrize(src, dst, weight)
    return scipy.sparse.csr_matrix((weight, (src, dst)), shape=(n, n))


def reference_sssp(csr, source):
    """Distances (float64, inf where unreachable) from ``source`` by Dijkstra."""
    from scipy.sparse.csgraph import dijkstra

    dist, pred = dijkstra(csr, directed=True, indices=source, return_predecessors=True)
    return {"distance": dist, "predecessor": pred}


def reference_bfs(csr, source):
    """Hop distances (int64, -1 where unreachable) by ``breadth_first_order``."""
    from scipy.sparse.csgraph import breadth_first_order

    order, pred = breadth_first_order(csr, source, directed=True, return_predecessors=True)
    return {"distance": bfs_levels(order, pred, csr.shape[0]), "predecessor": pred}


def bfs_levels(order, pred, n):
    """Depth of each vertex in a BFS tree given by ``order`` and ``pred``.

    Pointer jumping (list ranking): O(log depth) vectorized rounds.
    """
    depth = np.zeros(n, np.int64)
    anc = np.full(n, -1, np.int64)
    inner = order[1:]
    depth[inner] = 1
    anc[inner] = pred[inner]
    active = inner
    while active.size:
        up = anc[active]
        depth[active] += depth[up]
        anc[active] = anc[up]
        active = active[anc[active] >= 0]
    out = np.full(n, -1, np.int64)
    out[order] = depth[order]
    return out


def reference_wcc(csr):
    """Weakly connected component number of each vertex."""
    from scipy.sparse.csgraph import connected_components

    _, labels = connected_components(csr, directed=True, connection="weak")
    return {"component": labels}


def pagerank_operator(src, dst, n, directed=True, weight=None):
    """Transposed adjacency (CSR), 1 / out-total and dangling mask for PageRank.

    Unweighted (``weight`` None) the out-total is the out-degree; weighted
    (non-negative ``weight`` per edge) ``u -> v`` is taken with probability
    ``w(u, v) / W(u)`` (``W(u)`` the sum of the out-weights; the matrix holds
    these probabilities and the second array is 1), and ``u`` is dangling
    when ``W(u) == 0``.
    """
    import scipy.sparse

    if weight is None:
        if not directed:
            src, dst, _ = symmetrize(src, dst, np.empty(src.size, np.int8))
        at = scipy.sparse.csr_matrix((np.ones(src.size), (dst, src)), shape=(n, n))
        outdeg = np.bincount(src, minlength=n).astype(np.float64)
        dangling = outdeg == 0
        inv = np.divide(1.0, outdeg, out=np.zeros(n), where=~dangling)
        return at, inv, dangling.astype(np.float64)
    weight = np.asarray(weight, np.float64)
    if not directed:
        src, dst, weight = symmetrize(src, dst, weight)
    total = np.bincount(src, weights=weight, minlength=n).astype(np.float64)
    dangling = total == 0
    # the matrix holds w / W(u) (1 / W(u) may overflow for subnormal weights); "1 / out-total": 1
    prob = weight / np.where(dangling[src], 1.0, total[src])
    at = scipy.sparse.csr_matrix((prob, (dst, src)), shape=(n, n))
    return at, (~dangling).astype(np.float64), dangling.astype(np.float64)


def reference_pagerank(operator, alpha=0.85, tol=1e-6, x0=None, max_iter=100000, teleport=None):
    """PageRank by power iteration, NetworkX semantics, L1 error at most ``tol``.

    Teleport and dangling mass follow ``teleport`` (a non-negative vector
    over the vertices, normalised here; default uniform); the weights are
    those of ``operator`` (:func:`pagerank_operator`).  The
    iteration map is an L1 contraction by ``alpha``, so after a step that
    changed the vector by ``delta`` the error is at most
    ``alpha / (1 - alpha) * delta``; iteration stops once that bound is at
    most ``tol``.  ``x0`` warm-starts (any non-negative vector, renormalized).

    Returns a dict with ``pagerank``, ``iterations`` and ``error`` (the bound).
    """
    at, inv, dangling = operator
    n = inv.size
    if n == 0:
        return {"pagerank": np.empty(0), "iterations": 0, "error": 0.0}
    v = np.full(n, 1.0 / n) if teleport is None else np.asarray(teleport, np.float64) / np.sum(teleport)
    if x0 is None:
        x = v.copy()
    else:
        x = np.asarray(x0, np.float64).copy()
        x /= x.sum()
    factor = alpha / (1.0 - alpha)
    bound = math.inf
    it = 0
    while it < max_iter:
        it += 1
        new = at @ (x * inv)
        new *= alpha
        new += (alpha * float(dangling @ x) + (1.0 - alpha)) * v
        bound = factor * float(np.abs(new - x).sum())
        x = new
        if bound <= tol:
            break
    return {"pagerank": x, "iterations": it, "error": bound}


def reference_widest(src, dst, weight, n, source, directed=True):
    """Widest-path widths (0 where unreachable, dtype max at the source).

    Vectorized Bellman-Ford over (max, min): O(|E|) per round.
    """
    if not directed:
        src, dst, weight = symmetrize(src, dst, weight)
    top = np.finfo(weight.dtype).max if weight.dtype.kind == "f" else np.inf
    width = np.zeros(n, weight.dtype)
    width[source] = top
    while True:
        cand = np.minimum(width[src], weight)
        new = width.copy()
        np.maximum.at(new, dst, cand)
        if np.array_equal(new, width):
            return {"width": width}
        width = new


def compute_reference(kind, snapshot, source=None, alpha=0.85, tol=1e-12, weighted=False,
                      personalization=None):
    """From-scratch result of query ``kind`` (any spelling of
    :func:`cugraph_stream.queries.lookup`) on ``snapshot`` (raw arrays by rank).
    PageRank: ``weighted`` uses the edge weights; ``personalization`` is
    ``(vertices, values)`` (external ids; vertices not in the graph are left out)."""
    query = lookup(kind)
    kind = query.short_name
    src, dst, w = snapshot.coo()
    n = snapshot.num_vertices
    if kind == "pagerank":
        teleport = None
        if personalization is not None:
            vertices = snapshot.vertices()
            ids, values = (np.asarray(a) for a in personalization)
            pos = np.searchsorted(vertices, ids)
            present = (pos < n) & (vertices[np.minimum(pos, max(n - 1, 0))] == ids) if n else pos < 0
            teleport = np.zeros(n)
            np.add.at(teleport, pos[present], np.asarray(values, np.float64)[present])
        return reference_pagerank(pagerank_operator(src, dst, n, snapshot.directed,
                                                    weight=w if weighted else None),
                                  alpha=alpha, tol=tol, teleport=teleport)
    s = _rank_of(snapshot, source) if query.takes_source else None
    if kind == "widest":
        return reference_widest(src, dst, w, n, s, snapshot.directed)
    csr = scipy_csr(src, dst, w, n, snapshot.directed)
    if kind == "sssp":
        return reference_sssp(csr, s)
    if kind == "bfs":
        return reference_bfs(csr, s)
    return reference_wcc(csr)


def _rank_of(snapshot, source):
    pos = int(np.searchsorted(snapshot.vertices(), source))
    if pos >= snapshot.num_vertices or snapshot.vertices()[pos] != source:
        raise ValueError(f"source: {source} is not a vertex of the graph")
    return pos


def check_edges(edges, snapshot):
    """Compare ``StreamGraph.edges()`` (source, destination and weight columns,
    whatever the graph names them) with the snapshot; list of problems."""
    edges = edges.set_axis(["src", "dst", "weight"], axis=1)
    expected = snapshot.edges()
    if len(edges) != len(expected):
        return [f"graph has {len(edges)} edges, expected {len(expected)}"]
    for col in ("src", "dst"):
        got = edges[col].to_numpy()
        bad = got != expected[col].to_numpy()
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            return [f"edges() row {row}: ({edges.src.iloc[row]}, {edges.dst.iloc[row]}), "
                    f"expected ({expected.src.iloc[row]}, {expected.dst.iloc[row]})"]
    got = edges["weight"].to_numpy().astype(snapshot.weight_dtype)
    bad = got != expected["weight"].to_numpy()
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        return [f"edge ({edges.src.iloc[row]}, {edges.dst.iloc[row]}) has weight "
                f"{got[row]}, expected {expected.weight.iloc[row]}"]
    return []


def check_result(kind, result, snapshot, source=None, alpha=0.85, tol=1e-6,
                 reference=None, rtol=1e-5, weighted=False, personalization=None):
    """Compare a query's result frame with a from-scratch computation.

    Parameters
    ----------
    kind : {"sssp", "bfs", "widest", "wcc", "pagerank"}
        Or any other spelling of :func:`cugraph_stream.queries.lookup`.
    result : pandas.DataFrame
        ``q.result()``.
    snapshot : EdgeSnapshot
        The graph the result should describe.
    source : int, optional
        Source vertex (external id) of SSSP, BFS and widest path.
    alpha, tol : float
        PageRank parameters of the tracked query (``tol``: its bound on the L1 error).
    weighted : bool
        Whether the PageRank uses the edge weights (its ``uses_weights``).
    personalization : tuple, optional
        PageRank's ``(vertices, values)`` (its ``personalization``).
    reference : dict, optional
        Output of ``reference_*``/:func:`compute_reference` for this snapshot
        (computed here when not given).
    rtol : float
        Relative tolerance of SSSP distances against SciPy's float64 ones.

    Returns
    -------
    list of str
        Problems found (empty when the result is correct).  Values are
        compared with the reference; predecessors are checked for being
        edges of the graph that give the vertex its value exactly (in the
        weight dtype) and for forming a tree rooted at the source.
    """
    kind = lookup(kind).short_name
    if reference is None:
        reference = compute_reference(kind, snapshot, source=source, alpha=alpha,
                                      tol=tol * 1e-3, weighted=weighted, personalization=personalization)
    vertices = snapshot.vertices()
    got_v = result["vertex"].to_numpy()
    if got_v.shape != vertices.shape or not np.array_equal(got_v, vertices):
        missing = np.setdiff1d(vertices, got_v)
        extra = np.setdiff1d(got_v, vertices)
        return [f"vertex column differs from the graph's vertices: {len(got_v)} rows, "
                f"expected {len(vertices)}; missing {missing[:5].tolist()}, "
                f"extra {extra[:5].tolist()}"]
    if kind == "pagerank":
        return _check_pagerank(result, reference, tol)
    if kind == "wcc":
        return _check_wcc(result, reference, vertices)
    return _check_tree(kind, result, snapshot, vertices, source, reference, rtol)


def _first_bad(bad, vertices, got, expected, what):
    row = int(np.flatnonzero(bad)[0])
    return (f"{int(bad.sum())} vertices with a wrong {what}; first: vertex "
            f"{vertices[row]} has {got[row]}, expected {expected[row]}")


def _check_pagerank(result, reference, tol):
    got = result["pagerank"].to_numpy(np.float64)
    err = float(np.abs(got - reference["pagerank"]).sum())
    limit = tol + reference["error"] + 1e-12
    problems = []
    if not err <= limit:
        problems.append(f"L1 distance {err:.3e} to the power iteration exceeds "
                        f"tol + reference error = {limit:.3e}")
    if got.size and abs(got.sum() - 1.0) > 1e-6:
        problems.append(f"ranks sum to {got.sum()!r}, not 1")
    return problems


def _check_wcc(result, reference, vertices):
    comp = reference["component"]
    # Ranks follow sorted ids: the first rank of a component is its smallest id.
    _, first = np.unique(comp, return_index=True)
    lookup = np.empty(comp.max() + 1 if comp.size else 0, np.int64)
    lookup[np.unique(comp)] = first
    expected = vertices[lookup[comp]] if comp.size else vertices
    got = result["labels"].to_numpy()
    bad = got != expected
    return [_first_bad(bad, vertices, got, expected, "label")] if bad.any() else []


def _check_tree(kind, result, snapshot, vertices, source, reference, rtol):
    n = vertices.size
    pred = result["predecessor"].to_numpy().astype(np.int64)
    wdtype = snapshot.weight_dtype
    s = _rank_of(snapshot, source)
    problems = []
    if kind == "sssp":
        got = result["distance"].to_numpy()
        top = np.finfo(got.dtype).max
        ref = reference["distance"]
        reach = np.isfinite(ref)
        got_reach = got != top
        bad = reach != got_reach
        if bad.any():
            return [_first_bad(bad, vertices, got, ref, "reachability (distance)")]
        close = np.isclose(got[reach].astype(np.float64), ref[reach], rtol=rtol, atol=0)
        if not close.all():
            bad = np.zeros(n, bool)
            bad[np.flatnonzero(reach)[~close]] = True
            problems.append(_first_bad(bad, vertices, got, ref, "distance"))
    elif kind == "bfs":
        got = result["distance"].to_numpy().astype(np.int64)
        top = np.iinfo(result["distance"].dtype).max
        ref = reference["distance"]
        expected = np.where(ref < 0, top, ref)
        reach = ref >= 0
        bad = got != expected
        if bad.any():
            return [_first_bad(bad, vertices, got, expected, "distance")]
    else:  # widest
        got = result["width"].to_numpy()
        ref = reference["width"].astype(got.dtype)
        bad = got != ref
        if bad.any():
            return [_first_bad(bad, vertices, got, ref, "width")]
        reach = got > 0
    # Predecessors: the source and unreachable vertices have none; every other
    # reachable vertex has an in-edge that gives it its value exactly.
    if pred[s] != -1:
        problems.append(f"source {source} has predecessor {pred[s]}, expected -1")
    has_pred = pred != -1
    if kind == "widest":
        # Width-0 vertices may or may not have a predecessor (zero-weight edges).
        need = reach.copy()
        need[s] = False
        missing = need & ~has_pred
    else:
        missing = reach & ~has_pred
        missing[s] = False
        stray = ~reach & has_pred
        if stray.any():
            problems.append(_first_bad(stray, vertices, pred, np.full(n, -1), "predecessor"))
    if missing.any():
        problems.append(_first_bad(missing, vertices, pred, np.full(n, -2),
                                   "missing predecessor"))
    check = has_pred.copy()
    check[s] = False
    idx = np.flatnonzero(check)
    if idx.size == 0:
        return problems
    p_ext = pred[idx]
    w = snapshot.edge_weight(p_ext, vertices[idx])
    if np.isnan(w).any():
        bad = np.zeros(n, bool)
        bad[idx[np.isnan(w)]] = True
        problems.append(_first_bad(bad, vertices, pred, np.full(n, -1),
                                   "predecessor (not an edge into the vertex)"))
        return problems
    p_rank = np.searchsorted(vertices, p_ext)
    if kind == "sssp":
        expect = (got[p_rank].astype(wdtype) + w.astype(wdtype)).astype(wdtype)
        ok = (expect == got[idx]) & got_reach[p_rank]
    elif kind == "bfs":
        ok = got[p_rank] + 1 == got[idx]
    else:
        ok = np.minimum(got[p_rank], w.astype(got.dtype)) == got[idx]
    if not ok.all():
        bad = np.zeros(n, bool)
        bad[idx[~ok]] = True
        problems.append(_first_bad(bad, vertices, pred, np.full(n, -1),
                                   "predecessor (does not give the vertex its value)"))
        return problems
    # Tree: following predecessors from every vertex ends at the source.
    anc = np.full(n, -1, np.int64)
    anc[idx] = p_rank
    active = idx
    rounds = 0
    while active.size and rounds <= max(1, int(n).bit_length()) + 1:
        anc[active] = anc[anc[active]]
        active = active[anc[active] >= 0]
        rounds += 1
    if active.size:
        bad = np.zeros(n, bool)
        bad[active] = True
        problems.append(_first_bad(bad, vertices, pred, np.full(n, -1),
                                   "predecessor (predecessors form a cycle)"))
    return problems
