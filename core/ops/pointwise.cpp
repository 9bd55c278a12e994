// Pointwise op front-ends: every check, promotion and allocation of the pointwise families.
// See pointwise.h and Note [Type promotion] in core/dtype.h.
#include "core/ops/pointwise.h"
#include "core/type_name.h"
#include <cmath>
#include "core/autocast.h"
#include "core/autograd/grad_mode.h"
#include "core/autograd/record.h"
#include "core/autograd/vjp.h"
#include "core/kernel_registry.h"
#include "core/ops/tensor_ops.h"
#include "core/ops/views.h"
#include "core/pointwise_iter.h"

namespace tocha {

namespace {

struct Operand {
  const Tensor* t = nullptr;  // nullptr: the scalar s
  double s = 0;
};

void check_out_shape(const char* op, const Tensor& out, const DimVec& shape, bool out_is_input) {
  if (out_is_input) {
    TOCHA_CHECK(out.sizes() == shape, op, "in-place result has size ", shape_str(out.sizes()),
                " but the operation produces ", shape_str(shape));
  } else {
    resize_(out, shape);
  }
}

// Runs the kernel of `op` for kernel dtype kt on inputs already converted to kt. The result has
// dtype rt and the given shape; it goes into *out when given (converting and avoiding partial
// overlap through a temporary), else into a new tensor that is returned.
Tensor run(OpId op, DType kt, DType rt, const DimVec& shape, const Tensor* out, bool out_is_input,
           std::initializer_list<Operand> ins, const double* params, Device dev) {
  const char* name = op_name(op);
  auto kernel = kernel_for<PointwiseKernel>(op, dev.type, kt);
  Tensor target;
  if (out) {
    check_out_shape(name, *out, shape, out_is_input);
    check_writable(name, *out);
    TOCHA_CHECK(out->device() == dev, name, "result tensor is on ", out->device().str(),
                " but the inputs are on ", dev.str());
    bool direct = out->dtype() == rt;
    for (const Operand& o : ins)
      if (o.t && needs_temporary(*out, *o.t)) direct = false;
    if (!direct) {
      TOCHA_CHECK(can_cast(rt, out->dtype()), name, "result of type ", dtype_tensor_name(rt),
                  " cannot be written into a ", dtype_tensor_name(out->dtype()));
      target = empty(shape, rt, dev);
    } else {
      target = *out;
    }
  } else {
    target = empty(shape, rt, dev);
  }
  PointwiseIter it;
  it.set_output(target);
  for (const Operand& o : ins) {
    if (o.t) it.add_input(*o.t);
    else it.add_scalar(o.s, kt);
  }
  if (params) for (int i = 0; i < 3; ++i) it.params[i] = params[i];
  it.finish();
  kernel(it);
  if (out) {
    if (!target.is_same(*out)) copy_(*out, target);
    else out->bump_version();
    return *out;
  }
  return target;
}

// Converts a tensor operand to the kernel dtype.
Tensor as_kernel_dtype(const Tensor& t, DType kt) { return t.dtype() == kt ? t : to_dtype(t, kt); }

// The dtype restrictions of the integer family and of nextafter, checked on the kernel dtype
// (after promotion), with messages that name the op and the dtype it got.
void check_kernel_dtype(OpId op, DType kt) {
  OpKind k = op_kind(op);
  if (k == OpKind::UNARY_INT || k == OpKind::BINARY_INT) {
    TOCHA_CHECK(!is_floating(kt), op_name(op), "expects integer or bool tensors, got a ", dtype_tensor_name(kt),
                (k == OpKind::BINARY_INT ? " (after type promotion)" : ""));
    bool logical = op == OpId::bitwiseNot || op == OpId::bitwiseAnd || op == OpId::bitwiseOr || op == OpId::bitwiseXor;
    TOCHA_CHECK(logical || kt != DType::b8, op_name(op), "expects integer tensors, got a ", dtype_tensor_name(kt));
  }
  if (op == OpId::nextafter)
    TOCHA_CHECK(kt == DType::f32 || kt == DType::f64, op_name(op), "supports torch.FloatTensor and torch.DoubleTensor, got a ",
                dtype_tensor_name(kt));
}

DType binary_kernel_dtype(OpId op, DType promoted) {
  OpKind k = op_kind(op);
  DType kt = k == OpKind::BINARY_FLOAT ? float_result_dtype(promoted) : promoted;
  check_kernel_dtype(op, kt);
  return kt;
}
DType binary_result_dtype(OpId op, DType kt) { return op_kind(op) == OpKind::COMPARE ? DType::u8 : kt; }

bool is_integer_division(OpId op) {
  return op == OpId::fmod || op == OpId::remainder || op == OpId::floorDivide;
}

void check_binary_op(OpId op) {
  OpKind k = op_kind(op);
  TOCHA_CHECK(k == OpKind::BINARY || k == OpKind::BINARY_FLOAT || k == OpKind::COMPARE || k == OpKind::BINARY_INT,
              op_name(op), "is not a binary pointwise op");
}

void check_alpha(OpId op, DType kt, double alpha) {
  if (alpha == 1) return;
  TOCHA_CHECK(op == OpId::add || op == OpId::csub, op_name(op), "takes no multiplier");
  TOCHA_CHECK(is_floating(kt) || alpha == std::floor(alpha), op_name(op), "multiplier ", alpha,
              " must be an integer for a ", dtype_tensor_name(kt));
}

void check_no_zero_divisor(OpId op, const Tensor& b) {
  if (is_floating(b.dtype())) return;
  Tensor zero_mask = binary(OpId::eq, b, Scalar(0.0));
  TOCHA_CHECK(!any_true(zero_mask), op_name(op), "integer division by zero");
}

}  // namespace

// check_same_device, binary_operand, check_writable, needs_temporary and result_dtype:
// core/ops/pointwise_operands.cpp.

// ---- unary ----------------------------------------------------------------------------------

static DType unary_kernel_dtype(OpId op, DType t) {
  OpKind k = op_kind(op);
  TOCHA_CHECK(k == OpKind::UNARY || k == OpKind::UNARY_FLOAT || k == OpKind::UNARY_INT, op_name(op),
              "is not a unary pointwise op");
  DType kt = k == OpKind::UNARY_FLOAT ? float_result_dtype(t) : t;
  check_kernel_dtype(op, kt);
  return kt;
}

// Note [Recording pointwise ops]: a front-end decides whether to record before computing (for
// in-place ops that may refuse or need a copy of an input the formula reads), computes with
// recording off (so internal conversions and copies are never recorded), then records one node
// whose edges come from the caller's tensors and saves what pointwise_save_spec asks for.
namespace {
using autograd::GradModeGuard;

struct Recorder {
  bool on = false;
  autograd::SaveSpec spec;
  Tensor saved[3];

  const Tensor* detach_out = nullptr;  // a non-differentiable op overwrote a tensor with history

  Recorder(OpId op, const Tensor* out, std::initializer_list<const Tensor*> inputs, int scalar_pos) {
    if (!op_differentiable(op)) {
      if (out && autograd::prepare_in_place(op_name(op), *out, {})) detach_out = out;
      return;
    }
    on = out ? autograd::prepare_in_place(op_name(op), *out, inputs) : autograd::needs_record(inputs);
    if (!on) return;
    spec = autograd::pointwise_save_spec(op, scalar_pos);
    int k = 0;
    for (const Tensor* t : inputs) {
      if (k < 3 && spec.input[k] && t && t->defined()) {
        GradModeGuard off(false);
        saved[k] = autograd::value_before_write(*t, out);  // Note [Results written into inputs]
      }
      ++k;
    }
  }

  void finish(OpId op, std::initializer_list<const Tensor*> inputs, const Tensor& result, int scalar_pos,
              double d0 = 0, double d1 = 0, int64_t i1 = 0) {
    if (detach_out) autograd::detach_(*detach_out);
    if (!on) return;
    auto node = autograd::record(op, inputs, {&result});
    node->saved.reserve(4);
    for (int k = 0; k < 3; ++k) node->save(saved[k]);
    node->save(spec.output ? result : Tensor(), true, 0);
    node->attrs.i[0] = scalar_pos;
    node->attrs.i[1] = i1;
    node->attrs.d[0] = d0;
    node->attrs.d[1] = d1;
  }
};
}  // namespace

// Note [Pointwise fast paths]: most calls in a Lua loop are a new result from contiguous
// operands of one dtype and one device with nothing to record. They skip broadcasting,
// promotion, iterator setup and the recorder; anything else takes the general path (which also
// reports errors). The flat iterator is the same for every device: on a GPU it is the launch
// of a tiny op, whose host time the target of issue 9 counts.
namespace {
bool flat_operand(const Tensor& t, DType dt, Device dev) {
  return t.dtype() == dt && t.is_contiguous() && t.device() == dev;
}
bool same_sizes(const Tensor& a, const Tensor& b) {
  const TensorImpl *x = a.impl(), *y = b.impl();
  if (x->ndim != y->ndim) return false;
  for (int d = 0; d < x->ndim; ++d)
    if (x->size[d] != y->size[d]) return false;
  return true;
}
// Whether out can take a flat kernel's result for inputs of its size: contiguous, of dtype rt,
// and either apart from the input or exactly it (Note [Pointwise fast paths]).
bool flat_target(const Tensor& out, DType rt, const Tensor& a, const Tensor* b) {
  return flat_operand(out, rt, a.device()) && same_sizes(out, a) && !needs_temporary(out, a) &&
         (!b || !needs_temporary(out, *b));
}
// Runs kernel k on a new contiguous result of a's size and dtype rt, or into *out (checked with
// flat_target); null when there is no kernel.
Tensor run_flat(OpId op, DType kt, DType rt, const Tensor& a, const Tensor* b, bool scalar, double v, double alpha,
                const Tensor* out = nullptr) {
  void* k = find_kernel(op, a.device().type, kt);
  if (!k) return Tensor();
  Tensor r = out ? *out : empty_with_sizes_of(a, rt);
  char* ptrs[3] = {static_cast<char*>(r.raw_data()), static_cast<char*>(a.raw_data()),
                   b ? static_cast<char*>(b->raw_data()) : nullptr};
  PointwiseIter it;
  it.set_flat(a.numel(), b || scalar ? 3 : 2, ptrs, v, kt);
  it.params[0] = alpha;
  reinterpret_cast<PointwiseKernel>(k)(it);
  if (out) r.bump_version();
  return r;
}
}  // namespace

Tensor unary(OpId op, const Tensor& a) {
  if (autocast::cuda_f32(op, a)) return unary(op, autocast::to_f32(a));  // Note [Autocast]: CUDA's f32 list
  Recorder rec(op, nullptr, {&a}, 0);
  if (flat_operand(a, a.dtype(), a.device())) {
    OpKind k = op_kind(op);
    if (k == OpKind::UNARY || (k == OpKind::UNARY_FLOAT && is_floating(a.dtype())) ||
        (k == OpKind::UNARY_INT && !is_floating(a.dtype()))) {
      Tensor r = run_flat(op, a.dtype(), a.dtype(), a, nullptr, false, 0, 1);
      if (r.defined()) {
        rec.finish(op, {&a}, r, 0);
        return r;
      }
    }
  }
  Tensor r;
  {
    GradModeGuard off(false);
    DType kt = unary_kernel_dtype(op, a.dtype());
    Tensor x = as_kernel_dtype(a, kt);
    r = run(op, kt, kt, a.sizes(), nullptr, false, {{&x}}, nullptr, a.device());
  }
  rec.finish(op, {&a}, r, 0);
  return r;
}

void unary_out(OpId op, const Tensor& out, const Tensor& a) {
  Recorder rec(op, &out, {&a}, 0);
  OpKind kind = op_kind(op);
  if ((kind == OpKind::UNARY || (kind == OpKind::UNARY_FLOAT && is_floating(a.dtype()))) &&
      flat_operand(a, a.dtype(), a.device()) && flat_target(out, a.dtype(), a, nullptr) &&
      run_flat(op, a.dtype(), a.dtype(), a, nullptr, false, 0, 1, &out).defined()) {
    rec.finish(op, {&a}, out, 0);
    return;
  }
  {
    GradModeGuard off(false);
    DType kt = unary_kernel_dtype(op, a.dtype());
    Tensor x = as_kernel_dtype(a, kt);
    run(op, kt, kt, a.sizes(), &out, out.shares_storage(a), {{&x}}, nullptr, a.device());
  }
  rec.finish(op, {&a}, out, 0);
}

// ---- binary ---------------------------------------------------------------------------------

static Tensor binary_impl(OpId op, const Tensor* out, const Tensor& a, const Tensor& b_in, double alpha) {
  if (!out && (autocast::cuda_f32(op, a) || autocast::cuda_f32(op, b_in)))  // Note [Autocast]: pow in f32 on CUDA
    return binary_impl(op, nullptr, autocast::to_f32(a), autocast::to_f32(b_in), alpha);
  OpKind kind = op_kind(op);
  if ((kind == OpKind::BINARY || kind == OpKind::COMPARE) && !is_integer_division(op) &&
      flat_operand(a, a.dtype(), a.device()) && flat_operand(b_in, a.dtype(), a.device()) && same_sizes(a, b_in) &&
      (alpha == 1 || is_floating(a.dtype()))) {
    DType rt = kind == OpKind::COMPARE ? DType::u8 : a.dtype();
    if (!out && !a.requires_grad() && !b_in.requires_grad()) {
      Tensor r = run_flat(op, a.dtype(), rt, a, &b_in, false, 0, alpha);
      if (r.defined()) return r;
    } else if (!out || flat_target(*out, rt, a, &b_in)) {
      // The same flat kernel, recorded (no broadcasting or promotion to undo in backward).
      Recorder rec(op, out, {&a, &b_in}, 0);
      Tensor r = run_flat(op, a.dtype(), rt, a, &b_in, false, 0, alpha, out);
      if (r.defined()) {
        rec.finish(op, {&a, &b_in}, r, 0, alpha);
        return r;
      }
    }
  }
  check_binary_op(op);
  const char* name = op_name(op);
  // Torch7's same-element-count rule reshapes b; that reshape is part of the differentiable path.
  DimVec shape;
  Tensor b = binary_operand(name, a, b_in, &shape);
  if (out && out->is_same(a) && shape != a.sizes() && a.numel() == b_in.numel()) {
    // Note [In-place ops keep Torch7's count rule]: in place, a result of another shape cannot be
    // written into a, so operands that broadcast to another shape but have a's element count are
    // read in a's shape, as Torch7 did (gradBias:add(gradOutput:sum(1)), a 1 x n sum into n).
    b = reshape(b_in, a.sizes());
    shape = a.sizes();
  }
  Recorder rec(op, out, {&a, &b}, 0);
  Tensor r;
  {
    GradModeGuard off(false);
    DType kt = binary_kernel_dtype(op, result_dtype({&a, &b_in}));
    check_alpha(op, kt, alpha);
    Tensor x = as_kernel_dtype(a, kt), y = as_kernel_dtype(b, kt);
    if (is_integer_division(op)) check_no_zero_divisor(op, y);
    double params[3] = {alpha, 0, 0};
    bool in_place = out && (out->shares_storage(a) || out->shares_storage(b));
    r = run(op, kt, binary_result_dtype(op, kt), shape, out, in_place, {{&x}, {&y}}, params, a.device());
  }
  rec.finish(op, {&a, &b}, r, 0, alpha);
  return r;
}

static Tensor binary_scalar_impl(OpId op, const Tensor* out, const Tensor& a, Scalar b, double alpha,
                                 bool scalar_first) {
  if (!out && autocast::cuda_f32(op, a))  // Note [Autocast]: pow in f32 on CUDA
    return binary_scalar_impl(op, nullptr, autocast::to_f32(a), b, alpha, scalar_first);
  // PyTorch's rule: an integer tensor to a negative integer power would be 0 or +-1 silently
  TOCHA_CHECK(!(op == OpId::pow && !scalar_first && b.integral && b.v < 0 && !is_floating(a.dtype()) &&
                a.dtype() != DType::b8),
              "pow", "integers to negative integer powers are not allowed (", tensor_type_name(a), " to the ",
              b.v, "): convert the tensor to a floating type first");
  // Fast path: a number that keeps the tensor's dtype (Note [Pointwise fast paths]).
  if (!out && !scalar_first && op_kind(op) == OpKind::BINARY && !is_integer_division(op) &&
      flat_operand(a, a.dtype(), a.device()) && (is_floating(a.dtype()) || b.integral) && a.dtype() != DType::b8) {
    if (!a.requires_grad()) {
      Tensor r = run_flat(op, a.dtype(), a.dtype(), a, nullptr, true, b.v, alpha);
      if (r.defined()) return r;
    } else {
      Recorder rec(op, nullptr, {&a}, 1);
      Tensor r = run_flat(op, a.dtype(), a.dtype(), a, nullptr, true, b.v, alpha);
      if (r.defined()) {
        rec.finish(op, {&a}, r, 1, b.v);
        return r;
      }
    }
  }
  check_binary_op(op);
  int pos = scalar_first ? 2 : 1;
  Recorder rec(op, out, {&a}, pos);
  Tensor r;
  {
    GradModeGuard off(false);
    DType kt = binary_kernel_dtype(op, promote_with_scalar(a.dtype(), b.integral, b.boolean));
    check_alpha(op, kt, alpha);
    if (is_integer_division(op) && !is_floating(kt) && !scalar_first)
      TOCHA_CHECK(b.v != 0, op_name(op), "integer division by zero");
    if (is_integer_division(op) && !is_floating(kt) && scalar_first) check_no_zero_divisor(op, a);
    Tensor x = as_kernel_dtype(a, kt);
    double params[3] = {alpha, 0, 0};
    bool in_place = out && out->shares_storage(a);
    Operand s{nullptr, b.v};
    if (scalar_first)
      r = run(op, kt, binary_result_dtype(op, kt), a.sizes(), out, in_place, {s, {&x}}, params, a.device());
    else
      r = run(op, kt, binary_result_dtype(op, kt), a.sizes(), out, in_place, {{&x}, s}, params, a.device());
  }
  // add/csub keep alpha in d[0] for tensor operands; with a Lua number d[0] is that number.
  rec.finish(op, {&a}, r, pos, b.v);
  return r;
}

Tensor binary(OpId op, const Tensor& a, const Tensor& b, double alpha) { return binary_impl(op, nullptr, a, b, alpha); }
Tensor binary(OpId op, const Tensor& a, Scalar b, double alpha) { return binary_scalar_impl(op, nullptr, a, b, alpha, false); }
Tensor binary(OpId op, Scalar a, const Tensor& b) { return binary_scalar_impl(op, nullptr, b, a, 1, true); }
void binary_out(OpId op, const Tensor& out, const Tensor& a, const Tensor& b, double alpha) { binary_impl(op, &out, a, b, alpha); }
void binary_out(OpId op, const Tensor& out, const Tensor& a, Scalar b, double alpha) { binary_scalar_impl(op, &out, a, b, alpha, false); }
void binary_out(OpId op, const Tensor& out, Scalar a, const Tensor& b) { binary_scalar_impl(op, &out, b, a, 1, true); }

// ---- other pointwise ------------------------------------------------------------------------

static Tensor clamp_impl(const Tensor* out, const Tensor& a, std::optional<double> lo, std::optional<double> hi) {
  TOCHA_CHECK(a.dtype() != DType::b8, "clamp", "cannot clamp a torch.BoolTensor");
  if (lo && hi) TOCHA_CHECK(!(*lo > *hi), "clamp", "min ", *lo, " is greater than max ", *hi);
  // Note [Type promotion]'s number rule: a fractional bound of an integer tensor makes a new
  // result of the default float dtype, as PyTorch's (clamp(LongTensor{3}, 0.5, 2.5) gave 2, not 2.5);
  // in place the tensor keeps its type, as Torch7's x:clamp did.
  auto fractional = [](std::optional<double> v) { return v && *v != std::floor(*v); };
  if (!out && !is_floating(a.dtype()) && (fractional(lo) || fractional(hi)))
    return clamp_impl(nullptr, to_dtype(a, default_float_dtype()), lo, hi);
  const bool nan_bound = (lo && std::isnan(*lo)) || (hi && std::isnan(*hi));
  TOCHA_CHECK(!nan_bound || is_floating(a.dtype()), "clamp", "a NaN bound cannot clamp a ",
              tensor_type_name(a), " in place (its elements cannot hold NaN)");
  double params[3] = {lo.value_or(0), hi.value_or(0), double((lo ? 1 : 0) | (hi ? 2 : 0))};
  Recorder rec(OpId::clamp, out, {&a}, 0);
  Tensor r;
  {
    GradModeGuard off(false);
    r = run(OpId::clamp, a.dtype(), a.dtype(), a.sizes(), out, out && out->shares_storage(a), {{&a}}, params,
            a.device());
    // Note [NaN clamp bounds]: a NaN bound fails the kernel's compares, so it was ignored
    // (clamp(x, nan, 1) clipped at 1 only); PyTorch 1.13 gives NaN everywhere when both bounds
    // are given (2.x for either bound). NaN everywhere here, and the recorded bounds give a zero
    // gradient (x >= NaN is false), as PyTorch's. The kernel keeps its two selects per element.
    if (nan_bound) fill_(r, std::nan(""));
  }
  rec.finish(OpId::clamp, {&a}, r, 0, params[0], params[1], int64_t(params[2]));
  return r;
}
Tensor clamp(const Tensor& a, std::optional<double> lo, std::optional<double> hi) { return clamp_impl(nullptr, a, lo, hi); }
void clamp_out(const Tensor& out, const Tensor& a, std::optional<double> lo, std::optional<double> hi) { clamp_impl(&out, a, lo, hi); }

static Tensor polygamma_impl(const Tensor* out, int64_t n, const Tensor& a) {
  TOCHA_CHECK(n >= 0 && n <= INT32_MAX, "polygamma", "order n must be a non-negative integer below 2^31, got ", n);
  double params[3] = {double(n), 0, 0};
  Recorder rec(OpId::polygamma, out, {&a}, 0);
  Tensor r;
  {
    GradModeGuard off(false);
    DType kt = float_result_dtype(a.dtype());
    Tensor x = as_kernel_dtype(a, kt);
    r = run(OpId::polygamma, kt, kt, a.sizes(), out, out && out->shares_storage(a), {{&x}}, params, a.device());
  }
  rec.finish(OpId::polygamma, {&a}, r, 0, double(n));
  return r;
}
Tensor polygamma(int64_t n, const Tensor& a) { return polygamma_impl(nullptr, n, a); }
void polygamma_out(const Tensor& out, int64_t n, const Tensor& a) { polygamma_impl(&out, n, a); }

static Tensor ternary_impl(OpId op, const Tensor* out, const Tensor& a, const Tensor& b_in, const Tensor& c_in,
                           double value, bool float_only) {
  const char* name = op_name(op);
  check_same_device(name, a, b_in);
  check_same_device(name, a, c_in);
  DType kt = result_dtype({&a, &b_in, &c_in});
  if (float_only) kt = float_result_dtype(kt);
  TOCHA_CHECK(is_floating(kt) || value == std::floor(value), name, "value ", value,
              " must be an integer for a ", dtype_tensor_name(kt));
  DimVec s1, shape;
  const bool broadcast = broadcast_shapes(a.sizes(), b_in.sizes(), &s1) && broadcast_shapes(s1, c_in.sizes(), &shape);
  const bool same_count = b_in.numel() == a.numel() && c_in.numel() == a.numel();
  // Torch7's same-element-count rule where broadcasting fails, or gives a shape an in-place
  // result cannot take (Note [In-place ops keep Torch7's count rule]); the reshapes are recorded.
  const bool count_rule = same_count && (!broadcast || (out && out->is_same(a) && shape != a.sizes()));
  TOCHA_CHECK(broadcast || same_count, name, "sizes ", shape_str(a.sizes()), ", ", shape_str(b_in.sizes()), " and ",
              shape_str(c_in.sizes()), " do not broadcast and have different numbers of elements");
  const Tensor b = count_rule ? reshape(b_in, a.sizes()) : b_in;
  const Tensor c = count_rule ? reshape(c_in, a.sizes()) : c_in;
  if (count_rule) shape = a.sizes();
  double params[3] = {value, 0, 0};
  bool in_place = out && (out->shares_storage(a) || out->shares_storage(b) || out->shares_storage(c));
  Recorder rec(op, out, {&a, &b, &c}, 0);
  Tensor r;
  {
    GradModeGuard off(false);
    Tensor xx = as_kernel_dtype(a, kt), yy = as_kernel_dtype(b, kt), zz = as_kernel_dtype(c, kt);
    r = run(op, kt, kt, shape, out, in_place, {{&xx}, {&yy}, {&zz}}, params, a.device());
  }
  rec.finish(op, {&a, &b, &c}, r, 0, value);
  return r;
}

Tensor addcmul(const Tensor& a, double v, const Tensor& b, const Tensor& c) { return ternary_impl(OpId::addcmul, nullptr, a, b, c, v, false); }
void addcmul_out(const Tensor& out, const Tensor& a, double v, const Tensor& b, const Tensor& c) { ternary_impl(OpId::addcmul, &out, a, b, c, v, false); }
Tensor addcdiv(const Tensor& a, double v, const Tensor& b, const Tensor& c) { return ternary_impl(OpId::addcdiv, nullptr, a, b, c, v, true); }
void addcdiv_out(const Tensor& out, const Tensor& a, double v, const Tensor& b, const Tensor& c) { ternary_impl(OpId::addcdiv, &out, a, b, c, v, true); }
Tensor lerp(const Tensor& a, const Tensor& b, const Tensor& w) { return ternary_impl(OpId::lerp, nullptr, a, b, w, 1, true); }
void lerp_out(const Tensor& out, const Tensor& a, const Tensor& b, const Tensor& w) { ternary_impl(OpId::lerp, &out, a, b, w, 1, true); }
Tensor lerp(const Tensor& a, const Tensor& b, Scalar w) {
  Tensor wt = full_like_scalar(w.v, float_result_dtype(promote_types(a.dtype(), b.dtype())), a.device());
  return ternary_impl(OpId::lerp, nullptr, a, b, wt, 1, true);
}

Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b) {
  check_same_device("where", cond, a);
  check_same_device("where", a, b);
  TOCHA_CHECK(cond.dtype() == DType::u8 || cond.dtype() == DType::b8, "where",
              "condition must be a ByteTensor or BoolTensor, got a ", tensor_type_name(cond));
  DType kt = result_dtype({&a, &b});
  DimVec s1, shape;
  TOCHA_CHECK(broadcast_shapes(cond.sizes(), a.sizes(), &s1) && broadcast_shapes(s1, b.sizes(), &shape), "where",
              "sizes ", shape_str(cond.sizes()), ", ", shape_str(a.sizes()), " and ", shape_str(b.sizes()),
              " do not broadcast");
  Recorder rec(OpId::where, nullptr, {&cond, &a, &b}, 0);
  Tensor r;
  {
    GradModeGuard off(false);
    Tensor x = as_kernel_dtype(a, kt), y = as_kernel_dtype(b, kt);
    r = run(OpId::where, kt, kt, shape, nullptr, false, {{&cond}, {&x}, {&y}}, nullptr, a.device());
  }
  rec.finish(OpId::where, {&cond, &a, &b}, r, 0);
  return r;
}
}  // namespace tocha
