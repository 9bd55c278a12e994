/* tocha_fft.h -- C ABI of the discrete Fourier transform primitives (torch.fft's building blocks,
 * core/ops/fft.h). Included by tocha.h; see its conventions. A complex tensor is a real f32/f64
 * tensor whose last dim has size 2 (real, imaginary); dims (0-based, negative from the end) index
 * the dims before that trailing 2. Each result is the unscaled transform times `scale`; all are
 * differentiable. FFTW (CPU) and cuFFT (CUDA) are opened on the first call.
 */
#ifndef TOCHA_FFT_ABI_H
#define TOCHA_FFT_ABI_H

/* Complex to complex over dims: forward != 0 uses e^(-2 pi i jk/n), else e^(+2 pi i jk/n). */
TOCHA_API tocha_tensor *tocha_fft_c2c(const tocha_tensor *x, int ndims, const int64_t *dims, int forward,
                                      double scale) TOCHA_NOEXCEPT;
/* Real to the onesided spectrum over dims (the last of dims keeps n/2 + 1 entries). */
TOCHA_API tocha_tensor *tocha_fft_r2c(const tocha_tensor *x, int ndims, const int64_t *dims,
                                      double scale) TOCHA_NOEXCEPT;
/* The onesided spectrum to real over dims (inverse); the last of dims gets last_size entries. */
TOCHA_API tocha_tensor *tocha_fft_c2r(const tocha_tensor *x, int ndims, const int64_t *dims, double scale,
                                      int64_t last_size) TOCHA_NOEXCEPT;

#endif
