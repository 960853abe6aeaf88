#include "hash.cuh"

__global__ void hash_find(const long long* table, int bits, const long long* keys, long long count,
                          long long* found)
{
  long long k = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (k >= count) return;
  found[k] = probe(table, bits, keys[k]);
}

// store absent, distinct keys: claim the first empty or deleted slot, and say which it was
__global__ void hash_claim(long long* table, int bits, const long long* keys, long long count, long long* placed,
                           long long* replaced)
{
  long long k = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (k >= count) return;
  long long mask = (1LL << bits) - 1;
  long long key = keys[k];
  long long slot = home_slot(key, bits);
  while (true) {
    long long seen = *reinterpret_cast<volatile long long*>(table + slot);
    if (seen < 0) {
      unsigned long long was = atomicCAS(reinterpret_cast<unsigned long long*>(table + slot),
                                         static_cast<unsigned long long>(seen), static_cast<unsigned long long>(key));
      if (was == static_cast<unsigned long long>(seen)) {
        placed[k] = slot;
        replaced[k] = seen;
        return;
      }
      continue;   // lost the slot: look at it again
    }
    slot = (slot + 1) & mask;
  }
}

// ------------------------------------------------------------------ arc index
__global__ void arc_find(const unsigned int* table, long long capacity, const long long* start,
                         const long long* degree, const int* nbr, const long long* keys, long long count,
                         long long* found)
{
  long long k = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (k >= count) return;
  found[k] = arc_probe(table, capacity, start, degree, nbr, keys[k]);
}

// enter absent, distinct arcs: each claims the first empty or deleted position with its slot
// (where it went and what the position held go to placed and replaced, unless they are null)
__global__ void arc_claim(unsigned int* table, long long capacity, const long long* keys, const long long* slots,
                          long long count, long long* placed, long long* replaced)
{
  long long k = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (k >= count) return;
  long long slot = arc_home(keys[k], capacity);
  unsigned int value = static_cast<unsigned int>(slots[k]);
  while (true) {
    slot = arc_free_from(table, capacity, slot);
    unsigned int seen = *reinterpret_cast<volatile unsigned int*>(table + slot);
    if (seen >= CGS_DELETED_SLOT && atomicCAS(table + slot, seen, value) == seen) {
      if (placed != nullptr) {      // (a build records nothing)
        placed[k] = slot;
        replaced[k] = static_cast<long long>(seen);
      }
      return;
    }
    // lost the position: look for the next free one from it
  }
}

// the position of each arc's entry holding its slot (every arc present: see arc_position)
__global__ void arc_locate(const unsigned int* table, long long capacity, const long long* keys,
                           const long long* slots, long long count, long long* found, unsigned int* fault)
{
  long long k = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (k >= count) return;
  long long at = arc_position(table, capacity, keys[k], slots[k]);
  if (at < 0) atomicOr(fault, 1u);   // not there: a broken index, raised at the next synchronisation
  found[k] = at;
}

// Erase arcs at table positions (Backend.arc_erase): each position's slot goes to
// slots[k] (the table's pre-image), that entry's weight and twin (where twin is
// not null) to weights[k] and twins[k], and the position becomes a tombstone.
template <typename W>
__global__ void arc_erase(unsigned int* table, const long long* positions, long long count, const W* wgt,
                          const unsigned int* twin, long long* slots, W* weights, long long* twins)
{
  long long k = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (k >= count) return;
  long long p = positions[k];
  long long slot = static_cast<long long>(table[p]);
  slots[k] = slot;
  weights[k] = wgt[slot];
  if (twin != nullptr) twins[k] = static_cast<long long>(twin[slot]);
  table[p] = CGS_DELETED_SLOT;
}

// The positions of moved entries' arcs (Backend.arc_repoint): entry k sits at
// targets[k] of owners[k]'s list now (its arc owners[k] -> nbr[targets[k]])
// and was entered at sources[k].  Only found here: the backend writes them in
// a second launch, once every position is known.
__global__ void arc_locate_moved(const unsigned int* table, long long capacity, const int* nbr,
                                 const long long* owners, const long long* sources, const long long* targets,
                                 long long count, long long* found, unsigned int* fault)
{
  long long k = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (k >= count) return;
  long long key = static_cast<long long>(static_cast<unsigned long long>(owners[k]) << 32) | nbr[targets[k]];
  long long at = arc_position(table, capacity, key, sources[k]);
  if (at < 0) atomicOr(fault, 1u);   // not there: a broken index, raised at the next synchronisation
  found[k] = at;
}

// Twins of moved in-entries (Backend.follow_twins): slot targets[k] of
// owners[k]'s in-list holds the in-entry of the arc in_nbr[targets[k]] ->
// owners[k], whose out-entry (start, degree, nbr) the arc index finds; that
// entry's twin becomes targets[k].  The out-slot goes to slots[k] and the twin
// it held to previous[k] (distinct arcs: no two threads write one twin).
__global__ void follow_twins(const unsigned int* table, long long capacity, const long long* start,
                             const long long* degree, const int* nbr, unsigned int* twin, const int* in_nbr,
                             const long long* owners, const long long* targets, long long count, long long* slots,
                             unsigned int* previous, unsigned int* fault)
{
  long long k = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (k >= count) return;
  long long source = in_nbr[targets[k]];
  long long key = static_cast<long long>(static_cast<unsigned long long>(source) << 32) | owners[k];
  long long at = arc_probe(table, capacity, start, degree, nbr, key);
  if (at < 0) {                      // a broken index: raised at the next synchronisation, twin 0
    atomicOr(fault, 1u);             // left as it was (and its pre-image kept as it is)
    slots[k] = 0;
    previous[k] = twin[0];
    return;
  }
  long long slot = static_cast<long long>(table[at]);
  slots[k] = slot;
  previous[k] = twin[slot];
  twin[slot] = static_cast<unsigned int>(targets[k]);
}
