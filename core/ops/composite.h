// Composite ops nn needs, built from recorded primitives (so they need no formula of their own and
// double backward works): smooth activations. The softmax family is declared here too but is a
// fused op (core/ops/softmax.cpp), as is layer normalization (core/ops/norm.h).
#pragma once
#include "core/tensor.h"

namespace tocha {

// exp(x - max) / sum(exp(x - max)) along dim, and its log (Note [Fused softmax]).
Tensor softmax(const Tensor& x, int64_t dim);
Tensor log_softmax(const Tensor& x, int64_t dim);
// x * Phi(x) with the exact (erf) form, PyTorch's default GELU.
Tensor gelu(const Tensor& x);
// x * sigmoid(x).
Tensor silu(const Tensor& x);
// scale * (x > 0 ? x : alpha * (exp(x) - 1)); selu is elu with its fixed alpha and scale.
Tensor elu(const Tensor& x, double alpha, double scale = 1.0);
Tensor selu(const Tensor& x);
// x > 0 ? x : slope * x.
Tensor leaky_relu(const Tensor& x, double slope);
// log(1 + exp(beta x)) / beta, linear above threshold (like PyTorch).
Tensor softplus(const Tensor& x, double beta, double threshold);

}  // namespace tocha
