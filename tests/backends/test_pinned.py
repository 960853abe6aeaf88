"""Pinned host memory that kernels read in place (``cugraph_stream.backends.pinned``)."""
import gc

import numpy as np
import pytest

from cugraph_stream.backends import available_backends, get_backend
from cugraph_stream.backends import pinned
from cugraph_stream.backends.pinned import REGISTER_FROM_BYTES, _touch_in_parallel


def test_touching_in_parallel_zeroes_every_byte():
    data = np.full(3 * pinned._TOUCH_CHUNK // 2 + 12_345, 7, dtype=np.uint8)
    _touch_in_parallel(data)
    assert not data.any()


@pytest.mark.gpu
@pytest.mark.skipif(available_backends()["gpu"] is not None, reason=str(available_backends()["gpu"]))
@pytest.mark.parametrize("nbytes", [1 << 20, REGISTER_FROM_BYTES + 4096 * 3], ids=["host-alloc", "registered"])
def test_kernels_write_and_read_pinned_arrays_in_place(nbytes):
    ops = get_backend("gpu")
    cp = ops.xp
    for _ in range(2):                      # freed (unregistered) and made again
        n = nbytes // 8
        array = ops.aligned_empty(n, np.int64, memory="host")
        assert array.data.ptr % 4096 == 0
        cp.cuda.runtime.pointerGetAttributes(array.data.ptr)      # CUDA knows the address
        array[...] = cp.arange(n, dtype=cp.int64) * 3             # a kernel writes host memory
        assert int(array[::4099].sum()) == int((np.arange(n)[::4099] * 3).sum())   # and reads it
        host = ops.to_host(array)
        assert host[-1] == 3 * (n - 1) and host[12345] == 3 * 12345
        del array, host
        gc.collect()
