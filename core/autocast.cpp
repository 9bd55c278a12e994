// Autocast state and casts (see core/autocast.h).
//
// Note [Autocast]: torch.autocast(device, dtype, fn) turns on, for this thread and the duration of
// fn, per-op precision choices like PyTorch's autocast lists:
// - low precision (the autocast dtype, bf16 or f16): the matmul family (mm, mv, bmm, dot, ger,
//   addmm, addmv, addr, addbmm, baddbmm: core/ops/linalg.cpp) and convolution (conv,
//   convTranspose: core/ops/conv.cpp). Their f32 inputs are cast down; cuBLAS/cuDNN accumulate in
//   f32. A convolution without a kernel in that dtype on the device (the CPU's) stays in f32.
// - f32: the class losses (nllLoss, crossEntropy: core/ops/loss.cpp), softmax/logSoftmax
//   (core/ops/composite.cpp), batch and layer normalization (core/ops/norm*.cpp). Their f16/bf16
//   inputs are cast up, so a low-precision activation meets f32 parameters and running statistics.
// - f32 on CUDA only, PyTorch 1.13's wider CUDA list where Tocha has the op in C++: the unary
//   functions that overflow or lose precision in half (exp, expm1, log, log1p, log2, log10, cinv
//   (reciprocal), rsqrt, sinh, cosh, tan, asin, acos, erfinv), pow, the reductions sum, prod,
//   logsumexp and norm, cumsum and cumprod, dist and renorm. sum of an f16 activation gives an f32
//   result, as PyTorch's (an f16 sum of 65536 ones was inf). Only the forms with a new result are
//   cast: in-place and Torch7 result-buffer forms (x:exp(), torch.sum(res, x, 1)) keep their
//   buffer's dtype, as PyTorch's in-place ops do under autocast. The rest of that list is cast
//   from Lua (torch._autocastF32, lua/torch/autocast.lua): nn.functional's losses, softplus,
//   cdist, pdist and cosineSimilarity. nn.functional.binaryCrossEntropy is refused under CUDA
//   autocast, as PyTorch refuses it (binaryCrossEntropyWithLogits is the safe form).
// - per device type, as PyTorch 1.13's lists differ: on the CPU the matrix-vector products (mv,
//   addmv, ger, addr, dot) stay in f32 and softmax/logSoftmax keep a bf16 input in bf16 (a CPU
//   bf16 gemv is slower and less precise, and 1.13 casts neither). The CPU keeps the f32 casts of
//   the class losses (1.13's CPU list has them) and of the normalizations, where 1.13 CPU gives a
//   bf16 batch norm and refuses a bf16 layer or group norm with f32 parameters; 1.13 CPU's wider
//   f32 list (prod, cdist, inverse, mse and the other pointwise losses) is not followed.
// - everything else runs in the dtype of its inputs; pointwise ops already promote to the widest
//   input (Note [Type promotion]), which is PyTorch's "promote" list.
// Only tensors on a device type whose autocast is on, of dtype f32/f16/bf16, are cast: autocast
// ('cuda', ...) leaves CPU tensors alone, f64 and integer tensors are never touched. The casts go
// through to_dtype, which autograd records, and the engine casts every gradient to its input's
// dtype, so parameters get gradients in their own dtype. An `_out` product or convolution (Torch7
// modules write into self.output) computes in low precision and copies into the given buffer.
// Cost when off: each hook is one test of a thread-local word (active()); the casts themselves
// live here, out of line. Casts are not cached across ops (PyTorch caches weight casts within a
// region): a weight used twice in one region is cast twice.
// Backward runs with whatever state is current when it runs: call backward outside the autocast
// function, as PyTorch recommends (Torch7-style modules' backward would otherwise use it too).
#include "core/autocast.h"
#include "core/kernel_registry.h"
#include "core/ops/pointwise.h"

namespace tocha {
namespace autocast {

namespace detail {
thread_local uint32_t tls_mask = 0;
}

namespace {
thread_local State tls_state;

bool low_or_f32(DType d) { return d == DType::f32 || d == DType::f16 || d == DType::bf16; }
}  // namespace

State current() { return tls_state; }

State exchange(const State& s) {
  State prev = tls_state;
  tls_state = s;
  detail::tls_mask = s.mask;
  return prev;
}

bool eligible(const Tensor& t) {
  if (!t.defined()) return false;
  if (!(tls_state.mask & (1u << int(t.device().type)))) return false;
  return low_or_f32(t.dtype());
}

bool needs_lowp(const Tensor& t) { return eligible(t) && t.dtype() != tls_state.dtype[int(t.device().type)]; }
Tensor to_lowp(const Tensor& t) { return needs_lowp(t) ? to_dtype(t, tls_state.dtype[int(t.device().type)]) : t; }

bool has_lowp_kernel(OpId op, const Tensor& t) {
  return find_kernel(op, t.device().type, tls_state.dtype[int(t.device().type)]) != nullptr;
}

bool needs_f32(const Tensor& t) { return eligible(t) && t.dtype() != DType::f32; }
Tensor to_f32(const Tensor& t) { return needs_f32(t) ? to_dtype(t, DType::f32) : t; }

bool needs_f32_cuda(const Tensor& t) { return t.defined() && t.device().type == DeviceType::cuda && needs_f32(t); }

bool f32_on_cuda(OpId op) {
  switch (op) {
    case OpId::exp: case OpId::expm1: case OpId::log: case OpId::log1p: case OpId::log2: case OpId::log10:
    case OpId::cinv: case OpId::rsqrt: case OpId::sinh: case OpId::cosh: case OpId::tan: case OpId::asin:
    case OpId::acos: case OpId::erfinv: case OpId::pow: case OpId::sum: case OpId::prod: case OpId::logsumexp:
    case OpId::norm: case OpId::cumsum: case OpId::cumprod: case OpId::dist: case OpId::renorm:
      return true;
    default:
      return false;
  }
}

}  // namespace autocast
}  // namespace tocha
