// Updates of the gapped CSR (cugraph_stream.engine.adjacency) that run per list.

// Remove entries: rows (owner, slot) sorted by slot, so each list's rows are
// contiguous and in slot order.  One thread per row; the first row of each
// list does the list's work: the list keeps its first `kept` = degree - rows
// positions, every removed slot below that boundary (a hole) takes the next
// surviving entry from the tail beyond it, and the list's degree drops.
// `twin` (slot pointers: 4 bytes, see adjacency.SLOT_DTYPE) is read only where `has_twin`.  Each move is written out (owner,
// source, target) so that whoever indexes slots can follow it, with the
// values it moved (moved_nbr, moved_wgt, moved_twin: what the source slot
// still holds).  With `keep`, the pre-images a journal needs are written too,
// per row: the removed entry's values (old_nbr, old_wgt, old_twin) and its
// list's degree before the call (old_degree); the list's thread reads them
// all before it writes any hole, so no row reads a value another row wrote.
template <typename W>
__global__ void remove_entries(const long long* slots, const long long* owners, long long rows, const long long* start,
                               long long* degree, int* nbr, W* wgt, unsigned int* twin, int has_twin, int keep,
                               int* old_nbr, W* old_wgt, unsigned int* old_twin, long long* old_degree,
                               long long* move_owner, long long* move_source, long long* move_target, int* moved_nbr,
                               W* moved_wgt, unsigned int* moved_twin, unsigned long long* moved)
{
  long long first = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (first >= rows) return;
  long long u = owners[first];
  if (first > 0 && owners[first - 1] == u) return;

  long long count = 0;
  while (first + count < rows && owners[first + count] == u) ++count;
  long long end = start[u] + degree[u];
  if (keep) {
    for (long long i = first; i < first + count; ++i) {
      long long s = slots[i];
      old_nbr[i] = nbr[s];
      old_wgt[i] = wgt[s];
      if (has_twin) old_twin[i] = twin[s];
      old_degree[i] = end - start[u];
    }
  }
  long long boundary = end - count;
  long long holes = 0;
  while (holes < count && slots[first + holes] < boundary) ++holes;
  if (holes) {
    unsigned long long out = atomicAdd(moved, static_cast<unsigned long long>(holes));
    long long removed_in_tail = first + holes;   // next removed slot at or beyond the boundary
    long long hole = 0;
    for (long long tail = boundary; tail < end && hole < holes; ++tail) {
      if (removed_in_tail < first + count && slots[removed_in_tail] == tail) {
        ++removed_in_tail;
        continue;
      }
      long long target = slots[first + hole];
      long long m = out + hole;
      int n = nbr[tail];
      W w = wgt[tail];
      nbr[target] = n;
      wgt[target] = w;
      moved_nbr[m] = n;
      moved_wgt[m] = w;
      if (has_twin) {
        unsigned int t = twin[tail];
        twin[target] = t;
        moved_twin[m] = t;
      }
      move_owner[m] = u;
      move_source[m] = tail;
      move_target[m] = target;
      ++hole;
    }
  }
  degree[u] = end - count - start[u];
}

// Append entries: rows (owner, neighbour, weight) in any order, in two
// launches that share `counts`, per-vertex scratch that is zero before the
// first and after the second.  The low 32 bits of a vertex's count number its
// pending rows (its tickets), the high 32 bits the rows of the second launch
// done with the list's values.  Rows whose slot is already set (>= 0) were
// placed by an earlier call and are left alone; a pending row holds -1.
//
// take_tickets: each pending row takes the next ticket of its list, kept in
// its slot as -2 - ticket until place_tickets.  Thread 0 clears the outgrown
// count (the host has read the last call's).
__global__ void take_tickets(const long long* owners, long long rows, long long* slots,
                             unsigned long long* counts, unsigned long long* outgrown_count)
{
  long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i == 0) *outgrown_count = 0;
  if (i >= rows || slots[i] >= 0) return;
  unsigned long long ticket = atomicAdd(&counts[owners[i]], 1ull) & 0xFFFFFFFFull;
  slots[i] = -2 - static_cast<long long>(ticket);
}

// place_tickets: a list with room for all its pending rows gets row `ticket`
// at start + degree + ticket; a list without reports itself once (its
// ticket-0 row) with the degree it needs, and its rows go back to -1.  The
// last row of a list to arrive (the high count reaches the low one) raises
// the degree of a list that had room and clears the count: every other row
// of the list read the degree before its own atomicAdd (the fences order the
// read before it).
template <typename W>
__global__ void place_tickets(const long long* owners, const long long* neighbours, const W* weights,
                              long long rows, const long long* start, long long* degree,
                              const long long* capacity, int* nbr, W* wgt, long long* slots,
                              unsigned long long* counts, long long* outgrown, long long* need,
                              unsigned long long* outgrown_count)
{
  long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i >= rows || slots[i] >= 0) return;
  long long ticket = -2 - slots[i];
  long long u = owners[i];
  long long fill = degree[u];
  __threadfence();
  unsigned long long seen = atomicAdd(&counts[u], 1ull << 32);
  long long tickets = static_cast<long long>(seen & 0xFFFFFFFFull);
  bool last = static_cast<long long>(seen >> 32) == tickets - 1;
  bool fits = fill + tickets <= capacity[u];
  if (fits) {
    long long at = start[u] + fill + ticket;
    nbr[at] = static_cast<int>(neighbours[i]);
    wgt[at] = weights[i];
    slots[i] = at;
  } else {
    slots[i] = -1;
    if (ticket == 0) {
      unsigned long long k = atomicAdd(outgrown_count, 1ull);
      outgrown[k] = u;
      need[k] = fill + tickets;
    }
  }
  if (last) {
    __threadfence();
    if (fits) degree[u] = fill + tickets;
    counts[u] = 0;
  }
}

// Plan the move of lists that outgrew their room (Backend.plan_moves), in one
// block of PLAN_THREADS threads: list k (vertices[k], needing need[k] slots)
// gets room[k] = 1.5x need[k] in whole units of `align` slots (at least one;
// backends.base.grown_room), from new_start[k] = base + the room of the lists
// before it; first[k] = the degrees of the lists before it (where its moves
// start).  old_start and old_capacity keep the journal's pre-images; totals
// receives the sums of the room, the degrees and the capacities.  The block
// scans the three columns a chunk of PLAN_THREADS lists at a time (warp
// shuffles, then the warps' sums) and carries the sums between chunks.
constexpr int PLAN_THREADS = 1024;

__global__ void plan_moves(const long long* vertices, const long long* need, long long count, long long base,
                           long long align, const long long* start, const long long* degree,
                           const long long* capacity, long long* new_start, long long* room, long long* first,
                           long long* old_start, long long* old_capacity, long long* totals)
{
  __shared__ long long warp_sums[3][PLAN_THREADS / 32];
  __shared__ long long carry[3];
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (threadIdx.x < 3) carry[threadIdx.x] = 0;
  __syncthreads();
  for (long long chunk = 0; chunk < count; chunk += PLAN_THREADS) {
    long long k = chunk + threadIdx.x;
    long long value[3] = {0, 0, 0};     // room, degree, capacity
    if (k < count) {
      long long u = vertices[k];
      long long units = (need[k] + need[k] / 2 + align - 1) / align;
      value[0] = (units > 1 ? units : 1) * align;
      value[1] = degree[u];
      value[2] = capacity[u];
      room[k] = value[0];
      old_start[k] = start[u];
      old_capacity[k] = value[2];
    }
    long long sum[3] = {value[0], value[1], value[2]};      // inclusive, within the warp
    for (int d = 1; d < 32; d <<= 1) {
      for (int j = 0; j < 3; ++j) {
        long long up = __shfl_up_sync(0xFFFFFFFFu, sum[j], d);
        if (lane >= d) sum[j] += up;
      }
    }
    if (lane == 31) {
      for (int j = 0; j < 3; ++j) warp_sums[j][warp] = sum[j];
    }
    __syncthreads();
    if (warp == 0) {                    // inclusive scan of the warps' sums
      for (int j = 0; j < 3; ++j) {
        long long w = warp_sums[j][lane];
        for (int d = 1; d < 32; d <<= 1) {
          long long up = __shfl_up_sync(0xFFFFFFFFu, w, d);
          if (lane >= d) w += up;
        }
        warp_sums[j][lane] = w;
      }
    }
    __syncthreads();
    if (k < count) {
      long long before[2];
      for (int j = 0; j < 2; ++j) before[j] = carry[j] + (warp ? warp_sums[j][warp - 1] : 0) + sum[j] - value[j];
      new_start[k] = base + before[0];
      first[k] = before[1];
    }
    __syncthreads();
    if (threadIdx.x < 3) carry[threadIdx.x] += warp_sums[threadIdx.x][PLAN_THREADS / 32 - 1];
    __syncthreads();
  }
  if (threadIdx.x < 3) totals[threadIdx.x] = carry[threadIdx.x];
}

// Move whole lists to fresh space: vertices[k]'s list goes to new_start[k]
// with room[k] slots, one warp per list; its entries are written out as
// moves (owner, source, target) from position first[k] on.  The list's start
// and capacity change once every lane has read the old start.
template <typename W>
__global__ void relocate_lists(const long long* vertices, long long count, const long long* new_start,
                               const long long* room, const long long* first, long long* start,
                               const long long* degree, long long* capacity, int* nbr, W* wgt, unsigned int* twin,
                               int has_twin, long long* move_owner, long long* move_source, long long* move_target)
{
  long long k = (blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x) / 32;
  if (k >= count) return;
  int lane = threadIdx.x & 31;
  long long u = vertices[k];
  long long from = start[u], to = new_start[k], at = first[k];
  for (long long i = lane, d = degree[u]; i < d; i += 32) {
    nbr[to + i] = nbr[from + i];
    wgt[to + i] = wgt[from + i];
    if (has_twin) twin[to + i] = twin[from + i];
    move_owner[at + i] = u;
    move_source[at + i] = from + i;
    move_target[at + i] = to + i;
  }
  __syncwarp();
  if (lane == 0) {
    start[u] = to;
    capacity[u] = room[k];
  }
}
