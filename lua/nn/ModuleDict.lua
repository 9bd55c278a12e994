-- nn.ModuleDict([{name = module}]): PyTorch's dictionary of modules, to hold as a field of a
-- PyTorch-style module (self.heads = nn.ModuleDict({cls = ..., box = ...})): its modules are
-- children named by their keys ('heads.box.weight'), iterated in sorted key order (Note
-- [Submodules in fields]). It has no forward of its own (the owner calls dict.name:forward).
-- The modules are plain fields of the dict (dict.box, dict['box']), so names that would hide a
-- field or method (train, output, add...) or that start with '_' or hold a '.' are refused, as
-- PyTorch refuses a key naming an existing attribute.
local lib = require 'torch.lib'
local FC = require 'nn.field_children'
local ModuleDict, parent = torch.class('nn.ModuleDict', 'nn.Module')
ModuleDict._fieldChildren = true

local taken = { weight = true, bias = true, gradWeight = true, gradBias = true, output = true, gradInput = true,
                modules = true, train = true }

local function sorted_items(self)
  local list = {}
  for k, v in pairs(self) do
    if type(k) == 'string' and k:byte(1) ~= 95 and not taken[k] and FC.isModule(v) then list[#list + 1] = { k, v } end
  end
  table.sort(list, function(a, b) return a[1] < b[1] end)
  return list
end

function ModuleDict:__init(modules)
  parent.__init(self)
  if modules == nil then return end
  if type(modules) ~= 'table' or FC.isModule(modules) or torch.isTensor(modules) then
    lib.fail('nn.ModuleDict', 'expected a table {name = module}, got %s', nn.utils.describe(modules))
  end
  local keys = {}
  for k in pairs(modules) do keys[#keys + 1] = k end
  table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
  for _, k in ipairs(keys) do self:add(k, modules[k]) end
end

--- dict:add(name, module): adds (or replaces) the module under name; returns dict.
--- Example: local d = nn.ModuleDict():add('fc', nn.Linear(2, 2)) print(d.fc)
function ModuleDict:add(name, m)
  local op = 'nn.ModuleDict.add'
  if type(name) ~= 'string' or name == '' then lib.fail(op, 'a name must be a non-empty string, got %s', tostring(name)) end
  if name:byte(1) == 95 or name:find('.', 1, true) then
    lib.fail(op, "name %q may not start with '_' or contain '.'", name)
  end
  if taken[name] or (self[name] ~= nil and not FC.isModule(rawget(self, name))) then
    lib.fail(op, 'name %q is already a field or method of nn.ModuleDict', name)
  end
  if not FC.isModule(m) then lib.fail(op, 'the module for %q must be an nn.Module, got %s', name, nn.utils.describe(m)) end
  self[name] = m
  return self
end

--- dict:remove(name): removes the module under name and returns it (nil when absent).
--- Example: local d = nn.ModuleDict({fc = nn.Linear(2, 2)}) d:remove('fc') print(d:size())
function ModuleDict:remove(name)
  local m = rawget(self, name)
  if not FC.isModule(m) or taken[name] then return nil end
  self[name] = nil
  return m
end

--- dict:items(): an iterator over (name, module) in sorted name order.
--- Example: for name, m in nn.ModuleDict({a = nn.ReLU()}):items() do print(name, m) end
function ModuleDict:items()
  local list, i = sorted_items(self), 0
  return function()
    i = i + 1
    if list[i] then return list[i][1], list[i][2] end
  end
end

--- dict:keys(): an iterator over the names in sorted order.
--- Example: for name in nn.ModuleDict({a = nn.ReLU()}):keys() do print(name) end
function ModuleDict:keys()
  local it = self:items()
  return function() return (it()) end
end

--- dict:values(): an iterator over the modules in sorted name order.
--- Example: for m in nn.ModuleDict({a = nn.ReLU()}):values() do print(m) end
function ModuleDict:values()
  local it = self:items()
  return function() local _, m = it() return m end
end

--- dict:size(): the number of modules.
--- Example: print(nn.ModuleDict({a = nn.ReLU(), b = nn.Tanh()}):size())
function ModuleDict:size() return #sorted_items(self) end

function ModuleDict:updateOutput()
  lib.fail('nn.ModuleDict', 'a ModuleDict has no forward: call its modules (dict.name:forward(x))')
end
function ModuleDict:updateGradInput() ModuleDict.updateOutput(self) end
function ModuleDict:accGradParameters() ModuleDict.updateOutput(self) end

function ModuleDict:__tostring__()
  local lines = { 'nn.ModuleDict {' }
  for _, e in ipairs(sorted_items(self)) do
    lines[#lines + 1] = '  (' .. e[1] .. '): ' .. tostring(e[2]):gsub('\n', '\n  ')
  end
  return table.concat(lines, '\n') .. '\n}'
end

return ModuleDict
