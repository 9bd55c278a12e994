// Calls from the engine back into Lua. See lua_callbacks.h.
#include "core/autograd/lua_callbacks.h"
#include <atomic>
#include <mutex>
#include <vector>
#include "core/error.h"

namespace tocha {
namespace autograd {

namespace {
LuaNodeFn g_node = nullptr;
LuaHookFn g_hook = nullptr;
LuaTraceFn g_trace = nullptr;
std::atomic<int> g_callbacks_live{0};
std::mutex g_release_mutex;
std::vector<int64_t> g_released;
thread_local std::string t_callback_error;
}  // namespace

void set_lua_callbacks(LuaNodeFn node, LuaHookFn hook, LuaTraceFn trace) {
  g_node = node;
  g_hook = hook;
  g_trace = trace;
}

void set_callback_error(const std::string& msg) { t_callback_error = msg; }

Grads lua_node_apply(int64_t key, const Grads& grad_outputs, int ninputs) {
  TOCHA_CHECK(g_node, "backward", "no Lua callback is registered for Lua-defined backward functions");
  std::vector<tocha_tensor*> in(grad_outputs.size(), nullptr);
  for (size_t i = 0; i < grad_outputs.size(); ++i)
    if (grad_outputs[i].defined()) in[i] = grad_outputs[i].impl();
  std::vector<tocha_tensor*> out(size_t(ninputs), nullptr);
  int rc = g_node(key, int(in.size()), in.data(), ninputs, out.data());
  Grads result(static_cast<size_t>(ninputs));
  for (int i = 0; i < ninputs; ++i)
    if (out[size_t(i)]) result[size_t(i)] = Tensor(Ref<TensorImpl>::adopt(static_cast<TensorImpl*>(out[size_t(i)])));
  if (rc != 0) throw Error(t_callback_error.empty() ? "[backward] Lua backward failed" : t_callback_error);
  return result;
}

Tensor lua_hook(int64_t key, const Tensor& grad) {
  if (!g_hook) return grad;
  int failed = 0;
  tocha_tensor* r = g_hook(key, grad.defined() ? grad.impl() : nullptr, &failed);
  if (failed) throw Error(t_callback_error.empty() ? "[hook] gradient hook failed" : t_callback_error);
  if (!r) return grad;
  return Tensor(Ref<TensorImpl>::adopt(static_cast<TensorImpl*>(r)));
}

std::string lua_forward_trace() {
  if (!g_trace) return std::string();
  const char* s = g_trace();
  return s ? std::string(s) : std::string();
}

void callbacks_live_add(int delta) { g_callbacks_live.fetch_add(delta, std::memory_order_relaxed); }
int callbacks_live() { return g_callbacks_live.load(std::memory_order_relaxed); }

void queue_release(int64_t key) {
  std::lock_guard<std::mutex> lock(g_release_mutex);
  g_released.push_back(key);
}

int drain_released(int64_t* out, int max) {
  std::lock_guard<std::mutex> lock(g_release_mutex);
  int n = 0;
  while (n < max && !g_released.empty()) {
    out[n++] = g_released.back();
    g_released.pop_back();
  }
  return n;
}

}  // namespace autograd
}  // namespace tocha
