// Push values along edges (advance), with degree-aware scheduling
// (Grapin, Algorithm 2): the launcher splits a large frontier by degree and
// runs a thread, a warp or a block per vertex (a small frontier goes in one
// launch, a block per vertex).  Improved vertices are marked in a
// byte map (Grus's bitmap-directed frontier); the next frontier is its
// compaction, so no atomics enqueue and no vertex appears twice.
// Kernels find vertex u's list through per-vertex addresses (nbr_at[u],
// wgt_at[u]: in the store, in device or host memory, or in the GPU cache)
// and its length degree[u].
#include "common.cuh"

using cgs::improve;

// Split a frontier by degree into the three schedules and count the edges
// the step will read (counters[3]), so the host learns all four sizes with a
// single copy (one atomic per block and bin: cgs::block_append).
__global__ void bin_by_degree(const long long* frontier, long long count, const long long* degree,
                              long long small_limit, long long large_limit, long long* small, long long* medium,
                              long long* large, unsigned long long* counters)
{
  long long k = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  long long u = k < count ? frontier[k] : -1;
  long long d = u >= 0 ? degree[u] : 0;
  const unsigned long long entries[1] = {static_cast<unsigned long long>(d)};
  cgs::block_count(entries, counters + 3);
  int bin = d == 0 ? -1 : (d < small_limit ? 0 : (d < large_limit ? 1 : 2));
  cgs::block_append(bin, u, small, medium, large, counters);
}

template <typename V, typename W, int EXTEND, int ORDER>
__device__ __forceinline__ void relax_list(long long u, long long begin, int step, const unsigned long long* nbr_at,
                                           const unsigned long long* wgt_at, const long long* degree, V* value,
                                           long long* parent, unsigned char* improved)
{
  const cgs::Neighbours nbr = cgs::neighbours(nbr_at, u);
  const W* wgt = cgs::list<W>(wgt_at, u);
  V from = cgs::load_volatile(value + u);
  for (long long i = begin, end = degree[u]; i < end; i += step) {
    long long v = nbr[i];
    if (improve<ORDER>(value, parent, v, u, cgs::extend<EXTEND>(from, wgt[i]))) improved[v] = 1;
  }
}

// one thread per vertex (small degrees)
template <typename V, typename W, int EXTEND, int ORDER>
__global__ void relax_thread(const long long* frontier, long long count, const unsigned long long* nbr_at,
                             const unsigned long long* wgt_at, const long long* degree, V* value, long long* parent,
                             unsigned char* improved)
{
  long long k = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (k >= count) return;
  relax_list<V, W, EXTEND, ORDER>(frontier[k], 0, 1, nbr_at, wgt_at, degree, value, parent, improved);
}

// one warp per vertex (medium degrees)
template <typename V, typename W, int EXTEND, int ORDER>
__global__ void relax_warp(const long long* frontier, long long count, const unsigned long long* nbr_at,
                           const unsigned long long* wgt_at, const long long* degree, V* value, long long* parent,
                           unsigned char* improved)
{
  long long k = (blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x) / 32;
  if (k >= count) return;
  relax_list<V, W, EXTEND, ORDER>(frontier[k], threadIdx.x & 31, 32, nbr_at, wgt_at, degree, value, parent,
                                  improved);
}

// one block per vertex (hubs; or a whole small frontier at once, skipping
// the binning round trip); `edges` accumulates the edges read
template <typename V, typename W, int EXTEND, int ORDER>
__global__ void relax_block(const long long* frontier, long long count, const unsigned long long* nbr_at,
                            const unsigned long long* wgt_at, const long long* degree, V* value, long long* parent,
                            unsigned char* improved, unsigned long long* edges)
{
  long long u = frontier[blockIdx.x];
  if (threadIdx.x == 0 && degree[u]) atomicAdd(edges, static_cast<unsigned long long>(degree[u]));
  relax_list<V, W, EXTEND, ORDER>(u, threadIdx.x, blockDim.x, nbr_at, wgt_at, degree, value, parent, improved);
}

// relax the given arc u -> v (inserted or improved edges), marking v where it
// improves (unless `improved` is null); sources holding `unreachable` send
// nothing when `check` is set
template <typename V, typename W, int EXTEND, int ORDER>
__device__ __forceinline__ void relax_arc(long long u, long long v, W w, V* value, long long* parent,
                                          unsigned char* improved, V unreachable, int check)
{
  V from = cgs::load_volatile(value + u);
  if (check && from == unreachable) return;
  if (improve<ORDER>(value, parent, v, u, cgs::extend<EXTEND>(from, w)) && improved) improved[v] = 1;
}

// one thread per given arc; a null `improved` marks nothing (the caller
// knows the improved targets already: relax_arcs_only)
template <typename V, typename W, int EXTEND, int ORDER>
__global__ void relax_arcs(const long long* src, const long long* dst, const W* wgt, long long count,
                           V* value, long long* parent, unsigned char* improved, V unreachable, int check)
{
  long long k = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (k >= count) return;
  relax_arc<V, W, EXTEND, ORDER>(src[k], dst[k], wgt[k], value, parent, improved, unreachable, check);
}

// A correction's frontier in one block (a small one: the launcher bounds the
// candidates): flag the vertices of `invalidated` that hold a value (each one
// without `check`), relax the arcs of each of up to four groups (src, dst,
// wgt, count; an unused group has count 0) in turn, a barrier after each as
// between launches, then collect each flagged candidate (the invalidated
// vertices and the groups' targets) once into out[0:*kept], clearing its
// flag: flag_reached, relax_arcs per group and take_flagged_among in one launch.
template <typename V, typename W, int EXTEND, int ORDER>
__global__ void correction_block(const long long* invalidated, long long invalidated_count,
                                 const long long* src0, const long long* dst0, const W* wgt0, long long count0,
                                 const long long* src1, const long long* dst1, const W* wgt1, long long count1,
                                 const long long* src2, const long long* dst2, const W* wgt2, long long count2,
                                 const long long* src3, const long long* dst3, const W* wgt3, long long count3,
                                 V* value, long long* parent, unsigned char* improved, V unreachable, int check,
                                 unsigned int* stamp, unsigned int epoch, long long* out, unsigned long long* kept)
{
  const long long* src[4] = {src0, src1, src2, src3};
  const long long* dst[4] = {dst0, dst1, dst2, dst3};
  const W* wgt[4] = {wgt0, wgt1, wgt2, wgt3};
  const long long count[4] = {count0, count1, count2, count3};
  __shared__ unsigned long long taken;
  if (threadIdx.x == 0) taken = 0;
  for (long long i = threadIdx.x; i < invalidated_count; i += blockDim.x) {
    long long v = invalidated[i];
    if (!check || value[v] != unreachable) improved[v] = 1;
  }
  __syncthreads();
  for (int g = 0; g < 4; ++g) {
    for (long long k = threadIdx.x; k < count[g]; k += blockDim.x)
      relax_arc<V, W, EXTEND, ORDER>(src[g][k], dst[g][k], wgt[g][k], value, parent, improved, unreachable, check);
    __syncthreads();
  }
  // candidates: the invalidated vertices, then each group's targets (take_flagged_among's test)
  for (int g = -1; g < 4; ++g) {
    const long long* ids = g < 0 ? invalidated : dst[g];
    for (long long k = threadIdx.x, n = g < 0 ? invalidated_count : count[g]; k < n; k += blockDim.x) {
      long long v = ids[k];
      if (improved[v] && atomicExch(stamp + v, epoch) != epoch) {
        improved[v] = 0;
        out[atomicAdd(&taken, 1ull)] = v;
      }
    }
  }
  __syncthreads();
  if (threadIdx.x == 0) *kept = taken;
}

// re-seed target v from its neighbours in the given (in-)adjacency, entries
// begin, begin + step, ... of its list
template <typename V, typename W, int EXTEND, int ORDER>
__device__ __forceinline__ void pull_list(long long v, long long begin, int step, const unsigned long long* nbr_at,
                                          const unsigned long long* wgt_at, const long long* degree, V* value,
                                          long long* parent, V unreachable, int check)
{
  const cgs::Neighbours nbr = cgs::neighbours(nbr_at, v);
  const W* wgt = cgs::list<W>(wgt_at, v);
  for (long long i = begin, end = degree[v]; i < end; i += step) {
    long long u = nbr[i];
    V from = cgs::load_volatile(value + u);
    if (check && from == unreachable) continue;
    improve<ORDER>(value, parent, v, u, cgs::extend<EXTEND>(from, wgt[i]));
  }
}

// one warp per target: re-seed invalidated vertices from their neighbours
template <typename V, typename W, int EXTEND, int ORDER>
__global__ void pull_warp(const long long* targets, long long count, const unsigned long long* nbr_at,
                          const unsigned long long* wgt_at, const long long* degree, V* value, long long* parent,
                          V unreachable, int check)
{
  long long k = (blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x) / 32;
  if (k >= count) return;
  pull_list<V, W, EXTEND, ORDER>(targets[k], threadIdx.x & 31, 32, nbr_at, wgt_at, degree, value, parent,
                                 unreachable, check);
}

// one block per target (hubs: a warp alone would read their lists serially;
// or every target of a few, unbinned); `edges`, where not null, accumulates
// the entries read
template <typename V, typename W, int EXTEND, int ORDER>
__global__ void pull_block(const long long* targets, long long count, const unsigned long long* nbr_at,
                           const unsigned long long* wgt_at, const long long* degree, V* value, long long* parent,
                           V unreachable, int check, unsigned long long* edges)
{
  long long v = targets[blockIdx.x];
  if (edges && threadIdx.x == 0 && degree[v]) atomicAdd(edges, static_cast<unsigned long long>(degree[v]));
  pull_list<V, W, EXTEND, ORDER>(v, threadIdx.x, blockDim.x, nbr_at, wgt_at, degree, value, parent, unreachable,
                                 check);
}

// Keep the invalidation candidates that a valid in-neighbour holds at the same
// value (Backend.invalidate_keeping_ties): the warp of candidate v scans v's
// list 32 entries at a time for a u that is not invalid, reachable, strictly
// better than v (so not one of v's descendants) and sends v exactly its value;
// the lowest matching lane of the first chunk with a match becomes v's parent
// and v's invalid mark is cleared (marks of u are only read where u is not a
// candidate of this level, or a kept one: a candidate is marked while it
// waits, so candidates do not keep each other, a conservative choice).
// Returns (on every lane) the entries read.
template <typename V, typename W, int EXTEND, int ORDER>
__device__ __forceinline__ long long keep_tie(long long v, int lane, const unsigned long long* nbr_at,
                                              const unsigned long long* wgt_at, const long long* degree,
                                              const V* value, long long* parent, V unreachable, int check,
                                              unsigned char* invalid)
{
  const cgs::Neighbours nbr = cgs::neighbours(nbr_at, v);
  const W* wgt = cgs::list<W>(wgt_at, v);
  const V mine = value[v];
  const long long e = degree[v];
  long long base = 0;
  for (; base < e; base += 32) {
    long long i = base + lane, u = -1;
    bool tie = false;
    if (i < e) {
      u = nbr[i];
      V from = value[u];
      tie = !cgs::load_volatile(invalid + u) && !(check && from == unreachable) && cgs::better<ORDER>(from, mine) &&
            cgs::extend<EXTEND>(from, wgt[i]) == mine;
    }
    unsigned int ballot = __ballot_sync(0xffffffffu, tie);
    if (ballot) {
      if (lane == __ffs(ballot) - 1) {
        parent[v] = u;
        invalid[v] = 0;
      }
      break;
    }
  }
  return min(e, base + 32);
}

// keep_tie for a level of candidates, a warp each; each warp adds the
// entries it read to edges[0].
template <typename V, typename W, int EXTEND, int ORDER>
__global__ void keep_ties_warp(const long long* candidates, long long count, const unsigned long long* nbr_at,
                               const unsigned long long* wgt_at, const long long* degree, const V* value,
                               long long* parent, V unreachable, int check, unsigned char* invalid,
                               unsigned long long* edges)
{
  long long k = (blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x) / 32;
  if (k >= count) return;   // (k is the same for the whole warp)
  int lane = threadIdx.x & 31;
  long long read = keep_tie<V, W, EXTEND, ORDER>(candidates[k], lane, nbr_at, wgt_at, degree, value, parent,
                                                 unreachable, check, invalid);
  if (lane == 0) atomicAdd(edges, static_cast<unsigned long long>(read));
}

// Backend.invalidate_keeping_ties in one block (few seeds), its levels in
// turn with __syncthreads() between the steps: the block first puts each of
// seeds[0:count) once into `found`, marking it in `invalid` (a test-and-set
// of its byte).  In each of the first `tie_levels` levels a warp per
// candidate runs keep_tie (the search for ties, in the pull adjacency
// `in_at`, `in_wgt_at`, `in_degree`); then the candidates still marked have
// their children in each push adjacency (`nbr_at0`/`degree0`, and with two
// adjacencies `nbr_at1`/`degree1`) marked and appended, a warp per list of
// fewer than `block_degree` entries and the whole block per longer one, as
// invalidate_block does: they are the next level.  Levels past `tie_levels`
// are expanded alone (the plain closure).  A kept candidate that a later
// level marks again is appended again: `found` holds a vertex once plus
// once per time it was kept (at most `tie_levels` times `level_limit`
// entries more than the vertices).  The block stops before a level wider
// than `level_limit`, handing it to the per-level launches.  out[0] = end
// of the searched levels (found[0:out[0]] are the candidates examined),
// out[1] = end of the expanded levels, out[2] = end of `found` (the levels
// after out[1] are left, marked), out[3] = entries read, out[4] = levels
// searched.  `seed_count`, where not null, holds how many of the `count`
// seeds there are (a count an earlier launch left on the device).
template <typename V, typename W, int EXTEND, int ORDER>
__global__ void keep_ties_block(const long long* seeds, long long count, const unsigned long long* seed_count,
                                long long* found, int tie_levels,
                                long long level_limit, long long block_degree, const unsigned long long* in_at,
                                const unsigned long long* in_wgt_at, const long long* in_degree,
                                const unsigned long long* nbr_at0, const long long* degree0,
                                const unsigned long long* nbr_at1, const long long* degree1, int adjacencies,
                                const V* value, long long* parent, V unreachable, int check,
                                unsigned char* invalid, unsigned long long* out)
{
  __shared__ long long level_begin, level_end, searched_end;
  __shared__ unsigned long long tail, edges;
  __shared__ int hubs, searched;
  __shared__ long long hub[CGS_BLOCK_LISTS];   // vertex * 2 + adjacency
  if (seed_count) count = static_cast<long long>(*seed_count);
  if (threadIdx.x == 0) {
    level_begin = 0;
    searched_end = 0;
    tail = 0;
    edges = 0;
    hubs = 0;
    searched = 0;
  }
  __syncthreads();
  for (long long i = threadIdx.x; i < count; i += blockDim.x) {
    long long v = seeds[i];
    if (cgs::mark_byte(invalid, v)) found[atomicAdd(&tail, 1ull)] = v;
  }
  __syncthreads();
  if (threadIdx.x == 0) level_end = static_cast<long long>(tail);
  __syncthreads();
  const int lane = threadIdx.x & 31, warp = threadIdx.x / 32, warps = blockDim.x / 32;
  while (level_begin < level_end && level_end - level_begin <= level_limit) {
    const bool search = searched < tie_levels;
    if (search) {
      for (long long k = level_begin + warp; k < level_end; k += warps) {
        long long read = keep_tie<V, W, EXTEND, ORDER>(found[k], lane, in_at, in_wgt_at, in_degree, value, parent,
                                                       unreachable, check, invalid);
        if (lane == 0) atomicAdd(&edges, static_cast<unsigned long long>(read));
      }
      __syncthreads();   // every candidate kept or not before any child is marked
    }
    cgs::invalidate_level(found, level_begin, level_end, true, block_degree, nbr_at0, degree0, nbr_at1, degree1,
                          adjacencies, parent, invalid, &tail, &edges, &hubs, hub);
    if (threadIdx.x == 0) {
      if (search) {
        searched_end = level_end;
        ++searched;
      }
      level_begin = level_end;
      level_end = static_cast<long long>(tail);
      hubs = 0;
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    out[0] = static_cast<unsigned long long>(searched_end);
    out[1] = static_cast<unsigned long long>(level_begin);
    out[2] = static_cast<unsigned long long>(level_end);
    out[3] = edges;
    out[4] = static_cast<unsigned long long>(searched);
  }
}

// A whole push phase in one block (small incremental updates): levels of a
// queue are relaxed in turn, with __syncthreads() between them, so no level
// costs a launch or a host round trip.  queue[0:count) holds the first
// frontier; each level appends the vertices it improved (deduplicated through
// `queued`, an int map kept zero between calls).  A warp relaxes each list
// of fewer than `block_degree` entries; longer lists (hubs) are set aside and
// relaxed one at a time by the whole block once the warps are done.  The
// block stops early, handing the rest to the per-step launches, before a
// level would be wider than `level_limit` or the queue would pass
// `queue_limit` entries (the queue holds `queue_limit` plus one entry per
// vertex, so a level always fits).  out[0] = end of the relaxed levels,
// out[1] = end of the queue (the levels after out[0] are the frontier left),
// out[2] = edges read.  `seed_count`, where not null, holds how many of the
// `count` entries of the queue are the first frontier (a count an earlier
// launch left on the device: correction_frontier's); a first frontier wider
// than `level_limit` is handed on at once, none of it relaxed.
template <typename V, typename W, int EXTEND, int ORDER>
__device__ __forceinline__ void relax_enqueue(long long u, V from, long long begin, int step, cgs::Neighbours nbr,
                                              const W* wgt, long long e, V* value, long long* parent, int* queued,
                                              long long* queue, unsigned long long* tail)
{
  for (long long i = begin; i < e; i += step) {
    long long v = nbr[i];
    bool better = improve<ORDER>(value, parent, v, u, cgs::extend<EXTEND>(from, wgt[i]));
    if (better && atomicCAS(queued + v, 0, 1) == 0) queue[atomicAdd(tail, 1ull)] = v;
  }
}

template <typename V, typename W, int EXTEND, int ORDER>
__global__ void converge_block(long long* queue, long long count, const unsigned long long* seed_count,
                               long long queue_limit, long long level_limit, long long block_degree,
                               const unsigned long long* nbr_at0,
                               const unsigned long long* wgt_at0, const long long* degree0,
                               const unsigned long long* nbr_at1, const unsigned long long* wgt_at1,
                               const long long* degree1, int adjacencies, V* value, long long* parent, int* queued,
                               unsigned long long* out)
{
  __shared__ long long level_begin, level_end;
  __shared__ unsigned long long tail, edges;
  __shared__ int stop, hubs;
  __shared__ long long hub[CGS_BLOCK_LISTS];   // vertex * 2 + adjacency
  if (seed_count) count = static_cast<long long>(*seed_count);
  if (threadIdx.x == 0) {
    level_begin = 0;
    level_end = count;
    tail = count;
    edges = 0;
    stop = count > level_limit;
    hubs = 0;
  }
  __syncthreads();
  const int lane = threadIdx.x & 31, warp = threadIdx.x / 32, warps = blockDim.x / 32;
  while (level_begin < level_end && !stop) {
    for (long long k = level_begin + warp; k < level_end; k += warps) {
      long long u = queue[k];
      V from = cgs::load_volatile(value + u);
      for (int a = 0; a < adjacencies; ++a) {
        long long e = (a ? degree1 : degree0)[u];
        // a hub is relaxed by the whole block below
        if (cgs::set_hub_aside(u, a, e, block_degree, lane, &edges, &hubs, hub)) continue;
        relax_enqueue<V, W, EXTEND, ORDER>(u, from, lane, 32, cgs::neighbours(a ? nbr_at1 : nbr_at0, u),
                                           cgs::list<W>(a ? wgt_at1 : wgt_at0, u), e, value, parent, queued,
                                           queue, &tail);
      }
    }
    __syncthreads();
    for (int h = 0, held = min(hubs, CGS_BLOCK_LISTS); h < held; ++h) {
      long long u = hub[h] / 2;
      int a = static_cast<int>(hub[h] % 2);
      relax_enqueue<V, W, EXTEND, ORDER>(u, cgs::load_volatile(value + u), threadIdx.x, blockDim.x,
                                         cgs::neighbours(a ? nbr_at1 : nbr_at0, u),
                                         cgs::list<W>(a ? wgt_at1 : wgt_at0, u), (a ? degree1 : degree0)[u],
                                         value, parent, queued, queue, &tail);
    }
    __syncthreads();
    long long next_end = static_cast<long long>(tail);
    for (long long k = level_end + threadIdx.x; k < next_end; k += blockDim.x) queued[queue[k]] = 0;
    __syncthreads();
    if (threadIdx.x == 0) {
      level_begin = level_end;
      level_end = next_end;
      hubs = 0;
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

// converge_grid: converge_block's push over the whole grid, for levels of
// any width (cgs::grid_levels: one block per multiprocessor, two grid
// barriers a level, hubs relaxed by whole blocks), continuing the queue
// from the levels [begin, end).  A vertex joins the next level once: it is
// stamped with that level's number, epoch + level + 1 (stamps are only
// raised, so none of an earlier call or level blocks it), in place of
// converge_block's `queued` map, which would need a third barrier to clear.
// Stops, as converge_block, once the queue would pass `queue_limit`
// entries.  control: see cgs::grid_levels.
template <typename V, typename W, int EXTEND, int ORDER>
__global__ void __launch_bounds__(1024, 1)
converge_grid(long long* queue, long long begin, long long end, long long queue_limit, long long block_degree,
              const unsigned long long* nbr_at0, const unsigned long long* wgt_at0, const long long* degree0,
              const unsigned long long* nbr_at1, const unsigned long long* wgt_at1, const long long* degree1,
              int adjacencies, V* value, long long* parent, unsigned int* stamp, unsigned int epoch,
              long long* hub, long long hub_limit, unsigned long long* control, unsigned int* faults,
              unsigned int fault)
{
  cgs::grid_levels(queue, begin, end, queue_limit, block_degree, degree0, degree1, adjacencies, hub, hub_limit,
                   control, faults, fault,
                   [&](long long u, int a, long long first, int step, long long e, unsigned int level) {
    const cgs::Neighbours nbr = cgs::neighbours(a ? nbr_at1 : nbr_at0, u);
    const W* wgt = cgs::list<W>(a ? wgt_at1 : wgt_at0, u);
    const V from = cgs::load_volatile(value + u);
    const unsigned int next_stamp = epoch + level + 1;
    for (long long i = first; i < e; i += step) {
      long long v = nbr[i];
      bool push = improve<ORDER>(value, parent, v, u, cgs::extend<EXTEND>(from, wgt[i]))
                  && atomicMax(stamp + v, next_stamp) < next_stamp;
      cgs::append(push, v, queue + end, control);
    }
  });
}
