"""NetworKit's dynamic algorithms, the CPU peer, fed the same batches.

One NetworKit graph per query, holding every vertex of the workload's
universe from the start (its ids are ranks in ``workload.universe``; vertices
not born yet are isolated, which changes no distance or component, and
PageRank is renormalised over the current vertices, which gives exactly the
PageRank of the current graph):

* SSSP: ``DynDijkstra`` on a weighted graph: the graph is changed first with
  ``GraphUpdater`` (timed: ``graph``), then ``updateBatch`` (timed: ``algo``);
* BFS: ``DynBFS`` the same way on an unweighted graph.  Only distances are
  compared: its predecessors are left stale after updates;
* WCC: ``DynWeaklyConnectedComponents`` (directed graph), fed event by event
  (graph change then ``update``), since ``updateBatch`` fails on mixed
  batches; the loop over events is Python calling NetworKit (timed whole);
* PageRank: NetworKit has no dynamic PageRank: the graph is updated and a
  static ``PageRank`` (sinks distributed, L1 norm) runs on every snapshot.

Events (``GraphEvent`` objects) are built in a Python loop before the timed
region.  NetworKit runs on ``threads`` OpenMP threads (default 1, as the
other CPU systems run on one core; 0 keeps NetworKit's default, all cores):
on a loaded 2-core VM its PageRank took 4-5 times longer on 2 threads than on 1.
"""

from __future__ import annotations

from time import perf_counter

import numpy as np

from .base import System, query_record

#: what each query runs, for tables
ALGORITHMS = {
    "sssp": "DynDijkstra",
    "bfs": "DynBFS (distances only: its predecessors go stale)",
    "wcc": "DynWeaklyConnectedComponents, event by event",
    "pagerank": "static PageRank per snapshot (no dynamic PageRank)",
}

# getDistances() marks unreachable vertices with the largest double
_UNREACHABLE = 1e300


class NetworKitSystem(System):
    """NetworKit 11: ``DynDijkstra``, ``DynBFS``, ``DynWeaklyConnectedComponents``,
    static ``PageRank``."""

    name = "networkit"

    def __init__(self, threads=1):
        self.requested_threads = int(threads)
        self.description = "NetworKit dynamic algorithms (" + "; ".join(
            f"{k}: {v}" for k, v in ALGORITHMS.items()) + ")"

    @classmethod
    def unavailable_reason(cls):
        try:
            import networkit  # noqa: F401
        except ImportError as error:
            return (f"networkit is not installed ({error}); `pip install networkit` "
                    "(wheels for CPython 3.10-3.12 on Linux x86-64)")
        return None

    def build(self, workload, kinds, params):
        self.require_available()
        import networkit as nk

        self.nk = nk
        if self.requested_threads > 0:
            nk.setNumberOfThreads(self.requested_threads)
        self.alpha = params["alpha"]
        # NetworKit stops once the L1 change of an iteration is at most its tol; the
        # error is then at most alpha / (1 - alpha) times that: ask for tol overall.
        self.nk_tol = params["tol"] * (1.0 - self.alpha) / self.alpha
        self.tol = params["tol"]
        self.universe = workload.universe
        self.threads = nk.getMaxNumberOfThreads()
        self.description += f", {self.threads} thread{'s' if self.threads > 1 else ''}"
        initial = workload.stream.initial
        u, v = self._ids(initial["src"]), self._ids(initial["dst"])
        w = initial["weight"].to_numpy(np.float64)
        n = int(self.universe.size)
        source = int(np.searchsorted(self.universe, workload.source))
        self.graphs, self.algos, self.updaters = {}, {}, {}
        build_s = {}
        for kind in kinds:
            t0 = perf_counter()
            weighted = kind == "sssp"
            g = nk.Graph(n, weighted=weighted, directed=True)
            g.addEdges((w, (u, v)) if weighted else (u, v))
            if kind == "sssp":
                algo = nk.distance.DynDijkstra(g, source)
            elif kind == "bfs":
                algo = nk.distance.DynBFS(g, source)
            elif kind == "wcc":
                algo = nk.components.DynWeaklyConnectedComponents(g)
            else:
                algo = None
            if algo is not None:
                algo.run()
            self.graphs[kind], self.algos[kind] = g, algo
            self.updaters[kind] = nk.dynamics.GraphUpdater(g)
            if kind == "pagerank":
                self._pagerank()
            build_s[kind] = perf_counter() - t0
        return {"build_s": build_s, "threads": self.threads}

    def _ids(self, column):
        return np.searchsorted(self.universe, column.to_numpy()).astype(np.int64)

    def _events(self, batch, weighted):
        """The batch as NetworKit graph events (a Python loop, outside the timed region)."""
        nk = self.nk
        kinds = nk.dynamics.GraphEventType
        add, remove = kinds.EDGE_ADDITION, kinds.EDGE_REMOVAL
        event = nk.dynamics.GraphEvent
        u, v = self._ids(batch["src"]).tolist(), self._ids(batch["dst"]).tolist()
        w = batch["weight"].to_numpy(np.float64) if weighted else np.ones(len(batch))
        ops = batch["op"].to_numpy()
        return [event(add, a, c, x) if o > 0 else event(remove, a, c, 0.0)
                for a, c, x, o in zip(u, v, w.tolist(), ops.tolist())]

    def _pagerank(self):
        nk = self.nk
        pr = nk.centrality.PageRank(self.graphs["pagerank"], self.alpha, self.nk_tol, False,
                                    nk.centrality.SinkHandling.DistributeSinks)
        pr.norm = nk.centrality.Norm.L1_NORM
        pr.run()
        self.algos["pagerank"] = pr
        return pr.numberOfIterations()

    def step(self, b, batch, snapshot):
        queries = {}
        for kind in self.graphs:
            events = self._events(batch, weighted=kind == "sssp")
            updater, algo = self.updaters[kind], self.algos[kind]
            if kind == "wcc":
                singles = [[e] for e in events]
                t0 = perf_counter()
                for e, single in zip(events, singles):
                    updater.update(single)
                    algo.update(e)
                t = perf_counter() - t0
                queries[kind] = query_record(t, t, {"events": t})
                continue
            t0 = perf_counter()
            updater.update(events)
            t1 = perf_counter()
            if kind == "pagerank":
                iterations = self._pagerank()
            else:
                algo.updateBatch(events)
            t2 = perf_counter()
            extra = {"iterations": iterations} if kind == "pagerank" else {}
            queries[kind] = query_record(t2 - t0, t2 - t1, {"graph": t1 - t0, "algo": t2 - t1}, **extra)
        total = sum(q["time_s"] for q in queries.values())
        return {"total_s": total, "phases": {}, "queries": queries}

    def values(self, kind, snapshot):
        rows = np.searchsorted(self.universe, snapshot.vertices())
        algo = self.algos[kind]
        if kind in ("sssp", "bfs"):
            # getDistances(asarray=True) is a view of NetworKit's memory: copy it
            d = np.array(algo.getDistances(asarray=True), dtype=np.float64, copy=True)[rows]
            if kind == "sssp":
                return {"distance": np.where(d >= _UNREACHABLE, np.inf, d)}
            return {"distance": np.where(d >= _UNREACHABLE, -1, d).astype(np.int64)}
        if kind == "wcc":
            return {"labels": np.asarray(algo.getPartition().getVector(), dtype=np.int64)[rows]}
        x = np.asarray(algo.scores(), dtype=np.float64)[rows]
        mass = float(x.sum())
        # exact up to tol on the universe; restricting and renormalising at most
        # doubles the L1 error, divided by the mass kept
        return {"pagerank": x / mass, "error": 2.0 * self.tol / mass}

    def close(self):
        self.graphs, self.algos, self.updaters = {}, {}, {}
