// CPU kernels of the POINTWISE family: clamp, addcmul, addcdiv, lerp, where, copy and fill.
#include <algorithm>
#include <cstring>
#include "core/kernel_registry.h"
#include "kernels/cpu/loops.h"
#include "kernels/cpu/select_loops.h"
#include "kernels/scalar_ops.h"

namespace tocha {
namespace cpu {
namespace {

using scalar::convert;  // shared with the CUDA copy kernel

// Note [Blocked transposing copies]: a copy whose source runs along the destination's columns
// (t():contiguous(), a permute's copy) walked the source with a stride of a whole row per element:
// on 2048x2048 floats every read touched another page, 31 ms where PyTorch takes 3.5. When the
// source's unit-stride dim is the destination's second-innermost, the copy goes by kTile x kTile
// tiles: a tile's source lines and pages stay in L1 and the TLB while its rows are written.
constexpr int64_t kTile = 32;
template <class R, class T> bool copy_transposed(const PointwiseIter& it) {
  const int nd = it.ndim, in = nd - 1, mid = nd - 2;
  // A source broadcast along the rows (stride 0) is a fill per row instead.
  if (nd < 2 || it.strides[0][in] != 1 || it.strides[1][mid] != 1 || it.strides[1][in] == 1 || it.strides[1][in] == 0)
    return false;
  const int64_t rows = it.shape[mid], cols = it.shape[in];
  if (rows < kTile || cols < kTile) return false;  // a few columns: the row loop reads them well
  int64_t outer = 1;
  for (int d = 0; d < mid; ++d) outer *= it.shape[d];
  const int64_t bands = (rows + kTile - 1) / kTile, S = it.strides[1][in], D = it.strides[0][mid];
  parallel_for(outer * bands, std::max<int64_t>(1, kGrainSize / (kTile * cols)), [&](int64_t lo, int64_t hi) {
    for (int64_t task = lo; task < hi; ++task) {
      int64_t rem = task / bands, off_d = 0, off_s = 0;
      for (int d = mid - 1; d >= 0; --d) {
        const int64_t i = rem % it.shape[d];
        rem /= it.shape[d];
        off_d += i * it.strides[0][d];
        off_s += i * it.strides[1][d];
      }
      R* dst = reinterpret_cast<R*>(it.data[0]) + off_d;
      const T* src = reinterpret_cast<const T*>(it.data[1]) + off_s;
      const int64_t r0 = (task % bands) * kTile, r1 = std::min(rows, r0 + kTile);
      for (int64_t c0 = 0; c0 < cols; c0 += kTile) {
        const int64_t c1 = std::min(cols, c0 + kTile);
        for (int64_t r = r0; r < r1; ++r)
          for (int64_t c = c0; c < c1; ++c) dst[r * D + c] = convert<R>(src[r + c * S]);
      }
    }
  });
  return true;
}

// zero() and fill() run on every parameter gradient each training step: the stride-1 rows are
// a memset when the value is all zero bits, else a vectorized loop (the plain loop stayed scalar).
template <class T> TOCHA_SIMD_CLONES void fill_simd(T* o, int64_t n, T v) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) o[i] = v;
}
template <class T> void fill_contig(T* o, int64_t n, T v) {
  unsigned char bytes[sizeof(T)];
  std::memcpy(bytes, &v, sizeof(T));
  bool zero = true;
  for (unsigned char b : bytes) zero = zero && b == 0;
  if (zero) std::memset(static_cast<void*>(o), 0, size_t(n) * sizeof(T));
  else if constexpr (std::is_arithmetic<T>::value) fill_simd(o, n, v);
  else for (int64_t i = 0; i < n; ++i) o[i] = v;
}

// A value converted for a vector loop: f16/bf16 through the branch-free conversions (Note
// [Branch-free half conversions], core/half.h), bit for bit what convert() gives.
template <class R, class T> inline R convert_lane(T x) {
  if constexpr (std::is_same<T, Half>::value && !std::is_same<R, Half>::value) {
    return convert<R>(half_bits_to_float_select(x.bits));
  } else if constexpr (std::is_same<T, BFloat16>::value && !std::is_same<R, BFloat16>::value) {
    return convert<R>(bf16_bits_to_float(x.bits));
  } else if constexpr (std::is_same<R, Half>::value && !std::is_same<T, Half>::value) {
    Half h;
    h.bits = float_to_half_bits_select(float(convert_lane<float>(x)));
    return h;
  } else if constexpr (std::is_same<R, BFloat16>::value && !std::is_same<T, BFloat16>::value) {
    BFloat16 b;
    b.bits = float_to_bf16_bits_select(float(convert_lane<float>(x)));
    return b;
  } else {
    return convert<R>(x);
  }
}
// Converting stride-1 rows, in the SIMD clones (Note [SIMD dispatch]).
template <class R, class T>
TOCHA_SIMD_CLONES void convert_contig(R* __restrict o, const T* __restrict a, int64_t n) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) o[i] = convert_lane<R>(a[i]);
}
template <class R, class T> void copy_contig(R* o, const T* a, int64_t n) {
  if constexpr (std::is_same<R, T>::value) std::memcpy(static_cast<void*>(o), a, size_t(n) * sizeof(T));
  else convert_contig(o, a, n);
}

template <class R, class T> void copy_loop(const PointwiseIter& it) {
  if (it.contiguous && it.strides[1][0] == 1) {
    R* o = reinterpret_cast<R*>(it.data[0]);
    const T* a = reinterpret_cast<const T*>(it.data[1]);
    // A plain memcpy is bound by memory bandwidth early, a conversion by the cores: it splits at
    // the usual grain (float -> half of 256x256 at two threads: 24.9 us on one, PyTorch 10.5).
    const int64_t grain = std::is_same<R, T>::value ? kGrainSize * 4 : kGrainSize;
    parallel_for(it.numel, grain, [&](int64_t b, int64_t e) { copy_contig(o + b, a + b, e - b); });
    return;
  }
  if (copy_transposed<R, T>(it)) return;
  // Note [Strided copies by rows]: rows of a strided copy are often stride-1 on both sides (a
  // narrow, a cat's slice, expand(1, n)) or a broadcast value (expand(n, 1), repeat): those go
  // through memcpy, the vector conversions or a fill instead of an element loop with two stride
  // products (expand(n, 1):contiguous() on 256x256 took 64 us, 11x PyTorch's time).
  for_each_row(it, kGrainSize, [&](int64_t n, char** p, const int64_t* off, const int64_t (*st)[kMaxDims], int inner) {
    R* o = reinterpret_cast<R*>(p[0]) + off[0];
    const T* a = reinterpret_cast<const T*>(p[1]) + off[1];
    const int64_t so = st[0][inner], sa = st[1][inner];
    if (so == 1 && sa == 1) copy_contig(o, a, n);
    else if (so == 1 && sa == 0) fill_contig(o, n, convert<R>(a[0]));
    else for (int64_t i = 0; i < n; ++i) o[i * so] = convert<R>(a[i * sa]);
  });
}

template <class R> void copy_kernel(const PointwiseIter& it) {
  if (it.numel == 0) return;
  visit_dtype(it.src_dtype, [&](auto tag) { copy_loop<R, decltype(tag)>(it); });
}

template <class T> void fill_kernel(const PointwiseIter& it) {
  if (it.numel == 0) return;
  T v;
  std::memcpy(&v, it.data[1], sizeof(T));  // operand 1 is the fill value as a scalar
  for_each_row(it, kGrainSize * 4, [&](int64_t n, char** p, const int64_t* off, const int64_t (*st)[kMaxDims], int inner) {
    T* o = reinterpret_cast<T*>(p[0]) + off[0];
    int64_t so = st[0][inner];
    if (so == 1) {
      fill_contig(o, n, v);
    } else {
      for (int64_t i = 0; i < n; ++i) o[i * so] = v;
    }
  });
}

// where(cond, a, b): operand 1 is a u8 (or bool, same bytes) mask.
template <class T> void where_kernel(const PointwiseIter& it) {
  if (it.numel == 0) return;
  for_each_row(it, kGrainSize, [&](int64_t n, char** p, const int64_t* off, const int64_t (*st)[kMaxDims], int inner) {
    T* o = reinterpret_cast<T*>(p[0]) + off[0];
    const uint8_t* c = reinterpret_cast<const uint8_t*>(p[1]) + off[1];
    const T* a = reinterpret_cast<const T*>(p[2]) + off[2];
    const T* b = reinterpret_cast<const T*>(p[3]) + off[3];
    select_row(o, st[0][inner], c, st[1][inner], a, st[2][inner], b, st[3][inner], n);  // Note [Branch-free selects]
  });
}


#define REG_COPY(T) TOCHA_REGISTER_KERNEL(copy, cpu, DTypeOf<T>::value, &copy_kernel<T>);
#define REG_FILL(T) TOCHA_REGISTER_KERNEL(fill, cpu, DTypeOf<T>::value, &fill_kernel<T>);
#define REG_WHERE(T) TOCHA_REGISTER_KERNEL(where, cpu, DTypeOf<T>::value, &where_kernel<T>);
#define REG_CLAMP(T) TOCHA_REGISTER_KERNEL(clamp, cpu, DTypeOf<T>::value, (&unary_kernel<scalar::clamp_op, T, T>));
#define REG_ADDCMUL(T) TOCHA_REGISTER_KERNEL(addcmul, cpu, DTypeOf<T>::value, (&ternary_kernel<scalar::addcmul_op, T>));
#define REG_ADDCDIV(T) TOCHA_REGISTER_KERNEL(addcdiv, cpu, DTypeOf<T>::value, (&ternary_kernel<scalar::addcdiv_op, T>));
#define REG_LERP(T) TOCHA_REGISTER_KERNEL(lerp, cpu, DTypeOf<T>::value, (&ternary_kernel<scalar::lerp_op, T>));

TOCHA_FOR_ALL_TYPES(REG_COPY)
TOCHA_FOR_ALL_TYPES(REG_FILL)
TOCHA_FOR_ALL_TYPES(REG_WHERE)
TOCHA_FOR_NUMERIC_TYPES(REG_CLAMP)
TOCHA_FOR_NUMERIC_TYPES(REG_ADDCMUL)
TOCHA_FOR_FLOAT_TYPES(REG_ADDCDIV)
TOCHA_FOR_FLOAT_TYPES(REG_LERP)

}  // namespace
}  // namespace cpu
}  // namespace tocha
