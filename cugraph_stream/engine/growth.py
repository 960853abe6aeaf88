"""Per-vertex arrays that follow the graph: an eighth larger whenever it outgrows
them (amortized O(1): each entry is copied about eight times over the graph's
growth), and shrunk back to twice its size once it has shrunk to a quarter of
theirs.

Why an eighth: a bulk load sizes the arrays to the graph, so the first batch
naming a new vertex grows all of them (the adjacencies', the vertex table's,
every query's).  Doubling left such a graph with twice the per-vertex bytes it
needed, half again (until 2026-11-28) with 1.5 times: at R-MAT scale 22 with
SSSP and PageRank tracked, 40.5 bytes per edge after the load became 42.8
after five 10,000-row batches on the CPU (41.1 with an eighth), against
issue 19's 40 in total.  A resize copies the arrays once, which is small
beside the batches that grew the graph by an eighth."""
from __future__ import annotations

MIN_VERTICES = 1024
#: arrays grow by 1/GROWTH_DIVISOR of their size (at least to what is asked); the
#: adjacencies' slot arrays grow by as much (``Adjacency._ensure_slots``)
GROWTH_DIVISOR = 8


def ensure_vertex_capacity(xp, owner, names, n, journal=None):
    """Grow ``owner``'s per-vertex arrays ``names`` to hold at least ``n`` entries.

    New entries are zero; existing ones are kept.  With a ``journal``
    (:class:`~cugraph_stream.engine.journal.Journal`), the replacement is
    recorded, so a rollback brings the old arrays back.

    >>> import numpy as np
    >>> class State: pass
    >>> s = State(); s.value = np.arange(3)
    >>> ensure_vertex_capacity(np, s, ("value",), 5)
    >>> s.value.size, s.value[:4].tolist()
    (1024, [0, 1, 2, 0])
    """
    have = int(getattr(owner, names[0]).size)
    if n <= have:
        return
    _resize(xp, owner, names, max(n, have + have // GROWTH_DIVISOR, MIN_VERTICES), journal)


def fit_vertex_capacity(xp, owner, names, n, journal=None):
    """Grow the arrays as :func:`ensure_vertex_capacity` does, or, when they hold more
    than four times ``n`` entries (and over :data:`MIN_VERTICES`), shrink them to
    twice ``n``, keeping the first ``n`` entries (the vertices below the bound).
    Returns whether they changed size.

    >>> import numpy as np
    >>> class State: pass
    >>> s = State(); s.value = np.arange(100_000)
    >>> fit_vertex_capacity(np, s, ("value",), 5000), s.value.size, int(s.value[4999])
    (True, 10000, 4999)
    >>> fit_vertex_capacity(np, s, ("value",), 3000)      # within four times: kept
    False
    """
    have = int(getattr(owner, names[0]).size)
    if n > have:
        ensure_vertex_capacity(xp, owner, names, n, journal)
        return True
    size = max(2 * n, MIN_VERTICES)
    if have <= 2 * size:
        return False
    _resize(xp, owner, names, size, journal)
    return True


def _resize(xp, owner, names, size, journal):
    # every array is made before any replaces its old one: an allocation that fails
    # leaves them all as they were (arrays kept without a journal, such as the hot
    # cache's, would otherwise stay of different sizes for good)
    resized = {}
    for name in names:
        old = getattr(owner, name)
        resized[name] = xp.zeros(size, dtype=old.dtype)
        kept = min(size, int(old.size))
        resized[name][:kept] = old[:kept]
    for name, array in resized.items():
        if journal is None:
            setattr(owner, name, array)
        else:
            journal.assign(owner, name, array)
