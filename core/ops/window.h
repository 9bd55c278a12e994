// Signal windows from PyTorch: hann, hamming, blackman, bartlett and kaiser, as 1D tensors of a
// floating dtype on any device. periodic: the window of n + 1 points without its last (for
// spectral analysis, PyTorch's default); else the symmetric window of n points.
#pragma once
#include "core/tensor.h"

namespace tocha {

enum class WindowKind { hann, hamming, blackman, bartlett, kaiser };

// alpha/beta: hamming's coefficients (0.54, 0.46 by default); beta: kaiser's shape (12).
Tensor window(WindowKind kind, int64_t n, bool periodic, double alpha, double beta, DType dt, Device dev);

}  // namespace tocha
