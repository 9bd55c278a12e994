-- PyTorch's nn.Module conveniences on Torch7's nn.Module: named iteration (namedParameters,
-- namedBuffers, namedModules, children, namedChildren) with the dotted names of m:stateDict(),
-- eval(), requiresGrad(on) (freezing), zeroGrad(), numParameters() and the device/type moves
-- to(), cpu(), half(), bfloat16(). Hooks live in nn/module_hooks.lua.
--
-- Note [Named iterators]: namedParameters, namedBuffers, namedModules, children and
-- namedChildren return Lua iterators (`for name, p in m:namedParameters() do`), as PyTorch
-- returns generators; the list is taken when the call is made, so changing the module inside the
-- loop does not disturb it. The Torch7 methods keep returning arrays (m:parameters(),
-- m:listModules()). Names and order are those of m:stateDict() (Note [State dict names]): a
-- module's own parameters (weight, bias or its _stateParams), then its children in order
-- (self.modules named '0', '1'..., then its _stateChildren by sorted name, then the modules
-- held in its fields by sorted name, Note [Submodules in fields]). Like
-- m:parameters() and m:stateDict(), a parameter shared through clone('weight') (another tensor
-- viewing the same storage) is listed under each of its names; PyTorch lists a shared
-- Parameter object once.
--
-- Note [Train is a field]: Torch7 keeps the mode in the boolean field m.train (read by Dropout,
-- BatchNormalization and user code), so PyTorch's m:train([mode]) cannot be a method: a method
-- named train would be shadowed by the field on every instance. m:training() (Torch7) switches
-- to training mode; m:eval() is PyTorch's name of m:evaluate().
local lib = require 'torch.lib'
local types = require 'torch.types'
local Module = nn.Module

-- The direct children with their state-dict names (the walk of nn/state_dict.lua, with the
-- modules held in fields: Note [Submodules in fields]).
local named_children = require('nn.field_children').named

-- An iterator over a list of {name, value} pairs (or of values when `plain`).
local function iterate(list, plain)
  local i = 0
  return function()
    i = i + 1
    local e = list[i]
    if e == nil then return nil end
    if plain then return e[2] end
    return e[1], e[2]
  end
end

local function check_prefix(op, prefix)
  if prefix ~= nil and type(prefix) ~= 'string' then
    lib.fail(op, 'prefix must be a string, got %s', types.describe(prefix))
  end
  if prefix == nil or prefix == '' then return '' end
  return prefix .. '.'
end

-- Appends (dotted name, tensor) for the tensors listed in field `field` of m and its children.
local function collect_tensors(m, field, default, prefix, out)
  for _, n in ipairs(m[field] or default) do
    local t = m[n]
    if torch.isTensor(t) then out[#out + 1] = { prefix .. n, t } end
  end
  for _, c in ipairs(named_children(m)) do collect_tensors(c[2], field, default, prefix .. c[1] .. '.', out) end
  return out
end

--- m:namedParameters([prefix]): an iterator over (name, tensor) for every parameter of m and its
--- children, named as in m:stateDict() ('0.weight', '2.1.bias'); names start with prefix.. '.'
--- when a prefix is given. Buffers are not included (m:namedBuffers()).
--- Example: for name, p in nn.Sequential():add(nn.Linear(2, 3)):namedParameters() do print(name, p:size(1)) end
function Module:namedParameters(prefix)
  prefix = check_prefix('nn.Module.namedParameters', prefix)
  return iterate(collect_tensors(self, '_stateParams', { 'weight', 'bias' }, prefix, {}))
end

--- m:namedBuffers([prefix]): an iterator over (name, tensor) for every buffer (running_mean,
--- running_var...: the names a class lists in _stateBuffers) of m and its children, named as in
--- m:stateDict().
--- Example: for name, b in nn.BatchNormalization(3):namedBuffers() do print(name) end
function Module:namedBuffers(prefix)
  prefix = check_prefix('nn.Module.namedBuffers', prefix)
  return iterate(collect_tensors(self, '_stateBuffers', {}, prefix, {}))
end

local function collect_modules(m, name, out)
  out[#out + 1] = { name, m }
  for _, c in ipairs(named_children(m)) do
    collect_modules(c[2], name == '' and c[1] or (name .. '.' .. c[1]), out)
  end
  return out
end

--- m:namedModules([prefix]): an iterator over (name, module) for m (named prefix, '' by default)
--- and every module inside it, depth first, with the dotted names of m:stateDict() ('0', '2.1').
--- Example: for name, mod in nn.Sequential():add(nn.Linear(2, 2)):namedModules() do print(name, mod) end
function Module:namedModules(prefix)
  if prefix ~= nil and type(prefix) ~= 'string' then
    lib.fail('nn.Module.namedModules', 'prefix must be a string, got %s', types.describe(prefix))
  end
  return iterate(collect_modules(self, prefix or '', {}))
end

--- m:namedChildren(): an iterator over (name, module) for m's direct children: its modules
--- ('0', '1'...), the wrapped modules a class lists in _stateChildren, then the modules a
--- PyTorch-style module holds in fields ('fc1', Note [Submodules in fields]).
--- Example: for name, c in nn.Sequential():add(nn.ReLU()):namedChildren() do print(name, c) end
function Module:namedChildren()
  return iterate(named_children(self))
end

--- m:children(): an iterator over m's direct children (the modules of m:namedChildren()).
--- Example: for c in nn.Sequential():add(nn.Tanh()):children() do print(c) end
function Module:children()
  return iterate(named_children(self), true)
end

--- m:eval(): evaluation mode (m:evaluate(), Dropout off, BatchNormalization uses its running
--- statistics); returns m. (Note [Train is a field]: m:training() switches back.)
--- Example: local m = nn.Dropout(0.5):eval() print(m.train)
function Module:eval()
  self:evaluate()
  return self
end

-- Note [Freezing]: m:requiresGrad(false) makes every parameter of m a tensor that needs no
-- gradient and unlinks its .grad (p.grad = nil; it is normally the module's gradWeight, Note
-- [Modules and autograd]). So autograd computes nothing for it, loss:backward() leaves it
-- without .grad, and the optimizer objects (optim.SGD, optim.Adam...), which update only
-- parameters that have a .grad, skip it: the PyTorch behaviour. requiresGrad(true) re-enables
-- and relinks them. Each module of the subtree is marked (m._frozen, saved with the model), so
-- nn.utils.linkGradients, which clone(), type()/float()/cuda(), loading and the optimizer
-- constructors call, leaves its parameters frozen, and neither Torch7's m:backward nor a
-- Torch7-style layer's autograd node accumulates into its gradWeight. Torch7's separate
-- accGradParameters calls through a container, and the functional optimizers over
-- getParameters() (whose flat tensors hold every parameter), do not know about freezing.

--- m:requiresGrad([on=true]): freezes (on=false) or unfreezes every parameter of m and its
--- children (Note [Freezing]); returns m.
--- Example: local m = nn.Linear(2, 2):requiresGrad(false) print(m.weight:needsGrad())
function Module:requiresGrad(on)
  if on ~= nil and type(on) ~= 'boolean' then
    lib.fail('nn.Module.requiresGrad', 'expected a boolean (or nothing for true), got %s', types.describe(on))
  end
  on = on ~= false
  self:apply(function(m) m._frozen = (not on) or nil end)
  local params = self:parameters()
  if not params then return self end
  for _, p in ipairs(params) do
    if on then
      if not p:needsGrad() and nn.utils.isFloating(p) then p:requiresGrad(true) end
    else
      p:requiresGrad(false)
      p.grad = nil
    end
  end
  if on then nn.utils.linkGradients(self) end
  return self
end

--- m:zeroGrad(): zeroes every parameter gradient of m in place (the gradWeight tensors, which
--- are the parameters' .grad, and any other .grad); returns m. Gradients are zeroed, not
--- dropped: p.grad is the module's gradWeight, which Torch7-style backward accumulates into.
--- Example: local m = nn.Linear(2, 2):zeroGrad() print(m.gradWeight:sum())
function Module:zeroGrad(setToNone)
  if setToNone then
    lib.fail('nn.Module.zeroGrad', 'setToNone is not supported: a parameter\'s .grad is its module\'s gradWeight, '
             .. 'which Torch7-style backward accumulates into; the gradients are zeroed instead')
  end
  local params, grads = self:parameters()
  if not params then return self end
  for i, p in ipairs(params) do
    local g = grads and grads[i]
    if torch.isTensor(g) or torch.isSparse(g) then g:zero() end  -- Note [Sparse embedding gradients]
    local pg = p.grad
    if pg ~= nil and pg ~= g then pg:zero() end
  end
  return self
end

--- m:numParameters([trainableOnly]): the number of parameter elements of m and its children
--- (only those that require a gradient when trainableOnly is true).
--- Example: print(nn.Linear(3, 2):numParameters())
function Module:numParameters(trainableOnly)
  local n = 0
  local params = self:parameters()
  if params then
    for _, p in ipairs(params) do
      if not trainableOnly or p:needsGrad() then n = n + p:nElement() end
    end
  end
  return n
end

-- ---- device and type moves ------------------------------------------------------------------

-- The module's current tensor type: its _type, else that of its first parameter.
-- The parameters first: a wrapper built around a converted module (nn.utils.spectralNorm(m:double()))
-- keeps the _type of its construction, and trusting it made m:to('cuda') silently float32.
local function current_type(m)
  local params = m:parameters()
  if params and params[1] then return params[1]:type() end
  if type(m._type) == 'string' and types.dtype_of_name[m._type] then return m._type end
  return torch.getdefaulttensortype()
end

local function is_cuda_name(name) return name:match('^torch%.Cuda') ~= nil end

local function name_of(dtype, cuda)
  return cuda and types.cuda_tensor_name[dtype] or types.tensor_name[dtype]
end

-- Converts m to typename with m:type, keeping frozen parameters frozen (Note [Freezing]), on
-- CUDA device `index` (0-based) when given.
local function convert(op, m, name, index)
  local params = m:parameters() or {}
  local frozen = {}
  for i, p in ipairs(params) do frozen[i] = not p:needsGrad() end
  if is_cuda_name(name) and not torch.cuda.isAvailable() then
    lib.fail(op, 'cannot move the module to CUDA: %s', torch.cuda.unavailableReason())
  end
  if index ~= nil then
    -- m:type keeps tensors already of the type where they are: one on another GPU goes
    -- through the host first
    local p = params[1]
    if p and p:isCuda() and p:getDevice() ~= index then m:type(name_of(p.p.dtype, false)) end
    local prev = torch.cuda.getDevice()
    torch.cuda.setDevice(index)
    local ok, err = pcall(m.type, m, name)
    torch.cuda.setDevice(prev)
    if not ok then error(err, 0) end
  else
    m:type(name)
  end
  local after = m:parameters() or {}
  for i, p in ipairs(after) do
    if frozen[i] then
      p:requiresGrad(false)
      p.grad = nil
    end
  end
  return m
end

-- 'cpu', 'cuda' or 'cuda:N' -> is_cuda, N (nil when not given).
local function parse_device(spec)
  if type(spec) ~= 'string' then return nil end
  if spec == 'cpu' then return false end
  if spec == 'cuda' then return true end
  local n = spec:match('^cuda:(%d+)$')
  if n then return true, tonumber(n) end
  return nil
end

--- m:to(device[, typename]) or m:to(typename): moves m's tensors to a device ('cpu', 'cuda',
--- 'cuda:1') and/or converts them to a tensor type ('torch.DoubleTensor': its element type, on
--- the device given or the current one), like t:to(); returns m. Frozen parameters stay frozen.
--- Example: local m = nn.Linear(2, 2):to('cpu', 'torch.DoubleTensor') print(m.weight:type())
function Module:to(a, b)
  local op = 'nn.Module.to'
  if type(a) == 'string' and a:match('^torch%.') and b == nil then a, b = nil, a end
  if a == nil and b == nil then lib.fail(op, 'expected a device and/or a tensor type, got nothing') end
  local cur = current_type(self)
  local cuda, index = is_cuda_name(cur), nil
  if a ~= nil then
    local c, i = parse_device(a)
    if c == nil then
      lib.fail(op, "expected a device ('cpu', 'cuda', 'cuda:N') or a tensor type name, got %s",
               type(a) == 'string' and string.format('%q', a) or types.describe(a))
    end
    cuda, index = c, i
  end
  local dtype = types.dtype_of_name[cur]
  if b ~= nil then
    dtype = type(b) == 'string' and types.dtype_of_name[b] or nil
    if dtype == nil then
      lib.fail(op, "unknown tensor type %s (expected a name like 'torch.DoubleTensor')",
               type(b) == 'string' and string.format('%q', b) or types.describe(b))
    end
  end
  return convert(op, self, name_of(dtype, cuda), index)
end

--- m:cpu(): moves m's tensors to the CPU, keeping their element type; returns m.
--- Example: local m = nn.Linear(2, 2):cpu() print(m.weight:type())
function Module:cpu()
  return convert('nn.Module.cpu', self, name_of(types.dtype_of_name[current_type(self)], false))
end

--- m:half(): converts m's tensors to float16 on their device (torch.HalfTensor or
--- torch.CudaHalfTensor); returns m.
--- Example: local m = nn.Linear(2, 2):half() print(m.weight:type())
function Module:half()
  return convert('nn.Module.half', self, name_of(lib.dtype.f16, is_cuda_name(current_type(self))))
end

--- m:bfloat16(): converts m's tensors to bfloat16 on their device; returns m.
--- Example: local m = nn.Linear(2, 2):bfloat16() print(m.weight:type())
function Module:bfloat16()
  return convert('nn.Module.bfloat16', self, name_of(lib.dtype.bf16, is_cuda_name(current_type(self))))
end

return Module
