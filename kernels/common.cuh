// Shared device helpers of the cugraph_stream kernels: relaxation rules,
// atomic min/max for every value type, and the decoupled result/parent update.
#pragma once

namespace cgs {

// ---- relaxation rule codes (cugraph_stream.algorithms.rule.Rule) ----------
enum Extend { EXTEND_ADD = 0, EXTEND_ADD_ONE = 1, EXTEND_MIN = 2, EXTEND_COPY = 3 };
enum Order { ORDER_MIN = 0, ORDER_MAX = 1 };

template <int EXTEND, typename V, typename W>
__device__ __forceinline__ V extend(V value, W weight)
{
  if (EXTEND == EXTEND_ADD) return value + static_cast<V>(weight);
  if (EXTEND == EXTEND_ADD_ONE) return value + static_cast<V>(1);
  if (EXTEND == EXTEND_MIN) return value < static_cast<V>(weight) ? value : static_cast<V>(weight);
  return value;
}

template <int ORDER, typename V>
__device__ __forceinline__ bool better(V a, V b)
{
  return ORDER == ORDER_MIN ? a < b : a > b;
}

// vertex u's list of T (neighbours or weights) from per-vertex addresses
template <typename T>
__device__ __forceinline__ const T* list(const unsigned long long* at, long long u)
{
  return reinterpret_cast<const T*>(at[u]);
}

template <typename V>
__device__ __forceinline__ V load_volatile(const V* p)
{
  return *reinterpret_cast<const volatile V*>(p);
}

// ---- atomic best (min or max); returns the value held before -------------
template <int ORDER>
__device__ __forceinline__ int atomic_best(int* p, int v)
{
  return ORDER == ORDER_MIN ? atomicMin(p, v) : atomicMax(p, v);
}

template <int ORDER>
__device__ __forceinline__ long long atomic_best(long long* p, long long v)
{
  return ORDER == ORDER_MIN ? atomicMin(p, v) : atomicMax(p, v);
}

template <int ORDER>
__device__ __forceinline__ float atomic_best(float* p, float v)
{
  int* bits = reinterpret_cast<int*>(p);
  int seen = *reinterpret_cast<volatile int*>(bits);
  while (better<ORDER>(v, __int_as_float(seen))) {
    int was = atomicCAS(bits, seen, __float_as_int(v));
    if (was == seen) break;
    seen = was;
  }
  return __int_as_float(seen);
}

template <int ORDER>
__device__ __forceinline__ double atomic_best(double* p, double v)
{
  unsigned long long* bits = reinterpret_cast<unsigned long long*>(p);
  unsigned long long seen = *reinterpret_cast<volatile unsigned long long*>(bits);
  while (better<ORDER>(v, __longlong_as_double(static_cast<long long>(seen)))) {
    unsigned long long was = atomicCAS(bits, seen, static_cast<unsigned long long>(__double_as_longlong(v)));
    if (was == seen) break;
    seen = was;
  }
  return __longlong_as_double(static_cast<long long>(seen));
}

// ---- decoupled result/parent update (Grapin, Algorithm 1) ----------------
// The result is improved with one atomic; the parent follows by a CAS loop
// that gives up as soon as the result no longer holds this candidate (a
// better one arrived, whose writer owns the parent).  Returns true when the
// candidate improved the result (the vertex becomes active).
template <int ORDER, typename V>
__device__ __forceinline__ bool improve(V* value, long long* parent, long long v, long long u, V candidate)
{
  if (!better<ORDER>(candidate, load_volatile(value + v))) return false;
  V before = atomic_best<ORDER>(value + v, candidate);
  if (!better<ORDER>(candidate, before)) return false;
  __threadfence();
  unsigned long long* slot = reinterpret_cast<unsigned long long*>(parent + v);
  while (true) {
    unsigned long long held = *reinterpret_cast<volatile unsigned long long*>(slot);
    // order the two loads: if `held` shows another writer's parent, the
    // value read next shows that writer's result (it fenced between them)
    __threadfence();
    if (load_volatile(value + v) != candidate) break;
    if (atomicCAS(slot, held, static_cast<unsigned long long>(u)) == held) break;
  }
  return true;
}

}  // namespace cgs
