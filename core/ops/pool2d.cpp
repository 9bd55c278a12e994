// 2-D pooling front-ends: checks with messages naming the op, the sizes and the options received,
// Torch7's output sizes (Note [Pooling output size]), contiguous operands, the kernel call and the
// autograd record. See pool2d.h.
#include "core/ops/pool2d.h"
#include "core/type_name.h"
#include "core/autograd/record.h"
#include "core/kernel_registry.h"
#include "core/ops/conv_util.h"
#include "core/ops/pool2d_kernels.h"
#include "core/ops/pointwise.h"
#include "core/ops/reduce.h"
#include "core/ops/tensor_ops.h"

namespace tocha {

namespace {

std::string options_str(const Pool2dOptions& o) {
  return str_cat("kernel ", o.kernel[0], "x", o.kernel[1], ", stride ", o.stride[0], ",", o.stride[1], ", padding ",
                 o.padding[0], ",", o.padding[1], o.ceil_mode ? ", ceil mode" : "");
}

void check_options(const char* op, const Pool2dOptions& o) {
  for (int d = 0; d < 2; ++d) {
    TOCHA_CHECK(o.kernel[d] >= 1 && o.stride[d] >= 1 && o.padding[d] >= 0, op,
                "kernel and stride must be positive and padding non-negative, got ", options_str(o));
    TOCHA_CHECK(o.padding[d] <= o.kernel[d] / 2, op, "padding must be at most half the kernel size, got ",
                options_str(o));
  }
}

int64_t pooled(int64_t in, int64_t k, int64_t s, int64_t pad, bool ceil_mode) {
  int64_t span = in + 2 * pad - k;  // >= 0, checked
  int64_t out = (ceil_mode ? (span + s - 1) / s : span / s) + 1;
  if (ceil_mode && (out - 1) * s >= in + pad) --out;  // the last window would start in the padding
  return out;
}

// Whether valid options o pool the spatial dims of `in` (from dim hd) to oH x oW. Never throws.
bool windows_give(const DimVec& in, int hd, int64_t oH, int64_t oW, const Pool2dOptions& o) {
  const int64_t limit = int64_t(1) << 31;
  for (int d = 0; d < 2; ++d) {
    const int64_t n = in[hd + d];
    if (o.kernel[d] < 1 || o.stride[d] < 1 || o.padding[d] < 0 || o.padding[d] > o.kernel[d] / 2 ||
        o.kernel[d] >= limit || o.stride[d] >= limit || n + 2 * o.padding[d] < o.kernel[d] ||
        pooled(n, o.kernel[d], o.stride[d], o.padding[d], o.ceil_mode) != (d == 0 ? oH : oW))
      return false;
  }
  return true;
}

// The output shape of pooling an input of size `in` (3-D or 4-D), checked.
DimVec pooled_shape(const char* op, const DimVec& in, const Pool2dOptions& o) {
  TOCHA_CHECK(in.size() == 3 || in.size() == 4, op, "expected a 3D (C x H x W) or 4D (N x C x H x W) input, got ",
              in.empty() ? std::string("a 0-dim tensor") : "size " + shape_str(in));
  check_options(op, o);
  const int hd = in.size() - 2;
  DimVec out = in;
  for (int d = 0; d < 2; ++d) {
    int64_t n = in[hd + d];
    TOCHA_CHECK(n + 2 * o.padding[d] >= o.kernel[d], op, "input of size ", shape_str(in),
                " is smaller than the kernel (", options_str(o), ")");
    out[hd + d] = pooled(n, o.kernel[d], o.stride[d], o.padding[d], o.ceil_mode);
  }
  return out;
}

void check_float(const char* op, const char* name, const Tensor& t) {
  TOCHA_CHECK(is_floating(t.dtype()), op, "expected a floating-point ", name, ", got a ",
              tensor_type_name(t));
}

Pool2dArgs args_for(const DimVec& in, const DimVec& out, const Pool2dOptions& o) {
  Pool2dArgs a;
  const int hd = in.size() - 2;
  a.planes = in.size() == 4 ? in[0] * in[1] : in[0];
  a.iH = in[hd];
  a.iW = in[hd + 1];
  a.oH = out[hd];
  a.oW = out[hd + 1];
  a.kH = o.kernel[0];
  a.kW = o.kernel[1];
  a.dH = o.stride[0];
  a.dW = o.stride[1];
  a.padH = o.padding[0];
  a.padW = o.padding[1];
  a.count_include_pad = o.count_include_pad;
  return a;
}

// A result written by a kernel: out itself when given, contiguous and not overlapping `src`,
// else a new contiguous tensor (copied into out by deliver).
Tensor target_for(const char* op, const Tensor* out, const DimVec& shape, DType dt, const Tensor& src) {
  if (!out) return empty(shape, dt, src.device());
  TOCHA_CHECK(out->dtype() == dt, op, "result is a ", dtype_tensor_name(out->dtype()), ", expected a ",
              dtype_tensor_name(dt));
  TOCHA_CHECK(out->device() == src.device(), op, "result is on ", out->device().str(), " but the input is on ",
              src.device().str());
  check_writable(op, *out);
  if (!out->shares_storage(src)) {
    resize_(*out, shape);
    if (out->is_contiguous()) return *out;
  }
  return empty(shape, dt, src.device());
}

void deliver(const Tensor* out, const Tensor& target) {
  if (!out) return;
  if (target.is_same(*out)) {
    out->bump_version();
    return;
  }
  resize_(*out, target.sizes());
  copy_(*out, target);
}

void save_options(Node& n, const Pool2dOptions& o) {
  n.attrs.shape = DimVec{o.kernel[0], o.kernel[1], o.stride[0], o.stride[1], o.padding[0], o.padding[1]};
  n.attrs.i[1] = o.ceil_mode;
  n.attrs.i[2] = o.count_include_pad;
}

// ---- max pooling ------------------------------------------------------------------------------

MaxPool2dResult max_pool_compute(const Tensor* vout, const Tensor* iout, const Tensor& input, const Pool2dOptions& o,
                               int64_t base) {
  const char* op = "maxPool2d";
  DimVec shape = pooled_shape(op, input.sizes(), o);
  check_float(op, "input", input);
  auto kernel = kernel_for<Pool2dKernel>(OpId::maxPool2d, input.device().type, input.dtype());
  Tensor x = contiguous(input);
  Tensor v = target_for(op, vout, shape, input.dtype(), input);
  Tensor idx = target_for(op, iout, shape, DType::i64, input);
  TOCHA_CHECK(!vout || !iout || !vout->shares_storage(*iout), op, "values and indices must not share memory");
  Pool2dArgs a = args_for(input.sizes(), shape, o);
  a.index_base = base;
  a.in = x.raw_data();
  a.out = v.raw_data();
  a.indices = idx.data<int64_t>();
  if (v.numel() > 0) kernel(a);
  deliver(vout, v);
  deliver(iout, idx);
  return {vout ? *vout : v, iout ? *iout : idx};
}

// Note [Recording pooling]: maxPool2d records (input), saves its indices in slot 0 and the index base
// in attrs.i[0]; maxPool2dBackward records (grad_output) with the same slot and base and the input
// size in attrs.shape2. avgPool2d records (input); avgPool2dBackward (grad_output) with the input size
// in attrs.shape2. attrs.shape holds kH, kW, dH, dW, padH, padW; i[1] ceil mode, i[2] count_include_pad.
MaxPool2dResult max_pool_impl(const Tensor* vout, const Tensor* iout, const Tensor& input, const Pool2dOptions& o,
                            int64_t base) {
  autograd::Recording rec(OpId::maxPool2d, vout, {&input});
  MaxPool2dResult r = max_pool_compute(vout, iout, input, o, base);
  if (auto n = rec.finish({&input}, {&r.values})) {
    save_options(*n, o);
    n->attrs.i[0] = base;
    n->save(r.indices);
  }
  return r;
}

Tensor max_pool_backward_compute(const Tensor* out, const Tensor& grad_output, const Tensor& indices,
                                 const DimVec& in, int64_t base, const Pool2dOptions* windows) {
  const char* op = "maxPool2dBackward";
  TOCHA_CHECK(in.size() == 3 || in.size() == 4, op, "expected a 3D or 4D input size, got ",
              in.empty() ? std::string("none") : shape_str(in));
  check_float(op, "grad_output", grad_output);
  TOCHA_CHECK(indices.dtype() == DType::i64, op, "indices must be a torch.LongTensor, got a ",
              tensor_type_name(indices));
  TOCHA_CHECK(indices.device() == grad_output.device(), op, "indices are on ", indices.device().str(),
              " but grad_output is on ", grad_output.device().str());
  const int hd = in.size() - 2;
  bool fits = grad_output.dim() == int(in.size()) && indices.sizes() == grad_output.sizes();
  for (int d = 0; fits && d < hd; ++d) fits = grad_output.size(d) == in[d];
  TOCHA_CHECK(fits, op, "grad_output of size ", shape_str(grad_output.sizes()), " and indices of size ",
              shape_str(indices.sizes()), " do not fit an input of size ", shape_str(in));
  for (int64_t s : in) TOCHA_CHECK(s >= 0, op, "input size ", shape_str(in), " has a negative dim");
  const int64_t plane = in[hd] * in[hd + 1];
  // no kernel runs for empty planes, where every position is out of place
  TOCHA_CHECK(plane > 0 || indices.numel() == 0, op, "indices of size ", shape_str(indices.sizes()),
              " hold positions but the input of size ", shape_str(in), " has empty planes");
  // Note [Positions checked by the pooling backward]: the kernels check the positions as they
  // use them and skip bad ones. On CUDA reading them back here would wait for the GPU twice per
  // call (Note [Deferred device errors]); on the CPU a min and a max over the int64 positions before
  // the kernel read them twice more from memory: 0.9 ms of a 20 ms CNN training step. A bad
  // position is raised once the CPU kernel returns, with grad_input written except at it (with
  // several threads, the one a thread met first).
  Pool2dArgs::BadPosition bad;
  auto kernel = kernel_for<Pool2dKernel>(OpId::maxPool2dBackward, grad_output.device().type, grad_output.dtype());
  Tensor g = contiguous(grad_output), idx = contiguous(indices);
  Tensor gi = target_for(op, out, in, grad_output.dtype(), grad_output);
  if (out && gi.is_same(*out) && out->shares_storage(indices)) gi = empty(in, grad_output.dtype(), g.device());
  Pool2dArgs a;
  a.planes = in.size() == 4 ? in[0] * in[1] : in[0];
  a.iH = in[hd];
  a.iW = in[hd + 1];
  a.oH = grad_output.size(hd);
  a.oW = grad_output.size(hd + 1);
  a.index_base = base;
  // The windows are a hint for the gather kernel (kernels/cuda/nn_pool2d.cu); one that is not
  // valid or does not give grad_output's size (options changed between forward and backward)
  // is ignored and the scatter kernel, which needs the indices alone, runs.
  if (windows && windows_give(in, hd, a.oH, a.oW, *windows)) {
    a.windows = true;
    a.kH = windows->kernel[0];
    a.kW = windows->kernel[1];
    a.dH = windows->stride[0];
    a.dW = windows->stride[1];
    a.padH = windows->padding[0];
    a.padW = windows->padding[1];
  }
  a.in = g.raw_data();
  a.out = gi.raw_data();
  a.indices = const_cast<int64_t*>(idx.data<int64_t>());
  if (gi.is_cpu()) a.bad = &bad;
  if (gi.numel() > 0) kernel(a);
  deliver(out, gi);  // written even when raising below
  TOCHA_CHECK(!bad.found, op, "indices must lie in [", base, ", ", base + plane - 1, "] (positions in a ", in[hd],
              "x", in[hd + 1], " plane), got ", bad.value);
  return out ? *out : gi;
}

Tensor max_pool_backward_impl(const Tensor* out, const Tensor& grad_output, const Tensor& indices,
                              const DimVec& in, int64_t base, const Pool2dOptions* windows) {
  autograd::Recording rec(OpId::maxPool2dBackward, out, {&grad_output});
  Tensor r = max_pool_backward_compute(out, grad_output, indices, in, base, windows);
  if (auto n = rec.finish({&grad_output}, {&r})) {
    n->attrs.i[0] = base;
    n->attrs.shape2 = in;
    n->save(indices);
  }
  return r;
}

// ---- average pooling ----------------------------------------------------------------------------

Tensor avg_pool_compute(const Tensor* out, const Tensor& input, const Pool2dOptions& o) {
  const char* op = "avgPool2d";
  DimVec shape = pooled_shape(op, input.sizes(), o);
  check_float(op, "input", input);
  auto kernel = kernel_for<Pool2dKernel>(OpId::avgPool2d, input.device().type, input.dtype());
  Tensor x = contiguous(input);
  Tensor y = target_for(op, out, shape, input.dtype(), input);
  Pool2dArgs a = args_for(input.sizes(), shape, o);
  a.in = x.raw_data();
  a.out = y.raw_data();
  if (y.numel() > 0) kernel(a);
  deliver(out, y);
  return out ? *out : y;
}

Tensor avg_pool_backward_compute(const Tensor* out, const Tensor& grad_output, const DimVec& in,
                                 const Pool2dOptions& o) {
  const char* op = "avgPool2dBackward";
  DimVec shape = pooled_shape(op, in, o);
  check_float(op, "grad_output", grad_output);
  TOCHA_CHECK(grad_output.sizes() == shape, op, "grad_output has size ", shape_str(grad_output.sizes()),
              " but pooling an input of size ", shape_str(in), " gives ", shape_str(shape), " (", options_str(o), ")");
  auto kernel = kernel_for<Pool2dKernel>(OpId::avgPool2dBackward, grad_output.device().type, grad_output.dtype());
  Tensor g = contiguous(grad_output);
  Tensor gi = target_for(op, out, in, grad_output.dtype(), grad_output);
  Pool2dArgs a = args_for(in, shape, o);
  a.in = g.raw_data();
  a.out = gi.raw_data();
  if (gi.numel() > 0) kernel(a);
  deliver(out, gi);
  return out ? *out : gi;
}

Tensor avg_pool_impl(const Tensor* out, const Tensor& input, const Pool2dOptions& o) {
  autograd::Recording rec(OpId::avgPool2d, out, {&input});
  Tensor r = avg_pool_compute(out, input, o);
  if (auto n = rec.finish({&input}, {&r})) save_options(*n, o);
  return r;
}

Tensor avg_pool_backward_impl(const Tensor* out, const Tensor& grad_output, const DimVec& in, const Pool2dOptions& o) {
  autograd::Recording rec(OpId::avgPool2dBackward, out, {&grad_output});
  Tensor r = avg_pool_backward_compute(out, grad_output, in, o);
  if (auto n = rec.finish({&grad_output}, {&r})) {
    save_options(*n, o);
    n->attrs.shape2 = in;
  }
  return r;
}

}  // namespace

Pool2dOptions pool_options_of(const Node& n) {
  Pool2dOptions o;
  for (int d = 0; d < 2; ++d) {
    o.kernel[d] = n.attrs.shape[d];
    o.stride[d] = n.attrs.shape[2 + d];
    o.padding[d] = n.attrs.shape[4 + d];
  }
  o.ceil_mode = n.attrs.i[1] != 0;
  o.count_include_pad = n.attrs.i[2] != 0;
  return o;
}

MaxPool2dResult max_pool2d(const Tensor& input, const Pool2dOptions& o, int64_t base) {
  return max_pool_impl(nullptr, nullptr, input, o, base);
}
void max_pool2d_out(const Tensor& values, const Tensor& indices, const Tensor& input, const Pool2dOptions& o,
                    int64_t base) {
  max_pool_impl(&values, &indices, input, o, base);
}
Tensor max_pool2d_backward(const Tensor& grad_output, const Tensor& indices, const DimVec& in, int64_t base,
                           const Pool2dOptions* windows) {
  return max_pool_backward_impl(nullptr, grad_output, indices, in, base, windows);
}
void max_pool2d_backward_out(const Tensor& grad_input, const Tensor& grad_output, const Tensor& indices,
                             const DimVec& in, int64_t base, const Pool2dOptions* windows) {
  max_pool_backward_impl(&grad_input, grad_output, indices, in, base, windows);
}
Tensor avg_pool2d(const Tensor& input, const Pool2dOptions& o) { return avg_pool_impl(nullptr, input, o); }
void avg_pool2d_out(const Tensor& out, const Tensor& input, const Pool2dOptions& o) { avg_pool_impl(&out, input, o); }
Tensor avg_pool2d_backward(const Tensor& grad_output, const DimVec& in, const Pool2dOptions& o) {
  return avg_pool_backward_impl(nullptr, grad_output, in, o);
}
void avg_pool2d_backward_out(const Tensor& grad_input, const Tensor& grad_output, const DimVec& in,
                             const Pool2dOptions& o) {
  avg_pool_backward_impl(&grad_input, grad_output, in, o);
}

}  // namespace tocha
