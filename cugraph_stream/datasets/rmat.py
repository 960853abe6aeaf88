"""R-MAT (Kronecker) graph generator, Graph500 style.

Every edge picks its source and destination bit by bit: at each of the
``scale`` levels one uniform number chooses one of the four quadrants of the
adjacency matrix with probabilities ``a``, ``b``, ``c`` and ``d = 1 - a - b -
c``.  All edges of a chunk are generated at once with array operations (no
loop over edges), chunk after chunk, so that only the packed 64-bit edge keys
of the whole graph are held in memory at the same time.

:func:`rmat_pieces` cuts a graph too large for that into pieces, each drawn
from its own seed whenever it is read, with weights that are a function of
the edge (:func:`edge_weight`).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence

import numpy as np
import pandas as pd

__all__ = ["rmat", "rmat_pieces", "RmatPieces", "edge_weight", "mix64"]

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
    probs = _check_probabilities(a, b, c)
    seed = _check_seed(seed)
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
    xp = _array_module(backend)
    rng = _random_source(xp, seed)

    src, dst, weight = _generate(
        xp, rng, scale, edge_factor << scale, *probs,
        weights=None if weights is None else (low, high),
        wdtype=wdtype, directed=bool(directed), permute=bool(permute),
    )
    columns = {"src": src, "dst": dst}
    if weight is not None:
        columns["weight"] = weight
    return _frame(columns, backend)


def _check_probabilities(a, b, c):
    """``[a, b, c]`` as floats; ValueError naming the first that is not a probability."""
    probs = []
    for name, value in (("a", a), ("b", b), ("c", c)):
        if not isinstance(value, numbers.Real) or not (0.0 <= float(value) <= 1.0):
            raise ValueError(f"{name} must be a probability in [0, 1], got {value!r}")
        probs.append(float(value))
    if sum(probs) > 1.0 + 1e-12:
        raise ValueError(f"a + b + c must be at most 1, got {sum(probs)!r}")
    return probs


def _check_seed(seed):
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    return int(seed)


def _array_module(backend):
    """NumPy for ``"cpu"``, CuPy for ``"gpu"`` (ValueError without it)."""
    if backend not in ("cpu", "gpu"):
        raise ValueError(f"backend must be 'cpu' or 'gpu', got {backend!r}")
    if backend == "cpu":
        return np
    try:
        import cupy
    except ImportError:
        raise ValueError("backend='gpu' needs CuPy, which is not installed") from None
    return cupy


def _random_source(xp, seed):
    """The uniform generator of ``xp``'s backend for ``seed``."""
    return _NumpyRandom(seed) if xp is np else _CupyRandom(xp, seed)


def _frame(columns, backend):
    """``columns`` as the backend's frame: pandas on the CPU; cuDF on the GPU
    when it imports, else the dict of CuPy arrays itself."""
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


def _generate(xp, rng, scale, num_draws, a, b, c, *, weights, wdtype,
              directed, permute, chunk=_CHUNK):
    """Backend-neutral generator: ``xp`` is numpy or cupy.

    Draws ``num_draws`` edges, ``chunk`` at a time (the chunk size is part of
    the output's definition: the random numbers are consumed level by level
    within a chunk), drops self loops and duplicates; returns ``(src, dst,
    weight or None)`` sorted by ``(src, dst)``.
    """
    n_edges = int(num_draws)
    ab, abc = a + b, a + b + c
    low_mask = (1 << scale) - 1
    perm = rng.permutation(1 << scale).astype(xp.int64) if permute else None

    # Vertex ids fit in uint32 (scale <= 31): half the memory traffic of int64.
    a32, ab32, abc32 = (xp.float32(p) for p in (a, ab, abc))
    buffer_size = max(1, min(chunk, n_edges))
    r = xp.empty(buffer_size, dtype=xp.float32)
    src_bit = xp.empty(buffer_size, dtype=xp.bool_)
    dst_bit = xp.empty(buffer_size, dtype=xp.bool_)
    high_bit = xp.empty(buffer_size, dtype=xp.bool_)
    src_buf = xp.empty(buffer_size, dtype=xp.uint32)
    dst_buf = xp.empty(buffer_size, dtype=xp.uint32)
    term = xp.empty(buffer_size, dtype=xp.uint32)

    # Packed keys src << scale | dst of the edges kept so far (no self loops).
    keys = xp.empty(n_edges, dtype=xp.int64)
    filled = 0
    for start in range(0, n_edges, chunk):
        n = min(chunk, n_edges - start)
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


# ---------------------------------------------------------------------------
# R-MAT in pieces: graphs larger than memory, regenerated on demand
# ---------------------------------------------------------------------------

# Draws generated at once by a piece (part of the definition of a piece's
# edges for a seed, as _CHUNK is for rmat()): larger than _CHUNK, so that the
# billions of draws of a scale-27 graph take fewer kernel launches on the GPU.
_PIECE_CHUNK = 1 << 22

# 64-bit constants of the splitmix64 finalizer (Steele, Lea and Flood 2014).
_MIX_SHIFTS = (30, 27, 31)
_MIX_MULTIPLIERS = (0xBF58476D1CE4E5B9, 0x94D049BB133111EB)

#: weights of :func:`edge_weight` are the whole numbers 1 to EDGE_WEIGHT_LEVELS
EDGE_WEIGHT_LEVELS = 64


def mix64(xp, values):
    """The splitmix64 finalizer of ``values``: a bijective 64-bit hash.

    Parameters
    ----------
    xp : module
        ``numpy`` or ``cupy``: the array module of ``values``.
    values : array of integers
        Read as unsigned 64-bit integers (negative values wrap).

    Returns
    -------
    array of uint64
        Well mixed: every output bit depends on every input bit.

    Examples
    --------
    >>> import numpy as np
    >>> from cugraph_stream.datasets.rmat import mix64
    >>> h = mix64(np, np.arange(4))
    >>> h.dtype, len(set(h.tolist()))
    (dtype('uint64'), 4)
    """
    h = xp.asarray(values).astype(xp.uint64)        # a copy: the caller's array is left alone
    first, second, third = (xp.uint64(s) for s in _MIX_SHIFTS)
    h ^= h >> first
    h *= xp.uint64(_MIX_MULTIPLIERS[0])
    h ^= h >> second
    h *= xp.uint64(_MIX_MULTIPLIERS[1])
    h ^= h >> third
    return h


def edge_weight(xp, src, dst):
    """The weight of edge ``(src, dst)``: a deterministic function of the edge.

    The 64-bit key ``src << 32 | dst`` is hashed with :func:`mix64` and its
    top 6 bits mapped to the whole numbers 1 to 64 (float32, exact).  Every
    repetition of an edge (within a piece of :func:`rmat_pieces`, across
    pieces, or in an update batch) therefore carries the same weight, so a
    graph's weights are known without deduplicating its edge list.

    Parameters
    ----------
    xp : module
        ``numpy`` or ``cupy``.
    src, dst : arrays of integers
        Vertex ids in ``[0, 2**32)``.

    Returns
    -------
    array of float32
        Whole numbers in ``[1, 64]``, one per edge.

    Examples
    --------
    >>> import numpy as np
    >>> from cugraph_stream.datasets.rmat import edge_weight
    >>> w = edge_weight(np, np.array([0, 0, 5]), np.array([1, 1, 0]))
    >>> w.dtype, bool(w[0] == w[1]), bool(((w >= 1) & (w <= 64) & (w == np.round(w))).all())
    (dtype('float32'), True, True)
    """
    key = (xp.asarray(src).astype(xp.uint64) << xp.uint64(32)) | xp.asarray(dst).astype(xp.uint64)
    levels = mix64(xp, key) >> xp.uint64(64 - 6)
    return levels.astype(xp.float32) + xp.float32(1)


def rmat_pieces(scale, edge_factor=16, pieces=16, seed=0, a=0.57, b=0.19, c=0.19, backend="cpu"):
    """An R-MAT graph as a sequence of pieces, each generated when read.

    Piece ``i`` holds ``edge_factor * 2**scale // pieces`` R-MAT draws (the
    last piece also takes the remainder) generated from its own seed stream
    (``numpy.random.SeedSequence([seed, i])``), with self loops and the
    duplicates within the piece removed.  Duplicates *across* pieces remain
    (a loader reading the pieces as rows in order collapses them); because
    the weight is a function of the edge (:func:`edge_weight`), every copy
    of an edge carries the same weight.  Only one piece is in memory at a
    time: reading a piece generates it again, the same for the same
    arguments on the same backend.

    Parameters
    ----------
    scale : int
        Base-2 logarithm of the number of vertex ids (1 to 31).
    edge_factor : int, optional
        Draws per vertex id, over all pieces.
    pieces : int, optional
        Number of pieces (1 to the number of draws).
    seed : int, optional
        Seed of the whole sequence.
    a, b, c : float, optional
        Quadrant probabilities, as in :func:`rmat` (Graph500's by default).
        Vertex ids are not permuted: the hubs are the ids with the most zero
        bits, vertex 0 first.
    backend : {"cpu", "gpu"}, optional
        ``"gpu"`` generates with CuPy (pieces are cuDF frames when cuDF
        imports, else dicts of CuPy arrays); the CPU and GPU generators
        differ.

    Returns
    -------
    RmatPieces
        A :class:`collections.abc.Sequence` of frames with columns ``src``,
        ``dst`` (int64, as :func:`rmat`'s) and ``weight`` (float32, whole
        numbers 1 to 64), each sorted by ``(src, dst)``.

    Raises
    ------
    ValueError
        If an argument is out of range; the message names it.

    Examples
    --------
    >>> from cugraph_stream.datasets import rmat_pieces
    >>> p = rmat_pieces(8, edge_factor=4, pieces=3, seed=1)
    >>> len(p), p.num_vertex_ids, p.rows, [p.draws(i) for i in range(3)]
    (3, 256, 1024, [341, 341, 342])
    >>> piece = p[0]
    >>> list(piece.columns), 0 < len(piece) <= 341, piece.equals(p[0])
    (['src', 'dst', 'weight'], True, True)
    """
    return RmatPieces(scale, edge_factor, pieces, seed, a, b, c, backend)


class RmatPieces(Sequence):
    """The pieces of an R-MAT graph, generated on demand (see :func:`rmat_pieces`).

    ``len()`` is the number of pieces; ``pieces[i]`` generates piece ``i``
    (negative ``i`` counts from the end) as a frame of the backend;
    :meth:`arrays` gives its columns as arrays.  Iterating generates the
    pieces one after the other, keeping none.

    Attributes
    ----------
    scale, edge_factor, seed, backend
        As given to :func:`rmat_pieces`.
    num_vertex_ids : int
        ``2**scale``: every vertex id is in ``[0, num_vertex_ids)``.
    rows : int
        R-MAT draws over all pieces, ``edge_factor * 2**scale``: an upper
        bound of the rows (the pieces hold fewer, without self loops and
        duplicates).
    """

    def __init__(self, scale, edge_factor=16, pieces=16, seed=0, a=0.57, b=0.19, c=0.19, backend="cpu"):
        self.scale = _check_int("scale", scale, 1, _MAX_SCALE)
        self.edge_factor = _check_int("edge_factor", edge_factor, 1, None)
        self.rows = self.edge_factor << self.scale
        self._count = _check_int("pieces", pieces, 1, self.rows)
        self._probabilities = _check_probabilities(a, b, c)
        self.seed = _check_seed(seed)
        self._xp = _array_module(backend)
        self.backend = backend
        self.num_vertex_ids = 1 << self.scale

    def __len__(self):
        return self._count

    def __getitem__(self, index):
        src, dst, weight = self.arrays(index)
        return _frame({"src": src, "dst": dst, "weight": weight}, self.backend)

    def __repr__(self):
        return (f"RmatPieces(scale={self.scale}, edge_factor={self.edge_factor}, pieces={self._count}, "
                f"seed={self.seed}, backend={self.backend!r})")

    @property
    def xp(self):
        """The array module of the pieces' columns: ``numpy`` or ``cupy``."""
        return self._xp

    def draws(self, index):
        """R-MAT draws of piece ``index`` (the rows before self loops and duplicates go)."""
        index = self._position(index)
        share = self.rows // self._count
        return share + (self.rows - share * self._count if index == self._count - 1 else 0)

    def seed_of(self, index):
        """The generator seed of piece ``index``: from ``SeedSequence([seed, index])``."""
        index = self._position(index)
        return int(np.random.SeedSequence([self.seed, index]).generate_state(1)[0])

    def arrays(self, index):
        """``(src, dst, weight)`` of piece ``index`` as arrays of the backend (int64,
        int64, float32), sorted by ``(src, dst)``, without self loops or repeats."""
        xp = self._xp
        rng = _random_source(xp, self.seed_of(index))
        src, dst, _ = _generate(xp, rng, self.scale, self.draws(index), *self._probabilities,
                                weights=None, wdtype=None, directed=True, permute=False,
                                chunk=_PIECE_CHUNK)
        return src, dst, edge_weight(xp, src, dst)

    def _position(self, index):
        if isinstance(index, bool) or not isinstance(index, numbers.Integral):
            raise TypeError(f"piece index must be an integer, got {type(index).__name__}")
        position = int(index) + (self._count if index < 0 else 0)
        if not 0 <= position < self._count:
            raise IndexError(f"piece index {index} out of range for {self._count} pieces")
        return position
