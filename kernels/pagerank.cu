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

// Pull-based product over the given vertices' lists, one warp per vertex and
// no atomics: sums[k] = sum of values[nbr] over the list of vertices[k].
__global__ void gather_sum(const long long* vertices, long long count, const unsigned long long* nbr_at,
                           const long long* degree, const double* values, double* sums)
{
  long long k = (blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x) / 32;
  if (k >= count) return;
  int lane = threadIdx.x & 31;
  long long v = vertices[k];
  const int* nbr = cgs::list<int>(nbr_at, v);
  double total = 0.0;
  for (long long i = lane, e = degree[v]; i < e; i += 32) total += values[nbr[i]];
  for (int offset = 16; offset > 0; offset >>= 1) total += __shfl_down_sync(0xffffffffu, total, offset);
  if (lane == 0) sums[k] = total;
}
