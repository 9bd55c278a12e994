// The calls the autograd engine makes back into Lua: backward of Lua-defined nodes
// (torch.autograd.Function, nn modules as coarse nodes), gradient hooks, and the caller's
// location for anomaly detection. The Lua side registers them once (lua/torch/autograd.lua);
// the Lua functions catch their own errors and report them through set_callback_error, because
// a Lua error must never unwind through C++ frames.
#pragma once
#include <cstdint>
#include <string>
#include "core/autograd/node.h"
#include "core/tensor_header.h"

namespace tocha {
namespace autograd {

// Returns 0, or -1 after set_callback_error. grads[i] are borrowed (NULL: no gradient); the
// callback stores in results[j] a new reference or NULL for each of the node's inputs.
using LuaNodeFn = int (*)(int64_t key, int ngrads, tocha_tensor** grads, int nresults, tocha_tensor** results);
// Returns a new reference to the replacement gradient, NULL to keep it, or sets *failed.
using LuaHookFn = tocha_tensor* (*)(int64_t key, tocha_tensor* grad, int* failed);
// Returns a description of the Lua stack (the user's line) for anomaly reports.
using LuaTraceFn = const char* (*)();
// Saved-tensor hooks (Note [Saved-tensor hooks] in node.h): pack stores what the Lua pack hook of
// `hooks` made of t and returns its key (0 after set_callback_error); unpack returns a new
// reference to the tensor the unpack hook gives for that key (NULL after set_callback_error).
using LuaPackFn = int64_t (*)(int64_t hooks, tocha_tensor* t);
using LuaUnpackFn = tocha_tensor* (*)(int64_t key);

// Note [Callback owners]: several Lua states may use autograd in one process (embedding hosts
// with several interpreters). Each state registers its callbacks and gets an owner id; its keys
// carry that id in their high bits (key >> kOwnerShift), so a node or hook calls back into the
// state that created it, and released keys go back to that state (which reuses them, so keys
// stay below 2^32). A graph must not be backpropagated from a thread other than the one using
// its interpreter. Owner ids are not reused: 2^21 states per process.
constexpr int kOwnerShift = 32;
constexpr int kMaxOwners = 1 << 21;
// Registers a state's callbacks; returns its owner id (>= 1), or -1 when there are too many.
int set_lua_callbacks(LuaNodeFn node, LuaHookFn hook, LuaTraceFn trace);
int set_lua_saved_callbacks(int owner, LuaPackFn pack, LuaUnpackFn unpack);
// The key of this thread's active pair of saved-tensor hooks (0: none); set returns the previous.
int64_t set_saved_tensors_hooks(int64_t hooks);
int64_t saved_tensors_hooks();
// The key of t packed by the active hooks (a live callback until release_packed); throws on error.
// The hook runs with grad mode and the hooks themselves off.
int64_t lua_pack(const Tensor& t);
// The tensor a packed key unpacks to (grad mode and hooks off while the hook runs); throws on error.
Tensor lua_unpack(int64_t key);
void release_packed(int64_t key);
// Forgets an owner's callbacks (its state is closing); its nodes then fail with a clear error.
void clear_lua_callbacks(int owner);
// The owner whose Lua code runs on this thread (for anomaly traces); 0 when unknown.
void set_current_owner(int owner);
void set_callback_error(const std::string& msg);

Grads lua_node_apply(int64_t key, const Grads& grad_outputs, int ninputs);

// Note [Saved outputs in double backward]: a torch.autograd.Function keeps the outputs it saves
// without their history (the history is its own node: keeping it would be a reference cycle). Under
// createGraph its backward must read them with that history, or a second derivative loses the
// output's dependence on the inputs (exp's second derivative came out 0). While a Lua node runs
// its backward it is the current node of this thread, and saved_output_alias gives an alias of a
// saved output whose history is that node's output slot, as PyTorch's SavedVariable rebuilds it.
struct CurrentLuaNode {
  explicit CurrentLuaNode(Node* n);
  ~CurrentLuaNode();
  Node* prev;
};
// An alias of data with history (current Lua node, slot), or a plain alias outside a Lua backward.
Tensor saved_output_alias(const Tensor& data, int slot);
// Runs hook `key` on grad; returns the (possibly replaced) gradient.
Tensor lua_hook(int64_t key, const Tensor& grad);
std::string lua_forward_trace();
// Keys whose Lua-side state (a Function's ctx, a hook function) can be dropped. Destructors run
// at any time (even inside Lua's GC), so they queue keys instead of calling Lua; the Lua side
// drains the queue when it creates nodes or hooks.
void queue_release(int64_t key);
// Lua nodes and hooks that exist now. When there are none, a backward cannot call Lua, so the Lua
// side may call it from JIT-compiled code (Note [Callbacks and the JIT] in lua/torch/autograd.lua).
void callbacks_live_add(int delta);
int callbacks_live();
int drain_released(int owner, int64_t* out, int max);

}  // namespace autograd
}  // namespace tocha
