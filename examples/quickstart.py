"""From recompute-every-batch to incremental: track queries once, apply batches.

Run: python examples/quickstart.py
"""
import pandas as pd

import cugraph_stream as cgs

edges = pd.DataFrame({"source": [0, 0, 1, 2, 3], "destination": [1, 2, 3, 3, 4],
                      "weight": [4.0, 1.0, 1.0, 5.0, 2.0]})
graph = cgs.StreamGraph.from_edgelist(edges, edge_attr="weight")     # cuGraph's column names

paths = graph.track(cgs.SSSP(source=0))
components = graph.track(cgs.WCC())
ranks = graph.track(cgs.PageRank(tol=1e-6))

batch = pd.DataFrame({
    "source": [2, 0, 9],
    "destination": [1, 1, 8],
    "weight": [1.0, None, 3.0],
    "op": ["insert", "delete", "insert"],
})
report = graph.apply(batch)              # the graph's columns, weights included
print(report)
print(paths.result())
print("changed by the batch:")
print(paths.changes())
print(components.result())
print(ranks.result())

assert paths.result().set_index("vertex").loc[1, "distance"] == 2.0   # 0 -> 2 -> 1
assert components.result().set_index("vertex").loc[8, "labels"] == 8
