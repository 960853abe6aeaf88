"""``Backend.bfs_levels`` (direction-optimising BFS) against SciPy, on every
backend and placement; the GPU's hop distances and edge counts against the
CPU's (the level loop and its direction choices are shared, so they agree
exactly), predecessors checked structurally (any in-neighbour one level up)."""
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.sparse.csgraph import shortest_path

from cugraph_stream.algorithms import bfs_rule
from cugraph_stream.backends import base, get_backend
from cugraph_stream.engine.reduce import reduce_batch
from cugraph_stream.engine.store import GraphStore
from reference import example_budget

INT32_MAX = np.iinfo(np.int32).max
#: (BFS_ALPHA, BFS_BETA) forcing each schedule: Beamer's switch, top-down only, bottom-up from the first level
MODES = {"beamer": (base.BFS_ALPHA, base.BFS_BETA), "top_down": (0, 0), "bottom_up": (10**12, 10**12)}


@pytest.fixture(params=sorted(MODES))
def mode(request, monkeypatch):
    alpha, beta = MODES[request.param]
    monkeypatch.setattr(base, "BFS_ALPHA", alpha)
    monkeypatch.setattr(base, "BFS_BETA", beta)
    return request.param


def host(ops, a):
    return np.asarray(ops.to_host(a))


def build_store(ops, directed, n, edges, removed=(), placement="device"):
    """A store of vertices ``0..n-1`` (external ids = internal ids) holding ``edges``,
    then without ``removed`` (dead ids inside the id range); with ``"cached"``, a
    small cache holding some of the lists (chosen after a full read of both sides)."""
    memory = {"cache_budget": 4096, "chunk_bytes": 1024} if placement == "cached" else {}
    store = GraphStore(ops, directed, np.float32, placement=placement, **memory)
    ids = store.add_vertices(ops.asarray(np.arange(n, dtype=np.int64)))
    assert host(ops, ids).tolist() == list(range(n))
    if edges:
        u, v = (np.array(x, dtype=np.int64) for x in zip(*edges))
        store.apply(reduce_batch(store, ops.asarray(u), ops.asarray(v), ops.asarray(np.ones(u.size, np.float32)),
                                 ops.asarray(np.ones(u.size, np.int8))))
    delta = store.empty_delta()
    if len(removed):
        delta = store.remove_vertices(ops.asarray(np.array(sorted(removed), dtype=np.int64)))
    if store.cached:
        for adj in {id(a): a for a in (store.out, store.inn)}.values():
            store.record_reads(adj, ops.asarray(np.arange(n, dtype=np.int64)), reads_weights=True, distinct=True)
        store.refresh_cache(delta)
        store.check_cache()
    return store


def live_edges(directed, edges, removed):
    removed = set(removed)
    kept = {(a, b) for a, b in edges if a not in removed and b not in removed}
    if not directed:
        kept |= {(b, a) for a, b in kept}
    return kept


def reference_levels(n, directed, edges, removed, source):
    arcs = live_edges(directed, edges, removed)
    a = sp.csr_matrix((np.ones(len(arcs)), ([x for x, _ in arcs], [y for _, y in arcs])), shape=(n, n))
    dist = shortest_path(a, directed=True, unweighted=True, indices=source)
    return np.where(np.isinf(dist), INT32_MAX, dist).astype(np.int64), arcs


def run_levels(ops, store, source):
    bound = store.vertex_bound
    value = ops.asarray(np.full(bound + 3, -7, dtype=np.int32))      # entries past the bound stay as they are
    parent = ops.asarray(np.full(bound + 3, -7, dtype=np.int64))
    visited, read = ops.bfs_levels(store.out, store.inn, source, bound, value, parent, bfs_rule())
    value, parent, visited = host(ops, value), host(ops, parent), host(ops, visited)
    assert value[bound:].tolist() == [-7] * 3 and parent[bound:].tolist() == [-7] * 3
    return value[:bound], parent[:bound], visited, read


def check_levels(n, directed, edges, removed, source, value, parent, visited):
    want, arcs = reference_levels(n, directed, edges, removed, source)
    bound = value.size                 # removing the top ids lowers the vertex bound
    assert (want[bound:] == INT32_MAX).all()
    want = want[:bound]
    assert value.tolist() == want.tolist()
    reached = want != INT32_MAX
    assert parent[source] == -1 and (parent[~reached] == -1).all()
    for v in np.flatnonzero(reached):
        if v == source:
            continue
        p = int(parent[v])
        assert (p, int(v)) in arcs, f"parent {p} of {v} is not an in-neighbour"
        assert value[p] == value[v] - 1, f"parent {p} of {v} is not one level up"
    assert sorted(visited.tolist()) == np.flatnonzero(reached).tolist()
    assert visited[0] == source and (np.diff(value[visited]) >= 0).all()      # level by level


def random_graph(rng, n, m, self_loops=True):
    u, v = rng.integers(0, n, m), rng.integers(0, n, m)
    if not self_loops:
        v = np.where(u == v, (v + 1) % n, v)
    return list(zip(u.tolist(), v.tolist()))


@pytest.mark.parametrize("directed", [True, False], ids=["directed", "undirected"])
@pytest.mark.parametrize("shape", ["sparse", "dense", "two_parts"])
def test_bfs_levels_match_scipy_on_every_placement(backend, placement, directed, shape, mode):
    ops = get_backend(backend)
    rng = np.random.default_rng(7)
    n = 400
    m = {"sparse": 500, "dense": 6000, "two_parts": 3000}[shape]
    edges = random_graph(rng, n, m)
    if shape == "two_parts":          # nothing crosses from the first half to the second
        edges = [(a % 200, b % 200) if a < 200 else (a, b if b >= 200 else b + 200) for a, b in edges]
    edges += [(0, 1), (1, 1)]
    removed = [5, 17, 200, n - 2]
    store = build_store(ops, directed, n, edges, removed, placement)
    value, parent, visited, read = run_levels(ops, store, 0)
    check_levels(n, directed, edges, removed, 0, value, parent, visited)
    assert read > 0
    if mode == "top_down":            # every reached vertex's out-list read once
        out_degree = host(ops, store.out.degree)
        assert read == int(out_degree[visited].sum())
    if backend != "cpu":              # the same levels as the CPU operator
        cpu = get_backend("cpu")
        want = run_levels(cpu, build_store(cpu, directed, n, edges, removed), 0)
        assert value.tolist() == want[0].tolist()
        # (entries read differ: on the H100 the GPU's bottom-up warps count whole 32-entry
        # chunks, the CPU a sequential scan's reads, e.g. 797 against 802)


def test_a_source_without_out_edges_reaches_only_itself(backend, mode):
    ops = get_backend(backend)
    edges = [(1, 0), (2, 1), (1, 2), (3, 3)]
    store = build_store(ops, True, 5, edges)
    value, parent, visited, read = run_levels(ops, store, 0)
    assert value.tolist() == [0] + [INT32_MAX] * 4 and parent.tolist() == [-1] * 5
    assert visited.tolist() == [0] and read == 0


def test_bottom_up_reads_in_lists_up_to_the_first_parent(mode):
    # 0 -> 1..40, and 41 has in-neighbours 50..89 (unreached) before its parent 40:
    # a sequential scan reads the level's unreached lists until each finds a parent
    if mode != "bottom_up":
        pytest.skip("counts of the bottom-up schedule")
    ops = get_backend("cpu")
    edges = [(0, k) for k in range(1, 41)] + [(k, 41) for k in range(50, 90)] + [(40, 41)]
    store = build_store(ops, True, 90, edges)
    value, parent, visited, read = run_levels(ops, store, 0)
    check_levels(90, True, edges, (), 0, value, parent, visited)
    in_lists = {int(v): host(ops, store.inn.nbr[int(store.inn.start[v]):int(store.inn.start[v] + store.inn.degree[v])])
                for v in range(90)}
    # level 0: each of 1..40 finds 0 at once; 41 reads its whole list (0 is not in it)
    # level 1: 41 reads up to 40; level 2: nothing is left unvisited with an in-list
    first = 40 + 41
    second = in_lists[41].tolist().index(40) + 1
    assert read == first + second and value[41] == 2 and parent[41] == 40


def test_undirected_stores_pass_their_one_adjacency_as_both():
    ops = get_backend("cpu")
    store = build_store(ops, False, 4, [(0, 1), (2, 1)])
    assert store.inn is store.out
    value, parent, _, _ = run_levels(ops, store, 2)
    assert value.tolist() == [2, 1, 0, INT32_MAX] and parent.tolist() == [1, 2, -1, -1]


def test_bfs_levels_counts_a_launch_and_a_sync_per_level():
    ops = get_backend("cpu")
    store = build_store(ops, True, 6, [(0, 1), (1, 2), (2, 3)])
    value, parent = np.zeros(6, np.int32), np.zeros(6, np.int64)
    before = ops.calls.snapshot()
    ops.bfs_levels(store.out, store.inn, 0, 6, value, parent, bfs_rule())
    levels = 4                         # 0 -> 1 -> 2 -> 3, and a last level that finds nothing
    assert ops.calls.since(before) == (1 + levels, 1 + levels)


@settings(max_examples=example_budget(40))
@given(data=st.data(), directed=st.booleans(), mode=st.sampled_from(sorted(MODES)))
def test_bfs_levels_on_random_graphs(data, directed, mode):
    n = data.draw(st.integers(1, 30), label="n")
    edges = data.draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=4 * n),
                      label="edges")
    removed = data.draw(st.lists(st.integers(0, n - 1), unique=True, max_size=n - 1), label="removed")
    live = [v for v in range(n) if v not in set(removed)]
    source = data.draw(st.sampled_from(live), label="source")
    ops = get_backend("cpu")
    alpha, beta = MODES[mode]
    saved = base.BFS_ALPHA, base.BFS_BETA
    base.BFS_ALPHA, base.BFS_BETA = alpha, beta
    try:
        store = build_store(ops, directed, n, edges, removed)
        value, parent, visited, _ = run_levels(ops, store, source)
    finally:
        base.BFS_ALPHA, base.BFS_BETA = saved
    check_levels(n, directed, edges, removed, source, value, parent, visited)
