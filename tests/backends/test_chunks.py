"""Chunk allocators of the hot-subgraph cache.

The host allocator runs for real; the device allocator runs against small
NumPy-backed stand-ins for ``cupy`` and ``rmm`` (so that its wiring is
checked on machines without a GPU) and for real under the ``gpu`` marker.
"""
import ctypes
import sys
import types

import numpy as np
import pytest

from cugraph_stream.backends import available_backends, get_backend
from cugraph_stream.backends.chunks import DeviceChunkAllocator, HostChunkAllocator
from cugraph_stream.chunk_layout import Chunk, chunk_layout, read_ids, write_ids


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.int64])
@pytest.mark.parametrize("n_slots", [1, 32, 64, 1000, 4096])
def test_host_chunks(dtype, n_slots):
    alloc = HostChunkAllocator()
    chunk = alloc.allocate(n_slots, dtype)
    assert isinstance(chunk, Chunk)
    nbr, wgt = chunk                                   # a (nbr, wgt) pair
    assert nbr.dtype == np.int32 and wgt.dtype == np.dtype(dtype)
    assert nbr.size == wgt.size == n_slots
    assert alloc.address(nbr) % 4096 == 0 and alloc.address(wgt) % 256 == 0
    total, weight_offset = chunk_layout(n_slots, dtype)
    assert alloc.address(wgt) - alloc.address(nbr) == weight_offset >= 4 * n_slots
    assert alloc.held_bytes == total == weight_offset + n_slots * np.dtype(dtype).itemsize
    nbr[:] = -1
    wgt[:] = 3
    assert (nbr == -1).all() and (wgt == 3).all()      # the two sections do not alias
    other = alloc.allocate(n_slots, dtype)
    assert alloc.chunks_held == 2 and alloc.held_bytes == 2 * total
    alloc.release(chunk)
    assert alloc.chunks_held == 1 and alloc.held_bytes == total
    with pytest.raises(ValueError, match="released"):
        alloc.release(chunk)
    with pytest.raises(ValueError, match="released"):
        HostChunkAllocator().release(other)


def test_neighbour_only_chunks_and_capacity():
    alloc = HostChunkAllocator(capacity_bytes=3 * 256)
    chunk = alloc.allocate(64)
    assert chunk.wgt is None and chunk.nbr.size == 64 and alloc.held_bytes == 256 == chunk_layout(64)[0]
    assert alloc.fits(512) and not alloc.fits(513)
    alloc.allocate(128)                  # dropped here, still held: it counts until released
    with pytest.raises(ValueError, match="capacity"):
        alloc.allocate(1)
    alloc.release(chunk)
    assert alloc.fits(256) and not alloc.fits(257)
    with pytest.raises(ValueError, match="capacity"):
        alloc.allocate(64, np.float32)                 # 256 bytes of neighbours and 256 of weights
    third = alloc.allocate(64)
    assert third.wgt is None and alloc.held_bytes == 768 and alloc.chunks_held == 2


@pytest.mark.parametrize("dtype", [None, np.float32, np.float64])
def test_packed_chunks_padded_to_a_shared_size(dtype):
    """3-byte ids: a (n_slots, 3) uint8 array, weights on the next 256-byte boundary, and the
    allocation padded to ``nbytes`` (the size every chunk of a shared pool takes)."""
    alloc = HostChunkAllocator(capacity_bytes=4096)
    chunk = alloc.allocate(100, dtype, id_bytes=3, nbytes=2048)
    assert chunk.nbr.shape == (100, 3) and chunk.nbr.dtype == np.uint8 and alloc.held_bytes == 2048
    total, offset = chunk_layout(100, dtype, id_bytes=3)
    if dtype is None:
        assert chunk.wgt is None and total == 300
    else:
        assert offset == 512 and alloc.address(chunk.wgt) - alloc.address(chunk.nbr) == offset
        assert chunk.wgt.size == 100 and total == 512 + 100 * np.dtype(dtype).itemsize
        chunk.wgt[:] = 7
    ids = np.array([0, 1, 255, 256, 65535, 65536, 0xABCDEF, (1 << 24) - 1] * 12 + [5] * 4)
    write_ids(np, chunk.nbr, np.arange(100)[::-1], ids)
    assert read_ids(chunk.nbr, np.arange(100)[::-1]).tolist() == ids.tolist()
    assert read_ids(chunk.nbr, slice(96, 100)).tolist() == ids[:4][::-1].tolist()
    assert chunk.nbr[99].tolist() == [0, 0, 0] and chunk.nbr[93].tolist() == [0xEF, 0xCD, 0xAB]
    if dtype is not None:
        assert (chunk.wgt == 7).all()                  # the sections do not alias
    odd = HostChunkAllocator().allocate(10, dtype, id_bytes=3, nbytes=1001)      # padding of any size
    assert odd.nbr.shape == (10, 3) and (dtype is None or odd.wgt.shape == (10,))
    with pytest.raises(ValueError, match="nbytes"):
        alloc.allocate(1000, dtype, id_bytes=3, nbytes=2048)
    with pytest.raises(ValueError, match="id_bytes"):
        alloc.allocate(10, dtype, id_bytes=2)


def test_cpu_backend_allocates_host_chunks():
    alloc = get_backend("cpu").chunk_allocator(1 << 20)
    assert isinstance(alloc, HostChunkAllocator) and alloc.capacity_bytes == 1 << 20


# ------------------------------------------------------------ device allocator, stand-ins
class _FakeMemoryPointer:
    def __init__(self, mem, offset):
        self.mem, self.offset = mem, offset
        self.ptr = mem.ptr + offset

    def __add__(self, offset):
        return _FakeMemoryPointer(self.mem, self.offset + offset)


class _FakeUnownedMemory:
    def __init__(self, ptr, size, owner, device_id=-1):
        self.ptr, self.size, self.owner, self.device_id = ptr, size, owner, device_id


class _FakeOwnedMemory:
    def __init__(self, size):
        self.buffer = np.zeros(size + 512, dtype=np.uint8)
        self.ptr = self.buffer.ctypes.data + (-self.buffer.ctypes.data) % 512
        self.size = size


class _FakeDeviceArray:
    """What the allocator needs of ``cupy.ndarray``: ``data.ptr`` and a host view to check contents."""

    def __init__(self, shape, dtype, memptr):
        self.data, self.dtype, self.shape = memptr, np.dtype(dtype), shape
        nbytes = int(np.prod(shape)) * self.dtype.itemsize
        self.host = np.frombuffer((ctypes.c_byte * nbytes).from_address(memptr.ptr), dtype=self.dtype)
        self.size = int(np.prod(shape))


class _FakeDeviceBuffer:
    made = []

    def __init__(self, size=0, mr=None):
        self._memory = _FakeOwnedMemory(size)
        self.ptr, self.size, self.mr = self._memory.ptr, size, mr
        _FakeDeviceBuffer.made.append(self)


class _FakePool:
    def __init__(self, upstream, initial_pool_size=None, maximum_pool_size=None):
        self.upstream, self.initial, self.maximum = upstream, initial_pool_size, maximum_pool_size


@pytest.fixture
def fake_gpu(monkeypatch):
    """Install stand-ins for ``cupy`` and ``rmm``; returns (cupy, rmm, alloc calls)."""
    allocs = []

    def alloc(nbytes):
        allocs.append(nbytes)
        return _FakeMemoryPointer(_FakeOwnedMemory(nbytes), 0)

    cupy = types.ModuleType("cupy")
    cupy.cuda = types.SimpleNamespace(UnownedMemory=_FakeUnownedMemory, MemoryPointer=_FakeMemoryPointer,
                                      alloc=alloc, Device=lambda: types.SimpleNamespace(id=0))
    cupy.ndarray = _FakeDeviceArray
    rmm = types.ModuleType("rmm")
    rmm.DeviceBuffer = _FakeDeviceBuffer
    rmm.mr = types.SimpleNamespace(get_current_device_resource=lambda: "current", PoolMemoryResource=_FakePool)
    _FakeDeviceBuffer.made = []
    monkeypatch.setitem(sys.modules, "cupy", cupy)
    monkeypatch.setitem(sys.modules, "rmm", rmm)
    return cupy, rmm, allocs


def _check_device_chunk(alloc, chunk, n_slots, dtype):
    total, weight_offset = chunk_layout(n_slots, dtype)
    if dtype is None:
        assert chunk.wgt is None and chunk.nbr.shape == (n_slots,)
        return total
    assert chunk.nbr.dtype == np.int32 and chunk.wgt.dtype == np.dtype(dtype)
    assert chunk.nbr.shape == (n_slots,) and chunk.wgt.shape == (n_slots,)
    assert alloc.address(chunk.wgt) - alloc.address(chunk.nbr) == weight_offset
    chunk.nbr.host[:] = -7
    chunk.wgt.host[:] = 1.5
    assert (chunk.nbr.host == -7).all() and (chunk.wgt.host == 1.5).all()
    return total


def test_device_chunks_from_rmm(fake_gpu):
    alloc = DeviceChunkAllocator()
    assert alloc.backend == "rmm" and alloc.capacity_bytes is None
    chunk = alloc.allocate(640, np.float64)
    total = _check_device_chunk(alloc, chunk, 640, np.float64)
    buffer = _FakeDeviceBuffer.made[-1]
    assert buffer.size == total and buffer.mr is None
    # the arrays keep the RMM buffer alive through UnownedMemory's owner
    assert chunk.nbr.data.mem.owner is buffer and chunk.wgt.data.mem.owner is buffer
    assert alloc.address(chunk.nbr) == buffer.ptr
    assert alloc.held_bytes == total
    alloc.release(chunk)
    assert alloc.held_bytes == 0


def test_packed_device_chunks(fake_gpu):
    alloc = DeviceChunkAllocator()
    chunk = alloc.allocate(64, np.float32, id_bytes=3, nbytes=1024)
    assert chunk.nbr.shape == (64, 3) and chunk.nbr.dtype == np.uint8 and chunk.wgt.shape == (64,)
    assert _FakeDeviceBuffer.made[-1].size == alloc.held_bytes == 1024
    assert alloc.address(chunk.wgt) - alloc.address(chunk.nbr) == 256


def test_device_chunks_from_a_dedicated_rmm_pool(fake_gpu):
    alloc = DeviceChunkAllocator(pool_bytes=1000)
    pool = alloc._memory_resource
    assert isinstance(pool, _FakePool) and pool.upstream == "current" and pool.initial == pool.maximum == 1024
    assert alloc.capacity_bytes == 1000
    _check_device_chunk(alloc, alloc.allocate(64, np.float32), 64, np.float32)
    assert _FakeDeviceBuffer.made[-1].mr is pool
    _check_device_chunk(alloc, alloc.allocate(64), 64, None)             # neighbours only: 256 bytes
    with pytest.raises(ValueError, match="capacity"):
        alloc.allocate(64)


def test_gpu_backend_allocates_device_chunks_from_a_pool_of_the_capacity(fake_gpu):
    from cugraph_stream.backends.gpu import GPUBackend

    alloc = GPUBackend().chunk_allocator(1000)
    assert isinstance(alloc, DeviceChunkAllocator) and alloc.backend == "rmm" and alloc.capacity_bytes == 1000
    assert alloc._memory_resource.initial == alloc._memory_resource.maximum == 1024
    assert GPUBackend().chunk_allocator(None, use_rmm=False).backend == "cupy"


def test_device_chunks_from_cupy_pool(fake_gpu, monkeypatch):
    _, _, allocs = fake_gpu
    alloc = DeviceChunkAllocator(use_rmm=False, pool_bytes=10 ** 6)
    assert alloc.backend == "cupy" and alloc.capacity_bytes == 10 ** 6
    total = _check_device_chunk(alloc, alloc.allocate(128, np.float32), 128, np.float32)
    assert allocs == [total] and not _FakeDeviceBuffer.made
    monkeypatch.setitem(sys.modules, "rmm", None)       # RMM not installed: CuPy's pool
    assert DeviceChunkAllocator().backend == "cupy"
    with pytest.raises(ImportError):
        DeviceChunkAllocator(use_rmm=True)


@pytest.mark.gpu
def test_device_chunks_on_the_gpu():
    reason = available_backends()["gpu"]
    if reason:
        pytest.skip(reason)
    import cupy

    for use_rmm in (None, False):
        alloc = DeviceChunkAllocator(use_rmm=use_rmm)
        chunk = alloc.allocate(4096, np.float32)
        assert isinstance(chunk.nbr, cupy.ndarray) and chunk.nbr.dtype == np.int32
        assert alloc.address(chunk.nbr) % 256 == 0 and alloc.address(chunk.wgt) % 256 == 0
        chunk.nbr[:] = cupy.arange(4096, dtype=cupy.int32)
        chunk.wgt[:] = 2.5
        assert int(chunk.nbr.sum()) == 4095 * 4096 // 2 and float(chunk.wgt.sum()) == 2.5 * 4096
        alloc.release(chunk)
        assert alloc.held_bytes == 0
        packed = alloc.allocate(4096, None, id_bytes=3, nbytes=16384)
        ids = cupy.arange(0, 1 << 24, 4096, dtype=cupy.int32)
        write_ids(cupy, packed.nbr, cupy.arange(4096)[::-1], ids)
        assert (read_ids(packed.nbr, cupy.arange(4096)[::-1]) == ids).all()
        assert alloc.held_bytes == 16384
