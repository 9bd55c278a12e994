-- What a loader runs for each item, in the main state or a worker: the dataset (or the
-- constructor spec that builds it), whether items are batches, and the collate function.
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
  local ok, m = pcall(require, spec.module)
  if not ok then util.fail('DataLoader', 'cannot require dataset module %s: %s', spec.module, tostring(m)) end
  local ctor = spec.constructor and m[spec.constructor] or m
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
