"""Memory that comes back: a graph that shrinks holds what its size needs (faimGraph's sweep)."""
import numpy as np
import pandas as pd
import pytest

import cugraph_stream as cgs

MiB = 2 ** 20


def small_graph(**options):
    ring = pd.DataFrame({"src": np.arange(100), "dst": (np.arange(100) + 1) % 100})
    g = cgs.StreamGraph.from_edgelist(ring, **options)
    queries = [g.track(cgs.SSSP(source=0)), g.track(cgs.WCC()), g.track(cgs.PageRank())]
    return g, queries


def sweep_round(g, rng, vertices=50_000, edges=200_000):
    """Insert ``edges`` edges among ``vertices`` fresh ids, then remove those vertices."""
    ids = np.unique(rng.integers(10**6, 2**62, vertices))
    g.apply(pd.DataFrame({"src": rng.choice(ids, edges), "dst": rng.choice(ids, edges)}), op=None)
    held = g.memory_bytes()
    g.remove_vertices(ids[np.isin(ids, g.vertices().to_numpy())])
    return held


@pytest.mark.parametrize("placement", ["device", "cached"])
def test_insert_and_remove_sweep_gives_memory_back(placement):
    options = {"cache_budget": 1 << 20} if placement == "cached" else {}
    g, queries = small_graph(placement=placement, **options)
    start = g.memory_bytes()
    rng = np.random.default_rng(0)
    after = []
    for _ in range(20 if placement == "device" else 4):
        peak = sweep_round(g, rng)
        # the round did hold the 200K edges: at least an out-slot (12 bytes), an in-slot (8)
        # and an arc-index position (4) each
        assert peak > start + 200_000 * 24
        after.append(g.memory_bytes())
    assert max(after) - min(after) <= 0.1 * start + MiB, [a / MiB for a in after]     # flat
    assert after[-1] <= max(1.1 * start, start + MiB), (start / MiB, after[-1] / MiB)
    assert g.number_of_edges() == 100 and g.number_of_vertices() == 100
    g.check_consistency()
    distances = queries[0].result()["distance"].to_numpy()
    assert distances.tolist() == list(range(100))


def test_compact_gives_back_what_deleted_edges_held():
    rng = np.random.default_rng(1)
    n = 20_000
    edges = pd.DataFrame({"src": rng.integers(0, n, 200_000), "dst": rng.integers(0, n, 200_000)})
    g = cgs.StreamGraph.from_edgelist(edges)
    paths = g.track(cgs.BFS(source=int(edges["src"][0])))
    full = g.memory_bytes()
    kept = g.edges().iloc[::50]
    g.apply(g.edges().drop(kept.index).assign(op="delete")[["src", "dst", "op"]])
    assert g.memory_bytes() > 0.5 * full           # deletions alone keep the lists' room
    small = g.compact()
    assert small < 0.25 * full and small == g.memory_bytes()
    g.check_consistency()
    expected = cgs.StreamGraph.from_edgelist(g.edges()[["src", "dst"]])
    expected.add_vertices(g.vertices().to_numpy())
    reference = expected.track(cgs.BFS(source=paths.source, mode="recompute")).result()
    assert np.array_equal(paths.result()["distance"].to_numpy(), reference["distance"].to_numpy())


def test_memory_by_device_adds_up_and_follows_the_placement(backend, placement):
    options = {"cache_budget": 1 << 20} if placement == "cached" else {}
    rng = np.random.default_rng(3)
    edges = pd.DataFrame({"src": rng.integers(0, 5_000, 50_000), "dst": rng.integers(0, 5_000, 50_000)})
    g = cgs.StreamGraph.from_edgelist(edges, backend=backend, placement=placement, **options)
    g.track(cgs.SSSP(source=int(edges["src"][0])))
    held = g.memory_bytes(per_device=True)
    assert held["device"] + held["host"] == g.memory_bytes()
    adjacency = g._store.out.memory_bytes() + g._store.inn.memory_bytes() + g._store.index.memory_bytes()
    if backend == "cpu":
        assert held["device"] == 0
    elif placement == "device":
        assert held["host"] == 0
    else:                               # the slot arrays and the edge index are in host memory
        per_vertex = sum(g._store.ops.memory_bytes(a.start, a.degree, a.capacity) for a in (g._store.out, g._store.inn))
        assert held["host"] == adjacency - per_vertex
