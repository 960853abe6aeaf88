"""Per-vertex arrays grow and shrink together, or not at all."""
import numpy as np
import pytest

from cugraph_stream.engine import growth
from failing_memory import AllocationFaults


class State:
    pass


@pytest.mark.parametrize("fail_at", [1, 2, 3])
@pytest.mark.parametrize("grow", [True, False])
def test_a_resize_that_fails_leaves_every_array_as_it_was(fail_at, grow):
    """Arrays kept without a journal (the hot cache's) must not end of different sizes."""
    s = State()
    size = 2000 if grow else 100_000
    s.a, s.b, s.c = np.arange(size), np.arange(size) * 2, np.ones(size, dtype=np.int8)
    before = {name: getattr(s, name) for name in "abc"}
    with AllocationFaults(at=fail_at - 1), pytest.raises(MemoryError):
        if grow:
            growth.ensure_vertex_capacity(np, s, ("a", "b", "c"), 3000)
        else:
            growth.fit_vertex_capacity(np, s, ("a", "b", "c"), 1000)
    assert all(getattr(s, name) is before[name] for name in "abc")


def test_a_resize_keeps_the_entries_below_the_new_size():
    s = State()
    s.a, s.b = np.arange(2000), np.arange(2000) + 7
    growth.ensure_vertex_capacity(np, s, ("a", "b"), 2001)
    assert s.a.size == s.b.size == 2250 and s.a[:2000].tolist() == list(range(2000))
    assert s.b[1999] == 2006 and (s.b[2000:] == 0).all()
