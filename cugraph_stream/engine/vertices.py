"""Vertex lifecycle: external int64 ids to dense internal ids, with id reuse.

External ids are arbitrary int64 values.  Internal ids are dense, so every
per-vertex array of the engine is indexed directly; an internal id freed by
vertex removal is handed to the next new vertex (last freed, first reused).
Freed ids above the highest live one are given up instead, so the vertex
bound (and every per-vertex array sized by it) comes back down when a graph
shrinks.
Lookups use a sorted copy of the live external ids (binary search), which
also gives results in vertex order for free.  Backends that ask for it
(``ops.dense_vertex_map``: both) also keep a dense map, indexed by
external id, while the external ids are non-negative and no larger than a
few times the vertex count (integer ids numbered from zero, and every key
encoded by :mod:`cugraph_stream.frame.keys` as dense codes): a lookup is then
one read instead of a binary search (:meth:`VertexTable.lookup_index` gives
the backend's lookups either).  While the dense map answers the
lookups, the vertices a batch adds wait apart and are merged into the sorted
copy (a pass over every vertex) only when something reads the order
(:meth:`VertexTable.sorted_ids`) or they pass an eighth of the live ones: at
R-MAT scale 20 that merge was 1.7 ms of every 10,000-row batch on the CPU.
"""
from __future__ import annotations

from .growth import ensure_vertex_capacity, fit_vertex_capacity
from .journal import Journal

#: the dense map covers external ids below ``DENSE_MAP_SLACK * live vertices + DENSE_MAP_MIN``;
#: an id beyond gives the map up (lookups go back to binary searches) until a restore
DENSE_MAP_SLACK = 4
DENSE_MAP_MIN = 1 << 16
#: added vertices wait apart from the sorted ids (with the dense map) until they are more
#: than this share of the live ones, or this many: then :meth:`VertexTable.add` merges them
#: (a pass over every vertex per ``PENDING_SHARE`` of new ones: amortised, a few per vertex)
PENDING_SHARE = 1 / 8
PENDING_MIN = 1 << 16


class VertexTable:
    """Live vertices and the external/internal id mapping.

    Examples
    --------
    >>> import numpy as np
    >>> from cugraph_stream.backends import get_backend
    >>> vt = VertexTable(get_backend("cpu"))
    >>> vt.add(np.array([-5, 2**62])).tolist()
    [0, 1]
    >>> vt.lookup(np.array([2**62, 3])).tolist()
    [1, -1]
    >>> vt.remove(np.array([0]))
    >>> vt.add(np.array([9])).tolist()        # id 0 is reused
    [0]
    >>> vt.remove(np.array([1])); vt.size     # the top id is given up
    1
    """

    #: ``dense[x]``: the internal id of external id ``x`` (-1 for none), for every
    #: ``0 <= x < dense.size``, as int32 (internal ids stay below 2**31, see
    #: :func:`~cugraph_stream.engine.hash_index.arc_key`: half the cache footprint of
    #: int64); no live vertex has an external id outside; None where
    #: the backend keeps no dense map or the ids outgrew it (a class default, so
    #: tables pickled before it existed read None)
    dense = None
    #: the vertices added since the sorted arrays were last merged (kept apart while
    #: the dense map answers lookups): the first ``_pending_count`` entries of the
    #: ``_pending`` pair of buffers ``(external, internal)``, which grow by doubling
    #: (an add writes past the count: no pre-image) and are dropped, not reused, by a
    #: merge (so a rollback finds its buffer as it was); class defaults, so tables
    #: pickled before they existed read none
    _pending = None
    _pending_count = 0

    def __init__(self, ops, journal=None):
        xp = ops.xp
        self.ops = ops
        self.journal = Journal() if journal is None else journal
        self.external = xp.empty(0, dtype=xp.int64)   # external id of each internal id
        self.alive = xp.zeros(0, dtype=bool)
        self.size = 0                                 # internal ids handed out so far
        self.count = 0                                # live vertices
        self.free = xp.empty(0, dtype=xp.int64)       # freed internal ids, reused last-in first-out
        self._sorted_external = xp.empty(0, dtype=xp.int64)
        self._sorted_internal = xp.empty(0, dtype=xp.int64)
        if ops.dense_vertex_map:
            self.dense = xp.empty(0, dtype=xp.int32)

    def __setstate__(self, state):
        # (tables pickled before the sorted arrays became private)
        for name in ("sorted_external", "sorted_internal"):
            if name in state:
                state["_" + name] = state.pop(name)
        self.__dict__.update(state)

    def sorted_ids(self):
        """``(sorted_external, sorted_internal)``: the live vertices' external ids,
        ascending, and their internal ids, the vertices added last merged in
        first (journaled, when a transaction is open).

        >>> import numpy as np
        >>> from cugraph_stream.backends import get_backend
        >>> vt = VertexTable(get_backend("cpu"))
        >>> _ = vt.add(np.array([8, 9])); _ = vt.add(np.array([3]))
        >>> [ids.tolist() for ids in vt.sorted_ids()]
        [[3, 8, 9], [2, 0, 1]]
        """
        if self._pending_count:
            xp, n = self.ops.xp, self._pending_count
            external, internal = (buffer[:n] for buffer in self._pending)
            order = xp.argsort(external)        # (each add's ids ascend, several adds' need not)
            merged = self.ops.merge_sorted(self._sorted_external, self._sorted_internal, external[order],
                                           internal[order])
            self.journal.assign(self, "_sorted_external", merged[0])
            self.journal.assign(self, "_sorted_internal", merged[1])
            self.journal.assign(self, "_pending", None)
            self.journal.assign(self, "_pending_count", 0)
        return self._sorted_external, self._sorted_internal

    def _room_apart(self, k):
        """Room for ``k`` more vertices kept apart from the sorted ids (see
        :attr:`_pending`): ``(external, internal, at)``, the two buffers (grown
        where needed) and where the new ones go, for ``Backend.enter_vertices``."""
        xp, n = self.ops.xp, self._pending_count
        if self._pending is None or n + k > self._pending[0].size:
            size = max(2 * (n + k), 1024)
            grown = tuple(xp.empty(size, dtype=xp.int64) for _ in range(2))
            for new, old in zip(grown, self._pending or ()):
                new[:n] = old[:n]
            self.journal.assign(self, "_pending", grown)
        return self._pending + (n,)

    def lookup_index(self):
        """What the backend's lookups of vertices by external id read, as their
        ``(keys, values)`` (``Backend.lookup_sorted``): ``(dense, None)`` while
        the dense map answers, else :meth:`sorted_ids`.

        >>> import numpy as np
        >>> from cugraph_stream.backends import get_backend
        >>> vt = VertexTable(get_backend("cpu"))
        >>> _ = vt.add(np.array([2, 4]))
        >>> dense, values = vt.lookup_index()
        >>> dense.tolist()[:5], values
        ([-1, -1, 0, -1, 1], None)
        """
        return (self.dense, None) if self.dense is not None else self.sorted_ids()

    def lookup(self, external):
        """Internal ids of ``external`` ids; -1 where a vertex does not exist."""
        return self.ops.lookup_sorted(*self.lookup_index(), external)

    def lookup_rows(self, src, dst, codes):
        """The vertices of a batch's rows: ``(ids, missing)``, the internal ids of
        ``src`` then ``dst`` (-1 where absent) and the external ids absent on
        insert rows (op ``codes`` equal to
        :data:`~cugraph_stream.backends.rows.INSERT`; repeats kept, in no
        order).  One synchronisation.

        >>> import numpy as np
        >>> from cugraph_stream.backends import get_backend
        >>> from cugraph_stream.backends.rows import DELETE, INSERT
        >>> vt = VertexTable(get_backend("cpu"))
        >>> _ = vt.add(np.array([4, 8]))
        >>> ids, missing = vt.lookup_rows(np.array([8, 6]), np.array([5, 4]), np.array([INSERT, DELETE]))
        >>> ids.tolist(), missing.tolist()
        ([1, -1, -1, 0], [5])
        """
        return self.ops.lookup_rows(*self.lookup_index(), src, dst, codes)

    def find_rows(self, src, dst, codes):
        """:meth:`lookup_rows` without waiting for the device: ``missing`` is a
        :class:`~cugraph_stream.backends.base.Counted` whose count stays where
        it was made (see ``net_changes``' ``unresolved``).

        >>> import numpy as np
        >>> from cugraph_stream.backends import get_backend
        >>> from cugraph_stream.backends.rows import INSERT
        >>> vt = VertexTable(get_backend("cpu"))
        >>> _ = vt.add(np.array([4, 8]))
        >>> ids, missing = vt.find_rows(np.array([8]), np.array([5]), np.array([INSERT]))
        >>> ids.tolist(), missing.count
        ([1, -1], 1)
        """
        return self.ops.find_rows(*self.lookup_index(), src, dst, codes)

    def lookup_again(self, external, found, added_external, added_internal):
        """:meth:`lookup` of ``external`` after :meth:`add`, given ``found``, its
        result before the add, and the add's ids: only the queries not found
        before are looked up again (in the dense map), or, without one, searched
        for among the ids added.

        >>> import numpy as np
        >>> from cugraph_stream.backends import get_backend
        >>> vt = VertexTable(get_backend("cpu"))
        >>> _ = vt.add(np.array([4, 8]))
        >>> queries = np.array([8, 5, 6]); found = vt.lookup(queries)
        >>> new = np.array([5]); vt.lookup_again(queries, found, new, vt.add(new)).tolist()
        [1, 2, -1]
        """
        index = (self.dense, None) if self.dense is not None else (added_external, added_internal)
        return self.ops.lookup_missing(*index, external, found)

    def _dense_room(self, external, lowest=None, highest=None):
        """The dense map, grown to hold ``external`` ids (ascending, from ``lowest`` to
        ``highest``: read here where not given), or None where there is none or
        an id falls outside its range (then it is given up, journaled)."""
        if self.dense is None:
            return None
        if lowest is None:
            lowest, highest = (int(x) for x in self.ops.to_host(external[[0, -1]]))
        limit = DENSE_MAP_SLACK * (self.count + int(external.size)) + DENSE_MAP_MIN
        if lowest < 0 or highest >= limit:
            self.journal.assign(self, "dense", None)
            return None
        if highest >= self.dense.size:
            grown = self.ops.xp.full(min(limit, max(highest + 1, 2 * int(self.dense.size))), -1,
                                     dtype=self.ops.xp.int32)
            grown[: self.dense.size] = self.dense
            self.journal.assign(self, "dense", grown)
        return self.dense

    def add(self, external, lowest=None, highest=None):
        """Create vertices for absent ``external`` ids (ascending, distinct); return their
        internal ids.  ``lowest`` and ``highest``: the first and the last of
        ``external`` where the caller read them already
        (``Backend.sorted_distinct_range``); the dense map reads them otherwise."""
        xp, journal = self.ops.xp, self.journal
        k = int(external.size)
        if k == 0:
            return xp.empty(0, dtype=xp.int64)
        reused = min(k, int(self.free.size))
        freed = self.free[self.free.size - reused:][::-1]       # (reused last freed first)
        first = self.size                       # (the first fresh id)
        journal.assign(self, "free", self.free[: self.free.size - reused])
        journal.assign(self, "size", self.size + k - reused)
        ensure_vertex_capacity(xp, self, ("external", "alive"), self.size, journal)
        dense = self._dense_room(external, lowest, highest)
        # lookups read the dense map: the order can wait, the new ids held apart
        held = (self._room_apart(k) if dense is not None
                and self._pending_count + k <= max(PENDING_SHARE * self.count, PENDING_MIN) else None)
        # the freed ids, then fresh ones; one operator call writes them everywhere
        # (the held-apart buffers past their count: no pre-image)
        internal, (old_external, old_alive, old_dense) = self.ops.enter_vertices(
            external, freed, first, self.external, self.alive, dense, held)
        # (fresh or freed internal ids, distinct external ones)
        journal.exchanged((self.external, internal, old_external), (self.alive, internal, old_alive),
                          *[(dense, external, old_dense)] * (dense is not None))
        if held is not None:
            journal.assign(self, "_pending_count", self._pending_count + k)
        else:                   # (the vertices held apart merged first, then these: sorted already)
            sorted_external, sorted_internal = self.ops.merge_sorted(*self.sorted_ids(), external, internal)
            journal.assign(self, "_sorted_external", sorted_external)
            journal.assign(self, "_sorted_internal", sorted_internal)
        journal.assign(self, "count", self.count + k)
        return internal

    def remove(self, internal):
        """Delete live vertices ``internal`` (distinct); their ids become reusable."""
        xp, journal = self.ops.xp, self.journal
        if internal.size == 0:
            return
        sorted_external, sorted_internal = self.sorted_ids()
        keep = xp.ones(self.count, dtype=bool)
        keep[xp.searchsorted(sorted_external, self.external[internal])] = False
        journal.write(self.alive, internal, False)
        if self.dense is not None:
            journal.write(self.dense, self.external[internal], -1)
        free = xp.concatenate((self.free, internal))
        if bool((internal == self.size - 1).any()):       # the top id went: lower the bound
            live = xp.flatnonzero(self.alive[: self.size])
            bound = int(live[-1]) + 1 if live.size else 0
            free = free[free < bound]
            journal.assign(self, "size", bound)
        journal.assign(self, "free", free)
        journal.assign(self, "_sorted_external", sorted_external[keep])
        journal.assign(self, "_sorted_internal", sorted_internal[keep])
        journal.assign(self, "count", self.count - int(internal.size))

    def fit(self):
        """Shrink the per-vertex arrays to the bound (see :func:`fit_vertex_capacity`)."""
        return fit_vertex_capacity(self.ops.xp, self, ("external", "alive"), self.size, self.journal)

    def memory_bytes(self):
        return self.ops.memory_bytes(self.external, self.alive, self.free, self._sorted_external,
                                     self._sorted_internal, self.dense, *(self._pending or ()))

    def restore(self, internal, external, size, free):
        """Fill an empty table with a saved state (a checkpoint): live vertices
        ``internal`` (distinct) with their ``external`` ids (distinct), the bound
        ``size`` and the free ids ``free`` in reuse order (the last is reused first).

        Every id below ``size`` must be live or free, once: the state
        :meth:`add` and :meth:`remove` keep.  Raises ``ValueError`` otherwise.

        >>> import numpy as np
        >>> from cugraph_stream.backends import get_backend
        >>> vt = VertexTable(get_backend("cpu"))
        >>> vt.restore(np.array([2, 0]), np.array([-7, 2**63 - 1]), 4, np.array([3, 1]))
        >>> vt.lookup(np.array([2**63 - 1, -7])).tolist(), vt.add(np.array([5, 6])).tolist()
        ([0, 2], [1, 3])
        """
        xp = self.ops.xp
        if self.size or self.count:
            raise ValueError("VertexTable.restore needs an empty table")
        internal = self.ops.asarray(internal, dtype=xp.int64)
        external = self.ops.asarray(external, dtype=xp.int64)
        free = xp.array(self.ops.asarray(free, dtype=xp.int64))       # an own copy: add() slices it
        size = int(size)
        if internal.shape != external.shape:
            raise ValueError(f"{internal.size} internal ids but {external.size} external ids")
        owned = xp.concatenate((internal, free))
        if owned.size and (int(owned.min()) < 0 or int(owned.max()) >= size):
            raise ValueError(f"an internal id lies outside 0 .. {size - 1}")
        if int(owned.size) != size or (size and not bool((xp.bincount(owned, minlength=size) == 1).all())):
            raise ValueError(f"the live and free internal ids do not cover 0 .. {size - 1} once each")
        order = xp.argsort(external)
        sorted_external = external[order]
        if sorted_external.size > 1 and bool((sorted_external[1:] == sorted_external[:-1]).any()):
            raise ValueError("two vertices share an external id")
        ensure_vertex_capacity(xp, self, ("external", "alive"), size)
        self.external[internal] = external
        self.alive[internal] = True
        if self.ops.dense_vertex_map:
            self.dense = xp.empty(0, dtype=xp.int32)
            dense = self._dense_room(sorted_external) if sorted_external.size else None
            if dense is not None:
                dense[sorted_external] = internal[order]
        self.size, self.count, self.free = size, int(internal.size), free
        self._sorted_external, self._sorted_internal = sorted_external, internal[order]
