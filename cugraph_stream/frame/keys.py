"""Vertex keys: what users name vertices with, turned into the int64 ids the engine knows.

cuGraph renumbers any vertex column (integers of any width, strings,
multi-column keys) to dense ids and un-renumbers its results.  A
:class:`VertexKeys` does the same at the frame boundary, so the engine keeps
seeing int64 "external ids" (:mod:`cugraph_stream.engine.vertices` maps
those to its dense internal ids):

* **Integer keys** (one column of any integer width, signed or unsigned; also
  floats without fraction and object columns of ints, read as int64): the
  key *is* the external id, no table.  This is the int64 fast path: an int64
  column costs what it did before keys existed.  uint64 keys are stored with
  their top bit flipped (``key ^ 2**63`` as int64), a bijection that keeps
  their order, so every uint64 value fits.  Output columns come back in the
  recorded key dtype.
* **Encoded keys** (strings, categoricals, which are decoded to their
  category values, anything else hashable, and keys of several columns of
  any mix of dtypes): dense int64 *codes* in first-seen order (the source
  column before the destination column, row by row), from a key table that
  grows by each batch's new keys.  On the CPU the table is a short list of
  pandas ``Index`` (or ``MultiIndex``) levels of geometrically growing size
  (each level's hash table is built once by pandas and cached; a batch's
  new keys become a small level, merged into the one before once they are
  as large), so a batch costs what its own keys cost, not the table's size.
  On the GPU the table is a cuDF DataFrame in GPU memory; a batch is
  encoded by a left merge of its keys against it, and extended by
  ``concat``: no key travels through host memory.

The kind of keys and their dtypes are decided by the first batch and
recorded; a later batch whose keys do not fit (strings into an
integer-keyed graph, another number of key columns, an integer beyond the
recorded dtype) raises ``ValueError`` naming the column and row.

Encoding is side-effect free: :meth:`VertexKeys.encoder` returns a
:class:`KeyEncoder` that proposes the extended table, and
:meth:`KeyEncoder.commit` installs it through the graph's undo journal (so a
batch that fails later takes its new keys back with it).

Examples
--------
>>> import pandas as pd
>>> keys = VertexKeys()
>>> batch = pd.DataFrame({"src": ["ann", "bob"], "dst": ["bob", "cy"]})
>>> encoder = keys.encoder()
>>> encoder.encode(batch, "src").tolist(), encoder.encode(batch, "dst").tolist()
([0, 1], [1, 2])
>>> encoder.commit()
>>> keys.kind, keys.width
('encoded', 1)
>>> list(keys.decode(np.array([2, 0])))
['cy', 'ann']
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..arrays import is_cudf, is_cupy
from .batch import array_module, parse_ids
from .columns import cudf_column, read_column

_FLIP = np.uint64(1 << 63)
INT, ENCODED = "int", "encoded"


# ------------------------------------------------------------------ columns
def _names(columns):
    """``columns`` as a tuple of names (one name, or a list/tuple of names)."""
    if isinstance(columns, (list, tuple)):
        if not columns:
            raise ValueError("a vertex key needs at least one column, got an empty list")
        return tuple(columns)
    return (columns,)


def _categorical(series):
    """A pandas categorical Series decoded to its category values (nulls stay nulls)."""
    values = series.cat.categories.take(series.cat.codes.clip(lower=0).to_numpy())
    values = values.to_numpy() if isinstance(values.dtype, np.dtype) else values.array
    return values, series.cat.codes.to_numpy() < 0


def read_key_column(table, name):
    """``(values, nulls)`` of one key column of ``table``.

    As :func:`~cugraph_stream.frame.columns.read_column` (which decodes
    categoricals and Arrow dictionaries), except that pandas string and
    categorical columns keep their value dtype (so results come back in
    it), and cuDF categoricals are decoded on the GPU.  Integer columns are
    read exactly as ``read_column`` reads them (the int64 fast path).

    >>> values, nulls = read_key_column(pd.DataFrame({"k": pd.Categorical(["x", "y", "x"])}), "k")
    >>> list(values), nulls
    (['x', 'y', 'x'], None)
    """
    if not isinstance(table, pd.DataFrame) and is_cudf(table):
        held = cudf_column(table, name)         # (its dtype, without building a Series)
        column = table[name] if held is None or str(held.dtype) == "category" else None
        if column is not None and str(column.dtype) == "category":
            column = column.astype(column.dtype.categories.dtype)
            nulls = column.isna().values if column.has_nulls else None
            if column.dtype.kind in "iuf":
                return (column.fillna(0) if nulls is not None else column).values, nulls
            return column, nulls
    values, nulls = read_column(table, name)
    if values.dtype.kind == "O" and isinstance(table, pd.DataFrame):
        column = table[name]
        if isinstance(column.dtype, pd.CategoricalDtype):
            decoded, missing = _categorical(column)
            if not isinstance(decoded, np.ndarray) or decoded.dtype.kind != "O":
                return decoded, (missing if missing.any() else None)
        elif isinstance(column.dtype, pd.StringDtype):
            return column.array, nulls
    return values, nulls


def _is_integral_kind(values):
    """Whether a column reads as integer vertex ids (the fast path): integer and
    float arrays, and object arrays of numbers; bools are left to
    :func:`parse_ids` (which rejects them)."""
    if is_cudf(values):
        return False                   # a cuDF column read as a Series: strings and the like
    kind = values.dtype.kind
    if kind in "iufbc":
        return True
    if kind == "O" and isinstance(values, np.ndarray):
        inferred = pd.api.types.infer_dtype(values, skipna=True)
        return inferred in ("integer", "floating", "mixed-integer-float", "boolean", "empty", "complex")
    return False


def _check_object_keys(values, column):
    """Raise ``ValueError`` naming the first row of an object key column holding a
    boolean or an unhashable value (a list, an array); strings only are checked in C."""
    if pd.api.types.infer_dtype(values, skipna=False) in ("string", "bytes", "integer"):
        return
    for row, item in enumerate(values):
        if isinstance(item, (bool, np.bool_)):
            raise ValueError(f"column {column!r} holds a boolean vertex id {item!r} at row {row}; "  # noqa: TRY004
                             "vertex keys must not be booleans")
        try:
            hash(item)
        except TypeError:
            raise ValueError(f"column {column!r} holds {item!r} at row {row}, not a vertex key "
                             "(a number, a string or another hashable value)") from None


def _first_non_int(values):
    """The first row of an object array holding anything but an integral number (bools included)."""
    for row, item in enumerate(values):
        if isinstance(item, (bool, np.bool_)) or not (
                isinstance(item, (int, np.integer)) or
                (isinstance(item, (float, np.floating)) and float(item).is_integer())):
            return row
    return 0


def _show(values, row):
    item = values[row]
    return item.item() if getattr(item, "ndim", None) == 0 else item


def _first(mask):
    return int(array_module(mask).flatnonzero(mask)[0])


def _check_nulls(nulls, column):
    if nulls is not None:
        raise ValueError(f"column {column!r} holds a null vertex id at row {_first(nulls)}")


def _fit_int(ids, values, dtype, column):
    """Raise ``ValueError`` naming the first row of ``ids`` (int64) outside ``dtype``."""
    info = np.iinfo(dtype)
    if values.dtype.kind in "iu" and np.can_cast(values.dtype, dtype):
        return
    bad = (ids < max(info.min, -2 ** 63)) | (ids > min(info.max, 2 ** 63 - 1))
    if bool(bad.any()):
        row = _first(bad)
        raise ValueError(f"column {column!r} holds vertex id {_show(values, row)} at row {row}, "
                         f"beyond this graph's vertex key dtype {np.dtype(dtype)}")


def _int_ids(values, nulls, column, dtype):
    """External ids of an integer key column for a graph of key dtype ``dtype``."""
    if dtype.kind == "u" and dtype.itemsize == 8:          # uint64: the order-keeping top-bit flip
        if values.dtype.kind == "u":
            _check_nulls(nulls, column)
            return (values.astype(np.uint64, copy=False) ^ _FLIP).view(np.int64)
        ids = parse_ids(values, nulls, column)
        _fit_int(ids, values, dtype, column)
        return (ids.view(np.uint64) ^ _FLIP).view(np.int64)
    if values.dtype.kind == "u" and values.dtype.itemsize == 8 and dtype.kind == "i":
        pass                                               # parse_ids names a value beyond int64
    ids = parse_ids(values, nulls, column)
    if dtype != np.int64:
        _fit_int(ids, values, dtype, column)
    return ids


def _class_of(values):
    """The comparable class of a key column's values: ``"int"``, ``"str"``, or its dtype's name."""
    if is_cudf(values):
        dtype = values.dtype
        return "str" if dtype.kind in "OU" else ("int" if dtype.kind in "iu" else str(dtype))
    dtype = values.dtype
    if dtype.kind in "iu":
        return "int"
    if isinstance(dtype, pd.StringDtype) or dtype.kind in "US":
        return "str"
    if dtype.kind == "O":
        inferred = pd.api.types.infer_dtype(values, skipna=True)
        return {"string": "str", "integer": "int", "empty": "empty"}.get(inferred, "object")
    return dtype.name


def _describe(klass):
    return {"int": "integers", "str": "strings"}.get(klass, klass)


# ------------------------------------------------------------------- tables
class _HostTable:
    """Key table on the host: pandas ``Index`` levels, codes in level order.

    Immutable: :meth:`extend` returns a new table, so a committed table is
    never changed by a batch in progress.
    """

    def __init__(self, levels=(), width=1):
        self.levels = tuple(levels)
        self.width = width
        self.starts = np.cumsum([0] + [len(level) for level in self.levels])

    def __len__(self):
        return int(self.starts[-1])

    def index(self, parts):
        """A pandas Index (``MultiIndex`` for several parts) of key columns."""
        if self.width == 1:
            return pd.Index(parts[0], dtype=getattr(parts[0], "dtype", None), tupleize_cols=False)
        return pd.MultiIndex.from_arrays(list(parts))

    def lookup(self, keys):
        """Codes of ``keys`` (a pandas Index), -1 where absent."""
        codes = np.full(len(keys), -1, dtype=np.int64)
        todo = np.arange(len(keys))
        for start, level in zip(self.starts, self.levels):
            if not todo.size:
                break
            found = level.get_indexer(keys[todo] if todo.size < len(keys) else keys)
            hit = found >= 0
            codes[todo[hit]] = found[hit] + start
            todo = todo[~hit]
        return codes

    def extend(self, new):
        """The table with the distinct keys ``new`` (a pandas Index, none present) appended."""
        levels = list(self.levels) + [new]
        while len(levels) > 1 and len(levels[-1]) * 2 >= len(levels[-2]):
            last = levels.pop()
            levels[-1] = levels[-1].append(last)
        return _HostTable(levels, self.width)

    def take(self, codes):
        """Key parts (one array per column) of ``codes`` (int64, all valid)."""
        codes = np.asarray(codes, dtype=np.int64)
        if len(self.levels) == 1:
            keys = self.levels[0].take(codes)
        else:
            level = np.searchsorted(self.starts, codes, side="right") - 1
            order = np.argsort(level, kind="stable")
            pieces = []
            bounds = np.searchsorted(level[order], np.arange(len(self.levels) + 1))
            for i, part in enumerate(self.levels):
                rows = order[bounds[i]:bounds[i + 1]]
                if rows.size:
                    pieces.append(part.take(codes[rows] - self.starts[i]))
            keys = pieces[0].append(pieces[1:]) if pieces else self.levels[0][:0]
            keys = keys.take(np.argsort(order, kind="stable"))
        if self.width == 1:
            return [keys.array]
        return [keys.get_level_values(i).array for i in range(self.width)]

    def columns(self):
        """The whole table as key parts, in code order."""
        return self.take(np.arange(len(self), dtype=np.int64)) if len(self) else \
            [np.empty(0, dtype=object)] * self.width


class _DeviceTable:
    """Key table in GPU memory: a cuDF DataFrame with one column per key part
    (``k0``, ``k1``, ...), row ``i`` holding the key of code ``i``.

    A batch's keys are looked up by a left merge against the table (with a
    row number to restore the batch's order, which ``merge`` does not keep);
    new keys are the unmatched rows, deduplicated keeping the first, in row
    order, appended by ``concat``.  Immutable, as :class:`_HostTable`.
    """

    def __init__(self, frame, width):
        self.frame = frame
        self.width = width

    def __len__(self):
        return len(self.frame)

    @staticmethod
    def names(width):
        return [f"k{i}" for i in range(width)]

    def index(self, parts):
        import cudf

        return cudf.DataFrame({name: part for name, part in zip(self.names(self.width), parts)})

    def lookup(self, keys):
        import cupy

        names = self.names(self.width)
        probe = keys.reset_index(drop=True)
        probe["_row"] = cupy.arange(len(probe), dtype=cupy.int64)
        table = self.frame.reset_index(drop=True)
        table["_code"] = cupy.arange(len(table), dtype=cupy.int64)
        for name in names:                          # merge needs matching dtypes
            if probe[name].dtype != table[name].dtype:
                probe[name] = probe[name].astype(table[name].dtype)
        joined = probe.merge(table, on=names, how="left").sort_values("_row")
        return joined["_code"].fillna(-1).values.astype(cupy.int64)

    def extend(self, new):
        import cudf

        new = new[self.names(self.width)]
        for name in self.names(self.width):          # the table's dtypes (the first batch's) stay
            if len(self.frame) and new[name].dtype != self.frame[name].dtype:
                new[name] = new[name].astype(self.frame[name].dtype)
        return _DeviceTable(cudf.concat([self.frame, new], ignore_index=True), self.width)

    def take(self, codes):
        rows = self.frame.take(codes).reset_index(drop=True)
        return [rows[name] for name in self.names(self.width)]

    def columns(self):
        return [self.frame[name] for name in self.names(self.width)]


# -------------------------------------------------------------------- state
@dataclass(frozen=True)
class KeyState:
    """What the first batch decided, and the key table (immutable; replaced whole)."""

    kind: str                       # INT or ENCODED
    dtypes: tuple                   # per key column: numpy or pandas dtype of the output
    classes: tuple                  # per key column: "int", "str", or a dtype name
    table: object = None            # _HostTable / _DeviceTable (ENCODED), else None
    extra: dict = field(default_factory=dict)


class VertexKeys:
    """The vertex keys of one graph: their kind, dtypes and (for encoded keys) table.

    See the module docstring.  ``kind`` is None until the first keys arrive.

    Examples
    --------
    >>> import pandas as pd
    >>> keys = VertexKeys()
    >>> encoder = keys.encoder()
    >>> encoder.encode({"src": np.array([7, 9], dtype=np.int32)}, "src").tolist()
    [7, 9]
    >>> encoder.commit()
    >>> keys.kind, keys.dtypes
    ('int', (dtype('int32'),))
    >>> keys.decode(np.array([9, 7])).dtype
    dtype('int32')
    """

    def __init__(self, device=False):
        self.state = None
        self.device = bool(device)     # encoded keys' table in GPU memory (cuDF), else in host memory

    # ------------------------------------------------------------ properties
    @property
    def kind(self):
        """``"int"`` (keys are the ids), ``"encoded"`` (a key table), or None (no keys yet)."""
        return None if self.state is None else self.state.kind

    @property
    def encoded(self):
        return self.state is not None and self.state.kind == ENCODED

    @property
    def width(self):
        """Number of key columns (1 until decided)."""
        return 1 if self.state is None else len(self.state.dtypes)

    @property
    def dtypes(self):
        return (np.dtype(np.int64),) if self.state is None else self.state.dtypes

    @property
    def signed_int(self):
        """Whether keys are signed integers (then -1 means "no vertex" in predecessor columns)."""
        return self.state is None or (self.state.kind == INT and self.state.dtypes[0].kind == "i")

    def __len__(self):
        """Number of keys in the table (encoded keys), else 0."""
        return 0 if not self.encoded else len(self.state.table)

    def __bool__(self):                  # (an empty table is still a key layer)
        return True

    # -------------------------------------------------------------- encoding
    def encoder(self, extend=True):
        """A :class:`KeyEncoder` for one call (a batch, or a list of vertices);
        ``extend=False``: lookups only (-1 for unknown keys)."""
        return KeyEncoder(self, extend)

    def lookup(self, keys, column="ids"):
        """External ids of ``keys`` without extending the table; -1 where a key is unknown.

        ``keys``: a scalar (a tuple for multi-column keys), a list, an array,
        a Series, or a DataFrame with one column per key part.

        >>> keys = VertexKeys(); e = keys.encoder(); _ = e.encode({"k": ["a", "b"]}, "k"); e.commit()
        >>> keys.lookup(["b", "zz"]).tolist(), keys.lookup("a").tolist()
        ([1, -1], [0])
        """
        table, names = self.as_table(keys, column)
        return self.encoder(extend=False).encode(table, names)

    def as_table(self, keys, column="ids"):
        """``(table, names)``: ``keys`` (see :meth:`lookup`) as a table of key columns."""
        width = self.width if self.state is not None else None       # None: the input decides
        if isinstance(keys, pd.DataFrame) or is_cudf(keys) and hasattr(keys, "columns"):
            names = [str(c) for c in keys.columns]
            if width is not None and len(names) != width:
                raise ValueError(f"{column}: {len(names)} key columns given, this graph's vertex keys "
                                 f"have {width}")
            return keys, names if len(names) > 1 else names[0]
        if width is None:
            first = keys if isinstance(keys, tuple) else next(iter(keys), None) \
                if isinstance(keys, list) else None
            width = len(first) if isinstance(first, tuple) else 1
        if width > 1:
            rows = [keys] if isinstance(keys, tuple) else list(keys)
            for row, item in enumerate(rows):
                if not isinstance(item, tuple) or len(item) != width:
                    raise ValueError(f"{column}: row {row} is {item!r}, not a key of {width} parts")
            names = [f"{column}_{i}" for i in range(width)]
            return pd.DataFrame({name: [r[i] for r in rows] for i, name in enumerate(names)}), names
        if isinstance(keys, pd.Series) or is_cudf(keys):
            return {column: keys}, column
        if is_cupy(keys):
            return {column: keys.reshape(-1)}, column
        if isinstance(keys, (str, bytes, tuple)) or np.ndim(keys) == 0:
            keys = [keys]
        array = np.asarray(keys) if not isinstance(keys, np.ndarray) else keys
        if array.dtype.kind not in "iufbcUSO" or array.ndim != 1:
            array = pd.Series(list(keys), dtype=object).to_numpy()
        return {column: array}, column

    # -------------------------------------------------------------- decoding
    def decode(self, external, none=None):
        """Keys of ``external`` ids (a backend array): one column for one key part,
        else a list of columns.

        ``none`` (a bool array, optional) marks rows that name no vertex: -1
        for signed integer keys, else null.
        """
        parts = self.decode_parts(external, none)
        return parts[0] if len(parts) == 1 else parts

    def decode_parts(self, external, none=None):
        """As :meth:`decode`, always a list of columns (one per key part)."""
        state = self.state
        xp = array_module(external)
        if state is None or state.kind == INT:
            dtype = self.dtypes[0]
            if dtype == np.int64:
                return [external if none is None else xp.where(none, -1, external)]
            if dtype.kind == "i":
                out = external.astype(dtype)
                return [out if none is None else xp.where(none, -1, out).astype(dtype)]
            out = (external.view(np.uint64) ^ _FLIP) if dtype.itemsize == 8 else external.astype(dtype)
            if dtype.itemsize == 8:
                out = out.astype(dtype, copy=False)
            return [out if none is None else self._nullable([out], none)[0]]
        codes = external if none is None else xp.where(none, 0, external)
        if isinstance(state.table, _HostTable):
            codes = codes if xp is np else xp.asnumpy(codes)
            parts = state.table.take(codes)
            parts = [self._cast(part, dtype) for part, dtype in zip(parts, state.dtypes)]
        else:
            if xp is np:
                import cupy

                codes = cupy.asarray(codes)
            parts = state.table.take(codes)
        return parts if none is None else self._nullable(parts, none)

    @staticmethod
    def _cast(part, dtype):
        if isinstance(dtype, np.dtype) and dtype.kind != "O":
            return np.asarray(part, dtype=dtype)
        if isinstance(dtype, np.dtype):
            return np.asarray(part, dtype=object)
        return pd.array(part, dtype=dtype)

    @staticmethod
    def _nullable(parts, none):
        """``parts`` with the rows ``none`` null (pandas nullable / object arrays, cuDF nulls)."""
        out = []
        for part in parts:
            if is_cudf(part) or is_cupy(part):
                try:
                    import cudf
                except ImportError:                  # CuPy without cuDF: a host column, as make_frame builds
                    part, none = part.get(), (none.get() if is_cupy(none) else none)
                else:
                    series = cudf.Series(part) if is_cupy(part) else part
                    out.append(series.where(cudf.Series(~none)))
                    continue
            none_host = none.get() if is_cupy(none) else np.asarray(none)
            if isinstance(part, np.ndarray) and part.dtype.kind in "iu":
                masked = pd.array(part, dtype=pd.api.types.pandas_dtype(part.dtype.name.capitalize()
                                                                          .replace("Uint", "UInt")))
                masked[none_host] = pd.NA
                out.append(masked)
            elif isinstance(part, np.ndarray):
                masked = part.astype(object) if part.dtype.kind != "O" else part.copy()
                masked[none_host] = None
                out.append(masked)
            else:                                  # a pandas ExtensionArray (string, ...)
                masked = part.copy()
                masked[none_host] = getattr(part.dtype, "na_value", None)
                out.append(masked)
        return out

    def columns(self, name, external, none=None):
        """Output columns of the vertex-valued column ``name``: ``{name: keys}`` for
        one key part, ``{"0_<name>": part 0, "1_<name>": ...}`` (cuGraph's
        naming of un-renumbered multi-column vertices) for several."""
        parts = self.decode_parts(external, none)
        if len(parts) == 1:
            return {name: parts[0]}
        return {f"{i}_{name}": part for i, part in enumerate(parts)}

    def show(self, external):
        """A key as a Python value (for messages): ``external`` is one int."""
        parts = self.decode_parts(np.asarray([int(external)], dtype=np.int64))
        values = []
        for part in parts:
            item = part.iloc[0] if hasattr(part, "iloc") else part[0]
            values.append(item.item() if hasattr(item, "item") else item)
        return values[0] if len(values) == 1 else tuple(values)

    # ----------------------------------------------------------- checkpoints
    def describe(self):
        """JSON-ready description (for checkpoint metadata), or None (no keys yet)."""
        if self.state is None:
            return None
        return {"kind": self.state.kind, "dtypes": [str(dtype) for dtype in self.state.dtypes],
                "classes": list(self.state.classes), "count": len(self)}

    def table_columns(self):
        """The key table as host columns ``{"k0": ..., ...}`` in code order (encoded keys), else None."""
        if not self.encoded:
            return None
        parts = self.state.table.columns()
        host = []
        for part, dtype in zip(parts, self.state.dtypes):
            host.append(part.to_arrow() if is_cudf(part) else self._cast(part, dtype))
        return {f"k{i}": part for i, part in enumerate(host)}

    def restore(self, description, columns=None, device=False):
        """Install a saved state (:meth:`describe` and :meth:`table_columns`)."""
        if description is None:
            self.state = None
            return
        dtypes = tuple(pd.api.types.pandas_dtype(d) for d in description["dtypes"])
        kind, classes = description["kind"], tuple(description["classes"])
        table = None
        if kind == ENCODED:
            parts = [self._cast(np.asarray(columns[f"k{i}"]) if isinstance(dtype, np.dtype)
                                else columns[f"k{i}"], dtype) for i, dtype in enumerate(dtypes)]
            if device:
                import cudf

                frame = pd.DataFrame({f"k{i}": part for i, part in enumerate(parts)})
                table = _DeviceTable(cudf.from_pandas(frame), len(parts))
            else:
                host = _HostTable((), len(parts))
                table = host.extend(host.index(parts)) if len(parts[0]) else host
        elif kind != INT:
            raise ValueError(f"unknown vertex key kind {kind!r}")
        self.state = KeyState(kind, dtypes, classes, table)


class KeyEncoder:
    """Encodes the key columns of one call, proposing the extended table.

    Nothing changes until :meth:`commit`; an encoder made with
    ``extend=False`` (lookups) gives -1 for unknown keys and never commits.
    """

    def __init__(self, keys, extend=True):
        self.keys = keys
        self.state = keys.state
        self.extend = extend
        self.changed = False

    def encode(self, table, columns):
        """External ids (int64, NumPy or CuPy) of the key column(s) ``columns`` of ``table``.

        ``columns`` is one name or a list of names (multi-column keys); the
        caller has checked that ``table`` holds them
        (:func:`~cugraph_stream.frame.columns.require_columns`).
        """
        names = _names(columns)
        state = self.state
        if state is not None and len(names) != len(state.dtypes):
            raise ValueError(f"column {names[0]!r}: vertex keys of {len(names)} column(s) given, "
                             f"but this graph's vertex keys have {len(state.dtypes)} "
                             f"({', '.join(str(d) for d in state.dtypes)})")
        if len(names) == 1 and (state is None or state.kind == INT):
            values, nulls = read_key_column(table, names[0])
            if state is not None or _is_integral_kind(values):
                return self._encode_int(values, nulls, names[0])
            return self._encode_keys([(values, nulls)], names)
        return self._encode_keys([read_key_column(table, name) for name in names], names)

    # --------------------------------------------------------------- integers
    def _encode_int(self, values, nulls, column):
        state = self.state
        if state is None:
            if not _is_integral_kind(values):            # (only with a state: see encode)
                raise AssertionError
            dtype = values.dtype if values.dtype.kind in "iu" else np.dtype(np.int64)
            if dtype.kind == "u" and dtype.itemsize == 8:
                ids = _int_ids(values, nulls, column, dtype)
            else:
                ids = parse_ids(values, nulls, column)
            if self.extend:
                self.state = KeyState(INT, (np.dtype(dtype),), ("int",))
                self.changed = True
            return ids
        if not _is_integral_kind(values):
            klass = _class_of(values)
            row = 0 if nulls is None else (_first(~nulls) if (~nulls).any() else 0)
            if isinstance(values, np.ndarray) and values.dtype.kind == "O":
                row = _first_non_int(values)
                if not isinstance(values[row], (str, bytes)):
                    parse_ids(values, nulls, column)         # names the row as for int64 ids (a bool, a list)
            raise ValueError(f"column {column!r} holds vertex key {_show(_host(values), row)!r} at row {row}, "
                             f"but this graph's vertex keys are integers ({state.dtypes[0]}), "
                             f"not {_describe(klass)}")
        return _int_ids(values, nulls, column, state.dtypes[0])

    # ----------------------------------------------------------------- tables
    def _encode_keys(self, columns, names):
        state = self.state
        device = self.keys.device
        # ids come back where the batch's columns are (read_rows mixes them with its other columns)
        host_input = not any(is_cudf(values) or is_cupy(values) for values, _ in columns)
        parts, classes, dtypes = [], [], []
        for (values, nulls), name in zip(columns, names):
            values, nulls = _to_device(values, nulls) if device else (_host(values), _host(nulls))
            if nulls is not None and bool(nulls.any()):
                raise ValueError(f"column {name!r} holds a null vertex id at row {_first(nulls)}")
            if not is_cudf(values) and values.dtype.kind in "bc":
                parse_ids(values, None, name)                # raises: booleans or complex numbers
            if isinstance(values, np.ndarray) and values.dtype.kind == "O":
                _check_object_keys(values, name)
            klass = _class_of(values)
            if state is not None and klass != state.classes[len(parts)] and "empty" not in \
                    (klass, state.classes[len(parts)]) and state.classes[len(parts)] != "object":
                want = state.classes[len(parts)]
                raise ValueError(f"column {name!r} holds vertex key {_show(_host(values), 0)!r} at row 0, "
                                 f"but this graph's vertex keys {'are' if len(names) == 1 else 'hold'} "
                                 f"{_describe(want)} ({state.dtypes[len(parts)]})"
                                 f"{'' if len(names) == 1 else ' there'}, not {_describe(klass)}")
            if state is not None and klass == "int" and state.dtypes[len(parts)].kind in "iu":
                values = self._fit(values, name, state.dtypes[len(parts)])
            if device and not is_cudf(values):
                import cudf

                values = cudf.Series(values)
            parts.append(values)
            classes.append(klass)
            dtypes.append(_output_dtype(values))
        if state is None:
            table = _DeviceTable(_empty_device(len(parts), parts), len(parts)) if device else \
                _HostTable((), len(parts))
            state = KeyState(ENCODED, tuple(dtypes), tuple(classes), table)
        table = state.table
        keys = table.index(parts)
        codes = table.lookup(keys) if len(table) else _full(device, len(parts[0]))
        if self.extend:
            missing = codes < 0
            if bool(missing.any()):
                table = table.extend(_distinct_missing(keys, missing, device))
                codes = table.lookup(keys)
                state = KeyState(ENCODED, state.dtypes, state.classes, table)
            if state is not self.state:
                self.state, self.changed = state, True
        return codes.get() if device and host_input else codes

    @staticmethod
    def _fit(values, name, dtype):
        if is_cudf(values):
            return values
        ids = values.astype(np.int64) if values.dtype != np.uint64 else values
        if values.dtype.kind == "u" and values.dtype.itemsize == 8 and dtype.kind == "u":
            return values
        _fit_int(parse_ids(values, None, name) if ids.dtype == np.int64 else ids, values, dtype, name)
        return values.astype(dtype)

    def commit(self, journal=None):
        """Install the proposed state (through ``journal.assign``, so a rollback undoes it)."""
        if not self.changed or not self.extend:
            return
        if journal is None:
            self.keys.state = self.state
        else:
            journal.assign(self.keys, "state", self.state)
        self.changed = False


# ------------------------------------------------------------------ helpers
def _host(values):
    """``values`` (a key column or a null mask) in host memory."""
    if is_cudf(values):
        values = values.to_pandas()
        return values.to_numpy() if isinstance(values.dtype, np.dtype) else values.array
    if is_cupy(values):
        return values.get()
    return values


def _to_device(values, nulls):
    """A key column (and its null mask) in GPU memory: cuDF strings stay, host columns are copied."""
    if is_cudf(values) or is_cupy(values):
        return values, nulls
    import cudf
    import cupy

    series = cudf.Series(pd.Series(values, copy=False)) if not isinstance(values, np.ndarray) or \
        values.dtype.kind in "OUS" else cudf.Series(values)
    return series, (None if nulls is None else cupy.asarray(nulls))


def _output_dtype(values):
    dtype = values.dtype
    if is_cudf(values):
        return np.dtype(object) if dtype.kind in "OU" else np.dtype(dtype)
    if isinstance(dtype, np.dtype) and dtype.kind in "US":
        return np.dtype(object)
    return dtype


def _full(device, n):
    if device:
        import cupy

        return cupy.full(n, -1, dtype=cupy.int64)
    return np.full(n, -1, dtype=np.int64)


def _empty_device(width, parts):
    import cudf

    return cudf.DataFrame({f"k{i}": cudf.Series(part).iloc[:0] for i, part in enumerate(parts)})


def _distinct_missing(keys, missing, device):
    """The distinct keys of ``keys`` where ``missing``, in first-seen order."""
    if not device:
        return keys[missing].unique()
    import cupy

    rows = keys.take(cupy.flatnonzero(missing)).reset_index(drop=True)
    rows["_row"] = cupy.arange(len(rows), dtype=cupy.int64)
    names = [c for c in rows.columns if c != "_row"]
    return rows.drop_duplicates(subset=names, keep="first").sort_values("_row")[names] \
        .reset_index(drop=True)
