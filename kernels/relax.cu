// Push values along edges (advance), with degree-aware scheduling
// (Grapin, Algorithm 2): the launcher splits the frontier by degree and runs
// a thread, a warp or a block per vertex.  Improved vertices are marked in a
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

// one block per vertex (hubs)
template <typename V, typename W, int EXTEND, int ORDER>
__global__ void relax_block(const long long* frontier, long long count, const long long* start,
                            const long long* degree, const int* nbr, const W* wgt, V* value, long long* parent,
                            unsigned char* improved)
{
  long long u = frontier[blockIdx.x];
  long long s = start[u];
  relax_range<V, W, EXTEND, ORDER>(u, cgs::load_volatile(value + u), s + threadIdx.x, s + degree[u],
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
