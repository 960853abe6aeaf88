"""``GraphReplica``: one ``StreamGraph`` on one Dask worker, held as a Dask actor.

:class:`~cugraph_stream.dask.DistributedStreamGraph` creates one replica per
worker and drives it through actor calls; the class itself knows nothing of
Dask and works as a plain object (which is how the doctest below uses it).
Batches are applied in two phases so that a batch changes every replica or
none: :meth:`GraphReplica.prepare` validates a batch (the same checks as
``StreamGraph.apply``, with the queries tracked on this replica) and keeps it;
:meth:`GraphReplica.commit` applies it; :meth:`GraphReplica.discard` drops it.

Examples
--------
>>> import pandas as pd, cugraph_stream as cgs
>>> replica = GraphReplica(pd.DataFrame({"source": [0, 1], "destination": [1, 2]}))
>>> replica.track([cgs.BFS(source=0)])
['BFS(source=0)']
>>> replica.prepare("b1", pd.DataFrame({"source": [0], "destination": [2], "op": ["insert"]}))
>>> replica.commit("b1").inserted
1
>>> replica.results(["BFS(source=0)"]).values.tolist()
[['BFS(source=0)', 0, 0, -1], ['BFS(source=0)', 1, 1, 0], ['BFS(source=0)', 2, 1, 0]]
"""
from __future__ import annotations

import pandas as pd

from ..arrays import is_cudf
from ..graph import StreamGraph

__all__ = ["GraphReplica", "concat_frames"]


def concat_frames(frames):
    """Concatenate pandas or cuDF frames (the type of the first), index reset."""
    frames = list(frames)
    if is_cudf(frames[0]):
        import cudf
        return cudf.concat(frames, ignore_index=True)
    return pd.concat(frames, ignore_index=True)


class GraphReplica:
    """One replica of a distributed graph and the queries tracked on it.

    Parameters
    ----------
    edges : DataFrame, pyarrow Table, dict of arrays or None
        Initial edge list (None: an empty graph).
    source, destination, weight, edge_attr : str or None
        Columns of ``edges`` (as in ``StreamGraph.from_edgelist``).
    directed, backend, weight_dtype
        As in :class:`~cugraph_stream.StreamGraph`.
    """

    def __init__(self, edges=None, source="source", destination="destination", weight=None, directed=True,
                 backend="cpu", weight_dtype=None, edge_attr=None):
        if edges is None:
            self.graph = StreamGraph(directed=directed, backend=backend, weight_dtype=weight_dtype)
        else:
            self.graph = StreamGraph.from_edgelist(edges, source=source, destination=destination,
                                                   weight=weight, edge_attr=edge_attr, directed=directed,
                                                   backend=backend, weight_dtype=weight_dtype)
        self.queries = {}
        self._pending = {}

    # ---------------------------------------------------------------- status
    def describe(self):
        """Counts and placement of this replica (a plain dict)."""
        return {"backend": self.graph.backend, "directed": self.graph.directed,
                "vertices": self.graph.number_of_vertices(),
                "edges": self.graph.number_of_edges(), "queries": list(self.queries),
                "memory_bytes": int(self.graph.memory_bytes())}

    def edges(self):
        """``StreamGraph.edges()`` of this replica."""
        return self.graph.edges()

    # --------------------------------------------------------------- queries
    def track(self, queries):
        """Track ``queries`` (unattached query objects); all or none.

        Returns their names.  A ``ValueError`` from any of them untracks the
        ones this call tracked and is raised.
        """
        added = []
        try:
            for query in queries:
                if query.name in self.queries:
                    raise ValueError(f"{query.name} is already tracked")
                self.graph.track(query)
                self.queries[query.name] = query
                added.append(query.name)
        except Exception:
            self.untrack(added)
            raise
        return added

    def untrack(self, names):
        """Stop maintaining the queries called ``names``."""
        for name in names:
            self.graph.untrack(self.queries.pop(name))

    def _query(self, name):
        try:
            return self.queries[name]
        except KeyError:
            raise ValueError(f"query {name!r} is not tracked on this worker") from None

    def result(self, name):
        """``result()`` of the query called ``name``."""
        return self._query(name).result()

    def changes(self, name):
        """``changes()`` of the query called ``name``."""
        return self._query(name).changes()

    def results(self, names):
        """Results of the queries called ``names``, stacked, with a ``query``
        column (the query's name) first."""
        frames = []
        for name in names:
            frame = self._query(name).result()
            frame.insert(0, "query", name)
            frames.append(frame)
        return concat_frames(frames)

    def results_meta(self, names):
        """An empty frame with the columns and dtypes of :meth:`results`."""
        return self.results(names[:1]).iloc[:0]

    # --------------------------------------------------------------- updates
    def prepare(self, token, batch, source=None, destination=None, weight=None, op="op", edge_attr=None,
                default_weight=None):
        """Validate ``batch`` as ``StreamGraph.apply`` would and keep it under ``token``.

        Raises ``ValueError`` naming the column and the first offending row;
        nothing is kept then.
        """
        columns = {"source": source, "destination": destination, "weight": weight, "op": op,
                   "edge_attr": edge_attr, "default_weight": default_weight}
        self.graph.validate(batch, **columns)
        self._pending[token] = (batch, columns)

    def commit(self, token):
        """Apply the batch kept under ``token``; returns its ``BatchReport``."""
        batch, columns = self._pending.pop(token)
        return self.graph.apply(batch, **columns)

    def discard(self, token):
        """Drop the batch kept under ``token`` (if any)."""
        self._pending.pop(token, None)

    def number_of_vertices(self):
        return self.graph.number_of_vertices()

    def number_of_edges(self):
        return self.graph.number_of_edges()
