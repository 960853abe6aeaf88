"""Open-addressing hash index from arc keys ``(u, v)`` to int64 values (the time window's).

It answers "is ``u -> v`` present, and what does it map to?" in O(1) per arc
(the time window keeps each live edge's last insert time in one).  The store
maps arcs to their slots with the leaner
:class:`~cugraph_stream.engine.arc_index.ArcIndex`, whose keys are implicit in
the adjacency; both probe linearly from the same home of a key.  Deleted
entries become tombstones that later insertions reuse; the table is rebuilt
when entries and tombstones fill 5/8 of it, so memory stays bounded under a
stream that inserts and deletes the same edges forever, and rebuilt smaller
(:meth:`EdgeIndex.fit`) once its entries fill less than 1/8 of it.
"""
from __future__ import annotations

import numpy as np

from ..backends.base import DELETED_KEY as DELETED
from ..backends.base import EMPTY_KEY as EMPTY
from .journal import Journal

MIN_CAPACITY = 1024


def arc_key(xp, u, v):
    """One non-negative int64 key per arc ``u -> v`` of internal ids below 2**31."""
    return (u.astype(xp.int64, copy=False) << 32) | v.astype(xp.int64, copy=False)


class EdgeIndex:
    """Map arc keys (see :func:`arc_key`) to integer values of ``value_dtype``.

    ``memory`` is the memory of the table (see ``Backend.aligned_empty``);
    changes are recorded in ``journal`` (the store's; a private one by default).

    Examples
    --------
    >>> import numpy as np
    >>> from cugraph_stream.backends import get_backend
    >>> index = EdgeIndex(get_backend("cpu"))
    >>> index.insert(np.array([7, 42]), np.array([0, 1]))
    >>> index.get(np.array([42, 5])).tolist()
    [1, -1]
    """

    def __init__(self, ops, capacity=MIN_CAPACITY, memory="device", journal=None, value_dtype=np.int64):
        self.ops = ops
        self.memory = memory
        self.journal = Journal() if journal is None else journal
        self.live = 0
        self.deleted = 0          # tombstones: an upper bound, made exact when it matters (_reserve)
        self.keys = self.values = None
        self.value_dtype = np.dtype(value_dtype)
        self._allocate(capacity)

    def _allocate(self, capacity):
        xp = self.ops.xp
        keys = self.ops.aligned_empty(capacity, xp.int64, memory=self.memory)
        keys.fill(EMPTY)
        self.journal.assign(self, "keys", keys)
        self.journal.assign(self, "values", self.ops.aligned_empty(capacity, self.value_dtype, memory=self.memory))

    @property
    def capacity(self):
        return int(self.keys.size)

    def get(self, keys):
        """Values of ``keys`` (int64); -1 where a key is absent."""
        xp = self.ops.xp
        pos = self.ops.hash_find(self.keys, keys)
        return xp.where(pos >= 0, self.values[xp.maximum(pos, 0)].astype(xp.int64), -1)

    def locate(self, keys):
        """Table positions of ``keys``, all present (their values are ``values[positions]``)."""
        return self.ops.hash_find(self.keys, keys)

    def insert(self, keys, values):
        """Add distinct ``keys``, all absent, with their ``values``."""
        if keys.size == 0:
            return
        self._reserve(int(keys.size))
        pos, replaced = self.ops.hash_claim(self.keys, keys)
        self.journal.saved(self.keys, pos, replaced)
        # a position may hold a key erased earlier in the same transaction: its value comes back too
        self.journal.write(self.values, pos, values)
        self.journal.assign(self, "live", self.live + int(keys.size))
        # ``deleted`` stays an upper bound: tombstones the keys reused are counted by _reserve

    def build(self, keys, values, room=0):
        """Fill an empty index with distinct ``keys`` at once (bulk load),
        sized for ``room`` more keys."""
        if self.live or self.deleted:
            raise ValueError("EdgeIndex.build needs an empty index")
        self._allocate(self._capacity_for(int(keys.size) + room))
        if keys.size:
            self.values[self.ops.hash_build(self.keys, keys)] = values
        self.journal.assign(self, "live", int(keys.size))

    def erase(self, keys, positions=None):
        """Remove ``keys``, all present (at ``positions``, from :meth:`locate`, when given)."""
        if keys.size == 0:
            return
        pos = self.locate(keys) if positions is None else positions
        self.journal.write(self.keys, pos, DELETED)
        self.journal.assign(self, "live", self.live - int(keys.size))
        self.journal.assign(self, "deleted", self.deleted + int(keys.size))

    @staticmethod
    def _capacity_for(entries):
        """Power of two with room for ``entries`` at a load of at most 1/2."""
        capacity = MIN_CAPACITY
        while capacity < 2 * entries:
            capacity *= 2
        return capacity

    def _reserve(self, extra):
        """Rebuild (without tombstones, larger if needed) before entries and
        tombstones would fill 5/8 of the table."""
        if 8 * (self.live + self.deleted + extra) > 5 * self.capacity:
            # ``deleted`` counts tombstones made, not those reused since: count them
            (deleted,) = self.ops.host_ints((self.keys == DELETED).sum())
            self.journal.assign(self, "deleted", deleted)
            if 8 * (self.live + self.deleted + extra) > 5 * self.capacity:
                self._rebuild(extra)

    def fit(self):
        """Rebuild a table whose entries fill less than 1/8 of it at the size they need
        (a quarter to half full).  Returns whether it did.

        >>> import numpy as np
        >>> from cugraph_stream.backends import get_backend
        >>> index = EdgeIndex(get_backend("cpu"))
        >>> index.insert(np.arange(10_000), np.arange(10_000))
        >>> index.erase(np.arange(100, 10_000))
        >>> index.capacity, index.fit(), index.capacity, index.get(np.array([7, 500])).tolist()
        (32768, True, 1024, [7, -1])
        """
        if self.capacity <= MIN_CAPACITY or 8 * self.live >= self.capacity:
            return False
        self._rebuild(0)
        return True

    def _rebuild(self, extra):
        """The table afresh, without tombstones, sized for its entries and ``extra`` more."""
        xp = self.ops.xp
        held = xp.flatnonzero(self.keys >= 0)
        keys, values = self.keys[held], self.values[held]
        self.journal.assign(self, "live", 0)
        self.journal.assign(self, "deleted", 0)
        self.build(keys, values, room=extra)

    def memory_bytes(self):
        return self.ops.memory_bytes(self.keys, self.values)
