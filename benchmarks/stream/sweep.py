"""Sweeps: the same systems over a range of batch sizes (Grapin's Figure 11) or
of deletion shares (its Figure 13), one run per point, one plot and one table."""

from __future__ import annotations

import json
import os

from ..common import json_default, write
from .plots import plot_sweep
from .report import environment, fmt_ms
from .run import run_benchmark, summarize
from .workload import generate_edges

SWEEPS = {
    "batch-size": {"parameter": "batch_size", "xlabel": "updates per batch",
                   "title": "median time per batch against the batch size (cf. Grapin, Figure 11)"},
    "delete-ratio": {"parameter": "delete_fraction", "xlabel": "deletions (share of the updates)",
                     "title": "median time per batch against the share of deletions (cf. Grapin, Figure 13)"},
}


def run_sweep(name, values, config, make_systems, out_dir, no_progress=False, inject_fault=None):
    """Run one benchmark per value of the swept parameter; write the sweep's files.

    Each point has ``config["sweep_batches"]`` batches on the same R-MAT graph
    (generated once); ``make_systems()`` gives fresh systems for each point.  Returns ``(sweep record, markdown,
    paths)``.
    """
    spec = SWEEPS[name]
    parameter = spec["parameter"]
    edges = generate_edges(config["scale"], config["edge_factor"], config["seed"], config["generate"])
    points = []
    for value in values:
        cfg = {**config, parameter: value, "batches": config["sweep_batches"],
               "label": f"{config['label']}-{name}-{value:g}"}
        write(f"[{config['label']}] sweep {name}: {parameter} = {value:g}")
        record = run_benchmark(cfg, make_systems(), no_progress=no_progress, inject_fault=inject_fault,
                               edges=edges)
        summary = summarize(record)
        # medians: with few batches per point, a mean is swayed by the first batch after a build
        medians = {e["system"]: {"all queries": e["median_ms"]} for e in summary["totals"]}
        for e in summary["queries"]:
            medians[e["system"]][e["query"]] = e["median_ms"]
        points.append({"value": value, "config": cfg, "medians": medians, "summary": summary,
                       "problems": record["problems"], "run": record})
    sweep = {"name": name, "parameter": parameter, "values": list(values), "points": points,
             "xlabel": spec["xlabel"], "title": f"{spec['title']}; {config['label']}, R-MAT scale "
                                                 f"{config['scale']}"}
    table = sweep_markdown(sweep)
    os.makedirs(out_dir, exist_ok=True)
    stem = os.path.join(out_dir, f"sweep-{name}-{config['label']}")
    paths = {"json": stem + ".json", "markdown": stem + ".md", "png": stem + ".png"}
    with open(paths["markdown"], "w") as f:
        f.write(table)
    plot_sweep(sweep, paths["png"])
    with open(paths["json"], "w") as f:
        json.dump({**environment(), "ok": not any(p["problems"] for p in points), "sweep": sweep,
                   "markdown": table}, f, indent=1, default=json_default)
    return sweep, table, paths


def sweep_markdown(sweep):
    """One row per (point, query): every system's median time per batch."""
    points = sweep["points"]
    names = list(points[0]["medians"])
    kinds = list(points[0]["config"]["queries"]) + ["all queries"]
    c = points[0]["config"]
    fixed = (f"batch size {c['batch_size']:,}" if sweep["parameter"] == "delete_fraction"
             else f"{c['delete_fraction']:.0%} deletions")
    lines = [f"### `benchmarks.stream` sweep `{sweep['name']}` ({c['label'].rsplit('-' + sweep['name'], 1)[0]})",
             "", (f"R-MAT scale {c['scale']}, edge factor {c['edge_factor']}, {c['batches']} batches "
                  f"per point, {fixed}, seed {c['seed']}: median time per batch (ms) of each system "
                  "(cf. Grapin, Figure " + ("11" if sweep["parameter"] == "batch_size" else "13")
                  + "); every snapshot cross-checked."), "",
             "| " + sweep["xlabel"] + " | query | " + " | ".join(names) + " | check |",
             "| ---: | --- |" + " ---: |" * len(names) + " --- |"]
    for p in points:
        value = f"{p['value']:,}" if sweep["parameter"] == "batch_size" else f"{p['value']:.0%}"
        for kind in kinds:
            bad = [q for q in p["problems"] if kind in ("all queries", q["kind"])]
            cells = [value, kind] + [fmt_ms(p["medians"][n][kind]) for n in names]
            cells.append("OK" if not bad else f"{len(bad)} MISMATCHES")
            lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"
