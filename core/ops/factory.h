// Factory front-ends that compute values: range (Torch7, end inclusive), arange (PyTorch, end
// exclusive), linspace, logspace and eye. `_out` forms resize out (Torch7's res argument);
// the others allocate a CPU tensor of the given dtype. (zeros/ones/full are in tensor_ops.h.)
#pragma once
#include "core/tensor.h"

namespace tocha {

// Fills n contiguous elements; params are range {start, step}, linspace {a, b} and
// logspace {a, b, base}. Registered as the kernels of range, linspace and logspace.
using SequenceKernel = void (*)(void* out, int64_t n, const double* params);

// start, start + step, ... while not past end (Torch7: floor((end - start) / step) + 1 values);
// step must be non-zero with the sign of end - start.
void range_out(const Tensor& out, double start, double end, double step);
Tensor range(double start, double end, double step, DType dt);
// start, start + step, ... strictly before end: ceil((end - start) / step) values.
void arange_out(const Tensor& out, double start, double end, double step);
Tensor arange(double start, double end, double step, DType dt);
// n evenly spaced values from a to b inclusive (n = 1 gives a).
void linspace_out(const Tensor& out, double a, double b, int64_t n);
Tensor linspace(double a, double b, int64_t n, DType dt);
// base ^ linspace(a, b, n).
void logspace_out(const Tensor& out, double a, double b, int64_t n, double base);
Tensor logspace(double a, double b, int64_t n, double base, DType dt);
// An n x m matrix with ones on the diagonal.
void eye_out(const Tensor& out, int64_t n, int64_t m);
Tensor eye(int64_t n, int64_t m, DType dt);

}  // namespace tocha
