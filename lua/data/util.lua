-- Small helpers shared by the data module's files: argument checks that raise errors at the
-- user's line, dataset checks and seeds.
local torch = require 'torch'
local lib = require 'torch.lib'
local ffi = require 'ffi'

local util = {}



--- util.fail(op, fmt, ...): raises "[op] message" at the user's line.
util.fail = lib.fail

--- util.check_dataset(op, ds, argn): ds must have size() and get(i) (torchnet's convention).
function util.check_dataset(op, ds, argn)
  local t = type(ds)
  if (t ~= 'table' and t ~= 'userdata') or type(ds.size) ~= 'function' or type(ds.get) ~= 'function' then
    lib.fail(op, 'argument #%d: expected a dataset (an object with size() and get(i)), got %s', argn or 1,
      torch.type(ds))
  end
  local n = ds:size()
  if type(n) ~= 'number' or n < 0 or n ~= math.floor(n) then
    lib.fail(op, 'dataset:size() returned %s, expected a count', tostring(n))
  end
  return n
end

--- util.check_index(op, i, n): i must be an integer in 1..n.
function util.check_index(op, i, n)
  if type(i) ~= 'number' or i ~= math.floor(i) or i < 1 or i > n then
    lib.fail(op, 'index %s out of range 1..%d', tostring(i), n)
  end
end

--- util.check_seed(op, seed): nil or an integer.
function util.check_seed(op, seed)
  if seed ~= nil and (type(seed) ~= 'number' or seed ~= math.floor(seed)) then
    lib.fail(op, 'seed must be an integer, got %s', tostring(seed))
  end
  return seed
end

-- Mixes integers into a 53-bit seed (splitmix64 steps), so per-epoch and per-batch seeds of
-- nearby inputs are unrelated.
--- util.mix_seed(a, b, ...): a seed derived from integers.
function util.mix_seed(...)
  local h = ffi.new('uint64_t', 0x9E3779B97F4A7C15ULL)
  for i = 1, select('#', ...) do
    local v = select(i, ...)
    h = h + ffi.cast('uint64_t', ffi.cast('int64_t', v)) + 0x9E3779B97F4A7C15ULL
    h = bit.bxor(h, bit.rshift(h, 30)) * 0xBF58476D1CE4E5B9ULL
    h = bit.bxor(h, bit.rshift(h, 27)) * 0x94D049BB133111EBULL
    h = bit.bxor(h, bit.rshift(h, 31))
  end
  return tonumber(bit.band(h, 0x1FFFFFFFFFFFFFULL))
end

--- util.permutation(n, seed): a Lua list holding a random permutation of 1..n drawn from a
--- generator seeded with seed.
function util.permutation(n, seed)
  local list = {}
  if n == 0 then return list end
  local g = torch.Generator()
  torch.manualSeed(g, seed)
  local p = torch.randperm(g, n)
  local ptr = p:data()
  for i = 1, n do list[i] = tonumber(ptr[i - 1]) end
  return list
end

return util
