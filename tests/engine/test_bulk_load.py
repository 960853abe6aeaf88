"""Bulk loads in ranges of vertices (engine/bulk_load.py) against a load at once."""
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from cugraph_stream.backends import get_backend
from cugraph_stream.engine.bulk_load import EdgeRows, vertex_ranges
from cugraph_stream.engine.reduce import reduce_batch
from cugraph_stream.engine.store import GraphStore


def edges_of(store):
    """Every edge as ``{(external u, external v): weight}`` (u <= v when undirected)."""
    u, v, w = (store.ops.to_host(a) for a in store.edge_arrays())
    ext = store.ops.to_host(store.vertices.external)
    pairs = ((int(ext[a]), int(ext[b])) for a, b in zip(u, v))
    return {p if store.directed else tuple(sorted(p)): float(c) for p, c in zip(pairs, w)}


def loaded(ops, directed, u, v, w, n, range_arcs=None, chunk_rows=None, placement="device"):
    store = GraphStore(ops, directed, np.float64, placement=placement)
    store.add_vertices(ops.asarray(np.arange(n)))
    if range_arcs is None:
        store.load(*(ops.asarray(x) for x in (u, v, w)))
    else:
        rows = EdgeRows.in_host_memory(ops, u.size, n, np.float64, chunk_rows=chunk_rows)
        rows.write(0, *(ops.asarray(x) for x in (u, v, w)))
        store.load_rows(rows, range_arcs=range_arcs)
    store.check_consistency()
    return store


@given(st.data())
def test_ranges_cover_every_vertex_once(data):
    counts = np.array(data.draw(st.lists(st.integers(0, 20), min_size=1, max_size=40)))
    most = data.draw(st.integers(1, 30))
    ranges = vertex_ranges(np, counts, most)
    assert ranges[0][0] == 0 and ranges[-1][1] == counts.size
    assert all(a[1] == b[0] for a, b in zip(ranges, ranges[1:]))
    for lo, hi in ranges:       # within the bound, or one vertex above it
        assert counts[lo:hi].sum() <= most or hi - lo == 1


@pytest.mark.parametrize("directed", [True, False])
@given(data=st.data())
def test_load_in_ranges_matches_a_load_at_once(directed, data):
    """Repeated edges (last weight wins), loops, hubs, ranges down to a vertex
    each, chunks down to one row: the same edges, a consistent store, and
    batches afterwards behave the same."""
    ops = get_backend("cpu")
    n = data.draw(st.integers(1, 30))
    rows = data.draw(st.integers(1, 300))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    u, v = rng.integers(0, n, rows), rng.integers(0, n, rows)
    u[: rows // 3] = 0                      # a hub: a range of its own
    w = rng.integers(0, 5, rows).astype(np.float64)
    whole = loaded(ops, directed, u, v, w, n)
    ranged = loaded(ops, directed, u, v, w, n, range_arcs=data.draw(st.integers(1, 2 * rows)),
                    chunk_rows=data.draw(st.integers(1, rows)))
    assert edges_of(ranged) == edges_of(whole)
    assert ranged.num_edges == whole.num_edges == len(edges_of(whole))
    du, dv = rng.integers(0, n, 50), rng.integers(0, n, 50)
    op = np.where(rng.random(50) < 0.5, 1, -1).astype(np.int8)
    for store in (whole, ranged):
        store.apply(reduce_batch(store, du, dv, np.ones(50), op))
        store.check_consistency()
    assert edges_of(ranged) == edges_of(whole)


@pytest.mark.parametrize("directed", [True, False])
def test_load_in_ranges_on_each_backend(backend, placement, directed):
    """The GPU builds the arc index in device memory range by range and copies it
    once (host placement); every placement loads what the CPU loads."""
    ops = get_backend(backend)
    rng = np.random.default_rng(3)
    n, rows = 500, 6000
    u, v = rng.integers(0, n, rows), rng.integers(0, n, rows)
    u[:2000] = 7
    w = rng.random(rows)
    reference = loaded(get_backend("cpu"), directed, u, v, w, n)
    store = loaded(ops, directed, u, v, w, n, range_arcs=900, chunk_rows=1000, placement=placement)
    assert edges_of(store) == edges_of(reference)
    assert store.index.live == reference.index.live


def test_ranges_reserve_the_slot_arrays_once():
    """The slot arrays are allocated before the first range: no growth (a copy of
    everything laid out so far) between ranges."""
    ops = get_backend("cpu")
    rng = np.random.default_rng(1)
    u, v = rng.integers(0, 1000, 20000), rng.integers(0, 1000, 20000)
    store = GraphStore(ops, True, np.float32)
    store.add_vertices(np.arange(1000))
    rows = EdgeRows.in_host_memory(ops, u.size, 1000, np.float32, chunk_rows=3000)
    rows.write(0, u, v, np.ones(u.size, np.float32))
    versions = []
    build_range = store.out.build_range

    def counting(*args, **kwargs):
        versions.append(id(store.out.nbr))
        return build_range(*args, **kwargs)

    store.out.build_range = counting
    store.load_rows(rows, range_arcs=2500)
    assert len(versions) > 4 and len(set(versions)) == 1
