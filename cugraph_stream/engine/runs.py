"""Runs of equal values in a sorted array: the grouping step of every
vertex-centric update (rows sorted by owner, then handled group by group)."""
from __future__ import annotations


def runs(xp, sorted_values):
    """``(first, counts, group)`` of the runs of equal values in ``sorted_values``.

    ``first[g]`` is where run ``g`` starts, ``counts[g]`` its length and
    ``group[i]`` the run of element ``i``.

    >>> import numpy as np
    >>> first, counts, group = runs(np, np.array([3, 3, 5, 9, 9, 9]))
    >>> first.tolist(), counts.tolist(), group.tolist()
    ([0, 2, 3], [2, 1, 3], [0, 0, 1, 2, 2, 2])
    """
    n = int(sorted_values.size)
    starts = xp.concatenate((xp.ones(min(n, 1), dtype=bool), sorted_values[1:] != sorted_values[:-1]))
    first = xp.flatnonzero(starts)
    counts = xp.diff(xp.concatenate((first, xp.asarray([n], dtype=first.dtype))))
    group = xp.cumsum(starts) - 1
    return first, counts, group
