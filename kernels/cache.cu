// The hot-list cache (cugraph_stream.engine.cache): copies of whole lists
// (loads from the host store into a chunk, and compactions inside a chunk from
// a scratch copy of the chunk's slots, so that source and target never
// overlap), and evictions.  The NumPy references are Backend.copy_lists and
// Backend.uncache_lists in cugraph_stream/backends/base.py.
#include "common.cuh"

namespace {

// Entry e of the lists laid end to end (ends: inclusive prefix sum of their
// lengths): the index of its list, the first with ends[list] > e.
__device__ __forceinline__ long long owning_list(const long long* ends, long long lists, long long e)
{
  long long lo = 0, hi = lists - 1;
  while (lo < hi) {
    long long mid = (lo + hi) >> 1;
    if (ends[mid] > e) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

// Where entry e of the lists goes: (list, position k in it).
__device__ __forceinline__ void locate(const long long* ends, long long lists, long long e, long long& list,
                                       long long& k)
{
  list = owning_list(ends, lists, e);
  k = e - (list ? ends[list - 1] : 0);
}

}  // namespace

// Neighbour ids: target list i (at target_start[i]) gets source list i (at
// source_start[i]), one thread per entry.  Both arrays come as addresses:
// 4-byte ids, or 3 packed bytes where the address carries cgs::PACKED_IDS_TAG
// (cgs::Neighbours reads either; the packed write stores its three bytes).
__global__ void copy_id_lists(unsigned long long source_at, const long long* source_start,
                              unsigned long long target_at, const long long* target_start, const long long* ends,
                              long long lists, long long entries)
{
  long long e = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (e >= entries) return;
  long long list, k;
  locate(ends, lists, e, list, k);
  int id = cgs::Neighbours{source_at}[source_start[list] + k];
  long long at = target_start[list] + k;
  if (target_at & cgs::PACKED_IDS_TAG) {
    unsigned char* bytes = reinterpret_cast<unsigned char*>(target_at ^ cgs::PACKED_IDS_TAG) + 3ll * at;
    bytes[0] = static_cast<unsigned char>(id);
    bytes[1] = static_cast<unsigned char>(id >> 8);
    bytes[2] = static_cast<unsigned char>(id >> 16);
  } else {
    reinterpret_cast<int*>(target_at)[at] = id;
  }
}

// Weights (or any values of one type): the same copy as copy_id_lists.
template <typename T>
__global__ void copy_value_lists(const T* source, const long long* source_start, T* target,
                                 const long long* target_start, const long long* ends, long long lists,
                                 long long entries)
{
  long long e = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (e >= entries) return;
  long long list, k;
  locate(ends, lists, e, list, k);
  target[target_start[list] + k] = source[source_start[list] + k];
}

// Forget the cached copies of the cached vertices among ids[0:count]; each is
// evicted once, by the thread that swaps its chunk id for -1.  The evicting
// thread writes the vertex and its former place (chunk * chunk_slots +
// offset) at a ticket from tally[0], adds the entries it held to tally[2 +
// chunk] and, with `words` (the hotness counts), adds its score (the sum of
// `fields` fields of `field_bits` bits) times the transactions of `unit`
// bytes of one read of its `degree[v]` entries of each non-zero itemsize to
// tally[1].
__global__ void uncache_lists(const long long* ids, long long count, bool* in_cache, int* chunk_id,
                              int* chunk_offset, int* cached_degree, long long chunk_slots, const long long* degree,
                              const unsigned int* words, int fields, int field_bits, long long nbr_itemsize,
                              long long weight_itemsize, long long unit, long long* evicted, long long* places,
                              unsigned long long* tally)
{
  long long k = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (k >= count) return;
  long long v = ids[k];
  if (!in_cache[v]) return;
  int chunk = atomicExch(chunk_id + v, -1);
  if (chunk < 0) return;              // another entry of v evicted it
  long long held = cached_degree[v];
  unsigned long long at = atomicAdd(tally, 1ull);
  evicted[at] = v;
  places[at] = chunk * chunk_slots + chunk_offset[v];
  in_cache[v] = false;
  chunk_offset[v] = 0;
  cached_degree[v] = 0;
  atomicAdd(tally + 2 + chunk, static_cast<unsigned long long>(held));
  if (words == nullptr) return;
  unsigned int word = words[v];
  unsigned long long field_max = (1ull << field_bits) - 1, score = 0;
  for (int age = 0; age < fields; ++age) score += (word >> (age * field_bits)) & field_max;
  long long d = degree[v];
  unsigned long long reads = (d * nbr_itemsize + unit - 1) / unit + (d * weight_itemsize + unit - 1) / unit;
  if (score && reads) atomicAdd(tally + 1, score * reads);
}
