"""NumPy operators: the CPU backend and the reference for every other backend."""
from __future__ import annotations

import os

import numpy as np
import pandas as pd

from ..arrays import is_cupy
from ..chunk_layout import read_ids, write_ids
from .base import (DELETED_SLOT, DEVICE_CALLS, EMPTY_KEY, EMPTY_SLOT, SLOT_DTYPE, Backend, Counted, Known, NetChanges,
                   Placement, Replaced, marks_fit, undo_removal)
from . import cpu_single_row
from .chunks import HostChunkAllocator
from .cpu_threads import both

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_EMPTY_INDEX = np.empty(0, dtype=np.int64)
_SORT_QUERIES_FROM = 2048     # lookup_sorted sorts this many queries or more first (into as many keys or more)
_DENSE_DISTINCT_FROM = 1 << 16  # sorted_distinct marks a bitmap from this many values on, where they are dense
_BOTTOM_UP_FIRST = 4          # in-list entries a bottom-up level checks first; then 8, 16, ... more
#: rows (in each adjacency) from which the compiled kernels remove or place a batch's entries
#: in the out- and the in-adjacency on two threads at once (cpu_threads.both).  On the
#: project's 2-core VM (benchmarks.ab_constants, R-MAT 16-18, SSSP) two threads cost
#: 6-10% of a batch at 3,000 rows a side, gained 0-4% at 5,000, 7% at 10,000, 12% at 50,000
_BOTH_ADJACENCIES_FROM = 4096


def _restore_degrees(adj, owners, old_degree):
    """Give the lists of ``owners`` their degrees ``old_degree`` (one per owner, as a
    placement keeps them where the journal records: ``degrees=True``; without
    them, nothing is journaled to restore either)."""
    if old_degree is not None:
        adj.degree[owners] = old_degree


def hash_slot(keys, bits):
    """Fibonacci hashing of non-negative int64 ``keys`` into ``2**bits`` slots."""
    with np.errstate(over="ignore"):
        return ((keys.astype(np.uint64) * _GOLDEN) >> np.uint64(64 - bits)).astype(np.int64)


def arc_home(keys, capacity):
    """Home of arcs ``keys`` in an arc-index table of ``capacity`` positions (any
    size): the high half of the 64-bit hash times the capacity (Lemire's
    multiply-shift range reduction; ``__umul64hi`` on the GPU)."""
    low, half = np.uint64(0xFFFFFFFF), np.uint64(32)
    with np.errstate(over="ignore"):
        h = keys.astype(np.uint64) * _GOLDEN
    c = np.uint64(capacity)
    h_lo, h_hi, c_lo, c_hi = h & low, h >> half, c & low, c >> half
    cross = ((h_lo * c_lo) >> half) + ((h_hi * c_lo) & low) + h_lo * c_hi
    return (h_hi * c_hi + ((h_hi * c_lo) >> half) + (cross >> half)).astype(np.int64)


def _next_position(slot, capacity):
    slot = slot + 1
    slot[slot == capacity] = 0
    return slot


def _load_kernels(compiled):
    """The compiled kernels (:mod:`.cpu_kernels`) wanted by ``compiled`` (see
    :class:`CPUBackend`), or None; numba is imported only when they are wanted."""
    if compiled is False or (compiled is None and os.environ.get("CUGRAPH_STREAM_CPU_KERNELS", "1").strip().lower()
                             in ("0", "false", "no", "off")):
        return None
    from . import cpu_kernels
    return cpu_kernels.load(compiled)


class CPUBackend(Backend):
    """Operators on NumPy arrays in host memory.

    Examples
    --------
    >>> import numpy as np
    >>> ops = CPUBackend()
    >>> pos, owner = ops.expand_segments(np.array([10, 40]), np.array([2, 3]))
    >>> pos.tolist(), owner.tolist()
    ([10, 11, 40, 41, 42], [0, 0, 1, 1, 1])

    ``compiled`` picks the operators' code: the numba kernels of
    :mod:`~cugraph_stream.backends.cpu_kernels` for the hottest operators
    (``None``, the default: where numba is importable, unless the
    environment variable ``CUGRAPH_STREAM_CPU_KERNELS`` is ``0``; ``True``:
    required) or NumPy only (``False``).  Results are the same either way.
    """

    name = "cpu"
    xp = np

    def __init__(self, compiled=None):
        self.kernels = _load_kernels(compiled)
        #: the compiled place_entries takes rows of any owner order
        self.place_entries_any_order = self.kernels is not None
        self.discard_scratch()

    @property
    def compiled(self):
        """Whether the compiled (numba) kernels run the hottest operators."""
        return self.kernels is not None

    @property
    def loads_kernels_lazily(self):
        return self.compiled            # (numba loads each from its disk cache on first call)

    def spare(self):
        return CPUBackend(compiled=self.compiled)

    def discard_scratch(self):
        # scratch arrays reused across calls; only positions written in a
        # call are read back, so they never need clearing (except the flags)
        self._stamp = np.empty(0, dtype=np.int64)
        self._flag = np.zeros(0, dtype=bool)
        # (compiled kernels: zero outside a call; one each for the two adjacencies placed at once)
        self._counts = [np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)]

    # ------------------------------------------------------------------ memory
    def asarray(self, array, dtype=None):
        if is_cupy(array):
            array = array.get()      # device arrays handed to the CPU engine
        return np.asarray(array, dtype=dtype)

    def to_host(self, array):
        return np.asarray(array)

    def aligned_empty(self, n, dtype, align=4096, memory="device"):
        dtype = np.dtype(dtype)
        nbytes = int(n) * dtype.itemsize
        buffer = np.empty(nbytes + align, dtype=np.uint8)
        offset = (-buffer.ctypes.data) % align
        return buffer[offset:offset + nbytes].view(dtype)

    def memory_bytes(self, *arrays):
        return int(sum(a.nbytes for a in arrays if a is not None))

    def chunk_allocator(self, capacity_bytes=None, **options):
        return HostChunkAllocator(capacity_bytes)

    # -------------------------------------------------------------- primitives
    def _scratch_stamp(self, bound):
        if self._stamp.size < bound:
            self._stamp = np.empty(max(int(bound), 2 * self._stamp.size), dtype=np.int64)
        return self._stamp

    def _scratch_flag(self, bound):
        if self._flag.size < bound:
            self._flag = np.zeros(max(int(bound), 2 * self._flag.size), dtype=bool)
        return self._flag

    def _scratch_counts(self, bound, which=0):
        count = self._counts[which]
        if count.size < bound:
            self._counts[which] = count = np.zeros(max(int(bound), 2 * count.size), dtype=np.int64)
        return count

    def expand_segments(self, starts, lengths):
        lengths = lengths.astype(np.int64, copy=False)
        if lengths.size == 0:
            return _EMPTY_INDEX, _EMPTY_INDEX
        ends = np.cumsum(lengths)
        total = int(ends[-1])
        if total == 0:
            return _EMPTY_INDEX, _EMPTY_INDEX
        owners = np.repeat(np.arange(lengths.size, dtype=np.int64), lengths)
        base = starts.astype(np.int64, copy=False) - (ends - lengths)
        return np.arange(total, dtype=np.int64) + base[owners], owners

    def unique(self, ids, bound):
        if ids.size < 2:
            return ids
        if ids.size < 64:
            return np.unique(ids)
        stamp = self._scratch_stamp(bound)
        order = np.arange(ids.size, dtype=np.int64)
        stamp[ids] = order
        return ids[stamp[ids] == order]

    def sorted_distinct(self, values):
        # Ids that are dense non-negative integers (most graphs) are marked in a
        # bitmap, which comes out sorted; others are sorted and their repeats
        # dropped (not np.unique: NumPy 2.4 hashes, then sorts, int64 values,
        # 0.6 ms for 10,000 and 1.8 s for 2M, against 0.1 and 14 ms).
        if values.size >= _DENSE_DISTINCT_FROM:
            low, high = (int(x) for x in (values.min(), values.max()))
            if marks_fit(low, high, values.size):
                present = np.zeros(high + 1, dtype=bool)
                present[values] = True
                return np.flatnonzero(present).astype(values.dtype, copy=False)
        values = np.sort(values)
        if values.size > 1:
            keep = np.empty(values.size, dtype=bool)
            keep[0] = True
            np.not_equal(values[1:], values[:-1], out=keep[1:])
            values = values[keep]
        return values

    def lookup_sorted(self, keys, values, queries):
        if values is None:
            return self.lookup_dense(keys, queries)
        if keys.size == 0:
            return np.full(queries.shape, -1, dtype=np.int64)
        if self.kernels is not None:
            found = self.kernels.lookup_sorted(keys, values, queries)
            if found is not None:
                return found
        if queries.size >= _SORT_QUERIES_FROM and keys.size >= _SORT_QUERIES_FROM:
            # binary searches in ascending order walk the keys in cache order: ~3x faster
            order = np.argsort(queries)
            pos = np.empty(queries.shape, dtype=np.intp)
            pos[order] = np.searchsorted(keys, queries[order])
        else:
            pos = np.searchsorted(keys, queries)
        pos = np.minimum(pos, keys.size - 1)
        return np.where(keys[pos] == queries, values[pos], -1)

    def lookup_dense(self, table, queries):
        if self.kernels is not None:
            return self.kernels.lookup_dense(table, queries)
        return super().lookup_dense(table, queries)

    def missing_ends(self, ids, ends, codes):
        if self.kernels is not None:        # (one pass; the array code is six NumPy calls)
            missing = self.kernels.missing_ends(ids, ends, codes)
            return Counted(missing, int(missing.size))
        return super().missing_ends(ids, ends, codes)

    def merge_sorted(self, keys, values, more_keys, more_values):
        if self.kernels is not None:
            return self.kernels.merge_sorted(keys, values, more_keys, more_values)
        at = np.searchsorted(keys, more_keys, side="right") + np.arange(more_keys.size)
        from_more = np.zeros(keys.size + more_keys.size, dtype=bool)
        from_more[at] = True
        merged_keys = np.empty(from_more.size, dtype=np.int64)
        merged_values = np.empty(from_more.size, dtype=np.int64)
        merged_keys[at], merged_values[at] = more_keys, more_values
        merged_keys[~from_more], merged_values[~from_more] = keys, values
        return merged_keys, merged_values

    def record_changes(self, forced, touched, value, parent, previous_value, previous_parent, alive,
                       with_parents, keep=False):
        if self.kernels is not None:
            changed, written = self.kernels.record_changes(forced, touched, value, parent, previous_value,
                                                           previous_parent, alive, with_parents,
                                                           self._scratch_flag(value.size), keep)
        else:
            # (everything read and made before the first write: a failure past it would
            # leave records changed that no pre-image covers)
            written = None
            touched = self.unique(touched, value.size)
            if keep:                            # the vertices whose records change, and what they held
                seen = self.unique(np.concatenate((forced, touched)), value.size)
                seen = seen[(value[seen] != previous_value[seen]) | (parent[seen] != previous_parent[seen])]
                written = (seen, previous_value[seen], previous_parent[seen])
            differs = value[touched] != previous_value[touched]
            if with_parents:
                differs |= parent[touched] != previous_parent[touched]
            changed = self.unique(np.concatenate((touched[differs], forced)), value.size)
            changed = changed[alive[changed]]
            values = [(vertices, value[vertices], parent[vertices]) for vertices in (touched, forced)]
            for vertices, new_value, new_parent in values:
                previous_value[vertices] = new_value
                previous_parent[vertices] = new_parent
        changed = Counted(changed, int(changed.size))
        if not keep:
            return changed
        return changed, Replaced(written[0], written[1:], int(written[0].size))

    def factorize(self, values):
        codes, uniques = pd.factorize(values, sort=False)
        return np.asarray(uniques, dtype=values.dtype), codes.astype(np.int64, copy=False)

    def scatter_add(self, target, index, values):
        if index.size > target.size // 4:
            target += np.bincount(index, weights=values, minlength=target.size)[: target.size]
        else:
            np.add.at(target, index, values)

    # -------------------------------------------------------------- hash index
    def hash_find(self, table, keys):
        if self.kernels is not None:
            return self.kernels.hash_find(table, keys)
        bits = table.size.bit_length() - 1
        mask = table.size - 1
        found = np.full(keys.size, -1, dtype=np.int64)
        pending = np.arange(keys.size, dtype=np.int64)
        slot = hash_slot(keys, bits)
        while pending.size:
            seen = table[slot]
            wanted = keys[pending]
            hit = seen == wanted
            found[pending[hit]] = slot[hit]
            go_on = ~hit & (seen != EMPTY_KEY)
            pending = pending[go_on]
            slot = (slot[go_on] + 1) & mask
        return found

    def hash_claim(self, table, keys):
        if self.kernels is not None:
            return self.kernels.hash_claim(table, keys)
        mask = table.size - 1
        placed = self._claim_rounds(table, hash_slot(keys, table.size.bit_length() - 1),
                                    lambda seen: seen < 0, lambda slot: (slot + 1) & mask)
        replaced = table[placed]
        table[placed] = keys
        return placed, replaced

    def _claim_rounds(self, table, slot, is_free, step):
        """Positions claimed by rows probing from ``slot``: each takes the first position
        whose entry ``is_free`` and that no other row took; ``step`` gives the next
        position.  The table is not written."""
        placed = np.empty(slot.size, dtype=np.int64)
        pending = np.arange(slot.size, dtype=np.int64)
        stamp = self._scratch_stamp(table.size)
        taken = self._scratch_flag(table.size)     # claimed by an earlier round
        while pending.size:
            free = np.flatnonzero(is_free(table[slot]) & ~taken[slot])
            # several rows may race for one free position: the last writer wins it
            stamp[slot[free]] = free
            won = free[stamp[slot[free]] == free]
            taken[slot[won]] = True
            placed[pending[won]] = slot[won]
            lost = np.ones(pending.size, dtype=bool)
            lost[won] = False
            pending = pending[lost]
            slot = step(slot[lost])
        taken[placed] = False
        return placed

    def hash_build(self, table, keys):
        if self.kernels is not None:
            return self.kernels.hash_build(table, keys)
        # Sorted by home slot, key i lands on max(home_i, position_{i-1} + 1):
        # a running maximum.  Runs stay contiguous from each key's home, so
        # linear probing finds every key; the few that run past the end of
        # the table are placed by ordinary probing (which wraps around).
        bits = table.size.bit_length() - 1
        home = hash_slot(keys, bits)
        order = np.argsort(home)
        step = np.arange(keys.size, dtype=np.int64)
        pos = np.maximum.accumulate(home[order] - step) + step
        fits = pos < table.size
        table[pos[fits]] = keys[order[fits]]
        placed = np.empty(keys.size, dtype=np.int64)
        placed[order[fits]] = pos[fits]
        spill = order[~fits]
        if spill.size:
            placed[spill], _ = self.hash_claim(table, keys[spill])
        return placed

    # --------------------------------------------------------------- arc index
    def arc_find(self, table, adj, keys):
        if self.kernels is not None:
            return self.kernels.arc_find(table, adj, keys)
        found = np.full(keys.size, -1, dtype=np.int64)
        pending = np.flatnonzero(keys >= 0)
        slot = arc_home(keys[pending], table.size)
        while pending.size:
            seen = table[slot].astype(np.int64)
            u, v = keys[pending] >> 32, keys[pending] & 0xFFFFFFFF
            held = seen < DELETED_SLOT
            first = adj.start[u]
            inside = held & (seen >= first) & (seen < first + adj.degree[u])
            hit = inside & (adj.nbr[np.where(inside, seen, 0)] == v)
            found[pending[hit]] = slot[hit]
            go_on = ~hit & (seen != EMPTY_SLOT)
            pending = pending[go_on]
            slot = _next_position(slot[go_on], table.size)
        return found

    def arc_claim(self, table, keys, slots):
        if self.kernels is not None:
            return self.kernels.arc_claim(table, keys, slots)
        placed = self._claim_rounds(table, arc_home(keys, table.size), lambda seen: seen >= DELETED_SLOT,
                                    lambda slot: _next_position(slot, table.size))
        replaced = table[placed].astype(np.int64)
        table[placed] = slots
        return placed, replaced

    def arc_build(self, table, keys, slots):
        if self.kernels is not None:
            return self.kernels.arc_build(table, keys, slots)
        # Sorted by home, arc i lands on max(home_i, position_{i-1} + 1): a
        # running maximum.  Runs stay contiguous from each arc's home, so
        # linear probing finds every arc; the few that run past the end of
        # the table are placed by ordinary probing (which wraps around).
        home = arc_home(keys, table.size)
        order = np.argsort(home)
        step = np.arange(keys.size, dtype=np.int64)
        pos = np.maximum.accumulate(home[order] - step) + step
        fits = pos < table.size
        table[pos[fits]] = slots[order[fits]]
        spill = order[~fits]
        if spill.size:
            self.arc_claim(table, keys[spill], slots[spill])

    def arc_locate(self, table, keys, slots):
        if self.kernels is not None:
            return self.kernels.arc_locate(table, keys, slots)
        found = np.empty(keys.size, dtype=np.int64)
        pending = np.arange(keys.size, dtype=np.int64)
        slot = arc_home(keys, table.size)
        wanted = slots.astype(SLOT_DTYPE)
        while pending.size:
            seen = table[slot]
            hit = seen == wanted[pending]
            found[pending[hit]] = slot[hit]
            if bool((seen[~hit] == EMPTY_SLOT).any()):
                raise KeyError("arc_locate: an arc is not in the index at its slot")
            pending = pending[~hit]
            slot = _next_position(slot[~hit], table.size)
        return found

    # ------------------------------------------------------------ adjacency
    def close_holes(self, adj, owners, slots):
        if self.kernels is not None:
            return self.kernels.close_holes(adj, owners, slots)
        n = int(slots.size)
        if n == 0:
            return _EMPTY_INDEX, _EMPTY_INDEX, _EMPTY_INDEX
        # lists are disjoint ranges, so sorting by slot also groups by owner
        starts = np.concatenate(([True], owners[1:] != owners[:-1]))
        first = np.flatnonzero(starts)
        counts = np.diff(np.append(first, n))
        group = np.cumsum(starts) - 1
        lists = owners[first]
        boundary = adj.start[lists] + adj.degree[lists] - counts
        holes = slots[slots < boundary[group]]
        tail, tail_owner = self.expand_segments(boundary, counts)
        # a tail entry survives unless it is itself removed (slots are sorted)
        at = np.minimum(np.searchsorted(slots, tail), n - 1)
        surviving = slots[at] != tail
        movers = tail[surviving]
        adj.nbr[holes] = adj.nbr[movers]
        adj.wgt[holes] = adj.wgt[movers]
        if adj.twin is not None:
            adj.twin[holes] = adj.twin[movers]
        adj.degree[lists] = boundary - adj.start[lists]
        return lists[tail_owner[surviving]], movers, holes

    def remove_entries(self, adj, owners, slots, keep=True):
        if self.kernels is not None:
            return self.kernels.remove_entries(adj, owners, slots, keep)
        return super().remove_entries(adj, owners, slots, keep)

    def remove_arcs(self, adjs, owners, slots, keep=True):
        # (the compiled kernels release the GIL: the two adjacencies on two threads at once)
        if not self._both_adjacencies(adjs, slots):
            return super().remove_arcs(adjs, owners, slots, keep)
        remove = self.kernels.remove_entries
        return both(lambda: remove(adjs[0], owners[0], slots[0], keep),
                    lambda: remove(adjs[1], owners[1], slots[1], keep),
                    lambda k, removed: undo_removal(adjs[k], removed))

    def _both_adjacencies(self, adjs, rows):
        """Whether the compiled kernels change both of ``adjs`` at once, on ``rows``
        (an array of rows each): two separate adjacencies with rows enough each."""
        return (rows[0].size >= _BOTH_ADJACENCIES_FROM and self.kernels is not None and len(adjs) == 2
                and adjs[0] is not adjs[1] and rows[1].size >= _BOTH_ADJACENCIES_FROM)

    def last_rows_by_arc(self, u, v):
        # (two counting sorts instead of a comparison sort, while the ids are few enough)
        last = self.kernels.last_rows_by_arc(u, v) if self.kernels is not None else None
        return last if last is not None else super().last_rows_by_arc(u, v)

    def slots_in_lists(self, owners, start, owners_sorted=False):
        if self.kernels is not None:         # (one pass in order, sorted or not)
            return self.kernels.slots_in_lists(owners, start)
        return super().slots_in_lists(owners, start, owners_sorted)

    def _plan_lists(self, adj, vertices, need, base, align):
        if self.kernels is None:
            return super()._plan_lists(adj, vertices, need, base, align)
        return self.kernels.plan_moves(adj, vertices, need, base, align)

    def move_lists(self, adj, vertices, new_start, room, first, moved):
        if self.kernels is not None:
            return self.kernels.move_lists(adj, vertices, new_start, room, first, moved)
        source, owner = self.expand_segments(adj.start[vertices], adj.degree[vertices])
        target = new_start[owner] + (source - adj.start[vertices][owner])
        adj.nbr[target] = adj.nbr[source]
        adj.wgt[target] = adj.wgt[source]
        if adj.twin is not None:
            adj.twin[target] = adj.twin[source]
        adj.start[vertices] = new_start
        adj.capacity[vertices] = room
        return vertices[owner], source, target

    def copy_lists(self, pairs, source_start, target_start, lengths):
        source, owner = self.expand_segments(source_start, lengths)
        target = target_start.astype(np.int64, copy=False)[owner] + (source - source_start[owner])
        for source_array, target_array in pairs:
            if source_array.dtype.kind == "f":
                target_array[target] = source_array[source]
            else:
                write_ids(np, target_array, target, read_ids(source_array, source))

    def place_entries(self, adj, owners, neighbours, weights, slots=None, must_fit=False, degrees=False, kept=None):
        # (nothing kept: the rows of lists that lacked room take their places again)
        return self._place(adj, owners, neighbours, weights, slots, must_fit, degrees)

    def place_arcs(self, adjs, u, v, w, degrees=False):
        # each adjacency in turn; the NumPy placement takes its rows sorted by
        # owner.  All or nothing: where a later step fails, the adjacencies placed
        # before it get their degrees back (their entries, past the degrees, are
        # as good as absent), as the journal expects of a call that raises
        if self._both_adjacencies(adjs, (u, v)):        # (as remove_arcs)
            def place(k, owners, neighbours):
                return lambda: self._place(adjs[k], owners, neighbours, w, None, False, degrees, scratch=k)
            return both(place(0, u, v), place(1, v, u),
                        lambda k, placement: _restore_degrees(adjs[k], (u, v)[k], placement.old_degree))
        placements, placed = [], []
        try:
            for adj, (owners, neighbours) in zip(adjs, ((u, v), (v, u))):
                if self.place_entries_any_order or owners.size < 2:
                    placements.append(self._place(adj, owners, neighbours, w, None, False, degrees))
                    placed.append((adj, owners, placements[-1]))
                    continue
                order = np.argsort(owners, kind="stable")
                owners = owners[order]              # (made before the placement writes)
                placement = self._place(adj, owners, neighbours[order], w[order], None, False, degrees)
                placed.append((adj, owners, placement))
                slots = np.empty_like(placement.slots)
                slots[order] = placement.slots
                old_degree = None if placement.old_degree is None else np.empty_like(placement.old_degree)
                if old_degree is not None:
                    old_degree[order] = placement.old_degree
                placements.append(placement._replace(slots=slots, old_degree=old_degree))
        except BaseException:
            for adj, owners, placement in placed:
                _restore_degrees(adj, owners, placement.old_degree)
            raise
        return placements

    def _place(self, adj, owners, neighbours, weights, slots, must_fit, degrees, scratch=0):
        # (scratch: which per-vertex counts the compiled kernel uses, one for each of two adjacencies at once)
        old_degree = adj.degree[owners] if degrees else None
        if slots is None:
            slots = np.full(owners.size, -1, dtype=np.int64)
        try:
            if self.kernels is not None:
                outgrown, need = self.kernels.place_entries(adj, owners, neighbours, weights, slots,
                                                            self._scratch_counts(adj.start.size, scratch))
            else:
                outgrown, need = self._place_entries(adj, owners, neighbours, weights, slots)
        except BaseException:           # (the NumPy placement allocates after it writes the degrees)
            _restore_degrees(adj, owners, old_degree)
            raise
        if must_fit and outgrown.size:
            raise RuntimeError(f"place_entries: {outgrown.size} lists were given room for their rows but lack it")
        return Placement(outgrown, need, int(outgrown.size), slots, old_degree)

    @staticmethod
    def _place_entries(adj, owners, neighbours, weights, slots):
        pending = np.flatnonzero(slots < 0)
        if pending.size == 0:
            return _EMPTY_INDEX, _EMPTY_INDEX
        owners = owners[pending]
        starts = np.concatenate(([True], owners[1:] != owners[:-1]))
        first = np.flatnonzero(starts)
        counts = np.diff(np.append(first, owners.size))
        group = np.cumsum(starts) - 1
        lists = owners[first]
        need = adj.degree[lists] + counts
        fits = need <= adj.capacity[lists]
        rows = fits[group]
        rank = np.arange(owners.size, dtype=np.int64) - first[group]
        placed = adj.start[owners[rows]] + adj.degree[owners[rows]] + rank[rows]
        adj.nbr[placed] = neighbours[pending[rows]]
        adj.wgt[placed] = weights[pending[rows]]
        slots[pending[rows]] = placed
        adj.degree[lists[fits]] = need[fits]
        return lists[~fits], need[~fits]

    # ------------------------------------------------------ batch reduction
    def apply_single_row(self, ids, src, dst, weight, op, table, out_adj, in_adj, trees=()):
        return cpu_single_row.apply_single_row(ids, src, dst, weight, op, table, out_adj, in_adj, trees)

    def net_changes(self, u, v, codes, weights, table, adj, undirected=False, unresolved=None):
        if unresolved:                          # (a host count here: known before any work)
            return None
        keys = self.arc_keys(u, v, undirected)
        if self.kernels is not None:            # (rows in any order)
            return self.kernels.net_changes(keys, codes, weights, table, adj)
        n = int(keys.size)
        if n == 0:
            counts = dict.fromkeys(("inserted", "deleted", "weight_updated", "unchanged", "cancelled", "ignored"), 0)
            return NetChanges(keys, keys, weights, keys, keys, keys, keys, keys, keys, weights, keys, counts)
        if n > 1:                               # rows grouped by key, each key's rows in batch order
            order = np.argsort(keys, kind="stable")
            keys, codes, weights = keys[order], codes[order], weights[order]
        starts = np.concatenate(([True], keys[1:] != keys[:-1]))
        first = np.flatnonzero(starts)
        last = np.append(first[1:] - 1, n - 1)
        group = np.cumsum(starts) - 1

        at = self.arc_find(table, adj, keys[first])           # a negative key names no edge
        present_before = at >= 0
        slot = np.where(present_before, table[np.maximum(at, 0)], 0)
        weight_before = np.where(present_before, adj.wgt[slot], 0)
        weight_before = weight_before.astype(weights.dtype, copy=False)
        # state just before each row: from the store for a key's first row,
        # else from the row before it
        is_insert = codes == 1
        row_present = np.where(starts, present_before[group], np.concatenate(([False], is_insert[:-1])))
        row_weight = np.where(starts, weight_before[group], np.concatenate((weights[:1], weights[:-1])))
        ignored_rows = ~is_insert & ~row_present
        effective = np.where(is_insert, ~row_present | (weights != row_weight), row_present)
        any_effect = np.bincount(group, weights=effective.astype(np.float64), minlength=first.size) > 0

        present_after = is_insert[last]
        weight_after = weights[last]
        inserted = ~present_before & present_after
        deleted = present_before & ~present_after
        both = present_before & present_after
        updated = both & (weight_after != weight_before)
        no_net = (both & ~updated) | (~present_before & ~present_after)
        counts = dict(inserted=int(inserted.sum()), deleted=int(deleted.sum()), weight_updated=int(updated.sum()),
                      unchanged=int((both & ~updated & ~any_effect).sum()),
                      cancelled=int((no_net & any_effect).sum()), ignored=int(ignored_rows.sum()))
        edge = keys[first]
        source, target = edge >> 32, edge & 0xFFFFFFFF
        return NetChanges(source[inserted], target[inserted], weight_after[inserted], edge[inserted],
                          source[deleted], target[deleted], at[deleted],
                          source[updated], target[updated], weight_after[updated], at[updated], counts)

    # --------------------------------------------------------- graph operators
    def _improve(self, u, v, candidate, value, parent, rule, bound):
        """Write the best candidate per target and a parent that produced it."""
        keep = rule.better(candidate, value[v])
        if not keep.all():
            u, v, candidate = u[keep], v[keep], candidate[keep]
        if v.size == 0:
            return _EMPTY_INDEX
        if rule.order == "min":
            np.minimum.at(value, v, candidate)
        else:
            np.maximum.at(value, v, candidate)
        won = candidate == value[v]
        winners = v[won]
        parent[winners] = u[won]
        return self.unique(winners, bound)

    def relax(self, adj, frontier, value, parent, rule):
        if frontier.size == 0:
            return _EMPTY_INDEX, 0
        pos, owner = self.expand_segments(adj.start[frontier], adj.degree[frontier])
        if pos.size == 0:
            return _EMPTY_INDEX, 0
        v = adj.nbr[pos].astype(np.int64, copy=False)
        weights = adj.wgt[pos] if rule.uses_weights else None
        candidate = rule.sent(value[frontier][owner], weights)
        improved = self._improve(frontier[owner], v, candidate, value, parent, rule, value.size)
        return improved, int(pos.size)

    def relax_arcs(self, u, v, w, value, parent, rule):
        if self.kernels is not None:
            return self.kernels.relax_arcs(u, v, w, value, parent, rule, self._scratch_flag(value.size))
        source_value = value[u]
        if rule.unreachable is not None:
            live = source_value != rule.unreachable
            u, v, w, source_value = u[live], v[live], w[live], source_value[live]
        candidate = rule.sent(source_value, w if rule.uses_weights else None)
        return self._improve(u, v, candidate, value, parent, rule, value.size)

    def pull(self, adjs, targets, value, parent, rule):
        return Known(sum(self._pull(adj, targets, value, parent, rule) for adj in adjs))

    def _pull(self, adj, targets, value, parent, rule):
        if self.kernels is not None:
            return self.kernels.pull(adj, targets, value, parent, rule)
        if targets.size == 0:
            return 0
        pos, owner = self.expand_segments(adj.start[targets], adj.degree[targets])
        if pos.size == 0:
            return 0
        u = adj.nbr[pos].astype(np.int64, copy=False)
        source_value = value[u]
        weights = adj.wgt[pos] if rule.uses_weights else None
        v = targets[owner]
        if rule.unreachable is not None:
            live = source_value != rule.unreachable
            u, v, source_value = u[live], v[live], source_value[live]
            if weights is not None:
                weights = weights[live]
        candidate = rule.sent(source_value, weights)
        self._improve(u, v, candidate, value, parent, rule, value.size)
        return int(pos.size)

    def invalidate(self, adjs, seeds, parent):
        seeds = self.read_counted(seeds)
        if self.kernels is not None:
            return self.kernels.invalidate(adjs, seeds, parent, self._scratch_flag(parent.size))
        bound = parent.size
        flag = self._scratch_flag(bound)
        frontier = self.unique(seeds, bound)
        flag[frontier] = True
        found = [frontier]
        edges_read = 0
        while frontier.size:
            frontier, read = self._mark_children(adjs, frontier, parent, flag)
            edges_read += read
            found.append(frontier)
        invalidated = np.concatenate(found)
        flag[invalidated] = False
        return invalidated, edges_read

    def _mark_children(self, adjs, frontier, parent, flag):
        """The children (``parent[x] == u``) of the ``frontier`` vertices ``u`` in each
        adjacency of ``adjs`` that ``flag`` does not mark yet, marked now; with the
        entries read."""
        children, edges_read = [], 0
        for adj in adjs:
            pos, owner = self.expand_segments(adj.start[frontier], adj.degree[frontier])
            edges_read += int(pos.size)
            x = adj.nbr[pos].astype(np.int64, copy=False)
            child = x[(parent[x] == frontier[owner]) & ~flag[x]]
            flag[child] = True
            children.append(child)
        return (np.concatenate(children) if len(children) > 1 else children[0]), edges_read

    def invalidate_keeping_ties(self, adjs, pull_adj, seeds, value, parent, rule, levels):
        bound = parent.size
        invalid = self._scratch_flag(bound)
        candidates = self.unique(self.read_counted(seeds), bound)
        invalid[candidates] = True
        found, examined, edges_read, searched = [], [], 0, 0
        while candidates.size and searched < levels:
            searched += 1
            examined.append(candidates)
            pos, owner = self.expand_segments(pull_adj.start[candidates], pull_adj.degree[candidates])
            edges_read += int(pos.size)
            u = pull_adj.nbr[pos].astype(np.int64, copy=False)
            v = candidates[owner]
            source_value = value[u]
            ties = ~invalid[u] & rule.better(source_value, value[v]) & (
                rule.sent(source_value, pull_adj.wgt[pos] if rule.uses_weights else None) == value[v])
            if rule.unreachable is not None:
                ties &= source_value != rule.unreachable
            first = np.flatnonzero(ties)[np.unique(owner[ties], return_index=True)[1]]   # one parent per vertex
            parent[v[first]] = u[first]
            held = np.zeros(candidates.size, dtype=bool)
            held[owner[first]] = True
            invalid[candidates[held]] = False
            dead = candidates[~held]
            found.append(dead)
            candidates, read = self._mark_children(adjs, dead, parent, invalid)
            edges_read += read
        while candidates.size:                  # past `levels`: the plain closure
            found.append(candidates)
            candidates, read = self._mark_children(adjs, candidates, parent, invalid)
            edges_read += read
        invalidated = np.concatenate(found) if found else _EMPTY_INDEX
        invalid[invalidated] = False
        DEVICE_CALLS.syncs += 1       # as the GPU while levels stay narrow: the block's results, the invalidated
        return invalidated, np.concatenate(examined) if examined else _EMPTY_INDEX, edges_read

    def _bfs_start(self, out_adj, in_adj, source, bound, value, parent, rule):
        value[:bound] = rule.unreachable
        parent[:bound] = -1
        value[source] = 0
        queue = np.empty(bound, dtype=np.int64)     # the levels, one after another
        queue[0] = source
        state = {"out": out_adj, "in": in_adj, "bound": bound, "value": value, "parent": parent,
                 "unreachable": value.dtype.type(rule.unreachable), "queue": queue, "begin": 0, "end": 1}
        in_degree = in_adj.degree[:bound]
        return state, int(in_degree.sum()) - int(in_degree[source]), int(out_adj.degree[source])

    def _bfs_step(self, state, level, bottom_up):
        queue, begin, end = state["queue"], state["begin"], state["end"]
        step = self._bfs_bottom_up if bottom_up else self._bfs_top_down
        found, parents, read = step(state, queue[begin:end], level)
        state["value"][found] = level + 1
        state["parent"][found] = parents
        queue[end:end + found.size] = found
        state["begin"], state["end"] = end, end + found.size
        return (int(found.size), int(state["out"].degree[found].sum()), int(state["in"].degree[found].sum()),
                read)

    def _bfs_top_down(self, state, frontier, level):
        """Unvisited out-neighbours of ``frontier``, each with one parent there."""
        out = state["out"]
        pos, owner = self.expand_segments(out.start[frontier], out.degree[frontier])
        v = out.nbr[pos].astype(np.int64, copy=False)
        fresh = state["value"][v] == state["unreachable"]
        v, u = v[fresh], frontier[owner[fresh]]
        stamp = self._scratch_stamp(state["bound"])        # one claim per vertex: the last writer's
        order = np.arange(v.size, dtype=np.int64)
        stamp[v] = order
        won = stamp[v] == order
        return v[won], u[won], int(pos.size)

    def _bfs_bottom_up(self, state, frontier, level):
        """Unvisited vertices with an in-neighbour at ``level``, and the first such
        neighbour of each.  The in-lists are read in rounds of growing width
        (4, 8, 16, ... entries), dropping every vertex whose parent was found:
        the early exit of a sequential scan, vectorised; the entries counted
        read are those a sequential scan reads (up to the first parent)."""
        inn, value, bound = state["in"], state["value"], state["bound"]
        in_frontier = value[:bound] == level
        candidates = np.flatnonzero((value[:bound] == state["unreachable"]) & (inn.degree[:bound] > 0))
        found, parents, read = [], [], 0
        offset, width = 0, _BOTTOM_UP_FIRST
        while candidates.size:
            first = inn.start[candidates] + offset
            length = np.minimum(inn.degree[candidates] - offset, width)
            pos, owner = self.expand_segments(first, length)
            u = inn.nbr[pos].astype(np.int64, copy=False)
            hit = np.flatnonzero(in_frontier[u])
            resolved = np.zeros(candidates.size, dtype=bool)
            read += int(length.sum())
            if hit.size:
                hit_owner = owner[hit]
                firsts = hit[np.concatenate(([True], hit_owner[1:] != hit_owner[:-1]))]
                winners = owner[firsts]
                found.append(candidates[winners])
                parents.append(u[firsts])
                resolved[winners] = True
                # a sequential scan stops at the parent: not the rest of its round
                read -= int((length[winners] - (pos[firsts] - first[winners]) - 1).sum())
            offset += width
            width *= 2
            candidates = candidates[~resolved & (inn.degree[candidates] > offset)]
        if not found:
            return _EMPTY_INDEX, _EMPTY_INDEX, read
        return np.concatenate(found), np.concatenate(parents), read

    def _bfs_visited(self, state):
        return state["queue"][:state["end"]]

    def converge(self, adjs, frontier, value, parent, rule):
        if self.kernels is not None:      # one queue-driven pass instead of relax rounds
            return self.kernels.converge(adjs, self.read_counted(frontier), value, parent, rule,
                                         self._scratch_flag(value.size))
        return super().converge(adjs, frontier, value, parent, rule)

    def gather_plan(self, adj, vertices, weighted=False):
        if self.kernels is not None:      # the lists read in place, not gathered into a plan
            return self.kernels.gather_plan(adj, vertices, weighted)
        degree = adj.degree[vertices]
        pos, _ = self.expand_segments(adj.start[vertices], degree)
        nonempty = degree > 0
        weights = adj.wgt[pos].astype(np.float64) if weighted else None
        return adj.nbr[pos], (np.cumsum(degree) - degree)[nonempty], nonempty, weights       # (4-byte ids: half the reads)

    def gather_sum(self, plan, values):
        if self.kernels is not None:
            return self.kernels.gather_sum(plan, values)
        neighbours, offsets, nonempty, weights = plan
        sums = np.zeros(nonempty.size, dtype=values.dtype)
        if neighbours.size:
            gathered = values[neighbours] if weights is None else weights * values[neighbours]
            sums[nonempty] = np.add.reduceat(gathered, offsets)
        return sums, int(neighbours.size)

    def pagerank_correct_arcs(self, rank, residual, degree, inserted_u, inserted_v, deleted_u, deleted_v,
                              alpha):
        if self.kernels is not None:
            bound = int(rank.size)
            return self.kernels.pagerank_correct_arcs(rank, residual, degree, inserted_u, inserted_v, deleted_u,
                                                      deleted_v, alpha, self._scratch_flag(bound),
                                                      self._scratch_stamp(bound))
        return super().pagerank_correct_arcs(rank, residual, degree, inserted_u, inserted_v, deleted_u, deleted_v,
                                             alpha)

    def pagerank_spread(self, plan, shift, teleport, factor, dangling, rank, residual, share, index, rounds=1,
                        alpha=0.0, divisor=1.0):
        if self.kernels is not None and (not isinstance(index, slice) or index.step in (None, 1)):
            return self.kernels.pagerank_spread(plan, shift, teleport, factor, dangling, rank, residual, share,
                                                index, rounds, alpha, divisor)
        return super().pagerank_spread(plan, shift, teleport, factor, dangling, rank, residual, share, index,
                                       rounds, alpha, divisor)

    def pagerank_push(self, adj, active, amount, rank, residual, alpha, out_weight=None):
        rank[active] += amount
        residual[active] -= amount
        degree = adj.degree[active]
        if out_weight is None:
            pushing = degree > 0
            share = alpha * amount[pushing] / degree[pushing]
        else:
            total = out_weight[active]
            pushing = (degree > 0) & (total > 0)
            share = alpha * amount[pushing]             # times w / W(u) per arc (at most 1: no overflow)
        pos, owner = self.expand_segments(adj.start[active[pushing]], degree[pushing])
        if pos.size == 0:
            return _EMPTY_INDEX, 0
        receivers = adj.nbr[pos].astype(np.int64, copy=False)
        sent = share[owner] if out_weight is None else share[owner] * (adj.wgt[pos].astype(np.float64)
                                                                       / total[pushing][owner])
        self.scatter_add(residual, receivers, sent)
        return self.unique(receivers, residual.size), int(pos.size)
