// Op metadata tables expanded from core/ops.def.
#include "core/op_id.h"
#include <cstring>

namespace tocha {

namespace {
constexpr bool GRAD = true, NOGRAD = false;
struct OpInfo {
  const char* name;
  OpKind kind;
  bool grad;
};
const OpInfo kOps[] = {
#define TOCHA_OP(name, kind, grad) {#name, OpKind::kind, grad},
#include "core/ops.def"
#undef TOCHA_OP
};
static_assert(sizeof(kOps) / sizeof(kOps[0]) == size_t(kNumOps), "op table and enum disagree");
}  // namespace

const char* op_name(OpId op) { return int(op) >= 0 && int(op) < kNumOps ? kOps[int(op)].name : "?"; }
OpKind op_kind(OpId op) { return kOps[int(op)].kind; }
bool op_differentiable(OpId op) { return kOps[int(op)].grad; }
bool op_lookup(const char* name, OpId* out) {
  for (int i = 0; i < kNumOps; ++i)
    if (std::strcmp(kOps[i].name, name) == 0) { *out = OpId(i); return true; }
  return false;
}

}  // namespace tocha
