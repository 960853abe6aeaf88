"""What a batch costs after a pause: the same stream back to back, after an idle gap, after other work.

    python -m benchmarks.batch_gaps --scale 22 --rows 10000 --per-condition 20
    python -m benchmarks.batch_gaps --scale 22 --rows 1 --per-condition 100 --gaps 1,5,50
    python -m benchmarks.batch_gaps --backend cpu --scale 16 --rows 10000

A diagnostic for issue 17 (the per-batch floor), not a comparison.  The
head-to-head scripts time batches back to back or right after the
baseline's run; a stream's batches arrive with gaps between them, and what
the machine did in the gap changes what the next batch costs.  On the GPU,
each of a batch's launches and waits costs more for a while after a pause
of a millisecond or more, however busy the host or the device was
meanwhile (``launch_mechanisms --gaps`` times single launches and a
captured graph of them after a gap); on either backend, work that passes
over memory between batches leaves the batch's code and data out of the
CPU's caches.

Like ``benchmarks/batch_profile.py`` it builds an R-MAT graph, tracks SSSP
from its hub (``--queries``) and applies 5 untimed batches of ``--rows``
rows.  Then every following batch runs after one of these, in turn (so that
a drift over the run reaches each alike):

``back-to-back``
    nothing: the batch follows the previous one at once;
``idle-<N>ms``
    the process sleeps ``N`` ms (each of ``--gaps``), the device idle too;
``busy-host-<N>ms``
    the host spins ``N`` ms (the largest gap) on a clock, touching no
    memory: the device idles while the CPU's caches stay as they were;
``host-pass``
    a pass writing ``--host-mib`` MiB of host memory (an ETL step's traffic);
``device-pass`` (GPU)
    a pass writing ``--device-mib`` MiB of device memory, waited for: the
    device busy up to the batch.

Each batch's wall time is the ``apply`` call, the device synchronised
before and after (common.timed).  Printed per condition: batches, median and
mean milliseconds, the median over back to back's, and the phases' medians
(validate, reduce, store, the queries' sum, and the rest: a window's or a
cache's phases) from each batch's report.
The garbage collector is frozen over the timed batches (a full collection
before), and any collection inside one shows in its report (``gc_s``) and
the table.
"""
from __future__ import annotations

import argparse
import gc
import json
import sys
import time

import numpy as np

from .common import json_default, machine_info, positive, sync_device, timed, write

#: the engine's phases with a column each; the queries' phases (``"<query>:correct"``,
#: ``"<query>:compute"``) are summed in another, and the rest (a window's, a cache's) in "other"
ENGINE_PHASES = ("validate", "reduce", "store")
#: untimed batches before the measured ones
WARM_BATCHES = 5


def integer_list(text):
    """``"1,5,50"`` -> ``[1, 5, 50]`` (positive integers)."""
    values = [int(v) for v in text.split(",") if v.strip()]
    if not values or min(values) <= 0:
        raise argparse.ArgumentTypeError(f"expected positive integers separated by commas, got {text!r}")
    return values


def parse_args(argv=None):
    p = argparse.ArgumentParser(prog="python -m benchmarks.batch_gaps", description=__doc__.splitlines()[0])
    p.add_argument("--backend", choices=("gpu", "cpu"), default="gpu")
    p.add_argument("--scale", type=positive(int), default=22)
    p.add_argument("--edge-factor", type=positive(int), default=16)
    p.add_argument("--rows", type=positive(int), default=10000, help="rows a batch (default 10000)")
    p.add_argument("--per-condition", type=positive(int), default=20, help="timed batches a condition (default 20)")
    p.add_argument("--gaps", type=integer_list, default=[5, 50], help="idle gaps in ms (default 5,50)")
    p.add_argument("--host-mib", type=positive(int), default=256, help="the host pass's MiB (default 256)")
    p.add_argument("--device-mib", type=positive(int), default=256, help="the device pass's MiB (default 256)")
    p.add_argument("--queries", default="sssp", help="sssp, pagerank or both, comma-separated (default sssp)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", help="write the figures here as JSON")
    return p.parse_args(argv)


def spin(seconds):
    """Keep the host busy for ``seconds`` on a clock, touching no memory."""
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


def conditions(args, xp):
    """``{name: what to run before the batch}``, in the order the batches take them."""
    host = np.ones(args.host_mib << 20, dtype=np.uint8)        # (its pages made now, not in the first pass)

    def host_pass():
        np.add(host, 1, out=host)       # (read and written: every line of it through the caches)

    out = {"back-to-back": lambda: None}
    for ms in args.gaps:
        out[f"idle-{ms}ms"] = lambda s=ms / 1e3: time.sleep(s)
    longest = max(args.gaps)
    out[f"busy-host-{longest}ms"] = lambda: spin(longest / 1e3)
    out["host-pass"] = host_pass
    if args.backend == "gpu":
        device = xp.zeros(args.device_mib << 20, dtype=xp.uint8)

        def device_pass():
            device.fill(1)
            sync_device()

        out["device-pass"] = device_pass
    return out


def summarise(records):
    """Per condition: batches, median and mean ms, the phases' medians (ms) and the
    garbage collections inside; the median's ratio to ``back-to-back``'s.

    >>> rows = [{"condition": c, "seconds": s, "phases": {"validate": s / 4, "Q:compute": s / 2, "window": s / 8},
    ...          "gc_s": 0.0} for c, s in (("back-to-back", 0.002), ("back-to-back", 0.004), ("idle-50ms", 0.006))]
    >>> out = summarise(rows)
    >>> out["back-to-back"]["median_ms"], out["idle-50ms"]["vs_back_to_back"], out["idle-50ms"]["queries_ms"]
    (3.0, 2.0, 3.0)
    >>> out["idle-50ms"]["other_ms"]
    0.75
    """
    out = {}
    for name in dict.fromkeys(r["condition"] for r in records):
        rows = [r for r in records if r["condition"] == name]
        ms = np.array([1e3 * r["seconds"] for r in rows])
        entry = {"batches": len(rows), "median_ms": float(np.median(ms)), "mean_ms": float(ms.mean())}
        for phase in ENGINE_PHASES:
            entry[f"{phase}_ms"] = float(np.median([1e3 * r["phases"].get(phase, 0.0) for r in rows]))
        entry["queries_ms"] = float(np.median([1e3 * sum(v for k, v in r["phases"].items() if ":" in k)
                                               for r in rows]))
        entry["other_ms"] = float(np.median([1e3 * sum(v for k, v in r["phases"].items()
                                                       if ":" not in k and k not in ENGINE_PHASES) for r in rows]))
        entry["gc_batches"] = sum(r["gc_s"] >= 1e-3 for r in rows)
        out[name] = entry
    base = out.get("back-to-back", {}).get("median_ms")
    for entry in out.values():
        entry["vs_back_to_back"] = entry["median_ms"] / base if base else None
    return out


def table(summary):
    """The printed table (markdown)."""
    lines = ["| before the batch | batches | median (ms) | mean (ms) | median / back to back | validate | reduce "
             "| store | queries | other | collections >= 1 ms |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for name, e in summary.items():
        ratio = "-" if e["vs_back_to_back"] is None else f"{e['vs_back_to_back']:.2f}"
        lines.append(f"| {name} | {e['batches']} | {e['median_ms']:.3f} | {e['mean_ms']:.3f} | {ratio} | "
                     f"{e['validate_ms']:.3f} | {e['reduce_ms']:.3f} | {e['store_ms']:.3f} | {e['queries_ms']:.3f} "
                     f"| {e['other_ms']:.3f} | {e['gc_batches']} |")
    return "\n".join(lines)


def main(argv=None):
    args = parse_args(argv)
    queries = tuple(q.strip() for q in args.queries.split(",") if q.strip())
    if not queries or set(queries) - {"sssp", "pagerank"}:
        print(f"error: --queries takes sssp and/or pagerank, got {args.queries!r}", file=sys.stderr)
        return 2
    from cugraph_stream.backends import get_backend

    from .batch_profile import tracked_stream

    ops = get_backend(args.backend)
    before = conditions(args, ops.xp)
    count = WARM_BATCHES + args.per_condition * len(before)
    graph, hub, batches = tracked_stream(ops, args.scale, args.edge_factor, args.rows, count, args.seed,
                                         warm=WARM_BATCHES, queries=queries, mode="auto")
    write(f"R-MAT scale {args.scale} (edge factor {args.edge_factor}), {args.backend}: {', '.join(queries)} "
          f"tracked (hub {hub}); {len(batches)} batches of {args.rows} rows, {args.per_condition} after each of: "
          f"{', '.join(before)}")
    names = list(before)
    records = []
    gc.collect()
    gc.freeze()
    try:
        for i, batch in enumerate(batches):
            name = names[i % len(names)]
            sync_device()
            before[name]()
            report, seconds = timed(lambda b=batch: graph.apply(b, weight="weight"))
            records.append({"condition": name, "seconds": seconds, "phases": dict(report.times),
                            "gc_s": report.gc_s})
    finally:
        gc.unfreeze()
    summary = summarise(records)
    write(table(summary))
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"config": vars(args), "machine": machine_info(), "summary": summary, "batches": records},
                      f, indent=1, default=json_default)
        write(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
