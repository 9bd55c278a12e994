// PointwiseIter: the geometry of one pointwise op, shared by front-ends (which build it) and
// kernels (which loop over it). Operand 0 is the output; inputs are already converted to the
// kernel's dtype and broadcast to the output shape (0 strides). Lua-number operands live in the
// iterator itself with all-zero strides. Dims that can be merged are coalesced, so a contiguous
// op is one flat loop.
#pragma once
#include <cstdint>
#include "core/tensor.h"

namespace tocha {

constexpr int kMaxOperands = 4;

struct PointwiseIter {
  int noperands = 0;
  int ndim = 0;
  int64_t numel = 0;
  int64_t shape[kMaxDims];
  int64_t strides[kMaxOperands][kMaxDims];  // in elements of each operand's dtype
  char* data[kMaxOperands];
  double params[3] = {0, 0, 0};             // op parameters (alpha, clamp bounds, fill value...)
  DType src_dtype = DType::f32;             // copy: the input's dtype
  bool contiguous = false;                  // one dim of stride 1 (or 0 for scalars) everywhere

  PointwiseIter() = default;
  PointwiseIter(const PointwiseIter&) = delete;  // data may point into scalar_buf
  PointwiseIter& operator=(const PointwiseIter&) = delete;

  // Starts an iteration over `out` (the output shape is out's shape).
  void set_output(const Tensor& out);
  // Adds an input that broadcasts to the output shape.
  void add_input(const Tensor& t);
  // Adds a scalar operand converted to dtype dt.
  void add_scalar(double v, DType dt);
  // Coalesces dims and computes the contiguity flag. Call once after adding operands.
  void finish();
  // The whole setup for contiguous operands of n elements (the fast paths of the front-ends):
  // operands[0] is the output; a null operand pointer is replaced by the scalar v of dtype dt.
  void set_flat(int64_t n, int nops, char* const* operands, double v = 0, DType dt = DType::f32);
  // Whether operand k is a number held in the iterator itself (host memory, all strides 0), not
  // a tensor: device kernels take its value by copy instead of reading through data[k].
  bool is_scalar(int k) const {
    const char* p = data[k];
    const char* b = reinterpret_cast<const char*>(scalar_buf_);
    return p >= b && p < b + sizeof(scalar_buf_);
  }

 private:
  DimVec out_sizes_;
  uint64_t scalar_buf_[kMaxOperands] = {0, 0, 0, 0};
};

using PointwiseKernel = void (*)(const PointwiseIter&);

// Stores v converted to dtype dt into dst (at least 8 bytes).
void store_scalar(void* dst, double v, DType dt);

}  // namespace tocha
