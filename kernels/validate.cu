// Validation of a batch's op and weight columns in one pass (the GPU's
// Backend.check_rows, cugraph_stream.backends.gpu): each row's op code and its
// weight in the graph's weight type, and a summary of the whole batch kept by
// atomics.  The columns come in any numeric type, named by a ColumnType code at
// run time (one branch, the same for every thread), so one instance per weight
// type serves them all.  Compiled without flush to zero: a float32 weight of
// 1e-45 stays 1e-45 and -1e-45 is negative, as on the CPU.

namespace cgs {

// a column's element type (cugraph_stream.backends.gpu._COLUMN_TYPES)
enum ColumnType { COLUMN_I8 = 0, COLUMN_I16 = 1, COLUMN_I32 = 2, COLUMN_I64 = 3, COLUMN_U8 = 4, COLUMN_U16 = 5,
                  COLUMN_U32 = 6, COLUMN_U64 = 7, COLUMN_F32 = 8, COLUMN_F64 = 9, COLUMN_NONE = 10 };

// summary[] slots: any row in error (1), the largest |weight| (the bits of a
// non-negative double: ordered as unsigned integers), any weight with a fraction (1)
enum RowSummary { ROWS_BAD = 0, ROWS_LARGEST = 1, ROWS_FRACTIONAL = 2 };

// 1 insert, -1 delete, 0 anything else (NumPy's comparisons: no unsigned value equals -1)
template <typename T>
__device__ __forceinline__ signed char signed_code(T v)
{
  return v == T(1) ? 1 : (v == T(-1) ? -1 : 0);
}

template <typename T>
__device__ __forceinline__ signed char unsigned_code(T v)
{
  return v == T(1) ? 1 : 0;
}

// the op code of row i; every row inserts without an op column
__device__ __forceinline__ signed char op_code(const void* ops, int type, long long i)
{
  switch (type) {
    case COLUMN_I8: return signed_code(static_cast<const signed char*>(ops)[i]);
    case COLUMN_I16: return signed_code(static_cast<const short*>(ops)[i]);
    case COLUMN_I32: return signed_code(static_cast<const int*>(ops)[i]);
    case COLUMN_I64: return signed_code(static_cast<const long long*>(ops)[i]);
    case COLUMN_U8: return unsigned_code(static_cast<const unsigned char*>(ops)[i]);
    case COLUMN_U16: return unsigned_code(static_cast<const unsigned short*>(ops)[i]);
    case COLUMN_U32: return unsigned_code(static_cast<const unsigned int*>(ops)[i]);
    case COLUMN_U64: return unsigned_code(static_cast<const unsigned long long*>(ops)[i]);
    case COLUMN_F32: return signed_code(static_cast<const float*>(ops)[i]);
    case COLUMN_F64: return signed_code(static_cast<const double*>(ops)[i]);
    default: return 1;
  }
}

// the weight of row i as float64 (NumPy's astype: integers rounded to nearest, floats exactly)
__device__ __forceinline__ double weight_value(const void* values, int type, long long i)
{
  switch (type) {
    case COLUMN_I8: return static_cast<double>(static_cast<const signed char*>(values)[i]);
    case COLUMN_I16: return static_cast<double>(static_cast<const short*>(values)[i]);
    case COLUMN_I32: return static_cast<double>(static_cast<const int*>(values)[i]);
    case COLUMN_I64: return static_cast<double>(static_cast<const long long*>(values)[i]);
    case COLUMN_U8: return static_cast<double>(static_cast<const unsigned char*>(values)[i]);
    case COLUMN_U16: return static_cast<double>(static_cast<const unsigned short*>(values)[i]);
    case COLUMN_U32: return static_cast<double>(static_cast<const unsigned int*>(values)[i]);
    case COLUMN_U64: return static_cast<double>(static_cast<const unsigned long long*>(values)[i]);
    case COLUMN_F32: return static_cast<double>(static_cast<const float*>(values)[i]);
    default: return static_cast<const double*>(values)[i];
  }
}

}  // namespace cgs

// Each row (a grid-stride loop): codes[i] its op code, weights[i] its weight
// converted to W (IEEE rounding to nearest: an overflow is infinite, a
// subnormal is kept) on insert rows and 0 on the others.  The summary, which
// the caller zeroes: ROWS_BAD where a row holds an unknown op, an insert row a
// weight that is not finite in W, or, with `nonnegative`, a negative one
// (-0.0 is not negative); ROWS_LARGEST the largest |weight|; ROWS_FRACTIONAL
// where a weight is not a whole number.  Each warp combines its threads' and
// one lane writes what it found.
template <typename W>
__global__ void check_rows(const void* ops, int op_type, const void* values, int value_type, long long rows,
                           int nonnegative, signed char* codes, W* weights, unsigned long long* summary)
{
  bool bad = false, fractional = false;
  double largest = 0.0;
  long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < rows; i += stride) {
    signed char code = cgs::op_code(ops, op_type, i);
    W w = code == 1 ? static_cast<W>(cgs::weight_value(values, value_type, i)) : W(0);
    codes[i] = code;
    weights[i] = w;
    bad |= code == 0 || !isfinite(w) || (nonnegative && w < W(0));
    fractional |= w != floor(w);
    largest = fmax(largest, fabs(static_cast<double>(w)));     // (a NaN is bad anyway)
  }
  // every thread of the block reaches here: the whole warp takes part
  bad = __any_sync(0xffffffffu, bad);
  fractional = __any_sync(0xffffffffu, fractional);
  for (int offset = 16; offset > 0; offset /= 2) largest = fmax(largest, __shfl_xor_sync(0xffffffffu, largest, offset));
  if ((threadIdx.x & 31) == 0) {
    if (bad) atomicOr(summary + cgs::ROWS_BAD, 1ull);
    if (fractional) atomicOr(summary + cgs::ROWS_FRACTIONAL, 1ull);
    if (largest > 0.0)
      atomicMax(summary + cgs::ROWS_LARGEST, static_cast<unsigned long long>(__double_as_longlong(largest)));
  }
}

