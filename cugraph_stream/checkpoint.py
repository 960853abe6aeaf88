"""Checkpoints: a graph's whole state on disk, in an open and versioned format.

:meth:`StreamGraph.save <cugraph_stream.StreamGraph.save>` writes, and
:meth:`StreamGraph.load <cugraph_stream.StreamGraph.load>` reads, a
directory of `Arrow IPC <https://arrow.apache.org/docs/format/Columnar.html>`_
files (any Arrow library reads them; lz4-compressed where pyarrow offers the
codec) and one JSON file::

    checkpoint/
      metadata.json            format, version, settings, counts, queries, files
      vertices.arrow           internal, external         one row per live vertex
      free.arrow               internal                   free ids, in reuse order (last first)
      edges.arrow              src, dst, weight,          every edge once (undirected: src <= dst),
                               src_position, dst_position in out-list order
      query-<i>.arrow          internal, value, parent    a monotonic query's result, per live vertex
                               internal, rank, residual   or a PageRank's state
      query-<i>-changed.arrow  internal                   a monotonic query's last changes
      hotness-<side>.arrow     internal, counts           the cache's hotness (placement="cached")
      window.arrow             src, dst, time             each edge's time (a graph built with time=)
      keys.arrow               k0, k1, ...                encoded vertex keys, row i = the key of
                                                          external id i (strings, multi-column keys)

Vertex ids in every file but ``vertices.arrow`` are *internal* ids: dense
ids below ``metadata["counts"]["vertex_bound"]`` that ``vertices.arrow``
maps to the external ones.  A loaded graph gets the same internal ids and
the same free list, so the vertices it creates later get the ids the saved
graph would have given them.  ``src_position`` is the edge's place in the
out-list of ``src``, ``dst_position`` its place in the in-list of ``dst``
(undirected: the place of the arc ``dst -> src`` in the list of ``dst``):
the lists are rebuilt in the same order, so the engines read neighbours in
the same order as before (which decides ties between equally good parents,
and the rounding of PageRank's sums).  A monotonic query stores values in
its result dtype (the weight dtype, int32 hops for BFS, int64 labels for
WCC) and parents as internal ids (-1: none); PageRank stores its
unnormalised estimate ``p`` and residual ``s`` (see
:mod:`cugraph_stream.engine.pagerank`), with ``rank_sum``,
``dangling_rank`` and ``converged`` in ``metadata.json``; a weighted
PageRank also its out-weight totals ``out_weight`` (``W``), a personalised
one the raw ``teleport`` values (columns of its file) and
``teleport_total``.  Its parameters record the weighting as settled
(``weighted``); a checkpoint written before weighted PageRank existed has
none and loads as ``weighted=False``, the ranks it was computing.

A graph that records edge times (``from_edgelist(time=..., window=...)``)
also saves ``window.arrow`` (internal ids, and times in the engine's units:
int64 nanoseconds since the epoch, UTC, for datetimes) and a ``time``
section in ``metadata.json``: the column, kind, dtype, window (in those
units), time zone and the newest time seen.  A checkpoint without it loads
as a graph without times.

Vertex keys (:mod:`cugraph_stream.frame.keys`): ``metadata["keys"]``
records their kind (``"int"``: the external ids are the keys, in the
recorded dtype; ``"encoded"``: the external ids are codes, rows of
``keys.arrow``) and dtypes.  A checkpoint without it (written before keys
existed, version 1) holds int64 keys.  Checkpoints are written as version
2, so that an older reader refuses them instead of reading codes as ids.

``metadata.json`` records, for every file, its byte size and SHA-256: a
truncated, damaged or foreign checkpoint raises :class:`CheckpointError` (a
``ValueError``) naming the file, before anything is built.  Writing goes to
a temporary sibling directory that is renamed into place once every file is
on disk (see :func:`write_checkpoint`).
"""
from __future__ import annotations

import datetime
import hashlib
import json
import math
import os
import shutil
import tempfile
import uuid

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.ipc

from ._version import __version__
from .frame.schema import EdgeSchema
from .queries import KINDS, PageRank
from .queries.base import MonotonicQuery
from .queries.pagerank import _personalization_table

#: the ``format`` field of every checkpoint's ``metadata.json``
FORMAT = "cugraph_stream-checkpoint"
#: the newest layout this version writes and reads (2: with vertex keys; 1 is read too)
VERSION = 2
METADATA = "metadata.json"

#: buffer compression of the Arrow files (LZ4 frame, the IPC format's own codec), where pyarrow has it
_COMPRESSION = "lz4_frame" if pa.Codec.is_available("lz4_frame") else None
_HASH_BLOCK = 1 << 20


class CheckpointError(ValueError):
    """A path that is not a readable checkpoint of this format (missing, foreign,
    truncated, damaged or too new)."""


# ====================================================================== writing
def write_checkpoint(path, store, queries, backend, schema, times=None, keys=None):
    """Write ``store``, the tracked ``queries`` and the graph's column ``schema``
    (an :class:`~cugraph_stream.frame.schema.EdgeSchema`) as a checkpoint directory at ``path``.

    Call it with the graph's lock held (:meth:`StreamGraph.save` does), so
    that it saves one committed state.  Every file is written and fsynced
    in a temporary sibling directory (``.<name>.tmp-*``), which is then
    renamed to ``path``.  A checkpoint already at ``path`` is first renamed
    aside (``.<name>.old-*``) and deleted once the new one is in place: for
    the instant between the two renames ``path`` does not exist, and a crash
    just then leaves both checkpoints in those sibling directories.

    Returns ``path``.  Raises ``ValueError`` if ``path`` exists and is not a
    checkpoint (nothing is written), and ``ValueError`` if a query is not
    one of :data:`cugraph_stream.queries.KINDS`.  ``keys``: the graph's
    :class:`~cugraph_stream.frame.keys.VertexKeys` (None: int64 keys).
    """
    target = os.path.abspath(os.fspath(path))
    parent, name = os.path.split(target)
    if os.path.lexists(target) and not _is_checkpoint(target):
        raise ValueError(f"refusing to overwrite {os.fspath(path)!r}: it exists and is not a "
                         "cugraph_stream checkpoint (remove it, or save elsewhere)")
    described = [_describe_query(query) for query in queries]     # before writing anything
    folder = tempfile.mkdtemp(dir=parent, prefix=f".{name}.tmp-")
    try:
        os.chmod(folder, 0o777 & ~_umask())
        metadata = _write_state(folder, store, queries, described, backend, schema, times, keys)
        _write_json(os.path.join(folder, METADATA), metadata)
        _fsync_directory(folder)
        _install(folder, target)
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    return path


def _describe_query(query):
    """``(kind, params)`` of a tracked query, as its constructor takes them."""
    kind = query.kind
    if KINDS.get(kind) is not type(query):          # a subclass may hold more than its kind's state
        raise ValueError(f"cannot checkpoint {query.name}: only the queries "
                         f"{', '.join(KINDS)} of cugraph_stream can be saved")
    params = {"mode": query.mode}
    if isinstance(query, PageRank):
        # (the weighting as settled on this graph is in the engine's state)
        params.update(alpha=query.alpha, tol=query.tol, max_iter=query.max_iter,
                      fail_on_nonconvergence=query.fail_on_nonconvergence, weighted=query.weighted,
                      stop=query.stop)
        if query.personalization is not None:
            vertices, values = query.personalization
            params["personalization"] = {"vertex": [_json_key(k) for k in vertices],
                                         "values": [float(x) for x in values]}
    elif query.source is not None:
        params["source"] = _json_key(query.source)
    return kind, params


def _json_key(key):
    """A vertex key as JSON: a number or a string; a list for a multi-column key."""
    if isinstance(key, tuple):
        return [_json_key(part) for part in key]
    key = key.item() if hasattr(key, "item") else key
    if isinstance(key, bool) or not isinstance(key, (int, float, str)):
        raise ValueError(f"cannot checkpoint a query whose source key {key!r} is not a number or a "  # noqa: TRY004
                         "string")
    return key


def _write_state(folder, store, queries, described, backend, schema, times=None, keys=None):
    """Write every Arrow file of the state into ``folder``; return the metadata."""
    ops, xp = store.ops, store.ops.xp
    files = {}

    def write(name, columns):
        files[name] = _write_table(os.path.join(folder, name), columns)
        return name

    vertices = store.vertices
    live = xp.flatnonzero(vertices.alive[: store.vertex_bound])
    write("vertices.arrow", {"internal": ops.to_host(live), "external": ops.to_host(vertices.external[live])})
    write("free.arrow", {"internal": ops.to_host(vertices.free)})
    u, v, w, u_position, v_position = (ops.to_host(a) for a in store.edge_positions())
    write("edges.arrow", {"src": u, "dst": v, "weight": w, "src_position": u_position,
                          "dst_position": v_position})
    described_keys = keys.describe() if keys is not None else None
    if keys is not None and keys.encoded:
        try:
            write("keys.arrow", keys.table_columns())
        except (pa.ArrowException, TypeError) as error:
            raise ValueError(f"cannot checkpoint vertex keys of dtypes {described_keys['dtypes']}: "
                             f"Arrow cannot hold them ({error})") from error
    hotness = {}
    for side, _, counter in store.cached:
        hotness[side] = write(f"hotness-{side}.arrow", counter.export_state(upto=store.vertex_bound))
    saved_queries = []
    for i, (query, (kind, params)) in enumerate(zip(queries, described)):
        state = query.engine.export_state()
        arrays = {key: value for key, value in state.items() if isinstance(value, np.ndarray)}
        entry = {"kind": kind, "params": params,
                 "state": {key: _number(value) if isinstance(value, float) else value
                           for key, value in state.items() if key not in arrays}}
        changed = arrays.pop("changed", None)
        entry["file"] = write(f"query-{i}.arrow", arrays)
        if changed is not None:
            entry["changed_file"] = write(f"query-{i}-changed.arrow", {"internal": changed})
        saved_queries.append(entry)
    time = None
    if times is not None:           # the graph's (TimeSpec, TimeWindow)
        spec, window = times
        u, v, t = (ops.to_host(a) for a in window.edges())
        time = dict(spec.to_dict(), newest=window.newest,
                    file=write("window.arrow", {"src": u, "dst": v, "time": t}))
    metadata = {
        "format": FORMAT,
        "version": VERSION,
        "cugraph_stream_version": __version__,
        "pyarrow_version": pa.__version__,
        "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "backend": backend,
        "graph": {
            "directed": store.directed,
            "weight_dtype": store.weight_dtype.name,
            "schema": schema.to_dict(),
            "placement": store.placement.kind,
            "cache_budget": store.placement.cache_budget if store.placement.cached else None,
            "tau": store.placement.tau if store.placement.cached else None,
            "chunk_bytes": store.placement.chunk_bytes if store.placement.cached else None,
        },
        "counts": {"vertices": store.num_vertices, "edges": store.num_edges,
                   "vertex_bound": store.vertex_bound, "free": int(vertices.free.size)},
        "store": {"largest_weight": _number(store.largest_weight)},
        "hotness": hotness,
        "keys": described_keys,
        "queries": saved_queries,
        "compression": _COMPRESSION,
        "files": files,
    }
    if time is not None:
        metadata["time"] = time
    return metadata


def _write_table(path, columns):
    """Write ``columns`` (name -> host array) as an Arrow IPC file; return its file entry."""
    table = pa.table({name: values if isinstance(values, (pa.Array, pa.ChunkedArray))
                      else pa.array(np.ascontiguousarray(values)) if isinstance(values, np.ndarray)
                      else pa.array(values) for name, values in columns.items()})
    options = pa.ipc.IpcWriteOptions(compression=_COMPRESSION)
    with open(path, "wb") as handle:
        with pa.ipc.new_file(handle, table.schema, options=options) as writer:
            writer.write_table(table)
        handle.flush()
        os.fsync(handle.fileno())
    size, digest = _digest(path)
    return {"bytes": size, "sha256": digest, "rows": table.num_rows}


def _write_json(path, document):
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(document, handle, indent=2, allow_nan=False)
        handle.write("\n")
        handle.flush()
        os.fsync(handle.fileno())


def _install(folder, target):
    """Rename the finished ``folder`` to ``target``, replacing a checkpoint there."""
    parent, name = os.path.split(target)
    if not os.path.lexists(target):
        os.rename(folder, target)
        _fsync_directory(parent)
        return
    old = os.path.join(parent, f".{name}.old-{uuid.uuid4().hex[:12]}")
    os.rename(target, old)
    try:
        os.rename(folder, target)
    except BaseException:
        os.rename(old, target)
        raise
    _fsync_directory(parent)
    shutil.rmtree(old, ignore_errors=True)


def _fsync_directory(path):
    """Make a directory's entries durable (where the platform can open directories)."""
    try:
        descriptor = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)


def _umask():
    """The process's umask, read without changing it (Linux), else the usual 0o022."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    return 0o022


def _number(value):
    """A float for JSON: itself when finite (``repr`` round-trips exactly), else its name."""
    value = float(value)
    return value if math.isfinite(value) else repr(value)


# ====================================================================== reading
def _is_checkpoint(path):
    try:
        with open(os.path.join(path, METADATA), encoding="utf-8") as handle:
            return json.load(handle).get("format") == FORMAT
    except (OSError, ValueError, AttributeError):
        return False


def _digest(path):
    """``(size, sha256 hex)`` of a file, read in blocks."""
    sha, size = hashlib.sha256(), 0
    with open(path, "rb") as handle:
        while block := handle.read(_HASH_BLOCK):
            sha.update(block)
            size += len(block)
    return size, sha.hexdigest()


def read_checkpoint(path):
    """Open and verify the checkpoint at ``path``; returns a :class:`Checkpoint`.

    Checks that ``metadata.json`` parses and names this format, that its
    version is one this package reads, and that every file it lists has its
    recorded size and SHA-256.  Raises ``FileNotFoundError`` if ``path`` does
    not exist, :class:`CheckpointError` for anything else that is wrong.
    """
    where = os.fspath(path)
    if not os.path.exists(where):
        raise FileNotFoundError(f"no checkpoint at {where!r}: the path does not exist")
    meta_path = os.path.join(where, METADATA)
    if not os.path.isdir(where) or not os.path.isfile(meta_path):
        raise CheckpointError(f"{where!r} is not a cugraph_stream checkpoint: it holds no {METADATA}")
    try:
        with open(meta_path, encoding="utf-8") as handle:
            metadata = json.load(handle)
    except (ValueError, UnicodeDecodeError) as error:
        raise CheckpointError(f"{where!r} is not a cugraph_stream checkpoint: its {METADATA} is not "
                              f"valid JSON (damaged or truncated?): {error}") from error
    if not isinstance(metadata, dict) or metadata.get("format") != FORMAT:
        found = metadata.get("format") if isinstance(metadata, dict) else None
        raise CheckpointError(f"{where!r} is not a cugraph_stream checkpoint: its {METADATA} names "
                              f"format {found!r}, not {FORMAT!r}")
    version = metadata.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise CheckpointError(f"{where!r}: checkpoint version {version!r} is not a version number")
    if version > VERSION:
        raise CheckpointError(f"{where!r}: checkpoint version {version} is newer than this cugraph_stream "
                              f"({__version__}) reads (version {VERSION}); upgrade cugraph_stream "
                              f"(it was written by {metadata.get('cugraph_stream_version', 'a later one')})")
    checkpoint = Checkpoint(where, metadata)
    for name, entry in checkpoint._section("files", dict).items():
        checkpoint._verify(name, entry)
    return checkpoint


class Checkpoint:
    """A verified checkpoint directory (from :func:`read_checkpoint`), and how to
    rebuild a graph from it (:meth:`StreamGraph.load` drives this)."""

    def __init__(self, path, metadata):
        self.path = path
        self.metadata = metadata
        self._alive = None          # the live internal ids (a mask), once restore_store ran

    # -------------------------------------------------------------- metadata
    def _error(self, message):
        return CheckpointError(f"checkpoint {self.path!r}: {message}")

    def _section(self, key, kind, within=None):
        document = self.metadata if within is None else within
        value = document.get(key) if isinstance(document, dict) else None
        if not isinstance(value, kind):
            raise self._error(f"{METADATA} lacks {key!r} (or it is not a {kind.__name__})")
        return value

    def _verify(self, name, entry):
        if os.path.basename(name) != name or name in ("", ".", "..", METADATA):
            raise self._error(f"{METADATA} lists a bad file name {name!r}")
        file_path = os.path.join(self.path, name)
        if not os.path.isfile(file_path):
            raise self._error(f"checkpoint file {name} is missing")
        expected = self._section("bytes", int, entry)
        size, digest = _digest(file_path)
        if size != expected or digest != self._section("sha256", str, entry):
            raise self._error(f"checkpoint file {name} is damaged or truncated: {size} bytes, expected "
                              f"{expected}" + ("" if size != expected else ", and its SHA-256 differs"))

    def graph_options(self, backend=None):
        """Keyword arguments of :class:`StreamGraph` for the saved graph on ``backend``
        (default: the backend it was saved from, where available here, else ``"cpu"``)."""
        from .backends import available_backends

        settings = self._section("graph", dict)
        if backend is None:
            saved = self.metadata.get("backend")
            backend = saved if available_backends().get(saved, "unknown") is None else "cpu"
        options = {"directed": self._section("directed", bool, settings), "backend": backend,
                   "weight_dtype": self._section("weight_dtype", str, settings),
                   "placement": self._section("placement", str, settings)}
        for key in ("cache_budget", "tau", "chunk_bytes"):
            if settings.get(key) is not None:
                options[key] = settings[key]
        return options

    def schema(self):
        """The graph's :class:`~cugraph_stream.frame.schema.EdgeSchema` (``src``,
        ``dst``, unweighted for a checkpoint written before schemas were saved)."""
        saved = self._section("graph", dict).get("schema")
        if saved is not None and not (isinstance(saved, dict) and {"source", "destination"} <= set(saved)):
            raise self._error("metadata.json: graph.schema is not a column schema")
        return EdgeSchema.from_dict(saved)

    # ----------------------------------------------------------------- files
    def _table(self, name, columns, optional=()):
        """Columns of the Arrow file ``name`` as host NumPy arrays (copies).

        ``columns`` maps each required column to its dtype (None: any);
        ``optional`` names columns returned when present.
        """
        if name not in self._section("files", dict):
            raise self._error(f"{METADATA} lists no file {name}")
        try:
            with pa.memory_map(os.path.join(self.path, name)) as source:
                table = pa.ipc.open_file(source).read_all()
                found = {field.name: field for field in table.schema}
                arrays = {}
                for column, dtype in columns.items():
                    if column not in found:
                        raise self._error(f"checkpoint file {name} lacks column {column!r}")
                    arrays[column] = self._column(name, table, column, dtype)
                for column in optional:
                    if column in found:
                        arrays[column] = self._column(name, table, column, np.int64)
        except (pa.ArrowException, OSError) as error:
            raise self._error(f"checkpoint file {name} is not a readable Arrow IPC file: {error}") from error
        return arrays

    def _column(self, name, table, column, dtype):
        chunked = table.column(column)
        if chunked.null_count:
            raise self._error(f"column {column!r} of checkpoint file {name} holds nulls")
        values = np.array(chunked.to_numpy(), copy=True)
        if dtype is not None and values.dtype != np.dtype(dtype):
            raise self._error(f"column {column!r} of checkpoint file {name} has dtype {values.dtype}, "
                              f"expected {np.dtype(dtype)}")
        return values

    # --------------------------------------------------------------- restore
    def restore_keys(self, keys):
        """Fill the graph's :class:`~cugraph_stream.frame.keys.VertexKeys` with the saved ones
        (int64 keys for a checkpoint that records none)."""
        described = self.metadata.get("keys")
        if described is None:
            counts = self.metadata.get("counts") or {}
            if counts.get("vertices"):
                described = {"kind": "int", "dtypes": ["int64"], "classes": ["int"]}
        if described is not None and not isinstance(described, dict):
            raise self._error(f"{METADATA}'s 'keys' is not an object")
        columns = None
        try:
            if described is not None and described.get("kind") == "encoded":
                width = len(described.get("dtypes") or ())
                columns = self._table("keys.arrow", {f"k{i}": None for i in range(width)})
                if any(len(column) != described.get("count") for column in columns.values()):
                    raise self._error(f"keys.arrow holds other than the {described.get('count')} keys "
                                      f"{METADATA} records")
            keys.restore(described, columns, device=keys.device)
        except (KeyError, TypeError, ValueError) as error:
            if isinstance(error, CheckpointError):
                raise
            raise self._error(f"its vertex keys cannot be restored: {error}") from error

    def restore_store(self, store):
        """Fill the empty ``store`` (made with :meth:`graph_options`): vertices, edges, hotness."""
        counts = self._section("counts", dict)
        bound = self._section("vertex_bound", int, counts)
        vertices = self._table("vertices.arrow", {"internal": np.int64, "external": np.int64})
        free = self._table("free.arrow", {"internal": np.int64})["internal"]
        try:
            store.restore_vertices(vertices["internal"], vertices["external"], bound, free)
        except ValueError as error:
            raise self._error(f"vertices.arrow and free.arrow disagree: {error}") from error
        alive = np.zeros(bound, dtype=bool)
        alive[vertices["internal"]] = True

        edges = self._table("edges.arrow", {"src": np.int64, "dst": np.int64, "weight": store.weight_dtype},
                            optional=("src_position", "dst_position"))
        u, v, w = edges["src"], edges["dst"], edges["weight"]
        ends = np.concatenate((u, v))
        if ends.size and (ends.min() < 0 or ends.max() >= bound or not alive[ends].all()):
            raise self._error("edges.arrow names a vertex that is not live")
        ops = store.ops
        if "src_position" in edges and "dst_position" in edges:
            store.restore_edges(*(ops.asarray(edges[key]) for key in
                                  ("src", "dst", "weight", "src_position", "dst_position")))
        else:                                   # an order-free edge list: rebuilt sorted
            store.load(ops.asarray(u), ops.asarray(v), ops.asarray(w))
        saved = (self.metadata.get("store") or {}).get("largest_weight")     # a bound for the overflow check
        store.largest_weight = float(saved) if saved is not None else float(np.abs(w).max()) if w.size else 0.0
        store.fractional_weights = bool((w != np.floor(w)).any())

        hotness = self.metadata.get("hotness") or {}
        for side, _, counter in store.cached:
            if side in hotness:
                counter.import_state(self._table(hotness[side], {"internal": np.int64, "counts": np.uint32}))

        try:
            store.check_consistency()
        except RuntimeError as error:
            raise self._error(f"the saved graph is inconsistent: {error}") from error
        if store.num_vertices != counts.get("vertices") or store.num_edges != counts.get("edges"):
            raise self._error(f"it holds {store.num_vertices} vertices and {store.num_edges} edges, but "
                              f"{METADATA} records {counts.get('vertices')} and {counts.get('edges')}")
        self._alive = alive

    def restore_times(self, store):
        """``(TimeSpec, TimeWindow)`` of a graph saved with edge times (after
        :meth:`restore_store`), or None for one without (and for checkpoints
        written before times were saved)."""
        from .engine.window import TimeWindow
        from .frame.times import TimeSpec

        section = self.metadata.get("time")
        if section is None:
            return None
        try:
            spec = TimeSpec.from_dict(section)
            window = TimeWindow(store.ops, store.directed, spec.window, spec.dtype, journal=store.journal,
                                memory=store.placement.memory)
        except (KeyError, TypeError, ValueError) as error:
            raise self._error(f"{METADATA}: its time section is not readable: {error}") from error
        saved = self._table(section.get("file", ""), {"src": np.int64, "dst": np.int64,
                                                      "time": np.dtype(spec.dtype)})
        ops = store.ops
        try:
            window.restore(ops.asarray(saved["src"]), ops.asarray(saved["dst"]), ops.asarray(saved["time"]),
                           section.get("newest"))
            u, v, _ = store.edge_arrays()
            window.check(u, v)
        except (RuntimeError, ValueError) as error:
            raise self._error(f"window.arrow disagrees with the edges: {error}") from error
        return spec, window

    def restore_queries(self, store, keys=None):
        """The saved queries as ``(query, engine)`` pairs, in tracking order, each
        engine holding the saved state on ``store`` (after :meth:`restore_store`);
        the caller binds them to the graph."""
        restored = []
        for i, entry in enumerate(self._section("queries", list)):
            kind = self._section("kind", str, entry)
            if kind not in KINDS:
                raise self._error(f"query {i} is of an unknown kind {kind!r}")
            try:
                params = dict(self._section("params", dict, entry))
                if isinstance(params.get("source"), list):          # a multi-column key
                    params["source"] = tuple(params["source"])
                personalization = params.pop("personalization", None) if kind == "PageRank" else None
                scalars = entry.get("state") if isinstance(entry.get("state"), dict) else {}
                query = KINDS[kind](**params)
                if kind == "PageRank":
                    # as settled when saved; written before weighted PageRank: the unweighted ranks
                    query._uses_weights = bool(scalars.get("weighted", False))
                    if "weighted" not in params:
                        query.weighted = False
                query._keys = keys
                query._validate(store)
            except (TypeError, ValueError) as error:
                raise self._error(f"query {i} ({kind}) cannot be made again: {error}") from error
            engine = query._make_engine(store)      # (a personalization comes with the state)
            if personalization is not None:         # (its vertices may have been removed since)
                try:
                    query.personalization = _personalization_table(pd.DataFrame(personalization))
                except (TypeError, ValueError) as error:
                    raise self._error(f"query {i} ({kind}) has a bad personalization: {error}") from error
            if isinstance(query, MonotonicQuery):
                state = self._table(entry.get("file", ""), {"internal": np.int64, "value": None,
                                                            "parent": np.int64})
                state["changed"] = self._table(entry.get("changed_file", ""), {"internal": np.int64})["internal"]
                self._check_ids(state["changed"], f"query {i}'s changed vertices")
                self._check_ids(state["parent"][state["parent"] >= 0], f"query {i}'s parents")
            else:
                state = self._table(entry.get("file", ""), {"internal": np.int64, "rank": np.float64,
                                                            "residual": np.float64})
                scalars = self._section("state", dict, entry)
                if scalars.get("personalised"):         # the raw teleport values, per vertex
                    state.update(self._table(entry["file"], {"teleport": np.float64}))
                    state["teleport_total"] = float(scalars["teleport_total"])
                if scalars.get("weighted"):             # W as the residual was computed with
                    state.update(self._table(entry["file"], {"out_weight": np.float64}))
                for key in ("rank_sum", "dangling_rank"):
                    value = scalars.get(key)
                    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
                        raise self._error(f"query {i} lacks its {key}")
                    state[key] = float(value)
                state["converged"] = bool(scalars.get("converged", True))
                if "exact_rank_sum" in scalars:
                    state["exact_rank_sum"] = float(scalars["exact_rank_sum"])
                if "previous_rank_sum" in scalars:      # the ranks before the last update: changes()
                    state.update(self._table(entry["file"], {"previous_rank": np.float64}))
                    state["previous_rank_sum"] = float(scalars["previous_rank_sum"])
            live = np.sort(state["internal"])
            if live.size != int(self._alive.sum()) or not np.array_equal(live, np.flatnonzero(self._alive)):
                raise self._error(f"query {i} ({kind}) holds other vertices than the graph")
            try:
                engine.import_state(state)
            except ValueError as error:
                raise self._error(f"query {i} ({kind}): {error}") from error
            restored.append((query, engine))
        return restored

    def _check_ids(self, ids, what):
        if ids.size and (ids.min() < 0 or ids.max() >= self._alive.size or not self._alive[ids].all()):
            raise self._error(f"{what} name a vertex that is not live")
