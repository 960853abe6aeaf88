// A batch of one row, in one thread of one launch (Backend.apply_single_row,
// cugraph_stream.engine.single_row): the row's ends are looked up among the
// vertex table's external ids (`keys`, ascending; `values`: their internal
// ids; or its dense map: cgs::vertex_id), its edge is found in the arc
// index, and the row is applied to the lists and the index where it needs
// no vertex created and no list moved.
// Anything else writes nothing but the status SINGLE_FALLBACK, and the batch
// takes the general path.
//
// A directed graph keeps arc u -> v in u's out-list (its twin pointing at the
// in-entry) and in v's in-list; an undirected one (`undirected`: the ends
// ordered u <= v, the "in" arrays the out-adjacency's own, no twins) keeps
// the arcs u -> v and v -> u, each in the index, one arc for a loop.  So the
// second entry (the in-entry, or the mirror arc in v's list) is handled alike
// but for how it is found and followed: by the twin and a twin rewrite, or by
// its own index entry.
//
// `record` (int64 words, SingleRowWord) receives the status, the ends and
// every position written with what it held before (the journal's undo step
// reads them: engine/single_row.py); `weights` receives the row's weight and
// the edge's weight before the row, twice each (an undirected edge's two
// arcs).  The writes, in the order the undo step reverses:
//   insert an absent edge: the entries past both lists' degrees (nbr, wgt,
//     the out-entry's twin), both degrees, the index position claimed (and
//     the mirror arc's);
//   delete a present edge: each list's last entry moved into the hole (the
//     first entry's list, then the second's), both degrees, the index
//     position made a tombstone, the moved first entry's index position
//     pointed at its new slot; then the moved in-entry's out-entry's twin
//     pointed at its new slot, or the mirror arc's position made a tombstone
//     and its moved entry's position pointed at its new slot;
//   insert a present edge with another weight: its weight in both entries.
// A delete also says, in bit k of record[SR_CUTS], whether the arc may hold a
// tree edge of parent array k (parent0..3, null for none: the tracked queries'
// trees), that is whether parent[v] == u or parent[u] == v (either way: weak
// connectivity reads arcs both ways); a tree the arc holds no edge of needs no
// invalidation.  Where both ends are known, record[SR_ENDS + 2k] and
// record[SR_ENDS + 2k + 1] receive the bytes of value k at u and at v (value0..3,
// byte k of value_sizes their size; null for none), zero-extended: whether an
// inserted arc improves a tree is then known to the host with the status.
#include "common.cuh"
#include "hash.cuh"

namespace cgs {

enum SingleRowStatus { SINGLE_FALLBACK = 0, SINGLE_INSERTED = 1, SINGLE_DELETED = 2, SINGLE_UPDATED = 3,
                       SINGLE_UNCHANGED = 4, SINGLE_IGNORED = 5 };

// (SR_U_AGAIN holds u again: the words from SR_U and from SR_V are an
// undirected edge's two arcs' sources and targets)
enum SingleRowWord { SR_STATUS = 0, SR_U = 1, SR_V = 2, SR_U_AGAIN = 3, SR_OUT_SLOT = 4, SR_IN_SLOT = 5, SR_AT = 6,
                     SR_AT_WAS = 7, SR_OUT_DEGREE = 8, SR_IN_DEGREE = 9, SR_MOVED_AT = 10, SR_TWIN_AT = 11,
                     SR_OUT_LAST = 12, SR_IN_LAST = 13, SR_CUTS = 14, SR_MIRROR_AT = 15, SR_MIRROR_AT_WAS = 16,
                     SR_MIRROR_MOVED_AT = 17, SR_ENDS = 18, SR_WORDS = 26 };

constexpr int SINGLE_ROW_TREES = 4;

enum SingleRowWeight { SR_NEW = 0, SR_OLD = 2, SR_WEIGHTS = 4 };

__device__ __forceinline__ long long arc_key_of(long long u, long long v)
{
  return static_cast<long long>(static_cast<unsigned long long>(u) << 32) | v;
}

}  // namespace cgs

template <typename W>
__global__ void apply_single_row(const long long* keys, const long long* values, long long size, long long src,
                                 long long dst, W weight, int op, int undirected, unsigned int* table,
                                 long long capacity, const long long* out_start, long long* out_degree,
                                 const long long* out_capacity, int* out_nbr, W* out_wgt, unsigned int* out_twin,
                                 const long long* in_start, long long* in_degree, const long long* in_capacity,
                                 int* in_nbr, W* in_wgt, const long long* parent0, const long long* parent1,
                                 const long long* parent2, const long long* parent3, const unsigned char* value0,
                                 const unsigned char* value1, const unsigned char* value2,
                                 const unsigned char* value3, long long value_sizes, long long* record, W* weights)
{
  using namespace cgs;
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  const unsigned char* values_of[SINGLE_ROW_TREES] = {value0, value1, value2, value3};
  for (int k = 0; k < 2 * SINGLE_ROW_TREES; ++k) record[SR_ENDS + k] = 0;
  record[SR_STATUS] = SINGLE_FALLBACK;
  record[SR_CUTS] = 0;
  record[SR_MIRROR_AT] = -1;
  record[SR_MIRROR_MOVED_AT] = -1;
  record[SR_TWIN_AT] = -1;
  record[SR_MOVED_AT] = -1;
  weights[SR_NEW] = weights[SR_NEW + 1] = weight;
  long long u = vertex_id(keys, values, size, src), v = vertex_id(keys, values, size, dst);
  if (undirected && v < u) {
    long long t = u;
    u = v;
    v = t;
  }
  record[SR_U] = record[SR_U_AGAIN] = u;
  record[SR_V] = v;
  if (u < 0 || v < 0) {             // an insert creates a vertex: the general path; a delete finds no edge
    if (op != 1) record[SR_STATUS] = SINGLE_IGNORED;
    return;
  }
  for (int k = 0; k < SINGLE_ROW_TREES; ++k) {
    long long size = (value_sizes >> (8 * k)) & 0xFF;
    if (values_of[k] == nullptr) continue;
    memcpy(record + SR_ENDS + 2 * k, values_of[k] + u * size, size);
    memcpy(record + SR_ENDS + 2 * k + 1, values_of[k] + v * size, size);
  }
  bool mirrored = undirected && u != v;       // (an undirected loop is one arc)
  bool second = !undirected || mirrored;      // an entry in v's list besides u's
  long long key = arc_key_of(u, v), mirror_key = arc_key_of(v, u);
  long long at = arc_probe(table, capacity, out_start, out_degree, out_nbr, key);
  record[SR_AT] = at;
  if (op == 1 && at < 0) {          // insert an absent edge, where both lists have room
    long long out_fill = out_degree[u], in_fill = second ? in_degree[v] : 0;
    if (out_fill >= out_capacity[u] || (second && in_fill >= in_capacity[v])) return;
    long long out_slot = out_start[u] + out_fill, in_slot = second ? in_start[v] + in_fill : -1;
    long long position = arc_free_from(table, capacity, arc_home(key, capacity));
    record[SR_OUT_SLOT] = out_slot;
    record[SR_IN_SLOT] = in_slot;
    record[SR_AT] = position;
    record[SR_AT_WAS] = table[position];
    record[SR_OUT_DEGREE] = out_fill;
    record[SR_IN_DEGREE] = in_fill;
    out_nbr[out_slot] = static_cast<int>(v);
    out_wgt[out_slot] = weight;
    if (!undirected) out_twin[out_slot] = static_cast<unsigned int>(in_slot);
    if (second) {
      in_nbr[in_slot] = static_cast<int>(u);
      in_wgt[in_slot] = weight;
    }
    out_degree[u] = out_fill + 1;
    if (second) in_degree[v] = in_fill + 1;
    table[position] = static_cast<unsigned int>(out_slot);
    if (mirrored) {                 // (after the first arc's claim: it skips that position)
      long long mirror_at = arc_free_from(table, capacity, arc_home(mirror_key, capacity));
      record[SR_MIRROR_AT] = mirror_at;
      record[SR_MIRROR_AT_WAS] = table[mirror_at];
      table[mirror_at] = static_cast<unsigned int>(in_slot);
    }
    record[SR_STATUS] = SINGLE_INSERTED;
    return;
  }
  if (at < 0) {                     // delete an absent edge
    record[SR_STATUS] = SINGLE_IGNORED;
    return;
  }
  long long out_slot = table[at];
  long long mirror_at = mirrored ? arc_probe(table, capacity, out_start, out_degree, out_nbr, mirror_key) : -1;
  long long in_slot = !undirected ? static_cast<long long>(out_twin[out_slot])
                                  : mirrored ? static_cast<long long>(table[mirror_at]) : -1;
  W old = out_wgt[out_slot];
  weights[SR_OLD] = weights[SR_OLD + 1] = old;
  record[SR_OUT_SLOT] = out_slot;
  record[SR_IN_SLOT] = in_slot;
  if (op == 1) {                    // insert a present edge: its weight, if another
    if (old == weight) {
      record[SR_STATUS] = SINGLE_UNCHANGED;
      return;
    }
    out_wgt[out_slot] = weight;
    if (second) in_wgt[in_slot] = weight;
    record[SR_STATUS] = SINGLE_UPDATED;
    return;
  }
  // delete a present edge: each list's last entry fills its hole (every position found before any write)
  long long out_fill = out_degree[u], in_fill = second ? in_degree[v] : 0;
  long long out_last = out_start[u] + out_fill - 1, in_last = second ? in_start[v] + in_fill - 1 : -1;
  int moved_out = out_nbr[out_last], moved_in = second ? in_nbr[in_last] : -1;
  // an entry moves where the deleted one was not its list's last
  bool out_moves = out_last != out_slot, in_moves = second && in_last != in_slot;
  long long moved_at = out_moves ? arc_position(table, capacity, arc_key_of(u, moved_out), out_last) : -1;
  bool mirror_moves = mirrored && in_moves;
  long long mirror_moved_at = mirror_moves ? arc_position(table, capacity, arc_key_of(v, moved_in), in_last) : -1;
  // directed: the moved in-entry's arc moved_in -> v, whose out-entry's twin follows it
  // (its out-list is not u's: u -> v was v's only in-entry from u)
  bool twin_follows = !undirected && in_moves;
  long long arc_at =
      twin_follows ? arc_probe(table, capacity, out_start, out_degree, out_nbr, arc_key_of(moved_in, v)) : -1;
  if ((out_moves && moved_at < 0) || (mirror_moves && mirror_moved_at < 0) || (twin_follows && arc_at < 0))
    return;                         // the index disagrees with the lists: left to the general path
  record[SR_OUT_DEGREE] = out_fill;
  record[SR_IN_DEGREE] = in_fill;
  record[SR_AT_WAS] = out_slot;
  record[SR_MOVED_AT] = moved_at;
  record[SR_OUT_LAST] = out_last;
  record[SR_IN_LAST] = in_last;
  out_nbr[out_slot] = moved_out;
  out_wgt[out_slot] = out_wgt[out_last];
  if (!undirected) out_twin[out_slot] = out_twin[out_last];
  out_degree[u] = out_fill - 1;
  if (second) {
    in_nbr[in_slot] = moved_in;
    in_wgt[in_slot] = in_wgt[in_last];
    in_degree[v] = in_fill - 1;
  }
  table[at] = CGS_DELETED_SLOT;
  if (moved_at >= 0) table[moved_at] = static_cast<unsigned int>(out_slot);
  if (mirrored) {                   // the mirror arc leaves the index; its moved entry's position follows
    record[SR_MIRROR_AT] = mirror_at;
    record[SR_MIRROR_AT_WAS] = in_slot;
    record[SR_MIRROR_MOVED_AT] = mirror_moved_at;
    table[mirror_at] = CGS_DELETED_SLOT;
    if (mirror_moved_at >= 0) table[mirror_moved_at] = static_cast<unsigned int>(in_slot);
  } else if (twin_follows) {       // (arc_at: another arc's position, which the writes above left alone)
    long long twin_at = table[arc_at];
    record[SR_TWIN_AT] = twin_at;
    out_twin[twin_at] = static_cast<unsigned int>(in_slot);
  }
  const long long* parents[4] = {parent0, parent1, parent2, parent3};
  long long cuts = 0;
  for (int k = 0; k < 4; ++k)
    if (parents[k] != nullptr && (parents[k][v] == u || parents[k][u] == v)) cuts |= 1LL << k;
  record[SR_CUTS] = cuts;
  record[SR_STATUS] = SINGLE_DELETED;
}
