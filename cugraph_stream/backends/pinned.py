"""Pinned, mapped host memory that GPU kernels read in place (zero-copy).

``cudaHostAlloc`` pins its pages one 4 KiB page at a time on one thread:
on the lent H100's host it pinned 1.5 GiB/s, so a 4 GiB adjacency took 2.6 s
to allocate, more than building it.  Large buffers are therefore made the
other way: an anonymous mapping asked for transparent huge pages
(``MADV_HUGEPAGE``), touched by several threads at once (the page faults
run in parallel), then pinned and mapped with ``cudaHostRegister``: 18 GiB/s
on the same machine, and kernels read it at the same 51 GiB/s.  Small buffers keep
``cudaHostAlloc``, whose cost per call is lower.

Under unified addressing (every 64-bit process) the host address of either
kind is also the address kernels use.
"""
from __future__ import annotations

import ctypes
import mmap
import os
import threading

import numpy as np

#: buffers from this size on are mapped, touched in parallel and registered
REGISTER_FROM_BYTES = 64 << 20
#: cudaHostRegister flags (driver_types.h)
HOST_REGISTER_PORTABLE, HOST_REGISTER_MAPPED = 1, 2
_TOUCH_CHUNK = 256 << 20


class RegisteredBuffer:
    """Host memory mapped anonymously and registered with CUDA; unregistered
    and unmapped when the last array over it goes.

    ``ptr`` is its address (for the host and, mapped, for kernels).
    """

    def __init__(self, runtime, nbytes):
        self._runtime = runtime
        self._map = mmap.mmap(-1, nbytes, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
        if hasattr(mmap, "MADV_HUGEPAGE"):
            self._map.madvise(mmap.MADV_HUGEPAGE)
        self._view = (ctypes.c_char * nbytes).from_buffer(self._map)
        self.ptr = ctypes.addressof(self._view)
        self.nbytes = nbytes
        _touch_in_parallel(np.frombuffer(self._view, dtype=np.uint8))
        runtime.hostRegister(self.ptr, nbytes, HOST_REGISTER_PORTABLE | HOST_REGISTER_MAPPED)
        self._registered = True

    def __del__(self):
        try:
            if getattr(self, "_registered", False):
                self._registered = False
                self._runtime.hostUnregister(self.ptr)
            del self._view
            self._map.close()
        except Exception:        # interpreter shutdown: CUDA or mmap may be gone already
            pass


def _touch_in_parallel(data):
    """Fault every page of ``data`` in, several threads at once (writing zeros,
    which a fresh anonymous mapping holds anyway)."""
    chunks = [data[i:i + _TOUCH_CHUNK] for i in range(0, data.size, _TOUCH_CHUNK)]
    workers = min(len(chunks), os.cpu_count() or 1, 16)
    if workers <= 1:
        data.fill(0)
        return
    pending = iter(chunks)
    lock = threading.Lock()

    def work():
        while True:
            with lock:
                chunk = next(pending, None)
            if chunk is None:
                return
            chunk.fill(0)          # NumPy releases the GIL while it fills

    threads = [threading.Thread(target=work) for _ in range(workers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def pinned_host_array(cupy, n, dtype, align):
    """A CuPy array of ``n`` elements of ``dtype`` in pinned, mapped host
    memory, starting at a multiple of ``align`` bytes (uninitialised)."""
    cuda = cupy.cuda
    dtype = np.dtype(dtype)
    nbytes = max(n * dtype.itemsize, 1)
    if nbytes >= REGISTER_FROM_BYTES:
        owner = RegisteredBuffer(cuda.runtime, nbytes + align)
        ptr = owner.ptr
    else:
        owner = cuda.PinnedMemory(nbytes + align, cuda.runtime.hostAllocMapped | cuda.runtime.hostAllocPortable)
        ptr = owner.ptr
    offset = (-ptr) % align
    memory = cuda.UnownedMemory(ptr + offset, nbytes, owner, device_id=cuda.Device().id)
    return cupy.ndarray((n,), dtype=dtype, memptr=cuda.MemoryPointer(memory, 0))
