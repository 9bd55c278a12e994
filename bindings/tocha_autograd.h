/* tocha_autograd.h -- C ABI of autograd: requires-grad flags, .grad, backward, grad, grad mode,
 * hooks and Lua-defined nodes. Included by tocha.h; see its conventions. */
#ifndef TOCHA_AUTOGRAD_ABI_H
#define TOCHA_AUTOGRAD_ABI_H

/* Marks a leaf as requiring grad (or not); a tensor with history cannot be changed. */
TOCHA_API int tocha_tensor_set_requires_grad(tocha_tensor *t, int flag) TOCHA_NOEXCEPT;
TOCHA_API int tocha_tensor_is_leaf(const tocha_tensor *t) TOCHA_NOEXCEPT;
/* Sets *grad to a new reference to t's gradient, or NULL when there is none. */
TOCHA_API int tocha_tensor_get_grad(const tocha_tensor *t, tocha_tensor **grad) TOCHA_NOEXCEPT;
/* Replaces t's gradient (same size and dtype as t); NULL clears it. */
TOCHA_API int tocha_tensor_set_grad(tocha_tensor *t, const tocha_tensor *grad) TOCHA_NOEXCEPT;
/* Name of the op that produced t ("mul", ...), NULL for leaves. */
TOCHA_API const char *tocha_tensor_grad_fn(const tocha_tensor *t) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_tensor_detach(const tocha_tensor *t) TOCHA_NOEXCEPT;
TOCHA_API int tocha_tensor_detach_(tocha_tensor *t) TOCHA_NOEXCEPT;
TOCHA_API int tocha_tensor_retain_grad(tocha_tensor *t) TOCHA_NOEXCEPT;
TOCHA_API uint32_t tocha_tensor_version(const tocha_tensor *t) TOCHA_NOEXCEPT;
/* Gradient hooks, identified by keys the caller chooses (the Lua side maps them to functions). */
TOCHA_API int tocha_tensor_add_hook(tocha_tensor *t, int64_t key) TOCHA_NOEXCEPT;
TOCHA_API int tocha_tensor_remove_hook(tocha_tensor *t, int64_t key) TOCHA_NOEXCEPT;

/* d(outputs)/d(leaves) accumulated into .grad; grads[i] may be NULL for one-element outputs.
   retain_graph keeps the graph for another backward; as PyTorch's, it is independent of
   create_graph (PyTorch's default for it is create_graph's value: pass both when unsure). */
TOCHA_API int tocha_backward(int n, tocha_tensor **outputs, tocha_tensor **grads, int retain_graph,
                             int create_graph) TOCHA_NOEXCEPT;
/* d(outputs)/d(inputs) into results[0..nin) (new references; NULL for unused inputs). */
TOCHA_API int tocha_autograd_grad(int nout, tocha_tensor **outputs, tocha_tensor **grads, int nin,
                                  tocha_tensor **inputs, int retain_graph, int create_graph, int allow_unused,
                                  tocha_tensor **results) TOCHA_NOEXCEPT;

/* 1 when the graph of outputs reaches a leaf that requires grad other than leaves[0..nleaves)
   (an output that is such a leaf counts), 0 when not, -1 on error. torch.func asks it to keep the
   graph of a transform whose function closes over a tensor that requires grad. */
TOCHA_API int tocha_autograd_reaches_other_leaf(int nout, tocha_tensor **outputs, int nleaves,
                                                tocha_tensor **leaves) TOCHA_NOEXCEPT;

/* Grad mode is per thread; returns the previous mode. */
TOCHA_API int tocha_set_grad_enabled(int on) TOCHA_NOEXCEPT;
TOCHA_API int tocha_is_grad_enabled(void) TOCHA_NOEXCEPT;
TOCHA_API void tocha_set_anomaly_enabled(int on) TOCHA_NOEXCEPT;
TOCHA_API int tocha_is_anomaly_enabled(void) TOCHA_NOEXCEPT;

/* Calls back into the host language (see core/autograd/lua_callbacks.h). */
typedef int (*tocha_lua_node_fn)(int64_t key, int ngrads, tocha_tensor **grads, int nresults,
                                 tocha_tensor **results);
typedef tocha_tensor *(*tocha_lua_hook_fn)(int64_t key, tocha_tensor *grad, int *failed);
typedef const char *(*tocha_lua_trace_fn)(void);
/* Saved-tensor hooks (Note [Saved-tensor hooks], core/autograd/node.h): pack returns the key under
   which the host keeps what its pack hook made of t (0 after tocha_autograd_set_callback_error);
   unpack returns a new reference to the tensor for such a key (NULL on error). */
typedef int64_t (*tocha_lua_pack_fn)(int64_t hooks, tocha_tensor *t);
typedef tocha_tensor *(*tocha_lua_unpack_fn)(int64_t key);
/* Registers one Lua state's callbacks; returns its owner id (keys it creates carry the id in
   their bits from 40 up: Note [Callback owners]), or -1 when too many states registered. */
TOCHA_API int tocha_autograd_set_callbacks(tocha_lua_node_fn node, tocha_lua_hook_fn hook,
                                           tocha_lua_trace_fn trace) TOCHA_NOEXCEPT;
/* Registers an owner's saved-tensor callbacks; 0, or -1 for an unknown owner. */
TOCHA_API int tocha_autograd_set_saved_callbacks(int owner, tocha_lua_pack_fn pack,
                                                 tocha_lua_unpack_fn unpack) TOCHA_NOEXCEPT;
/* Makes `hooks` (a key of the owner's, 0 for none) this thread's saved-tensor hooks; returns the
   previous ones. Every tensor saved for backward meanwhile goes through the pack callback. */
TOCHA_API int64_t tocha_autograd_set_saved_hooks(int64_t hooks) TOCHA_NOEXCEPT;
/* Forgets an owner's callbacks (its Lua state is closing). */
TOCHA_API void tocha_autograd_clear_callbacks(int owner) TOCHA_NOEXCEPT;
/* Says which owner's Lua code runs on this thread (for anomaly-detection traces). */
TOCHA_API void tocha_autograd_set_current_owner(int owner) TOCHA_NOEXCEPT;
TOCHA_API void tocha_autograd_set_callback_error(const char *msg) TOCHA_NOEXCEPT;
/* Records a node whose backward is the host's function `key`: the outputs get it as history. */
TOCHA_API int tocha_autograd_record_lua(int64_t key, const char *label, int nin, tocha_tensor **inputs, int nout,
                                        tocha_tensor **outputs) TOCHA_NOEXCEPT;
/* Refuses a tensor a Lua Function's forward modified in place (ctx:markDirty) when the node
   cannot take it as an output: a leaf that requires grad, or a view (Note [Dirty inputs]). */
TOCHA_API int tocha_autograd_check_dirty(const tocha_tensor *t, const char *label) TOCHA_NOEXCEPT;
/* During a Lua node's backward: an alias of the saved output data whose history is that node's
   output slot (Note [Saved outputs in double backward]); a plain alias otherwise. */
TOCHA_API tocha_tensor *tocha_autograd_saved_output(const tocha_tensor *data, int slot) TOCHA_NOEXCEPT;
/* Keys of Lua nodes and hooks that no longer exist (their host-side state can be dropped). */
TOCHA_API int tocha_autograd_drain_released(int owner, int64_t *keys, int max) TOCHA_NOEXCEPT;
/* Number of Lua nodes and hooks alive: 0 means a backward cannot call back into the host. */
TOCHA_API int tocha_autograd_callbacks_live(void) TOCHA_NOEXCEPT;

/* Composite ops (core/ops/composite.h); dims are 0-based. */
TOCHA_API tocha_tensor *tocha_softmax(const tocha_tensor *x, int dim) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_log_softmax(const tocha_tensor *x, int dim) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_gelu(const tocha_tensor *x) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_silu(const tocha_tensor *x) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_elu(const tocha_tensor *x, double alpha, double scale) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_selu(const tocha_tensor *x) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_leaky_relu(const tocha_tensor *x, double slope) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_softplus(const tocha_tensor *x, double beta, double threshold) TOCHA_NOEXCEPT;
/* weight and bias may be NULL. */
TOCHA_API tocha_tensor *tocha_layer_norm(const tocha_tensor *x, int ndims, const tocha_tensor *weight,
                                         const tocha_tensor *bias, double eps) TOCHA_NOEXCEPT;

#endif
