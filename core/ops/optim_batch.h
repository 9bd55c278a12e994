// Multi-tensor optimizer steps (Note [Multi-tensor optimizer steps], optim_batch.cpp): between
// optim_batch_begin() and optim_batch_end(), this thread's fused optimizer updates of CUDA
// parameters (core/ops/optim.h) are queued, and the end launches them as multi-tensor kernels.
#pragma once
#include <cstddef>
#include <cstring>
#include "core/ops/optim_kernels.h"
#include "core/tensor.h"

namespace tocha {

// Pairs nest; the outermost end launches what was queued, also after an update threw, so the
// updates queued before a failing one still happen, as they would have without a batch.
void optim_batch_begin();
void optim_batch_end();
// Launches what is queued now, the batch going on: for an update or op of the batch's loop that
// is not queued (staged operands, another kind of op) and may touch the queued ones' tensors.
void optim_batch_flush();

namespace detail {

bool optim_batch_active();

// One queued update: its span, its constants (bytes of the op's Consts struct), the operands
// it keeps alive until the launch, and how to launch a group of such updates.
struct QueuedStep {
  using Launch = void (*)(void* list_kernel, const QueuedStep* steps, int count);
  OpId op;
  DType dtype;
  int device;
  OptimSpan span;
  size_t bytes;                          // of each operand (span.n elements of the compute dtype)
  bool written[kMaxOptimOperands] = {};  // which operands the update writes
  alignas(8) unsigned char consts[64];
  Tensor keep[kMaxOptimOperands];
  void* list_kernel;
  Launch launch;
};

// Launches count queued steps of one op, dtype and device with their list kernel.
template <class C> void launch_queued(void* list_kernel, const QueuedStep* steps, int count) {
  OptimSpanList<C> list;
  list.count = count;
  for (int i = 0; i < count; ++i) {
    list.spans[i] = steps[i].span;
    std::memcpy(&list.consts[i], steps[i].consts, sizeof(C));
  }
  reinterpret_cast<OptimListKernel<C>>(list_kernel)(list);
}

void optim_batch_push(QueuedStep&& step);

}  // namespace detail
}  // namespace tocha
