"""The monotonic algorithms, each one relaxation rule.

:func:`every_rule` lists every rule these make: what a backend must be able
to run (the GPU backend compiles one kernel instance per rule and weight
dtype from it).

>>> import numpy as np
>>> sssp_rule(np.float32).extend, bfs_rule().unreachable
('add', 2147483647)
"""
from __future__ import annotations

import numpy as np

from .rule import Rule


def sssp_rule(weight_dtype):
    """Single-source shortest paths: ``min`` over paths of the sum of weights."""
    dtype = np.dtype(weight_dtype)
    return Rule("add", "min", dtype, np.finfo(dtype).max, uses_weights=True,
                source_value=dtype.type(0))


def bfs_rule():
    """Breadth-first search: hop counts, weights ignored."""
    dtype = np.dtype(np.int32)
    return Rule("add_one", "min", dtype, np.iinfo(dtype).max, uses_weights=False,
                source_value=dtype.type(0), levels=True)


def widest_path_rule(weight_dtype):
    """Widest (maximum bottleneck) path: ``max`` over paths of the minimum weight.

    Unreachable vertices hold ``-inf`` inside the engine (so that a path of
    zero-weight edges still counts as a path); results report them as 0.
    """
    dtype = np.dtype(weight_dtype)
    return Rule("min", "max", dtype, dtype.type(-np.inf), uses_weights=True,
                source_value=np.finfo(dtype).max)


def wcc_rule(symmetric):
    """Weakly connected components: the smallest vertex id reachable either way."""
    return Rule("copy", "min", np.dtype(np.int64), None, uses_weights=False, symmetric=symmetric)


def every_rule(weight_dtypes):
    """Every rule the specifications above make on graphs of ``weight_dtypes``,
    directed or undirected, in a fixed order.

    Parameters
    ----------
    weight_dtypes : iterable of numpy dtypes
        The weight dtypes a graph can hold.

    Examples
    --------
    >>> [r.extend for r in every_rule([np.float32, np.float64])]
    ['add', 'add', 'add_one', 'min', 'min', 'copy', 'copy']
    """
    weight_dtypes = [np.dtype(w) for w in weight_dtypes]
    rules = [sssp_rule(w) for w in weight_dtypes]
    rules.append(bfs_rule())
    rules += [widest_path_rule(w) for w in weight_dtypes]
    rules += [wcc_rule(symmetric) for symmetric in (False, True)]
    return rules
