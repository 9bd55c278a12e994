-- tds.Hash: torch/tds's hash table, here a torch.class object holding its entries itself (Note [tds
-- on Lua tables] in lua/tds/env.lua). h[k] = v, h[k], h[k] = nil, pairs(h), tds.Hash(luaTable),
-- printing as torch/tds, and torch.save/torch.load in torch/tds's own record layout.
local torch = require 'torch'
local tds = require 'tds.env'
local U = require 'tds.util'
local common = require 'torch.serialize_common'

local mt, Hash

local function to_tds(v)  -- torch/tds converts nested Lua tables: lists to Vecs, others to Hashes
  if type(v) ~= 'table' or getmetatable(v) ~= nil then return v end
  for k in next, v do
    if type(k) ~= 'number' then return tds.Hash(v) end
  end
  return tds.Vec(v)
end

local function fill(self, t)
  for k, v in next, t do
    rawset(self, to_tds(k), to_tds(v))
  end
  return self
end

--- tds.Hash([luaTable]): an empty hash, or one holding luaTable's entries (nested Lua tables become
--- tds.Vec when all their keys are numbers, tds.Hash otherwise).
--- Example: local tds = require 'tds'; local h = tds.Hash({a = 1}); h.b = 2; for k, v in pairs(h) do print(k, v) end
mt, Hash = U.class('tds.Hash', function(self, ...)
  local n = select('#', ...)
  if n == 0 then return self end
  local t = ...
  if n > 1 or type(t) ~= 'table' then
    error(string.format('[tds.Hash] expected a Lua table or nothing, got %s', n > 1 and n .. ' arguments' or torch.type(t)), 3)
  end
  return fill(self, t)
end)

-- A hash has no methods (torch/tds's neither), so h.read or h.size are entries like any other key:
-- a missing key is nil, never a method of the class.
mt.__index = nil

-- Only new keys reach __newindex: updates and removals are plain table writes.
mt.__newindex = function(self, k, v)
  if k == nil or k ~= k then
    error(string.format('[tds.Hash] a key cannot be %s', tostring(k)), 2)
  end
  if v ~= nil then rawset(self, k, v) end
end

mt.__tostring = function(self)
  local entries, width = {}, 0
  local function keystr(k)
    local tk = type(k)
    if tk == 'string' or tk == 'number' or tk == 'boolean' then return tostring(k) end
    return torch.type(k)
  end
  for k, v in next, self do
    entries[#entries + 1] = { keystr(k), v }
    if #entries <= 20 then width = math.max(width, #entries[#entries][1]) end
  end
  for _, e in ipairs(entries) do e[1] = e[1] .. string.rep(' ', width - #e[1]) .. ' : ' end
  return U.format(self, string.format('tds.Hash[%d]{', #entries), entries)
end

-- torch/tds's record: the entry count (writeLong), then key and value objects. Keys go in a stable
-- order so that saving a hash twice gives the same bytes.
function mt:write(file)
  local keys = common.sorted_keys(self)
  file:writeLong(#keys)
  for i = 1, #keys do
    file:writeObject(keys[i])
    file:writeObject(rawget(self, keys[i]))
  end
end

function mt:read(file)
  for _ = 1, U.read_count(file, 'tds.Hash') do
    local k = file:readObject()
    local v = file:readObject()
    if k == nil or k ~= k then error('[tds.Hash] the file holds a nil or NaN key: it is corrupt', 0) end
    rawset(self, k, v)
  end
end

-- Files written by old versions of torch/tds name the class tds_hash.
torch.serialization.registerClassAlias('tds_hash', 'tds.Hash')

tds.Hash, tds.hash = Hash, Hash
return Hash
