// Open-addressing indexes with linear probing.  The edge index
// (cugraph_stream.engine.hash_index) holds non-negative int64 keys, -1 for an
// empty position and -2 for a deleted one.  The arc index
// (cugraph_stream.engine.arc_index) holds only out-adjacency slots (4 bytes) in a
// table of any size: arc u -> v (key u << 32 | v) is at the position, probed
// from the key's home, whose slot lies in u's list and holds neighbour v.
#pragma once

#define CGS_EMPTY (-1LL)
#define CGS_DELETED (-2LL)
#define CGS_EMPTY_SLOT 0xFFFFFFFFu
#define CGS_DELETED_SLOT 0xFFFFFFFEu

__device__ __forceinline__ long long home_slot(long long key, int bits)
{
  return static_cast<long long>((static_cast<unsigned long long>(key) * 0x9E3779B97F4A7C15ull) >> (64 - bits));
}

// position of key in table, or -1 where absent
__device__ __forceinline__ long long probe(const long long* table, int bits, long long key)
{
  long long mask = (1LL << bits) - 1;
  long long slot = home_slot(key, bits);
  while (true) {
    long long seen = table[slot];
    if (seen == key) return slot;
    if (seen == CGS_EMPTY) return -1;
    slot = (slot + 1) & mask;
  }
}

// home of arc `key` in an arc-index table of any `capacity`: the high half of the
// hash times the capacity (Lemire's multiply-shift range reduction)
__device__ __forceinline__ long long arc_home(long long key, long long capacity)
{
  unsigned long long hash = static_cast<unsigned long long>(key) * 0x9E3779B97F4A7C15ull;
  return static_cast<long long>(__umul64hi(hash, static_cast<unsigned long long>(capacity)));
}

__device__ __forceinline__ long long arc_next(long long slot, long long capacity)
{
  return slot + 1 == capacity ? 0 : slot + 1;
}

// the first position from `at` on (wrapping around) that holds no arc: empty or
// deleted (read as volatile: other threads may be claiming positions)
__device__ __forceinline__ long long arc_free_from(const unsigned int* table, long long capacity, long long at)
{
  while (*reinterpret_cast<const volatile unsigned int*>(table + at) < CGS_DELETED_SLOT) at = arc_next(at, capacity);
  return at;
}

// the position of arc `key`'s entry holding `slot`, or -1 where an empty position
// ends the probe first (the probe needs no adjacency, so it finds entries whose
// lists have just moved)
__device__ __forceinline__ long long arc_position(const unsigned int* table, long long capacity, long long key,
                                                  long long slot)
{
  long long at = arc_home(key, capacity);
  unsigned int wanted = static_cast<unsigned int>(slot);
  while (true) {
    unsigned int seen = table[at];
    if (seen == wanted) return at;
    if (seen == CGS_EMPTY_SLOT) return -1;
    at = arc_next(at, capacity);
  }
}

// position of arc `key` in an arc-index table, or -1 where absent (or key < 0)
__device__ __forceinline__ long long arc_probe(const unsigned int* table, long long capacity, const long long* start,
                                               const long long* degree, const int* nbr, long long key)
{
  if (key < 0) return -1;
  long long u = key >> 32;
  int v = static_cast<int>(key & 0xFFFFFFFFLL);
  long long first = start[u];
  long long end = first + degree[u];
  long long slot = arc_home(key, capacity);
  while (true) {
    unsigned int seen = table[slot];
    if (seen == CGS_EMPTY_SLOT) return -1;
    long long s = static_cast<long long>(seen);
    if (seen != CGS_DELETED_SLOT && s >= first && s < end && nbr[s] == v) return slot;
    slot = arc_next(slot, capacity);
  }
}
