// Queued optimizer updates and their multi-tensor launches (core/ops/optim_batch.h).
//
// Note [Multi-tensor optimizer steps]: an optimizer step over a model launched one fused kernel
// per parameter: 8 launches for a small CNN, hundreds for a ResNet, each a few microseconds of
// host time and a nearly empty kernel on the GPU, where PyTorch's foreach optimizers launch a
// handful. Optimizer objects (optim.Optimizer:step) and nn's updateParameters therefore wrap
// their loop over parameters in a batch: the fused front-end (core/ops/optim.cpp) validates each
// update as always, and an update of a CUDA parameter whose operands need no staging is queued
// with its operands kept alive. The batch's end groups consecutive updates of one op, dtype and
// device, up to kMaxOptimList, into one launch of the op's list kernel (kernels/cuda/optim.cu),
// which applies each update's own constants to its own span with the very expressions of the
// single-tensor kernel, so results keep the CPU's bits. Updates that overlap in memory (a shared
// parameter updated twice) go to separate launches, in their order. Queuing changes nothing
// observable: queued kernels run before anything launched after the batch (one stream per
// device), and within the loop only the updates and the zero-filling of new state buffers
// (launched at once, so before the update that reads them) touch those tensors. CPU updates and
// staged operands run at once, after what is queued has been launched (optim_batch_flush): a
// parameter tied to another (a transposed view of it) is updated in the loop's order.
#include "core/ops/optim_batch.h"
#include <map>
#include <mutex>
#include <utility>
#include <vector>

namespace tocha {

namespace {

struct Batch {
  int depth = 0;
  std::vector<detail::QueuedStep> queued;
};
thread_local Batch t_batch;

std::mutex list_kernels_mutex;
std::map<std::pair<int, int>, void*>& list_kernels() {
  static std::map<std::pair<int, int>, void*> m;
  return m;
}

// Whether b writes memory a touches or touches memory a writes: a parameter updated twice in one
// batch (modules sharing weights, each updating them as Torch7 did), or one update's gradient
// being another's parameter. Such steps must not share a launch, whose blocks run concurrently.
bool conflict(const detail::QueuedStep& a, const detail::QueuedStep& b) {
  for (int i = 0; i < kMaxOptimOperands; ++i) {
    const char* pa = static_cast<const char*>(a.span.data[i]);
    if (!pa) continue;
    for (int j = 0; j < kMaxOptimOperands; ++j) {
      const char* pb = static_cast<const char*>(b.span.data[j]);
      if (!pb || !(a.written[i] || b.written[j])) continue;
      if (pa < pb + b.bytes && pb < pa + a.bytes) return true;
    }
  }
  return false;
}

bool conflicts_with_group(const std::vector<detail::QueuedStep>& steps, size_t first, size_t next) {
  for (size_t k = first; k < next; ++k)
    if (conflict(steps[k], steps[next])) return true;
  return false;
}

// Launches and clears the queue, in order, as groups of one op, dtype and device whose steps do
// not overlap in memory.
void launch_all(std::vector<detail::QueuedStep>& q) {
  std::vector<detail::QueuedStep> steps;
  steps.swap(q);  // cleared even if a launch throws
  for (size_t i = 0; i < steps.size();) {
    size_t j = i + 1;
    while (j < steps.size() && int(j - i) < kMaxOptimList && steps[j].op == steps[i].op &&
           steps[j].dtype == steps[i].dtype && steps[j].device == steps[i].device &&
           !conflicts_with_group(steps, i, j))
      ++j;
    steps[i].launch(steps[i].list_kernel, &steps[i], int(j - i));
    i = j;
  }
}

}  // namespace

void register_optim_list_kernel(OpId op, DType dt, void* fn) {
  std::lock_guard<std::mutex> g(list_kernels_mutex);
  list_kernels()[{int(op), int(dt)}] = fn;
}

void* find_optim_list_kernel(OpId op, DType dt) {
  std::lock_guard<std::mutex> g(list_kernels_mutex);
  auto it = list_kernels().find({int(op), int(dt)});
  return it == list_kernels().end() ? nullptr : it->second;
}

void optim_batch_begin() { ++t_batch.depth; }

void optim_batch_end() {
  if (t_batch.depth == 0) return;
  if (--t_batch.depth == 0) launch_all(t_batch.queued);
}

void optim_batch_flush() {
  if (t_batch.depth > 0 && !t_batch.queued.empty()) launch_all(t_batch.queued);
}

namespace detail {

bool optim_batch_active() { return t_batch.depth > 0; }

void optim_batch_push(QueuedStep&& step) { t_batch.queued.push_back(std::move(step)); }

}  // namespace detail
}  // namespace tocha
