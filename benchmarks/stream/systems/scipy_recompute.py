"""SciPy recomputation from scratch on every snapshot (CPU baseline).

Each query builds its own CSR from the snapshot's edge arrays (timed: the
``csr`` phase) and runs its algorithm (the ``algo`` phase); see
:class:`benchmarks.scipy_baseline.SciPyBaseline`.  PageRank's time is the
power iteration warm-started from the previous snapshot's ranks (the cold
run, also recorded, gives the reference values and their error bound).
"""

from __future__ import annotations

from .base import System, query_record


class SciPySystem(System):
    """SciPy's ``csgraph`` routines and a sparse PageRank power iteration."""

    name = "scipy"
    description = "SciPy recomputation (csgraph; PageRank power iteration, warm-started)"
    is_baseline = True

    def build(self, workload, kinds, params):
        from ...scipy_baseline import SciPyBaseline

        self._baselines = {
            kind: SciPyBaseline(kind, workload.source if kind in ("sssp", "bfs") else None,
                                params["alpha"], params["tol"])
            for kind in kinds}
        self._run(workload.snapshot0)
        return {"initial_s": {k: r["baseline_s"] for k, r in self._last.items()}}

    def _run(self, snapshot):
        self._last = {kind: base.run(snapshot) for kind, base in self._baselines.items()}

    def step(self, b, batch, snapshot):
        self._run(snapshot)
        queries = {}
        for kind, out in self._last.items():
            phases = {"csr": out["csr_s"], "algo": out["algo_s"]}
            compute_s, extra = out["algo_s"], {}
            if "iterations" in out:
                extra["iterations"] = out["iterations"]
            if "warm_s" in out:  # PageRank: time the warm start, keep the cold run's figures
                phases["algo"] = compute_s = out["warm_algo_s"]
                extra.update(cold_algo_s=out["algo_s"], iterations=out["warm_iterations"],
                             cold_iterations=out["iterations"])
            queries[kind] = query_record(out["csr_s"] + compute_s, compute_s, phases, **extra)
        total = sum(q["time_s"] for q in queries.values())
        return {"total_s": total, "phases": {}, "queries": queries}

    def reference(self, kind):
        """The result in :mod:`cugraph_stream.verify`'s reference format."""
        return self._last[kind]["reference"]

    def values(self, kind, snapshot):
        ref = self.reference(kind)
        if kind == "wcc":
            return {"labels": ref["component"]}
        if kind == "pagerank":
            return {"pagerank": ref["pagerank"], "error": float(ref["error"])}
        return {"distance": ref["distance"]}

    def close(self):
        self._baselines, self._last = {}, {}
