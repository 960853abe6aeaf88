"""Soak benchmark: a long stream of churn, growth and shrinkage with SSSP, WCC
and PageRank tracked, checked against recomputation and memory sampled.

Not run by CI.  Usage::

    python -m benchmarks.soak                              # CPU defaults, about 15 minutes on 2 cores
    python -m benchmarks.soak --backend gpu --no-progress --out $OUT   # the lent GPU
    python -m benchmarks.soak --batches 600 --check-every 100 --sample-every 50   # a short run

The stream
----------
The initial graph G0 is an R-MAT graph (``--scale S``, ``--edge-factor``;
weights uniform in [1, 64), float32) or, with ``--vertices N``, a uniform
random graph on the ids ``0..N-1``.  Its vertices are the *base* vertices:
they are never removed, and the SSSP source is the base vertex with the most
out-edges.  The batches cycle through three phases (``--cycle-batches C``,
default 1000: C/2 batches of churn, C/4 of growth, C/4 of shrinkage, so the
default 10,000 batches are 10 whole cycles ending with a shrinkage):

* **churn**: deletions of present edges among base vertices and insertions
  of random pairs of base vertices (mostly new edges), in equal numbers, so
  the graph keeps its size; a few deletions of absent edges (ignored);
* **growth**: insertions of edges that touch new vertices with random int64
  ids (a tenth of them ids removed in an earlier cycle, so ids are reused),
  between two new vertices or a new and a base vertex, plus a few isolated
  new vertices through ``g.add_vertices``: the vertex table grows by about
  ``0.7 * batch_size / average degree`` vertices a batch;
* **shrinkage**: deletions of about half the edges grown, then
  ``g.remove_vertices`` of every vertex grown in the cycle, a slice after
  each batch, so the graph is back to about its starting size at the end of
  the phase (exactly its starting vertices; edges up to the churn's drift).

Every batch also holds weight updates (inserts of present edges with a new
weight, 10% of the rows), duplicate rows (5%) and insert-then-delete pairs of
new edges (5% of the rows each way), all at random positions.

A host-side model (plain NumPy and a dict, sharing no code with the package)
follows the rows with :meth:`StreamGraph.apply`'s semantics (the last row of
an edge decides whether it is present and its weight) and is what the checks
hold the graph to.

Checks (every ``--check-every`` batches, and on G0 and after the last batch)
---------------------------------------------------------------------------
* ``graph``: ``g.vertices()`` and ``g.edges()`` (ids and float32 weights)
  equal the model's;
* ``consistency``: ``g.check_consistency()``;
* ``recompute``: a fresh graph from ``g.edges()`` plus ``add_vertices(g.vertices())``
  tracks each query with ``mode="recompute"``: SSSP distances equal exactly,
  WCC the same partition, PageRank within L1 ``2 * tol``;
* ``scipy`` (CPU backend only): ``scipy.sparse.csgraph.dijkstra`` in float64
  on the float32 weights (reachability equal, distances within rtol 1e-5) and
  ``connected_components(connection="weak")`` (the same partition).

A failed check is recorded and the run goes on; the exit status is 1 if any
failed (after the files are written), 2 if the backend cannot run here.

Memory (every ``--sample-every`` batches, and at every phase end)
-----------------------------------------------------------------
``g.memory_bytes()``, vertex and edge counts, the process's RSS
(``/proc/self/statm``) and peak RSS (``getrusage``), on the GPU the bytes in
use in CuPy's default pool and in the engine's pool, and the batch times
(wall and ``BatchReport.total_s``: mean, p50, p99, max) over the window.
Samples are taken before that batch's check, so the fresh graph of a check
is never counted.  The RSS includes the workload model (a dict entry per
edge) and the checks' transient copies; ``g.memory_bytes()`` is the
engine's own figure.  If ``StreamGraph.compact`` exists, it is called at the
end of each shrinkage phase, with the memory before and after recorded.  The
figure that says whether memory comes back is the growth of
``g.memory_bytes()`` between the end of the first and of the last shrinkage
phase: the graph has the same vertices then, and nearly the same edges.

Default sizes
-------------
CPU: R-MAT scale 17, edge factor 8 (77,537 vertices and 999,623 edges in
G0; 104,787 and 1.35M at the end of a growth phase), batches of 2,000 rows.
On this project's 2-core machine a batch costs about 45 ms in churn and
100-120 ms in growth and shrinkage (PageRank's update with ``tol=1e-6`` is
most of it and grows with the edges; SSSP and WCC cost a few ms), the model
about 4 ms and a check about 2 s: a 1,000-batch cycle takes about 90 s, so
the 10,000 batches take about 15 minutes: 10 cycles of memory, in the
10-20 minutes asked for.  PageRank's cost about doubles with each scale:
scale 16 would take about 8 minutes, scale 18 about half an hour.
GPU: R-MAT scale 19, edge factor 8 (285,000 vertices, 4.1M edges), batches
of 5,000 rows: a cycle took 43 s on the lent H100 (engine 18-33 ms a
batch, the host-side model 10 ms), so the whole run (about 7 minutes) fits
one 10-minute call of the device tool; at scale 20 with batches of 10,000
the model alone (a dict of 7.5M edges) would cost 15-30 ms a batch and the
run would not fit.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
import traceback
from dataclasses import dataclass

import numpy as np
import pandas as pd

import cugraph_stream as cgs
from cugraph_stream.datasets import rmat

from .common import (
    current_rss_bytes,
    gpu_info,
    json_default,
    machine_info,
    peak_rss_bytes,
    positive,
    progress,
    sync_device,
    versions,
    write,
)
from .stream.report import fmt_bytes

#: default sizes per backend (see the module docstring for why)
DEFAULTS = {
    "cpu": {"scale": 17, "edge_factor": 8, "batch_size": 2000},
    "gpu": {"scale": 19, "edge_factor": 8, "batch_size": 5000},
}
#: weights of the generated graph and of every inserted row: uniform in [1, 64)
WEIGHTS = (1.0, 64.0)
PHASES = ("churn", "growth", "shrink")
#: shares of a batch's rows: weight updates, duplicates, insert-then-delete pairs
#: (each pair is two rows), deletions of absent edges (churn)
UPDATE_SHARE, DUPLICATE_SHARE, PAIR_SHARE, ABSENT_SHARE = 0.10, 0.05, 0.05, 0.01
#: share of a growth batch's rows that insert edges touching new vertices
GROWTH_SHARE = 0.70
#: share of the new vertices of a growth batch added isolated, through add_vertices
ISOLATED_SHARE = 0.02
#: share of new vertex ids taken from those removed in earlier cycles
REUSE_SHARE = 0.10
#: share of the grown edges that shrinkage deletes by rows (the rest go with their vertices)
SHRINK_DELETE_SHARE = 0.5
#: relative tolerance of SSSP distances against SciPy (float64 sums of float32 weights)
SCIPY_RTOL = 1e-5
NEW_ID_RANGE = (1 << 40, 1 << 62)
SLOT_BITS = 32


# ---------------------------------------------------------------------------
# the workload model
# ---------------------------------------------------------------------------

class EdgePool:
    """A set of edges (pairs of vertex slots) with weights, that can be sampled.

    Edges live in growable arrays; a dict maps each edge's packed key to its
    row.  Removal leaves a tombstone, and the arrays are compacted when more
    than half their rows are dead.

    Parameters
    ----------
    capacity : int
        Initial number of rows.
    """

    def __init__(self, capacity=1024):
        capacity = max(int(capacity), 16)
        self.src = np.empty(capacity, np.int64)
        self.dst = np.empty(capacity, np.int64)
        self.weight = np.empty(capacity, np.float32)
        self.alive = np.zeros(capacity, bool)
        self.end = 0
        self.row_of = {}

    def __len__(self):
        return len(self.row_of)

    def _reserve(self, extra):
        """Room for ``extra`` more rows at the end (the arrays double when full)."""
        need = self.end + extra
        if need <= self.src.size:
            return
        size = max(need, 2 * self.src.size)
        for name in ("src", "dst", "weight", "alive"):
            old = getattr(self, name)
            new = np.zeros(size, old.dtype)
            new[:self.end] = old[:self.end]
            setattr(self, name, new)

    def compact(self):
        """Drop the tombstones and rebuild the key index."""
        rows = np.flatnonzero(self.alive[:self.end])
        n = rows.size
        for name in ("src", "dst", "weight"):
            array = getattr(self, name)
            array[:n] = array[rows]
        self.alive[:n] = True
        self.alive[n:self.end] = False
        self.end = n
        keys = pack(self.src[:n], self.dst[:n])
        self.row_of = dict(zip(keys.tolist(), range(n)))

    def upsert(self, src, dst, weight):
        """Insert edges, or set the weight of those present (distinct pairs)."""
        keys = pack(src, dst).tolist()
        row_of = self.row_of
        rows = [row_of.get(k, -1) for k in keys]
        rows = np.asarray(rows, np.int64)
        present = rows >= 0
        self.weight[rows[present]] = weight[present]
        new = np.flatnonzero(~present)
        if new.size:
            self._compact_if_sparse()
            self._reserve(new.size)
            at = np.arange(self.end, self.end + new.size)
            self.src[at], self.dst[at], self.weight[at] = src[new], dst[new], weight[new]
            self.alive[at] = True
            row_of.update(zip([keys[i] for i in new.tolist()], at.tolist()))
            self.end += new.size

    def remove(self, src, dst):
        """Remove the edges present among the given pairs."""
        pop = self.row_of.pop
        rows = [r for r in (pop(k, -1) for k in pack(src, dst).tolist()) if r >= 0]
        self.alive[rows] = False
        self._compact_if_sparse()

    def _compact_if_sparse(self):
        """Compact when over half the rows (and over 1024) are tombstones."""
        if self.end - len(self) > max(self.end // 2, 1024):
            self.compact()

    def nbytes(self):
        """Approximate bytes held: the arrays, the dict and its int objects."""
        arrays = sum(getattr(self, n).nbytes for n in ("src", "dst", "weight", "alive"))
        return arrays + sys.getsizeof(self.row_of) + 60 * len(self)

    def remove_incident(self, slots, num_slots):
        """Remove every edge with an endpoint in ``slots`` (all below ``num_slots``)."""
        end = self.end
        flag = np.zeros(num_slots, bool)
        flag[slots] = True
        hit = self.alive[:end] & (flag[self.src[:end]] | flag[self.dst[:end]])
        rows = np.flatnonzero(hit)
        self.remove(self.src[rows], self.dst[rows])

    def sample(self, rng, k):
        """Rows of up to ``k`` distinct present edges, in random order."""
        k = min(int(k), len(self))
        if k <= 0:
            return np.empty(0, np.int64)
        # a row is alive with probability len / end, at least about 1/2 (see compact)
        draws = int(1.5 * k * self.end / len(self)) + 16
        candidates = rng.integers(0, self.end, size=draws)
        candidates = candidates[self.alive[candidates]]
        _, first = np.unique(candidates, return_index=True)
        rows = candidates[np.sort(first)]
        if rows.size < k:                       # sparse or tiny pool: draw from all live rows
            rows = rng.permutation(np.flatnonzero(self.alive[:self.end]))
        return rows[:k]

    def clear(self):
        """Remove every edge."""
        self.alive[:self.end] = False
        self.end = 0
        self.row_of = {}

    def arrays(self):
        """``(src, dst, weight)`` slot arrays of the present edges."""
        live = self.alive[:self.end]
        return self.src[:self.end][live], self.dst[:self.end][live], self.weight[:self.end][live]


def pack(src, dst):
    """One int64 key per (src slot, dst slot) pair."""
    return (np.asarray(src, np.int64) << SLOT_BITS) | np.asarray(dst, np.int64)


@dataclass
class Step:
    """What one batch of the stream does to the graph.

    Attributes
    ----------
    batch : pandas.DataFrame
        Rows ``src``, ``dst`` (int64 vertex ids), ``weight`` (float32, NaN on
        delete rows) and ``op`` (int8, 1 insert, -1 delete) for ``g.apply``.
    add : numpy.ndarray or None
        Ids of isolated vertices for ``g.add_vertices``, after the batch.
    remove : numpy.ndarray or None
        Ids of vertices for ``g.remove_vertices``, after the batch.
    cycle, phase : int, str
        Where the batch is in the phase schedule.
    phase_end : bool
        Whether the batch is the last of its phase.
    """

    batch: pd.DataFrame
    add: np.ndarray | None
    remove: np.ndarray | None
    cycle: int
    phase: str
    phase_end: bool


class SoakStream:
    """The phase schedule, the batch generator and the model of the graph.

    Vertices are numbered by *slots*: the base vertices first (sorted ids),
    then every grown vertex in order of creation.  Edges between two base
    vertices live in the ``base`` pool, edges touching a grown vertex in the
    ``grown`` pool (emptied at the end of every shrinkage phase).

    Parameters
    ----------
    edges : pandas.DataFrame
        G0: ``src``, ``dst``, ``weight`` (float32), no duplicate pairs.
    batch_size : int
        Rows of a churn batch; other phases are within a few rows of it.
    cycle_batches : int
        Batches of one churn-growth-shrinkage cycle (4 or more).
    seed : int
        Seed of the stream.
    """

    def __init__(self, edges, batch_size, cycle_batches, seed):
        self.rng = np.random.default_rng([seed, 1])
        self.batch_size = int(batch_size)
        self.cycle = int(cycle_batches)
        quarter = self.cycle // 4
        self.lengths = {"churn": self.cycle - 2 * quarter, "growth": quarter, "shrink": quarter}
        src, dst = edges["src"].to_numpy(np.int64), edges["dst"].to_numpy(np.int64)
        self.ids = np.unique(np.concatenate((src, dst)))     # external id of each slot
        self.num_base = int(self.ids.size)
        self.base = EdgePool(2 * len(edges))
        self.base.upsert(np.searchsorted(self.ids, src), np.searchsorted(self.ids, dst),
                         edges["weight"].to_numpy(np.float32))
        self.grown = EdgePool()
        self.grown_slots = np.empty(0, np.int64)     # alive grown vertices of this cycle
        self.removed_ids = np.empty(0, np.int64)     # removed ids not reused yet
        self.used_ids = set()                        # every id ever given to a grown vertex
        self.shrink_order = None
        self.shrink_quota = 0
        degree = len(edges) / max(self.num_base, 1)
        self.new_per_batch = max(1, int(round(GROWTH_SHARE * self.batch_size / max(degree, 1.0))))
        self.source = int(np.bincount(np.searchsorted(self.ids, src), minlength=self.num_base).argmax())
        self.source_id = int(self.ids[self.source])

    # ----------------------------------------------------------- schedule
    def phase_of(self, b):
        """``(cycle, phase, index in the phase)`` of batch ``b`` (from 0)."""
        cycle, pos = divmod(int(b), self.cycle)
        for phase in PHASES:
            if pos < self.lengths[phase]:
                return cycle, phase, pos
            pos -= self.lengths[phase]
        raise AssertionError("unreachable")

    # ---------------------------------------------------------- the model
    def nbytes(self):
        """Approximate bytes the model holds (part of the process's RSS)."""
        return self.base.nbytes() + self.grown.nbytes() + self.ids.nbytes + 60 * len(self.used_ids)

    def vertex_ids(self):
        """Sorted ids of the model's vertices."""
        return np.sort(np.concatenate((self.ids[:self.num_base], self.ids[self.grown_slots])))

    def edge_frame(self):
        """The model's edges as ``src, dst, weight`` sorted by ``(src, dst)``."""
        parts = [self.base.arrays(), self.grown.arrays()]
        src = self.ids[np.concatenate([p[0] for p in parts])]
        dst = self.ids[np.concatenate([p[1] for p in parts])]
        weight = np.concatenate([p[2] for p in parts])
        order = np.lexsort((dst, src))
        return pd.DataFrame({"src": src[order], "dst": dst[order], "weight": weight[order]})

    def _commit(self, s, d, w, op):
        """Apply rows (slots, in order) to the pools: the last row of a pair wins."""
        keys = pack(s, d)[::-1]
        _, last = np.unique(keys, return_index=True)
        last = s.size - 1 - last
        s, d, w, op = s[last], d[last], w[last], op[last]
        in_grown = (s >= self.num_base) | (d >= self.num_base)
        for pool, mask in ((self.base, ~in_grown), (self.grown, in_grown)):
            ins, dele = mask & (op > 0), mask & (op < 0)
            if ins.any():
                pool.upsert(s[ins], d[ins], w[ins])
            if dele.any():
                pool.remove(s[dele], d[dele])

    # -------------------------------------------------------- generation
    def _weights(self, n):
        """``n`` random float32 weights in ``WEIGHTS``."""
        return self.rng.uniform(*WEIGHTS, size=n).astype(np.float32)

    def _base_pairs(self, n):
        """``n`` random pairs of distinct base slots."""
        s = self.rng.integers(0, self.num_base, size=n)
        d = self.rng.integers(0, self.num_base, size=n)
        keep = s != d
        return s[keep], d[keep]

    def _new_vertices(self, n):
        """Slots of ``n`` new vertices: fresh random int64 ids, some reused ones."""
        reuse = min(int(round(REUSE_SHARE * n)), self.removed_ids.size)
        reused = self.removed_ids[:reuse]
        self.removed_ids = self.removed_ids[reuse:]
        fresh = []
        while len(fresh) < n - reuse:               # base ids are below NEW_ID_RANGE
            for new_id in self.rng.integers(*NEW_ID_RANGE, size=n - reuse - len(fresh)).tolist():
                if new_id not in self.used_ids:
                    self.used_ids.add(new_id)
                    fresh.append(new_id)
        start = self.ids.size
        self.ids = np.concatenate((self.ids, reused, np.asarray(fresh, np.int64)))
        slots = np.arange(start, self.ids.size)
        self.grown_slots = np.concatenate((self.grown_slots, slots))
        return slots

    def _main_rows(self, phase, index):
        """The phase's own rows ``(src, dst, op)`` (slots) and the slots of the
        vertices to add (isolated) and to remove after the batch."""
        n, add, remove = self.batch_size, None, None
        if phase == "churn":
            half = int(n * (1 - UPDATE_SHARE - DUPLICATE_SHARE - 2 * PAIR_SHARE - ABSENT_SHARE) / 2)
            rows = self.base.sample(self.rng, half)
            s_ins, d_ins = self._base_pairs(half)
            s_abs, d_abs = self._base_pairs(int(ABSENT_SHARE * n))
            s = np.concatenate((self.base.src[rows], s_ins, s_abs))
            d = np.concatenate((self.base.dst[rows], d_ins, d_abs))
            op = np.concatenate((np.full(rows.size, -1), np.ones(s_ins.size), np.full(s_abs.size, -1)))
            return s, d, op, add, remove
        if phase == "growth":
            if index == 0:                                # reuse ids removed earlier, in random order
                self.removed_ids = self.rng.permutation(self.removed_ids)
            new = self._new_vertices(self.new_per_batch)
            isolated = new[:math.ceil(ISOLATED_SHARE * new.size) if new.size > 1 else 0]
            linked = new[isolated.size:]
            count = max(int(GROWTH_SHARE * n), linked.size)
            grown = np.setdiff1d(self.grown_slots, isolated) if isolated.size else self.grown_slots
            a = np.concatenate((linked, self.rng.choice(grown, size=count - linked.size)))
            kind = self.rng.random(count)                 # the other endpoint: grown or base
            base = self.rng.integers(0, self.num_base, size=count)
            b = np.where(kind < 0.5, self.rng.choice(grown, size=count), base)
            b = np.where(b == a, base, b)                 # no self loop: every new vertex gets its row
            flip = self.rng.random(count) < 0.5           # edges in both directions
            s, d = np.where(flip, b, a), np.where(flip, a, b)
            return s, d, np.ones(count), isolated, remove
        # shrinkage: at its start, plan the order and the deletions by rows
        length = self.lengths["shrink"]
        if index == 0:
            self.shrink_order = self.rng.permutation(self.grown_slots)
            self.shrink_quota = math.ceil(SHRINK_DELETE_SHARE * len(self.grown) / length)
        rows = self.grown.sample(self.rng, min(self.shrink_quota, int((1 - 2 * UPDATE_SHARE) * n)))
        s, d = self.grown.src[rows], self.grown.dst[rows]
        chunk = math.ceil(self.shrink_order.size / (length - index))
        remove, self.shrink_order = self.shrink_order[:chunk], self.shrink_order[chunk:]
        return s, d, np.full(s.size, -1), add, remove

    def next_step(self, b):
        """Generate batch ``b`` and advance the model past it.

        Parameters
        ----------
        b : int
            Index of the batch (from 0); batches must come in order.

        Returns
        -------
        Step
        """
        cycle, phase, index = self.phase_of(b)
        s, d, op, add, remove = self._main_rows(phase, index)
        n = self.batch_size
        w = np.where(op > 0, self._weights(s.size), np.nan).astype(np.float32)
        # weight updates: present base edges inserted again with a new weight
        rows = self.base.sample(self.rng, int(UPDATE_SHARE * n))
        s = np.concatenate((s, self.base.src[rows]))
        d = np.concatenate((d, self.base.dst[rows]))
        w = np.concatenate((w, self._weights(rows.size)))
        op = np.concatenate((op, np.ones(rows.size)))
        position = self.rng.random(s.size)
        # duplicates: copies of random rows at random positions
        dup = self.rng.integers(0, s.size, size=int(DUPLICATE_SHARE * n)) if s.size else np.empty(0, int)
        s, d, w, op = (np.concatenate((x, x[dup])) for x in (s, d, w, op))
        position = np.concatenate((position, self.rng.random(dup.size)))
        # insert-then-delete pairs of (mostly) new base edges, the delete after the insert
        ps, pd_ = self._base_pairs(int(PAIR_SHARE * n))
        first = self.rng.random(ps.size)
        later = first + (1 - first) * self.rng.random(ps.size)
        s, d = np.concatenate((s, ps, ps)), np.concatenate((d, pd_, pd_))
        w = np.concatenate((w, self._weights(ps.size), np.full(ps.size, np.nan, np.float32)))
        op = np.concatenate((op, np.ones(ps.size), np.full(ps.size, -1)))
        position = np.concatenate((position, first, later))
        order = np.argsort(position, kind="stable")
        s, d, w, op = s[order], d[order], w[order], op[order].astype(np.int8)
        self._commit(s, d, w, op)
        if remove is not None and remove.size:
            self.grown.remove_incident(remove, self.ids.size)
            self.grown_slots = np.setdiff1d(self.grown_slots, remove)
            self.removed_ids = np.concatenate((self.removed_ids, self.ids[remove]))
        phase_end = index == self.lengths[phase] - 1
        if phase == "shrink" and phase_end:
            assert self.grown_slots.size == 0 and len(self.grown) == 0
            self.grown.clear()
        batch = pd.DataFrame({"src": self.ids[s], "dst": self.ids[d], "weight": w, "op": op})
        add = self.ids[add] if add is not None and add.size else None
        remove = self.ids[remove] if remove is not None and remove.size else None
        return Step(batch, add, remove, cycle, phase, phase_end)


# ---------------------------------------------------------------------------
# the initial graph and the engine
# ---------------------------------------------------------------------------

def initial_edges(scale, vertices, edge_factor, seed):
    """G0 as ``src, dst, weight`` (float32), without self loops or repeated pairs.

    Parameters
    ----------
    scale : int or None
        R-MAT scale (``2**scale`` vertex ids); used when ``vertices`` is None.
    vertices : int or None
        Number of vertices of a uniform random graph on the ids ``0..vertices-1``.
    edge_factor : int
        Edges drawn per vertex (id), before repeated pairs are removed.
    seed : int

    Returns
    -------
    (pandas.DataFrame, str)
        The edges and a description of the graph.
    """
    if vertices is None:
        edges = rmat(scale, edge_factor=edge_factor, seed=seed, weights=WEIGHTS)
        what = f"R-MAT scale {scale}, edge factor {edge_factor}"
    else:
        rng = np.random.default_rng([seed, 0])
        m = edge_factor * vertices
        src, dst = rng.integers(0, vertices, size=m), rng.integers(0, vertices, size=m)
        keep = src != dst
        _, first = np.unique(pack(src[keep], dst[keep]), return_index=True)
        rows = np.flatnonzero(keep)[np.sort(first)]
        edges = pd.DataFrame({"src": src[rows], "dst": dst[rows],
                              "weight": rng.uniform(*WEIGHTS, size=rows.size).astype(np.float32)})
        what = f"uniform random graph on {vertices:,} ids, edge factor {edge_factor}"
    edges = edges[["src", "dst", "weight"]].astype({"src": np.int64, "dst": np.int64, "weight": np.float32})
    return edges.reset_index(drop=True), what


def graph_options(placement, cache_budget_fraction, num_edges):
    """Keyword arguments of ``StreamGraph.from_edgelist`` for a placement.

    ``placement="cached"`` gets a cache budget of ``cache_budget_fraction``
    of G0's adjacency bytes (8 bytes an entry, two directions).
    """
    options = {"placement": placement}
    if placement == "cached":
        options["cache_budget"] = int(cache_budget_fraction * 16 * num_edges)
    return options


def track_queries(g, source, tol, mode="incremental"):
    """Track SSSP from ``source``, WCC and PageRank on ``g``; ``{kind: query}``."""
    return {"sssp": g.track(cgs.SSSP(source=source, mode=mode)),
            "wcc": g.track(cgs.WCC(mode=mode)),
            "pagerank": g.track(cgs.PageRank(tol=tol, mode=mode))}


def apply_step(g, step):
    """Apply one step to the graph; ``(wall seconds, engine seconds, reports)``.

    The wall time covers ``apply`` and the vertex additions and removals, the
    device synchronised before and after; the engine time is the sum of their
    reports' ``total_s``.
    """
    sync_device()
    t0 = time.perf_counter()
    reports = [g.apply(step.batch, weight="weight")]
    if step.add is not None:
        reports.append(g.add_vertices(step.add))
    if step.remove is not None:
        reports.append(g.remove_vertices(step.remove))
    sync_device()
    wall = time.perf_counter() - t0
    return wall, sum(r.total_s for r in reports), reports


# ---------------------------------------------------------------------------
# memory
# ---------------------------------------------------------------------------

def pool_bytes():
    """Bytes in use in CuPy's default pool and in the engine's pool (None without CuPy)."""
    out = {"cupy_pool_used_bytes": None, "engine_pool_used_bytes": None}
    try:
        import cupy
    except ImportError:
        return out
    out["cupy_pool_used_bytes"] = int(cupy.get_default_memory_pool().used_bytes())
    try:
        from cugraph_stream.backends.gpu import engine_memory_pool
    except ImportError:
        return out
    out["engine_pool_used_bytes"] = int(engine_memory_pool().used_bytes())
    return out


def memory_figures(g, backend):
    """The graph's size and memory now: engine bytes, RSS, and GPU pools on the GPU."""
    figures = {"vertices": int(g.number_of_vertices()), "edges": int(g.number_of_edges()),
               "memory_bytes": int(g.memory_bytes()), "rss_bytes": current_rss_bytes(),
               "peak_rss_bytes": peak_rss_bytes()}
    if backend == "gpu":
        figures.update(pool_bytes())
    return figures


def time_stats(seconds):
    """Mean, p50, p99 and max of a list of seconds, in ms (None when empty)."""
    if not seconds:
        return None
    ms = 1e3 * np.asarray(seconds)
    return {"mean": float(ms.mean()), "p50": float(np.percentile(ms, 50)),
            "p99": float(np.percentile(ms, 99)), "max": float(ms.max())}


def compact_graph(g, backend):
    """Call ``g.compact()`` where it exists; memory before and after, or None."""
    if not hasattr(g, "compact"):
        return None
    before = memory_figures(g, backend)
    sync_device()
    t0 = time.perf_counter()
    g.compact()
    sync_device()
    return {"seconds": time.perf_counter() - t0, "before": before, "after": memory_figures(g, backend)}


# ---------------------------------------------------------------------------
# checks
# ---------------------------------------------------------------------------

def to_pandas(frame):
    """A pandas object from a pandas or cuDF one."""
    return frame.to_pandas() if hasattr(frame, "to_pandas") else frame


def result_frame(query):
    """A query's result as a pandas DataFrame sorted by vertex."""
    frame = to_pandas(query.result())
    return frame.sort_values("vertex", kind="stable").reset_index(drop=True)


def partition(labels):
    """Each vertex's component named by the first row of the component."""
    _, first, inverse = np.unique(np.asarray(labels), return_index=True, return_inverse=True)
    return first[inverse.reshape(-1)]


def first_difference(bad, got, expected, vertices):
    """A message naming how many rows differ and the first of them."""
    row = int(np.flatnonzero(bad)[0])
    return (f"{int(bad.sum())} vertices differ, first {int(vertices[row])}: "
            f"{got[row]!r} vs {expected[row]!r}")


def compare_results(kind, got, expected, tol):
    """Compare an incremental result frame with a recomputed one.

    SSSP distances must be equal (same float32 values), WCC the same
    partition, PageRank within L1 ``2 * tol``.

    Returns
    -------
    (str or None, float or None)
        A message when they disagree, and the PageRank L1 distance.
    """
    vertices = got["vertex"].to_numpy()
    if not np.array_equal(vertices, expected["vertex"].to_numpy()):
        return f"{kind}: vertex columns differ ({len(got)} vs {len(expected)} rows)", None
    if kind == "sssp":
        a, b = got["distance"].to_numpy(), expected["distance"].to_numpy()
        bad = a != b
        return (f"sssp distance: {first_difference(bad, a, b, vertices)}" if bad.any() else None), None
    if kind == "wcc":
        a, b = partition(got["labels"]), partition(expected["labels"])
        bad = a != b
        return (f"wcc components: {first_difference(bad, a, b, vertices)}" if bad.any() else None), None
    l1 = float(np.abs(got["pagerank"].to_numpy(np.float64) - expected["pagerank"].to_numpy(np.float64)).sum())
    return (f"pagerank: L1 distance {l1:.3e} > 2 * tol = {2 * tol:.1e}" if l1 > 2 * tol else None), l1


def compare_scipy(frames, edges, vertices, source):
    """SSSP and WCC results against SciPy on the same edges.

    Parameters
    ----------
    frames : dict
        ``{"sssp": frame, "wcc": frame}`` sorted by vertex.
    edges : pandas.DataFrame
        ``src, dst, weight`` of the graph.
    vertices : numpy.ndarray
        Sorted vertex ids.
    source : int

    Returns
    -------
    dict
        ``{"sssp": message or None, "wcc": message or None}``.
    """
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components, dijkstra

    n = vertices.size
    rows = np.searchsorted(vertices, edges["src"].to_numpy())
    cols = np.searchsorted(vertices, edges["dst"].to_numpy())
    csr = csr_matrix((edges["weight"].to_numpy(np.float64), (rows, cols)), shape=(n, n))
    out = {}
    expected = dijkstra(csr, directed=True, indices=int(np.searchsorted(vertices, source)))
    got = frames["sssp"]["distance"].to_numpy(np.float64)
    got = np.where(got >= np.finfo(frames["sssp"]["distance"].dtype).max, np.inf, got)
    bad = np.isfinite(got) != np.isfinite(expected)
    if bad.any():
        out["sssp"] = "sssp reachability: " + first_difference(bad, got, expected, vertices)
    else:
        reach = np.isfinite(got)
        bad = np.zeros(n, bool)
        bad[reach] = ~np.isclose(got[reach], expected[reach], rtol=SCIPY_RTOL, atol=0.0)
        out["sssp"] = ("sssp distance: " + first_difference(bad, got, expected, vertices)
                       if bad.any() else None)
    _, labels = connected_components(csr, directed=True, connection="weak")
    a, b = partition(frames["wcc"]["labels"]), partition(labels)
    bad = a != b
    out["wcc"] = "wcc components: " + first_difference(bad, a, b, vertices) if bad.any() else None
    return out


def compare_with_model(edges, vertices, stream):
    """``g.edges()`` and ``g.vertices()`` against the stream's model; a message or None."""
    expected_vertices = stream.vertex_ids()
    if not np.array_equal(vertices, expected_vertices):
        return (f"vertices: the graph has {vertices.size:,}, the model {expected_vertices.size:,}"
                + ("" if vertices.size != expected_vertices.size else " (different ids)"))
    expected = stream.edge_frame()
    if len(edges) != len(expected):
        return f"edges: the graph has {len(edges):,}, the model {len(expected):,}"
    for column in ("src", "dst", "weight"):
        a, b = edges[column].to_numpy(), expected[column].to_numpy()
        if column == "weight":
            a = a.astype(np.float32)
        bad = a != b
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            return (f"edges: {column} differs on {int(bad.sum()):,} rows, first edge "
                    f"({edges['src'].iat[row]}, {edges['dst'].iat[row]}): {a[row]!r} vs {b[row]!r}")
    return None


def run_check(g, queries, stream, config, batch, phase):
    """Hold the graph and its tracked queries to recomputation from scratch.

    Parameters
    ----------
    g : StreamGraph
    queries : dict
        ``{kind: tracked query}``.
    stream : SoakStream
        The model of the graph.
    config : dict
        The run's configuration (backend, graph options, tol).
    batch : int
        Batches applied so far.
    phase : str

    Returns
    -------
    dict
        ``passed``, ``seconds``, ``problems`` (``{check: message}``) and the
        PageRank L1 distance to the recomputation.
    """
    t0 = time.perf_counter()
    problems = {}
    edges_native, vertices_native = g.edges(), g.vertices()
    edges = to_pandas(edges_native)
    vertices = to_pandas(vertices_native).to_numpy().astype(np.int64, copy=False)
    problems["graph"] = compare_with_model(edges, vertices, stream)
    try:
        g.check_consistency()
        problems["consistency"] = None
    except RuntimeError as error:
        problems["consistency"] = str(error)
    fresh = cgs.StreamGraph.from_edgelist(edges_native, source="src", destination="dst", weight="weight", backend=config["backend"],
                                          **config["graph_options"])
    fresh.add_vertices(vertices_native)
    references = track_queries(fresh, stream.source_id, config["tol"], mode="recompute")
    frames = {kind: result_frame(query) for kind, query in queries.items()}
    l1 = None
    for kind, reference in references.items():
        problems[f"{kind}/recompute"], value = compare_results(kind, frames[kind], result_frame(reference),
                                                               config["tol"])
        l1 = value if kind == "pagerank" else l1
    del fresh, references
    if config["backend"] == "cpu":
        for kind, message in compare_scipy(frames, edges, vertices, stream.source_id).items():
            problems[f"{kind}/scipy"] = message
    failed = {k: v for k, v in problems.items() if v is not None}
    return {"batch": batch, "phase": phase, "passed": not failed, "problems": failed,
            "checks": sorted(problems), "pagerank_l1": l1, "seconds": time.perf_counter() - t0}



# ---------------------------------------------------------------------------
# the run
# ---------------------------------------------------------------------------

#: BatchReport counts summed over the run
COUNTS = ("rows", "inserted", "deleted", "weight_updated", "unchanged", "ignored", "cancelled",
          "new_vertices", "removed_vertices")


def run_soak(config, no_progress=False):
    """Build G0, stream the batches, check and sample; the run's record.

    Parameters
    ----------
    config : dict
        From :func:`make_config`.
    no_progress : bool
        No progress bar.

    Returns
    -------
    dict
        ``config``, ``graph`` (G0's figures), ``samples``, ``phase_ends``,
        ``checks``, ``counts``, ``batch_ms`` (wall and engine time of every
        batch), ``times`` and ``error`` (None, or the exception that stopped
        the run: the figures up to it are kept).
    """
    t_start = time.perf_counter()
    edges, what = initial_edges(config["scale"], config["vertices"], config["edge_factor"], config["seed"])
    stream = SoakStream(edges, config["batch_size"], config["cycle_batches"], config["seed"])
    config["graph_options"] = graph_options(config["placement"], config["cache_budget_fraction"], len(edges))
    sync_device()
    t0 = time.perf_counter()
    g = cgs.StreamGraph.from_edgelist(edges, source="src", destination="dst", weight="weight", backend=config["backend"],
                                      **config["graph_options"])
    queries = track_queries(g, stream.source_id, config["tol"])
    sync_device()
    build_s = time.perf_counter() - t0
    del edges
    graph = {"description": what, "vertices": g.number_of_vertices(), "edges": g.number_of_edges(),
             "source": stream.source_id, "new_vertices_per_growth_batch": stream.new_per_batch,
             "phase_batches": dict(stream.lengths), "build_s": build_s}
    write(f"[soak] {config['backend']}/{config['placement']}: {what}: {graph['vertices']:,} vertices, "
          f"{graph['edges']:,} edges; built and tracked in {build_s:.1f} s; "
          f"{config['batches']:,} batches of {config['batch_size']:,} rows, cycle {stream.cycle} "
          f"(churn {stream.lengths['churn']}, growth {stream.lengths['growth']}, "
          f"shrink {stream.lengths['shrink']})")

    samples = [{"batch": 0, "cycle": 0, "phase": "start", **memory_figures(g, config["backend"]),
                "model_bytes": stream.nbytes(), "wall_ms": None, "engine_ms": None}]
    checks, phase_ends = [], []
    counts = dict.fromkeys(COUNTS, 0)
    wall_all, engine_all, window_wall, window_engine = [], [], [], []
    model_s = 0.0

    def check(batch, phase):
        record = run_check(g, queries, stream, config, batch, phase)
        checks.append(record)
        if not record["passed"]:
            write(f"[soak] CHECK FAILED after batch {batch} ({phase}): "
                  + "; ".join(f"{k}: {v}" for k, v in record["problems"].items()))

    def step_once(b):
        """Generate and apply batch ``b``; record its phase end, sample and check."""
        nonlocal window_wall, window_engine, model_s
        t0 = time.perf_counter()
        step = stream.next_step(b)
        model_s += time.perf_counter() - t0
        wall, engine, reports = apply_step(g, step)
        for report in reports:
            for name in COUNTS:
                counts[name] += getattr(report, name)
        wall_all.append(wall)
        engine_all.append(engine)
        window_wall.append(wall)
        window_engine.append(engine)
        done = b + 1
        if step.phase_end:
            end = {"batch": done, "cycle": step.cycle, "phase": step.phase,
                   **memory_figures(g, config["backend"])}
            if step.phase == "shrink":
                end["compact"] = compact_graph(g, config["backend"])
            phase_ends.append(end)
        if done % config["sample_every"] == 0 or done == config["batches"]:
            samples.append({"batch": done, "cycle": step.cycle, "phase": step.phase,
                            **memory_figures(g, config["backend"]), "model_bytes": stream.nbytes(),
                            "wall_ms": time_stats(window_wall), "engine_ms": time_stats(window_engine)})
            window_wall, window_engine = [], []
            if hasattr(bar, "set_postfix"):
                bar.set_postfix(phase=step.phase, edges=samples[-1]["edges"],
                                mem=fmt_bytes(samples[-1]["memory_bytes"]), refresh=False)
        if done % config["check_every"] == 0 or done == config["batches"]:
            check(done, step.phase)

    error = None
    bar = progress(range(config["batches"]), config["batches"], "soak", no_progress)
    try:
        check(0, "start")
        for b in bar:
            step_once(b)
    except Exception as exc:        # a soak records what broke and still writes its files
        error = {"batch": len(wall_all), "error": f"{type(exc).__name__}: {exc}",
                 "traceback": traceback.format_exc()}
        write(f"[soak] STOPPED at batch {error['batch']}: {error['error']}")
        if hasattr(bar, "close"):
            bar.close()
    times = {"total_s": time.perf_counter() - t_start, "build_s": build_s,
             "apply_wall_s": float(sum(wall_all)), "apply_engine_s": float(sum(engine_all)),
             "model_s": model_s,
             "checks_s": float(sum(c["seconds"] for c in checks))}
    return {"config": config, "graph": graph, "samples": samples, "phase_ends": phase_ends,
            "checks": checks, "counts": counts, "times": times, "error": error,
            "batch_ms": {"wall": [round(1e3 * x, 4) for x in wall_all],
                         "engine": [round(1e3 * x, 4) for x in engine_all]}}


# ---------------------------------------------------------------------------
# the summary and the files
# ---------------------------------------------------------------------------

def shrink_end_memory(end):
    """Memory figures at a shrinkage end: after ``compact`` where it ran."""
    return end["compact"]["after"] if end.get("compact") else end


def summarize(record):
    """The headline figures of a run (see the module docstring)."""
    samples, checks = record["samples"], record["checks"]
    shrink_ends = [e for e in record["phase_ends"] if e["phase"] == "shrink"]
    points = samples + record["phase_ends"]            # phase ends are taken before compact
    peak = max(points, key=lambda p: p["memory_bytes"])
    start, final = samples[0], samples[-1]
    summary = {
        "batches": len(record["batch_ms"]["wall"]),
        "total_s": record["times"]["total_s"],
        "batch_wall_ms": time_stats([x / 1e3 for x in record["batch_ms"]["wall"]]),
        "batch_engine_ms": time_stats([x / 1e3 for x in record["batch_ms"]["engine"]]),
        "checks": len(checks), "checks_passed": sum(c["passed"] for c in checks),
        "checks_failed": sum(not c["passed"] for c in checks),
        "error": record["error"]["error"] if record["error"] else None,
        "memory_start": start, "memory_max": {"batch": peak["batch"], "memory_bytes": peak["memory_bytes"]},
        "max_rss_bytes": max(p["rss_bytes"] or 0 for p in points) or None,
        "memory_final": final, "last_shrink_end": None, "shrink_growth": None,
        "compact": "called at every shrinkage end" if any(e.get("compact") for e in shrink_ends)
                   else "StreamGraph.compact does not exist: not called",
    }
    if shrink_ends:
        first, last = shrink_end_memory(shrink_ends[0]), shrink_end_memory(shrink_ends[-1])
        summary["last_shrink_end"] = {"batch": shrink_ends[-1]["batch"], **last}
        growth = {"first_batch": shrink_ends[0]["batch"], "last_batch": shrink_ends[-1]["batch"],
                  **{key: last[key] - first[key] for key in ("memory_bytes", "edges", "vertices")}}
        growth["memory_fraction"] = growth["memory_bytes"] / first["memory_bytes"]
        if first["rss_bytes"] is not None and last["rss_bytes"] is not None:
            growth["rss_bytes"] = last["rss_bytes"] - first["rss_bytes"]
        summary["shrink_growth"] = growth
    summary["ok"] = summary["checks_failed"] == 0 and summary["error"] is None
    return summary


def fmt_delta(value):
    """A signed :func:`fmt_bytes`."""
    return "-" if value is None else ("+" if value >= 0 else "-") + fmt_bytes(abs(value))


def fmt_ms(stats, key="mean"):
    """One figure of :func:`time_stats` in ms; '-' for None."""
    return "-" if not stats else f"{stats[key]:,.1f}"


def fmt_size(point):
    """'N vertices, M edges' of a memory record."""
    return f"{point['vertices']:,} vertices, {point['edges']:,} edges"


def summary_lines(record, summary):
    """The one-screen summary printed at the end of a run."""
    config, times = record["config"], record["times"]
    wall, engine = summary["batch_wall_ms"], summary["batch_engine_ms"]
    start, final = summary["memory_start"], summary["memory_final"]
    lines = [
        f"soak {config['backend']}/{config['placement']}: {record['graph']['description']}, "
        f"{summary['batches']:,} batches of {config['batch_size']:,} rows, seed {config['seed']}",
        f"time: {times['total_s']:,.1f} s in all (batches {times['apply_wall_s']:,.1f} s, checks "
        f"{times['checks_s']:,.1f} s, model {times['model_s']:,.1f} s, build {times['build_s']:,.1f} s)",
        f"per batch (ms): wall mean {fmt_ms(wall)}, p50 {fmt_ms(wall, 'p50')}, p99 {fmt_ms(wall, 'p99')}, "
        f"max {fmt_ms(wall, 'max')}; engine (total_s) mean {fmt_ms(engine)}, p99 {fmt_ms(engine, 'p99')}",
        f"checks: {summary['checks']} run, {summary['checks_passed']} passed, "
        f"{summary['checks_failed']} failed",
        f"memory (g.memory_bytes()): start {fmt_bytes(start['memory_bytes'])} ({fmt_size(start)}); "
        f"max {fmt_bytes(summary['memory_max']['memory_bytes'])} (batch {summary['memory_max']['batch']})",
    ]
    if summary["error"]:
        lines.insert(4, f"STOPPED at batch {record['error']['batch']:,}: {summary['error']}")
    last = summary["last_shrink_end"]
    if last:
        lines.append(f"  end at the same vertices (last shrinkage end, batch {last['batch']:,}): "
                     f"{fmt_bytes(last['memory_bytes'])} ({fmt_size(last)})")
    if final["batch"] != (last or {}).get("batch"):
        lines.append(f"  final (batch {final['batch']:,}, phase {final['phase']}): "
                     f"{fmt_bytes(final['memory_bytes'])} ({fmt_size(final)})")
    growth = summary["shrink_growth"]
    if growth and growth["first_batch"] != growth["last_batch"]:
        lines.append(f"  growth between the first and last shrinkage ends (batches {growth['first_batch']:,} "
                     f"-> {growth['last_batch']:,}): {fmt_delta(growth['memory_bytes'])} "
                     f"({100 * growth['memory_fraction']:+.2f}%; edges {growth['edges']:+,}, vertices "
                     f"{growth['vertices']:+,}); RSS {fmt_delta(growth.get('rss_bytes'))}")
    else:
        lines.append("  growth between shrinkage ends: fewer than two shrinkage ends in this run")
    lines.append(f"RSS: start {fmt_bytes(start['rss_bytes'])}, max sampled "
                 f"{fmt_bytes(summary['max_rss_bytes'])}, final {fmt_bytes(final['rss_bytes'])}, peak "
                 f"(getrusage) {fmt_bytes(final['peak_rss_bytes'])}; the model about "
                 f"{fmt_bytes(final['model_bytes'])} of it")
    if config["backend"] == "gpu":
        lines.append("GPU pools in use (engine + CuPy default): start "
                     f"{fmt_bytes(start.get('engine_pool_used_bytes'))} + "
                     f"{fmt_bytes(start.get('cupy_pool_used_bytes'))}, final "
                     f"{fmt_bytes(final.get('engine_pool_used_bytes'))} + "
                     f"{fmt_bytes(final.get('cupy_pool_used_bytes'))}")
    lines.append(f"compact: {summary['compact']}")
    return lines


def markdown(record, summary, env):
    """The Markdown report: summary, memory samples, shrinkage ends and checks."""
    config, counts = record["config"], record["counts"]
    gpu = config["backend"] == "gpu"
    m = env["machine"]
    machine = f"{m['cpu']}, {m['cpu_count']} CPUs, Python {m['python']}"
    if env.get("gpu") and "name" in env["gpu"]:
        machine += f", GPU {env['gpu']['name']}"
    verdict = ("all checks passed" if summary["checks_failed"] == 0
               else f"**{summary['checks_failed']} check(s) FAILED**")
    if summary["error"]:
        verdict += f"; **stopped at batch {record['error']['batch']:,}: {summary['error']}**"
    out = [f"# Soak: backend `{config['backend']}`, placement `{config['placement']}`", "",
           f"{machine}; " + ", ".join(f"{k} {v}" for k, v in env["versions"].items()) + ".", "",
           f"{record['graph']['description']}: G0 {record['graph']['vertices']:,} vertices, "
           f"{record['graph']['edges']:,} edges; {summary['batches']:,} batches of {config['batch_size']:,} "
           f"rows in cycles of {config['cycle_batches']} (churn / growth / shrink: "
           + " / ".join(str(v) for v in record["graph"]["phase_batches"].values())
           + f"); SSSP from {record['graph']['source']}, WCC, PageRank (tol {config['tol']:g}); "
           f"checks every {config['check_every']}, samples every {config['sample_every']} batches; "
           f"seed {config['seed']}. Result: {verdict}.", "",
           "```", *summary_lines(record, summary), "```", "",
           "Rows over the run: " + ", ".join(f"{k.replace('_', ' ')} {v:,}" for k, v in counts.items()) + ".",
           "", "## Memory samples", "",
           "| batch | phase | vertices | edges | memory_bytes | RSS | model | "
           + ("engine pool | CuPy pool | " if gpu else "")
           + "wall mean (ms) | p50 | p99 | engine mean (ms) | p99 |",
           "| ---: | --- | ---: | ---: | ---: | ---: | ---: | " + ("---: | ---: | " if gpu else "")
           + "---: | ---: | ---: | ---: | ---: |"]
    for s in record["samples"]:
        pools = (f"{fmt_bytes(s.get('engine_pool_used_bytes'))} | "
                 f"{fmt_bytes(s.get('cupy_pool_used_bytes'))} | " if gpu else "")
        out.append(f"| {s['batch']:,} | {s['phase']} | {s['vertices']:,} | {s['edges']:,} | "
                   f"{fmt_bytes(s['memory_bytes'])} | {fmt_bytes(s['rss_bytes'])} | "
                   f"{fmt_bytes(s['model_bytes'])} | {pools}"
                   f"{fmt_ms(s['wall_ms'])} | {fmt_ms(s['wall_ms'], 'p50')} | "
                   f"{fmt_ms(s['wall_ms'], 'p99')} | "
                   f"{fmt_ms(s['engine_ms'])} | {fmt_ms(s['engine_ms'], 'p99')} |")
    out += ["", "## Phase ends", "",
            "| cycle | phase | batch | vertices | edges | memory_bytes | after compact | RSS |",
            "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for e in record["phase_ends"]:
        after = fmt_bytes(e["compact"]["after"]["memory_bytes"]) if e.get("compact") else "-"
        out.append(f"| {e['cycle']} | {e['phase']} | {e['batch']:,} | {e['vertices']:,} | {e['edges']:,} | "
                   f"{fmt_bytes(e['memory_bytes'])} | {after} | {fmt_bytes(e['rss_bytes'])} |")
    out += ["", "## Checks", "", "| batch | phase | result | seconds | PageRank L1 | problems |",
            "| ---: | --- | --- | ---: | ---: | --- |"]
    for c in record["checks"]:
        l1 = "-" if c["pagerank_l1"] is None else f"{c['pagerank_l1']:.2e}"
        problems = "; ".join(f"{k}: {v}" for k, v in c["problems"].items()) or "-"
        out.append(f"| {c['batch']:,} | {c['phase']} | {'OK' if c['passed'] else 'FAILED'} | "
                   f"{c['seconds']:.2f} | {l1} | {problems} |")
    return "\n".join(out) + "\n"


def write_outputs(record, summary, out_dir):
    """Write ``soak-<backend>-<placement>.json`` and ``.md``; their paths and the environment."""
    env = {"machine": machine_info(), "gpu": gpu_info(), "versions": versions()}
    os.makedirs(out_dir, exist_ok=True)
    stem = os.path.join(out_dir, f"soak-{record['config']['backend']}-{record['config']['placement']}")
    with open(stem + ".json", "w") as f:
        json.dump({"ok": summary["ok"], **env, "summary": summary, **record}, f,
                  indent=1, default=json_default)
    with open(stem + ".md", "w") as f:
        f.write(markdown(record, summary, env))
    return [stem + ".json", stem + ".md"]


# ---------------------------------------------------------------------------
# command line
# ---------------------------------------------------------------------------

def parse_args(argv=None):
    """The command line (see the module docstring)."""
    p = argparse.ArgumentParser(
        prog="python -m benchmarks.soak",
        description="Soak benchmark: batches of churn, growth and shrinkage with SSSP, WCC and PageRank "
                    "tracked, checked against recomputation and memory sampled.",
        epilog="Exit status: 0 when every check passed, 1 when one failed (after writing the files), "
               "2 when the backend cannot run here.")
    p.add_argument("--backend", choices=("cpu", "gpu"), default="cpu", help="engine backend (default cpu)")
    p.add_argument("--placement", choices=("device", "host", "cached"), default="device",
                   help="where the adjacency lives (default device)")
    p.add_argument("--cache-budget-fraction", type=positive(float), default=0.125,
                   help="placement cached: cache budget as a share of G0's adjacency bytes (default 1/8)")
    p.add_argument("--batches", type=positive(int), default=10000, help="number of batches (default 10000)")
    p.add_argument("--batch-size", type=positive(int),
                   help=f"rows per batch (default {DEFAULTS['cpu']['batch_size']} on the CPU, "
                        f"{DEFAULTS['gpu']['batch_size']} on the GPU)")
    p.add_argument("--cycle-batches", type=positive(int),
                   help="batches of one churn/growth/shrink cycle, 4 or more (default 1000, or about half "
                        "the batches for shorter runs)")
    p.add_argument("--check-every", type=positive(int), default=500,
                   help="batches between checks (default 500)")
    p.add_argument("--sample-every", type=positive(int), default=250,
                   help="batches between memory samples (default 250)")
    size = p.add_mutually_exclusive_group()
    size.add_argument("--scale", type=positive(int),
                      help=f"R-MAT scale of G0 (default {DEFAULTS['cpu']['scale']} on the CPU, "
                           f"{DEFAULTS['gpu']['scale']} on the GPU)")
    size.add_argument("--vertices", type=positive(int),
                      help="a uniform random G0 on this many vertices instead")
    p.add_argument("--edge-factor", type=positive(int), help="edges drawn per vertex (default 8)")
    p.add_argument("--tol", type=positive(float), default=1e-6, help="PageRank L1 error bound (default 1e-6)")
    p.add_argument("--seed", type=int, default=0, help="seed of the graph and the stream (default 0)")
    p.add_argument("--out", default=os.path.join("benchmarks", "results"),
                   help="output directory (default benchmarks/results)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    args = p.parse_args(argv)
    if args.cycle_batches is not None and args.cycle_batches < 4:
        p.error(f"--cycle-batches must be at least 4, got {args.cycle_batches}")
    if args.seed < 0:
        p.error(f"--seed must be non-negative, got {args.seed}")
    return args


def make_config(args):
    """The run's configuration: the arguments with the backend's defaults filled in."""
    defaults = DEFAULTS[args.backend]
    cycle = args.cycle_batches or max(4, min(1000, args.batches // 2 // 4 * 4))
    return {"backend": args.backend, "placement": args.placement,
            "cache_budget_fraction": args.cache_budget_fraction, "batches": args.batches,
            "batch_size": args.batch_size or defaults["batch_size"], "cycle_batches": cycle,
            "check_every": args.check_every, "sample_every": args.sample_every,
            "scale": None if args.vertices else args.scale or defaults["scale"], "vertices": args.vertices,
            "edge_factor": args.edge_factor or defaults["edge_factor"], "tol": args.tol, "seed": args.seed}


def main(argv=None):
    """Run the soak; the exit status (0 passed, 1 a check failed, 2 cannot run here)."""
    args = parse_args(argv)
    if args.backend == "gpu":
        from cugraph_stream.backends import available_backends

        reason = available_backends().get("gpu")
        if reason:
            print(f"error: backend gpu cannot run here: {reason}", file=sys.stderr)
            return 2
    config = make_config(args)
    record = run_soak(config, no_progress=args.no_progress)
    summary = summarize(record)
    paths = write_outputs(record, summary, args.out)
    print()
    print("\n".join(summary_lines(record, summary)))
    print("written: " + ", ".join(paths), flush=True)
    if not summary["ok"]:
        print(f"FAILED: {summary['checks_failed']} of {summary['checks']} checks failed (see the Checks "
              "table)" + (f"; stopped by {summary['error']}" if summary["error"] else ""), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
