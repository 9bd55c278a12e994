-- nn.ParameterDict([parameters]): PyTorch's dictionary of parameters, to hold as a field of a
-- PyTorch-style module or on its own: each tensor is a parameter of the dict (m:parameters(),
-- getParameters, optimizers), named by its key in the state dict ('key', 'owner.key') and converted
-- by :double()/:float()/:cuda(). No forward of its own.
--
-- Note [ParameterDict keys]: a key is registered with m:registerParameter (Note [Registered
-- tensors], nn/module_register.lua), so d[key] is the tensor (d:get(key) too) and its gradient the
-- field nn.Module.gradName(key). Keys are kept in insertion order, as PyTorch's dict (m._stateParams
-- holds that order); a Lua table given to the constructor or to update() has no order, so its keys
-- are added sorted (give a list of {key, tensor} pairs to choose the order). A key must be a
-- non-empty string without '.' (PyTorch's rule: a dot would split the state-dict name) that does
-- not start with '_' and is no method or field of the dict (get, keys, output...).
local lib = require 'torch.lib'
local Module = nn.Module
local ParameterDict, parent = torch.class('nn.ParameterDict', 'nn.Module')

local function check_key(op, self, key)
  if type(key) ~= 'string' or key == '' then lib.fail(op, 'a key must be a non-empty string, got %s', nn.utils.describe(key)) end
  if key:find('.', 1, true) then lib.fail(op, "a key must not contain '.', got '%s'", key) end
  if key:byte(1) == 95 then lib.fail(op, "a key must not start with '_', got '%s'", key) end
  if ParameterDict[key] ~= nil or Module[key] ~= nil or key == 'output' or key == 'gradInput' or key == 'train'
      or key == 'modules' then
    lib.fail(op, "'%s' is a method or field of nn.ParameterDict and cannot be a key", key)
  end
end

-- (m._keys: the keys in insertion order; weight and bias, parameters by Torch7's rule, are in no
-- m._registeredParams)
local function is_key(self, key)
  for _, n in ipairs(self._keys) do if n == key then return true end end
  return false
end

-- The (key, tensor) pairs of a Lua table (sorted keys) or a list of {key, tensor} pairs or a dict.
local function pairs_of(op, tbl)
  if type(tbl) ~= 'table' or torch.isTensor(tbl) then
    lib.fail(op, 'expected a table of key = tensor, a list of {key, tensor} pairs or an nn.ParameterDict, got %s',
      nn.utils.describe(tbl))
  end
  local out = {}
  if torch.isTypeOf(tbl, 'nn.ParameterDict') then
    for _, k in ipairs(tbl:keys()) do out[#out + 1] = { k, tbl[k] } end
    return out
  end
  if #tbl > 0 then
    for i, p in ipairs(tbl) do
      if type(p) ~= 'table' or torch.isTensor(p) or p[1] == nil or p[2] == nil then
        lib.fail(op, 'item %d must be a {key, tensor} pair, got %s', i, nn.utils.describe(p))
      end
      out[#out + 1] = { p[1], p[2] }
    end
    return out
  end
  local keys = {}
  for k in pairs(tbl) do
    if type(k) ~= 'string' then lib.fail(op, 'a key must be a non-empty string, got %s', nn.utils.describe(k)) end
    keys[#keys + 1] = k
  end
  table.sort(keys)
  for _, k in ipairs(keys) do out[#out + 1] = { k, tbl[k] } end
  return out
end

function ParameterDict:__init(parameters)
  parent.__init(self)
  self._keys = {}
  if parameters ~= nil then self:update(parameters) end
end

--- d:set(key, tensor): adds or replaces the parameter `key` (PyTorch's d[key] = p); returns d.
--- Example: local d = nn.ParameterDict():set('scale', torch.ones(3)) print(d.scale:size(1))
function ParameterDict:set(key, t)
  check_key('nn.ParameterDict.set', self, key)
  if not torch.isTensor(t) or not nn.utils.isFloating(t) then
    lib.fail('nn.ParameterDict.set', "'%s' must be a floating tensor, got %s", key, nn.utils.describe(t))
  end
  if not is_key(self, key) then self._keys[#self._keys + 1] = key end
  self:registerParameter(key, t)
  return self
end

--- d:update(parameters): sets every (key, tensor) of a table (sorted keys), a list of {key, tensor}
--- pairs or another nn.ParameterDict (Note [ParameterDict keys]); returns d.
--- Example: local d = nn.ParameterDict():update({a = torch.zeros(2), b = torch.ones(1)}) print(#d:keys())
function ParameterDict:update(parameters)
  local items = pairs_of('nn.ParameterDict.update', parameters)
  for _, p in ipairs(items) do
    check_key('nn.ParameterDict.update', self, p[1])
    if not torch.isTensor(p[2]) or not nn.utils.isFloating(p[2]) then
      lib.fail('nn.ParameterDict.update', "'%s' must be a floating tensor, got %s", tostring(p[1]), nn.utils.describe(p[2]))
    end
  end
  for _, p in ipairs(items) do self:set(p[1], p[2]) end
  return self
end

--- d:get(key [, default]): the parameter `key`, or default (nil) when there is none.
--- Example: print(nn.ParameterDict({a = torch.ones(2)}):get('a'))
function ParameterDict:get(key, default)
  if is_key(self, key) then return self[key] end
  return default
end

--- d:contains(key): whether the dict holds `key` (PyTorch's `key in d`).
--- Example: print(nn.ParameterDict({a = torch.ones(2)}):contains('a'))
function ParameterDict:contains(key) return is_key(self, key) end

--- d:keys(): the keys, in insertion order (a Lua list).
--- Example: print(nn.ParameterDict({a = torch.ones(2)}):keys()[1])
function ParameterDict:keys()
  local out = {}
  for i, k in ipairs(self._keys) do out[i] = k end
  return out
end

--- d:values(): the tensors, in insertion order (a Lua list).
--- Example: print(#nn.ParameterDict({a = torch.ones(2)}):values())
function ParameterDict:values()
  local out = {}
  for i, k in ipairs(self._keys) do out[i] = self[k] end
  return out
end

--- d:items(): an iterator over (key, tensor) in insertion order (`for k, p in d:items() do`).
--- Example: for k, p in nn.ParameterDict({a = torch.ones(2)}):items() do print(k, p:size(1)) end
function ParameterDict:items()
  local keys, i = self:keys(), 0
  return function()
    i = i + 1
    local k = keys[i]
    if k ~= nil then return k, self[k] end
  end
end

--- d:size(): the number of parameters.
--- Example: print(nn.ParameterDict({a = torch.ones(2)}):size())
function ParameterDict:size() return #self._keys end

local function remove(list, key)
  if not list then return nil end
  local out = {}
  for _, n in ipairs(list) do if n ~= key then out[#out + 1] = n end end
  return out
end

--- d:pop(key): removes the parameter `key` and returns it (an error names a missing key).
--- Example: local d = nn.ParameterDict({a = torch.ones(2)}) d:pop('a') print(d:size())
function ParameterDict:pop(key)
  if not is_key(self, key) then lib.fail('nn.ParameterDict.pop', 'no parameter %s', tostring(key)) end
  local t = self[key]
  self[key], self[Module.gradName(key)] = nil, nil
  self._keys = remove(self._keys, key)
  self._registeredParams = remove(self._registeredParams, key)
  self._stateParams = remove(self._stateParams, key)
  return t
end

--- d:clear(): removes every parameter; returns d.
--- Example: print(nn.ParameterDict({a = torch.ones(2)}):clear():size())
function ParameterDict:clear()
  for _, k in ipairs(self:keys()) do self:pop(k) end
  return self
end

function ParameterDict:updateOutput()
  lib.fail('nn.ParameterDict', 'a ParameterDict has no forward: use its tensors (d[key])')
end
function ParameterDict:updateGradInput() ParameterDict.updateOutput(self) end
function ParameterDict:accGradParameters() end

function ParameterDict:__tostring__()
  local lines = { 'nn.ParameterDict {' }
  for k, t in self:items() do
    lines[#lines + 1] = string.format('  (%s): Parameter containing: [%s of size %s]', k, torch.type(t),
      t:dim() == 0 and '[]' or table.concat(t:size():totable(), 'x'))
  end
  lines[#lines + 1] = '}'
  return table.concat(lines, '\n')
end

return ParameterDict
