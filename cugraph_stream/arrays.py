"""Which library an array or table comes from, told without importing that library.

The frame layer takes pandas, pyarrow, cuDF, CuPy and NumPy inputs; the CPU
backend and the float helpers accept CuPy arrays; none of them may import
cuDF or CuPy on a machine without a GPU.  An object's library is the top
package of its type's module.

>>> import numpy as np
>>> library(np.zeros(2)), is_cupy(np.zeros(2)), is_cudf(np.zeros(2))
('numpy', False, False)
"""
from __future__ import annotations


def library(obj):
    """The top-level package that defines ``obj``'s type (``"numpy"``, ``"cupy"``, ``"cudf"``, ...)."""
    return type(obj).__module__.split(".")[0]


def is_cupy(obj):
    """Whether ``obj`` is a CuPy object (an array on the GPU)."""
    return library(obj) == "cupy"


def is_cudf(obj):
    """Whether ``obj`` is a cuDF object (a DataFrame, Series or column on the GPU)."""
    return library(obj) == "cudf"
