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
                   SINGLE_ROW_PARENTS, SINGLE_UNCHANGED, SINGLE_UPDATED, SR_AT, SR_AT_WAS, SR_CUTS, SR_IN_DEGREE,
                   SR_IN_LAST, SR_IN_SLOT, SR_MOVED_AT, SR_NEW, SR_OLD, SR_OUT_DEGREE, SR_OUT_LAST, SR_OUT_SLOT,
                   SR_STATUS, SR_TWIN_AT, SR_U, SR_V, SR_WORDS, SingleRow)

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
    """Position of present arc ``key``'s entry holding ``slot``."""
    at, capacity = _home(key, table.size), int(table.size)
    while int(table[at]) != slot:
        at = _next(at, capacity)
    return at


def apply_single_row(ids, src, dst, weight, op, table, out, inn, parents=()):
    """See :meth:`~cugraph_stream.backends.base.Backend.apply_single_row`."""
    if len(parents) > SINGLE_ROW_PARENTS:
        raise ValueError(f"apply_single_row checks at most {SINGLE_ROW_PARENTS} parent arrays")
    record = np.full(SR_WORDS, -1, dtype=np.int64)
    record[SR_CUTS] = 0
    weights = np.zeros(2, dtype=out.wgt.dtype)
    record[SR_STATUS] = SINGLE_FALLBACK
    weights[SR_NEW] = weight
    u, v = _vertex(ids, int(src)), _vertex(ids, int(dst))
    record[SR_U], record[SR_V] = u, v
    if u < 0 or v < 0:              # an insert creates a vertex: the general path; a delete finds no edge
        if op != 1:
            record[SR_STATUS] = SINGLE_IGNORED
        return SingleRow(record, weights)
    key = (u << 32) | v
    at = _probe(table, key, out)
    record[SR_AT] = at
    if op == 1 and at < 0:          # insert an absent edge, where both lists have room
        out_fill, in_fill = int(out.degree[u]), int(inn.degree[v])
        if out_fill >= int(out.capacity[u]) or in_fill >= int(inn.capacity[v]):
            return SingleRow(record, weights)
        position, capacity = _home(key, table.size), int(table.size)
        while int(table[position]) < DELETED_SLOT:
            position = _next(position, capacity)
        out_slot, in_slot = int(out.start[u]) + out_fill, int(inn.start[v]) + in_fill
        record[[SR_OUT_SLOT, SR_IN_SLOT, SR_AT, SR_AT_WAS, SR_OUT_DEGREE, SR_IN_DEGREE]] = (
            out_slot, in_slot, position, int(table[position]), out_fill, in_fill)
        out.nbr[out_slot], out.wgt[out_slot], out.twin[out_slot] = v, weight, in_slot
        inn.nbr[in_slot], inn.wgt[in_slot] = u, weight
        out.degree[u], inn.degree[v] = out_fill + 1, in_fill + 1
        table[position] = out_slot
        record[SR_STATUS] = SINGLE_INSERTED
        return SingleRow(record, weights)
    if at < 0:                      # delete an absent edge
        record[SR_STATUS] = SINGLE_IGNORED
        return SingleRow(record, weights)
    out_slot = int(table[at])
    in_slot = int(out.twin[out_slot])
    old = out.wgt[out_slot]
    weights[SR_OLD] = old
    record[SR_OUT_SLOT], record[SR_IN_SLOT] = out_slot, in_slot
    if op == 1:                     # insert a present edge: its weight, if another
        if old == weights[SR_NEW]:
            record[SR_STATUS] = SINGLE_UNCHANGED
            return SingleRow(record, weights)
        out.wgt[out_slot] = inn.wgt[in_slot] = weights[SR_NEW]
        record[SR_STATUS] = SINGLE_UPDATED
        return SingleRow(record, weights)
    # delete a present edge: each list's last entry fills its hole
    out_fill, in_fill = int(out.degree[u]), int(inn.degree[v])
    out_last, in_last = int(out.start[u]) + out_fill - 1, int(inn.start[v]) + in_fill - 1
    moved_out, moved_in = int(out.nbr[out_last]), int(inn.nbr[in_last])
    moved_at = _position_of(table, (u << 32) | moved_out, out_last) if out_last != out_slot else -1
    record[[SR_OUT_DEGREE, SR_IN_DEGREE, SR_AT_WAS, SR_MOVED_AT, SR_OUT_LAST, SR_IN_LAST]] = (
        out_fill, in_fill, out_slot, moved_at, out_last, in_last)
    out.nbr[out_slot], out.wgt[out_slot], out.twin[out_slot] = moved_out, out.wgt[out_last], out.twin[out_last]
    out.degree[u] = out_fill - 1
    inn.nbr[in_slot], inn.wgt[in_slot] = moved_in, inn.wgt[in_last]
    inn.degree[v] = in_fill - 1
    table[at] = DELETED_SLOT
    if moved_at >= 0:
        table[moved_at] = out_slot
    twin_at = -1
    if in_last != in_slot:          # the moved in-entry's arc moved_in -> v: its out-entry's twin
        twin_at = int(table[_probe(table, (moved_in << 32) | v, out)])
        out.twin[twin_at] = in_slot
    record[SR_TWIN_AT] = twin_at
    record[SR_CUTS] = sum(1 << k for k, parent in enumerate(parents) if parent[v] == u or parent[u] == v)
    record[SR_STATUS] = SINGLE_DELETED
    return SingleRow(record, weights)
