"""GPU engine against pylibcugraph recomputation at its fastest, on the same snapshots, in one run.

    python -m benchmarks.gpu_vs_pylibcugraph --scale 22 --batches 10 --batch-size 10000
    python -m benchmarks.gpu_vs_pylibcugraph --scale 22 --skip batches,ingest --latency 1000
    python -m benchmarks.gpu_vs_pylibcugraph --scale 22 --skip batches,ingest \\
        --sweep 1,10,100,1000,10000,100000,1000000

Workload.  An R-MAT graph generated on the GPU (scale ``--scale``, edge
factor ``--edge-factor``, a=0.57, b=0.19, c=0.19, duplicates and self loops
removed): the edge pool.  ``--weights real`` keeps R-MAT's weights, uniform
reals in [1, 64); ``--weights integer`` draws integers in [1, 64] (float32
values; many equal path lengths).  The batch stream follows Grapin's
protocol: ``batches * batch_size`` distinct pool edges drawn at random, half
deleted from the initial graph G0 by the batches, half left out of G0 and
inserted.  G0 is the pool less those insertions.  The source of SSSP and BFS
(``--source``) is G0's vertex of largest out-degree (``hub``) or a random
vertex of G0 with out-degree > 0 (``random``, seeded by ``--seed``).

The baseline, pylibcugraph, recomputes every snapshot from scratch with the
graph already on the GPU: building the ``SGGraph`` is not timed, only the
algorithm call (``sssp``; ``bfs``; ``weakly_connected_components`` on the
symmetrised snapshot; ``pagerank`` warm-started from the previous snapshot's
ranks, epsilon = ``--tol``).  Three variants run on every snapshot
(``--baseline-variants``; see ``benchmarks/pylibcugraph_baseline.py``):
``int32`` (vertices numbered 0..n-1 outside the timer, int32 arrays,
``renumber=False``: no id translation at all), ``int32-renumbered`` (the
same arrays, ``renumber=True``: cuGraph's degree-sorted numbering, ids
translated inside the call) and ``int64-renumbered`` (the vertex ids as
they are, int64, ``renumber=True``: what this script timed before); the
int32 ones while the snapshot fits int32.  Every ratio divides the FASTEST
variant's mean time by the engine's mean apply time: above 1 the engine is
faster.  The baseline's snapshot is kept
from the stream alone (a mask over the edge pool; the vertex set is G0's
vertices plus every endpoint inserted so far), never read from the engine.

Modes, in this order (each on a fresh ``StreamGraph(backend="gpu")`` per
query kind, built from G0, tracking that query alone; ``--skip
batches,ingest`` leaves out the first two without changing G0):

* batches (``--batches``, ``--batch-size``; queries ``--queries``, default
  all four): every batch arrives as a cuDF DataFrame (a dict of CuPy arrays
  without cuDF) made before the clock starts; ``apply`` is timed with the
  device synchronised before and after.  Figures per query: engine mean and
  median apply ms, each baseline variant's mean and median algorithm ms (and
  its untimed graph build), the ratio (fastest variant / engine), mean syncs
  and launches per batch.  Then the same batches are applied back to back
  to a second graph from G0 (nothing between them; their results must equal
  the checked graph's): its mean and median, and the fastest variant's mean
  against that mean.  Between the checked run's batches run pylibcugraph and
  the cross-check, which leave a batch of the engine costlier (its host
  code out of the CPU's caches); the back-to-back figures are those of a
  stream applied as fast as it arrives.  The headline ratio stays the
  checked run's.
* ingest (``--ingest-rows``, default 1,000,000): one batch of new random
  edges from a cuDF DataFrame applied to G0 with no query tracked: updates/s
  at the median of ``--ingest-repeats`` (default 5) timings, each on a fresh
  copy of G0, after a first copy, untimed, that loads the batch's kernels in
  this process (its time is reported too), with the fastest and slowest.
* latency (``--latency N``; queries: ``--queries``, default SSSP alone):
  after ``--latency-warmup`` untimed single rows, N single-row batches, each
  a pandas DataFrame made beforehand, each ``apply`` timed with the device
  synchronised.  The rows are the first rows of the batch stream (inserts
  and deletes of distinct edges), or drawn as the sweep draws when the
  stream is shorter.  Figures: p50, p99, mean and max ms per batch,
  updates/s (rows / total time), mean syncs and launches per batch.  The
  final snapshot is cross-checked against pylibcugraph once.
* sweep (``--sweep 1,10,...``; ``--sweep-batches`` batches per point,
  default 3; queries as for the batch mode): batches of each size are drawn
  one after the other from G0's state: half deletions of present edges, half
  insertions of absent pool edges, and, once the pool runs out of absent
  edges, of new random edges (uniform ids below 2^scale, weights as
  ``--weights``) added to the pool.  The points follow each other (the graph
  drifts from G0 over the sweep); every query gets the same batches.
  Figures per point as in the batch mode, plus updates/s (rows / apply time).

Before anything is timed, ``warm_up_gpu_engine`` compiles the engine's and
CuPy's kernels on a small graph.

Cross-checks: G0 and every snapshot the engine reaches in the batch and
sweep modes, and the last one of the latency mode, against every baseline
variant: the vertex sets equal (the engine's against the stream's, and
pylibcugraph's), SSSP distances within rtol 1e-5 with the same reachability,
BFS levels exactly, WCC the same partition, PageRank within L1 ``tol +
1e-5``.  A mismatch is printed, recorded, and makes the run exit with status
1 (after the JSON is written).  Status 2: the configuration cannot run here.

True errors (PageRank, batch mode, with a baseline): a second graph built
from G0 follows the same batches (untimed) with PageRank tracked within L1
``--reference-tol`` (1e-10); on every snapshot the engine's ranks and each
variant's are measured against it (``engine_l1_error`` per batch and
``l1_error`` per variant; means in the summary and below the batch table),
so that the two systems are compared at their measured errors, not at equal
parameter names (the engine's ``tol`` bounds its error; pylibcugraph's
``epsilon`` bounds one iteration's change).  ``--stop change`` tracks the
engine's PageRank with cuGraph's stopping rule instead (``tol`` bounds one
more power-iteration step's L1 change).  ``--plc-epsilons 1e-6,5e-7,...``
also times every variant at those epsilons (PageRank only, each
warm-started from its own last ranks; keyed ``"VARIANT epsilon=E"`` where
``E`` is not ``--tol``): the summary's ``equal_error_baseline`` is then the
fastest of all of them whose mean true error is at most the engine's, and
``equal_error_ratio`` its mean time over the engine's (None when none is
as accurate).  The plain ``ratio`` stays at epsilon = ``--tol``.

Every per-batch record (JSON and printed line) carries the engine's
``BatchReport`` ``syncs`` (host synchronisations) and ``launches`` (operator
calls) where the report has them (null otherwise); the summaries give their
means per batch and query.  ``--out FILE`` writes every figure as JSON
(``queries``, ``ingest``, ``latency``, ``sweep``: per-batch rows and
``summary``; ``failures``; machine, GPU, versions, configuration).
Each timed series (the batches, back to back, the latency rows, each
ingestion copy) starts after a full garbage collection, untimed, so that
the collector does not take the setup's garbage inside a timed batch (on a
lent H200 one took 95.7 ms of the first SSSP batch); a batch whose report
still counts 1 ms or more of garbage collection (``BatchReport.gc_s``: a
full one) has it in its record (``gc_ms``), counted under the tables.  ``--no-baseline`` times the engine alone (CuPy only,
no cuDF nor pylibcugraph needed: frames are then dicts of CuPy arrays);
``--backend cpu`` runs the same protocol on the CPU engine with NumPy and no
baseline (a smoke test of the script without a GPU).  pylibcugraph and cuDF
come from the GPU kit (../shared/gpu/kit.py).
"""
from __future__ import annotations

import argparse
import json
import sys

import numpy as np

from cugraph_stream.report import GC_SHOWN_S

from .common import (
    collect_garbage,
    gpu_info,
    json_default,
    machine_info,
    make_query,
    positive,
    timed,
    versions,
)
from .pylibcugraph_baseline import (
    VARIANTS,
    PylibcugraphBaseline,
    int32_fits,
    to_device_frame,
)

QUERY_KINDS = ("sssp", "bfs", "wcc", "pagerank")

#: PageRank error allowed to pylibcugraph on top of the engine's bound: its stopping
#: rule (change between iterations at most epsilon) leaves about alpha/(1-alpha)*eps
PAGERANK_BASELINE_ERROR = 1e-5
#: where a baseline key names an epsilon other than ``--tol`` (:func:`baseline_key`)
EPSILON_MARK = " epsilon="


# ---------------------------------------------------------------------------
# arguments
# ---------------------------------------------------------------------------

def query_list(text):
    """argparse type: comma-separated query kinds."""
    items = [k.strip().lower() for k in text.split(",") if k.strip()]
    bad = [k for k in items if k not in QUERY_KINDS]
    if bad or not items:
        raise argparse.ArgumentTypeError(f"unknown queries {bad}; choose from {','.join(QUERY_KINDS)}")
    return list(dict.fromkeys(items))


def size_list(text):
    """argparse type: comma-separated positive batch sizes."""
    try:
        sizes = [int(s.replace("_", "")) for s in text.split(",") if s.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers, got {text!r}") from None
    if not sizes or min(sizes) <= 0:
        raise argparse.ArgumentTypeError(f"batch sizes must be positive, got {text!r}")
    return sizes


def mode_list(text):
    """argparse type: comma-separated modes that can be skipped."""
    items = [k.strip().lower() for k in text.split(",") if k.strip()]
    bad = [k for k in items if k not in ("batches", "ingest")]
    if bad:
        raise argparse.ArgumentTypeError(f"unknown modes {bad}; --skip takes batches,ingest")
    return items


def variant_list(text):
    """argparse type: comma-separated pylibcugraph variants."""
    items = [k.strip().lower() for k in text.split(",") if k.strip()]
    bad = [k for k in items if k not in VARIANTS]
    if bad or not items:
        raise argparse.ArgumentTypeError(f"unknown variants {bad}; choose from {','.join(VARIANTS)}")
    return [v for v in VARIANTS if v in items]


def epsilon_list(text):
    """argparse type: comma-separated positive PageRank epsilons."""
    try:
        values = [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated numbers, got {text!r}") from None
    if not values or min(values) <= 0:
        raise argparse.ArgumentTypeError(f"epsilons must be positive, got {text!r}")
    return list(dict.fromkeys(values))


def baseline_key(variant, epsilon, tol):
    """The key of a baseline's figures: the variant, and its epsilon when that is not ``tol``.

    >>> baseline_key("int32", 1e-6, 1e-6), baseline_key("int32", 5e-7, 1e-6)
    ('int32', 'int32 epsilon=5e-07')
    """
    return variant if epsilon == tol else f"{variant}{EPSILON_MARK}{epsilon:g}"


def non_negative(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {text}")
    return value


def parse_args(argv=None):
    ap = argparse.ArgumentParser(prog="python -m benchmarks.gpu_vs_pylibcugraph", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", type=positive(int), default=22, help="R-MAT scale (2^scale vertex ids)")
    ap.add_argument("--edge-factor", type=positive(int), default=16)
    ap.add_argument("--batches", type=non_negative, default=10,
                    help="batches of the stream (and of the batch mode); 0: G0 is the whole R-MAT graph")
    ap.add_argument("--batch-size", type=positive(int), default=10000, help="rows per batch (batch mode)")
    ap.add_argument("--queries", type=query_list, default=None,
                    help="query kinds (default: sssp,bfs,wcc,pagerank; the latency mode: sssp)")
    ap.add_argument("--weights", choices=("real", "integer"), default="real",
                    help="real: uniform in [1, 64); integer: integers in [1, 64]")
    ap.add_argument("--source", choices=("hub", "random"), default="hub",
                    help="SSSP/BFS source: G0's largest out-degree vertex, or a random one with out-degree > 0")
    ap.add_argument("--ingest-rows", type=non_negative, default=1_000_000,
                    help="rows of the one-batch ingestion test (0: skip it)")
    ap.add_argument("--ingest-repeats", type=positive(int), default=5,
                    help="timed copies of G0 the ingestion batch is applied to (the median counts)")
    ap.add_argument("--skip", type=mode_list, default=[], metavar="MODES",
                    help="modes not to run, of batches,ingest (the stream and G0 stay as they are)")
    ap.add_argument("--latency", type=non_negative, default=0, metavar="N",
                    help="stream N single-row pandas batches and report p50/p99 (0: off)")
    ap.add_argument("--latency-warmup", type=non_negative, default=20,
                    help="untimed single-row batches before the latency mode's N")
    ap.add_argument("--sweep", type=size_list, default=None, metavar="SIZES",
                    help="batch-size sweep, rows per batch, e.g. 1,10,100,1000,10000,100000,1000000")
    ap.add_argument("--sweep-batches", type=positive(int), default=3, help="batches per sweep point")
    ap.add_argument("--tol", type=float, default=1e-6, help="PageRank L1 bound (engine) and epsilon (baseline)")
    ap.add_argument("--stop", choices=("error", "change"), default="error",
                    help="what the engine's PageRank tol bounds: the L1 error (default) or, as cuGraph's "
                         "epsilon, one more step's L1 change")
    ap.add_argument("--plc-epsilons", type=epsilon_list, default=None, metavar="EPSILONS",
                    help="PageRank: also time pylibcugraph at these epsilons, for the comparison at equal "
                         "measured error (default: --tol alone)")
    ap.add_argument("--reference-tol", type=float, default=1e-10,
                    help="PageRank in the batch mode: the L1 bound of a reference tracked on a second graph, "
                         "against which every system's true L1 error is reported (0: none)")
    ap.add_argument("--engine-mode", choices=("auto", "incremental", "recompute"), default="auto",
                    help="the tracked queries' mode (default auto, what users get; figures before issue 18 "
                         "were incremental)")
    ap.add_argument("--seed", type=non_negative, default=0)
    ap.add_argument("--baseline-variants", type=variant_list, default=list(VARIANTS), metavar="VARIANTS",
                    help=f"pylibcugraph variants to time (default {','.join(VARIANTS)})")
    ap.add_argument("--no-baseline", action="store_true", help="time the engine alone (CuPy only)")
    ap.add_argument("--backend", choices=("gpu", "cpu"), default="gpu",
                    help="cpu: the same protocol on the CPU engine with NumPy, no baseline (a smoke test)")
    ap.add_argument("--out", default=None, help="JSON file for all figures")
    return ap.parse_args(argv)


def mode_queries(args, mode):
    """The query kinds a mode runs: ``--queries``, else all four (the latency mode: SSSP)."""
    if args.queries:
        return list(args.queries)
    return ["sssp"] if mode == "latency" else list(QUERY_KINDS)


# ---------------------------------------------------------------------------
# the workload (array-module generic: NumPy or CuPy)
# ---------------------------------------------------------------------------

def to_host(array):
    """A NumPy copy of a NumPy or CuPy array."""
    return array.get() if hasattr(array, "get") else np.asarray(array)


def make_weights(xp, rng, size, mode):
    """``size`` float32 weights: uniform reals in [1, 64), or integers in [1, 64]."""
    if mode == "integer":
        return rng.randint(1, 65, size=size).astype(xp.float32)
    return rng.uniform(1.0, 64.0, size=size).astype(xp.float32)


def sample_distinct(xp, rng, n, k):
    """``k`` distinct integers drawn uniformly from ``range(n)`` (``k <= n``), in random order."""
    k = int(k)
    if k <= 0:
        return xp.zeros(0, dtype=xp.int64)
    if k > n:
        raise ValueError(f"cannot draw {k} distinct values from {n}")
    if 4 * k >= n:
        return rng.permutation(n)[:k].astype(xp.int64)
    picked = xp.zeros(0, dtype=xp.int64)
    while picked.size < k:          # few rounds: collisions are rare when k << n
        draw = rng.randint(0, n, size=2 * (k - int(picked.size)) + 16, dtype=xp.int64)
        picked = xp.unique(xp.concatenate((picked, draw)))
    return picked[rng.permutation(picked.size)[:k]]


def make_stream(xp, edges, batches, batch_size, seed):
    """G0 and the batches (as column dicts of arrays) plus, per snapshot, the mask
    of pool edges present (the baseline's snapshot, independent of the engine).

    Returns ``((src, dst, w), initial, batches, masks)``; see :meth:`Stream.grapin`,
    which also keeps the vertex sets and the rows' order."""
    stream = Stream.grapin(xp, edges, batches, batch_size, seed)
    return (stream.src, stream.dst, stream.w), stream.initial, stream.batches, stream.masks


class Stream:
    """The edge pool, G0 and the snapshots a run's batches lead to.

    The pool holds distinct ``(src, dst)`` pairs (R-MAT's, then new random
    ones appended by :meth:`extend`), each with a fixed weight.  A snapshot is
    a mask over the pool (a shorter mask: the pool grew since) and a mask over
    the vertex ids below ``id_bound`` (G0's vertices and every endpoint
    inserted since: deleting edges removes no vertex).  Nothing here reads
    the engine.
    """

    def __init__(self, xp, src, dst, w, present, id_bound, weights="real", seed=0):
        self.xp = xp
        self.src, self.dst, self.w = src, dst, w
        self.id_bound = int(id_bound)
        self.weights = weights
        self.rng = xp.random.RandomState(seed)
        self.host_rng = np.random.default_rng(seed)
        self.initial_mask = present
        seen = xp.zeros(self.id_bound, dtype=bool)
        seen[src[present]] = True
        seen[dst[present]] = True
        self.initial_seen = seen
        self.initial = {"src": src[present], "dst": dst[present], "weight": w[present]}
        self.batches, self.masks, self.seens = [], [], []
        self.row_index = xp.zeros(0, dtype=xp.int64)   # the batches' rows, in order: pool index
        self.row_op = xp.zeros(0, dtype=xp.int8)       # and op
        self._keys = None                              # sorted pool keys, once extend() needs them

    @classmethod
    def grapin(cls, xp, edges, batches, batch_size, seed, weights="real", id_bound=None):
        """Grapin's protocol: ``batches * batch_size`` distinct pool edges, half
        deleted from G0 by the batches, half left out of G0 and inserted, all
        shuffled into the batches.  ``edges``: columns ``src, dst, weight``
        (R-MAT's); ``weights="integer"`` replaces the weights."""
        src, dst, w = (xp.asarray(edges[c]) for c in ("src", "dst", "weight"))
        m = int(src.size)
        if id_bound is None:
            id_bound = int(max(int(src.max()), int(dst.max()))) + 1 if m else 1
        rng = xp.random.RandomState(seed)
        if weights == "integer":      # its own generator: the same rows are chosen either way
            w = make_weights(xp, xp.random.RandomState(seed + 100), m, "integer")
        total = batches * batch_size
        if total > m:
            raise ValueError(f"{batches} batches of {batch_size} need {total} distinct edges; "
                             f"the R-MAT graph has {m}")
        chosen = rng.permutation(m)[:total]
        deletes, inserts = chosen[: total // 2], chosen[total // 2:]
        present = xp.ones(m, dtype=bool)
        present[inserts] = False
        stream = cls(xp, src, dst, w, present, id_bound, weights, seed + 1)
        ops = xp.concatenate((xp.full(deletes.size, -1, xp.int8), xp.ones(inserts.size, xp.int8)))
        order = rng.permutation(total)
        rows, ops = xp.concatenate((deletes, inserts))[order], ops[order]
        stream.row_index, stream.row_op = rows, ops
        mask, seen = present, stream.initial_seen
        for b in range(batches):
            r, o = rows[b * batch_size:(b + 1) * batch_size], ops[b * batch_size:(b + 1) * batch_size]
            batch, mask, seen = stream.apply_rows(r, o, mask, seen)
            stream.batches.append(batch)
            stream.masks.append(mask)
            stream.seens.append(seen)
        return stream

    # -- snapshots ----------------------------------------------------------
    def apply_rows(self, rows, ops, mask, seen):
        """The batch of pool rows ``rows`` with ``ops`` (distinct rows) and the
        ``(mask, seen)`` it leads to from ``(mask, seen)``."""
        batch = {"src": self.src[rows], "dst": self.dst[rows], "weight": self.w[rows], "op": ops}
        mask = self._padded(mask)
        mask[rows] = ops == 1                    # rows are distinct: no write order to worry about
        seen = seen.copy()
        inserted = rows[ops == 1]
        seen[self.src[inserted]] = True
        seen[self.dst[inserted]] = True
        return batch, mask, seen

    def snapshot(self, mask, seen):
        """``(src, dst, w, vertices)`` of a snapshot; ``vertices`` sorted, int64."""
        n = int(mask.size)
        src, dst, w = self.src[:n][mask], self.dst[:n][mask], self.w[:n][mask]
        return src, dst, w, self.xp.flatnonzero(seen).astype(self.xp.int64)

    def _padded(self, mask):
        """A copy of ``mask`` as long as the pool (new pool edges absent)."""
        xp = self.xp
        pad = int(self.src.size) - int(mask.size)
        return xp.concatenate((mask, xp.zeros(pad, dtype=bool))) if pad else mask.copy()

    # -- drawing beyond the R-MAT pool ---------------------------------------
    def extend(self, count):
        """Append ``count`` new random edges (uniform ids below ``id_bound``, no
        self loops, none already in the pool) to the pool."""
        xp, rng, bound = self.xp, self.rng, self.id_bound
        possible = bound * (bound - 1) - int(self.src.size)
        if count > possible:
            raise ValueError(f"the sweep needs {count} more distinct edges than the pool holds, but only "
                             f"{possible} pairs of {bound} vertex ids are left; use a larger --scale")
        if self._keys is None:
            self._keys = xp.sort(self.src * bound + self.dst)
        keys = self._keys
        new = xp.zeros(0, dtype=xp.int64)
        while new.size < count:
            want = int(1.1 * (count - int(new.size))) + 16
            s = rng.randint(0, bound, size=want, dtype=xp.int64)
            d = rng.randint(0, bound, size=want, dtype=xp.int64)
            k = (s * bound + d)[s != d]
            if keys.size:
                at = xp.minimum(xp.searchsorted(keys, k), keys.size - 1)
                k = k[keys[at] != k]
            new = xp.unique(xp.concatenate((new, k)))
        new = new[rng.permutation(new.size)[:count]]
        self.src = xp.concatenate((self.src, new // bound))
        self.dst = xp.concatenate((self.dst, new % bound))
        self.w = xp.concatenate((self.w, make_weights(xp, rng, count, self.weights)))
        self._keys = xp.sort(xp.concatenate((keys, new)))

    def draw(self, size, mask, seen):
        """A batch of ``size`` distinct rows from the snapshot ``(mask, seen)``:
        half deletions of present edges (an odd row is either, at random), the
        rest insertions of absent pool edges, new random edges when those run
        out.  Returns ``(batch, mask, seen)`` after it."""
        xp = self.xp
        mask = self._padded(mask)
        present = xp.flatnonzero(mask)
        deletes = size // 2 + (int(self.host_rng.integers(2)) if size % 2 else 0)
        deletes = min(deletes, int(present.size))
        inserts = size - deletes
        absent = xp.flatnonzero(~mask)
        if int(absent.size) < inserts:
            self.extend(inserts - int(absent.size))
            mask = self._padded(mask)
            absent = xp.flatnonzero(~mask)
        rows = xp.concatenate((present[sample_distinct(xp, self.rng, present.size, deletes)],
                               absent[sample_distinct(xp, self.rng, absent.size, inserts)]))
        ops = xp.concatenate((xp.full(deletes, -1, xp.int8), xp.ones(inserts, xp.int8)))
        order = self.rng.permutation(size)
        return self.apply_rows(rows[order], ops[order], mask, seen)

    def reseed(self, seed):
        """Draw from here on with generators seeded by ``seed``."""
        self.rng = self.xp.random.RandomState(seed)
        self.host_rng = np.random.default_rng(seed)

    def single_rows(self, count):
        """``count`` rows for the latency mode, as host columns, and the
        ``(mask, seen)`` after all of them: the first rows of the batch stream,
        or (when it is shorter) ``count`` distinct rows drawn from G0's state."""
        if count <= int(self.row_index.size):
            rows, ops = self.row_index[:count], self.row_op[:count]
            batch, mask, seen = self.apply_rows(rows, ops, self.initial_mask, self.initial_seen)
        else:
            batch, mask, seen = self.draw(count, self.initial_mask, self.initial_seen)
        return {k: to_host(v) for k, v in batch.items()}, mask, seen


def pick_source(xp, initial_src, mode, seed):
    """``(vertex, out-degree)``: G0's largest out-degree vertex (``hub``), or a
    random vertex with out-degree > 0 (``random``, seeded)."""
    degree = xp.bincount(initial_src)
    if mode == "hub":
        vertex = int(degree.argmax())
    else:
        candidates = xp.flatnonzero(degree > 0)
        vertex = int(candidates[int(np.random.default_rng(seed).integers(int(candidates.size)))])
    return vertex, int(degree[vertex])


# ---------------------------------------------------------------------------
# figures
# ---------------------------------------------------------------------------

def report_counts(report):
    """``{"syncs": .., "launches": ..}`` of a BatchReport (None where it has no such field)."""
    d = report.to_dict()
    return {"syncs": d.get("syncs"), "launches": d.get("launches")}


def mean_of(values):
    """Mean of the values that are not None (None when there are none)."""
    values = [v for v in values if v is not None]
    return float(np.mean(values)) if values else None


def latency_summary(seconds):
    """p50, p99, mean and max milliseconds per batch, and updates/s (one row a batch)."""
    ms = 1e3 * np.asarray(seconds, dtype=float)
    if ms.size == 0:
        return {"batches": 0, "p50_ms": None, "p99_ms": None, "mean_ms": None, "max_ms": None,
                "updates_per_s": None}
    total = float(np.sum(seconds))
    return {"batches": int(ms.size), "p50_ms": float(np.percentile(ms, 50)),
            "p99_ms": float(np.percentile(ms, 99)), "mean_ms": float(ms.mean()), "max_ms": float(ms.max()),
            "updates_per_s": ms.size / total if total > 0 else None}


def baseline_figures(rows):
    """Per baseline key (a variant, or a variant at another epsilon: :func:`baseline_key`):
    mean and median algorithm ms over ``rows[i]["baselines"]``; plus the fastest
    variant at ``--tol`` (smallest mean).  Returns ``(figures, fastest or None)``."""
    out = {}
    for key in dict.fromkeys(k for r in rows for k in r.get("baselines", {})):
        times = [r["baselines"][key]["algo_s"] for r in rows
                 if key in r.get("baselines", {}) and r["baselines"][key].get("algo_s") is not None]
        graphs = [r["baselines"][key]["graph_s"] for r in rows
                  if key in r.get("baselines", {}) and r["baselines"][key].get("graph_s") is not None]
        errors = [r["baselines"][key]["l1_error"] for r in rows
                  if "l1_error" in r.get("baselines", {}).get(key, {})]
        if times:
            out[key] = {"mean_ms": 1e3 * float(np.mean(times)), "median_ms": 1e3 * float(np.median(times)),
                        "graph_mean_ms": 1e3 * float(np.mean(graphs)) if graphs else None,
                        "snapshots": len(times), "mean_l1_error": mean_of(errors)}
    at_tol = [key for key in out if EPSILON_MARK not in key]
    fastest = min(at_tol, key=lambda k: out[k]["mean_ms"]) if at_tol else None
    return out, fastest


def equal_error_baseline(figures, engine_error):
    """The fastest baseline key whose mean true error is at most ``engine_error``, or None."""
    if engine_error is None:
        return None
    matched = [key for key, f in figures.items()
               if f.get("mean_l1_error") is not None and f["mean_l1_error"] <= engine_error]
    return min(matched, key=lambda key: figures[key]["mean_ms"]) if matched else None


def gc_summary(collected_ms):
    """``{"gc_batches", "gc_ms"}``: how many timed batches had a garbage collection
    of note inside, and its milliseconds in all (``collected_ms``: each batch's
    ``gc_ms``, 0 for none)."""
    return {"gc_batches": sum(1 for ms in collected_ms if ms), "gc_ms": float(sum(collected_ms))}


def gc_text(s):
    """``"; garbage collection inside 1 of them (95.6 ms)"`` for a :func:`gc_summary` ``s``
    ("" for none)."""
    return f"; garbage collection inside {s['gc_batches']} of them ({s['gc_ms']:.1f} ms)" if s["gc_batches"] else ""


def summarise(rows, back_to_back=None):
    """The figures of a run of timed batches (batch mode or one sweep point);
    ``back_to_back``: ``(seconds, gc_ms)`` of the same batches applied back
    to back (:meth:`Bench.run_back_to_back`), if they were."""
    apply_s = [r["apply_s"] for r in rows]
    base, fastest = baseline_figures(rows)
    engine_ms = 1e3 * float(np.mean(apply_s)) if apply_s else None
    total_rows = sum(r["rows"] for r in rows)
    out = {"batches": len(rows), "mean_apply_ms": engine_ms,
           "median_apply_ms": 1e3 * float(np.median(apply_s)) if apply_s else None,
           "updates_per_s": total_rows / float(np.sum(apply_s)) if apply_s and np.sum(apply_s) > 0 else None,
           "baselines": base, "fastest_baseline": fastest,
           "mean_baseline_ms": base[fastest]["mean_ms"] if fastest else None,
           "ratio": base[fastest]["mean_ms"] / engine_ms if fastest and engine_ms else None,
           "mean_syncs": mean_of([r.get("syncs") for r in rows]),
           "mean_launches": mean_of([r.get("launches") for r in rows]),
           "engine_mean_l1_error": mean_of([r.get("engine_l1_error") for r in rows]),
           **gc_summary([r.get("gc_ms", 0.0) for r in rows])}
    if back_to_back:
        seconds, collected = back_to_back
        mean_ms = 1e3 * float(np.mean(seconds))
        out["back_to_back"] = {"mean_apply_ms": mean_ms, "median_apply_ms": 1e3 * float(np.median(seconds)),
                               "ratio": base[fastest]["mean_ms"] / mean_ms if fastest else None,
                               **gc_summary(collected)}
    matched = equal_error_baseline(base, out["engine_mean_l1_error"])
    out["equal_error_baseline"] = matched
    out["equal_error_ratio"] = base[matched]["mean_ms"] / engine_ms if matched and engine_ms else None
    return out


def to_json(obj):
    """``json.dump`` hook: NumPy values, and CuPy scalars (0-d arrays) a report might hold."""
    if hasattr(obj, "get") and hasattr(obj, "ndim") and obj.ndim == 0:
        obj = obj.get()
    return json_default(obj)


def fmt(value, spec=".2f", none="-"):
    return none if value is None else format(value, spec)


def fmt_ratio(value):
    return "-" if value is None else f"{value:.1f}x" if value >= 1 else f"{value:.2f}x"


def counts_text(counts):
    """``", syncs 2, launches 40"`` for the fields a report has ("" for none)."""
    return "".join(f", {k} {v}" for k, v in counts.items() if v is not None)


# ---------------------------------------------------------------------------
# cross-check
# ---------------------------------------------------------------------------

def pagerank_distance(xp, vertices, ranks, reference):
    """The L1 distance between ``ranks`` of ``vertices`` (any order; the snapshot's
    vertex set, as :func:`cross_check` found it) and a ``reference`` result frame
    (columns ``vertex`` and ``pagerank``, sorted by vertex)."""
    def column(values):
        return xp.asarray(getattr(values, "values", values))

    order = xp.argsort(column(vertices).astype(xp.int64))
    ranks = column(ranks).astype(xp.float64)[order]
    return float(xp.abs(ranks - column(reference["pagerank"]).astype(xp.float64)).sum())


def baseline_allowance(baseline):
    """PageRank error allowed to ``baseline`` (a :class:`PylibcugraphBaseline`) on top of
    the engine's bound: its stopping rule leaves about ``alpha / (1 - alpha) * epsilon``,
    at least :data:`PAGERANK_BASELINE_ERROR`."""
    return max(PAGERANK_BASELINE_ERROR, baseline.alpha / (1 - baseline.alpha) * baseline.epsilon)


def cross_check(xp, kind, engine, vertices, base, tol, allowance=PAGERANK_BASELINE_ERROR):
    """Compare the engine's result frame with pylibcugraph's arrays on the snapshot
    whose sorted vertex ids are ``vertices``; return a message or None.  PageRank:
    ``tol`` is the engine's L1 error bound, ``allowance`` pylibcugraph's own
    error on top of it (:func:`baseline_allowance`)."""
    ev = xp.asarray(engine["vertex"].values).astype(xp.int64)
    if ev.shape != vertices.shape or bool((ev != vertices).any()):
        return (f"{kind}: vertex sets differ: the engine has {int(ev.size)} vertices, "
                f"the stream's snapshot {int(vertices.size)}")
    bv = xp.asarray(base["vertex"]).astype(xp.int64)
    order = xp.argsort(bv)
    if bv.shape != vertices.shape or bool((bv[order] != vertices).any()):
        return (f"{kind}: pylibcugraph returned {int(bv.size)} vertices, not the snapshot's "
                f"{int(vertices.size)}")
    if kind in ("sssp", "bfs"):
        ed = xp.asarray(engine["distance"].values)
        bd = xp.asarray(base["distance"])[order]
        if kind == "bfs":   # unreachable: int32 max here, the vertex dtype's max there
            ed = xp.where(ed == np.iinfo(np.int32).max, -1, ed.astype(xp.int64))
            bd = xp.where(bd >= np.iinfo(np.int32).max, -1, bd.astype(xp.int64))
            bad = ed != bd
        else:
            ed, bd = ed.astype(xp.float64), bd.astype(xp.float64)
            big = ed >= np.finfo(np.float32).max / 2
            bad = (big != (bd >= np.finfo(np.float32).max / 2)) | (~big & (xp.abs(ed - bd) > 1e-5 * xp.abs(bd)))
        if bool(bad.any()):
            first = xp.flatnonzero(bad)[:3]
            return (f"{kind}: {int(bad.sum())} distances differ, e.g. vertices {to_host(ev[first]).tolist()}: "
                    f"engine {to_host(ed[first]).tolist()} vs pylibcugraph {to_host(bd[first]).tolist()}")
    elif kind == "wcc":
        el = xp.asarray(engine["labels"].values).astype(xp.int64)
        bl = xp.asarray(base["labels"])[order].astype(xp.int64)
        if el.size:
            _, e_id = xp.unique(el, return_inverse=True)
            _, b_id = xp.unique(bl, return_inverse=True)
            e_id, b_id = e_id.reshape(-1).astype(xp.int64), b_id.reshape(-1).astype(xp.int64)
            pairs = xp.unique(e_id * (int(b_id.max()) + 1) + b_id)
            if not int(pairs.size) == int(e_id.max()) + 1 == int(b_id.max()) + 1:
                return "wcc: the partitions differ"
    elif kind == "pagerank":
        er = xp.asarray(engine["pagerank"].values).astype(xp.float64)
        br = xp.asarray(base["pagerank"])[order].astype(xp.float64)
        l1 = float(xp.abs(er - br).sum())
        if l1 > tol + allowance:   # the engine's bound plus cuGraph's own stopping error
            return f"pagerank: L1 distance {l1:.2e}"
    return None


# ---------------------------------------------------------------------------
# the run
# ---------------------------------------------------------------------------

class Bench:
    """What every mode shares: the array module, the engine's backend, the
    baseline, the stream, the source, and the failures so far."""

    def __init__(self, args, xp, cgs, plc, stream, source):
        self.args, self.xp, self.cgs, self.plc = args, xp, cgs, plc
        self.stream, self.source = stream, source
        self.failures = []

    def frame(self, columns):
        """A batch as the engine gets it: cuDF (dict of CuPy arrays without cuDF) on the GPU."""
        return to_device_frame(columns) if self.args.backend == "gpu" else columns

    def new_graph(self, kind):
        cgs, stream = self.cgs, self.stream
        g, t_build = timed(lambda: cgs.StreamGraph.from_edgelist(self.frame(stream.initial), source="src", destination="dst", weight="weight",
                                                                  backend=self.args.backend))
        q, t_track = timed(lambda: g.track(make_query(kind, self.source, mode=self.args.engine_mode, tol=self.args.tol,
                                                     stop=self.args.stop)))
        return g, q, {"build_s": t_build, "track_s": t_track}

    def free(self):
        if self.args.backend == "gpu":
            from cugraph_stream.backends.gpu import engine_memory_pool

            self.xp.get_default_memory_pool().free_all_blocks()
            engine_memory_pool().free_all_blocks()

    def pool_bytes(self):
        """Bytes the GPU memory pools (CuPy's and the engine's) hold from the
        driver; None on the CPU.  What they gain during a timed batch was
        allocated from the driver inside it (:meth:`free` empties them)."""
        if self.args.backend != "gpu":
            return None
        from cugraph_stream.backends.gpu import engine_memory_pool

        return int(self.xp.get_default_memory_pool().total_bytes() + engine_memory_pool().total_bytes())

    def baselines(self, kind):
        """``{variant: PylibcugraphBaseline}`` for ``kind`` (empty without pylibcugraph)."""
        if self.plc is None:
            return {}
        tol = self.args.tol
        epsilons = (self.args.plc_epsilons or [tol]) if kind == "pagerank" else [tol]
        return {baseline_key(v, eps, tol): PylibcugraphBaseline(self.plc, self.xp, epsilon=eps, variant=v)
                for v in self.args.baseline_variants for eps in epsilons}

    def check(self, kind, query, baselines, mask, seen, label, reference=None):
        """Run every baseline variant on the snapshot ``(mask, seen)``, cross-check
        the engine's result; ``{variant: {"algo_s", "graph_s"}}``.  With a
        ``reference`` (PageRank: a result within a much smaller L1 bound), each
        variant's entry and the returned dict's ``"engine"`` also get
        ``l1_error``, the true L1 distance of their ranks from it."""
        out = {}
        if not baselines:
            return out
        src, dst, w, vertices = self.stream.snapshot(mask, seen)
        result = query.result()
        if reference is not None:
            out["engine"] = {"l1_error": pagerank_distance(self.xp, result["vertex"], result["pagerank"],
                                                           reference)}
        for variant, baseline in baselines.items():
            if variant.startswith("int32") and not int32_fits(vertices.size, src.size):
                continue
            try:
                base, t = baseline.run(kind, src, dst, w, self.source, vertices)
                out[variant] = {"algo_s": t, "graph_s": baseline.last_graph_s}
                problem = cross_check(self.xp, kind, result, vertices, base,
                                      getattr(query, "error_tol", self.args.tol), baseline_allowance(baseline))
                if reference is not None and problem is None:
                    out[variant]["l1_error"] = pagerank_distance(self.xp, base["vertex"], base["pagerank"],
                                                                 reference)
            except Exception as error:  # noqa: BLE001  keep the engine's figures; report the baseline's fault
                problem = f"baseline {variant} failed: {type(error).__name__}: {error}"
            if problem:
                self.failures.append(f"{label} [{variant}]: {problem}")
                print("MISMATCH", label, variant, problem, flush=True)
        return out

    def reference(self, kind):
        """A second graph from G0 tracking PageRank within ``--reference-tol`` (batch
        mode, with a baseline), or None: the true errors' yardstick."""
        if kind != "pagerank" or self.plc is None or not self.args.reference_tol:
            return None
        cgs = self.cgs
        g = cgs.StreamGraph.from_edgelist(self.frame(self.stream.initial), source="src", destination="dst",
                                          weight="weight", backend=self.args.backend)
        q = g.track(make_query(kind, self.source, mode="incremental", tol=self.args.reference_tol))
        return g, q

    def apply_timed(self, g, frame):
        """``(report, seconds, counts)`` of one timed batch; ``counts`` has ``gc_ms``
        where the report counts a garbage collection of note (a full one)."""
        report, t = timed(lambda: g.apply(frame, weight="weight"))
        counts = report_counts(report)
        if report.gc_s >= GC_SHOWN_S:
            counts["gc_ms"] = round(1e3 * report.gc_s, 1)
        return report, t, counts

    # -- modes ----------------------------------------------------------------
    def run_batches(self, kind, batches, masks, seens, label, back_to_back=False):
        """Apply ``batches`` in order to a fresh graph tracking ``kind``, each
        timed and cross-checked (after G0 too); the per-batch rows, setup times
        and, with ``back_to_back``, :meth:`run_back_to_back`'s ``(seconds, gc_ms)``
        (else None)."""
        g, q, setup = self.new_graph(kind)
        print(f"{label}: G0 loaded in {setup['build_s']:.2f} s, {kind} tracked in {setup['track_s']:.2f} s",
              flush=True)
        baselines = self.baselines(kind)
        reference = self.reference(kind)            # (its batches are not timed)
        # G0 first: a check, and PageRank's warm start for the first batch (not timed)
        self.check(kind, q, baselines, self.stream.initial_mask, self.stream.initial_seen, f"{label} G0",
                   None if reference is None else reference[1].result())
        collect_garbage()
        rows = []
        for b, (batch, mask, seen) in enumerate(zip(batches, masks, seens)):
            frame = self.frame(batch)
            report, t, counts = self.apply_timed(g, frame)
            if reference is not None:
                reference[0].apply(frame, weight="weight")
            del frame
            row = {"batch": b, "rows": int(batch["src"].size), "apply_s": t, **counts}
            checked = self.check(kind, q, baselines, mask, seen, f"{label} batch {b}",
                                 None if reference is None else reference[1].result())
            engine = checked.pop("engine", None)
            row["baselines"] = checked
            if engine is not None:
                row["engine_l1_error"] = engine["l1_error"]
            row["report"] = report.to_dict()
            rows.append(row)
            base = ", ".join(f"{v} {1e3 * x['algo_s']:.2f} ms" for v, x in row["baselines"].items())
            errors = ", ".join(f"{who} {error:.2e}" for who, error in
                               [("engine", row.get("engine_l1_error"))]
                               + [(v, x.get("l1_error")) for v, x in row["baselines"].items()] if error is not None)
            print(f"{label} batch {b}: {row['rows']} rows, apply {1e3 * t:.2f} ms{counts_text(counts)}"
                  + (f"; pylibcugraph {base}" if base else "") + (f"; true L1 error {errors}" if errors else "")
                  + f"  {report!r}", flush=True)
        back_to_back = self.run_back_to_back(kind, batches, q, label) if back_to_back else None
        del g, q, baselines, reference
        self.free()
        return rows, setup, back_to_back

    def run_back_to_back(self, kind, batches, checked_query, label):
        """The same batches applied back to back to another graph from G0, each timed
        with nothing between them (their frames made first); its results must then
        equal those of ``checked_query`` (the graph checked at every snapshot).
        ``(seconds, gc_ms)`` of each batch (``gc_ms`` 0 where no garbage
        collection of note fell inside it).

        Why: between the checked run's batches run pylibcugraph and the
        cross-check, after which a batch of the engine's costs more (its host
        code and data are out of the CPU's caches: on a lent H200, 10K-row
        batches took 2.4-2.6 ms back to back and 3.3-3.6 ms after 80 ms of
        anything else, even a CPU spin or a one-element kernel; 2026-11-28).
        A stream of batches arriving faster than they apply runs back to back."""
        from .ab_constants import agree, values_of

        g, q, _ = self.new_graph(kind)
        frames = [self.frame(batch) for batch in batches]
        collect_garbage()
        seconds, collections = [], []
        for frame in frames:
            _, t, counts = self.apply_timed(g, frame)
            seconds.append(t)
            collections.append(counts.get("gc_ms", 0.0))
        # PageRank's sums run in no fixed order: two runs agree within both ranks' error bounds
        same = agree(kind, values_of(q), values_of(checked_query), tol=getattr(q, "error_tol", self.args.tol))
        if not same:
            self.failures.append(f"{label} back to back: results differ from the checked run's")
            print("MISMATCH", label, "back to back: results differ from the checked run's", flush=True)
        print(f"{label} back to back: {len(seconds)} batches, median {1e3 * np.median(seconds):.2f} ms, "
              f"mean {1e3 * np.mean(seconds):.2f} ms" + gc_text(gc_summary(collections)), flush=True)
        del g, q, frames
        return seconds, collections

    def run_latency(self, kind, rows, mask, seen):
        """Single-row pandas batches on a fresh graph tracking ``kind``; one check at the end."""
        import pandas as pd

        args = self.args
        g, q, setup = self.new_graph(kind)
        n = int(rows["src"].size)
        frames = [pd.DataFrame({c: rows[c][i:i + 1] for c in ("src", "dst", "weight", "op")}) for i in range(n)]
        warm = min(args.latency_warmup, n)
        for frame in frames[:warm]:
            g.apply(frame, weight="weight")
        collect_garbage()
        seconds, records = [], []
        for i, frame in enumerate(frames[warm:]):
            report, t, counts = self.apply_timed(g, frame)
            seconds.append(t)
            records.append({"batch": i, "op": int(rows["op"][warm + i]), "apply_s": t, **counts,
                            "edges_scanned": report.edges_scanned,
                            "path": report.queries[0].path if report.queries else None})
            if (i + 1) % max(1, (n - warm) // 10) == 0 or i + 1 == n - warm:
                window = records[-max(1, (n - warm) // 10):]
                s = latency_summary([r["apply_s"] for r in window])
                extra = counts_text({"syncs": mean_of([r["syncs"] for r in window]),
                                     "launches": mean_of([r["launches"] for r in window])})
                print(f"latency {kind}: {i + 1}/{n - warm} single rows; last {s['batches']}: "
                      f"p50 {s['p50_ms']:.3f} ms, max {s['max_ms']:.3f} ms{extra}", flush=True)
        summary = latency_summary(seconds)
        summary.update({"mean_syncs": mean_of([r["syncs"] for r in records]),
                        "mean_launches": mean_of([r["launches"] for r in records]),
                        "recomputed": sum(r["path"] == "recompute" for r in records),
                        **gc_summary([r.get("gc_ms", 0.0) for r in records])})
        baselines = self.check(kind, q, self.baselines(kind), mask, seen, f"latency {kind} final")
        summary["checked"] = bool(baselines)
        del g, q, frames
        self.free()
        return {**setup, "warmup": warm, "batches": records, "final_baselines": baselines, "summary": summary}

    def run_ingest(self):
        """One batch of new edges into G0 with no query tracked, timed on
        ``--ingest-repeats`` fresh copies of G0 after a first, untimed, that loads
        the kernels the batch needs (a fresh process compiles each on first use,
        or reads it from the disk cache: 149.5 ms instead of 7.5 ms on a lent
        H100), which ``track``'s warm-up does for query batches.  One timing is
        one batch on one copy: the median of several, each from its own copy,
        is what a rerun reproduces (single timings of this batch spread over
        3.5-4.9 ms in one H200 session).  Each copy starts with the memory
        pools emptied (:meth:`free`), so the batch's larger allocations come
        from the driver inside the timer, as a first batch after a load does:
        ``pool_growth_bytes`` gives, per timed copy, what the pools gained
        (on 2026-11-30 whole processes ran their copies near 3.4 ms or near
        4.2 ms; this says whether allocations differ between the two)."""
        args, xp, cgs = self.args, self.xp, self.cgs
        n, rows = self.stream.id_bound, args.ingest_rows
        rng = xp.random.RandomState(args.seed + 7)
        batch = self.frame({"src": rng.randint(0, n, rows, dtype=xp.int64),
                            "dst": rng.randint(0, n, rows, dtype=xp.int64),
                            "weight": make_weights(xp, rng, rows, args.weights),
                            "op": xp.ones(rows, dtype=xp.int8)})
        timings, growth = [], []
        for _ in range(1 + args.ingest_repeats):
            g = cgs.StreamGraph.from_edgelist(self.frame(self.stream.initial), source="src", destination="dst",
                                              weight="weight", backend=args.backend)
            collect_garbage()
            held = self.pool_bytes()
            timings.append(self.apply_timed(g, batch))
            growth.append(None if held is None else self.pool_bytes() - held)
            del g
            self.free()
        first = timings[0][1]
        seconds = [t for _, t, _ in timings[1:]]
        t = float(np.median(seconds))
        report, _, counts = timings[-1]
        out = {"rows": rows, "seconds": t, "updates_per_s": rows / t, "seconds_all": seconds,
               "first_seconds": first, "pool_growth_bytes": growth[1:], **counts, "report": report.to_dict(),
               **gc_summary([c.get("gc_ms", 0.0) for _, _, c in timings[1:]])}
        print(f"ingest: {rows} rows in {1e3 * t:.1f} ms = {rows / t / 1e6:.1f}M updates/s (median of "
              f"{len(seconds)} copies of G0, {1e3 * min(seconds):.1f}-{1e3 * max(seconds):.1f} ms; the same batch "
              f"on a first copy, untimed: {1e3 * first:.1f} ms){counts_text(counts)} {report!r}", flush=True)
        if growth[-1] is not None:
            print(f"ingest: the memory pools grew by {', '.join(f'{b / 2**20:.0f}' for b in growth[1:])} MiB "
                  "in the timed batches", flush=True)
        del batch
        return out


def draw_sweep(stream, sizes, per_point):
    """The sweep's batches: for each size, ``per_point`` batches drawn one after
    the other from G0's state.  ``[(size, [(batch, mask, seen), ...]), ...]``."""
    mask, seen = stream.initial_mask, stream.initial_seen
    points = []
    for size in sizes:
        drawn = []
        for _ in range(per_point):
            batch, mask, seen = stream.draw(size, mask, seen)
            drawn.append((batch, mask, seen))
        points.append((size, drawn))
    return points


def print_tables(results, device):
    variants = results.get("baseline_variants") or list(VARIANTS)
    heads = "".join(f" plc {v} (ms) |" for v in variants)
    rules = " ---: |" * len(variants)

    def base_cells(summary):
        return "".join(f" {fmt(summary['baselines'].get(v, {}).get('mean_ms'))} |" for v in variants)

    lines = []
    if results.get("queries"):
        lines += ["", f"Batch mode ({device}): ratio = fastest pylibcugraph variant's mean / engine mean apply",
                  (f"| query | engine mean (ms) | engine median (ms) |{heads} ratio vs fastest "
                   "| syncs / batch | launches / batch |"),
                  f"| --- | ---: | ---: |{rules} ---: | ---: | ---: |"]
        for kind, r in results["queries"].items():
            s = r["summary"]
            lines.append(f"| {kind} | {fmt(s['mean_apply_ms'])} | {fmt(s['median_apply_ms'])} |{base_cells(s)} "
                         f"{fmt_ratio(s['ratio'])} | {fmt(s['mean_syncs'], '.1f')} | "
                         f"{fmt(s['mean_launches'], '.1f')} |")
        for kind, r in results["queries"].items():
            b = r["summary"].get("back_to_back")
            if b:
                lines.append(f"{kind} back to back (the same batches, nothing between them): mean "
                             f"{fmt(b['mean_apply_ms'])} ms, median {fmt(b['median_apply_ms'])} ms; fastest "
                             f"pylibcugraph / that mean: {fmt_ratio(b['ratio'])}")
        for kind, r in results["queries"].items():
            s = r["summary"]
            if s.get("engine_mean_l1_error") is not None:
                errors = "".join(f", {v} {fmt(b.get('mean_l1_error'), '.2e')}" for v, b in s["baselines"].items())
                lines.append(f"\n{kind}: mean true L1 error against a reference within L1 "
                             f"{results['config']['reference_tol']:.0e}: engine "
                             f"{s['engine_mean_l1_error']:.2e}{errors}")
                matched = s.get("equal_error_baseline")
                lines.append(
                    f"{kind} at equal or better measured error: " + (
                        f"fastest pylibcugraph as accurate as the engine: {matched}, "
                        f"{fmt(s['baselines'][matched]['mean_ms'])} ms (error "
                        f"{s['baselines'][matched]['mean_l1_error']:.2e}) against the engine's "
                        f"{fmt(s['mean_apply_ms'])} ms: {fmt_ratio(s['equal_error_ratio'])}" if matched else
                        "no pylibcugraph run timed was as accurate as the engine"))
    if results.get("latency"):
        lines += ["", f"Latency mode ({device}): single-row pandas batches",
                  ("| query | batches | p50 (ms) | p99 (ms) | mean (ms) | max (ms) | updates/s | syncs / batch "
                   "| launches / batch | recomputed | checked |"),
                  "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"]
        for kind, r in results["latency"].items():
            s = r["summary"]
            lines.append(f"| {kind} | {s['batches']} | {fmt(s['p50_ms'], '.3f')} | {fmt(s['p99_ms'], '.3f')} | "
                         f"{fmt(s['mean_ms'], '.3f')} | {fmt(s['max_ms'], '.3f')} | "
                         f"{fmt(s['updates_per_s'], ',.0f')} | {fmt(s['mean_syncs'], '.1f')} | "
                         f"{fmt(s['mean_launches'], '.1f')} | {s.get('recomputed', '-')} | "
                         f"{'yes' if s['checked'] else 'no'} |")
    if results.get("sweep"):
        lines += ["", f"Batch-size sweep ({device}): means per batch; ratio = fastest variant / engine",
                  (f"| query | rows / batch | engine (ms) | updates/s |{heads} ratio vs fastest "
                   "| syncs / batch | launches / batch |"),
                  f"| --- | ---: | ---: | ---: |{rules} ---: | ---: | ---: |"]
        for kind, points in results["sweep"].items():
            for p in points:
                s = p["summary"]
                lines.append(f"| {kind} | {p['rows']:,} | {fmt(s['mean_apply_ms'])} | "
                             f"{fmt(s['updates_per_s'], ',.0f')} |{base_cells(s)} "
                             f"{fmt_ratio(s['ratio'])} | {fmt(s['mean_syncs'], '.1f')} | "
                             f"{fmt(s['mean_launches'], '.1f')} |")
    if results.get("ingest"):
        i = results["ingest"]
        counts = counts_text({k: i[k] for k in ("syncs", "launches")})
        first = (f" (first copy of G0, loading kernels: {1e3 * i['first_seconds']:.1f} ms)"
                 if "first_seconds" in i else "")
        spread = (f", median of {len(i['seconds_all'])}: {1e3 * min(i['seconds_all']):.1f}-"
                  f"{1e3 * max(i['seconds_all']):.1f} ms" if i.get("seconds_all") else "")
        lines += ["", (f"Ingest ({device}): {i['rows']:,} rows in {1e3 * i['seconds']:.1f} ms{spread} = "
                       f"{i['updates_per_s'] / 1e6:.1f}M updates/s{first}{counts}")]
    lines += ["", gc_lines(results)]
    print("\n".join(lines), flush=True)


def gc_lines(results):
    """Which timed series had a garbage collection of note inside a batch (its time
    counts in the figures above), or that none did."""
    series = [(f"{kind} batches", r["summary"]) for kind, r in results.get("queries", {}).items()]
    series += [(f"{kind} back to back", r["summary"]["back_to_back"]) for kind, r in results.get("queries", {}).items()
               if r["summary"].get("back_to_back")]
    series += [(f"latency {kind}", r["summary"]) for kind, r in results.get("latency", {}).items()]
    series += [(f"sweep {kind} {p['rows']:,} rows", p["summary"]) for kind, points in results.get("sweep", {}).items()
               for p in points]
    if results.get("ingest"):
        series.append(("ingest", results["ingest"]))
    hit = [f"{name}: {s['gc_batches']} ({s['gc_ms']:.1f} ms)" for name, s in series if s.get("gc_batches")]
    return (f"Garbage collection of {1e3 * GC_SHOWN_S:g} ms or more inside timed batches (counted in the figures): "
            + ("; ".join(hit) or "none") + " (each timed series starts after a full one, untimed)")


def main(argv=None, baseline_module=None):
    """Run the benchmark; ``baseline_module`` stands in for pylibcugraph (tests)."""
    args = parse_args(argv)
    if args.backend == "gpu":
        from cugraph_stream.backends import available_backends

        reason = available_backends().get("gpu")
        if reason:
            print(f"cannot run: the GPU backend is unavailable here ({reason}); "
                  f"--backend cpu runs the script's protocol on the CPU engine", flush=True)
            return 2
        import cupy as xp
    else:
        xp = np

    import cugraph_stream as cgs
    from cugraph_stream.datasets import rmat

    plc, plc_error = baseline_module, None
    if plc is None and not args.no_baseline and args.backend == "gpu":
        try:
            import pylibcugraph as plc
        except ImportError as error:
            plc, plc_error = None, f"{type(error).__name__}: {error}"
    if args.no_baseline:
        plc = None
    info = gpu_info() if args.backend == "gpu" else None
    device = (info or {}).get("name", "CPU (NumPy)")
    if args.backend == "gpu":
        from .pylibcugraph_baseline import warm_up_gpu_engine

        print("warming up: compiling the engine's and CuPy's kernels on a small graph", flush=True)
        _, t_warm = timed(lambda: warm_up_gpu_engine(cgs))
        print(f"warm-up (kernel compilation) {t_warm:.1f} s", flush=True)
    baseline_text = (getattr(plc, "__version__", "unknown version") if plc is not None
                     else "not used (--no-baseline)" if args.no_baseline or args.backend != "gpu"
                     else f"not importable ({plc_error}): the baseline columns stay empty")
    print(f"device: {device}; pylibcugraph: {baseline_text}", flush=True)

    edges, t_gen = timed(lambda: rmat(args.scale, edge_factor=args.edge_factor, seed=args.seed,
                                      backend=args.backend))
    try:
        stream, t_stream = timed(lambda: Stream.grapin(xp, edges, args.batches, args.batch_size, args.seed + 1,
                                                       weights=args.weights, id_bound=2 ** args.scale))
    except ValueError as error:
        print(f"cannot run: {error}", flush=True)
        return 2
    edges = None                        # the stream holds the columns
    source, degree = pick_source(xp, stream.initial["src"], args.source, args.seed + 3)
    g0_vertices = int(stream.initial_seen.sum())
    print(f"R-MAT scale {args.scale}: {int(stream.src.size)} edges (generated in {t_gen:.2f} s); G0 "
          f"{int(stream.initial['src'].size)} edges, {g0_vertices} vertices; weights {args.weights}; "
          f"source {source} ({args.source}, out-degree {degree})", flush=True)
    # the latency rows and the sweep's batches are drawn before anything runs, each from its own seed
    latency_rows = sweep_points = None
    try:
        if args.latency:
            stream.reseed(args.seed + 5)
            latency_rows = stream.single_rows(args.latency_warmup + args.latency)
        if args.sweep:
            stream.reseed(args.seed + 4)
            sweep_points, t_draw = timed(lambda: draw_sweep(stream, args.sweep, args.sweep_batches))
            print(f"sweep: drew {len(sweep_points)} points x {args.sweep_batches} batches in {t_draw:.2f} s "
                  f"(pool now {int(stream.src.size)} edges)", flush=True)
    except ValueError as error:
        print(f"cannot run: {error}", flush=True)
        return 2
    bench = Bench(args, xp, cgs, plc, stream, source)
    results = {"device": device, "gpu": info, "config": vars(args), "machine": machine_info(),
               "graph": {"pool_edges": int(stream.src.size), "g0_edges": int(stream.initial["src"].size),
                         "g0_vertices": g0_vertices, "generate_s": t_gen, "stream_s": t_stream},
               "source": {"mode": args.source, "vertex": source, "out_degree": degree},
               "baseline_variants": list(args.baseline_variants) if plc is not None else [],
               "queries": {}, "latency": {}, "sweep": {}}

    if args.batches and "batches" not in args.skip:
        for kind in mode_queries(args, "batches"):
            rows, setup, back_to_back = bench.run_batches(kind, stream.batches, stream.masks, stream.seens, kind,
                                                          back_to_back=True)
            seconds, collected = back_to_back
            results["queries"][kind] = {**setup, "batches": rows, "back_to_back_s": seconds,
                                        "back_to_back_gc_ms": collected,
                                        "summary": summarise(rows, back_to_back)}

    if args.ingest_rows and "ingest" not in args.skip:
        results["ingest"] = bench.run_ingest()

    if latency_rows is not None:
        rows, mask, seen = latency_rows
        for kind in mode_queries(args, "latency"):
            s = bench.run_latency(kind, rows, mask, seen)
            results["latency"][kind] = s
            s = s["summary"]
            print(f"latency {kind}: {s['batches']} single rows: p50 {s['p50_ms']:.3f} ms, p99 {s['p99_ms']:.3f} "
                  f"ms, mean {s['mean_ms']:.3f} ms, max {s['max_ms']:.3f} ms, {s['updates_per_s']:,.0f} updates/s"
                  + counts_text({"syncs": s["mean_syncs"], "launches": s["mean_launches"]})
                  + gc_text(s),
                  flush=True)

    if sweep_points is not None:
        points = sweep_points
        batches = [b for _, drawn in points for b, _, _ in drawn]
        masks = [m for _, drawn in points for _, m, _ in drawn]
        seens = [s for _, drawn in points for _, _, s in drawn]
        for kind in mode_queries(args, "sweep"):
            rows, setup, _ = bench.run_batches(kind, batches, masks, seens, f"sweep {kind}")
            out, at = [], 0
            for size, drawn in points:
                point_rows = rows[at:at + len(drawn)]
                at += len(drawn)
                for r in point_rows:
                    r["point"] = size
                out.append({"rows": size, "batches": point_rows, "summary": summarise(point_rows)})
            results["sweep"][kind] = out

    print_tables(results, device)
    results["failures"] = bench.failures
    results["ok"] = not bench.failures
    results["versions"] = versions()
    if args.out:
        with open(args.out, "w") as f:
            json.dump(results, f, indent=1, default=to_json)
        print(f"wrote {args.out}", flush=True)
    if bench.failures:
        print("FAILED cross-checks:", *bench.failures, sep="\n  ", flush=True)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
