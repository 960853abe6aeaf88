"""The columns a graph was built from, remembered for every later batch.

cuGraph's ``Graph.from_cudf_edgelist(df, source="source",
destination="destination", edge_attr=None)`` names the columns once; a
:class:`~cugraph_stream.StreamGraph` keeps doing so for every batch after
that.  :meth:`StreamGraph.from_edgelist` records an :class:`EdgeSchema` (the
source, destination and weight column names), and ``apply``, ``validate``
and ``apply_stream`` read those columns unless told otherwise:

* a column named explicitly in a call wins, for that call;
* a weighted graph (one built from a weight column) reads its weight column
  from every batch; a batch that inserts edges without it is refused
  (``ValueError`` naming the column) unless the call passes
  ``default_weight=``;
* an unweighted graph gives every inserted edge weight 1 (or
  ``default_weight``); a batch column it does not read is listed in
  :attr:`BatchReport.ignored_columns`;
* a graph built with ``time=`` (and ``window=``) reads each edge's time from
  that column of every batch (see :mod:`cugraph_stream.frame.times`).

The weight dtype follows the input, as in cuGraph: float32 weights stay
float32, every other numeric weight becomes float64 (integers exact up to
2**53); an unweighted graph holds float32 ones.
"""
from __future__ import annotations

import os
import sys
import warnings
from dataclasses import dataclass, replace

import numpy as np

#: cuGraph's default column names
SOURCE, DESTINATION, OP = "source", "destination", "op"
#: the names this package used by default before 0.2, still read (with a FutureWarning)
LEGACY_NAMES = {SOURCE: "src", DESTINATION: "dst"}


@dataclass(frozen=True)
class Columns:
    """The columns one call reads (after the schema's defaults are filled in)."""

    source: object
    destination: object
    weight: object              # the weight column, or None: inserts weigh ``default_weight``
    op: object                  # the op column, or None: every row inserts
    default_weight: float = 1.0
    #: the schema's weight column when the batch lacks it: an insert row is then an error
    missing_weight: object = None
    #: the column of edge times (a graph built with ``time=``), or None
    time: object = None


@dataclass(frozen=True)
class EdgeSchema:
    """Column names of a graph's edges: the source, destination and weight columns.

    Parameters
    ----------
    source, destination : str
        Vertex columns.
    weight : str or None
        Weight column; None for an unweighted graph.
    recorded : bool
        Whether the names were recorded from the graph's first edge list
        (``False``: cuGraph's defaults, with the pre-0.2 names ``src`` and
        ``dst`` still found when a table lacks ``source`` / ``destination``).
    time : str or None
        The column of edge times (``from_edgelist(time=...)``), or None.
    window : number, timedelta or None
        The time window (``from_edgelist(window=...)``): edges whose time is
        at or before the newest time seen minus it are deleted after every
        batch; None keeps every edge.

    Examples
    --------
    >>> schema = EdgeSchema("a", "b", weight="w", recorded=True)
    >>> columns = schema.columns(["a", "b", "w", "op"])
    >>> columns.source, columns.destination, columns.weight, columns.op
    ('a', 'b', 'w', 'op')
    >>> schema.columns(["a", "b", "op"], default_weight=2.0).weight is None
    True
    """

    source: object = SOURCE
    destination: object = DESTINATION
    weight: object = None
    recorded: bool = False
    time: object = None
    window: object = None

    @property
    def weighted(self):
        """Whether the graph reads a weight column from every batch."""
        return self.weight is not None

    def columns(self, present, source=None, destination=None, weight=None, edge_attr=None,
                op=OP, default_weight=None, time=None):
        """The :class:`Columns` a call reads from a table with columns ``present``.

        Arguments left None take the schema's names; ``edge_attr`` is
        cuGraph's name for ``weight``; ``time`` names the time column of a
        graph that records times.

        Raises
        ------
        ValueError
            If ``weight`` and ``edge_attr`` name different columns, or
            ``default_weight`` is not a finite number.
        """
        weight = weight_argument(weight, edge_attr)
        explicit_weight = weight is not None
        if default_weight is not None:
            default_weight = _finite_weight(default_weight)
        source = self.source if source is None else source
        destination = self.destination if destination is None else destination
        if not self.recorded:
            source = _legacy(source, present, "source")
            destination = _legacy(destination, present, "destination")
        if weight is None:
            weight = self.weight
        missing = None
        if weight is not None and not explicit_weight and weight not in present:
            # the schema's weight column, absent: deletes need none, inserts get default_weight
            missing, weight = (weight if default_weight is None else None), None
        return Columns(source, destination, weight, op,
                       1.0 if default_weight is None else default_weight, missing,
                       time=self.time if time is None else time)

    def ignored(self, present, columns):
        """Names among ``present`` that ``columns`` does not read.

        >>> EdgeSchema("a", "b").ignored(["a", "b", "weight"], EdgeSchema("a", "b").columns(["a", "b"]))
        ['weight']
        """
        read = set()
        for name in (columns.source, columns.destination, columns.weight, columns.op,
                     columns.missing_weight, columns.time):
            if isinstance(name, (list, tuple)):
                read.update(name)
            elif name is not None:
                read.add(name)
        return [name for name in present if name not in read]

    def recording(self, columns):
        """The schema a graph records from its first edge list, read with ``columns``."""
        return replace(self, source=_names(columns.source), destination=_names(columns.destination),
                       weight=columns.weight, recorded=True)

    def to_dict(self):
        """A JSON-ready form (checkpoints)."""
        return {"source": _json(self.source), "destination": _json(self.destination),
                "weight": self.weight, "recorded": self.recorded, "time": self.time,
                "window": _window_json(self.window)}

    @classmethod
    def from_dict(cls, saved):
        """The schema of :meth:`to_dict`; a checkpoint written before schemas were
        saved gets the column names of its time, ``src`` and ``dst``."""
        if saved is None:
            return cls("src", "dst", recorded=True)
        return cls(_names(saved["source"]), _names(saved["destination"]), saved.get("weight"),
                   bool(saved.get("recorded", True)), saved.get("time"), _window_from_json(saved.get("window")))


def weight_argument(weight, edge_attr):
    """The weight column named by ``weight=`` or cuGraph's ``edge_attr=``.

    >>> weight_argument(None, "w")
    'w'
    >>> weight_argument("w", "v")
    Traceback (most recent call last):
    ...
    ValueError: weight='w' and edge_attr='v' name different weight columns; pass one of them
    """
    if edge_attr is None:
        return weight
    if weight is not None and weight != edge_attr:
        raise ValueError(f"weight={weight!r} and edge_attr={edge_attr!r} name different weight "
                         "columns; pass one of them")
    return edge_attr


def weight_dtype_of(dtype):
    """The graph weight dtype for a weight column of ``dtype``, as cuGraph keeps it.

    float32 (and float16) stay float32; every other number becomes float64,
    integers exactly up to 2**53.  None (no weight column) gives float32.

    >>> weight_dtype_of(np.dtype("float32")), weight_dtype_of(np.dtype("int64")), weight_dtype_of(None)
    (dtype('float32'), dtype('float64'), dtype('float32'))
    """
    if dtype is not None and np.dtype(dtype).kind == "f" and np.dtype(dtype).itemsize <= 4:
        return np.dtype(np.float32)
    return np.dtype(np.float32) if dtype is None else np.dtype(np.float64)


def _legacy(name, present, role):
    """``name``, or the pre-0.2 default for ``role`` when only that one is present."""
    if isinstance(name, (list, tuple)):         # multi-column keys: never a default
        return name
    old = LEGACY_NAMES.get(name)
    if old is None or name in present or old not in present:
        return name
    warnings.warn(f"the table has no column {name!r} (the {role} column's default, as in cuGraph) "
                  f"but has {old!r}, the default before cugraph_stream 0.2: reading {old!r}; "
                  f"pass {role}={old!r} to keep reading it without this warning",
                  FutureWarning, stacklevel=_caller_level())
    return old


def _caller_level():
    """The ``stacklevel`` that points a warning at the first frame outside this package."""
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    frame, level = sys._getframe(1), 1
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(package + os.sep):
        frame, level = frame.f_back, level + 1
    return level


def _finite_weight(value):
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"default_weight must be a real number, got {value!r}") from None
    if isinstance(value, (bool, np.bool_)) or not np.isfinite(number):
        raise ValueError(f"default_weight must be a finite real number, got {value!r}")
    return number


def _names(name):
    """A column name, or a tuple of them (multi-column keys)."""
    return tuple(name) if isinstance(name, list) else name


def _window_json(window):
    """A window as JSON: a number, or ``{"timedelta_ns": n}``."""
    if window is None or isinstance(window, (int, float)) and not isinstance(window, bool):
        return window
    if isinstance(window, (np.integer, np.floating)):
        return window.item()
    import pandas as pd

    return {"timedelta_ns": int(pd.Timedelta(window).value)}


def _window_from_json(saved):
    if isinstance(saved, dict):
        import pandas as pd

        return pd.Timedelta(int(saved["timedelta_ns"]), unit="ns")
    return saved


def _json(name):
    return list(name) if isinstance(name, tuple) else name
