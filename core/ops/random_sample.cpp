// Sampling front-ends: multinomial (weights validated row by row, by the kernel on a device) and
// randperm. See random.h.
#include <cmath>
#include "core/autograd/record.h"
#include "core/type_name.h"
#include "core/kernel_registry.h"
#include "core/ops/pointwise.h"
#include "core/ops/random.h"
#include "core/ops/random_kernels.h"
#include "core/ops/tensor_ops.h"

namespace tocha {

namespace {

// Largest integer a dtype holds exactly (the bound on the indices it can receive).
int64_t exact_int_max(DType dt) {
  switch (dt) {
    case DType::u8: return 255;
    case DType::i32: return INT32_MAX;
    case DType::i16: return INT16_MAX;
    case DType::i8: return INT8_MAX;
    case DType::i64: return INT64_MAX;
    case DType::f32: return int64_t(1) << 24;
    case DType::f64: return int64_t(1) << 53;
    case DType::f16: return 2048;
    case DType::bf16: return 256;
    default: return 0;
  }
}

void check_index_dtype(const char* op, DType dt, int64_t largest) {
  TOCHA_CHECK(dt != DType::b8, op, "cannot store indices in a torch.BoolTensor");
  TOCHA_CHECK(largest <= exact_int_max(dt), op, "indices up to ", largest, " do not fit a ", dtype_tensor_name(dt),
              "; use a torch.LongTensor");
}

// Checks every row of weights (rows x k, contiguous CPU): finite, non-negative, a positive sum,
// and enough non-zero weights to draw n without replacement.
template <class T> void check_weights(const T* w, int64_t rows, int64_t k, int64_t n, bool replacement) {
  for (int64_t r = 0; r < rows; ++r) {
    double sum = 0;
    int64_t nonzero = 0;
    for (int64_t j = 0; j < k; ++j) {
      double v = double(opmath_t<T>(w[r * k + j]));
      TOCHA_CHECK(std::isfinite(v) && v >= 0, "multinomial", "weights must be finite and non-negative, got ", v,
                  " at row ", r + 1, ", column ", j + 1);
      sum += v;
      nonzero += v > 0;
    }
    TOCHA_CHECK(sum > 0, "multinomial", "the weights of row ", r + 1, " sum to zero");
    TOCHA_CHECK(replacement || nonzero >= n, "multinomial", "cannot draw ", n, " samples without replacement from row ",
                r + 1, ", which has only ", nonzero, " non-zero weights");
  }
}

// Note [Device random fills]: CUDA weights sampled with the default generator are drawn on
// their device (Note [Device multinomial]), their checks done by the kernel and raised at the next
// synchronization, so no copy to the host. Returns whether the device served the call.
bool device_multinomial(const Tensor& out, const Tensor& probs, Generator& gen, const DimVec& shape, int64_t rows,
                        int64_t k, int64_t n, bool replacement, int64_t base) {
  if (probs.is_cpu() || &gen != &default_generator()) return false;
  auto kernel = reinterpret_cast<DeviceMultinomialKernel>(find_kernel(OpId::multinomial, probs.device().type,
                                                                      probs.dtype()));
  if (!kernel) return false;
  // Our own copy when out shares probs' storage: resizing out must not move the weights.
  Tensor w = probs;
  if (!w.is_contiguous() || out.shares_storage(probs)) {
    w = empty(probs.sizes(), probs.dtype(), probs.device());
    copy_(w, probs);
  }
  resize_(out, shape);
  const bool direct = out.device() == probs.device() && out.is_contiguous() && out.dtype() == DType::i64;
  Tensor target = direct ? out : empty(shape, DType::i64, probs.device());
  if (!kernel(target.data<int64_t>(), w.raw_data(), rows, k, n, replacement, base, probs.device().index)) return false;
  if (direct) out.bump_version();
  else copy_(out, target);
  return true;
}

}  // namespace

void multinomial_out(const Tensor& out, const Tensor& probs, Generator& gen, int64_t n, bool replacement,
                     int64_t base) {
  autograd::FillGuard history("multinomial", out);  // Note [Fills drop history]
  TOCHA_CHECK(probs.dim() == 1 || probs.dim() == 2, "multinomial", "expects a 1D or 2D tensor of weights, got size ",
              shape_str(probs.sizes()));
  TOCHA_CHECK(is_floating(probs.dtype()), "multinomial", "expects floating-point weights, got a ",
              tensor_type_name(probs));
  int64_t k = probs.size(probs.dim() - 1), rows = probs.dim() == 2 ? probs.size(0) : 1;
  TOCHA_CHECK(k > 0, "multinomial", "the weights have no categories (size ", shape_str(probs.sizes()), ")");
  TOCHA_CHECK(n > 0, "multinomial", "number of samples must be positive, got ", n);
  TOCHA_CHECK(replacement || n <= k, "multinomial", "cannot draw ", n, " samples without replacement from ", k,
              " categories");
  check_index_dtype("multinomial", out.dtype(), base + k - 1);
  check_writable("multinomial", out);
  DimVec shape = probs.dim() == 2 ? DimVec{rows, n} : DimVec{n};
  if (device_multinomial(out, probs, gen, shape, rows, k, n, replacement, base)) return;
  // Weights as a contiguous CPU tensor of their own dtype (the kernel reads that dtype).
  Tensor w = probs;
  if (!w.is_cpu()) { w = empty(probs.sizes(), probs.dtype()); copy_(w, probs); }
  w = contiguous(w);
  visit_dtype(w.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!std::is_same<T, bool>::value) check_weights(w.data<T>(), rows, k, n, replacement);
  });
  auto kernel = kernel_for<MultinomialKernel>(OpId::multinomial, DeviceType::cpu, w.dtype());
  resize_(out, shape);
  bool direct = out.is_cpu() && out.is_contiguous() && out.dtype() == DType::i64 && !out.shares_storage(probs);
  Tensor target = direct ? out : empty(shape, DType::i64);
  kernel(target.data<int64_t>(), w.data<void>(), rows, k, n, replacement, base, gen);
  if (direct) out.bump_version();
  else copy_(out, target);
}

Tensor multinomial(const Tensor& probs, Generator& gen, int64_t n, bool replacement, int64_t base) {
  Tensor out = empty(DimVec{0}, DType::i64, probs.device());  // on the weights' device, as in cutorch
  multinomial_out(out, probs, gen, n, replacement, base);
  return out;
}

void randperm_out(const Tensor& out, int64_t n, Generator& gen, int64_t base) {
  autograd::FillGuard history("randperm", out);  // Note [Fills drop history]
  TOCHA_CHECK(n >= 0, "randperm", "n must be non-negative, got ", n);
  TOCHA_CHECK(base >= 0 && base <= INT64_MAX - n, "randperm", "invalid index base ", base);
  check_index_dtype("randperm", out.dtype(), n + base - 1);
  check_writable("randperm", out);
  resize_(out, DimVec{n});
  if (n == 0) return;
  // Note [Device random fills]: a CUDA target with the default generator is permuted on its
  // device (Note [Device randperm]).
  if (!out.is_cpu() && &gen == &default_generator()) {
    if (auto dk = reinterpret_cast<DeviceRandpermKernel>(find_kernel(OpId::randperm, out.device().type, out.dtype()))) {
      Tensor target = out.is_contiguous() ? out : empty(DimVec{n}, out.dtype(), out.device());
      if (dk(target.raw_data(), n, out.device().index, base)) {
        if (target.is_same(out)) out.bump_version();
        else copy_(out, target);
        return;
      }
    }
  }
  auto kernel = kernel_for<RandpermKernel>(OpId::randperm, DeviceType::cpu, out.dtype());
  if (out.is_cpu() && out.is_contiguous()) {
    kernel(out.raw_data(), n, gen, base);
    out.bump_version();
    return;
  }
  Tensor tmp = empty(DimVec{n}, out.dtype());
  kernel(tmp.raw_data(), n, gen, base);
  copy_(out, tmp);
}

Tensor randperm(int64_t n, Generator& gen, DType dt, int64_t base) {
  Tensor out = empty(DimVec{0}, dt);
  randperm_out(out, n, gen, base);
  return out;
}

}  // namespace tocha
