"""The CPU's :meth:`~cugraph_stream.backends.base.Backend.apply_single_row`: one
row applied with Python scalars, step for step as ``kernels/single_row.cu``
applies it on the GPU (the same writes in the same order, the same record).

One row reads and writes a few dozen array elements; NumPy scalar indexing
does that in microseconds, so neither NumPy's vector calls nor numba pay
here, and the backend needs no compiled kernels for it.
"""
from __future__ import annotations

import numpy as np

from .base import (DELETED_SLOT, EMPTY_SLOT, SINGLE_DELETED, SINGLE_FALLBACK, SINGLE_IGNORED, SINGLE_INSERTED,
                   SINGLE_ROW_TREES, SINGLE_UNCHANGED, SINGLE_UPDATED, SR_AT, SR_AT_WAS, SR_CUTS, SR_ENDS,
                   SR_IN_DEGREE, SR_IN_LAST, SR_IN_SLOT, SR_MIRROR_AT, SR_MIRROR_AT_WAS, SR_MIRROR_MOVED_AT, SR_MOVED_AT,
                   SR_NEW, SR_OLD, SR_OUT_DEGREE, SR_OUT_LAST, SR_OUT_SLOT, SR_STATUS, SR_TWIN_AT, SR_U, SR_U_AGAIN,
                   SR_V, SR_WEIGHTS, SR_WORDS, SingleRow, set_end_value)

_GOLDEN = 0x9E3779B97F4A7C15
_WORD = (1 << 64) - 1


def _vertex(ids, x):
    """Internal id of external id ``x`` (-1 for none) in ``ids``, as
    :meth:`~cugraph_stream.backends.base.Backend.apply_single_row` takes it."""
    keys, values = ids
    if values is None:                      # a dense map
        return int(keys[x]) if 0 <= x < keys.size else -1
    at = int(np.searchsorted(keys, x))
    return int(values[at]) if at < keys.size and int(keys[at]) == x else -1


def _home(key, capacity):
    """``cpu.arc_home`` of one key, in Python ints (``__umul64hi`` of the hash and the capacity)."""
    return (((key * _GOLDEN) & _WORD) * capacity) >> 64


def _next(at, capacity):
    return 0 if at + 1 == capacity else at + 1


def _probe(table, key, out):
    """Position of arc ``key`` in ``table`` (-1 where absent), as ``arc_probe`` in kernels/hash.cuh."""
    u, v = key >> 32, key & 0xFFFFFFFF
    first = int(out.start[u])
    end = first + int(out.degree[u])
    at, capacity = _home(key, table.size), int(table.size)
    while True:
        seen = int(table[at])
        if seen == EMPTY_SLOT:
            return -1
        if seen != DELETED_SLOT and first <= seen < end and int(out.nbr[seen]) == v:
            return at
        at = _next(at, capacity)


def _position_of(table, key, slot):
    """Position of arc ``key``'s entry holding ``slot``, or -1 where an empty position
    ends the probe first (``arc_position`` in kernels/hash.cuh)."""
    at, capacity = _home(key, table.size), int(table.size)
    while True:
        seen = int(table[at])
        if seen == slot:
            return at
        if seen == EMPTY_SLOT:
            return -1
        at = _next(at, capacity)


def _free_position(table, key):
    """The first free position (empty or deleted) from arc ``key``'s home."""
    at, capacity = _home(key, table.size), int(table.size)
    while int(table[at]) < DELETED_SLOT:
        at = _next(at, capacity)
    return at


def apply_single_row(ids, src, dst, weight, op, table, out, inn, trees=()):
    """See :meth:`~cugraph_stream.backends.base.Backend.apply_single_row`."""
    if len(trees) > SINGLE_ROW_TREES:
        raise ValueError(f"apply_single_row reads at most {SINGLE_ROW_TREES} trees")
    record = np.full(SR_WORDS, -1, dtype=np.int64)
    record[SR_ENDS:] = 0
    weights = np.zeros(SR_WEIGHTS, dtype=out.wgt.dtype)
    record[SR_STATUS], record[SR_CUTS] = SINGLE_FALLBACK, 0
    weights[SR_NEW:SR_NEW + 2] = weight
    weight = weights[SR_NEW]
    undirected = inn is out
    u, v = _vertex(ids, int(src)), _vertex(ids, int(dst))
    if undirected and v < u:
        u, v = v, u
    record[SR_U], record[SR_V], record[SR_U_AGAIN] = u, v, u
    if u < 0 or v < 0:              # an insert creates a vertex: the general path; a delete finds no edge
        if op != 1:
            record[SR_STATUS] = SINGLE_IGNORED
        return SingleRow(record, weights)
    for k, (_, value) in enumerate(trees):
        set_end_value(record, SR_ENDS + 2 * k, value[u])
        set_end_value(record, SR_ENDS + 2 * k + 1, value[v])
    mirrored = undirected and u != v            # (an undirected loop is one arc)
    second = not undirected or mirrored         # an entry in v's list besides u's
    key, mirror_key = (u << 32) | v, (v << 32) | u
    at = _probe(table, key, out)
    record[SR_AT] = at
    if op == 1 and at < 0:          # insert an absent edge, where both lists have room
        out_fill, in_fill = int(out.degree[u]), int(inn.degree[v]) if second else 0
        if out_fill >= int(out.capacity[u]) or (second and in_fill >= int(inn.capacity[v])):
            return SingleRow(record, weights)
        out_slot = int(out.start[u]) + out_fill
        in_slot = int(inn.start[v]) + in_fill if second else -1
        position = _free_position(table, key)
        record[[SR_OUT_SLOT, SR_IN_SLOT, SR_AT, SR_AT_WAS, SR_OUT_DEGREE, SR_IN_DEGREE]] = (
            out_slot, in_slot, position, int(table[position]), out_fill, in_fill)
        out.nbr[out_slot], out.wgt[out_slot] = v, weight
        if not undirected:
            out.twin[out_slot] = in_slot
        if second:
            inn.nbr[in_slot], inn.wgt[in_slot] = u, weight
        out.degree[u] = out_fill + 1
        if second:
            inn.degree[v] = in_fill + 1
        table[position] = out_slot
        if mirrored:                # (after the first arc's claim: it skips that position)
            mirror_at = _free_position(table, mirror_key)
            record[SR_MIRROR_AT], record[SR_MIRROR_AT_WAS] = mirror_at, int(table[mirror_at])
            table[mirror_at] = in_slot
        record[SR_STATUS] = SINGLE_INSERTED
        return SingleRow(record, weights)
    if at < 0:                      # delete an absent edge
        record[SR_STATUS] = SINGLE_IGNORED
        return SingleRow(record, weights)
    out_slot = int(table[at])
    mirror_at = _probe(table, mirror_key, out) if mirrored else -1
    in_slot = int(out.twin[out_slot]) if not undirected else int(table[mirror_at]) if mirrored else -1
    old = out.wgt[out_slot]
    weights[SR_OLD:SR_OLD + 2] = old
    record[SR_OUT_SLOT], record[SR_IN_SLOT] = out_slot, in_slot
    if op == 1:                     # insert a present edge: its weight, if another
        if old == weight:
            record[SR_STATUS] = SINGLE_UNCHANGED
            return SingleRow(record, weights)
        out.wgt[out_slot] = weight
        if second:
            inn.wgt[in_slot] = weight
        record[SR_STATUS] = SINGLE_UPDATED
        return SingleRow(record, weights)
    # delete a present edge: each list's last entry fills its hole (every position found before any write)
    out_fill, in_fill = int(out.degree[u]), int(inn.degree[v]) if second else 0
    out_last = int(out.start[u]) + out_fill - 1
    in_last = int(inn.start[v]) + in_fill - 1 if second else -1
    moved_out, moved_in = int(out.nbr[out_last]), int(inn.nbr[in_last]) if second else -1
    # an entry moves where the deleted one was not its list's last
    out_moves, in_moves = out_last != out_slot, second and in_last != in_slot
    moved_at = _position_of(table, (u << 32) | moved_out, out_last) if out_moves else -1
    mirror_moves = mirrored and in_moves
    mirror_moved_at = _position_of(table, (v << 32) | moved_in, in_last) if mirror_moves else -1
    # directed: the moved in-entry's arc moved_in -> v, whose out-entry's twin follows it
    twin_follows = not undirected and in_moves
    arc_at = _probe(table, (moved_in << 32) | v, out) if twin_follows else -1
    if (out_moves and moved_at < 0) or (mirror_moves and mirror_moved_at < 0) or (twin_follows and arc_at < 0):
        return SingleRow(record, weights)   # the index disagrees with the lists: left to the general path
    record[[SR_OUT_DEGREE, SR_IN_DEGREE, SR_AT_WAS, SR_MOVED_AT, SR_OUT_LAST, SR_IN_LAST]] = (
        out_fill, in_fill, out_slot, moved_at, out_last, in_last)
    out.nbr[out_slot], out.wgt[out_slot] = moved_out, out.wgt[out_last]
    if not undirected:
        out.twin[out_slot] = out.twin[out_last]
    out.degree[u] = out_fill - 1
    if second:
        inn.nbr[in_slot], inn.wgt[in_slot] = moved_in, inn.wgt[in_last]
        inn.degree[v] = in_fill - 1
    table[at] = DELETED_SLOT
    if moved_at >= 0:
        table[moved_at] = out_slot
    if mirrored:                    # the mirror arc leaves the index; its moved entry's position follows
        record[[SR_MIRROR_AT, SR_MIRROR_AT_WAS, SR_MIRROR_MOVED_AT]] = mirror_at, in_slot, mirror_moved_at
        table[mirror_at] = DELETED_SLOT
        if mirror_moved_at >= 0:
            table[mirror_moved_at] = in_slot
    elif twin_follows:              # (arc_at: another arc's position, which the writes above left alone)
        twin_at = int(table[arc_at])
        record[SR_TWIN_AT] = twin_at
        out.twin[twin_at] = in_slot
    record[SR_CUTS] = sum(1 << k for k, (parent, _) in enumerate(trees) if parent[v] == u or parent[u] == v)
    record[SR_STATUS] = SINGLE_DELETED
    return SingleRow(record, weights)
