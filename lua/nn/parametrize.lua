-- nn.utils.parametrize: PyTorch's torch.nn.utils.parametrize. registerParametrization(module, name,
-- p) keeps the tensor's original(s) in module.parametrizations[name] (an nn.ParametrizationList:
-- fields original, or original0, original1... when p.rightInverse returns several tensors, and the
-- parametrizations as its children) and makes module[name] = p_k(...p_1(original)), recomputed
-- before each forward (Note [Reparametrized modules], nn/parametrize_core.lua). State-dict keys are
-- PyTorch's: 'parametrizations.weight.original', 'parametrizations.weight.0.<buffer>'.
require 'nn.Container'
local lib = require 'torch.lib'
local core = require 'nn.parametrize_core'
local fail = lib.fail
local Module = nn.Module
nn.utils = nn.utils or {}
local parametrize = {}
nn.utils.parametrize = parametrize
parametrize.cached = core.cached

local PList = torch.class('nn.ParametrizationList', 'nn.Container')
local Holder = torch.class('nn.Parametrizations', 'nn.Module')
Holder._stateParams = {}
local FnParam = torch.class('nn.ParametrizationFunction', 'nn.Module')

--- nn.ParametrizationFunction(fn): a parametrization given as a Lua function y = fn(x), built from
--- differentiable ops (registerParametrization wraps functions in it; torch.save refuses it).
--- Example: local p = nn.ParametrizationFunction(function(x) return x * 2 end)
function FnParam:__init(fn)
  if type(fn) ~= 'function' then fail('nn.ParametrizationFunction', 'expected a function, got %s', torch.type(fn)) end
  Module.__init(self)
  self.fn = fn
end
function FnParam:updateOutput(x)
  self.output = self.fn(x)
  return self.output
end

local function originals(plist)
  if plist.original then return { { plist.original, plist.gradOriginal } } end
  local r = {}
  for i = 0, plist.nOriginals - 1 do r[#r + 1] = { plist['original' .. i], plist['gradOriginal' .. i] } end
  return r
end

-- p_k(...p_1(xs)) with grad mode as it is; a single original goes in as a tensor, several as a table.
local function chain(m, plist, xs)
  local x = #xs == 1 and xs[1] or xs
  for _, p in ipairs(plist.modules) do
    p.train = m.train ~= false
    x = p:forward(x)
  end
  return x
end

core.kinds.param = {
  origs = function(m, e) return originals(m.parametrizations[e.name]) end,
  compute = function(m, e, xs) return chain(m, m.parametrizations[e.name], xs) end,
  -- the originals' gradients from the computed tensor's G: a vector-Jacobian product by autograd.
  -- Note [Replayed parametrizations]: the chain runs again here, after the forward's; with
  -- core.replaying set, a parametrization with state skips its update (spectralNorm's power step),
  -- so the product is the one of the forward's function and the state advances once per forward.
  -- Note [Parameters of parametrizations]: a parametrization's own parameters (a learnable scale)
  -- shape the tensor too, and PyTorch trains them (they are submodules' parameters): they are
  -- differentiated in the same product. Before, only the originals were: Torch7's backward,
  -- loss:backward() and torch.autograd.grad gave them zero, silently.
  vjp = function(m, e, G)
    local plist = m.parametrizations[e.name]
    local list = originals(plist)
    local xs = {}
    for i, o in ipairs(list) do xs[i] = o[1]:detach():requiresGrad() end
    local n = #xs
    -- they are differentiated through detached aliases put in their fields for the replay: this
    -- product runs inside the coarse node's backward, and a nested torch.autograd.grad given a
    -- leaf that the outer graph also reaches gave wrong or missing gradients to the outer call
    local pp, pg = plist:parameters()
    local alias = {}
    for i = 1, #(pp or {}) do
      if pp[i]:needsGrad() and pg and torch.isTensor(pg[i]) and not alias[pp[i]] then
        alias[pp[i]] = pp[i]:detach():requiresGrad()
        xs[#xs + 1] = alias[pp[i]]
        list[#list + 1] = { pp[i], pg[i] }
      end
    end
    local swapped = {}
    if #xs > n then
      plist:apply(function(mod)
        for k, v in pairs(mod) do
          if torch.isTensor(v) and alias[v] then swapped[#swapped + 1] = { mod, k, v } mod[k] = alias[v] end
        end
      end)
    end
    local prev = core.replaying
    core.replaying = true
    local ok, W = pcall(torch.enableGrad, chain, m, plist, { unpack(xs, 1, n) })
    core.replaying = prev
    for i = #swapped, 1, -1 do local sw = swapped[i] sw[1][sw[2]] = sw[3] end
    if not ok then error(W, 0) end
    local gs = torch.enableGrad(torch.autograd.grad, { W }, xs, { G }, { allowUnused = true })
    torch.noGrad(function()
      for i, o in ipairs(list) do if gs[i] then o[2]:add(gs[i]) end end
    end)
  end,
  extra = function(m, e, p, g)
    local pp, pg = m.parametrizations[e.name]:parameters()
    for i = 1, #(pp or {}) do p[#p + 1], g[#g + 1] = pp[i], pg and pg[i] end
  end,
}

local function same(op, what, a, b)
  if not (torch.isTensor(a) and a:isSameSizeAs(b) and a:type() == b:type()) then
    fail(op, 'the parametrization changes the %s: %s of type %s, from %s of type %s (pass {unsafe=true} to allow it)', what,
      torch.isTensor(a) and table.concat(a:size():totable(), 'x') or type(a), torch.type(a),
      table.concat(b:size():totable(), 'x'), b:type())
  end
end

--- nn.utils.parametrize.registerParametrization(module, name, parametrization [, {unsafe=false}]):
--- module[name] becomes parametrization(original), recomputed before each forward; parametrization
--- is an nn.Module (its forward maps the original to the tensor used) or a function. If it has a
--- rightInverse method, the original is initialized to rightInverse(module[name]) (a table of tensors
--- gives several originals, passed to the forward as a table). Registering again on the same name
--- chains the parametrizations. Unless unsafe, the result must keep the tensor's size and type.
--- Returns module.
--- Example: nn.utils.parametrize.registerParametrization(nn.Linear(3, 3), 'weight', function(x) return torch.triu(x) end)
function parametrize.registerParametrization(module, name, parametrization, o)
  local op = 'nn.utils.parametrize.registerParametrization'
  if o ~= nil and type(o) ~= 'table' then fail(op, 'expected an options table {unsafe=}, got %s', torch.type(o)) end
  o = o or {}
  local unsafe = o.unsafe == true
  local p = parametrization
  if type(p) == 'function' then p = nn.ParametrizationFunction(p)
  elseif not torch.isTypeOf(p, 'nn.Module') then fail(op, 'parametrization must be an nn.Module or a function, got %s', torch.type(p)) end
  local e = core.entry(module, name)
  if e and e.kind ~= 'param' then fail(op, '%s of %s is pruned: remove the pruning first', name, torch.typename(module)) end
  if e then
    local plist = module.parametrizations[name]
    if not unsafe then
      local Y = module[name]
      local X = torch.noGrad(function() return p:forward(Y):clone() end)
      same(op, 'size or type', X, Y)
      if p.rightInverse then same(op, 'size or type of its right inverse', torch.noGrad(p.rightInverse, p, X), Y) end
    end
    plist.modules[#plist.modules + 1] = p
    torch.noGrad(core.refresh, module)
    nn.utils.linkGradients(module)
    return module
  end
  core.check(op, module, name)
  local orig = module[name]
  local gname = Module.gradName(name)
  local new = orig
  if p.rightInverse then new = torch.noGrad(p.rightInverse, p, orig) end
  local plist = nn.ParametrizationList()
  plist.modules[1] = p
  -- Note [Checked before the module changes]: the check runs on the new originals before orig
  -- takes their value, against orig's size and type from before registration (PyTorch's
  -- original_shape / original_dtype). Before, orig was set to rightInverse's result first: a
  -- rightInverse that changes the shape (a flat original) was refused while the module was left
  -- holding the flat tensor as its weight, and a forward that failed to restore the shape passed.
  if torch.isTensor(new) then
    if new:type() ~= orig:type() then  -- PyTorch: "it may not change the dtype", unsafe or not
      fail(op, 'rightInverse returned a %s for a %s: a single original may not change the type', new:type(), orig:type())
    end
    local candidate = new
    if not rawequal(new, orig) then candidate = torch.noGrad(function() return new:clone() end) end
    plist.original = candidate
  elseif type(new) == 'table' and #new > 0 then
    plist.nOriginals, plist._stateParams = #new, {}
    for i, t in ipairs(new) do
      if not torch.isTensor(t) then fail(op, 'rightInverse returned a table whose element %d is not a tensor', i) end
      plist['original' .. (i - 1)] = torch.noGrad(function() return t:clone() end)
      plist['gradOriginal' .. (i - 1)] = t.new(t:size()):zero()
      plist._stateParams[i] = 'original' .. (i - 1)
    end
  else
    fail(op, 'rightInverse must return a tensor or a table of tensors, got %s', torch.type(new))
  end
  if not unsafe then
    local xs = {}
    for i, t in ipairs(originals(plist)) do xs[i] = t[1] end
    local Z = torch.noGrad(function() return chain(module, plist, xs):clone() end)
    same(op, 'size or type', Z, orig)
  end
  if torch.isTensor(new) then
    local candidate = plist.original
    torch.noGrad(function()
      if rawequal(candidate, orig) then return end
      if candidate:isSameSizeAs(orig) and candidate:type() == orig:type() then orig:copy(candidate) else orig:set(candidate) end
    end)
    plist.original = orig
    local g = module[gname]
    plist.gradOriginal = torch.isTensor(g) and g:isSameSizeAs(orig) and g or orig.new(orig:size()):zero()
    plist._stateParams = { 'original' }
  end
  local holder = rawget(module, 'parametrizations') or nn.Parametrizations()
  holder._stateChildren = holder._stateChildren or {}
  holder[name], holder._stateChildren[name] = plist, name
  module.parametrizations = holder
  local params = core.own_list(module, '_stateParams', { 'weight', 'bias' })
  for i = #params, 1, -1 do if params[i] == name then table.remove(params, i) end end
  local sc = {}
  for k, v in pairs(module._stateChildren or {}) do sc[k] = v end
  sc.parametrizations = 'parametrizations'
  module._stateChildren = sc
  if plist.gradOriginal and torch.isTensor(module[gname]) then module[gname] = plist.gradOriginal end
  module[name] = orig.new()
  core.add(module, { name = name, kind = 'param' })
  return module
end

--- nn.utils.parametrize.isParametrized(module [, name]): whether module has a parametrized tensor
--- (that one, when name is given).
--- Example: print(nn.utils.parametrize.isParametrized(nn.Linear(2, 2)))
function parametrize.isParametrized(module, name)
  if not torch.isTypeOf(module, 'nn.Module') then fail('nn.utils.parametrize.isParametrized', 'expected a module, got %s', torch.type(module)) end
  local e = rawget(module, '_reparams') or {}
  for _, x in ipairs(e) do
    if x.kind == 'param' and (name == nil or x.name == name) then return true end
  end
  return false
end

--- nn.utils.parametrize.removeParametrizations(module, name [, {leaveParametrized=true} or a boolean]): removes
--- the parametrizations of module[name]: it becomes a plain tensor holding its current parametrized
--- value (in the original's tensor when the sizes agree, as PyTorch), or the original itself with
--- leaveParametrized=false (one original only). Returns module.
--- Example: local m = nn.utils.parametrize.registerParametrization(nn.Linear(2, 2), 'weight', function(x) return x * 2 end); nn.utils.parametrize.removeParametrizations(m, 'weight')
function parametrize.removeParametrizations(module, name, o)
  local op = 'nn.utils.parametrize.removeParametrizations'
  -- Note [leaveParametrized given positionally]: PyTorch's third argument is leave_parametrized; a
  -- boolean there was silently ignored (true assumed), so `false` is taken as it is now.
  if o ~= nil and type(o) ~= 'table' and type(o) ~= 'boolean' then
    fail(op, 'expected an options table {leaveParametrized=} or a boolean, got %s', torch.type(o))
  end
  local leave
  if type(o) == 'boolean' then leave = o else leave = not (o and o.leaveParametrized == false) end
  local e = torch.isTypeOf(module, 'nn.Module') and core.entry(module, name)
  if not e or e.kind ~= 'param' then fail(op, '%s of %s is not parametrized', tostring(name), torch.type(module)) end
  local holder = module.parametrizations
  local plist = holder[name]
  local value, grad
  if leave then
    local xs = {}
    for i, t in ipairs(originals(plist)) do xs[i] = t[1] end
    local t = torch.noGrad(chain, module, plist, xs)
    if plist.original then
      value, grad = plist.original, plist.gradOriginal
      torch.noGrad(function()
        if t:isSameSizeAs(value) and t:type() == value:type() then value:copy(t) else value:set(t:clone()) end
      end)
      if not grad:isSameSizeAs(value) then grad = value.new(value:size()):zero() end
    else
      value = torch.noGrad(function() return t:clone() end)
      grad = value.new(value:size()):zero()
    end
  else
    if not plist.original then fail(op, '%s has several originals: it can only be removed with leaveParametrized=true', name) end
    value, grad = plist.original, plist.gradOriginal
  end
  module[name], module[Module.gradName(name)] = value, grad
  holder[name], holder._stateChildren[name] = nil, nil
  if next(holder._stateChildren) == nil then
    module.parametrizations = nil
    module._stateChildren.parametrizations = nil
    if next(module._stateChildren) == nil then module._stateChildren = nil end
  end
  local params = module._stateParams
  params[#params + 1] = name
  core.remove(module, name)
  nn.utils.linkGradients(module)
  return module
end

return parametrize
