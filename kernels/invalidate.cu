// Transitive invalidation, one level per launch: every child x of a frontier
// vertex u (parent[x] == u) not yet invalidated is marked, and enters the
// next level's byte map.  The launcher repeats until a level is empty.
// `edges` accumulates the edges read, so the host reads it once at the end.
__global__ void invalidate_children(const long long* frontier, long long count, const long long* start,
                                    const long long* degree, const int* nbr, const long long* parent,
                                    unsigned char* invalid, unsigned char* next, unsigned long long* edges)
{
  long long k = (blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x) / 32;
  if (k >= count) return;
  int lane = threadIdx.x & 31;
  long long u = frontier[k];
  long long s = start[u], e = s + degree[u];
  if (lane == 0) atomicAdd(edges, static_cast<unsigned long long>(e - s));
  for (long long i = s + lane; i < e; i += 32) {
    long long x = nbr[i];
    if (parent[x] == u && !invalid[x]) {
      invalid[x] = 1;   // a vertex has one parent: only one writer can match
      next[x] = 1;
    }
  }
}
