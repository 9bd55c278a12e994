-- What a loader runs for each item, in the main state or a worker: the dataset (or the
-- constructor spec that builds it), whether items are batches, and the collate function.
local torch = require 'torch'
local util = require 'data.util'
local collate = require 'data.collate'

local job = {}

--- job.is_spec(x): whether x is a constructor spec {module=, args=[, constructor=]}.
function job.is_spec(x)
  return type(x) == 'table' and getmetatable(x) == nil and type(x.module) == 'string'
end

--- job.build(spec): the dataset a constructor spec describes: require(spec.module) (or its
--- field spec.constructor) called with unpack(spec.args or {}).
function job.build(spec)
  if spec.constructor ~= nil and type(spec.constructor) ~= 'string' then
    util.fail('DataLoader', 'the constructor of a dataset spec must be a field name (a string), got %s',
      torch.type(spec.constructor))
  end
  if spec.args ~= nil and (type(spec.args) ~= 'table' or getmetatable(spec.args) ~= nil) then
    util.fail('DataLoader', 'the args of a dataset spec must be a list, got %s', torch.type(spec.args))
  end
  local ok, m = pcall(require, spec.module)
  if not ok then util.fail('DataLoader', 'cannot require dataset module %s: %s', spec.module, tostring(m)) end
  -- A constructor field that is missing is an error, not the module itself (a module that
  -- returns a class would be called with the arguments meant for the missing constructor).
  local ctor = m
  if spec.constructor ~= nil then ctor = type(m) == 'table' and m[spec.constructor] or nil end
  local t = type(ctor)
  local callable = t == 'function' or (t == 'table' and getmetatable(ctor) and getmetatable(ctor).__call)
  if not callable then
    util.fail('DataLoader', 'module %s%s is not a constructor (a function or a class)', spec.module,
      spec.constructor and ('.' .. spec.constructor) or '')
  end
  local args = spec.args or {}
  local ds = ctor(unpack(args, 1, table.maxn(args)))
  util.check_dataset('DataLoader', ds)
  return ds
end

--- job.resolve(j): j with its dataset built (from j.spec) and its collate function set (the
--- default one for batches; unbatched items keep a user's collate only: Note [Unbatched collate],
--- data/fetch.lua).
function job.resolve(j)
  if j.spec then j.dataset = job.build(j.spec) end
  if j.batched then j.collate = j.collate or collate.default end
  return j
end

return job
