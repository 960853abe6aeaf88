"""Streams of batches from Dask: a dask (or dask-cudf) DataFrame, partition by partition.

Each partition is computed on its own (never the whole frame at once), so a
stream larger than memory can be applied batch by batch.  With a distributed
``client`` the next partition is computed while the current one is applied.
:func:`apply_partitions` is the loop behind ``StreamGraph.apply_stream`` and
``DistributedStreamGraph.apply_stream``: one atomic batch per partition, and
an error names the partition it came from, its rows in the stream and the
offending row's position in the stream.

Examples
--------
>>> import pandas as pd, pytest
>>> dd = pytest.importorskip("dask.dataframe")
>>> ddf = dd.from_pandas(pd.DataFrame({"src": [0, 1, 2, 3]}), npartitions=2)
>>> [(i, part["src"].tolist()) for i, part in iter_partitions(ddf, progress=False)]
[(0, [0, 1]), (1, [2, 3])]
"""
from __future__ import annotations

import sys

from .columns import require_columns

__all__ = ["apply_partitions", "is_dask_frame", "iter_partitions", "progress_bar", "require_dask_frame"]


def is_dask_frame(obj):
    """Whether ``obj`` is a dask (or dask-cudf) DataFrame (told by what it offers,
    without importing dask)."""
    return all(hasattr(obj, name) for name in ("npartitions", "to_delayed", "_meta"))


def require_dask_frame(ddf, argument="ddf"):
    """Raise ``ValueError`` naming ``argument`` unless ``ddf`` is a dask DataFrame."""
    if not is_dask_frame(ddf):
        raise ValueError(f"{argument} must be a dask or dask-cudf DataFrame, "
                         f"got {type(ddf).__module__}.{type(ddf).__name__}")


def require_stream_columns(ddf, columns):
    """Raise ``ValueError`` naming the first of ``columns`` that ``ddf`` lacks
    (checked on its metadata, before any partition is computed)."""
    require_columns(ddf._meta, columns)


class _NoBar:
    def update(self, n=1):
        pass

    def set_postfix_str(self, text):
        pass

    def close(self):
        pass


def progress_bar(total, progress=True, desc="partitions", unit="batch"):
    """A tqdm bar on stderr (``tqdm.auto``: a widget in notebooks), or a
    silent stand-in when ``progress`` is false or tqdm is not installed."""
    if not progress:
        return _NoBar()
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return _NoBar()
    return tqdm(total=total, desc=desc, unit=unit, file=sys.stderr)


class PhaseProgress:
    """A progress bar's steps as the named ``phases`` of an operation end, in any
    order, each counted once (other names pass by); the postfix names the
    phase still running.  Call it with each phase's name as it ends (a
    ``PhaseClock``'s ``on_lap``).

    >>> progress = PhaseProgress(_NoBar(), ("validate", "reduce", "store"))
    >>> progress("validate"); progress("window"); progress("validate")
    >>> progress.done
    ['validate']
    """

    def __init__(self, bar, phases):
        self.bar = bar
        self.phases = tuple(phases)
        self.done = []
        bar.set_postfix_str(self.phases[0])

    def __call__(self, phase):
        if phase not in self.phases or phase in self.done:
            return
        self.done.append(phase)
        self.bar.update(1)
        running = [p for p in self.phases if p not in self.done]
        self.bar.set_postfix_str(running[0] if running else "")


def iter_partitions(ddf, progress=True, desc="partitions", client=None):
    """Yield ``(index, partition)`` for every partition of ``ddf``, in order.

    Parameters
    ----------
    ddf : dask.dataframe.DataFrame
        A dask or dask-cudf DataFrame.
    progress : bool
        Show a tqdm progress bar (when tqdm is installed); it advances when
        the caller asks for the next partition, so it counts partitions the
        caller has finished with.
    desc : str
        Label of the progress bar.
    client : distributed.Client, optional
        Compute partitions on this cluster, the next one while the caller
        works on the current one.  Without it each partition is computed
        with ``.compute()`` when it is needed (on the default scheduler).

    Yields
    ------
    (int, DataFrame)
        The partition index and the computed partition (pandas or cuDF).
    """
    require_dask_frame(ddf)
    parts = ddf.to_delayed()
    bar = progress_bar(len(parts), progress, desc)
    try:
        if client is None:
            for index, part in enumerate(parts):
                yield index, part.compute()
                bar.update(1)
            return
        ahead = client.compute(parts[0]) if parts else None
        for index in range(len(parts)):
            current = ahead
            ahead = client.compute(parts[index + 1]) if index + 1 < len(parts) else None
            yield index, current.result()
            del current
            bar.update(1)
    finally:
        bar.close()


def apply_partitions(ddf, columns, apply, progress=True, client=None):
    """Call ``apply(partition)`` on every partition of ``ddf`` in order; the list of results.

    Checks first that ``ddf`` is a dask DataFrame holding ``columns`` (None
    entries are skipped), before any partition is computed.  An error raised
    for a partition is raised again with ``partition <index> (rows <first>-<last>
    of the stream):`` in front of its message, the rows counted from the start
    of the whole stream: a ``ValueError`` stays a ``ValueError`` (one that
    names a row, as :func:`~cugraph_stream.frame.batch.row_error` makes them,
    also gets that row's position in the stream, kept as ``.row``), and an
    error type with a ``with_partition(index)`` method builds its own; any
    other error propagates as it is.  The partitions before it stay applied.

    >>> import pandas as pd, pytest
    >>> from cugraph_stream.frame.batch import row_error
    >>> dd = pytest.importorskip("dask.dataframe")
    >>> ddf = dd.from_pandas(pd.DataFrame({"src": [1, 2, 3, 4, -5, 6]}), npartitions=3)
    >>> def apply(part):
    ...     bad = (part["src"] < 0).to_numpy()
    ...     if bad.any():
    ...         row = int(bad.argmax())
    ...         raise row_error(f"column 'src' holds a negative id at row {row}", row)
    ...     return len(part)
    >>> apply_partitions(ddf, ["src"], apply, progress=False)
    Traceback (most recent call last):
    ...
    ValueError: partition 2 (rows 4-5 of the stream): column 'src' holds a negative id at row 0 (row 4 of the stream)
    """
    require_dask_frame(ddf)
    require_stream_columns(ddf, columns)
    results = []
    start = 0                   # rows of the partitions before this one
    for index, part in iter_partitions(ddf, progress=progress, client=client):
        try:
            results.append(apply(part))
        except Exception as error:          # noqa: BLE001 - relabelled or raised as it is
            labelled = _in_partition(error, index, start, len(part))
            if labelled is None:
                raise
            raise labelled from error
        start += len(part)
    return results


def _in_partition(error, index, start, rows):
    """``error`` with ``partition <index> (rows ...):`` before its message, or None to keep
    it as it is; ``start`` rows came before the partition, which holds ``rows``."""
    if hasattr(error, "with_partition"):
        return error.with_partition(index)
    if not isinstance(error, ValueError):
        return None
    span = f"rows {start}-{start + rows - 1}" if rows else f"no rows, after {start}"
    message = str(error)
    row = getattr(error, "row", None)
    if row is None:
        return ValueError(f"partition {index} ({span} of the stream): {message}")
    named = f"at row {row}"
    where = f"row {start + row} of the stream"
    if named in message:            # "... at row 3 (row 13 of the stream) ..."
        message = message.replace(named, f"{named} ({where})", 1)
    else:
        message = f"{message} ({where})"
    labelled = ValueError(f"partition {index} ({span} of the stream): {message}")
    labelled.row = start + row
    return labelled
