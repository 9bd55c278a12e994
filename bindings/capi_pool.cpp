// C ABI of the nn pooling, padding and resampling ops (bindings/tocha_pool.h): argument unwrapping
// around the front-ends of core/ops/pool.h and resample.h.
#include <vector>
#include "capi.h"
#include "core/ops/pool.h"
#include "core/ops/resample.h"

using namespace tocha;
using namespace tocha::capi;

namespace {

template <class F> int pair_result(const char* op, tocha_tensor** values, tocha_tensor** indices, F&& f) noexcept {
  return guard_int([&] {
    TOCHA_CHECK(values && indices, op, "values and indices result pointers must not be NULL");
    ValuesIndices r = f();
    *values = r.values.release();
    *indices = r.indices.release();
  });
}

Pool3dParams arg_params(const char* op, const int64_t* k, const int64_t* d, const int64_t* pad, int ceil_mode,
                        int count_include_pad) {
  TOCHA_CHECK(k && d && pad, op, "kernel, stride and padding arrays must not be NULL");
  Pool3dParams p;
  for (int i = 0; i < 3; ++i) {
    p.k[i] = k[i];
    p.d[i] = d[i];
    p.pad[i] = pad[i];
  }
  p.ceil_mode = ceil_mode != 0;
  p.count_include_pad = count_include_pad != 0;
  return p;
}

std::vector<int64_t> arg_pads(const char* op, int n, const int64_t* pads) {
  TOCHA_CHECK(n >= 0 && n <= 6, op, "expected 2, 4 or 6 pads, got ", n);
  TOCHA_CHECK(n == 0 || pads, op, "pads pointer is NULL");
  return std::vector<int64_t>(pads, pads + n);
}

}  // namespace

// ---- adaptive 2D ---------------------------------------------------------------------------------

int tocha_adaptive_max_pool2d(const tocha_tensor* x, int64_t oh, int64_t ow, int64_t base, tocha_tensor** values,
                              tocha_tensor** indices) noexcept {
  const char* op = "adaptiveMaxPool2d";
  return pair_result(op, values, indices, [&] { return adaptive_max_pool2d(arg(x, op), oh, ow, base); });
}
int tocha_adaptive_max_pool2d_out(tocha_tensor* values, tocha_tensor* indices, const tocha_tensor* x, int64_t oh,
                                  int64_t ow, int64_t base) noexcept {
  const char* op = "adaptiveMaxPool2d";
  return guard_int([&] { adaptive_max_pool2d_out(arg(values, op), arg(indices, op), arg(x, op), oh, ow, base); });
}
tocha_tensor* tocha_adaptive_avg_pool2d(const tocha_tensor* x, int64_t oh, int64_t ow) noexcept {
  return guard_tensor([&] { return adaptive_avg_pool2d(arg(x, "adaptiveAvgPool2d"), oh, ow); });
}
int tocha_adaptive_avg_pool2d_out(tocha_tensor* out, const tocha_tensor* x, int64_t oh, int64_t ow) noexcept {
  const char* op = "adaptiveAvgPool2d";
  return guard_int([&] { adaptive_avg_pool2d_out(arg(out, op), arg(x, op), oh, ow); });
}
tocha_tensor* tocha_adaptive_avg_pool2d_backward(const tocha_tensor* grad, int ndim, const int64_t* size) noexcept {
  const char* op = "adaptiveAvgPool2dBackward";
  return guard_tensor([&] { return adaptive_avg_pool2d_backward(arg(grad, op), arg_dims(ndim, size, op)); });
}
int tocha_adaptive_avg_pool2d_backward_out(tocha_tensor* grad_input, const tocha_tensor* grad, int ndim,
                                           const int64_t* size) noexcept {
  const char* op = "adaptiveAvgPool2dBackward";
  return guard_int(
      [&] { adaptive_avg_pool2d_backward_out(arg(grad_input, op), arg(grad, op), arg_dims(ndim, size, op)); });
}

// ---- 3D ------------------------------------------------------------------------------------------

int tocha_max_pool3d(const tocha_tensor* x, const int64_t* k, const int64_t* d, const int64_t* pad, int ceil_mode,
                     int64_t base, tocha_tensor** values, tocha_tensor** indices) noexcept {
  const char* op = "maxPool3d";
  return pair_result(op, values, indices,
                     [&] { return max_pool3d(arg(x, op), arg_params(op, k, d, pad, ceil_mode, 1), base); });
}
int tocha_max_pool3d_out(tocha_tensor* values, tocha_tensor* indices, const tocha_tensor* x, const int64_t* k,
                         const int64_t* d, const int64_t* pad, int ceil_mode, int64_t base) noexcept {
  const char* op = "maxPool3d";
  return guard_int([&] {
    max_pool3d_out(arg(values, op), arg(indices, op), arg(x, op), arg_params(op, k, d, pad, ceil_mode, 1), base);
  });
}
tocha_tensor* tocha_avg_pool3d(const tocha_tensor* x, const int64_t* k, const int64_t* d, const int64_t* pad,
                               int ceil_mode, int count_include_pad) noexcept {
  const char* op = "avgPool3d";
  return guard_tensor([&] { return avg_pool3d(arg(x, op), arg_params(op, k, d, pad, ceil_mode, count_include_pad)); });
}
int tocha_avg_pool3d_out(tocha_tensor* out, const tocha_tensor* x, const int64_t* k, const int64_t* d,
                         const int64_t* pad, int ceil_mode, int count_include_pad) noexcept {
  const char* op = "avgPool3d";
  return guard_int(
      [&] { avg_pool3d_out(arg(out, op), arg(x, op), arg_params(op, k, d, pad, ceil_mode, count_include_pad)); });
}
tocha_tensor* tocha_avg_pool3d_backward(const tocha_tensor* grad, int ndim, const int64_t* size, const int64_t* k,
                                        const int64_t* d, const int64_t* pad, int ceil_mode,
                                        int count_include_pad) noexcept {
  const char* op = "avgPool3dBackward";
  return guard_tensor([&] {
    return avg_pool3d_backward(arg(grad, op), arg_dims(ndim, size, op),
                               arg_params(op, k, d, pad, ceil_mode, count_include_pad));
  });
}
int tocha_avg_pool3d_backward_out(tocha_tensor* grad_input, const tocha_tensor* grad, int ndim, const int64_t* size,
                                  const int64_t* k, const int64_t* d, const int64_t* pad, int ceil_mode,
                                  int count_include_pad) noexcept {
  const char* op = "avgPool3dBackward";
  return guard_int([&] {
    avg_pool3d_backward_out(arg(grad_input, op), arg(grad, op), arg_dims(ndim, size, op),
                            arg_params(op, k, d, pad, ceil_mode, count_include_pad));
  });
}

// ---- temporal and the max pooling gradient -----------------------------------------------------------

int tocha_temporal_max_pool(const tocha_tensor* x, int64_t kw, int64_t dw, int64_t base, tocha_tensor** values,
                            tocha_tensor** indices) noexcept {
  const char* op = "temporalMaxPool";
  return pair_result(op, values, indices, [&] { return temporal_max_pool(arg(x, op), kw, dw, base); });
}
int tocha_temporal_max_pool_out(tocha_tensor* values, tocha_tensor* indices, const tocha_tensor* x, int64_t kw,
                                int64_t dw, int64_t base) noexcept {
  const char* op = "temporalMaxPool";
  return guard_int([&] { temporal_max_pool_out(arg(values, op), arg(indices, op), arg(x, op), kw, dw, base); });
}
tocha_tensor* tocha_max_pool_backward(const tocha_tensor* grad, const tocha_tensor* indices, int ndim,
                                      const int64_t* size, int first, int count, int64_t base) noexcept {
  const char* op = "maxPoolBackward";
  return guard_tensor([&] {
    return max_pool_backward(arg(grad, op), arg(indices, op), arg_dims(ndim, size, op), first, count, base);
  });
}
int tocha_max_pool_backward_out(tocha_tensor* grad_input, const tocha_tensor* grad, const tocha_tensor* indices,
                                int ndim, const int64_t* size, int first, int count, int64_t base) noexcept {
  const char* op = "maxPoolBackward";
  return guard_int([&] {
    max_pool_backward_out(arg(grad_input, op), arg(grad, op), arg(indices, op), arg_dims(ndim, size, op), first,
                          count, base);
  });
}

// ---- padding and resampling -------------------------------------------------------------------------

tocha_tensor* tocha_pad(const tocha_tensor* x, int npads, const int64_t* pads, int mode, double value) noexcept {
  return guard_tensor([&] { return pad(arg(x, "pad"), arg_pads("pad", npads, pads), PadMode(mode), value); });
}
int tocha_pad_out(tocha_tensor* out, const tocha_tensor* x, int npads, const int64_t* pads, int mode,
                  double value) noexcept {
  return guard_int(
      [&] { pad_out(arg(out, "pad"), arg(x, "pad"), arg_pads("pad", npads, pads), PadMode(mode), value); });
}
tocha_tensor* tocha_pad_backward(const tocha_tensor* grad, int ndim, const int64_t* size, int npads,
                                 const int64_t* pads, int mode) noexcept {
  const char* op = "padBackward";
  return guard_tensor([&] {
    return pad_backward(arg(grad, op), arg_dims(ndim, size, op), arg_pads(op, npads, pads), PadMode(mode));
  });
}
int tocha_pad_backward_out(tocha_tensor* grad_input, const tocha_tensor* grad, int ndim, const int64_t* size,
                           int npads, const int64_t* pads, int mode) noexcept {
  const char* op = "padBackward";
  return guard_int([&] {
    pad_backward_out(arg(grad_input, op), arg(grad, op), arg_dims(ndim, size, op), arg_pads(op, npads, pads),
                     PadMode(mode));
  });
}

tocha_tensor* tocha_upsample2d(const tocha_tensor* x, int64_t oh, int64_t ow, int mode, int align_corners) noexcept {
  return guard_tensor(
      [&] { return upsample2d(arg(x, "upsample2d"), oh, ow, UpsampleMode(mode), align_corners != 0); });
}
int tocha_upsample2d_out(tocha_tensor* out, const tocha_tensor* x, int64_t oh, int64_t ow, int mode,
                         int align_corners) noexcept {
  const char* op = "upsample2d";
  return guard_int(
      [&] { upsample2d_out(arg(out, op), arg(x, op), oh, ow, UpsampleMode(mode), align_corners != 0); });
}
tocha_tensor* tocha_upsample2d_backward(const tocha_tensor* grad, int ndim, const int64_t* size, int mode,
                                        int align_corners) noexcept {
  const char* op = "upsample2dBackward";
  return guard_tensor([&] {
    return upsample2d_backward(arg(grad, op), arg_dims(ndim, size, op), UpsampleMode(mode), align_corners != 0);
  });
}
int tocha_upsample2d_backward_out(tocha_tensor* grad_input, const tocha_tensor* grad, int ndim, const int64_t* size,
                                  int mode, int align_corners) noexcept {
  const char* op = "upsample2dBackward";
  return guard_int([&] {
    upsample2d_backward_out(arg(grad_input, op), arg(grad, op), arg_dims(ndim, size, op), UpsampleMode(mode),
                            align_corners != 0);
  });
}
