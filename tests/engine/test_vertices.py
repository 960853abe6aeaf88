"""VertexTable: arbitrary int64 ids, id reuse, sorted order."""
import numpy as np

from cugraph_stream.backends import get_backend
from cugraph_stream.engine.vertices import VertexTable


def test_lookup_add_remove_reuse_against_a_dict():
    rng = np.random.default_rng(3)
    table, model = VertexTable(get_backend("cpu")), {}
    extremes = np.array([-2**63, 2**63 - 1, 0, -1], dtype=np.int64)
    for step in range(50):
        ids = np.unique(np.concatenate((rng.integers(-2**63, 2**63 - 1, size=30, dtype=np.int64), extremes)))
        fresh = np.array([i for i in ids.tolist() if i not in model], dtype=np.int64)
        internal = table.add(fresh)
        assert len(set(internal.tolist())) == fresh.size
        assert not set(internal.tolist()) & set(model.values())
        model.update(zip(fresh.tolist(), internal.tolist()))
        victims = [k for k in list(model) if rng.random() < 0.3]
        table.remove(np.array([model.pop(k) for k in victims], dtype=np.int64))
        assert table.count == len(model)
        assert table.sorted_external.tolist() == sorted(model)
        assert table.sorted_internal.tolist() == [model[k] for k in sorted(model)]
        probe = np.array(list(model) + victims, dtype=np.int64)
        assert table.lookup(probe).tolist() == [model.get(k, -1) for k in probe.tolist()]
    # ids stay dense: never more internal ids than vertices ever alive at once
    assert table.size <= 50 * 34
