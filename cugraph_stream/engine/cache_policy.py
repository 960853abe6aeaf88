"""Whether refreshing the hot caches pays: a per-store model fed by measurements.

With placement ``"cached"`` the store refreshes its caches once per batch,
before the queries read lists
(:meth:`~cugraph_stream.engine.store.GraphStore.refresh_cache`).  A full
refresh ranks every list of the store (:mod:`cugraph_stream.engine.cache_selection`)
and loads the winners: on the lent H100 at R-MAT scale 24, with SSSP
alone, ``"cached"`` took 45.7 ms a batch and ``"host"`` 23.9 ms (issue 19):
the refresh cost about as much as the whole batch, and SSSP's frontiers
read too little from host memory for the cache to win it back.  :class:`RefreshPolicy` decides, per batch, among

``"full"``
    the selection, evictions and loads (what every batch did before);
``"partial"``
    no selection: the cached lists that the batch changed are evicted and
    those that still fit the slots they held are loaded again there (the
    incremental refresh: a launch to place them, one to copy them; nothing
    else moves, and the lists that grew stay out until a full refresh);
``"skipped"``
    no selection, no loads: the cached lists that the batch changed are
    evicted, so that the cache never serves a stale list, and the rest of
    the cache stays as it is;
``"cleared"``
    the cache is emptied and its chunks released: its upkeep (a skipped
    refresh's evictions) costs more than its hits save.  An empty cache
    costs next to nothing to keep (no list to evict), and comes back with
    the next full refresh that pays.

In every case the hotness window moves on by one batch.

The model.  After every batch the store tells the policy what the refresh
cost (its measured seconds, ``BatchReport.times["cache"]``) and what the
queries read from the lists in host memory: the bytes the cache's hits
saved and the bytes read from host memory
(:mod:`cugraph_stream.engine.reads`), priced in seconds at the backend's
host read bandwidth (:meth:`Backend.host_read_bandwidth
<cugraph_stream.backends.base.Backend.host_read_bandwidth>`).

* A full refresh's worth, per batch, is what a freshly selected cache would
  have saved beyond what the cache as it is did: ``traffic * fresh_share -
  saved``, where ``traffic`` is the host-list bytes read (saved plus missed)
  and ``fresh_share`` the share of the traffic the cache saved in the batch
  of the last full refresh (at least :data:`MIN_FRESH_SHARE`, and 1 before
  one is measured).  These worths add up in :attr:`RefreshPolicy.credit_s`
  since the last full refresh, which runs again once the credit reaches
  :data:`PAYBACK` times its own measured cost (a smoothed mean of the full
  refreshes' seconds).  So the full refreshes never cost more, over time,
  than half of what they would have saved, and a cache whose refresh does
  not pay is refreshed rarely (its stale lists still serve hits).  The
  margin is there because bytes priced at the read bandwidth are an upper
  bound of the time they take: a batch bound by kernel launches hides part
  of its reads.  Without a measured cost, a refresh runs to measure it.
  A batch whose traffic is more than :data:`TRAFFIC_GROWTH` times that of
  the full refreshes' batches reads something else (a query tracked since,
  PageRank's dense rounds after SSSP's frontiers), so their share says
  nothing of it: it counts at 1.
* The first :data:`COLD_MEASUREMENTS` measurements of each kind teach the
  shares but not the cost: the first refresh of a process compiles its
  kernels and grows the memory pools.  On the lent H200 at R-MAT scale 24
  the first full refresh took 11.4 s, and with that cost a cache that would
  have saved 140 ms a batch (PageRank's reads) was never refreshed again.
* Costs are learned fast downwards and slowly upwards: a measurement below
  the current estimate replaces it, one above is smoothed in, and one more
  than :data:`SPIKE_FACTOR` times above is held back until the next
  measurement of its kind confirms it.  A full or
  partial refresh's cost measured only once after the cold ones counts at
  :data:`UNCONFIRMED_SHARE` of its value until a second measurement
  confirms it: on the lent H200 at R-MAT scale 24, on a fresh machine, the
  second full refresh (the first to evict and compact) took 1,098 ms
  against about 55 ms for the next ones, and at that price the cache was
  never refreshed again in the run.
* Otherwise a partial refresh runs when the changed lists it would load
  again are worth more than its measured extra cost over a skipped
  refresh (times :data:`PAYBACK`): their reads over the hotness window
  (:meth:`Hotness.score <cugraph_stream.engine.hotness.Hotness.score>` times
  the 64-byte transactions of a read), expected again over the next
  window.  Without a measured cost, one runs to measure it.  Its cost is
  never taken above a full refresh's, whose work it is part of (a first
  measurement that compiled its kernels would otherwise shut it out).
* Otherwise the cache is cleared when, over at least
  :data:`MIN_KEPT_BATCHES` batches since the last full refresh, its hits
  saved less (smoothed, priced at the read bandwidth) than its upkeep: the
  measured cost of a skipped refresh, less that of one with an empty cache.
  On the lent H200 at R-MAT scale 24 with SSSP alone, a skipped refresh cost
  2.1 ms a batch and the hits saved 0.3 MB (under 0.01 ms).  The credit
  starts again from 0.
* Otherwise the refresh is skipped.

Host or cached.  ``placement="auto"`` gives a graph that does not fit the
device ``"cached"`` with what the device has left as the budget
(:func:`~cugraph_stream.engine.placement.choose_placement`), and the choice
between a cache and none is made here, at run time, from what the cache
saves: a store whose refreshes do not pay runs as ``"host"`` does, plus a
skipped refresh's evictions and the hotness counts, and its cache keeps
serving whatever hits its stale lists still get.

Decisions depend only on measurements of committed batches (:meth:`RefreshPolicy.observe`
runs after the batch's transaction), so a rolled-back batch leaves the model as it was.

Examples
--------
>>> policy = RefreshPolicy(host_read_bandwidth=1e9)
>>> policy.decide_full().kind                      # nothing measured: refresh, to measure it
'full'
>>> policy.observe("full", refresh_s=2.5, saved_bytes=4_000_000, missed_bytes=1_000_000, cached_lists=100)
>>> policy.decide_full().reason                    # the first one compiled kernels: its cost is not the cost
'only a cold full refresh measured yet (the first: compiling kernels, growing pools)'
>>> policy.observe("full", refresh_s=0.010, saved_bytes=4_000_000, missed_bytes=1_000_000, cached_lists=100)
>>> policy.fresh_share, policy.decide_full()       # 80% saved when fresh; no credit yet
(0.8, None)
>>> policy.cost("full")                            # measured once: taken at 1/8 until confirmed
0.00125
>>> policy.observe("skipped", 0.001, saved_bytes=3_000_000, missed_bytes=2_000_000, cached_lists=90)
>>> round(policy.credit_s, 6)                      # (0.8 * 5 MB - 3 MB) at 1 GB/s
0.001
>>> policy.decide_partial(value_bytes=0).kind
'skipped'
>>> for _ in range(2):
...     policy.observe("skipped", 0.001, saved_bytes=3_000_000, missed_bytes=2_000_000, cached_lists=90)
>>> policy.decide_full().kind                      # 3 ms of credit >= 2 x 1.25 ms: measured again
'full'
>>> policy.observe("full", refresh_s=0.012, saved_bytes=4_000_000, missed_bytes=1_000_000, cached_lists=100)
>>> round(policy.cost("full"), 6)                  # confirmed, and smoothed (up slowly, down at once)
0.011
>>> for _ in range(23):
...     policy.observe("skipped", 0.001, saved_bytes=3_000_000, missed_bytes=2_000_000, cached_lists=90)
>>> policy.decide_full().kind                      # 23 ms of credit: the refresh pays for itself twice
'full'
"""
from __future__ import annotations

import math
from dataclasses import dataclass

#: refresh kinds: the three that keep the cache, from the most work to the least, and
#: the one that empties it
REFRESH_KINDS = ("full", "partial", "skipped", "cleared")

#: batches a cache is kept after a full refresh, whatever it saves, before its upkeep is weighed
MIN_KEPT_BATCHES = 3

#: the least share of the host-list traffic a fresh cache is assumed to save (so that a
#: cache that saved nothing when last refreshed is tried again once the traffic is large)
MIN_FRESH_SHARE = 1 / 32

#: measurements of each refresh kind whose cost is not learned: the first ones of a process
#: compile kernels and grow memory pools (their shares are learned)
COLD_MEASUREMENTS = 1

#: a full or partial refresh's cost measured only once after the cold ones is taken at this
#: fraction of its value, so that a one-off (a kernel compiled, a pool grown on a path the cold
#: measurement did not take) is measured again soon, not trusted for the rest of the run
UNCONFIRMED_SHARE = 1 / 8

#: a learned cost measured more than this many times higher is held back until the next
#: measurement of its kind: learned (the lower of the two) if that one is high too, dropped
#: otherwise.  On the lent H100 at R-MAT scale 24, on a fresh machine, the learned full cost
#: stood at 237 ms against about 35 ms for a warm refresh (most likely slow first evictions
#: and compactions, compiling kernels, smoothed in), and PageRank's first two batches ran
#: with an empty cache waiting for the credit to reach it
SPIKE_FACTOR = 3.0

#: how many times the host-list traffic of the full refreshes' batches a batch's traffic may be
#: before their fresh share no longer applies to it
TRAFFIC_GROWTH = 4.0

#: weight of a new measurement in the smoothed costs and shares
DEFAULT_SMOOTHING = 0.5

#: a refresh runs when it promises to save this many times its measured cost
PAYBACK = 2.0


@dataclass(frozen=True)
class RefreshDecision:
    """What a batch's cache refresh does (``kind``, one of :data:`REFRESH_KINDS`) and why."""

    kind: str
    reason: str

    def __post_init__(self):
        if self.kind not in REFRESH_KINDS:
            raise ValueError(f"kind must be one of {list(REFRESH_KINDS)}, got {self.kind!r}")


@dataclass(frozen=True)
class RefreshOutcome:
    """What a batch's refresh did, for the batch report: the :class:`RefreshDecision`'s
    ``kind`` and ``reason``, the host bytes its loads read (``loaded_bytes``, whole
    64-byte transactions) and the lists the caches hold after it (``cached_lists``)."""

    kind: str
    reason: str
    loaded_bytes: int
    cached_lists: int


def _smooth(old, new, weight):
    return new if old is None else (1.0 - weight) * old + weight * new


class RefreshPolicy:
    """Decides, per batch, whether a store's cache refresh runs in full, in part or not at all.

    See the module docstring for the model.

    Parameters
    ----------
    host_read_bandwidth : float
        Bytes per second of host-memory list reads (what a cache hit saves).
    smoothing : float
        Weight of a new measurement in the smoothed costs and the fresh
        share (0 < smoothing <= 1).
    payback : float
        How many times its cost a refresh must promise to save (>= 1).
    cold_measurements : int
        Measurements of each kind whose cost is not learned (see
        :data:`COLD_MEASUREMENTS`).
    unconfirmed_share : float
        Share of a full or partial refresh's cost that counts while it was
        measured only once after the cold ones (see :data:`UNCONFIRMED_SHARE`;
        1 trusts a single measurement), in (0, 1].

    Attributes
    ----------
    cost_s : dict
        Smoothed measured seconds of a refresh, per kind (None until measured
        after the cold ones).
    measured : dict
        Refreshes measured so far, per kind (cold ones included).
    credit_s : float
        Seconds a full refresh would have saved since the last one.
    fresh_share : float or None
        Smoothed share of the host-list traffic the cache saved in the
        batches of full refreshes (None until measured).
    fresh_traffic : float or None
        Smoothed host-list bytes read in those batches.
    saved_s : float or None
        Smoothed seconds the hits of a non-empty cache saved per batch since
        the last full refresh (None before one such batch).
    kept_batches : int
        Batches with a non-empty cache since the last full refresh.
    idle_s : float or None
        Smoothed seconds of a skipped refresh with an empty cache.
    """

    def __init__(self, host_read_bandwidth, smoothing=DEFAULT_SMOOTHING, payback=PAYBACK,
                 cold_measurements=COLD_MEASUREMENTS, unconfirmed_share=UNCONFIRMED_SHARE):
        host_read_bandwidth = float(host_read_bandwidth)
        if not host_read_bandwidth > 0 or math.isinf(host_read_bandwidth):
            raise ValueError(f"host_read_bandwidth must be a positive number of bytes per second, "
                             f"got {host_read_bandwidth!r}")
        if not 0 < smoothing <= 1:
            raise ValueError(f"smoothing must be in (0, 1], got {smoothing!r}")
        if not payback >= 1 or math.isinf(payback):
            raise ValueError(f"payback must be a number >= 1, got {payback!r}")
        if not isinstance(cold_measurements, int) or isinstance(cold_measurements, bool) or cold_measurements < 0:
            raise ValueError(f"cold_measurements must be an int >= 0, got {cold_measurements!r}")
        if not 0 < unconfirmed_share <= 1:
            raise ValueError(f"unconfirmed_share must be in (0, 1], got {unconfirmed_share!r}")
        self.host_read_bandwidth = host_read_bandwidth
        self.smoothing = float(smoothing)
        self.payback = float(payback)
        self.cold_measurements = cold_measurements
        self.unconfirmed_share = float(unconfirmed_share)
        self.cost_s = dict.fromkeys(REFRESH_KINDS)
        self._spike_s = dict.fromkeys(REFRESH_KINDS)     # a spike held back, per kind (see _learn_cost)
        self.measured = dict.fromkeys(REFRESH_KINDS, 0)
        self.credit_s = 0.0
        self.fresh_share = None
        self.fresh_traffic = None
        self.saved_s = None
        self.kept_batches = 0
        self.idle_s = None

    def seconds(self, host_bytes):
        """Seconds of reading ``host_bytes`` from host memory."""
        return host_bytes / self.host_read_bandwidth

    def cost(self, kind):
        """Seconds a refresh of ``kind`` is taken to cost in decisions: the learned
        :attr:`cost_s`, at :attr:`unconfirmed_share` of it for a full or partial
        refresh measured only once after the cold ones (None before)."""
        cost = self.cost_s[kind]
        if cost is not None and kind in ("full", "partial") and self.measured[kind] == self.cold_measurements + 1:
            return cost * self.unconfirmed_share
        return cost

    def decide_full(self):
        """A full :class:`RefreshDecision` when one pays (or was never measured), else None."""
        cost = self.cost("full")
        if cost is None:
            return RefreshDecision("full", "no full refresh measured yet" if not self.measured["full"] else
                                   "only a cold full refresh measured yet (the first: compiling kernels, "
                                   "growing pools)")
        if self.credit_s >= self.payback * cost:
            return RefreshDecision("full", f"a fresh cache would have saved {1e3 * self.credit_s:.3f} ms since the "
                                           f"last full refresh, >= {self.payback:g} x its cost {1e3 * cost:.3f} ms")
        return None

    def decide_partial(self, value_bytes):
        """Partial or skipped, for changed cached lists whose reads over the hotness
        window cost ``value_bytes`` of host memory (what loading them again saves
        over the next window)."""
        pending = (f"credit {1e3 * self.credit_s:.3f} ms < {self.payback:g} x full refresh "
                   f"{1e3 * (self.cost('full') or 0.0):.3f} ms")
        if value_bytes <= 0:
            return RefreshDecision("skipped", f"{pending}; no changed cached list was read")
        value = self.seconds(value_bytes)
        partial, skipped = self.cost("partial"), self.cost_s["skipped"]
        if partial is None:
            return RefreshDecision("partial", f"{pending}; no partial refresh measured yet")
        if self.cost_s["full"] is not None:
            # a partial refresh does part of a full one's work: a dearer measurement is an
            # outlier (on the H100 the first one, which compiled its kernels, took 221 ms
            # against 10 ms for a full refresh, and partial refreshes never ran again)
            partial = min(partial, self.cost("full"))
        extra = max(partial - (skipped or 0.0), 0.0)
        if value >= self.payback * extra:
            return RefreshDecision("partial", f"{pending}; reloading changed lists saves {1e3 * value:.3f} ms "
                                              f">= {self.payback:g} x its extra cost {1e3 * extra:.3f} ms")
        return RefreshDecision("skipped", f"{pending}; reloading changed lists saves {1e3 * value:.3f} ms "
                                          f"< {self.payback:g} x its extra cost {1e3 * extra:.3f} ms")

    def decide_clear(self):
        """A ``"cleared"`` :class:`RefreshDecision` when keeping the cache costs more
        than it saves (see the module docstring), else None."""
        skipped = self.cost_s["skipped"]
        if self.kept_batches < MIN_KEPT_BATCHES or skipped is None or self.saved_s is None:
            return None
        upkeep = skipped - (self.idle_s or 0.0)
        if self.saved_s >= upkeep:
            return None
        return RefreshDecision("cleared", f"the hits saved {1e3 * self.saved_s:.3f} ms a batch < the cache's "
                                          f"upkeep {1e3 * upkeep:.3f} ms (a skipped refresh)")

    def _learn_cost(self, kind, refresh_s):
        """Take a refresh's measured seconds into :attr:`cost_s`: down at once, up smoothly,
        and a spike (more than :data:`SPIKE_FACTOR` times the learned cost) only once the
        next measurement of its kind is a spike too (at the lower of the two)."""
        learned, held = self.cost_s[kind], self._spike_s[kind]
        self._spike_s[kind] = None
        if learned is not None and refresh_s > SPIKE_FACTOR * learned:
            if held is None:
                self._spike_s[kind] = refresh_s          # a one-off, unless the next one says otherwise
                return
            refresh_s = min(refresh_s, held)
        self.cost_s[kind] = refresh_s if learned is None or refresh_s < learned else _smooth(
            learned, refresh_s, self.smoothing)

    def observe(self, kind, refresh_s, saved_bytes, missed_bytes, cached_lists):
        """Take one committed batch's measurements: its refresh ``kind`` and seconds,
        the host-list bytes its queries were saved by the cache and read from host
        memory, and the lists cached after its refresh."""
        if kind not in REFRESH_KINDS:
            raise ValueError(f"kind must be one of {list(REFRESH_KINDS)}, got {kind!r}")
        refresh_s = max(float(refresh_s), 0.0)
        self.measured[kind] += 1
        if kind == "skipped" and cached_lists == 0:       # an empty cache: what is left without one
            self.idle_s = _smooth(self.idle_s, refresh_s, self.smoothing)
        elif self.measured[kind] > self.cold_measurements:
            self._learn_cost(kind, refresh_s)
        traffic = saved_bytes + missed_bytes
        if kind in ("full", "cleared"):
            self.credit_s = 0.0
            self.saved_s, self.kept_batches = None, 0
        elif cached_lists > 0:
            self.saved_s = _smooth(self.saved_s, self.seconds(saved_bytes), self.smoothing)
            self.kept_batches += 1
        if kind == "cleared":
            return
        if kind == "full":
            if traffic > 0 and cached_lists > 0:      # an empty cache says nothing of what one would save
                self.fresh_share = _smooth(self.fresh_share, saved_bytes / traffic, self.smoothing)
                self.fresh_traffic = _smooth(self.fresh_traffic, traffic, self.smoothing)
            return
        if self.fresh_share is None or traffic > TRAFFIC_GROWTH * self.fresh_traffic:
            share = 1.0
        else:
            share = max(self.fresh_share, MIN_FRESH_SHARE)
        self.credit_s += self.seconds(max(share * traffic - saved_bytes, 0.0))
