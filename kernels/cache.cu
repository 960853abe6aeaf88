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

// Store neighbour id `id` at index `at` of the ids at address `target_at`: 4-byte
// ids, or 3 packed bytes where the address carries cgs::PACKED_IDS_TAG.
__device__ __forceinline__ void store_id(unsigned long long target_at, long long at, int id)
{
  if (target_at & cgs::PACKED_IDS_TAG) {
    unsigned char* bytes = reinterpret_cast<unsigned char*>(target_at ^ cgs::PACKED_IDS_TAG) + 3ll * at;
    bytes[0] = static_cast<unsigned char>(id);
    bytes[1] = static_cast<unsigned char>(id >> 8);
    bytes[2] = static_cast<unsigned char>(id >> 16);
  } else {
    reinterpret_cast<int*>(target_at)[at] = id;
  }
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
  store_id(target_at, target_start[list] + k, cgs::Neighbours{source_at}[source_start[list] + k]);
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
// thread writes the vertex, its former place (chunk * chunk_slots + offset)
// and the entries its copy held at a ticket from tally[0], adds those entries
// to tally[2 + chunk] and, with `words` (the hotness counts) and a list that
// would fit its slots again (0 < degree[v] <= entries held), adds its score
// (the sum of `fields` fields of `field_bits` bits) times the transactions of
// `unit` bytes of one read of its `degree[v]` entries of each non-zero
// itemsize to tally[1].
__global__ void uncache_lists(const long long* ids, long long count, bool* in_cache, int* chunk_id,
                              int* chunk_offset, int* cached_degree, long long chunk_slots, const long long* degree,
                              const unsigned int* words, int fields, int field_bits, long long nbr_itemsize,
                              long long weight_itemsize, long long unit, long long* evicted, long long* places,
                              long long* held_out, unsigned long long* tally)
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
  held_out[at] = held;
  in_cache[v] = false;
  chunk_offset[v] = 0;
  cached_degree[v] = 0;
  atomicAdd(tally + 2 + chunk, static_cast<unsigned long long>(held));
  if (words == nullptr) return;
  unsigned int word = words[v];
  unsigned long long field_max = (1ull << field_bits) - 1, score = 0;
  for (int age = 0; age < fields; ++age) score += (word >> (age * field_bits)) & field_max;
  long long d = degree[v];
  if (d <= 0 || d > held) return;
  unsigned long long reads = (d * nbr_itemsize + unit - 1) / unit + (d * weight_itemsize + unit - 1) / unit;
  if (score && reads) atomicAdd(tally + 1, score * reads);
}

// Put back, in the slots they held, the lists of vertices[0:count] (evicted
// from places[i] with held[i] entries) whose new list fits there: 0 < degree[v]
// <= held[i], in a chunk still held (its address in nbr_pointers not 0).  Each
// such vertex is cached again (its entries copied by copy_to_chunks) and
// written at a ticket from tally[0]; its entries are added to tally[2 +
// chunk] and the host transactions of `unit` bytes that loading it reads (ids,
// and weights of `weight_itemsize` where non-zero) to tally[1].
__global__ void recache_in_place(const long long* vertices, const long long* places, const long long* held,
                                 long long count, const long long* degree, const long long* start,
                                 long long chunk_slots, const unsigned long long* nbr_pointers, bool* in_cache,
                                 int* chunk_id, int* chunk_offset, int* cached_degree, long long weight_itemsize,
                                 long long unit, long long* placed, unsigned long long* tally)
{
  long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i >= count) return;
  long long v = vertices[i], d = degree[v];
  long long chunk = places[i] / chunk_slots;
  if (d <= 0 || d > held[i] || nbr_pointers[chunk] == 0) return;
  in_cache[v] = true;
  chunk_id[v] = static_cast<int>(chunk);
  chunk_offset[v] = static_cast<int>(places[i] % chunk_slots);
  cached_degree[v] = static_cast<int>(d);
  placed[atomicAdd(tally, 1ull)] = v;
  atomicAdd(tally + 2 + chunk, static_cast<unsigned long long>(d));
  long long s = start[v];
  unsigned long long reads = ((s + d) * 4 - 1) / unit - (s * 4) / unit + 1;
  if (weight_itemsize) reads += ((s + d) * weight_itemsize - 1) / unit - (s * weight_itemsize) / unit + 1;
  atomicAdd(tally + 1, reads);
}

// Copy the host lists of vertices[0:count] into their cached places (chunk_id,
// chunk_offset, cached_degree entries), a warp a list: ids through the chunk
// address table (tagged when packed), and with `weights` the weights too.
template <typename T>
__global__ void copy_to_chunks(const long long* vertices, long long count, const long long* start,
                               unsigned long long host_ids_at, const T* host_weights, const int* chunk_id,
                               const int* chunk_offset, const int* cached_degree,
                               const unsigned long long* nbr_pointers, const unsigned long long* wgt_pointers,
                               int weights)
{
  long long warp = (blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x) / 32;
  if (warp >= count) return;
  long long v = vertices[warp];
  int chunk = chunk_id[v];
  long long offset = chunk_offset[v], d = cached_degree[v], s = start[v];
  cgs::Neighbours source{host_ids_at};
  T* target_weights = weights ? reinterpret_cast<T*>(wgt_pointers[chunk]) : nullptr;
  for (long long k = threadIdx.x & 31; k < d; k += 32) {
    store_id(nbr_pointers[chunk], offset + k, source[s + k]);
    if (weights) target_weights[offset + k] = host_weights[s + k];
  }
}
