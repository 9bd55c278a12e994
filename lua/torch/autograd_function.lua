-- torch.autograd.Function: user-defined differentiable functions (forward with recording off,
-- backward in Lua, recorded as one engine node through lua/torch/autograd.lua's keys), and their
-- context (saveForBackward, savedTensors, markNonDifferentiable, markDirty).
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local C, wrap, check, fail = lib.C, lib.wrap, lib.check, lib.fail
local is_tensor, describe = types.is_tensor, types.describe
local autograd = torch.autograd
local new_key, tensor_array = autograd._new_key, autograd._tensor_array
local REQUIRES_GRAD = 2  -- the header flag autograd.lua reads too

-- local Exp = torch.autograd.Function('Exp')
-- function Exp.forward(ctx, x) local y = torch.exp(x) ctx:saveForBackward(y) return y end
-- function Exp.backward(ctx, gy) local y = ctx:savedTensors() return torch.cmul(gy, y) end
-- local y = Exp.apply(x)        -- or Exp(x)
-- forward runs with recording off; backward returns one gradient (or nil) per forward argument.
-- Note [Function gradOutputs]: backward receives one gradient per tensor result of forward, in
-- order, skipping non-tensor results (PyTorch passes None for those, keeping positions;
-- lua/torch/checkpoint.lua relies on the skipping), and nil for a result no gradient reached
-- (PyTorch materializes zeros by default): check for nil when forward has several results, or
-- call ctx:setMaterializeGrads(true) in forward to get zeros of the output's size instead.
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
    local slot = self._saved_slot and self._saved_slot[i]
    if slot and torch.isGradEnabled() then t = wrap(C.tocha_autograd_saved_output(t.p, slot)) end
    out[i] = t
  end
  return unpack(out, 1, self._nsaved or 0)
end
--- ctx:markNonDifferentiable(...): the given outputs of forward (integer indices, masks) get no
--- history and do not require grad; their gradients reach backward as nil.
--- Example: local F = torch.autograd.Function('Sort'); function F.forward(ctx, x) local v, i = torch.sort(x) ctx:markNonDifferentiable(i) return v, i end
function Context:markNonDifferentiable(...)
  for i = 1, select('#', ...) do
    local t = select(i, ...)
    if not is_tensor(t) then fail('markNonDifferentiable', 'argument %d is %s, expected a tensor', i, describe(t)) end
  end
  self._nondiff = { ... }
end

--- ctx:markDirty(...): the given arguments of forward were modified in place by it and are returned
--- by it; they take this function's history (Note [Dirty inputs] in bindings/capi_autograd.cpp).
--- A forward that writes into an argument that requires grad without marking it is refused.
--- Example: local F = torch.autograd.Function('MulTwo_'); function F.forward(ctx, x) x:mul(2) ctx:markDirty(x) return x end; function F.backward(ctx, g) return g * 2 end
function Context:markDirty(...)
  for i = 1, select('#', ...) do
    local t = select(i, ...)
    if not is_tensor(t) then fail('markDirty', 'argument %d is %s, expected a tensor', i, describe(t)) end
  end
  self._dirty = { ... }
end

--- ctx:setMaterializeGrads(on): with true, backward receives zeros (of the output's size and
--- type) for an output no gradient reached, as PyTorch's default, instead of nil (Note [Function
--- gradOutputs]).
--- Example: local F = torch.autograd.Function('Two'); function F.forward(ctx, x) ctx:setMaterializeGrads(true) return x * 2, x * 3 end; function F.backward(ctx, g1, g2) return g1 * 2 + g2 * 3 end
function Context:setMaterializeGrads(on)
  if type(on) ~= 'boolean' then fail('setMaterializeGrads', 'expected a boolean, got %s', describe(on)) end
  self._materialize = on
end

local function is_dirty(ctx, p)
  for _, d in ipairs(ctx._dirty or {}) do
    if d.p == p then return true end
  end
  return false
end

-- A gradient fits an input when the input's size broadcasts to it (the engine then sums it down),
-- as PyTorch's validate_outputs.
local function fits(size, g)
  local nd, gd = #size, g:dim()
  if nd > gd then return false end
  for d = 1, nd do
    local s = size[d]
    if s ~= 1 and s ~= g:size(gd - nd + d) then return false end
  end
  return true
end

local function function_backward(ctx, grads, ngrads)
  if ctx._materialize then
    for i, o in ipairs(ctx._output_meta) do
      if grads[i] == nil then grads[i] = o[1].new():resize(o[2]):zero() end
    end
  end
  local rs = { ctx.fn.backward(ctx, unpack(grads, 1, ngrads)) }
  -- PyTorch: "function XBackward returned an incorrect number of gradients"; extra nils are fine.
  for i = table.maxn(rs), ctx._nargs + 1, -1 do
    if rs[i] ~= nil then
      error(string.format('[%s] backward returned %d gradients, but forward had %d arguments (one gradient or nil '
        .. 'per argument)', ctx.label, table.maxn(rs), ctx._nargs), 0)
    end
  end
  -- Map the gradients of all forward arguments to the tensor inputs the node has.
  local out = {}
  for k, pos in ipairs(ctx._tensor_positions) do
    local r = rs[pos]
    if is_tensor(r) and not fits(ctx._input_sizes[k], r) then
      error(string.format('[%s] backward returned a gradient of size %s for argument %d of size %s', ctx.label,
        r:dim() == 0 and '[]' or table.concat(r:size():totable(), 'x'), pos,
        #ctx._input_sizes[k] == 0 and '[]' or table.concat(ctx._input_sizes[k], 'x')), 0)
    end
    out[k] = r
  end
  return out
end

local function apply_function(F, ...)
  local n = select('#', ...)
  local args = { ... }
  local ctx = setmetatable({ fn = F, label = F.__name, needsInputGrad = {} }, Context)
  local tensor_inputs, positions, versions = {}, {}, {}
  local any = false
  for i = 1, n do
    local a = args[i]
    if is_tensor(a) then
      tensor_inputs[#tensor_inputs + 1] = a
      positions[#positions + 1] = i
      versions[#versions + 1] = C.tocha_tensor_version(a.p)
      local needs = bit.band(a.p.flags, REQUIRES_GRAD) ~= 0
      ctx.needsInputGrad[i] = needs
      any = any or needs
    else
      ctx.needsInputGrad[i] = false
    end
  end
  local outputs = { torch.noGrad(F.forward, ctx, ...) }
  if not any or not torch.isGradEnabled() then return unpack(outputs, 1, table.maxn(outputs)) end
  -- An argument written in place must be marked and returned, or the graph would silently give its
  -- old value's gradient (PyTorch 1.13 does not check; its gradients are then wrong).
  for k, a in ipairs(tensor_inputs) do
    if C.tocha_tensor_version(a.p) ~= versions[k] and bit.band(a.p.flags, REQUIRES_GRAD) ~= 0
        and not is_dirty(ctx, a.p) then
      fail(F.__name, 'forward modified argument %d (%s) in place; mark it with ctx:markDirty and return it',
        positions[k], describe(a))
    end
  end
  for _, d in ipairs(ctx._dirty or {}) do
    local returned = false
    for i = 1, table.maxn(outputs) do
      if is_tensor(outputs[i]) and outputs[i].p == d.p then returned = true end
    end
    if not returned then fail(F.__name, 'a tensor marked dirty (%s) was not returned by forward', describe(d)) end
    check(C.tocha_autograd_check_dirty(d.p, F.__name))
  end
  local outs, raw_outputs = {}, {}
  for i = 1, table.maxn(outputs) do
    local o = outputs[i]
    if is_tensor(o) then
      raw_outputs[i] = o.p
      -- An input returned as is would get this node as its history: return an alias instead,
      -- unless forward wrote into it (ctx:markDirty), when it is to take that history.
      if not is_dirty(ctx, o.p) then
        for _, a in ipairs(tensor_inputs) do
          if a.p == o.p then o = wrap(C.tocha_tensor_alias(o.p)) break end
        end
      end
      outputs[i] = o
      outs[#outs + 1] = o
    end
  end
  ctx._tensor_positions, ctx._nargs = positions, n
  if ctx._materialize then
    ctx._output_meta = {}
    for k, o in ipairs(outs) do ctx._output_meta[k] = { o.new(), o:size() } end  -- type (and device), size
  end
  ctx._input_sizes = {}
  for k, a in ipairs(tensor_inputs) do ctx._input_sizes[k] = a:size():totable() end
  ctx._versions = {}
  -- Saved outputs are kept without history (they reference this node; keeping it would be a
  -- cycle); savedTensors gives them back with it under createGraph (Note [Saved outputs in double
  -- backward], core/autograd/lua_callbacks.h).
  for i = 1, ctx._nsaved or 0 do
    local t = ctx._saved[i]
    if t ~= nil then
      for k, o in ipairs(outs) do
        if o.p == t.p then
          ctx._saved[i] = t:detach()
          ctx._saved_slot = ctx._saved_slot or {}
          ctx._saved_slot[i] = k - 1
          break
        end
      end
      ctx._versions[i] = C.tocha_tensor_version(ctx._saved[i].p)
    end
  end
  ctx.backward = function_backward
  local key = new_key(ctx)
  local ins = tensor_array(tensor_inputs, 'input', false)
  local os = tensor_array(outs, 'output', false)
  check(C.tocha_autograd_record_lua(key, F.__name, #tensor_inputs, ins, #outs, os))
  ctx._dirty = nil  -- the dirty tensors are outputs now; keeping them would keep the node alive
  -- Note [Non-differentiable outputs]: they stay outputs of the node, so the gradients reaching
  -- backward keep their positions, and lose the history recording gave them (PyTorch gives them
  -- none); no gradient can reach their slot, which backward sees as nil.
  if ctx._nondiff then
    for _, t in ipairs(ctx._nondiff) do
      for i = 1, table.maxn(outputs) do
        local o = outputs[i]
        if is_tensor(o) and (o.p == t.p or raw_outputs[i] == t.p) then check(C.tocha_tensor_detach_(o.p)) end
      end
    end
    ctx._nondiff = nil  -- the node keeps ctx: no need to keep these alive with it
  end
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

