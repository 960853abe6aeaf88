"""Memory for the hot-subgraph cache: fixed-size chunks of neighbour and weight slots.

The cache (:mod:`cugraph_stream.engine.cache`) keeps its lists in chunks of
``n_slots`` slots; a chunk is one allocation holding an ``int32`` neighbour
array followed by a weight array (both start on a 256-byte boundary).  The
cache never allocates memory itself: it asks an allocator, so the same
bookkeeping runs on NumPy arrays in host memory (:class:`HostChunkAllocator`,
for tests and the CPU backend) and on GPU memory from an RMM pool or CuPy's
pool (:class:`DeviceChunkAllocator`).

An allocator has ``allocate(n_slots) -> Chunk`` (a ``(nbr, wgt)`` pair),
``release(chunk)``, ``address(array)`` (the data pointer, for kernels that
take a table of chunk base addresses) and ``held_bytes``.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

#: start of the weight array inside a chunk's allocation (bytes; RMM and
#: CuPy's pool both hand out blocks aligned to at least this)
SECTION_ALIGN = 256


class Chunk(NamedTuple):
    """One chunk of cache storage: ``nbr`` (int32) and ``wgt`` arrays of the same length."""

    nbr: object
    wgt: object


def chunk_layout(n_slots, weight_dtype):
    """``(total_bytes, weight_offset)`` of a chunk of ``n_slots`` slots.

    >>> chunk_layout(1000, np.float32)
    (8096, 4096)
    """
    n_slots = int(n_slots)
    nbr_bytes = 4 * n_slots
    weight_offset = nbr_bytes + (-nbr_bytes) % SECTION_ALIGN
    return weight_offset + n_slots * np.dtype(weight_dtype).itemsize, weight_offset


class _Accounting:
    """Bytes held by the chunks handed out and not yet released."""

    def __init__(self):
        self._held = {}

    def _track(self, chunk, nbytes):
        self._held[id(chunk.nbr)] = nbytes
        return chunk

    def release(self, chunk):
        """Forget ``chunk``; its memory goes back (to the heap or the pool) once
        the last view of it is dropped."""
        if id(chunk.nbr) not in self._held:
            raise ValueError("chunk was not allocated here or was already released")
        del self._held[id(chunk.nbr)]

    @property
    def held_bytes(self):
        """Bytes of the chunks allocated and not yet released."""
        return int(sum(self._held.values()))

    @property
    def chunks_held(self):
        return len(self._held)


class HostChunkAllocator(_Accounting):
    """Chunks as NumPy arrays in host memory, page-aligned.

    Parameters
    ----------
    weight_dtype : dtype
        dtype of the weight array of each chunk.

    Examples
    --------
    >>> alloc = HostChunkAllocator(np.float64)
    >>> chunk = alloc.allocate(64)
    >>> chunk.nbr.dtype, chunk.wgt.dtype, chunk.nbr.size, chunk.wgt.size
    (dtype('int32'), dtype('float64'), 64, 64)
    >>> alloc.address(chunk.nbr) % 4096, alloc.address(chunk.wgt) % 128
    (0, 0)
    >>> alloc.held_bytes
    768
    >>> alloc.release(chunk)
    >>> alloc.held_bytes
    0
    """

    def __init__(self, weight_dtype, page=4096):
        super().__init__()
        self.weight_dtype = np.dtype(weight_dtype)
        self.page = int(page)

    def allocate(self, n_slots):
        total, weight_offset = chunk_layout(n_slots, self.weight_dtype)
        raw = np.empty(total + self.page, dtype=np.uint8)
        base = (-raw.ctypes.data) % self.page
        block = raw[base:base + total]
        n_slots = int(n_slots)
        nbr = block[: 4 * n_slots].view(np.int32)
        wgt = block[weight_offset:].view(self.weight_dtype)
        return self._track(Chunk(nbr, wgt), total)

    @staticmethod
    def address(array):
        return int(array.ctypes.data)


class DeviceChunkAllocator(_Accounting):
    """Chunks in GPU memory: from RMM when it imports, else from CuPy's memory pool.

    Parameters
    ----------
    weight_dtype : dtype
        dtype of the weight array of each chunk.
    use_rmm : bool, optional
        ``True``: RMM is required; ``False``: use CuPy's allocator; ``None``
        (default): RMM when ``import rmm`` succeeds.
    memory_resource : rmm.mr.DeviceMemoryResource, optional
        Where RMM chunks come from (default: the current device resource,
        or a pool of ``pool_bytes``).
    pool_bytes : int, optional
        Give the cache its own RMM pool of exactly this size (initial and
        maximum), layered over the current device resource, so that chunks
        are carved from one reservation and the cache can never take more.

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

    def __init__(self, weight_dtype, use_rmm=None, memory_resource=None, pool_bytes=None):
        super().__init__()
        import cupy

        self._cupy = cupy
        self.weight_dtype = np.dtype(weight_dtype)
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

    def allocate(self, n_slots):
        cupy = self._cupy
        n_slots = int(n_slots)
        total, weight_offset = chunk_layout(n_slots, self.weight_dtype)
        base = self._memory(total)
        nbr = cupy.ndarray((n_slots,), dtype=np.int32, memptr=base)
        wgt = cupy.ndarray((n_slots,), dtype=self.weight_dtype, memptr=base + weight_offset)
        return self._track(Chunk(nbr, wgt), total)

    @staticmethod
    def address(array):
        return int(array.data.ptr)


def chunk_allocator(ops, weight_dtype, **options):
    """The allocator that suits backend ``ops``: host chunks for NumPy, device chunks otherwise.

    ``options`` go to :class:`DeviceChunkAllocator` (a host allocator ignores them).

    >>> from cugraph_stream.backends import get_backend
    >>> type(chunk_allocator(get_backend("cpu"), np.float32)).__name__
    'HostChunkAllocator'
    """
    if ops.xp is np:
        return HostChunkAllocator(weight_dtype)
    return DeviceChunkAllocator(weight_dtype, **options)
