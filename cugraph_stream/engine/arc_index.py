"""The arc index: from an arc ``u -> v`` of the out-adjacency to its slot, in 4 bytes.

It answers "is ``u -> v`` present, and where?" in O(1) per arc, which keeps
batch reduction, deletions and weight updates independent of vertex degrees
(a hub's list is never scanned to find one of its edges).

The table stores slots only; an arc's key is implicit in the adjacency.  Arc
``u -> v`` is probed linearly from the home of its key ``u << 32 | v`` (as
:class:`~cugraph_stream.engine.hash_index.EdgeIndex` probes), and a position
holding slot ``s`` is the arc's when ``s`` lies in ``u``'s list and
``nbr[s] == v``: a list owns its slots, so no other arc can pass that test.
This needs 4 bytes per table position where a table of explicit 8-byte keys
and 4-byte slots needs 12, and the table takes any size (a key's home is the
high half of its hash times the size), so a build leaves it :data:`BUILD_LOAD`
full instead of a quarter to half full as a power of two would.

Two consequences shape the store's order of work:

* a lookup reads the adjacency, so the index must agree with it: the store
  enters new arcs after placing them and erases deleted ones (by position,
  found before) before they leave their lists;
* when entries move, :meth:`ArcIndex.repoint` finds each moved arc's position
  by its old slot (a table holds each slot at most once), before any is
  rewritten, then writes the new slots, journaled like any write.

Deleted entries become tombstones that later insertions reuse; the table is
rebuilt from the adjacency when entries and tombstones would fill
:data:`MAX_LOAD` of it, so memory stays bounded under a stream that inserts
and deletes the same edges forever, and rebuilt smaller
(:meth:`ArcIndex.fit`) once its entries fill less than 1/8 of it.
"""
from __future__ import annotations

import numpy as np

from ..backends.base import DELETED_SLOT, EMPTY_SLOT, SLOT_DTYPE
from .hash_index import arc_key
from .journal import Journal

MIN_CAPACITY = 1024
#: how full a build (bulk load, rebuild) leaves the table: 4 / 0.55 = 7.3 bytes per arc
BUILD_LOAD = 0.55
#: how full entries and tombstones may make it before a rebuild (linear probing
#: then visits about 6 positions, 24 bytes, to find an arc absent)
MAX_LOAD = 0.7


class ArcIndex:
    """Map the arcs of ``adjacency`` (an out-adjacency) to their slots.

    ``memory`` is the memory of the table (see ``Backend.aligned_empty``);
    changes are recorded in ``journal`` (the store's; a private one by default).

    Examples
    --------
    >>> import numpy as np
    >>> from cugraph_stream.backends import get_backend
    >>> from cugraph_stream.engine.adjacency import Adjacency
    >>> ops = get_backend("cpu")
    >>> out = Adjacency(ops, np.float32, with_twin=False)
    >>> out.ensure_vertices(3)
    >>> u, v = np.array([0, 0, 2]), np.array([1, 2, 0])
    >>> slots = out.build(u, v, np.ones(3, dtype=np.float32))
    >>> index = ArcIndex(ops, out)
    >>> index.build(arc_key(np, u, v), slots)
    >>> index.get(arc_key(np, np.array([0, 2, 1]), np.array([2, 0, 0]))).tolist() == [slots[1], slots[2], -1]
    True
    """

    def __init__(self, ops, adjacency, capacity=MIN_CAPACITY, memory="device", journal=None):
        self.ops = ops
        self.adjacency = adjacency
        self.memory = memory
        self.journal = Journal() if journal is None else journal
        self.live = 0
        self.deleted = 0          # tombstones: an upper bound, made exact when it matters (_reserve)
        self.table = None
        self._allocate(capacity)

    def _allocate(self, capacity, empty=True):
        """A new table of ``capacity`` positions, every one EMPTY_SLOT where ``empty``,
        else uninitialised (for a build that fills it: :meth:`begin_build`)."""
        table = self.ops.aligned_empty(capacity, SLOT_DTYPE, memory=self.memory)
        if empty:
            table.fill(EMPTY_SLOT)
        self.journal.assign(self, "table", table)

    @property
    def capacity(self):
        return int(self.table.size)

    def locate(self, keys):
        """Table positions of arcs ``keys`` (int64); -1 where absent."""
        return self.ops.arc_find(self.table, self.adjacency, keys)

    def slots_at(self, positions):
        """The slots at table ``positions`` (all holding arcs, from :meth:`locate`), as int64."""
        return self.ops.take(self.table, positions, self.ops.xp.int64)

    def get(self, keys):
        """Slots of arcs ``keys``; -1 where absent."""
        xp = self.ops.xp
        at = self.locate(keys)
        return xp.where(at >= 0, self.slots_at(xp.maximum(at, 0)), -1)

    def insert(self, keys, slots):
        """Enter distinct arcs ``keys``, absent from the index but already placed in
        the adjacency at ``slots``."""
        if keys.size == 0:
            return
        if self._reserve(int(keys.size)):
            return                    # rebuilt from the adjacency, which holds them
        positions, replaced = self.ops.arc_claim(self.table, keys, slots)
        self.journal.saved(self.table, positions, replaced)
        self.count_entered(int(keys.size))

    def count_entered(self, count):
        """Count ``count`` arcs entered into the table (by :meth:`insert`, or by an
        operator that claimed their positions itself)."""
        self.journal.assign(self, "live", self.live + count)
        # ``deleted`` stays an upper bound: tombstones the keys reused are counted by _reserve

    def build(self, keys, slots, room=0):
        """Fill an empty index with distinct arcs ``keys`` at ``slots`` at once (bulk
        load), sized for ``room`` more."""
        builder = self.begin_build(int(keys.size) + room)
        builder.enter(keys, slots)
        self.finish_build(builder, int(keys.size))

    def begin_build(self, entries):
        """Start filling an empty index sized for ``entries`` arcs (a bulk load in
        ranges): enter arcs with the returned builder's ``enter(keys, slots)``
        (its ``table`` is where they are meanwhile), then :meth:`finish_build`.

        The new table is filled with EMPTY_SLOT only where the builder enters
        arcs into it; one that builds in a working table of its own and
        copies it whole (``copies_whole_table``: a GPU build of a table in
        host memory) leaves it uninitialised until :meth:`finish_build`, so
        a build abandoned midway must be rolled back (as a transaction does).
        """
        if self.live or self.deleted:
            raise ValueError("ArcIndex.build needs an empty index")
        self._allocate(self._capacity_for(entries), empty=False)
        builder = self.ops.arc_table_builder(self.table)
        if not builder.copies_whole_table:
            self.table.fill(EMPTY_SLOT)
        return builder

    def finish_build(self, builder, entered):
        """End a build begun by :meth:`begin_build`: the table holds the ``entered`` arcs."""
        builder.finish()
        self.journal.assign(self, "live", int(entered))

    def erase_entries(self, positions):
        """Remove the arcs at table ``positions`` (from :meth:`locate`; distinct) and
        take their entries: returns ``(slots, weights, twins)`` as
        ``Backend.arc_erase`` gives them (one operator call)."""
        slots, weights, twins = self.ops.arc_erase(self.table, self.adjacency, positions)
        self.journal.exchanged((self.table, positions, slots))        # (distinct arcs' positions)
        self.count_erased(int(positions.size))
        return slots, weights, twins

    def count_erased(self, count):
        """Count ``count`` arcs erased from the table (their positions made tombstones)."""
        self.journal.assign(self, "live", self.live - count)
        self.journal.assign(self, "deleted", self.deleted + count)

    def repoint(self, owners, old_slots, new_slots):
        """The entries of ``owners``' lists entered at ``old_slots`` now sit at
        ``new_slots`` (moved entries, distinct arcs; one operator call,
        ``arc_repoint``).

        Every position is found before any is written, so a move onto a slot
        that another moved arc leaves (a compaction) finds the right entries.
        """
        if new_slots.size == 0:
            return
        positions, previous = self.ops.arc_repoint(self.table, self.adjacency, owners, old_slots, new_slots)
        self.journal.exchanged((self.table, positions, previous))      # (distinct moved arcs' positions)

    @classmethod
    def bytes_for(cls, entries):
        """Bytes of a table built for ``entries`` arcs."""
        return cls._capacity_for(entries) * np.dtype(SLOT_DTYPE).itemsize

    @staticmethod
    def _capacity_for(entries):
        """Whole multiples of :data:`MIN_CAPACITY` positions that ``entries`` fill to
        :data:`BUILD_LOAD` at most."""
        units = -(-int(entries / BUILD_LOAD) // MIN_CAPACITY)
        return MIN_CAPACITY * max(units, 1)

    def has_room(self, extra):
        """Whether ``extra`` more arcs fit without a rebuild (entries and tombstones,
        the latter counted as an upper bound, within :data:`MAX_LOAD`)."""
        return self.live + self.deleted + extra <= MAX_LOAD * self.capacity

    def _reserve(self, extra):
        """Rebuild (without tombstones, larger if needed) before entries and
        tombstones would fill :data:`MAX_LOAD` of the table; return whether it did."""
        if self.has_room(extra):
            return False
        # ``deleted`` counts tombstones made, not those reused since: count them
        (deleted,) = self.ops.host_ints((self.table == DELETED_SLOT).sum())
        self.journal.assign(self, "deleted", deleted)
        if self.has_room(extra):
            return False
        self._rebuild()
        return True

    def fit(self):
        """Rebuild a table whose entries fill less than 1/8 of it at the size they need
        (:data:`BUILD_LOAD` full).  Returns whether it did.

        >>> import numpy as np
        >>> from cugraph_stream.backends import get_backend
        >>> from cugraph_stream.engine.adjacency import Adjacency
        >>> ops = get_backend("cpu")
        >>> out = Adjacency(ops, np.float32, with_twin=False)
        >>> out.ensure_vertices(10)
        >>> u = np.arange(10)
        >>> slots = out.build(u, 9 - u, np.ones(10, dtype=np.float32))
        >>> index = ArcIndex(ops, out)
        >>> index.build(arc_key(np, u, 9 - u), slots, room=10_000)      # sized for 10,010 arcs
        >>> found = index.get(arc_key(np, u, 9 - u))
        >>> index.capacity, index.fit(), index.capacity, bool((index.get(arc_key(np, u, 9 - u)) == found).all())
        (18432, True, 1024, True)
        """
        if self.capacity <= MIN_CAPACITY or 8 * self.live >= self.capacity:
            return False
        self._rebuild()
        return True

    def _rebuild(self):
        """The table afresh, without tombstones, from the arcs of the adjacency (which
        may hold arcs about to be inserted: they are entered too)."""
        xp, adjacency = self.ops.xp, self.adjacency
        slots, owner = adjacency.slots_of(xp.arange(adjacency.start.size, dtype=xp.int64))
        keys = arc_key(xp, owner, adjacency.nbr[slots])
        self.journal.assign(self, "live", 0)
        self.journal.assign(self, "deleted", 0)
        self.build(keys, slots)

    def memory_bytes(self):
        return self.ops.memory_bytes(self.table)
