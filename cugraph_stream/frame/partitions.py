"""Streams of batches from Dask: a dask (or dask-cudf) DataFrame, partition by partition.

Each partition is computed on its own (never the whole frame at once), so a
stream larger than memory can be applied batch by batch.  With a distributed
``client`` the next partition is computed while the current one is applied.
:func:`apply_partitions` is the loop behind ``StreamGraph.apply_stream`` and
``DistributedStreamGraph.apply_stream``: one atomic batch per partition, and
an error names the partition it came from.

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


def progress_bar(total, progress=True, desc="partitions"):
    """A tqdm bar on stderr (``tqdm.auto``: a widget in notebooks), or a
    silent stand-in when ``progress`` is false or tqdm is not installed."""
    if not progress:
        return _NoBar()
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return _NoBar()
    return tqdm(total=total, desc=desc, unit="batch", file=sys.stderr)


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
    for a partition is raised again with ``partition <index>:`` in front of
    its message: a ``ValueError`` stays a ``ValueError``, and an error type
    with a ``with_partition(index)`` method builds its own; any other error
    propagates as it is.  The partitions before it stay applied.

    >>> import pandas as pd, pytest
    >>> dd = pytest.importorskip("dask.dataframe")
    >>> ddf = dd.from_pandas(pd.DataFrame({"src": [1, 2, -3]}), npartitions=3)
    >>> def apply(part):
    ...     if (part["src"] < 0).any():
    ...         raise ValueError("column 'src' holds a negative id at row 0")
    ...     return len(part)
    >>> apply_partitions(ddf, ["src"], apply, progress=False)
    Traceback (most recent call last):
    ...
    ValueError: partition 2: column 'src' holds a negative id at row 0
    """
    require_dask_frame(ddf)
    require_stream_columns(ddf, columns)
    results = []
    for index, part in iter_partitions(ddf, progress=progress, client=client):
        try:
            results.append(apply(part))
        except Exception as error:          # noqa: BLE001 - relabelled or raised as it is
            labelled = _in_partition(error, index)
            if labelled is None:
                raise
            raise labelled from error
    return results


def _in_partition(error, index):
    """``error`` with ``partition <index>:`` before its message, or None to keep it as it is."""
    if hasattr(error, "with_partition"):
        return error.with_partition(index)
    if isinstance(error, ValueError):
        return ValueError(f"partition {index}: {error}")
    return None
