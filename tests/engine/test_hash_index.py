"""EdgeIndex against a dict, including tombstone reuse and bounded growth."""
import numpy as np
import pytest

from cugraph_stream.backends import get_backend
from cugraph_stream.engine.hash_index import MIN_CAPACITY, EdgeIndex


@pytest.fixture
def ops():
    return get_backend("cpu")


def test_random_operations_match_a_dict(ops):
    rng = np.random.default_rng(0)
    index, model = EdgeIndex(ops), {}
    for step in range(60):
        pool = rng.integers(0, 5000, size=400)
        keys = np.unique(pool)
        present = np.array([k in model for k in keys])
        fresh = keys[~present]
        values = rng.integers(0, 10**9, size=fresh.size)
        index.insert(fresh, values)
        model.update(zip(fresh.tolist(), values.tolist()))
        gone = keys[present][: int(present.sum()) // 2]
        if step % 2:
            index.erase(gone)
        else:
            index.erase(gone, index.locate(gone))
        for k in gone.tolist():
            del model[k]
        kept = np.array(sorted(model)[:50], dtype=np.int64)
        if kept.size:
            new_values = rng.integers(0, 10**9, size=kept.size)
            index.values[index.locate(kept)] = new_values
            model.update(zip(kept.tolist(), new_values.tolist()))
        probe = rng.integers(0, 6000, size=1000)
        expected = [model.get(k, -1) for k in probe.tolist()]
        assert index.get(probe).tolist() == expected
        assert index.live == len(model)


def test_sweep_keeps_the_table_bounded(ops):
    index = EdgeIndex(ops)
    keys = np.arange(1000, dtype=np.int64) * 7919
    for _ in range(300):
        index.insert(keys, np.arange(keys.size))
        index.erase(keys)
    assert index.live == 0
    assert index.capacity <= 4 * MIN_CAPACITY


def test_bulk_build_spills_past_the_end_and_wraps(ops):
    index = EdgeIndex(ops)
    # many keys hashing to the last slots force the running maximum past the end
    keys = np.arange(3000, dtype=np.int64)
    index.build(keys, keys * 2)
    assert index.get(keys).tolist() == (keys * 2).tolist()
    assert index.get(np.array([10**12])).tolist() == [-1]
    with pytest.raises(ValueError, match="empty"):
        index.build(keys, keys)


def test_rollback_restores_keys_and_values_when_tombstones_are_reused(ops):
    # erase then insert in one transaction: new keys land on the tombstones just made
    # (and on the values those positions held); a rollback brings back the exact table
    from cugraph_stream.engine.journal import Journal
    journal = Journal()
    index = EdgeIndex(ops, journal=journal)
    keys = np.arange(0, 200, dtype=np.int64) * 7919
    index.insert(keys, np.arange(200))
    before = index.keys.copy(), index.values.copy(), index.live, index.deleted
    journal.begin()
    index.erase(keys[:100])
    index.insert(keys[:100], np.arange(100) + 10**6)           # back where they were, with other values
    assert index.capacity == before[0].size                     # (no rebuild: the same arrays)
    journal.rollback()
    assert np.array_equal(index.keys, before[0]) and (index.live, index.deleted) == before[2:]
    held = before[0] >= 0
    assert np.array_equal(index.values[held], before[1][held])
    assert index.get(keys).tolist() == list(range(200))
    # and across a rebuild that grows the table
    journal.begin()
    index.erase(keys[:100])
    index.insert(np.arange(2000, 2600, dtype=np.int64) * 104729, np.arange(600))
    assert index.capacity > before[0].size
    journal.rollback()
    assert np.array_equal(index.keys, before[0]) and index.get(keys).tolist() == list(range(200))
