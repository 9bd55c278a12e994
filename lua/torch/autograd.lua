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
local function drain()
  while true do
    local n = C.tocha_autograd_drain_released(owner, drain_buf, 64)
    for i = 0, n - 1 do
      local key = tonumber(drain_buf[i])
      registry[key] = nil
      free_keys[#free_keys + 1] = key
    end
    if n < 64 then return end
  end
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
  return 0
end)

local hook_cb = ffi.cast('tocha_lua_hook_fn', function(key, grad, failed)
  local result = nil
  local ok, err = pcall(function()
    local entry = registry[tonumber(key)]
    if not entry then return end
    local r = entry.fn(borrow(grad))
    if r ~= nil then
      if not is_tensor(r) then error('[hook] a gradient hook must return a tensor or nil, got ' .. describe(r), 0) end
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
local function call_backward(n, o, g, retain, create)
  if C.tocha_autograd_callbacks_live() == 0 then return (backward_c(n, o, g, retain, create)) end
  return (backward_interpreted(n, o, g, retain, create))
end

local outs1, grads1 = ffi.new('tocha_tensor *[1]'), ffi.new('tocha_tensor *[1]')
--- y:backward([gradOutput] [, {retainGraph=, createGraph=}]): accumulates the gradients of y into
--- the .grad of the leaves it depends on (gradOutput may be omitted for a one-element y).
--- Example: local w = torch.ones(2):requiresGrad(); (w * 3):sum():backward()  -- w.grad is {3, 3}
function methods.backward(t, g, opts)
  if type(g) == 'table' and opts == nil then g, opts = nil, g end
  if g ~= nil and not is_tensor(g) then fail('backward', 'gradient must be a tensor, got %s', describe(g)) end
  local retain, create = 0, 0
  if opts then
    retain = opts.retainGraph and 1 or 0
    create = opts.createGraph and 1 or 0
  end
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

local function as_list(x) if is_tensor(x) then return { x } end return x or {} end

function autograd.backward(outputs, grads, opts)
  outputs, grads, opts = as_list(outputs), as_list(grads), opts or {}
  local o, n = tensor_array(outputs, 'output', false)
  local g = tensor_array(grads, 'gradient', true, n)
  local rc = call_backward(n, o, g, opts.retainGraph and 1 or 0, opts.createGraph and 1 or 0)
  if rc ~= 0 then lib.raise() end
end

--- torch.autograd.grad(outputs, inputs[, gradOutputs][, {createGraph=, retainGraph=, allowUnused=}])
--- returns a table of gradients (a tensor when inputs is a single tensor).
autograd._gradDepth = 0
function autograd.grad(outputs, inputs, grad_outputs, opts)
  if type(grad_outputs) == 'table' and not is_tensor(grad_outputs) and (grad_outputs.createGraph ~= nil
      or grad_outputs.retainGraph ~= nil or grad_outputs.allowUnused ~= nil) then
    grad_outputs, opts = nil, grad_outputs
  end
  local single = is_tensor(inputs)
  outputs, inputs, opts = as_list(outputs), as_list(inputs), opts or {}
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
  local g = tensor_array(as_list(grad_outputs), 'gradient', true, nout)
  local i, nin = tensor_array(inputs, 'input', false)
  local res = ffi.new('tocha_tensor *[?]', math.max(nin, 1))
  local create = opts.createGraph and 1 or 0
  local retain = (opts.retainGraph == nil and create or (opts.retainGraph and 1 or 0))
  -- Note [Parameter gradients under torch.autograd.grad] (lua/nn/param_history.lua): the coarse
  -- nodes of Torch7 modules ask this depth whether to capture their parameters' gradients
  autograd._gradDepth = autograd._gradDepth + 1
  local rc = C.tocha_autograd_grad(nout, o, g, nin, i, retain, create, opts.allowUnused and 1 or 0, res)
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

-- ---- user-defined Functions -----------------------------------------------------------------------
-- local Exp = torch.autograd.Function('Exp')
-- function Exp.forward(ctx, x) local y = torch.exp(x) ctx:saveForBackward(y) return y end
-- function Exp.backward(ctx, gy) local y = ctx:savedTensors() return torch.cmul(gy, y) end
-- local y = Exp.apply(x)        -- or Exp(x)
-- forward runs with recording off; backward returns one gradient (or nil) per forward argument.
local Context = {}
Context.__index = Context
function Context:saveForBackward(...)
  local n = select('#', ...)
  self._saved, self._nsaved = {}, n
  for i = 1, n do
    local t = select(i, ...)
    if t ~= nil and not is_tensor(t) then fail('saveForBackward', 'argument %d is %s, expected a tensor', i, describe(t)) end
    self._saved[i] = t
  end
end
--- The tensors given to saveForBackward, checked against in-place modification.
function Context:savedTensors()
  if self._released then
    fail('backward', 'the saved tensors of %s were freed by an earlier backward; pass retainGraph=true', self.label)
  end
  local out = {}
  for i = 1, self._nsaved or 0 do
    local t = self._saved[i]
    if t ~= nil and C.tocha_tensor_version(t.p) ~= self._versions[i] then
      fail('backward', 'a tensor saved by %s was modified by an in-place operation after it was saved', self.label)
    end
    out[i] = t
  end
  return unpack(out, 1, self._nsaved or 0)
end
function Context:markNonDifferentiable(...) self._nondiff = { ... } end

local function function_backward(ctx, grads, ngrads)
  local rs = { ctx.fn.backward(ctx, unpack(grads, 1, ngrads)) }
  -- Map the gradients of all forward arguments to the tensor inputs the node has.
  local out = {}
  for k, pos in ipairs(ctx._tensor_positions) do out[k] = rs[pos] end
  return out
end

local function apply_function(F, ...)
  local n = select('#', ...)
  local args = { ... }
  local ctx = setmetatable({ fn = F, label = F.__name, needsInputGrad = {} }, Context)
  local tensor_inputs, positions = {}, {}
  local any = false
  for i = 1, n do
    local a = args[i]
    if is_tensor(a) then
      tensor_inputs[#tensor_inputs + 1] = a
      positions[#positions + 1] = i
      local needs = bit.band(a.p.flags, REQUIRES_GRAD) ~= 0
      ctx.needsInputGrad[i] = needs
      any = any or needs
    else
      ctx.needsInputGrad[i] = false
    end
  end
  local outputs = { torch.noGrad(F.forward, ctx, ...) }
  if not any or not torch.isGradEnabled() then return unpack(outputs, 1, table.maxn(outputs)) end
  local outs = {}
  for i = 1, table.maxn(outputs) do
    local o = outputs[i]
    if is_tensor(o) then
      -- An input returned as is would get this node as its history: return an alias instead.
      for _, a in ipairs(tensor_inputs) do
        if a.p == o.p then o = wrap(C.tocha_tensor_alias(o.p)) break end
      end
      outputs[i] = o
      outs[#outs + 1] = o
    end
  end
  ctx._tensor_positions = positions
  ctx._versions = {}
  -- Saved outputs are kept without history (they reference this node; keeping it would be a cycle).
  for i = 1, ctx._nsaved or 0 do
    local t = ctx._saved[i]
    if t ~= nil then
      for _, o in ipairs(outs) do
        if o.p == t.p then ctx._saved[i] = t:detach() break end
      end
      ctx._versions[i] = C.tocha_tensor_version(ctx._saved[i].p)
    end
  end
  ctx.backward = function_backward
  local key = new_key(ctx)
  local ins = tensor_array(tensor_inputs, 'input', false)
  local os = tensor_array(outs, 'output', false)
  check(C.tocha_autograd_record_lua(key, F.__name, #tensor_inputs, ins, #outs, os))
  return unpack(outputs, 1, table.maxn(outputs))
end

--- torch.autograd.Function(name): a new Function class; define forward(ctx, ...) and
--- backward(ctx, gradOutputs...), then call F.apply(...) or F(...).
function autograd.Function(name)
  local F = { __name = name or 'LuaFunction' }
  F.apply = function(...) return apply_function(F, ...) end
  return setmetatable(F, { __call = function(_, ...) return apply_function(F, ...) end,
                           __tostring = function() return 'torch.autograd.Function(' .. F.__name .. ')' end })
end

-- Lua-level coarse nodes (nn modules with updateGradInput): entry.backward(entry, grads, n)
-- returns the gradients of `inputs`; entry.label names the node. A table per node rather than a
-- closure, so recording does not abort JIT traces.
function autograd._record_lua_node(entry, inputs, outputs)
  local key = new_key(entry)
  check(C.tocha_autograd_record_lua(key, entry.label, #inputs, (tensor_array(inputs, 'input', false)), #outputs,
    (tensor_array(outputs, 'output', false))))
end

return torch
