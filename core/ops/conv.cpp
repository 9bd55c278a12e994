// Convolution front-ends: argument checks with messages naming the op, the sizes and the options it
// received, output shapes, contiguous operands, the kernel call and the autograd record. See conv.h.
#include "core/ops/conv.h"
#include "core/autocast.h"
#include "core/autograd/grad_mode.h"
#include "core/autograd/record.h"
#include "core/kernel_registry.h"
#include "core/ops/conv_kernels.h"
#include "core/ops/conv_util.h"
#include "core/ops/pointwise.h"
#include "core/ops/reduce.h"
#include "core/ops/tensor_ops.h"

namespace tocha {

using namespace convutil;

namespace {

// The geometry of conv(x, w) where x has C channels and spatial sizes `in` (nd of them).
ConvGeometry geometry(const Tensor& x, bool batched, const Tensor& w, int64_t C, int64_t O,
                      const ConvOptions& o) {
  ConvGeometry g;
  const int nd = o.nd, off = 3 - nd, sd = batched ? 2 : 1;
  g.batch = batched ? x.size(0) : 1;
  g.groups = o.groups;
  g.in_channels = C;
  g.out_channels = O;
  for (int d = 0; d < nd; ++d) {
    g.in_size[off + d] = x.size(sd + d);
    g.kernel[off + d] = w.size(2 + d);
    g.stride[off + d] = o.stride[d];
    g.pad[off + d] = o.padding[d];
    g.dilation[off + d] = o.dilation[d];
  }
  return g;
}

// The written tensor: out itself when the kernel can write it directly, else a new contiguous one.
Tensor target_for(const char* op, const Tensor* out, const DimVec& shape, const Tensor& like,
                  std::initializer_list<const Tensor*> operands) {
  if (!out) return empty(shape, like.dtype(), like.device());
  check_result(op, *out, like);
  bool alias = false;
  for (const Tensor* t : operands)
    if (t && out->shares_storage(*t)) alias = true;
  if (!alias) {
    resize_(*out, shape);
    if (out->is_contiguous()) return *out;
  }
  return empty(shape, like.dtype(), like.device());
}

// Hands a result computed into target back through out (Torch7's res).
Tensor deliver(const Tensor* out, const Tensor& target, const DimVec& shape) {
  if (!out) return target;
  if (target.is_same(*out)) {
    out->bump_version();
  } else {
    resize_(*out, shape);
    copy_(*out, target);
  }
  return *out;
}

std::vector<const Tensor*> input_list(const Tensor& a, const Tensor& b, const Tensor* c) {
  std::vector<const Tensor*> v{&a, &b};
  if (c) v.push_back(c);
  return v;
}

// ---- conv ------------------------------------------------------------------------------------

Tensor conv_compute(const Tensor* out, const Tensor& input, const Tensor& weight, const Tensor* bias,
                    const ConvOptions& o) {
  const char* op = "conv";
  check_weight(op, weight, o);
  const bool batched = check_input(op, input, o, "N x C x ");
  check_operand(op, "input", input, "weight", weight);
  const int sd = batched ? 2 : 1;
  const int64_t C = input.size(sd - 1), O = weight.size(0);
  TOCHA_CHECK(weight.size(1) * o.groups == C, op, "input of size ", shape_str(input.sizes()), " has ", C,
              " channels but weight of size ", shape_str(weight.sizes()), " with groups ", o.groups, " expects ",
              weight.size(1) * o.groups);
  TOCHA_CHECK(O % o.groups == 0, op, "weight of size ", shape_str(weight.sizes()), " has ", O,
              " output channels, not divisible by groups ", o.groups);
  check_bias(op, bias, input, O);
  DimVec shape;
  if (batched) shape.push_back(input.size(0));
  shape.push_back(O);
  for (int d = 0; d < o.nd; ++d) {
    int64_t in = input.size(sd + d), k = weight.size(2 + d);
    int64_t span = o.dilation[d] * (k - 1) + 1, padded = in + 2 * o.padding[d];
    TOCHA_CHECK(padded >= span, op, "input of size ", shape_str(input.sizes()), " is smaller than the kernel: ",
                "spatial dim ", d + 1, " has ", in, " (", padded, " with padding) but the kernel spans ", span,
                " (size ", k, ", dilation ", o.dilation[d], ")");
    shape.push_back((padded - span) / o.stride[d] + 1);
  }
  auto kernel = kernel_for<ConvKernel>(OpId::conv, input.device().type, input.dtype());
  Tensor x = contiguous(input), w = contiguous(weight), b = bias ? contiguous(*bias) : Tensor();
  Tensor y = target_for(op, out, shape, input, {&input, &weight, bias});
  ConvArgs a;
  a.g = geometry(input, batched, weight, C, O, o);
  for (int d = 0; d < o.nd; ++d) a.g.out_size[3 - o.nd + d] = shape[sd + d];
  a.x = x.raw_data();
  a.w = w.raw_data();
  a.b = bias ? b.raw_data() : nullptr;
  a.y = a.out = y.raw_data();
  if (y.numel() > 0) kernel(a);
  return deliver(out, y, shape);
}

// ---- convTranspose ---------------------------------------------------------------------------

Tensor conv_transpose_compute(const Tensor* out, const Tensor& input, const Tensor& weight, const Tensor* bias,
                              const ConvOptions& o) {
  const char* op = "convTranspose";
  check_weight(op, weight, o);
  const bool batched = check_input(op, input, o, "N x C x ");
  check_operand(op, "input", input, "weight", weight);
  const int sd = batched ? 2 : 1;
  const int64_t Cin = input.size(sd - 1), Cout = weight.size(1) * o.groups;
  TOCHA_CHECK(weight.size(0) == Cin, op, "input of size ", shape_str(input.sizes()), " has ", Cin,
              " channels but weight of size ", shape_str(weight.sizes()), " expects ", weight.size(0),
              " (weight is C_in x C_out/groups x kernel)");
  TOCHA_CHECK(Cin % o.groups == 0, op, "input has ", Cin, " channels, not divisible by groups ", o.groups);
  check_bias(op, bias, input, Cout);
  DimVec shape;
  if (batched) shape.push_back(input.size(0));
  shape.push_back(Cout);
  for (int d = 0; d < o.nd; ++d) {
    TOCHA_CHECK(o.output_padding[d] < o.stride[d] || o.output_padding[d] < o.dilation[d], op,
                "output padding ", o.output_padding[d], " of spatial dim ", d + 1,
                " must be smaller than the stride (", o.stride[d], ") or the dilation (", o.dilation[d], ")");
    int64_t in = input.size(sd + d), k = weight.size(2 + d);
    int64_t size = (in - 1) * o.stride[d] - 2 * o.padding[d] + o.dilation[d] * (k - 1) + o.output_padding[d] + 1;
    TOCHA_CHECK(size >= 1, op, "input of size ", shape_str(input.sizes()), " gives an empty output: spatial dim ",
                d + 1, " would have size ", size, " (padding ", o.padding[d], " is too large)");
    shape.push_back(size);
  }
  auto kernel = kernel_for<ConvKernel>(OpId::convTranspose, input.device().type, input.dtype());
  Tensor yv = contiguous(input), w = contiguous(weight), b = bias ? contiguous(*bias) : Tensor();
  Tensor x = target_for(op, out, shape, input, {&input, &weight, bias});
  // The geometry is that of the convolution x -> input (Note [Convolution roles]).
  ConvArgs a;
  a.g = geometry(x, batched, weight, Cout, Cin, o);
  for (int d = 0; d < o.nd; ++d) a.g.out_size[3 - o.nd + d] = input.size(sd + d);
  a.y = yv.raw_data();
  a.w = w.raw_data();
  a.b = bias ? b.raw_data() : nullptr;
  a.x = a.out = x.raw_data();
  if (x.numel() > 0) kernel(a);
  return deliver(out, x, shape);
}

// ---- convWeight ------------------------------------------------------------------------------

// Checks input and grad_output of a weight gradient against the kernel sizes; fills a.
void weight_args(const char* op, const Tensor& input, const Tensor& grad_output, const DimVec& kernel,
                 const ConvOptions& o, ConvArgs* a) {
  check_options(op, o);
  TOCHA_CHECK(kernel.size() == o.nd, op, "kernel has ", kernel.size(), " dims but the options are for ", o.nd,
              "-D convolution");
  const bool batched = check_input(op, input, o, "N x C x ");
  check_operand(op, "input", input, "grad_output", grad_output);
  TOCHA_CHECK(grad_output.dim() == input.dim(), op, "grad_output of size ", shape_str(grad_output.sizes()),
              " does not match input of size ", shape_str(input.sizes()));
  const int sd = batched ? 2 : 1;
  const int64_t C = input.size(sd - 1), O = grad_output.size(sd - 1);
  TOCHA_CHECK(C % o.groups == 0 && O % o.groups == 0 && C > 0 && O > 0, op, "input of size ",
              shape_str(input.sizes()), " and grad_output of size ", shape_str(grad_output.sizes()),
              " need channel counts divisible by groups ", o.groups);
  TOCHA_CHECK(!batched || grad_output.size(0) == input.size(0), op, "grad_output of size ",
              shape_str(grad_output.sizes()), " and input of size ", shape_str(input.sizes()),
              " have different batch sizes");
  const int off = 3 - o.nd;
  a->g.batch = batched ? input.size(0) : 1;
  a->g.groups = o.groups;
  a->g.in_channels = C;
  a->g.out_channels = O;
  for (int d = 0; d < o.nd; ++d) {
    int64_t in = input.size(sd + d), k = kernel[d];
    TOCHA_CHECK(k >= 1, op, "kernel sizes must be positive, got ", shape_str(kernel));
    int64_t span = o.dilation[d] * (k - 1) + 1, padded = in + 2 * o.padding[d];
    int64_t expect = padded >= span ? (padded - span) / o.stride[d] + 1 : 0;
    TOCHA_CHECK(expect >= 1 && grad_output.size(sd + d) == expect, op, "grad_output of size ",
                shape_str(grad_output.sizes()), " does not match the output a kernel of size ", shape_str(kernel),
                " makes from input of size ", shape_str(input.sizes()));
    a->g.in_size[off + d] = in;
    a->g.out_size[off + d] = expect;
    a->g.kernel[off + d] = k;
    a->g.stride[off + d] = o.stride[d];
    a->g.pad[off + d] = o.padding[d];
    a->g.dilation[off + d] = o.dilation[d];
  }
}

DimVec weight_shape(const ConvArgs& a, const DimVec& kernel) {
  DimVec s{a.g.out_channels, a.g.in_channels / a.g.groups};
  for (int64_t k : kernel) s.push_back(k);
  return s;
}

Tensor conv_weight_compute(const Tensor& input, const Tensor& grad_output, const DimVec& kernel,
                           const ConvOptions& o) {
  const char* op = "convWeight";
  ConvArgs a;
  weight_args(op, input, grad_output, kernel, o, &a);
  auto fn = kernel_for<ConvKernel>(OpId::convWeight, input.device().type, input.dtype());
  Tensor x = contiguous(input), gy = contiguous(grad_output);
  Tensor w = empty(weight_shape(a, kernel), input.dtype(), input.device());
  a.x = x.raw_data();
  a.y = gy.raw_data();
  a.w = a.out = w.raw_data();
  fn(a);
  return w;
}

// Options and batch flag a node keeps: see Note [Recording convolutions].
void save_options(Node& n, const ConvOptions& o) {
  n.attrs.i[0] = o.groups;
  n.attrs.i[1] = o.nd;
  DimVec s;
  for (int d = 0; d < o.nd; ++d) s.push_back(o.stride[d]);
  for (int d = 0; d < o.nd; ++d) s.push_back(o.padding[d]);
  for (int d = 0; d < o.nd; ++d) s.push_back(o.dilation[d]);
  for (int d = 0; d < o.nd; ++d) s.push_back(o.output_padding[d]);
  n.attrs.shape = s;
}

// Note [Recording convolutions]: conv and convTranspose record inputs (input, weight[, bias]) and
// save input and weight in slots 0 and 1; convWeight records (input, grad_output), saves them in
// slots 0 and 1 and keeps the kernel sizes in attrs.shape2. attrs.i[0] is groups, i[1] nd, i[2]
// whether a bias was given, attrs.shape the stride, padding, dilation and output padding (nd each).
using Compute = Tensor (*)(const Tensor*, const Tensor&, const Tensor&, const Tensor*, const ConvOptions&);
Tensor recorded(Compute compute, OpId id, const Tensor* out, const Tensor& input, const Tensor& weight,
                const Tensor* bias, const ConvOptions& o) {
  if (autocast::active() &&  // Note [Autocast]: convolutions compute in low precision
      (autocast::needs_lowp(input) || autocast::needs_lowp(weight) || (bias && autocast::needs_lowp(*bias))) &&
      autocast::has_lowp_kernel(id, input)) {
    Tensor ci = autocast::to_lowp(input), cw = autocast::to_lowp(weight), cb = bias ? autocast::to_lowp(*bias) : Tensor();
    const Tensor* pb = bias ? &cb : nullptr;
    if (out && out->dtype() == ci.dtype()) return recorded(compute, id, out, ci, cw, pb, o);
    Tensor r = recorded(compute, id, nullptr, ci, cw, pb, o);
    if (!out) return r;
    if (out->sizes() != r.sizes()) resize_(*out, r.sizes());
    copy_(*out, r);
    return *out;
  }
  auto inputs = input_list(input, weight, bias);
  autograd::Recording rec(id, out, inputs);
  Tensor r = compute(out, input, weight, bias, o);
  if (auto n = rec.finish(inputs, {&r})) {
    save_options(*n, o);
    n->attrs.i[2] = bias != nullptr;
    n->save(input);
    n->save(weight);
  }
  return r;
}

}  // namespace

ConvOptions conv_options_of(const Node& n) {
  ConvOptions o;
  o.groups = n.attrs.i[0];
  o.nd = int(n.attrs.i[1]);
  for (int d = 0; d < o.nd; ++d) {
    o.stride[d] = n.attrs.shape[d];
    o.padding[d] = n.attrs.shape[o.nd + d];
    o.dilation[d] = n.attrs.shape[2 * o.nd + d];
    o.output_padding[d] = n.attrs.shape[3 * o.nd + d];
  }
  return o;
}

Tensor conv(const Tensor& input, const Tensor& weight, const Tensor* bias, const ConvOptions& o) {
  return recorded(conv_compute, OpId::conv, nullptr, input, weight, bias, o);
}
void conv_out(const Tensor& out, const Tensor& input, const Tensor& weight, const Tensor* bias,
              const ConvOptions& o) {
  recorded(conv_compute, OpId::conv, &out, input, weight, bias, o);
}
Tensor conv_transpose(const Tensor& input, const Tensor& weight, const Tensor* bias, const ConvOptions& o) {
  return recorded(conv_transpose_compute, OpId::convTranspose, nullptr, input, weight, bias, o);
}
void conv_transpose_out(const Tensor& out, const Tensor& input, const Tensor& weight, const Tensor* bias,
                        const ConvOptions& o) {
  recorded(conv_transpose_compute, OpId::convTranspose, &out, input, weight, bias, o);
}

Tensor conv_weight(const Tensor& input, const Tensor& grad_output, const DimVec& kernel, const ConvOptions& o) {
  autograd::Recording rec(OpId::convWeight, nullptr, {&input, &grad_output});
  Tensor r = conv_weight_compute(input, grad_output, kernel, o);
  if (auto n = rec.finish({&input, &grad_output}, {&r})) {
    save_options(*n, o);
    n->attrs.shape2 = kernel;
    n->save(input);
    n->save(grad_output);
  }
  return r;
}

Tensor conv_bias_grad(const Tensor& grad_output, int nd) {
  const int cd = grad_output.dim() == nd + 2 ? 1 : 0;
  uint32_t mask = 0;
  for (int d = 0; d < grad_output.dim(); ++d)
    if (d != cd) mask |= 1u << d;
  return sum_dims(grad_output, mask, false);
}

// Note [Fused bias gradient]: a convolution's bias gradient is its output gradient summed per
// channel, a whole extra read of the largest tensor of the layer (6.4 MB for the CNN's first layer:
// 0.4-0.5 ms of a 20 ms CPU training step). The weight-gradient kernels read that tensor anyway, so
// nn's accGradParameters and autograd's conv backward ask convWeight for both: the thin CPU kernels
// sum each chunk while it is in L1, oneDNN's weight-gradient primitive takes a diff_bias, the CUDA
// thin kernel sums dy beside its products. Kernels that do not (im2col, cuDNN) leave
// ConvArgs::bias_written unset and the sum runs here.
void conv_weight_acc(const Tensor& grad_weight, const Tensor& input, const Tensor& grad_output,
                     const ConvOptions& o, double alpha, double beta, const Tensor* grad_bias) {
  const char* op = "convWeight";
  autograd::GradModeGuard off(false);  // an nn accumulator: never recorded
  TOCHA_CHECK(grad_weight.dim() == o.nd + 2, op, "grad_weight must be ", o.nd + 2, "D, got size ",
              shape_str(grad_weight.sizes()));
  DimVec kernel;
  for (int d = 0; d < o.nd; ++d) kernel.push_back(grad_weight.size(2 + d));
  ConvArgs a;
  weight_args(op, input, grad_output, kernel, o, &a);
  check_operand(op, "input", input, "grad_weight", grad_weight);
  DimVec shape = weight_shape(a, kernel);
  TOCHA_CHECK(grad_weight.sizes() == shape, op, "grad_weight has size ", shape_str(grad_weight.sizes()),
              " but input of size ", shape_str(input.sizes()), " and grad_output of size ",
              shape_str(grad_output.sizes()), " give a weight of size ", shape_str(shape));
  check_writable(op, grad_weight);
  if (grad_bias) {
    check_operand(op, "input", input, "grad_bias", *grad_bias);
    TOCHA_CHECK(grad_bias->dim() == 1 && grad_bias->size(0) == a.g.out_channels, op, "grad_bias has size ",
                shape_str(grad_bias->sizes()), " but grad_output of size ", shape_str(grad_output.sizes()), " has ",
                a.g.out_channels, " channels");
    check_writable(op, *grad_bias);
  }
  auto fn = kernel_for<ConvKernel>(OpId::convWeight, input.device().type, input.dtype());
  Tensor x = contiguous(input), gy = contiguous(grad_output);
  const bool direct = grad_weight.is_contiguous() && !grad_weight.shares_storage(input) &&
                      !grad_weight.shares_storage(grad_output);
  Tensor w = direct ? grad_weight : contiguous(grad_weight);
  if (!direct && w.is_same(grad_weight)) w = clone(grad_weight);
  a.x = x.raw_data();
  a.y = gy.raw_data();
  a.w = a.out = w.raw_data();
  a.alpha = alpha;
  a.beta = beta;
  // the kernel writes the bias only where it reads nothing it could overwrite
  if (grad_bias && grad_bias->is_contiguous() && !grad_bias->shares_storage(x) && !grad_bias->shares_storage(gy) &&
      (direct || !grad_bias->shares_storage(w)))
    a.bias_grad = grad_bias->raw_data();
  fn(a);
  Tensor sums;  // before the copy back into grad_weight, which may share gy's storage
  if (grad_bias && !a.bias_written) sums = conv_bias_grad(gy, o.nd);
  if (direct) grad_weight.bump_version();
  else copy_(grad_weight, w);
  if (!grad_bias) return;
  if (a.bias_written) {
    grad_bias->bump_version();
    return;
  }
  if (beta == 0) fill_(*grad_bias, 0);
  else if (beta != 1) binary_out(OpId::mul, *grad_bias, *grad_bias, Scalar(beta));
  binary_out(OpId::add, *grad_bias, *grad_bias, sums, alpha);
}

void conv_bias_acc(const Tensor& grad_bias, const Tensor& grad_output, int nd, double alpha) {
  const char* op = "convBias";
  TOCHA_CHECK(nd >= 1 && nd <= 3, op, "expected 1 to 3 spatial dims, got ", nd);
  TOCHA_CHECK(grad_output.dim() == nd + 1 || grad_output.dim() == nd + 2, op, "grad_output of size ",
              shape_str(grad_output.sizes()), " is not a ", nd, "-D convolution output");
  const int cd = grad_output.dim() == nd + 2 ? 1 : 0;
  check_operand(op, "grad_output", grad_output, "grad_bias", grad_bias);
  TOCHA_CHECK(grad_bias.dim() == 1 && grad_bias.size(0) == grad_output.size(cd), op, "grad_bias has size ",
              shape_str(grad_bias.sizes()), " but grad_output of size ", shape_str(grad_output.sizes()), " has ",
              grad_output.size(cd), " channels");
  autograd::GradModeGuard off(false);  // an nn accumulator: never recorded
  binary_out(OpId::add, grad_bias, grad_bias, conv_bias_grad(grad_output, nd), alpha);
}

}  // namespace tocha
