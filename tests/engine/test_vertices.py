"""VertexTable: arbitrary int64 ids, id reuse, sorted order; on every backend
(the ``ops`` fixture: the GPU keeps its dense map on the device too)."""
import numpy as np

from cugraph_stream.engine.vertices import VertexTable


def _host(ops, a):
    return np.asarray(ops.to_host(a)).tolist()


def _ids(ops, values):
    return ops.asarray(np.asarray(values, dtype=np.int64))


def test_lookup_add_remove_reuse_against_a_dict(ops):
    rng = np.random.default_rng(3)
    table, model = VertexTable(ops), {}
    extremes = np.array([-2**63, 2**63 - 1, 0, -1], dtype=np.int64)
    for step in range(50):
        ids = np.unique(np.concatenate((rng.integers(-2**63, 2**63 - 1, size=30, dtype=np.int64), extremes)))
        fresh = np.array([i for i in ids.tolist() if i not in model], dtype=np.int64)
        internal = _host(ops, table.add(_ids(ops, fresh)))
        assert len(set(internal)) == fresh.size
        assert not set(internal) & set(model.values())
        model.update(zip(fresh.tolist(), internal))
        victims = [k for k in list(model) if rng.random() < 0.3]
        table.remove(_ids(ops, [model.pop(k) for k in victims]))
        assert table.count == len(model)
        sorted_external, sorted_internal = table.sorted_ids()
        assert _host(ops, sorted_external) == sorted(model)
        assert _host(ops, sorted_internal) == [model[k] for k in sorted(model)]
        probe = list(model) + victims
        assert _host(ops, table.lookup(_ids(ops, probe))) == [model.get(k, -1) for k in probe]
    # ids stay dense: never more internal ids than vertices ever alive at once
    assert table.size <= 50 * 34


def _model_check(ops, table, model, probe):
    assert _host(ops, table.lookup(_ids(ops, probe))) == [model.get(k, -1) for k in probe]


def test_the_dense_map_follows_adds_and_removes_and_gives_up_on_sparse_ids(ops):
    from cugraph_stream.engine import vertices

    rng = np.random.default_rng(5)
    dense, model = VertexTable(ops), {}
    assert dense.dense is not None
    for step in range(40):
        fresh = np.unique(rng.integers(0, 3000, size=50))
        fresh = fresh[[k not in model for k in fresh.tolist()]]
        model.update(zip(fresh.tolist(), _host(ops, dense.add(_ids(ops, fresh)))))
        victims = [k for k in list(model) if rng.random() < 0.2]
        dense.remove(_ids(ops, [model.pop(k) for k in victims]))
        assert dense.dense is not None
        _model_check(ops, dense, model, list(model) + victims + [-1, 10**9])
        if step % 3 == 0:           # the order is read now and then: the adds between wait apart
            assert [_host(ops, ids) for ids in dense.sorted_ids()] == [sorted(model), [model[k] for k in sorted(model)]]
    far = vertices.DENSE_MAP_MIN + vertices.DENSE_MAP_SLACK * 10**5
    model[far] = _host(ops, dense.add(_ids(ops, [far])))[0]
    assert dense.dense is None
    _model_check(ops, dense, model, list(model) + [5000])


def test_the_dense_map_rolls_back_with_the_journal(ops):
    table = VertexTable(ops)
    table.add(_ids(ops, [1, 2]))
    table.journal.begin()
    table.add(_ids(ops, [3, 70_000]))
    table.remove(_ids(ops, [0]))
    table.journal.rollback()
    assert _host(ops, table.lookup(_ids(ops, [1, 2, 3, 70_000]))) == [0, 1, -1, -1]
    table.journal.begin()
    table.add(_ids(ops, [-4]))          # a negative id gives the map up
    assert table.dense is None
    table.journal.rollback()
    assert table.dense is not None and _host(ops, table.lookup(_ids(ops, [-4, 2]))) == [-1, 1]


def test_restore_builds_the_dense_map(ops):
    table = VertexTable(ops)
    table.restore(np.array([2, 0]), np.array([9, 4]), 3, np.array([1]))
    assert table.dense is not None and _host(ops, table.lookup(_ids(ops, [4, 9, 5]))) == [0, 2, -1]
    sparse = VertexTable(ops)
    sparse.restore(np.array([0]), np.array([-3]), 1, np.array([], dtype=np.int64))
    assert sparse.dense is None and _host(ops, sparse.lookup(_ids(ops, [-3]))) == [0]


def test_adds_wait_apart_from_the_order_until_it_is_read_and_roll_back_either_way(ops):
    """With the dense map, adds do not merge into the sorted arrays (a pass over
    every vertex); reading the order merges them, and a rollback restores the
    table whether or not the order was read inside the transaction."""
    table = VertexTable(ops)
    table.add(_ids(ops, [5, 9]))
    table.add(_ids(ops, [1, 7]))
    assert table._pending_count == 4                     # (two adds, not merged)
    assert [_host(ops, ids) for ids in table.sorted_ids()] == [[1, 5, 7, 9], [2, 0, 3, 1]]
    assert table._pending_count == 0
    for read_inside in (False, True):
        table.journal.begin()
        table.add(_ids(ops, [0, 8]))
        table.remove(table.lookup(_ids(ops, [7])))       # (reads the order: merges the add)
        table.add(_ids(ops, [6]))
        if read_inside:
            table.sorted_ids()
        table.journal.rollback()
        assert [_host(ops, ids) for ids in table.sorted_ids()] == [[1, 5, 7, 9], [2, 0, 3, 1]]
        assert _host(ops, table.lookup(_ids(ops, [0, 6, 7, 8]))) == [-1, -1, 3, -1]
        assert table.count == 4 and table.size == 4


def test_a_table_pickled_with_public_sorted_arrays_loads(ops):
    import pickle

    table = VertexTable(ops)
    table.add(_ids(ops, [2, 4]))
    table.sorted_ids()
    state = table.__dict__.copy()
    state["sorted_external"], state["sorted_internal"] = state.pop("_sorted_external"), state.pop("_sorted_internal")
    old = VertexTable.__new__(VertexTable)
    old.__setstate__(state)
    loaded = pickle.loads(pickle.dumps(old))
    assert [_host(ops, ids) for ids in loaded.sorted_ids()] == [[2, 4], [0, 1]]


def test_held_apart_vertices_merge_once_they_are_too_many(ops, monkeypatch):
    from cugraph_stream.engine import vertices

    monkeypatch.setattr(vertices, "PENDING_MIN", 10)
    table = VertexTable(ops)
    for start in range(0, 40, 4):           # batches of 4 new vertices, the order never read
        table.add(_ids(ops, range(start, start + 4)))
        assert table._pending_count <= max(vertices.PENDING_SHARE * table.count, 10)
    assert table._sorted_external.size >= 30         # (merged along the way, not at the end only)
    assert [_host(ops, ids) for ids in table.sorted_ids()] == [list(range(40)), list(range(40))]
