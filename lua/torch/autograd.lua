-- Autograd from Lua (DESIGN.md decisions 5-6): requiresGrad/grad/backward on tensors, grad mode,
-- torch.autograd.grad, hooks, retainGrad, user-defined Functions with Lua forward/backward, and
-- anomaly detection. The graph and the engine live in C++; Lua code runs only for Lua-defined
-- nodes and hooks, which the engine calls back through the FFI.
--
-- Tensor API:   x:requiresGrad([flag=true]) (returns x)  x:needsGrad() (query)  x:isLeaf()
--               x.grad / x.grad = g   x.gradFn (name of the op that made x, nil for leaves)
--               y:backward([gradOutput] [, {retainGraph=, createGraph=}])  x:zeroGrad()
--               x:detach()  x:retainGrad()  x:registerHook(fn) -> handle with :remove()
local ffi = require 'ffi'
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local C, wrap, check, fail = lib.C, lib.wrap, lib.check, lib.fail
local is_tensor, describe = types.is_tensor, types.describe
local methods, hooks = torch._tensor_methods, torch._tensor_hooks

local autograd = {}
torch.autograd = autograd

local REQUIRES_GRAD = 2

-- ---- keys for Lua-side state (Function contexts, hook functions) --------------------------------
-- Keys are owner * 2^32 + n, where owner is this state's id from the engine (Note [Callback
-- owners] in core/autograd/lua_callbacks.h; set below when the callbacks are registered) and n
-- is reused once the engine has released it, so it stays small.
local registry, owner, next_key, free_keys = {}, 0, 0, {}
local OWNER_UNIT = 4294967296  -- 2^32
local drain_buf = ffi.new('int64_t[64]')
-- Note [Draining is not reentrant]: growing free_keys may run a collection step, whose sentinel
-- (Note [Draining at each collection]) drained again into the same buffer while this loop was
-- still reading it: keys went into free_keys twice, and two live nodes then shared one key, one
-- of them running the other's backward (a Linear given a convolution's input, now and then,
-- depending on when the collector ran). One drain at a time; the sentinel's skips its turn.
local draining = false
local function drain()
  if draining then return end
  draining = true
  while true do
    local n = C.tocha_autograd_drain_released(owner, drain_buf, 64)
    for i = 0, n - 1 do
      local key = tonumber(drain_buf[i])
      registry[key] = nil
      free_keys[#free_keys + 1] = key
    end
    if n < 64 then break end
  end
  draining = false
end
-- Note [Draining at each collection]: the engine releases a key when it frees the node holding it
-- (from C++, where it cannot call Lua), and new_key drains the released ones. A forward-only loop
-- whose old outputs die only when Lua collects them then kept their entries (and whatever those
-- hold: Note [A module used again before its backward], lua/nn/module_reuse.lua) until the next
-- recorded node after a collection; a sentinel finalized at every collection drains them, so a
-- following collection frees them.
do
  local function arm()
    local sentinel = newproxy(true)
    getmetatable(sentinel).__gc = function()
      pcall(drain)
      arm()
    end
  end
  arm()
end
local function new_key(entry)
  drain()
  local key = free_keys[#free_keys]
  if key then
    free_keys[#free_keys] = nil
  else
    next_key = next_key + 1
    key = owner * OWNER_UNIT + next_key
  end
  registry[key] = entry
  return key
end

-- A handle with its own reference to a tensor the engine lends us.
local function borrow(p)
  C.tocha_tensor_retain(p)
  return (wrap(p))
end

-- ---- callbacks from the engine ------------------------------------------------------------------
-- They never let a Lua error escape into C++: errors are reported through the C side.
local function report(err)
  C.tocha_autograd_set_callback_error(tostring(err))
end

-- Note [Dropping the state of released nodes]: a backward without retainGraph frees the saved
-- state of every node it runs (LuaNode::release_saved; a second backward through one is refused
-- before reaching Lua), but the engine releases a node's key only when the node itself is freed,
-- and the node lives as long as the outputs carrying it. The registry entry of a coarse nn node
-- holds its module, and the module holds its output, which carries the node: a cycle through C++
-- the collector cannot see, so every model that ran one autograd step (a fresh model per fit, a
-- REPL session) stayed alive forever with its parameters. Each backward therefore lists the keys
-- of the Lua nodes it ran (a stack: a node's backward may run a nested backward) and, without
-- retainGraph, drops their entries afterwards (a Function's context and its saved tensors are
-- freed at once, as PyTorch frees saved tensors); the key goes back to free_keys only when the
-- engine releases it, so it is never given to two entries.
local ran_stack = {}
local node_cb = ffi.cast('tocha_lua_node_fn', function(key, ngrads, grads, nresults, results)
  local ok, err = pcall(function()
    local entry = registry[tonumber(key)]
    if not entry then error('[backward] the Lua state of this node is gone', 0) end
    local gs = {}
    for i = 0, ngrads - 1 do
      if grads[i] ~= nil then gs[i + 1] = borrow(grads[i]) end
    end
    local rs = entry.backward(entry, gs, ngrads)
    for i = 1, nresults do
      local r = rs[i]
      if r ~= nil then
        if not is_tensor(r) then
          error(string.format('[%s] backward returned %s for input %d; expected a tensor or nil', entry.label, describe(r), i), 0)
        end
        C.tocha_tensor_retain(r.p)
        results[i - 1] = r.p
      end
    end
  end)
  if not ok then report(err) return -1 end
  local ran = ran_stack[#ran_stack]
  if ran then ran[#ran + 1] = tonumber(key) end
  return 0
end)

local hook_cb = ffi.cast('tocha_lua_hook_fn', function(key, grad, failed)
  local result = nil
  local ok, err = pcall(function()
    local entry = registry[tonumber(key)]
    if not entry then return end
    local g = borrow(grad)
    local r = entry.fn(g)
    if r ~= nil then
      if not is_tensor(r) then error('[hook] a gradient hook must return a tensor or nil, got ' .. describe(r), 0) end
      -- A leaf's accumulator stored a hook's result as .grad whatever its size (PyTorch: "hook
      -- has changed the size of value").
      if not r:isSameSizeAs(g) then
        error(string.format('[registerHook] a hook returned a gradient of size %s for a gradient of size %s; a hook '
          .. 'may change the values of a gradient, not its size', describe(r):match('of size (.*)$') or 'scalar',
          describe(g):match('of size (.*)$') or 'scalar'), 0)
      end
      C.tocha_tensor_retain(r.p)
      result = r.p
    end
  end)
  if not ok then report(err) failed[0] = 1 return nil end
  return result
end)

local trace_anchor = ''
local trace_cb = ffi.cast('tocha_lua_trace_fn', function()
  local level, where = 2, nil
  while true do
    local info = debug.getinfo(level, 'Sl')
    if not info then break end
    if info.what ~= 'C' and not info.source:find(lib.lua_root, 1, true) then
      where = info.short_src .. ':' .. tostring(info.currentline)
      break
    end
    level = level + 1
  end
  trace_anchor = where or '(unknown)'
  return trace_anchor
end)
autograd._callbacks = { node_cb, hook_cb, trace_cb }  -- keep them alive
-- Note [Callbacks and worker states]: every state registers its own callbacks (Note [Callback
-- owners]) except data-loader worker states (lua/data/worker.lua), which never run backward.
if C.tocha_loader_worker_id() == 0 then
  owner = C.tocha_autograd_set_callbacks(node_cb, hook_cb, trace_cb)
  if owner < 0 then error('torch: too many Lua states use autograd in this process', 0) end
end
autograd._owner = owner

-- ---- grad mode ---------------------------------------------------------------------------------
--- torch.setGradEnabled(on): turns grad mode on (true) or off (false or nil) for this thread; while
--- it is off, operations record no autograd graph and full reductions return numbers. See
--- torch.noGrad and torch.enableGrad to change it around one function call.
--- Example: torch.setGradEnabled(true)
function torch.setGradEnabled(on) C.tocha_set_grad_enabled(on and 1 or 0) end
--- torch.isGradEnabled(): true when grad mode is on (operations on tensors that require grad
--- record an autograd graph), false after torch.setGradEnabled(false).
--- Example: torch.isGradEnabled()
function torch.isGradEnabled() return C.tocha_is_grad_enabled() ~= 0 end

local function with_mode(on, fn, ...)
  if type(fn) ~= 'function' then fail(on and 'enableGrad' or 'noGrad', 'expected a function, got %s', describe(fn)) end
  local prev = C.tocha_set_grad_enabled(on and 1 or 0)
  local res = { pcall(fn, ...) }
  C.tocha_set_grad_enabled(prev)
  if not res[1] then error(res[2], 0) end
  return unpack(res, 2, table.maxn(res))
end
--- torch.noGrad(fn, ...): runs fn with recording off; returns fn's results.
--- Example: torch.noGrad(function() return torch.isGradEnabled() end)
function torch.noGrad(fn, ...) return with_mode(false, fn, ...) end
--- torch.enableGrad(fn, ...): runs fn with recording on (inside a noGrad region).
--- Example: torch.noGrad(torch.enableGrad, torch.isGradEnabled)
function torch.enableGrad(fn, ...) return with_mode(true, fn, ...) end

-- ---- tensor methods -----------------------------------------------------------------------------
function methods.requiresGrad(t, flag)
  check(C.tocha_tensor_set_requires_grad(t.p, (flag == nil or flag) and 1 or 0))
  return t
end
function methods.needsGrad(t) return bit.band(t.p.flags, REQUIRES_GRAD) ~= 0 end
function methods.isLeaf(t) return C.tocha_tensor_is_leaf(t.p) ~= 0 end
function methods.detach(t) return (wrap(C.tocha_tensor_detach(t.p))) end
function methods.detach_(t) check(C.tocha_tensor_detach_(t.p)) return t end
function methods.retainGrad(t) check(C.tocha_tensor_retain_grad(t.p)) return t end

local grad_out = ffi.new('tocha_tensor *[1]')
hooks.properties.grad = function(t)
  check(C.tocha_tensor_get_grad(t.p, grad_out))
  if grad_out[0] == nil then return nil end
  return (wrap(grad_out[0]))
end
hooks.setters.grad = function(t, g)
  if g ~= nil and not is_tensor(g) then fail('grad', 'expected a tensor or nil, got %s', describe(g)) end
  check(C.tocha_tensor_set_grad(t.p, g and g.p or nil))
end
hooks.properties.gradFn = function(t)
  local s = C.tocha_tensor_grad_fn(t.p)
  return s ~= nil and ffi.string(s) or nil
end

--- Zeroes the accumulated gradient in place (keeps the tensor, so aliases stay valid).
--- Example: local w = torch.ones(2):requiresGrad(); w:sum():backward(); w:zeroGrad()
function methods.zeroGrad(t)
  local g = hooks.properties.grad(t)
  if g then g:zero() end
  return t
end

-- Note [Callbacks and the JIT]: the engine calls Lua back for hooks and Lua-defined nodes, and
-- LuaJIT only allows a callback while the FFI call that leads to it runs interpreted. Such calls
-- go through functions the JIT never compiles; when no Lua node or hook exists (the C side
-- counts them) nothing can call back and the call stays in compiled code.
local backward_c = C.tocha_backward
local function backward_interpreted(n, o, g, retain, create) return backward_c(n, o, g, retain, create) end
jit.off(backward_interpreted)
-- Runs one backward (engine(...) returns its status) and, without retainGraph, drops the entries
-- of the Lua nodes it ran (Note [Dropping the state of released nodes]), also when it failed: the
-- nodes that ran before the failure were released all the same.
local function with_ran_list(retain, engine, ...)
  local ran = {}
  ran_stack[#ran_stack + 1] = ran
  local rc = engine(...)
  ran_stack[#ran_stack] = nil
  if retain == 0 then
    for k = 1, #ran do registry[ran[k]] = nil end
  end
  return rc
end
jit.off(with_ran_list)  -- it calls the engine itself for torch.autograd.grad (Note [Callbacks and the JIT])
local function call_backward(n, o, g, retain, create)
  if C.tocha_autograd_callbacks_live() == 0 then return (backward_c(n, o, g, retain, create)) end
  return (with_ran_list(retain, backward_interpreted, n, o, g, retain, create))
end

-- Options are checked by name: a misspelt one (retain_graph, PyTorch's spelling) was ignored.
local OPTIONS = { backward = { retainGraph = true, createGraph = true },
                  grad = { retainGraph = true, createGraph = true, allowUnused = true } }
local function check_opts(op, opts)
  if opts == nil then return {} end
  if type(opts) ~= 'table' or is_tensor(opts) then fail(op, 'options must be a table, got %s', describe(opts)) end
  for k in pairs(opts) do
    if not OPTIONS[op][k] then
      local names = {}
      for name in pairs(OPTIONS[op]) do names[#names + 1] = name end
      table.sort(names)
      fail(op, 'unknown option %s (known: %s)', tostring(k), table.concat(names, ', '))
    end
  end
  return opts
end

local outs1, grads1 = ffi.new('tocha_tensor *[1]'), ffi.new('tocha_tensor *[1]')
--- y:backward([gradOutput] [, {retainGraph=, createGraph=}]): accumulates the gradients of y into
--- the .grad of the leaves it depends on (gradOutput may be omitted for a one-element y).
--- Example: local w = torch.ones(2):requiresGrad(); (w * 3):sum():backward()  -- w.grad is {3, 3}
function methods.backward(t, g, opts)
  if type(g) == 'table' and opts == nil then g, opts = nil, g end
  if g ~= nil and not is_tensor(g) then fail('backward', 'gradient must be a tensor, got %s', describe(g)) end
  opts = check_opts('backward', opts)
  local create = opts.createGraph and 1 or 0
  -- PyTorch: retain_graph defaults to create_graph; an explicit false frees the graph even then
  local retain = opts.retainGraph == nil and create or (opts.retainGraph and 1 or 0)
  outs1[0] = t.p
  grads1[0] = g and g.p or nil
  local rc = call_backward(1, outs1, grads1, retain, create)
  outs1[0], grads1[0] = nil, nil
  if rc ~= 0 then lib.raise() end
end

--- t:registerHook(fn): fn(grad) runs when t's gradient is computed; a returned tensor replaces it.
--- Example: local w = torch.ones(2):requiresGrad(); w:registerHook(function(g) return g * 2 end); w:sum():backward()
function methods.registerHook(t, fn)
  if type(fn) ~= 'function' then fail('registerHook', 'expected a function, got %s', describe(fn)) end
  local key = new_key({ fn = fn })
  check(C.tocha_tensor_add_hook(t.p, key))
  local owner = t
  return { remove = function() C.tocha_tensor_remove_hook(owner.p, key) registry[key] = nil end }
end

-- ---- torch.autograd.backward / grad ------------------------------------------------------------
local function tensor_array(list, what, allow_nil, n)
  n = n or #list
  local arr = ffi.new('tocha_tensor *[?]', math.max(n, 1))
  for i = 1, n do
    local v = list[i]
    if v == nil then
      if not allow_nil then fail('grad', '%s %d is nil', what, i) end
    elseif not is_tensor(v) then
      fail('grad', '%s %d is %s, expected a tensor', what, i, describe(v))
    else
      arr[i - 1] = v.p
    end
  end
  return arr, n
end

-- A tensor or a list of them; anything else is refused here rather than by a failed '#' below.
local function as_list(x, op, what)
  if is_tensor(x) then return { x } end
  if x == nil then return {} end
  if type(x) ~= 'table' then
    fail(op, '%s must be a tensor or a table of tensors, got %s%s', what, describe(x), (type(x) == 'number'
      and what == 'outputs') and ' (a full reduction such as x:sum() is a number when nothing it depends on '
      .. 'requires grad)' or '')
  end
  return x
end

-- One gradient per output at most (PyTorch: "got 1 tensors and 2 gradients").
local function check_count(op, grads, n)
  local m = table.maxn(grads)
  if m > n then fail(op, 'got %d gradients for %d outputs', m, n) end
end

--- torch.autograd.backward(outputs[, gradOutputs][, {retainGraph=, createGraph=}]): accumulates
--- the gradients of several outputs into the .grad of the leaves they depend on.
--- Example: local w = torch.ones(2):requiresGrad(); torch.autograd.backward({ w * 2, w * 3 }, { torch.ones(2), torch.ones(2) })
function autograd.backward(outputs, grads, opts)
  if opts == nil and type(grads) == 'table' and not is_tensor(grads) and next(grads) ~= nil and grads[1] == nil
      and table.maxn(grads) == 0 then
    grads, opts = nil, grads
  end
  outputs, grads, opts = as_list(outputs, 'backward', 'outputs'), as_list(grads, 'backward', 'gradients'),
    check_opts('backward', opts)
  local o, n = tensor_array(outputs, 'output', false)
  check_count('backward', grads, n)
  local g = tensor_array(grads, 'gradient', true, n)
  local create = opts.createGraph and 1 or 0
  local rc = call_backward(n, o, g, opts.retainGraph == nil and create or (opts.retainGraph and 1 or 0), create)
  if rc ~= 0 then lib.raise() end
end

--- torch.autograd.grad(outputs, inputs[, gradOutputs][, {createGraph=, retainGraph=, allowUnused=}])
--- returns a table of gradients (a tensor when inputs is a single tensor).
autograd._gradDepth = 0
function autograd.grad(outputs, inputs, grad_outputs, opts)
  -- a table with named entries and no positional ones is the options
  if opts == nil and type(grad_outputs) == 'table' and not is_tensor(grad_outputs) and next(grad_outputs) ~= nil
      and table.maxn(grad_outputs) == 0 then
    grad_outputs, opts = nil, grad_outputs
  end
  local single = is_tensor(inputs)
  outputs, inputs = as_list(outputs, 'grad', 'outputs'), as_list(inputs, 'grad', 'inputs')
  opts = check_opts('grad', opts)
  grad_outputs = as_list(grad_outputs, 'grad', 'gradOutputs')
  -- grad(loss, m:parameters()): parameters() returns the gradients as a second result, which then
  -- arrive here as gradOutputs, one per input instead of one per output
  if type(grad_outputs) == 'table' and not is_tensor(grad_outputs) and #grad_outputs ~= #outputs
      and #grad_outputs == #inputs and #inputs > 0 then
    local like = true
    for k = 1, #inputs do
      local gk, ik = grad_outputs[k], inputs[k]
      if not (is_tensor(gk) and is_tensor(ik) and gk:isSameSizeAs(ik)) then like = false break end
    end
    if like then
      fail('grad', 'got %d gradOutputs for %d outputs, each shaped like an input: model:parameters() returns '
        .. 'the gradients as a second result; write torch.autograd.grad(loss, (model:parameters()))', #grad_outputs,
        #outputs)
    end
  end
  local o, nout = tensor_array(outputs, 'output', false)
  check_count('grad', grad_outputs, nout)
  local g = tensor_array(grad_outputs, 'gradient', true, nout)
  local i, nin = tensor_array(inputs, 'input', false)
  local res = ffi.new('tocha_tensor *[?]', math.max(nin, 1))
  local create = opts.createGraph and 1 or 0
  local retain = (opts.retainGraph == nil and create or (opts.retainGraph and 1 or 0))
  -- Note [Parameter gradients under torch.autograd.grad] (lua/nn/param_history.lua): the coarse
  -- nodes of Torch7 modules ask this depth whether to capture their parameters' gradients
  autograd._gradDepth = autograd._gradDepth + 1
  local rc = with_ran_list(retain, C.tocha_autograd_grad, nout, o, g, nin, i, retain, create, opts.allowUnused and 1 or 0, res)
  autograd._gradDepth = autograd._gradDepth - 1
  if rc ~= 0 then lib.raise() end
  local out = {}
  for k = 1, nin do out[k] = res[k - 1] ~= nil and wrap(res[k - 1]) or nil end
  if single then return out[1] end
  return out
end
jit.off(autograd.grad)

-- ---- anomaly detection ---------------------------------------------------------------------------
--- torch.autograd.detectAnomaly(fn, ...): runs fn so that the first NaN/Inf produced by a backward
--- raises an error naming the forward op and the line of the script that called it.
function autograd.detectAnomaly(fn, ...)
  if type(fn) ~= 'function' then fail('detectAnomaly', 'expected a function, got %s', describe(fn)) end
  local prev = C.tocha_is_anomaly_enabled()
  C.tocha_set_anomaly_enabled(1)
  jit.off()  -- every recorded op calls back into Lua for its location
  local res = { pcall(fn, ...) }
  C.tocha_set_anomaly_enabled(prev)
  if prev == 0 then jit.on() end
  if not res[1] then error(res[2], 0) end
  return unpack(res, 2, table.maxn(res))
end
function autograd.setDetectAnomaly(on)
  C.tocha_set_anomaly_enabled(on and 1 or 0)
  if on then jit.off() else jit.on() end
end

-- User-defined Functions (torch.autograd.Function): lua/torch/autograd_function.lua.
autograd._new_key, autograd._tensor_array = new_key, tensor_array
autograd._registry, autograd._borrow = registry, borrow  -- for lua/torch/autograd_graph.lua
-- Gives back a key the engine never held (the saved-tensor hooks of one savedTensorsHooks call):
-- no release would ever return it, and each call took a new number for good.
function autograd._release_key(key)
  registry[key] = nil
  free_keys[#free_keys + 1] = key
end
require 'torch.autograd_function'
require 'torch.autograd_graph'

-- Lua-level coarse nodes (nn modules with updateGradInput): entry.backward(entry, grads, n)
-- returns the gradients of `inputs`; entry.label names the node. A table per node rather than a
-- closure, so recording does not abort JIT traces.
function autograd._record_lua_node(entry, inputs, outputs)
  local key = new_key(entry)
  check(C.tocha_autograd_record_lua(key, entry.label, #inputs, (tensor_array(inputs, 'input', false)), #outputs,
    (tensor_array(outputs, 'output', false))))
end

return torch
