"""Choosing, per query and batch, between the incremental update and a recomputation.

A tracked query in ``mode="auto"`` asks its :class:`CostModel` before every
batch which path is cheaper.  Both paths give the same result (the
contract), so the choice only decides the time spent.

Costs are modelled in *work* (adjacency entries scanned, the ``Work``
counts every engine reports) turned into seconds by per-path rates::

    seconds(path) = fixed[path] + per_edge[path] * work(path)

* ``work(recompute)`` is what the last computation from scratch scanned
  (the one ``track`` ran, or a later recomputation), scaled by how much the
  graph (vertices + edges) has grown or shrunk since: an exact count, not
  a timing, so it is not inflated by the kernel compilation that a first
  computation pays on a GPU.  (A query restored from a checkpoint assumes
  one pass over the graph until it recomputes.  PageRank's recompute path
  restarts from its last ranks, so after its first it costs a warm
  restart, not ``track``'s computation.)
* ``work(incremental)`` is predicted from the batch: its changed arcs
  (plus added and removed vertices) times the work per changed arc that
  the query's incremental updates have cost so far (a running mean).
* ``fixed`` and ``per_edge`` are fitted by least squares to the timed
  updates of each path on this device (the last :data:`HISTORY` of them;
  a path's first timed update is dropped once there are others, since it
  may include compilation).  ``track``'s computation is the recompute
  path's first timed update, except where the recompute path is another
  computation (PageRank's, a warm restart from the last ranks): there it
  only stands in for the path's rate, and the path counts as never timed
  until it runs.  Until a path has three, its rate is the one through
  0 of what was timed (an upper bound for as much work as was timed); for
  the incremental path, whose updates are mostly fixed cost, the estimate
  is the lower of that and the timings' mean level plus the prior rate
  per entry (a line through 0 charges each update's fixed cost to its
  entries, far above the truth for more work, or after updates of none).
  Before anything is timed (a query restored from a checkpoint) the
  backend's prior rates (:data:`PRIOR_RATES`) apply.

One timing far above its path's fitted line (more than :data:`OUTLIER`
times the line's estimate, for no more work than the fitted timings did:
a pause of the process, a first call that loaded something) is held back
rather than fitted: it would otherwise make its path look dear, the other
path would be taken from then on, and nothing would time the first again
until a probe.  The next timing of the
same path decides: if it is high too, both are fitted (the path did get
dearer), else the held one is dropped.  A timing below the line by the
same factor shows that what was fitted no longer holds (a probe after
such a pause, say): the path's history starts again from it.

Estimates go stale for the path that is not taken, so when the two
estimates are within :data:`AMBIGUOUS` of each other and the other path's
rates are older than :data:`PROBE_AGE` timed updates (or were never
measured, or rest on one timing, which may include first-run costs), the
other path runs once to refresh them (a probe), at most 25% above the
chosen estimate by construction.  A path whose only rate is a stand-in's
(PageRank's warm restart, estimated from ``track``'s computation from
scratch, which cost 1.3-1.4x a warm restart at 1,000-row batches and 2x at
one-row batches in ``benchmarks.mode_choice``, CPU, R-MAT 16) is probed
within :data:`STAND_IN_AMBIGUOUS` instead, at most 2x.  An incremental path
timed but not fitted yet (fewer than three timings: its rate through 0
includes its first, which on a GPU may include compiling kernels the
warm-up did not load: ``benchmarks.gpu_vs_pylibcugraph``'s first PageRank
batch on a lent H100 took 168.5 ms, the next ones 11-17) is probed
whatever the estimates say once its rates are :data:`PROBE_AGE` timed
updates old, until it has the timings a fit needs.  (The recompute path's
first timing is ``track``'s, which runs after the warm-up; forcing
recomputations on a large graph would cost far more than it could teach.)
Where the incremental path is bounded by the give-up below (``choose(...,
bounded=True)``: the monotonic queries), a query that keeps recomputing
probes it after :data:`PROBE_AGE` updates whatever the estimates say: a
misleading timing (a first update that compiled, a pause) would otherwise
keep the recompute path chosen for good, and the probe costs about a
recomputation at most.  Each probe that finds the path dear doubles the
wait for the next (up to :data:`MAX_PROBE_AGE`).

A wrong estimate is bounded by a give-up: :meth:`recompute_budget` is the
work of a recomputation, and a monotonic engine whose incremental
invalidation alone reads more than that recomputes instead (reported as the
recompute path, and timed as one).  A first recompute timing inflated by
compilation keeps that path looking dear until a probe or a give-up times
it again.

The model only reads host scalars that the engines already have; it adds
no device work and no synchronisation.  Times come from the
:class:`~cugraph_stream.report.QueryReport` of each batch, after it is
published, through :meth:`CostModel.observe`.
"""
from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass

PATHS = ("incremental", "recompute")
#: timed updates kept per path for the fit
HISTORY = 16
#: a probe of the other path runs when its estimate is within this factor of the chosen one...
AMBIGUOUS = 1.25
#: (...or within this one when its only rate is a stand-in's, another computation's)
STAND_IN_AMBIGUOUS = 2.0
#: ...and its rates were fitted more than this many timed updates ago (or never)
PROBE_AGE = 32
#: the longest wait between probes of a bounded incremental path (it doubles from PROBE_AGE
#: after each probe that found the path dear)
MAX_PROBE_AGE = 1024
#: rates before anything was timed: (fixed seconds per update, seconds per edge scanned)
PRIOR_RATES = {"cpu": (2e-4, 2e-8), "gpu": (2e-3, 2e-10)}
#: weight of a new batch in the running mean of incremental work per changed arc
WORK_SMOOTHING = 0.25
#: a timing above this many times its path's fitted estimate is held back until the next one
OUTLIER = 3.0


@dataclass(frozen=True)
class PathChoice:
    """Which path an update takes and why.

    Attributes
    ----------
    path : {"incremental", "recompute"}
    reason : str
        One line: the mode that forced it, the estimates that decided it,
        a probe, or (set by the engine) an incremental update that gave up.
    incremental_s, recompute_s : float
        The estimated seconds of each path (NaN when the mode forced the
        path and nothing was estimated).
    """

    path: str
    reason: str
    incremental_s: float = math.nan
    recompute_s: float = math.nan


class _Rates:
    """Timed ``(work, seconds)`` of one path and the least-squares line through them."""

    held = None         # (class defaults: models pickled before they existed hold nothing back
    stand_in = None     # and have no stand-in)

    def __init__(self):
        self.history = deque(maxlen=HISTORY + 1)
        self.fitted = None          # (fixed, per_edge), or None before two timed updates
        self.age = 0                # timed updates of the *other* path since this one was last timed
        self.held = None            # a timing far above the fit, until the next one decides (see OUTLIER)
        self.stand_in = None        # (work, seconds) of another computation: the rate until one is timed

    def add(self, work, seconds):
        work, seconds = float(work), float(seconds)
        self.age = 0
        if self.fitted is not None:
            fixed, per_edge = self.fitted
            expected = fixed + per_edge * work
            # (more work than any fitted timing is no outlier: it teaches the slope)
            high = 0.0 < OUTLIER * expected < seconds and work <= max(w for w, _ in self.history)
            held, self.held = self.held, None
            if high and held is None:
                self.held = (work, seconds)
                return
            if high:                # a second high one in a row: the path got dearer
                self.history.append(held)
            elif OUTLIER * seconds < expected:      # far cheaper: what was fitted no longer holds
                self.history.clear()
                self.fitted = None
        self.history.append((work, seconds))
        points = list(self.history)[1:] if len(self.history) > 1 else []   # the first may include compiling
        if len(points) >= 2:
            self.fitted = _fit(points)

    def observed(self):
        return bool(self.history)

    def rate(self):
        """``(fixed, per_edge)``: the fit, or before it (one or two timed updates) the
        rate through 0 of what was timed (an upper bound when the first one
        included compiling), or before anything was timed the stand-in's;
        None when there is neither."""
        if self.fitted is not None:
            return self.fitted
        if not self.history:
            if self.stand_in is None:
                return None
            work, seconds = self.stand_in
            return 0.0, seconds / max(work, 1.0)
        return 0.0, sum(t for _, t in self.history) / max(sum(w for w, _ in self.history), 1.0)

    def level(self, per_edge):
        """The timed updates' mean seconds less ``per_edge`` for the work each scanned
        (at least 0): their fixed cost, were each entry to cost ``per_edge``."""
        return max(sum(t - per_edge * w for w, t in self.history) / len(self.history), 0.0)


def _fit(points):
    """``(fixed, per_edge)``, both >= 0, of the least-squares line through ``(work, seconds)``
    (plain Python: a few microseconds for :data:`HISTORY` points, paid once per batch)."""
    # one pass of sums (the spread's rounding, about n * mean_work**2 * 1e-16, is far
    # below the 5% spread under which the work counts as one level)
    n = len(points)
    sum_work = sum_seconds = sum_work2 = sum_product = 0.0
    for w, t in points:
        sum_work += w
        sum_seconds += t
        sum_work2 += w * w
        sum_product += w * t
    mean_work, mean_seconds = sum_work / n, sum_seconds / n
    spread = sum_work2 - sum_work * mean_work
    if spread <= (0.05 * max(mean_work, 1.0)) ** 2 * n:       # one work level: a line through 0
        if mean_work < 1.0:                                     # (no work at all: a fixed cost)
            return mean_seconds, 0.0
        return 0.0, mean_seconds / mean_work
    per_edge = (sum_product - sum_work * mean_seconds) / spread
    fixed = mean_seconds - per_edge * mean_work
    if fixed < 0.0:
        # superlinear timings: the cheapest update as the fixed cost, and the slope above it
        # (a line through 0 would estimate updates of no work at nothing)
        fixed = min(t for _, t in points)
        return fixed, max((sum_product - fixed * sum_work) / sum_work2, 0.0)
    if per_edge < 0.0:
        return mean_seconds, 0.0
    return fixed, per_edge


class CostModel:
    """Per-query costs of the incremental and the recompute path, learned as batches run.

    Parameters
    ----------
    device : {"cpu", "gpu"}
        Which :data:`PRIOR_RATES` apply before anything was timed.
    rates : dict, optional
        Fixed rates ``{"incremental": (fixed_s, per_edge_s), "recompute":
        (fixed_s, per_edge_s)}``: the model then never learns rates from
        timings nor probes (it still learns the work per changed arc).
        For tests and for users who calibrated their device themselves.

    Examples
    --------
    >>> model = CostModel("cpu", rates={"incremental": (1e-4, 1e-8), "recompute": (1e-3, 1e-8)})
    >>> model.observe_recompute(work=1_000_000, size=1_000_000)     # what track scanned
    >>> model.choose(changed=10, size=1_000_000).path
    'incremental'
    >>> model.observe("incremental", seconds=0.02, work=200_000, changed=100)   # costly deletes
    >>> choice = model.choose(changed=1_000, size=1_000_000)
    >>> choice.path, round(choice.recompute_s, 4)
    ('recompute', 0.011)
    """

    #: (class defaults: models pickled before they existed probe as new ones do)
    bounded_probe_age = PROBE_AGE
    _probe = None

    def __init__(self, device="cpu", rates=None):
        self.prior = PRIOR_RATES["gpu" if device == "gpu" else "cpu"]
        self.fixed_rates = None if rates is None else {path: tuple(map(float, rates[path])) for path in PATHS}
        self.rates = {path: _Rates() for path in PATHS}
        self.work_per_change = None        # running mean of incremental work per changed arc
        self.recompute_work = None         # (work, graph size) of the last computation from scratch
        self.bounded_probe_age = PROBE_AGE     # updates between probes of a bounded incremental path
        self._probe = None                 # (path, the chosen path's estimate) of a probe under way

    # ------------------------------------------------------------- estimates
    def _seconds(self, path, work):
        """Estimated seconds of ``path`` for ``work`` entries scanned."""
        if self.fixed_rates is not None:
            fixed, per_edge = self.fixed_rates[path]
            return fixed + per_edge * work
        rates = self.rates[path]
        fixed, per_edge = rates.rate() or self.prior
        seconds = fixed + per_edge * work
        if path == PATHS[0] and rates.fitted is None and rates.history:
            # before a fit, the line through 0 charges the timed updates' fixed costs to each
            # entry: for more work than they scanned (or after updates that scanned none) their
            # level plus the prior rate per entry is the nearer bound.  (A recomputation's
            # time is its work's: it scales with the graph through 0.)
            prior = self.prior[1]
            seconds = min(seconds, rates.level(prior) + prior * work)
        return seconds

    def estimate(self, changed, size):
        """Estimated seconds ``(incremental, recompute)`` of a batch that changed
        ``changed`` arcs and vertices, on a graph of ``size`` vertices + edges."""
        per_change = self.work_per_change if self.work_per_change is not None else 1.0
        return (self._seconds("incremental", per_change * changed),
                self._seconds("recompute", self.recompute_budget(size)))

    def choose(self, changed, size, bounded=False):
        """The :class:`PathChoice` for a batch (see :meth:`estimate`); ``bounded``: an
        incremental update gives up at a recomputation's work (see the module docstring)."""
        incremental, recompute = self.estimate(changed, size)
        path = "incremental" if incremental <= recompute else "recompute"
        other = PATHS[1 - PATHS.index(path)]
        cheaper, dearer = sorted((incremental, recompute))
        age = self.rates[other].age
        never = not self.rates[other].observed()
        unfitted = other == PATHS[0] and not never and self.rates[other].fitted is None and age > PROBE_AGE
        # (a stand-in rate is another computation's: the path is probed within a wider margin)
        margin = STAND_IN_AMBIGUOUS if never and self.rates[other].stand_in is not None else AMBIGUOUS
        once = len(self.rates[other].history) == 1        # (a first timing may include first-run costs)
        close = dearer <= margin * cheaper and (never or once or age > PROBE_AGE)
        overdue = bounded and other == PATHS[0] and (never or age > self.bounded_probe_age)
        if self.fixed_rates is None and (close or overdue or unfitted):
            self._probe = (other, cheaper)
            why = "never timed" if never else "not fitted yet" if unfitted else "timed once" if once else "stale"
            reason = (f"probe: {other} estimated {1e3 * (incremental if other == PATHS[0] else recompute):.3g} ms "
                      f"against {1e3 * cheaper:.3g} ms, its rates {why}")
            return PathChoice(other, reason, incremental, recompute)
        self._probe = None
        reason = (f"estimated incremental {1e3 * incremental:.3g} ms, recompute {1e3 * recompute:.3g} ms "
                  f"({changed} changed)")
        return PathChoice(path, reason, incremental, recompute)

    # ----------------------------------------------------------- observations
    def observe(self, path, seconds, work, changed):
        """Take one timed update: ``path`` ran in ``seconds``, scanning ``work``
        entries, for a batch that changed ``changed`` arcs and vertices."""
        if path == "incremental":
            ratio = work / max(changed, 1)
            self.work_per_change = ratio if self.work_per_change is None else (
                (1.0 - WORK_SMOOTHING) * self.work_per_change + WORK_SMOOTHING * ratio)
        if self._probe is not None and self._probe[0] == path == PATHS[0]:
            # a probe that confirmed its path dear waits twice as long for the next one
            self.bounded_probe_age = (min(2 * self.bounded_probe_age, MAX_PROBE_AGE) if seconds > self._probe[1]
                                      else PROBE_AGE)
        self._probe = None
        if self.fixed_rates is None and seconds > 0.0:
            self.rates[path].add(work, seconds)
            self.rates[PATHS[1 - PATHS.index(path)]].age += 1

    def recompute_budget(self, size):
        """The work of a recomputation on a graph of ``size`` vertices + edges: an
        incremental update that passes it has already cost more than
        recomputing would and should give up.  Before a recomputation was
        observed (a query restored from a checkpoint), one pass over the
        graph: ``size``."""
        if self.recompute_work is None:
            return float(size)
        work, at_size = self.recompute_work
        return work * (size / at_size if at_size else 1.0)

    def observe_recompute(self, work, size, seconds=None, stand_in=False):
        """Record what a computation from scratch scanned (``work``) on a graph of
        ``size`` vertices + edges: the work :meth:`estimate` scales for
        recomputing; with ``seconds``, also its time (``track``'s computation,
        which :meth:`observe` does not see).  ``stand_in``: the recompute
        path is another computation (PageRank's warm restart), so the time
        only stands in for its rate until it is timed itself, and the path
        counts as never timed (a close call probes it at once)."""
        self.recompute_work = (float(max(work, 1)), float(size))
        if seconds is not None and self.fixed_rates is None and seconds > 0.0:
            if stand_in:
                self.rates["recompute"].stand_in = (float(work), float(seconds))
            else:
                self.rates["recompute"].add(work, seconds)
