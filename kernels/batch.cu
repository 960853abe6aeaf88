// Batch reduction (cugraph_stream.engine.reduce): the net change of each edge
// named by a batch, from its rows sorted by arc key (row order kept within a key).
#include "hash.cuh"

namespace cgs {

// counters[] slots: net outcome per edge, plus delete rows that found no edge
enum NetCount { NET_INSERTED = 0, NET_DELETED = 1, NET_UPDATED = 2, NET_UNCHANGED = 3, NET_CANCELLED = 4,
                NET_IGNORED_ROWS = 5, NET_COUNTERS = 6 };

}  // namespace cgs

// One thread per row; the first row of each key walks its key's rows in order
// (keys repeat rarely, so the walk is short) starting from the edge's state in
// the store, and appends the edge to the inserted, deleted or updated list at
// an atomically claimed position.  A negative key (a delete row naming a vertex
// the graph lacks) names no edge: its rows are ignored.
// The edge's state before the batch comes from the arc index (`table`, over the
// out-adjacency `start`, `degree`, `nbr`) and the stored weights; deleted and
// updated edges are written out with their table positions.
template <typename W>
__global__ void net_changes(const long long* keys, const signed char* ops, const W* weights, long long rows,
                            const unsigned int* table, long long capacity, const long long* start,
                            const long long* degree,
                            const int* nbr, const W* stored, long long* inserted, W* inserted_w, long long* deleted,
                            long long* deleted_at, long long* updated, long long* updated_at, W* updated_w,
                            unsigned long long* counters)
{
  long long first = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (first >= rows) return;
  long long key = keys[first];
  if (first > 0 && keys[first - 1] == key) return;

  long long at = arc_probe(table, capacity, start, degree, nbr, key);
  bool present_before = at >= 0;
  W weight_before = present_before ? stored[table[at]] : W(0);
  bool present = present_before;
  W weight = weight_before;
  bool any_effect = false;
  unsigned long long ignored = 0;
  for (long long row = first; row < rows && keys[row] == key; ++row) {
    if (ops[row] == 1) {
      any_effect |= !present || weights[row] != weight;
      present = true;
      weight = weights[row];
    } else {
      any_effect |= present;
      ignored += !present;
      present = false;
    }
  }
  if (ignored) atomicAdd(counters + cgs::NET_IGNORED_ROWS, ignored);

  if (!present_before && present) {
    unsigned long long k = atomicAdd(counters + cgs::NET_INSERTED, 1ull);
    inserted[k] = key;
    inserted_w[k] = weight;
  } else if (present_before && !present) {
    unsigned long long k = atomicAdd(counters + cgs::NET_DELETED, 1ull);
    deleted[k] = key;
    deleted_at[k] = at;
  } else if (present && weight != weight_before) {
    unsigned long long k = atomicAdd(counters + cgs::NET_UPDATED, 1ull);
    updated[k] = key;
    updated_at[k] = at;
    updated_w[k] = weight;
  } else if (any_effect) {
    atomicAdd(counters + cgs::NET_CANCELLED, 1ull);
  } else if (present) {
    atomicAdd(counters + cgs::NET_UNCHANGED, 1ull);
  }
}
