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
// w * values[nbr], the weights of type W read from wgt_at[vertices[k]]);
// or, when into is not null, into[vertices[k]] += that sum (the vertices
// are distinct: a dense PageRank round's residual update).
// bin_gather_lists bins the positions k once per plan by how their list is
// best read: a thread per short list held in GPU memory (or of one entry), a warp per other list
// under large_limit entries, a block per longer one (a hub's list is not
// read by one warp alone).  Each sum is reduced in a fixed order: results
// do not depend on scheduling.

// where a gather kernel's sum for position k goes (see above)
__device__ __forceinline__ void put_sum(double total, long long k, long long v, double* sums, double* into)
{
  if (into) into[v] += total;
  else sums[k] = total;
}

// values[nbr[i]], times the arc's weight when WEIGHTED
template <typename W, int WEIGHTED>
__device__ __forceinline__ double arc_value(const double* values, const cgs::Neighbours& nbr, const W* wgt,
                                            long long i)
{
  double value = values[nbr[i]];
  return WEIGHTED ? static_cast<double>(wgt[i]) * value : value;
}

// Positions k into small / medium / large (counters[0..2] count them,
// counters[3] the entries of every list; one atomic per block and bin:
// cgs::block_append, as this runs over every vertex).  A list is in GPU
// memory when on_device is set (device placement) or in_cache[v] (v < cached).
__global__ void bin_gather_lists(const long long* vertices, long long count, const long long* degree,
                                 const bool* in_cache, long long cached, int on_device, long long small_limit,
                                 long long large_limit, long long* small, long long* medium, long long* large,
                                 unsigned long long* counters)
{
  long long k = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  long long v = k < count ? vertices[k] : -1;
  long long e = v >= 0 ? degree[v] : 0;
  const unsigned long long entries[1] = {static_cast<unsigned long long>(e)};
  cgs::block_count(entries, counters + 3);
  bool resident = v >= 0 && (on_device || (v < cached && in_cache[v]));
  int bin = v < 0 ? -1 : ((e <= 1 || (resident && e < small_limit)) ? 0 : (e < large_limit ? 1 : 2));
  cgs::block_append(bin, k, small, medium, large, counters);
}

// One thread per list of positions[j].
template <typename W, int WEIGHTED>
__global__ void gather_sum_thread(const long long* positions, long long count, const long long* vertices,
                                  const unsigned long long* nbr_at, const unsigned long long* wgt_at,
                                  const long long* degree, const double* values, double* sums, double* into)
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
  put_sum(total, k, v, sums, into);
}

// One warp per list of positions[j].
template <typename W, int WEIGHTED>
__global__ void gather_sum_warp(const long long* positions, long long count, const long long* vertices,
                                const unsigned long long* nbr_at, const unsigned long long* wgt_at,
                                const long long* degree, const double* values, double* sums, double* into)
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
  if (lane == 0) put_sum(total, k, v, sums, into);
}

// One block per list of positions[b]: the block's threads stride the list,
// then reduce through shared memory (blockDim.x a multiple of 32, at most 1024).
template <typename W, int WEIGHTED>
__global__ void gather_sum_block(const long long* positions, const long long* vertices,
                                 const unsigned long long* nbr_at, const unsigned long long* wgt_at,
                                 const long long* degree, const double* values, double* sums, double* into)
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
    if (lane == 0) put_sum(total, k, v, sums, into);
  }
}

// ---- the residual's L1 deviation (PageRankEngine.error_bound) -------------
// Two passes over the entries k < count (vertex index[k], or k itself when
// index is null), each writing one partial sum per block: block_sums sums
// values; block_deviations sums |values[v] - S * share(v)|, S the sum of
// the first pass's partials (added in order by every block), share(v) =
// weights[v] / divisor (weights null: 1 / divisor).  A grid-stride loop and
// a fixed-order block reduction: for a given grid the partials, and the sum
// the host makes of them, do not depend on scheduling.  blockDim.x == 256.

__device__ __forceinline__ double block_total(double total, double* partial)
{
  for (int offset = 16; offset > 0; offset >>= 1) total += __shfl_down_sync(0xffffffffu, total, offset);
  int warp = threadIdx.x / 32, lane = threadIdx.x & 31;
  if (lane == 0) partial[warp] = total;
  __syncthreads();
  total = 0.0;
  if (warp == 0) {
    total = lane < static_cast<int>(blockDim.x / 32) ? partial[lane] : 0.0;
    for (int offset = 16; offset > 0; offset >>= 1) total += __shfl_down_sync(0xffffffffu, total, offset);
  }
  return total;                      // (on thread 0)
}

__global__ void block_sums(const double* values, const long long* index, long long count, double* sums)
{
  __shared__ double partial[32];
  double total = 0.0;
  long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long k = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; k < count; k += stride)
    total += values[index ? index[k] : k];
  total = block_total(total, partial);
  if (threadIdx.x == 0) sums[blockIdx.x] = total;
}

__global__ void block_deviations(const double* values, const long long* index, long long count, const double* sums,
                                 int parts, const double* weights, double divisor, double* deviations)
{
  __shared__ double partial[32];
  __shared__ double whole;
  if (threadIdx.x == 0) {
    double s = 0.0;
    for (int i = 0; i < parts; ++i) s += sums[i];
    whole = s;
  }
  __syncthreads();
  double total = 0.0, mean = whole / divisor;
  long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long k = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; k < count; k += stride) {
    long long v = index ? index[k] : k;
    total += fabs(values[v] - (weights ? whole * (weights[v] / divisor) : mean));
  }
  total = block_total(total, partial);
  if (threadIdx.x == 0) deviations[blockIdx.x] = total;
}

// A dense PageRank round's first step (Backend.pagerank_spread) over the
// entries k < count (vertex index[k], or first + k when index is null): the
// amount a = residual[v] + shift * teleport[v] (teleport null: + shift) is
// pushed: rank[v] += a, residual[v] -= a, share[v] = a * factor[k].  A round
// run right after another (before, the other's record, not null) takes its
// shift from it: the other's shift plus (alpha * (its dangling entries' sum)
// + (1 - alpha) * (its sum)) / divisor, the teleport share kept exact without
// the host.  The round's record: record[0] its shift, then per block the
// sums of a and of the dangling entries' a (record[1 + blockIdx.x] and
// record[1 + gridDim.x + blockIdx.x], in a fixed order as block_sums makes
// them).  Every round of a run has the same grid.
__global__ void spread_amounts(double shift, const double* before, double alpha, double divisor,
                               const double* teleport, const double* factor, const bool* dangling,
                               const long long* index, long long first, long long count, double* rank,
                               double* residual, double* share, double* record)
{
  __shared__ double partial[32];
  __shared__ double carried;
  if (before) {
    if (threadIdx.x == 0) {
      double added = 0.0, held = 0.0;
      for (unsigned int i = 0; i < gridDim.x; ++i) {
        added += before[1 + i];
        held += before[1 + gridDim.x + i];
      }
      carried = before[0] + (alpha * held + (1.0 - alpha) * added) / divisor;
    }
    __syncthreads();
    shift = carried;
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) record[0] = shift;
  double total = 0.0, held = 0.0;
  long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long k = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; k < count; k += stride) {
    long long v = index ? index[k] : first + k;
    double r = residual[v];
    double a = r + (teleport ? shift * teleport[v] : shift);
    rank[v] += a;
    residual[v] = r - a;
    share[v] = a * factor[k];
    total += a;
    if (dangling[k]) held += a;
  }
  total = block_total(total, partial);
  __syncthreads();                   // (partial is reused)
  held = block_total(held, partial);
  if (threadIdx.x == 0) {
    record[1 + blockIdx.x] = total;
    record[1 + gridDim.x + blockIdx.x] = held;
  }
}

// A batch's residual corrections (Backend.pagerank_correct), in two launches.
// First over the batch's distinct sources k < count (u = sources[k], its
// out-total from t_old[k] to t_new[k]): per_unit[k] = alpha * rank[u] / T
// (T the old total, the new one where the old is 0; 0 where both are), then
// a source keeping out-arcs has its rank rescaled by t_new / t_old and the
// difference taken from its residual; per block, the sums of the rank added,
// of the rank of sources turned dangling and of those no longer dangling
// (sums[blockIdx.x], [gridDim.x + blockIdx.x], [2 * gridDim.x + blockIdx.x],
// in a fixed order as block_sums makes them).  Then over the arcs k < count:
// residual[arc_v[k]] += per_unit[at[k]] * gain[k].  The sources are distinct:
// the first launch writes each one's rank and residual alone.
struct SourceCorrections {
  double changed = 0.0, joined = 0.0, left = 0.0;

  // Source u's out-total goes from old_total to new_total: rescales its rank,
  // takes the difference from its residual, adds to the sums; returns per_unit.
  __device__ __forceinline__ double correct(long long u, double old_total, double new_total, double alpha,
                                            double* rank, double* residual)
  {
    double before = rank[u];
    double base = old_total > 0.0 ? old_total : new_total;
    double after = (old_total > 0.0 && new_total > 0.0) ? before * (new_total / old_total) : before;
    rank[u] = after;
    residual[u] += before - after;
    changed += after - before;
    if (new_total == 0.0 && old_total > 0.0) joined += before;
    if (old_total == 0.0 && new_total > 0.0) left += before;
    return base > 0.0 ? alpha * before / base : 0.0;
  }

  // The block's three sums to sums[blockIdx.x], [gridDim.x + blockIdx.x], [2 * gridDim.x + blockIdx.x].
  __device__ __forceinline__ void write(double* partial, double* sums)
  {
    double c = block_total(changed, partial);
    __syncthreads();                 // (partial is reused)
    double j = block_total(joined, partial);
    __syncthreads();
    double l = block_total(left, partial);
    if (threadIdx.x == 0) {
      sums[blockIdx.x] = c;
      sums[gridDim.x + blockIdx.x] = j;
      sums[2 * gridDim.x + blockIdx.x] = l;
    }
  }
};

__global__ void correct_sources(const long long* sources, long long count, const double* t_old,
                                const double* t_new, double alpha, double* rank, double* residual, double* per_unit,
                                double* sums)
{
  __shared__ double partial[32];
  SourceCorrections corrections;
  long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long k = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; k < count; k += stride)
    per_unit[k] = corrections.correct(sources[k], t_old[k], t_new[k], alpha, rank, residual);
  corrections.write(partial, sums);
}

__global__ void correct_arcs(const long long* at, const long long* arc_v, const double* gain, long long count,
                             const double* per_unit, double* residual)
{
  long long k = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (k < count) atomicAdd(residual + arc_v[k], per_unit[at[k]] * gain[k]);
}

// Backend.masked_sums over the entries k < count (vertex index[k], or first + k
// when index is null): per block, the sum of values[v] and, where mask is not
// null, of those with mask[k] set (sums[blockIdx.x], sums[gridDim.x +
// blockIdx.x], in a fixed order as block_sums makes them).
__global__ void masked_sums(const double* values, const long long* index, long long first, long long count,
                            const bool* mask, double* sums)
{
  __shared__ double partial[32];
  double total = 0.0, masked = 0.0;
  long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long k = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; k < count; k += stride) {
    double x = values[index ? index[k] : first + k];
    total += x;
    if (mask && mask[k]) masked += x;
  }
  total = block_total(total, partial);
  __syncthreads();                   // (partial is reused)
  masked = block_total(masked, partial);
  if (threadIdx.x == 0) {
    sums[blockIdx.x] = total;
    sums[gridDim.x + blockIdx.x] = masked;
  }
}

// Unweighted corrections for a batch's arcs (Backend.pagerank_correct_arcs),
// in four launches over arcs k < count: the first `inserted` of them are
// inserted_u/v[k] (gain 1), the others deleted_u/v[k - inserted] (gain -1).
// `change` is a per-vertex scratch, zero before and after.
__device__ __forceinline__ void batch_arc(long long k, long long inserted, const long long* inserted_u,
                                          const long long* inserted_v, const long long* deleted_u,
                                          const long long* deleted_v, long long& u, long long& v, double& gain)
{
  bool in = k < inserted;
  u = in ? inserted_u[k] : deleted_u[k - inserted];
  v = in ? inserted_v[k] : deleted_v[k - inserted];
  gain = in ? 1.0 : -1.0;
}

// 1. change[u] += gain; each source's first arc (by the stamp) appends u to sources (kept[0] of them)
__global__ void tally_arcs(const long long* inserted_u, const long long* inserted_v, long long inserted,
                           const long long* deleted_u, const long long* deleted_v, long long count, double* change,
                           unsigned int* stamp, unsigned int epoch, long long* sources, unsigned long long* kept)
{
  long long k = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (k >= count) return;
  long long u, v;
  double gain;
  batch_arc(k, inserted, inserted_u, inserted_v, deleted_u, deleted_v, u, v, gain);
  atomicAdd(change + u, gain);
  if (atomicExch(stamp + u, epoch) != epoch) sources[atomicAdd(kept, 1ull)] = u;
}

// 2. correct_sources for sources[k], k < kept[0] (a grid-stride loop; the out-degree
// before the batch is degree[u] - change[u]), leaving per_unit in change[u]
__global__ void correct_tallied(const long long* sources, const unsigned long long* kept, const long long* degree,
                                double alpha, double* rank, double* residual, double* change, double* sums)
{
  __shared__ double partial[32];
  SourceCorrections corrections;
  long long count = static_cast<long long>(kept[0]);
  long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long k = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; k < count; k += stride) {
    long long u = sources[k];
    double new_total = static_cast<double>(degree[u]);
    change[u] = corrections.correct(u, new_total - change[u], new_total, alpha, rank, residual);
  }
  corrections.write(partial, sums);
}

// 3. residual[v] += per_unit of u (change[u]) * gain
__global__ void spread_tallied(const long long* inserted_u, const long long* inserted_v, long long inserted,
                               const long long* deleted_u, const long long* deleted_v, long long count,
                               const double* change, double* residual)
{
  long long k = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (k >= count) return;
  long long u, v;
  double gain;
  batch_arc(k, inserted, inserted_u, inserted_v, deleted_u, deleted_v, u, v, gain);
  atomicAdd(residual + v, change[u] * gain);
}

// 4. change[u] = 0 again at every source
__global__ void clear_tallied(const long long* sources, const unsigned long long* kept, double* change)
{
  long long count = static_cast<long long>(kept[0]);
  long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long k = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; k < count; k += stride)
    change[sources[k]] = 0.0;
}
