// C ABI of PyTorch's product functions (bindings/tocha_products.h) over core/ops/matmul.h and
// core/ops/einsum.h.
#include "capi.h"
#include "core/ops/einsum.h"
#include "core/ops/matmul.h"

using namespace tocha;
using namespace tocha::capi;

tocha_tensor* tocha_matmul(const tocha_tensor* a, const tocha_tensor* b) noexcept {
  return guard_tensor([&] { return matmul(arg(a, "matmul"), arg(b, "matmul")); });
}
int tocha_matmul_out(tocha_tensor* out, const tocha_tensor* a, const tocha_tensor* b) noexcept {
  return guard_int([&] { matmul_out(arg(out, "matmul"), arg(a, "matmul"), arg(b, "matmul")); });
}

tocha_tensor* tocha_outer(const tocha_tensor* a, const tocha_tensor* b) noexcept {
  return guard_tensor([&] { return outer(arg(a, "outer"), arg(b, "outer")); });
}
int tocha_outer_out(tocha_tensor* out, const tocha_tensor* a, const tocha_tensor* b) noexcept {
  return guard_int([&] { outer_out(arg(out, "outer"), arg(a, "outer"), arg(b, "outer")); });
}

tocha_tensor* tocha_tensordot(const tocha_tensor* a, const tocha_tensor* b, int n) noexcept {
  return guard_tensor([&] { return tensordot(arg(a, "tensordot"), arg(b, "tensordot"), int64_t(n)); });
}
tocha_tensor* tocha_tensordot_dims(const tocha_tensor* a, const tocha_tensor* b, int ndims, const int64_t* dims_a,
                                   const int64_t* dims_b) noexcept {
  return guard_tensor([&] {
    DimVec da = arg_dims(ndims, dims_a, "tensordot"), db = arg_dims(ndims, dims_b, "tensordot");
    return tensordot(arg(a, "tensordot"), arg(b, "tensordot"), da, db);
  });
}

tocha_tensor* tocha_einsum(const char* equation, int n, const tocha_tensor** operands) noexcept {
  return guard_tensor([&] {
    TOCHA_CHECK(equation, "einsum", "equation is NULL");
    TOCHA_CHECK(n >= 1, "einsum", "expected at least one operand, got ", n);
    TOCHA_CHECK(operands, "einsum", "operand list is NULL");
    std::vector<Tensor> list;
    list.reserve(size_t(n));
    for (int i = 0; i < n; ++i) list.push_back(arg(operands[i], "einsum"));
    return einsum(equation, list);
  });
}
