"""Checking a batch's op and weight columns: what :meth:`Backend.check_rows` returns,
and the array code (NumPy, or CuPy for device columns) every backend may use.

The frame layer (:func:`cugraph_stream.frame.batch.read_rows`) hands over the
columns as numbers; this pass codes the ops, converts the weights to the
graph's weight dtype and summarises the batch (whether some row is in error,
the largest weight, whether a weight has a fraction) in one read.  Only a
batch in error is checked again, column by column, by the frame layer, to
name the first offending row.
"""
from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from ..arrays import is_cupy
from ..floats import exact_astype, negative

#: op codes of batch rows, as :func:`cugraph_stream.engine.reduce.reduce_batch` and the kernels read them
INSERT = 1
DELETE = -1


class RowSummary(NamedTuple):
    """What :meth:`Backend.check_rows` found in a whole batch (host values)."""

    #: whether some row holds an unknown op, some insert row a weight that is not
    #: finite in the weight dtype or, where weights must be non-negative, a negative one
    bad: bool
    #: the largest weight magnitude (0.0 for no rows); of a batch that is not bad
    largest: float
    #: whether some weight is not a whole number; of a batch that is not bad
    fractional: bool


class RowCheck(NamedTuple):
    """What :meth:`Backend.check_rows` returns (arrays where the columns are).

    ``summary`` is a :class:`RowSummary`, or, where the check ran on a device,
    a read of it still under way (its ``get()`` gives the :class:`RowSummary`:
    without a wait once the device has passed the check, as after the batch's
    next wait; see :meth:`Backend.check_rows`).  ``bad``, ``largest`` and
    ``fractional`` read it.
    """

    #: per row (int8): 1 insert, -1 delete, 0 an unknown op
    codes: Any
    #: per row, in the weight dtype: the insert rows' weights, 0 on the others
    weights: Any
    summary: Any

    @classmethod
    def of(cls, codes, weights, bad, largest, fractional):
        """A check whose summary is known on the host."""
        return cls(codes, weights, RowSummary(bool(bad), float(largest), bool(fractional)))

    @property
    def pending(self):
        """Whether the summary is still on the device (a read waiting for a wait)."""
        return type(self.summary) is not RowSummary

    def read(self):
        """The :class:`RowSummary` (read from the device if it is still there)."""
        return self.summary.get() if self.pending else self.summary

    @property
    def bad(self):
        return self.read().bad

    @property
    def largest(self):
        return self.read().largest

    @property
    def fractional(self):
        return self.read().fractional


def array_module(values):
    """NumPy, or CuPy for CuPy arrays."""
    if type(values) is np.ndarray:      # the common case, told without asking for the library
        return np
    if is_cupy(values):
        import cupy
        return cupy
    return np


def op_codes(values):
    """Op codes (int8: 1 insert, -1 delete, 0 anything else) of numeric op values
    (no unsigned value equals -1, in NumPy 2 and CuPy 14 alike).

    >>> op_codes(np.array([1, -1, 2, 0], dtype=np.int64)).tolist(), op_codes(np.array([1, 255], np.uint8)).tolist()
    ([1, -1, 0, 0], [1, 0])
    """
    xp = array_module(values)
    if xp is np:        # three NumPy calls
        return (values == 1).view(np.int8) - (values == -1).view(np.int8)
    return xp.where(values == 1, INSERT, xp.where(values == -1, DELETE, 0)).astype(xp.int8)


def _astype(values, dtype):
    """:func:`exact_astype`; NumPy's own ``astype`` for NumPy arrays, which keeps subnormals anyway."""
    if type(values) is np.ndarray:
        return values.astype(dtype, copy=False)
    return exact_astype(values, dtype)


#: host batches of at most this many rows are checked element by element (:func:`_check_few_rows`)
FEW_ROWS = 8


def _check_few_rows(ops, values, weight_dtype, nonnegative):
    """:func:`check_rows` of a few host rows, element by element, with the same
    results: a NumPy call costs about 2 us whatever its size, and the array
    code makes 15 of them (a one-row batch's check took 33 us of its 300)."""
    n = values.size
    kind = np.dtype(weight_dtype).type
    codes = np.empty(n, dtype=np.int8)
    weights = np.zeros(n, dtype=weight_dtype)
    bad = fractional = False
    with np.errstate(over="ignore", invalid="ignore"):      # an overflow is infinite: reported as bad
        for i in range(n):
            op = INSERT if ops is None else ops[i]
            code = INSERT if op == 1 else DELETE if op == -1 else 0
            codes[i] = code
            if code != INSERT:
                bad = bad or code == 0
                continue
            weight = kind(np.float64(values[i]))
            weights[i] = weight
            bad = bad or not np.isfinite(weight) or (nonnegative and weight < 0)   # (-0.0 is not below 0)
            fractional = fractional or weight != np.floor(weight)
    return RowCheck.of(codes, weights, bad, float(np.abs(weights).max()) if n else 0.0, fractional)


def check_rows(ops, values, weight_dtype, nonnegative=False):
    """:meth:`Backend.check_rows` with array calls of the columns' library, and
    whether it read device values (a synchronisation): ``(RowCheck, synced)``.

    >>> check, synced = check_rows(np.array([1, -1, 1]), np.array([2.5, np.nan, -1e-45]), np.float32)
    >>> check.codes.tolist(), check.weights.tolist(), check.bad, check.largest, check.fractional, synced
    ([1, -1, 1], [2.5, 0.0, -1.401298464324817e-45], False, 2.5, True, False)
    >>> check_rows(None, np.array([-1e-45]), np.float32, nonnegative=True)[0].bad
    True
    """
    xp = array_module(values)
    n = values.size
    if xp is np and n <= FEW_ROWS and (ops is None or type(ops) is np.ndarray):
        return _check_few_rows(ops, values, weight_dtype, nonnegative), False
    codes = op_codes(ops) if ops is not None else xp.full(n, INSERT, dtype=xp.int8)
    is_insert = codes == INSERT
    with np.errstate(over="ignore", invalid="ignore"):      # an overflow is infinite: reported as bad
        weights = _astype(xp.where(is_insert, _astype(values, np.float64), 0.0), weight_dtype)
    problems = (codes == 0) | ~xp.isfinite(weights)
    if nonnegative:
        problems |= negative(weights)          # delete rows hold 0; -1e-45 is negative on the GPU too
    fractional = weights != xp.floor(weights)      # (NaN and infinities are problems anyway)
    if xp is np:
        return RowCheck.of(codes, weights, problems.any(), float(np.abs(weights).max()) if n else 0.0,
                           fractional.any()), False
    largest = xp.abs(weights).max() if n else xp.zeros((), dtype=weights.dtype)
    bad, largest, fractional = xp.stack((problems.any(), largest, fractional.any())).astype(
        xp.float64).tolist()                                                        # one transfer
    return RowCheck.of(codes, weights, bad, largest, fractional), True
