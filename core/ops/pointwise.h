// Pointwise op front-ends (DESIGN.md decision 2): validate, promote, broadcast, allocate, run the
// kernel registered for (op, device, dtype). `_out` variants write into an existing tensor: an
// input for in-place ops, or Torch7's `res` argument (resized to the result shape).
#pragma once
#include <initializer_list>
#include <optional>
#include "core/op_id.h"
#include "core/ops/scalar.h"
#include "core/tensor.h"

namespace tocha {

// UNARY and UNARY_FLOAT ops (exp, abs, ...).
Tensor unary(OpId op, const Tensor& a);
void unary_out(OpId op, const Tensor& out, const Tensor& a);

// BINARY, BINARY_FLOAT and COMPARE ops; alpha is add/sub's multiplier of b.
Tensor binary(OpId op, const Tensor& a, const Tensor& b, double alpha = 1);
Tensor binary(OpId op, const Tensor& a, Scalar b, double alpha = 1);
Tensor binary(OpId op, Scalar a, const Tensor& b);
void binary_out(OpId op, const Tensor& out, const Tensor& a, const Tensor& b, double alpha = 1);
void binary_out(OpId op, const Tensor& out, const Tensor& a, Scalar b, double alpha = 1);
void binary_out(OpId op, const Tensor& out, Scalar a, const Tensor& b);

// The dtype ops on these tensors compute in (Note [Type promotion]): promote_types over the
// tensors with dims, a 0-dim one only when its category is higher (PyTorch's result_type).
DType result_dtype(std::initializer_list<const Tensor*> operands);

// clamp(a, lo, hi); a missing bound is not applied.
Tensor clamp(const Tensor& a, std::optional<double> lo, std::optional<double> hi);
void clamp_out(const Tensor& out, const Tensor& a, std::optional<double> lo, std::optional<double> hi);
// The n-th derivative of digamma (n >= 0), computed in a floating-point dtype.
Tensor polygamma(int64_t n, const Tensor& a);
void polygamma_out(const Tensor& out, int64_t n, const Tensor& a);
// a + value * b * c and a + value * b / c.
Tensor addcmul(const Tensor& a, double value, const Tensor& b, const Tensor& c);
void addcmul_out(const Tensor& out, const Tensor& a, double value, const Tensor& b, const Tensor& c);
Tensor addcdiv(const Tensor& a, double value, const Tensor& b, const Tensor& c);
void addcdiv_out(const Tensor& out, const Tensor& a, double value, const Tensor& b, const Tensor& c);
// a + w * (b - a), w a number or a tensor.
Tensor lerp(const Tensor& a, const Tensor& b, Scalar w);
Tensor lerp(const Tensor& a, const Tensor& b, const Tensor& w);
void lerp_out(const Tensor& out, const Tensor& a, const Tensor& b, const Tensor& w);
// cond ? a : b with broadcasting; cond is a ByteTensor or BoolTensor.
Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b);

// Copies src into dst (broadcasting src to dst's shape, converting dtype). Devices may differ.
void copy_(const Tensor& dst, const Tensor& src);
// Sets every element of dst to v.
void fill_(const Tensor& dst, double v);
// A tensor of dtype dt with a's values (a itself when it already has that dtype).
Tensor to_dtype(const Tensor& a, DType dt);
// a itself when contiguous, else a contiguous copy.
Tensor contiguous(const Tensor& a);
// A contiguous copy with its own storage.
Tensor clone(const Tensor& a);

// Shared checks.
void check_same_device(const char* op, const Tensor& a, const Tensor& b);
// b as the second operand of the binary op `op` with a: on a's device, and broadcasting with a or,
// by Torch7's rule, holding as many elements (then reshaped, recorded, to a's size); *shape gets
// the result's shape.
Tensor binary_operand(const char* op, const Tensor& a, const Tensor& b, DimVec* shape);
// An output that several elements alias (a 0 stride on a dim of size > 1) cannot be written.
void check_writable(const char* op, const Tensor& out);
// Whether writing out while reading in needs a temporary (partial overlap).
bool needs_temporary(const Tensor& out, const Tensor& in);

}  // namespace tocha
