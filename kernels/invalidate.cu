#include "common.cuh"

// Transitive invalidation, one level per launch: every child x of a frontier
// vertex u (parent[x] == u) not yet invalidated is marked, and enters the
// next level's byte map.  The launcher repeats until a level is empty.
// Frontier vertices that are not marked (kept by keep_ties_warp) are skipped.
// `edges` accumulates the edges read, so the host reads it once at the end.
__global__ void invalidate_children(const long long* frontier, long long count, const unsigned long long* nbr_at,
                                    const long long* degree, const long long* parent, unsigned char* invalid,
                                    unsigned char* next, unsigned long long* edges)
{
  long long k = (blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x) / 32;
  if (k >= count) return;
  int lane = threadIdx.x & 31;
  long long u = frontier[k];
  if (!invalid[u]) return;   // (the whole warp: u is the warp's)
  const cgs::Neighbours nbr = cgs::neighbours(nbr_at, u);
  long long e = degree[u];
  if (lane == 0) atomicAdd(edges, static_cast<unsigned long long>(e));
  for (long long i = lane; i < e; i += 32) {
    long long x = nbr[i];
    if (parent[x] == u && !invalid[x]) {
      invalid[x] = 1;   // a vertex has one parent: only one writer can match
      next[x] = 1;
    }
  }
}

// Transitive invalidation in one block (few seeds): levels of `found` are
// expanded in turn with __syncthreads() between them.  The block first puts
// seeds[0:count) into `found`: as they are (already marked in `invalid` and
// distinct), or, with mark_seeds, each seed once, marking it (a test-and-set
// of its byte through the aligned 32-bit word that holds it), so that a
// caller need not deduplicate and mark them first.  Children are marked and
// appended (a vertex is found once, so `found` never holds more than one
// entry per vertex).  `seed_count`, where not null, holds how many of the
// `count` seeds there are (a count an earlier launch left on the device).
// A warp scans each list of fewer than `block_degree` entries; longer ones
// (hubs) are set aside and scanned by the whole block.  The
// block stops before expanding a level wider than `level_limit`, handing it
// to the per-level launches.  out[0] = end of the expanded levels, out[1] =
// end of `found`, out[2] = edges read.
__global__ void invalidate_block(const long long* seeds, long long count, const unsigned long long* seed_count,
                                 int mark_seeds, long long* found,
                                 long long level_limit, long long block_degree,
                                 const unsigned long long* nbr_at0, const long long* degree0,
                                 const unsigned long long* nbr_at1, const long long* degree1, int adjacencies,
                                 const long long* parent, unsigned char* invalid, unsigned long long* out)
{
  __shared__ long long level_begin, level_end;
  __shared__ unsigned long long tail, edges;
  __shared__ int hubs;
  __shared__ long long hub[CGS_BLOCK_LISTS];   // vertex * 2 + adjacency
  if (seed_count) count = static_cast<long long>(*seed_count);
  if (threadIdx.x == 0) {
    level_begin = 0;
    tail = mark_seeds ? 0 : count;
    edges = 0;
    hubs = 0;
  }
  __syncthreads();
  for (long long i = threadIdx.x; i < count; i += blockDim.x) {
    long long v = seeds[i];
    if (!mark_seeds) {
      found[i] = v;
      continue;
    }
    if (cgs::mark_byte(invalid, v)) found[atomicAdd(&tail, 1ull)] = v;
  }
  __syncthreads();
  if (threadIdx.x == 0) level_end = static_cast<long long>(tail);
  __syncthreads();
  while (level_begin < level_end && level_end - level_begin <= level_limit) {
    cgs::invalidate_level(found, level_begin, level_end, false, block_degree, nbr_at0, degree0, nbr_at1, degree1,
                          adjacencies, parent, invalid, &tail, &edges, &hubs, hub);
    if (threadIdx.x == 0) {
      level_begin = level_end;
      level_end = static_cast<long long>(tail);
      hubs = 0;
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    out[0] = static_cast<unsigned long long>(level_begin);
    out[1] = static_cast<unsigned long long>(level_end);
    out[2] = edges;
  }
}

// invalidate_block's closure over the whole grid, for levels of any width
// (cgs::grid_levels: one block per multiprocessor, two grid barriers a
// level, hub lists scanned by whole blocks), continuing `found` from the
// levels [begin, end) (distinct, marked).  A child is marked with a
// test-and-set of its byte, so that one reached through both of its
// parent's lists is found once.  control: see cgs::grid_levels.
__global__ void __launch_bounds__(1024, 1)
invalidate_grid(long long* found, long long begin, long long end, long long block_degree,
                const unsigned long long* nbr_at0, const long long* degree0, const unsigned long long* nbr_at1,
                const long long* degree1, int adjacencies, const long long* parent, unsigned char* invalid,
                long long* hub, long long hub_limit, unsigned long long* control, unsigned int* faults,
                unsigned int fault)
{
  const long long no_limit = 0x7fffffffffffffffll;   // (`found` holds every vertex once at most)
  cgs::grid_levels(found, begin, end, no_limit, block_degree, degree0, degree1, adjacencies, hub, hub_limit,
                   control, faults, fault,
                   [&](long long u, int a, long long first, int step, long long e, unsigned int) {
    const cgs::Neighbours nbr = cgs::neighbours(a ? nbr_at1 : nbr_at0, u);
    for (long long i = first; i < e; i += step) {
      long long x = nbr[i];
      bool push = parent[x] == u && !cgs::load_volatile(invalid + x) && cgs::mark_byte(invalid, x);
      cgs::append(push, x, found + end, control);
    }
  });
}
