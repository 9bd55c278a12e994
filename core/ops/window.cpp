// Signal windows (see window.h): computed in double on the host (n values, a closed form each),
// then converted to the dtype and moved to the device. Not differentiable (no tensor inputs).
#include "core/ops/window.h"
#include <cmath>
#include "core/error.h"
#include "core/ops/pointwise.h"
#include "core/ops/tensor_ops.h"

namespace tocha {

namespace {

// The modified Bessel function of the first kind, order 0 (power series; converges for all x).
double bessel_i0(double x) {
  double sum = 1, term = 1;
  const double q = x * x / 4;
  for (int k = 1; k < 500; ++k) {
    term *= q / (double(k) * double(k));
    sum += term;
    if (term < sum * 1e-17) break;
  }
  return sum;
}

const char* window_name(WindowKind k) {
  switch (k) {
    case WindowKind::hann: return "hannWindow";
    case WindowKind::hamming: return "hammingWindow";
    case WindowKind::blackman: return "blackmanWindow";
    case WindowKind::bartlett: return "bartlettWindow";
    default: return "kaiserWindow";
  }
}

}  // namespace

Tensor window(WindowKind kind, int64_t n, bool periodic, double alpha, double beta, DType dt, Device dev) {
  const char* op = window_name(kind);
  TOCHA_CHECK(n >= 0, op, "window length must not be negative, got ", n);
  TOCHA_CHECK(is_floating(dt), op, "expected a floating point type, got a ", dtype_tensor_name(dt));
  TOCHA_CHECK(n <= (int64_t(1) << 40), op, "window length ", n, " is too large");
  Tensor host = empty({n}, DType::f64);
  double* w = host.data<double>();
  if (n == 1) w[0] = 1;  // PyTorch: a window of one point is [1]
  if (n > 1) {
    const double m = double(periodic ? n : n - 1);  // the denominator N - 1 of the n (+1) point window
    const double pi = 3.14159265358979323846;
    for (int64_t k = 0; k < n; ++k) {
      const double t = double(k) / m;
      switch (kind) {
        case WindowKind::hann: w[k] = 0.5 - 0.5 * std::cos(2 * pi * t); break;
        case WindowKind::hamming: w[k] = alpha - beta * std::cos(2 * pi * t); break;
        // PyTorch's order of terms: 0.08 - 0.5 + 0.42 is exactly 0 at the ends, 0.42 - 0.5 + 0.08 is -1.4e-17.
        case WindowKind::blackman: w[k] = 0.08 * std::cos(4 * pi * t) - 0.5 * std::cos(2 * pi * t) + 0.42; break;
        case WindowKind::bartlett: w[k] = 1 - std::fabs(2 * t - 1); break;
        case WindowKind::kaiser: {
          const double r = 2 * t - 1;  // -1 .. 1 across the window
          w[k] = bessel_i0(beta * std::sqrt(std::max(0.0, 1 - r * r))) / bessel_i0(beta);
          break;
        }
      }
    }
  }
  return to_device(to_dtype(host, dt), dev);
}

}  // namespace tocha
