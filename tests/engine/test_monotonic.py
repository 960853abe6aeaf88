"""MonotonicEngine traps: invalidation to a fixpoint, WCC restart from own id,
zero-weight ties that must not close parent cycles."""
import numpy as np
import pytest

from cugraph_stream.algorithms import bfs_rule, sssp_rule, wcc_rule
from cugraph_stream.backends import get_backend
from cugraph_stream.engine.monotonic import MonotonicEngine
from cugraph_stream.engine.reduce import reduce_batch
from cugraph_stream.engine.store import GraphStore


def graph(directed, edges, n, dtype=np.float64):
    store = GraphStore(get_backend("cpu"), directed, dtype)
    store.add_vertices(np.arange(n))
    change(store, edges, 1)
    return store


def change(store, edges, op):
    arr = np.array(edges, dtype=np.float64).reshape(-1, 3)
    return store.apply(reduce_batch(store, arr[:, 0].astype(np.int64), arr[:, 1].astype(np.int64),
                                    arr[:, 2].astype(store.weight_dtype), np.full(len(arr), op, np.int8)))


def run(engine, delta=None):
    work = engine.initialize() if delta is None else engine.correct(delta)
    engine.converge()
    return work


def test_deleting_the_root_edge_of_a_long_chain_invalidates_all_of_it():
    n = 30
    store = graph(True, [(i, i + 1, 1.0) for i in range(n - 1)] + [(0, n - 1, 100.0)], n)
    engine = MonotonicEngine(store, sssp_rule(np.float64), source=0)
    run(engine)
    assert engine.value[n - 1] == n - 1
    work = run(engine, change(store, [(0, 1, 0.0)], -1))
    assert work.invalidated == n - 1
    assert (engine.value[1:n - 1] == np.finfo(np.float64).max).all()
    assert engine.value[n - 1] == 100.0 and engine.parent[n - 1] == 0


def test_wcc_vertex_that_loses_its_label_restarts_from_its_own_id():
    store = graph(False, [(0, 5, 1.0), (5, 7, 1.0), (7, 9, 1.0)], 10)
    engine = MonotonicEngine(store, wcc_rule(symmetric=False))
    run(engine)
    assert engine.value[[0, 5, 7, 9]].tolist() == [0, 0, 0, 0]
    run(engine, change(store, [(5, 7, 0.0)], -1))
    assert engine.value[[0, 5, 7, 9]].tolist() == [0, 0, 7, 7]


def test_zero_weight_cycles_leave_a_parent_tree():
    rng = np.random.default_rng(9)
    n = 25
    store = graph(True, [(int(a), int(b), 0.0) for a, b in rng.integers(0, n, (80, 2))], n)
    engine = MonotonicEngine(store, sssp_rule(np.float64), source=0)
    run(engine)
    for step in range(20):
        edges = [(int(a), int(b), float(c)) for a, b, c in
                 zip(rng.integers(0, n, 10), rng.integers(0, n, 10), rng.integers(0, 2, 10))]
        run(engine, change(store, edges, 1 if step % 3 else -1))
        for v in range(n):            # following parents reaches the source without a cycle
            seen, x = set(), v
            while engine.parent[x] >= 0:
                assert x not in seen
                seen.add(x)
                x = int(engine.parent[x])
            assert x == 0 or engine.value[v] == np.finfo(np.float64).max


def test_recompute_mode_agrees_with_incremental():
    rng = np.random.default_rng(2)
    n = 60
    store = graph(True, [(int(a), int(b), float(c)) for a, b, c in
                         zip(rng.integers(0, n, 200), rng.integers(0, n, 200), rng.integers(1, 5, 200))], n)
    inc = MonotonicEngine(store, sssp_rule(np.float64), source=0)
    ref = MonotonicEngine(store, sssp_rule(np.float64), source=0, incremental=False)
    run(inc)
    run(ref)
    for step in range(30):
        edges = [(int(a), int(b), float(c)) for a, b, c in
                 zip(rng.integers(0, n, 15), rng.integers(0, n, 15), rng.integers(1, 5, 15))]
        delta = change(store, edges, 1 if step % 2 else -1)
        run(inc, delta)
        run(ref, delta)
        assert (inc.value[:n] == ref.value[:n]).all()


def test_bfs_from_scratch_runs_level_by_level_and_commits_every_change():
    """A BFS recompute calls ``bfs_levels`` (not the generic push); the commit sees
    every vertex as touched, so ``changed`` holds exactly the live vertices whose
    distance or parent moved; ``levels = False`` gives the push's distances."""
    from cugraph_stream.backends.faults import FaultInjector

    rng = np.random.default_rng(4)
    n = 80
    store = graph(True, [(int(a), int(b), 1.0) for a, b in rng.integers(0, n, (240, 2))], n)
    levels = MonotonicEngine(store, bfs_rule(), source=0, incremental=False)
    push = MonotonicEngine(store, bfs_rule(), source=0, incremental=False)
    push.levels = False
    assert levels.levels and not MonotonicEngine(store, sssp_rule(np.float64), source=0).levels
    for engine in (levels, push):
        with FaultInjector(store.ops) as counter:
            run(engine)
        assert ("bfs_levels" in counter.names) == engine.levels
        assert ("converge" in counter.names) != engine.levels
    assert (levels.value[:n] == push.value[:n]).all()
    for step in range(12):
        edges = [(int(a), int(b), 1.0) for a, b in rng.integers(0, n, (12, 2))]
        before = levels.previous_value[:n].copy(), levels.previous_parent[:n].copy()
        delta = change(store, edges, 1 if step % 3 else -1)
        run(levels, delta)
        run(push, delta)
        assert (levels.value[:n] == push.value[:n]).all()
        moved = (levels.value[:n] != before[0]) | (levels.parent[:n] != before[1])
        assert sorted(levels.changed.tolist()) == np.flatnonzero(moved).tolist()
        assert (levels.previous_value[:n] == levels.value[:n]).all()
        for v in np.flatnonzero(levels.parent[:n] >= 0):     # a parent one level up, along an edge
            p = int(levels.parent[v])
            assert levels.value[p] == levels.value[v] - 1 and store.find(np.array([p]), np.array([v]))[0] >= 0


def overflow_message(store, source, rows):
    """The ``OverflowError`` message of SSSP from ``source`` on ``store`` when the
    overflow check reads the edges in chunks of ``rows`` arcs (None: one chunk)."""
    store.ops.bulk_load_rows = lambda reserved_bytes=0: rows

    def whole_graph():
        raise AssertionError("the overflow check read every edge at once")
    store.edge_arrays = whole_graph
    engine = MonotonicEngine(store, sssp_rule(np.float64), source=source)
    with pytest.raises(OverflowError) as raised:
        run(engine)
    return str(raised.value)


@pytest.mark.parametrize("rows", [None, 1, 2])
def test_overflow_check_in_chunks_names_the_vertex_one_chunk_names(rows):
    big = 0.6 * float(np.finfo(np.float64).max)        # two of them overflow
    # directed: the stranded vertex 4 sits in the last source's chunk
    store = graph(True, [(0, 1, 1.0), (1, 2, 1.0), (2, 3, big), (3, 4, big)], 5)
    store.note_weights(big)
    assert overflow_message(store, 0, rows).startswith("vertex 4 is reachable")
    # undirected: vertex 0 is stranded through the mirror of edge (0, 1), in the first
    # source's chunk, vertex 4 through edge (3, 4) itself, in a later chunk; edges in
    # their own direction come first, as with one chunk
    store = graph(False, [(0, 1, big), (1, 2, big), (2, 3, big), (3, 4, big)], 5)
    store.note_weights(big)
    assert overflow_message(store, 2, rows).startswith("vertex 4 is reachable")
    # undirected, stranded only through a mirror arc (edge (3, 4) seen from 4)
    store = graph(False, [(3, 4, big), (4, 5, big)], 6)
    store.note_weights(big)
    assert overflow_message(store, 5, rows).startswith("vertex 3 is reachable")
