// Updates of the gapped CSR (cugraph_stream.engine.adjacency) that run per list.

#include "common.cuh"

// Remove entries: rows (owner, slot) in any order, slots distinct.  A list
// that loses `c` entries keeps its first degree - c positions (below its
// boundary); every removed slot below the boundary (a hole) takes one of the
// entries that survive in the tail [boundary, end), and the degree drops.
// `twin` (slot pointers: 4 bytes, see adjacency.SLOT_DTYPE) is read only where
// `has_twin`.  Each move is written out (owner, source, target) so that
// whoever indexes slots can follow it, with the values it moved (moved_nbr,
// moved_wgt, moved_twin: what the source slot still holds).  With `keep`, the
// pre-images a journal needs are written too, per row: the removed entry's
// values (old_nbr, old_wgt, old_twin) and its list's degree before the call
// (old_degree).
//
// Four phases, each over every row, with no sort: the rows of a list meet
// through `counts` (per-vertex scratch, zero before and after, shared with
// place_entries) and `pairs` (batch scratch of 5 words a row).
//   mark:    row i takes ticket t of its list (low half of counts[u]), writes
//            its pre-images, then marks its slot removed (nbr -1: ids are
//            never negative);
//   reserve: the ticket-0 row reserves the list's 3 + 2c words of `pairs`
//            (a header: survivors, holes, c; then c hole slots, c survivor
//            slots) and publishes the base in the high half of counts[u];
//   pair:    row t looks at tail position boundary + t: unmarked, it is a
//            survivor and takes the next survivor rank; the row's own slot, if
//            below the boundary, is a hole and takes the next hole rank;
//   move:    row t moves survivor t into hole t (holes and survivors are as
//            many); the ticket-0 row lowers the degree and clears counts[u].
// Marked tail slots stay marked: they lie past the new degree, and a journal
// restores them from the pre-images.  `top` and `moved` are cleared by the
// first phase's thread 0.  remove_entries_block runs the four phases in one
// block (one launch, for batches of few rows); the four kernels after it run
// them in four launches.
struct RemoveRows {
  const long long* slots;
  const long long* owners;
  long long rows;
  unsigned long long* counts;
  unsigned long long* pairs;
  unsigned int* tickets;
  unsigned long long* bases;
  unsigned long long* top;
};

template <typename W>
struct RemoveLists {
  const long long* start;
  long long* degree;
  int* nbr;
  W* wgt;
  unsigned int* twin;
  int has_twin;
};

template <typename W>
struct RemoveOut {
  int keep;
  int* old_nbr;
  W* old_wgt;
  unsigned int* old_twin;
  long long* old_degree;
  long long* move_owner;
  long long* move_source;
  long long* move_target;
  int* moved_nbr;
  W* moved_wgt;
  unsigned int* moved_twin;
  unsigned long long* moved;
};

constexpr unsigned long long LOW_HALF = 0xFFFFFFFFull;

template <typename W>
__device__ void remove_mark_row(const RemoveRows& r, const RemoveLists<W>& l, const RemoveOut<W>& o, long long i)
{
  long long u = r.owners[i];
  long long s = r.slots[i];
  r.tickets[i] = static_cast<unsigned int>(atomicAdd(&r.counts[u], 1ull) & LOW_HALF);
  if (o.keep) {
    o.old_nbr[i] = l.nbr[s];
    o.old_wgt[i] = l.wgt[s];
    if (l.has_twin) o.old_twin[i] = l.twin[s];
    o.old_degree[i] = l.degree[u];
  }
  l.nbr[s] = -1;
}

__device__ void remove_reserve_row(const RemoveRows& r, long long i)
{
  if (r.tickets[i] != 0) return;
  long long u = r.owners[i];
  unsigned long long c = r.counts[u] & LOW_HALF;
  unsigned long long base = atomicAdd(r.top, 3 + 2 * c);
  r.pairs[base] = 0;
  r.pairs[base + 1] = 0;
  r.pairs[base + 2] = c;
  r.counts[u] = c | (base << 32);
}

template <typename W>
__device__ void remove_pair_row(const RemoveRows& r, const RemoveLists<W>& l, long long i)
{
  long long u = r.owners[i];
  unsigned long long held = r.counts[u];
  long long c = static_cast<long long>(held & LOW_HALF);
  unsigned long long base = held >> 32;
  r.bases[i] = base;
  long long boundary = l.start[u] + l.degree[u] - c;
  long long tail = boundary + r.tickets[i];
  if (l.nbr[tail] != -1) {
    unsigned long long rank = atomicAdd(&r.pairs[base], 1ull);
    r.pairs[base + 3 + c + rank] = static_cast<unsigned long long>(tail);
  }
  if (r.slots[i] < boundary) {
    unsigned long long rank = atomicAdd(&r.pairs[base + 1], 1ull);
    r.pairs[base + 3 + rank] = static_cast<unsigned long long>(r.slots[i]);
  }
}

template <typename W>
__device__ void remove_move_row(const RemoveRows& r, const RemoveLists<W>& l, const RemoveOut<W>& o, long long i)
{
  long long u = r.owners[i];
  unsigned long long base = r.bases[i];
  unsigned long long c = r.pairs[base + 2];
  unsigned long long t = r.tickets[i];
  if (t < r.pairs[base + 1]) {
    long long target = static_cast<long long>(r.pairs[base + 3 + t]);
    long long source = static_cast<long long>(r.pairs[base + 3 + c + t]);
    unsigned long long m = atomicAdd(o.moved, 1ull);
    int n = l.nbr[source];
    W w = l.wgt[source];
    l.nbr[target] = n;
    l.wgt[target] = w;
    o.moved_nbr[m] = n;
    o.moved_wgt[m] = w;
    if (l.has_twin) {
      unsigned int tw = l.twin[source];
      l.twin[target] = tw;
      o.moved_twin[m] = tw;
    }
    o.move_owner[m] = u;
    o.move_source[m] = source;
    o.move_target[m] = target;
  }
  if (t == 0) {
    l.degree[u] -= static_cast<long long>(c);
    r.counts[u] = 0;
  }
}

// One adjacency's removal: its rows, its lists and its outputs.
template <typename W>
struct RemoveSide {
  RemoveRows r;
  RemoveLists<W> l;
  RemoveOut<W> o;
};

// The four phases over every row in one block (a barrier between them).
template <typename W>
__device__ void remove_in_block(const RemoveSide<W>& s)
{
  if (threadIdx.x == 0) { *s.r.top = 0; *s.o.moved = 0; }
  __syncthreads();
  for (long long i = threadIdx.x; i < s.r.rows; i += blockDim.x) remove_mark_row(s.r, s.l, s.o, i);
  __syncthreads();
  for (long long i = threadIdx.x; i < s.r.rows; i += blockDim.x) remove_reserve_row(s.r, i);
  __syncthreads();
  for (long long i = threadIdx.x; i < s.r.rows; i += blockDim.x) remove_pair_row(s.r, s.l, i);
  __syncthreads();
  for (long long i = threadIdx.x; i < s.r.rows; i += blockDim.x) remove_move_row(s.r, s.l, s.o, i);
}

// Phase `phase` (0 mark, 1 reserve, 2 pair, 3 move) of row i, a thread a row.
template <typename W>
__device__ void remove_phase_row(int phase, const RemoveSide<W>& s, long long i)
{
  if (phase == 0 && i == 0) { *s.r.top = 0; *s.o.moved = 0; }
  if (i >= s.r.rows) return;
  if (phase == 0) remove_mark_row(s.r, s.l, s.o, i);
  else if (phase == 1) remove_reserve_row(s.r, i);
  else if (phase == 2) remove_pair_row(s.r, s.l, i);
  else remove_move_row(s.r, s.l, s.o, i);
}

// The kernels take the rows, `keep`, then each side's fields flat (CuPy passes
// scalars and pointers), suffixed by its grid row, and build the structs.
#define REMOVE_SIDE_PARAMS(k)                                                                            \
  const long long *slots##k, const long long *owners##k, unsigned long long *counts##k,                  \
      unsigned long long *pairs##k, unsigned int *tickets##k, unsigned long long *bases##k,              \
      unsigned long long *top##k, const long long *start##k, long long *degree##k, int *nbr##k, W *wgt##k, \
      unsigned int *twin##k, int has_twin##k, int *old_nbr##k, W *old_wgt##k, unsigned int *old_twin##k,  \
      long long *old_degree##k, long long *move_owner##k, long long *move_source##k,                      \
      long long *move_target##k, int *moved_nbr##k, W *moved_wgt##k, unsigned int *moved_twin##k,         \
      unsigned long long *moved##k
#define REMOVE_SIDE(k)                                                                                   \
  RemoveSide<W>{RemoveRows{slots##k, owners##k, rows, counts##k, pairs##k, tickets##k, bases##k, top##k}, \
                RemoveLists<W>{start##k, degree##k, nbr##k, wgt##k, twin##k, has_twin##k},                 \
                RemoveOut<W>{keep, old_nbr##k, old_wgt##k, old_twin##k, old_degree##k, move_owner##k,       \
                             move_source##k, move_target##k, moved_nbr##k, moved_wgt##k, moved_twin##k,     \
                             moved##k}}
#define REMOVE_PARAMS long long rows, int keep, REMOVE_SIDE_PARAMS(0)
#define REMOVE_ARCS_PARAMS long long rows, int keep, REMOVE_SIDE_PARAMS(0), REMOVE_SIDE_PARAMS(1)

// remove_entries (Backend.remove_entries): one adjacency
template <typename W>
__global__ void remove_entries_block(REMOVE_PARAMS)
{
  remove_in_block(REMOVE_SIDE(0));
}

template <typename W>
__global__ void remove_mark(REMOVE_PARAMS)
{
  remove_phase_row(0, REMOVE_SIDE(0), blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x);
}

template <typename W>
__global__ void remove_reserve(REMOVE_PARAMS)
{
  remove_phase_row(1, REMOVE_SIDE(0), blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x);
}

template <typename W>
__global__ void remove_pair(REMOVE_PARAMS)
{
  remove_phase_row(2, REMOVE_SIDE(0), blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x);
}

template <typename W>
__global__ void remove_move(REMOVE_PARAMS)
{
  remove_phase_row(3, REMOVE_SIDE(0), blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x);
}

// remove_arcs (Backend.remove_arcs): the deleted arcs' out-entries (grid row 0)
// and in-entries (grid row 1), as many rows each, both adjacencies in every
// launch; each side has its own per-vertex counts and scratch (the two run at
// once).  remove_arcs_block runs the four phases in one block per side, one
// launch for a few rows; remove_arcs_phase runs phase `phase` of both.
template <typename W>
__global__ void remove_arcs_block(REMOVE_ARCS_PARAMS)
{
  remove_in_block(blockIdx.y == 1 ? REMOVE_SIDE(1) : REMOVE_SIDE(0));
}

template <typename W>
__global__ void remove_arcs_phase(int phase, REMOVE_ARCS_PARAMS)
{
  remove_phase_row(phase, blockIdx.y == 1 ? REMOVE_SIDE(1) : REMOVE_SIDE(0),
                   blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x);
}

#undef REMOVE_ARCS_PARAMS
#undef REMOVE_PARAMS
#undef REMOVE_SIDE
#undef REMOVE_SIDE_PARAMS

// Append entries: rows (owner, neighbour, weight) in any order, in two
// launches that share `counts`, per-vertex scratch that is zero before the
// first and after the second.  The low 32 bits of a vertex's count number its
// pending rows (its tickets), the high 32 bits the rows of the second launch
// done with the list's values.  Rows whose slot is already set (>= 0) were
// placed by an earlier call and are left alone; a pending row holds -1.
//
// take_tickets: each pending row (every row, with `fresh`: its slot holds
// nothing yet) takes the next ticket of its list, kept in its slot as
// -2 - ticket until place_tickets.  Thread 0 clears the outgrown count.
// Every row also copies its list's degree to fill[i] (the journal's
// pre-image, and the fill place_tickets starts from: it raises degrees,
// and a kernel boundary orders every read of them before its writes).
__device__ __forceinline__ void take_ticket_row(const long long* owners, long long i, int fresh, long long* slots,
                                                unsigned long long* counts, const long long* degree, long long* fill)
{
  fill[i] = degree[owners[i]];
  if (!fresh && slots[i] >= 0) return;
  unsigned long long ticket = atomicAdd(&counts[owners[i]], 1ull) & 0xFFFFFFFFull;
  slots[i] = -2 - static_cast<long long>(ticket);
}

__global__ void take_tickets(const long long* owners, long long rows, int fresh, long long* slots,
                             unsigned long long* counts, unsigned long long* outgrown_count,
                             const long long* degree, long long* fill)
{
  long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i == 0) *outgrown_count = 0;
  if (i >= rows) return;
  take_ticket_row(owners, i, fresh, slots, counts, degree, fill);
}

// place_tickets: a list with room for all its pending rows gets row `ticket`
// at start + fill + ticket; a list without reports itself once (its
// ticket-0 row) with the degree it needs, and its rows keep -2 - their
// ticket (for place_kept_tickets; with must_fit, where every list was given
// room, such a list also sets fault bit 2: backends/gpu.py DEVICE_FAULTS).
// The last row of a list to arrive (the high count reaches the low one)
// raises the degree of a list that had room and clears the count.
template <typename W>
__device__ __forceinline__ void place_ticket_row(const long long* owners, const long long* neighbours, const W* weights,
                                                 long long i, const long long* fill_of, const long long* start,
                                                 long long* degree, const long long* capacity, int* nbr, W* wgt,
                                                 long long* slots, unsigned long long* counts, long long* outgrown,
                                                 long long* need, unsigned long long* outgrown_count, int must_fit,
                                                 unsigned int* faults)
{
  if (slots[i] >= 0) return;
  long long ticket = -2 - slots[i];
  long long u = owners[i];
  long long fill = fill_of[i];
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
    slots[i] = -2 - ticket;
    if (must_fit) atomicOr(faults, 2u);
    if (ticket == 0) {
      unsigned long long k = atomicAdd(outgrown_count, 1ull);
      outgrown[k] = u;
      need[k] = fill + tickets;
    }
  }
  if (last) {
    if (fits) degree[u] = fill + tickets;
    counts[u] = 0;
  }
}

template <typename W>
__global__ void place_tickets(const long long* owners, const long long* neighbours, const W* weights,
                              long long rows, const long long* fill_of, const long long* start, long long* degree,
                              const long long* capacity, int* nbr, W* wgt, long long* slots,
                              unsigned long long* counts, long long* outgrown, long long* need,
                              unsigned long long* outgrown_count, int must_fit, unsigned int* faults)
{
  long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i >= rows) return;
  place_ticket_row(owners, neighbours, weights, i, fill_of, start, degree, capacity, nbr, wgt, slots, counts,
                   outgrown, need, outgrown_count, must_fit, faults);
}

// place_kept_tickets: the rows of lists that lacked room in place_tickets,
// once those lists moved to room enough (Backend.place_entries' `kept`):
// each still holds -2 - its ticket in its slot, and fill_of[i] its list's
// degree then (unchanged by the move), so it goes to start + fill + ticket
// without taking a ticket again; the list's degree becomes its highest such
// place plus one.  A row without room sets fault bit 2 (as must_fit does).
template <typename W>
__global__ void place_kept_tickets(const long long* owners, const long long* neighbours, const W* weights,
                                   long long rows, const long long* fill_of, const long long* start,
                                   long long* degree, const long long* capacity, int* nbr, W* wgt, long long* slots,
                                   unsigned int* faults)
{
  long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i >= rows || slots[i] >= 0) return;
  long long u = owners[i];
  long long place = fill_of[i] + (-2 - slots[i]);
  if (slots[i] == -1 || place >= capacity[u]) {
    atomicOr(faults, 2u);
    return;
  }
  long long at = start[u] + place;
  nbr[at] = static_cast<int>(neighbours[i]);
  wgt[at] = weights[i];
  slots[i] = at;
  atomicMax(&degree[u], place + 1);
}

// place_arcs (Backend.place_arcs): the arcs u -> v in the out-adjacency
// (grid row 0: owners u) and their reverses in the in-adjacency (grid row 1:
// owners v), as take_tickets then place_tickets place fresh rows, both
// adjacencies in each of the two launches.  Each adjacency has its own per-vertex
// `counts` (the two run at once).  place_arcs_block runs both phases in one
// block per adjacency (a barrier between them), one launch for a few rows.
template <typename W>
struct ArcLists {
  const long long* start;
  long long* degree;
  const long long* capacity;
  int* nbr;
  W* wgt;
  unsigned long long* counts;
  long long* slots;
  long long* fill;
  long long* outgrown;
  long long* need;
  unsigned long long* outgrown_count;
};

// one adjacency's parameters of the place_arcs kernels, suffixed by its grid row
#define ARC_LISTS_PARAMS(k)                                                                              \
  const long long *start##k, long long *degree##k, const long long *capacity##k, int *nbr##k, W *wgt##k, \
      unsigned long long *counts##k, long long *slots##k, long long *fill##k, long long *outgrown##k,    \
      long long *need##k, unsigned long long *outgrown_count##k
#define ARC_LISTS(k)                                                                                     \
  ArcLists<W>{start##k, degree##k, capacity##k, nbr##k, wgt##k, counts##k, slots##k, fill##k, outgrown##k,  \
              need##k, outgrown_count##k}
#define PLACE_ARCS_PARAMS                                                                                \
  const long long *u, const long long *v, const W *weights, long long rows, ARC_LISTS_PARAMS(0),       \
      ARC_LISTS_PARAMS(1), unsigned int *faults

template <typename W>
__device__ __forceinline__ void take_arc_ticket(const ArcLists<W>& l, const long long* owners, long long i)
{
  take_ticket_row(owners, i, 1, l.slots, l.counts, l.degree, l.fill);
}

template <typename W>
__device__ __forceinline__ void place_arc_ticket(const ArcLists<W>& l, const long long* owners,
                                                 const long long* neighbours, const W* weights, long long i,
                                                 unsigned int* faults)
{
  place_ticket_row(owners, neighbours, weights, i, l.fill, l.start, l.degree, l.capacity, l.nbr, l.wgt, l.slots,
                   l.counts, l.outgrown, l.need, l.outgrown_count, 0, faults);
}

template <typename W>
__global__ void take_arc_tickets(PLACE_ARCS_PARAMS)
{
  bool in = blockIdx.y == 1;
  ArcLists<W> l = in ? ARC_LISTS(1) : ARC_LISTS(0);
  long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i == 0) *l.outgrown_count = 0;
  if (i < rows) take_arc_ticket(l, in ? v : u, i);
}

template <typename W>
__global__ void place_arc_tickets(PLACE_ARCS_PARAMS)
{
  bool in = blockIdx.y == 1;
  ArcLists<W> l = in ? ARC_LISTS(1) : ARC_LISTS(0);
  long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i < rows) place_arc_ticket(l, in ? v : u, in ? u : v, weights, i, faults);
}

template <typename W>
__global__ void place_arcs_block(PLACE_ARCS_PARAMS)
{
  bool in = blockIdx.y == 1;
  ArcLists<W> l = in ? ARC_LISTS(1) : ARC_LISTS(0);
  const long long* owners = in ? v : u;
  if (threadIdx.x == 0) *l.outgrown_count = 0;
  for (long long i = threadIdx.x; i < rows; i += blockDim.x) take_arc_ticket(l, owners, i);
  __syncthreads();      // (orders every degree read of the tickets before the placement's writes)
  for (long long i = threadIdx.x; i < rows; i += blockDim.x)
    place_arc_ticket(l, owners, in ? u : v, weights, i, faults);
}

#undef PLACE_ARCS_PARAMS
#undef ARC_LISTS
#undef ARC_LISTS_PARAMS

// Plan the move of lists that outgrew their room (Backend.plan_moves): list
// k (vertices[k], needing need[k] slots) gets room[k], the size class of 1.5x
// need[k] (backends.base.grown_room: a power of two from MIN_LIST_SLOTS below
// `align`, whole units of `align` slots from there), laid out region after
// region (backends.base.room_regions: whole units first, then each smaller
// class) and in the lists' order within a region, so that every list starts
// at a multiple of its class: new_start[k] = base + the room of the regions
// before its own + the room of the lists before it in its region; first[k] =
// the degrees of the lists before it (where its moves start).  old_start and
// old_capacity keep the journal's pre-images; totals receives the room
// (padded to whole units, so the next plan starts aligned), the degrees, and
// the capacities given up with the padding.  Blocks of PLAN_THREADS threads
// scan the PLAN_COLUMNS columns (each region's room, the degrees, the
// capacities) a chunk of PLAN_THREADS lists at a time (warp shuffles, then
// the warps' sums), writing each list's place within its region; a last pass
// adds its region's start.  One block (block_sums null) walks every chunk and
// carries the sums between them; for more lists, plan_block_sums first sums
// each chunk, plan_chunk_offsets (one block) turns those sums into each
// chunk's offsets (the sums of the chunks before it) and every column's sum,
// and then block b of plan_moves scans chunk b from its offsets (the last
// block writes the totals).  `count_at`, where not null, holds how many
// of the `count` lists there are (a placement's count left on the device):
// the blocks are then laid out for `count`, a bound, and the lists past the
// count add nothing.
constexpr int PLAN_THREADS = 1024;
constexpr int PLAN_REGIONS = 4;           // align / MIN_LIST_SLOTS is at most 8: units, then three classes
constexpr int PLAN_COLUMNS = PLAN_REGIONS + 2;
constexpr long long MIN_LIST_SLOTS = 4;   // backends.base.MIN_LIST_SLOTS

// the size class of 1.5x `need` slots (backends.base.grown_room)
__device__ __forceinline__ long long grown_room(long long need, long long align)
{
  long long want = need + need / 2;
  if (want >= align) return (want + align - 1) / align * align;
  long long room = MIN_LIST_SLOTS;
  while (room < want) room <<= 1;
  return room;
}

// the region of a list of `room` slots (backends.base.room_regions)
__device__ __forceinline__ int room_region(long long room, long long align)
{
  int region = 0;
  for (long long c = align; c > room; c >>= 1) ++region;
  return region;
}

// list k's room (in its region's column), degree and capacity (zeros past the count)
__device__ __forceinline__ void plan_values(const long long* vertices, const long long* need, long long count,
                                            long long align, const long long* degree, const long long* capacity,
                                            long long k, long long (&value)[PLAN_COLUMNS], int& region)
{
  for (int j = 0; j < PLAN_COLUMNS; ++j) value[j] = 0;
  region = 0;
  if (k >= count) return;
  long long u = vertices[k], room = grown_room(need[k], align);
  region = room_region(room, align);
  value[region] = room;
  value[PLAN_REGIONS] = degree[u];
  value[PLAN_REGIONS + 1] = capacity[u];
}

// Inclusive scan of the block's columns: sum[j] becomes the thread's running
// total within the block, warp_sums[j][PLAN_THREADS / 32 - 1] the block's.
// Every thread calls it.
__device__ __forceinline__ void plan_block_scan(const long long (&value)[PLAN_COLUMNS],
                                                long long (&sum)[PLAN_COLUMNS],
                                                long long (&warp_sums)[PLAN_COLUMNS][PLAN_THREADS / 32])
{
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  for (int j = 0; j < PLAN_COLUMNS; ++j) sum[j] = value[j];
  for (int d = 1; d < 32; d <<= 1) {
    for (int j = 0; j < PLAN_COLUMNS; ++j) {
      long long up = __shfl_up_sync(0xFFFFFFFFu, sum[j], d);
      if (lane >= d) sum[j] += up;
    }
  }
  if (lane == 31) {
    for (int j = 0; j < PLAN_COLUMNS; ++j) warp_sums[j][warp] = sum[j];
  }
  __syncthreads();
  if (warp == 0) {                    // inclusive scan of the warps' sums
    for (int j = 0; j < PLAN_COLUMNS; ++j) {
      long long w = warp_sums[j][lane];
      for (int d = 1; d < 32; d <<= 1) {
        long long up = __shfl_up_sync(0xFFFFFFFFu, w, d);
        if (lane >= d) w += up;
      }
      warp_sums[j][lane] = w;
    }
  }
  __syncthreads();
  if (warp) {
    for (int j = 0; j < PLAN_COLUMNS; ++j) sum[j] += warp_sums[j][warp - 1];
  }
}

// block_sums[j * gridDim.x + b]: the sum of column j over chunk b (count_at: as plan_moves')
__global__ void __launch_bounds__(PLAN_THREADS)
plan_block_sums(const long long* vertices, const long long* need, long long count,
                const unsigned long long* count_at, long long align, const long long* degree,
                const long long* capacity, long long* block_sums)
{
  __shared__ long long warp_sums[PLAN_COLUMNS][PLAN_THREADS / 32];
  if (count_at) count = static_cast<long long>(*count_at);
  long long value[PLAN_COLUMNS], sum[PLAN_COLUMNS];
  int region;
  plan_values(vertices, need, count, align, degree, capacity, blockIdx.x * static_cast<long long>(PLAN_THREADS) +
              threadIdx.x, value, region);
  plan_block_scan(value, sum, warp_sums);
  if (threadIdx.x < PLAN_COLUMNS) {
    block_sums[threadIdx.x * gridDim.x + blockIdx.x] = warp_sums[threadIdx.x][PLAN_THREADS / 32 - 1];
  }
}

// plan_block_sums' sums of `chunks` chunks become, in place, each chunk's
// offsets: block_sums[j * chunks + b] the sum of column j over the chunks
// before b; block_sums[PLAN_COLUMNS * chunks + j] receives column j's sum over
// every chunk.  One block, PLAN_THREADS chunks at a time.
__global__ void __launch_bounds__(PLAN_THREADS)
plan_chunk_offsets(long long* block_sums, long long chunks)
{
  __shared__ long long warp_sums[PLAN_COLUMNS][PLAN_THREADS / 32];
  __shared__ long long carry[PLAN_COLUMNS];
  if (threadIdx.x < PLAN_COLUMNS) carry[threadIdx.x] = 0;
  __syncthreads();
  for (long long first = 0; first < chunks; first += PLAN_THREADS) {
    long long b = first + threadIdx.x;
    long long value[PLAN_COLUMNS], sum[PLAN_COLUMNS];
    for (int j = 0; j < PLAN_COLUMNS; ++j) value[j] = b < chunks ? block_sums[j * chunks + b] : 0;
    plan_block_scan(value, sum, warp_sums);
    if (b < chunks) {
      for (int j = 0; j < PLAN_COLUMNS; ++j) block_sums[j * chunks + b] = carry[j] + sum[j] - value[j];
    }
    __syncthreads();
    if (threadIdx.x < PLAN_COLUMNS) carry[threadIdx.x] += warp_sums[threadIdx.x][PLAN_THREADS / 32 - 1];
    __syncthreads();
  }
  if (threadIdx.x < PLAN_COLUMNS) block_sums[PLAN_COLUMNS * chunks + threadIdx.x] = carry[threadIdx.x];
}

__global__ void __launch_bounds__(PLAN_THREADS)
plan_moves(const long long* vertices, const long long* need, long long count,
           const unsigned long long* count_at, long long base, long long align,
           const long long* start, const long long* degree, const long long* capacity,
           long long* new_start, long long* room, long long* first, long long* old_start,
           long long* old_capacity, long long* totals, const long long* block_sums)
{
  __shared__ long long warp_sums[PLAN_COLUMNS][PLAN_THREADS / 32];
  __shared__ long long carry[PLAN_COLUMNS], sums[PLAN_COLUMNS], region_start[PLAN_REGIONS];
  if (count_at) count = static_cast<long long>(*count_at);
  long long chunk = 0, chunk_end = count;
  if (threadIdx.x < PLAN_COLUMNS) carry[threadIdx.x] = 0;
  if (block_sums != nullptr) {          // chunk b only, from its offsets (plan_chunk_offsets)
    chunk = blockIdx.x * static_cast<long long>(PLAN_THREADS);
    chunk_end = chunk + 1;
    if (threadIdx.x < PLAN_COLUMNS) carry[threadIdx.x] = block_sums[threadIdx.x * gridDim.x + blockIdx.x];
  }
  const long long pass_begin = chunk, pass_end = block_sums != nullptr ? chunk + PLAN_THREADS : count;
  __syncthreads();
  for (; chunk < chunk_end; chunk += PLAN_THREADS) {
    long long k = chunk + threadIdx.x;
    long long value[PLAN_COLUMNS], sum[PLAN_COLUMNS];
    int region;
    plan_values(vertices, need, count, align, degree, capacity, k, value, region);
    plan_block_scan(value, sum, warp_sums);
    if (k < count) {
      room[k] = value[region];
      old_start[k] = start[vertices[k]];
      old_capacity[k] = value[PLAN_REGIONS + 1];
      new_start[k] = carry[region] + sum[region] - value[region];      // within its region, for now
      first[k] = carry[PLAN_REGIONS] + sum[PLAN_REGIONS] - value[PLAN_REGIONS];
    }
    __syncthreads();
    if (threadIdx.x < PLAN_COLUMNS) carry[threadIdx.x] += warp_sums[threadIdx.x][PLAN_THREADS / 32 - 1];
    __syncthreads();
  }
  // every column's sum over all lists: the carries (one block), or plan_chunk_offsets' sums
  if (threadIdx.x < PLAN_COLUMNS) {
    sums[threadIdx.x] = block_sums != nullptr ? block_sums[PLAN_COLUMNS * gridDim.x + threadIdx.x]
                                              : carry[threadIdx.x];
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    long long at = base;
    for (int r = 0; r < PLAN_REGIONS; ++r) {
      region_start[r] = at;
      at += sums[r];
    }
  }
  __syncthreads();
  for (long long k = pass_begin + threadIdx.x; k < count && k < pass_end; k += PLAN_THREADS)
    new_start[k] += region_start[room_region(room[k], align)];      // (room[k]: written by this thread)
  if (threadIdx.x == 0 && blockIdx.x == gridDim.x - 1) {
    long long room_total = 0;
    for (int r = 0; r < PLAN_REGIONS; ++r) room_total += sums[r];
    long long padding = (align - room_total % align) % align;
    totals[0] = room_total + padding;
    totals[1] = sums[PLAN_REGIONS];
    totals[2] = sums[PLAN_REGIONS + 1] + padding;
  }
}

// Move whole lists to fresh space, one thread per entry moved, in two
// launches: relocate_entries copies list k's entries (vertices[k]'s) to
// new_start[k] on (nbr, wgt and, where `has_twin`, twin move together) and
// writes each move out (owner, source, target) from position first[k] on;
// relocate_lists then gives every list its new start and room[k] slots (the
// first launch read the old starts).  Entry i belongs to the last list k with
// first[k] <= i (a binary search: lists without entries share their first
// with the next list).
template <typename W>
__global__ void relocate_entries(const long long* vertices, long long count, const long long* new_start,
                                 const long long* first, long long moved, const long long* start, int* nbr, W* wgt,
                                 unsigned int* twin, int has_twin, long long* move_owner, long long* move_source,
                                 long long* move_target)
{
  long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i >= moved) return;
  long long lo = 0, hi = count;       // the first list with first[k] > i
  while (lo < hi) {
    long long mid = lo + (hi - lo) / 2;
    if (first[mid] <= i) lo = mid + 1; else hi = mid;
  }
  long long k = lo - 1, u = vertices[k];
  long long from = start[u] + (i - first[k]), to = new_start[k] + (i - first[k]);
  nbr[to] = nbr[from];
  wgt[to] = wgt[from];
  if (has_twin) twin[to] = twin[from];
  move_owner[i] = u;
  move_source[i] = from;
  move_target[i] = to;
}

__global__ void relocate_lists(const long long* vertices, long long count, const long long* new_start,
                               const long long* room, long long* start, long long* capacity)
{
  long long k = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (k >= count) return;
  start[vertices[k]] = new_start[k];
  capacity[vertices[k]] = room[k];
}
