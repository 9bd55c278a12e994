// DType tables and the type-promotion rules (Note [Type promotion] in dtype.h).
#include "core/dtype.h"
#include <atomic>
#include "core/error.h"

namespace tocha {

namespace {
struct DTypeInfo {
  size_t size;
  const char* name;
  const char* tensor_name;
};
const DTypeInfo kInfo[kNumDTypes] = {
    {4, "f32", "torch.FloatTensor"},     {8, "f64", "torch.DoubleTensor"},
    {2, "f16", "torch.HalfTensor"},      {2, "bf16", "torch.BFloat16Tensor"},
    {8, "i64", "torch.LongTensor"},      {4, "i32", "torch.IntTensor"},
    {1, "u8", "torch.ByteTensor"},       {1, "bool", "torch.BoolTensor"},
    {1, "i8", "torch.CharTensor"},       {2, "i16", "torch.ShortTensor"},
};
std::atomic<int> g_default_float{int(DType::f32)};

bool valid(DType t) { return int(t) >= 0 && int(t) < kNumDTypes; }

// Rank inside a category; the pairs of equal rank and different types (f16/bf16, u8/i8) promote
// to the next rank (f32, i16).
int category(DType t) { return t == DType::b8 ? 0 : is_floating(t) ? 2 : 1; }
int width_rank(DType t) {
  switch (t) {
    case DType::b8: return 0;
    case DType::u8: case DType::i8: return 1;
    case DType::i16: return 2;
    case DType::i32: return 3;
    case DType::i64: return 4;
    case DType::f16: case DType::bf16: return 1;
    case DType::f32: return 2;
    case DType::f64: return 3;
    default: return 0;
  }
}
}  // namespace

size_t dtype_size(DType t) { return valid(t) ? kInfo[int(t)].size : 0; }
const char* dtype_name(DType t) { return valid(t) ? kInfo[int(t)].name : "invalid"; }
const char* dtype_tensor_name(DType t) { return valid(t) ? kInfo[int(t)].tensor_name : "invalid"; }

bool parse_dtype(const std::string& s, DType* out) {
  static const struct { const char* alias; DType t; } aliases[] = {
      {"f32", DType::f32}, {"float", DType::f32}, {"float32", DType::f32}, {"torch.FloatTensor", DType::f32},
      {"f64", DType::f64}, {"double", DType::f64}, {"float64", DType::f64}, {"torch.DoubleTensor", DType::f64},
      {"f16", DType::f16}, {"half", DType::f16}, {"float16", DType::f16}, {"torch.HalfTensor", DType::f16},
      {"bf16", DType::bf16}, {"bfloat16", DType::bf16}, {"torch.BFloat16Tensor", DType::bf16},
      {"i64", DType::i64}, {"long", DType::i64}, {"int64", DType::i64}, {"torch.LongTensor", DType::i64},
      {"i32", DType::i32}, {"int", DType::i32}, {"int32", DType::i32}, {"torch.IntTensor", DType::i32},
      {"u8", DType::u8}, {"byte", DType::u8}, {"uint8", DType::u8}, {"torch.ByteTensor", DType::u8},
      {"i16", DType::i16}, {"short", DType::i16}, {"int16", DType::i16}, {"torch.ShortTensor", DType::i16},
      {"i8", DType::i8}, {"char", DType::i8}, {"int8", DType::i8}, {"torch.CharTensor", DType::i8},
      {"bool", DType::b8}, {"b8", DType::b8}, {"torch.BoolTensor", DType::b8},
  };
  for (auto& a : aliases)
    if (s == a.alias) { *out = a.t; return true; }
  return false;
}

DType promote_types(DType a, DType b) {
  if (a == b) return a;
  int ca = category(a), cb = category(b);
  if (ca != cb) return ca > cb ? a : b;
  if ((a == DType::f16 && b == DType::bf16) || (a == DType::bf16 && b == DType::f16)) return DType::f32;
  if ((a == DType::u8 && b == DType::i8) || (a == DType::i8 && b == DType::u8)) return DType::i16;
  return width_rank(a) >= width_rank(b) ? a : b;
}

int dtype_category(DType t) { return category(t); }

DType promote_with_scalar(DType t, bool scalar_is_integral, bool scalar_is_bool) {
  if (scalar_is_bool) return t;
  if (!scalar_is_integral) return is_floating(t) ? t : default_float_dtype();
  return t == DType::b8 ? DType::i64 : t;
}

bool can_cast(DType from, DType to) {
  if (is_floating(from) && !is_floating(to)) return false;
  if (from != DType::b8 && to == DType::b8) return false;
  return true;
}

DType default_float_dtype() { return DType(g_default_float.load(std::memory_order_relaxed)); }
void set_default_float_dtype(DType t) {
  TOCHA_CHECK(is_floating(t), "setdefaulttensortype", "expected a floating type, got ", dtype_name(t));
  g_default_float = int(t);
}

void throw_bad_dtype(const char* op, DType t) { fail(op, "unsupported dtype ", int(t)); }

}  // namespace tocha
