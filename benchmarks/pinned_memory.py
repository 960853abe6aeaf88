"""How fast pinned, mapped host memory is made and read (issue 19, fast loading).

Times three ways of making ``--gib`` GiB of host memory that GPU kernels read
in place: ``cudaHostAlloc(mapped | portable)`` (what the GPU backend used for
every host-placement array before ``cugraph_stream.backends.pinned``), and an
anonymous mapping touched by several threads then ``cudaHostRegister``-ed,
with transparent huge pages asked for (``MADV_HUGEPAGE``, what
``pinned_host_array`` does from 64 MiB on) and without.  For each registered
buffer it also times a kernel reading and writing it in place and a
``cudaMemcpy`` into it.  Needs CuPy and a GPU.

Example (the lent H100)::

    python -m benchmarks.pinned_memory --gib 4
"""
from __future__ import annotations

import argparse
import ctypes
import mmap
import sys
import time

import numpy as np

from .common import positive, write

GiB = 1 << 30


def parse_args(argv=None):
    p = argparse.ArgumentParser(prog="python -m benchmarks.pinned_memory", description=__doc__.splitlines()[0])
    p.add_argument("--gib", type=positive(float), default=4.0, help="size of each buffer in GiB (default 4)")
    return p.parse_args(argv)


def _rate(label, nbytes, seconds):
    write(f"{label:<58} {seconds:6.2f} s  {nbytes / seconds / GiB:6.2f} GiB/s")


def _time_transfers(cp, ptr, owner, n):
    """A kernel reading and writing ``n`` bytes of registered memory at ``ptr`` in
    place, and a cudaMemcpy from device memory into it."""
    rt = cp.cuda.runtime
    host = cp.ndarray((n // 4,), dtype=cp.int32,
                      memptr=cp.cuda.MemoryPointer(cp.cuda.UnownedMemory(ptr, n, owner), 0))
    device = cp.empty(n // 4, dtype=cp.int32)

    def read():
        device[...] = host

    def write_back():
        host[...] = device

    def copy():
        rt.memcpy(ptr, device.data.ptr, n, rt.memcpyDefault)

    for label, run in (("   a kernel reads it in place", read), ("   a kernel writes it in place", write_back),
                       ("   cudaMemcpy device -> it", copy)):
        cp.cuda.Device().synchronize()
        t0 = time.perf_counter()
        run()
        cp.cuda.Device().synchronize()
        _rate(label, n, time.perf_counter() - t0)


def main(argv=None):
    args = parse_args(argv)
    import cupy as cp

    from cugraph_stream.backends.pinned import HOST_REGISTER_MAPPED, HOST_REGISTER_PORTABLE, _touch_in_parallel

    n = int(args.gib * GiB) // 4096 * 4096
    rt = cp.cuda.runtime
    try:
        thp = open("/sys/kernel/mm/transparent_hugepage/enabled").read().strip()
    except OSError:
        thp = "unknown"
    write(f"{n / GiB:.2f} GiB per buffer; transparent huge pages: {thp}")

    t0 = time.perf_counter()
    pinned = cp.cuda.PinnedMemory(n, rt.hostAllocMapped | rt.hostAllocPortable)
    _rate("cudaHostAlloc(mapped|portable)", n, time.perf_counter() - t0)
    del pinned

    for huge in (True, False):
        t0 = time.perf_counter()
        buffer = mmap.mmap(-1, n, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
        if huge:
            buffer.madvise(mmap.MADV_HUGEPAGE)
        view = (ctypes.c_char * n).from_buffer(buffer)
        _touch_in_parallel(np.frombuffer(view, dtype=np.uint8))
        ptr = ctypes.addressof(view)
        rt.hostRegister(ptr, n, HOST_REGISTER_PORTABLE | HOST_REGISTER_MAPPED)
        _rate(f"mmap{' + MADV_HUGEPAGE' if huge else ''} + parallel touch + cudaHostRegister",
              n, time.perf_counter() - t0)
        _time_transfers(cp, ptr, buffer, n)
        rt.hostUnregister(ptr)
        del view
        buffer.close()
        cp.get_default_memory_pool().free_all_blocks()
    return 0


if __name__ == "__main__":
    sys.exit(main())
