-- nn.MapTable(module[, shared]): applies one module to every element of a table input, through
-- clones that share its parameters (shared: the field names, default weight, bias, gradWeight,
-- gradBias). Clones are made on demand for longer inputs.
require 'nn.Container'
local S = require 'nn.support'
local MapTable, parent = torch.class('nn.MapTable', 'nn.Container')

function MapTable:__init(module, shared)
  parent.__init(self)
  if shared ~= nil and type(shared) ~= 'table' then
    error('[nn.MapTable] shared must be a list of field names, got ' .. S.describe(shared), torch._lib.user_level())
  end
  self.shared = shared or { 'weight', 'bias', 'gradWeight', 'gradBias' }
  self.output = {}
  self.gradInput = {}
  if module then self:add(module) end
end

--- m:add(module): sets the mapped module (a MapTable holds exactly one).
function MapTable:add(module)
  if self.module then error('[nn.MapTable] holds a single module; it already has ' .. tostring(self.module), torch._lib.user_level()) end
  parent.add(self, module)
  self.module = module
  self.modules[1] = module
  return self
end

-- Whether clone's shared tensors still view the module's (getParameters or type() may have moved
-- the module's parameters to new storage).
local function in_sync(self, clone)
  for _, f in ipairs(self.shared) do
    local a, b = clone[f], self.module[f]
    if torch.isTensor(a) and torch.isTensor(b) then
      if a:type() ~= b:type() or torch.pointer(a:storage()) ~= torch.pointer(b:storage())
          or a:storageOffset() ~= b:storageOffset() or not a:isSameSizeAs(b) then
        return false
      end
    end
  end
  return true
end

function MapTable:_extend(n)
  if not self.module then S.fail('nn.MapTable', 'has no module to apply') end
  self.modules[1] = self.module
  for i = 2, n do
    local c = self.modules[i]
    if not c then self.modules[i] = self.module:clone(unpack(self.shared))
    elseif not in_sync(self, c) then c:share(self.module, unpack(self.shared)) end
  end
end

--- m:resize(n): keeps n clones (dropping the others).
function MapTable:resize(n)
  self:_extend(n)
  for i = #self.modules, n + 1, -1 do
    if i > 1 then self.modules[i]:clearState() self.modules[i] = nil end
  end
  return self
end

local function check(x, what)
  if type(x) ~= 'table' or torch.isTensor(x) then
    S.fail('nn.MapTable', 'expected a table of %s, got %s', what, S.describe(x))
  end
end

function MapTable:updateOutput(input)
  check(input, 'inputs')
  self:_extend(#input)
  self.output = {}
  for i = 1, #input do self.output[i] = self:rethrowErrors(self.modules[i], i, 'forward', input[i]) end
  return self.output
end

local function backward(self, method, input, gradOutput, scale)
  check(input, 'inputs')
  check(gradOutput, 'gradOutputs')
  if #gradOutput < #input then
    S.fail('nn.MapTable', 'got %d gradOutputs for %d inputs', #gradOutput, #input)
  end
  self:_extend(#input)
  local wants_gi = method == 'updateGradInput' or method == 'backward'
  if wants_gi then self.gradInput = {} end
  for i = 1, #input do
    local gi = self:rethrowErrors(self.modules[i], i, method, input[i], gradOutput[i], scale)
    if wants_gi then self.gradInput[i] = gi end
  end
  return self.gradInput
end

function MapTable:updateGradInput(input, gradOutput) return backward(self, 'updateGradInput', input, gradOutput) end
function MapTable:backward(input, gradOutput, scale) return backward(self, 'backward', input, gradOutput, scale or 1) end
function MapTable:accGradParameters(input, gradOutput, scale)
  backward(self, 'accGradParameters', input, gradOutput, scale or 1)
end
function MapTable:accUpdateGradParameters(input, gradOutput, lr)
  backward(self, 'accUpdateGradParameters', input, gradOutput, lr)
end

-- Note [MapTable parameters]: the clones share the mapped module's parameters and gradients, so
-- parameters(), zeroGradParameters() and updateParameters() only visit that module: each shared
-- tensor is listed once (optim steps it once, getParameters stays idempotent). Torch7 listed every
-- clone so that getParameters re-pointed them all; here clones are re-shared with the module
-- before each use instead (_extend), which also covers getParameters or type() on a parent. With
-- a `shared` list that leaves some parameter or gradient unshared, every clone is listed (Torch7).
local function same(a, b)
  return torch.isTensor(a) and torch.isTensor(b) and torch.pointer(a:storage()) == torch.pointer(b:storage())
    and a:storageOffset() == b:storageOffset() and a:isSameSizeAs(b)
end

function MapTable:_fullyShared()
  if not self.module then return true end
  self:_extend(#self.modules)
  local mp, mg = self.module:parameters()
  if not mp then return true end
  for i = 2, #self.modules do
    local cp, cg = self.modules[i]:parameters()
    for k = 1, #mp do
      if not same(cp[k], mp[k]) or not same(cg[k], mg[k]) then return false end
    end
  end
  return true
end

function MapTable:parameters()
  if not self.module then return end
  if self:_fullyShared() then return self.module:parameters() end
  return parent.parameters(self)
end
function MapTable:zeroGradParameters()
  if self:_fullyShared() then
    if self.module then self.module:zeroGradParameters() end
  else parent.zeroGradParameters(self) end
end
function MapTable:updateParameters(lr)
  if self:_fullyShared() then
    if self.module then self.module:updateParameters(lr) end
  else parent.updateParameters(self, lr) end
end

function MapTable:clearState()
  for i = #self.modules, 2, -1 do
    self.modules[i]:clearState()
    self.modules[i] = nil
  end
  return parent.clearState(self)
end

function MapTable:__tostring__()
  if not self.module then return torch.type(self) .. ' { }' end
  local tab, line = '  ', '\n'
  return torch.type(self) .. ' {' .. line .. tab .. tostring(self.module):gsub(line, line .. tab .. '      ') .. line .. '}'
end

return MapTable
