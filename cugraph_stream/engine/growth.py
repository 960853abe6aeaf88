"""Per-vertex arrays that grow with the graph (doubling, so growth is amortized O(1))."""
from __future__ import annotations

MIN_VERTICES = 1024


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
    size = max(n, 2 * have, MIN_VERTICES)
    for name in names:
        old = getattr(owner, name)
        grown = xp.zeros(size, dtype=old.dtype)
        grown[:have] = old
        if journal is None:
            setattr(owner, name, grown)
        else:
            journal.assign(owner, name, grown)
