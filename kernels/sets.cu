// Sets of vertex ids in one launch each: distinct ids, change records and
// sorted lookups (cugraph_stream.backends.gpu).  Distinctness comes from
// per-vertex stamps: a launch owns an epoch (a number no earlier launch used
// since the stamps were last cleared), and the one thread that swaps the
// epoch into a vertex's stamp keeps the vertex, so no stamp is ever cleared.
// Kept ids are appended through one atomic counter (in no particular order).

#include "common.cuh"

// ids that are distinct: out[0:kept] holds each id of ids[0:count] once
// (`id_count`, where not null, holds how many of the `count` ids there are:
// a count an earlier launch left on the device)
__global__ void distinct(const long long* ids, long long count, const unsigned long long* id_count,
                         unsigned int* stamp, unsigned int epoch, long long* out, unsigned long long* kept)
{
  long long k = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (id_count) count = static_cast<long long>(*id_count);
  if (k >= count) return;
  long long v = ids[k];
  if (atomicExch(stamp + v, epoch) != epoch) out[atomicAdd(kept, 1ull)] = v;
}

// The distinct ids of ids[0:count] whose byte in `flag` is set, each once
// (out[0:kept]); their bytes are cleared.  Every flagged vertex must be among
// the ids (a byte map set by a launch over these ids): then the map is clear
// afterwards, at the cost of the ids, not of the whole map.
__global__ void take_flagged_among(const long long* ids, long long count, unsigned char* flag, unsigned int* stamp,
                                   unsigned int epoch, long long* out, unsigned long long* kept)
{
  long long k = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (k >= count) return;
  long long v = ids[k];
  if (flag[v] && atomicExch(stamp + v, epoch) != epoch) {
    flag[v] = 0;
    out[atomicAdd(kept, 1ull)] = v;
  }
}

// The live vertices among ids whose value (or, with `with_parents`, parent)
// differs from its previous record, or every live one where `forced`; the
// previous records then take the current ones.  Ids already stamped with
// this epoch were recorded by this launch or an earlier one of the same epoch.
// Where `log` is not null, each vertex whose records the write changes goes to
// log[] first with what they held (log_value, log_parent; kept[1] counts them:
// a journal's pre-image).
template <typename V>
__global__ void record_changes(const long long* ids, long long count, int forced, unsigned int* stamp,
                               unsigned int epoch, const V* value, const long long* parent, V* previous_value,
                               long long* previous_parent, int with_parents, const bool* alive, long long* out,
                               unsigned long long* kept, long long* log, V* log_value, long long* log_parent)
{
  long long k = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (k >= count) return;
  long long v = ids[k];
  if (atomicExch(stamp + v, epoch) == epoch && !forced) return;
  bool differs = forced || value[v] != previous_value[v] || (with_parents && parent[v] != previous_parent[v]);
  if (log != nullptr && (value[v] != previous_value[v] || parent[v] != previous_parent[v])) {
    unsigned long long at = atomicAdd(kept + 1, 1ull);
    log[at] = v;
    log_value[at] = previous_value[v];
    log_parent[at] = previous_parent[v];
  }
  previous_value[v] = value[v];
  previous_parent[v] = parent[v];
  if (differs && alive[v]) out[atomicAdd(kept, 1ull)] = v;
}

// For each query: the value paired with it in (sorted keys, values), or -1
// where no key equals it (binary search; keys distinct and ascending), or,
// where `values` is null, its entry of the dense map `keys` (cgs::vertex_id); with
// `known` (not null), an earlier result for the same queries, a query it
// holds an id for (>= 0) keeps that id and is not searched for
__global__ void sorted_lookup(const long long* queries, long long count, const long long* keys,
                              const long long* values, long long size, const long long* known, long long* found)
{
  long long k = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (k >= count) return;
  if (known != nullptr && known[k] >= 0) {
    found[k] = known[k];
    return;
  }
  found[k] = cgs::vertex_id(keys, values, size, queries[k]);
}

// Merge two ascending key arrays, with the values paired to them (a stable
// merge: among equal keys, those of the first array come first): each element
// moves to its index plus the number of the other array's keys before it (a
// binary search: below it for the first array's, up to it for the second's),
// one thread per element.
__global__ void merge_sorted(const long long* keys, const long long* values, long long n, const long long* more_keys,
                             const long long* more_values, long long m, long long* out_keys, long long* out_values)
{
  long long t = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (t >= n + m) return;
  bool first = t < n;
  long long i = first ? t : t - n;
  long long key = first ? keys[i] : more_keys[i];
  const long long* other = first ? more_keys : keys;
  long long low = 0, high = first ? m : n;
  while (low < high) {
    long long mid = low + (high - low) / 2;
    if (other[mid] < key || (!first && other[mid] == key)) low = mid + 1;
    else high = mid;
  }
  out_keys[i + low] = key;
  out_values[i + low] = first ? values[i] : more_values[i];
}

// The positions of the set flags of mask[0:count], in order, by one block of
// 1024 threads (a block-wide prefix count per chunk of 1024 flags), and their
// number in kept[0]: the compaction of a small mask in one launch, where a
// library compaction takes a scan, a count read and a scatter.
__global__ void compact_flags(const bool* mask, long long count, long long* out, unsigned long long* kept)
{
  long long base = 0;   // (the same in every thread)
  for (long long start = 0; start < count; start += blockDim.x) {
    long long i = start + threadIdx.x;
    bool flag = i < count && mask[i];
    int total;
    int rank = cgs::block_rank(flag, &total);
    if (flag) out[base + rank] = i;
    base += total;
  }
  if (threadIdx.x == 0) kept[0] = static_cast<unsigned long long>(base);
}

// ---- ordered compactions over many blocks ---------------------------------
// Three launches: blocks of 1024 threads, an item a thread, where the
// counting kernel writes how many items of each block's chunk are kept; one
// block (block_offsets) turning those counts into each chunk's offset, the
// count of the chunks before it; then the writing kernel, as many blocks as
// the first, writing chunk b's kept values from its offset on, in order,
// compacted as compact_flags does; its last block writes their number in
// kept[0].  (Where each block summed the counts before its own, the sums
// grew with the square of the chunks: 60 us for a map of 4M bytes, the
// distinct new ids of a million-row batch at R-MAT 22.)  Two kinds of items:
// RunStarts keeps each value of a sorted array unlike the one before it (the
// distinct values, ascending), SetBytes the position of each set byte of a
// map (the marked ids, ascending).
struct RunStarts {
  const long long* sorted;
  long long count;
  __device__ bool kept(long long i) const { return i < count && (i == 0 || sorted[i] != sorted[i - 1]); }
  __device__ long long value(long long i) const { return sorted[i]; }
};

struct SetBytes {
  const unsigned char* flag;
  long long count;
  __device__ bool kept(long long i) const { return i < count && flag[i] != 0; }
  __device__ long long value(long long i) const { return i; }
};

template <class Items>
__device__ __forceinline__ void count_kept(Items items, long long* block_counts)
{
  long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  int kept = __syncthreads_count(items.kept(i));
  if (threadIdx.x == 0) block_counts[blockIdx.x] = kept;
}

template <class Items>
__device__ __forceinline__ void write_kept(Items items, const long long* block_counts, long long* out,
                                           unsigned long long* kept)
{
  long long base = block_counts[blockIdx.x];
  long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  bool flag = items.kept(i);
  int total;
  int rank = cgs::block_rank(flag, &total);
  if (flag) out[base + rank] = items.value(i);
  if (blockIdx.x == gridDim.x - 1 && threadIdx.x == 0) kept[0] = static_cast<unsigned long long>(base + total);
}

// block_counts[0:chunks], each chunk's count, become each chunk's offset:
// the sum of the counts before it.  One block, blockDim.x chunks at a time.
__global__ void __launch_bounds__(1024) block_offsets(long long* block_counts, long long chunks)
{
  long long carry = 0;   // (the same in every thread)
  for (long long first = 0; first < chunks; first += blockDim.x) {
    long long b = first + threadIdx.x;
    long long total, count = b < chunks ? block_counts[b] : 0;
    long long before = cgs::block_exclusive_sum(count, &total);
    if (b < chunks) block_counts[b] = carry + before;
    carry += total;
  }
}

__global__ void distinct_counts(const long long* sorted, long long count, long long* block_counts)
{
  count_kept(RunStarts{sorted, count}, block_counts);
}

__global__ void distinct_sorted(const long long* sorted, long long count, const long long* block_counts,
                                long long* out, unsigned long long* kept)
{
  write_kept(RunStarts{sorted, count}, block_counts, out, kept);
}

__global__ void set_byte_counts(const unsigned char* flag, long long count, long long* block_counts)
{
  count_kept(SetBytes{flag, count}, block_counts);
}

__global__ void set_byte_positions(const unsigned char* flag, long long count, const long long* block_counts,
                                   long long* out, unsigned long long* kept)
{
  write_kept(SetBytes{flag, count}, block_counts, out, kept);
}

// The range of values[0:count] (count >= 1) in two words that were zero
// before the launch: span[0] the complement of the least value's key and
// span[1] the greatest value's key, where a value's key is its bits with the
// sign bit flipped (unsigned keys order as the signed values do), so that
// both words take an atomic maximum.  Grid-stride; a warp's maxima first.
__global__ void value_range(const long long* values, long long count, unsigned long long* span)
{
  const unsigned long long sign = 0x8000000000000000ull;
  unsigned long long low = 0, high = 0;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    unsigned long long key = static_cast<unsigned long long>(values[i]) ^ sign;
    low = max(low, ~key);
    high = max(high, key);
  }
  for (int offset = 16; offset > 0; offset >>= 1) {
    low = max(low, __shfl_down_sync(0xffffffffu, low, offset));
    high = max(high, __shfl_down_sync(0xffffffffu, high, offset));
  }
  if ((threadIdx.x & 31) == 0) {
    atomicMax(span, low);
    atomicMax(span + 1, high);
  }
}

// flag[values[i]] = 1 for each of values[0:count] (each a valid index of flag)
__global__ void mark_values(const long long* values, long long count, unsigned char* flag)
{
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<long long>(gridDim.x) * blockDim.x)
    flag[values[i]] = 1;
}

// The distinct values of values[0:count] (0 < count <= SORT_BLOCK), ascending,
// in out[0:kept[0]], and the least and the greatest in kept[1] and kept[2]
// (read with the count), by one block of 1024 threads: a bitonic sort in shared
// memory (padded to a power of two with the largest int64, which sorts last
// and is read only below count), then each value unlike the one before it is
// kept, compacted as compact_flags does.  Where a library unique takes a
// sort, a comparison, a concatenation and a count read, this is one launch.
constexpr int SORT_BLOCK = 4096;

__global__ void sorted_distinct_block(const long long* values, long long count, long long* out,
                                      unsigned long long* kept)
{
  __shared__ long long sorted[SORT_BLOCK];
  int size = 1;
  while (size < count) size <<= 1;
  for (int i = threadIdx.x; i < size; i += blockDim.x) sorted[i] = i < count ? values[i] : 0x7FFFFFFFFFFFFFFFll;
  __syncthreads();
  for (int k = 2; k <= size; k <<= 1) {
    for (int j = k >> 1; j > 0; j >>= 1) {
      for (int i = threadIdx.x; i < size; i += blockDim.x) {
        int partner = i ^ j;
        if (partner > i) {
          long long a = sorted[i], b = sorted[partner];
          if ((a > b) == ((i & k) == 0)) {
            sorted[i] = b;
            sorted[partner] = a;
          }
        }
      }
      __syncthreads();
    }
  }
  long long kept_before = 0;   // (the same in every thread)
  for (int start = 0; start < count; start += blockDim.x) {
    int i = start + threadIdx.x;
    bool flag = i < count && (i == 0 || sorted[i] != sorted[i - 1]);
    int total;
    int rank = cgs::block_rank(flag, &total);
    if (flag) out[kept_before + rank] = sorted[i];
    kept_before += total;
  }
  if (threadIdx.x == 0) {
    kept[0] = static_cast<unsigned long long>(kept_before);
    kept[1] = static_cast<unsigned long long>(sorted[0]);
    kept[2] = static_cast<unsigned long long>(sorted[count - 1]);
  }
}

// The vertices of a batch's rows: for each endpoint k (the sources, then the
// destinations, `rows` of each), the internal id paired with its external id
// in (sorted keys, values) or the dense map `keys` (values null; cgs::vertex_id),
// or -1; the external ids not found on insert rows
// (op code `codes[row] == insert`) go to `missing` (repeats kept, in no
// order), `missing_count` counting them (zero before the launch).
__global__ void lookup_rows(const long long* keys, const long long* values, long long size, const long long* src,
                            const long long* dst, const signed char* codes, signed char insert, long long rows,
                            long long* ids, long long* missing, unsigned long long* missing_count)
{
  long long k = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (k >= 2 * rows) return;
  long long row = k < rows ? k : k - rows;
  long long q = k < rows ? src[row] : dst[row];
  long long found = cgs::vertex_id(keys, values, size, q);
  ids[k] = found;
  cgs::append(found < 0 && codes[row] == insert, q, missing, missing_count);   // (an atomic a warp)
}

// The targets v[i] of the arcs u[i] -> v[i] that are their parent arcs
// (parent[v[i]] == u[i]), in no order; `kept` (zero before) counts them.
__global__ void children_of(const long long* parent, const long long* u, const long long* v, long long count,
                            long long* out, unsigned long long* kept)
{
  long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i >= count) return;
  long long child = v[i];
  if (parent[child] == u[i]) out[atomicAdd(kept, 1ull)] = child;
}

// For arcs u[i] -> v[i] read both ways (weak connectivity) whose reverse
// arc is absent (reverse_at[i] < 0): the end whose parent is the other end,
// appended to out in no order; `kept` (zero before) counts them.
__global__ void weak_children_of(const long long* parent, const long long* u, const long long* v,
                                 const long long* reverse_at, long long count, long long* out,
                                 unsigned long long* kept)
{
  long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i >= count || reverse_at[i] >= 0) return;
  long long a = u[i], b = v[i];
  if (parent[b] == a) out[atomicAdd(kept, 1ull)] = b;
  if (parent[a] == b) out[atomicAdd(kept, 1ull)] = a;
}

// The entries of `vertices` whose value is not `unreachable`, in no order;
// `kept` (zero before) counts them.
template <typename V>
__global__ void reached(const V* value, const long long* vertices, long long count, V unreachable, long long* out,
                        unsigned long long* kept)
{
  long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i >= count) return;
  long long v = vertices[i];
  if (value[v] != unreachable) out[atomicAdd(kept, 1ull)] = v;
}

// flag[v] = 1 for each of `vertices` whose value is not `unreachable` (each
// one without `check`): the reached part of a correction's frontier, which
// take_flagged_among then collects with the improved targets.
template <typename V>
__global__ void flag_reached(const V* value, const long long* vertices, long long count, V unreachable, int check,
                             unsigned char* flag)
{
  long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i >= count) return;
  long long v = vertices[i];
  if (!check || value[v] != unreachable) flag[v] = 1;
}

// value[v] = fill and parent[v] = -1 for each of `vertices`, then
// value[source] = source_value (source >= 0): every write to the source
// writes source_value, so no order between threads is needed.
template <typename V>
__global__ void reset_values(V* value, long long* parent, const long long* vertices, long long count, V fill,
                             long long source, V source_value)
{
  long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i == 0 && source >= 0) value[source] = source_value;
  if (i >= count) return;
  long long v = vertices[i];
  value[v] = v == source ? source_value : fill;
  parent[v] = -1;
}

// Enter new vertices (Backend.enter_vertices): vertex i of `count` has the
// external id ids[i] and the internal id reused[i] for i < reuse, else
// first + i - reuse (written to internal[i]); external[] and alive[] record it,
// dense[] (not null) maps it, held_ids/held_internal (not null) take it at
// `at` + i; the pre-images go to old_external, old_alive, old_dense.
__global__ void enter_vertices(const long long* ids, long long count, const long long* reused, long long reuse,
                               long long first, long long* internal, long long* external, bool* alive, int* dense,
                               long long* held_ids, long long* held_internal, long long at, long long* old_external,
                               bool* old_alive, int* old_dense)
{
  long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i >= count) return;
  long long id = ids[i];
  long long v = i < reuse ? reused[i] : first + i - reuse;
  internal[i] = v;
  old_external[i] = external[v];
  old_alive[i] = alive[v];
  external[v] = id;
  alive[v] = true;
  if (dense != nullptr) {
    old_dense[i] = dense[id];
    dense[id] = static_cast<int>(v);
  }
  if (held_ids != nullptr) {
    held_ids[at + i] = id;
    held_internal[at + i] = v;
  }
}
