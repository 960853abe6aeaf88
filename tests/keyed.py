"""The differential harness with vertex keys instead of int64 ids.

:class:`KeyedHarness` drives a :class:`~reference.Harness` whose graph names
every vertex by a key: ``"string"`` keys (``"v<id>"``) or ``"multi"``-column
keys (``("p<id mod 5>", id div 5)``, a string column and an int64 column).
Batches, vertex lists and query sources are translated from the model's
int64 ids to keys on the way in; results, ``changes()``, ``edges()`` and
``vertices()`` are translated back (a null predecessor to -1, rows sorted by
id) so that every reference check of ``tests/reference.py`` runs unchanged.
WCC labels of encoded keys are the key of the component's first-seen member,
not its smallest id: results are compared as partitions (relabelled with the
smallest id of each component), and ``changes()`` against the untranslated
labels.
"""
import types

import numpy as np
import pandas as pd
import pyarrow as pa
from reference import Harness, check_changes, host

import cugraph_stream as cgs

KEY_STYLES = ("string", "multi")


class Keys:
    """The bijection between int64 ids and the keys of one style."""

    def __init__(self, style):
        self.style = style
        self.width = 2 if style == "multi" else 1

    def names(self, column):
        return column if self.width == 1 else [f"{column}_name", f"{column}_num"]

    def to_keys(self, ids):
        """Key columns (list of arrays) of int ids."""
        ids = np.asarray(ids, dtype=np.int64)
        if self.style == "string":
            return [np.array([f"v{i}" for i in ids.tolist()], dtype=object)]
        return [np.array([f"p{i % 5}" for i in ids.tolist()], dtype=object), ids // 5]

    def key(self, i):
        parts = [part[0] for part in self.to_keys([i])]
        return parts[0] if self.width == 1 else (parts[0], int(parts[1]))

    def to_ids(self, parts):
        """Int ids of key columns (nulls to -1)."""
        if self.style == "string":
            return np.array([-1 if _null(s) else int(s[1:]) for s in parts[0]], dtype=np.int64)
        names, nums = parts
        return np.array([-1 if _null(p) else 5 * int(q) + int(p[1:]) for p, q in zip(names, nums)],
                        dtype=np.int64)

    def frame(self, ids, column):
        return pd.DataFrame(dict(zip([column] if self.width == 1 else self.names(column), self.to_keys(ids))))


def _null(value):
    return value is None or value is pd.NA or (isinstance(value, float) and np.isnan(value))


def _table_columns(table):
    if isinstance(table, pd.DataFrame):
        return {c: table[c] for c in table.columns}
    if isinstance(table, pa.Table):
        return {c: table.column(c).to_pandas() for c in table.column_names}
    return dict(table)


class KeyedGraph:
    """A StreamGraph named by keys, seen by the harness as one named by int64 ids."""

    def __init__(self, keys, graph):
        self._keys, self._graph = keys, graph

    def __getattr__(self, name):
        return getattr(self._graph, name)

    # ------------------------------------------------------------ inputs
    def _batch(self, batch, source, destination, fmt=None):
        columns = _table_columns(batch)
        out = {}
        for name, values in columns.items():
            if name in (source, destination):
                parts = self._keys.to_keys(np.asarray(values, dtype=np.int64))
                names = self._keys.names(name)
                out.update(zip([names] if self._keys.width == 1 else names, parts))
            else:
                out[name] = values
        if isinstance(batch, pa.Table):
            return pa.table({k: pa.array(v.to_numpy() if hasattr(v, "to_numpy") else v) for k, v in out.items()})
        if isinstance(batch, pd.DataFrame):
            return pd.DataFrame(out)
        return out

    def apply(self, batch, source="src", destination="dst", **kw):
        return self._graph.apply(self._batch(batch, source, destination), source=self._keys.names(source),
                                 destination=self._keys.names(destination), **kw)

    def add_vertices(self, ids):
        return self._graph.add_vertices(self._vertex_list(ids))

    def remove_vertices(self, ids):
        return self._graph.remove_vertices(self._vertex_list(ids))

    def _vertex_list(self, ids):
        if self._keys.width == 1:
            return pd.Series(self._keys.to_keys(ids)[0])
        return self._keys.frame(ids, "v")

    def track(self, query):
        if getattr(query, "source", None) is not None:
            query.source = self._keys.key(int(query.source))
        return KeyedQuery(self._keys, self._graph.track(query))

    def untrack(self, query):
        return self._graph.untrack(query._query)

    # ----------------------------------------------------------- outputs
    @property
    def schema(self):
        """The graph's schema as the harness names its columns (one name per vertex column)."""
        real = self._graph.schema

        def view(name):
            return name[0][: -len("_name")] if isinstance(name, (list, tuple)) else name
        return types.SimpleNamespace(source=view(real.source), destination=view(real.destination),
                                     weight=real.weight)

    def edges(self):
        e = host(self._graph.edges())
        w = self._keys.width
        cols = list(e.columns)
        src = self._keys.to_ids([e[c].to_numpy() for c in cols[:w]])
        dst = self._keys.to_ids([e[c].to_numpy() for c in cols[w:2 * w]])
        if not self._graph.directed:
            src, dst = np.minimum(src, dst), np.maximum(src, dst)
        out = pd.DataFrame({"src": src, "dst": dst, "weight": e[cols[-1]].to_numpy()})
        out = out.sort_values(["src", "dst"], kind="stable").reset_index(drop=True)
        schema = self.schema
        return out.set_axis([schema.source, schema.destination, schema.weight or "weight"], axis=1)

    def vertices(self):
        v = host(self._graph.vertices())
        parts = [v.to_numpy()] if isinstance(v, pd.Series) else [v[c].to_numpy() for c in v.columns]
        return pd.Series(np.sort(self._keys.to_ids(parts)), name="vertex")


class KeyedQuery:
    """A tracked query whose frames come back in int64 ids (see the module docstring)."""

    def __init__(self, keys, query):
        self._keys, self._query = keys, query

    def __getattr__(self, name):
        return getattr(self._query, name)

    @property
    def source(self):
        source = self._query.source
        return None if source is None else int(self._keys.to_ids([[p] for p in
                                                                  ((source,) if self._keys.width == 1
                                                                   else source)])[0])

    def _translate(self, frame, relabel):
        # (cuDF frames with nulls: nullable pandas columns, so that int64 key parts stay exact)
        df = frame.to_pandas(nullable=True) if type(frame).__module__.startswith("cudf") else frame
        w, kind = self._keys.width, self._query.kind
        out = {}
        for column in ("vertex", self._query.value_column, "predecessor"):
            names = [column] if w == 1 else [f"{i}_{column}" for i in range(w)]
            if column == self._query.value_column and kind != "WCC":
                out[column] = df[column].to_numpy()
            elif names[0] in df.columns:
                out[column] = self._keys.to_ids([df[n].to_numpy(dtype=object) for n in names])
        out = pd.DataFrame(out).sort_values("vertex", kind="stable").reset_index(drop=True)
        if kind == "WCC" and relabel:
            out["labels"] = out.groupby("labels")["vertex"].transform("min").to_numpy(np.int64)
        return out

    def result(self):
        return self._translate(self._query.result(), relabel=True)

    def raw_result(self):
        return self._translate(self._query.result(), relabel=False)

    def changes(self):
        return self._translate(self._query.changes(), relabel=False)


class _RawChanges:
    def __init__(self, query):
        self.changes = query.changes
        self.kind = query.kind


def keyed_cgs(style):
    """A stand-in for the ``cugraph_stream`` module whose graphs are named by ``style`` keys."""
    keys = Keys(style)

    class StreamGraph:
        def __new__(cls, *args, **kwargs):
            return KeyedGraph(keys, cgs.StreamGraph(*args, **kwargs))

        @staticmethod
        def from_edgelist(df, source="src", destination="dst", **kwargs):
            probe = KeyedGraph(keys, None)
            return KeyedGraph(keys, cgs.StreamGraph.from_edgelist(
                probe._batch(df, source, destination), source=keys.names(source),
                destination=keys.names(destination), **kwargs))

    return types.SimpleNamespace(StreamGraph=StreamGraph, SSSP=cgs.SSSP, BFS=cgs.BFS, WidestPath=cgs.WidestPath,
                                 WCC=cgs.WCC, PageRank=cgs.PageRank)


class KeyedHarness(Harness):
    """:class:`~reference.Harness` on a graph named by ``style`` keys."""

    def __init__(self, style, **kwargs):
        self.key_style = style
        super().__init__(keyed_cgs(style), **kwargs)

    def snapshot(self):
        return [q.raw_result() for _, _, q in self.queries]

    def check_all(self, where, before=None):
        super().check_all(where)                  # results, edges, vertices, incremental == recompute
        if before is None:
            return
        for i, (kind, mode, q) in enumerate(self.queries):
            if kind != "PageRank" and i < len(before):
                check_changes(_RawChanges(q), before[i], kind, where=f"{where}: {kind}[{mode}] changes",
                              after=q.raw_result())
