-- tnt.utils.table (Torch7 torchnet's utils/table.lua): copying, merging and mapping Lua tables,
-- and stacking a table of same-sized tensors into one tensor (the default batch merge).
local torch = require 'torch'
local argcheck = require 'torchnet.argcheck'

local utable = {}

--- tnt.utils.table.clone(tbl): a deep copy of tbl (nested tables and tensors are copied; functions
--- and class instances' fields too, keeping their metatables).
--- Example: local tnt = require 'torchnet'; local c = tnt.utils.table.clone{x = torch.ones(2)}
function utable.clone(tbl)
  local seen = {}
  local function copy(v)
    if torch.isTensor(v) then return v:clone() end
    if type(v) ~= 'table' then return v end
    if seen[v] then return seen[v] end
    local c = {}
    seen[v] = c
    for k, x in pairs(v) do c[copy(k)] = copy(x) end
    return setmetatable(c, getmetatable(v))
  end
  return copy(tbl)
end

--- tnt.utils.table.copy(tbl): a shallow copy of tbl.
--- Example: local tnt = require 'torchnet'; local c = tnt.utils.table.copy{1, 2, a = 3}
function utable.copy(tbl)
  local cpy = {}
  for k, v in pairs(tbl) do cpy[k] = v end
  return cpy
end

local merge_args = argcheck.parser{ name = 'tnt.utils.table.merge',
  { name = 'dst', type = 'table' }, { name = 'src', type = 'table' } }
--- tnt.utils.table.merge(dst, src): adds src's entries to dst (shallow; src wins on shared keys)
--- and returns dst.
--- Example: local tnt = require 'torchnet'; local t = tnt.utils.table.merge({a = 1, b = 2}, {b = 3})  -- {a=1, b=3}
function utable.merge(...)
  local dst, src = merge_args(...)
  for k, v in pairs(src) do dst[k] = v end
  return dst
end

local foreach_args = argcheck.parser{ name = 'tnt.utils.table.foreach',
  { name = 'tbl', type = 'table' }, { name = 'closure', type = 'function' },
  { name = 'recursive', type = 'boolean', default = false } }
--- tnt.utils.table.foreach(tbl, closure[, recursive]): a new table with closure(v) for each entry
--- v of tbl (into nested tables too when recursive).
--- Example: local tnt = require 'torchnet'; local t = tnt.utils.table.foreach({1, 2}, function(x) return 2 * x end)
function utable.foreach(...)
  local tbl, closure, recursive = foreach_args(...)
  local newtbl = {}
  for k, v in pairs(tbl) do
    if recursive and type(v) == 'table' and not torch.isTensor(v) then
      newtbl[k] = utable.foreach(v, closure, recursive)
    else
      newtbl[k] = closure(v)
    end
  end
  return newtbl
end

--- tnt.utils.table.canmergetensor(tbl): whether tbl is a list of tensors with the same number of
--- elements (what mergetensor can stack).
--- Example: local tnt = require 'torchnet'; local ok = tnt.utils.table.canmergetensor{torch.ones(2), torch.zeros(2)}
function utable.canmergetensor(tbl)
  if type(tbl) ~= 'table' or not torch.isTensor(tbl[1]) then return false end
  local sz = tbl[1]:nElement()
  for i = 2, #tbl do
    if not torch.isTensor(tbl[i]) or tbl[i]:nElement() ~= sz then return false end
  end
  return true
end

local mergetensor_args = argcheck.parser{ name = 'tnt.utils.table.mergetensor',
  { name = 'tbl', type = 'table' } }
--- tnt.utils.table.mergetensor(tbl): stacks the list of tensors tbl along a new first dimension
--- (size #tbl x size of tbl[1]), in tbl[1]'s type. Each tensor must have tbl[1]'s element count.
--- Example: local tnt = require 'torchnet'; local b = tnt.utils.table.mergetensor{torch.ones(3), torch.zeros(3)}  -- 2x3
function utable.mergetensor(...)
  local tbl = mergetensor_args(...)
  if #tbl == 0 or not torch.isTensor(tbl[1]) then
    error('[tnt.utils.table.mergetensor] expected a non-empty list of tensors, got '
      .. (#tbl == 0 and 'an empty table' or 'a list starting with a ' .. torch.type(tbl[1])), 2)
  end
  local sz = tbl[1]:size():totable()
  local n = tbl[1]:nElement()
  for i = 2, #tbl do
    if not torch.isTensor(tbl[i]) or tbl[i]:nElement() ~= n then
      error(string.format('[tnt.utils.table.mergetensor] element %d is a %s with %s elements, expected a '
        .. 'tensor with %d elements like element 1', i, torch.type(tbl[i]),
        torch.isTensor(tbl[i]) and tostring(tbl[i]:nElement()) or 'no', n), 2)
    end
  end
  table.insert(sz, 1, #tbl)
  local res = tbl[1].new():resize(torch.LongStorage(sz))
  for i = 1, #tbl do
    -- copy reads in element order, so a tensor of another shape with the same count fits (Torch7)
    res:select(1, i):copy(tbl[i])
  end
  return res
end

return utable
