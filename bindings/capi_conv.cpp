// C ABI of the neural-network ops (bindings/tocha_conv.h): convolutions and 2-D pooling.
#include <optional>
#include "capi.h"
#include "core/ops/conv.h"
#include "core/ops/pool2d.h"

using namespace tocha;
using namespace tocha::capi;

namespace {

ConvOptions conv_options(const tocha_conv_options* o, const char* op) {
  TOCHA_CHECK(o, op, "options pointer is NULL");
  TOCHA_CHECK(o->nd >= 1 && o->nd <= 3, op, "expected 1, 2 or 3 spatial dims, got ", o->nd);
  ConvOptions r;
  r.nd = o->nd;
  r.groups = o->groups;
  for (int d = 0; d < 3; ++d) {
    r.stride[d] = o->stride[d];
    r.padding[d] = o->padding[d];
    r.dilation[d] = o->dilation[d];
    r.output_padding[d] = o->output_padding[d];
  }
  return r;
}

Pool2dOptions pool_options(const tocha_pool_options* o, const char* op) {
  TOCHA_CHECK(o, op, "options pointer is NULL");
  Pool2dOptions r;
  for (int d = 0; d < 2; ++d) {
    r.kernel[d] = o->kernel[d];
    r.stride[d] = o->stride[d];
    r.padding[d] = o->padding[d];
  }
  r.ceil_mode = o->ceil_mode != 0;
  r.count_include_pad = o->count_include_pad != 0;
  return r;
}

// An optional tensor argument (NULL: absent).
std::optional<Borrowed> opt_arg(const tocha_tensor* p, const char* op) {
  if (!p) return std::nullopt;
  (void)arg(p, op);  // the NULL and freed-handle checks
  return std::optional<Borrowed>(std::in_place, const_cast<tocha_tensor*>(p));
}
const Tensor* ptr(const std::optional<Borrowed>& b) { return b ? &b->get() : nullptr; }

}  // namespace

// ---- convolutions -------------------------------------------------------------------------------

tocha_tensor* tocha_conv(const tocha_tensor* input, const tocha_tensor* weight, const tocha_tensor* bias,
                         const tocha_conv_options* o) noexcept {
  return guard_tensor([&] {
    auto b = opt_arg(bias, "conv");
    return conv(arg(input, "conv"), arg(weight, "conv"), ptr(b), conv_options(o, "conv"));
  });
}
int tocha_conv_out(tocha_tensor* out, const tocha_tensor* input, const tocha_tensor* weight, const tocha_tensor* bias,
                   const tocha_conv_options* o) noexcept {
  return guard_int([&] {
    auto b = opt_arg(bias, "conv");
    conv_out(arg(out, "conv"), arg(input, "conv"), arg(weight, "conv"), ptr(b), conv_options(o, "conv"));
  });
}
tocha_tensor* tocha_conv_transpose(const tocha_tensor* input, const tocha_tensor* weight, const tocha_tensor* bias,
                                   const tocha_conv_options* o) noexcept {
  const char* op = "convTranspose";
  return guard_tensor([&] {
    auto b = opt_arg(bias, op);
    return conv_transpose(arg(input, op), arg(weight, op), ptr(b), conv_options(o, op));
  });
}
int tocha_conv_transpose_out(tocha_tensor* out, const tocha_tensor* input, const tocha_tensor* weight,
                             const tocha_tensor* bias, const tocha_conv_options* o) noexcept {
  const char* op = "convTranspose";
  return guard_int([&] {
    auto b = opt_arg(bias, op);
    conv_transpose_out(arg(out, op), arg(input, op), arg(weight, op), ptr(b), conv_options(o, op));
  });
}
tocha_tensor* tocha_conv_weight(const tocha_tensor* input, const tocha_tensor* grad_output, const int64_t* kernel,
                                const tocha_conv_options* o) noexcept {
  const char* op = "convWeight";
  return guard_tensor([&] {
    ConvOptions opts = conv_options(o, op);
    return conv_weight(arg(input, op), arg(grad_output, op), arg_dims(opts.nd, kernel, op), opts);
  });
}
int tocha_conv_weight_acc(tocha_tensor* grad_weight, tocha_tensor* grad_bias, const tocha_tensor* input,
                          const tocha_tensor* grad_output, const tocha_conv_options* o, double alpha,
                          double beta) noexcept {
  const char* op = "convWeight";
  return guard_int([&] {
    auto gb = opt_arg(grad_bias, op);
    conv_weight_acc(arg(grad_weight, op), arg(input, op), arg(grad_output, op), conv_options(o, op), alpha, beta,
                    ptr(gb));
  });
}
int tocha_conv_bias_acc(tocha_tensor* grad_bias, const tocha_tensor* grad_output, int nd, double alpha) noexcept {
  return guard_int([&] { conv_bias_acc(arg(grad_bias, "convBias"), arg(grad_output, "convBias"), nd, alpha); });
}

// ---- pooling ------------------------------------------------------------------------------------

int tocha_max_pool2d(const tocha_tensor* input, const tocha_pool_options* o, int64_t base, tocha_tensor** values,
                     tocha_tensor** indices) noexcept {
  return guard_int([&] {
    TOCHA_CHECK(values && indices, "maxPool2d", "values and indices result pointers must not be NULL");
    MaxPool2dResult r = max_pool2d(arg(input, "maxPool2d"), pool_options(o, "maxPool2d"), base);
    *values = r.values.release();
    *indices = r.indices.release();
  });
}
int tocha_max_pool2d_out(tocha_tensor* values, tocha_tensor* indices, const tocha_tensor* input,
                         const tocha_pool_options* o, int64_t base) noexcept {
  const char* op = "maxPool2d";
  return guard_int(
      [&] { max_pool2d_out(arg(values, op), arg(indices, op), arg(input, op), pool_options(o, op), base); });
}
tocha_tensor* tocha_max_pool2d_backward(const tocha_tensor* grad_output, const tocha_tensor* indices, int ndim,
                                        const int64_t* input_size, int64_t base,
                                        const tocha_pool_options* windows) noexcept {
  const char* op = "maxPool2dBackward";
  return guard_tensor([&] {
    Pool2dOptions w;
    if (windows) w = pool_options(windows, op);
    return max_pool2d_backward(arg(grad_output, op), arg(indices, op), arg_dims(ndim, input_size, op), base,
                               windows ? &w : nullptr);
  });
}
int tocha_max_pool2d_backward_out(tocha_tensor* grad_input, const tocha_tensor* grad_output,
                                  const tocha_tensor* indices, int ndim, const int64_t* input_size,
                                  int64_t base, const tocha_pool_options* windows) noexcept {
  const char* op = "maxPool2dBackward";
  return guard_int([&] {
    Pool2dOptions w;
    if (windows) w = pool_options(windows, op);
    max_pool2d_backward_out(arg(grad_input, op), arg(grad_output, op), arg(indices, op),
                            arg_dims(ndim, input_size, op), base, windows ? &w : nullptr);
  });
}
tocha_tensor* tocha_avg_pool2d(const tocha_tensor* input, const tocha_pool_options* o) noexcept {
  return guard_tensor([&] { return avg_pool2d(arg(input, "avgPool2d"), pool_options(o, "avgPool2d")); });
}
int tocha_avg_pool2d_out(tocha_tensor* out, const tocha_tensor* input, const tocha_pool_options* o) noexcept {
  return guard_int([&] { avg_pool2d_out(arg(out, "avgPool2d"), arg(input, "avgPool2d"), pool_options(o, "avgPool2d")); });
}
tocha_tensor* tocha_avg_pool2d_backward(const tocha_tensor* grad_output, int ndim, const int64_t* input_size,
                                        const tocha_pool_options* o) noexcept {
  const char* op = "avgPool2dBackward";
  return guard_tensor([&] {
    return avg_pool2d_backward(arg(grad_output, op), arg_dims(ndim, input_size, op), pool_options(o, op));
  });
}
int tocha_avg_pool2d_backward_out(tocha_tensor* grad_input, const tocha_tensor* grad_output, int ndim,
                                  const int64_t* input_size, const tocha_pool_options* o) noexcept {
  const char* op = "avgPool2dBackward";
  return guard_int([&] {
    avg_pool2d_backward_out(arg(grad_input, op), arg(grad_output, op), arg_dims(ndim, input_size, op),
                            pool_options(o, op));
  });
}
