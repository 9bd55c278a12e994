-- m:registerParameter(name, tensor) and m:registerBuffer(name, tensor): PyTorch's
-- `self.scale = nn.Parameter(t)` and `self.register_buffer('mask', t)` for custom modules, whose
-- own tensors are otherwise state only when named weight/bias (Torch7's rule).
--
-- Note [Registered tensors]: a registered name is recorded on the instance twice over: in
-- m._registeredParams (read by nn.Module:parameters(), which lists these tensors after weight and
-- bias and before the field children, Note [Submodules in fields]) and in the instance's own copy
-- of m._stateParams / m._stateBuffers (read by stateDict, loadStateDict, namedParameters,
-- namedBuffers: Note [State dict names]), so the walks that already exist pick them up; both are
-- plain fields, so clone, torch.save/load and type()/float()/cuda() (which convert every tensor
-- field, integer buffers included, as Torch7 does; PyTorch keeps integer buffers) keep them. A
-- parameter's gradient is the field 'grad' .. Name (Module.gradName), zero-filled; it is the
-- parameter's .grad (nn.utils.linkGradients), so freezing, getParameters, optim.* and Torch7's
-- backward replay (Note [Torch7 calls on autograd modules]) treat it like a weight.
-- Which modules: any module whose class does not define parameters() itself; that includes lua/nn's
-- leaf classes (nn.Linear lists the registered tensor like its weight, though its own
-- accGradParameters computes no gradient for it). A class with its own parameters() (containers,
-- RNNs, attention) would not list the tensor, so registering on it is an error.
-- Names and order follow PyTorch 1.13: parameters in registration order, then buffers, then the
-- children; Tocha differs in listing weight/bias first and the field children by sorted name.
local lib = require 'torch.lib'
local types = require 'torch.types'
local fields = require 'nn.field_children'
local Module = nn.Module

--- nn.Module.gradName(name): the field holding the gradient of parameter `name`: 'grad' ..
--- the name capitalized (weight -> gradWeight, bias -> gradBias, scale -> gradScale; Torch7's
--- rule, and RNNBase's weight_ih_l0 -> gradWeight_ih_l0).
--- Example: print(nn.Module.gradName('scale'))
function Module.gradName(name)
  return 'grad' .. name:sub(1, 1):upper() .. name:sub(2)
end

local reserved = { output = true, gradInput = true, modules = true, train = true }

local function contains(list, name)
  for _, n in ipairs(list or {}) do if n == name then return true end end
  return false
end

-- Appends name to the instance's own copy of list field `field` (never to the class's list).
local function add_name(self, field, default, name)
  local cur = self[field] or default
  if contains(cur, name) then return end
  local list = {}
  for i, n in ipairs(cur) do list[i] = n end
  list[#list + 1] = name
  self[field] = list
end

-- The checks both registrations share; `kind` is 'Params' or 'Buffers'.
local function check(op, self, name, t, kind)
  if type(self) ~= 'table' or not fields.isModule(self) then
    lib.fail(op, 'expected a module (call it as m:%s(name, tensor)), got %s', op:match('[^.]+$'), types.describe(self))
  end
  if type(name) ~= 'string' or name == '' then
    lib.fail(op, 'name must be a non-empty string, got %s', types.describe(name))
  end
  if name:byte(1) == 95 then lib.fail(op, "name must not start with '_' (private fields are not state), got '%s'", name) end
  if reserved[name] then lib.fail(op, "'%s' is a field every module uses; pick another name", name) end
  if self.parameters ~= Module.parameters then
    lib.fail(op, "%s defines parameters() itself, which would not list '%s'; add it there (Note [Registered tensors])",
      torch.typename(self) or 'this module', name)
  end
  if not torch.isTensor(t) then lib.fail(op, "'%s' must be a tensor, got %s", name, types.describe(t)) end
  local other = kind == 'Params' and '_registeredBuffers' or '_registeredParams'
  if contains(self[other], name) then
    lib.fail(op, "'%s' is already registered as a %s", name, kind == 'Params' and 'buffer' or 'parameter')
  end
  local cur = self[name]
  if fields.isModule(cur) then lib.fail(op, "'%s' already holds a child module (%s)", name, types.describe(cur)) end
  if cur ~= nil and cur ~= t and not contains(self['_registered' .. kind], name) then
    lib.fail(op, "'%s' already holds %s (a field or method)", name, types.describe(cur))
  end
end

--- m:registerParameter(name, tensor): makes tensor (floating, a leaf) a learnable parameter of m
--- held in m[name], with a zero gradient in m[nn.Module.gradName(name)]: m:parameters() lists it
--- after weight and bias, stateDict/namedParameters name it `name` (Note [Registered tensors]).
--- Registering the same name again replaces the tensor. Returns m.
--- Example: local m = nn.Module() m:registerParameter('scale', torch.ones(1)) print(#m:parameters())
function Module:registerParameter(name, tensor)
  local op = 'nn.Module.registerParameter'
  check(op, self, name, tensor, 'Params')
  if not nn.utils.isFloating(tensor) then
    lib.fail(op, "'%s' must be a floating tensor to be learnable, got %s", name, types.describe(tensor))
  end
  if tensor:needsGrad() and not tensor:isLeaf() then
    lib.fail(op, "'%s' is the result of an operation recorded by autograd; register a leaf (t:detach())", name)
  end
  local gname = Module.gradName(name)
  local g = self[gname]
  if g ~= nil and not (contains(self._registeredParams, name) or name == 'weight' or name == 'bias') then
    lib.fail(op, "the gradient field '%s' of '%s' already holds %s", gname, name, types.describe(g))
  end
  self[name] = tensor
  self[gname] = tensor.new():resizeAs(tensor):zero()
  -- weight and bias are parameters by Torch7's rule already; listing them again would repeat them
  if name ~= 'weight' and name ~= 'bias' then
    add_name(self, '_registeredParams', {}, name)
  end
  add_name(self, '_stateParams', { 'weight', 'bias' }, name)
  if self._frozen then  -- Note [Freezing]: a frozen module's new parameter is frozen too
    tensor:requiresGrad(false)
    tensor.grad = nil
  else
    nn.utils.linkGradients(self)
  end
  return self
end

--- m:registerBuffer(name, tensor): makes tensor state of m that is not learned (a mask, running
--- statistics): held in m[name], in stateDict/namedBuffers under `name` and converted by
--- type()/float()/cuda(), never in m:parameters() (Note [Registered tensors]). Returns m.
--- Example: local m = nn.Module() m:registerBuffer('mask', torch.ones(3)) print(m:stateDict().mask:size(1))
function Module:registerBuffer(name, tensor)
  check('nn.Module.registerBuffer', self, name, tensor, 'Buffers')
  if name == 'weight' or name == 'bias' then
    lib.fail('nn.Module.registerBuffer', "'%s' is a parameter by Torch7's rule; a buffer needs another name", name)
  end
  self[name] = tensor
  add_name(self, '_registeredBuffers', {}, name)
  add_name(self, '_stateBuffers', {}, name)
  return self
end

return Module
