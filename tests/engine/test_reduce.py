"""reduce_batch against applying rows one at a time."""
import numpy as np
from hypothesis import given, settings, strategies as st

from cugraph_stream.backends import get_backend
from cugraph_stream.engine.reduce import reduce_batch
from cugraph_stream.engine.store import GraphStore

rows_strategy = st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3), st.sampled_from([0.0, 1.0, 2.0]),
                                   st.sampled_from([1, -1])), max_size=40)


def sequential(edges, rows, directed):
    """Apply rows in order to a dict; return the final dict and per-row ignored count."""
    edges = dict(edges)
    ignored = 0
    for u, v, w, op in rows:
        key = (u, v) if directed else (min(u, v), max(u, v))
        if op == 1:
            edges[key] = w
        elif key in edges:
            del edges[key]
        else:
            ignored += 1
    return edges, ignored


@settings(max_examples=300, deadline=None)
@given(initial=rows_strategy, rows=rows_strategy, directed=st.booleans())
def test_net_effect_equals_rows_in_order(initial, rows, directed):
    store = GraphStore(get_backend("cpu"), directed, np.float64)
    store.add_vertices(np.arange(4))
    start = {}
    for u, v, w, _ in initial:
        start[(u, v) if directed else (min(u, v), max(u, v))] = w
    if start:
        keys = list(start)
        store.apply(reduce_batch(store, np.array([k[0] for k in keys]), np.array([k[1] for k in keys]),
                                 np.array(list(start.values())), np.ones(len(keys), np.int8)))
    expected, ignored = sequential(start, rows, directed)
    arr = np.array(rows, dtype=np.float64).reshape(-1, 4)
    batch = reduce_batch(store, arr[:, 0].astype(np.int64), arr[:, 1].astype(np.int64), arr[:, 2],
                         arr[:, 3].astype(np.int8))
    store.apply(batch)
    u, v, w = store.edge_arrays()
    assert dict(zip(zip(u.tolist(), v.tolist()), w.tolist())) == expected
    c = batch.counts
    assert c["ignored"] == ignored
    assert c["inserted"] == len(expected.keys() - start.keys())
    assert c["deleted"] == len(start.keys() - expected.keys())
    both = start.keys() & expected.keys()
    assert c["weight_updated"] == sum(start[k] != expected[k] for k in both)
    touched = {(r[0], r[1]) if directed else (min(r[0], r[1]), max(r[0], r[1])) for r in rows}
    no_net = [k for k in touched if (k in start) == (k in expected) and start.get(k) == expected.get(k)]
    assert c["unchanged"] + c["cancelled"] <= len(no_net)
    store.check_consistency()


def test_counts_on_a_hand_made_batch():
    store = GraphStore(get_backend("cpu"), True, np.float32)
    store.add_vertices(np.arange(5))
    store.apply(reduce_batch(store, np.array([0, 1]), np.array([1, 2]), np.ones(2, np.float32), np.ones(2, np.int8)))
    rows = [(0, 1, 1.0, 1),    # same weight: unchanged
            (1, 2, 5.0, 1),    # weight update
            (2, 3, 1.0, 1), (2, 3, 0.0, -1),   # insert then delete: cancelled
            (3, 4, 0.0, -1),   # absent: ignored
            (4, 0, 2.0, 1), (4, 0, 2.0, 1)]    # duplicate insert: inserted once
    arr = np.array(rows)
    batch = reduce_batch(store, arr[:, 0].astype(int), arr[:, 1].astype(int), arr[:, 2].astype(np.float32),
                         arr[:, 3].astype(np.int8))
    assert batch.counts == dict(inserted=1, deleted=0, weight_updated=1, unchanged=1, cancelled=1, ignored=1)
