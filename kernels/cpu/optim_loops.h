// Shared driver of the fused optimizer kernels (kernels/cpu/optim_*.cpp): splits the flat operands
// over the thread pool and hands each chunk to a loop compiled for AVX-512, AVX2 and baseline.
#pragma once
#include "core/ops/optim_kernels.h"

// Note [Deterministic optimizer updates]: an element's update must not depend on where it sits
// (the vector body or the scalar tail of a loop, a flat getParameters() vector or one tensor of
// a module), or optim.sgd on flat parameters and optim.SGD per tensor would drift apart by an
// ulp per step. Contracting a*b + c into an FMA is exactly such a choice the compiler makes per
// loop version, so the files including this header turn contraction off.
#if defined(__clang__)
#pragma clang fp contract(off)
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif
#include "kernels/cpu/loops.h"

namespace tocha {
namespace cpu {

// Pointer k of the span, typed and offset to element b.
template <class T> T* operand(const OptimSpan& s, int k, int64_t b) {
  return s.data[k] ? static_cast<T*>(s.data[k]) + b : nullptr;
}

// Calls chunk(b, e) on sub-ranges of [0, s.n); optimizer loops stream 3-6 arrays, so they split
// at the pointwise grain like any other elementwise op.
template <class F> void optim_for(const OptimSpan& s, const F& chunk) {
  parallel_for(s.n, kGrainSize, chunk);
}

}  // namespace cpu
}  // namespace tocha
