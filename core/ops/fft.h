// Discrete Fourier transforms over a list of dims (torch.fft's primitives): complex to complex,
// real to the onesided half spectrum and back, f32/f64, CPU (FFTW) and CUDA (cuFFT); differentiable.
// Complex tensors are real ones with a trailing dim of 2 (Note [Complex values as a trailing dim of 2]).
#pragma once
#include <cstdint>
#include "core/tensor.h"

namespace tocha {

// Note [Complex values as a trailing dim of 2]
// Tocha has no complex dtype. A complex tensor of size (d1, ..., dk) is a real f32/f64 tensor of
// size (d1, ..., dk, 2) holding (real, imaginary) pairs: exactly PyTorch's torch.view_as_real
// layout and the convention of Torch7's `signal` package, so the memory is the interleaved
// layout FFTW and cuFFT take (fftw_complex, cufftComplex) once the tensor is contiguous. The
// trailing 2 is not a dim of the complex view: `dims` below index the first k dims (0-based,
// negative from the end of those k). Results are new tensors, possibly permuted views of one
// (Note [FFT layout for the kernels], fft.cpp).

// The transforms of each op, unscaled, then multiplied by `scale` (1, 1/n or 1/sqrt(n): the caller
// turns PyTorch's norm into it). dims: distinct, at least one.
// Complex (..., 2) to complex: sum_j x_j e^(-+2 pi i jk/n) (forward: the minus sign).
Tensor fft_c2c(const Tensor& x, const DimVec& dims, bool forward, double scale);
// Real to complex, forward; the last of `dims` keeps n/2 + 1 entries (the other half is their
// conjugate mirror, dropped as in PyTorch's onesided rfftn).
Tensor fft_r2c(const Tensor& x, const DimVec& dims, double scale);
// The onesided half spectrum (..., 2) to real, inverse: the last of `dims` becomes last_size (n),
// and x must hold exactly n/2 + 1 entries along it (torch.fft trims or pads before). The
// imaginary parts that a real signal's spectrum cannot have (at 0 and n/2) are ignored.
Tensor fft_c2r(const Tensor& x, const DimVec& dims, double scale, int64_t last_size);

enum class FftKind : int32_t { c2c = 0, r2c = 1, c2r = 2 };

// One kernel call: `batch` transforms of rank 1 to 3 over contiguous (batch, n[0], ..., n[rank-1])
// arrays: complex values interleaved, real ones plain; r2c's output and c2r's input have
// n[rank-1] / 2 + 1 complex entries along the last dim. n are the signal (real-side) sizes.
// c2r may overwrite its input (FFTW and cuFFT do for multi-dim c2r). Unscaled.
struct FftArgs {
  FftKind kind = FftKind::c2c;
  bool forward = true;  // c2c only; r2c is forward and c2r inverse
  int rank = 1;
  int64_t n[3] = {1, 1, 1};
  int64_t batch = 1;
};
// Registered under OpId::fftC2c for all three kinds, per (device, dtype): f32 and f64.
using FftKernel = void (*)(const FftArgs& args, void* in, void* out);

}  // namespace tocha
