// Private helpers of the convolution and pooling front-ends (core/ops/conv.cpp, pool2d.cpp) and their
// formulas: argument checks with messages that name the op, the sizes and the options received.
#pragma once
#include "core/autograd/node.h"
#include "core/type_name.h"
#include "core/ops/conv.h"
#include "core/ops/pointwise.h"
#include "core/ops/pool2d.h"

namespace tocha {

// The options a conv, convTranspose or convWeight node recorded (Note [Recording convolutions]).
ConvOptions conv_options_of(const Node& n);
// The options a pooling node recorded (Note [Recording pooling] in core/ops/pool2d.cpp).
Pool2dOptions pool_options_of(const Node& n);

namespace convutil {

// "HxW" style names of the spatial layouts, for messages.
inline const char* spatial_names(int nd) { return nd == 1 ? "L" : nd == 2 ? "H x W" : "D x H x W"; }

inline void check_options(const char* op, const ConvOptions& o) {
  TOCHA_CHECK(o.nd >= 1 && o.nd <= 3, op, "expected 1, 2 or 3 spatial dims, got ", o.nd);
  TOCHA_CHECK(o.groups >= 1, op, "groups must be positive, got ", o.groups);
  for (int d = 0; d < o.nd; ++d) {
    TOCHA_CHECK(o.stride[d] >= 1, op, "stride must be positive, got ", o.stride[d], " for spatial dim ", d + 1);
    TOCHA_CHECK(o.dilation[d] >= 1, op, "dilation must be positive, got ", o.dilation[d], " for spatial dim ", d + 1);
    TOCHA_CHECK(o.padding[d] >= 0, op, "padding must be non-negative, got ", o.padding[d], " for spatial dim ", d + 1);
    TOCHA_CHECK(o.output_padding[d] >= 0, op, "output padding must be non-negative, got ", o.output_padding[d],
                " for spatial dim ", d + 1);
  }
}

// weight must be (nd + 2)-D with positive sizes.
inline void check_weight(const char* op, const Tensor& w, const ConvOptions& o) {
  check_options(op, o);
  TOCHA_CHECK(w.dim() == o.nd + 2, op, "weight must be ", o.nd + 2, "D (out x in/groups x ", spatial_names(o.nd),
              ") for a ", o.nd, "-D convolution, got size ", shape_str(w.sizes()));
  for (int d = 0; d < w.dim(); ++d)
    TOCHA_CHECK(w.size(d) >= 1, op, "weight of size ", shape_str(w.sizes()), " has an empty dim");
}

// input must be (nd + 1)-D (one sample) or (nd + 2)-D (a batch); returns whether it is a batch.
inline bool check_input(const char* op, const Tensor& x, const ConvOptions& o, const char* batch_layout) {
  TOCHA_CHECK(x.dim() == o.nd + 1 || x.dim() == o.nd + 2, op, "expected a ", o.nd + 1, "D (C x ",
              spatial_names(o.nd), ") or ", o.nd + 2, "D (", batch_layout, spatial_names(o.nd), ") input for a ",
              o.nd, "-D op, got ", x.dim() == 0 ? std::string("a 0-dim tensor") : "size " + shape_str(x.sizes()));
  return x.dim() == o.nd + 2;
}

// Same floating dtype and device.
inline void check_operand(const char* op, const char* na, const Tensor& a, const char* nb, const Tensor& b) {
  TOCHA_CHECK(is_floating(a.dtype()), op, "expected floating-point tensors, got a ", tensor_type_name(a),
              " as ", na);
  TOCHA_CHECK(a.dtype() == b.dtype(), op, na, " is a ", tensor_type_name(a), " but ", nb, " is a ",
              tensor_type_name(b));
  TOCHA_CHECK(a.device() == b.device(), op, na, " is on ", a.device().str(), " but ", nb, " is on ",
              b.device().str());
}

inline void check_bias(const char* op, const Tensor* bias, const Tensor& like, int64_t n) {
  if (!bias) return;
  check_operand(op, "input", like, "bias", *bias);
  TOCHA_CHECK(bias->dim() == 1 && bias->size(0) == n, op, "bias must be a vector of ", n,
              " elements (one per output channel), got size ", shape_str(bias->sizes()));
}

// A result tensor given by the caller: dtype and device of `like`, no overlapping elements.
inline void check_result(const char* op, const Tensor& out, const Tensor& like) {
  TOCHA_CHECK(out.dtype() == like.dtype(), op, "result is a ", tensor_type_name(out),
              " but the input is a ", tensor_type_name(like));
  TOCHA_CHECK(out.device() == like.device(), op, "result is on ", out.device().str(), " but the input is on ",
              like.device().str());
  check_writable(op, out);
}

}  // namespace convutil
}  // namespace tocha
