// Building a PointwiseIter: broadcasting, scalars and dim coalescing. See pointwise_iter.h.
#include "core/pointwise_iter.h"
#include <cstdint>
#include <type_traits>

namespace tocha {

// An integral number for an integer tensor goes through int64 and wraps, as PyTorch's (IntTensor
// + 1e10 gives 1410065410): converting a double the type cannot hold straight to it is undefined
// (it gave INT_MIN + 2). Numbers past int64 saturate there first.
void store_scalar(void* dst, double v, DType dt) {
  visit_dtype(dt, [&](auto tag) {
    using T = decltype(tag);
    T x;
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      int64_t i = v != v ? 0 : v >= 9223372036854775807.0 ? INT64_MAX : v <= -9223372036854775808.0 ? INT64_MIN : int64_t(v);
      x = T(uint64_t(i));
    } else {
      x = T(v);
    }
    std::memcpy(dst, &x, sizeof(T));
  });
}

void PointwiseIter::set_output(const Tensor& out) {
  out_sizes_ = out.sizes();
  ndim = out_sizes_.size();
  numel = out.numel();
  for (int d = 0; d < ndim; ++d) {
    shape[d] = out_sizes_[d];
    strides[0][d] = out.stride(d);
  }
  data[0] = static_cast<char*>(out.raw_data());
  noperands = 1;
}

void PointwiseIter::add_input(const Tensor& t) {
  TOCHA_ASSERT(noperands < kMaxOperands);
  DimVec st = broadcast_strides(t.sizes(), t.strides(), out_sizes_);
  for (int d = 0; d < ndim; ++d) strides[noperands][d] = st[d];
  data[noperands] = static_cast<char*>(t.raw_data());
  ++noperands;
}

void PointwiseIter::add_scalar(double v, DType dt) {
  TOCHA_ASSERT(noperands < kMaxOperands);
  store_scalar(&scalar_buf_[noperands], v, dt);
  for (int d = 0; d < ndim; ++d) strides[noperands][d] = 0;
  data[noperands] = reinterpret_cast<char*>(&scalar_buf_[noperands]);
  ++noperands;
}

void PointwiseIter::set_flat(int64_t n, int nops, char* const* operands, double v, DType dt) {
  noperands = nops;
  ndim = 1;
  numel = n;
  shape[0] = n;
  for (int k = 0; k < nops; ++k) {
    if (operands[k]) {
      data[k] = operands[k];
      strides[k][0] = 1;
    } else {
      store_scalar(&scalar_buf_[k], v, dt);
      data[k] = reinterpret_cast<char*>(&scalar_buf_[k]);
      strides[k][0] = 0;
    }
  }
  contiguous = true;
}

void PointwiseIter::finish() {
  // Drop size-1 dims (their strides never matter), then merge dim d into d+1 when every
  // operand steps through both as one (stride[d] == stride[d+1] * shape[d+1]).
  int n = 0;
  for (int d = 0; d < ndim; ++d) {
    if (shape[d] == 1) continue;
    shape[n] = shape[d];
    for (int k = 0; k < noperands; ++k) strides[k][n] = strides[k][d];
    ++n;
  }
  if (n == 0) {  // a single element
    shape[0] = 1;
    for (int k = 0; k < noperands; ++k) strides[k][0] = 0;
    n = 1;
  }
  int m = 0;
  for (int d = 1; d < n; ++d) {
    bool mergeable = true;
    for (int k = 0; k < noperands; ++k)
      if (strides[k][m] != strides[k][d] * shape[d]) { mergeable = false; break; }
    if (mergeable) {
      shape[m] *= shape[d];
      for (int k = 0; k < noperands; ++k) strides[k][m] = strides[k][d];
    } else {
      ++m;
      shape[m] = shape[d];
      for (int k = 0; k < noperands; ++k) strides[k][m] = strides[k][d];
    }
  }
  ndim = m + 1;
  contiguous = ndim == 1;
  for (int k = 0; k < noperands && contiguous; ++k)
    if (strides[k][0] != 1 && strides[k][0] != 0) contiguous = false;
  if (contiguous && strides[0][0] == 0 && shape[0] > 1) contiguous = false;
}

}  // namespace tocha
