// Grad mode (thread-local: recording on or off) and anomaly detection.
#pragma once

namespace tocha {
namespace autograd {

bool grad_enabled();
void set_grad_enabled(bool on);
bool anomaly_enabled();
void set_anomaly_enabled(bool on);

// RAII: disables (or sets) grad mode for a scope, restoring the previous mode.
class GradModeGuard {
 public:
  explicit GradModeGuard(bool on) : prev_(grad_enabled()) { set_grad_enabled(on); }
  ~GradModeGuard() { set_grad_enabled(prev_); }
  GradModeGuard(const GradModeGuard&) = delete;
  GradModeGuard& operator=(const GradModeGuard&) = delete;

 private:
  bool prev_;
};

}  // namespace autograd
}  // namespace tocha
