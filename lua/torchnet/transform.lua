-- tnt.transform (Torch7 torchnet's transform.lua): closures that transform samples or their
-- structure: compose, merge, table maps, and makebatch, the default way BatchDataset turns a list
-- of samples into one batch sample.
local torch = require 'torch'
local tnt = require 'torchnet.env'
local argcheck = require 'torchnet.argcheck'
local utils = require 'torchnet.utils'

local transform = {}
tnt.transform = transform

--- tnt.transform.identity(...): a function returning the values given here.
--- Example: local tnt = require 'torchnet'; local f = tnt.transform.identity(1, 2); local a, b = f()
function transform.identity(...)
  local args = { n = select('#', ...), ... }
  return function() return unpack(args, 1, args.n) end
end

local function functions_of(fname, transforms, ordered_only)
  local iter = ordered_only and ipairs or pairs
  for k, v in iter(transforms) do
    if type(v) ~= 'function' then
      error(string.format('[%s] expected a table of functions, entry %s is a %s', fname, tostring(k), torch.type(v)), 3)
    end
  end
  return utils.table.copy(transforms)
end

local compose_args = argcheck.parser{ name = 'tnt.transform.compose', { name = 'transforms', type = 'table' } }
--- tnt.transform.compose(transforms): the function applying transforms[1], transforms[2]... in
--- turn (keys other than 1..n are ignored, as in torchnet).
--- Example: local tnt = require 'torchnet'
---   local f = tnt.transform.compose{function(x) return 2 * x end, function(x) return x + 10 end}  -- f(3) == 16
function transform.compose(...)
  local transforms = functions_of('tnt.transform.compose', compose_args(...), true)
  return function(z)
    for _, trans in ipairs(transforms) do z = trans(z) end
    return z
  end
end

local merge_args = argcheck.parser{ name = 'tnt.transform.merge', { name = 'transforms', type = 'table' } }
--- tnt.transform.merge(transforms): the function mapping z to {k = transforms[k](z)...} (tensor
--- lists stacked by tnt.utils.table.mergetensor).
--- Example: local tnt = require 'torchnet'
---   local f = tnt.transform.merge{double = function(x) return 2 * x end, half = function(x) return x / 2 end}
function transform.merge(...)
  local transforms = functions_of('tnt.transform.merge', merge_args(...), false)
  return function(z)
    local newz = {}
    for k, trans in pairs(transforms) do newz[k] = trans(z) end
    -- torchnet stacks the results when they are tensors of one size; other values stay as they are
    if utils.table.canmergetensor(newz) then return utils.table.mergetensor(newz) end
    return newz
  end
end

--- tnt.transform.tablenew(): a function returning a shallow copy of its table argument.
--- Example: local tnt = require 'torchnet'; local t = tnt.transform.tablenew()({a = 1})
function transform.tablenew()
  return function(func) return utils.table.copy(func) end
end

local tableapply_args = argcheck.parser{ name = 'tnt.transform.tableapply', { name = 'transform', type = 'function' } }
--- tnt.transform.tableapply(transform): the function applying transform to each entry of a table.
--- Example: local tnt = require 'torchnet'; local t = tnt.transform.tableapply(function(x) return 2 * x end){1, foo = 3}
function transform.tableapply(...)
  local fn = tableapply_args(...)
  return function(tbl) return utils.table.foreach(tbl, fn) end
end

--- tnt.transform.tablemergekeys(): the function turning a table of samples {s1, s2...} into a
--- table of fields {input = {s1.input, s2.input...}, target = {...}}.
--- Example: local tnt = require 'torchnet'
---   local m = tnt.transform.tablemergekeys()({{input = 1, target = 'a'}, {input = 2, target = 'b'}})
function transform.tablemergekeys()
  return function(tbl)
    local mergedtbl = {}
    for idx, elem in pairs(tbl) do
      for key, value in pairs(elem) do
        mergedtbl[key] = mergedtbl[key] or {}
        mergedtbl[key][idx] = value
      end
    end
    return mergedtbl
  end
end

local makebatch_args = argcheck.parser{ name = 'tnt.transform.makebatch', { name = 'merge', type = 'function', opt = true } }
--- tnt.transform.makebatch([merge]): the function turning a list of samples into one batch: the
--- fields are gathered (tablemergekeys), then merge(fields) when given, else each field that is a
--- list of same-sized tensors is stacked (tnt.utils.table.mergetensor) and others stay lists.
--- Example: local tnt = require 'torchnet'
---   local b = tnt.transform.makebatch()({{input = torch.ones(3)}, {input = torch.zeros(3)}})  -- b.input is 2x3
function transform.makebatch(...)
  local merge = makebatch_args(...)
  local makebatch
  if merge then
    makebatch = transform.compose{ transform.tablemergekeys(), merge }
  else
    makebatch = transform.compose{
      transform.tablemergekeys(),
      transform.tableapply(function(field)
        if utils.table.canmergetensor(field) then return utils.table.mergetensor(field) end
        return field
      end),
    }
  end
  return function(samples)
    if type(samples) ~= 'table' then
      error('[tnt.transform.makebatch] expected a table of samples, got ' .. torch.type(samples), 2)
    end
    return makebatch(samples)
  end
end

local randperm_args = argcheck.parser{ name = 'tnt.transform.randperm', { name = 'size', type = 'number' } }
--- tnt.transform.randperm(size): a function idx -> perm[idx] for a random permutation perm of 1..size.
--- Example: local tnt = require 'torchnet'; local p = tnt.transform.randperm(3); local i = p(1)
function transform.randperm(...)
  local size = randperm_args(...)
  local perm = torch.randperm(size):long()
  return function(idx) return perm[idx] end
end
transform.perm = transform.randperm

local normalize_args = argcheck.parser{ name = 'tnt.transform.normalize', { name = 'threshold', type = 'number', default = 0 } }
--- tnt.transform.normalize([threshold]): a function that centers a tensor in place and divides it
--- by its standard deviation when that is above threshold (default 0).
--- Example: local tnt = require 'torchnet'; local z = tnt.transform.normalize()(torch.Tensor{1, 2, 3})
function transform.normalize(...)
  local threshold = normalize_args(...)
  return function(z)
    local std = z:std()
    z:add(-z:mean())
    if std > threshold then z:div(std) end
    return z
  end
end

return transform
