// fft_c2c, fft_r2c and fft_c2r front-ends (see fft.h): checks, the transformed dims moved last and
// made contiguous, kernel calls of rank at most 3, the scale, the dims moved back, and the node.
#include "core/ops/fft.h"
#include "core/type_name.h"
#include <algorithm>
#include <cstring>
#include <string>
#include "core/autograd/record.h"
#include "core/error.h"
#include "core/kernel_registry.h"
#include "core/ops/pointwise.h"
#include "core/ops/tensor_ops.h"
#include "core/ops/views.h"
#include "core/shape.h"
#include "core/storage.h"

namespace tocha {

// Note [FFT layout for the kernels]
// Kernels see only contiguous (batch, n1[, n2[, n3]]) arrays: the front-end permutes the dims
// that are not transformed to the front (in order) and the transformed ones after them (in the
// order given, so r2c's halved dim is last), and copies when that is not contiguous already, as
// PyTorch does for cuFFT. That is the one layout cuFFT's plans take (cufftPlanMany without
// embedding) and keeps the plan caches keyed by sizes alone. A transform over more than 3 dims
// is separable: the kernels do the last 3 (with the real half) and c2c passes do the rest. The
// result is returned in that permuted order viewed back as the input's dim order (a view, not
// a copy, when the dims were not last).

namespace {

const char* op_label(FftKind k) { return k == FftKind::c2c ? "fft" : k == FftKind::r2c ? "rfft" : "irfft"; }

void check_dtype(const char* op, const Tensor& x) {
  TOCHA_CHECK(x.dtype() == DType::f32 || x.dtype() == DType::f64, op,
              "expected a torch.FloatTensor or torch.DoubleTensor (torch.fft converts other types), got a ",
              tensor_type_name(x));
}

// The complex view's dim count: x without its trailing 2.
int complex_dims(const char* op, const Tensor& x) {
  TOCHA_CHECK(x.dim() >= 2 && x.size(x.dim() - 1) == 2, op,
              "expected a complex tensor: a real one whose last dim has size 2 (real, imaginary), got size ",
              x.dim() == 0 ? std::string("[] (0-dim)") : shape_str(x.sizes()),
              " (torch.complex(re, im) makes one from two real tensors)");
  return x.dim() - 1;
}

// dims wrapped to [0, ndim), distinct, at least one, each of a nonzero size.
DimVec wrap_dims(const char* op, const DimVec& dims, int ndim, const Tensor& x) {
  TOCHA_CHECK(!dims.empty(), op, "expected at least one dim to transform");
  DimVec r;
  for (int64_t d : dims) {
    TOCHA_CHECK(d >= -ndim && d < ndim, op, "dim ", d, " is out of range for a signal of ", ndim, " dims");
    int64_t w = d < 0 ? d + ndim : d;
    TOCHA_CHECK(std::find(r.begin(), r.end(), w) == r.end(), op, "dim ", d, " appears twice in the dims");
    TOCHA_CHECK(x.size(int(w)) >= 1, op, "invalid number of data points (", x.size(int(w)), ") along dim ", d);
    r.push_back(w);
  }
  return r;
}

// The permutation of Note [FFT layout for the kernels] over ndim signal dims (+ the trailing 2
// when complex), and the batch size.
struct Layout {
  DimVec perm;     // perm[i] = input dim at position i
  DimVec inverse;  // inverse[d] = position of input dim d
  int64_t batch = 1;
  bool identity = true;
};

Layout layout_for(const DimVec& sizes, int ndim, const DimVec& dims, bool trailing_two) {
  Layout l;
  for (int d = 0; d < ndim; ++d)
    if (std::find(dims.begin(), dims.end(), d) == dims.end()) {
      l.perm.push_back(d);
      l.batch *= sizes[d];
    }
  for (int64_t d : dims) l.perm.push_back(d);
  if (trailing_two) l.perm.push_back(ndim);
  l.inverse = DimVec::filled(l.perm.size(), 0);
  for (int i = 0; i < l.perm.size(); ++i) {
    l.inverse[int(l.perm[i])] = i;
    if (l.perm[i] != int64_t(i)) l.identity = false;
  }
  return l;
}

void call_kernel(FftKind kind, bool forward, const Tensor& in, const Tensor& out, int64_t batch, const DimVec& n) {
  if (batch == 0) return;
  FftArgs a;
  a.kind = kind;
  a.forward = forward;
  a.rank = int(n.size());
  for (int i = 0; i < n.size(); ++i) a.n[i] = n[i];
  a.batch = batch;
  auto kernel = kernel_for<FftKernel>(OpId::fftC2c, in.device().type, in.dtype());
  kernel(a, in.raw_data(), out.raw_data());
}

// A contiguous copy of the contiguous t with its own storage, as one memory copy (on CUDA a
// device-to-device copy queued on the stream): the c2r kernels may overwrite their input.
Tensor copy_for_c2r(const Tensor& t) {
  Tensor r = empty(t.sizes(), t.dtype(), t.device());
  const size_t bytes = size_t(t.numel()) * t.elsize();
  if (bytes == 0) return r;
  if (t.is_cpu()) std::memcpy(r.raw_data(), t.raw_data(), bytes);
  else device_allocator(t.device().type)->copy(r.raw_data(), r.device(), t.raw_data(), t.device(), bytes);
  return r;
}

// cuFFT reads its input as complex elements (float2/double2), real input too: a device view that
// starts at an odd real offset (a narrow of a real tensor, or one viewed as complex) is copied to
// a fresh allocation, as PyTorch does for cuFFT. FFTW takes any address (FFTW_UNALIGNED plans).
Tensor aligned_for_device(const Tensor& t) {
  if (t.is_cpu() || reinterpret_cast<std::uintptr_t>(t.raw_data()) % (2 * t.elsize()) == 0) return t;
  return copy_for_c2r(t);
}

// x already checked; dims wrapped. Unscaled, not recorded.
Tensor c2c_compute(const Tensor& x, const DimVec& dims, bool forward) {
  const int ndim = x.dim() - 1;
  if (dims.size() > 3) {  // separable: the leading dims first, then the last 3
    DimVec head(dims.data(), dims.size() - 3), tail(dims.data() + dims.size() - 3, 3);
    return c2c_compute(c2c_compute(x, head, forward), tail, forward);
  }
  Layout l = layout_for(x.sizes(), ndim, dims, true);
  Tensor in = aligned_for_device(contiguous(l.identity ? x : permute(x, l.perm)));
  DimVec n;
  for (int64_t d : dims) n.push_back(x.size(int(d)));
  Tensor out = empty(in.sizes(), in.dtype(), in.device());
  call_kernel(FftKind::c2c, forward, in, out, l.batch, n);
  return l.identity ? out : permute(out, l.inverse);
}

Tensor r2c_compute(const Tensor& x, const DimVec& dims) {
  const int ndim = x.dim();
  if (dims.size() > 3) {  // the real half over the last 3, then c2c over the rest (all forward)
    DimVec head(dims.data(), dims.size() - 3), tail(dims.data() + dims.size() - 3, 3);
    return c2c_compute(r2c_compute(x, tail), head, true);
  }
  Layout l = layout_for(x.sizes(), ndim, dims, false);
  Tensor in = aligned_for_device(contiguous(l.identity ? x : permute(x, l.perm)));
  DimVec n, out_sizes = in.sizes();
  for (int64_t d : dims) n.push_back(x.size(int(d)));
  out_sizes[out_sizes.size() - 1] = n.back() / 2 + 1;
  out_sizes.push_back(2);
  Tensor out = empty(out_sizes, in.dtype(), in.device());
  call_kernel(FftKind::r2c, true, in, out, l.batch, n);
  if (l.identity) return out;
  DimVec inv = l.inverse;
  inv.push_back(ndim);  // the trailing 2 stays last
  return permute(out, inv);
}

Tensor c2r_compute(const Tensor& x, const DimVec& dims, int64_t last_size) {
  const int ndim = x.dim() - 1;
  if (dims.size() > 3) {  // c2c inverse over the leading dims, then the real half over the last 3
    DimVec head(dims.data(), dims.size() - 3), tail(dims.data() + dims.size() - 3, 3);
    return c2r_compute(c2c_compute(x, head, false), tail, last_size);
  }
  Layout l = layout_for(x.sizes(), ndim, dims, true);
  Tensor in = contiguous(l.identity ? x : permute(x, l.perm));
  // the kernels may overwrite a c2r input: never the caller's storage
  if (in.shares_storage(x)) in = copy_for_c2r(in);  // fresh, so aligned for cuFFT too
  DimVec n, out_sizes = in.sizes();
  for (int64_t d : dims) n.push_back(x.size(int(d)));
  n[n.size() - 1] = last_size;
  out_sizes.resize(out_sizes.size() - 1);
  out_sizes[out_sizes.size() - 1] = last_size;
  Tensor out = empty(out_sizes, in.dtype(), in.device());
  call_kernel(FftKind::c2r, false, in, out, l.batch, n);
  return l.identity ? out : permute(out, DimVec(l.inverse.data(), l.inverse.size() - 1));
}

void apply_scale(const Tensor& t, double scale) {
  if (scale != 1 && t.numel() > 0) binary_out(OpId::mul, t, t, Scalar(scale));
}

void check_scale(const char* op, double scale) {
  TOCHA_CHECK(scale == scale && scale != 0, op, "the scale must be a nonzero number, got ", scale);
}

}  // namespace

Tensor fft_c2c(const Tensor& x, const DimVec& dims, bool forward, double scale) {
  const char* op = forward ? "fft" : "ifft";
  check_dtype(op, x);
  const int ndim = complex_dims(op, x);
  DimVec d = wrap_dims(op, dims, ndim, x);
  check_scale(op, scale);
  autograd::Recording rec(OpId::fftC2c, nullptr, {&x});
  Tensor r = c2c_compute(x, d, forward);
  apply_scale(r, scale);
  if (auto node = rec.finish({&x}, {&r})) {
    node->attrs.shape = d;
    node->attrs.i[0] = forward ? 1 : 0;
    node->attrs.d[0] = scale;
  }
  return r;
}

Tensor fft_r2c(const Tensor& x, const DimVec& dims, double scale) {
  const char* op = op_label(FftKind::r2c);
  check_dtype(op, x);
  TOCHA_CHECK(x.dim() >= 1, op, "expected a real signal of at least one dim, got a 0-dim tensor");
  DimVec d = wrap_dims(op, dims, x.dim(), x);
  check_scale(op, scale);
  autograd::Recording rec(OpId::fftR2c, nullptr, {&x});
  Tensor r = r2c_compute(x, d);
  apply_scale(r, scale);
  if (auto node = rec.finish({&x}, {&r})) {
    node->attrs.shape = d;
    node->attrs.i[1] = x.size(int(d.back()));
    node->attrs.d[0] = scale;
  }
  return r;
}

Tensor fft_c2r(const Tensor& x, const DimVec& dims, double scale, int64_t last_size) {
  const char* op = op_label(FftKind::c2r);
  check_dtype(op, x);
  const int ndim = complex_dims(op, x);
  TOCHA_CHECK(last_size >= 1, op, "invalid number of data points (", last_size, ") specified");
  DimVec d = wrap_dims(op, dims, ndim, x);
  const int64_t half = x.size(int(d.back()));
  TOCHA_CHECK(half == last_size / 2 + 1, op, "a real signal of ", last_size, " points has ", last_size / 2 + 1,
              " onesided frequencies along the last transformed dim, but the input has ", half,
              " there (torch.fft.irfft trims or zero-pads to n / 2 + 1 first)");
  check_scale(op, scale);
  autograd::Recording rec(OpId::fftC2r, nullptr, {&x});
  Tensor r = c2r_compute(x, d, last_size);
  apply_scale(r, scale);
  if (auto node = rec.finish({&x}, {&r})) {
    node->attrs.shape = d;
    node->attrs.i[1] = last_size;
    node->attrs.d[0] = scale;
  }
  return r;
}

}  // namespace tocha
