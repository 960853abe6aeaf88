"""numba-compiled kernels for the hottest CPU operators (optional).

The CPU backend's NumPy operators run a batch as chains of whole-array
passes (sorts, gathers, probing rounds); on one core most of that is
overhead.  These kernels do the same work in single sequential passes,
compiled by numba (``@njit(cache=True, nogil=True)``): the edge-index and
arc-index probes, the batch reduction (a hash-grouped single pass: no sort of the
batch), vertex-id lookups and merges, list placement and hole closing, and the
monotonic engine's relaxation (a FIFO label-correcting kernel instead of
vectorised rounds), invalidation and re-seeding.

Measured on a 2-core VM (R-MAT scale 16, 10K-row batches): the kernels'
arithmetic is cheap; what remains is memory traffic (random probes into a
16 MB edge index (now a 4-byte-per-position arc index) and 5-10 MB slot arrays), so loops that gather from those
arrays are kept free of branches that depend on the loaded values, letting
the cache misses overlap (see ``_net_changes``).  A binary heap in place of
the FIFO queue visited fewer vertices but ran 3x slower per edge.

numba is optional (the ``fast-cpu`` extra): when it is not importable, or
``CUGRAPH_STREAM_CPU_KERNELS=0`` is set, or the backend is made with
``get_backend("cpu", compiled=False)``, the NumPy operators run unchanged.
The functions below keep each operator's contract (``backends/base.py``);
``tests/backends/test_cpu_kernels.py`` compares each with its NumPy path.
Compiled code is cached on disk (numba's ``__pycache__``), so only the first
use on a machine pays for compilation.

>>> import numpy as np
>>> kernels = load(None)
>>> kernels is None or kernels.hash_find(np.full(8, -1, dtype=np.int64), np.array([3])).tolist() == [-1]
True
"""
from __future__ import annotations

import os
from typing import NamedTuple

import numpy as np

from .base import DELETED_SLOT, EMPTY_SLOT, MIN_LIST_SLOTS, SLOT_DTYPE, Known, MovePlan, NetChanges, RemovedEntries
from .cpu_threads import split, thread_count
from .rows import INSERT

try:                                  # optional: the fast-cpu extra
    import numba
    from numba import njit
except ImportError:                   # pragma: no cover - exercised where numba is absent
    numba = None

#: environment variable that turns the compiled kernels off ("0", "false", "no" or "off")
ENV_VAR = "CUGRAPH_STREAM_CPU_KERNELS"
_OFF = ("0", "false", "no", "off")

_EMPTY = -1
_EMPTY_SLOT = np.uint32(EMPTY_SLOT)
_DELETED_SLOT = np.uint32(DELETED_SLOT)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_EXTENDS = {"add": 0, "add_one": 1, "min": 2, "copy": 3}
_EMPTY_INDEX = np.empty(0, dtype=np.int64)
#: last_rows_by_arc counts ids with arrays of one counter per id: up to 4 ids a
#: row and this many more, else it leaves the rows to NumPy's sort
_COUNTING_SORT_SLACK = 1 << 20
#: the twin pointers of an adjacency without them: of their dtype, so that a kernel
#: compiled (and loaded from numba's cache) for one adjacency serves the other
_NO_TWINS = np.empty(0, dtype=SLOT_DTYPE)
#: PageRank's teleport vector where it is uniform (a float64 array, as a personalization's)
_NO_TELEPORT = np.empty(0, dtype=np.float64)
#: keys per thread from which the arc-index probes run on several threads (cpu_threads.split)
_SPLIT_PROBES = 4096
#: list entries per thread from which a gather_sum runs on several threads
_SPLIT_ARCS = 1 << 17
#: lookup_sorted searches unsorted queries in key arrays up to this size (they stay in cache)
_SEARCH_UNSORTED_KEYS = 1 << 18


def available():
    """Whether numba is importable here."""
    return numba is not None


def wanted(compiled=None):
    """Whether a CPU backend made with ``compiled`` runs the compiled kernels.

    ``None`` (the default): when numba is importable, unless the environment
    variable ``CUGRAPH_STREAM_CPU_KERNELS`` is ``0``; ``True``: required
    (``ValueError`` without numba); ``False``: never.
    """
    if compiled is None:
        return available() and os.environ.get(ENV_VAR, "1").strip().lower() not in _OFF
    if compiled and not available():
        raise ValueError("compiled CPU kernels need numba (pip install 'cugraph-stream[fast-cpu]')")
    return bool(compiled)


def load(compiled=None):
    """This module's kernels (a :class:`Kernels`), or None where they are not wanted."""
    return Kernels() if wanted(compiled) else None


if numba is not None:
    _jit = njit(cache=True, nogil=True)
    _inline = njit(cache=True, nogil=True, inline="always")
else:                                 # pragma: no cover
    def _jit(f):
        return f
    _inline = _jit


# --------------------------------------------------------------------- helpers
@_inline
def _home(key, shift):
    return np.int64((np.uint64(key) * _GOLDEN) >> shift)


@_inline
def _better(a, b, order):
    if order == 0:
        return a < b
    return a > b


@_inline
def _extend(code, x, w, one):
    if code == 0:
        return x + w
    if code == 1:
        return x + one
    if code == 2:
        return x if x < w else w
    return x


@_inline
def _probe(table, key, shift, mask):
    slot = _home(key, shift)
    while True:
        seen = table[slot]
        if seen == key:
            return slot
        if seen == _EMPTY:
            return -1
        slot = (slot + 1) & mask


# ------------------------------------------------------------------ hash index
@_jit
def _hash_find(table, keys, shift):
    mask = table.size - 1
    found = np.empty(keys.size, dtype=np.int64)
    for i in range(keys.size):
        found[i] = _probe(table, keys[i], shift, mask)
    return found


@_jit
def _hash_claim(table, keys, shift):
    mask = table.size - 1
    placed = np.empty(keys.size, dtype=np.int64)
    replaced = np.empty(keys.size, dtype=np.int64)
    for i in range(keys.size):
        slot = _home(keys[i], shift)
        while table[slot] >= 0:
            slot = (slot + 1) & mask
        replaced[i] = table[slot]
        table[slot] = keys[i]
        placed[i] = slot
    return placed, replaced


# ------------------------------------------------------------------ arc index
_LOW32 = np.uint64(0xFFFFFFFF)
_THIRTY_TWO = np.uint64(32)


@_inline
def _arc_home(key, capacity):
    """Home of arc ``key`` in a table of ``capacity`` positions: the high half of the
    64-bit hash times the capacity (as ``__umul64hi`` on the GPU)."""
    h = np.uint64(key) * _GOLDEN
    c = np.uint64(capacity)
    h_lo, h_hi = h & _LOW32, h >> _THIRTY_TWO
    c_lo, c_hi = c & _LOW32, c >> _THIRTY_TWO
    cross = ((h_lo * c_lo) >> _THIRTY_TWO) + ((h_hi * c_lo) & _LOW32) + h_lo * c_hi
    return np.int64(h_hi * c_hi + ((h_hi * c_lo) >> _THIRTY_TWO) + (cross >> _THIRTY_TWO))


@_inline
def _arc_probe(table, key, start, degree, nbr):
    """Position of arc ``key`` in an arc-index ``table``, or -1 (see ``Backend.arc_find``)."""
    if key < 0:
        return -1
    u = key >> 32
    v = key & 0xFFFFFFFF
    first = start[u]
    end = first + degree[u]
    capacity = table.size
    slot = _arc_home(key, capacity)
    while True:
        seen = table[slot]
        if seen == _EMPTY_SLOT:
            return -1
        s = np.int64(seen)
        if seen != _DELETED_SLOT and s >= first and s < end and nbr[s] == v:
            return slot
        slot += 1
        if slot == capacity:
            slot = 0


@_jit
def _arc_find(table, keys, start, degree, nbr, found):
    """``found[i]``: :func:`_arc_probe` of ``keys[i]``, in passes of independent loads (the table and
    the lists are far larger than the caches: the misses of one pass overlap):
    each key's home entry and list range, then the neighbour at the home entry
    where it lies in the list, then a whole probe only for the keys their
    home entry did not settle (about half the absent ones at a load of 0.55)."""
    n = keys.size
    capacity = table.size
    home = np.empty(n, dtype=np.int64)
    seen = np.empty(n, dtype=np.int64)
    first = np.empty(n, dtype=np.int64)
    end = np.empty(n, dtype=np.int64)
    for i in range(n):
        key = keys[i]
        if key < 0:
            home[i] = -1
            continue
        h = _arc_home(key, capacity)
        home[i] = h
        seen[i] = np.int64(table[h])
        u = key >> 32
        first[i] = start[u]
        end[i] = first[i] + degree[u]
    for i in range(n):
        s = seen[i]
        if home[i] < 0 or s == _EMPTY_SLOT:
            found[i] = -1
        elif s != _DELETED_SLOT and s >= first[i] and s < end[i] and nbr[s] == (keys[i] & 0xFFFFFFFF):
            found[i] = home[i]
        else:
            found[i] = -2                     # not settled by the home entry
    for i in range(n):
        if found[i] == -2:
            found[i] = _arc_probe(table, keys[i], start, degree, nbr)


@_jit
def _arc_claim(table, keys, slots):
    capacity = table.size
    placed = np.empty(keys.size, dtype=np.int64)
    replaced = np.empty(keys.size, dtype=np.int64)
    for i in range(keys.size):
        slot = _arc_home(keys[i], capacity)
        while table[slot] < _DELETED_SLOT:
            slot += 1
            if slot == capacity:
                slot = 0
        replaced[i] = table[slot]
        table[slot] = slots[i]
        placed[i] = slot
    return placed, replaced


@_jit
def _arc_locate(table, keys, slots, found):
    capacity = table.size
    for i in range(keys.size):
        slot = _arc_home(keys[i], capacity)
        wanted = np.uint32(slots[i])
        while table[slot] != wanted:
            if table[slot] == _EMPTY_SLOT:
                raise KeyError("arc_locate: an arc is not in the index at its slot")
            slot += 1
            if slot == capacity:
                slot = 0
        found[i] = slot


# ------------------------------------------------------------- batch reduction
@_jit
def _net_changes(keys, codes, weights, at, table, stored_weights, group_bits):
    n = keys.size
    size = np.int64(1) << group_bits
    gmask = size - 1
    gshift = np.uint64(64 - group_bits)
    slot_of = np.full(size, -1, dtype=np.int64)
    gkey = np.empty(n, dtype=np.int64)
    gat = np.empty(n, dtype=np.int64)         # the group's table position
    before = np.empty(n, dtype=np.bool_)
    weight_before = np.empty(n, dtype=weights.dtype)
    present = np.empty(n, dtype=np.bool_)
    weight = np.empty(n, dtype=weights.dtype)
    effect = np.empty(n, dtype=np.bool_)
    # each row's edge in the store (at: its arc_find), in loops of independent
    # loads (the table and weights are far larger than the caches: the misses overlap)
    slot = np.empty(n, dtype=np.int64)
    for i in range(n):
        slot[i] = np.int64(table[at[i]]) if at[i] >= 0 else -1
    stored = np.zeros(n, dtype=weights.dtype)
    for i in range(n):
        if slot[i] >= 0:
            stored[i] = stored_weights[slot[i]]
    groups = 0
    ignored = 0
    for i in range(n):
        key = keys[i]
        s = _home(key & 0x7FFFFFFFFFFFFFFF, gshift)
        while True:
            g = slot_of[s]
            if g < 0 or gkey[g] == key:
                break
            s = (s + 1) & gmask
        if g < 0:                       # the key's first row: its state in the store
            g = groups
            groups += 1
            slot_of[s] = g
            gkey[g] = key
            gat[g] = at[i]
            before[g] = at[i] >= 0
            weight_before[g] = stored[i]
            present[g] = before[g]
            weight[g] = weight_before[g]
            effect[g] = False
        if codes[i] == 1:
            if not present[g] or weights[i] != weight[g]:
                effect[g] = True
            present[g] = True
            weight[g] = weights[i]
        else:
            if present[g]:
                effect[g] = True
            else:
                ignored += 1
            present[g] = False
    counts = np.zeros(6, dtype=np.int64)      # inserted deleted updated unchanged cancelled ignored
    counts[5] = ignored
    kind = np.zeros(groups, dtype=np.int8)    # 1 inserted, 2 deleted, 3 updated
    for g in range(groups):
        if not before[g] and present[g]:
            kind[g] = 1
            counts[0] += 1
        elif before[g] and not present[g]:
            kind[g] = 2
            counts[1] += 1
        elif before[g] and present[g] and weight[g] != weight_before[g]:
            kind[g] = 3
            counts[2] += 1
        elif before[g]:                       # present before and after, same weight
            if effect[g]:
                counts[4] += 1
            else:
                counts[3] += 1
        elif effect[g]:                       # absent before and after
            counts[4] += 1
    # each changed edge with its ends: inserted (key, u, v), deleted (u, v, at), updated (u, v, at)
    inserted = np.empty((3, counts[0]), dtype=np.int64)
    inserted_w = np.empty(counts[0], dtype=weights.dtype)
    deleted = np.empty((3, counts[1]), dtype=np.int64)
    updated = np.empty((3, counts[2]), dtype=np.int64)
    updated_w = np.empty(counts[2], dtype=weights.dtype)
    a = b = c = 0
    for g in range(groups):
        key = gkey[g]
        if kind[g] == 1:
            inserted[0, a] = key
            inserted[1, a] = key >> 32
            inserted[2, a] = key & 0xFFFFFFFF
            inserted_w[a] = weight[g]
            a += 1
        elif kind[g] == 2:
            deleted[0, b] = key >> 32
            deleted[1, b] = key & 0xFFFFFFFF
            deleted[2, b] = gat[g]
            b += 1
        elif kind[g] == 3:
            updated[0, c] = key >> 32
            updated[1, c] = key & 0xFFFFFFFF
            updated[2, c] = gat[g]
            updated_w[c] = weight[g]
            c += 1
    return inserted, inserted_w, deleted, updated, updated_w, counts


@_jit
def _lookup_sorted(keys, values, queries):
    # branch-free binary searches, eight queries in step: their loads overlap
    out = np.empty(queries.size, dtype=np.int64)
    n = keys.size
    base = np.zeros(8, dtype=np.int64)
    query = np.empty(8, dtype=np.int64)
    for first in range(0, queries.size, 8):
        k = min(8, queries.size - first)
        for j in range(k):
            base[j] = 0
            query[j] = queries[first + j]
        m = n
        while m > 1:
            half = m >> 1
            for j in range(k):
                b = base[j]
                base[j] = b + half if keys[b + half] <= query[j] else b
            m -= half
        for j in range(k):
            b = base[j]
            out[first + j] = values[b] if keys[b] == query[j] else -1
    return out


@_jit
def _lookup_dense(table, queries):
    out = np.empty(queries.size, dtype=np.int64)
    n = table.size
    for i in range(queries.size):
        q = queries[i]
        out[i] = table[q] if 0 <= q < n else -1
    return out


@_jit
def _missing_ends(ids, ends, codes, insert):
    rows = codes.size
    out = np.empty(ends.size, dtype=np.int64)
    k = 0
    for i in range(ends.size):
        if ids[i] < 0 and codes[i % rows] == insert:
            out[k] = ends[i]
            k += 1
    return out[:k]


@_jit
def _merge_sorted(keys, values, more_keys, more_values):
    n, m = keys.size, more_keys.size
    merged_keys = np.empty(n + m, dtype=np.int64)
    merged_values = np.empty(n + m, dtype=np.int64)
    i = j = 0
    for k in range(n + m):
        if j == m or (i < n and keys[i] <= more_keys[j]):     # equal keys: ``keys`` first
            merged_keys[k] = keys[i]
            merged_values[k] = values[i]
            i += 1
        else:
            merged_keys[k] = more_keys[j]
            merged_values[k] = more_values[j]
            j += 1
    return merged_keys, merged_values


# ------------------------------------------------------------------ adjacency
@_jit
def _place_entries(start, degree, capacity, nbr, wgt, owners, neighbours, weights, slots, count):
    # count (int64) is per-vertex scratch, zero on entry and on return.  Each
    # pending row takes the slot start + degree + its rank among its list's
    # pending rows; only the fit of the list is a branch on the lists' values,
    # so their loads (far larger than the caches) overlap.
    # every array is allocated before the first write: a MemoryError leaves the
    # scratch and the lists as they were (the caller journals nothing then)
    n = owners.size
    pending = np.empty(n, dtype=np.bool_)
    rank = np.empty(n, dtype=np.int64)        # a pending row's place among its list's pending rows
    outgrown = np.empty(n, dtype=np.int64)
    need = np.empty(n, dtype=np.int64)
    for i in range(n):
        pending[i] = slots[i] < 0
        if pending[i]:
            o = owners[i]
            c = count[o]
            rank[i] = c
            count[o] = c + 1
    for i in range(n):                        # no branch waits on a list's values but the fit
        if pending[i]:
            o = owners[i]
            d = degree[o]
            if d + count[o] <= capacity[o]:
                p = start[o] + d + rank[i]
                nbr[p] = neighbours[i]
                wgt[p] = weights[i]
                slots[i] = p
            else:
                slots[i] = -2 - rank[i]       # -2: the first row of an outgrown list
    k = 0
    for i in range(n):
        if pending[i] and rank[i] == 0:
            o = owners[i]
            if slots[i] == -2:
                outgrown[k] = o
                need[k] = degree[o] + count[o]
                k += 1
            else:
                degree[o] += count[o]
            count[o] = 0
        if slots[i] < -1:
            slots[i] = -1
    return outgrown[:k], need[:k]


@_jit
def _remove_entries(start, degree, nbr, wgt, twin, with_twin, owners, slots, keep, old_nbr, old_wgt, old_twin,
                    lists, old_degree, moved_nbr, moved_wgt, moved_twin):
    # close_holes in passes whose loads do not wait on each other (the
    # slot arrays are far larger than the caches: their misses overlap):
    # the lists' ends, the pre-images, the moves, the moved entries, then
    # the writes.  Rows sorted by slot; every array after ``keep`` has a row
    # per removed slot (``old_*``, ``lists``, ``old_degree``: empty without
    # ``keep``; ``moved_*``: always).  Every array is allocated before the first
    # write (see _place_entries).
    n = slots.size
    first = np.empty(n + 1, dtype=np.int64)   # each list's first row
    k = 0
    for i in range(n):
        if i == 0 or owners[i] != owners[i - 1]:
            first[k] = i
            k += 1
    first[k] = n
    end = np.empty(k, dtype=np.int64)
    out_owner = np.empty(n, dtype=np.int64)
    source = np.empty(n, dtype=np.int64)
    target = np.empty(n, dtype=np.int64)
    for g in range(k):
        o = owners[first[g]]
        end[g] = start[o] + degree[o]
    if keep:
        for i in range(n):
            s = slots[i]
            old_nbr[i] = nbr[s]
            old_wgt[i] = wgt[s]
            if with_twin:
                old_twin[i] = twin[s]
        for g in range(k):
            o = owners[first[g]]
            lists[g] = o
            old_degree[g] = end[g] - start[o]
    m = 0
    for g in range(k):
        a, b = first[g], first[g + 1]
        o = owners[a]
        boundary = end[g] - (b - a)
        j = a                                 # removed slots below the boundary: the holes
        while j < b and slots[j] < boundary:
            j += 1
        removed_tail = j                      # removed slots at or past it, ascending
        t = boundary
        for h in range(a, j):
            while removed_tail < b and slots[removed_tail] == t:
                removed_tail += 1
                t += 1
            out_owner[m] = o
            source[m] = t
            target[m] = slots[h]
            m += 1
            t += 1
        degree[o] = boundary - start[o]
    for i in range(m):                        # sources are never holes: read them all first
        t = source[i]
        moved_nbr[i] = nbr[t]
        moved_wgt[i] = wgt[t]
        if with_twin:
            moved_twin[i] = twin[t]
    for i in range(m):
        h = target[i]
        nbr[h] = moved_nbr[i]
        wgt[h] = moved_wgt[i]
        if with_twin:
            twin[h] = moved_twin[i]
    return out_owner[:m], source[:m], target[:m], m, k


@_jit
def _counting_order(keys, bound, rows):
    # the stable order of rows[0:m] by keys[rows[k]] (all below bound): a counting sort
    start = np.zeros(bound + 1, dtype=np.int64)
    for k in range(rows.size):
        start[keys[rows[k]] + 1] += 1
    for x in range(bound):
        start[x + 1] += start[x]
    order = np.empty(rows.size, dtype=np.int64)
    for k in range(rows.size):
        key = keys[rows[k]]
        order[start[key]] = rows[k]
        start[key] += 1
    return order


@_jit
def _last_rows_by_arc(u, v, bound):
    m = u.size
    ordered = True                      # (edge lists often come sorted by arc: no sort then)
    for i in range(1, m):
        if u[i] < u[i - 1] or (u[i] == u[i - 1] and v[i] < v[i - 1]):
            ordered = False
            break
    order = np.arange(m)
    if not ordered:                     # by target, then stably by source
        order = _counting_order(u, bound, _counting_order(v, bound, order))
    last = np.empty(m, dtype=np.int64)
    kept = 0
    for k in range(m):
        i = order[k]
        if k + 1 == m or u[order[k + 1]] != u[i] or v[order[k + 1]] != v[i]:
            last[kept] = i
            kept += 1
    return last[:kept]


@_jit
def _slots_in_lists(owners, start):
    # a counting sort's placement pass: each list's next free slot
    cursor = start.copy()
    slots = np.empty(owners.size, dtype=np.int64)
    for i in range(owners.size):
        o = owners[i]
        slots[i] = cursor[o]
        cursor[o] += 1
    return slots


@_jit
def _plan_moves(degree, vertices, need, base, align, regions):
    # Backend.plan_moves in one pass: list k's size class (grown_room: 1.5x its
    # need, a power of two from MIN_LIST_SLOTS below align, whole units from
    # there), its place within its region (room_regions: whole units first,
    # then each smaller class), and its entries' first move; then each
    # region's start.  totals: the room (padded to whole units), the entries
    # moved, the padding (released with the lists' old room)
    k = vertices.size
    new_start = np.empty(k, dtype=np.int64)
    room = np.empty(k, dtype=np.int64)
    first = np.empty(k, dtype=np.int64)
    region = np.empty(k, dtype=np.int64)
    region_room = np.zeros(regions, dtype=np.int64)
    moved = 0
    for i in range(k):
        want = need[i] + need[i] // 2
        g = 0                                 # (region 0: whole units)
        if want >= align:
            r = (want + align - 1) // align * align
        else:
            r = np.int64(MIN_LIST_SLOTS)
            while r < want:
                r <<= 1
            c = align
            while c > r:
                c >>= 1
                g += 1
        room[i] = r
        region[i] = g
        new_start[i] = region_room[g]         # (within its region, for now)
        region_room[g] += r
        first[i] = moved
        moved += degree[vertices[i]]
    region_start = np.empty(regions, dtype=np.int64)
    at = base
    for g in range(regions):
        region_start[g] = at
        at += region_room[g]
    for i in range(k):
        new_start[i] += region_start[region[i]]
    room_total = at - base
    padding = (align - room_total % align) % align
    return new_start, room, first, room_total + padding, moved, padding


@_jit
def _move_lists(start, degree, capacity, nbr, wgt, twin, with_twin, vertices, new_start, room, first, moved):
    # the new slots lie past the old end: no list overlaps another's new place
    owner = np.empty(moved, dtype=np.int64)
    source = np.empty(moved, dtype=np.int64)
    target = np.empty(moved, dtype=np.int64)
    for k in range(vertices.size):
        u = vertices[k]
        s = start[u]
        t = new_start[k]
        f = first[k]
        for j in range(degree[u]):
            owner[f + j] = u
            source[f + j] = s + j
            target[f + j] = t + j
            nbr[t + j] = nbr[s + j]
            wgt[t + j] = wgt[s + j]
            if with_twin:
                twin[t + j] = twin[s + j]
        start[u] = t
        capacity[u] = room[k]
    return owner, source, target


# ------------------------------------------------------------ graph operators
@_jit
def _relax_arcs(u, v, w, value, parent, code, order, has_unreachable, unreachable, flag):
    n = u.size
    source_value = np.empty(n, dtype=value.dtype)
    for i in range(n):                        # candidates from the values before the call
        source_value[i] = value[u[i]]
    one = np.ones(1, dtype=value.dtype)
    cast = np.empty(1, dtype=value.dtype)
    improved = np.empty(n, dtype=np.int64)
    k = 0
    for i in range(n):
        x = source_value[i]
        if has_unreachable and x == unreachable:
            continue
        cast[0] = w[i]
        candidate = _extend(code, x, cast[0], one[0])
        t = v[i]
        if _better(candidate, value[t], order):
            value[t] = candidate
            parent[t] = u[i]
            if not flag[t]:
                flag[t] = True
                improved[k] = t
                k += 1
    for i in range(k):
        flag[improved[i]] = False
    return improved[:k].copy()


@_jit
def _pull(start, degree, nbr, wgt, targets, value, parent, code, order, has_unreachable, unreachable):
    n = targets.size
    best = np.empty(n, dtype=value.dtype)
    best_parent = np.full(n, -1, dtype=np.int64)
    one = np.ones(1, dtype=value.dtype)
    cast = np.empty(1, dtype=value.dtype)
    first = np.empty(n, dtype=np.int64)       # the lists' ends first, in loads that overlap
    length = np.empty(n, dtype=np.int64)
    for i in range(n):
        v = targets[i]
        first[i] = start[v]
        length[i] = degree[v]
        best[i] = value[v]
    edges = 0
    for i in range(n):                        # candidates from the values before the call
        b = best[i]
        s = first[i]
        d = length[i]
        edges += d
        for p in range(s, s + d):
            u = nbr[p]
            x = value[u]
            if has_unreachable and x == unreachable:
                continue
            cast[0] = wgt[p]
            candidate = _extend(code, x, cast[0], one[0])
            if _better(candidate, b, order):
                b = candidate
                best_parent[i] = u
        best[i] = b
    for i in range(n):
        if best_parent[i] >= 0:
            value[targets[i]] = best[i]
            parent[targets[i]] = best_parent[i]
    return edges


@_inline
def _invalidate_list(start, degree, nbr, u, parent, flag, found, k):
    s = start[u]
    d = degree[u]
    for p in range(s, s + d):
        x = np.int64(nbr[p])
        if parent[x] == u and not flag[x]:
            flag[x] = True
            found[k] = x
            k += 1
    return k, d


@_jit
def _invalidate(start0, degree0, nbr0, start1, degree1, nbr1, sides, seeds, parent, flag):
    found = np.empty(parent.size, dtype=np.int64)    # each vertex at most once
    k = 0
    for i in range(seeds.size):
        s = seeds[i]
        if not flag[s]:
            flag[s] = True
            found[k] = s
            k += 1
    head = 0
    edges = 0
    while head < k:
        u = found[head]
        head += 1
        k, d = _invalidate_list(start0, degree0, nbr0, u, parent, flag, found, k)
        edges += d
        if sides == 2:
            k, d = _invalidate_list(start1, degree1, nbr1, u, parent, flag, found, k)
            edges += d
    for i in range(k):
        flag[found[i]] = False
    return found[:k].copy(), edges


@_inline
def _relax_list(start, degree, nbr, wgt, u, key, value, parent, queue, queued, tail, code, order, one, cast):
    n = queue.size
    s = start[u]
    d = degree[u]
    for p in range(s, s + d):
        x = np.int64(nbr[p])
        cast[0] = wgt[p]
        candidate = _extend(code, key, cast[0], one[0])
        if _better(candidate, value[x], order):
            value[x] = candidate
            parent[x] = u
            if not queued[x]:
                queued[x] = True
                queue[tail % n] = x
                tail += 1
    return tail, d


@_jit
def _converge(start0, degree0, nbr0, wgt0, start1, degree1, nbr1, wgt1, sides, frontier, value, parent,
              code, order, queued):
    # label-correcting relaxation with a FIFO queue (a vertex waits in it at
    # most once, with its latest value): the steps of the reference's
    # rounds, one vertex at a time.  ``queued`` is per-vertex scratch, False
    # on entry and on return.
    n = value.size
    queue = np.empty(n, dtype=np.int64)
    activated = np.empty(max(16, 2 * frontier.size), dtype=np.int64)
    one = np.ones(1, dtype=value.dtype)
    cast = np.empty(1, dtype=value.dtype)
    tail = 0
    for i in range(frontier.size):
        x = frontier[i]
        if not queued[x]:
            queued[x] = True
            queue[tail] = x
            tail += 1
    head = 0
    na = 0
    edges = 0
    while head < tail:
        u = queue[head % n]
        head += 1
        queued[u] = False
        if na == activated.size:
            grown = np.empty(2 * na, dtype=np.int64)
            grown[:na] = activated
            activated = grown
        activated[na] = u
        na += 1
        key = value[u]
        tail, d = _relax_list(start0, degree0, nbr0, wgt0, u, key, value, parent, queue, queued, tail, code,
                              order, one, cast)
        edges += d
        if sides == 2:
            tail, d = _relax_list(start1, degree1, nbr1, wgt1, u, key, value, parent, queue, queued, tail, code,
                                  order, one, cast)
            edges += d
    return activated[:na].copy(), edges


@_jit
def _record_changes(forced, touched, value, parent, previous_value, previous_parent, alive, with_parents, flag,
                    keep):
    # one pass over ``forced``, then one over ``touched`` (a vertex is handled at
    # its first appearance, told by ``flag``: per-vertex scratch, False on entry
    # and on return); a touched vertex's difference is read before its write;
    # with ``keep``, each vertex whose records the write changes is logged first
    total = forced.size + touched.size
    changed = np.empty(total, dtype=np.int64)
    logged = np.empty(total if keep else 0, dtype=np.int64)
    logged_value = np.empty(logged.size, dtype=previous_value.dtype)
    logged_parent = np.empty(logged.size, dtype=np.int64)
    k = m = 0
    for i in range(total):
        x = forced[i] if i < forced.size else touched[i - forced.size]
        first = not flag[x]
        if i >= forced.size and not first:
            continue
        flag[x] = True
        differs = value[x] != previous_value[x] or (with_parents and parent[x] != previous_parent[x])
        if keep and first and (value[x] != previous_value[x] or parent[x] != previous_parent[x]):
            logged[m] = x
            logged_value[m] = previous_value[x]
            logged_parent[m] = previous_parent[x]
            m += 1
        previous_value[x] = value[x]
        previous_parent[x] = parent[x]
        if alive[x] and first and (i < forced.size or differs):
            changed[k] = x
            k += 1
    for i in range(forced.size):
        flag[forced[i]] = False
    for i in range(touched.size):
        flag[touched[i]] = False
    return changed[:k].copy(), logged[:m].copy(), logged_value[:m].copy(), logged_parent[:m].copy()


# ------------------------------------------------------------------ the glue
def _shift(table):
    return np.uint64(64 - (int(table.size).bit_length() - 1))


def _i64(a):
    return np.ascontiguousarray(a, dtype=np.int64)


def _sorted_by_slot(owners, slots):
    """``owners`` and ``slots`` (distinct, below 2**32) in ascending slot order.

    Each slot is sorted with its row number in its low bits: NumPy's sort of
    int64 values is about three times faster than its argsort (5,000 rows:
    16 us against 35 us, warm).
    """
    n = int(slots.size)
    bits = max(n - 1, 1).bit_length()
    if bits > 31:                         # (slot << bits would not fit in an int64)
        order = np.argsort(slots)
        return owners[order], slots[order]
    packed = np.sort((slots << bits) | np.arange(n, dtype=np.int64))
    return owners[packed & ((1 << bits) - 1)], packed >> bits


def _rule_args(rule, value):
    has_unreachable = rule.unreachable is not None
    unreachable = value.dtype.type(rule.unreachable if has_unreachable else 0)
    return _EXTENDS[rule.extend], 0 if rule.order == "min" else 1, has_unreachable, unreachable


def _sides(adjs, with_weights):
    first = adjs[0]
    second = adjs[1] if len(adjs) > 1 else first
    arrays = []
    for adj in (first, second):
        arrays += [adj.start, adj.degree, adj.nbr] + ([adj.wgt] if with_weights else [])
    return arrays + [len(adjs)]


# ------------------------------------------------------------------ PageRank
@_jit
def _gather_lists(start, degree, nbr, wgt, weighted, vertices, values, sums, lo, hi, into, accumulate):
    """``sums[i]`` for ``lo <= i < hi``: the sum of ``values`` (times the arc weights,
    as float64) over the list of ``vertices[i]``, read where it lies in the
    adjacency, in list order (no gathered copy of the lists, no second pass);
    with ``accumulate``, ``into[vertices[i]] += sum`` instead (the vertices are
    distinct)."""
    for i in range(lo, hi):
        first = start[vertices[i]]
        end = first + degree[vertices[i]]
        total = 0.0
        if weighted:
            for j in range(first, end):
                total += np.float64(wgt[j]) * values[nbr[j]]
        else:
            for j in range(first, end):
                total += values[nbr[j]]
        if accumulate:
            into[vertices[i]] += total
        else:
            sums[i] = total


@_jit
def _spread_amounts(shift, teleport, factor, dangling, index, first, rank, residual, share):
    """A dense PageRank round's first step (``Backend.pagerank_spread``) at vertices
    ``index[k]`` (or ``first + k`` when ``index`` is empty): the amount ``a =
    residual + shift * teleport`` (``teleport`` empty: ``+ shift``) goes from the
    residual to the rank, ``share = a * factor``; returns the sums of the amounts
    and of the dangling vertices' amounts."""
    total = 0.0
    held = 0.0
    for k in range(factor.size):
        v = index[k] if index.size else first + k
        r = residual[v]
        a = r + (shift * teleport[v] if teleport.size else shift)
        rank[v] += a
        residual[v] = r - a
        share[v] = a * factor[k]
        total += a
        if dangling[k]:
            held += a
    return total, held


@_jit
def _correct_arcs(rank, residual, degree, inserted_u, inserted_v, deleted_u, deleted_v, alpha, flag, slot):
    """``Backend.pagerank_correct_arcs``: each source found at its first arc (``flag``:
    per-vertex scratch, False on entry and on return; ``slot``: per-vertex scratch,
    any values), its degree change tallied per source, then the arcs' corrections
    and the sources' rescales in :meth:`Backend.pagerank_correct`'s order.
    Returns ``(sources, changed, joined, left)``."""
    inserted = inserted_u.size
    arcs = inserted + deleted_u.size
    sources = np.empty(arcs, dtype=np.int64)
    change = np.zeros(arcs, dtype=np.float64)
    at = np.empty(arcs, dtype=np.int64)
    count = 0
    for k in range(arcs):
        u = inserted_u[k] if k < inserted else deleted_u[k - inserted]
        if not flag[u]:
            flag[u] = True
            slot[u] = count
            sources[count] = u
            count += 1
        at[k] = slot[u]
        change[at[k]] += 1.0 if k < inserted else -1.0
    per_unit = np.empty(count, dtype=np.float64)
    for s in range(count):
        u = sources[s]
        flag[u] = False
        new_total = np.float64(degree[u])
        change[s] = new_total - change[s]                   # (now the total before the batch)
        base = change[s] if change[s] > 0.0 else new_total
        per_unit[s] = alpha * rank[u] / base if base > 0.0 else 0.0
    for k in range(arcs):
        if k < inserted:
            residual[inserted_v[k]] += per_unit[at[k]]
        else:
            residual[deleted_v[k - inserted]] += per_unit[at[k]] * -1.0
    changed = joined = left = 0.0
    for s in range(count):
        u = sources[s]
        before = rank[u]
        old_total, new_total = change[s], np.float64(degree[u])
        after = before * (new_total / old_total) if old_total > 0.0 and new_total > 0.0 else before
        rank[u] = after
        residual[u] += before - after
        changed += after - before
        if new_total == 0.0 and old_total > 0.0:
            joined += before
        if old_total == 0.0 and new_total > 0.0:
            left += before
    return sources[:count].copy(), changed, joined, left


class ListsPlan(NamedTuple):
    """The compiled kernels' gather plan: the lists themselves (read in place, so a
    plan costs no copy of them), the vertices, and the running total of their degrees."""

    adj: object
    vertices: object
    ends: object          # ends[i]: the entries of the lists of vertices[0..i]
    weighted: bool


class Kernels:
    """The compiled operators, called by :class:`~cugraph_stream.backends.cpu.CPUBackend`
    (same arguments and results as its NumPy operators; ``scratch`` is the
    backend's, holding per-vertex arrays that the kernels leave zeroed)."""

    def hash_find(self, table, keys):
        return _hash_find(table, _i64(keys), _shift(table))

    def hash_claim(self, table, keys):
        return _hash_claim(table, _i64(keys), _shift(table))

    def hash_build(self, table, keys):
        return _hash_claim(table, _i64(keys), _shift(table))[0]

    def arc_find(self, table, adj, keys):
        keys = _i64(keys)
        found = np.empty(keys.size, dtype=np.int64)
        split(lambda lo, hi: _arc_find(table, keys[lo:hi], adj.start, adj.degree, adj.nbr, found[lo:hi]),
              keys.size, _SPLIT_PROBES)
        return found

    def gather_plan(self, adj, vertices, weighted=False):
        vertices = _i64(vertices)
        return ListsPlan(adj, vertices, np.cumsum(adj.degree[vertices]), bool(weighted))

    def gather_sum(self, plan, values):
        sums = np.empty(plan.vertices.size, dtype=np.float64)
        entries = self._gather(plan, values.astype(np.float64, copy=False), sums, sums, False)
        return sums.astype(values.dtype, copy=False), entries

    def _gather(self, plan, values, sums, into, accumulate):
        """:func:`_gather_lists` over the plan's vertices, in ranges of about the same
        number of entries each (a list is never cut) on the threads; the entries read."""
        adj, vertices, ends, weighted = plan
        entries = int(ends[-1]) if ends.size else 0
        parts = max(1, min(thread_count(), entries // _SPLIT_ARCS))
        bounds = np.searchsorted(ends, np.arange(parts + 1) * (entries / parts), side="right").tolist()
        bounds[0], bounds[-1] = 0, int(vertices.size)

        def sum_ranges(lo, hi):
            for p in range(lo, hi):
                _gather_lists(adj.start, adj.degree, adj.nbr, adj.wgt, weighted, vertices, values, sums,
                              bounds[p], bounds[p + 1], into, accumulate)
        split(sum_ranges, parts, 1)
        return entries

    def pagerank_correct_arcs(self, rank, residual, degree, inserted_u, inserted_v, deleted_u, deleted_v, alpha,
                              flag, slot):
        sources, changed, joined, left = _correct_arcs(rank, residual, _i64(degree), _i64(inserted_u),
                                                       _i64(inserted_v), _i64(deleted_u), _i64(deleted_v),
                                                       float(alpha), flag, slot)
        return sources, [float(changed), float(joined), float(left)]

    def pagerank_spread(self, plan, shift, teleport, factor, dangling, rank, residual, share, index, rounds,
                        alpha, divisor):
        # a round: the amounts in one pass, then the gather adding into the residual
        at = _i64(index) if not isinstance(index, slice) else _EMPTY_INDEX
        first = 0 if not isinstance(index, slice) else index.indices(rank.size)[0]
        teleport = _NO_TELEPORT if teleport is None else teleport
        added = held = 0.0
        read = 0
        for _ in range(rounds):
            round_added, round_held = _spread_amounts(float(shift), teleport, factor, dangling, at, first, rank,
                                                      residual, share)
            read += self._gather(plan, share, residual, residual, True)      # (sums: not written)
            added, held = added + round_added, held + round_held
            shift += (alpha * round_held + (1.0 - alpha) * round_added) / divisor
        return Known([float(added), float(held)]), read

    def arc_claim(self, table, keys, slots):
        return _arc_claim(table, _i64(keys), _i64(slots))

    def arc_build(self, table, keys, slots):
        _arc_claim(table, _i64(keys), _i64(slots))

    def arc_locate(self, table, keys, slots):
        keys, slots = _i64(keys), _i64(slots)
        found = np.empty(keys.size, dtype=np.int64)
        split(lambda lo, hi: _arc_locate(table, keys[lo:hi], slots[lo:hi], found[lo:hi]), keys.size,
              _SPLIT_PROBES)
        return found

    def net_changes(self, keys, codes, weights, table, adj):
        n = int(keys.size)
        bits = max(4, (2 * n - 1).bit_length())
        weights = np.ascontiguousarray(weights)
        keys = _i64(keys)
        inserted, inserted_w, deleted, updated, updated_w, counts = _net_changes(
            keys, np.ascontiguousarray(codes), weights, self.arc_find(table, adj, keys), table,
            adj.wgt.astype(weights.dtype, copy=False), bits)
        names = ("inserted", "deleted", "weight_updated", "unchanged", "cancelled", "ignored")
        return NetChanges(inserted[1], inserted[2], inserted_w, inserted[0], *deleted, *updated[:2], updated_w,
                          updated[2], dict(zip(names, (int(c) for c in counts))))

    def lookup_sorted(self, keys, values, queries):
        """None where the NumPy path does better: keys beyond the caches, where its
        sorted queries walk the keys in cache order (20K queries: 0.27 ms against
        0.71 ms into 46K keys, 5.7 ms against 2.1 ms into 1M keys)."""
        if keys.size > _SEARCH_UNSORTED_KEYS:
            return None
        return _lookup_sorted(_i64(keys), _i64(values), _i64(queries)).reshape(queries.shape)

    def lookup_dense(self, table, queries):
        return _lookup_dense(np.ascontiguousarray(table), _i64(queries).ravel()).reshape(queries.shape)

    def missing_ends(self, ids, ends, codes):
        return _missing_ends(_i64(ids), _i64(ends), np.ascontiguousarray(codes), np.int8(INSERT))

    def merge_sorted(self, keys, values, more_keys, more_values):
        return _merge_sorted(_i64(keys), _i64(values), _i64(more_keys), _i64(more_values))

    def place_entries(self, adj, owners, neighbours, weights, slots, count):
        pending = int(slots.size)
        if pending == 0:
            return _EMPTY_INDEX, _EMPTY_INDEX
        return _place_entries(adj.start, adj.degree, adj.capacity, adj.nbr, adj.wgt, _i64(owners),
                              _i64(neighbours), weights, slots, count)

    def close_holes(self, adj, owners, slots):
        if slots.size == 0:
            return _EMPTY_INDEX, _EMPTY_INDEX, _EMPTY_INDEX
        removed = self.remove_entries(adj, owners, slots, keep=False)      # (rows sorted by slot already)
        return removed.owner, removed.source, removed.target

    def remove_entries(self, adj, owners, slots, keep=True):
        n = int(slots.size)
        owners, slots = _i64(owners), _i64(slots)
        if n > 1:
            owners, slots = _sorted_by_slot(owners, slots)
        with_twin = adj.twin is not None
        twin = adj.twin if with_twin else _NO_TWINS
        size = n if keep else 0
        old = (np.empty(size, adj.nbr.dtype), np.empty(size, adj.wgt.dtype), np.empty(size if with_twin else 0,
                                                                                       twin.dtype))
        lists, old_degree = np.empty(size, np.int64), np.empty(size, adj.degree.dtype)
        moved = (np.empty(n, adj.nbr.dtype), np.empty(n, adj.wgt.dtype), np.empty(n if with_twin else 0, twin.dtype))
        owner, source, target, m, k = _remove_entries(adj.start, adj.degree, adj.nbr, adj.wgt, twin, with_twin,
                                                      owners, slots, keep, *old, lists, old_degree, *moved)
        if not keep:
            return RemovedEntries(owner, source, target, slots, None, None, None, None, int(owner.size))
        old_twin, moved_twin = (old[2], moved[2][:m]) if with_twin else (None, None)
        return RemovedEntries(owner, source, target, slots, lists[:k], old_degree[:k], (old[0], old[1], old_twin),
                              (moved[0][:m], moved[1][:m], moved_twin), m)

    def last_rows_by_arc(self, u, v):
        """None where the NumPy path does better: ids so large against the rows
        that the counting sorts' arrays (one counter per id) would outweigh them."""
        u, v = _i64(u), _i64(v)
        if u.size == 0:
            return _EMPTY_INDEX
        bound = int(max(u.max(), v.max())) + 1
        if bound > 4 * u.size + _COUNTING_SORT_SLACK:
            return None
        return _last_rows_by_arc(u, v, bound)

    def slots_in_lists(self, owners, start):
        return _slots_in_lists(_i64(owners), _i64(start))

    def plan_moves(self, adj, vertices, need, base, align):
        vertices = _i64(vertices)
        regions = (align // MIN_LIST_SLOTS).bit_length()
        new_start, room, first, room_total, moved, padding = _plan_moves(adj.degree, vertices, _i64(need), int(base),
                                                                         int(align), regions)
        old_capacity = adj.capacity[vertices]
        return MovePlan(new_start, room, first, adj.start[vertices], old_capacity, int(room_total), int(moved),
                        int(old_capacity.sum()) + int(padding))

    def move_lists(self, adj, vertices, new_start, room, first, moved):
        twin = adj.twin if adj.twin is not None else _NO_TWINS
        return _move_lists(adj.start, adj.degree, adj.capacity, adj.nbr, adj.wgt, twin, adj.twin is not None,
                           _i64(vertices), _i64(new_start), _i64(room), _i64(first), int(moved))

    def record_changes(self, forced, touched, value, parent, previous_value, previous_parent, alive, with_parents,
                       flag, keep=False):
        """``(changed, written)``: ``written`` None, or with ``keep`` the vertices whose
        records changed and what their two records held ``(vertices, values, parents)``."""
        changed, vertices, values, parents = _record_changes(
            _i64(forced), _i64(touched), value, parent, previous_value, previous_parent, alive, bool(with_parents),
            flag, bool(keep))
        return changed, ((vertices, values, parents) if keep else None)

    def relax_arcs(self, u, v, w, value, parent, rule, flag):
        if u.size == 0:
            return _EMPTY_INDEX
        code, order, has_unreachable, unreachable = _rule_args(rule, value)
        w = w if w is not None and w.size == u.size else np.zeros(u.size, dtype=value.dtype)
        return _relax_arcs(_i64(u), _i64(v), np.ascontiguousarray(w), value, parent, code, order,
                           has_unreachable, unreachable, flag)

    def pull(self, adj, targets, value, parent, rule):
        if targets.size == 0:
            return 0
        code, order, has_unreachable, unreachable = _rule_args(rule, value)
        return int(_pull(adj.start, adj.degree, adj.nbr, adj.wgt, _i64(targets), value, parent, code, order,
                         has_unreachable, unreachable))

    def invalidate(self, adjs, seeds, parent, flag):
        arrays = _sides(adjs, with_weights=False)
        invalidated, edges = _invalidate(*arrays[:-1], arrays[-1], _i64(seeds), parent, flag)
        return invalidated, int(edges)

    def converge(self, adjs, frontier, value, parent, rule, queued):
        if frontier.size == 0:
            return frontier, 0
        code, order, _, _ = _rule_args(rule, value)
        arrays = _sides(adjs, with_weights=True)
        activated, edges = _converge(*arrays[:-1], arrays[-1], _i64(frontier), value, parent, code, order, queued)
        return activated, int(edges)
