// Vector-Jacobian products of the FFT primitives (core/ops/fft.cpp), written with the transforms
// themselves so higher orders work: PyTorch's fft_c2c/r2c/c2r backward (FunctionsManual.cpp).
#include "core/autograd/formula_ops.h"
#include "core/autograd/vjp.h"
#include "core/ops/fft.h"
#include "core/ops/join.h"

namespace tocha {
namespace autograd {

// Note [FFT gradients]
// With the complex view as pairs of reals, each transform is a real-linear map, and its vjp is
// its adjoint. The unnormalized DFT F has adjoint conj(F)^T = the unnormalized inverse, so c2c's
// vjp is the opposite-direction c2c with the same scale. r2c (onesided) is "pad the imaginary part
// with zeros, c2c, drop the upper half": its adjoint puts zeros where the dropped half was, runs
// the inverse c2c with the same scale and keeps the real part. c2r is "fill the upper half by
// conjugate symmetry, inverse c2c, keep the real part": its adjoint is r2c of the gradient with
// the same scale, each kept bin k with 0 < k < n - (n/2 + 1) + 1 doubled (its mirror n - k landed
// in the dropped half), i.e. bins 1 .. n - (n/2 + 1); bin 0 and, for even n, bin n/2 are their own
// mirrors. Attributes: shape = the wrapped dims, d[0] = the scale, i[0] = c2c's direction,
// i[1] = the real size along the last transformed dim (r2c's input, c2r's output).

using namespace f;

Grads vjp_fftC2c(Node& n, const Grads& g) {
  return {fft_c2c(g[0], n.attrs.shape, n.attrs.i[0] == 0, n.attrs.d[0])};
}

Grads vjp_fftR2c(Node& n, const Grads& g) {
  const DimVec& dims = n.attrs.shape;
  const int64_t last = dims.back(), full = n.attrs.i[1];
  Tensor grad = g[0];
  const int64_t half = grad.size(int(last));
  if (full > half) {
    DimVec zs = grad.sizes();
    zs[int(last)] = full - half;
    grad = cat({grad, zeros(zs, grad.dtype(), grad.device())}, last);
  }
  return {select(fft_c2c(grad, dims, false, n.attrs.d[0]), -1, 0)};
}

Grads vjp_fftC2r(Node& n, const Grads& g) {
  const DimVec& dims = n.attrs.shape;
  const int64_t last = dims.back(), full = n.attrs.i[1], half = full / 2 + 1;
  Tensor gi = fft_r2c(g[0], dims, n.attrs.d[0]);
  const int64_t doubled = full - half;
  if (doubled <= 0) return {gi};
  // weights 1, 2, ..., 2, 1 or 1, 2, ..., 2 along the halved dim, broadcast over the rest
  Tensor w = ones(DimVec{half}, gi.dtype());
  fill_(narrow(w, 0, 1, doubled), 2);
  DimVec shape = DimVec::filled(gi.dim(), 1);
  shape[int(last)] = half;
  return {mul(gi, view(to_device(w, gi.device()), shape))};
}

}  // namespace autograd
}  // namespace tocha
