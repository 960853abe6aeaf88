// Batch reduction (cugraph_stream.engine.reduce): the net change of each edge
// named by a batch, from its rows (u, v) in any order (net_group, then
// net_walk), or sorted by arc key with row order kept within a key
// (net_changes: one row, or the fallback for keys that repeat more than
// WALK_LIMIT times); a few rows named by external ids are looked up and
// reduced in one block (net_rows_block).  Each row's arc key is computed
// where it is read (row_key); each changed edge is written out with its ends.
#include "common.cuh"
#include "hash.cuh"

namespace cgs {

// counters[] slots: net outcome per edge, plus delete rows that found no edge,
// plus keys that repeat too often for net_walk (the host may copy a count of
// its own after them, read in the same wait: net_changes' unresolved)
enum NetCount { NET_INSERTED = 0, NET_DELETED = 1, NET_UPDATED = 2, NET_UNCHANGED = 3, NET_CANCELLED = 4,
                NET_IGNORED_ROWS = 5, NET_OVERFLOW = 6, NET_COUNTERS = 7 };

// rows of one key that net_walk puts in row order itself
constexpr int WALK_LIMIT = 128;

// The arc key (u << 32 | v) of row i; with `undirected`, of its endpoints in
// ascending order (u <= v).  A row naming a vertex the graph lacks (-1) gets a
// negative key, as engine.hash_index.arc_key gives it.
__device__ __forceinline__ long long row_key(const long long* u, const long long* v, long long i, int undirected)
{
  long long a = u[i], b = v[i];
  if (undirected && b < a) {
    long long t = a;
    a = b;
    b = t;
  }
  return static_cast<long long>(static_cast<unsigned long long>(a) << 32) | b;
}

// The rows of the changed-edge lists (each row `stride` long): inserted keys
// and ends, deleted ends and table positions, updated ends and positions.
enum NetEdgeRow { INSERTED_KEY = 0, INSERTED_U = 1, INSERTED_V = 2, DELETED_U = 3, DELETED_V = 4, DELETED_AT = 5,
                  UPDATED_U = 6, UPDATED_V = 7, UPDATED_AT = 8, NET_EDGE_ROWS = 9 };

__device__ __forceinline__ void write_edge(long long* edges, long long stride, int first_row, unsigned long long k,
                                           long long key)
{
  edges[first_row * stride + k] = key >> 32;
  edges[(first_row + 1) * stride + k] = key & 0xFFFFFFFFLL;
}

// The net change of one edge (`key`) through its `count` rows, row(j) being
// the j-th in row order, from the edge's state in the store: appended to the
// inserted, deleted or updated list at an atomically claimed position, or
// counted.  A negative key (a delete row naming a vertex the graph lacks)
// names no edge: its rows are ignored.  The edge's state before the batch
// comes from the arc index (`table`, over the out-adjacency `start`, `degree`,
// `nbr`) and the stored weights.  Each changed edge goes to `edges` (rows of
// NetEdgeRow, `stride` long) with its ends: inserted ones with their key,
// deleted and updated ones with their table positions; its weight after the
// batch to `changed_w` (row 0 inserted, row 1 updated).
template <typename W, typename Row>
__device__ void settle_edge(long long key, long long count, Row row, const signed char* ops, const W* weights,
                            const unsigned int* table, long long capacity, const long long* start,
                            const long long* degree, const int* nbr, const W* stored, long long* edges,
                            W* changed_w, long long stride, unsigned long long* counters)
{
  long long at = arc_probe(table, capacity, start, degree, nbr, key);
  bool present_before = at >= 0;
  W weight_before = present_before ? stored[table[at]] : W(0);
  bool present = present_before;
  W weight = weight_before;
  bool any_effect = false;
  unsigned long long ignored = 0;
  for (long long j = 0; j < count; ++j) {
    long long r = row(j);
    if (ops[r] == 1) {
      any_effect |= !present || weights[r] != weight;
      present = true;
      weight = weights[r];
    } else {
      any_effect |= present;
      ignored += !present;
      present = false;
    }
  }
  if (ignored) atomicAdd(counters + NET_IGNORED_ROWS, ignored);

  if (!present_before && present) {
    unsigned long long k = atomicAdd(counters + NET_INSERTED, 1ull);
    edges[INSERTED_KEY * stride + k] = key;
    write_edge(edges, stride, INSERTED_U, k, key);
    changed_w[k] = weight;
  } else if (present_before && !present) {
    unsigned long long k = atomicAdd(counters + NET_DELETED, 1ull);
    write_edge(edges, stride, DELETED_U, k, key);
    edges[DELETED_AT * stride + k] = at;
  } else if (present && weight != weight_before) {
    unsigned long long k = atomicAdd(counters + NET_UPDATED, 1ull);
    write_edge(edges, stride, UPDATED_U, k, key);
    edges[UPDATED_AT * stride + k] = at;
    changed_w[stride + k] = weight;
  } else if (any_effect) {
    atomicAdd(counters + NET_CANCELLED, 1ull);
  } else if (present) {
    atomicAdd(counters + NET_UNCHANGED, 1ull);
  }
}

}  // namespace cgs

#define NET_OUTPUTS                                                                                        \
  const signed char *ops, const W *weights, const unsigned int *table, long long capacity,               \
      const long long *start, const long long *degree, const int *nbr, const W *stored, long long *edges, \
      W *changed_w, unsigned long long *counters
#define NET_OUTPUT_ARGS ops, weights, table, capacity, start, degree, nbr, stored, edges, changed_w, rows, counters

// Rows sorted by key (row order kept within a key): one thread per row; the
// first row of each key walks its key's rows.
template <typename W>
__global__ void net_changes(const long long* u, const long long* v, int undirected, long long rows, NET_OUTPUTS)
{
  long long first = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (first >= rows) return;
  long long key = cgs::row_key(u, v, first, undirected);
  if (first > 0 && cgs::row_key(u, v, first - 1, undirected) == key) return;
  long long count = 1;
  while (first + count < rows && cgs::row_key(u, v, first + count, undirected) == key) ++count;
  cgs::settle_edge<W>(key, count, [=](long long j) { return first + j; }, NET_OUTPUT_ARGS);
}

// Rows in any order, in two launches over a batch table of `capacity_bits`
// bits (a power of two at least twice the rows; `group_key` and `group_head`
// all -1 before the first).
//
// net_group: each row of a non-negative key finds or claims its key's
// position in the batch table (linear probing) and pushes itself on the
// key's list of rows (`group_head`, `next_row`); the row that claimed the
// position walks the key in net_walk (`walker`).  Thread 0 clears `counters`.
__global__ void net_group(const long long* u, const long long* v, int undirected, long long rows, int capacity_bits,
                          long long* group_key, long long* group_head, long long* next_row, long long* walker,
                          unsigned long long* counters)
{
  long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i == 0) {
    for (int c = 0; c < cgs::NET_COUNTERS; ++c) counters[c] = 0;
  }
  if (i >= rows) return;
  long long key = cgs::row_key(u, v, i, undirected);
  walker[i] = -1;
  if (key < 0) return;
  long long mask = (1LL << capacity_bits) - 1;
  long long slot = home_slot(key, capacity_bits);
  while (true) {
    unsigned long long seen = atomicCAS(reinterpret_cast<unsigned long long*>(group_key + slot),
                                        static_cast<unsigned long long>(CGS_EMPTY),
                                        static_cast<unsigned long long>(key));
    if (seen == static_cast<unsigned long long>(CGS_EMPTY)) {
      walker[i] = slot;
      break;
    }
    if (seen == static_cast<unsigned long long>(key)) break;
    slot = (slot + 1) & mask;
  }
  next_row[i] = static_cast<long long>(atomicExch(reinterpret_cast<unsigned long long*>(group_head + slot),
                                                  static_cast<unsigned long long>(i)));
}

// net_walk: each walker gathers its key's rows from the list, puts them in row
// order and settles the edge; a key of more than WALK_LIMIT rows is left
// alone and counted (NET_OVERFLOW: the caller reduces the batch again from
// rows sorted by key).  A row of a negative key is an ignored delete row.
template <typename W>
__global__ void net_walk(const long long* u, const long long* v, int undirected, long long rows,
                         const long long* group_head, const long long* next_row, const long long* walker, NET_OUTPUTS)
{
  long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i >= rows) return;
  long long key = cgs::row_key(u, v, i, undirected);
  if (key < 0) {
    atomicAdd(counters + cgs::NET_IGNORED_ROWS, 1ull);
    return;
  }
  long long slot = walker[i];
  if (slot < 0) return;
  long long order[cgs::WALK_LIMIT];
  long long count = 0;
  for (long long r = group_head[slot]; r >= 0; r = next_row[r]) {
    if (count == cgs::WALK_LIMIT) {
      atomicAdd(counters + cgs::NET_OVERFLOW, 1ull);
      return;
    }
    long long j = count++;               // insertion: rows come newest first, mostly
    while (j > 0 && order[j - 1] > r) {
      order[j] = order[j - 1];
      --j;
    }
    order[j] = r;
  }
  cgs::settle_edge<W>(key, count, [&](long long j) { return order[j]; }, NET_OUTPUT_ARGS);
}

// A few rows (NET_ROWS_BLOCK at most) named by their ends' external ids, in
// one block: every end is looked up among the vertex table's external ids
// (`keys`, ascending; `values`: their internal ids; or its dense map,
// cgs::vertex_id) and its id written to
// `ids` (the sources, then the destinations; -1 where absent); the ends of
// insert rows that no vertex has go to `missing`, counted in
// counters[NET_COUNTERS].  Where there are none, each edge is settled as
// net_changes does, its key's first row walking the key's rows in row
// order; else nothing is settled (the rows are reduced again once those
// vertices exist).  The counters are cleared first.
constexpr int NET_ROWS_BLOCK = 64;

template <typename W>
__global__ void net_rows_block(const long long* keys, const long long* values, long long size,
                               const long long* src, const long long* dst, int undirected, long long rows,
                               long long* ids, long long* missing, NET_OUTPUTS)
{
  __shared__ unsigned long long absent;
  if (threadIdx.x == 0) {
    for (int c = 0; c < cgs::NET_COUNTERS; ++c) counters[c] = 0;
    absent = 0;
  }
  __syncthreads();
  for (long long k = threadIdx.x; k < 2 * rows; k += blockDim.x) {
    long long row = k < rows ? k : k - rows;
    long long q = k < rows ? src[row] : dst[row];
    long long found = cgs::vertex_id(keys, values, size, q);
    ids[k] = found;
    if (found < 0 && ops[row] == 1) missing[atomicAdd(&absent, 1ull)] = q;
  }
  __syncthreads();
  if (threadIdx.x == 0) counters[cgs::NET_COUNTERS] = absent;
  if (absent) return;
  const long long *u = ids, *v = ids + rows;
  for (long long first = threadIdx.x; first < rows; first += blockDim.x) {
    long long key = cgs::row_key(u, v, first, undirected);
    bool later = false;                  // (a row of this key came before: that one walks it)
    for (long long j = 0; j < first && !later; ++j) later = cgs::row_key(u, v, j, undirected) == key;
    if (later) continue;
    long long order[NET_ROWS_BLOCK];
    long long count = 0;
    for (long long j = first; j < rows; ++j)
      if (cgs::row_key(u, v, j, undirected) == key) order[count++] = j;
    cgs::settle_edge<W>(key, count, [&](long long j) { return order[j]; }, NET_OUTPUT_ARGS);
  }
}

#undef NET_OUTPUT_ARGS
#undef NET_OUTPUTS

// The arc key (cgs::row_key) of each row.
__global__ void arc_keys(const long long* u, const long long* v, long long rows, int undirected, long long* keys)
{
  long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i >= rows) return;
  keys[i] = cgs::row_key(u, v, i, undirected);
}
