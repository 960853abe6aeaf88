"""The registry of query kinds: each kind's name, its class and what it needs.

:data:`KINDS` maps a kind's name (its class's ``kind``) to its class, in a
fixed order; each class says what the kind needs (``takes_source``,
``weighted``, ``value_column``, ``short_name``).  :func:`lookup` turns any
spelling users write -- the name in any case, the short name of the command
line (``"widest"``), a snake-case name (``"widest_path"``) -- into the class,
and :func:`make` builds a query from a spelling and the options of every
kind.  The command line, the benchmarks and :mod:`cugraph_stream.verify`
name kinds through these.

Examples
--------
>>> from cugraph_stream.queries import KINDS, lookup, make
>>> list(KINDS)
['SSSP', 'BFS', 'WidestPath', 'WCC', 'PageRank']
>>> [k for k, cls in KINDS.items() if cls.takes_source]
['SSSP', 'BFS', 'WidestPath']
>>> lookup("widest").kind, lookup("widest_path").value_column
('WidestPath', 'width')
>>> make("sssp", source=0), make("pagerank", source=0, tol=1e-8)
(SSSP(source=0), PageRank(alpha=0.85, tol=1e-08))
"""
from __future__ import annotations

from .bfs import BFS
from .pagerank import PageRank
from .sssp import SSSP
from .wcc import WCC
from .widest_path import WidestPath

#: kind name -> query class, in the order kinds are listed to users
KINDS = {cls.kind: cls for cls in (SSSP, BFS, WidestPath, WCC, PageRank)}


def _spelling(text):
    return str(text).strip().lower().replace("_", "")


_SPELLINGS = {spelling: cls for cls in KINDS.values() for spelling in (_spelling(cls.kind), cls.short_name)}


def lookup(kind):
    """The query class of ``kind``.

    Parameters
    ----------
    kind : str
        A kind's name or short name, in any case, with or without
        underscores: ``"SSSP"``, ``"sssp"``, ``"WidestPath"``, ``"widest"``,
        ``"widest_path"``...

    Raises
    ------
    ValueError
        For an unknown kind, naming it and listing the known ones.

    Examples
    --------
    >>> lookup("PageRank") is lookup("pagerank")
    True
    >>> lookup("katz")
    Traceback (most recent call last):
    ...
    ValueError: kind: unknown query kind 'katz'; known kinds: SSSP, BFS, WidestPath, WCC, PageRank
    """
    try:
        return _SPELLINGS[_spelling(kind)]
    except KeyError:
        raise ValueError(f"kind: unknown query kind {kind!r}; known kinds: {', '.join(KINDS)}") from None


def make(kind, source=None, mode="auto", alpha=0.85, tol=1e-6, weighted=None, stop="error"):
    """A new query of ``kind``, given the options of every kind.

    Each option goes to the kinds that take it and is ignored by the others,
    so one call serves every kind.

    Parameters
    ----------
    kind : str
        Any spelling :func:`lookup` accepts.
    source : int, optional
        Source vertex of the kinds that take one (``takes_source``): needed
        there.
    mode : {"auto", "incremental", "recompute"}
    alpha, tol : float
        PageRank's damping factor and tolerance.
    weighted : bool, optional
        PageRank's ``weighted`` (None: the edge weights count on a weighted
        graph, as cuGraph's).
    stop : {"error", "change"}
        What PageRank's ``tol`` bounds.

    Returns
    -------
    Query

    Examples
    --------
    >>> make("WCC", source=3, mode="recompute")
    WCC(mode='recompute')
    >>> make("pagerank", weighted=False, stop="change")
    PageRank(alpha=0.85, tol=1e-06, weighted=False, stop='change')
    >>> make("bfs")
    Traceback (most recent call last):
    ...
    ValueError: source: a BFS query needs a source vertex
    """
    cls = lookup(kind)
    if cls is PageRank:
        return PageRank(alpha=alpha, tol=tol, mode=mode, weighted=weighted, stop=stop)
    if not cls.takes_source:
        return cls(mode=mode)
    if source is None:
        raise ValueError(f"source: a {cls.kind} query needs a source vertex")
    return cls(source=source, mode=mode)
