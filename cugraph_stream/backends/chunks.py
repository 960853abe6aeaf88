"""Memory for the hot-subgraph cache: allocators of fixed-size chunks.

The cache (:mod:`cugraph_stream.engine.cache`) keeps its lists in chunks
laid out as :mod:`cugraph_stream.chunk_layout` describes (a neighbour
array, 4-byte or packed 3-byte ids, then a weight array on a 256-byte
boundary).  The cache never allocates memory itself: it asks an allocator,
which its backend makes (:meth:`Backend.chunk_allocator
<cugraph_stream.backends.base.Backend.chunk_allocator>`), so the same
bookkeeping runs on NumPy arrays in host memory (:class:`HostChunkAllocator`,
the CPU backend's) and on GPU memory from an RMM pool or CuPy's pool
(:class:`DeviceChunkAllocator`, the GPU backend's).

An allocator has ``allocate(n_slots, weight_dtype, id_bytes, nbytes) ->
Chunk`` (a ``(nbr, wgt)`` pair; ``wgt`` is None for ``weight_dtype=None``;
``nbytes`` pads the allocation to a size every chunk of a pool shares),
``release(chunk)``, ``address(array)`` (the data pointer, for kernels that take a table of chunk
base addresses), ``held_bytes`` and ``fits(nbytes)``: caches that share one
allocator share its ``capacity_bytes`` (one budget for the out- and
in-adjacency caches of a store).
"""
from __future__ import annotations

import numpy as np

from ..chunk_layout import SECTION_ALIGN, Chunk, chunk_layout


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
