// Element types: the DType enum, sizes and names, C types per dtype, type promotion and dispatch.
#pragma once
#include <cstdint>
#include <string>
#include "core/half.h"

namespace tocha {

// The order is part of the C ABI (TOCHA_DTYPE_* in bindings/tocha.h).
// i8 and i16 came later (Torch7's CharTensor and ShortTensor) and sit after b8 to keep the ABI.
enum class DType : int32_t { f32 = 0, f64, f16, bf16, i64, i32, u8, b8, i8, i16, COUNT };
constexpr int kNumDTypes = int(DType::COUNT);

size_t dtype_size(DType t);
const char* dtype_name(DType t);          // "f32", "i64", ...
const char* dtype_tensor_name(DType t);   // "torch.FloatTensor", ...
bool parse_dtype(const std::string& name, DType* out);  // accepts "f32", "float", "torch.FloatTensor"...

inline bool is_floating(DType t) { return t == DType::f32 || t == DType::f64 || t == DType::f16 || t == DType::bf16; }
inline bool is_integral(DType t, bool include_bool) {
  return t == DType::i64 || t == DType::i32 || t == DType::i16 || t == DType::i8 || t == DType::u8 ||
         (include_bool && t == DType::b8);
}
inline bool is_reduced_float(DType t) { return t == DType::f16 || t == DType::bf16; }

// Note [Type promotion]
// One place decides the result dtype of an op with several operands (PyTorch's rules):
//  - categories rank bool < integer < floating; the result takes the highest category present;
//  - among tensors of one category the wider type wins (u8,i8 < i16 < i32 < i64; f16,bf16 < f32 <
//    f64; f16 with bf16 gives f32 and u8 with i8 gives i16, the smallest type holding both);
//  - a Lua number only matters when its category is higher than every tensor's: an integral
//    number with a bool tensor gives i64, a non-integral number with an integer tensor gives the
//    default float dtype (torch.setdefaulttensortype); otherwise the tensor dtype is kept
//    (FloatTensor + 2.5 stays FloatTensor);
//  - a 0-dim tensor beside tensors with dims counts only when its category is higher than theirs
//    (PyTorch's result_type: FloatTensor + a 0-dim double stays Float, IntTensor + a 0-dim Long
//    stays Int, IntTensor + a 0-dim double is Double): result_dtype in core/ops/pointwise.h;
//  - in-place ops and `res` outputs keep their own dtype; a float result cannot be written into
//    an integer tensor and a non-bool result cannot be written into a bool tensor (can_cast).
// Float-valued math (exp, sin, sqrt, div...) on integer tensors computes in the default float dtype.
DType promote_types(DType a, DType b);
// bool 0, integers 1, floating 2: the categories of Note [Type promotion].
int dtype_category(DType t);
DType promote_with_scalar(DType tensor, bool scalar_is_integral, bool scalar_is_bool);
bool can_cast(DType from, DType to);
DType default_float_dtype();
void set_default_float_dtype(DType t);
// The float dtype float-valued math computes in for an input of dtype t.
inline DType float_result_dtype(DType t) { return is_floating(t) ? t : default_float_dtype(); }

// Note [Reduced-precision math]
// f16 and bf16 are storage types: pointwise kernels load them, compute in float and store back;
// reductions accumulate in float (or double for f64). opmath_t names that compute type.
template <class T> struct OpMath { using type = T; };
template <> struct OpMath<Half> { using type = float; };
template <> struct OpMath<BFloat16> { using type = float; };
template <class T> using opmath_t = typename OpMath<T>::type;

template <class T> struct DTypeOf;
template <> struct DTypeOf<float> { static constexpr DType value = DType::f32; };
template <> struct DTypeOf<double> { static constexpr DType value = DType::f64; };
template <> struct DTypeOf<Half> { static constexpr DType value = DType::f16; };
template <> struct DTypeOf<BFloat16> { static constexpr DType value = DType::bf16; };
template <> struct DTypeOf<int64_t> { static constexpr DType value = DType::i64; };
template <> struct DTypeOf<int32_t> { static constexpr DType value = DType::i32; };
template <> struct DTypeOf<int16_t> { static constexpr DType value = DType::i16; };
template <> struct DTypeOf<int8_t> { static constexpr DType value = DType::i8; };
template <> struct DTypeOf<uint8_t> { static constexpr DType value = DType::u8; };
template <> struct DTypeOf<bool> { static constexpr DType value = DType::b8; };

[[noreturn]] void throw_bad_dtype(const char* op, DType t);

// The C types kernels register over, as X-macro lists: M(T) for each type. One list for every
// kernel file, so a new dtype reaches every kernel family that takes all (or all integer) types.
#define TOCHA_FOR_FLOAT_TYPES(M) M(float) M(double) M(Half) M(BFloat16)
#define TOCHA_FOR_INT_TYPES(M) M(int64_t) M(int32_t) M(int16_t) M(int8_t) M(uint8_t)
#define TOCHA_FOR_NUMERIC_TYPES(M) TOCHA_FOR_FLOAT_TYPES(M) TOCHA_FOR_INT_TYPES(M)
#define TOCHA_FOR_ALL_TYPES(M) TOCHA_FOR_NUMERIC_TYPES(M) M(bool)

// Calls f(T{}) with T the C type of dtype t. Kernels are written once as generic lambdas.
template <class F> decltype(auto) visit_dtype(DType t, F&& f) {
  switch (t) {
    case DType::f32: return f(float{});
    case DType::f64: return f(double{});
    case DType::f16: return f(Half{});
    case DType::bf16: return f(BFloat16{});
    case DType::i64: return f(int64_t{});
    case DType::i32: return f(int32_t{});
    case DType::i16: return f(int16_t{});
    case DType::i8: return f(int8_t{});
    case DType::u8: return f(uint8_t{});
    case DType::b8: return f(bool{});
    default: throw_bad_dtype("dispatch", t);
  }
}

}  // namespace tocha
