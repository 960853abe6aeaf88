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

// Append entries: rows (owner, neighbour, weight) sorted by owner.  One
// thread per row; the first row of each list places the list's rows after
// its entries when the list has room for them all (writing each row's slot),
// and otherwise reports the list as outgrown with the degree it needs.
// Rows whose slot is already set (>= 0) were placed by an earlier launch.
template <typename W>
__global__ void place_entries(const long long* owners, const long long* neighbours, const W* weights, long long rows,
                              const long long* start, long long* degree, const long long* capacity, int* nbr, W* wgt,
                              long long* slots, long long* outgrown, long long* need,
                              unsigned long long* outgrown_count)
{
  long long first = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (first >= rows) return;
  long long u = owners[first];
  if ((first > 0 && owners[first - 1] == u) || slots[first] >= 0) return;

  long long count = 0;
  while (first + count < rows && owners[first + count] == u) ++count;
  long long fill = degree[u];
  if (fill + count > capacity[u]) {
    unsigned long long k = atomicAdd(outgrown_count, 1ull);
    outgrown[k] = u;
    need[k] = fill + count;
    return;
  }
  long long at = start[u] + fill;
  for (long long i = 0; i < count; ++i) {
    nbr[at + i] = static_cast<int>(neighbours[first + i]);
    wgt[at + i] = weights[first + i];
    slots[first + i] = at + i;
  }
  degree[u] = fill + count;
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
