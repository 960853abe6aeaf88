"""The byte layout of a hot-cache chunk, shared by the engine and the backends.

A chunk of ``n_slots`` slots is one allocation holding a neighbour array
followed, when the cache keeps weights, by a weight array starting on the
next :data:`SECTION_ALIGN` boundary (:func:`chunk_layout`).  Neighbour ids
take 4 bytes (``int32``) or, while every id is below
:data:`PACKED_ID_LIMIT`, 3 (*packed*: the array is ``uint8`` of shape
``(n_slots, 3)``, little-endian; :func:`write_ids` and :func:`read_ids`
convert).  Packed ids let a cache of the same bytes hold a third more
lists; kernels find a packed list through an address tagged with
:data:`PACKED_IDS_TAG` (``cgs::Neighbours`` in ``kernels/common.cuh``).

This module knows no device: the cache's bookkeeping
(:mod:`cugraph_stream.engine.cache`) and the chunk allocators
(:mod:`cugraph_stream.backends.chunks`) both import it, and the functions
take NumPy or CuPy arrays alike.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

#: start of the weight array inside a chunk's allocation (bytes; RMM and
#: CuPy's pool both hand out blocks aligned to at least this)
SECTION_ALIGN = 256
#: neighbour ids below this bound fit in 3 bytes
PACKED_ID_LIMIT = 1 << 24
#: bit set in a list address whose neighbour ids are packed in 3 bytes (device
#: addresses stay far below it)
PACKED_IDS_TAG = 1 << 63


class Chunk(NamedTuple):
    """One chunk of cache storage: ``nbr`` (int32, or uint8 rows of 3 packed bytes)
    and ``wgt`` arrays of the same length (``wgt`` is None in a chunk of neighbours only)."""

    nbr: object
    wgt: object


def check_id_bytes(id_bytes):
    """``id_bytes`` as an int, or ``ValueError`` unless it is 3 (packed) or 4."""
    if id_bytes not in (3, 4):
        raise ValueError(f"id_bytes must be 3 or 4, got {id_bytes!r}")
    return int(id_bytes)


def chunk_layout(n_slots, weight_dtype=None, id_bytes=4):
    """``(total_bytes, weight_offset)`` of a chunk of ``n_slots`` slots
    (``weight_dtype=None``: neighbours only, ``weight_offset`` None; ``id_bytes``:
    4, or 3 for packed ids).

    >>> chunk_layout(1000, np.float32), chunk_layout(1000), chunk_layout(1000, id_bytes=3)
    ((8096, 4096), (4000, None), (3000, None))
    """
    n_slots = int(n_slots)
    nbr_bytes = check_id_bytes(id_bytes) * n_slots
    if weight_dtype is None:
        return nbr_bytes, None
    weight_offset = nbr_bytes + (-nbr_bytes) % SECTION_ALIGN
    return weight_offset + n_slots * np.dtype(weight_dtype).itemsize, weight_offset


def write_ids(xp, nbr, index, ids):
    """``nbr[index] = ids`` for a chunk's neighbour array, packed or not.

    >>> packed = np.zeros((4, 3), dtype=np.uint8)
    >>> write_ids(np, packed, np.array([1, 3]), np.array([0x123456, 7]))
    >>> packed[1].tolist(), read_ids(packed, np.array([3, 1])).tolist()
    ([86, 52, 18], [7, 1193046])
    """
    if nbr.ndim == 1:
        nbr[index] = ids
        return
    ids = ids.astype(xp.int32, copy=False)
    nbr[index] = xp.stack([(ids >> shift) & 0xFF for shift in (0, 8, 16)], axis=1).astype(xp.uint8)


def read_ids(nbr, index):
    """``nbr[index]`` as int32 ids, for a chunk's neighbour array (NumPy or CuPy), packed
    or not (``index``: an integer array or a slice)."""
    if nbr.ndim == 1:
        return nbr[index]
    rows = nbr[index].astype(np.int32)
    return rows[:, 0] | (rows[:, 1] << 8) | (rows[:, 2] << 16)
