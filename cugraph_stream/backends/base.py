"""The operator interface: the only code that knows which device holds the arrays.

The engine (graph store, batch reduction, dependency-memoization engine,
PageRank) is written once against :class:`Backend`.  A backend supplies an
array namespace (``xp``: NumPy or CuPy) for plain element-wise work, and the
graph operators that carry the cost of a batch: segment expansion, the edge
hash index, the batch reduction (net change per edge), appending to and
removing from neighbour lists, relaxation (advance), re-seeding from
in-neighbours (pull), transitive invalidation, the level-synchronous BFS
(``bfs_levels``) and the PageRank push.  A new backend implements this
class; no algorithm and no engine module changes.

Conventions shared by every operator:

* Arrays live on the backend's device and never leave it inside an operator;
  only small scalars (counts, sizes) come back to the host.
* Vertex ids inside the engine are dense internal ids (``int64``).
* An adjacency (:class:`cugraph_stream.engine.adjacency.Adjacency`) exposes
  what :class:`AdjacencyLists` declares: per-vertex ``start``, ``degree`` and
  per-slot ``nbr`` and ``wgt`` arrays; vertex ``u``'s neighbours are
  ``nbr[start[u]:start[u] + degree[u]]``.  Its ``cache`` (a
  :class:`~cugraph_stream.engine.cache.HotCache`, read as
  :class:`CachedLists`, or None) holds copies of hot lists in device memory,
  equal to the store's after every batch, which a backend may read instead;
  ``version`` changes whenever a list or its cached copy may have moved.
  These two protocols are all a backend reads of the engine's objects.
* A relaxation rule (:class:`cugraph_stream.algorithms.rule.Rule`) names how a
  value travels along an edge (``extend``: ``"add"``, ``"add_one"``,
  ``"min"`` or ``"copy"``) and which of two values is better (``order``:
  ``"min"`` or ``"max"``), so a GPU backend can instantiate one kernel
  template per rule.
"""
from __future__ import annotations

import abc
import contextlib
import functools
import threading
import time
from typing import Any, NamedTuple, Optional, Protocol, Sequence, runtime_checkable

import numpy as np

from . import rows

#: keys of an edge-index table slot that holds no key: never used, and freed (a tombstone)
EMPTY_KEY = -1
DELETED_KEY = -2
#: dtype of slot pointers (an adjacency's twin pointers, the arc index's entries): 4 bytes,
#: so one adjacency holds at most 2**32 - 1 slots; the kernels take them as ``unsigned int``
SLOT_DTYPE = np.dtype(np.uint32)
#: arc-index entries that hold no slot: never used, and freed (a tombstone); above
#: every slot an adjacency hands out (``engine.adjacency.MAX_SLOTS`` less its alignment)
EMPTY_SLOT = int(np.iinfo(SLOT_DTYPE).max)
DELETED_SLOT = EMPTY_SLOT - 1

#: Operators whose results carry sizes or values that the host reads (a
#: data-dependent length, a count, a host value): each call is one host
#: synchronisation point, where a GPU backend waits for its device.
SYNC_OPERATORS = frozenset({
    "to_host", "host_ints", "host_floats", "compress", "synchronize", "expand_segments", "unique",
    "factorize", "close_holes", "read_counts", "read_counted", "read_words", "net_changes", "net_changes_of_ends",
    "relax", "converge", "relax_arcs", "invalidate", "gather_plan", "gather_sum", "pagerank_push", "bfs_levels",
    "invalidate_keeping_ties", "sorted_distinct", "sorted_distinct_range", "sorted_union", "lookup_rows",
    "reached", "uncache_lists", "uncache_lists_in", "recache_in_place", "l1_deviation",
    "pagerank_correct", "pagerank_correct_arcs", "masked_sums", "deviation_and_sums", "last_rows_by_arc"})

#: Beamer's direction-optimising BFS (SC 2012; the GAP benchmark suite uses the
#: same rule): a top-down level switches to bottom-up once the edges to check
#: from the frontier exceed the edges to check from the unvisited vertices
#: divided by BFS_ALPHA (m_f > m_u / alpha), and a bottom-up level goes back
#: to top-down once the frontier shrinks and holds fewer than the vertices
#: divided by BFS_BETA (n_f < n / beta).  Beamer's tuned values.
BFS_ALPHA = 14
BFS_BETA = 24

#: Backend methods not counted as device calls: allocation, bookkeeping, timing
#: and a rollback's cleanup (a rolled-back batch publishes no counts)
UNCOUNTED_METHODS = frozenset({
    "aligned_empty", "allocation_scope", "chunk_allocator", "discard_scratch", "discard_faults", "memory_bytes",
    "mark", "elapsed", "release_marks", "unavailable_reason", "host_read_bandwidth", "spare", "join", "no_items"})

#: Bytes a GPU read of pinned host memory moves at least: a zero-copy read of a
#: short list costs the 64-byte blocks its bytes span.  ``benchmarks/transfer_paths.py``
#: on the lent H200 (2026-11-27): counted in 64-byte blocks, random reads of lists of
#: 1 to 4096 ids ran at 40-56 GB/s, near the 50 GB/s of a sequential read; counted in
#: 128-byte segments the short lists would have moved 66-92 GB/s, more than the bus carries.
READ_UNIT_BYTES = 64

#: Bytes per second of 128-byte transactions at which a kernel reads short lists
#: (32 ``int32``) of pinned host memory in place: the prior where nothing is measured
#: (the lent H100's figure, DESIGN.md "Measured on the lent H100 (2026-11-25)")
HOST_READ_BANDWIDTH_PRIOR = 14.3e9

#: Methods that wait for the device without launching work on it
WAIT_ONLY_METHODS = frozenset({"synchronize"})


class DeviceCalls(threading.local):
    """What this thread's operator calls asked of their devices so far.

    ``launches`` counts operator calls (each one or more kernel launches, or
    a transfer, on a GPU; the array-namespace steps between operators are
    not counted); ``syncs`` counts host synchronisation points: calls of
    :data:`SYNC_OPERATORS`.  An operator called by another operator counts
    as part of its caller.  Both backends count the same way, so the counts
    of a batch are the same on either (see ``BatchReport.syncs``).

    >>> import numpy as np
    >>> from cugraph_stream.backends import get_backend
    >>> ops = get_backend("cpu")
    >>> before = ops.calls.snapshot()
    >>> _ = ops.unique(np.array([3, 1, 3]), 4)        # a result of data-dependent length
    >>> _ = ops.hash_find(np.full(8, -1), np.array([5]))
    >>> ops.calls.since(before)
    (2, 1)
    """

    def __init__(self):
        self.launches = 0
        self.syncs = 0
        self.depth = 0

    def snapshot(self):
        """``(launches, syncs)`` so far, to subtract from a later one."""
        return self.launches, self.syncs

    def since(self, snapshot):
        """``(launches, syncs)`` counted since ``snapshot``."""
        return self.launches - snapshot[0], self.syncs - snapshot[1]


#: the counters of the calling thread
DEVICE_CALLS = DeviceCalls()


def _counted(method, launches, syncs):
    """``method`` counting one call (``launches``, ``syncs``) unless an operator called it."""
    @functools.wraps(method)
    def counted(self, *args, **kwargs):
        calls = DEVICE_CALLS
        if calls.depth:
            return method(self, *args, **kwargs)
        calls.launches += launches
        calls.syncs += syncs
        calls.depth = 1
        try:
            return method(self, *args, **kwargs)
        finally:
            calls.depth = 0
    counted.counted = True
    return counted


def _count_calls(cls):
    """Wrap the operators ``cls`` defines so that each call is counted in :data:`DEVICE_CALLS`."""
    for name, member in list(vars(cls).items()):
        if (name.startswith("_") or name in UNCOUNTED_METHODS or not callable(member)
                or isinstance(member, (staticmethod, classmethod)) or getattr(member, "counted", False)):
            continue
        setattr(cls, name, _counted(member, int(name not in WAIT_ONLY_METHODS), int(name in SYNC_OPERATORS)))


class NetChanges(NamedTuple):
    """What :meth:`Backend.net_changes` returns: the net change of each edge a
    batch names, each changed edge with its ends (``u <= v`` on an undirected
    graph), in no particular order."""

    #: ends of the edges absent before the batch and present after it
    inserted_u: Any
    inserted_v: Any
    #: their weights after the batch
    inserted_weights: Any
    #: their arc keys (:func:`~cugraph_stream.engine.hash_index.arc_key`)
    inserted_keys: Any
    #: ends of the edges present before and absent after
    deleted_u: Any
    deleted_v: Any
    #: the arc index's table positions of the deleted edges (what ``arc_find``
    #: gives), so the store erases and finds them without probing again
    deleted_at: Any
    #: ends of the edges present before and after with another weight
    updated_u: Any
    updated_v: Any
    #: their weights after the batch
    updated_weights: Any
    #: their table positions
    updated_at: Any
    #: ``inserted``, ``deleted``, ``weight_updated``, ``unchanged``, ``cancelled``, ``ignored``
    counts: dict


class SingleRow(NamedTuple):
    """What :meth:`Backend.apply_single_row` leaves where it ran (read with the
    next wait, not by the operator): ``record``, int64 words indexed by the
    ``SR_*`` constants (the status, a ``SINGLE_*`` code, the row's ends as
    internal ids, and every position the operator wrote with what it held
    before), and ``weights``, the row's weight (from ``SR_NEW``) and the
    edge's weight before the row (from ``SR_OLD``), each twice (an undirected
    edge's two arcs), of the adjacency's weight dtype."""

    record: Any
    weights: Any


#: :class:`SingleRow` statuses (``kernels/single_row.cu``, SingleRowStatus): the
#: general path must run (nothing was written), or what the row did
SINGLE_FALLBACK, SINGLE_INSERTED, SINGLE_DELETED, SINGLE_UPDATED, SINGLE_UNCHANGED, SINGLE_IGNORED = range(6)
#: :class:`SingleRow` record words (SingleRowWord): the status, the ends (``u``
#: again after ``v``: the words from ``SR_U`` and from ``SR_V`` are an undirected
#: edge's two arcs' sources and targets), the first and the second entry's
#: slots (the in-entry, or an undirected edge's mirror arc in ``v``'s list), the
#: arc index position written and what it held, both lists' degrees before,
#: for a deletion the moved first entry's index position, the out-slot whose
#: twin was rewritten (-1 where none) and each list's last slot before (where
#: its moved entry came from), the bits of the parent arrays whose trees the
#: deleted arc may cut, an undirected edge's mirror arc's index position,
#: what it held, and its moved entry's position (-1 where none), and from
#: ``SR_ENDS`` two words per tree: the values its ``u`` and its ``v`` held
#: before the row (the value's bytes, zero-extended to a word)
(SR_STATUS, SR_U, SR_V, SR_U_AGAIN, SR_OUT_SLOT, SR_IN_SLOT, SR_AT, SR_AT_WAS, SR_OUT_DEGREE, SR_IN_DEGREE,
 SR_MOVED_AT, SR_TWIN_AT, SR_OUT_LAST, SR_IN_LAST, SR_CUTS, SR_MIRROR_AT, SR_MIRROR_AT_WAS, SR_MIRROR_MOVED_AT,
 SR_ENDS) = range(19)
#: :class:`SingleRow` weights (SingleRowWeight): the row's weight and the edge's
#: before, each twice (an undirected edge's two arcs)
SR_NEW, SR_OLD, SR_WEIGHTS = 0, 2, 4
#: trees (a tracked query's parent and value arrays) :meth:`Backend.apply_single_row` reads, at most
SINGLE_ROW_TREES = 4
#: words of a :class:`SingleRow` record
SR_WORDS = SR_ENDS + 2 * SINGLE_ROW_TREES


def end_value(record, word, dtype):
    """The value of ``dtype`` (at most 8 bytes) whose bytes word ``word`` of the host
    record ``record`` (int64 words, ``SR_ENDS``: :meth:`Backend.apply_single_row`)
    holds, zero-extended: the value's bytes first in the word, as a little-endian
    device's copy (and :func:`set_end_value`) leaves them.

    >>> record = np.zeros(2, dtype=np.int64)
    >>> set_end_value(record, 1, np.float32(2.5))
    >>> float(end_value(record, 1, np.float32)), int(record[1] >> 32)
    (2.5, 0)
    """
    dtype = np.dtype(dtype)
    return record.view(dtype)[word * (8 // dtype.itemsize)]


def set_end_value(record, word, value):
    """Write the bytes of NumPy scalar ``value`` first in word ``word`` of host record
    ``record`` (whose word is zero: the rest stays so): the inverse of :func:`end_value`."""
    record.view(value.dtype)[word * (8 // value.dtype.itemsize)] = value


class Known:
    """A value an operator computed on the host, with the ``get()`` of a device
    read that waits for the next synchronisation (``GPUBackend._read_later``):
    operators that may leave a read to a later wait return either.

    >>> Known([1.0, 2.0]).get()
    [1.0, 2.0]
    """

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def get(self):
        return self.value


class RemovedEntries(NamedTuple):
    """What :meth:`Backend.remove_entries` returns: the entries that moved, and
    the pre-images a journal needs to undo the removal (None without ``keep``)."""

    #: every entry moved (as :meth:`Backend.close_holes` returns them): the owner of its list
    owner: Any
    #: the slot it moved from (its values there are unchanged)
    source: Any
    #: the slot it moved to (a hole)
    target: Any
    #: the removed slots, in the order of the pre-images ``removed``
    slots: Any
    #: vertices whose degree dropped (repeats allowed), and ``degree``: their degrees before
    lists: Any
    degree: Any
    #: ``(nbr, wgt, twin)`` at ``slots`` before the call (``twin`` None without twins)
    removed: Any
    #: ``(nbr, wgt, twin)`` at ``source`` (what the moved entries hold)
    moved: Any
    #: how many entries moved: the first ``count`` of ``owner``, ``source``,
    #: ``target`` and ``moved`` hold them.  A host int, or a one-element device
    #: array for :meth:`Backend.read_counts` (then :meth:`read` trims them).
    count: Any = None

    def read(self, count):
        """These entries with the moved ones trimmed to ``count`` (read on the host)."""
        moved = None if self.moved is None else tuple(None if a is None else a[:count] for a in self.moved)
        return self._replace(owner=self.owner[:count], source=self.source[:count], target=self.target[:count],
                             moved=moved, count=count)


def undo_removal(adj, removed):
    """Put the entries that :meth:`Backend.remove_entries` removed from ``adj``
    (``removed``, with its pre-images where kept) back in their slots, and
    their lists' degrees as they were.  The entries that moved into the holes
    still hold their values at their sources, which fall inside the lists again.
    Without pre-images (``keep=False``, where no journal records) it does nothing."""
    if removed.lists is None:
        return
    for array, values in zip((adj.nbr, adj.wgt, adj.twin), removed.removed):
        if array is not None:
            array[removed.slots] = values
    adj.degree[removed.lists] = removed.degree


def recache_at(lists, vertices, places, held, chunk_slots):
    """Undo :meth:`Backend.uncache_lists`: ``vertices`` cached again at their former
    ``places`` (``chunk * chunk_slots + offset``), holding ``held`` entries, in the
    per-vertex arrays of ``lists`` (their copies in the chunks were not touched)."""
    lists.in_cache[vertices] = True
    lists.chunk_id[vertices] = places // chunk_slots
    lists.chunk_offset[vertices] = places % chunk_slots
    lists.cached_degree[vertices] = held


class Counted(NamedTuple):
    """A result of data-dependent length left where it was made: the first
    ``count`` entries of ``array``.  ``count`` is a host int, or a
    one-element device array that :meth:`Backend.read_counts` reads when
    the length is needed (no wait until then)."""

    array: Any
    count: Any

    def read(self, count):
        """The result, given ``count`` read on the host."""
        return self.array[:count]


class Replaced(NamedTuple):
    """What an operator overwrote at positions it found itself (a journal's
    pre-image): the first ``count`` of ``positions``, and of each array of
    ``values`` (one per array it wrote, in the order its docstring gives;
    None for an array it did not write), what they held.  ``count`` as :class:`Counted`'s (a host int, or a
    one-element device array read when a rollback needs it)."""

    positions: Any
    values: tuple
    count: Any

    def read(self, count):
        """``(positions, values)``, given ``count`` read on the host."""
        return self.positions[:count], tuple(None if v is None else v[:count] for v in self.values)


class Placement(NamedTuple):
    """What :meth:`Backend.place_entries` could not place: the first ``count``
    entries of ``outgrown`` (lists without room) and ``need`` (the degree
    each needs).  ``count`` is a host int, or a one-element device array
    that :meth:`Backend.read_counts` reads, with others, in one
    synchronisation.  ``slots``: each row's slot (negative where its list
    lacks room).  ``old_degree``: each row's list's degree before the
    placement, where asked for (the pre-image a journal keeps), else None.
    ``kept``: what a backend kept for placing the rows of the lists without
    room once they have it (:meth:`Backend.place_entries`' ``kept``), or None."""

    outgrown: Any
    need: Any
    count: Any
    slots: Any
    old_degree: Any = None
    kept: Any = None

    def read(self, count):
        """``(outgrown, need)``, given ``count`` read on the host."""
        return self.outgrown[:count], self.need[:count]


class MovePlan(NamedTuple):
    """What :meth:`Backend.plan_moves` returns: fresh room for lists that outgrew
    theirs, and what a journal needs to undo their move."""

    #: per list: its first slot in the fresh room
    new_start: Any
    #: per list: the slots it gets (:func:`grown_room` of its need)
    room: Any
    #: per list: where its entries start among the moves (the degrees of the lists before it)
    first: Any
    #: per list: its start and capacity before the move (pre-images)
    old_start: Any
    old_capacity: Any
    #: the slots of the fresh room, the entries to move, the slots the lists give
    #: up: host ints, or one-element device arrays that :meth:`Backend.read_counts`
    #: reads, with other counts, in one synchronisation (then :meth:`read`)
    room_total: Any
    moved: Any
    released: Any

    @property
    def counts(self):
        """``(room_total, moved, released)``, as :meth:`Backend.read_counts` takes them."""
        return self.room_total, self.moved, self.released

    def read(self, room_total, moved, released, count=None):
        """This plan with its totals read on the host; ``count``: how many of its
        lists there are, where it was planned on a count left on the device
        (its arrays are then trimmed to them)."""
        plan = self._replace(room_total=room_total, moved=moved, released=released)
        if count is None:
            return plan
        return plan._replace(new_start=self.new_start[:count], room=self.room[:count], first=self.first[:count],
                             old_start=self.old_start[:count], old_capacity=self.old_capacity[:count])


def marks_fit(low, high, count, per_value=4, most=None):
    """Whether ``count`` ids between ``low`` and ``high`` (inclusive) are dense
    enough to dedupe by marking a map of ``high + 1`` bytes, which comes out
    sorted (:meth:`Backend.sorted_distinct`): non-negative and below
    ``per_value`` per id plus 64 KiB (and below ``most`` where given).  Most
    graphs' ids are; others are sorted.

    >>> marks_fit(0, 4_000_000, 1_000_000), marks_fit(0, 2**40, 1_000_000), marks_fit(-1, 10, 1_000_000)
    (True, False, False)
    >>> marks_fit(0, 4_200_000, 860_000), marks_fit(0, 4_200_000, 860_000, per_value=16)
    (False, True)
    """
    return low >= 0 and high < per_value * count + 65_536 and (most is None or high < most)


def transactions(xp, start, degree, itemsize):
    """Host memory transactions (of :data:`READ_UNIT_BYTES`) that read ``degree`` items
    from item ``start`` on.

    The count of ``READ_UNIT_BYTES`` blocks the byte range ``[start * itemsize,
    (start + degree) * itemsize)`` touches, for an array whose data starts on
    such a boundary; zero for an empty list.

    >>> transactions(np, np.array([0, 0, 0, 8, 16]), np.array([0, 16, 17, 16, 1]), 4).tolist()
    [0, 1, 2, 2, 1]
    """
    start = start.astype(xp.int64, copy=False)
    degree = degree.astype(xp.int64, copy=False)
    first = (start * itemsize) // READ_UNIT_BYTES
    last = ((start + degree) * itemsize - 1) // READ_UNIT_BYTES
    return xp.where(degree > 0, last - first + 1, 0)


def field_sum(xp, words, fields, field_bits):
    """The sum (int64) of the low ``fields`` fields of ``field_bits`` bits of each of ``words``
    (zeros for no field).

    >>> field_sum(np, np.array([0x0201, 0x10000], np.uint32), 2, 8).tolist()
    [3, 0]
    >>> field_sum(np, np.array([0x0201], np.uint32), 0, 8).tolist()
    [0]
    """
    words = words.astype(xp.int64)
    if fields <= 0:
        return xp.zeros_like(words)
    field_max = (1 << field_bits) - 1
    total = words & field_max
    for age in range(1, fields):          # a loop over fields, not words
        total += (words >> (age * field_bits)) & field_max
    return total


class ListPrice(NamedTuple):
    """What the reads of a vertex's list over a hotness window were worth (in
    transactions of :data:`READ_UNIT_BYTES`), for :meth:`Backend.uncache_lists`: its score, the
    sum of the ``fields`` fields of ``field_bits`` bits each of ``words[v]``
    (the engine's :class:`~cugraph_stream.engine.hotness.Hotness` counts),
    times the transactions of one read of its ``degree[v]`` entries, ``ceil(
    degree[v] * itemsize / READ_UNIT_BYTES)`` for each of ``itemsizes``
    (neighbour ids, and weights where they are read).

    >>> price = ListPrice(np.array([17, 0]), np.array([0x0201, 7], np.uint32), fields=2, field_bits=8, itemsizes=(4, 8))
    >>> price.score(np, np.array([0, 1])).tolist(), price.transactions(np, np.array([0, 1])).tolist()
    ([3, 7], [5, 0])
    """

    degree: Any
    words: Any
    fields: int
    field_bits: int
    itemsizes: tuple

    def score(self, xp, vertices):
        return field_sum(xp, self.words[vertices], self.fields, self.field_bits)

    def transactions(self, xp, vertices):
        degree = self.degree[vertices].astype(xp.int64)
        return sum((degree * itemsize + READ_UNIT_BYTES - 1) // READ_UNIT_BYTES for itemsize in self.itemsizes)


class AccessCounts(NamedTuple):
    """Per-vertex access counts that a reading operator adds to as it reads (the
    cache's hotness, :class:`~cugraph_stream.engine.hotness.Hotness`): each
    entry read adds ``added`` to the low field (the bits of ``field_max``) of
    ``words[v]`` (``uint32``), saturating; repeated entries accumulate
    (``distinct``: a promise that there are none).  See
    :meth:`Backend.add_to_field`."""

    words: Any
    field_max: int
    added: int
    distinct: bool = False


#: the smallest list (16 bytes of ``nbr``): a vertex's first few edges never move its list
MIN_LIST_SLOTS = 4


def list_room(xp, need, align):
    """Capacity of a list that needs ``need`` slots (an int64 array): its size class.

    The next power of two below ``align`` (``align`` a power of two), at
    least :data:`MIN_LIST_SLOTS`; the next multiple of ``align`` from there;
    0 for 0.

    >>> list_room(np, np.array([0, 1, 3, 5, 31, 32, 33]), 32).tolist()
    [0, 4, 4, 8, 32, 32, 64]
    """
    need = need.astype(xp.int64, copy=False)
    small = _small_classes(xp, align)[xp.minimum(need, align - 1)]
    return xp.where(need < align, small, need + (-need) % align)


@functools.lru_cache(maxsize=None)
def _small_classes(xp, align):
    """The class of every need below ``align``, as a lookup table in ``xp``'s memory (made once)."""
    classes = [0] + [max(1 << (k - 1).bit_length(), MIN_LIST_SLOTS) for k in range(1, align)]
    return xp.asarray(classes, dtype=xp.int64)


def grown_room(xp, need, align):
    """Room of a list that outgrew its own and needs ``need`` slots (at least 1):
    the size class (:func:`list_room`) of 1.5x ``need``.

    Until 2026-11-28 every relocated list got whole units of ``align`` slots:
    a batch of a million new random edges into R-MAT scale 22 (CPU) took 15.0M
    slots past the end in each adjacency, at least a 32-slot unit for every
    list it moved; with size classes 1.9M.

    >>> grown_room(np, np.array([1, 3, 6, 20, 22, 64]), 32).tolist()
    [4, 4, 16, 32, 64, 96]
    """
    need = need.astype(xp.int64, copy=False)
    return list_room(xp, need + need // 2, align)


def room_regions(xp, room, align):
    """Where :meth:`Backend.plan_moves` lays out a list of ``room`` slots (a size
    class): region 0 for whole units of ``align`` slots, region ``j`` for
    ``align >> j`` slots.  Laid out region after region, every list starts at a
    multiple of its class.

    >>> room_regions(np, np.array([96, 32, 16, 8, 4]), 32).tolist()
    [0, 0, 1, 2, 3]
    """
    small = xp.minimum(room, align).astype(xp.int64)
    return (align.bit_length() - 1) - xp.log2(small).astype(xp.int64)


@runtime_checkable
class CachedLists(Protocol):
    """What a backend reads of an adjacency's hot-list cache (the engine's
    :class:`~cugraph_stream.engine.cache.HotCache`).

    Vertex ``v`` below ``in_cache.size`` with ``in_cache[v]`` has a copy of
    its list (the adjacency's ``degree[v]`` entries) from slot
    ``chunk_offset[v]`` of chunk ``chunk_id[v]`` on.  That chunk's neighbour
    array starts at address ``nbr_pointers[chunk_id[v]]``, tagged with
    :data:`~cugraph_stream.chunk_layout.PACKED_IDS_TAG` when ``id_bytes`` is 3
    (packed ids, see :mod:`cugraph_stream.chunk_layout`); with ``weights``
    its weight array starts at ``wgt_pointers[chunk_id[v]]``, else the
    weights are read from the adjacency.  Vertices at or beyond
    ``in_cache.size`` are not cached.
    """

    #: per vertex (bool): whether its list has a cached copy
    in_cache: Any
    #: per vertex (int32): the chunk holding the copy, -1 when none
    chunk_id: Any
    #: per vertex (int32): the copy's first slot in its chunk
    chunk_offset: Any
    #: per chunk id (uint64): address of the neighbour array (tagged when packed), 0 when unused
    nbr_pointers: Any
    #: per chunk id (uint64): address of the weight array, 0 when unused or without weights
    wgt_pointers: Any
    #: whether the chunks hold weights
    weights: bool
    #: bytes per cached neighbour id: 4, or 3 (packed)
    id_bytes: int


@runtime_checkable
class AdjacencyLists(Protocol):
    """What a backend reads (and the list operators write) of one direction of
    the graph (the engine's :class:`~cugraph_stream.engine.adjacency.Adjacency`).

    Vertex ``u``'s neighbours are ``nbr[start[u]:start[u] + degree[u]]``, with
    weights at the same slots of ``wgt``; the list owns ``capacity[u]`` slots.
    Whatever a backend derives from the lists (such as per-vertex addresses)
    it may keep while ``version`` stays the same: the adjacency changes it
    whenever a list, or its cached copy, may start elsewhere.  Instances are
    hashable by identity and weakly referenceable, so a backend may key what
    it derives by the adjacency.
    """

    #: per vertex (int64): first slot of the list
    start: Any
    #: per vertex (int64): entries of the list
    degree: Any
    #: per vertex (int64): slots the list owns
    capacity: Any
    #: per slot (int32): neighbour ids
    nbr: Any
    #: per slot: weights
    wgt: Any
    #: per slot (int64): the same edge's slot in the mirror adjacency, or None
    twin: Optional[Any]
    #: where the slot arrays live: ``"device"``, or ``"host"`` (read in place)
    memory: str
    #: changes whenever a list or its cached copy may start elsewhere
    version: int
    #: copies of hot lists, or None
    cache: Optional[CachedLists]


class Backend(abc.ABC):
    """Operators of one device.  See the module docstring for conventions."""

    #: short name, as passed to ``StreamGraph(backend=...)``
    name: str = ""

    #: the array namespace (``numpy`` or ``cupy``)
    xp = None

    #: whether the arrays live in device memory apart from host memory
    has_device_memory = False

    #: whether :meth:`place_entries` takes rows in any order of owners (not
    #: grouped), so that the engine need not sort them
    place_entries_any_order = False

    #: whether the vertex table keeps a dense map from external to internal ids
    #: while the external ids allow (``VertexTable.lookup_index``: the lookups
    #: take ``(dense, None)`` for ``(keys, values)``): a read in place of a
    #: binary search, and no merge of each batch's new ids into the sorted ones.
    #: Both backends keep one; a subclass setting False measures the searches
    dense_vertex_map = True

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        _count_calls(cls)

    @property
    def calls(self):
        """This thread's :class:`DeviceCalls` (operator calls and synchronisation points)."""
        return DEVICE_CALLS

    #: whether the operators' kernels load on first use in a process, at a cost a
    #: batch would notice (:func:`cugraph_stream.warm_up.warm_up` loads them earlier)
    loads_kernels_lazily = False

    def spare(self):
        """A new backend of the same kind and options, with scratch of its own."""
        return type(self)()

    # ------------------------------------------------------------------ memory
    @abc.abstractmethod
    def asarray(self, array, dtype=None):
        """Copy or view a host (or device) array on this backend's device."""

    def asarrays(self, *arrays):
        """:meth:`asarray` of each of ``arrays`` (a batch's columns), in as few
        transfers as the device allows."""
        return [self.asarray(a) for a in arrays]

    def no_items(self, dtype=np.int64):
        """An array of no ``dtype`` items on this backend's device: the same one at
        every call (making one is a call of a few microseconds into CuPy, and a
        small batch asks for several).

        >>> from cugraph_stream.backends import get_backend
        >>> ops = get_backend("cpu")
        >>> ops.no_items().size, ops.no_items() is ops.no_items(), ops.no_items("float32").dtype.name
        (0, True, 'float32')
        """
        made = self.__dict__.get("_no_items")
        if made is None:
            made = self.__dict__["_no_items"] = {}
        array = made.get(dtype)             # (keyed by the dtype as given, and as a NumPy dtype)
        if array is None:
            array = made.get(np.dtype(dtype))
            if array is None:
                array = made[np.dtype(dtype)] = self.xp.empty(0, dtype=dtype)
            made[dtype] = array
        return array

    @abc.abstractmethod
    def to_host(self, array):
        """Return ``array`` as a NumPy array (a copy when it lives elsewhere)."""

    @abc.abstractmethod
    def aligned_empty(self, n, dtype, align=4096, memory="device"):
        """An uninitialised array of ``n`` elements whose data starts at ``align`` bytes.

        ``memory="host"`` asks for pinned, page-aligned host memory that
        the device reads and writes in place (zero-copy); ``"device"`` for the
        backend's own memory.  On a backend whose device is the host the two
        are the same.
        """

    def host_read_bandwidth(self):
        """Bytes per second at which kernels read adjacency lists of host memory in place.

        Measured on whole 128-byte segments of random short lists, it
        converts the host bytes that :mod:`cugraph_stream.engine.reads`
        counts (in transactions of :data:`READ_UNIT_BYTES`) and
        those a hot-cache hit saves into seconds
        (:mod:`cugraph_stream.engine.cache_policy`).  The default is the
        prior :data:`HOST_READ_BANDWIDTH_PRIOR`; a backend with host memory
        apart from its own measures it, once per process.

        >>> from cugraph_stream.backends import get_backend
        >>> get_backend("cpu").host_read_bandwidth() == HOST_READ_BANDWIDTH_PRIOR
        True
        """
        return HOST_READ_BANDWIDTH_PRIOR

    def bulk_load_rows(self, reserved_bytes=0):
        """The most rows of a bulk load to sort at once on the device, after
        ``reserved_bytes`` more are allocated; None where any number fits
        (a backend whose device is the host: it shares the edge list's memory).

        >>> from cugraph_stream.backends import get_backend
        >>> get_backend("cpu").bulk_load_rows() is None
        True
        """
        return None

    def release_cached_memory(self):
        """Give the memory the engine's allocator keeps for reuse back to the device
        (after a bulk load's transient arrays: for the user's own arrays)."""

    def allocation_scope(self):
        """A context in which the engine's arrays are allocated (entered once per
        public call, not per array); the default uses the current allocator."""
        return contextlib.nullcontext()

    def synchronize(self):
        """Wait for queued device work (no-op on synchronous devices)."""

    def host_ints(self, *values):
        """Integer device scalars (counts, flags) as Python ints, read in one
        synchronisation.

        >>> from cugraph_stream.backends import get_backend
        >>> import numpy as np
        >>> ops = get_backend("cpu")
        >>> ops.host_ints(np.arange(4).sum(), np.array([True, True]).any())
        [6, 1]
        """
        return [int(x) for x in self._host_scalars(values, self.xp.int64)]

    def host_floats(self, *values):
        """Float device scalars (sums, norms) as Python floats, read in one
        synchronisation (as float64: a float32 value converts exactly).

        >>> from cugraph_stream.backends import get_backend
        >>> import numpy as np
        >>> get_backend("cpu").host_floats(np.arange(4.0).sum(), np.float32(0.5))
        [6.0, 0.5]
        """
        return [float(x) for x in self._host_scalars(values, self.xp.float64)]

    def _host_scalars(self, values, dtype):
        """``values`` (0-d device arrays) stacked as ``dtype`` and copied to the host at once."""
        if not values:
            return []
        xp = self.xp
        return self.to_host(xp.stack([xp.asarray(v).astype(dtype).reshape(()) for v in values]))

    def compress(self, mask, *arrays):
        """``array[mask]`` of each of ``arrays`` (a result of data-dependent length:
        one synchronisation for all of them).

        >>> from cugraph_stream.backends import get_backend
        >>> import numpy as np
        >>> ops = get_backend("cpu")
        >>> [a.tolist() for a in ops.compress(np.array([True, False, True]), np.arange(3), np.arange(3) * 10)]
        [[0, 2], [0, 20]]
        """
        where = self.xp.flatnonzero(mask)
        return [a[where] for a in arrays]

    def mark(self):
        """A timestamp of the point the device's queue has reached, without waiting
        (:meth:`elapsed` reads two of them once the later one has passed)."""
        return time.perf_counter()

    def elapsed(self, start, end):
        """Seconds between two :meth:`mark` timestamps (after :meth:`synchronize`)."""
        return end - start

    def release_marks(self, marks):
        """Give back :meth:`mark` timestamps no one reads again: a backend may hand
        them out anew (the GPU's events, made once instead of once a phase)."""

    def discard_scratch(self):
        """Forget the scratch arrays operators reuse between calls (they are made
        afresh when next needed).  After an operator failed halfway, scratch it
        leaves clean (zeroed flags) may not be."""

    def discard_faults(self):
        """Wait for the queued work and return, cleared, the broken invariants
        its kernels reported (messages), instead of raising them as
        :meth:`synchronize` does: for a rollback, whose own error is on its
        way already, so that they are not raised by the next transaction's
        wait.  A host backend raises where it finds one: nothing to return."""
        return []

    @abc.abstractmethod
    def memory_bytes(self, *arrays):
        """Bytes held by ``arrays`` on this backend's device."""

    @abc.abstractmethod
    def chunk_allocator(self, capacity_bytes=None, **options):
        """An allocator of hot-cache chunks in this backend's memory (see
        :mod:`cugraph_stream.backends.chunks`).

        ``capacity_bytes`` bounds the bytes its chunks hold at once (on the
        GPU also the size of the chunks' own RMM pool); ``options`` go to the
        device allocator (a host allocator ignores them).  Caches given the
        same allocator share its capacity.

        >>> from cugraph_stream.backends import get_backend
        >>> type(get_backend("cpu").chunk_allocator(1 << 20)).__name__
        'HostChunkAllocator'
        """

    # -------------------------------------------------------------- primitives
    def join(self, arrays):
        """The 1-D arrays one after another (``xp.concatenate``), always a new
        array.  On the GPU one copy each (CuPy's ``concatenate`` costs ten
        times a copy's host time); not counted as a launch, like the
        array-namespace steps it replaces.

        >>> from cugraph_stream.backends import get_backend
        >>> import numpy as np
        >>> get_backend("cpu").join([np.array([3, 1]), np.array([], dtype=np.int64), np.array([2])]).tolist()
        [3, 1, 2]
        """
        return self.xp.concatenate(arrays)

    def take(self, array, index, dtype=None):
        """``array[index]``: a gather of a 1-D array at an integer index array
        (negative positions count from the end), converted to ``dtype`` if
        given (``array[index].astype(dtype)``).  The GPU launches one kernel
        for it, where CuPy's indexing costs several times its host time (and
        its ``astype`` as much again).

        >>> from cugraph_stream.backends import get_backend
        >>> import numpy as np
        >>> ops = get_backend("cpu")
        >>> ops.take(np.array([5., 6., 7.]), np.array([2, 0, -1])).tolist()
        [7.0, 5.0, 7.0]
        >>> ops.take(np.array([5, 6], dtype=np.uint32), np.array([1]), np.int64).dtype
        dtype('int64')
        """
        taken = array[index]
        return taken if dtype is None else taken.astype(dtype, copy=False)

    def put(self, array, index, values):
        """``array[index] = values``: a scatter into a 1-D array at an integer index
        array, of an array of values (cast as NumPy and CuPy assignments do) or
        one value; one kernel on the GPU (see :meth:`take`).

        >>> from cugraph_stream.backends import get_backend
        >>> import numpy as np
        >>> a = np.zeros(4, dtype=np.uint32)
        >>> ops = get_backend("cpu"); ops.put(a, np.array([1, 3]), 7); ops.put(a, np.array([0]), np.array([2]))
        >>> a.tolist()
        [2, 7, 0, 7]
        """
        array[index] = values

    def exchange(self, array, index, values):
        """:meth:`put` that returns what it overwrote: ``array[index]`` before the
        write (a journal's pre-image), in one launch on the GPU where
        :meth:`take` and :meth:`put` take two.  The positions must be distinct
        (a repeated one could read another's write as its old element).

        >>> from cugraph_stream.backends import get_backend
        >>> import numpy as np
        >>> a = np.array([5, 6, 7], dtype=np.uint32)
        >>> old = get_backend("cpu").exchange(a, np.array([2, 0]), np.array([9, 8]))
        >>> old.tolist(), a.tolist()
        ([7, 5], [8, 6, 9])
        """
        old = self.take(array, index)
        self.put(array, index, values)
        return old

    @abc.abstractmethod
    def expand_segments(self, starts, lengths):
        """Enumerate the elements of segments ``[starts[i], starts[i] + lengths[i])``.

        Returns ``(positions, owners)``: every position of every segment, in
        segment order, and the index ``i`` of the segment each came from.
        """

    def last_rows_by_arc(self, u, v):
        """Positions of the last row of each distinct arc ``u[i] -> v[i]`` (ids
        non-negative, below 2**31), ordered by ``(u, v)``: a bulk load keeps
        each edge's last row, its lists sorted by source.  The count is
        data-dependent (a synchronisation).

        >>> import numpy as np
        >>> from cugraph_stream.backends import get_backend
        >>> get_backend("cpu").last_rows_by_arc(np.array([3, 1, 3, 1, 3]), np.array([0, 2, 0, 1, 4])).tolist()
        [3, 1, 2, 4]
        """
        xp = self.xp
        key = self.arc_keys(u, v)
        order = xp.argsort(key, kind="stable")       # rows in row order: the last of a key is its last row
        key = key[order]
        return order[xp.concatenate((key[1:] != key[:-1], xp.ones(min(key.size, 1), dtype=bool)))]

    def slots_in_lists(self, owners, start, owners_sorted=False):
        """Where entries appended in order to empty lists land: entry ``i`` goes
        to ``start[owners[i]]`` plus the number of entries before it with the
        same owner, so each list keeps its entries' order (a bulk load's
        lists; ``start`` holds one start per list, ``owners`` index it).
        ``owners_sorted``: the owners are ascending, which spares a sort.

        >>> import numpy as np
        >>> from cugraph_stream.backends import get_backend
        >>> get_backend("cpu").slots_in_lists(np.array([2, 0, 2, 2, 0]), np.array([10, 0, 20])).tolist()
        [20, 10, 21, 22, 11]
        """
        xp = self.xp
        owners = owners.astype(xp.int64, copy=False)
        order = None if owners_sorted else xp.argsort(owners, kind="stable")
        ordered = owners if order is None else owners[order]
        # an entry's rank in its list: its position less that of its owner's first entry
        # (a search; no count of the lists' entries, which a GPU bincount reads back)
        first = xp.searchsorted(ordered, ordered)
        in_order = start[ordered] + xp.arange(ordered.size, dtype=xp.int64) - first
        if order is None:
            return in_order
        slots = xp.empty_like(in_order)
        slots[order] = in_order
        return slots

    @abc.abstractmethod
    def unique(self, ids, bound):
        """Distinct values of ``ids`` (non-negative, below ``bound``), in any order."""

    def sorted_distinct(self, values):
        """Distinct values of ``values`` (int64), ascending (the size is data-dependent:
        a synchronisation).

        >>> import numpy as np
        >>> from cugraph_stream.backends import get_backend
        >>> get_backend("cpu").sorted_distinct(np.array([2**40, 7, -3, 7])).tolist()
        [-3, 7, 1099511627776]
        """
        return self.xp.unique(values)

    def sorted_distinct_range(self, values):
        """:meth:`sorted_distinct` of ``values`` and the range it spans, read in the
        same synchronisation: ``(distinct, lowest, highest)``, the bounds as
        host ints (None where ``values`` is empty).

        >>> import numpy as np
        >>> from cugraph_stream.backends import get_backend
        >>> distinct, lowest, highest = get_backend("cpu").sorted_distinct_range(np.array([9, -3, 9]))
        >>> distinct.tolist(), lowest, highest
        ([-3, 9], -3, 9)
        """
        distinct = self.sorted_distinct(values)
        if distinct.size == 0:
            return distinct, None, None
        lowest, highest = (int(x) for x in self.to_host(distinct[[0, -1]]))
        return distinct, lowest, highest

    def sorted_union(self, values, more_values):
        """Distinct values of ``values`` and ``more_values`` (int64, each distinct and
        ascending), ascending; one of them itself where the other adds nothing.

        Each of ``more_values`` not in ``values`` is placed by a binary search
        into ``values``: linear in the size of ``values``, where sorting both
        together again (:meth:`sorted_distinct`) is not.  The size is
        data-dependent: a synchronisation.

        >>> import numpy as np
        >>> from cugraph_stream.backends import get_backend
        >>> get_backend("cpu").sorted_union(np.array([-3, 7, 9]), np.array([0, 7, 2**40])).tolist()
        [-3, 0, 7, 9, 1099511627776]
        """
        xp = self.xp
        if values.size == 0 or more_values.size == 0:
            return more_values if values.size == 0 else values
        at = xp.searchsorted(values, more_values)
        fresh = values[xp.minimum(at, values.size - 1)] != more_values
        at, more_values = at[fresh], more_values[fresh]
        if more_values.size == 0:
            return values
        at += xp.arange(at.size, dtype=at.dtype)      # each fresh value follows the fresh ones below it
        union = xp.empty(values.size + more_values.size, dtype=xp.int64)
        from_more = xp.zeros(union.size, dtype=bool)
        from_more[at] = True
        union[at] = more_values
        union[~from_more] = values
        return union

    def lookup_rows(self, keys, values, src, dst, codes):
        """The vertices of a batch's rows: ``(ids, missing)``.

        ``ids`` holds :meth:`lookup_sorted` of the sources, then of the
        destinations (``2 * rows`` entries, -1 where absent); ``missing`` the
        external ids absent on insert rows (op ``codes`` equal to
        :data:`~cugraph_stream.backends.rows.INSERT`), repeats kept, in no
        particular order.  One synchronisation (its length).

        >>> from cugraph_stream.backends import get_backend
        >>> from cugraph_stream.backends.rows import DELETE, INSERT
        >>> ids, missing = get_backend("cpu").lookup_rows(np.array([3, 8]), np.array([0, 1]), np.array([8, 5]),
        ...                                               np.array([9, 3]), np.array([INSERT, DELETE], dtype=np.int8))
        >>> ids.tolist(), missing.tolist()
        ([1, -1, -1, 0], [9])
        """
        ids, missing = self.find_rows(keys, values, src, dst, codes)
        return ids, self.read_counted(missing)

    def find_rows(self, keys, values, src, dst, codes):
        """:meth:`lookup_rows` without waiting: ``missing`` is a :class:`Counted`
        whose count is not read (on a GPU it stays on the device; see
        :meth:`net_changes`' ``unresolved``).

        >>> from cugraph_stream.backends import get_backend
        >>> from cugraph_stream.backends.rows import INSERT
        >>> ids, missing = get_backend("cpu").find_rows(np.array([3]), np.array([0]), np.array([3]),
        ...                                             np.array([4]), np.array([INSERT], dtype=np.int8))
        >>> ids.tolist(), missing.count
        ([0, -1], 1)
        """
        ends = self.xp.concatenate((src, dst))
        ids = self.lookup_sorted(keys, values, ends)
        return ids, self.missing_ends(ids, ends, codes)

    def net_changes_of_ends(self, keys, values, src, dst, codes, weights, table, adj, undirected=False):
        """:meth:`find_rows` and :meth:`net_changes` of the ids it finds, in one
        operator call and one synchronisation (on the GPU, for a few rows, one
        launch): the net changes of rows naming their ends by external id,
        looked up among ``keys`` (ascending), whose internal ids are
        ``values``.

        Returns ``(changes, ids, missing)``: ``ids`` as :meth:`find_rows`
        gives them (the sources', then the destinations'); ``changes`` as
        :meth:`net_changes` gives them, and ``missing`` None, where every
        insert row names known vertices; else ``changes`` None and
        ``missing`` the ends of insert rows that no vertex has (repeats
        kept, in no order), to create before the rows are reduced again.

        >>> from cugraph_stream.backends import get_backend
        >>> from cugraph_stream.backends.rows import DELETE, INSERT
        >>> from cugraph_stream.engine.adjacency import Adjacency
        >>> from cugraph_stream.engine.arc_index import ArcIndex
        >>> ops = get_backend("cpu")
        >>> adj = Adjacency(ops, np.float32, with_twin=False)
        >>> adj.ensure_vertices(2)
        >>> index = ArcIndex(ops, adj)
        >>> index.build(np.array([1]), adj.build(np.array([0]), np.array([1]), np.array([2.0], np.float32)))
        >>> keys, values = np.array([10, 20]), np.array([0, 1])     # external ids 10, 20: vertices 0, 1
        >>> codes = np.array([DELETE, INSERT], dtype=np.int8)
        >>> changes, ids, missing = ops.net_changes_of_ends(keys, values, np.array([10, 20]), np.array([20, 10]),
        ...                                                  codes, np.ones(2, np.float32), index.table, adj)
        >>> ids.tolist(), changes.counts["deleted"], changes.counts["inserted"], missing
        ([0, 1, 1, 0], 1, 1, None)
        >>> ops.net_changes_of_ends(keys, values, np.array([10]), np.array([30]), np.array([INSERT], dtype=np.int8),
        ...                         np.ones(1, np.float32), index.table, adj)[2].tolist()
        [30]
        """
        ids, missing = self.find_rows(keys, values, src, dst, codes)
        rows = int(src.size)
        changes = self.net_changes(ids[:rows], ids[rows:], codes, weights, table, adj, undirected,
                                   unresolved=missing.count)
        return (changes, ids, None) if changes is not None else (None, ids, self.read_counted(missing))

    def missing_ends(self, ids, ends, codes):
        """The ``ends`` of insert rows (op ``codes`` equal to
        :data:`~cugraph_stream.backends.rows.INSERT`; ``ends`` the sources
        then the destinations) whose ``ids`` are -1: a :class:`Counted`,
        repeats kept, in no particular order.

        >>> from cugraph_stream.backends import get_backend
        >>> from cugraph_stream.backends.rows import DELETE, INSERT
        >>> get_backend("cpu").missing_ends(np.array([-1, 0, -1, -1]), np.array([7, 8, 5, 6]),
        ...                                 np.array([INSERT, DELETE], dtype=np.int8)).array.tolist()
        [7, 5]
        """
        xp = self.xp
        inserting = codes == rows.INSERT
        (missing,) = self.compress((ids < 0) & xp.concatenate((inserting, inserting)), ends)
        return Counted(missing, int(missing.size))

    def arc_keys(self, u, v, undirected=False):
        """The arc key (:func:`~cugraph_stream.engine.hash_index.arc_key`) of each
        ``u[i] -> v[i]``; ``undirected``: of the ends in ascending order.

        >>> from cugraph_stream.backends import get_backend
        >>> get_backend("cpu").arc_keys(np.array([2, 0]), np.array([1, 3]), undirected=True).tolist()
        [4294967298, 3]
        """
        xp = self.xp
        u, v = u.astype(xp.int64, copy=False), v.astype(xp.int64, copy=False)
        if undirected:
            u, v = xp.minimum(u, v), xp.maximum(u, v)
        return (u << 32) | v

    def children_of(self, parent, u, v):
        """The targets ``v[i]`` of the arcs ``u[i] -> v[i]`` that are their parent
        arcs (``parent[v[i]] == u[i]``), in no particular order, :class:`Counted`
        (a device leaves their count on the device: :meth:`invalidate` takes
        them so, without a wait).

        >>> from cugraph_stream.backends import get_backend
        >>> get_backend("cpu").children_of(np.array([-1, 0, 0, 1]), np.array([0, 2, 1]), np.array([1, 3, 2]))
        Counted(array=array([1]), count=1)
        """
        (children,) = self.compress(parent[v] == u, v)
        return Counted(children, int(children.size))

    def weak_children_of(self, parent, u, v, reverse_at):
        """For arcs ``u[i] -> v[i]`` of a graph read both ways (weak
        connectivity) whose reverse arc is absent (``reverse_at[i] < 0``, as
        ``GraphStore.locate`` gives it): the end whose parent arc the
        pair was (``v[i]`` if ``parent[v[i]] == u[i]``, ``u[i]`` if
        ``parent[u[i]] == v[i]``), in no particular order, :class:`Counted`
        as :meth:`children_of`.

        >>> from cugraph_stream.backends import get_backend
        >>> parent = np.array([-1, 0, 1, 2])
        >>> get_backend("cpu").weak_children_of(parent, np.array([0, 3, 2]), np.array([1, 2, 1]),
        ...                                     np.array([-1, -1, 7])).array.tolist()
        [1, 3]
        """
        xp = self.xp
        gone = reverse_at < 0
        (children,) = self.compress(xp.concatenate(((parent[v] == u) & gone, (parent[u] == v) & gone)),
                                    xp.concatenate((v, u)))
        return Counted(children, int(children.size))

    def read_words(self, words):
        """Small int64 device array ``words`` (a record of words) as a NumPy array, in
        one synchronisation.

        >>> from cugraph_stream.backends import get_backend
        >>> get_backend("cpu").read_words(np.arange(3)).tolist()
        [0, 1, 2]
        """
        return np.array(self.to_host(words), dtype=np.int64)

    def read_counted(self, result):
        """The array of a :class:`Counted` ``result`` (its count read: one
        synchronisation on a device), or ``result`` itself if it is an array."""
        if not isinstance(result, Counted):
            return result
        return result.read(*self.read_counts(result.count))

    def reached(self, value, vertices, unreachable):
        """The entries of ``vertices`` whose ``value`` is not ``unreachable``, in no
        particular order.  One synchronisation (its length).

        >>> from cugraph_stream.backends import get_backend
        >>> get_backend("cpu").reached(np.array([0.0, np.inf, 2.0]), np.array([1, 2]), np.inf).tolist()
        [2]
        """
        (kept,) = self.compress(value[vertices] != unreachable, vertices)
        return kept

    def shift_fields(self, words, shift, mask, out):
        """``out = (words << shift) & mask`` (``uint32``): every word's fields move up by
        ``shift`` bits and what passes ``mask`` is dropped (the hotness window
        closing a batch).  ``out`` may be ``words``.  One launch on the GPU, no
        synchronisation.

        >>> from cugraph_stream.backends import get_backend
        >>> words = np.array([0x3_02_01, 0x1FF], dtype=np.uint32)
        >>> out = np.empty_like(words)
        >>> get_backend("cpu").shift_fields(words, 8, 0xFFFFFF, out)
        >>> [hex(w) for w in out.tolist()]
        ['0x20100', '0x1ff00']
        """
        xp = self.xp
        xp.left_shift(words, xp.uint32(shift), out=out)
        xp.bitwise_and(out, xp.uint32(mask), out=out)

    def add_to_field(self, words, vertices, added, field_max, distinct=False):
        """For each entry ``i``, add ``added[i]`` (or the scalar ``added``) to the low
        field of ``words[vertices[i]]`` (``uint32``; the bits of ``field_max``, one
        less than a power of two), saturating at ``field_max``; the other bits are
        kept and repeated vertices accumulate (``distinct``: a promise that
        ``vertices`` holds no repeats).  Every addition is at most ``field_max``.
        No synchronisation.

        >>> from cugraph_stream.backends import get_backend
        >>> words = np.array([0x100, 0x1FE, 0], dtype=np.uint32)
        >>> get_backend("cpu").add_to_field(words, np.array([0, 1, 1, 0]), np.array([3, 1, 1, 2], np.uint32), 0xFF)
        >>> [hex(w) for w in words.tolist()]
        ['0x105', '0x1ff', '0x0']
        """
        xp = self.xp
        vertices = vertices.astype(xp.int64, copy=False)
        per_entry = (xp.full(vertices.size, added, dtype=xp.float64) if xp.isscalar(added) or added.ndim == 0
                     else added.astype(xp.float64))
        if not distinct:
            # a tally over the words (no sort): repeated vertices then write the same word twice;
            # float64 sums are exact up to 2**53, and anything that large saturates anyway
            tally = xp.zeros(int(words.size), dtype=xp.float64)
            self.scatter_add(tally, vertices, per_entry)
            per_entry = tally[vertices]
        field_max = xp.uint32(field_max)
        total = xp.minimum(per_entry, field_max).astype(xp.uint32)
        word = words[vertices]
        current = word & field_max
        # min(current + total, field_max) in uint32, without passing 2**32 when a field has 32 bits
        words[vertices] = (word ^ current) | (xp.minimum(current, field_max - total) + total)

    def count_reads(self, counts, frontier, degree, start, in_cache, weight_itemsize, cached_weights, times=1,
                    accesses=None):
        """Add ``times`` the cost of reading the whole lists of ``frontier`` to ``counts``
        (and, with ``accesses``, an :class:`AccessCounts`, count each entry's access there too).

        ``counts`` (int64, 8 entries, on the device) takes, in this order: lists
        read and their entries (non-empty lists only), the lists read from host
        memory, their entries and their transactions (of :data:`READ_UNIT_BYTES`), the cache hits
        (``in_cache[v]``; ``in_cache`` None: no cache), their entries and the
        transactions they saved.  A list of ``degree[v]`` entries from slot
        ``start[v]`` costs the blocks of :data:`READ_UNIT_BYTES` its 4-byte neighbour ids span,
        plus (``weight_itemsize`` > 0: the weights are read) those its weights
        span; a hit costs nothing, except its weights when the cache holds none
        (``cached_weights`` False).  No synchronisation: the engine's
        :class:`~cugraph_stream.engine.reads.ReadCounters` reads the totals once
        a batch.

        >>> from cugraph_stream.backends import get_backend
        >>> counts = np.zeros(8, dtype=np.int64)
        >>> get_backend("cpu").count_reads(counts, np.array([0, 1, 2]), np.array([40, 1, 0]), np.array([0, 64, 96]),
        ...                                np.array([False, True, False]), 4, True)
        >>> counts.tolist()          # 40 ids and weights: 160 bytes each, 3 blocks each
        [2, 41, 1, 40, 6, 1, 1, 2]
        """
        xp = self.xp
        if frontier.size == 0 or times == 0:
            return
        frontier = frontier.astype(xp.int64, copy=False)
        if accesses is not None:
            self.add_to_field(accesses.words, frontier, accesses.added, accesses.field_max, accesses.distinct)
        d = degree[frontier].astype(xp.int64)
        s = start[frontier].astype(xp.int64)
        nonempty = d > 0
        hit = nonempty & in_cache[frontier] if in_cache is not None else xp.zeros(frontier.size, dtype=bool)
        miss = nonempty & ~hit

        nbr_cost = transactions(xp, s, d, 4)
        cost, saved = xp.where(miss, nbr_cost, 0), xp.where(hit, nbr_cost, 0)
        if weight_itemsize:
            weight_cost = transactions(xp, s, d, weight_itemsize)
            cost = cost + (xp.where(miss, weight_cost, 0) if cached_weights else weight_cost)
            if cached_weights:
                saved = saved + xp.where(hit, weight_cost, 0)
        zero = xp.zeros((), dtype=xp.int64)
        counts += times * xp.stack([
            nonempty.sum(dtype=xp.int64), d.sum(dtype=xp.int64), miss.sum(dtype=xp.int64),
            xp.where(miss, d, zero).sum(dtype=xp.int64), cost.sum(dtype=xp.int64), hit.sum(dtype=xp.int64),
            xp.where(hit, d, zero).sum(dtype=xp.int64), saved.sum(dtype=xp.int64)])

    def uncache_lists(self, lists, ids, chunks, chunk_slots, price=None):
        """Forget the cached copies of the lists of the cached vertices among ``ids``.

        ``lists`` holds the cache's per-vertex arrays ``in_cache`` (bool),
        ``chunk_id``, ``chunk_offset`` and ``cached_degree`` (int32; the
        engine's :class:`~cugraph_stream.engine.cache.HotCache`); ``ids``
        (repeats allowed) are below their size.  Each cached vertex among them
        is evicted once: ``in_cache`` cleared, chunk -1, offset and degree 0.
        One synchronisation, at the cost of the ids.

        Parameters
        ----------
        lists : object
            The cache's per-vertex arrays, as attributes.
        ids : array of int
        chunks : int
            Chunk ids are below ``chunks``.
        chunk_slots : int
            Slots of a chunk: a former place is ``chunk * chunk_slots + offset``.
        price : ListPrice, optional
            Also sum what reading the evicted lists was worth.

        Returns
        -------
        evicted : array of int64
            The evicted vertices, each once, in no particular order.
        places : array of int64
            Their former places, in the same order (for an undo).
        held : array of int64
            The entries their copies held, in the same order.
        lost : numpy array of int64
            Per chunk id, the entries the evicted copies held there.
        value : int
            With ``price``: the sum over the evicted vertices whose list would
            fit its slots again (``0 < price.degree[v] <= held``, see
            :meth:`recache_in_place`) of their score times the transactions
            of one read of their lists (see :class:`ListPrice`); 0 without.

        Examples
        --------
        >>> from types import SimpleNamespace
        >>> from cugraph_stream.backends import get_backend
        >>> cache = SimpleNamespace(in_cache=np.array([True, False, True]), chunk_id=np.array([1, -1, 0], np.int32),
        ...                         chunk_offset=np.array([5, 0, 0], np.int32),
        ...                         cached_degree=np.array([40, 0, 2], np.int32))
        >>> price = ListPrice(degree=np.array([40, 0, 2]), words=np.array([0x0102, 0, 0x0300], np.uint32),
        ...                   fields=2, field_bits=8, itemsizes=(4,))
        >>> evicted, places, held, lost, value = get_backend("cpu").uncache_lists(cache, np.array([0, 1, 0]), 2,
        ...                                                                       64, price)
        >>> evicted.tolist(), places.tolist(), held.tolist(), lost.tolist(), value   # score 3, 160 bytes: 3 reads
        ([0], [69], [40], [0, 40], 9)
        >>> cache.in_cache.tolist(), cache.chunk_id.tolist(), cache.cached_degree.tolist()
        ([False, False, True], [-1, -1, 0], [0, 0, 2])
        """
        xp = self.xp
        ids = ids.astype(xp.int64, copy=False)
        (hits,) = self.compress(lists.in_cache[ids].astype(bool, copy=False), ids)
        evicted = self.unique(hits, int(lists.in_cache.size))
        chunk = lists.chunk_id[evicted].astype(xp.int64)
        places = chunk * int(chunk_slots) + lists.chunk_offset[evicted].astype(xp.int64)
        held = lists.cached_degree[evicted].astype(xp.int64)
        lost = xp.bincount(chunk, weights=held.astype(xp.float64), minlength=int(chunks))    # exact below 2**53
        value = xp.zeros((), dtype=xp.int64)
        if price is not None and evicted.size:
            degree = price.degree[evicted]
            fits = (degree > 0) & (degree <= held)
            value = xp.where(fits, price.score(xp, evicted) * price.transactions(xp, evicted), 0).sum(dtype=xp.int64)
        lost, value = self.to_host(lost).astype(np.int64), int(value)      # before any change
        lists.in_cache[evicted] = False
        lists.chunk_id[evicted] = -1
        lists.chunk_offset[evicted] = 0
        lists.cached_degree[evicted] = 0
        return evicted, places, held, lost, value

    def uncache_lists_in(self, requests):
        """:meth:`uncache_lists` in several caches, in one operator call (on the GPU
        one synchronisation for all): ``requests`` holds each cache's arguments
        ``(lists, ids, chunks, chunk_slots, price)``; returns each one's result.

        All or nothing: where one fails, those made before it are undone (their
        vertices cached again where they were) before the error is raised.

        >>> from types import SimpleNamespace
        >>> from cugraph_stream.backends import get_backend
        >>> def cache():
        ...     return SimpleNamespace(in_cache=np.array([True, True]), chunk_id=np.array([0, 0], np.int32),
        ...                            chunk_offset=np.array([0, 8], np.int32),
        ...                            cached_degree=np.array([3, 2], np.int32))
        >>> out, inn = cache(), cache()
        >>> results = get_backend("cpu").uncache_lists_in([(out, np.array([1]), 1, 64, None),
        ...                                                (inn, np.array([0, 1]), 1, 64, None)])
        >>> [(evicted.tolist(), lost.tolist()) for evicted, _, _, lost, _ in results]
        [([1], [2]), ([0, 1], [5])]
        """
        results = []
        try:
            for request in requests:
                results.append(self.uncache_lists(*request))
        except BaseException:
            for (lists, _, _, chunk_slots, _), (evicted, places, held, _, _) in zip(requests, results):
                recache_at(lists, evicted, places, held, chunk_slots)
            raise
        return results

    def recache_in_place(self, lists, vertices, places, held, adjacency, chunk_slots, weight_itemsize):
        """Cache again, in the slots they held, the lists of ``vertices`` just evicted
        (:meth:`uncache_lists`' ``evicted``, ``places`` and ``held``) that still fit
        there: ``0 < adjacency.degree[v] <= held``, in a chunk still held
        (``lists.nbr_pointers[chunk]`` not 0).  Sets their per-vertex entries
        (``in_cache``, ``chunk_id``, ``chunk_offset``, ``cached_degree``);
        :meth:`copy_to_cache` then copies their entries.  One synchronisation.

        Returns
        -------
        placed : array of int64
            The vertices cached again, in no particular order.
        regained : numpy array of int64
            Per chunk id, the entries they take there.
        transactions : int
            Host transactions (of :data:`READ_UNIT_BYTES`) that loading them
            reads: ids, and weights of ``weight_itemsize`` bytes where it is
            not 0 (see :func:`transactions`).

        >>> from types import SimpleNamespace
        >>> from cugraph_stream.backends import get_backend
        >>> cache = SimpleNamespace(in_cache=np.zeros(3, bool), chunk_id=np.full(3, -1, np.int32),
        ...                         chunk_offset=np.zeros(3, np.int32), cached_degree=np.zeros(3, np.int32),
        ...                         nbr_pointers=np.array([0, 4096], np.uint64))
        >>> adj = SimpleNamespace(degree=np.array([3, 9, 2]), start=np.array([0, 32, 64]))
        >>> placed, regained, reads = get_backend("cpu").recache_in_place(  # 0 fits, 1 grew, 2's chunk is gone
        ...     cache, np.array([0, 1, 2]), np.array([70, 80, 5]), np.array([4, 8, 2]), adj, 64, 0)
        >>> placed.tolist(), regained.tolist(), reads, cache.chunk_offset.tolist(), cache.cached_degree.tolist()
        ([0], [0, 3], 1, [6, 0, 0], [3, 0, 0])
        """
        xp = self.xp
        vertices = vertices.astype(xp.int64, copy=False)
        degree = adjacency.degree[vertices].astype(xp.int64)
        chunk = places // int(chunk_slots)
        fits = (degree > 0) & (degree <= held) & (lists.nbr_pointers[chunk] != 0)
        placed, places, chunk, degree = self.compress(fits, vertices, places, chunk, degree)
        regained = xp.bincount(chunk, weights=degree.astype(xp.float64), minlength=int(lists.nbr_pointers.size))
        start = adjacency.start[placed]
        reads = transactions(xp, start, degree, 4).sum(dtype=xp.int64)
        if weight_itemsize:
            reads = reads + transactions(xp, start, degree, int(weight_itemsize)).sum(dtype=xp.int64)
        regained, reads = self.to_host(regained).astype(np.int64), int(reads)
        lists.in_cache[placed] = True
        lists.chunk_id[placed] = chunk.astype(xp.int32)
        lists.chunk_offset[placed] = (places % int(chunk_slots)).astype(xp.int32)
        lists.cached_degree[placed] = degree.astype(xp.int32)
        return placed, regained, reads

    def copy_to_cache(self, cache, vertices, adjacency):
        """Copy the host lists (``adjacency``) of ``vertices`` into their places in
        ``cache`` (a :class:`~cugraph_stream.engine.cache.HotCache`: ``chunk_id``,
        ``chunk_offset`` and ``cached_degree`` entries, in ``cache.chunks``; the
        weights too where the cache holds them).  The NumPy reference copies
        chunk by chunk (:meth:`copy_lists`); a GPU copies every list in one
        launch.  No synchronisation on the GPU."""
        xp = self.xp
        if vertices.size == 0:
            return
        vertices = vertices.astype(xp.int64, copy=False)
        chunk = cache.chunk_id[vertices]
        for c in np.unique(self.to_host(chunk)).tolist():       # a loop over chunks
            mine = vertices[chunk == c]
            pairs = [(adjacency.nbr, cache.chunks[c].nbr)]
            if cache.weights:
                pairs.append((adjacency.wgt, cache.chunks[c].wgt))
            self.copy_lists(pairs, adjacency.start[mine], cache.chunk_offset[mine], cache.cached_degree[mine])

    def reset_values(self, value, parent, vertices, fill, source=None, source_value=None):
        """``value[vertices] = fill`` and ``parent[vertices] = -1``; then, with a
        ``source``, ``value[source] = source_value``.

        >>> from cugraph_stream.backends import get_backend
        >>> value, parent = np.zeros(4), np.arange(4)
        >>> get_backend("cpu").reset_values(value, parent, np.array([0, 2]), np.inf, source=0, source_value=0.0)
        >>> value.tolist(), parent.tolist()
        ([0.0, 0.0, inf, 0.0], [-1, 1, -1, 3])
        """
        value[vertices] = fill
        parent[vertices] = -1
        if source is not None:
            value[source] = source_value

    @abc.abstractmethod
    def lookup_sorted(self, keys, values, queries):
        """For each of ``queries``, the entry of ``values`` paired with the equal
        entry of ``keys`` (int64, distinct, ascending), or ``-1`` where none is equal.

        Where ``values`` is None, ``keys`` is a dense map instead, read as
        :meth:`lookup_dense` reads it: every lookup of vertices by external
        id (:meth:`find_rows`, :meth:`lookup_rows`, :meth:`lookup_missing`,
        :meth:`net_changes_of_ends`, :meth:`apply_single_row`) takes either
        of ``VertexTable.lookup_index``'s two forms so.

        >>> import numpy as np
        >>> from cugraph_stream.backends import get_backend
        >>> ops = get_backend("cpu")
        >>> ops.lookup_sorted(np.array([3, 8]), np.array([1, 0]), np.array([8, 5])).tolist()
        [0, -1]
        >>> ops.lookup_sorted(np.array([-1, 7, 5], dtype=np.int32), None, np.array([1, 2, 0, 9])).tolist()
        [7, 5, -1, -1]
        """

    def lookup_missing(self, keys, values, queries, found):
        """``found``, an earlier :meth:`lookup_sorted` of ``queries``, with each -1
        replaced by the lookup of its query in ``keys`` and ``values`` (for
        the vertices a batch just added); a new array.  One launch on the GPU.

        >>> from cugraph_stream.backends import get_backend
        >>> get_backend("cpu").lookup_missing(np.array([4, 6]), np.array([7, 8]), np.array([6, 5, 4, 9]),
        ...                                   np.array([-1, 2, -1, -1])).tolist()
        [8, 2, 7, -1]
        """
        return self.xp.where(found < 0, self.lookup_sorted(keys, values, queries), found)

    def lookup_dense(self, table, queries):
        """For each of ``queries``, ``table[query]`` where ``0 <= query < table.size``,
        else ``-1`` (``table``: int32 or int64; the result: int64).

        >>> import numpy as np
        >>> from cugraph_stream.backends import get_backend
        >>> get_backend("cpu", compiled=False).lookup_dense(np.array([7, -1, 5], dtype=np.int32),
        ...                                                 np.array([2, -4, 0, 3])).tolist()
        [5, -1, 7, -1]
        """
        xp = self.xp
        if table.size == 0:
            return xp.full(queries.shape, -1, dtype=xp.int64)
        inside = (queries >= 0) & (queries < table.size)
        return xp.where(inside, table[xp.where(inside, queries, 0)], -1).astype(xp.int64, copy=False)

    def enter_vertices(self, ids, reused, first, external, alive, dense=None, held=None):
        """Enter new vertices of external ``ids`` (distinct) into a vertex table:
        the first ``reused.size`` take the internal ids ``reused`` (freed
        ones), the others ``first``, ``first + 1``, ...; ``external`` and
        ``alive`` (by internal id) record them, ``dense`` (by external id,
        int32; None: no dense map) maps them, and ``held`` (where given, a
        pair of int64 buffers and a position ``at``) takes the ids and the
        internal ids at ``at`` onwards.  Returns ``(internal, replaced)``:
        the internal ids (int64), and what ``external``, ``alive`` and
        ``dense`` held where they were written (a journal's pre-images; the
        last None without a map).  One launch on the GPU.

        >>> from cugraph_stream.backends import get_backend
        >>> ops = get_backend("cpu")
        >>> external, alive, dense = np.full(4, -1), np.zeros(4, dtype=bool), np.full(9, -1, dtype=np.int32)
        >>> internal, replaced = ops.enter_vertices(np.array([5, 8]), np.array([3]), 0, external, alive, dense)
        >>> internal.tolist(), external.tolist(), alive.tolist(), dense[[5, 8]].tolist(), replaced[2].tolist()
        ([3, 0], [8, -1, -1, 5], [True, False, False, True], [3, 0], [-1, -1])
        """
        xp = self.xp
        fresh = xp.arange(first, first + int(ids.size) - int(reused.size), dtype=xp.int64)
        internal = fresh if reused.size == 0 else xp.concatenate((reused.astype(xp.int64, copy=False), fresh))
        replaced = (external[internal], alive[internal], None if dense is None else dense[ids])
        external[internal] = ids
        alive[internal] = True
        if dense is not None:
            dense[ids] = internal
        if held is not None:
            held_ids, held_internal, at = held
            held_ids[at:at + ids.size] = ids
            held_internal[at:at + ids.size] = internal
        return internal, replaced

    @abc.abstractmethod
    def merge_sorted(self, keys, values, more_keys, more_values):
        """Merge ascending int64 ``keys`` and ``more_keys``, with their paired int64
        values; returns ``(merged_keys, merged_values)``.  Stable: among equal
        keys, those of ``keys`` come first, each input's in its order."""

    @abc.abstractmethod
    def record_changes(self, forced, touched, value, parent, previous_value, previous_parent, alive,
                       with_parents, keep=False):
        """The live vertices whose result changed since it was last recorded, recorded now.

        Among the vertices of ``forced`` (distinct) and ``touched`` (any
        repeats), those with ``alive`` set whose ``value`` differs from
        ``previous_value`` (or, with ``with_parents``, whose ``parent``
        differs from ``previous_parent``), and every live one of ``forced``,
        distinct and in any order.  ``previous_value`` and
        ``previous_parent`` then take the current values of all of them.
        Returns them :class:`Counted`: a device leaves their count on the
        device, so that the call does not wait for it.  With ``keep``,
        returns ``(changed, replaced)``: ``replaced`` a :class:`Replaced` of
        the vertices whose ``previous_value`` or ``previous_parent`` the call
        changed (each once, in any order), with what the two held (its count
        left where it was made too).
        """

    @abc.abstractmethod
    def factorize(self, values):
        """``(uniques, codes)`` with ``uniques[codes] == values``; uniques in any order."""

    @abc.abstractmethod
    def scatter_add(self, target, index, values):
        """``target[index[k]] += values[k]`` for every ``k``, duplicates accumulating."""

    # -------------------------------------------------------------- hash index
    @abc.abstractmethod
    def hash_find(self, table, keys):
        """Positions of ``keys`` (non-negative int64) in an open-addressing ``table``.

        ``table`` has a power-of-two size and holds keys, ``-1`` for empty and
        ``-2`` for deleted slots; probing is linear from :meth:`hash_slot`.
        Absent keys give ``-1``.
        """

    @abc.abstractmethod
    def hash_claim(self, table, keys):
        """Store absent, distinct ``keys`` in ``table``.

        Returns ``(positions, replaced)``: where each key went, and what that
        position held before (``-1`` empty or ``-2`` deleted), so that the
        caller can count reused slots and undo the claim.  The table is
        written once, when every position is known.
        """

    @abc.abstractmethod
    def hash_build(self, table, keys):
        """Store distinct ``keys`` in an empty ``table`` (bulk load); return their positions."""

    # --------------------------------------------------------------- arc index
    # An arc index (the engine's ArcIndex) maps each arc ``u -> v`` of an
    # out-adjacency to its slot, without storing the arc: ``table``
    # (SLOT_DTYPE, a power-of-two size) holds slots, EMPTY_SLOT or
    # DELETED_SLOT, and arc ``key = u << 32 | v`` is probed linearly from
    # the home :meth:`hash_find` gives ``key``; a position holding slot ``s`` is
    # the arc's when ``s`` lies in ``u``'s list (``start[u] <= s < start[u] +
    # degree[u]``) and ``nbr[s] == v``, for a list owns its slots.  Every
    # ``u`` named is below ``adj.start.size``.

    @abc.abstractmethod
    def arc_find(self, table, adj: AdjacencyLists, keys):
        """Positions in ``table`` of the arcs ``keys`` (int64) of ``adj``; -1 where
        absent (and for a negative key, which names no arc)."""

    @abc.abstractmethod
    def arc_claim(self, table, keys, slots):
        """Enter absent, distinct arcs ``keys`` with their ``slots``: each takes the
        first empty or deleted position from its home.

        Returns ``(positions, replaced)``: where each went, and what that
        position held before (EMPTY_SLOT or DELETED_SLOT), so that the caller
        can count reused tombstones and undo the claim.
        """

    @abc.abstractmethod
    def arc_build(self, table, keys, slots):
        """Enter distinct arcs ``keys`` with their ``slots`` into an empty ``table`` (bulk load)."""

    def arc_table_builder(self, table):
        """An :class:`ArcTableBuilder` that fills the empty ``table`` over several
        calls (a bulk load in ranges of vertices).

        Here the builder enters arcs into ``table`` itself; a backend whose
        table may live in memory it reaches slowly (host memory, read by a
        device) builds in its own memory and copies once.
        """
        return ArcTableBuilder(self, table)

    @abc.abstractmethod
    def arc_locate(self, table, keys, slots):
        """Positions of the entries of arcs ``keys`` that hold ``slots`` (all present).

        Each arc's probe from its home stops at the position holding its slot:
        it needs no adjacency, so it finds the entries of lists that have just
        moved (a table holds each slot at most once).
        """

    def arc_erase(self, table, adj: AdjacencyLists, positions):
        """Erase the arcs of ``adj`` at ``table`` positions (distinct, each holding
        an arc): every position becomes DELETED_SLOT.  Returns ``(slots,
        weights, twins)``: the slots the positions held (int64: the table's
        pre-image too), and those entries' weights and twins (int64; None
        where ``adj`` keeps no twins).  One launch on the GPU.

        >>> from cugraph_stream.backends import get_backend
        >>> from cugraph_stream.engine.adjacency import Adjacency
        >>> ops = get_backend("cpu")
        >>> adj = Adjacency(ops, np.float32, with_twin=False)
        >>> adj.ensure_vertices(2)
        >>> built = adj.build(np.array([0, 1]), np.array([1, 0]), np.array([2.0, 3.0], np.float32))
        >>> table = np.full(8, EMPTY_SLOT, dtype=SLOT_DTYPE)
        >>> keys = ops.arc_keys(np.array([0, 1]), np.array([1, 0]))
        >>> ops.arc_build(table, keys, built)
        >>> slots, weights, twins = ops.arc_erase(table, adj, ops.arc_find(table, adj, keys[1:]))
        >>> slots.tolist() == built[1:].tolist(), weights.tolist(), twins
        (True, [3.0], None)
        >>> ops.arc_find(table, adj, keys).tolist()[1], int((table == DELETED_SLOT).sum())
        (-1, 1)
        """
        slots = self.take(table, positions, self.xp.int64)
        weights = self.take(adj.wgt, slots)
        twins = None if adj.twin is None else self.take(adj.twin, slots, self.xp.int64)
        self.put(table, positions, DELETED_SLOT)
        return slots, weights, twins

    def arc_repoint(self, table, adj: AdjacencyLists, owners, sources, targets):
        """Point the arc index ``table`` of ``adj`` at entries that moved: the
        entry now at slot ``targets[i]`` of ``owners[i]``'s list (the arc
        ``owners[i] -> adj.nbr[targets[i]]``) was entered at ``sources[i]``.
        Every position is found (:meth:`arc_locate`) before any is written, so
        a move onto a slot that another moved entry left finds the right
        positions.  Returns ``(positions, previous)``: the table positions
        written and the slots they held (a journal's pre-image).

        >>> from cugraph_stream.backends import get_backend
        >>> from cugraph_stream.engine.adjacency import Adjacency
        >>> ops = get_backend("cpu")
        >>> adj = Adjacency(ops, np.float32, with_twin=False)
        >>> adj.ensure_vertices(2)
        >>> slots = adj.build(np.array([0, 0]), np.array([1, 0]), np.ones(2, np.float32))
        >>> table = np.full(8, EMPTY_SLOT, dtype=SLOT_DTYPE)
        >>> ops.arc_build(table, ops.arc_keys(np.array([0, 0]), np.array([1, 0])), slots)
        >>> adj.nbr[[slots[0], slots[1]]] = adj.nbr[[slots[1], slots[0]]]      # the two entries swap slots
        >>> positions, previous = ops.arc_repoint(table, adj, np.array([0, 0]), slots, slots[::-1])
        >>> (table[positions].tolist() == slots[::-1].tolist(), previous.tolist() == slots.tolist())
        (True, True)
        """
        keys = self.arc_keys(owners, self.take(adj.nbr, targets, self.xp.int64))
        positions = self.arc_locate(table, keys, sources)
        return positions, self.exchange(table, positions, targets)

    def follow_twins(self, table, out: AdjacencyLists, inn: AdjacencyLists, owners, targets):
        """Point the twins of ``out`` at in-entries that moved: slot
        ``targets[i]`` of ``owners[i]``'s list of ``inn`` holds the in-entry of
        the arc ``inn.nbr[targets[i]] -> owners[i]``, whose out-entry the arc
        index ``table`` of ``out`` finds (every such arc is in it); that
        entry's twin becomes ``targets[i]``.  Returns ``(slots, previous)``:
        the out-slots written (distinct: one an arc) and the twins they held
        (a journal's pre-image).

        >>> from cugraph_stream.backends import get_backend
        >>> from cugraph_stream.engine.adjacency import Adjacency
        >>> ops = get_backend("cpu")
        >>> out, inn = (Adjacency(ops, np.float32, with_twin=True) for _ in range(2))
        >>> for adj in (out, inn): adj.ensure_vertices(3)
        >>> out_slots = out.build(np.array([0, 2]), np.array([1, 1]), np.ones(2, np.float32))
        >>> in_slots = inn.build(np.array([1, 1]), np.array([0, 2]), np.ones(2, np.float32))
        >>> table = np.full(8, EMPTY_SLOT, dtype=SLOT_DTYPE)
        >>> ops.arc_build(table, ops.arc_keys(np.array([0, 2]), np.array([1, 1])), out_slots)
        >>> slots, previous = ops.follow_twins(table, out, inn, np.array([1, 1]), in_slots)
        >>> slots.tolist() == out_slots.tolist(), out.twin[slots].tolist() == in_slots.tolist()
        (True, True)
        """
        xp = self.xp
        sources = self.take(inn.nbr, targets, xp.int64)
        slots = self.take(table, self.arc_find(table, out, self.arc_keys(sources, owners)), xp.int64)
        return slots, self.exchange(out.twin, slots, targets)

    # ------------------------------------------------------------ adjacency
    @abc.abstractmethod
    def close_holes(self, adj: AdjacencyLists, owners, slots):
        """Remove the entries at ``slots`` of ``adj`` (rows sorted by slot, distinct).

        ``owners[i]`` owns ``slots[i]``.  Each list keeps its first
        ``degree - removed`` positions: a removed slot among them is filled
        with one of the list's surviving entries beyond that boundary
        (``nbr``, ``wgt`` and ``twin`` move together), and the list's degree
        drops.  Returns ``(owner, source, target)``: every entry moved, from
        slot ``source`` to slot ``target`` of ``owner``'s list.
        """

    def remove_entries(self, adj: AdjacencyLists, owners, slots, keep=True):
        """:meth:`close_holes` for rows in any order, keeping what a journal needs to undo it.

        ``owners[i]`` owns ``slots[i]`` (distinct).  With ``keep``, the
        :class:`RemovedEntries` holds the pre-images of the removed slots and
        of the degrees that drop, and the values the moved entries hold at
        their sources (which later writes past the degree may overwrite);
        without it those fields are None.  How many entries moved may stay
        on the device (:attr:`RemovedEntries.count`).  This default sorts the rows by
        slot, gathers the pre-images and calls :meth:`close_holes`; a backend
        may do it all in one pass.
        """
        xp = self.xp
        if slots.size > 1:
            order = xp.argsort(slots)
            owners, slots = owners[order], slots[order]
        arrays = (adj.nbr, adj.wgt, adj.twin)
        removed = tuple(None if a is None else a[slots] for a in arrays) if keep else None
        degree = adj.degree[owners] if keep else None
        try:
            owner, source, target = self.close_holes(adj, owners, slots)
            moved = tuple(None if a is None else a[source] for a in arrays) if keep else None
        except BaseException:       # (both allocate between writes): all or nothing, from the pre-images
            if keep:
                undo_removal(adj, RemovedEntries(None, None, None, slots, owners, degree, removed, None))
            raise
        return RemovedEntries(owner, source, target, slots, owners if keep else None, degree, removed, moved,
                              int(owner.size))

    def remove_arcs(self, adjs, owners, slots, keep=True):
        """:meth:`remove_entries` in each of ``adjs``: ``slots[k]`` (owned by
        ``owners[k]``) from ``adjs[k]``, the out- and in-entries of a directed
        graph's deleted arcs in one call (on the GPU both in each launch).
        Returns one :class:`RemovedEntries` per adjacency, whose counts
        :meth:`read_counts` reads together.  All or nothing: where a removal
        fails, those done before it are undone (:func:`undo_removal`) before
        the error is raised.

        >>> import numpy as np
        >>> from cugraph_stream.backends import get_backend
        >>> from cugraph_stream.engine.adjacency import Adjacency
        >>> ops = get_backend("cpu")
        >>> out, inn = (Adjacency(ops, np.float64, with_twin=False) for _ in range(2))
        >>> src, dst = np.array([0, 0, 1]), np.array([1, 2, 2])
        >>> for adj, (a, b) in ((out, (src, dst)), (inn, (dst, src))):
        ...     adj.ensure_vertices(3)
        ...     _ = adj.build(a, b, np.ones(3), src_sorted=adj is out)
        >>> out_slot, in_slot = int(out.start[0]), int(inn.start[1])      # 0 -> 1 from both sides
        >>> removed = ops.remove_arcs((out, inn), (np.array([0]), np.array([1])),
        ...                           (np.array([out_slot]), np.array([in_slot])))
        >>> [int(r.removed[0][0]) for r in removed]                    # the removed entries' neighbours
        [1, 0]
        >>> out.degree[:3].tolist(), inn.degree[:3].tolist()
        ([1, 1, 0], [0, 0, 2])
        """
        done = []
        try:
            for adj, o, s in zip(adjs, owners, slots):
                done.append(self.remove_entries(adj, o, s, keep))
        except BaseException:
            for adj, removed in zip(adjs, done):
                undo_removal(adj, removed)
            raise
        return done

    def plan_moves(self, adj: AdjacencyLists, vertices, need, base, align, count=None):
        """Fresh room from slot ``base`` on (a multiple of ``align``) for the lists of
        ``vertices`` (distinct), which need ``need`` slots: the :class:`MovePlan`
        that :meth:`move_lists` follows.

        ``count``: how many of ``vertices`` and ``need`` are lists to plan, where
        not all of them: a host int, or a one-element device array (a
        placement's, not read yet) from which a device may plan without a
        read; the plan's arrays then hold a bound of entries, and
        :meth:`MovePlan.read` trims them to the count read with its totals.

        List ``k`` gets :func:`grown_room` of ``need[k]`` (a size class), laid out
        region after region (:func:`room_regions`: whole units first, then
        each smaller class), in the order of ``vertices`` within a region, so
        every list starts at a multiple of its class; the total is padded to
        whole units, so the next plan starts aligned too, and the padding
        counts as released.  The plan's totals may stay on the device (read
        them, with other counts, by :meth:`read_counts` of
        :attr:`MovePlan.counts`).  This default is a running total per
        column and one copy of their sums (host ints: free on the host); a
        backend may do it in one launch.
        """
        if count is not None:
            if self.has_device_memory and not isinstance(count, (int, np.integer)):
                DEVICE_CALLS.syncs += 1         # (a device's count read: a wait of its own)
            (count,) = self.read_counts(count)
            vertices, need = vertices[:count], need[:count]
        return self._plan_lists(adj, vertices, need, base, align)

    def _plan_lists(self, adj, vertices, need, base, align):
        """:meth:`plan_moves` of every one of ``vertices``: array calls (a backend with
        compiled kernels may make the plan in one pass)."""
        xp = self.xp
        k = int(vertices.size)
        room = grown_room(xp, need, align)
        old_start, degree, old_capacity = adj.start[vertices], adj.degree[vertices], adj.capacity[vertices]
        regions, lists = room_regions(xp, room, align), xp.arange(k)
        by_region = xp.zeros(((align // MIN_LIST_SLOTS).bit_length(), k), dtype=xp.int64)
        by_region[regions, lists] = room
        # one running total over every region's room, the entries moved and the room
        # given up (one scan, and one copy brings all the sums)
        columns = xp.concatenate((by_region, degree.astype(xp.int64)[None], old_capacity.astype(xp.int64)[None]))
        running = xp.cumsum(columns, axis=1)
        sums = [int(t) for t in np.asarray(self.to_host(running[:, k - 1]))] if k else [0] * len(columns)
        *region_totals, moved, released = sums
        region_start = np.cumsum([0] + region_totals[:-1])
        new_start = base + xp.asarray(region_start)[regions] + running[regions, lists] - room
        room_total = sum(region_totals)
        padding = -room_total % align
        return MovePlan(new_start, room, running[-2] - degree, old_start, old_capacity, room_total + padding, moved,
                        released + padding)

    @abc.abstractmethod
    def move_lists(self, adj: AdjacencyLists, vertices, new_start, room, first, moved):
        """Move the lists of ``vertices`` (distinct) of ``adj`` to fresh slots.

        List ``k`` goes to ``new_start[k]`` (``nbr``, ``wgt`` and ``twin``
        move together, in order), which becomes its ``start``, and gets
        ``room[k]`` slots as its ``capacity``.  Returns ``(owner, source,
        target)``: every entry moved (``moved`` in all), list ``k``'s from
        position ``first[k]`` on, in list order.
        """

    @abc.abstractmethod
    def place_entries(self, adj: AdjacencyLists, owners, neighbours, weights, slots=None, must_fit=False,
                      degrees=False, kept=None):
        """Append rows ``(owners, neighbours, weights)`` (sorted by owner, unless
        :attr:`place_entries_any_order`) to the lists of ``adj``, without
        waiting for the device.

        A list with room for all its rows gets them after its entries (its
        degree grows, and ``slots`` receives each row's slot); rows whose
        ``slots`` entry is already ``>= 0`` were placed before and are left
        alone (``slots`` None: every row is new, and the slots are a fresh
        array).  Returns a :class:`Placement`: the slots, and the lists
        without room with the degree each of them needs, once their count
        is read.

        ``must_fit``: the caller gave every list room for its rows (after a
        relocation), so none is left out and nobody reads the count; a list
        without room is a broken invariant, which a host backend raises at
        once (``RuntimeError``) and a device at its next :meth:`synchronize`.
        ``degrees``: also return each row's list's degree before the call in
        ``Placement.old_degree`` (the GPU copies it in the launch that
        takes the tickets, not in a gather of its own).  ``kept``: with
        ``must_fit``, the ``Placement.kept`` of the call that placed these
        rows first (with these ``slots``), after which only the lists
        without room moved: a backend that kept each row's place in its
        list (the GPU: the list's fill and the row's ticket) writes the rows
        there directly; others place them as without it.
        """

    @abc.abstractmethod
    def place_arcs(self, adjs, u, v, w, degrees=False):
        """:meth:`place_entries` of fresh rows for the arcs ``u -> v`` of weights
        ``w`` (in any order) in ``adjs[0]`` (owners ``u``) and, where ``adjs``
        holds a second adjacency, of their reverses ``v -> u`` in it (owners
        ``v``): the out- and in-adjacency of a directed graph in one call (on
        the GPU one launch for both, for a few rows).  Returns one
        :class:`Placement` per adjacency, whose counts
        :meth:`read_counts` reads together.

        >>> import numpy as np
        >>> from cugraph_stream.backends import get_backend
        >>> from cugraph_stream.engine.adjacency import Adjacency
        >>> ops = get_backend("cpu")
        >>> out, inn = (Adjacency(ops, np.float64, with_twin=False) for _ in range(2))
        >>> src, dst = np.array([0, 1, 2]), np.array([1, 2, 0])          # a cycle
        >>> for adj, (a, b) in ((out, (src, dst)), (inn, (dst, src))):
        ...     adj.ensure_vertices(3)
        ...     _ = adj.build(a, b, np.ones(3), src_sorted=adj is out)
        >>> placed = ops.place_arcs((out, inn), np.array([0, 0]), np.array([1, 2]), np.array([5.0, 6.0]))
        >>> ops.read_counts(*(p.count for p in placed))          # every list had room
        [0, 0]
        >>> out.degree[:3].tolist(), inn.degree[:3].tolist()      # 0 -> 1 and 0 -> 2 added
        ([3, 1, 1], [1, 2, 2])
        """

    def read_counts(self, *counts):
        """Counts that operators left on the device (a :class:`Placement`'s), as
        Python ints, read in one synchronisation; host ints pass through.

        >>> from cugraph_stream.backends import get_backend
        >>> import numpy as np
        >>> get_backend("cpu").read_counts(3, np.array([2]))
        [3, 2]
        """
        on_device = [c.reshape(()) for c in counts if not isinstance(c, (int, np.integer))]
        read = iter(self.host_ints(*on_device))
        return [int(c) if isinstance(c, (int, np.integer)) else next(read) for c in counts]

    @abc.abstractmethod
    def copy_lists(self, pairs, source_start, target_start, lengths):
        """Copy whole lists from one array to another, for every ``(source, target)`` of ``pairs``.

        ``target[target_start[i] + k] = source[source_start[i] + k]`` for
        ``k < lengths[i]``, every list ``i``.  A pair holds neighbour arrays
        (``int32``, or a cache chunk's packed ids, ``uint8`` rows of 3: either
        converts to the other; see :mod:`cugraph_stream.chunk_layout`) or
        value arrays of one dtype; ``source`` and ``target`` do not overlap.
        The hot-list cache loads and compacts its chunks with it.
        """

    # ------------------------------------------------------ batch reduction
    def check_rows(self, ops, weights, weight_dtype, nonnegative=False):
        """Check and convert a batch's op and weight columns in one pass.

        ``ops`` holds numeric op values (1 insert, -1 delete; anything else,
        NaN included, is an unknown op), or is None (every row inserts);
        ``weights`` holds numbers (integers or floats), one a row.  Both are
        arrays of one library (NumPy, or CuPy), read where they are.

        Returns a :class:`~cugraph_stream.backends.rows.RowCheck`: the int8
        op codes (0 for an unknown op), the weights converted to
        ``weight_dtype`` as NumPy converts (through float64, rounded to
        nearest: subnormals kept, an overflow infinite) on insert rows and 0
        on the others, and as host values whether some row is in error (an
        unknown op, a weight that is not finite in ``weight_dtype`` on an
        insert row, or, with ``nonnegative``, a negative one: -1e-45 is,
        -0.0 is not), the largest weight magnitude and whether some weight
        has a fraction.  Device columns are read back once (a synchronisation,
        counted only then); host columns are checked with NumPy.

        >>> import numpy as np
        >>> from cugraph_stream.backends import get_backend
        >>> check = get_backend("cpu").check_rows(np.array([1, -1, 7], dtype=np.int8), np.array([3, 9, 1]), np.float32)
        >>> check.codes.tolist(), check.weights.tolist(), check.bad, check.largest, check.fractional
        ([1, -1, 0], [3.0, 0.0, 0.0], True, 3.0, False)
        """
        check, synced = rows.check_rows(ops, weights, weight_dtype, nonnegative)
        DEVICE_CALLS.syncs += synced
        return check

    @abc.abstractmethod
    def net_changes(self, u, v, codes, weights, table, adj: AdjacencyLists, undirected=False, unresolved=None):
        """Net change of each edge named by batch rows ``u[i] -> v[i]``, rows in
        any order (the rows of one edge apply in batch order).

        ``codes`` holds ``1`` (insert) or ``-1`` (delete) and ``weights`` each
        row's weight; ``undirected``: a row names the edge of its ends in
        ascending order.  A row naming a vertex the graph lacks (-1; delete
        rows only) names no edge: it counts as ``ignored``.  An edge starts in
        the state the arc index ``table`` of the out-adjacency ``adj`` (see
        :meth:`arc_find`) and ``adj.wgt`` give it, and each row applies in order.

        Returns a :class:`NetChanges`: the edges absent before and present
        after (with their weights and arc keys), present before and absent
        after, present in both with another weight (with their weights), the
        latter two with their table positions; ``counts`` with ``inserted``,
        ``deleted``, ``weight_updated``, ``unchanged`` (present in both, no
        row changed it), ``cancelled`` (rows changed it and changed it back)
        and ``ignored`` (delete rows that found their edge absent).

        ``unresolved``: the count of a :class:`Counted` (a host int, or a
        one-element device array) of ends the rows name that have no id yet
        (:meth:`find_rows`' ``missing``), read in the same wait as the
        counts: where it is not zero, the changes are not computed or not
        returned, and None is (the caller creates those vertices and asks
        again).  So a batch naming known vertices only waits once for its
        lookup and its reduction.

        >>> from cugraph_stream.backends import get_backend
        >>> from cugraph_stream.engine.adjacency import Adjacency
        >>> from cugraph_stream.engine.arc_index import ArcIndex
        >>> ops = get_backend("cpu")
        >>> adj = Adjacency(ops, np.float32, with_twin=False)
        >>> adj.ensure_vertices(3)
        >>> index = ArcIndex(ops, adj)
        >>> index.build(np.array([1]), adj.build(np.array([0]), np.array([1]), np.array([2.0], np.float32)))
        >>> net = ops.net_changes(np.array([0, 1, 0, 0]), np.array([2, 2, 1, 2]), np.array([1, 1, -1, -1], np.int8),
        ...                       np.array([5, 7, 0, 0], np.float32), index.table, adj)
        >>> net.inserted_u.tolist(), net.inserted_v.tolist(), net.deleted_v.tolist(), net.counts["cancelled"]
        ([1], [2], [1], 1)
        >>> ops.net_changes(np.array([0]), np.array([-1]), np.array([1], np.int8), np.array([5], np.float32),
        ...                 index.table, adj, unresolved=1) is None
        True
        """

    @abc.abstractmethod
    def apply_single_row(self, ids, src, dst, weight, op, table, out_adj: AdjacencyLists,
                         in_adj: AdjacencyLists, trees=()):
        """A batch of one row, in one call without a wait (on the GPU one thread of
        one launch): the row ``src -> dst`` (external ids, host ints) of op
        ``op`` (1 insert, -1 delete) and weight ``weight`` (a host scalar),
        where it creates no vertex and moves no list.  ``in_adj is out_adj``
        for an undirected graph: its edge ``{u, v}`` (ends ordered ``u <= v``)
        is the arcs ``u -> v`` and ``v -> u``, each in the index (one arc for
        a loop), and every step below applies to both.

        ``ids`` maps external ids to internal ones: ``(sorted_external,
        sorted_internal)``, or ``(dense, None)`` where a dense map answers
        (``dense[x]``, -1 for none; see
        :class:`~cugraph_stream.engine.vertices.VertexTable`).  The edge is
        found in the arc index ``table`` of the out-adjacency ``out_adj``
        (its ``twin`` pointing into ``in_adj``), as :meth:`net_changes`
        finds it, and the row applied:

        * an insert of an absent edge whose lists both have room: placed past
          each list's degree (the out-entry's twin pointing at the in-entry),
          and entered at the first free position of the index (an empty or
          deleted one, as :meth:`arc_claim` takes it);
        * a delete of a present edge: each list's last entry fills the hole
          (as :meth:`remove_arcs`), the index position becomes a tombstone,
          the moved out-entry's position follows it (as :meth:`arc_locate`
          finds it) and the moved in-entry's out-entry gets its new twin;
        * an insert of a present edge with another weight: the weight in both
          lists;
        * an insert of a present edge with its weight (``SINGLE_UNCHANGED``),
          a delete of an absent edge or of an unknown vertex
          (``SINGLE_IGNORED``): nothing.

        ``trees`` (at most :data:`SINGLE_ROW_TREES` pairs ``(parent, value)``
        of per-vertex arrays, int64 parents and values of at most 8 bytes:
        the tracked queries' trees): where the row deletes ``u -> v``, bit
        ``k`` of the record's ``SR_CUTS`` word is set where
        ``parent[v] == u`` or ``parent[u] == v`` of tree ``k`` (the arc may
        hold an edge of that tree, either way); a tree whose bit is clear
        needs no invalidation.  Where both ends are known, the record's words
        ``SR_ENDS + 2 * k`` and ``SR_ENDS + 2 * k + 1`` hold ``value[u]`` and
        ``value[v]`` of tree ``k`` as they were (:func:`end_value` reads
        them): whether an inserted arc improves a tree is then known on the
        host, with the status.

        Anything else (an insert naming an unknown vertex, a list without
        room) writes nothing and returns ``SINGLE_FALLBACK``: the caller
        takes the general path.  Returns a :class:`SingleRow`, its status
        unread: the caller journals the undo step (which reads the record)
        before any wait.

        >>> from cugraph_stream.backends import get_backend
        >>> from cugraph_stream.engine.reduce import reduce_batch
        >>> from cugraph_stream.engine.store import GraphStore
        >>> ops = get_backend("cpu")
        >>> store = GraphStore(ops, directed=True, weight_dtype=np.float32)
        >>> _ = store.add_vertices(np.array([10, 20]))          # external ids 10, 20: vertices 0, 1
        >>> _ = store.apply(reduce_batch(store, np.array([0]), np.array([1]), np.ones(1, np.float32),
        ...                              np.ones(1, np.int8)))
        >>> ids, table, out, inn = (np.array([10, 20]), np.array([0, 1])), store.index.table, store.out, store.inn
        >>> row = ops.apply_single_row(ids, 10, 20, np.float32(0), -1, table, out, inn)
        >>> int(row.record[SR_STATUS]) == SINGLE_DELETED, float(row.weights[SR_OLD]), out.neighbors(0).tolist()
        (True, 1.0, [])
        >>> row = ops.apply_single_row(ids, 20, 10, np.float32(2.5), 1, table, out, inn)    # 1 -> 0: no room
        >>> int(row.record[SR_STATUS]) == SINGLE_FALLBACK
        True
        >>> row = ops.apply_single_row(ids, 10, 20, np.float32(2.5), 1, table, out, inn)
        >>> int(row.record[SR_STATUS]) == SINGLE_INSERTED, out.neighbors(0).tolist(), inn.neighbors(1).tolist()
        (True, [1], [0])
        """

    # --------------------------------------------------------- graph operators
    @abc.abstractmethod
    def relax(self, adj: AdjacencyLists, frontier, value, parent, rule):
        """Push ``value`` along the out-edges of ``frontier`` (advance).

        ``frontier`` holds distinct vertices with reachable values.
        For every edge ``u -> v`` with ``u`` in ``frontier`` and a candidate
        ``rule.extend(value[u], w)`` strictly better than ``value[v]``, the
        best candidate wins ``value[v]`` and one of the ``u`` producing it
        becomes ``parent[v]``.  Returns ``(improved, edges_read)``: the
        distinct vertices whose value improved, and the edges read.
        """

    def converge(self, adjs: Sequence[AdjacencyLists], frontier, value, parent, rule):
        """Relax from ``frontier`` along every adjacency of ``adjs`` until no value improves.

        Step after step, the vertices improved by one step form the next
        frontier (see :meth:`relax`).  ``frontier``: an array, or a
        :class:`Counted` whose count may still be on the device (as
        :meth:`correction_frontier` leaves it; the GPU's one-block push
        reads it there).  Returns ``(activated, edges_read)``: the frontiers
        of all steps, concatenated, and the edges read.  This loop of
        :meth:`relax` steps is the reference; a backend may run several
        steps at once.
        """
        xp = self.xp
        frontier = self.read_counted(frontier)
        steps, edges_read = [], 0
        while frontier.size:
            steps.append(frontier)
            improved = []
            for adj in adjs:
                step, read = self.relax(adj, frontier, value, parent, rule)
                edges_read += read
                improved.append(step)
            frontier = improved[0] if len(improved) == 1 else self.unique(xp.concatenate(improved), value.size)
        activated = xp.concatenate(steps) if steps else frontier
        return activated, edges_read

    @abc.abstractmethod
    def relax_arcs(self, u, v, w, value, parent, rule):
        """Relax the given arcs ``u -> v`` of weights ``w`` (inserted or improved edges).

        Same update as :meth:`relax`, restricted to these arcs (sources with
        unreachable values send nothing).  Returns the distinct vertices
        whose value improved.
        """

    def relax_arcs_only(self, u, v, w, value, parent, rule):
        """Relax arcs ``u -> v`` of weights ``w`` as :meth:`relax_arcs` does,
        where the caller knows already which targets improve (a one-row
        insert, whose ends' values came with its status): the values and
        parents are written, nothing is collected or read back (no
        synchronisation).

        >>> from cugraph_stream.backends import get_backend
        >>> from cugraph_stream.algorithms import sssp_rule
        >>> rule = sssp_rule(np.float64)
        >>> value = np.array([0.0, 4.0, rule.unreachable])
        >>> parent = np.array([-1, 0, -1])
        >>> get_backend("cpu").relax_arcs_only(np.array([1]), np.array([2]), np.array([0.5]), value, parent, rule)
        >>> value.tolist()[2], parent.tolist()[2]
        (4.5, 1)
        """
        self.relax_arcs(u, v, w, value, parent, rule)

    def correction_frontier(self, value, parent, rule, invalidated, arcs):
        """Where a correction's push starts: the vertices of ``invalidated`` that
        their re-seeding reached (every one where ``rule.unreachable`` is None),
        and the targets whose values the arcs ``(u, v, w)`` of ``arcs`` improve
        (:meth:`relax_arcs` of each), each vertex once, in no order: a
        :class:`Counted`, whose count a device may leave where it was made
        for :meth:`converge` to read there (no synchronisation).

        >>> from cugraph_stream.backends import get_backend
        >>> from cugraph_stream.algorithms import sssp_rule
        >>> rule = sssp_rule(np.float64)
        >>> value = np.array([0.0, rule.unreachable, 5.0, rule.unreachable])     # 1 and 2 re-seeded: 2 reached
        >>> parent = np.array([-1, -1, 0, -1])
        >>> arcs = [(np.array([0, 0]), np.array([2, 3]), np.array([1.0, 9.0]))]  # 2 and 3 improve
        >>> frontier = get_backend("cpu").correction_frontier(value, parent, rule, np.array([1, 2]), arcs)
        >>> sorted(frontier.array[:frontier.count].tolist())
        [2, 3]
        """
        xp = self.xp
        parts = [invalidated if rule.unreachable is None or invalidated.size == 0
                 else self.reached(value, invalidated, rule.unreachable)]
        parts += [self.relax_arcs(u, v, w, value, parent, rule) for u, v, w in arcs if u.size]
        full = [p for p in parts if p.size]
        if len(full) <= 1:          # each part holds each vertex once already
            frontier = full[0] if full else xp.empty(0, dtype=xp.int64)
        else:
            frontier = self.unique(xp.concatenate(full), value.size)
        return Counted(frontier, int(frontier.size))

    @abc.abstractmethod
    def pull(self, adjs: Sequence[AdjacencyLists], targets, value, parent, rule):
        """Re-seed ``targets`` from their neighbours in each adjacency of ``adjs``
        (the in-adjacency; weak connectivity: the out-adjacency too), one after
        the other.

        For every ``targets[i] = v`` and ``u`` in an adjacency's list of ``v``,
        with ``value[u]`` reachable, the best ``rule.extend(value[u], w)``
        strictly better than ``value[v]`` is written with its parent ``u``.
        Returns the number of edges read as a value whose ``get()`` gives it
        (:class:`Known` where it is on the host; a device may read it with
        its next wait: no synchronisation of its own).
        """

    @abc.abstractmethod
    def invalidate(self, adjs: Sequence[AdjacencyLists], seeds, parent):
        """Invalidate ``seeds`` (an array, or :class:`Counted`; repeats allowed)
        and, transitively, every vertex whose parent is invalidated, until none
        is left (not just one round).

        Children of ``u`` are found among ``u``'s neighbours in each adjacency
        of ``adjs``.  Returns ``(invalidated, edges_read)``, ``invalidated``
        holding each vertex once; values and parents are left for the caller
        to reset.
        """

    def bfs_levels(self, out_adj: AdjacencyLists, in_adj: AdjacencyLists, source, bound, value, parent, rule):
        """Breadth-first search from ``source`` over the vertices below ``bound``, level by level.

        Writes, for every vertex ``v < bound``, ``value[v]``: its hop distance
        from ``source`` (0 at the source; ``rule.unreachable`` where no path
        reaches it) and ``parent[v]``: an in-neighbour one level up (-1 for
        the source and unreachable vertices).  Entries at or beyond
        ``bound`` are left alone.  ``value`` holds BFS's rule values
        (int32, see :func:`~cugraph_stream.algorithms.specs.bfs_rule`);
        ``rule`` gives its ``unreachable``.  Vertices below ``bound`` that
        are not live must have no edges (removed vertices have none).

        Direction-optimising (Beamer): a top-down level expands the
        frontier's lists in ``out_adj`` and claims unvisited neighbours; a
        bottom-up level scans the list in ``in_adj`` of every unvisited
        vertex and stops at the first neighbour in the frontier.  The
        direction of each level follows :data:`BFS_ALPHA` and
        :data:`BFS_BETA` from exact edge counts (``m_f``: entries of the
        frontier's out-lists; ``m_u``: entries of the unvisited vertices'
        in-lists).  An undirected graph passes its one adjacency as both.
        The host reads four counts per level (one synchronisation each, on
        top of the call's own: counted in :data:`DEVICE_CALLS` as one
        launch and one sync per level), so both backends take the same
        directions and count the same edges.

        Returns ``(visited, edges_read)``: the reached vertices (the source
        first, then level by level, any order within a level) and the list
        entries read (whole out-lists top-down; in-lists up to and including
        the first parent found bottom-up).

        >>> import numpy as np
        >>> from cugraph_stream.backends import get_backend
        >>> from cugraph_stream.engine.adjacency import Adjacency
        >>> from cugraph_stream.algorithms import bfs_rule
        >>> ops = get_backend("cpu")
        >>> out, inn = (Adjacency(ops, np.float32, with_twin=False) for _ in range(2))
        >>> for adj in (out, inn):
        ...     adj.ensure_vertices(4)
        >>> u, v = np.array([0, 1, 0]), np.array([1, 2, 2])
        >>> _ = out.append(u, v, np.ones(3, np.float32)); _ = inn.append(v, u, np.ones(3, np.float32))
        >>> value, parent = np.zeros(4, np.int32), np.zeros(4, np.int64)
        >>> visited, read = ops.bfs_levels(out, inn, 0, 4, value, parent, bfs_rule())
        >>> value.tolist(), parent.tolist(), visited.tolist()[0], read
        ([0, 1, 1, 2147483647], [-1, 0, 0, -1], 0, 3)
        """
        state, unvisited_edges, frontier_edges = self._bfs_start(out_adj, in_adj, int(source), int(bound), value,
                                                                 parent, rule)
        calls = DEVICE_CALLS
        frontier, previous, level, bottom_up, edges_read = 1, 0, 0, False, 0
        while frontier:
            if bottom_up:
                bottom_up = not (frontier < previous and frontier * BFS_BETA < bound)
            else:
                bottom_up = frontier_edges * BFS_ALPHA > unvisited_edges
            found, found_out, found_in, read = self._bfs_step(state, level, bottom_up)
            calls.launches += 1          # the level's kernels and the read of its counts
            calls.syncs += 1
            unvisited_edges -= found_in
            frontier_edges = found_out
            previous, frontier = frontier, found
            edges_read += read
            level += 1
        return self._bfs_visited(state), edges_read

    def _bfs_start(self, out_adj, in_adj, source, bound, value, parent, rule):
        """Set up :meth:`bfs_levels`: values and parents reset below ``bound``, the
        source at level 0.  Returns ``(state, m_u, m_f)``: the backend's state,
        the entries of the in-lists of every vertex but the source, and of the
        source's out-list."""
        raise NotImplementedError(f"{type(self).__name__} has no bfs_levels")

    def _bfs_step(self, state, level, bottom_up):
        """One level of :meth:`bfs_levels`: the vertices at ``level`` (the last
        level found) reach the next one, top-down or ``bottom_up``.  Returns
        ``(found, out_entries, in_entries, read)``: vertices found, the entries
        of their out-lists and in-lists, and the list entries read."""
        raise NotImplementedError

    def _bfs_visited(self, state):
        """The vertices :meth:`bfs_levels` reached, level by level."""
        raise NotImplementedError

    @abc.abstractmethod
    def invalidate_keeping_ties(self, adjs: Sequence[AdjacencyLists], pull_adj: AdjacencyLists, seeds, value,
                                parent, rule, levels):
        """:meth:`invalidate`, keeping, in the first ``levels`` levels below the seeds
        (an array, or :class:`Counted`; repeats allowed), the vertices that
        another valid in-neighbour holds at the same value.

        Before a candidate ``v`` (a seed, or a child of an invalidated vertex)
        is invalidated, its list in ``pull_adj`` is searched for a ``u`` that
        is not invalidated, with ``value[u]`` reachable, strictly better than
        ``value[v]``, and ``rule.extend(value[u], w) == value[v]``; if one is
        found, ``parent[v] = u`` and ``v`` keeps its value (it is *kept*).
        Strictly better values cannot come from ``v``'s own subtree, so no
        parent cycle forms; a kept vertex whose new parent is invalidated
        later becomes a candidate again.  Only kept vertices' parents change.
        A candidate is marked invalid while it waits, so the vertices of one
        level do not keep each other (a conservative choice: the caller
        recomputes whatever is invalidated).

        Meant for rules where ties are common (BFS hop counts): a deleted
        tree edge then invalidates only the vertices whose distance really
        grows, not the whole subtree.  Candidates left after ``levels``
        levels are invalidated with their subtrees as :meth:`invalidate`
        does.  Two host synchronisations (counted) while the levels stay
        narrow (one block runs them all on the GPU: one read of its results,
        one of the invalidated vertices); on the GPU a wider level costs one
        each.  Returns ``(invalidated, examined,
        edges_read)``: each vertex once in ``invalidated``; ``examined`` holds
        every candidate (so every kept one, whose parent changed), repeats
        allowed.
        """

    def l1_deviation(self, values, index, weights=None, divisor=None):
        """``sum(|x - sum(x) * p|)`` over ``x = values[index]``, as a Python float.

        ``p = weights[index] / divisor`` (``weights``: float64, per entry of
        ``values``; ``divisor``: their sum over ``index``), or, without
        ``weights``, ``1 / len(x)``: ``x``'s L1 deviation from its mean.
        ``index`` is an int64 array or a slice.  One host read: PageRank's
        error bound (``PageRankEngine.error_bound``) after every round.

        >>> import numpy as np
        >>> from cugraph_stream.backends import get_backend
        >>> ops = get_backend("cpu")
        >>> ops.l1_deviation(np.array([1.0, 2.0, 6.0]), slice(0, 3))              # mean 3
        6.0
        >>> ops.l1_deviation(np.array([1.0, 2.0, 6.0]), np.array([0, 2]), np.array([1.0, 0.0, 3.0]), 4.0)
        1.5
        """
        xp = self.xp
        x = values[index]
        if x.size == 0:
            return 0.0
        if weights is None:
            deviation = xp.abs(x - x.mean()).sum()
        else:
            deviation = xp.abs(x - x.sum() * (weights[index] / divisor)).sum()
        return self.host_floats(deviation)[0]

    def masked_sums(self, values, index, mask=None):
        """``[sum(values[index]), sum(values[index][mask])]`` as Python floats, in one
        host read: PageRank's ``sum(p)`` and ``D(p)`` (``mask``: the dangling
        vertices, a bool per entry of ``index``; None: the second sum is 0).
        ``index`` is an int64 array or a slice.

        >>> import numpy as np
        >>> from cugraph_stream.backends import get_backend
        >>> get_backend("cpu").masked_sums(np.array([1.0, 2.0, 4.0]), slice(1, 3), np.array([False, True]))
        [6.0, 4.0]
        """
        xp = self.xp
        x = values[index]
        if mask is None:
            return self.host_floats(x.sum()) + [0.0]
        return self.host_floats(x.sum(), xp.where(mask, x, 0.0).sum())

    def deviation_and_sums(self, values, sums_of, index, mask=None, weights=None, divisor=None):
        """:meth:`l1_deviation` of ``values`` and :meth:`masked_sums` of ``sums_of``
        over the same ``index``, in one host read: ``[deviation, sum, masked
        sum]``.  PageRank's error bound with the exact ``sum(p)`` and ``D(p)``
        it divides by (``PageRankEngine.error_bound`` given the dangling flags).

        >>> import numpy as np
        >>> from cugraph_stream.backends import get_backend
        >>> get_backend("cpu").deviation_and_sums(np.array([1.0, 2.0, 6.0]), np.array([1.0, 2.0, 4.0]),
        ...                                       slice(0, 3), np.array([False, True, True]))
        [6.0, 7.0, 6.0]
        """
        return [self.l1_deviation(values, index, weights, divisor)] + self.masked_sums(sums_of, index, mask)

    @abc.abstractmethod
    def gather_plan(self, adj: AdjacencyLists, vertices, weighted=False):
        """Prepare :meth:`gather_sum` over the lists of ``vertices`` (reused while ``adj`` is unchanged);
        ``weighted``: each neighbour's value is multiplied by the arc's weight (read from the lists)."""

    @abc.abstractmethod
    def gather_sum(self, plan, values):
        """For each vertex of the plan, the sum of ``values`` over its neighbours
        (of ``weight * values[neighbour]`` with a weighted plan).

        A pull-based sparse matrix-vector product (no atomics).  Returns
        ``(sums, edges_read)``.
        """

    def pagerank_spread(self, plan, shift, teleport, factor, dangling, rank, residual, share, index, rounds=1,
                        alpha=0.0, divisor=1.0):
        """Dense PageRank rounds (``PageRankEngine._spread``): push the amount
        ``a[k] = residual[v] + shift * teleport[v]`` (``teleport`` None: ``+
        shift``) at every vertex ``v = index[k]`` at once, pulled over the
        in-lists of ``plan``; ``rounds`` such rounds back to back.

        A round: ``rank[index] += a``; ``share[index] = a * factor``
        (``factor``: ``alpha / T(u)``, 0 at a dangling vertex); then
        ``residual[index] += gather_sum(plan, share) - a``.  ``plan`` is
        :meth:`gather_plan` of the in-adjacency over the vertices of ``index``
        (an int64 array, or a slice) in its order; ``dangling`` flags the
        dangling ones.  Each round after the first adds ``(alpha * (the
        dangling vertices' sum of a) + (1 - alpha) * sum(a)) / divisor`` of
        the round before to ``shift``: PageRank's teleport share ``g v`` with
        ``g = alpha * D(p) + (1 - alpha) * sum(p)`` follows the rounds
        without the host reading their sums.  Returns ``(sums, edges read)``:
        ``sums.get()`` gives ``[sum of a, sum of a at dangling vertices]``
        over all rounds as Python floats, read from a device with the next
        operator that waits for it (no wait of its own unless ``get()`` comes
        first: a :class:`Known` value on the CPU).

        >>> import numpy as np
        >>> from cugraph_stream.backends import get_backend
        >>> from cugraph_stream.engine.adjacency import Adjacency
        >>> ops = get_backend("cpu")
        >>> inn = Adjacency(ops, np.float32, with_twin=False)           # in-lists: 0 -> 1, 1 -> 0
        >>> inn.ensure_vertices(2)
        >>> _ = inn.build(np.array([0, 1]), np.array([1, 0]), np.ones(2, np.float32))
        >>> rank, residual, share = np.zeros(2), np.array([0.5, -0.25]), np.zeros(2)
        >>> sums, read = ops.pagerank_spread(ops.gather_plan(inn, np.arange(2)), 0.25, None, np.array([0.5, 0.0]),
        ...                                  np.array([False, True]), rank, residual, share, slice(0, 2))
        >>> sums.get(), read, rank.tolist(), residual.tolist()
        ([0.75, 0.0], 2, [0.75, 0.0], [-0.25, 0.125])
        """
        added = held = 0.0
        read = 0
        for _ in range(rounds):
            amount = residual[index] + (shift if teleport is None else shift * teleport[index])
            round_added, round_held = self.masked_sums(amount, slice(0, amount.size), dangling)
            rank[index] += amount
            share[index] = amount * factor
            received, round_read = self.gather_sum(plan, share)
            residual[index] += received - amount
            added, held, read = added + round_added, held + round_held, read + round_read
            shift += (alpha * round_held + (1.0 - alpha) * round_added) / divisor
        return Known([added, held]), read

    def pagerank_correct_arcs(self, rank, residual, degree, inserted_u, inserted_v, deleted_u, deleted_v,
                              alpha):
        """Unweighted PageRank's residual corrections for a batch that inserted the arcs
        ``inserted_u -> inserted_v`` and deleted ``deleted_u -> deleted_v``
        (distinct arcs), ``degree`` the out-degrees after it: :meth:`pagerank_correct`
        with each arc gaining 1 or -1 and each source's out-degree before the batch
        recovered from them.  Returns ``(sources, sums)``: the distinct sources (in
        any order) and :meth:`pagerank_correct`'s sums (one host read).

        >>> import numpy as np
        >>> from cugraph_stream.backends import get_backend
        >>> rank, residual = np.array([1.0, 1.0, 1.0]), np.zeros(3)
        >>> # vertex 0 (out-arcs to 1 and 2 before) loses the one to 1
        >>> sources, sums = get_backend("cpu").pagerank_correct_arcs(
        ...     rank, residual, np.array([1, 0, 0]), np.zeros(0, np.int64), np.zeros(0, np.int64),
        ...     np.array([0]), np.array([1]), 0.5)
        >>> sources.tolist(), sums, rank.tolist(), residual.tolist()
        ([0], [-0.5, 0.0, 0.0], [0.5, 1.0, 1.0], [0.5, -0.25, 0.0])
        """
        xp = self.xp
        arc_u = xp.concatenate((inserted_u, deleted_u))
        if not arc_u.size:
            return arc_u.astype(xp.int64), [0.0, 0.0, 0.0]
        arc_v = xp.concatenate((inserted_v, deleted_v))
        gain = xp.concatenate((xp.ones(inserted_u.size, dtype=xp.float64),
                               -xp.ones(deleted_u.size, dtype=xp.float64)))
        sources = xp.sort(self.unique(arc_u, rank.size))
        at = xp.searchsorted(sources, arc_u)
        change = xp.zeros(sources.size, dtype=xp.float64)
        self.scatter_add(change, at, gain)
        t_new = degree[sources].astype(xp.float64)
        return sources, self.pagerank_correct(rank, residual, sources, t_new - change, t_new, at, arc_v, gain,
                                              alpha)

    def pagerank_correct(self, rank, residual, sources, t_old, t_new, at, arc_v, gain, alpha):
        """PageRank's residual corrections for a batch's changed arcs (``PageRankEngine.correct``).

        ``sources`` are the batch's distinct arc sources, whose out-totals
        (out-degrees, or weighted out-weight totals, float64) went from
        ``t_old`` to ``t_new``; arc ``k`` leaves ``sources[at[k]]`` for
        ``arc_v[k]`` and gained ``gain[k]`` of weight (``-1`` for a removed
        arc unweighted).  Each arc's end receives ``alpha * rank[u] / T(u)``
        per unit gained (``T`` the old total, the new one where the old is 0;
        nothing where both are 0); then a source keeping out-arcs has its
        rank rescaled by ``t_new / t_old``, the difference taken from its
        residual.  Returns ``(sum of rank added, rank of sources that became
        dangling, rank of sources that stopped being dangling)`` as Python
        floats (one host read; the ranks as they were before the rescale).

        >>> import numpy as np
        >>> from cugraph_stream.backends import get_backend
        >>> rank, residual = np.array([1.0, 1.0, 1.0]), np.zeros(3)
        >>> # vertex 0 (2 out-arcs before) gains an arc to 2: 2 -> 3 arcs
        >>> get_backend("cpu").pagerank_correct(rank, residual, np.array([0]), np.array([2.0]), np.array([3.0]),
        ...                                     np.array([0]), np.array([2]), np.array([1.0]), 0.5)
        [0.5, 0.0, 0.0]
        >>> rank.tolist(), residual.tolist()
        ([1.5, 1.0, 1.0], [-0.5, 0.0, 0.25])
        """
        xp = self.xp
        before = rank[sources]
        # what u sent per unit of weight before; kept neighbours keep getting it
        base = xp.where(t_old > 0, t_old, t_new)
        per_unit = xp.where(base > 0, alpha * before / xp.where(base > 0, base, 1.0), 0.0)
        self.scatter_add(residual, arc_v, per_unit[at] * gain)
        rescale = (t_old > 0) & (t_new > 0)
        after = xp.where(rescale, before * (t_new / xp.where(t_old > 0, t_old, 1.0)), before)
        rank[sources] = after
        residual[sources] += before - after
        return self.host_floats((after - before).sum(), xp.where((t_new == 0) & (t_old > 0), before, 0.0).sum(),
                                xp.where((t_old == 0) & (t_new > 0), before, 0.0).sum())

    @abc.abstractmethod
    def pagerank_push(self, adj: AdjacencyLists, active, amount, rank, residual, alpha, out_weight=None):
        """Forward push of ``amount[i]`` at each ``active[i]`` (distinct vertices).

        ``rank[u] += amount``, ``residual[u] -= amount``, and
        ``alpha * amount / degree[u]`` goes to each out-neighbour's residual;
        with ``out_weight`` (per vertex, float64: the sum ``W(u)`` of ``u``'s
        out-weights), ``alpha * amount * w(u, v) / W(u)`` goes to each
        out-neighbour ``v`` instead, nothing where ``W(u) == 0``.
        Returns ``(receivers, edges_read)``: the distinct vertices that
        received residual (with weights: every out-neighbour, zero-weight arcs too).
        """


_count_calls(Backend)


class ArcTableBuilder:
    """Fills an empty arc index table over several calls (see
    :meth:`Backend.arc_table_builder`).

    :meth:`enter` takes distinct arcs absent from the table; :attr:`table`
    is where they are until :meth:`finish` (the one ``arc_find`` should
    probe meanwhile); :meth:`finish` makes the real table hold them all.
    Given a ``working`` table (empty, of the target's size and dtype), the
    builder enters the arcs there and :meth:`finish` copies it whole over
    the target, which then need not be empty beforehand
    (:attr:`copies_whole_table`).

    Examples
    --------
    >>> import numpy as np
    >>> from cugraph_stream.backends import get_backend
    >>> ops = get_backend("cpu", compiled=False)
    >>> table = np.full(1024, EMPTY_SLOT, dtype=SLOT_DTYPE)
    >>> builder = ops.arc_table_builder(table)
    >>> builder.enter(np.array([1 << 32 | 2]), np.array([7]))
    >>> builder.enter(np.array([3 << 32 | 0]), np.array([9]))
    >>> builder.finish()
    >>> sorted(table[table < DELETED_SLOT].tolist())
    [7, 9]
    """

    def __init__(self, ops, table, working=None):
        self.ops = ops
        self.target = table
        self.table = table if working is None else working
        self._empty = True

    def enter(self, keys, slots):
        """Enter distinct arcs ``keys`` (int64), absent so far, at ``slots``."""
        if keys.size == 0:
            return
        if self._empty:         # the whole-table build is the faster one where it applies
            self.ops.arc_build(self.table, keys, slots)
        else:
            self.ops.arc_claim(self.table, keys, slots)
        self._empty = False

    @property
    def copies_whole_table(self):
        """Whether :meth:`finish` writes every position of the target table (the
        builder has a working table of its own): the target's contents before
        do not matter, and filling it with EMPTY_SLOT first is wasted work."""
        return self.table is not self.target

    def finish(self):
        """Make the target table hold every arc entered."""
        if self.copies_whole_table:
            self.target[...] = self.table
            self.table = self.target
