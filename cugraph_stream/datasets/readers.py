"""Edge-list readers for common on-disk formats.

Every reader returns a pandas DataFrame with the columns ``src`` and ``dst``
(int64) and, when the file has weights, ``weight`` (float64 unless
``weight_dtype`` says otherwise), with a default index: the input that
:meth:`cugraph_stream.StreamGraph.from_edgelist` and
:func:`cugraph_stream.datasets.mixed_stream` take.
"""

from __future__ import annotations

import os

import numpy as np
import pandas as pd

__all__ = [
    "read_snap",
    "read_matrix_market",
    "read_parquet",
    "read_csv",
    "read_edgelist",
]

_DEFAULT_WEIGHT = "weight"


def read_snap(path, weight_dtype=None):
    """Read a SNAP edge list (``src dst [weight]`` per line).

    Fields are separated by any whitespace; lines starting with ``#`` are
    comments.  A third column, when present, is read as the weight; further
    columns (timestamps in some SNAP files) are ignored.  Compressed files
    (``.gz``, ``.bz2``, ``.zip``, ``.xz``, ``.zst``) are read transparently.

    Parameters
    ----------
    path : str or os.PathLike
        The file.
    weight_dtype : str or numpy dtype, optional
        dtype of the weight column (default float64).

    Returns
    -------
    pandas.DataFrame
        ``src``, ``dst`` (int64) and ``weight`` if the file has a third column.

    Examples
    --------
    >>> import tempfile, os
    >>> from cugraph_stream.datasets import read_snap
    >>> d = tempfile.mkdtemp()
    >>> p = os.path.join(d, "g.txt")
    >>> _ = open(p, "w").write("# FromNodeId ToNodeId\\n0 1\\n1\\t2\\n")
    >>> read_snap(p)
       src  dst
    0    0    1
    1    1    2
    """
    path = _check_path(path)
    try:
        raw = pd.read_csv(
            path, sep=r"\s+", comment="#", header=None, engine="c",
        )
    except pd.errors.EmptyDataError:
        raw = pd.DataFrame(columns=[0, 1], dtype=np.int64)
    except ValueError as exc:
        raise ValueError(f"path {os.fspath(path)!r}: not a SNAP edge list ({exc})") from None
    if raw.shape[1] < 2:
        raise ValueError(
            f"path {os.fspath(path)!r}: a SNAP edge list needs at least 2 columns, "
            f"found {raw.shape[1]}"
        )
    columns = {"src": raw.iloc[:, 0], "dst": raw.iloc[:, 1]}
    if raw.shape[1] >= 3:
        columns["weight"] = raw.iloc[:, 2]
    return _finish(columns, path, weight_dtype, weight_default=np.float64)


def read_matrix_market(path, weight_dtype=None):
    """Read a Matrix Market coordinate file (``.mtx``) with :func:`scipy.io.mmread`.

    Row ``i`` and column ``j`` of an entry become the edge ``i -> j``, with
    ids shifted to start at 0 (Matrix Market counts from 1).  The entry's
    value is the weight; ``pattern`` matrices have no weight column.

    A ``symmetric`` (or ``skew-symmetric``/``hermitian``) file stores one
    triangle only; SciPy expands it, so the result holds both ``i -> j`` and
    ``j -> i`` for every off-diagonal entry.  Build such a graph with
    ``directed=False`` (the two directions then collapse into one edge) or
    keep it directed with both directions.

    Parameters
    ----------
    path : str or os.PathLike
        The file (may be gzip or bzip2 compressed).
    weight_dtype : str or numpy dtype, optional
        dtype of the weight column (default float64).

    Returns
    -------
    pandas.DataFrame
        ``src``, ``dst`` (int64) and ``weight`` unless the file is a pattern.

    Raises
    ------
    ValueError
        If the file is a dense ``array`` matrix or has complex values.

    Examples
    --------
    >>> import tempfile, os
    >>> from cugraph_stream.datasets import read_matrix_market
    >>> p = os.path.join(tempfile.mkdtemp(), "g.mtx")
    >>> _ = open(p, "w").write(
    ...     "%%MatrixMarket matrix coordinate real general\\n3 3 2\\n1 2 0.5\\n2 3 2\\n")
    >>> read_matrix_market(p)
       src  dst  weight
    0    0    1     0.5
    1    1    2     2.0
    """
    import scipy.io
    import scipy.sparse

    path = _check_path(path)
    try:
        _, _, _, fmt, field, _ = scipy.io.mminfo(path)
    except (ValueError, OSError) as exc:
        raise ValueError(f"path {os.fspath(path)!r}: not a Matrix Market file ({exc})") from None
    if fmt != "coordinate":
        raise ValueError(
            f"path {os.fspath(path)!r}: only coordinate (sparse) Matrix Market files "
            f"hold edge lists, this one is {fmt!r}"
        )
    if field == "complex":
        raise ValueError(f"path {os.fspath(path)!r}: complex weights are not supported")
    coo = scipy.sparse.coo_matrix(scipy.io.mmread(path))
    columns = {"src": coo.row, "dst": coo.col}
    if field != "pattern":
        columns["weight"] = coo.data
    return _finish(columns, path, weight_dtype, weight_default=np.float64)


def read_parquet(path, source="src", destination="dst", weight=_DEFAULT_WEIGHT,
                 op=None, weight_dtype=None):
    """Read an edge list from a Parquet file.

    Parameters
    ----------
    path : str or os.PathLike
        The file (or a directory of Parquet files).
    source, destination : str, optional
        Names of the id columns in the file.
    weight : str or None, optional
        Name of the weight column.  With the default name ``"weight"`` the
        column is optional (the result has no weight column when the file has
        none); any other name must exist.  ``None`` skips weights.
    op : str or None, optional
        Name of an operation column to keep (returned as ``op``, values
        untouched), for update files.
    weight_dtype : str or numpy dtype, optional
        dtype of the weight column (default: as stored; integer weights become
        float64).

    Returns
    -------
    pandas.DataFrame
        ``src``, ``dst`` (int64) and, where present, ``weight`` and ``op``.

    Examples
    --------
    >>> import tempfile, os
    >>> import pandas as pd
    >>> from cugraph_stream.datasets import read_parquet
    >>> p = os.path.join(tempfile.mkdtemp(), "g.parquet")
    >>> pd.DataFrame({"a": [0, 1], "b": [1, 2]}).to_parquet(p)
    >>> read_parquet(p, source="a", destination="b")
       src  dst
    0    0    1
    1    1    2
    """
    import pyarrow.parquet as pq

    path = _check_path(path)
    names = _column_names(source, destination, weight, op)
    try:
        schema = pq.read_schema(path) if os.path.isfile(path) else pq.ParquetDataset(path).schema
    except Exception as exc:  # pyarrow raises several types for bad files
        raise ValueError(f"path {os.fspath(path)!r}: not a Parquet file ({exc})") from None
    wanted = _select(names, schema.names, path)
    table = pq.read_table(path, columns=list(wanted.values()))
    columns = {out: table.column(name).to_numpy() for out, name in wanted.items()}
    return _finish(columns, path, weight_dtype, weight_default=None)


def read_csv(path, source="src", destination="dst", weight=_DEFAULT_WEIGHT,
             op=None, sep=",", weight_dtype=None):
    """Read an edge list from a CSV file with a header line.

    Parameters
    ----------
    path : str or os.PathLike
        The file (may be compressed; see :func:`pandas.read_csv`).
    source, destination : str, optional
        Names of the id columns in the header.
    weight : str or None, optional
        Name of the weight column.  With the default name ``"weight"`` the
        column is optional; any other name must exist.  ``None`` skips
        weights.
    op : str or None, optional
        Name of an operation column to keep (returned as ``op``, values
        untouched), for update files.
    sep : str, optional
        Field separator.
    weight_dtype : str or numpy dtype, optional
        dtype of the weight column (default float64).

    Returns
    -------
    pandas.DataFrame
        ``src``, ``dst`` (int64) and, where present, ``weight`` and ``op``.

    Examples
    --------
    >>> import tempfile, os
    >>> from cugraph_stream.datasets import read_csv
    >>> p = os.path.join(tempfile.mkdtemp(), "g.csv")
    >>> _ = open(p, "w").write("src,dst,weight\\n0,1,2.5\\n1,2,1\\n")
    >>> read_csv(p)
       src  dst  weight
    0    0    1     2.5
    1    1    2     1.0
    """
    path = _check_path(path)
    names = _column_names(source, destination, weight, op)
    try:
        header = pd.read_csv(path, sep=sep, nrows=0).columns
    except pd.errors.EmptyDataError:
        raise ValueError(f"path {os.fspath(path)!r}: empty CSV file (a header line is needed)") from None
    wanted = _select(names, list(header), path)
    df = pd.read_csv(path, sep=sep, usecols=list(wanted.values()))
    columns = {out: df[name].to_numpy() for out, name in wanted.items()}
    return _finish(columns, path, weight_dtype, weight_default=np.float64)


def read_edgelist(path, source="src", destination="dst", weight=_DEFAULT_WEIGHT,
                  op=None, weight_dtype=None):
    """Read an edge list, choosing the reader by the file extension.

    ``.csv`` (and ``.csv.gz`` etc.) -> :func:`read_csv`; ``.tsv`` ->
    :func:`read_csv` with a tab separator; ``.parquet``/``.pq`` or a directory
    -> :func:`read_parquet`; ``.mtx`` -> :func:`read_matrix_market`;
    ``.txt``, ``.el``, ``.edges``, ``.snap`` -> :func:`read_snap`.  Column
    names and ``op`` apply to the CSV and Parquet formats only.

    Examples
    --------
    >>> import tempfile, os
    >>> from cugraph_stream.datasets import read_edgelist
    >>> p = os.path.join(tempfile.mkdtemp(), "u.csv")
    >>> _ = open(p, "w").write("s,d,op\\n0,1,insert\\n")
    >>> read_edgelist(p, source="s", destination="d", op="op")
       src  dst      op
    0    0    1  insert
    """
    path = _check_path(path)
    name = os.fspath(path).lower()
    for suffix in (".gz", ".bz2", ".zip", ".xz", ".zst"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    if name.endswith(".csv"):
        return read_csv(path, source, destination, weight, op, weight_dtype=weight_dtype)
    if name.endswith(".tsv"):
        return read_csv(path, source, destination, weight, op, sep="\t",
                        weight_dtype=weight_dtype)
    if name.endswith((".parquet", ".pq")) or os.path.isdir(path):
        return read_parquet(path, source, destination, weight, op, weight_dtype=weight_dtype)
    if name.endswith(".mtx"):
        return read_matrix_market(path, weight_dtype=weight_dtype)
    if name.endswith((".txt", ".el", ".edges", ".snap")):
        return read_snap(path, weight_dtype=weight_dtype)
    raise ValueError(
        f"path {os.fspath(path)!r}: unknown edge-list format; expected one of "
        ".csv, .tsv, .parquet, .pq, .mtx, .txt, .el, .edges, .snap"
    )


def _check_path(path):
    if not isinstance(path, (str, bytes, os.PathLike)):
        raise ValueError(f"path must be a file name, got {path!r}")
    if not os.path.exists(path):
        raise ValueError(f"path {os.fspath(path)!r} does not exist")
    return path


def _column_names(source, destination, weight, op):
    names = {"src": source, "dst": destination}
    for arg, value in (("source", source), ("destination", destination)):
        if not isinstance(value, str):
            raise ValueError(f"{arg} must be a column name, got {value!r}")
    if weight is not None:
        if not isinstance(weight, str):
            raise ValueError(f"weight must be a column name or None, got {weight!r}")
        names["weight"] = weight
    if op is not None:
        if not isinstance(op, str):
            raise ValueError(f"op must be a column name or None, got {op!r}")
        names["op"] = op
    return names


def _select(names, available, path):
    """Map output names to file columns; the default weight is optional."""
    available = set(available)
    wanted = {}
    for out, name in names.items():
        if name in available:
            wanted[out] = name
        elif out == "weight" and name == _DEFAULT_WEIGHT:
            continue
        else:
            arg = {"src": "source", "dst": "destination"}.get(out, out)
            raise ValueError(
                f"{arg}: column {name!r} not found in {os.fspath(path)!r} "
                f"(columns: {sorted(map(str, available))})"
            )
    return wanted


def _as_ids(values, column, path):
    values = np.asarray(values)
    if values.dtype.kind in "iu":
        if values.dtype == np.uint64 and values.size and values.max() > np.iinfo(np.int64).max:
            raise ValueError(f"{column}: ids in {os.fspath(path)!r} overflow int64")
        return values.astype(np.int64, copy=False)
    if values.dtype.kind == "f" or values.dtype == object:
        try:
            as_float = values.astype(np.float64)
        except (TypeError, ValueError):
            raise ValueError(f"{column}: ids in {os.fspath(path)!r} are not integers") from None
        bad = ~np.isfinite(as_float) | (as_float != np.floor(as_float))
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            raise ValueError(
                f"{column}: id {values[row]!r} in row {row} of {os.fspath(path)!r} "
                "is missing or not an integer"
            )
        return as_float.astype(np.int64)
    raise ValueError(f"{column}: ids in {os.fspath(path)!r} are not integers "
                     f"(dtype {values.dtype})")


def _finish(columns, path, weight_dtype, weight_default):
    out = {"src": _as_ids(columns["src"], "src", path),
           "dst": _as_ids(columns["dst"], "dst", path)}
    if "weight" in columns:
        w = np.asarray(columns["weight"])
        if weight_dtype is not None:
            try:
                dtype = np.dtype(weight_dtype)
            except TypeError:
                raise ValueError(f"weight_dtype: not a dtype: {weight_dtype!r}") from None
            if dtype.kind != "f":
                raise ValueError(f"weight_dtype must be a float dtype, got {weight_dtype!r}")
        elif weight_default is not None:
            dtype = np.dtype(weight_default)
        elif w.dtype.kind == "f":
            dtype = w.dtype
        else:
            dtype = np.dtype(np.float64)
        try:
            out["weight"] = w.astype(dtype, copy=False)
        except (TypeError, ValueError):
            raise ValueError(f"weight: values in {os.fspath(path)!r} are not numbers") from None
    if "op" in columns:
        out["op"] = np.asarray(columns["op"])
    return pd.DataFrame(out, copy=False)
