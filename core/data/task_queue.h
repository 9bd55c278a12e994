// The data loader's bounded, ordered queue (DESIGN.md decision 10): the main thread pushes tasks
// (one per batch) numbered in order, worker threads claim them, and results come back to the main
// thread in task order whatever order the workers finish in. No Lua here (bindings/data_loader.cpp
// runs the workers' Lua states).
#pragma once
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <vector>
#include "core/tensor.h"

namespace tocha {

struct TaskResult {
  bool ok = true;
  std::string payload;          // what the worker encoded (or the error message when !ok)
  std::vector<Tensor> tensors;  // handed over by reference, never copied
};

// Note [Bounded ordered queue]: a worker may only claim task k while k < next + capacity, where
// `next` is the task the main thread waits for; so at most `capacity` results (done or in
// progress) exist ahead of the consumer however slow it is (back-pressure), and the delivered
// order is the submission order, so batches do not depend on the number of workers.
class TaskQueue {
 public:
  explicit TaskQueue(int capacity);

  // Main thread: appends a task; returns its number.
  int64_t push(std::string task);
  // Main thread: waits up to timeout_ms for the result of the next task in order. Returns 1 and
  // fills *out when it is there, 0 on timeout. A task that was never pushed is an error.
  int wait_next(TaskResult* out, int timeout_ms);
  // Main thread: drops tasks not yet claimed and results not yet delivered; results of tasks in
  // progress are dropped when they arrive. Task numbers keep increasing.
  void reset();
  // Stops everything: claim() returns false from now on.
  void close();
  // Records an error that fails every later wait_next (a worker that could not start).
  void fail(const std::string& msg);

  // Worker: blocks until a task may be claimed (true) or the queue is closed (false).
  bool claim(int64_t* id, std::string* task);
  // Worker: the result of task id.
  void complete(int64_t id, TaskResult result);

  bool closed() const;
  int64_t next() const;     // number of the next task to deliver
  int64_t pushed() const;   // number of tasks pushed so far
  int64_t in_flight() const;

 private:
  mutable std::mutex mutex_;
  std::condition_variable work_cv_, done_cv_;
  int capacity_;
  int64_t next_ = 0, pushed_ = 0, claimed_ = 0, busy_ = 0;
  std::deque<std::string> tasks_;  // tasks claimed_ .. pushed_-1, in order
  std::map<int64_t, TaskResult> done_;
  bool closed_ = false;
  std::string fatal_;
};

}  // namespace tocha
