"""One benchmark run: every selected system on the same workload, batch by batch,
cross-checked on every snapshot, with per-batch, per-phase and memory figures."""

from __future__ import annotations

import math
from time import perf_counter

import numpy as np

from ..common import current_rss_bytes, gpu_pool_bytes, peak_rss_bytes, progress, write
from .crosscheck import as_reference, cross_check, describe, perturb, verify_reference
from .workload import build_workload


def run_benchmark(config, systems, *, no_progress=False, inject_fault=None, edges=None):
    """Run ``systems`` on the workload of ``config``; return the run's record.

    Parameters
    ----------
    config : dict
        ``scale``, ``edge_factor``, ``batches``, ``batch_size``,
        ``delete_fraction``, ``seed``, ``generate``, ``queries``, ``alpha``,
        ``tol``, ``contract_checks`` ("every" snapshot, or the "ends": G0 and
        the last one), ``warmup_batches`` (optional: that many batches of the
        stream are applied first, untimed and unrecorded) and ``label``.
    systems : list of System
        Fresh instances; each is built on G0 and closed at the end.
    no_progress : bool
        No progress bar.
    inject_fault : tuple (system name, kind), optional
        Make that system's result wrong on the first batch (to test that the
        cross-checks catch it).
    edges : tuple, optional
        A graph from :func:`.workload.generate_edges` for this configuration
        (sweeps generate it once for all their points).

    Returns
    -------
    dict
        ``config``, ``workload`` (sizes and times), ``source``, ``systems``
        (build figures and memory), ``batches`` (per batch: rows, each
        system's record, peak RSS, problems), ``problems`` (all of them) and
        ``checks`` (comparisons made).
    """
    kinds = list(config["queries"])
    params = {"alpha": config["alpha"], "tol": config["tol"]}
    warmup = int(config.get("warmup_batches", 0))
    workload = build_workload(config["scale"], config["edge_factor"], warmup + config["batches"],
                              config["batch_size"], config["delete_fraction"], config["seed"],
                              generate=config["generate"], edges=edges)
    figures = workload.figures
    write(f"[{config['label']}] R-MAT scale {config['scale']}: {figures['g0_edges']:,} edges and "
          f"{figures['g0_vertices']:,} vertices in G0 (generated in {figures['generate_s']:.1f} s, "
          f"stream and snapshot in {figures['stream_s']:.1f} s); {config['batches']} batches of "
          f"{config['batch_size']:,} rows; source {workload.source}")
    record = {"config": dict(config), "workload": figures, "source": workload.source,
              "systems": {}, "batches": [], "problems": [], "checks": 0}
    for system in systems:
        rss0, t0 = current_rss_bytes(), perf_counter()
        info = system.build(workload, kinds, params)
        rss1 = current_rss_bytes()
        info.update(description=system.description, is_baseline=system.is_baseline,
                    wall_s=perf_counter() - t0, memory_bytes=system.memory(),
                    rss_delta_bytes=None if rss0 is None else rss1 - rss0,
                    gpu_pool_bytes=gpu_pool_bytes())
        record["systems"][system.name] = info
        write(f"[{config['label']}] built {system.name} in {info['wall_s']:.1f} s")

    checker = _Checker(kinds, systems, params, workload.source, inject_fault)
    record["initial_problems"] = checker.check(-1, workload.snapshot0, contract=True)
    last = len(workload.batches) - 1 - warmup
    steps = progress(workload.snapshots(), len(workload.batches), config["label"], no_progress)
    for b, batch, snapshot in steps:
        b -= warmup
        if b < 0:      # a warm-up batch: applied everywhere, neither timed nor checked
            for system in systems:
                system.step(b, batch, snapshot)
            write(f"[{config['label']}] warm-up batch {b + warmup} applied (untimed)")
            continue
        row = {"batch": b, "rows": len(batch), "systems": {}}
        for system in systems:
            step = system.step(b, batch, snapshot)
            step.update(memory_bytes=system.memory(), gpu_pool_bytes=gpu_pool_bytes())
            row["systems"][system.name] = step
        row["peak_rss_bytes"] = peak_rss_bytes()
        contract = config["contract_checks"] == "every" or b == last
        row["problems"] = checker.check(b, snapshot, contract)
        record["batches"].append(row)
        write(_line(config["label"], row))
    for system in systems:
        system.close()
    record["checks"] = checker.count
    record["problems"] = record["initial_problems"] + [p for r in record["batches"] for p in r["problems"]]
    record["peak_rss_bytes"] = peak_rss_bytes()
    return record


class _Checker:
    """Cross-checks every query kind on a snapshot, choosing the reference once."""

    def __init__(self, kinds, systems, params, source, inject_fault):
        self.kinds, self.systems, self.source = kinds, systems, source
        self.alpha, self.tol = params["alpha"], params["tol"]
        self.fault = inject_fault
        self.count = 0
        # the reference: SciPy's results when SciPy runs (they are verify's references),
        # pylibcugraph's when it runs (independent of the engine and cheap at scale),
        # else computed by cugraph_stream.verify
        self.reference_system = next((s for s in systems if s.name in ("scipy", "pylibcugraph")), None)
        self.reference_name = self.reference_system.name if self.reference_system else "verify"

    def _reference(self, kind, snapshot, values):
        if self.reference_system is None:
            return verify_reference(kind, snapshot, self.source, self.alpha, self.tol)
        if self.reference_system.name == "scipy":
            return self.reference_system.reference(kind)
        return as_reference(kind, values[self.reference_system.name])

    def check(self, b, snapshot, contract):
        problems = []
        for kind in self.kinds:
            values = {s.name: s.values(kind, snapshot) for s in self.systems}
            if self.fault and b == 0 and self.fault[1] == kind and self.fault[0] in values:
                values[self.fault[0]] = perturb(kind, values[self.fault[0]])
            frames = {s.name: s.frame(kind) for s in self.systems if contract and s.has_contract}
            reference = self._reference(kind, snapshot, values)
            found = cross_check(kind, values, reference, self.reference_name, frames, snapshot,
                                self.source, self.alpha, self.tol)
            self.count += 1
            problems += [{"batch": b, "kind": kind, "systems": list(names), "message": message}
                         for names, message in found]
        for p in problems:
            write(f"    MISMATCH {describe(p)}")
        return problems


def _line(label, row):
    parts = [f"{name} {1e3 * rec['total_s']:.1f}" for name, rec in row["systems"].items()]
    check = "ok" if not row["problems"] else f"{len(row['problems'])} MISMATCHES"
    return f"[{label}] batch {row['batch']} (ms): " + ", ".join(parts) + f"; check {check}"


# ---------------------------------------------------------------------------
# summary
# ---------------------------------------------------------------------------

def _mean(values):
    values = [v for v in values if v is not None]
    return float(np.mean(values)) if values else None


def _median(values):
    values = [v for v in values if v is not None]
    return float(np.median(values)) if values else None


def summarize(record):
    """Per (query, system) and per system means, medians and speedups.

    Speedups divide a baseline's mean time by the system's, for every
    baseline system of the run (recompute modes, SciPy, pylibcugraph) and the
    NetworKit peer.
    """
    rows = record["batches"]
    names = list(record["systems"])
    baselines = [n for n in names if record["systems"][n]["is_baseline"] or n == "networkit"]
    per_query = []
    for kind in record["config"]["queries"]:
        means = {}
        for name in names:
            recs = [r["systems"][name]["queries"][kind] for r in rows]
            entry = {
                "query": kind, "system": name,
                "mean_ms": 1e3 * _mean([q["time_s"] for q in recs]),
                "median_ms": 1e3 * _median([q["time_s"] for q in recs]),
                "compute_ms": 1e3 * _mean([q["compute_s"] for q in recs]),
                "edges_read": _mean([q["edges_read"] for q in recs]),
                "host_bytes": _mean([q["host_bytes"] for q in recs]),
                "cache_hit_ratio": _mean([q["cache_hit_ratio"] for q in recs]),
                "ok": not any(p["kind"] == kind and name in p["systems"] for p in record["problems"]),
            }
            means[name] = entry["mean_ms"]
            per_query.append(entry)
        for entry in per_query[-len(names):]:
            entry["speedup"] = {base: _ratio(means[base], entry["mean_ms"]) for base in baselines
                                if base != entry["system"]}
    totals = []
    means = {}
    for name in names:
        recs = [r["systems"][name] for r in rows]
        entry = {"system": name, "mean_ms": 1e3 * _mean([s["total_s"] for s in recs]),
                 "median_ms": 1e3 * _median([s["total_s"] for s in recs]),
                 "edges_read": _mean([s.get("edges_read") for s in recs]),
                 "host_bytes": _mean([s.get("host_bytes") for s in recs]),
                 "cache_hit_ratio": _mean([s.get("cache_hit_ratio") for s in recs]),
                 "peak_memory_bytes": max((s["memory_bytes"] for s in recs if s.get("memory_bytes")),
                                          default=None),
                 "peak_gpu_pool_bytes": max((s["gpu_pool_bytes"] for s in recs
                                             if s.get("gpu_pool_bytes") is not None), default=None)}
        means[name] = entry["mean_ms"]
        totals.append(entry)
    for entry in totals:
        entry["speedup"] = {base: _ratio(means[base], entry["mean_ms"]) for base in baselines
                            if base != entry["system"]}
    return {"queries": per_query, "totals": totals, "baselines": baselines}


def _ratio(a, b):
    return a / b if a is not None and b and not math.isnan(b) else None
