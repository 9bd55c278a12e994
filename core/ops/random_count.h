// Count-valued random draws from PyTorch: poisson (per-element rates) and binomial (per-element
// counts and probabilities). Drawn on the host from a Generator (Torch7's Mersenne Twister), so
// a seed gives the same values on every device, then moved to the parameters' device.
#pragma once
#include "core/rng.h"
#include "core/tensor.h"

namespace tocha {

// A tensor of rates' shape, dtype and device: element i ~ Poisson(rates[i]) (rates >= 0, floating).
Tensor poisson(const Tensor& rates, Generator& gen);
// count and prob broadcast; element ~ Binomial(count, prob) (count a non-negative integer value,
// 0 <= prob <= 1), in the promoted floating dtype of the two.
Tensor binomial(const Tensor& count, const Tensor& prob, Generator& gen);

}  // namespace tocha
