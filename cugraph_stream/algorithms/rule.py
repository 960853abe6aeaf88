"""How a monotonic query's value travels along an edge.

A :class:`Rule` is data, not code: each backend interprets ``extend`` and
``order`` with its own operators (NumPy expressions on the CPU, a kernel
template instance on the GPU), so a new monotonic algorithm needs no kernel.

:data:`EXTENDS` and :data:`ORDERS` are the one definition of the rule codes:
the GPU backend names kernel template instances by them, and
``tests/algorithms/test_rules.py`` checks that ``kernels/common.cuh``
(``enum Extend``, ``enum Order``) numbers them the same way.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

import numpy as np

from ..floats import ordered_bits

#: ``extend`` of a rule -> its code in the CUDA kernels (``enum Extend`` of ``kernels/common.cuh``)
EXTENDS = {"add": 0, "add_one": 1, "min": 2, "copy": 3}
#: ``order`` of a rule -> its code in the CUDA kernels (``enum Order`` of ``kernels/common.cuh``)
ORDERS = {"min": 0, "max": 1}


@dataclass(frozen=True)
class Rule:
    """Relaxation rule of a monotonic (dependency-memoized) query.

    Parameters
    ----------
    extend : {"add", "add_one", "min", "copy"}
        Value sent along ``u -> v`` with weight ``w``: ``value[u] + w``,
        ``value[u] + 1``, ``min(value[u], w)`` or ``value[u]``.
    order : {"min", "max"}
        Smaller (``"min"``) or larger values are better.
    value_dtype : numpy dtype
        dtype of the per-vertex values.
    unreachable : scalar or None
        Value of a vertex no path reaches (never sent along an edge); None
        where every vertex holds a real value (connected components).
    uses_weights : bool
        Whether edge weights matter (weight updates are ignored otherwise).
    symmetric : bool
        Values travel both ways along edges (weak connectivity).
    source_value : scalar or None
        Value of the source vertex; None for queries without a source.
    levels : bool
        Values are hop counts from the source (breadth-first search): a
        computation from scratch may run level by level
        (``Backend.bfs_levels``, direction-optimising) instead of pushing.

    Examples
    --------
    >>> import numpy as np
    >>> r = Rule("add", "min", np.dtype("float64"), np.finfo("float64").max, True)
    >>> r.improves_on_increase
    False
    """

    extend: str
    order: str
    value_dtype: Any
    unreachable: Optional[Any]
    uses_weights: bool
    symmetric: bool = False
    source_value: Optional[Any] = None
    levels: bool = False

    def __post_init__(self):
        if self.extend not in EXTENDS:
            raise ValueError(f"extend must be one of {tuple(EXTENDS)}, got {self.extend!r}")
        if self.order not in ORDERS:
            raise ValueError(f"order must be one of {tuple(ORDERS)}, got {self.order!r}")

    def keeps_ties(self, fractional_weights):
        """Whether invalidation should first look for another parent at the same value
        (:meth:`~cugraph_stream.backends.base.Backend.invalidate_keeping_ties`): where
        ties are common, hop counts (BFS: most vertices have several in-neighbours one
        hop closer) and sums of whole-number weights; with ``fractional_weights`` a
        sum rarely ties and the search would only add reads.

        >>> import numpy as np
        >>> Rule("add", "min", np.dtype("float64"), np.inf, True).keeps_ties(fractional_weights=False)
        True
        """
        return self.extend == "add_one" or (self.extend == "add" and not fractional_weights)

    @property
    def improves_on_increase(self):
        """True where a larger weight can only improve values (widest path)."""
        return self.extend == "min"

    def sent(self, values, weights=None):
        """The values sent along arcs of ``weights`` from vertices holding ``values``
        (NumPy arrays or scalars; ``weights`` unused where the rule ignores
        them), in the values' dtype, IEEE arithmetic.

        >>> import numpy as np
        >>> Rule("min", "max", np.dtype("float64"), -np.inf, True).sent(np.array([1.0, 5.0]), np.array([3.0, 2.0]))
        array([1., 2.])
        """
        if self.extend == "add":
            with np.errstate(over="ignore"):      # a sum past the dtype: the engine raises OverflowError
                return values + weights.astype(values.dtype, copy=False)
        if self.extend == "add_one":
            return values + values.dtype.type(1)
        if self.extend == "min":
            return np.minimum(values, weights.astype(values.dtype, copy=False))
        return values

    def better(self, a, b):
        """Where ``a`` is strictly better than ``b`` under :attr:`order`."""
        return a < b if self.order == "min" else a > b

    def improves(self, source_value, weight, target_value):
        """Whether the arc of weight ``weight`` from a vertex holding ``source_value``
        strictly improves a vertex holding ``target_value`` (host scalars), as
        the backends' relaxations decide: :meth:`sent` in :attr:`value_dtype`,
        and nothing sent from an unreachable vertex.

        >>> import numpy as np
        >>> r = Rule("add", "min", np.dtype("float32"), np.finfo("float32").max, True)
        >>> r.improves(1.0, np.float32(2), 4.0), r.improves(2.0, np.float32(2), 4.0), r.improves(r.unreachable, 0, 4.0)
        (True, False, False)
        """
        dtype = np.dtype(self.value_dtype)
        source = dtype.type(source_value)
        if self.unreachable is not None and source == dtype.type(self.unreachable):
            return False
        return bool(self.better(self.sent(source, np.asarray(weight)), dtype.type(target_value)))

    def is_worse_weight(self, old, new):
        """Where a weight change ``old -> new`` can make a tree edge's value worse
        (compared as IEEE floats, subnormals included, on any array library)."""
        old, new = ordered_bits(old), ordered_bits(new)
        return new < old if self.improves_on_increase else new > old
