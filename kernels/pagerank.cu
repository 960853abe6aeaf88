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
  const int* nbr = cgs::list<int>(nbr_at, u);
  for (long long i = lane; i < d; i += 32) {
    long long v = nbr[i];
    atomicAdd(residual + v, share);
    received[v] = 1;
  }
}

// Pull-based product over the given vertices' lists, no atomics: sums[k] =
// sum of values[nbr] over the list of vertices[k].  gather_sum takes a warp
// per vertex and leaves lists of at least large_limit entries to
// gather_sum_block (a block per list, positions k from find_large_lists), so
// that a hub's list is not read by one warp alone.  Each sum is reduced in a
// fixed order: results do not depend on scheduling.
__global__ void gather_sum(const long long* vertices, long long count, const unsigned long long* nbr_at,
                           const long long* degree, const double* values, double* sums, long long large_limit)
{
  long long k = (blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x) / 32;
  if (k >= count) return;
  int lane = threadIdx.x & 31;
  long long v = vertices[k];
  long long e = degree[v];
  if (e >= large_limit) return;
  const int* nbr = cgs::list<int>(nbr_at, v);
  double total = 0.0;
#pragma unroll 4
  for (long long i = lane; i < e; i += 32) total += values[nbr[i]];
  for (int offset = 16; offset > 0; offset >>= 1) total += __shfl_down_sync(0xffffffffu, total, offset);
  if (lane == 0) sums[k] = total;
}

// Positions k whose list has at least large_limit entries.
__global__ void find_large_lists(const long long* vertices, long long count, const long long* degree,
                                 long long large_limit, long long* large, unsigned long long* found)
{
  long long k = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (k < count && degree[vertices[k]] >= large_limit) large[atomicAdd(found, 1ull)] = k;
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
  const int* nbr = cgs::list<int>(nbr_at, v);
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
