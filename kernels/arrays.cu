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
