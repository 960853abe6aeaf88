"""The hot cache's reference reader (:class:`CacheView`) against the host store.

Every test runs on the NumPy backend (CI) and, under the ``gpu`` marker, on CuPy.
"""
import numpy as np
import pytest

from cugraph_stream.engine.cache import HotCache, RefreshReport
from list_helpers import host, host_list, make_adjacency


@pytest.mark.parametrize("weights", [True, False])
@pytest.mark.parametrize("id_bytes", [4, 3])
def test_view_gather_matches_the_store(ops, weights, id_bytes):
    dtype = np.float64
    rng = np.random.default_rng(5)
    n = 30
    # neighbour ids up to 2**24 - 1: every byte of a packed id matters
    adj = make_adjacency(ops, n, dtype, {u: rng.integers(0, 1 << 24, int(rng.integers(0, 70))).tolist()
                                         for u in range(n)})
    slot_bytes = id_bytes + 8 * weights
    cache = HotCache(ops, dtype, budget_bytes=6 * 64 * slot_bytes, chunk_bytes=2 * 64 * slot_bytes, weights=weights,
                     id_bytes=id_bytes)
    cache.load(ops.asarray(rng.permutation(n)[:12]), adj, RefreshReport())      # a fresh cache: nothing to evict
    assert cache.chunks_held >= 2
    vertices = rng.integers(0, n, 50)
    owners, nbr, wgt = cache.view(adj).gather(ops, ops.asarray(vertices))
    expected = [(i, x, y) for i, v in enumerate(vertices.tolist()) for x, y in zip(*host_list(ops, adj, v))]
    assert list(zip(host(ops, owners).tolist(), host(ops, nbr).tolist(), host(ops, wgt).tolist())) == expected
    view = cache.view(adj)
    in_cache = host(ops, view.in_cache)
    assert view.start.size == view.length.size == in_cache.size == adj.start.size
    assert (host(ops, view.start)[~in_cache] == host(ops, adj.start)[~in_cache]).all()
    assert (host(ops, view.length) == host(ops, adj.degree)).all()
    assert (host(ops, view.chunk)[~in_cache] == -1).all()
    pointers, weight_pointers = host(ops, view.nbr_pointers), host(ops, view.wgt_pointers)
    tag = (1 << 63) if id_bytes == 3 else 0
    for c, chunk in enumerate(cache.chunks):
        assert int(pointers[c]) == (0 if chunk is None else cache.allocator.address(chunk.nbr) | tag)
        assert int(weight_pointers[c]) == (0 if chunk is None or not weights else cache.allocator.address(chunk.wgt))
