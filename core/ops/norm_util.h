// Helpers shared by the normalization front-ends (core/ops/norm*.cpp): result checks and the
// contiguous buffers the fused kernels write through.
#pragma once
#include <initializer_list>
#include <string>
#include "core/ops/pointwise.h"
#include "core/type_name.h"
#include "core/tensor.h"

namespace tocha {
namespace norm_util {

inline std::string describe(const Tensor& t) {
  return t.dim() == 0 ? std::string("a 0-dim tensor") : "size " + shape_str(t.sizes());
}

// A tensor the op writes into: x's dtype and device, elements that do not overlap.
inline void check_result(const char* op, const char* name, const Tensor& r, const Tensor& x) {
  TOCHA_CHECK(r.defined(), op, "expected a tensor for ", name);
  TOCHA_CHECK(r.dtype() == x.dtype(), op, name, " is a ", tensor_type_name(r), " but the input is a ",
              tensor_type_name(x));
  check_same_device(op, r, x);
  check_writable(op, r);
}

inline void check_disjoint(const char* op, const char* na, const Tensor& a, const char* nb, const Tensor& b) {
  TOCHA_CHECK(!a.defined() || !b.defined() || !a.shares_storage(b), op, na, " and ", nb, " must not share memory");
}

// A contiguous tensor to hand the kernel for t, which it writes: t itself unless t is strided or
// shares memory with a tensor the kernel reads.
inline Tensor writable_buffer(const Tensor& t, std::initializer_list<const Tensor*> reads) {
  bool direct = t.is_contiguous();
  for (const Tensor* r : reads)
    if (r->defined() && t.shares_storage(*r)) direct = false;
  return direct ? t : empty(t.sizes(), t.dtype(), t.device());
}

// Finishes a write into t through buffer b (copy back, or the version bump of a direct write).
inline void commit(const Tensor& t, const Tensor& b) {
  if (b.is_same(t)) t.bump_version();
  else copy_(t, b);
}

inline void* ptr(const Tensor& t) { return t.defined() ? t.raw_data() : nullptr; }
inline Tensor contig(const Tensor& t) { return t.defined() ? contiguous(t) : t; }

}  // namespace norm_util
}  // namespace tocha
