// Level-synchronous, direction-optimising breadth-first search (Beamer):
// the kernels of Backend.bfs_levels on the GPU.  The host runs the level loop
// (cugraph_stream/backends/base.py) and picks each level's direction from four
// counts these kernels accumulate:
//   counters[0]  end of the queue (the levels, one after another)
//   counters[1]  entries of the out-lists of the vertices found so far
//   counters[2]  entries of their in-lists
//   counters[3]  list entries read so far
// value[] holds hop distances (int32, `unreachable` where no path is known
// yet), parent[] an in-neighbour one level up.  Lists are found through
// per-vertex addresses (the store, in device or pinned host memory, or the
// hot-list cache: cgs::neighbours).
#include "common.cuh"

// Bits of the vertices of the current level, for the bottom-up step (a
// bitmap: 1/32 of the bytes of value[], so hub frontiers stay in L2).
__global__ void bfs_mark_frontier(const long long* queue, long long begin, long long count, unsigned int* bits)
{
  long long k = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (k >= count) return;
  long long v = queue[begin + k];
  atomicOr(bits + (v >> 5), 1u << (v & 31));
}

__device__ __forceinline__ bool in_frontier(const unsigned int* bits, long long u)
{
  return (bits[u >> 5] >> (u & 31)) & 1u;
}

// Top-down: `lanes` consecutive threads (32: a warp; blockDim.x: a block) per
// vertex of queue[begin, begin + count) expand its out-list; an unvisited
// neighbour is claimed by the atomicCAS that moves its value from
// `unreachable` to level + 1, whose thread writes the parent and appends it
// to the queue.  Every thread reaches the final reductions (no early return).
__global__ void bfs_top_down(long long* queue, long long begin, long long count, int lanes,
                             const unsigned long long* out_at, const long long* out_degree,
                             const long long* in_degree, int level, int unreachable, int* value,
                             long long* parent, unsigned long long* counters)
{
  long long t = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  long long k = t / lanes;
  int lane = static_cast<int>(t % lanes);
  unsigned long long found_out = 0, found_in = 0, read = 0;
  if (k < count) {
    long long u = queue[begin + k];
    long long d = out_degree[u];
    if (lane == 0) read = static_cast<unsigned long long>(d);
    const cgs::Neighbours nbr = cgs::neighbours(out_at, u);
    for (long long i = lane; i < d; i += lanes) {
      long long v = nbr[i];
      if (cgs::load_volatile(value + v) != unreachable) continue;
      if (atomicCAS(value + v, unreachable, level + 1) != unreachable) continue;
      parent[v] = u;
      queue[atomicAdd(counters, 1ull)] = v;
      found_out += static_cast<unsigned long long>(out_degree[v]);
      found_in += static_cast<unsigned long long>(in_degree[v]);
    }
  }
  const unsigned long long counts[3] = {found_out, found_in, read};
  cgs::block_count(counts, counters + 1);
}

// Lists of at most this many entries are scanned by their own thread in the
// bottom-up step; longer ones by the whole warp, 32 entries at a time.
#define CGS_BFS_ALONE 16

// Bottom-up: a thread per vertex below `bound`; an unvisited one looks for a
// neighbour in the frontier bitmap along its in-list and stops at the first
// (its parent).  Short lists are read by their thread; a warp reads its
// long lists together, one after another, 32 entries per round, stopping at
// the round that holds a parent (the first lane that found one wins, so the
// entries counted read are those a sequential scan reads).  Found vertices
// take level + 1 and go to the queue (one atomic per block: a step runs over
// every vertex).  Only a vertex's own thread writes its value and parent, so
// no atomics are needed there.
__global__ void bfs_bottom_up(long long bound, const unsigned long long* in_at, const long long* in_degree,
                              const long long* out_degree, const unsigned int* bits, int level, int unreachable,
                              int* value, long long* parent, long long* queue, unsigned long long* counters)
{
  long long v = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  const int lane = threadIdx.x & 31;
  const unsigned int full = 0xffffffffu;
  bool todo = v < bound && value[v] == unreachable;
  long long d = todo ? in_degree[v] : 0;
  long long found = -1;
  unsigned long long read = 0;
  if (todo && d > 0 && d <= CGS_BFS_ALONE) {
    const cgs::Neighbours nbr = cgs::neighbours(in_at, v);
    long long i = 0;
    for (; i < d; ++i) {
      long long u = nbr[i];
      if (in_frontier(bits, u)) {
        found = u;
        break;
      }
    }
    read = static_cast<unsigned long long>(found >= 0 ? i + 1 : d);
  }
  unsigned int long_lists = __ballot_sync(full, todo && d > CGS_BFS_ALONE);
  while (long_lists) {
    int owner = __ffs(long_lists) - 1;
    long_lists &= long_lists - 1;
    long long w = __shfl_sync(full, v, owner);
    long long dw = __shfl_sync(full, d, owner);
    const cgs::Neighbours nbr = cgs::neighbours(in_at, w);
    long long hit = -1, scanned = dw;
    for (long long base = 0; base < dw; base += 32) {
      long long i = base + lane;
      long long u = i < dw ? static_cast<long long>(nbr[i]) : -1;
      unsigned int hits = __ballot_sync(full, u >= 0 && in_frontier(bits, u));
      if (hits) {                               // the same on every lane: the warp leaves together
        int first = __ffs(hits) - 1;
        hit = __shfl_sync(full, u, first);
        scanned = base + first + 1;
        break;
      }
    }
    if (lane == owner) {
      found = hit;
      read = static_cast<unsigned long long>(scanned);
    }
  }
  if (found >= 0) {
    value[v] = level + 1;
    parent[v] = found;
  }
  cgs::block_append(found >= 0 ? 0 : -1, v, queue, queue, queue, counters);
  const unsigned long long counts[3] = {found >= 0 ? static_cast<unsigned long long>(out_degree[v]) : 0ull,
                                        found >= 0 ? static_cast<unsigned long long>(d) : 0ull, read};
  cgs::block_count(counts, counters + 1);
}
