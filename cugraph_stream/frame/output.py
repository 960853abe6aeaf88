"""Build result frames: pandas on the CPU; cuDF on the GPU when cuDF is
installed (columns stay in GPU memory), else pandas."""
from __future__ import annotations

import numpy as np
import pandas as pd


def _cudf():
    try:
        import cudf
    except ImportError:
        return None
    return cudf


def make_frame(ops, columns):
    """A DataFrame from ``{name: backend array}``.

    >>> from cugraph_stream.backends import get_backend
    >>> make_frame(get_backend("cpu"), {"vertex": np.array([3, 7])})["vertex"].tolist()
    [3, 7]
    """
    if ops.xp is not np:
        cudf = _cudf()
        if cudf is not None:
            return cudf.DataFrame(dict(columns))
    return pd.DataFrame({name: ops.to_host(values) for name, values in columns.items()})
