"""The cost model of ``mode="auto"`` alone, on simulated streams: does it get stuck recomputing?

    python -m benchmarks.cost_model_lockin
    python -m benchmarks.cost_model_lockin --model /tmp/old/cugraph_stream/engine/cost_model.py

No graph runs: each stream feeds :class:`~cugraph_stream.engine.cost_model.CostModel`
the timings a path would have taken (drawn from a seeded generator), so the
figures say what the model decides, not how fast the engine is.  Four
scenarios, the first over ``--streams`` streams and the others over half
as many, each stream of ``--batches`` updates on a graph of 138M vertices
+ edges (R-MAT 2^22's size; ``idle``: a million):

* ``lockin``: incremental updates are cheap (0.3 ms, plus 2 us per entry
  scanned, most scanning nothing), a recomputation costs 7.5-9.5 ms, and up
  to three early incremental updates are slow (10-300 ms: a compilation, a
  pause).  Figure: the streams that still recompute in most of their last
  100 updates (stuck), and the mean recomputations among them.
* ``comparable``: 10,000-change updates whose incremental cost (4-30 ms a
  stream) may be above or below the recomputation's 8 ms.  Figure: the time
  spent over the last 100 updates against the cheaper path's, mean and worst,
  and the share of streams above 1.1x (issue 18's criterion).

* ``compiled``: as PageRank's incremental path, not bounded by a give-up
  (``choose(..., bounded=False)``): 10,000-change updates whose incremental
  cost (2-14 ms a stream) may be above or below a recomputation's 7.5-9.5
  ms, and whose first incremental update pays 0.1-0.5 s more (kernels
  compiled in a fresh process: ``benchmarks.gpu_vs_pylibcugraph``'s first
  PageRank batch took 168.5 ms on a lent H100, the next ones 11-17 ms).
  Figure: as ``comparable``.

* ``idle``: as BFS's 100-row batches on the CPU (``benchmarks.mode_choice``,
  R-MAT 16): a third of the incremental updates scan nothing and cost
  0.05-0.1 ms (no level changed: the correction is skipped), the others
  scan 20-2,000 entries for 0.25-0.35 ms plus 0.2 us an entry, and a
  recomputation costs 4-7 ms (100-change updates, the CPU's prior rates).
  Figure: as ``comparable`` (the cheaper path is the incremental one).  A
  cheap update of no work resets the fitted line; before the incremental
  estimate took the lower of the line through 0 and the timings' level plus
  the prior rate, that one timing's rate through 0 made the next updates
  look 50-170x dearer (about 9x the incremental path here; 2.37x in
  ``mode_choice``).

``--model`` loads another checkout's ``cost_model.py`` (one whose ``choose``
has no ``bounded`` argument is called without it).
"""
from __future__ import annotations

import argparse
import importlib.util
import inspect
import sys
from typing import NamedTuple

import numpy as np

SIZE = 138e6                 # vertices + edges of R-MAT 2^22
RECOMPUTE_WORK = 260e6       # entries a recomputation scans there


def load_model(path):
    """The ``cost_model`` module at ``path``, or the installed one."""
    if path is None:
        from cugraph_stream.engine import cost_model
        return cost_model
    name = "cost_model_under_test"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


class Graph(NamedTuple):
    """What a simulated stream's graph costs to recompute."""

    device: str                 # the model's prior rates
    size: float                 # vertices + edges
    work: float                 # entries a recomputation scans
    track: tuple                # seconds of track's computation (uniform range)
    recompute: tuple            # seconds of a recomputation (uniform range)


#: R-MAT 2^22 on a GPU (every scenario but ``idle``)
R_MAT_22 = Graph("gpu", SIZE, RECOMPUTE_WORK, (0.008, 0.02), (0.0075, 0.0095))
#: R-MAT 2^16 on the CPU (``idle``)
R_MAT_16 = Graph("cpu", 1e6, 90_000, (0.004, 0.007), (0.004, 0.007))


def run_stream(module, rng, batches, changed, incremental_cost, slow_at=(), bounded=True, first_extra=0.0,
               graph=R_MAT_22, draw_always=False):
    """The paths one simulated stream took, the seconds each update cost
    (``first_extra``: seconds the first incremental update pays more), and the
    seconds the incremental path would have cost each update (``draw_always``:
    drawn before every choice; else only where it ran, None elsewhere)."""
    model = module.CostModel(graph.device)
    bounded = {"bounded": bounded} if "bounded" in inspect.signature(model.choose).parameters else {}
    model.observe_recompute(work=graph.work, size=graph.size, seconds=rng.uniform(*graph.track))
    paths, seconds, incremental = [], [], []
    for i in range(batches):
        drawn = incremental_cost(rng) if draw_always else None
        path = model.choose(changed=changed, size=graph.size, **bounded).path
        if path == "incremental":
            work, t = drawn if drawn is not None else incremental_cost(rng)
            if i in slow_at:
                t += rng.uniform(0.01, 0.3)
            if "incremental" not in paths:
                t += first_extra
            drawn = drawn or (work, t)
        else:
            work, t = graph.work, rng.uniform(*graph.recompute)
        model.observe(path, seconds=t, work=work, changed=changed)
        paths.append(path)
        seconds.append(t)
        incremental.append(None if drawn is None else drawn[1])
    return paths, seconds, incremental


def lockin(module, streams, batches, seed):
    """``(stuck streams, mean recomputations in the last 100 updates)``."""
    def cheap(rng):
        work = 0 if rng.random() < 0.6 else int(rng.choice([1, 5, 30, 99, 500]))
        return work, 0.0003 + 2e-6 * work + abs(rng.normal(0, 0.0001))

    stuck, recomputed = 0, []
    for s in range(streams):
        rng = np.random.default_rng(seed + s)
        slow_at = set(rng.choice(60, rng.integers(0, 4), replace=False).tolist())
        paths, _, _ = run_stream(module, rng, batches, 1, cheap, slow_at)
        last = paths[-100:].count("recompute")
        recomputed.append(last)
        stuck += last > 50
    return stuck, float(np.mean(recomputed))


def _spent_over_cheaper(module, streams, batches, seed, costs, compiling=None, bounded=True):
    """Per stream of 10,000-change updates whose incremental cost of 1.25M entries is
    drawn from ``costs`` (and whose first incremental update pays a time drawn from
    ``compiling`` more, if given): seconds spent over the last 100 updates / the
    cheaper path's."""
    ratios = []
    for s in range(streams):
        rng = np.random.default_rng(seed + s)
        cost = rng.uniform(*costs)

        def incremental(rng, cost=cost):
            work = int(rng.uniform(0.5e6, 2e6))
            return work, cost * work / 1.25e6 * rng.uniform(0.9, 1.1)

        extra = 0.0 if compiling is None else rng.uniform(*compiling)
        _, seconds, _ = run_stream(module, rng, batches, 10_000, incremental, bounded=bounded, first_extra=extra)
        ratios.append(sum(seconds[-100:]) / (100 * min(cost, 0.0085)))
    return np.array(ratios)


def comparable(module, streams, batches, seed):
    """Per stream, seconds spent over the last 100 updates / the cheaper path's."""
    return _spent_over_cheaper(module, streams, batches, seed, (0.004, 0.03))


def compiled(module, streams, batches, seed):
    """Per stream, seconds spent over the last 100 updates / the cheaper path's, where the
    first incremental update compiled kernels and nothing bounds the incremental path."""
    return _spent_over_cheaper(module, streams, batches, seed, (0.002, 0.014), compiling=(0.1, 0.5), bounded=False)


def idle(module, streams, batches, seed):
    """Per stream of 100-change updates, a third of which scan nothing: seconds spent
    over the last 100 updates / the incremental path's."""
    def incremental(rng):
        if rng.random() < 1 / 3:
            return 0, rng.uniform(5e-5, 1e-4)
        work = int(rng.uniform(20, 2000))
        return work, rng.uniform(2.5e-4, 3.5e-4) + 2e-7 * work

    ratios = []
    for s in range(streams):
        rng = np.random.default_rng(seed + s)
        _, spent, cheaper = run_stream(module, rng, batches, 100, incremental, graph=R_MAT_16, draw_always=True)
        ratios.append(sum(spent[-100:]) / sum(cheaper[-100:]))
    return np.array(ratios)


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m benchmarks.cost_model_lockin", description=__doc__.split("\n")[0])
    ap.add_argument("--model", default=None, help="a cost_model.py to load instead of the installed one")
    ap.add_argument("--streams", type=int, default=400, help="streams per scenario (default 400)")
    ap.add_argument("--batches", type=int, default=300, help="updates per stream (default 300)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    module = load_model(args.model)
    stuck, mean = lockin(module, args.streams, args.batches, args.seed)
    print(f"lockin: {stuck} of {args.streams} streams stuck recomputing; "
          f"{mean:.2f} recomputations in the last 100 updates on average")
    ratios = comparable(module, args.streams // 2, args.batches, args.seed)
    print(f"comparable: spent / cheaper path {ratios.mean():.3f} mean, {ratios.max():.3f} worst; "
          f"{(ratios > 1.1).mean():.1%} of {ratios.size} streams above 1.1x")
    ratios = compiled(module, args.streams // 2, args.batches, args.seed)
    print(f"compiled: spent / cheaper path {ratios.mean():.3f} mean, {ratios.max():.3f} worst; "
          f"{(ratios > 1.1).mean():.1%} of {ratios.size} streams above 1.1x")
    ratios = idle(module, args.streams // 2, args.batches, args.seed)
    print(f"idle: spent / incremental path {ratios.mean():.3f} mean, {ratios.max():.3f} worst; "
          f"{(ratios > 1.1).mean():.1%} of {ratios.size} streams above 1.1x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
