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
