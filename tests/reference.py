"""From-scratch references for the cugraph_stream tests.

Everything here works on :class:`ModelGraph`, a plain-Python model of a
``StreamGraph`` written directly from ``docs/api.md``; nothing here imports the
package's internals.  The references are:

* SSSP: ``scipy.sparse.csgraph.dijkstra`` (float64), plus a pure-Python
  Dijkstra run in the weight dtype's arithmetic (exact for float32 graphs);
* BFS: ``scipy.sparse.csgraph.shortest_path(unweighted=True)``;
* WCC: ``scipy.sparse.csgraph.connected_components(connection="weak")``
  mapped to the smallest external id of each component;
* WidestPath: a pure-Python max-min Dijkstra over ``heapq``;
* PageRank: a float64 power iteration run to 1e-15 (checked against
  ``networkx.pagerank`` in the tests).

:func:`check_query` compares a tracked query with these references and checks
its predecessor tree; :func:`check_changes` checks ``q.changes()`` against the
difference of two ``result()`` snapshots; :class:`Harness` drives a graph and
its model side by side and runs every check after every operation.
"""
from __future__ import annotations

import contextlib
import heapq
import itertools
import os
import random
import signal
import threading

import numpy as np
import pandas as pd
import pyarrow as pa
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components, dijkstra, shortest_path

from cugraph_stream.engine.cache_policy import RefreshDecision, RefreshPolicy

INT32_MAX = np.iinfo(np.int32).max
# written from docs/api.md, not read from the package (tests/queries/test_kinds.py
# checks that they match cugraph_stream.queries.KINDS)
ALL_KINDS = ("SSSP", "BFS", "WidestPath", "WCC", "PageRank")
SOURCE_KINDS = ("SSSP", "BFS", "WidestPath")
VALUE_COLUMN = {"SSSP": "distance", "BFS": "distance", "WidestPath": "width",
                "WCC": "labels", "PageRank": "pagerank"}
REPORT_COUNTS = ("rows", "inserted", "deleted", "weight_updated", "unchanged",
                 "ignored", "cancelled", "new_vertices")


#: StreamGraph options of placement="cached" in the harness: a cache small
#: enough (two chunks of 2 KiB per adjacency) to evict lists every batch
CACHE_OPTIONS = {"cache_budget": 8192, "chunk_bytes": 2048}


class ScriptedRefreshPolicy(RefreshPolicy):
    """A cache refresh policy (:mod:`cugraph_stream.engine.cache_policy`) whose decisions
    follow ``kinds`` in a cycle, whatever it measures: to drive a store through every
    kind of refresh (``store.refresh_policy = ScriptedRefreshPolicy(("full", "skipped"))``)."""

    def __init__(self, kinds):
        super().__init__(host_read_bandwidth=1e9)
        self._kinds = itertools.cycle(kinds)
        self._next = None

    def decide_full(self):
        self._next = next(self._kinds)
        return RefreshDecision("full", "scripted") if self._next == "full" else None

    def decide_clear(self):
        return RefreshDecision("cleared", "scripted") if self._next == "cleared" else None

    def decide_partial(self, value_bytes):
        return RefreshDecision(self._next, "scripted")


def host(frame):
    """A pandas object from a result of any backend (cuDF frames come back to the host)."""
    return frame.to_pandas() if type(frame).__module__.split(".")[0] == "cudf" else frame


def example_budget(ci, thorough=None):
    """max_examples for a hypothesis test: ``ci`` under the default profile,
    more under ``HYPOTHESIS_PROFILE=thorough``, fewer under ``dev``."""
    prof = os.environ.get("HYPOTHESIS_PROFILE", "ci")
    if prof == "thorough":
        return thorough if thorough is not None else ci * 20
    if prof == "dev":
        return max(1, ci // 5)
    return ci


#: seconds one package call (apply / add / remove) may take inside the harness
#: before it counts as hung (a hang becomes a failure that hypothesis shrinks)
CALL_DEADLINE_S = float(os.environ.get("CUGRAPH_STREAM_TEST_CALL_DEADLINE", "30"))


class Hung(AssertionError):
    pass


@contextlib.contextmanager
def deadline(seconds=CALL_DEADLINE_S, what="package call"):
    """Fail (instead of hanging the suite) when the block runs longer than
    ``seconds``.  Uses SIGALRM, so only on POSIX in the main thread; elsewhere
    it does nothing."""
    usable = (hasattr(signal, "SIGALRM") and seconds and seconds > 0
              and threading.current_thread() is threading.main_thread())
    if not usable:
        yield
        return

    def _fire(signum, frame):
        raise Hung(f"{what} did not return within {seconds:g} s")

    old = signal.signal(signal.SIGALRM, _fire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


# --------------------------------------------------------------------- model
def parse_op(op):
    """+1 for an insert row, -1 for a delete row (as the tests generate them)."""
    if isinstance(op, str):
        low = op.lower()
        if low == "insert":
            return 1
        if low == "delete":
            return -1
        raise AssertionError(f"test generated a bad op {op!r}")
    op = int(op)
    assert op in (1, -1), op
    return op


class ModelGraph:
    """Dict-based model of a simple graph with arbitrary int64 vertex ids.

    ``edges`` maps a key -- ``(u, v)`` when directed, ``(min, max)`` when
    undirected -- to its weight, a Python float holding the weight-dtype value.
    """

    def __init__(self, directed, weight_dtype="float32"):
        self.directed = bool(directed)
        self.wdt = np.dtype(weight_dtype)
        self.vertices = set()
        self.edges = {}
        self._cache = {}

    def cached(self, key, fn):
        """Memoize a derived value until the next mutation (the methods below
        clear the cache; do not mutate ``vertices``/``edges`` directly)."""
        if key not in self._cache:
            self._cache[key] = fn()
        return self._cache[key]

    # ------------------------------------------------------------ basics
    def copy(self):
        m = ModelGraph(self.directed, self.wdt)
        m.vertices = set(self.vertices)
        m._cache = {}
        m.edges = dict(self.edges)
        return m

    def key(self, u, v):
        u, v = int(u), int(v)
        if self.directed or u <= v:
            return (u, v)
        return (v, u)

    def cast(self, w):
        return float(self.wdt.type(w))

    def has_edge(self, u, v):
        return self.key(u, v) in self.edges

    def weight(self, u, v):
        return self.edges[self.key(u, v)]

    def number_of_edges(self):
        return len(self.edges)

    def number_of_vertices(self):
        return len(self.vertices)

    def sorted_vertices(self):
        return self.cached("verts", lambda: np.array(sorted(self.vertices), dtype=np.int64))

    def edge_frame(self):
        """Expected ``g.edges()`` (weights as float64 of the weight-dtype values)."""
        keys = sorted(self.edges)
        return pd.DataFrame({
            "src": np.array([k[0] for k in keys], dtype=np.int64),
            "dst": np.array([k[1] for k in keys], dtype=np.int64),
            "weight": np.array([self.edges[k] for k in keys], dtype=np.float64),
        })

    # ------------------------------------------------------------ updates
    def apply_rows(self, rows):
        """Apply ``(src, dst, op, weight)`` rows in order; return the expected
        report counts.  ``op`` is +1/-1 (or an op string); ``weight`` None on
        an insert row means 1.0 (no weight column)."""
        self._cache.clear()
        before = {}        # key -> weight before the batch (None: absent)
        changed = set()    # keys some row changed at some point
        ignored = 0
        new_vertices = 0
        for s, d, op, w in rows:
            s, d, op = int(s), int(d), parse_op(op)
            if op == 1:
                for x in (s, d):
                    if x not in self.vertices:
                        self.vertices.add(x)
                        new_vertices += 1
                k = self.key(s, d)
                w = self.cast(1.0 if w is None else w)
                before.setdefault(k, self.edges.get(k))
                if k not in self.edges or self.edges[k] != w:
                    changed.add(k)
                self.edges[k] = w
            else:
                k = self.key(s, d)
                if k not in self.edges:   # also covers unknown vertices
                    ignored += 1
                    continue
                before.setdefault(k, self.edges[k])
                del self.edges[k]
                changed.add(k)
        counts = dict(rows=len(rows), inserted=0, deleted=0, weight_updated=0,
                      unchanged=0, ignored=ignored, cancelled=0,
                      new_vertices=new_vertices)
        for k, b in before.items():
            a = self.edges.get(k)
            if b is None and a is not None:
                counts["inserted"] += 1
            elif b is not None and a is None:
                counts["deleted"] += 1
            elif b is not None and a is not None and a != b:
                counts["weight_updated"] += 1
            elif k in changed:
                counts["cancelled"] += 1
            else:
                counts["unchanged"] += 1
        return counts

    def add_vertices(self, ids):
        self._cache.clear()
        new = 0
        for x in ids:
            x = int(x)
            if x not in self.vertices:
                self.vertices.add(x)
                new += 1
        return new

    def remove_vertices(self, ids):
        self._cache.clear()
        ids = {int(x) for x in ids}
        missing = ids - self.vertices
        if missing:
            raise KeyError(missing)
        self.vertices -= ids
        gone = [k for k in self.edges if k[0] in ids or k[1] in ids]
        for k in gone:
            del self.edges[k]
        return len(ids), len(gone)

    # ------------------------------------------------------------ arrays
    def arrays(self):
        return self.cached("arrays", self._arrays)

    def _arrays(self):
        """``(verts, src_idx, dst_idx, w)``: sorted vertex ids and the directed
        arc list (both directions for undirected non-loop edges) as indices."""
        verts = self.sorted_vertices()
        index = {int(v): i for i, v in enumerate(verts)}
        s, d, w = [], [], []
        for (u, v), wt in self.edges.items():
            s.append(index[u]); d.append(index[v]); w.append(wt)
            if not self.directed and u != v:
                s.append(index[v]); d.append(index[u]); w.append(wt)
        return (verts, np.array(s, dtype=np.int64), np.array(d, dtype=np.int64),
                np.array(w, dtype=np.float64))

    def csr(self, weights=True):
        return self.cached(("csr", weights), lambda: self._csr(weights))

    def _csr(self, weights):
        verts, s, d, w = self.arrays()
        n = len(verts)
        data = w if weights else np.ones(len(s))
        # coo -> csr keeps explicit zeros (no eliminate_zeros); the model has no
        # duplicate arcs, so nothing is summed.
        m = sp.coo_matrix((data, (s, d)), shape=(n, n)).tocsr()
        return verts, m

    def out_adjacency(self):
        return self.cached("adj", self._out_adjacency)

    def _out_adjacency(self):
        """dict vertex -> list of (neighbour, weight) over the directed arcs."""
        adj = {v: [] for v in self.vertices}
        for (u, v), wt in self.edges.items():
            adj[u].append((v, wt))
            if not self.directed and u != v:
                adj[v].append((u, wt))
        return adj


# --------------------------------------------------------------- references
_ZEROS_OK = None


def scipy_keeps_explicit_zeros():
    """True when scipy.csgraph treats explicit zero entries as edges."""
    global _ZEROS_OK
    if _ZEROS_OK is None:
        m = sp.coo_matrix((np.zeros(2), (np.array([0, 1]), np.array([1, 2]))),
                          shape=(3, 3)).tocsr()
        dist = dijkstra(m, indices=0)
        _ZEROS_OK = bool(m.nnz == 2 and np.all(dist == 0.0))
    return _ZEROS_OK


def _best_first(model, source, extend, better, start, dtype):
    """Generic label-setting search (Dijkstra for 'add', max-min for 'min').

    Returns a dict vertex -> value for the vertices reached."""
    adj = model.out_adjacency()
    val = {source: start}
    done = set()
    if better == "min":
        heap = [(start, source)]
        key = lambda x: x
    else:
        heap = [(-float(start), source)]
        key = lambda x: -float(x)
    while heap:
        _, u = heapq.heappop(heap)
        if u in done:
            continue
        done.add(u)
        for v, w in adj[u]:
            if v in done:
                continue
            cand = extend(val[u], dtype.type(w))
            if v not in val or (cand < val[v] if better == "min" else cand > val[v]):
                val[v] = cand
                heapq.heappush(heap, (key(cand), v))
    return val


def reference_sssp(model, source, exact_dtype=True):
    return model.cached(("sssp", int(source), exact_dtype),
                        lambda: _reference_sssp(model, source, exact_dtype))


def _reference_sssp(model, source, exact_dtype=True):
    """Expected SSSP distances (array in the weight dtype, sorted vertices) and
    the reachable mask.  With ``exact_dtype`` the search runs in the weight
    dtype's arithmetic (each hop rounded like ``np.float32(d) + np.float32(w)``)."""
    dt = model.wdt
    verts, m = model.csr()
    unreachable = np.finfo(dt).max
    if dt == np.float64 or not exact_dtype:
        if not scipy_keeps_explicit_zeros():
            return reference_sssp_python(model, source)
        i = int(np.searchsorted(verts, source))
        dist = dijkstra(m, directed=True, indices=i)
        reach = np.isfinite(dist)
        out = np.full(len(verts), unreachable, dtype=dt)
        out[reach] = dist[reach].astype(dt)
        return out, reach
    return reference_sssp_python(model, source)


def reference_sssp_python(model, source):
    dt = model.wdt
    val = _best_first(model, int(source), lambda a, w: dt.type(a + w), "min",
                      dt.type(0), dt)
    return _per_vertex(model, val, np.finfo(dt).max, dt)


def _per_vertex(model, val, unreached, dt):
    """``(values, reached)`` over the model's sorted vertices from a dict of reached values."""
    verts = model.sorted_vertices()
    out = np.full(len(verts), unreached, dtype=dt)
    reach = np.zeros(len(verts), dtype=bool)
    for i, v in enumerate(verts):
        if int(v) in val:
            out[i] = val[int(v)]
            reach[i] = True
    return out, reach


def reference_bfs(model, source):
    return model.cached(("bfs", int(source)), lambda: _reference_bfs(model, source))


def _reference_bfs(model, source):
    verts, m = model.csr(weights=False)
    i = int(np.searchsorted(verts, source))
    dist = shortest_path(m, directed=True, unweighted=True, indices=i)
    reach = np.isfinite(dist)
    out = np.full(len(verts), INT32_MAX, dtype=np.int32)
    out[reach] = dist[reach].astype(np.int32)
    return out, reach


def reference_widest(model, source):
    return model.cached(("widest", int(source)), lambda: _reference_widest(model, source))


def _reference_widest(model, source):
    dt = model.wdt
    top = np.finfo(dt).max
    val = _best_first(model, int(source), lambda a, w: min(a, w), "max", dt.type(top), dt)
    return _per_vertex(model, val, 0, dt)


def reference_wcc(model):
    return model.cached("wcc", lambda: _reference_wcc(model))


def _reference_wcc(model):
    verts, m = model.csr(weights=False)
    if len(verts) == 0:
        return np.zeros(0, dtype=np.int64)
    _, lab = connected_components(m, directed=True, connection="weak")
    smallest = {}
    for i, c in enumerate(lab):           # verts sorted: first seen = smallest id
        smallest.setdefault(int(c), int(verts[i]))
    return np.array([smallest[int(c)] for c in lab], dtype=np.int64)


def reference_pagerank(model, alpha=0.85, weighted=False, personalization=None):
    """See :func:`_reference_pagerank`; memoized per model state and parameters."""
    key = ("pagerank", float(alpha), bool(weighted),
           None if personalization is None else tuple(sorted(personalization.items())))
    return model.cached(key, lambda: _reference_pagerank(model, alpha, weighted, personalization))


def _teleport_vector(verts, personalization):
    """The teleport vector over ``verts``: uniform, or ``personalization`` ({vertex:
    value}) restricted to the vertices present and normalised (NetworkX's rule)."""
    n = len(verts)
    if personalization is None:
        return np.full(n, 1.0 / n)
    v = np.array([float(personalization.get(int(x), 0.0)) for x in verts])
    assert v.sum() > 0, "no personalization vertex left"
    return v / v.sum()


def _reference_pagerank(model, alpha=0.85, weighted=False, personalization=None):
    """Exact-to-1e-15 PageRank as networkx.pagerank(G, alpha, personalization,
    weight="weight" if weighted else None): self loops count as out-arcs (with their
    weight), a vertex whose out-weights sum to 0 is dangling, dangling mass and
    teleport follow the personalization (uniform without one)."""
    verts, s, d, w = model.arrays()
    n = len(verts)
    if n == 0:
        return np.zeros(0)
    w = w if weighted else np.ones(len(s))
    assert (w >= 0).all(), "weighted PageRank needs non-negative weights"
    total = np.bincount(s, weights=w, minlength=n).astype(np.float64)
    dangling = total == 0
    prob = w / np.where(total[s] > 0, total[s], 1.0)         # w / W(u) (no 1 / W: it may overflow)
    tele = _teleport_vector(verts, personalization)
    if n <= 400:
        # direct solve of (I - alpha P) x = (1 - alpha) v, P column-stochastic
        P = np.zeros((n, n))
        np.add.at(P, (d, s), prob)
        P[:, dangling] = tele[:, None]
        x = np.linalg.solve(np.eye(n) - alpha * P, (1.0 - alpha) * tele)
        return x / x.sum()
    m = sp.csr_matrix((prob, (d, s)), shape=(n, n))  # m[v, u]: probability of arc u->v
    x = tele.copy()
    for _ in range(100000):
        nxt = alpha * (m @ x + x[dangling].sum() * tele) + (1.0 - alpha) * tele
        nxt /= nxt.sum()
        diff = np.abs(nxt - x).sum()
        x = nxt
        if diff < 1e-15:
            break
    return x


def networkx_pagerank(model, alpha=0.85, weighted=False, personalization=None):
    import networkx as nx
    G = nx.DiGraph() if model.directed else nx.Graph()
    G.add_nodes_from(int(v) for v in model.vertices)
    G.add_weighted_edges_from((u, v, wt) for (u, v), wt in model.edges.items())
    if personalization is not None:       # networkx wants every key to be a vertex
        personalization = {k: val for k, val in personalization.items() if k in G}
    pr = nx.pagerank(G, alpha=alpha, personalization=personalization, weight="weight" if weighted else None,
                     tol=1e-13, max_iter=100000)
    return np.array([pr[int(v)] for v in model.sorted_vertices()])


def pagerank_params(q):
    """What the reference needs of a tracked PageRank ``q``: its effective weighting,
    personalization (a dict) and the bound on its L1 error."""
    personalization = None
    if getattr(q, "personalization", None) is not None:
        vertices, values = q.personalization
        personalization = {int(k): float(x) for k, x in zip(vertices, values)}
    return dict(alpha=q.alpha, tol=q.error_tol, weighted=q.uses_weights, personalization=personalization)


# ------------------------------------------------------------------- checks
def query_kind(q):
    """The kind of query ``q`` (its public ``kind``), one of ALL_KINDS."""
    kind = getattr(q, "kind", None)
    if kind not in ALL_KINDS:
        raise AssertionError(f"query {q!r} is of kind {kind!r}, not one of {ALL_KINDS}")
    return kind


def expected_columns(kind, wdt):
    wdt = np.dtype(wdt)
    return {
        "SSSP": [("vertex", np.int64), ("distance", wdt), ("predecessor", np.int64)],
        "BFS": [("vertex", np.int64), ("distance", np.int32), ("predecessor", np.int64)],
        "WidestPath": [("vertex", np.int64), ("width", wdt), ("predecessor", np.int64)],
        "WCC": [("vertex", np.int64), ("labels", np.int64)],
        "PageRank": [("vertex", np.int64), ("pagerank", np.float64)],
    }[kind]


def check_frame_layout(df, kind, wdt, where=""):
    assert isinstance(df, pd.DataFrame), f"{where}: result is {type(df)}"
    cols = expected_columns(kind, wdt)
    assert list(df.columns) == [c for c, _ in cols], f"{where}: columns {list(df.columns)}"
    for c, dt in cols:
        assert df[c].dtype == np.dtype(dt), f"{where}: column {c} has dtype {df[c].dtype}, expected {np.dtype(dt)}"


def _extend(kind, a, w, dt):
    """extend(value[p], w) computed elementwise in the result's dtype."""
    if kind == "SSSP":
        return (a.astype(dt) + w.astype(dt)).astype(dt)
    if kind == "BFS":
        return (a.astype(np.int64) + 1)
    return np.minimum(a.astype(dt), w.astype(dt))


def check_tree(kind, model, source, verts, val, pred, reach, dt, where=""):
    """Predecessor validity: -1 exactly for source/unreachable, otherwise an
    edge p->v of the model with value[v] == extend(value[p], w) in dtype, and
    following predecessors reaches the source without a cycle."""
    n = len(verts)
    pos = {int(v): i for i, v in enumerate(verts)}
    s_i = pos[int(source)]
    assert pred[s_i] == -1, f"{where}: source predecessor is {pred[s_i]}"
    bad_unreach = np.flatnonzero(~reach & (pred != -1))
    assert len(bad_unreach) == 0, (
        f"{where}: unreachable vertices with a predecessor: "
        f"{[(int(verts[i]), int(pred[i])) for i in bad_unreach[:5]]}")
    idx = np.flatnonzero(reach)
    idx = idx[idx != s_i]
    p_idx = np.empty(len(idx), dtype=np.int64)
    w = np.empty(len(idx), dtype=np.float64)
    for j, i in enumerate(idx):
        v, p = int(verts[i]), int(pred[i])
        assert p in pos, f"{where}: vertex {v} has predecessor {p}, not a vertex"
        assert model.has_edge(p, v), f"{where}: predecessor edge {p}->{v} is not in the graph"
        p_idx[j] = pos[p]
        w[j] = model.weight(p, v)
    if len(idx):
        assert reach[p_idx].all(), f"{where}: a reachable vertex has an unreachable predecessor"
        ext = _extend(kind, val[p_idx], w, dt)
        got = val[idx]
        ok = got == ext if kind != "BFS" else got.astype(np.int64) == ext
        if not ok.all():
            j = int(np.flatnonzero(~ok)[0])
            i = idx[j]
            raise AssertionError(
                f"{where}: value[{int(verts[i])}] = {got[j]!r} but predecessor "
                f"{int(pred[i])} gives extend({val[p_idx[j]]!r}, {w[j]!r}) = {ext[j]!r}")
    # no cycles: follow predecessors with memo
    parent = np.full(n, -1, dtype=np.int64)
    parent[idx] = p_idx
    state = np.zeros(n, dtype=np.int8)   # 0 unknown, 1 on stack, 2 reaches source
    state[s_i] = 2
    for i in idx:
        path = []
        x = int(i)
        while state[x] == 0:
            state[x] = 1
            path.append(x)
            x = int(parent[x])
            assert x >= 0, f"{where}: predecessor chain from {int(verts[i])} ends before the source"
        assert state[x] == 2, (
            f"{where}: predecessor cycle through {[int(verts[y]) for y in path[-6:]]}")
        for y in path:
            state[y] = 2


def check_fixpoint(kind, model, verts, val, reach, dt, where=""):
    """No edge u->v could improve v (independent of the reference)."""
    _, s, d, w = model.arrays()
    if len(s) == 0:
        return
    r = reach[s]
    s, d, w = s[r], d[r], w[r]
    if kind == "WidestPath":
        cand = np.minimum(val[s].astype(dt), w.astype(dt))
        bad = cand > val[d]
    elif kind == "BFS":
        cand = val[s].astype(np.int64) + 1
        bad = cand < val[d].astype(np.int64)
    else:
        cand = (val[s].astype(dt) + w.astype(dt)).astype(dt)
        bad = cand < val[d]
    if bad.any():
        j = int(np.flatnonzero(bad)[0])
        raise AssertionError(
            f"{where}: edge {int(verts[s[j]])}->{int(verts[d[j]])} (w={w[j]!r}) would improve "
            f"{int(verts[d[j]])}: {val[d[j]]!r} -> {cand[j]!r}")


def check_result(df, kind, model, source=None, alpha=0.85, tol=1e-6, where="", weighted=False,
                 personalization=None):
    """Check one result frame against the references (see module docstring)."""
    dt = model.wdt
    check_frame_layout(df, kind, dt, where)
    verts = model.sorted_vertices()
    got_v = df["vertex"].to_numpy()
    if not np.array_equal(got_v, verts):
        extra = sorted(set(got_v.tolist()) - set(verts.tolist()))[:5]
        missing = sorted(set(verts.tolist()) - set(got_v.tolist()))[:5]
        raise AssertionError(f"{where}: vertex column differs from the graph's "
                             f"(sorted? extra {extra}, missing {missing}, "
                             f"{len(got_v)} vs {len(verts)} rows)")
    col = VALUE_COLUMN[kind]
    val = df[col].to_numpy()
    if kind == "WCC":
        exp = reference_wcc(model)
        if not np.array_equal(val, exp):
            i = int(np.flatnonzero(val != exp)[0])
            raise AssertionError(f"{where}: WCC label of {int(verts[i])} is {val[i]}, expected {exp[i]}")
        return
    if kind == "PageRank":
        exp = reference_pagerank(model, alpha, weighted, personalization)
        if len(verts):
            l1 = float(np.abs(val - exp).sum())
            assert l1 <= tol + 1e-9, f"{where}: PageRank L1 error {l1:.3g} > tol {tol}"
            assert abs(float(val.sum()) - 1.0) <= 1e-9, f"{where}: PageRank sums to {val.sum()!r}"
        return
    pred = df["predecessor"].to_numpy()
    if kind == "SSSP":
        exp, reach = reference_sssp(model, source)
        if dt != np.float64:
            approx, reach64 = reference_sssp(model, source, exact_dtype=False)
            assert np.array_equal(reach, reach64)
            assert np.allclose(val[reach].astype(np.float64), approx[reach].astype(np.float64),
                               rtol=1e-5, atol=1e-6), f"{where}: SSSP far from the float64 reference"
        unreach_val = np.finfo(dt).max
    elif kind == "BFS":
        exp, reach = reference_bfs(model, source)
        unreach_val = INT32_MAX
    else:
        exp, reach = reference_widest(model, source)
        unreach_val = 0
    if not np.array_equal(val, exp):
        i = int(np.flatnonzero(val != exp)[0])
        raise AssertionError(f"{where}: {kind} {col} of vertex {int(verts[i])} is {val[i]!r}, "
                             f"expected {exp[i]!r} (source {source})")
    assert np.all(val[~reach] == unreach_val)
    check_tree(kind, model, source, verts, val, pred, reach, dt, where)
    check_fixpoint(kind, model, verts, val, reach, dt, where)


def query_params(q):
    if query_kind(q) == "PageRank":
        return dict(source=None, **pagerank_params(q))
    return dict(source=q.source, alpha=getattr(q, "alpha", 0.85), tol=getattr(q, "tol", 1e-6))


def check_query(q, model, kind=None, where="", **params):
    """Compare ``q.result()`` with the from-scratch references on ``model``."""
    kind = kind or query_kind(q)
    p = query_params(q)
    p.update(params)
    df = host(q.result())
    check_result(df, kind, model, where=where or kind, **p)
    return df


def frame_arrays(df):
    """dict column -> numpy array (one pass over the frame's columns)."""
    return {c: df[c].to_numpy() for c in df.columns}


def _changed_mask(B, A, cols):
    """Mask over rows of A (sorted vertex ids) whose row differs from B's row
    for the same vertex or whose vertex is absent from B; and the 'found' mask."""
    bv, av = B["vertex"], A["vertex"]
    order = np.argsort(bv, kind="stable")
    bv_s = bv[order]
    if len(bv_s) == 0:
        return np.ones(len(av), dtype=bool), np.zeros(len(av), dtype=bool), order, None
    pos = np.minimum(np.searchsorted(bv_s, av), len(bv_s) - 1)
    found = bv_s[pos] == av
    diff = ~found
    for c in cols:
        diff |= found & (A[c] != B[c][order][pos])
    return diff, found, order, pos


def expected_changes(before, after, kind):
    """Rows of ``after`` whose value or predecessor differ from ``before``, plus
    rows of vertices absent from ``before``.  (No merge: int64 ids must not
    pass through float64.)"""
    cols = [c for c, _ in expected_columns(kind, np.float64)][1:]
    after = after.reset_index(drop=True)
    diff, _, _, _ = _changed_mask(frame_arrays(before), frame_arrays(after), cols)
    return after[diff].reset_index(drop=True)


def check_changes(q, before, kind=None, where="", after=None):
    """``q.changes()`` must hold exactly the rows of ``q.result()`` that differ
    from ``before`` (the result captured before the last apply), new vertices
    included.

    One ambiguity is tolerated: vertex id -1 is a legal id, so a predecessor
    of -1 may mean vertex -1 before and "none" after (or the other way round)
    while the row reads the same; changes() may list such rows or not."""
    kind = kind or query_kind(q)
    if after is None:
        after = host(q.result())
    got = host(q.changes())
    assert isinstance(got, pd.DataFrame), f"{where}: changes() is {type(got)}"
    assert list(got.columns) == list(after.columns), f"{where}: changes() columns {list(got.columns)}"
    assert list(got.dtypes) == list(after.dtypes), f"{where}: changes() dtypes {list(got.dtypes)}"
    cols = [c for c, _ in expected_columns(kind, np.float64)][1:]
    A, B, Gc = frame_arrays(after), frame_arrays(before), frame_arrays(got)
    order = np.argsort(Gc["vertex"], kind="stable")
    Gc = {c: v[order] for c, v in Gc.items()}
    diff, found, border, pos = _changed_mask(B, A, cols)
    keep_exp = diff
    keep_got = np.ones(len(Gc["vertex"]), dtype=bool)
    if "predecessor" in A and pos is not None and (
            (A["vertex"] == -1).any() or (B["vertex"] == -1).any()):
        same_val = A[cols[0]] == B[cols[0]][border][pos]
        maybe = found & same_val & (A["predecessor"] == -1) & (B["predecessor"][border][pos] == -1)
        keep_exp = diff & ~maybe
        keep_got = ~np.isin(Gc["vertex"], A["vertex"][maybe])
    exp = {c: v[keep_exp] for c, v in A.items()}
    gotk = {c: v[keep_got] for c, v in Gc.items()}
    ok = len(exp["vertex"]) == len(gotk["vertex"]) and all(
        np.array_equal(exp[c], gotk[c]) for c in exp)
    if not ok:
        gv, ev = set(gotk["vertex"].tolist()), set(exp["vertex"].tolist())
        raise AssertionError(
            f"{where}: changes() differs from the result difference: "
            f"extra {sorted(gv - ev)[:8]}, missing {sorted(ev - gv)[:8]}, "
            f"{len(gotk['vertex'])} vs {len(exp['vertex'])} rows\n"
            f" got:\n{pd.DataFrame(gotk).head(10)}\n expected:\n{pd.DataFrame(exp).head(10)}")


def check_pagerank_changes(q, before, where="", after=None, threshold=None):
    """``q.changes(threshold)`` (PageRank) must hold the rows of ``q.result()`` whose rank
    moved by more than ``threshold`` (default ``q.tol``) from ``before`` (the result
    before the last apply), and the vertices absent from ``before``.  A vertex whose
    move is within 1e-12 of ``threshold`` may be listed or not (the two sides round
    their normalising sums apart)."""
    threshold = q.tol if threshold is None else threshold
    if after is None:
        after = host(q.result())
    got = host(q.changes(threshold) if threshold != q.tol else q.changes())
    assert list(got.columns) == list(after.columns), f"{where}: changes() columns {list(got.columns)}"
    assert list(got.dtypes) == list(after.dtypes), f"{where}: changes() dtypes {list(got.dtypes)}"
    vertex, rank = after["vertex"].to_numpy(), after["pagerank"].to_numpy()
    old = dict(zip(before["vertex"].tolist(), before["pagerank"].tolist()))
    move = np.array([abs(r - old[v]) if v in old else np.inf for v, r in zip(vertex.tolist(), rank)])
    sure = np.abs(move - threshold) > 1e-12
    expected = set(vertex[sure & (move > threshold)].tolist())
    listed = got["vertex"].to_numpy()
    assert np.all(listed[1:] > listed[:-1]), f"{where}: changes() not sorted by vertex"
    unsure = set(vertex[~sure].tolist())
    listed_sure = set(listed.tolist()) - unsure
    assert listed_sure == expected, (f"{where}: changes({threshold}) lists {sorted(listed_sure - expected)[:8]} "
                                     f"too many and misses {sorted(expected - listed_sure)[:8]}")
    np.testing.assert_array_equal(got["pagerank"].to_numpy(), rank[np.isin(vertex, listed)], err_msg=where)


def check_edges(g, model, where=""):
    e = host(g.edges())
    schema = g.schema
    names = [schema.source, schema.destination, schema.weight or "weight"]
    assert list(e.columns) == names, f"{where}: edges() columns {list(e.columns)}, expected {names}"
    e = e.set_axis(["src", "dst", "weight"], axis=1)
    exp = model.edge_frame()
    got = pd.DataFrame({"src": e["src"].to_numpy(np.int64), "dst": e["dst"].to_numpy(np.int64),
                        "weight": e["weight"].to_numpy().astype(np.float64)})
    if not got.equals(exp):
        gk = set(zip(got.src, got.dst)); ek = set(zip(exp.src, exp.dst))
        raise AssertionError(f"{where}: edges() differ from the model: extra {sorted(gk - ek)[:5]}, "
                             f"missing {sorted(ek - gk)[:5]}, {len(got)} vs {len(exp)}\n{got.head()}\n{exp.head()}")
    assert g.number_of_edges() == model.number_of_edges(), f"{where}: number_of_edges"
    assert g.number_of_vertices() == model.number_of_vertices(), f"{where}: number_of_vertices"
    vs = host(g.vertices())
    assert np.array_equal(vs.to_numpy(), model.sorted_vertices()), f"{where}: vertices()"


def pagerank_l1(a, b):
    return float(np.abs(a["pagerank"].to_numpy() - b["pagerank"].to_numpy()).sum())


# ------------------------------------------------------------- batch frames
def make_batch(rows, fmt="pandas", op_style="str", with_weight=True, rng=None,
               names=("src", "dst", "weight", "op")):
    """Turn ``(src, dst, op, weight)`` rows into a pandas / pyarrow / dict batch.

    op_style: "str" (random case), "int" (1/-1).  A weight of None is a null."""
    rng = rng or random.Random(0)
    sname, dname, wname, oname = names
    src = np.array([int(r[0]) for r in rows], dtype=np.int64)
    dst = np.array([int(r[1]) for r in rows], dtype=np.int64)
    ops = [parse_op(r[2]) for r in rows]
    if op_style == "str":
        def word(o):
            w = "insert" if o == 1 else "delete"
            return "".join(c.upper() if rng.random() < 0.3 else c for c in w)
        opcol = [word(o) for o in ops]
    else:
        opcol = np.array(ops, dtype=np.int64)
    wts = [r[3] for r in rows]
    cols = {sname: src, dname: dst}
    if fmt == "pandas":
        data = dict(cols)
        if with_weight:
            data[wname] = np.array([np.nan if w is None else w for w in wts], dtype=np.float64)
        data[oname] = opcol if op_style != "str" else pd.Series(opcol, dtype=object)
        return pd.DataFrame(data)
    if fmt == "arrow":
        data = {sname: pa.array(src), dname: pa.array(dst)}
        if with_weight:
            data[wname] = pa.array([None if w is None else float(w) for w in wts], pa.float64())
        data[oname] = pa.array(opcol if op_style == "str" else opcol.tolist(),
                               pa.string() if op_style == "str" else pa.int64())
        return pa.table(data)
    if fmt == "dict":
        data = dict(cols)
        if with_weight:
            data[wname] = np.array([np.nan if w is None else w for w in wts], dtype=np.float64)
        data[oname] = np.array(opcol) if op_style == "str" else opcol
        return data
    raise ValueError(fmt)


# ------------------------------------------------------------------ harness
class Harness:
    """A StreamGraph and its ModelGraph driven side by side, with every check
    run after every operation.

    ``kinds`` are tracked in each of ``modes``; ``sources`` maps a source kind
    to its source vertex (created with add_vertices before tracking).  More
    queries can be tracked (and untracked) later with :meth:`track` and
    :meth:`untrack`.  Queries of the same kind and parameters in both modes
    are compared with each other after every operation.

    With ``placement="cached"`` the cache refreshes follow ``refresh_kinds``
    in turn (a :class:`ScriptedRefreshPolicy`, :attr:`refresh_policy`, put
    on the store before every operation): the engine's own policy decides
    from timings, which would make the tests' paths depend on the machine."""

    def __init__(self, cgs, directed=True, weight_dtype="float32", backend="cpu",
                 edges=None, vertices=(), sources=None, kinds=ALL_KINDS,
                 modes=("incremental", "recompute"), alpha=0.85, tol=1e-6,
                 check_every=True, edges_fmt="pandas", placement="device", pagerank_options=None,
                 refresh_kinds=("full", "partial", "skipped", "cleared")):
        self.cgs = cgs
        self.refresh_policy = ScriptedRefreshPolicy(refresh_kinds) if placement == "cached" else None
        self.pagerank_options = dict(pagerank_options or {})     # every PageRank's (weighted=...)
        self.model = ModelGraph(directed, weight_dtype)
        # a cache so small (two chunks of 2 KiB per adjacency) that lists are evicted every batch
        memory = CACHE_OPTIONS if placement == "cached" else {}
        self.check_every = check_every
        if edges is not None and len(edges):
            df = pd.DataFrame({"src": np.array([e[0] for e in edges], dtype=np.int64),
                               "dst": np.array([e[1] for e in edges], dtype=np.int64),
                               "weight": np.array([e[2] for e in edges], dtype=np.float64)})
            if edges_fmt == "arrow":
                df = pa.Table.from_pandas(df, preserve_index=False)
            elif edges_fmt == "dict":
                df = {c: df[c].to_numpy() for c in df.columns}
            self.g = cgs.StreamGraph.from_edgelist(df, source="src", destination="dst",
                                                   weight="weight", directed=directed,
                                                   backend=backend, weight_dtype=weight_dtype,
                                                   placement=placement, **memory)
            self.model.apply_rows([(u, v, 1, w) for u, v, w in edges])
        else:
            self.g = cgs.StreamGraph(directed=directed, backend=backend, weight_dtype=weight_dtype,
                                     placement=placement, **memory)
        sources = dict(sources or {})
        extra = list(dict.fromkeys(list(vertices) + list(sources.values())))
        if extra:
            self.g.add_vertices(np.array(extra, dtype=np.int64))
            self.model.add_vertices(extra)
        self.sources = sources
        self.alpha, self.tol = alpha, tol
        self.queries = []     # (kind, mode, q)
        self.qparams = []     # dict(source=..., alpha=..., tol=...) per query
        for kind in kinds:
            for mode in modes:
                self.track(kind, mode, source=sources.get(kind), check=False)
        self.steps = 0
        self.check_all("after track")

    # ------------------------------------------------------------ queries
    def track(self, kind, mode="incremental", source=None, alpha=None, tol=None, check=True, **options):
        """Track a query of ``kind``; ``options`` go to PageRank (``weighted``,
        ``personalization``, ``stop``)."""
        cgs = self.cgs
        alpha = self.alpha if alpha is None else alpha
        tol = self.tol if tol is None else tol
        if kind == "PageRank":
            qobj = cgs.PageRank(alpha=alpha, tol=tol, mode=mode, **{**self.pagerank_options, **options})
        elif kind == "WCC":
            qobj = cgs.WCC(mode=mode)
        else:
            qobj = getattr(cgs, kind)(source=source, mode=mode)
        with deadline(what=f"track {kind}[{mode}]"):
            q = self.g.track(qobj)
        self.queries.append((kind, mode, q))
        self.qparams.append(dict(source=source, alpha=alpha, tol=tol))
        if check:
            w = f"track {kind}[{mode}] source={source}"
            check_result(host(q.result()), kind, self.model, where=w, **self.params(len(self.queries) - 1))
        return q

    def params(self, i):
        """The reference parameters of query ``i`` (PageRank: its weighting as tracked now)."""
        p = dict(self.qparams[i])
        gone = p.pop("gone", set())
        kind, _, q = self.queries[i]
        if kind == "PageRank":
            p.update(pagerank_params(q))
            if p["personalization"] is not None:    # removed vertices lose their entry for good
                p["personalization"] = {k: x for k, x in p["personalization"].items() if k not in gone}
        return p

    def untrack(self, index):
        kind, mode, q = self.queries.pop(index)
        self.qparams.pop(index)
        self.g.untrack(q)

    def tracked_sources(self):
        return {p["source"] for (k, _, _), p in zip(self.queries, self.qparams)
                if k in SOURCE_KINDS}

    def snapshot(self):
        return [host(q.result()) for _, _, q in self.queries]

    def check_all(self, where, before=None):
        g, m = self.g, self.model
        g.check_consistency()
        check_edges(g, m, where)
        groups = {}
        for i, (kind, mode, q) in enumerate(self.queries):
            p = self.params(i)
            w = f"{where}: {kind}[{mode}]" + (f" source={p['source']}" if kind in SOURCE_KINDS else "")
            df = host(q.result())
            check_result(df, kind, m, where=w, **p)
            key = (kind, p["source"] if kind in SOURCE_KINDS else None,
                   (p["alpha"], p["tol"], p["weighted"], repr(p["personalization"]))
                   if kind == "PageRank" else None)
            groups.setdefault(key, {}).setdefault(mode, df)
            if before is not None and i < len(before):
                if kind == "PageRank":
                    check_pagerank_changes(q, before[i], where=w, after=df)
                else:
                    check_changes(q, before[i], kind, where=w, after=df)
        for key, by_mode in groups.items():
            if "incremental" in by_mode and "recompute" in by_mode:
                kind = key[0]
                a, b = by_mode["incremental"], by_mode["recompute"]
                w = f"{where}: {key} incremental vs recompute"
                if kind == "PageRank":
                    assert pagerank_l1(a, b) <= 2 * key[2][1] + 1e-9, w
                else:
                    col = VALUE_COLUMN[kind]
                    assert np.array_equal(a["vertex"].to_numpy(), b["vertex"].to_numpy()), w
                    assert np.array_equal(a[col].to_numpy(), b[col].to_numpy()), w

    def _checked(self, where, fn):
        self.steps += 1
        if self.refresh_policy is not None and self.g._store.cached:
            self.g._store.refresh_policy = self.refresh_policy
        before = self.snapshot() if self.check_every else None
        with deadline(what=f"step {self.steps} ({where})"):
            rep = fn()
        self.g._store.check_cache()          # every cached list equals the store's
        if self.check_every:
            self.check_all(f"step {self.steps} ({where})", before)
        return rep

    # ------------------------------------------------------------ updates
    def apply(self, rows, fmt="pandas", op_style="str", with_weight=True, rng=None):
        """Apply rows ``(src, dst, op, weight)`` to both; check the report."""
        batch = make_batch(rows, fmt=fmt, op_style=op_style, with_weight=with_weight, rng=rng)
        if not with_weight:
            rows = [(s, d, o, None) for s, d, o, _ in rows]
        return self.apply_batch(batch, rows, source="src", destination="dst",
                                weight="weight" if with_weight else None, op="op",
                                default_weight=None if with_weight else 1.0,
                                where=f"apply {len(rows)} rows {fmt}/{op_style}")

    def apply_batch(self, batch, rows, where="apply_batch", **kw):
        """Apply a prebuilt ``batch`` (keyword arguments go to ``g.apply``) whose
        meaning is ``rows`` for the model; check the report and everything."""
        exp = self.model.apply_rows(rows)
        rep = self._checked(where, lambda: self.g.apply(batch, **kw))
        check_report_counts(rep, exp, f"step {self.steps}")
        assert len(rep.queries) == len(self.queries), (
            f"step {self.steps}: report lists {len(rep.queries)} queries, "
            f"{len(self.queries)} are tracked")
        return rep

    def add_vertices(self, ids):
        n = self.model.add_vertices(ids)
        rep = self._checked("add_vertices", lambda: self.g.add_vertices(np.array(ids, dtype=np.int64)))
        assert rep.new_vertices == n, f"add_vertices: new_vertices {rep.new_vertices} != {n}"
        return rep

    def remove_vertices(self, ids):
        for p in self.qparams:
            p.setdefault("gone", set()).update(int(x) for x in ids)
        n, _ = self.model.remove_vertices(ids)
        rep = self._checked("remove_vertices",
                            lambda: self.g.remove_vertices(np.array(ids, dtype=np.int64)))
        assert rep.removed_vertices == n, f"remove_vertices: removed_vertices {rep.removed_vertices} != {n}"
        return rep

    # ------------------------------------------------------------ state
    def state(self):
        """Everything observable, for "nothing changed" comparisons."""
        out = {"edges": host(self.g.edges()), "vertices": host(self.g.vertices()),
               "nv": self.g.number_of_vertices(), "ne": self.g.number_of_edges()}
        for i, (kind, mode, q) in enumerate(self.queries):
            out[f"result {i} {kind} {mode}"] = host(q.result())
            out[f"changes {i} {kind} {mode}"] = host(q.changes())
        return out

    def assert_state(self, before, where=""):
        after = self.state()
        for k, v in before.items():
            if isinstance(v, pd.DataFrame):
                pd.testing.assert_frame_equal(after[k], v, obj=f"{where}: {k}")
            elif isinstance(v, pd.Series):
                pd.testing.assert_series_equal(after[k], v, obj=f"{where}: {k}")
            else:
                assert after[k] == v, f"{where}: {k}: {after[k]} != {v}"
        self.g.check_consistency()


def check_report_counts(rep, exp, where=""):
    got = {k: getattr(rep, k) for k in exp}
    assert got == exp, f"{where}: report counts {got} != expected {exp}"


# ------------------------------------------------------------- generators
def random_graph_rows(rng, ids, n_edges, weights):
    return [(rng.choice(ids), rng.choice(ids), rng.choice(weights)) for _ in range(n_edges)]


def random_batch(rng, model, ids, n_rows, weights, p_delete=0.45):
    """Mixed rows: inserts of new/present edges, deletes of present and absent
    edges, insert-then-delete pairs, duplicates."""
    rows = []
    present = list(model.edges)
    while len(rows) < n_rows:
        r = rng.random()
        if r < p_delete and present:
            u, v = rng.choice(present)
            if not model.directed and rng.random() < 0.5:
                u, v = v, u
            rows.append((u, v, -1, None if rng.random() < 0.5 else rng.choice(weights)))
        elif r < p_delete + 0.05:
            rows.append((rng.choice(ids), rng.choice(ids), -1, None))
        elif r < p_delete + 0.15 and present:
            u, v = rng.choice(present)
            rows.append((u, v, 1, rng.choice(weights)))
        elif r < p_delete + 0.2:
            u, v = rng.choice(ids), rng.choice(ids)
            rows.append((u, v, 1, rng.choice(weights)))
            rows.append((u, v, -1, None))
        elif r < p_delete + 0.25 and rows:
            rows.append(rng.choice(rows))
        else:
            rows.append((rng.choice(ids), rng.choice(ids), 1, rng.choice(weights)))
    return rows[:n_rows]
