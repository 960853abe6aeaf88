#include "common.cuh"

// Forward push of PageRank residuals, one warp per active vertex u: lane 0
// moves amount[k] from u's residual into its rank (others may be adding to
// that residual concurrently, hence the atomic), and the warp sends
// alpha * amount / degree to every out-neighbour's residual.
__global__ void pagerank_push(const long long* active, const double* amount, long long count,
                              const unsigned long long* nbr_at, const long long* degree, double* rank,
                              double* residual, double alpha, unsigned char* received)
{
  long long k = (blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x) / 32;
  if (k >= count) return;
  int lane = threadIdx.x & 31;
  long long u = active[k];
  double a = amount[k];
  if (lane == 0) {
    rank[u] += a;
    atomicAdd(residual + u, -a);
  }
  long long d = degree[u];
  if (d == 0) return;
  double share = alpha * a / static_cast<double>(d);
  const cgs::Neighbours nbr = cgs::neighbours(nbr_at, u);
  for (long long i = lane; i < d; i += 32) {
    long long v = nbr[i];
    atomicAdd(residual + v, share);
    received[v] = 1;
  }
}

// Pull-based product over the lists of vertices[k], no atomics: sums[k] =
// sum of values[nbr] over the list of vertices[k].  bin_gather_lists sorts the
// positions k once per plan by how their list is best read: a thread per
// short list held in GPU memory (or of one entry), a warp per other list
// under large_limit entries, a block per longer one (a hub's list is not
// read by one warp alone).  Each sum is reduced in a fixed order: results
// do not depend on scheduling.

// Positions k into small / medium / large (counters[0..2] count them,
// counters[3] the entries of every list).  A list is in GPU memory when
// on_device is set (device placement) or in_cache[v] (v < cached).
__global__ void bin_gather_lists(const long long* vertices, long long count, const long long* degree,
                                 const bool* in_cache, long long cached, int on_device, long long small_limit,
                                 long long large_limit, long long* small, long long* medium, long long* large,
                                 unsigned long long* counters)
{
  long long k = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (k >= count) return;
  long long v = vertices[k];
  long long e = degree[v];
  atomicAdd(counters + 3, static_cast<unsigned long long>(e));
  bool resident = on_device || (v < cached && in_cache[v]);
  if (e <= 1 || (resident && e < small_limit)) small[atomicAdd(counters, 1ull)] = k;
  else if (e < large_limit) medium[atomicAdd(counters + 1, 1ull)] = k;
  else large[atomicAdd(counters + 2, 1ull)] = k;
}

// One thread per list of positions[j].
__global__ void gather_sum_thread(const long long* positions, long long count, const long long* vertices,
                                  const unsigned long long* nbr_at, const long long* degree, const double* values,
                                  double* sums)
{
  long long j = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (j >= count) return;
  long long k = positions[j];
  long long v = vertices[k];
  const cgs::Neighbours nbr = cgs::neighbours(nbr_at, v);
  double total = 0.0;
#pragma unroll 4
  for (long long i = 0, e = degree[v]; i < e; ++i) total += values[nbr[i]];
  sums[k] = total;
}

// One warp per list of positions[j].
__global__ void gather_sum_warp(const long long* positions, long long count, const long long* vertices,
                                const unsigned long long* nbr_at, const long long* degree, const double* values,
                                double* sums)
{
  long long j = (blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x) / 32;
  if (j >= count) return;
  int lane = threadIdx.x & 31;
  long long k = positions[j];
  long long v = vertices[k];
  const cgs::Neighbours nbr = cgs::neighbours(nbr_at, v);
  double total = 0.0;
#pragma unroll 4
  for (long long i = lane, e = degree[v]; i < e; i += 32) total += values[nbr[i]];
  for (int offset = 16; offset > 0; offset >>= 1) total += __shfl_down_sync(0xffffffffu, total, offset);
  if (lane == 0) sums[k] = total;
}

// One block per list of positions[b]: the block's threads stride the list,
// then reduce through shared memory (blockDim.x a multiple of 32, at most 1024).
__global__ void gather_sum_block(const long long* positions, const long long* vertices,
                                 const unsigned long long* nbr_at, const long long* degree, const double* values,
                                 double* sums)
{
  __shared__ double partial[32];
  long long k = positions[blockIdx.x];
  long long v = vertices[k];
  const cgs::Neighbours nbr = cgs::neighbours(nbr_at, v);
  double total = 0.0;
#pragma unroll 4
  for (long long i = threadIdx.x, e = degree[v]; i < e; i += blockDim.x) total += values[nbr[i]];
  for (int offset = 16; offset > 0; offset >>= 1) total += __shfl_down_sync(0xffffffffu, total, offset);
  int warp = threadIdx.x / 32, lane = threadIdx.x & 31;
  if (lane == 0) partial[warp] = total;
  __syncthreads();
  if (warp == 0) {
    int warps = blockDim.x / 32;
    total = lane < warps ? partial[lane] : 0.0;
    for (int offset = 16; offset > 0; offset >>= 1) total += __shfl_down_sync(0xffffffffu, total, offset);
    if (lane == 0) sums[k] = total;
  }
}
