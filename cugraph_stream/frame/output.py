"""Build result frames on the host (pandas) from backend arrays."""
from __future__ import annotations

import pandas as pd


def make_frame(ops, columns):
    """A DataFrame from ``{name: backend array}``.

    >>> import numpy as np
    >>> from cugraph_stream.backends import get_backend
    >>> make_frame(get_backend("cpu"), {"vertex": np.array([3, 7])})["vertex"].tolist()
    [3, 7]
    """
    return pd.DataFrame({name: ops.to_host(values) for name, values in columns.items()})
