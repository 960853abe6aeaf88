"""Memory for the hot-subgraph cache: fixed-size chunks of neighbour and weight slots.

The cache (:mod:`cugraph_stream.engine.cache`) keeps its lists in chunks of
``n_slots`` slots; a chunk is one allocation holding a neighbour array
followed, when the cache keeps weights, by a weight array (both start on a
256-byte boundary).  Neighbour ids take 4 bytes (``int32``) or, while every
id is below :data:`PACKED_ID_LIMIT`, 3 (*packed*: the array is ``uint8`` of
shape ``(n_slots, 3)``, little-endian; :func:`write_ids` and
:func:`read_ids` convert).  Packed ids let a cache of the same bytes hold a
third more lists; kernels find a packed list through an address tagged
with :data:`PACKED_IDS_TAG` (``cgs::Neighbours`` in ``kernels/common.cuh``).
The cache never allocates memory itself: it asks an allocator, so the same
bookkeeping runs on NumPy arrays in host memory (:class:`HostChunkAllocator`,
for tests and the CPU backend) and on GPU memory from an RMM pool or CuPy's
pool (:class:`DeviceChunkAllocator`).

An allocator has ``allocate(n_slots, weight_dtype, id_bytes, nbytes) ->
Chunk`` (a ``(nbr, wgt)`` pair; ``wgt`` is None for ``weight_dtype=None``;
``nbytes`` pads the allocation to a size every chunk of a pool shares),
``release(chunk)``, ``address(array)`` (the data pointer, for kernels that take a table of chunk
base addresses), ``held_bytes`` and ``fits(nbytes)``: caches that share one
allocator share its ``capacity_bytes`` (one budget for the out- and
in-adjacency caches of a store).
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


def _sizes(n_slots, weight_dtype, id_bytes, nbytes):
    """``(allocation bytes, weight offset, n_slots)`` of a chunk."""
    n_slots = int(n_slots)
    total, weight_offset = chunk_layout(n_slots, weight_dtype, id_bytes)
    if nbytes is not None:
        if int(nbytes) < total:
            raise ValueError(f"nbytes={nbytes} is below the {total} bytes of {n_slots} slots")
        total = int(nbytes)
    return total, weight_offset, n_slots


def _nbr_view(block, id_bytes, n_slots):
    """A chunk's neighbour array over its first ``id_bytes * n_slots`` bytes (NumPy)."""
    return block.view(np.int32) if id_bytes == 4 else block.reshape(n_slots, 3)


class _Accounting:
    """Bytes held by the chunks handed out and not yet released, under an optional capacity."""

    def __init__(self, capacity_bytes=None):
        self._held = {}          # id(chunk.nbr) -> (chunk, bytes): the reference keeps the id unique
        self.capacity_bytes = None if capacity_bytes is None else int(capacity_bytes)

    def fits(self, nbytes):
        """Whether a chunk of ``nbytes`` more stays within :attr:`capacity_bytes`."""
        return self.capacity_bytes is None or self.held_bytes + int(nbytes) <= self.capacity_bytes

    def _check_fits(self, nbytes):
        if not self.fits(nbytes):
            raise ValueError(f"a chunk of {nbytes} bytes exceeds the allocator's capacity of "
                             f"{self.capacity_bytes} bytes ({self.held_bytes} held)")

    def _track(self, chunk, nbytes):
        self._held[id(chunk.nbr)] = (chunk, nbytes)
        return chunk

    def __setstate__(self, state):
        # a copy (pickle, deepcopy) holds new chunk objects: key them by their own ids
        self.__dict__.update(state)
        self._held = {id(chunk.nbr): (chunk, nbytes) for chunk, nbytes in self._held.values()}

    def release(self, chunk):
        """Forget ``chunk``; its memory goes back (to the heap or the pool) once
        the last view of it is dropped."""
        if id(chunk.nbr) not in self._held:
            raise ValueError("chunk was not allocated here or was already released")
        del self._held[id(chunk.nbr)]

    @property
    def held_bytes(self):
        """Bytes of the chunks allocated and not yet released."""
        return int(sum(nbytes for _, nbytes in self._held.values()))

    @property
    def chunks_held(self):
        return len(self._held)


class HostChunkAllocator(_Accounting):
    """Chunks as NumPy arrays in host memory, page-aligned.

    Parameters
    ----------
    capacity_bytes : int, optional
        Most bytes the chunks held at once may take (no limit by default).

    Examples
    --------
    >>> alloc = HostChunkAllocator(capacity_bytes=1024)
    >>> chunk = alloc.allocate(64, np.float64)
    >>> chunk.nbr.dtype, chunk.wgt.dtype, chunk.nbr.size, chunk.wgt.size
    (dtype('int32'), dtype('float64'), 64, 64)
    >>> alloc.address(chunk.nbr) % 4096, alloc.address(chunk.wgt) % 128
    (0, 0)
    >>> alloc.held_bytes, alloc.fits(256), alloc.fits(257)
    (768, True, False)
    >>> alloc.allocate(64).wgt is None            # neighbours only
    True
    >>> alloc.release(chunk)
    >>> alloc.held_bytes
    256
    >>> alloc.allocate(64, id_bytes=3, nbytes=512).nbr.shape      # packed ids, padded to 512 bytes
    (64, 3)
    >>> alloc.held_bytes
    768
    """

    def __init__(self, capacity_bytes=None, page=4096):
        super().__init__(capacity_bytes)
        self.page = int(page)

    def allocate(self, n_slots, weight_dtype=None, id_bytes=4, nbytes=None):
        """A chunk of ``n_slots`` slots (see the module docstring); ``nbytes``: the
        allocation's size, at least the layout's (default: the layout's)."""
        total, weight_offset, n_slots = _sizes(n_slots, weight_dtype, id_bytes, nbytes)
        self._check_fits(total)
        raw = np.empty(total + self.page, dtype=np.uint8)
        base = (-raw.ctypes.data) % self.page
        block = raw[base:base + total]
        nbr = _nbr_view(block[: id_bytes * n_slots], id_bytes, n_slots)
        wgt = None
        if weight_dtype is not None:
            weight_bytes = n_slots * np.dtype(weight_dtype).itemsize
            wgt = block[weight_offset:weight_offset + weight_bytes].view(np.dtype(weight_dtype))
        return self._track(Chunk(nbr, wgt), total)

    @staticmethod
    def address(array):
        return int(array.ctypes.data)


class DeviceChunkAllocator(_Accounting):
    """Chunks in GPU memory: from RMM when it imports, else from CuPy's memory pool.

    Parameters
    ----------
    use_rmm : bool, optional
        ``True``: RMM is required; ``False``: use CuPy's allocator; ``None``
        (default): RMM when ``import rmm`` succeeds.
    memory_resource : rmm.mr.DeviceMemoryResource, optional
        Where RMM chunks come from (default: the current device resource,
        or a pool of ``pool_bytes``).
    pool_bytes : int, optional
        The allocator's capacity: chunks held at once take at most this
        many bytes.  With RMM (and no ``memory_resource``) the chunks also
        get their own RMM pool of exactly this size (initial and maximum),
        layered over the current device resource, so that they are carved
        from one reservation.

    Notes
    -----
    An RMM chunk is an ``rmm.DeviceBuffer`` wrapped as CuPy arrays through
    ``cupy.cuda.UnownedMemory`` whose ``owner`` is the buffer, so the
    buffer lives exactly as long as some array of the chunk does.  A CuPy
    chunk is one ``cupy.cuda.alloc`` block (the current CuPy allocator: its
    default memory pool, or RMM's if the user installed RMM's CuPy
    allocator).  Releasing drops the allocator's references; the memory goes
    back to the pool when the cache's references go too.  Imports are lazy:
    this module imports on machines without CuPy.
    """

    def __init__(self, use_rmm=None, memory_resource=None, pool_bytes=None):
        super().__init__(pool_bytes)
        import cupy

        self._cupy = cupy
        self._rmm = None
        if use_rmm or use_rmm is None:
            try:
                import rmm
            except ImportError:
                if use_rmm:
                    raise
            else:
                self._rmm = rmm
        self._memory_resource = memory_resource
        if self._rmm is not None and memory_resource is None and pool_bytes is not None:
            size = int(pool_bytes) + (-int(pool_bytes)) % SECTION_ALIGN
            upstream = self._rmm.mr.get_current_device_resource()
            self._memory_resource = self._rmm.mr.PoolMemoryResource(
                upstream, initial_pool_size=size, maximum_pool_size=size)
        self.backend = "rmm" if self._rmm is not None else "cupy"

    def _memory(self, nbytes):
        """A ``cupy.cuda.MemoryPointer`` to ``nbytes`` of fresh device memory."""
        cupy = self._cupy
        if self._rmm is None:
            return cupy.cuda.alloc(nbytes)
        if self._memory_resource is None:
            buffer = self._rmm.DeviceBuffer(size=nbytes)
        else:
            buffer = self._rmm.DeviceBuffer(size=nbytes, mr=self._memory_resource)
        memory = cupy.cuda.UnownedMemory(buffer.ptr, buffer.size, buffer, cupy.cuda.Device().id)
        return cupy.cuda.MemoryPointer(memory, 0)

    def allocate(self, n_slots, weight_dtype=None, id_bytes=4, nbytes=None):
        """A chunk of ``n_slots`` slots (see the module docstring); ``nbytes``: the
        allocation's size, at least the layout's (default: the layout's)."""
        cupy = self._cupy
        total, weight_offset, n_slots = _sizes(n_slots, weight_dtype, id_bytes, nbytes)
        self._check_fits(total)
        base = self._memory(total)
        nbr = (cupy.ndarray((n_slots,), dtype=np.int32, memptr=base) if id_bytes == 4
               else cupy.ndarray((n_slots, 3), dtype=np.uint8, memptr=base))
        wgt = (None if weight_dtype is None
               else cupy.ndarray((n_slots,), dtype=np.dtype(weight_dtype), memptr=base + weight_offset))
        return self._track(Chunk(nbr, wgt), total)

    @staticmethod
    def address(array):
        return int(array.data.ptr)


def chunk_allocator(ops, capacity_bytes=None, **options):
    """The allocator that suits backend ``ops``: host chunks for NumPy, device chunks otherwise.

    ``capacity_bytes`` bounds the bytes held at once (on the GPU also the size
    of the chunks' own RMM pool); ``options`` go to :class:`DeviceChunkAllocator`
    (a host allocator ignores them).

    >>> from cugraph_stream.backends import get_backend
    >>> type(chunk_allocator(get_backend("cpu"), 1 << 20)).__name__
    'HostChunkAllocator'
    """
    if ops.xp is np:
        return HostChunkAllocator(capacity_bytes)
    return DeviceChunkAllocator(pool_bytes=capacity_bytes, **options)
