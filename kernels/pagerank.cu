#include "common.cuh"

// Forward push of PageRank residuals.  Every active vertex's list is cut
// into segments of at most `segment` entries, one warp per segment, so that a
// hub's list is pushed by many warps at once (one warp per hub list read from
// host memory is bound by its loads' latency); first[k] is the first segment
// of active[k] (an exclusive prefix sum over max(1, ceil(degree / segment)),
// so a vertex without edges has one too).  The warp of a vertex's first
// segment moves amount[k] from u's residual into its rank (others may be
// adding to that residual concurrently, hence the atomic); every warp sends
// alpha * amount / degree to the out-neighbours of its segment, or, WEIGHTED,
// alpha * amount * (w(u, v) / out_weight[u]) (nothing when out_weight[u] == 0:
// u is dangling; its weights, of type W, are read from wgt_at[u]).  Unweighted
// instances never read wgt_at or out_weight.
template <typename W, int WEIGHTED>
__global__ void pagerank_push(const long long* active, const double* amount, long long count, const long long* first,
                              long long segments, long long segment, const unsigned long long* nbr_at,
                              const unsigned long long* wgt_at, const long long* degree, const double* out_weight,
                              double* rank, double* residual, double alpha, unsigned char* received)
{
  long long s = (blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x) / 32;
  if (s >= segments) return;
  int lane = threadIdx.x & 31;
  long long lo = 0, hi = count - 1;        // k: the last vertex whose first segment is at most s
  while (lo < hi) {
    long long mid = (lo + hi + 1) / 2;
    if (first[mid] <= s) lo = mid;
    else hi = mid - 1;
  }
  long long u = active[lo];
  double a = amount[lo];
  long long begin = (s - first[lo]) * segment;
  if (begin == 0 && lane == 0) {
    rank[u] += a;
    atomicAdd(residual + u, -a);
  }
  long long d = degree[u];
  if (d == 0) return;
  double total = WEIGHTED ? out_weight[u] : static_cast<double>(d);
  if (!(total > 0.0)) return;              // (weighted) only zero-weight arcs: dangling, sends nothing
  double share = WEIGHTED ? alpha * a : alpha * a / total;   // weighted: times w / total (<= 1, no overflow)
  long long end = begin + segment < d ? begin + segment : d;
  const cgs::Neighbours nbr = cgs::neighbours(nbr_at, u);
  const W* wgt = WEIGHTED ? cgs::list<W>(wgt_at, u) : nullptr;
  for (long long i = begin + lane; i < end; i += 32) {
    long long v = nbr[i];
    double sent = WEIGHTED ? share * (static_cast<double>(wgt[i]) / total) : share;
    atomicAdd(residual + v, sent);
    received[v] = 1;
  }
}

// Pull-based product over the lists of vertices[k], no atomics: sums[k] =
// sum of values[nbr] over the list of vertices[k] (WEIGHTED: of
// w * values[nbr], the weights of type W read from wgt_at[vertices[k]]).
// bin_gather_lists bins the positions k once per plan by how their list is
// best read: a thread per short list held in GPU memory (or of one entry), a warp per other list
// under large_limit entries, a block per longer one (a hub's list is not
// read by one warp alone).  Each sum is reduced in a fixed order: results
// do not depend on scheduling.

// values[nbr[i]], times the arc's weight when WEIGHTED
template <typename W, int WEIGHTED>
__device__ __forceinline__ double arc_value(const double* values, const cgs::Neighbours& nbr, const W* wgt,
                                            long long i)
{
  double value = values[nbr[i]];
  return WEIGHTED ? static_cast<double>(wgt[i]) * value : value;
}

// Positions k into small / medium / large (counters[0..2] count them,
// counters[3] the entries of every list; one atomic per warp and bin:
// cgs::warp_append).  A list is in GPU memory when on_device is set (device
// placement) or in_cache[v] (v < cached).
__global__ void bin_gather_lists(const long long* vertices, long long count, const long long* degree,
                                 const bool* in_cache, long long cached, int on_device, long long small_limit,
                                 long long large_limit, long long* small, long long* medium, long long* large,
                                 unsigned long long* counters)
{
  long long k = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  long long v = k < count ? vertices[k] : -1;
  long long e = v >= 0 ? degree[v] : 0;
  cgs::warp_count(static_cast<unsigned long long>(e), counters + 3);
  bool resident = v >= 0 && (on_device || (v < cached && in_cache[v]));
  int bin = v < 0 ? -1 : ((e <= 1 || (resident && e < small_limit)) ? 0 : (e < large_limit ? 1 : 2));
  cgs::warp_append(bin, k, small, medium, large, counters);
}

// One thread per list of positions[j].
template <typename W, int WEIGHTED>
__global__ void gather_sum_thread(const long long* positions, long long count, const long long* vertices,
                                  const unsigned long long* nbr_at, const unsigned long long* wgt_at,
                                  const long long* degree, const double* values, double* sums)
{
  long long j = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (j >= count) return;
  long long k = positions[j];
  long long v = vertices[k];
  const cgs::Neighbours nbr = cgs::neighbours(nbr_at, v);
  const W* wgt = WEIGHTED ? cgs::list<W>(wgt_at, v) : nullptr;
  double total = 0.0;
#pragma unroll 4
  for (long long i = 0, e = degree[v]; i < e; ++i) total += arc_value<W, WEIGHTED>(values, nbr, wgt, i);
  sums[k] = total;
}

// One warp per list of positions[j].
template <typename W, int WEIGHTED>
__global__ void gather_sum_warp(const long long* positions, long long count, const long long* vertices,
                                const unsigned long long* nbr_at, const unsigned long long* wgt_at,
                                const long long* degree, const double* values, double* sums)
{
  long long j = (blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x) / 32;
  if (j >= count) return;
  int lane = threadIdx.x & 31;
  long long k = positions[j];
  long long v = vertices[k];
  const cgs::Neighbours nbr = cgs::neighbours(nbr_at, v);
  const W* wgt = WEIGHTED ? cgs::list<W>(wgt_at, v) : nullptr;
  double total = 0.0;
#pragma unroll 4
  for (long long i = lane, e = degree[v]; i < e; i += 32) total += arc_value<W, WEIGHTED>(values, nbr, wgt, i);
  for (int offset = 16; offset > 0; offset >>= 1) total += __shfl_down_sync(0xffffffffu, total, offset);
  if (lane == 0) sums[k] = total;
}

// One block per list of positions[b]: the block's threads stride the list,
// then reduce through shared memory (blockDim.x a multiple of 32, at most 1024).
template <typename W, int WEIGHTED>
__global__ void gather_sum_block(const long long* positions, const long long* vertices,
                                 const unsigned long long* nbr_at, const unsigned long long* wgt_at,
                                 const long long* degree, const double* values, double* sums)
{
  __shared__ double partial[32];
  long long k = positions[blockIdx.x];
  long long v = vertices[k];
  const cgs::Neighbours nbr = cgs::neighbours(nbr_at, v);
  const W* wgt = WEIGHTED ? cgs::list<W>(wgt_at, v) : nullptr;
  double total = 0.0;
#pragma unroll 4
  for (long long i = threadIdx.x, e = degree[v]; i < e; i += blockDim.x)
    total += arc_value<W, WEIGHTED>(values, nbr, wgt, i);
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
