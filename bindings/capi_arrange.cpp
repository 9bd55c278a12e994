// C ABI of the arrangement and search functions (bindings/tocha_arrange.h): argument unwrapping
// around the front-ends of core/ops/arrange.h, unique.h and search.h.
#include <vector>
#include "capi.h"
#include "core/ops/arrange.h"
#include "core/ops/search.h"
#include "core/ops/unique.h"

using namespace tocha;
using namespace tocha::capi;

namespace {

// A list of dims, shifts or reps (at most kMaxDims of them).
DimVec arg_list(int n, const int64_t* v, const char* op, const char* what) {
  TOCHA_CHECK(n >= 0 && n <= kMaxDims, op, "expected 0 to ", kMaxDims, " ", what, ", got ", n);
  TOCHA_CHECK(v || n == 0, op, what, " is NULL");
  return DimVec(v, n);
}

// An optional tensor argument: NULL gives an undefined tensor.
Tensor opt_arg(const tocha_tensor* p, const char* op) { return p ? Tensor(arg(p, op).get()) : Tensor(); }

}  // namespace

tocha_tensor* tocha_roll(const tocha_tensor* x, int nshifts, const int64_t* shifts, int ndims,
                         const int64_t* dims) noexcept {
  return guard_tensor([&] {
    return roll(arg(x, "roll"), arg_list(nshifts, shifts, "roll", "shifts"), arg_list(ndims, dims, "roll", "dims"));
  });
}

tocha_tensor* tocha_tile(const tocha_tensor* x, int nreps, const int64_t* reps) noexcept {
  return guard_tensor([&] { return tile(arg(x, "tile"), arg_list(nreps, reps, "tile", "reps")); });
}

tocha_tensor* tocha_movedim(const tocha_tensor* x, int n, const int64_t* source, const int64_t* destination) noexcept {
  return guard_tensor([&] {
    return movedim(arg(x, "movedim"), arg_list(n, source, "movedim", "source dims"),
                   arg_list(n, destination, "movedim", "destination dims"));
  });
}

int tocha_meshgrid(int n, const tocha_tensor** tensors, int xy, tocha_tensor** out) noexcept {
  return guard_int([&] {
    const char* op = "meshgrid";
    TOCHA_CHECK(n >= 1 && n <= kMaxDims, op, "expected 1 to ", kMaxDims, " tensors, got ", n);
    TOCHA_CHECK(tensors && out, op, "tensor list or result list is NULL");
    std::vector<Tensor> in;
    for (int i = 0; i < n; ++i) in.push_back(arg(tensors[i], op).get());
    std::vector<Tensor> r = meshgrid(in, xy != 0);
    for (int i = 0; i < n; ++i) out[i] = r[size_t(i)].release();
  });
}

tocha_tensor* tocha_diff(const tocha_tensor* x, int64_t n, int dim, const tocha_tensor* prepend,
                         const tocha_tensor* append) noexcept {
  return guard_tensor([&] { return diff(arg(x, "diff"), n, dim, opt_arg(prepend, "diff"), opt_arg(append, "diff")); });
}

tocha_tensor* tocha_argsort(const tocha_tensor* x, int dim, int descending, int64_t base) noexcept {
  return guard_tensor([&] { return argsort(arg(x, "argsort"), dim, descending != 0, base); });
}

int tocha_unique(const tocha_tensor* x, int consecutive, int has_dim, int dim, int want_inverse, int want_counts,
                 int64_t base, tocha_tensor** values, tocha_tensor** inverse, tocha_tensor** counts) noexcept {
  return guard_int([&] {
    const char* op = consecutive ? "uniqueConsecutive" : "unique";
    TOCHA_CHECK(values && (inverse || !want_inverse) && (counts || !want_counts), op, "result pointer is NULL");
    const int64_t d = dim;
    UniqueResult r = unique(arg(x, op), has_dim ? &d : nullptr, consecutive != 0, want_inverse != 0,
                            want_counts != 0, base);
    *values = r.values.release();
    if (inverse) *inverse = r.inverse.defined() ? r.inverse.release() : nullptr;
    if (counts) *counts = r.counts.defined() ? r.counts.release() : nullptr;
  });
}

tocha_tensor* tocha_searchsorted(const tocha_tensor* sorted_seq, const tocha_tensor* values, int right, int out_int32,
                                 const tocha_tensor* sorter, int64_t base) noexcept {
  return guard_tensor([&] {
    return searchsorted(arg(sorted_seq, "searchsorted"), arg(values, "searchsorted"), right != 0, out_int32 != 0,
                        opt_arg(sorter, "searchsorted"), base);
  });
}

tocha_tensor* tocha_bucketize(const tocha_tensor* values, const tocha_tensor* boundaries, int right, int out_int32,
                              int64_t base) noexcept {
  return guard_tensor([&] {
    return bucketize(arg(values, "bucketize"), arg(boundaries, "bucketize"), right != 0, out_int32 != 0, base);
  });
}
