"""One direction of the graph: a CSR with gaps (PMA-style), updated in place.

Vertex ``u``'s neighbours are ``nbr[start[u]:start[u] + degree[u]]``; the
list owns ``capacity[u]`` slots.  Capacities come in size classes
(:func:`list_room`): powers of two below :attr:`Adjacency.align` slots (one
128-byte unit of the widest slot array), whole units from there, and every
list starts at a multiple of its class (the slot arrays are page-aligned).
So a small list never straddles a 128-byte boundary and a large one starts
on one: a GPU warp reads any list in the fewest 128-byte transactions, while
the many short lists of a power-law graph hold a few slots, not a whole unit.
A bulk load or a compaction lays lists out largest class first
(:func:`layout`), which keeps every start aligned without padding between
them; a list that outgrows its room moves to the end, into the size class of
1.5x what it needs, the lists that move together laid out largest class
first too (``Backend.plan_moves``).

Updates are vertex-centric: rows are grouped by their owning vertex and each
touched list is changed once.  Insertions append into the gap; a list that
outgrows its capacity moves to the end with about 1.5x room.  Deletions fill their
holes with the list's last entries (order within a list is not kept).  The
space left behind by moved lists is counted as garbage; once garbage exceeds
the live region the whole adjacency is compacted, which bounds memory under
any stream.

Every operation that moves entries returns a :class:`Moves` record so that
whoever indexes slots (the edge hash index, the mirror adjacency's twin
pointers) can follow them.

Every change is journaled (see :mod:`cugraph_stream.engine.journal`) with
pre-images of what it overwrites inside the lists.  Slots past a list's
degree need none, with one exception that :meth:`Adjacency.remove` covers:
the tail a deletion vacates was part of the list before the batch, and a
later insertion of the same batch writes there.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from ..backends.base import (MIN_LIST_SLOTS, SLOT_DTYPE, MovePlan, Placement, Replaced,  # noqa: F401 (re-exported)
                             list_room)
from .growth import GROWTH_DIVISOR, ensure_vertex_capacity, fit_vertex_capacity
from .journal import Journal

ALIGN_BYTES = 128
#: an adjacency compacts once its garbage exceeds both its live slots and this many slots
MIN_COMPACT_SLOTS = 64 * 1024
#: a bulk load or a compaction leaves the slot arrays 1/END_ROOM longer than the lists
#: need (at most END_ROOM_MAX_SLOTS longer: :func:`end_room`), so the first lists that
#: outgrow their room move without growing the arrays
END_ROOM = 8
#: the room a batch's relocations take grows with the batch, not with the graph: at
#: R-MAT scale 22 a batch of a million new random edges took 1.9M slots past the end
#: in each adjacency (CPU, 2026-11-28)
END_ROOM_MAX_SLOTS = 1 << 24
#: slot pointers (twins here, the arc index's entries) are 4-byte SLOT_DTYPE, so
#: one adjacency holds at most this many slots
MAX_SLOTS = int(np.iinfo(SLOT_DTYPE).max)


@dataclass
class Moves:
    """Entries moved from slot ``source[i]`` to ``target[i]``; ``owner[i]`` owns the list."""

    owner: object
    source: object
    target: object

    @property
    def size(self):
        return int(self.target.size)


class PendingAppend(NamedTuple):
    """An :meth:`Adjacency.append` whose lists without room are not read yet."""

    #: ``(owners, neighbours, weights)`` in the order they were placed
    rows: tuple
    #: the order that sorted the rows by owner (None: as given)
    order: Any
    #: each row's slot, in ``rows``' order (-1 while its list lacks room)
    slots: Any
    placement: Placement


class Relocation(NamedTuple):
    """Lists that outgrew their room and the plan of their move (:meth:`Adjacency.plan_append`)."""

    vertices: Any
    plan: MovePlan

    def read(self, count, room_total, moved, released):
        """A relocation planned ahead (:meth:`Adjacency.plan_ahead`, on a bound of
        lists) once its count of lists and its totals are read: trimmed to
        them, or None where no list outgrew its room."""
        if not count:
            return None
        return Relocation(self.vertices[:count], self.plan.read(room_total, moved, released, count=count))


def read_plans(ops, relocations):
    """``relocations`` (each a :class:`Relocation` or None) with their plans' totals
    read in one synchronisation."""
    counts = [count for relocation in relocations if relocation is not None for count in relocation.plan.counts]
    if not counts:
        return relocations
    totals = iter(ops.read_counts(*counts))
    return [None if r is None else r._replace(plan=r.plan.read(next(totals), next(totals), next(totals)))
            for r in relocations]


def end_room(slots):
    """Slots a bulk load or a compaction leaves past ``slots`` laid-out ones: an
    eighth (:data:`END_ROOM`), at most :data:`END_ROOM_MAX_SLOTS`.

    At R-MAT scale 24 (263M edges) an eighth was 1.8 of the 40 bytes per edge
    the store held after a load (issue 19's bound), room for thousands of
    10,000-row batches' relocations.

    >>> end_room(800), end_room(1 << 30) == END_ROOM_MAX_SLOTS
    (100, True)
    """
    return min(slots // END_ROOM, END_ROOM_MAX_SLOTS)


def load_room(xp, degree, align):
    """Room a bulk load or a compaction gives lists of ``degree`` entries: the size
    class of one entry more, plus an eighth up to one 128-byte unit of ``align`` slots.

    The first batches mostly append in place, as with the 1.25x of the degree
    this replaces, at 1.29 slots owned per arc instead of 1.45 (R-MAT scale
    18; 10 batches of 10,000 rows relocated 53 lists and 56 entries per
    batch instead of 104 and 50).  Hubs hold most arcs of a power-law graph,
    so headroom proportional to their degree was most of the slack.

    An empty list gets no room (a vertex without out-edges is common).

    >>> import numpy as np
    >>> load_room(np, np.array([0, 1, 3, 4, 100, 1000]), 32).tolist()
    [0, 4, 4, 8, 128, 1056]
    """
    return list_room(xp, xp.where(degree > 0, degree + 1 + xp.minimum(degree // 8, align), 0), align)


def layout(xp, room, base, align):
    """Starts of lists of capacities ``room`` (from :func:`list_room`) laid
    out from slot ``base`` (a multiple of ``align``), and the slots they span.

    Largest class first, so every list starts at a multiple of its class (or
    of ``align``) with no padding between lists; the span is rounded up to
    ``align``, so the next layout starts aligned too.

    >>> starts, span = layout(np, np.array([4, 32, 0, 8, 16]), 64, 32)
    >>> starts.tolist(), span
    ([120, 64, 124, 112, 96], 64)
    """
    order = xp.argsort(-room, kind="stable")
    ends = xp.cumsum(room[order])
    starts = xp.empty_like(room)
    starts[order] = base + ends - room[order]
    total = int(ends[-1]) if ends.size else 0
    return starts, total + (-total) % align


class Adjacency:
    """Gapped CSR of one direction; see the module docstring.

    Parameters
    ----------
    ops : Backend
        Operators of the device holding the arrays.
    weight_dtype : dtype
        dtype of the edge weights.
    with_twin : bool
        Keep a per-slot ``twin`` pointer to the same edge's slot in the
        mirror adjacency (directed graphs keep out- and in-adjacency).
    memory : {"device", "host"}
        Memory of the slot arrays (see ``Backend.aligned_empty``); the
        per-vertex arrays stay in device memory.
    journal : Journal, optional
        Where changes are recorded (the store's); a private one by default.

    Examples
    --------
    >>> import numpy as np
    >>> from cugraph_stream.backends import get_backend
    >>> adj = Adjacency(get_backend("cpu"), np.float32, with_twin=False)
    >>> adj.ensure_vertices(3)
    >>> slots, _ = adj.append(np.array([2, 0, 2]), np.array([1, 2, 0]), np.array([1., 2., 3.]))
    >>> sorted(adj.neighbors(2).tolist())
    [0, 1]
    >>> int(adj.start[2]) % int(adj.capacity[2])       # a list starts at a multiple of its class
    0
    """

    def __init__(self, ops, weight_dtype, with_twin, memory="device", journal=None):
        xp = ops.xp
        self.ops = ops
        self.journal = Journal() if journal is None else journal
        self.memory = memory
        self.weight_dtype = np.dtype(weight_dtype)
        self.with_twin = with_twin
        self.align = max(ALIGN_BYTES // 4, ALIGN_BYTES // self.weight_dtype.itemsize)
        self.start = xp.zeros(0, dtype=xp.int64)
        self.degree = xp.zeros(0, dtype=xp.int64)
        self.capacity = xp.zeros(0, dtype=xp.int64)
        initial = 4 * self.align
        self.nbr = self._slots(initial, xp.int32)
        self.wgt = self._slots(initial, self.weight_dtype)
        self.twin = self._slots(initial, SLOT_DTYPE) if with_twin else None
        self.end = 0          # slots handed out so far (live lists and garbage)
        self.garbage = 0      # slots of lists that moved or were released
        # the cache of hot lists (placement "cached"), or None
        self.cache = None
        # changes whenever a list may start elsewhere (in the slot arrays or in
        # the cache), so operators know when addresses derived from it are stale
        self.version = 0

    # ---------------------------------------------------------------- sizing
    @property
    def slot_capacity(self):
        return int(self.nbr.size)

    @property
    def across_the_bus(self):
        """Whether the slot arrays are host memory that a device reads in place
        (placement ``host``): scattered writes to them cross the bus one by one,
        so bulk writes are laid out in device memory and copied."""
        return self.memory == "host" and self.ops.has_device_memory

    def ensure_vertices(self, n):
        """Make the per-vertex arrays hold at least ``n`` vertices."""
        self.version += 1
        ensure_vertex_capacity(self.ops.xp, self, ("start", "degree", "capacity"), n, self.journal)

    def fit_vertices(self, n):
        """Fit the per-vertex arrays to ``n`` vertices (see :func:`fit_vertex_capacity`)."""
        if not fit_vertex_capacity(self.ops.xp, self, ("start", "degree", "capacity"), n, self.journal):
            return False
        self.version += 1
        return True

    def _slots(self, n, dtype):
        return self.ops.aligned_empty(n, dtype, memory=self.memory)

    def _ensure_slots(self, n):
        """Make the slot arrays hold at least ``n`` slots: an eighth more than now
        (:data:`~cugraph_stream.engine.growth.GROWTH_DIVISOR`) or ``n``, whichever
        is more.  By half (until 2026-11-28), a batch of a million new random
        edges into R-MAT scale 22 left 2.04 slots per arc where its lists
        reached 1.44; by an eighth, 1.53."""
        have = self.slot_capacity
        if n <= have:
            return
        limit = self._slot_limit()
        if n > limit:
            raise MemoryError(f"one adjacency holds at most {limit:,} slots (4-byte slot pointers); "
                              f"this change needs {n:,}")
        self.version += 1
        size = max(n, have + have // GROWTH_DIVISOR, 4 * self.align)
        size = min(size + (-size) % self.align, limit)
        for name, dtype in (("nbr", self.ops.xp.int32), ("wgt", self.weight_dtype), ("twin", SLOT_DTYPE)):
            old = getattr(self, name)
            if old is None:
                continue
            grown = self._slots(size, dtype)
            grown[: self.end] = old[: self.end]
            self.journal.assign(self, name, grown)

    def _slot_limit(self):
        """The most slots the arrays may have: whole alignment units of pointable slots."""
        return MAX_SLOTS - MAX_SLOTS % self.align

    def build(self, src, dst, w, src_sorted=True):
        """Fill an empty adjacency from arcs ``src -> dst`` (bulk load): each list
        holds its arcs in their order; ``src_sorted``: ``src`` is ascending.

        Lists get the size class :func:`load_room` gives their degree (laid out by
        :func:`layout`) and the slot arrays :func:`end_room` more at the end, so
        the first batches relocate outgrown lists without growing the arrays.
        Returns each arc's slot.
        """
        if self.end:
            raise ValueError("Adjacency.build needs an empty adjacency")
        return self.build_range(src, dst, w, 0, int(self.start.size), src_sorted)

    def load_bound(self, degree_bound):
        """Slots the lists of a bulk load in ranges take at most, when no vertex has
        more arcs than ``degree_bound`` (per vertex; repeated edges not removed
        yet): reserve them with :meth:`reserve_load` before the first
        :meth:`build_range`."""
        return int(load_room(self.ops.xp, degree_bound, self.align).sum())

    def reserve_load(self, slots, ranges):
        """Allocate the slot arrays once for a bulk load in ``ranges`` ranges of lists
        that need at most ``slots`` slots (:meth:`load_bound`), instead of
        growing them range by range (a copy of everything laid out so far)."""
        total = slots + ranges * self.align        # (each range's span is rounded up to align)
        self._ensure_slots(total + end_room(total))

    def build_range(self, src, dst, w, lo, hi, src_sorted=True):
        """Lay out the lists of vertices ``lo <= u < hi`` after those laid out so far
        (bulk load, one range of vertices after another) from their arcs ``src ->
        dst``, each list holding its arcs in their order (``src_sorted``: ``src``
        is ascending); return each arc's slot."""
        xp = self.ops.xp
        local = src - lo
        degree = xp.bincount(local, minlength=hi - lo) if src.size else xp.zeros(hi - lo, dtype=xp.int64)
        room = load_room(xp, degree, self.align)
        start, span = layout(xp, room, self.end, self.align)
        self._ensure_slots(self.end + span + end_room(span))     # (no growth after reserve_load)
        slots = self.ops.slots_in_lists(local, start, owners_sorted=src_sorted)
        self._write_span(self.end, span, slots, dst, w)
        for name, values in (("start", start), ("degree", degree), ("capacity", room)):
            self.journal.write(getattr(self, name), slice(lo, hi), values)
        self.journal.assign(self, "end", self.end + span)
        self.journal.assign(self, "garbage", self.garbage + span - int(room.sum()))     # the padding at the end
        self.version += 1
        return slots

    def _write_span(self, base, span, slots, nbr, wgt):
        """Write entries into slots ``base <= slot < base + span``, past the old end
        (no pre-image needed).  Slot arrays in host memory that a device reads
        in place are written by one sequential copy of the span, laid out in
        device memory first: scattered writes across the bus took most of a
        host-placement load."""
        if not self.across_the_bus:
            self.nbr[slots], self.wgt[slots] = nbr, wgt
            return
        xp = self.ops.xp
        for target, values in ((self.nbr, nbr), (self.wgt, wgt)):
            block = xp.zeros(span, dtype=target.dtype)      # (padding: zero, as fresh host pages are)
            block[slots - base] = values
            target[base:base + span] = block

    # --------------------------------------------------------------- reading
    def slots_of(self, vertices):
        """``(slots, owners)``: every slot of the lists of ``vertices``."""
        return self.ops.expand_segments(self.start[vertices], self.degree[vertices])

    def neighbors(self, u):
        """Neighbours of one vertex (a convenience for tests and docs)."""
        s, d = int(self.start[u]), int(self.degree[u])
        return self.nbr[s:s + d]

    # -------------------------------------------------------------- updating
    def append(self, u, v, w):
        """Append entries ``v`` (weights ``w``) to the lists of ``u``.

        Returns ``(slots, moves)``: the slot of each new entry, and the
        entries that moved because their list outgrew its capacity (or None).
        Two adjacencies updated together wait for the device twice, not
        four times: :meth:`begin_append` both, read the counts of their
        :class:`~cugraph_stream.backends.base.Placement`, :meth:`plan_append`
        both, :func:`read_plans` of both, then :meth:`finish_append` both.
        """
        pending = self.begin_append(u, v, w)
        if pending is None:
            return self.ops.xp.empty(0, dtype=self.ops.xp.int64), None
        (plan,) = read_plans(self.ops, [self.plan_append(pending, *self.ops.read_counts(pending.placement.count))])
        return self.finish_append(pending, plan)

    def begin_append(self, u, v, w):
        """Place the entries whose lists have room, without waiting for the device;
        returns the :class:`PendingAppend` for :meth:`finish_append` (None if no entry)."""
        xp = self.ops.xp
        if u.size == 0:
            return None
        sort = u.size > 1 and not self.ops.place_entries_any_order     # (one entry needs no sort)
        order = xp.argsort(u) if sort else None
        rows = (u, v, w) if order is None else (u[order], v[order], w[order])
        self.journal.checkpoint()
        return self._pending(rows, order, self.ops.place_entries(self, *rows, degrees=self.journal.recording))

    @staticmethod
    def begin_append_arcs(adjacencies, u, v, w):
        """:meth:`begin_append` of the arcs ``u -> v`` in ``adjacencies[0]`` and,
        where a second adjacency is given, of their reverses ``v -> u`` in it,
        in one operator call (:meth:`~cugraph_stream.backends.base.Backend.place_arcs`;
        on the GPU one launch for both).  Returns a :class:`PendingAppend`
        per adjacency (None each if there are no arcs)."""
        first = adjacencies[0]
        arcs = ((u, v, w), (v, u, w))
        if u.size == 0 or not first.ops.place_entries_any_order:    # (each adjacency sorts its rows by owner)
            return [adj.begin_append(*rows) for adj, rows in zip(adjacencies, arcs)]
        first.journal.checkpoint()
        placements = first.ops.place_arcs(adjacencies, u, v, w, degrees=first.journal.recording)
        return [adj._pending(rows, None, placement) for adj, rows, placement in zip(adjacencies, arcs, placements)]

    def _pending(self, rows, order, placement):
        """The :class:`PendingAppend` of ``placement`` of ``rows`` (in ``order``), its
        degrees' pre-images journaled: entries land past the degree (see remove)."""
        if placement.old_degree is not None:
            self.journal.saved(self.degree, rows[0], placement.old_degree)
        return PendingAppend(rows, order, placement.slots, placement)

    def plan_append(self, pending, outgrown_count):
        """Plan the move of the lists that outgrew their room (``outgrown_count``: the
        count of ``pending.placement``, read on the host), without waiting for the
        device; returns the :class:`Relocation` (None if every list had room),
        whose totals :func:`read_plans` reads."""
        if not outgrown_count:
            return None
        vertices, need = pending.placement.read(outgrown_count)
        return Relocation(vertices, self.ops.plan_moves(self, vertices, need, self.end, self.align))

    def plan_ahead(self, pending):
        """Plan the move of the lists that outgrew their room before their count is
        read (on the placement's count, wherever it is; a device plans from it
        there), so that one read brings the count and the plan's totals: the
        :class:`Relocation` of a bound of lists, for :meth:`Relocation.read`
        with both, or None where the count is known to be 0."""
        placement = pending.placement
        if isinstance(placement.count, (int, np.integer)) and not placement.count:
            return None
        return Relocation(placement.outgrown, self.ops.plan_moves(self, placement.outgrown, placement.need, self.end,
                                                                  self.align, count=placement.count))

    def finish_append(self, pending, relocation):
        """Move the lists that outgrew their room (``relocation``, from
        :meth:`plan_append` and read by :func:`read_plans`; None if none) and
        place their entries; returns :meth:`append`'s ``(slots, moves)``."""
        moves = None
        if relocation is not None:
            moves = self._move_lists(*relocation)
            # (the degrees' pre-images are saved above: the rollback restores them last; the
            # relocation gave each list room for its rows, so nothing reads this placement)
            self.ops.place_entries(self, *pending.rows, pending.slots, must_fit=True, kept=pending.placement.kept)
        if pending.order is None:
            return pending.slots, moves
        slots = self.ops.xp.empty_like(pending.slots)
        slots[pending.order] = pending.slots
        return slots, moves

    def _relocate(self, vertices, need):
        """Move the lists of ``vertices`` to fresh space at the end (size classes laid
        out so that every start stays aligned; see ``Backend.plan_moves``)."""
        (relocation,) = read_plans(self.ops, [Relocation(vertices, self.ops.plan_moves(self, vertices, need,
                                                                                         self.end, self.align))])
        return self._move_lists(*relocation)

    def _move_lists(self, vertices, plan):
        """Move the lists of ``vertices`` as ``plan`` (a read
        :class:`~cugraph_stream.backends.base.MovePlan` from this end) lays them out."""
        self._ensure_slots(self.end + plan.room_total)
        journal = self.journal                  # the lists move past the end: the old slots stay as they were
        journal.checkpoint()
        journal.saved(self.start, vertices, plan.old_start)
        journal.saved(self.capacity, vertices, plan.old_capacity)
        moves = Moves(*self.ops.move_lists(self, vertices, plan.new_start, plan.room, plan.first, plan.moved))
        journal.assign(self, "garbage", self.garbage + plan.released)
        journal.assign(self, "end", self.end + plan.room_total)
        self.version += 1
        return moves

    def remove(self, u, slots):
        """Remove the entries at ``slots`` (owned by ``u``; distinct).

        Each list closes its holes with its own last entries.  Returns the
        :class:`Moves` of those entries (None if no slot).  Two adjacencies
        updated together read their moves in one synchronisation:
        :meth:`begin_remove` both, read the counts of their
        :class:`~cugraph_stream.backends.base.RemovedEntries`, then
        :meth:`finish_remove` both.

        Journaled: the removed entries and the degrees before the call, and
        the entries that moved, which stay where they were but are now past
        the degree, where an insertion of the same batch may write.
        """
        removed = self.begin_remove(u, slots)
        if removed is None:
            return None
        return self.finish_remove(removed, *self.ops.read_counts(removed.count))

    def begin_remove(self, u, slots):
        """Remove the entries, without waiting for the device, and journal the removed
        entries and the degrees; returns the ``RemovedEntries`` for
        :meth:`finish_remove` (None if no slot)."""
        if slots.size == 0:
            return None
        keep = self.journal.recording
        if keep:
            self.journal.checkpoint()
        # the operator reads the pre-images as it writes (one pass over the slots, not two)
        return self._journaled(self.ops.remove_entries(self, u, slots, keep))

    @staticmethod
    def begin_remove_arcs(adjacencies, owners, slots):
        """:meth:`begin_remove` of ``slots[k]`` (owned by ``owners[k]``, as many in
        each) from ``adjacencies[k]``, in one operator call
        (:meth:`~cugraph_stream.backends.base.Backend.remove_arcs`; on the GPU
        one launch for both, for a few rows).  Returns a ``RemovedEntries`` per
        adjacency (None each if there are no slots)."""
        first = adjacencies[0]
        if slots[0].size == 0:
            return [None] * len(adjacencies)
        keep = first.journal.recording
        if keep:
            first.journal.checkpoint()
        removed = first.ops.remove_arcs(adjacencies, owners, slots, keep)
        return [adj._journaled(r) for adj, r in zip(adjacencies, removed)]

    def _journaled(self, removed):
        """``removed`` (a ``RemovedEntries`` of this adjacency), the pre-images of its
        removed entries and degrees journaled where it kept them (the journal
        records), and those of the entries that moved into the holes: an
        insertion launched before their count is read writes past the degrees,
        over their sources, so a rollback puts them back itself, reading the
        count then."""
        if removed.lists is not None:
            arrays = (self.nbr, self.wgt, self.twin)
            for array, values in zip(arrays, removed.removed):
                if array is not None:
                    self.journal.saved(array, removed.slots, values)
            self.journal.saved(self.degree, removed.lists, removed.degree)
            # (the moved entries' values at their sources, their count read at a rollback)
            self.journal.replaced(arrays, Replaced(removed.source, removed.moved, removed.count))
        return removed

    def finish_remove(self, removed, moved_count):
        """The :class:`Moves` of ``removed``, ``moved_count`` of them (read on the host)."""
        removed = removed.read(moved_count)
        return Moves(removed.owner, removed.source, removed.target)

    def release(self, vertices):
        """Give the (empty) lists of removed ``vertices`` back as garbage."""
        self.journal.assign(self, "garbage", self.garbage + int(self.capacity[vertices].sum()))
        self.journal.write(self.capacity, vertices, 0)
        self.journal.write(self.degree, vertices, 0)

    def needs_compaction(self):
        return self.garbage > max(self.end - self.garbage, MIN_COMPACT_SLOTS)

    def compact(self):
        """Rewrite every list contiguously (the size class :func:`load_room` gives its
        degree, laid out by :func:`layout`); returns the :class:`Moves`."""
        xp = self.ops.xp
        vertices = xp.flatnonzero(self.degree > 0)
        degree = self.degree[vertices]
        room = load_room(xp, degree, self.align)
        new_start, total = layout(xp, room, 0, self.align)
        old, owner = self.slots_of(vertices)
        new = new_start[owner] + (old - self.start[vertices][owner])
        size = max(total + end_room(total), 4 * self.align)
        size = min(size + (-size) % self.align, self._slot_limit())
        for name, dtype in (("nbr", xp.int32), ("wgt", self.weight_dtype), ("twin", SLOT_DTYPE)):
            arr = getattr(self, name)
            if arr is None:
                continue
            fresh = self._slots(size, dtype)
            fresh[new] = arr[old]
            self.journal.assign(self, name, fresh)
        start, capacity = xp.zeros_like(self.start), xp.zeros_like(self.capacity)
        start[vertices], capacity[vertices] = new_start, room
        self.journal.write(self.start, slice(None), start)
        self.journal.write(self.capacity, slice(None), capacity)
        self.journal.assign(self, "end", total)
        self.journal.assign(self, "garbage", total - int(room.sum()))     # the padding at the end
        self.version += 1
        return Moves(vertices[owner], old, new)

    def memory_bytes(self):
        return self.ops.memory_bytes(self.start, self.degree, self.capacity, self.nbr, self.wgt, self.twin)
