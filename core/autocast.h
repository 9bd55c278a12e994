// Autocast (torch.autocast, issue 9): the thread-local mixed-precision state and the casts the op
// front-ends apply while it is on. See Note [Autocast] in core/autocast.cpp for the op lists.
#pragma once
#include <cstdint>
#include "core/device.h"
#include "core/dtype.h"
#include "core/op_id.h"
#include "core/tensor.h"

namespace tocha {
namespace autocast {

// Per device type: whether autocast is on (bit (1 << DeviceType)) and its low-precision dtype.
struct State {
  uint32_t mask = 0;
  DType dtype[kNumDeviceTypes] = {DType::bf16, DType::f16};
};

namespace detail {
extern thread_local uint32_t tls_mask;  // a copy of the current State's mask: the hot-path flag
}

// The one check on the op path: true while any autocast region is open on this thread.
inline bool active() { return detail::tls_mask != 0; }

// The current state of this thread, and replacing it (returns the previous state).
State current();
State exchange(const State& s);

// Whether t is cast by autocast: defined, on an enabled device type, dtype f32/f16/bf16 (f64 and
// integer tensors are never cast, as in PyTorch).
bool eligible(const Tensor& t);
// Low-precision list (matmul family, convolution): t in the autocast dtype of its device type, or
// t itself when it is not eligible or already of that dtype. The cast is recorded by autograd.
Tensor to_lowp(const Tensor& t);
bool needs_lowp(const Tensor& t);
// Whether op has a kernel for t's device in its autocast dtype (CPU convolutions have none:
// autocast('cpu', ...) then leaves them in f32 instead of failing).
bool has_lowp_kernel(OpId op, const Tensor& t);
// f32 list (losses, softmax, normalization): an eligible f16/bf16 tensor in f32, else t.
Tensor to_f32(const Tensor& t);
bool needs_f32(const Tensor& t);
// CUDA's wider f32 list (exp, log, pow, sum, prod, cumsum, norms...: Note [Autocast]): whether op
// is on it, and whether t is an f16/bf16 CUDA tensor under CUDA autocast. The front-ends of those
// ops test active() first, so the cost when off stays one thread-local load.
bool f32_on_cuda(OpId op);
bool needs_f32_cuda(const Tensor& t);
inline bool cuda_f32(OpId op, const Tensor& t) { return active() && needs_f32_cuda(t) && f32_on_cuda(op); }

}  // namespace autocast
}  // namespace tocha
