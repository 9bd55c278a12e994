-- The machinery shared by nn.utils.prune and nn.utils.parametrize: a module tensor (module.weight)
-- recomputed before each forward from other tensors (weight_orig and weight_mask; the originals of
-- module.parametrizations.weight), with gradients reaching those tensors.
--
-- Note [Reparametrized modules]: PyTorch recomputes the tensor in a forward pre-hook (pruning) or a
-- property of a generated subclass (parametrize). Tocha's Torch7 layers read self.weight in
-- updateOutput and accumulate gradWeight in accGradParameters, so the module keeps its class name
-- and gets a per-class proxy metatable (cached, shared by all reparametrized instances of a
-- class; __typename unchanged) whose methods wrap the class's:
--  * updateOutput first writes each reparametrized tensor: in place under noGrad for Torch7-style
--    classes (they are one coarse autograd node), recorded for classes differentiated through
--    their ops (autograd then reaches the originals);
--  * accGradParameters (Torch7-style classes only) lets the class accumulate its weight gradient
--    into a scratch tensor, then turns it into the originals' gradients (the mask's product, or
--    a vector-Jacobian product through the parametrization by autograd);
--  * parameters() lists the originals (with their gradients) in place of the computed tensor.
-- So forward/backward/updateParameters, getParameters, optim and loss:backward() all train the
-- originals. The instance holds data only (tensors, strings, modules): torch.save writes it as its
-- class; nn.Module.afterLoad is extended here to put the proxy back when a loaded module has
-- reparametrized tensors (_reparams). m:clone() keeps the proxy (deepCopy keeps metatables).
local lib = require 'torch.lib'
local FC = require 'nn.field_children'
local reparam = require 'nn.reparam'
local core = {}
local Module = nn.Module
local fail = lib.fail

core.kinds = {}  -- kind name -> {origs = fn(m, e) -> list of {tensor, grad}, compute = fn(m, e, xs), vjp = fn(m, e, G)}

local function class_of(m)
  local mt = getmetatable(m)
  return rawget(mt, '__reparamClass') or mt
end
core.class_of = class_of

-- Whether m's class computes its own gradients (a coarse autograd node).
function core.torch7_style(m)
  local cls = class_of(m)
  return cls.updateGradInput ~= Module.updateGradInput and cls.accGradParameters ~= Module.accGradParameters
end

local scratch = setmetatable({}, { __mode = 'k' })  -- module -> name -> gradient scratch tensor
local cache                                          -- module -> name -> tensor, inside nn.utils.parametrize.cached

-- The reparametrized tensor of entry e, computed from its originals (recorded when grad mode is on).
function core.compute(m, e)
  if cache then
    local c = cache[m] and cache[m][e.name]
    if c then return c end
  end
  local kind = core.kinds[e.kind]
  local xs = {}
  for i, o in ipairs(kind.origs(m, e)) do xs[i] = o[1] end
  local t = kind.compute(m, e, xs)
  if cache then
    cache[m] = cache[m] or {}
    cache[m][e.name] = t
  end
  return t
end

-- Writes every reparametrized tensor of m into m[name].
function core.refresh(m)
  local t7 = core.torch7_style(m)
  for _, e in ipairs(m._reparams) do
    if t7 then
      local t = torch.noGrad(core.compute, m, e)
      local dst = m[e.name]
      if torch.isTensor(dst) and not dst:needsGrad() and dst:type() == t:type() then
        torch.noGrad(function() dst:resizeAs(t):copy(t) end)
      else
        m[e.name] = torch.noGrad(function() return t:clone() end)
      end
    else
      m[e.name] = core.compute(m, e)
    end
  end
end

local methods = {}
function methods.updateOutput(self, input)
  core.refresh(self)
  return class_of(self).updateOutput(self, input)
end

function methods.accGradParameters(self, input, gradOutput, scale)
  local cls = class_of(self)
  local tmp = scratch[self] or {}
  scratch[self] = tmp
  local saved = {}
  for _, e in ipairs(self._reparams) do
    local gname = Module.gradName(e.name)
    local w = self[e.name]
    local g = tmp[e.name]
    if not g or g:type() ~= w:type() then g = w.new() tmp[e.name] = g end
    torch.noGrad(function() g:resizeAs(w):zero() end)
    saved[gname] = self[gname]
    self[gname] = g
  end
  local ok, err = pcall(cls.accGradParameters, self, input, gradOutput, scale)
  for gname, g in pairs(saved) do self[gname] = g end
  if not ok then error(err, 0) end
  for _, e in ipairs(self._reparams) do core.kinds[e.kind].vjp(self, e, tmp[e.name]) end
end

-- Note [Gradient penalties through reparametrized tensors]: under createGraph=true the coarse
-- node's backward records, and the class's updateGradInput builds the input gradient's graph from
-- the tensor it reads: module.weight, written by refresh with recording off. The input gradient
-- then missed the path from the originals through the weight, so a gradient penalty (||dL/dx||^2
-- differentiated with respect to weight_orig, original0/original1...) was silently wrong, as it
-- was for nn.WeightNorm (Note [Gradient penalties through a reparametrized weight], nn/reparam.lua).
-- While recording, each reparametrized tensor is computed again with recording on (bypassing
-- parametrize.cached, whose tensors have no graph here; with core.replaying set, so spectralNorm
-- takes no power step: Note [Replayed parametrizations]) and put in place for updateGradInput
-- only, when it needs a gradient. Torch7's backward (recording off) and a first-order
-- backward are unchanged.
function methods.updateGradInput(self, input, gradOutput)
  local cls = class_of(self)
  if not torch.isGradEnabled() then return cls.updateGradInput(self, input, gradOutput) end
  local prev = core.replaying
  core.replaying = true
  local saved = {}
  local ok, err = pcall(function()
    for _, e in ipairs(self._reparams) do
      local kind = core.kinds[e.kind]
      local xs = {}
      for i, o in ipairs(kind.origs(self, e)) do xs[i] = o[1] end
      local t = kind.compute(self, e, xs)
      if torch.isTensor(t) and t:needsGrad() then
        saved[#saved + 1] = { e.name, self[e.name] }
        self[e.name] = t
      end
    end
  end)
  core.replaying = prev
  local res
  if ok then ok, res = pcall(cls.updateGradInput, self, input, gradOutput) else res = err end
  for i = #saved, 1, -1 do self[saved[i][1]] = saved[i][2] end
  if not ok then error(res, 0) end
  return res
end

-- The class's parameters with each reparametrized tensor replaced by its originals, then the
-- parameters of the parametrizations themselves (PyTorch lists them too: they are submodules).
function methods.parameters(self)
  local params, grads = class_of(self).parameters(self)
  local p, g = {}, {}
  for i = 1, #(params or {}) do
    local swapped = false
    for _, e in ipairs(self._reparams) do
      if rawequal(params[i], self[e.name]) then
        for _, o in ipairs(core.kinds[e.kind].origs(self, e)) do p[#p + 1], g[#g + 1] = o[1], o[2] end
        swapped = true
      end
    end
    if not swapped then p[#p + 1], g[#g + 1] = params[i], grads and grads[i] end
  end
  for _, e in ipairs(self._reparams) do
    local extra = core.kinds[e.kind].extra
    if extra then extra(self, e, p, g) end
  end
  if #p == 0 then return nil end
  return p, g
end

local proxies = setmetatable({}, { __mode = 'k' })
local function proxy_of(cls)
  local p = proxies[cls]
  if p then return p end
  p = {}
  for k, v in pairs(cls) do
    if type(k) == 'string' and k:sub(1, 2) == '__' then p[k] = v end
  end
  p.__index, p.__parent, p.__reparamClass = p, cls, cls
  setmetatable(p, { __index = cls })
  p.updateOutput, p.parameters = methods.updateOutput, methods.parameters
  -- Torch7's accUpdateGradParameters steps the parameters() (the originals) by this call's gradients
  p.accUpdateGradParameters = reparam.accUpdateGradParameters
  if cls.updateGradInput ~= Module.updateGradInput and cls.accGradParameters ~= Module.accGradParameters then
    p.accGradParameters = methods.accGradParameters
    p.updateGradInput = methods.updateGradInput  -- Note [Gradient penalties through reparametrized tensors]
  end
  proxies[cls] = p
  return p
end

-- Checks that m can hold reparametrized tensor `name`; op names the caller in errors.
function core.check(op, m, name)
  if not torch.isTypeOf(m, 'nn.Module') then fail(op, 'expected a module, got %s', torch.type(m)) end
  if type(name) ~= 'string' then fail(op, 'name must be a string, got %s', type(name)) end
  if not torch.isTensor(m[name]) then fail(op, '%s has no tensor %s', tostring(m), name) end
  if #FC.fields(m) > 0 then
    fail(op, '%s holds modules in fields; reparametrize the tensors of those modules instead', torch.typename(m))
  end
  if core.torch7_style(m) and not torch.isTensor(m[Module.gradName(name)]) then
    fail(op, '%s has no gradient %s for its %s', tostring(m), Module.gradName(name), name)
  end
end

-- The entry of name in m, or nil.
function core.entry(m, name)
  if type(m) ~= 'table' then return nil end
  for i, e in ipairs(rawget(m, '_reparams') or {}) do if e.name == name then return e, i end end
end

-- Adds entry e to m (installing the proxy on the first) and computes the tensor at once.
function core.add(m, e)
  local list = rawget(m, '_reparams')
  if not list then
    list = {}
    m._reparams = list
    setmetatable(m, proxy_of(getmetatable(m)))
  end
  list[#list + 1] = e
  torch.noGrad(core.refresh, m)
  nn.utils.linkGradients(m)
end

-- Removes the entry of name; the last one gives m its class back.
function core.remove(m, name)
  local _, i = core.entry(m, name)
  table.remove(m._reparams, i)
  if #m._reparams == 0 then
    m._reparams = nil
    setmetatable(m, class_of(m))
  end
end

-- Instance copies of the state-dict name lists, edited by the callers.
function core.own_list(m, field, default)
  local list = rawget(m, field)
  if list then return list end
  list = {}
  for i, v in ipairs(m[field] or default or {}) do list[i] = v end
  m[field] = list
  return list
end

local function pack(...) return { n = select('#', ...), ... } end

--- nn.utils.parametrize.cached(fn, ...): runs fn(...) with each parametrized or pruned tensor
--- computed once and reused by every forward inside (PyTorch's parametrize.cached context).
--- Example: nn.utils.parametrize.cached(function() end)
function core.cached(fn, ...)
  if type(fn) ~= 'function' then fail('nn.utils.parametrize.cached', 'expected a function, got %s', type(fn)) end
  local outer = cache
  cache = outer or setmetatable({}, { __mode = 'k' })
  local r = pack(pcall(fn, ...))
  cache = outer
  if not r[1] then error(r[2], 0) end
  return unpack(r, 2, r.n)
end

-- Note [Reparametrized modules]: after torch.load, a module with reparametrized tensors gets its
-- proxy back.
local afterLoad = Module.afterLoad
function Module.afterLoad(self)
  if rawget(self, '_reparams') and not rawget(getmetatable(self), '__reparamClass') then
    setmetatable(self, proxy_of(getmetatable(self)))
  end
  return afterLoad(self)
end

-- The arguments (module [, name = 'weight'] [, options]) of the nn.utils.parametrizations
-- functions, checked: the name, the options table and the tensor module[name].
function core.target_args(op, module, name, o)
  if type(name) == 'table' then name, o = nil, name end
  name, o = name or 'weight', o or {}
  if type(name) ~= 'string' or type(o) ~= 'table' then
    fail(op, 'expected (module [, name] [, options table]), got a name %s and options %s', torch.type(name), torch.type(o))
  end
  local W = torch.isTypeOf(module, 'nn.Module') and module[name]
  if not torch.isTensor(W) then fail(op, 'module has no tensor %s', tostring(name)) end
  return name, o, W
end

return core
