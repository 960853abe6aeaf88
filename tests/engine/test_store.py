"""GraphStore against a dict of edges, through batches and vertex removal."""
import numpy as np
import pytest

from cugraph_stream.backends import get_backend
from cugraph_stream.engine.reduce import reduce_batch
from cugraph_stream.engine.store import GraphStore


def edges_of(store):
    u, v, w = (store.ops.to_host(a) for a in store.edge_arrays())
    ext = store.ops.to_host(store.vertices.external)
    return {key(int(ext[a]), int(ext[b]), store.directed): float(c) for a, b, c in zip(u, v, w)}


def key(u, v, directed):
    return (u, v) if directed else (min(u, v), max(u, v))


@pytest.mark.parametrize("directed", [True, False])
@pytest.mark.parametrize("plan_ahead", [False, True], ids=["planned-after-the-read", "planned-ahead"])
def test_random_batches_and_removals(backend, directed, plan_ahead, monkeypatch):
    # relocations, hole closing and compactions move entries: the edge index
    # and the twin pointers must follow them (check_consistency); planned ahead,
    # every batch plans its relocations before the placements' count is read
    from cugraph_stream.engine import store as store_module
    monkeypatch.setattr(store_module, "PLAN_AHEAD_ARCS", 0 if plan_ahead else 10**9)
    rng = np.random.default_rng(7)
    ops = get_backend(backend)
    store = GraphStore(ops, directed, np.float64)
    model, alive = {}, set()
    for step in range(60):
        k = 300
        u = rng.integers(0, 80, size=k)
        v = rng.integers(0, 80, size=k)
        u[: k // 3] = 0                               # a hub whose list grows and moves
        w = rng.integers(0, 5, size=k).astype(float)
        op = np.where(rng.random(k) < 0.6, 1, -1).astype(np.int8)
        new = np.setdiff1d(np.concatenate((u[op == 1], v[op == 1])), np.array(sorted(alive), dtype=np.int64))
        store.add_vertices(ops.asarray(np.unique(new)))
        alive |= set(new.tolist())
        iu, iv = (ops.to_host(store.vertices.lookup(ops.asarray(x))) for x in (u, v))
        known = (iu >= 0) & (iv >= 0)
        store.apply(reduce_batch(store, *(ops.asarray(x[known]) for x in (iu, iv, w, op))))
        for a, b, c, o in zip(u.tolist(), v.tolist(), w.tolist(), op.tolist()):
            if o == 1:
                model[key(a, b, directed)] = c
            else:
                model.pop(key(a, b, directed), None)
        if step % 10 == 9:
            victims = np.array(sorted(rng.choice(sorted(alive), size=5, replace=False)), dtype=np.int64)
            store.remove_vertices(store.vertices.lookup(ops.asarray(victims)))
            alive -= set(victims.tolist())
            model = {e: c for e, c in model.items() if e[0] in alive and e[1] in alive}
        store.check_consistency()
        assert edges_of(store) == model
        assert store.num_edges == len(model)
        assert store.num_vertices == len(alive)


def test_sweep_memory_stays_bounded():
    store = GraphStore(get_backend("cpu"), True, np.float32)
    ids = store.add_vertices(np.arange(200))
    rng = np.random.default_rng(0)
    u, v = rng.choice(ids, 1000), rng.choice(ids, 1000)
    pairs = np.unique(np.stack((u, v), 1), axis=0)
    u, v = pairs[:, 0], pairs[:, 1]
    w = np.ones(u.size, np.float32)
    sizes = []
    for _ in range(100):
        store.apply(reduce_batch(store, u, v, w, np.ones(u.size, np.int8)))
        store.apply(reduce_batch(store, u, v, w, -np.ones(u.size, np.int8)))
        sizes.append(store.memory_bytes())
    assert store.num_edges == 0
    assert max(sizes[10:]) == sizes[10]       # no growth after the first rounds
    store.check_consistency()


def test_load_matches_batch_by_batch():
    rng = np.random.default_rng(5)
    for directed in (True, False):
        u = rng.integers(0, 300, 5000)
        v = rng.integers(0, 300, 5000)
        w = rng.random(5000)
        a = GraphStore(get_backend("cpu"), directed, np.float64)
        b = GraphStore(get_backend("cpu"), directed, np.float64)
        for s in (a, b):
            s.add_vertices(np.arange(300))
        a.load(u, v, w)
        b.apply(reduce_batch(b, u, v, w, np.ones(u.size, np.int8)))
        assert edges_of(a) == edges_of(b)
        a.check_consistency()
        # then batches behave the same on both
        du, dv = u[:1000], v[:1000]
        for s in (a, b):
            s.apply(reduce_batch(s, du, dv, w[:1000], -np.ones(1000, np.int8)))
            s.check_consistency()
        assert edges_of(a) == edges_of(b)


def test_caches_share_one_budget_and_the_in_cache_holds_neighbours_only(backend):
    """placement="cached": one allocator and one budget for the out- and in-adjacency caches,
    lists chosen jointly by value per byte; PageRank-like reads of every in-list give the
    in-adjacency cache nearly all of it, and chunks the out cache gives up serve it."""
    ops = get_backend(backend)
    store = GraphStore(ops, True, np.float32, placement="cached", cache_budget=8 * 1024, chunk_bytes=1024)
    (_, out, out_hot), (_, inn, in_hot) = store.cached
    assert out.cache.allocator is inn.cache.allocator and out.cache.weights and not inn.cache.weights
    ids = store.add_vertices(ops.asarray(np.arange(200)))
    rng = np.random.default_rng(1)
    u, v = rng.integers(0, 200, 1500), rng.integers(0, 200, 1500)
    delta = store.apply(reduce_batch(store, ids[ops.asarray(u)], ids[ops.asarray(v)],
                                     ops.asarray(np.ones(u.size, np.float32)), ops.asarray(np.ones(u.size, np.int8))))
    for batch in range(4):
        if batch == 0:
            store.record_reads(store.out, ids, reads_weights=True, distinct=True)   # a first full SSSP
        store.record_reads(store.inn, ids, reads_weights=False, distinct=True)      # PageRank's rounds
        reports = store.refresh_cache(delta)
        store.check_cache()
        delta = store.empty_delta()
        held = out.cache.allocator.held_bytes
        assert held <= 8 * 1024 and held == out.cache.held_bytes + inn.cache.held_bytes
        assert [r.held_bytes for r in reports] == [out.cache.held_bytes, inn.cache.held_bytes]
    # every in-list (about 4.4 KiB of neighbour ids, packed in 3 bytes) fits; the out-lists' reads left the window
    assert int(inn.cache.in_cache.sum()) == int((inn.degree[ids] > 0).sum()) > 150
    assert inn.cache.id_bytes == 3 and out.cache.chunks_held == 0 and inn.cache.chunks_held >= 5


@pytest.mark.parametrize("directed", [True, False])
def test_check_consistency_reads_the_edges_in_chunks(directed):
    # chunks of at most 7 arcs (as a device too small for every edge at once would
    # give), never every edge at once; a problem in several chunks is named once
    rng = np.random.default_rng(3)
    ops = get_backend("cpu")
    ops.bulk_load_rows = lambda reserved_bytes=0: 7
    store = GraphStore(ops, directed, np.float64)
    store.add_vertices(np.arange(50))
    store.load(rng.integers(0, 50, 400), rng.integers(0, 50, 400), rng.random(400))

    def whole_graph():
        raise AssertionError("check_consistency read every edge at once")
    store.edge_arrays = whole_graph
    assert len(list(store.edge_chunks(7))) > 1
    store.check_consistency()
    store.num_edges += 1
    with pytest.raises(RuntimeError, match=f"edge count {store.num_edges} != stored edges {store.num_edges - 1}"):
        store.check_consistency()
    store.num_edges -= 1
    owners = store.out.degree[: store.vertex_bound] > 0
    store.out.nbr[store.out.start[: store.vertex_bound][owners]] += 1      # every list's first arc: unindexed
    with pytest.raises(RuntimeError, match="an arc is missing from the index") as raised:
        store.check_consistency()
    problems = str(raised.value).split(": ", 1)[1].split("; ")
    assert len(problems) == len(set(problems))
