"""Which lists the hot caches hold: the selection policy, as pure functions.

Every batch, :meth:`~cugraph_stream.engine.store.GraphStore.refresh_cache`
ranks the lists of every cache sharing one budget (one per cached
adjacency) together and shares the budget's chunks out among the caches
(:func:`select_in_chunks`); each cache then evicts and loads accordingly
(:class:`~cugraph_stream.engine.cache.HotCache`).  What a list is worth
comes from how often it was read over the last ``tau`` batches
(:class:`~cugraph_stream.engine.hotness.Hotness`).  Written once against
``ops.xp``, so the NumPy backend runs (and tests) exactly what the GPU runs.

Where this departs from Grapin (section 6), and why:

* **Value per byte, not hotness alone.**  Host memory is read in 64-byte
  transactions (:data:`~cugraph_stream.backends.base.READ_UNIT_BYTES`), so
  a read of a 3-entry list costs as much as a read of a 16-entry one.  A list's value is ``score * transactions per read`` and
  lists are ranked by value per cached byte (a greedy knapsack, sort,
  prefix sum, binary search): many short, often-read lists beat one long
  list of the same bytes.
* **Whole chunks per cache.**  A cache whose lists deserve a sliver of a
  chunk gets none, rather than a chunk held for a few lists
  (:func:`allot_chunks`), and each cache leaves :data:`LOAD_ROOM_SHARE` of
  its chunks free so that lists that change reload without compaction.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .reads import READ_UNIT_BYTES

#: share of a cache's chunks the joint selection leaves free for changed lists to reload into
#: (more room lets garbage gather longer, so each compaction frees more: 1/128 cost the
#: scale-24 benchmark about 6 compactions a batch)
LOAD_ROOM_SHARE = 1 / 32

#: bit pattern of float32 infinity: ``_FLOAT32_INF - bits`` orders non-negative float32 values descending
_FLOAT32_INF = 0x7F800000


@dataclass
class ListValues:
    """The lists one cache could hold, and what holding each is worth.

    Attributes
    ----------
    vertices : array of int64
        Eligible vertices, ascending.
    cost : array of int64
        Cached bytes of each one's list.
    density : array of float32
        Host bytes a cached copy would have saved over the window, per cached
        byte (up to a constant factor shared by all caches).
    """

    vertices: object
    cost: object
    density: object


def list_values(ops, score, degree, slot_bytes, read_itemsizes, max_list_slots=None):
    """What caching each list is worth: host transactions saved per cached byte.

    A read of a list of ``d`` entries from host memory costs, per array read
    (``read_itemsizes``: 4 for the neighbours, plus the weight itemsize when
    the cache holds weights), ``ceil(d * itemsize / 64)`` transactions of
    :data:`~cugraph_stream.backends.base.READ_UNIT_BYTES` (the store starts
    every list on a 128-byte boundary).  Over the window the
    list was read ``score`` times, so caching it would have saved ``score``
    times that; it costs ``d * slot_bytes`` bytes of cache.

    Parameters
    ----------
    ops : Backend
    score : array of int
        Non-negative hotness per vertex (:meth:`Hotness.score`).
    degree : array of int
        Entries per list; vertices beyond ``min(score.size, degree.size)`` are ignored.
    slot_bytes : int
        Cached bytes per entry.
    read_itemsizes : tuple of int
        Itemsizes of the arrays a cached copy serves.
    max_list_slots : int, optional
        Longer lists are never cached (a list must fit in one chunk).

    Returns
    -------
    ListValues
        Vertices with score 0 or degree 0 never qualify.

    Examples
    --------
    >>> from cugraph_stream.backends import get_backend
    >>> v = list_values(get_backend("cpu"), np.array([3, 3, 0, 3]), np.array([1, 32, 5, 33]), 4, (4,))
    >>> v.vertices.tolist(), v.cost.tolist(), v.density.tolist()    # 1 transaction for 4 bytes, 2 for 128, 3 for 132
    ([0, 1, 3], [4, 128, 132], [0.75, 0.046875, 0.06818182021379471])
    """
    xp = ops.xp
    n = min(int(score.size), int(degree.size))
    score = score[:n]
    degree = degree[:n].astype(xp.int64, copy=False)
    eligible = (score > 0) & (degree > 0)
    if max_list_slots is not None:
        eligible &= degree <= int(max_list_slots)
    vertices = xp.flatnonzero(eligible)
    length = degree[vertices]
    saved = xp.zeros(vertices.size, dtype=xp.int64)
    for itemsize in read_itemsizes:               # a loop over arrays, not vertices
        saved += (length * int(itemsize) + READ_UNIT_BYTES - 1) // READ_UNIT_BYTES
    cost = length * int(slot_bytes)
    density = (score[vertices].astype(xp.float64) * saved) / cost
    return ListValues(vertices, cost, density.astype(xp.float32))


def _rank(ops, parts):
    """Positions (in the concatenation of ``parts``) of every list, most valuable
    first, and the lists' costs in that order."""
    xp = ops.xp
    density = xp.concatenate([part.density for part in parts])
    cost = xp.concatenate([part.cost for part in parts])
    # non-negative float32 values order like their bit patterns: a stable sort of the patterns,
    # negated, ranks by density and keeps ties in position order (the earlier part, then the
    # smaller id), with 32-bit keys
    ranked = xp.argsort(_FLOAT32_INF - density.view(xp.int32), kind="stable")
    return ranked, cost[ranked]


def allot_chunks(wanted_bytes, chunk_bytes, capacity_bytes):
    """Whole chunks per cache for what its lists want (largest remainder), within ``capacity_bytes``.

    ``wanted_bytes`` sum to at most ``capacity_bytes``.  Cache ``i`` gets
    ``floor(wanted_bytes[i] / chunk_bytes[i])`` chunks, then
    what is left of the capacity goes a chunk at a time to the caches with
    the largest unserved fraction (none to a cache that wants nothing more).

    >>> allot_chunks([20, 1597], [100, 100], 1600), allot_chunks([60, 30], [100, 100], 100)
    ([0, 16], [1, 0])
    >>> allot_chunks([150, 250], [100, 100], 600), allot_chunks([150, 140], [50, 100], 300)
    ([2, 3], [3, 1])
    """
    wanted = np.asarray(wanted_bytes, dtype=np.float64) / np.asarray(chunk_bytes, dtype=np.float64)
    allot = np.floor(wanted).astype(np.int64)
    left = int(capacity_bytes) - int((allot * np.asarray(chunk_bytes, dtype=np.int64)).sum())
    for i in np.argsort(-(wanted - allot), kind="stable").tolist():
        if wanted[i] > allot[i] and left >= chunk_bytes[i]:
            allot[i] += 1
            left -= int(chunk_bytes[i])
    return allot.tolist()


def select_in_chunks(ops, parts, chunk_bytes, total_chunks, room_share=LOAD_ROOM_SHARE):
    """The lists worth most per byte for caches that hold their lists in whole chunks of one budget.

    The lists of all ``parts`` (one :class:`ListValues` per cache sharing
    the budget) are ranked together by ``density`` (descending; ties: the
    earlier part, then the smaller vertex id, so the choice is
    deterministic on every backend), and the longest prefix of the ranking
    whose costs fit ``total_chunks`` chunks of the largest size is what the
    caches deserve (it stops at the first list that does not fit, as in
    Grapin: a smaller, less valuable list behind it is not taken instead).
    Each cache ``i`` then gets a whole number of its chunks of
    ``chunk_bytes[i]``, together within that budget (:func:`allot_chunks`),
    and takes its most valuable lists within them, leaving ``room_share``
    of the chunks free so that lists that change reload into chunk tails
    without compaction.

    With chunks of one byte and ``room_share=0``, each cache takes exactly
    its lists of the joint prefix within a budget of ``total_chunks`` bytes.

    Parameters
    ----------
    ops : Backend
    parts : list of ListValues
        One per cache sharing the budget (:func:`list_values`).
    chunk_bytes : list of int
        Bytes of one chunk of each cache.
    total_chunks : int
        Chunks of the largest size the budget holds.
    room_share : float
        Share of each cache's chunks left free (default :data:`LOAD_ROOM_SHARE`).

    Returns
    -------
    list of arrays of int64
        Per part, its chosen vertices, most valuable first.

    Examples
    --------
    >>> from cugraph_stream.backends import get_backend
    >>> ops = get_backend("cpu")
    >>> out = list_values(ops, np.array([5, 0, 6, 5]), np.array([10, 50, 40, 3]), 4, (4,))
    >>> inn = list_values(ops, np.array([1, 1]), np.array([1, 2]), 4, (4,))
    >>> out.density.tolist(), inn.density.tolist()     # out 0 and in 1 tie: the earlier part first
    ([0.125, 0.11249999701976776, 0.4166666567325592], [0.25, 0.125])
    >>> [c.tolist() for c in select_in_chunks(ops, [out, inn], [1, 1], 4 * 16, room_share=0)]    # 64 bytes
    [[3, 0], [0, 1]]
    >>> [c.tolist() for c in select_in_chunks(ops, [out, inn], [1, 1], 4 * 15, room_share=0)]
    [[3, 0], [0]]

    Whole chunks: a cache whose lists are worth a sliver of a chunk gets none.

    >>> out = list_values(ops, np.array([1, 1]), np.array([1, 2]), 8, (4, 4))      # 24 bytes, worth little
    >>> inn = list_values(ops, np.array([5] * 6), np.array([60] * 6), 4, (4,))     # 6 lists of 240 bytes
    >>> [c.tolist() for c in select_in_chunks(ops, [out, inn], [1, 1], 4 * 256, room_share=0)]
    [[0, 1], [0, 1, 2, 3]]
    >>> [c.tolist() for c in select_in_chunks(ops, [out, inn], [256, 256], 4, room_share=0)]
    [[], [0, 1, 2, 3]]
    """
    xp = ops.xp
    sizes = [int(part.vertices.size) for part in parts]
    if total_chunks <= 0 or sum(sizes) == 0:
        return [xp.empty(0, dtype=xp.int64) for _ in parts]
    ranked, costs = _rank(ops, parts)
    budget = int(total_chunks) * max(chunk_bytes)
    used = xp.cumsum(costs)
    count = int(xp.searchsorted(used, xp.asarray([budget], dtype=used.dtype), side="right")[0])
    firsts = np.cumsum([0] + sizes).tolist()
    # per cache, its lists in ranked order (a mask over the ranking); sums, not a weighted
    # bincount, whose atomics would all hit one counter per cache
    mine = [(ranked >= firsts[i]) & (ranked < firsts[i + 1]) for i in range(len(parts))]
    wanted = ops.to_host(xp.stack([xp.where(m[:count], costs[:count], 0).sum() for m in mine]))
    allot = allot_chunks(wanted, chunk_bytes, budget)
    candidates = []
    for i, part in enumerate(parts):             # a loop over caches
        room = int(allot[i] * chunk_bytes[i] * (1.0 - room_share))
        # the cache's most valuable lists within its room: a prefix of its lists in ranked order
        taken = mine[i] & (xp.cumsum(xp.where(mine[i], costs, 0)) <= room)
        candidates.append(part.vertices[ranked[taken] - firsts[i]])
    return candidates
