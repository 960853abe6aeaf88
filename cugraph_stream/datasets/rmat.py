"""R-MAT (Kronecker) graph generator, Graph500 style.

Every edge picks its source and destination bit by bit: at each of the
``scale`` levels one uniform number chooses one of the four quadrants of the
adjacency matrix with probabilities ``a``, ``b``, ``c`` and ``d = 1 - a - b -
c``.  All edges of a chunk are generated at once with array operations (no
loop over edges), chunk after chunk, so that only the packed 64-bit edge keys
of the whole graph are held in memory at the same time.
"""

from __future__ import annotations

import math
import numbers

import numpy as np
import pandas as pd

__all__ = ["rmat"]

# Edges generated per chunk.  Part of the definition of the output for a seed:
# changing it changes the edges generated for a given seed.
_CHUNK = 1 << 20

# Largest scale whose (src, dst) pair still packs into one non-negative int64.
_MAX_SCALE = 31


def rmat(
    scale,
    edge_factor=16,
    a=0.57,
    b=0.19,
    c=0.19,
    seed=0,
    weights=(1.0, 64.0),
    weight_dtype="float32",
    directed=True,
    backend="cpu",
    permute=False,
):
    """Generate an R-MAT graph as an edge list.

    ``edge_factor * 2**scale`` edges are drawn, then self loops and duplicate
    edges are removed, so the result has somewhat fewer edges than that (the
    R-MAT distribution draws many duplicates among the edges of its hub
    vertices).  Vertex ids are in ``[0, 2**scale)``; vertices that no edge
    names do not appear.

    Parameters
    ----------
    scale : int
        Base-2 logarithm of the number of vertex ids (1 to 31).
    edge_factor : int, optional
        Edges drawn per vertex id, before duplicates are removed.
    a, b, c : float, optional
        Probabilities of the top-left, top-right and bottom-left quadrants
        (``d = 1 - a - b - c`` is the bottom-right one).  The defaults are
        Graph500's.
    seed : int, optional
        Seed of the random generator.  The same seed gives the same graph on
        the same backend (the CPU and GPU generators differ).
    weights : tuple of two floats or None, optional
        ``(low, high)``: weights are uniform in ``[low, high)``.  ``None``
        leaves the weight column out.
    weight_dtype : str or numpy dtype, optional
        ``"float32"`` or ``"float64"``.
    directed : bool, optional
        When ``False``, ``(u, v)`` and ``(v, u)`` are the same edge: each edge
        is returned once, with ``src < dst``.
    backend : {"cpu", "gpu"}, optional
        ``"gpu"`` generates with CuPy and returns a cuDF DataFrame when cuDF
        is installed, else a dict of CuPy arrays.
    permute : bool, optional
        Relabel vertex ids with a random permutation of ``[0, 2**scale)`` so
        that the vertex id does not reveal the degree (R-MAT's hubs have the
        ids with the most zero bits).  The permuted graph is the graph that
        ``permute=False`` gives for the same seed, relabelled.  Off by default.

    Returns
    -------
    pandas.DataFrame
        Columns ``src`` and ``dst`` (int64) and ``weight`` (``weight_dtype``),
        sorted by ``(src, dst)``, with a default index.

    Raises
    ------
    ValueError
        If an argument is out of range; the message names the argument.

    Notes
    -----
    The edges are generated in chunks of 2**20; at the end the packed keys of
    all edges (8 bytes per drawn edge) are sorted in place to remove the
    duplicates.  Peak memory is about 25 bytes per drawn edge, output
    included (1.6 GiB measured for scale 22, edge factor 16), so about
    6.5 GiB for scale 24 (2**28 drawn edges).  On the GPU, scale 24 takes
    under a second on an H100; on the CPU about 3.5 million edges per second.

    Examples
    --------
    >>> from cugraph_stream.datasets import rmat
    >>> df = rmat(8, edge_factor=4, seed=1)
    >>> list(df.columns), [str(t) for t in df.dtypes]
    (['src', 'dst', 'weight'], ['int64', 'int64', 'float32'])
    >>> 0 < len(df) < 4 * 2**8
    True
    >>> bool((df.src != df.dst).all() and df.weight.between(1.0, 64.0).all())
    True
    >>> df.equals(rmat(8, edge_factor=4, seed=1))
    True
    """
    scale = _check_int("scale", scale, 1, _MAX_SCALE)
    edge_factor = _check_int("edge_factor", edge_factor, 1, None)
    probs = []
    for name, value in (("a", a), ("b", b), ("c", c)):
        if not isinstance(value, numbers.Real) or not (0.0 <= float(value) <= 1.0):
            raise ValueError(f"{name} must be a probability in [0, 1], got {value!r}")
        probs.append(float(value))
    if sum(probs) > 1.0 + 1e-12:
        raise ValueError(f"a + b + c must be at most 1, got {sum(probs)!r}")
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    if weights is not None:
        try:
            low, high = (float(w) for w in weights)
        except (TypeError, ValueError):
            raise ValueError(
                f"weights must be None or a pair (low, high), got {weights!r}"
            ) from None
        if not (math.isfinite(low) and math.isfinite(high) and low < high):
            raise ValueError(
                f"weights must be finite with low < high, got {weights!r}"
            )
    try:
        wdtype = np.dtype(weight_dtype)
    except TypeError:
        wdtype = None
    if wdtype is None or wdtype.kind != "f" or wdtype.itemsize not in (4, 8):
        raise ValueError(
            f"weight_dtype must be 'float32' or 'float64', got {weight_dtype!r}"
        )
    if backend not in ("cpu", "gpu"):
        raise ValueError(f"backend must be 'cpu' or 'gpu', got {backend!r}")

    if backend == "cpu":
        xp = np
        rng = _NumpyRandom(int(seed))
    else:
        try:
            import cupy
        except ImportError:
            raise ValueError("backend='gpu' needs CuPy, which is not installed") from None
        xp = cupy
        rng = _CupyRandom(cupy, int(seed))

    src, dst, weight = _generate(
        xp, rng, scale, edge_factor, *probs,
        weights=None if weights is None else (low, high),
        wdtype=wdtype, directed=bool(directed), permute=bool(permute),
    )
    columns = {"src": src, "dst": dst}
    if weight is not None:
        columns["weight"] = weight
    if backend == "cpu":
        return pd.DataFrame(columns, copy=False)
    try:
        import cudf
    except ImportError:
        return columns
    return cudf.DataFrame(columns)


def _check_int(name, value, low, high):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    value = int(value)
    if value < low or (high is not None and value > high):
        bounds = f"at least {low}" if high is None else f"in [{low}, {high}]"
        raise ValueError(f"{name} must be {bounds}, got {value}")
    return value


def _permutation_seed(seed):
    # The vertex permutation has its own stream, so that permute=True relabels
    # exactly the graph that permute=False gives for the same seed.
    return int(np.random.SeedSequence([seed, 1]).generate_state(1)[0])


class _NumpyRandom:
    def __init__(self, seed):
        self._rng = np.random.default_rng(seed)
        self._perm_seed = _permutation_seed(seed)

    def uniform01(self, out):
        self._rng.random(out.shape[0], dtype=out.dtype, out=out)

    def permutation(self, n):
        return np.random.default_rng(self._perm_seed).permutation(n)


class _CupyRandom:
    def __init__(self, cupy, seed):
        self._cupy = cupy
        self._rng = cupy.random.RandomState(seed)
        self._perm_seed = _permutation_seed(seed)

    def uniform01(self, out):
        out[...] = self._rng.random_sample(out.shape[0], dtype=out.dtype)

    def permutation(self, n):
        return self._cupy.random.RandomState(self._perm_seed).permutation(n)


def _generate(xp, rng, scale, edge_factor, a, b, c, *, weights, wdtype,
              directed, permute):
    """Backend-neutral generator: ``xp`` is numpy or cupy."""
    n_edges = edge_factor << scale
    ab, abc = a + b, a + b + c
    low_mask = (1 << scale) - 1
    perm = rng.permutation(1 << scale).astype(xp.int64) if permute else None

    # Vertex ids fit in uint32 (scale <= 31): half the memory traffic of int64.
    a32, ab32, abc32 = (xp.float32(p) for p in (a, ab, abc))
    chunk = min(_CHUNK, n_edges)
    r = xp.empty(chunk, dtype=xp.float32)
    src_bit = xp.empty(chunk, dtype=xp.bool_)
    dst_bit = xp.empty(chunk, dtype=xp.bool_)
    high_bit = xp.empty(chunk, dtype=xp.bool_)
    src_buf = xp.empty(chunk, dtype=xp.uint32)
    dst_buf = xp.empty(chunk, dtype=xp.uint32)
    term = xp.empty(chunk, dtype=xp.uint32)

    # Packed keys src << scale | dst of the edges kept so far (no self loops).
    keys = xp.empty(n_edges, dtype=xp.int64)
    filled = 0
    for start in range(0, n_edges, _CHUNK):
        n = min(_CHUNK, n_edges - start)
        rn, sb, db, hb, t = r[:n], src_bit[:n], dst_bit[:n], high_bit[:n], term[:n]
        src, dst = src_buf[:n], dst_buf[:n]
        src.fill(0)
        dst.fill(0)
        for level in range(scale):
            rng.uniform01(rn)
            # Quadrants: [0, a) -> (0, 0), [a, ab) -> (0, 1),
            # [ab, abc) -> (1, 0), [abc, 1) -> (1, 1).
            xp.greater_equal(rn, ab32, out=sb)
            xp.greater_equal(rn, a32, out=db)
            xp.greater_equal(rn, abc32, out=hb)
            db ^= sb
            db ^= hb
            bit = xp.uint32(1 << level)
            xp.multiply(sb, bit, out=t)
            src |= t
            xp.multiply(db, bit, out=t)
            dst |= t
        s64 = src.astype(xp.int64)
        d64 = dst.astype(xp.int64)
        if perm is not None:
            s64 = perm[s64]
            d64 = perm[d64]
        if not directed:
            lo = xp.minimum(s64, d64)
            d64 = xp.maximum(s64, d64)
            s64 = lo
            del lo
        keep = s64 != d64
        s64 = s64[keep]
        d64 = d64[keep]
        m = int(s64.shape[0])
        chunk_keys = keys[filled:filled + m]
        xp.left_shift(s64, scale, out=chunk_keys)
        chunk_keys |= d64
        filled += m
        del s64, d64, keep, chunk_keys
    del r, src_bit, dst_bit, high_bit, src_buf, dst_buf, term

    keys = keys[:filled]
    keys.sort()
    if filled:
        unique = xp.empty(filled, dtype=xp.bool_)
        unique[0] = True
        xp.not_equal(keys[1:], keys[:-1], out=unique[1:])
        keys = keys[unique]
        del unique
    src = keys >> scale
    dst = keys & low_mask
    del keys

    weight = None
    if weights is not None:
        low, high = weights
        weight = xp.empty(src.shape[0], dtype=wdtype)
        rng.uniform01(weight)
        weight *= wdtype.type(high - low)
        weight += wdtype.type(low)
        # Rounding may reach ``high``; keep the interval half-open.
        xp.minimum(weight, np.nextafter(wdtype.type(high), wdtype.type(low)), out=weight)
    return src, dst, weight
