// What the queries read from the adjacency, counted on the device in one
// launch: the reads' costs (cugraph_stream.engine.reads) and the cache's
// hotness counts (cugraph_stream.engine.hotness), together or apart.  The NumPy references are
// Backend.count_reads and Backend.add_to_field in cugraph_stream/backends/base.py.

// Blocks of `unit` bytes (READ_UNIT_BYTES in cugraph_stream/backends/base.py) that `degree`
// items of `itemsize` bytes from item `start` span
__device__ __forceinline__ long long segments(long long start, long long degree, long long itemsize, long long unit)
{
  return degree > 0 ? ((start + degree) * itemsize - 1) / unit - (start * itemsize) / unit + 1 : 0;
}

// Add `a` (at most field_max) to the low field (the bits of field_max) of *word, saturating
// at field_max and keeping the other bits; concurrent additions to one word all count
// (compare-and-swap loop).
__device__ __forceinline__ void add_saturating(unsigned int* word, unsigned int a, unsigned int field_max)
{
  unsigned int old = *word, assumed;
  do {
    assumed = old;
    unsigned int current = assumed & field_max;
    unsigned int next = (assumed ^ current) | (current > field_max - a ? field_max : current + a);
    if (next == assumed) return;                  // saturated already
    old = atomicCAS(word, assumed, next);
  } while (old != assumed);
}

// counts[0:8] += times * (lists read, their entries, host lists, host entries,
// host transactions, cache lists, cache entries, transactions the cache saved)
// over the lists of frontier[0:count].  Ids at or above `cached` are not cached
// (0 without a cache); weight_itemsize 0: the weights are not read.
// With `added` > 0, also add it to the low field of words[v] for every entry v (the
// hotness counts, as add_to_field below does).
// Each thread sums a grid-stride share, each warp its threads', each block its
// warps' (shared atomics), and each block adds its sums to `counts` once.
__global__ void count_reads(const long long* frontier, long long count, const long long* degree,
                            const long long* start, const bool* in_cache, long long cached, long long weight_itemsize,
                            int cached_weights, long long times, long long unit, unsigned long long* counts,
                            unsigned int* words, unsigned int added, unsigned int field_max)
{
  __shared__ unsigned long long block_sums[8];
  if (threadIdx.x < 8) block_sums[threadIdx.x] = 0;
  __syncthreads();
  unsigned long long sums[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    long long v = frontier[i];
    if (added) add_saturating(words + v, added, field_max);
    long long d = degree[v];
    if (d <= 0) continue;
    long long s = start[v];
    bool hit = v < cached && in_cache[v];
    unsigned long long nbr_cost = segments(s, d, 4, unit);
    unsigned long long weight_cost = weight_itemsize ? segments(s, d, weight_itemsize, unit) : 0;
    sums[0] += 1;
    sums[1] += d;
    if (hit) {
      sums[5] += 1;
      sums[6] += d;
      sums[7] += nbr_cost + (cached_weights ? weight_cost : 0);
      if (!cached_weights) sums[4] += weight_cost;
    } else {
      sums[2] += 1;
      sums[3] += d;
      sums[4] += nbr_cost + weight_cost;
    }
  }
#pragma unroll
  for (int k = 0; k < 8; ++k) {
    unsigned long long total = sums[k];
    for (int offset = 16; offset > 0; offset >>= 1) total += __shfl_down_sync(0xffffffffu, total, offset);
    if ((threadIdx.x & 31) == 0 && total) atomicAdd(block_sums + k, total);
  }
  __syncthreads();
  if (threadIdx.x < 8 && block_sums[threadIdx.x]) atomicAdd(counts + threadIdx.x, times * block_sums[threadIdx.x]);
}

// The cache's hotness counts (cugraph_stream.engine.hotness): for each entry i,
// add `added[i]` (or `constant` unless `per_entry`) to the low field (the bits
// of field_max) of words[vertices[i]], saturating at field_max; the other bits
// are kept.  Repeated vertices accumulate through the compare-and-swap loop.
// Every addition is at most field_max.
__global__ void add_to_field(unsigned int* words, const long long* vertices, long long count,
                             const unsigned int* added, int per_entry, unsigned int constant,
                             unsigned int field_max)
{
  long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i >= count) return;
  unsigned int a = per_entry ? added[i] : constant;
  if (a) add_saturating(words + vertices[i], a, field_max);
}
