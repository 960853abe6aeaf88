"""Build result frames: pandas on the CPU; cuDF on the GPU when cuDF is
installed (columns stay in GPU memory), else pandas."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..arrays import is_cudf, is_cupy


def _cudf():
    try:
        import cudf
    except ImportError:
        return None
    return cudf


def make_frame(ops, columns):
    """A DataFrame from ``{name: column}``.

    A column is a backend array, or a decoded vertex-key column
    (:mod:`cugraph_stream.frame.keys`): a NumPy array, a pandas extension
    array (nullable integers, strings), or a cuDF Series on the GPU.

    >>> from cugraph_stream.backends import get_backend
    >>> make_frame(get_backend("cpu"), {"vertex": np.array([3, 7])})["vertex"].tolist()
    [3, 7]
    >>> make_frame(get_backend("cpu"), {"vertex": pd.array(["a", None], dtype="string")})["vertex"].tolist()
    ['a', <NA>]
    """
    if ops.xp is not np:
        cudf = _cudf()
        if cudf is not None:
            return cudf.DataFrame({name: values if is_cupy(values) or is_cudf(values) else cudf.Series(values)
                                   for name, values in columns.items()})
    return pd.DataFrame({name: _host(ops, values) for name, values in columns.items()})


def _host(ops, values):
    """A column for a pandas frame: backend arrays come to the host, pandas arrays stay as they are."""
    if type(values) is np.ndarray or isinstance(values, pd.api.extensions.ExtensionArray):
        return values
    if is_cudf(values):
        return values.to_pandas().array
    return ops.to_host(values)
