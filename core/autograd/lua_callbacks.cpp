// Calls from the engine back into Lua. See lua_callbacks.h.
#include "core/autograd/lua_callbacks.h"
#include <atomic>
#include <mutex>
#include <vector>
#include "core/autograd/grad_mode.h"
#include "core/autograd/record.h"
#include "core/error.h"

namespace tocha {
namespace autograd {

namespace {
struct Owner {
  std::atomic<LuaNodeFn> node{nullptr};
  std::atomic<LuaHookFn> hook{nullptr};
  std::atomic<LuaTraceFn> trace{nullptr};
  std::atomic<LuaPackFn> pack{nullptr};
  std::atomic<LuaUnpackFn> unpack{nullptr};
  std::vector<int64_t> released;  // guarded by g_mutex
};
// Two-level table so that owners can be looked up without a lock while new ones are added.
constexpr int kPageBits = 10, kPageSize = 1 << kPageBits, kPages = kMaxOwners / kPageSize;
std::atomic<Owner*> g_pages[kPages];
std::atomic<int> g_owner_count{0};

Owner* slot(int id) {
  Owner* page = g_pages[id >> kPageBits].load(std::memory_order_acquire);
  return page ? &page[id & (kPageSize - 1)] : nullptr;
}
std::atomic<int> g_callbacks_live{0};
std::mutex g_mutex;
thread_local std::string t_callback_error;
thread_local int t_current_owner = 0;
thread_local Node* t_current_lua_node = nullptr;
// read for every saved tensor: Note [Hot thread-locals] (grad_mode.cpp)
__attribute__((tls_model("initial-exec"))) thread_local int64_t t_saved_hooks = 0;

Owner* owner_of(int64_t key) {
  int64_t id = key >> kOwnerShift;
  return id >= 1 && id < g_owner_count.load(std::memory_order_acquire) ? slot(int(id)) : nullptr;
}
}  // namespace

int set_lua_callbacks(LuaNodeFn node, LuaHookFn hook, LuaTraceFn trace) {
  std::lock_guard<std::mutex> lock(g_mutex);
  int id = g_owner_count.load(std::memory_order_relaxed);
  if (id == 0) id = 1;  // owner 0 means "unknown"
  if (id >= kMaxOwners) return -1;
  if (!g_pages[id >> kPageBits].load()) g_pages[id >> kPageBits].store(new Owner[kPageSize], std::memory_order_release);
  Owner* o = slot(id);
  o->node.store(node);
  o->hook.store(hook);
  o->trace.store(trace);
  g_owner_count.store(id + 1, std::memory_order_release);
  if (t_current_owner == 0) t_current_owner = id;
  return id;
}

void clear_lua_callbacks(int owner) {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (owner < 1 || owner >= g_owner_count.load()) return;
  Owner* o = slot(owner);
  o->node.store(nullptr);
  o->hook.store(nullptr);
  o->trace.store(nullptr);
  o->pack.store(nullptr);
  o->unpack.store(nullptr);
  o->released.clear();
  o->released.shrink_to_fit();
}

void set_current_owner(int owner) { t_current_owner = owner; }

int set_lua_saved_callbacks(int owner, LuaPackFn pack, LuaUnpackFn unpack) {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (owner < 1 || owner >= g_owner_count.load()) return -1;
  slot(owner)->pack.store(pack);
  slot(owner)->unpack.store(unpack);
  return 0;
}

int64_t set_saved_tensors_hooks(int64_t hooks) {
  int64_t prev = t_saved_hooks;
  t_saved_hooks = hooks;
  return prev;
}
int64_t saved_tensors_hooks() { return t_saved_hooks; }

namespace {
// The hooks run as plain Lua code: nothing they do is recorded or packed again.
struct HookScope {
  HookScope() : hooks(set_saved_tensors_hooks(0)), grad(grad_enabled()) { set_grad_enabled(false); }
  ~HookScope() {
    set_saved_tensors_hooks(hooks);
    set_grad_enabled(grad);
  }
  int64_t hooks;
  bool grad;
};
}  // namespace

int64_t lua_pack(const Tensor& t) {
  const int64_t hooks = t_saved_hooks;
  Owner* o = owner_of(hooks);
  LuaPackFn pack = o ? o->pack.load() : nullptr;
  TOCHA_CHECK(pack, "savedTensorsHooks", "the Lua state that set these saved-tensor hooks is gone");
  int64_t key = 0;
  {
    HookScope scope;
    key = pack(hooks, t.impl());
  }
  if (key == 0) throw Error(t_callback_error.empty() ? "[savedTensorsHooks] the pack hook failed" : t_callback_error);
  callbacks_live_add(1);  // backward will call the unpack hook (Note [Callbacks and the JIT])
  return key;
}

Tensor lua_unpack(int64_t key) {
  Owner* o = owner_of(key);
  LuaUnpackFn unpack = o ? o->unpack.load() : nullptr;
  TOCHA_CHECK(unpack, "backward", "the Lua state that packed this saved tensor is gone");
  tocha_tensor* r = nullptr;
  {
    HookScope scope;
    r = unpack(key);
  }
  if (!r) throw Error(t_callback_error.empty() ? "[savedTensorsHooks] the unpack hook failed" : t_callback_error);
  return Tensor(Ref<TensorImpl>::adopt(static_cast<TensorImpl*>(r)));
}

void release_packed(int64_t key) {
  if (!key) return;
  queue_release(key);
  callbacks_live_add(-1);
}

void set_callback_error(const std::string& msg) { t_callback_error = msg; }

Grads lua_node_apply(int64_t key, const Grads& grad_outputs, int ninputs) {
  Owner* o = owner_of(key);
  LuaNodeFn node = o ? o->node.load() : nullptr;
  TOCHA_CHECK(node, "backward", "the Lua state that defined this backward function is gone");
  std::vector<tocha_tensor*> in(grad_outputs.size(), nullptr);
  for (size_t i = 0; i < grad_outputs.size(); ++i)
    if (grad_outputs[i].defined()) in[i] = grad_outputs[i].impl();
  std::vector<tocha_tensor*> out(size_t(ninputs), nullptr);
  int rc = node(key, int(in.size()), in.data(), ninputs, out.data());
  Grads result(static_cast<size_t>(ninputs));
  for (int i = 0; i < ninputs; ++i)
    if (out[size_t(i)]) result[size_t(i)] = Tensor(Ref<TensorImpl>::adopt(static_cast<TensorImpl*>(out[size_t(i)])));
  if (rc != 0) throw Error(t_callback_error.empty() ? "[backward] Lua backward failed" : t_callback_error);
  return result;
}

CurrentLuaNode::CurrentLuaNode(Node* n) : prev(t_current_lua_node) { t_current_lua_node = n; }
CurrentLuaNode::~CurrentLuaNode() { t_current_lua_node = prev; }

Tensor saved_output_alias(const Tensor& data, int slot) {
  Tensor a = alias_with(data, data.sizes(), data.strides(), data.storage_offset());
  Node* n = t_current_lua_node;
  if (n && slot >= 0 && size_t(slot) < n->outputs.size() && is_floating(data.dtype()))
    set_history(a, n->shared_from_this(), slot);
  return a;
}

Tensor lua_hook(int64_t key, const Tensor& grad) {
  Owner* o = owner_of(key);
  LuaHookFn hook = o ? o->hook.load() : nullptr;
  if (!hook) return grad;
  int failed = 0;
  tocha_tensor* r = hook(key, grad.defined() ? grad.impl() : nullptr, &failed);
  if (failed) throw Error(t_callback_error.empty() ? "[hook] gradient hook failed" : t_callback_error);
  if (!r) return grad;
  return Tensor(Ref<TensorImpl>::adopt(static_cast<TensorImpl*>(r)));
}

std::string lua_forward_trace() {
  int id = t_current_owner;
  Owner* o = id >= 1 && id < g_owner_count.load(std::memory_order_acquire) ? slot(id) : nullptr;
  LuaTraceFn trace = o ? o->trace.load() : nullptr;
  if (!trace) return std::string();
  const char* s = trace();
  return s ? std::string(s) : std::string();
}

void callbacks_live_add(int delta) { g_callbacks_live.fetch_add(delta, std::memory_order_relaxed); }
int callbacks_live() { return g_callbacks_live.load(std::memory_order_relaxed); }

void queue_release(int64_t key) {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (Owner* o = owner_of(key)) o->released.push_back(key);
}

int drain_released(int owner, int64_t* out, int max) {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (owner < 1 || owner >= g_owner_count.load()) return 0;
  std::vector<int64_t>& released = slot(owner)->released;
  int n = 0;
  while (n < max && !released.empty()) {
    out[n++] = released.back();
    released.pop_back();
  }
  return n;
}

}  // namespace autograd
}  // namespace tocha
