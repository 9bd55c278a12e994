// Random op front-ends: in-place fills (Torch7's x:uniform(), x:normal()...), multinomial and
// randperm. They validate every parameter, then run the CPU kernel for (op, dtype) on a
// contiguous CPU buffer: tensors that are strided or on another device get a temporary that is
// copied in, so a seed gives the same values on every device and layout.
#pragma once
#include "core/rng.h"
#include "core/tensor.h"

namespace tocha {

// Floating tensors only.
void uniform_(const Tensor& t, Generator& gen, double a, double b);
void normal_(const Tensor& t, Generator& gen, double mean, double std);
// Torch7's logNormal: mean and std are those of the log-normal values (mean > 0, std > 0).
void log_normal_(const Tensor& t, Generator& gen, double mean, double std);
void exponential_(const Tensor& t, Generator& gen, double lambda);
void cauchy_(const Tensor& t, Generator& gen, double median, double sigma);
// Torch7's geometric, P(i) = (1-p) p^(i-1) for i >= 1; any numeric tensor.
void geometric_(const Tensor& t, Generator& gen, double p);
// 1 with probability p, else 0; any dtype including bool.
void bernoulli_(const Tensor& t, Generator& gen, double p);
// Per-element probabilities: probs broadcasts to t's shape or has as many elements.
void bernoulli_(const Tensor& t, Generator& gen, const Tensor& probs);
// Integers in [lo, hi] (inclusive); both must fit the dtype.
void random_(const Tensor& t, Generator& gen, int64_t lo, int64_t hi);
// Torch7's x:random(): integers in [0, random_max(dtype)].
void random_(const Tensor& t, Generator& gen);
// Largest value of x:random() for a dtype (Torch7: 2^24 for float, 2^32-1 for double and long).
int64_t random_max(DType dt);

// n indices per row of a 1D (k) or 2D (rows x k) tensor of non-negative weights, drawn with
// or without replacement; result 1D (n) or 2D (rows x n) int64, values in [base, base + k).
Tensor multinomial(const Tensor& probs, Generator& gen, int64_t n, bool replacement, int64_t base);
// The same into out (resized; any numeric dtype that holds the indices).
void multinomial_out(const Tensor& out, const Tensor& probs, Generator& gen, int64_t n, bool replacement,
                     int64_t base);
// A random permutation of base .. base + n - 1 (Torch7's Fisher-Yates stream).
Tensor randperm(int64_t n, Generator& gen, DType dt, int64_t base);
void randperm_out(const Tensor& out, int64_t n, Generator& gen, int64_t base);

// Parameter checks shared with the scalar draws (core/ops/random_scalar.cpp).
void check_uniform_args(const char* op, double a, double b);
void check_normal_args(const char* op, double mean, double std);
void check_log_normal_args(const char* op, double mean, double std);
void check_positive_arg(const char* op, const char* what, double v);
void check_probability(const char* op, double p, bool open_interval);

}  // namespace tocha
