// Grad mode and the anomaly flag. Grad mode is per thread (data-loader workers never record).
#include "core/autograd/grad_mode.h"
#include <atomic>

namespace tocha {
namespace autograd {

namespace {
// Note [Hot thread-locals]: libtocha is a shared object, so a thread_local costs a call to
// __tls_get_addr on every access unless it uses the initial-exec model. The few per-op ones
// (this flag, the memory deltas, the block-cache pointer) do, and stay tiny so that even a
// dlopen'ed libtocha (plain LuaJIT's ffi.load) fits glibc's surplus static TLS.
__attribute__((tls_model("initial-exec"))) thread_local bool t_grad_enabled = true;
std::atomic<bool> g_anomaly{false};
}  // namespace

bool grad_enabled() { return t_grad_enabled; }
void set_grad_enabled(bool on) { t_grad_enabled = on; }
bool anomaly_enabled() { return g_anomaly.load(std::memory_order_relaxed); }
void set_anomaly_enabled(bool on) { g_anomaly.store(on); }

}  // namespace autograd
}  // namespace tocha
