"""What a run leaves behind: one JSON file, a markdown table (printed and written
next to it) and PNG plots."""

from __future__ import annotations

import json
import os

from ..common import gpu_info, json_default, machine_info, versions
from .crosscheck import describe
from .plots import plot_bytes, plot_times
from .run import summarize
from .systems.networkit_dynamic import ALGORITHMS


def environment():
    """Machine, GPU and versions of every package the run imported."""
    return {"machine": machine_info(), "gpu": gpu_info(), "versions": versions()}


def fmt_ms(value):
    if value is None:
        return "-"
    return f"{value:,.1f}" if value >= 10 else f"{value:.2f}"


def fmt_count(value):
    return "-" if value is None else f"{value:,.0f}"


def fmt_bytes(value):
    if value is None:
        return "-"
    for unit, size in (("GiB", 2 ** 30), ("MiB", 2 ** 20), ("KiB", 2 ** 10)):
        if abs(value) >= size:
            return f"{value / size:,.1f} {unit}"
    return f"{value:,.0f} B"


def fmt_ratio(value):
    return "-" if value is None else f"{value:.1f}x" if value >= 1 else f"{value:.2f}x"


def describe_environment(env):
    m = env["machine"]
    parts = [f"{m['cpu']}, {m['cpu_count']} CPUs ({m['usable_cpus']} usable)"]
    if m.get("memory_bytes"):
        parts.append(f"{fmt_bytes(m['memory_bytes'])} memory")
    if m.get("load_average"):
        parts.append("load average at the end " + " / ".join(f"{x:.1f}" for x in m["load_average"]))
    gpu = env.get("gpu")
    if gpu and "name" in gpu:
        parts.append(f"GPU {gpu['name']} ({fmt_bytes(gpu['memory_bytes'])}, "
                     f"driver {gpu['driver_version']}, runtime {gpu['runtime_version']})")
    else:
        parts.append("no GPU used")
    parts.append(f"Python {m['python']}")
    parts.append(", ".join(f"{k} {v}" for k, v in env["versions"].items()))
    return "; ".join(parts)


def workload_line(record):
    c, w = record["config"], record["workload"]
    return (f"R-MAT scale {c['scale']}, edge factor {c['edge_factor']} (a=0.57, b=0.19, c=0.19; "
            f"weights uniform in [1, 64), float32), seed {c['seed']}: {w['g0_vertices']:,} vertices "
            f"and {w['g0_edges']:,} edges in G0; {c['batches']} batches of {c['batch_size']:,} rows, "
            f"{c['delete_fraction']:.0%} deletions (Grapin's protocol); queries "
            f"{', '.join(c['queries'])} (SSSP and BFS from vertex {record['source']}, the largest "
            f"out-degree; PageRank alpha {c['alpha']}, L1 tol {c['tol']:g}).")


def placement_lines(summary):
    """Issue 4's comparisons, where the run has the systems they need: cached
    against host (host bytes and mean time per batch, all queries together),
    against pylibcugraph, and the edges the incremental engine reads against
    its recompute mode."""
    totals = {e["system"]: e for e in summary["totals"]}
    host, cached = totals.get("gpu-host"), totals.get("gpu-cached")
    if not (host and cached):
        return []
    out = ["", "Out of GPU memory (all queries together, means per batch):", ""]
    if host["host_bytes"]:
        out.append(f"* host bytes, `gpu-cached` / `gpu-host`: {cached['host_bytes'] / host['host_bytes']:.0%} "
                   f"({fmt_bytes(cached['host_bytes'])} / {fmt_bytes(host['host_bytes'])})")
    out.append(f"* time, `gpu-cached` / `gpu-host`: {cached['mean_ms'] / host['mean_ms']:.2f} (means), "
               f"{cached['median_ms'] / host['median_ms']:.2f} (medians)")
    if "pylibcugraph" in cached["speedup"]:
        out.append(f"* `gpu-cached` against `pylibcugraph` (graph in GPU memory): "
                   f"{fmt_ratio(cached['speedup']['pylibcugraph'])}")
    recompute = totals.get("gpu-host-recompute")
    if recompute and recompute["edges_read"]:
        out.append(f"* edges read, `gpu-host` / `gpu-host-recompute`: "
                   f"{host['edges_read'] / recompute['edges_read']:.1%} "
                   f"({1 - host['edges_read'] / recompute['edges_read']:.0%} fewer)")
    return out


def markdown(record, summary, env):
    """The run's tables and notes as markdown."""
    names = list(record["systems"])
    baselines = summary["baselines"]
    lines = [f"### `benchmarks.stream` run `{record['config']['label']}`", "",
             workload_line(record), "", "Machine: " + describe_environment(env) + ".", ""]
    head = ["query", "system", "mean (ms)", "median (ms)", "algorithm (ms)", "edges read / batch",
            "host bytes / batch", "cache hit ratio"] + [f"vs {b}" for b in baselines] + ["check"]
    lines += ["| " + " | ".join(head) + " |",
              "| --- | --- |" + " ---: |" * (len(head) - 3) + " --- |"]
    for e in summary["queries"]:
        system = e["system"] + (" (distances only)" if e["system"] == "networkit" and e["query"] == "bfs" else "")
        cells = [e["query"], system, fmt_ms(e["mean_ms"]), fmt_ms(e["median_ms"]),
                 fmt_ms(e["compute_ms"]), fmt_count(e["edges_read"]), fmt_bytes(e["host_bytes"]),
                 "-" if e["cache_hit_ratio"] is None else f"{e['cache_hit_ratio']:.1%}"]
        cells += [fmt_ratio(e["speedup"].get(b)) for b in baselines]
        cells.append("OK" if e["ok"] else "MISMATCH")
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", "All queries together, per batch:", ""]
    head = (["system", "mean (ms)", "median (ms)", "host bytes / batch", "cache hit ratio"]
            + [f"vs {b}" for b in baselines] + ["build (s)", "memory", "peak GPU pool"])
    lines += ["| " + " | ".join(head) + " |", "| --- |" + " ---: |" * (len(head) - 1)]
    for e in summary["totals"]:
        info = record["systems"][e["system"]]
        memory = (fmt_bytes(e["peak_memory_bytes"]) + " (engine)" if e["peak_memory_bytes"]
                  else fmt_bytes(info.get("rss_delta_bytes")) + " (RSS at build)")
        cells = ([e["system"], fmt_ms(e["mean_ms"]), fmt_ms(e["median_ms"]), fmt_bytes(e["host_bytes"]),
                  "-" if e["cache_hit_ratio"] is None else f"{e['cache_hit_ratio']:.1%}"]
                 + [fmt_ratio(e["speedup"].get(b)) for b in baselines]
                 + [f"{info['wall_s']:.1f}", memory, fmt_bytes(e["peak_gpu_pool_bytes"])])
        lines.append("| " + " | ".join(cells) + " |")
    lines += placement_lines(summary)
    checks = record["checks"]
    lines += ["", "Systems:", ""]
    lines += [f"* `{n}`: {record['systems'][n]['description']}" for n in names]
    reference = ("SciPy" if "scipy" in names else "pylibcugraph" if "pylibcugraph" in names
                 else "cugraph_stream.verify")
    contract = ("every snapshot" if record["config"]["contract_checks"] == "every"
                else "G0 and the last snapshot")
    verdict = "all agree." if not record["problems"] else f"{len(record['problems'])} MISMATCHES."
    notes = [
        ("* time = what one query costs per batch: for cugraph_stream the batch's shared phases "
         "(validate, reduce, store) plus the query's own correct and compute phases; for "
         "recomputation, building the CSR / `SGGraph` from the snapshot's edge arrays plus the "
         "algorithm; for NetworKit, changing its graph plus updating the algorithm. "
         "\"algorithm\" leaves out the shared / build part. \"vs X\" = X's mean / this mean."),
        ("* edges read: `BatchReport.edges_scanned` (cugraph_stream only); host bytes: "
         "`BatchReport.host_bytes`, what the queries requested from host memory in 128-byte "
         "transactions (0 with the adjacency in device memory), per query its own reads "
         "(`QueryReport.host_bytes`), per batch also the transfers that loaded the cache; "
         "cache hit ratio: the share of the entries read that the cache served "
         "(placement \"cached\")."),
        (f"* memory: bytes the engine reports holding (peak over the batches), or the growth "
         f"of the process's resident set while the system was built; peak RSS of the whole "
         f"process: {fmt_bytes(record['peak_rss_bytes'])}."),
        (f"* checks: every system against every other and against the {reference} reference on "
         f"G0 and after each batch ({checks} query snapshots), cugraph_stream's predecessors and "
         f"labels against its contract on {contract}: {verdict}"),
    ]
    if "networkit" in names:
        notes.insert(2, f"* NetworKit: {'; '.join(f'{k}: {v}' for k, v in ALGORITHMS.items())}.")
    lines += ["", "Reading the tables:", "", *notes]
    if record.get("skipped"):
        lines += ["", "Skipped: " + "; ".join(f"`{k}` ({v})" for k, v in record["skipped"].items())]
    if record["problems"]:
        lines += ["", "Mismatches (first 20):", ""]
        lines += [f"* {describe(p)}" for p in record["problems"][:20]]
    return "\n".join(lines) + "\n"


def write_run(record, out_dir):
    """Write ``stream-<label>.json``, ``.md``, ``-time.png`` and ``-bytes.png``;
    return ``(summary, markdown, paths)``."""
    os.makedirs(out_dir, exist_ok=True)
    summary = summarize(record)
    env = environment()
    table = markdown(record, summary, env)
    stem = os.path.join(out_dir, f"stream-{record['config']['label']}")
    paths = {"json": stem + ".json", "markdown": stem + ".md", "time_png": stem + "-time.png",
             "bytes_png": stem + "-bytes.png"}
    # the data first, the plots (slow: matplotlib) last, so that a run cut short keeps its numbers
    with open(paths["markdown"], "w") as f:
        f.write(table)
    with open(paths["json"], "w") as f:
        json.dump({**env, "ok": not record["problems"], "summary": summary, "run": record,
                   "markdown": table}, f, indent=1, default=json_default)
    plot_times(record, paths["time_png"])
    plot_bytes(record, paths["bytes_png"])
    return summary, table, paths
