// Random fill front-ends: parameter and dtype checks, then the device's own kernel (Note [Device
// random fills]) or the contiguous CPU buffer the CPU kernel fills, copied back into strided or
// device tensors. See random.h.
#include "core/ops/random.h"
#include "core/type_name.h"
#include <cmath>
#include "core/autograd/record.h"
#include "core/kernel_registry.h"
#include "core/ops/pointwise.h"
#include "core/ops/random_dist.h"
#include "core/ops/random_kernels.h"
#include "core/ops/tensor_ops.h"
#include "core/ops/views.h"

namespace tocha {

// ---- shared checks -------------------------------------------------------------------------

void check_uniform_args(const char* op, double a, double b) {
  TOCHA_CHECK(std::isfinite(a) && std::isfinite(b) && std::isfinite(b - a), op,
              "bounds must be finite, got a = ", a, " and b = ", b);
  TOCHA_CHECK(a <= b, op, "expects a <= b, got a = ", a, " and b = ", b);
}

void check_normal_args(const char* op, double mean, double std) {
  TOCHA_CHECK(std::isfinite(mean), op, "mean must be finite, got ", mean);
  TOCHA_CHECK(std::isfinite(std) && std >= 0, op, "standard deviation must be >= 0 and finite, got ", std);
}

void check_log_normal_args(const char* op, double mean, double std) {
  TOCHA_CHECK(std::isfinite(mean) && mean > 0, op, "mean must be positive (the mean of the log-normal values), got ",
              mean);
  TOCHA_CHECK(std::isfinite(std) && std > 0, op, "standard deviation must be positive, got ", std);
}

void check_positive_arg(const char* op, const char* what, double v) {
  TOCHA_CHECK(std::isfinite(v) && v > 0, op, what, " must be positive and finite, got ", v);
}

void check_probability(const char* op, double p, bool open_interval) {
  if (open_interval) TOCHA_CHECK(p > 0 && p < 1, op, "probability must be in (0, 1), got ", p);
  else TOCHA_CHECK(p >= 0 && p <= 1, op, "probability must be in [0, 1], got ", p);
}

namespace {

void check_floating(const char* op, const Tensor& t) {
  TOCHA_CHECK(is_floating(t.dtype()), op, "expects a floating-point tensor, got a ", tensor_type_name(t));
}

// Runs fill(data, n) on t's elements: in place when t is a contiguous CPU tensor, else through a
// contiguous CPU temporary copied into t (Note [Random streams]: the values do not depend on it).
template <class Fill> void fill_through_buffer(const char* op, const Tensor& t, const Fill& fill) {
  check_writable(op, t);
  if (t.numel() == 0) return;
  if (t.is_cpu() && t.is_contiguous()) {
    fill(t.raw_data(), t.numel());
    t.bump_version();
    return;
  }
  Tensor tmp = empty(t.sizes(), t.dtype());
  fill(tmp.raw_data(), tmp.numel());
  copy_(t, tmp);
}

// Note [Device random fills]: a device tensor filled from the default generator draws on the
// device from that device's Philox generator (torch.cuda.manualSeed), when the backend has a
// kernel for the op: uniform, normal, logNormal, exponential, cauchy, geometric and bernoulli
// with a scalar p (DeviceRandomFillKernel), random (DeviceRandomIntKernel). A contiguous target
// is filled in place, any other through a contiguous device temporary (the values depend only on
// the element's index, Note [Philox streams]). An explicit torch.Generator keeps its CPU stream
// (filled on the CPU and copied over); bernoulli with a tensor of probabilities draws on the device
// too (Note [Device Bernoulli with tensor probabilities]).
// randperm and multinomial draw on the device the same way, with front-ends of their own
// (core/ops/random_sample.cpp; Note [Device randperm], Note [Device multinomial]). Runs
// launch(kernel, out) and returns whether the fill ran on the device.
template <class Kernel, class Launch>
bool device_fill_with(OpId op, const Tensor& t, Generator& gen, const Launch& launch) {
  if (t.is_cpu() || &gen != &default_generator()) return false;
  void* k = find_kernel(op, t.device().type, t.dtype());
  if (!k) return false;
  check_writable(op_name(op), t);
  if (t.numel() == 0) return true;
  Tensor out = t.is_contiguous() ? t : empty(t.sizes(), t.dtype(), t.device());
  launch(reinterpret_cast<Kernel>(k), out);
  if (out.is_same(t)) t.bump_version();
  else copy_(t, out);
  return true;
}

bool device_fill(OpId op, const Tensor& t, Generator& gen, const double* p) {
  return device_fill_with<DeviceRandomFillKernel>(op, t, gen, [&](DeviceRandomFillKernel k, const Tensor& out) {
    k(out.raw_data(), out.numel(), t.device().index, p);
  });
}

void run_fill(OpId op, const Tensor& t, Generator& gen, std::initializer_list<double> params) {
  double p[4] = {0, 0, 0, 0};
  int i = 0;
  for (double v : params) p[i++] = v;
  if (device_fill(op, t, gen, p)) return;
  auto kernel = kernel_for<RandomFillKernel>(op, DeviceType::cpu, t.dtype());
  fill_through_buffer(op_name(op), t, [&](void* data, int64_t n) { kernel(data, n, gen, p); });
}

// Exact integer range of a dtype (the integers every value in it represents exactly).
void dtype_int_range(DType dt, int64_t* lo, int64_t* hi) {
  switch (dt) {
    case DType::u8: *lo = 0; *hi = 255; return;
    case DType::b8: *lo = 0; *hi = 1; return;
    case DType::i32: *lo = INT32_MIN; *hi = INT32_MAX; return;
    case DType::i16: *lo = INT16_MIN; *hi = INT16_MAX; return;
    case DType::i8: *lo = INT8_MIN; *hi = INT8_MAX; return;
    case DType::i64: *lo = INT64_MIN; *hi = INT64_MAX; return;
    case DType::f32: *lo = -(int64_t(1) << 24); *hi = int64_t(1) << 24; return;
    case DType::f64: *lo = -(int64_t(1) << 53); *hi = int64_t(1) << 53; return;
    case DType::f16: *lo = -2048; *hi = 2048; return;
    case DType::bf16: *lo = -256; *hi = 256; return;
    default: throw_bad_dtype("random", dt);
  }
}

}  // namespace

// ---- continuous distributions ----------------------------------------------------------------

void uniform_(const Tensor& t, Generator& gen, double a, double b) {
  autograd::FillGuard history("uniform", t);  // Note [Fills drop history]
  check_floating("uniform", t);
  check_uniform_args("uniform", a, b);
  run_fill(OpId::uniform, t, gen, {a, b});
}

void normal_(const Tensor& t, Generator& gen, double mean, double std) {
  autograd::FillGuard history("normal", t);  // Note [Fills drop history]
  check_floating("normal", t);
  check_normal_args("normal", mean, std);
  run_fill(OpId::normal, t, gen, {mean, std});
}

void log_normal_(const Tensor& t, Generator& gen, double mean, double std) {
  autograd::FillGuard history("logNormal", t);  // Note [Fills drop history]
  check_floating("logNormal", t);
  check_log_normal_args("logNormal", mean, std);
  double mu, sigma;
  dist::log_normal_params(mean, std, &mu, &sigma);
  run_fill(OpId::logNormal, t, gen, {mu, sigma});
}

void exponential_(const Tensor& t, Generator& gen, double lambda) {
  autograd::FillGuard history("exponential", t);  // Note [Fills drop history]
  check_floating("exponential", t);
  check_positive_arg("exponential", "lambda", lambda);
  run_fill(OpId::exponential, t, gen, {lambda});
}

void cauchy_(const Tensor& t, Generator& gen, double median, double sigma) {
  autograd::FillGuard history("cauchy", t);  // Note [Fills drop history]
  check_floating("cauchy", t);
  TOCHA_CHECK(std::isfinite(median), "cauchy", "median must be finite, got ", median);
  check_positive_arg("cauchy", "sigma", sigma);
  run_fill(OpId::cauchy, t, gen, {median, sigma});
}

void geometric_(const Tensor& t, Generator& gen, double p) {
  autograd::FillGuard history("geometric", t);  // Note [Fills drop history]
  TOCHA_CHECK(t.dtype() != DType::b8, "geometric", "cannot fill a torch.BoolTensor with geometric values");
  check_probability("geometric", p, true);
  run_fill(OpId::geometric, t, gen, {p});
}

// ---- bernoulli -------------------------------------------------------------------------------

void bernoulli_(const Tensor& t, Generator& gen, double p) {
  autograd::FillGuard history("bernoulli", t);  // Note [Fills drop history]
  check_probability("bernoulli", p, false);
  const double params[4] = {p, 0, 0, 0};
  if (device_fill(OpId::bernoulli, t, gen, params)) return;  // Dropout's masks on the GPU
  auto kernel = kernel_for<BernoulliKernel>(OpId::bernoulli, DeviceType::cpu, t.dtype());
  fill_through_buffer("bernoulli", t, [&](void* data, int64_t n) { kernel(data, n, gen, p, nullptr); });
}

// core/ops/reduce.h's full `any` (that header's tocha::dist function clashes with the
// tocha::dist namespace of random_dist.h, so it is declared here).
Tensor any(const Tensor& a);

namespace {

void check_probabilities(const double* pv, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    TOCHA_CHECK(pv[i] >= 0 && pv[i] <= 1, "bernoulli", "probabilities must be in [0, 1], got ", pv[i],
                " at element ", i + 1);
}

// Note [Device Bernoulli with tensor probabilities]: t on a device, drawn from the default
// generator, is u < p for u uniform on [0, 1) drawn on the device (Note [Device random fills]),
// u in f64 when p is f64 and f32 otherwise; the probabilities are checked by one device
// reduction (is any element outside [0, 1] or NaN?) whose single byte comes back, and only when
// one is bad are they copied over to name it. They used to be copied to the host, drawn there
// from the CPU generator and copied back: two transfers and a synchronization per call
// (torch.bernoulli(probs), distributions.Bernoulli:sample).
bool device_bernoulli(const Tensor& t, Generator& gen, const Tensor& p) {
  if (t.is_cpu() || &gen != &default_generator()) return false;
  check_writable("bernoulli", t);
  if (t.numel() == 0) return true;
  const Tensor pd = to_device(p, t.device());
  Tensor bad = binary(OpId::ne, clamp(pd, 0.0, 1.0), pd);  // NaN differs from itself too
  if (item_at(any(bad), 0) != 0) {
    Tensor host = empty(pd.sizes(), DType::f64);
    copy_(host, pd);
    check_probabilities(host.data<double>(), host.numel());
  }
  Tensor u = empty(t.sizes(), pd.dtype() == DType::f64 ? DType::f64 : DType::f32, t.device());
  uniform_(u, gen, 0, 1);
  copy_(t, binary(OpId::lt, u, pd));
  return true;
}

}  // namespace

void bernoulli_(const Tensor& t, Generator& gen, const Tensor& probs) {
  autograd::FillGuard history("bernoulli", t);  // Note [Fills drop history]
  TOCHA_CHECK(probs.dtype() != DType::b8, "bernoulli", "probabilities must be numbers, got a torch.BoolTensor");
  DimVec shape;
  Tensor p = probs;
  if (broadcast_shapes(t.sizes(), probs.sizes(), &shape) && shape == t.sizes()) {
    p = expand(probs, t.sizes());
  } else {
    TOCHA_CHECK(probs.numel() == t.numel(), "bernoulli", "probabilities of size ", shape_str(probs.sizes()),
                " do not match a tensor of size ", shape_str(t.sizes()));
    p = view_as_shape(contiguous(probs), t.sizes());
  }
  if (device_bernoulli(t, gen, p)) return;
  // A contiguous f64 CPU copy: the kernel reads it and the check below scans it.
  Tensor pd = empty(t.sizes(), DType::f64);
  copy_(pd, p);
  const double* pv = pd.data<double>();
  check_probabilities(pv, pd.numel());
  auto kernel = kernel_for<BernoulliKernel>(OpId::bernoulli, DeviceType::cpu, t.dtype());
  fill_through_buffer("bernoulli", t, [&](void* data, int64_t n) { kernel(data, n, gen, 0, pv); });
}

// ---- random integers -------------------------------------------------------------------------

int64_t random_max(DType dt) {
  switch (dt) {
    case DType::f64:
    case DType::i64: return int64_t(0xffffffffll);  // Torch7 draws one 32-bit word
    case DType::i32: return INT32_MAX;
    default: {
      int64_t lo, hi;
      dtype_int_range(dt, &lo, &hi);
      return hi;
    }
  }
}

void random_(const Tensor& t, Generator& gen, int64_t lo, int64_t hi) {
  autograd::FillGuard history("random", t);  // Note [Fills drop history]
  TOCHA_CHECK(lo <= hi, "random", "expects a <= b, got a = ", lo, " and b = ", hi);
  int64_t dlo, dhi;
  dtype_int_range(t.dtype(), &dlo, &dhi);
  TOCHA_CHECK(lo >= dlo && hi <= dhi, "random", "range [", lo, ", ", hi, "] does not fit a ",
              tensor_type_name(t), " (integers ", dlo, " to ", dhi, ")");
  uint64_t range = uint64_t(hi) - uint64_t(lo) + 1;  // 0 when the range is all of int64
  if (device_fill_with<DeviceRandomIntKernel>(OpId::random, t, gen, [&](DeviceRandomIntKernel k, const Tensor& out) {
        k(out.raw_data(), out.numel(), t.device().index, lo, range);
      }))
    return;
  auto kernel = kernel_for<RandomIntKernel>(OpId::random, DeviceType::cpu, t.dtype());
  fill_through_buffer("random", t, [&](void* data, int64_t n) { kernel(data, n, gen, lo, range); });
}

void random_(const Tensor& t, Generator& gen) { random_(t, gen, 0, random_max(t.dtype())); }

}  // namespace tocha
