// Push values along edges (advance), with degree-aware scheduling
// (Grapin, Algorithm 2): the launcher splits a large frontier by degree and
// runs a thread, a warp or a block per vertex (a small frontier goes in one
// launch, a block per vertex).  Improved vertices are marked in a
// byte map (Grus's bitmap-directed frontier); the next frontier is its
// compaction, so no atomics enqueue and no vertex appears twice.
#include "common.cuh"

using cgs::improve;

// Split a frontier by degree into the three schedules (one atomic counter
// each) and count the edges the step will read (counters[3]), so the host
// learns all four sizes with a single copy.
__global__ void bin_by_degree(const long long* frontier, long long count, const long long* degree,
                              long long small_limit, long long large_limit, long long* small, long long* medium,
                              long long* large, unsigned long long* counters)
{
  long long k = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (k >= count) return;
  long long u = frontier[k];
  long long d = degree[u];
  if (d == 0) return;
  atomicAdd(counters + 3, static_cast<unsigned long long>(d));
  if (d < small_limit) small[atomicAdd(counters, 1ull)] = u;
  else if (d < large_limit) medium[atomicAdd(counters + 1, 1ull)] = u;
  else large[atomicAdd(counters + 2, 1ull)] = u;
}

template <typename V, typename W, int EXTEND, int ORDER>
__device__ __forceinline__ void relax_range(long long u, V from, long long begin, long long end, int step,
                                            const int* nbr, const W* wgt, V* value, long long* parent,
                                            unsigned char* improved)
{
  for (long long i = begin; i < end; i += step) {
    long long v = nbr[i];
    if (improve<ORDER>(value, parent, v, u, cgs::extend<EXTEND>(from, wgt[i]))) improved[v] = 1;
  }
}

// one thread per vertex (small degrees)
template <typename V, typename W, int EXTEND, int ORDER>
__global__ void relax_thread(const long long* frontier, long long count, const long long* start,
                             const long long* degree, const int* nbr, const W* wgt, V* value,
                             long long* parent, unsigned char* improved)
{
  long long k = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (k >= count) return;
  long long u = frontier[k];
  long long s = start[u];
  relax_range<V, W, EXTEND, ORDER>(u, cgs::load_volatile(value + u), s, s + degree[u], 1, nbr, wgt, value,
                                   parent, improved);
}

// one warp per vertex (medium degrees)
template <typename V, typename W, int EXTEND, int ORDER>
__global__ void relax_warp(const long long* frontier, long long count, const long long* start,
                           const long long* degree, const int* nbr, const W* wgt, V* value, long long* parent,
                           unsigned char* improved)
{
  long long k = (blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x) / 32;
  if (k >= count) return;
  int lane = threadIdx.x & 31;
  long long u = frontier[k];
  long long s = start[u];
  relax_range<V, W, EXTEND, ORDER>(u, cgs::load_volatile(value + u), s + lane, s + degree[u], 32, nbr, wgt,
                                   value, parent, improved);
}

// one block per vertex (hubs; or a whole small frontier at once, skipping
// the binning round trip); `edges` accumulates the edges read
template <typename V, typename W, int EXTEND, int ORDER>
__global__ void relax_block(const long long* frontier, long long count, const long long* start,
                            const long long* degree, const int* nbr, const W* wgt, V* value, long long* parent,
                            unsigned char* improved, unsigned long long* edges)
{
  long long u = frontier[blockIdx.x];
  long long s = start[u], d = degree[u];
  if (threadIdx.x == 0 && d) atomicAdd(edges, static_cast<unsigned long long>(d));
  relax_range<V, W, EXTEND, ORDER>(u, cgs::load_volatile(value + u), s + threadIdx.x, s + d,
                                   blockDim.x, nbr, wgt, value, parent, improved);
}

// one thread per given arc u -> v (inserted or improved edges); sources
// holding `unreachable` send nothing when `check` is set
template <typename V, typename W, int EXTEND, int ORDER>
__global__ void relax_arcs(const long long* src, const long long* dst, const W* wgt, long long count,
                           V* value, long long* parent, unsigned char* improved, V unreachable, int check)
{
  long long k = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (k >= count) return;
  long long u = src[k];
  V from = cgs::load_volatile(value + u);
  if (check && from == unreachable) return;
  long long v = dst[k];
  if (improve<ORDER>(value, parent, v, u, cgs::extend<EXTEND>(from, wgt[k]))) improved[v] = 1;
}

// one warp per target: re-seed invalidated vertices from their neighbours
// in the given (in-)adjacency
template <typename V, typename W, int EXTEND, int ORDER>
__global__ void pull_warp(const long long* targets, long long count, const long long* start,
                          const long long* degree, const int* nbr, const W* wgt, V* value, long long* parent,
                          V unreachable, int check)
{
  long long k = (blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x) / 32;
  if (k >= count) return;
  int lane = threadIdx.x & 31;
  long long v = targets[k];
  long long s = start[v], e = s + degree[v];
  for (long long i = s + lane; i < e; i += 32) {
    long long u = nbr[i];
    V from = cgs::load_volatile(value + u);
    if (check && from == unreachable) continue;
    improve<ORDER>(value, parent, v, u, cgs::extend<EXTEND>(from, wgt[i]));
  }
}

// A whole push phase in one block (small incremental updates): levels of a
// queue are relaxed in turn, with __syncthreads() between them, so no level
// costs a launch or a host round trip.  queue[0:count) holds the first
// frontier; each level appends the vertices it improved (deduplicated through
// `queued`, an int map kept zero between calls).  The block stops early,
// handing the rest to the per-step launches, before a level would be wider
// than `level_limit` or the queue would pass `queue_limit` entries (the queue
// holds `queue_limit` plus one entry per vertex, so a level always fits).
// out[0] = end of the relaxed levels, out[1] = end of the queue (the levels
// after out[0] are the frontier left), out[2] = edges read.
template <typename V, typename W, int EXTEND, int ORDER>
__global__ void converge_block(long long* queue, long long count, long long queue_limit, long long level_limit,
                               const long long* start0, const long long* degree0, const int* nbr0, const W* wgt0,
                               const long long* start1, const long long* degree1, const int* nbr1, const W* wgt1,
                               int adjacencies, V* value, long long* parent, int* queued, unsigned long long* out)
{
  __shared__ long long level_begin, level_end;
  __shared__ unsigned long long tail, edges;
  __shared__ int stop;
  if (threadIdx.x == 0) {
    level_begin = 0;
    level_end = count;
    tail = count;
    edges = 0;
    stop = 0;
  }
  __syncthreads();
  const int lane = threadIdx.x & 31, warp = threadIdx.x / 32, warps = blockDim.x / 32;
  while (level_begin < level_end && !stop) {
    for (long long k = level_begin + warp; k < level_end; k += warps) {
      long long u = queue[k];
      V from = cgs::load_volatile(value + u);
      for (int a = 0; a < adjacencies; ++a) {
        const long long* start = a ? start1 : start0;
        const long long* degree = a ? degree1 : degree0;
        const int* nbr = a ? nbr1 : nbr0;
        const W* wgt = a ? wgt1 : wgt0;
        long long s = start[u], e = s + degree[u];
        if (lane == 0) atomicAdd(&edges, static_cast<unsigned long long>(e - s));
        for (long long i = s + lane; i < e; i += 32) {
          long long v = nbr[i];
          bool better = improve<ORDER>(value, parent, v, u, cgs::extend<EXTEND>(from, wgt[i]));
          if (better && atomicCAS(queued + v, 0, 1) == 0) queue[atomicAdd(&tail, 1ull)] = v;
        }
      }
    }
    __syncthreads();
    long long next_end = static_cast<long long>(tail);
    for (long long k = level_end + threadIdx.x; k < next_end; k += blockDim.x) queued[queue[k]] = 0;
    __syncthreads();
    if (threadIdx.x == 0) {
      level_begin = level_end;
      level_end = next_end;
      stop = next_end - level_begin > level_limit || next_end > queue_limit;
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    out[0] = static_cast<unsigned long long>(level_begin);
    out[1] = static_cast<unsigned long long>(level_end);
    out[2] = edges;
  }
}
