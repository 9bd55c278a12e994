-- nn.ParameterList([tensors]): PyTorch's list of parameters, to hold as a field of a PyTorch-style
-- module (self.scales = nn.ParameterList({...})) or on its own: its tensors are parameters of the
-- list (m:parameters(), getParameters, optimizers built from the module's parameters), its state
-- dict names them '0', '1'... ('scales.0' in the owner's), and :double()/:float()/:cuda() convert
-- them. No forward of its own.
--
-- Note [ParameterList storage]: each tensor is registered under its PyTorch name '0', '1'...
-- (m:registerParameter, Note [Registered tensors], nn/module_register.lua), so the walks of
-- parameters, stateDict, namedParameters, type conversion and freezing reach it with no code here;
-- its gradient is the field 'grad0', 'grad1'.... The same tensors are in the instance's array part
-- (list[i], 1-based, #list and ipairs(list) are plain Lua, as nn.ModuleList's items): the array is
-- refreshed from the registered names after every conversion or load.
local lib = require 'torch.lib'
local ParameterList, parent = torch.class('nn.ParameterList', 'nn.Module')

local function check_tensor(op, t, what)
  if not torch.isTensor(t) or not nn.utils.isFloating(t) then
    lib.fail(op, '%s must be a floating tensor, got %s', what, nn.utils.describe(t))
  end
end

-- list[i] = the tensor registered as tostring(i - 1), for every i (Note [ParameterList storage]).
local function sync(self)
  local i = 1
  while self[tostring(i - 1)] ~= nil do
    self[i] = self[tostring(i - 1)]
    i = i + 1
  end
  while self[i] ~= nil do self[i] = nil i = i + 1 end
  return self
end

function ParameterList:__init(tensors)
  parent.__init(self)
  if tensors == nil then return end
  if type(tensors) ~= 'table' or torch.isTensor(tensors) then
    lib.fail('nn.ParameterList', 'expected a list of tensors, got %s', nn.utils.describe(tensors))
  end
  for i, t in ipairs(tensors) do check_tensor('nn.ParameterList', t, 'item ' .. i) end
  for _, t in ipairs(tensors) do self:append(t) end
end

--- list:append(tensor): appends a parameter (registered as '0', '1'...); returns list.
--- Example: local l = nn.ParameterList():append(torch.randn(2, 3)) print(#l:parameters())
function ParameterList:append(t)
  check_tensor('nn.ParameterList.append', t, 'the parameter')
  local n = #self
  self:registerParameter(tostring(n), t)
  self[n + 1] = t
  return self
end
ParameterList.add = ParameterList.append

--- list:extend(tensors): appends every tensor of a Lua list (or of another nn.ParameterList); returns list.
--- Example: local l = nn.ParameterList():extend({torch.randn(2), torch.randn(3)}) print(#l)
function ParameterList:extend(tensors)
  if type(tensors) ~= 'table' or torch.isTensor(tensors) then
    lib.fail('nn.ParameterList.extend', 'expected a list of tensors, got %s', nn.utils.describe(tensors))
  end
  for i, t in ipairs(tensors) do check_tensor('nn.ParameterList.extend', t, 'item ' .. i) end
  local items = {}
  for i, t in ipairs(tensors) do items[i] = t end  -- (extending a list by itself)
  for _, t in ipairs(items) do self:append(t) end
  return self
end

--- list:set(i, tensor): replaces the i-th (1-based) parameter (PyTorch's list[i - 1] = p); returns list.
--- Example: local l = nn.ParameterList({torch.zeros(2)}):set(1, torch.ones(2)) print(l[1][1])
function ParameterList:set(i, t)
  local n = #self
  if type(i) ~= 'number' or i ~= math.floor(i) or i < 1 or i > n then
    lib.fail('nn.ParameterList.set', 'index must be an integer from 1 to %d, got %s', n, tostring(i))
  end
  check_tensor('nn.ParameterList.set', t, 'the parameter')
  self:registerParameter(tostring(i - 1), t)
  self[i] = t
  return self
end

--- list:size(): the number of parameters (same as #list).
--- Example: print(nn.ParameterList({torch.randn(2)}):size())
function ParameterList:size() return #self end

--- list:get(i): the i-th parameter, 1-based (same as list[i]); a negative i counts from the end.
--- Example: print(nn.ParameterList({torch.randn(2)}):get(1))
function ParameterList:get(i)
  local n = #self
  if type(i) == 'number' and i < 0 then i = n + i + 1 end
  if type(i) ~= 'number' or i ~= math.floor(i) or i < 1 or i > n then
    lib.fail('nn.ParameterList.get', 'index must be an integer from 1 to %d (or -%d to -1), got %s', n, n, tostring(i))
  end
  return self[i]
end

function ParameterList:type(name, cache)
  if not name then return parent.type(self) end
  parent.type(self, name, cache)
  return sync(self)
end

function ParameterList:loadStateDict(...)
  local r = parent.loadStateDict(self, ...)
  sync(self)
  return r
end

function ParameterList:updateOutput()
  lib.fail('nn.ParameterList', 'a ParameterList has no forward: use its tensors (list[i])')
end
function ParameterList:updateGradInput() ParameterList.updateOutput(self) end
function ParameterList:accGradParameters() end

function ParameterList:__tostring__()
  local lines = { 'nn.ParameterList {' }
  for i, t in ipairs(self) do
    lines[#lines + 1] = string.format('  (%d): Parameter containing: [%s of size %s]', i - 1, torch.type(t),
      t:dim() == 0 and '[]' or table.concat(t:size():totable(), 'x'))
  end
  lines[#lines + 1] = '}'
  return table.concat(lines, '\n')
end

return ParameterList
