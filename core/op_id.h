// Op ids and per-op metadata, expanded from core/ops.def.
#pragma once
#include <cstdint>

namespace tocha {

// UNARY_INT and BINARY_INT (integer and bool dtypes only) come last so the older kinds keep their numbers.
enum class OpKind : int32_t { UNARY, UNARY_FLOAT, BINARY, BINARY_FLOAT, COMPARE, POINTWISE, OTHER, UNARY_INT, BINARY_INT };

enum class OpId : int32_t {
#define TOCHA_OP(name, kind, grad) name,
#include "core/ops.def"
#undef TOCHA_OP
  COUNT
};
constexpr int kNumOps = int(OpId::COUNT);

const char* op_name(OpId op);
OpKind op_kind(OpId op);
bool op_differentiable(OpId op);
// Looks an op up by its Lua name; returns false if there is none.
bool op_lookup(const char* name, OpId* out);

}  // namespace tocha
