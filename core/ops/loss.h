// Fused classification losses for nn's ClassNLLCriterion and CrossEntropyCriterion: one pass over
// the scores instead of a chain of gather/where/dot/sum ops (Note [Fused class losses]).
#pragma once
#include "core/tensor.h"

namespace tocha {

// The options Torch7's criterions take. Targets are class numbers offset by index_base (1 from
// Lua); a target equal to ignore_index (compared before the offset) adds nothing.
struct ClassLossOptions {
  Tensor weight;  // optional: one weight per class (a vector of C elements, the input's dtype)
  bool size_average = true;
  int64_t ignore_index = -100;
  int64_t index_base = 0;
};

// -sum_i w[t_i] x[i, t_i], divided by sum_i w[t_i] when size_average (and that sum is not 0).
// input: N x C log-probabilities, or a vector of C (one sample); target: N class numbers.
Tensor nll_loss(const Tensor& input, const Tensor& target, const ClassLossOptions& opts);
// The same applied to logSoftmax(input) along the class dim.
Tensor cross_entropy(const Tensor& input, const Tensor& target, const ClassLossOptions& opts);
// d(loss)/d(input) scaled by grad (the gradient of the loss); input's size and dtype.
Tensor nll_loss_backward(double grad, const Tensor& input, const Tensor& target, const ClassLossOptions& opts);
Tensor cross_entropy_backward(double grad, const Tensor& input, const Tensor& target, const ClassLossOptions& opts);
// Either gradient written into out (resized to the input's size; same dtype and device).
void class_loss_backward_out(const Tensor& out, bool cross_entropy, double grad, const Tensor& input,
                             const Tensor& target, const ClassLossOptions& opts);

// What a class-loss kernel gets: contiguous N x C input, contiguous i64 targets, an optional
// contiguous weight vector. On the CPU the targets are already checked to lie in [0, C) after
// subtracting base (or to equal ignore_index), and forward fills sums[0] (the weighted loss sum)
// and sums[1] (the weight sum). On CUDA the kernels check the targets themselves (Note [Deferred
// device errors], kernels/cuda/device_errors.h) and forward writes the loss into `result` (a 0-dim
// tensor of the input's dtype, on its device), so nothing waits for the GPU. backward writes
// grad_input (contiguous N x C) scaled by `scale` / norm.
struct ClassLossArgs {
  int64_t n = 0, c = 0;
  const void* input = nullptr;
  const int64_t* target = nullptr;
  const void* weight = nullptr;
  int64_t ignore_index = -100, base = 0;
  bool size_average = true;
  double* sums = nullptr;
  void* result = nullptr;
  void* grad_input = nullptr;
  double scale = 1;
};
// One registered kernel per (op, device, dtype) holds both directions.
struct ClassLossKernels {
  void (*forward)(const ClassLossArgs&);
  void (*backward)(const ClassLossArgs&);
};

}  // namespace tocha
