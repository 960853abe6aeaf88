// Gathers and scatters of 1-D arrays at int64 positions (Backend.take, put):
// one launch each, moving elements as raw words of their size (T is an
// unsigned integer of the element's width), so one instance serves every
// dtype of that width and nothing is converted (float subnormals included).
// A negative position counts from the end, as NumPy and CuPy index.

template <typename T>
__global__ void take(const T* array, long long size, const long long* index, long long count, T* out)
{
  long long k = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (k >= count) return;
  long long i = index[k];
  out[k] = array[i < 0 ? i + size : i];
}

template <typename T>
__global__ void put(T* array, long long size, const long long* index, long long count, const T* values)
{
  long long k = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (k >= count) return;
  long long i = index[k];
  array[i < 0 ? i + size : i] = values[k];
}

// every position receives the one value `value`
template <typename T>
__global__ void put_value(T* array, long long size, const long long* index, long long count, T value)
{
  long long k = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (k >= count) return;
  long long i = index[k];
  array[i < 0 ? i + size : i] = value;
}

// Integer gathers and scatters that convert as they move (Backend.take with a
// dtype, Backend.put of values of another integer dtype): S is the source's
// C type, T the target's, converted by static_cast (modulo 2^bits into a
// narrower type, as NumPy's and CuPy's unsafe casts).

template <typename S, typename T>
__global__ void take_as(const S* array, long long size, const long long* index, long long count, T* out)
{
  long long k = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (k >= count) return;
  long long i = index[k];
  out[k] = static_cast<T>(array[i < 0 ? i + size : i]);
}

template <typename S, typename T>
__global__ void put_as(T* array, long long size, const long long* index, long long count, const S* values)
{
  long long k = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (k >= count) return;
  long long i = index[k];
  array[i < 0 ? i + size : i] = static_cast<T>(values[k]);
}

// Journaled scatters (Backend.exchange): each position's old element goes to
// `old` as the new one is written, in one launch.  The positions must be
// distinct: a repeated one could read another thread's write as its old
// element.  exchange_as converts values of integer type S to the array's T.

template <typename T>
__global__ void exchange(T* array, long long size, const long long* index, long long count, const T* values, T* old)
{
  long long k = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (k >= count) return;
  long long i = index[k];
  if (i < 0) i += size;
  old[k] = array[i];
  array[i] = values[k];
}

template <typename T>
__global__ void exchange_value(T* array, long long size, const long long* index, long long count, T value, T* old)
{
  long long k = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (k >= count) return;
  long long i = index[k];
  if (i < 0) i += size;
  old[k] = array[i];
  array[i] = value;
}

template <typename S, typename T>
__global__ void exchange_as(T* array, long long size, const long long* index, long long count, const S* values,
                            T* old)
{
  long long k = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (k >= count) return;
  long long i = index[k];
  if (i < 0) i += size;
  old[k] = array[i];
  array[i] = static_cast<T>(values[k]);
}
