"""The GPU backend's per-vertex list addresses (``GPUBackend._lists``) after every batch.

Kernels find every list through these addresses, which point into the
store's slot arrays (device or pinned host memory) or into the hot-list
cache, and are kept until ``Adjacency.version`` changes.  A kernel written
here reads every list back through them and compares it with the store, so
an address left stale by a relocation, a growth, a compaction or a cache
refresh fails the test (``HotCache.check`` reads through the host-side
reference reader instead and cannot see such a fault).  The kernel decodes
packed 3-byte ids (addresses tagged with bit 63) byte by byte, independently
of ``cgs::Neighbours``.
"""
import numpy as np
import pandas as pd
import pytest

import cugraph_stream as cgs
from cugraph_stream.backends import available_backends
from reference import ScriptedRefreshPolicy

pytestmark = [pytest.mark.gpu,
              pytest.mark.skipif(available_backends()["gpu"] is not None,
                                 reason=str(available_backends()["gpu"]))]

READ_BACK = r"""
extern "C" __global__ void read_back(const unsigned long long* nbr_at, const unsigned long long* wgt_at,
                                     const long long* start, const long long* degree, const int* nbr,
                                     const float* wgt, long long n, int* wrong)
{
  long long u = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (u >= n) return;
  const unsigned long long tag = 1ull << 63;
  bool packed = (nbr_at[u] & tag) != 0;
  const unsigned char* bytes = reinterpret_cast<const unsigned char*>(nbr_at[u] & ~tag);
  const float* weighed = reinterpret_cast<const float*>(wgt_at[u]);
  for (long long k = 0; k < degree[u]; ++k) {
    int id = packed ? bytes[3 * k] | (bytes[3 * k + 1] << 8) | (bytes[3 * k + 2] << 16)
                    : reinterpret_cast<const int*>(bytes)[k];
    if (id != nbr[start[u] + k] || weighed[k] != wgt[start[u] + k]) { wrong[u] = 1; return; }
  }
  if (packed) wrong[u] |= 2;
}
"""


def lists_read_wrong(graph):
    """Vertices of each adjacency whose list, read through its addresses, differs from the store's;
    and how many lists of each are read as packed ids."""
    import cupy

    kernel = cupy.RawKernel(READ_BACK, "read_back")
    store = graph._store
    wrong, packed = {}, {}
    for side, adj in (("out", store.out), ("in", store.inn)):
        nbr_at, wgt_at = store.ops._lists(adj)
        n = int(adj.start.size)
        flags = cupy.zeros(n, dtype=cupy.int32)
        kernel(((n + 127) // 128,), (128,), (nbr_at, wgt_at, adj.start, adj.degree, adj.nbr, adj.wgt, np.int64(n),
                                             flags))
        wrong[side] = cupy.flatnonzero(flags & 1).get().tolist()
        packed[side] = int(cupy.count_nonzero(flags & 2))
    return wrong, packed


def random_rows(rng, n, k, insert_share):
    return pd.DataFrame({"src": rng.integers(0, n, k), "dst": rng.integers(0, n, k),
                         "weight": rng.integers(0, 4, k).astype(np.float32),
                         "op": np.where(rng.random(k) < insert_share, 1, -1).astype(np.int8)})


@pytest.mark.parametrize("placement", ["device", "host", "cached"])
@pytest.mark.parametrize("seed", range(4))
def test_every_list_reads_back_through_its_address_after_every_batch(placement, seed):
    rng = np.random.default_rng(seed)
    n = 40 + 30 * seed
    extra = dict(cache_budget=8192, chunk_bytes=2048) if placement == "cached" else {}
    graph = cgs.StreamGraph.from_edgelist(random_rows(rng, n, 6 * n, 1.0), weight="weight", backend="gpu",
                                          directed=seed % 2 == 0, placement=placement, **extra)
    graph.track(cgs.SSSP(0))          # reads lists, so the cache has hot lists to hold
    graph.track(cgs.WCC())
    if placement == "cached":         # every kind of refresh in turn, whatever the policy would measure
        graph._store.refresh_policy = ScriptedRefreshPolicy(("full", "partial", "skipped", "cleared"))
    packed_lists = 0
    for step in range(20):
        # growing batches: lists outgrow their room, slot arrays grow, vertices arrive
        graph.apply(random_rows(rng, n + 2 * step, 5 + 4 * step, 0.6), weight="weight")
        wrong, packed = lists_read_wrong(graph)
        assert wrong == {"out": [], "in": []}, f"after batch {step}"
        packed_lists += sum(packed.values())
        if placement == "cached":
            graph._store.check_cache()
    # the cached placement's caches hold 3-byte ids (few vertices): some lists were read packed
    assert (packed_lists > 0) == (placement == "cached")
