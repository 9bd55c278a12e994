// Factory front-ends: sizes and checks of range/arange/linspace/logspace (run on the tensor's
// device, Note [Device sequences]), and eye through a diagonal view. See factory.h.
#include "core/ops/factory.h"
#include <cmath>
#include "core/kernel_registry.h"
#include "core/ops/pointwise.h"
#include "core/ops/tensor_ops.h"

namespace tocha {

namespace {

// Sequences are computed in double; integer tensors must hold every value (no silent wrap).
void check_sequence_dtype(const char* op, DType dt, double first, double last) {
  TOCHA_CHECK(dt != DType::b8, op, "cannot fill a torch.BoolTensor with a sequence");
  if (is_floating(dt)) return;
  double lo = -9223372036854775808.0, hi = 9223372036854775807.0;
  switch (dt) {
    case DType::u8: lo = 0, hi = 255; break;
    case DType::i8: lo = -128, hi = 127; break;
    case DType::i16: lo = -32768, hi = 32767; break;
    case DType::i32: lo = -2147483648.0, hi = 2147483647.0; break;
    default: break;
  }
  double a = std::fmin(first, last), b = std::fmax(first, last);
  TOCHA_CHECK(a >= lo && b <= hi, op, "values from ", first, " to ", last, " do not fit a ", dtype_tensor_name(dt));
}

void check_count(const char* op, double count) {
  TOCHA_CHECK(count < 4.0e18, op, "the sequence would have ", count, " elements");
}

// Note [Device sequences]: a sequence into a device tensor runs the device's kernel of op when
// the backend has one (kernels/cuda/sequence.cu: the CPU kernel's formula element by element,
// so the values are the CPU's), writing a contiguous out directly and any other through a
// contiguous device temporary; otherwise, and on the CPU, the CPU kernel fills a contiguous CPU
// buffer (out itself when it is one) that is copied into out. Resizes out to n elements first.
void run_sequence(OpId op, const Tensor& out, int64_t n, const double* params) {
  check_writable(op_name(op), out);
  void* device_kernel = out.is_cpu() ? nullptr : find_kernel(op, out.device().type, out.dtype());
  auto kernel = device_kernel ? reinterpret_cast<SequenceKernel>(device_kernel)
                              : kernel_for<SequenceKernel>(op, DeviceType::cpu, out.dtype());
  resize_(out, DimVec{n});
  if (n == 0) return;
  if ((device_kernel || out.is_cpu()) && out.is_contiguous()) {
    kernel(out.raw_data(), n, params);
    out.bump_version();
    return;
  }
  Tensor tmp = empty(DimVec{n}, out.dtype(), device_kernel ? out.device() : Device{});
  kernel(tmp.raw_data(), n, params);
  copy_(out, tmp);
}

void check_finite(const char* op, double a, double b, double c) {
  TOCHA_CHECK(std::isfinite(a) && std::isfinite(b) && std::isfinite(c), op, "arguments must be finite, got ", a,
              ", ", b, " and ", c);
}

Tensor new_out(DType dt) { return empty(DimVec{0}, dt); }

}  // namespace

void range_out(const Tensor& out, double start, double end, double step) {
  check_finite("range", start, end, step);
  TOCHA_CHECK(step != 0, "range", "step must be non-zero");
  TOCHA_CHECK((step > 0 && end >= start) || (step < 0 && end <= start), "range", "upper bound ", end,
              " and lower bound ", start, " are inconsistent with the sign of step ", step);
  // A tolerance of 1e-9 steps keeps an end that floating point misses by a hair:
  // range(0, 0.3, 0.1) has 4 values although 0.3 / 0.1 = 2.9999999999999996.
  double q = std::floor((end - start) / step + 1e-9);
  check_count("range", q + 1);
  int64_t n = int64_t(q) + 1;
  check_sequence_dtype("range", out.dtype(), start, start + double(n - 1) * step);
  double params[2] = {start, step};
  run_sequence(OpId::range, out, n, params);
}

void arange_out(const Tensor& out, double start, double end, double step) {
  check_finite("arange", start, end, step);
  TOCHA_CHECK(step != 0, "arange", "step must be non-zero");
  TOCHA_CHECK((step > 0 && end >= start) || (step < 0 && end <= start), "arange", "upper bound ", end,
              " and lower bound ", start, " are inconsistent with the sign of step ", step);
  double q = std::ceil((end - start) / step);
  check_count("arange", q);
  int64_t n = int64_t(q);
  if (n > 0) check_sequence_dtype("arange", out.dtype(), start, start + double(n - 1) * step);
  double params[2] = {start, step};
  run_sequence(OpId::range, out, n, params);
}

void linspace_out(const Tensor& out, double a, double b, int64_t n) {
  check_finite("linspace", a, b, 0);
  TOCHA_CHECK(n >= 0, "linspace", "number of points must be non-negative, got ", n);
  if (n > 0) check_sequence_dtype("linspace", out.dtype(), a, n == 1 ? a : b);
  double params[2] = {a, b};
  run_sequence(OpId::linspace, out, n, params);
}

void logspace_out(const Tensor& out, double a, double b, int64_t n, double base) {
  check_finite("logspace", a, b, base);
  TOCHA_CHECK(n >= 0, "logspace", "number of points must be non-negative, got ", n);
  if (n > 0) check_sequence_dtype("logspace", out.dtype(), std::pow(base, a), std::pow(base, n == 1 ? a : b));
  double params[3] = {a, b, base};
  run_sequence(OpId::logspace, out, n, params);
}

void eye_out(const Tensor& out, int64_t n, int64_t m) {
  TOCHA_CHECK(n >= 0 && m >= 0, "eye", "sizes must be non-negative, got ", n, "x", m);
  shape_numel(DimVec{n, m}, "eye");  // overflow is an error naming eye, not resize
  check_writable("eye", out);
  resize_(out, DimVec{n, m});
  fill_(out, 0);
  int64_t d = n < m ? n : m;
  if (d == 0) return;
  // The diagonal of out (whatever its strides) as a 1D view.
  Tensor diag = alias_with(out, DimVec{d}, DimVec{out.stride(0) + out.stride(1)}, out.storage_offset());
  fill_(diag, 1);
}

Tensor range(double start, double end, double step, DType dt) {
  Tensor t = new_out(dt);
  range_out(t, start, end, step);
  return t;
}
Tensor arange(double start, double end, double step, DType dt) {
  Tensor t = new_out(dt);
  arange_out(t, start, end, step);
  return t;
}
Tensor linspace(double a, double b, int64_t n, DType dt) {
  Tensor t = new_out(dt);
  linspace_out(t, a, b, n);
  return t;
}
Tensor logspace(double a, double b, int64_t n, double base, DType dt) {
  Tensor t = new_out(dt);
  logspace_out(t, a, b, n, base);
  return t;
}
Tensor eye(int64_t n, int64_t m, DType dt) {
  Tensor t = new_out(dt);
  eye_out(t, n, m);
  return t;
}

}  // namespace tocha
