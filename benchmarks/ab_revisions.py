"""Code changes, measured where small effects show: this tree against another
revision of the package, in one process, batch by batch.

    python -m benchmarks.ab_revisions --base 3ccfd98 --scale 22 --rows 1 --batches 3000
    python -m benchmarks.ab_revisions --base HEAD~1 --scale 22 --rows 10000 --batches 60
    python -m benchmarks.ab_revisions --base HEAD --backend cpu --scale 16 --rows 1 --batches 2000

Why.  Runs of the same code on the lent GPU machines differ by 10-30% on one
machine and up to 2x between machines, so a change worth a few percent of a
batch cannot be told from comparing two runs (on 2026-11-28 two such runs of
one code gave one-row medians of 0.96 and 1.59 ms).  ``benchmarks.ab_constants``
alternates settings of constants; this script alternates code: the base
revision's package and this tree's run side by side in the process, each on
a graph of its own built from the same G0, and batch ``i`` of the stream is
applied to both graphs, the base's first for even ``i``, this tree's first for
odd ``i`` (each apply timed with the device synchronised before and after).
Both sides see the same batches at the same moments of the machine.

Base.  ``git archive REV cugraph_stream kernels`` of the repository holding
this script, unpacked into a temporary directory with the package renamed
``cgs_base`` (its ``kernels/`` beside it, where ``cuda_kernels`` looks); or,
on a machine without the repository (the lent GPU machines get a copy of the
working tree, not its history), ``--base-tree DIR``: a directory holding the
base's ``cugraph_stream/`` and ``kernels/``, unpacked beforehand, e.g.
``mkdir 3ccfd98 && git archive 3ccfd98 cugraph_stream kernels | tar -x -C 3ccfd98``
(the output names the base by the directory).
Revisions before the package named its backend modules relatively (2026-11-28)
import them as ``cugraph_stream.backends...``; the copy's
``backends/__init__.py`` is rewritten to name its own (the only absolute
self-reference a batch runs).  Each side warms its own kernels up on the GPU.

Workload: ``benchmarks.ab_constants``' (``benchmarks.gpu_vs_pylibcugraph``'s
R-MAT graph, stream and source; ``--rows 1``: single rows as pandas frames,
else batches of device columns, cuDF frames where cuDF is installed).
``--warmup`` batches run first and are not timed.  The queries run in
``mode="incremental"``.  ``--between-ms`` runs that long of other host work
(``benchmarks.common.OtherWork``) before every apply of either side: each
side's batches then run with their code and data out of the CPU's caches,
as amid a pipeline's other code (without it, each side's batch follows the
other side's, half warm).

Check.  After the last batch both sides' values must be equal, and equal to a
recomputation (this tree, ``mode="recompute"``), PageRank's within its error
bounds (``benchmarks.ab_constants.agree``); otherwise the script exits with
status 1.  It exits with status 2 when it cannot run (no GPU, no git, an
unknown revision, more rows than the graph has).

Output: per query and side the batches timed, the median, p90, p99 and mean
apply time, the mean syncs and launches, and this tree's median and mean
against the base's; ``--out`` writes them as JSON.
"""
from __future__ import annotations

import argparse
import importlib
import io
import json
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

import numpy as np

from .ab_constants import add_workload_arguments, agree, check_queries, timing_figures, values_of, workload
from .common import OtherWork, json_default, machine_info, make_query, timed

#: the name the base revision's package is imported under
BASE_PACKAGE = "cgs_base"


class CannotRun(Exception):
    """The comparison cannot run here (exit status 2)."""


def extract_base(revision, into):
    """Unpack ``revision``'s ``cugraph_stream/`` (as :data:`BASE_PACKAGE`) and
    ``kernels/`` from this script's repository into directory ``into``."""
    repository = Path(__file__).resolve().parents[1]
    try:
        archive = subprocess.run(["git", "archive", "--format=tar", revision, "cugraph_stream", "kernels"],
                                 cwd=repository, capture_output=True, check=True).stdout
    except FileNotFoundError:
        raise CannotRun("git is not installed") from None
    except subprocess.CalledProcessError as error:
        raise CannotRun(f"git archive {revision}: {error.stderr.decode(errors='replace').strip()}") from None
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    _rename_base(into)


def copy_base(tree, into):
    """Copy ``tree``'s ``cugraph_stream/`` (as :data:`BASE_PACKAGE`) and ``kernels/`` into ``into``."""
    for part in ("cugraph_stream", "kernels"):
        if not (Path(tree) / part).is_dir():
            raise CannotRun(f"{tree} holds no {part}/")
        shutil.copytree(Path(tree) / part, Path(into) / part, ignore=shutil.ignore_patterns("__pycache__"))
    _rename_base(into)


def _rename_base(into):
    package = Path(into) / BASE_PACKAGE
    (Path(into) / "cugraph_stream").rename(package)
    backends = package / "backends" / "__init__.py"
    backends.write_text(backends.read_text().replace('"cugraph_stream.backends.', f'"{BASE_PACKAGE}.backends.'))


def import_base(into):
    """The base package unpacked in ``into`` (a fresh import: a package of that
    name imported before, from another directory, is dropped first)."""
    for name in [name for name in sys.modules if name == BASE_PACKAGE or name.startswith(BASE_PACKAGE + ".")]:
        del sys.modules[name]
    sys.path.insert(0, str(into))
    try:
        return importlib.import_module(BASE_PACKAGE)
    finally:
        sys.path.remove(str(into))


def parse_args(argv=None):
    ap = argparse.ArgumentParser(prog="python -m benchmarks.ab_revisions", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    base = ap.add_mutually_exclusive_group(required=True)
    base.add_argument("--base", help="the git revision to compare this tree with (HEAD, HEAD~2, a hash)")
    base.add_argument("--base-tree", help="or a directory holding the base's cugraph_stream/ and kernels/")
    add_workload_arguments(ap, "timed batches (each applied on both sides)",
                           "untimed batches first (default: 100 single rows, else 5 batches)")
    args = ap.parse_args(argv)
    check_queries(ap, args)
    if args.warmup is None:
        args.warmup = 100 if args.rows == 1 else 5
    args.base_name = args.base or Path(args.base_tree).resolve().name
    return args


def side_graph(package, bench, kind, backend):
    """A graph of ``package`` (this tree's or the base's) built from the stream's G0,
    tracking ``kind`` in incremental mode (PageRank unweighted, as the benchmarks track
    it): ``(graph, query)``."""
    graph = package.StreamGraph.from_edgelist(bench.frame(bench.stream.initial), source="src", destination="dst",
                                              weight="weight", backend=backend)
    make = importlib.import_module(package.__name__ + ".queries").make
    return graph, graph.track(make(kind, bench.source, mode="incremental", weighted=False))


def run_query(bench, frames, kind, args, packages):
    """Apply ``frames`` to a graph of each of ``packages`` (base, this tree) in turn;
    ``(figures per side, checked)``."""
    sides = [side_graph(package, bench, kind, args.backend) for package in packages]
    timings = [[], []]
    other_work = OtherWork(args.between_ms)
    for i, frame in enumerate(frames):
        for side in ((0, 1) if i % 2 == 0 else (1, 0)):
            graph = sides[side][0]
            other_work.run()
            report, seconds = timed(lambda: graph.apply(frame, weight="weight"))
            if i >= args.warmup:
                timings[side].append((seconds, report.syncs or 0, report.launches or 0))
    base_values, values = values_of(sides[0][1]), values_of(sides[1][1])
    scratch = sides[1][0].track(make_query(kind, bench.source, mode="recompute"))
    checked = agree(kind, base_values, values) and agree(kind, values, values_of(scratch))
    figures = [{"side": f"base ({args.base_name})", **timing_figures(timings[0])},
               {"side": "this tree", **timing_figures(timings[1])}]
    del sides, scratch
    bench.free()
    return figures, checked


def print_table(kind, figures, checked):
    base, this = figures
    print(f"\n{kind} ({'results equal, and equal to a recomputation' if checked else 'RESULTS DIFFER'})")
    print("| side | batches | p50 (ms) | p90 (ms) | p99 (ms) | mean (ms) | syncs | launches |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for f in figures:
        print(f"| {f['side']} | {f['batches']} | {f['p50_ms']:.3f} | {f['p90_ms']:.3f} | {f['p99_ms']:.3f} | "
              f"{f['mean_ms']:.3f} | {f['syncs']:.2f} | {f['launches']:.1f} |")
    print(f"this tree / base: p50 {this['p50_ms'] / base['p50_ms']:.3f}, mean {this['mean_ms'] / base['mean_ms']:.3f}",
          flush=True)


def main(argv=None):
    args = parse_args(argv)
    import cugraph_stream as cgs

    if args.backend == "gpu":
        reason = cgs.backends.available_backends().get("gpu")
        if reason:
            print(f"cannot run: the GPU backend is unavailable here ({reason}); --backend cpu runs on the CPU",
                  flush=True)
            return 2
        import cupy as xp
    else:
        xp = np
    with tempfile.TemporaryDirectory(prefix="ab_revisions-") as into:
        try:
            if args.base is not None:
                extract_base(args.base, into)
            else:
                copy_base(args.base_tree, into)
            base = import_base(into)
            bench, frames = workload(args, xp)
        except (CannotRun, ValueError) as error:    # (ValueError: more rows than the R-MAT graph has edges)
            print(f"cannot run: {error}", flush=True)
            return 2
        if args.backend == "gpu":
            from .pylibcugraph_baseline import warm_up_gpu_engine

            for package in (base, cgs):
                _, seconds = timed(lambda: warm_up_gpu_engine(package))
                print(f"warm-up of {package.__name__} (kernel compilation) {seconds:.1f} s", flush=True)
        print(f"R-MAT scale {args.scale}, {args.backend}: {len(frames)} batches of {args.rows} rows "
              f"({args.warmup} untimed), each applied to a graph of {args.base_name} and one of this tree", flush=True)
        results = {}
        for kind in args.queries:
            figures, checked = run_query(bench, frames, kind, args, (base, cgs))
            print_table(kind, figures, checked)
            results[kind] = {"sides": figures, "checked": checked}
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"config": vars(args), "machine": machine_info(), "queries": results}, f, indent=1,
                      default=json_default)
        print(f"wrote {args.out}")
    return 0 if all(r["checked"] for r in results.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
