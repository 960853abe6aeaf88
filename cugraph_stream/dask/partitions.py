"""Walk a dask (or dask-cudf) DataFrame partition by partition, in partition order.

Each partition is computed on its own (never the whole frame at once), so a
stream larger than memory can be applied batch by batch.  With a distributed
``client`` the next partition is computed while the current one is applied.

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

from ..frame.columns import require_columns

__all__ = ["iter_partitions", "progress_bar", "require_dask_frame"]


def require_dask_frame(ddf, argument="ddf"):
    """Raise ``ValueError`` naming ``argument`` unless ``ddf`` is a dask DataFrame."""
    if not all(hasattr(ddf, name) for name in ("npartitions", "to_delayed", "_meta")):
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
