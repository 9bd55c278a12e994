// CPU kernels of the BINARY, BINARY_FLOAT and COMPARE families, registered from core/ops.def.
#include "core/kernel_registry.h"
#include "kernels/cpu/loops.h"
#include "kernels/cpu/simd_math.h"
#include "kernels/scalar_ops.h"

namespace tocha {
namespace cpu {
namespace {

// Note [Powers by small exponents]: x^2 through std::pow took 590 us for 256x256 f32 values where
// x*x takes 19 (and PyTorch's pow 6): powf is a scalar call, slower still for negative bases. A
// contiguous float tensor raised to one of the exponents below is computed the way PyTorch does:
// 2 and 3 by products, -1 and -2 by a division, 0.5 and -0.5 through sqrt (which gives -0 for -0
// and NaN for -inf, where pow gives +0 and +inf), 1 and 0 exactly. Other exponents and layouts
// take std::pow.
template <class T, class G> void pow_by(T* o, const T* a, int64_t n, G g) {
  parallel_for(n, kGrainSize, [&](int64_t lo, int64_t hi) { unary_contig<G, T, T>(o + lo, a + lo, hi - lo, g); });
}
struct Square {
  template <class M> M operator()(M x) const { return x * x; }
};
struct Cube {
  template <class M> M operator()(M x) const { return x * x * x; }
};
struct Reciprocal {
  template <class M> M operator()(M x) const { return M(1) / x; }
};
struct ReciprocalSquare {
  template <class M> M operator()(M x) const { return M(1) / (x * x); }
};
struct Root {
  template <class M> M operator()(M x) const { return std::sqrt(x); }
};
struct ReciprocalRoot {
  template <class M> M operator()(M x) const { return M(1) / std::sqrt(x); }
};
struct Same {
  template <class M> M operator()(M x) const { return x; }
};
struct One {
  template <class M> M operator()(M) const { return M(1); }
};

template <class T> void pow_kernel(const PointwiseIter& it) {
  const bool scalar_exponent = it.numel > 0 && it.contiguous && it.strides[1][0] != 0 && it.strides[2][0] == 0;
  if (scalar_exponent) {
    T* o = reinterpret_cast<T*>(it.data[0]);
    const T* a = reinterpret_cast<const T*>(it.data[1]);
    const double e = double(opmath_t<T>(*reinterpret_cast<const T*>(it.data[2])));
    const int64_t n = it.numel;
    if (e == 2) return pow_by(o, a, n, Square{});
    if (e == 3) return pow_by(o, a, n, Cube{});
    if (e == -1) return pow_by(o, a, n, Reciprocal{});
    if (e == -2) return pow_by(o, a, n, ReciprocalSquare{});
    if (e == 0.5) return pow_by(o, a, n, Root{});
    if (e == -0.5) return pow_by(o, a, n, ReciprocalRoot{});
    if (e == 1) return pow_by(o, a, n, Same{});
    if (e == 0) return pow_by(o, a, n, One{});
  }
  binary_kernel<scalar::pow_op, T, T>(it);
}

// The kernel of (functor, element type, result type): pow of a floating type takes pow_kernel.
template <class T> constexpr bool kFloating =
    std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;
template <class F, class T, class R> constexpr PointwiseKernel kernel_of() {
  if constexpr (std::is_same_v<F, scalar::pow_op> && kFloating<T> && std::is_same_v<T, R>) return &pow_kernel<T>;
  else return &binary_kernel<F, T, R>;
}

#define REG_T(op, T, R) TOCHA_REGISTER_KERNEL(op, cpu, DTypeOf<T>::value, (kernel_of<scalar::op##_op, T, R>()));
#define REG_UNARY(op)
#define REG_UNARY_FLOAT(op)
#define REG_BINARY(op) \
  REG_T(op, float, float) REG_T(op, double, double) REG_T(op, Half, Half) REG_T(op, BFloat16, BFloat16) \
  REG_T(op, int64_t, int64_t) REG_T(op, int32_t, int32_t) REG_T(op, int16_t, int16_t) REG_T(op, int8_t, int8_t) \
  REG_T(op, uint8_t, uint8_t)
#define REG_BINARY_FLOAT(op) \
  REG_T(op, float, float) REG_T(op, double, double) REG_T(op, Half, Half) REG_T(op, BFloat16, BFloat16)
#define REG_COMPARE(op) \
  REG_T(op, float, uint8_t) REG_T(op, double, uint8_t) REG_T(op, Half, uint8_t) REG_T(op, BFloat16, uint8_t) \
  REG_T(op, int64_t, uint8_t) REG_T(op, int32_t, uint8_t) REG_T(op, int16_t, uint8_t) REG_T(op, int8_t, uint8_t) \
  REG_T(op, uint8_t, uint8_t) REG_T(op, bool, uint8_t)
#define REG_UNARY_INT(op)
#define REG_BINARY_INT(op) \
  REG_T(op, int64_t, int64_t) REG_T(op, int32_t, int32_t) REG_T(op, int16_t, int16_t) REG_T(op, int8_t, int8_t) \
  REG_T(op, uint8_t, uint8_t) REG_T(op, bool, bool)
#define REG_POINTWISE(op)
#define REG_OTHER(op)
#define TOCHA_OP(name, kind, grad) REG_##kind(name)
#include "core/ops.def"
#undef TOCHA_OP

// Logical or/and for bool tensors (bool + bool, bool * bool).
REG_T(add, bool, bool)
REG_T(mul, bool, bool)

}  // namespace
}  // namespace cpu
}  // namespace tocha
