// The data loader's worker threads (DESIGN.md decision 10): each owns a private Lua state that
// runs lua/data/worker.lua on the tasks of a TaskQueue (core/data/task_queue.h). Tensors cross
// between states by reference through the C ABI in tocha_data.h (Note [Loader hand-off]).
#pragma once
#include <atomic>
#include <string>
#include <thread>
#include <vector>
#include "core/data/task_queue.h"
#include "core/tensor.h"

namespace tocha {

struct LoaderConfig {
  int workers = 1;
  int capacity = 2;          // results allowed ahead of the consumer
  std::string path, cpath;   // package.path / package.cpath of the worker states
  std::string spec;          // what lua/data/worker.lua's start() receives (an encoded dataset)
  std::vector<Tensor> inputs;  // tensors the spec refers to, shared with every worker
};

class Loader {
 public:
  explicit Loader(LoaderConfig config);
  ~Loader();  // stops the workers and joins them (Note [Loader shutdown])
  Loader(const Loader&) = delete;
  Loader& operator=(const Loader&) = delete;

  TaskQueue& queue() { return queue_; }
  // Main thread: waits for the next result in order, polling the interrupt flag; throws the
  // worker's error (with its traceback) when the task failed.
  // Waits for the next result; timeout_s > 0 bounds the wait (Note [Loader timeout]).
  void next(double timeout_s = 0);
  const TaskResult& current() const { return current_; }
  const std::vector<Tensor>& inputs() const { return config_.inputs; }
  bool stopping() const { return stopping_.load(std::memory_order_relaxed); }
  int workers() const { return config_.workers; }

 private:
  void run(int worker_id);

  LoaderConfig config_;
  TaskQueue queue_;
  TaskResult current_;
  std::atomic<bool> stopping_{false};
  std::vector<std::thread> threads_;
};

// The loader and worker number (1-based) of the calling thread; nullptr / 0 outside workers.
Loader* current_loader();
int current_worker_id();
// Appends a tensor to the result the calling worker is building.
void worker_put(const Tensor& t);

}  // namespace tocha
