// C ABI of the index family (bindings/tocha_index.h): argument unwrapping around the front-ends
// of core/ops/index*.h, join.h, matrix.h and flip.h.
#include <vector>
#include "capi.h"
#include "core/ops/flip.h"
#include "core/ops/index.h"
#include "core/ops/index_mask.h"
#include "core/ops/index_scatter.h"
#include "core/ops/join.h"
#include "core/ops/matrix.h"

using namespace tocha;
using namespace tocha::capi;

namespace {

std::vector<Tensor> arg_list(int n, const tocha_tensor** list, const char* op) {
  TOCHA_CHECK(n >= 1, op, "expected at least one tensor, got ", n);
  TOCHA_CHECK(list, op, "tensor list is NULL");
  std::vector<Tensor> r;
  r.reserve(size_t(n));
  for (int i = 0; i < n; ++i) r.push_back(arg(list[i], op));
  return r;
}

}  // namespace

// ---- slices along a dim ------------------------------------------------------------------------

tocha_tensor* tocha_index_select(const tocha_tensor* src, int dim, const tocha_tensor* index, int64_t base) noexcept {
  return guard_tensor([&] { return index_select(arg(src, "index"), dim, arg(index, "index"), base); });
}
int tocha_index_select_out(tocha_tensor* out, const tocha_tensor* src, int dim, const tocha_tensor* index,
                           int64_t base) noexcept {
  return guard_int([&] { index_select_out(arg(out, "index"), arg(src, "index"), dim, arg(index, "index"), base); });
}

#define CAPI_INDEX_UPDATE(cname, fn, op)                                                                          \
  int tocha_##cname##_(tocha_tensor* self, int dim, const tocha_tensor* index, const tocha_tensor* src,    \
                              int64_t base) noexcept {                                                            \
    return guard_int([&] { fn##_(arg(self, op), dim, arg(index, op), arg(src, op), base); });                     \
  }                                                                                                               \
  tocha_tensor* tocha_##cname(const tocha_tensor* self, int dim, const tocha_tensor* index, const tocha_tensor* src, \
                              int64_t base) noexcept {                                                            \
    return guard_tensor([&] { return fn(arg(self, op), dim, arg(index, op), arg(src, op), base); });             \
  }
CAPI_INDEX_UPDATE(index_copy, index_copy, "indexCopy")
CAPI_INDEX_UPDATE(index_add, index_add, "indexAdd")
CAPI_INDEX_UPDATE(scatter, scatter, "scatter")
CAPI_INDEX_UPDATE(scatter_add, scatter_add, "scatterAdd")
#undef CAPI_INDEX_UPDATE

int tocha_index_fill_(tocha_tensor* self, int dim, const tocha_tensor* index, double value,
                             int64_t base) noexcept {
  return guard_int([&] { index_fill_(arg(self, "indexFill"), dim, arg(index, "indexFill"), value, base); });
}
tocha_tensor* tocha_index_fill(const tocha_tensor* self, int dim, const tocha_tensor* index, double value,
                               int64_t base) noexcept {
  return guard_tensor([&] { return index_fill(arg(self, "indexFill"), dim, arg(index, "indexFill"), value, base); });
}

// ---- gather / scatter ----------------------------------------------------------------------------

tocha_tensor* tocha_gather(const tocha_tensor* input, int dim, const tocha_tensor* index, int64_t base) noexcept {
  return guard_tensor([&] { return gather(arg(input, "gather"), dim, arg(index, "gather"), base); });
}
int tocha_gather_out(tocha_tensor* out, const tocha_tensor* input, int dim, const tocha_tensor* index,
                     int64_t base) noexcept {
  return guard_int([&] { gather_out(arg(out, "gather"), arg(input, "gather"), dim, arg(index, "gather"), base); });
}
int tocha_scatter_value_(tocha_tensor* self, int dim, const tocha_tensor* index, double value,
                                int64_t base) noexcept {
  return guard_int([&] { scatter_(arg(self, "scatter"), dim, arg(index, "scatter"), value, base); });
}
tocha_tensor* tocha_scatter_value(const tocha_tensor* self, int dim, const tocha_tensor* index, double value,
                                  int64_t base) noexcept {
  return guard_tensor([&] { return scatter(arg(self, "scatter"), dim, arg(index, "scatter"), value, base); });
}

// ---- masks and nonzero ---------------------------------------------------------------------------

int tocha_masked_fill_(tocha_tensor* self, const tocha_tensor* mask, double value) noexcept {
  return guard_int([&] { masked_fill_(arg(self, "maskedFill"), arg(mask, "maskedFill"), value); });
}
tocha_tensor* tocha_masked_fill(const tocha_tensor* self, const tocha_tensor* mask, double value) noexcept {
  return guard_tensor([&] { return masked_fill(arg(self, "maskedFill"), arg(mask, "maskedFill"), value); });
}
int tocha_masked_copy_(tocha_tensor* self, const tocha_tensor* mask, const tocha_tensor* src) noexcept {
  return guard_int([&] { masked_copy_(arg(self, "maskedCopy"), arg(mask, "maskedCopy"), arg(src, "maskedCopy")); });
}
tocha_tensor* tocha_masked_copy(const tocha_tensor* self, const tocha_tensor* mask, const tocha_tensor* src) noexcept {
  return guard_tensor([&] {
    return masked_copy(arg(self, "maskedCopy"), arg(mask, "maskedCopy"), arg(src, "maskedCopy"));
  });
}
tocha_tensor* tocha_masked_select(const tocha_tensor* src, const tocha_tensor* mask) noexcept {
  return guard_tensor([&] { return masked_select(arg(src, "maskedSelect"), arg(mask, "maskedSelect")); });
}
int tocha_masked_select_out(tocha_tensor* out, const tocha_tensor* src, const tocha_tensor* mask) noexcept {
  return guard_int([&] {
    masked_select_out(arg(out, "maskedSelect"), arg(src, "maskedSelect"), arg(mask, "maskedSelect"));
  });
}
tocha_tensor* tocha_nonzero(const tocha_tensor* x, int64_t base) noexcept {
  return guard_tensor([&] { return nonzero(arg(x, "nonzero"), base); });
}
int tocha_nonzero_out(tocha_tensor* out, const tocha_tensor* x, int64_t base) noexcept {
  return guard_int([&] { nonzero_out(arg(out, "nonzero"), arg(x, "nonzero"), base); });
}

// ---- joining -------------------------------------------------------------------------------------

tocha_tensor* tocha_cat(int n, const tocha_tensor** list, int dim) noexcept {
  return guard_tensor([&] { return cat(arg_list(n, list, "cat"), dim); });
}
int tocha_cat_out(tocha_tensor* out, int n, const tocha_tensor** list, int dim) noexcept {
  return guard_int([&] { cat_out(arg(out, "cat"), arg_list(n, list, "cat"), dim); });
}
tocha_tensor* tocha_stack(int n, const tocha_tensor** list, int dim) noexcept {
  return guard_tensor([&] { return stack(arg_list(n, list, "stack"), dim); });
}
int tocha_stack_out(tocha_tensor* out, int n, const tocha_tensor** list, int dim) noexcept {
  return guard_int([&] { stack_out(arg(out, "stack"), arg_list(n, list, "stack"), dim); });
}

// ---- matrix shapes -------------------------------------------------------------------------------

tocha_tensor* tocha_diag(const tocha_tensor* x, int64_t k) noexcept {
  return guard_tensor([&] { return diag(arg(x, "diag"), k); });
}
int tocha_diag_out(tocha_tensor* out, const tocha_tensor* x, int64_t k) noexcept {
  return guard_int([&] { diag_out(arg(out, "diag"), arg(x, "diag"), k); });
}
tocha_tensor* tocha_tril(const tocha_tensor* x, int64_t k) noexcept {
  return guard_tensor([&] { return tril(arg(x, "tril"), k); });
}
int tocha_tril_out(tocha_tensor* out, const tocha_tensor* x, int64_t k) noexcept {
  return guard_int([&] { tril_out(arg(out, "tril"), arg(x, "tril"), k); });
}
tocha_tensor* tocha_triu(const tocha_tensor* x, int64_t k) noexcept {
  return guard_tensor([&] { return triu(arg(x, "triu"), k); });
}
int tocha_triu_out(tocha_tensor* out, const tocha_tensor* x, int64_t k) noexcept {
  return guard_int([&] { triu_out(arg(out, "triu"), arg(x, "triu"), k); });
}
tocha_tensor* tocha_flip(const tocha_tensor* x, int ndims, const int64_t* dims) noexcept {
  return guard_tensor([&] {
    // More dims than a tensor can have must repeat one; say so before DimVec refuses them.
    TOCHA_CHECK(ndims >= 0 && ndims <= kMaxDims, "flip", "expected 0 to ", kMaxDims, " dims, got ", ndims);
    TOCHA_CHECK(dims || ndims == 0, "flip", "dims is NULL");
    return flip(arg(x, "flip"), DimVec(dims, ndims));
  });
}
