-- nn.ModuleList([modules]): PyTorch's list of modules, to hold as a field of a PyTorch-style
-- module (self.layers = nn.ModuleList({...})): its items are children of that module, so their
-- parameters train, save and load ('layers.0.weight'), switch modes and convert with it. It has
-- no forward of its own (the owner calls list[i]:forward). Note [ModuleList items are the array
-- part]: the items live in the instance's own array part, so #list, list[i] (1-based) and
-- ipairs(list) are plain Lua (LuaJIT tables honour no __len or __ipairs); nn/field_children.lua
-- names them '0', '1'... as PyTorch does (Note [Submodules in fields]).
local lib = require 'torch.lib'
local FC = require 'nn.field_children'
local ModuleList, parent = torch.class('nn.ModuleList', 'nn.Module')
ModuleList._fieldChildren = true
ModuleList._listChildren = true

local function check_module(op, m, what)
  if not FC.isModule(m) then lib.fail(op, '%s must be an nn.Module, got %s', what, nn.utils.describe(m)) end
end

function ModuleList:__init(modules)
  parent.__init(self)
  if modules == nil then return end
  if type(modules) ~= 'table' or FC.isModule(modules) or torch.isTensor(modules) then
    lib.fail('nn.ModuleList', 'expected a list of modules, got %s', nn.utils.describe(modules))
  end
  for i, m in ipairs(modules) do
    check_module('nn.ModuleList', m, 'item ' .. i)
    self[i] = m
  end
end

--- list:append(module) / list:add(module): appends a module; returns list.
--- Example: local l = nn.ModuleList():append(nn.Linear(2, 2)) print(#l)
function ModuleList:append(m)
  check_module('nn.ModuleList.append', m, 'the module')
  self[#self + 1] = m
  return self
end
ModuleList.add = ModuleList.append

--- list:extend(modules): appends every module of a Lua list (or of another nn.ModuleList); returns list.
--- Example: local l = nn.ModuleList():extend({nn.ReLU(), nn.Tanh()}) print(#l)
function ModuleList:extend(modules)
  if type(modules) ~= 'table' or torch.isTensor(modules) then
    lib.fail('nn.ModuleList.extend', 'expected a list of modules, got %s', nn.utils.describe(modules))
  end
  for i, m in ipairs(modules) do check_module('nn.ModuleList.extend', m, 'item ' .. i) end
  for _, m in ipairs(modules) do self[#self + 1] = m end
  return self
end

--- list:insert(index, module): inserts a module at 1-based index (1 to #list + 1), shifting the
--- following ones; returns list.
--- Example: local l = nn.ModuleList({nn.Tanh()}):insert(1, nn.ReLU()) print(l[1])
function ModuleList:insert(index, m)
  local n = #self
  if type(index) ~= 'number' or index ~= math.floor(index) or index < 1 or index > n + 1 then
    lib.fail('nn.ModuleList.insert', 'index must be an integer from 1 to %d, got %s', n + 1, tostring(index))
  end
  check_module('nn.ModuleList.insert', m, 'the module')
  table.insert(self, index, m)
  return self
end

--- list:size(): the number of modules (same as #list).
--- Example: print(nn.ModuleList({nn.ReLU()}):size())
function ModuleList:size() return #self end

--- list:get(i): the i-th module (same as list[i]).
--- Example: print(nn.ModuleList({nn.ReLU()}):get(1))
function ModuleList:get(i) return self[i] end

function ModuleList:updateOutput()
  lib.fail('nn.ModuleList', 'a ModuleList has no forward: call its modules (list[i]:forward(x))')
end
function ModuleList:updateGradInput() ModuleList.updateOutput(self) end
function ModuleList:accGradParameters() ModuleList.updateOutput(self) end

function ModuleList:__tostring__()
  local lines = { 'nn.ModuleList {' }
  for i, m in ipairs(self) do
    lines[#lines + 1] = '  (' .. (i - 1) .. '): ' .. tostring(m):gsub('\n', '\n  ')
  end
  return table.concat(lines, '\n') .. '\n}'
end

return ModuleList
