// Open-addressing edge index with linear probing (cugraph_stream.engine.hash_index):
// keys are non-negative int64, -1 marks an empty slot and -2 a deleted one.
#pragma once

#define CGS_EMPTY (-1LL)
#define CGS_DELETED (-2LL)

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
