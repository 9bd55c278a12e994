// The data loader's bounded, ordered queue. See task_queue.h.
#include "core/data/task_queue.h"
#include <chrono>
#include "core/error.h"

namespace tocha {

TaskQueue::TaskQueue(int capacity) : capacity_(capacity < 1 ? 1 : capacity) {}

int64_t TaskQueue::push(std::string task) {
  std::lock_guard<std::mutex> g(mutex_);
  TOCHA_CHECK(!closed_, "DataLoader", "the loader was closed");
  tasks_.push_back(std::move(task));
  int64_t id = pushed_++;
  work_cv_.notify_one();
  return id;
}

int TaskQueue::wait_next(TaskResult* out, int timeout_ms) {
  std::unique_lock<std::mutex> g(mutex_);
  TOCHA_CHECK(next_ < pushed_, "DataLoader", "no batch was requested beyond number ", next_);
  auto ready = [&] { return closed_ || !fatal_.empty() || done_.count(next_) != 0; };
  if (!done_cv_.wait_for(g, std::chrono::milliseconds(timeout_ms), ready)) return 0;
  auto it = done_.find(next_);
  if (it == done_.end()) {
    if (!fatal_.empty()) throw Error(fatal_);  // it already starts with "[DataLoader] worker N ..."
    ::tocha::fail("DataLoader", "the loader was closed");
  }
  *out = std::move(it->second);
  done_.erase(it);
  ++next_;
  work_cv_.notify_all();  // one more task may be claimed now
  return 1;
}

void TaskQueue::reset() {
  std::lock_guard<std::mutex> g(mutex_);
  tasks_.clear();
  claimed_ = pushed_;
  next_ = pushed_;
  done_.clear();
}

void TaskQueue::close() {
  std::lock_guard<std::mutex> g(mutex_);
  closed_ = true;
  work_cv_.notify_all();
  done_cv_.notify_all();
}

void TaskQueue::fail(const std::string& msg) {
  std::lock_guard<std::mutex> g(mutex_);
  if (fatal_.empty()) fatal_ = msg;
  done_cv_.notify_all();
}

bool TaskQueue::claim(int64_t* id, std::string* task) {
  std::unique_lock<std::mutex> g(mutex_);
  work_cv_.wait(g, [&] { return closed_ || (claimed_ < pushed_ && claimed_ < next_ + capacity_); });
  if (closed_) return false;
  *id = claimed_++;
  *task = std::move(tasks_.front());
  tasks_.pop_front();
  ++busy_;
  return true;
}

void TaskQueue::complete(int64_t id, TaskResult result) {
  std::lock_guard<std::mutex> g(mutex_);
  --busy_;
  if (id < next_ || closed_) return;  // dropped by reset() or close() while it ran
  done_.emplace(id, std::move(result));
  if (id == next_) done_cv_.notify_all();
}

bool TaskQueue::closed() const {
  std::lock_guard<std::mutex> g(mutex_);
  return closed_;
}
int64_t TaskQueue::next() const {
  std::lock_guard<std::mutex> g(mutex_);
  return next_;
}
int64_t TaskQueue::pushed() const {
  std::lock_guard<std::mutex> g(mutex_);
  return pushed_;
}
int64_t TaskQueue::in_flight() const {
  std::lock_guard<std::mutex> g(mutex_);
  return busy_;
}

}  // namespace tocha
