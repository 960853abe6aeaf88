"""Float comparisons and conversions that keep subnormal numbers, on NumPy or CuPy arrays.

CuPy compiles its own kernels (ufuncs, ``astype``, ``ElementwiseKernel``) with
flush-to-zero: on the GPU a float32 ``<``, ``==`` or ``astype(float64)``
reads a subnormal such as 1e-45 as 0 (see
:mod:`cugraph_stream.backends.cuda_kernels`).  Code that compares or converts
weights and values outside our kernels goes through these two helpers, which
give NumPy's IEEE answers on either library:

* :func:`ordered_bits`: integer keys that compare like the floats, so
  comparisons are integer operations, which nothing flushes;
* :func:`exact_astype`: float32 <-> float64 conversion, through inline PTX
  without ``.ftz`` for CuPy arrays.
"""
from __future__ import annotations

import functools

import numpy as np

from .arrays import is_cupy


# inline PTX without .ftz: CuPy compiles ElementwiseKernels with -ftz=true, which
# turns a C++ cast into cvt.ftz, but leaves the asm as written (parameter types are
# NumPy names: CuPy reads "float" as float64)
_CONVERSIONS = {("float64", "float32"): ("float64 x", "float32 y",
                                         'asm("cvt.rn.f32.f64 %0, %1;" : "=f"(y) : "d"(x));'),
                ("float32", "float64"): ("float32 x", "float64 y",
                                         'asm("cvt.f64.f32 %0, %1;" : "=d"(y) : "f"(x));')}


@functools.lru_cache(maxsize=None)
def _conversion(cupy, source, target):
    arguments, result, body = _CONVERSIONS[(source, target)]
    return cupy.ElementwiseKernel(arguments, result, body, f"cgs_exact_{source}_to_{target}")


def exact_astype(array, dtype):
    """``array.astype(dtype, copy=False)``, except that a conversion between
    float32 and float64 of a CuPy array keeps subnormals (IEEE rounding, as
    NumPy does).  Other conversions cannot meet a subnormal result and use
    ``astype``."""
    dtype = np.dtype(dtype)
    if array.dtype == dtype:
        return array
    key = (array.dtype.name, dtype.name)
    if key not in _CONVERSIONS or not is_cupy(array):
        return array.astype(dtype)
    import cupy

    return _conversion(cupy, *key)(array)


_SIGNED = {4: np.dtype(np.int32), 8: np.dtype(np.int64)}


def ordered_bits(values):
    """Signed integers ordered like the (non-NaN) floats ``values``, -0.0 and
    0.0 equal: comparing them compares the floats as IEEE does, with integer
    operations that no array library flushes (CuPy's float32 ``<``, ``>``, ``==``
    read a subnormal as 0).  NumPy or CuPy arrays alike.

    >>> x = np.array([-np.inf, -1.0, -1e-45, -0.0, 0.0, 1e-45, 3e-45, 1.0, np.inf], dtype=np.float32)
    >>> keys = ordered_bits(x)
    >>> keys.tolist() == sorted(keys.tolist()), bool(keys[3] == keys[4]), int((keys[:, None] < keys).sum())
    (True, True, 35)
    """
    bits = values.view(_SIGNED[values.dtype.itemsize])
    keys = bits ^ ((bits >> (8 * bits.dtype.itemsize - 1)) & bits.dtype.type(np.iinfo(bits.dtype).max))
    return keys + (keys < 0)      # -0.0 (key -1) joins 0.0; the negatives keep their order


def negative(values):
    """``ordered_bits(values) < 0``: where a float is below zero (-0.0 is not,
    -1e-45 is), told by the bits; NumPy or CuPy arrays alike.  On the host,
    the sign bit set on anything but -0.0 (three NumPy calls).

    >>> negative(np.array([-1.0, -0.0, 0.0, -1e-45, 1e-45], dtype=np.float32)).tolist()
    [True, False, False, True, False]
    """
    if type(values) is np.ndarray:
        signed = _SIGNED[values.dtype.itemsize]
        bits = values.view(signed)
        return (bits < 0) & (bits != np.iinfo(signed).min)       # (the bits of -0.0)
    return ordered_bits(values) < 0
