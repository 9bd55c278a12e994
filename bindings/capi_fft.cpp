// C ABI of the FFT primitives (bindings/tocha_fft.h): argument unwrapping around core/ops/fft.h.
#include "capi.h"
#include "core/ops/fft.h"

using namespace tocha;
using namespace tocha::capi;

namespace {

DimVec dim_list(int n, const int64_t* v, const char* op) {
  TOCHA_CHECK(n >= 1 && n <= kMaxDims, op, "expected 1 to ", kMaxDims, " dims, got ", n);
  TOCHA_CHECK(v, op, "dims is NULL");
  return DimVec(v, n);
}

}  // namespace

tocha_tensor* tocha_fft_c2c(const tocha_tensor* x, int ndims, const int64_t* dims, int forward,
                            double scale) noexcept {
  return guard_tensor([&] {
    const char* op = forward ? "fft" : "ifft";
    return fft_c2c(arg(x, op), dim_list(ndims, dims, op), forward != 0, scale);
  });
}

tocha_tensor* tocha_fft_r2c(const tocha_tensor* x, int ndims, const int64_t* dims, double scale) noexcept {
  return guard_tensor([&] { return fft_r2c(arg(x, "rfft"), dim_list(ndims, dims, "rfft"), scale); });
}

tocha_tensor* tocha_fft_c2r(const tocha_tensor* x, int ndims, const int64_t* dims, double scale,
                            int64_t last_size) noexcept {
  return guard_tensor(
      [&] { return fft_c2r(arg(x, "irfft"), dim_list(ndims, dims, "irfft"), scale, last_size); });
}
