"""Command line of ``python -m benchmarks.stream``."""

from __future__ import annotations

import argparse
import sys

from ..common import choice_list, positive, write
from .presets import PRESETS, preset_runs
from .report import write_run
from .run import run_benchmark
from .sweep import SWEEPS, run_sweep
from .systems import AUTO, KINDS, NAMES, PLACEMENT_SYSTEMS, make_system
from .workload import WorkloadError

#: command-line options that override a preset's value of the same name
OVERRIDES = ("scale", "edge_factor", "batches", "batch_size", "delete_fraction", "queries",
             "systems", "seed", "alpha", "tol", "cache_budget_fraction", "networkit_threads",
             "contract_checks", "generate", "sweep_batches", "warmup_batches", "label")


def _systems(text):
    if text.strip().lower() == "auto":
        return "auto"
    return choice_list(NAMES, "system(s)")(text)


def _fraction(text):
    value = float(text)
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"must be in [0, 1], got {text}")
    return value


def _numbers(text):
    try:
        return [float(x) if "." in x or "e" in x.lower() else int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated numbers, got {text!r}") from None


def _fault(text):
    system, _, kind = text.partition(":")
    if system not in NAMES or kind not in KINDS:
        raise argparse.ArgumentTypeError(f"expected SYSTEM:QUERY, got {text!r}")
    return system, kind


def parse_args(argv=None):
    presets = "; ".join(f"{name}: {p['description']}" for name, p in PRESETS.items())
    p = argparse.ArgumentParser(
        prog="python -m benchmarks.stream",
        description="Streaming benchmark: cugraph_stream, its recompute mode, SciPy, NetworKit and "
                    "pylibcugraph on the same snapshots of an R-MAT graph under Grapin's mixed "
                    "update stream, cross-checked on every snapshot. Presets: " + presets,
        epilog="Exit status: 0 when every cross-check passed, 1 on a mismatch (after writing the "
               "files), 2 when the configuration cannot run here.")
    p.add_argument("--preset", choices=sorted(PRESETS), default="cpu-small",
                   help="named configuration (default cpu-small); the options below override it")
    p.add_argument("--part", default=None,
                   help="run only this part of a preset of several runs (h100: gpu or cpu)")
    p.add_argument("--scale", type=positive(int), help="R-MAT scale (2**scale vertex ids)")
    p.add_argument("--edge-factor", type=positive(int), help="R-MAT edges drawn per vertex id")
    p.add_argument("--batches", type=positive(int), help="number of batches")
    p.add_argument("--batch-size", type=positive(int), help="rows (updates) per batch")
    p.add_argument("--warmup-batches", type=int,
                   help="batches applied before the timed ones, untimed (first uses of kernels at this size)")
    p.add_argument("--delete-fraction", type=_fraction, help="share of deletions in the stream")
    p.add_argument("--queries", type=choice_list(KINDS, "query kind(s)"),
                   help="comma-separated subset of " + ",".join(KINDS))
    p.add_argument("--systems", type=_systems,
                   help="'auto' (every system available here: " + ",".join(AUTO)
                        + ") or a comma-separated list of " + ",".join(NAMES))
    p.add_argument("--seed", type=int, help="seed of the graph and the stream")
    p.add_argument("--alpha", type=float, help="PageRank damping factor")
    p.add_argument("--tol", type=positive(float), help="PageRank L1 error bound")
    p.add_argument("--cache-budget-fraction", type=_fraction,
                   help="gpu-cached: GPU cache budget as a share of the adjacency bytes")
    p.add_argument("--networkit-threads", type=int,
                   help="NetworKit's OpenMP threads (default 1, like the other CPU systems; 0: "
                        "NetworKit's default, all cores)")
    p.add_argument("--contract-checks", choices=("every", "ends"),
                   help="check cugraph_stream's predecessors and labels on every snapshot, or on "
                        "G0 and the last one (values are compared on every snapshot either way)")
    p.add_argument("--generate", choices=("cpu", "gpu"), help="where R-MAT runs")
    p.add_argument("--sweep", choices=sorted(SWEEPS),
                   help="run the preset's sweep of batch sizes or deletion shares instead")
    p.add_argument("--sweep-values", type=_numbers, help="comma-separated values of the sweep")
    p.add_argument("--sweep-batches", type=positive(int), help="batches per sweep point")
    p.add_argument("--label", help="name of the output files (default: the preset's)")
    p.add_argument("--out", default="results/stream", help="output directory (default results/stream)")
    p.add_argument("--no-progress", action="store_true", help="no tqdm progress bar")
    # for tests: make one system's result wrong on the first batch
    p.add_argument("--inject-fault", type=_fault, default=None, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.alpha is not None and not 0.0 < args.alpha < 1.0:
        p.error(f"--alpha must be in (0, 1), got {args.alpha}")
    if args.networkit_threads is not None and args.networkit_threads < 0:
        p.error(f"--networkit-threads must be at least 0, got {args.networkit_threads}")
    try:
        args.runs = preset_runs(args.preset, args.part, sweep=args.sweep is not None)
    except ValueError as error:
        p.error(str(error))
    if args.label is not None and len(args.runs) > 1:
        p.error("--label names one run: pick one part of the preset with --part")
    for run in args.runs:
        run.update({k: getattr(args, k) for k in OVERRIDES if getattr(args, k) is not None})
    return args


def _make(name, config):
    return make_system(name, config["cache_budget_fraction"], config["networkit_threads"])


def select_systems(config):
    """``(names to run, {name: why skipped})``; raises ``SystemExit(2)`` when a
    system of the host-memory placements is asked for and cannot run here."""
    wanted = list(AUTO) if config["systems"] == "auto" else list(config["systems"])
    chosen, skipped = [], {}
    for name in wanted:
        reason = _make(name, config).unavailable()
        if reason and name in PLACEMENT_SYSTEMS:
            advice = (f"The {config['label']!r} configuration runs the placements 'host' and 'cached', "
                      "which need a GPU.")
            print(f"error: [{config['label']}] system {name!r} cannot run: {reason}.\n{advice}",
                  file=sys.stderr)
            raise SystemExit(2)
        if reason:
            skipped[name] = reason
            write(f"[{config['label']}] skipping {name}: {reason}")
        else:
            chosen.append(name)
    return chosen, skipped


def _generate(config):
    if config["generate"] == "gpu":
        from cugraph_stream.backends import available_backends

        if available_backends().get("gpu"):
            write(f"[{config['label']}] no GPU here: R-MAT runs on the CPU")
            return {**config, "generate": "cpu"}
    return config


def main(argv=None):
    args = parse_args(argv)
    failed = False
    for config in args.runs:
        names, skipped = select_systems(config)
        if not names:
            print(f"error: [{config['label']}] none of the systems {config['systems']} can run "
                  "here: " + "; ".join(f"{k}: {v}" for k, v in skipped.items()), file=sys.stderr)
            return 2
        config = _generate(config)

        def make_systems(names=names, config=config):
            return [_make(n, config) for n in names]

        try:
            if args.sweep:
                values = args.sweep_values or PRESETS[args.preset]["sweeps"][args.sweep]
                sweep, table, paths = run_sweep(args.sweep, values, config, make_systems, args.out,
                                                args.no_progress, args.inject_fault)
                failed |= any(p["problems"] for p in sweep["points"])
            else:
                record = run_benchmark(config, make_systems(), no_progress=args.no_progress,
                                       inject_fault=args.inject_fault)
                record["skipped"] = skipped
                _, table, paths = write_run(record, args.out)
                failed |= bool(record["problems"])
        except WorkloadError as error:
            print(f"error: [{config['label']}] {error}", file=sys.stderr)
            return 2
        print()
        print(table)
        print("written: " + ", ".join(paths.values()), flush=True)
    if failed:
        print("FAILED: systems disagree (see MISMATCH lines and the tables)", file=sys.stderr)
        return 1
    return 0
