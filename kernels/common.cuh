// Shared device helpers of the cugraph_stream kernels: relaxation rules,
// atomic min/max for every value type, and the decoupled result/parent update.
#pragma once

namespace cgs {

// ---- relaxation rule codes (cugraph_stream.algorithms.rule.Rule) ----------
enum Extend { EXTEND_ADD = 0, EXTEND_ADD_ONE = 1, EXTEND_MIN = 2, EXTEND_COPY = 3 };
enum Order { ORDER_MIN = 0, ORDER_MAX = 1 };

template <int EXTEND, typename V, typename W>
__device__ __forceinline__ V extend(V value, W weight)
{
  if (EXTEND == EXTEND_ADD) return value + static_cast<V>(weight);
  if (EXTEND == EXTEND_ADD_ONE) return value + static_cast<V>(1);
  if (EXTEND == EXTEND_MIN) return value < static_cast<V>(weight) ? value : static_cast<V>(weight);
  return value;
}

template <int ORDER, typename V>
__device__ __forceinline__ bool better(V a, V b)
{
  return ORDER == ORDER_MIN ? a < b : a > b;
}

// vertex u's list of T (weights) from per-vertex addresses
template <typename T>
__device__ __forceinline__ const T* list(const unsigned long long* at, long long u)
{
  return reinterpret_cast<const T*>(at[u]);
}

// bit of a list address whose neighbour ids are packed in 3 bytes
// (cugraph_stream.chunk_layout.PACKED_IDS_TAG)
constexpr unsigned long long PACKED_IDS_TAG = 1ull << 63;

// A neighbour list: 4-byte ids, or 3-byte ids (little-endian, below 2**24)
// when its address carries PACKED_IDS_TAG (lists in a cache of packed ids).
// A packed id is read from the aligned word holding its first byte and, when
// it reaches into the next word, that word too (so no read passes the list).
struct Neighbours {
  unsigned long long at;

  __device__ __forceinline__ int operator[](long long i) const
  {
    if (!(at & PACKED_IDS_TAG)) return reinterpret_cast<const int*>(at)[i];
    unsigned long long byte = (at ^ PACKED_IDS_TAG) + 3ull * static_cast<unsigned long long>(i);
    const unsigned int* word = reinterpret_cast<const unsigned int*>(byte & ~3ull);
    unsigned int high = (byte & 2ull) ? word[1] : 0u;
    return static_cast<int>(__funnelshift_r(word[0], high, static_cast<unsigned int>(byte & 3ull) * 8u) & 0xFFFFFFu);
  }
};

// vertex u's neighbours from per-vertex addresses
__device__ __forceinline__ Neighbours neighbours(const unsigned long long* at, long long u)
{
  return Neighbours{at[u]};
}

// ---- one-block phases: hub lists set aside for the whole block -----------
#define CGS_BLOCK_LISTS 256   // hub lists one level of a one-block kernel sets aside

// Called by every lane of a warp about to scan list a of vertex u (e
// entries): lane 0 adds e to the block's edge count and, for a list of at
// least block_degree entries, sets (u, a) aside in hub[] (as 2 * u + a) for
// the whole block.  Returns, on every lane, whether the list was set aside
// (when hub[] is full the warp scans the list itself).
__device__ __forceinline__ bool set_hub_aside(long long u, int a, long long e, long long block_degree, int lane,
                                              unsigned long long* edges, int* hubs, long long* hub)
{
  int slot = -1;
  if (lane == 0) {
    atomicAdd(edges, static_cast<unsigned long long>(e));
    if (e >= block_degree) {
      slot = atomicAdd(hubs, 1);
      if (slot < CGS_BLOCK_LISTS) hub[slot] = 2 * u + a;
    }
  }
  slot = __shfl_sync(0xffffffffu, slot, 0);
  return slot >= 0 && slot < CGS_BLOCK_LISTS;
}

// Marks in `invalid` and appends to `found` (at an atomically claimed end,
// `tail`) the children x of u (parent[x] == u) among the entries begin,
// begin + step, ... of u's list (`nbr`, `e` entries) not yet marked (a vertex
// has one parent, so only one thread can match and mark it).
__device__ __forceinline__ void invalidate_list(long long u, long long begin, int step, Neighbours nbr, long long e,
                                                const long long* parent, unsigned char* invalid, long long* found,
                                                unsigned long long* tail)
{
  for (long long i = begin; i < e; i += step) {
    long long x = nbr[i];
    if (parent[x] == u && !invalid[x]) {
      invalid[x] = 1;
      found[atomicAdd(tail, 1ull)] = x;
    }
  }
}

// ---- a barrier of the whole grid ------------------------------------------
// For kernels launched with at most as many blocks as the device runs at
// once (one block per multiprocessor: every block is resident, since the
// stream runs nothing beside them), so that a level-synchronous loop runs
// to its end in one launch.  `sync` = {arrived, generation}, zero before the
// launch.  Every thread of every block calls grid_sync; thread 0 of the
// block that arrives last runs `last()` first (it sees every block's writes
// made before the barrier) and then releases the others.  A wait longer than
// GRID_SYNC_CYCLES (a broken assumption: a block that never started) sets
// fault bit `fault` and returns false on that block instead of hanging the
// device.
constexpr long long GRID_SYNC_CYCLES = 1ll << 33;   // about 5 s

template <typename Last>
__device__ __forceinline__ bool grid_sync(unsigned int* sync, Last last, unsigned int* faults, unsigned int fault)
{
  __shared__ int timed_out;
  __syncthreads();
  if (threadIdx.x == 0) {
    timed_out = 0;
    volatile unsigned int* generation = sync + 1;
    unsigned int seen = *generation;      // cannot move before this block arrives
    __threadfence();
    if (atomicAdd(sync, 1u) == gridDim.x - 1) {
      last();
      *reinterpret_cast<volatile unsigned int*>(sync) = 0;
      __threadfence();
      atomicAdd(sync + 1, 1u);
    } else {
      long long start = clock64();
      while (*generation == seen) {
        if (clock64() - start > GRID_SYNC_CYCLES) {
          atomicOr(faults, fault);
          timed_out = 1;
          break;
        }
      }
      __threadfence();
    }
  }
  __syncthreads();
  return !timed_out;
}

// Sets byte v of a byte map to 1 through the aligned word holding it;
// returns whether this call set it (a test-and-set of one byte).
__device__ __forceinline__ bool mark_byte(unsigned char* map, long long v)
{
  unsigned int* word = reinterpret_cast<unsigned int*>(map + (v & ~3ll));
  unsigned int bit = 1u << (8 * (v & 3));
  return !(atomicOr(word, bit) & bit);
}

// ---- level-synchronous expansion over the whole grid ----------------------
// Lanes that call it together (the lanes of a warp still in a loop) append
// the items they push to `queue` with one atomic on control[0], the count
// appended so far.
__device__ __forceinline__ void append(bool push, long long item, long long* queue, unsigned long long* control)
{
  const unsigned int lane = threadIdx.x & 31;
  unsigned int mask = __activemask();
  unsigned int pushing = __ballot_sync(mask, push);
  if (pushing == 0) return;
  int leader = __ffs(pushing) - 1;
  unsigned long long base = 0;
  if (lane == static_cast<unsigned int>(leader)) base = atomicAdd(control, static_cast<unsigned long long>(__popc(pushing)));
  base = __shfl_sync(mask, base, leader);
  if (push) queue[static_cast<long long>(base) + __popc(pushing & ((1u << lane) - 1u))] = item;
}

// Expand the levels queue[begin, end) level after level on the whole grid
// (one block per multiprocessor, see grid_sync), each level appending the
// next after the queue's end with append(), until a level is empty or the
// queue passes `limit` entries.  visit(u, a, first, step, e, level) scans
// entries first, first + step, ... of list a (of e entries) of vertex u.
// Each warp takes the next vertex of the level and scans its lists; lists of
// at least `block_degree` entries (hubs) are set aside, up to `hub_limit` a
// level in `hub` (as 2 * u + a; beyond that the warp scans them), and
// scanned by whole blocks after a grid barrier; a second barrier ends the
// level.  control (zero before the launch): [0] entries appended, [1] hubs
// set aside, [2] edges, [3] and [4] the last arriving block's snapshots of
// [0] and [1], [5] the barrier's words; at the end [6] = end of the expanded
// levels, [7] = end of the queue (the levels after [6] are the ones left),
// [8] = edges read (the lengths of the lists scanned), [9] = levels.
template <typename Visit>
__device__ __forceinline__ void grid_levels(long long* queue, long long begin, long long end, long long limit,
                                            long long block_degree, const long long* degree0,
                                            const long long* degree1, int adjacencies, long long* hub,
                                            long long hub_limit, unsigned long long* control,
                                            unsigned int* faults, unsigned int fault, Visit visit)
{
  __shared__ long long level_begin, level_end, hubs;
  __shared__ unsigned long long block_edges;
  volatile unsigned long long* now = control;     // (what other blocks wrote: no cached copy)
  unsigned int* sync = reinterpret_cast<unsigned int*>(control + 5);
  if (threadIdx.x == 0) {
    level_begin = begin;
    level_end = end;
    block_edges = 0;
  }
  __syncthreads();
  const int lane = threadIdx.x & 31;
  const long long warps = static_cast<long long>(gridDim.x) * (blockDim.x / 32);
  const long long warp = blockIdx.x * static_cast<long long>(blockDim.x / 32) + threadIdx.x / 32;
  unsigned long long edges = 0;            // lane 0's count
  unsigned int level = 0;
  while (level_begin < level_end && level_end <= limit) {
    for (long long k = level_begin + warp; k < level_end; k += warps) {
      long long u = __ldcg(queue + k);
      for (int a = 0; a < adjacencies; ++a) {
        long long e = (a ? degree1 : degree0)[u];
        long long slot = -1;
        if (lane == 0) {
          edges += static_cast<unsigned long long>(e);
          if (e >= block_degree) slot = static_cast<long long>(atomicAdd(control + 1, 1ull));
        }
        slot = __shfl_sync(0xffffffffu, slot, 0);
        if (slot >= 0 && slot < hub_limit) {
          if (lane == 0) hub[slot] = 2 * u + a;
        } else {
          visit(u, a, static_cast<long long>(lane), 32, e, level);
        }
      }
    }
    if (!grid_sync(sync, [&] { now[4] = now[1]; }, faults, fault)) break;
    if (threadIdx.x == 0) {
      long long held = static_cast<long long>(now[4]);
      hubs = held < hub_limit ? held : hub_limit;
    }
    __syncthreads();
    for (long long h = blockIdx.x; h < hubs; h += gridDim.x) {
      long long x = __ldcg(hub + h);
      long long u = x / 2;
      int a = static_cast<int>(x % 2);
      visit(u, a, static_cast<long long>(threadIdx.x), static_cast<int>(blockDim.x), (a ? degree1 : degree0)[u],
            level);
    }
    if (!grid_sync(sync, [&] {
          now[3] = now[0];
          now[1] = 0;
        }, faults, fault)) break;
    if (threadIdx.x == 0) {
      level_begin = level_end;
      level_end = end + static_cast<long long>(now[3]);
    }
    ++level;
    __syncthreads();
  }
  if (lane == 0 && edges) atomicAdd(&block_edges, edges);
  __syncthreads();
  if (threadIdx.x == 0 && block_edges) atomicAdd(control + 2, block_edges);
  grid_sync(sync, [&] {
    now[6] = static_cast<unsigned long long>(level_begin);
    now[7] = static_cast<unsigned long long>(level_end);
    now[8] = now[2];
    now[9] = level;
  }, faults, fault);
}

// ---- binning and counting items with one atomic per block and bin ----------
// Kernels over millions of items (every vertex, a whole frontier) append
// each item to one of three bins (bin -1: none) and add up counts.  One
// atomic per warp serialised on the few counters (bin_gather_lists over the
// 2.4M vertices of R-MAT 2^22 took 0.23 ms on a lent H200, about 300,000
// atomics on four counters), so the block's warps add theirs up first.
// Every thread of the block calls these (they synchronise the block, also
// on entry, so calls may follow each other); blockDim.x is a multiple of 32,
// at most 1024.  counters[b] is bin b's size; slots go to warps in order and
// to lanes in order within a warp.

__device__ __forceinline__ void block_append(int bin, long long item, long long* bin0, long long* bin1,
                                             long long* bin2, unsigned long long* counters)
{
  __shared__ unsigned int before[3][32];          // per bin: the block's items in the warps before
  __shared__ unsigned long long base[3];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  __syncthreads();
  unsigned int members[3];
#pragma unroll
  for (int b = 0; b < 3; ++b) {
    members[b] = __ballot_sync(0xffffffffu, bin == b);
    if (lane == 0) before[b][warp] = __popc(members[b]);
  }
  __syncthreads();
  if (threadIdx.x < 3) {
    const int b = threadIdx.x;
    unsigned int total = 0;
    for (int w = 0; w < static_cast<int>(blockDim.x >> 5); ++w) {
      unsigned int here = before[b][w];
      before[b][w] = total;
      total += here;
    }
    base[b] = total ? atomicAdd(counters + b, static_cast<unsigned long long>(total)) : 0ull;
  }
  __syncthreads();
  if (bin >= 0 && bin < 3) {
    unsigned int mine = bin == 0 ? members[0] : (bin == 1 ? members[1] : members[2]);
    long long* out = bin == 0 ? bin0 : (bin == 1 ? bin1 : bin2);
    out[base[bin] + before[bin][warp] + __popc(mine & ((1u << lane) - 1u))] = item;
  }
}

// Adds the block's count[n] to total[n], n < N, with one atomic each.
template <int N>
__device__ __forceinline__ void block_count(const unsigned long long (&count)[N], unsigned long long* total)
{
  __shared__ unsigned long long partial[N][32];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  __syncthreads();
#pragma unroll
  for (int n = 0; n < N; ++n) {
    unsigned long long c = count[n];
    for (int offset = 16; offset > 0; offset >>= 1) c += __shfl_down_sync(0xffffffffu, c, offset);
    if (lane == 0) partial[n][warp] = c;
  }
  __syncthreads();
  if (threadIdx.x < N) {
    unsigned long long sum = 0;
    for (int w = 0; w < static_cast<int>(blockDim.x >> 5); ++w) sum += partial[threadIdx.x][w];
    if (sum) atomicAdd(total + threadIdx.x, sum);
  }
}

template <typename V>
__device__ __forceinline__ V load_volatile(const V* p)
{
  return *reinterpret_cast<const volatile V*>(p);
}

// One level of a one-block invalidation (invalidate_block, keep_ties_block):
// the children of found[begin:end) (with `only_marked`, of those still marked
// in `invalid`) in each adjacency (`nbr_at0`/`degree0`, and with two
// `nbr_at1`/`degree1`) are marked and appended at `tail`, a warp per list of
// fewer than `block_degree` entries, the whole block per longer one (set
// aside in `hub`, `hubs` of them; the caller clears `hubs` between levels);
// `edges` counts the entries read.  Every thread of the block calls it; it
// synchronises the block before it returns.
__device__ __forceinline__ void invalidate_level(long long* found, long long begin, long long end, bool only_marked,
                                                 long long block_degree, const unsigned long long* nbr_at0,
                                                 const long long* degree0, const unsigned long long* nbr_at1,
                                                 const long long* degree1, int adjacencies, const long long* parent,
                                                 unsigned char* invalid, unsigned long long* tail,
                                                 unsigned long long* edges, int* hubs, long long* hub)
{
  const int lane = threadIdx.x & 31, warp = threadIdx.x / 32, warps = blockDim.x / 32;
  for (long long k = begin + warp; k < end; k += warps) {
    long long u = found[k];
    if (only_marked && !load_volatile(invalid + u)) continue;   // (the whole warp: u is the warp's)
    for (int a = 0; a < adjacencies; ++a) {
      long long e = (a ? degree1 : degree0)[u];
      if (!set_hub_aside(u, a, e, block_degree, lane, edges, hubs, hub))
        invalidate_list(u, lane, 32, neighbours(a ? nbr_at1 : nbr_at0, u), e, parent, invalid, found, tail);
      __syncwarp();   // with two adjacencies, x may be u's child in both: see the first mark
    }
  }
  __syncthreads();
  for (int h = 0, held = min(*hubs, CGS_BLOCK_LISTS); h < held; ++h) {
    long long u = hub[h] / 2;
    int a = static_cast<int>(hub[h] % 2);
    invalidate_list(u, threadIdx.x, blockDim.x, neighbours(a ? nbr_at1 : nbr_at0, u), (a ? degree1 : degree0)[u],
                    parent, invalid, found, tail);
    __syncthreads();   // a child found through both of u's lists is marked once
  }
  __syncthreads();
}

// ---- ordered compaction within a block ------------------------------------
// The rank of the calling thread's flag among the block's set flags, in
// thread order (a ballot per warp, then an exclusive scan of the warps'
// counts), and in *total how many are set.  Every thread of the block calls
// it (blockDim.x a multiple of 32); it synchronises the block, also before it
// returns, so calls may follow each other.
__device__ __forceinline__ int block_rank(bool flag, int* total)
{
  __shared__ int warp_sums[33];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  unsigned int ballot = __ballot_sync(0xffffffffu, flag);
  int before_in_warp = __popc(ballot & ((1u << lane) - 1u));
  if (lane == 0) warp_sums[warp] = __popc(ballot);
  __syncthreads();
  if (warp == 0) {   // exclusive scan of the warp counts; the total after them
    int s = lane < static_cast<int>(blockDim.x >> 5) ? warp_sums[lane] : 0;
    int inclusive = s;
    for (int d = 1; d < 32; d <<= 1) {
      int up = __shfl_up_sync(0xffffffffu, inclusive, d);
      if (lane >= d) inclusive += up;
    }
    warp_sums[lane] = inclusive - s;
    if (lane == 31) warp_sums[32] = inclusive;
  }
  __syncthreads();
  int rank = warp_sums[warp] + before_in_warp;
  *total = warp_sums[32];
  __syncthreads();
  return rank;
}

// ---- offsets of earlier blocks' results, for multi-block scans ----------
// A scan over more items than a block holds runs in three launches: one
// writes each block's total, one block turns the totals into each block's
// offset (block_offsets, kernels/sets.cu), and the last has block b start
// from its offset.  This is the exclusive sum of the calling thread's `value`
// over the block's threads, in thread order (warp shuffles, then an exclusive
// scan of the warps' sums), and in *total the sum of all; every thread of the
// block calls it (blockDim.x a multiple of 32).  It synchronises the block,
// also before it returns, so calls may follow each other.
__device__ __forceinline__ long long block_exclusive_sum(long long value, long long* total)
{
  __shared__ long long warp_sums[33];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  long long inclusive = value;
  for (int d = 1; d < 32; d <<= 1) {
    long long up = __shfl_up_sync(0xffffffffu, inclusive, d);
    if (lane >= d) inclusive += up;
  }
  if (lane == 31) warp_sums[warp] = inclusive;
  __syncthreads();
  if (warp == 0) {   // exclusive scan of the warps' sums; the total after them
    long long s = lane < static_cast<int>(blockDim.x >> 5) ? warp_sums[lane] : 0;
    long long warp_inclusive = s;
    for (int d = 1; d < 32; d <<= 1) {
      long long up = __shfl_up_sync(0xffffffffu, warp_inclusive, d);
      if (lane >= d) warp_inclusive += up;
    }
    warp_sums[lane] = warp_inclusive - s;
    if (lane == 31) warp_sums[32] = warp_inclusive;
  }
  __syncthreads();
  long long before = warp_sums[warp] + inclusive - value;
  *total = warp_sums[32];
  __syncthreads();
  return before;
}

// ---- sorted lookup ----------------------------------------------------------
// The value paired with key q in (keys, values), `size` of them, the keys
// distinct and ascending (binary search); -1 where no key equals q.
__device__ __forceinline__ long long sorted_value(const long long* keys, const long long* values, long long size,
                                                  long long q)
{
  long long low = 0, high = size;
  while (low < high) {
    long long mid = low + (high - low) / 2;
    if (keys[mid] < q) low = mid + 1;
    else high = mid;
  }
  return (low < size && keys[low] == q) ? values[low] : -1;
}

// The internal id of the vertex whose external id is q, or -1 where none
// has it, from either of a vertex table's lookups (VertexTable.lookup_index):
// its sorted pair (`keys` ascending, `values` their internal ids: a binary
// search) or, where `values` is null, its dense map (`keys` then points at
// `size` int32 internal ids indexed by external id, -1 for none: one read).
__device__ __forceinline__ long long vertex_id(const long long* keys, const long long* values, long long size,
                                               long long q)
{
  if (values != nullptr) return sorted_value(keys, values, size, q);
  return q >= 0 && q < size ? static_cast<long long>(reinterpret_cast<const int*>(keys)[q]) : -1;
}

// ---- atomic best (min or max); returns the value held before -------------
template <int ORDER>
__device__ __forceinline__ int atomic_best(int* p, int v)
{
  return ORDER == ORDER_MIN ? atomicMin(p, v) : atomicMax(p, v);
}

template <int ORDER>
__device__ __forceinline__ long long atomic_best(long long* p, long long v)
{
  return ORDER == ORDER_MIN ? atomicMin(p, v) : atomicMax(p, v);
}

template <int ORDER>
__device__ __forceinline__ float atomic_best(float* p, float v)
{
  int* bits = reinterpret_cast<int*>(p);
  int seen = *reinterpret_cast<volatile int*>(bits);
  while (better<ORDER>(v, __int_as_float(seen))) {
    int was = atomicCAS(bits, seen, __float_as_int(v));
    if (was == seen) break;
    seen = was;
  }
  return __int_as_float(seen);
}

template <int ORDER>
__device__ __forceinline__ double atomic_best(double* p, double v)
{
  unsigned long long* bits = reinterpret_cast<unsigned long long*>(p);
  unsigned long long seen = *reinterpret_cast<volatile unsigned long long*>(bits);
  while (better<ORDER>(v, __longlong_as_double(static_cast<long long>(seen)))) {
    unsigned long long was = atomicCAS(bits, seen, static_cast<unsigned long long>(__double_as_longlong(v)));
    if (was == seen) break;
    seen = was;
  }
  return __longlong_as_double(static_cast<long long>(seen));
}

// ---- decoupled result/parent update (Grapin, Algorithm 1) ----------------
// The result is improved with one atomic; the parent follows by a CAS loop
// that gives up as soon as the result no longer holds this candidate (a
// better one arrived, whose writer owns the parent).  Returns true when the
// candidate improved the result (the vertex becomes active).
template <int ORDER, typename V>
__device__ __forceinline__ bool improve(V* value, long long* parent, long long v, long long u, V candidate)
{
  if (!better<ORDER>(candidate, load_volatile(value + v))) return false;
  V before = atomic_best<ORDER>(value + v, candidate);
  if (!better<ORDER>(candidate, before)) return false;
  __threadfence();
  unsigned long long* slot = reinterpret_cast<unsigned long long*>(parent + v);
  while (true) {
    unsigned long long held = *reinterpret_cast<volatile unsigned long long*>(slot);
    // order the two loads: if `held` shows another writer's parent, the
    // value read next shows that writer's result (it fenced between them)
    __threadfence();
    if (load_volatile(value + v) != candidate) break;
    if (atomicCAS(slot, held, static_cast<unsigned long long>(u)) == held) break;
  }
  return true;
}

}  // namespace cgs
