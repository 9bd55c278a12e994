-- tds.Vec: torch/tds's vector, here a torch.class object whose entries 1..n are its own array part
-- (Note [tds on Lua tables] in lua/tds/env.lua): v[i], #v, ipairs/pairs, insert, remove, resize,
-- sort, concat, printing as torch/tds, and torch.save/torch.load in torch/tds's record layout.
local torch = require 'torch'
local tds = require 'tds.env'
local U = require 'tds.util'

local mt, Vec

local function to_tds(v)  -- torch/tds converts nested Lua tables: sequences to Vecs, others to Hashes
  if type(v) ~= 'table' or getmetatable(v) ~= nil then return v end
  local n = 0
  for _ in next, v do n = n + 1 end
  if n == #v then return tds.Vec(v) end
  return tds.Hash(v)
end

local function check_index(k, what, level)
  if type(k) ~= 'number' or k < 1 or k ~= math.floor(k) then
    error(string.format('[tds.Vec%s] expected a positive integer index, got %s', what,
                        type(k) == 'number' and tostring(k) or torch.type(k)), level + 1)
  end
end

--- tds.Vec([luaList] | [v1, v2, ...]): an empty vector, or one holding the given values (nested
--- Lua tables become tds.Vec or tds.Hash as in torch/tds).
--- Example: local tds = require 'tds'; local v = tds.Vec({3, 1, 2}); v:insert(4); v:sort(); print(v:concat(','))  -- 1,2,3,4
mt, Vec = U.class('tds.Vec', function(self, ...)
  local n = select('#', ...)
  local t = ...
  if n == 1 and type(t) == 'table' and getmetatable(t) == nil then
    local count = 0
    for _ in next, t do count = count + 1 end
    if count ~= #t then error('[tds.Vec] expected a Lua list (keys 1..n), got a table with other keys', 3) end
  else
    t = { ... }
  end
  for i = 1, n == 1 and #t or n do rawset(self, i, to_tds(t[i])) end
  return self
end)

-- Only new indices reach __newindex (method names live in the metatable, so v.insert is a method).
mt.__newindex = function(self, k, v)
  check_index(k, '', 2)
  rawset(self, k, v)
end

--- v:insert([pos,] value): appends value, or inserts it at pos (1 <= pos <= #v + 1), shifting the rest.
--- Example: local tds = require 'tds'; local v = tds.Vec(); v:insert('b'); v:insert(1, 'a')  -- a, b
function mt:insert(...)
  local n = select('#', ...)
  local pos, value
  if n == 1 then
    pos, value = #self + 1, ...
  elseif n == 2 then
    pos, value = ...
    check_index(pos, ':insert', 2)
    if pos > #self + 1 then error(string.format('[tds.Vec:insert] position %d is past the end (%d entries)', pos, #self), 2) end
  else
    error('[tds.Vec:insert] expected ([position,] value)', 2)
  end
  if value == nil then error('[tds.Vec:insert] cannot insert nil: a tds.Vec is a Lua sequence here', 2) end
  table.insert(self, pos, value)
end

--- v:remove([pos]): removes the entry at pos (default the last), shifting the rest down.
--- Example: local tds = require 'tds'; local v = tds.Vec({1, 2, 3}); v:remove(1)  -- 2, 3
function mt:remove(pos)
  if pos == nil then pos = #self end
  check_index(pos, ':remove', 2)
  if pos <= #self then table.remove(self, pos) end
end

--- v:resize(n): keeps the first n entries; growing adds nil entries (see Note [tds on Lua tables]:
--- #v counts up to the last non-nil entry).
--- Example: local tds = require 'tds'; local v = tds.Vec({1, 2, 3}); v:resize(1)  -- 1
function mt:resize(n)
  if type(n) ~= 'number' or n < 0 or n ~= math.floor(n) then
    error(string.format('[tds.Vec:resize] size must be a non-negative integer, got %s', tostring(n)), 2)
  end
  for i = #self, n + 1, -1 do rawset(self, i, nil) end
end

--- v:sort([less]): sorts in place with less(a, b) (default <).
--- Example: local tds = require 'tds'; local v = tds.Vec({3, 1, 2}); v:sort(function(a, b) return a > b end)  -- 3, 2, 1
function mt:sort(less)
  if less ~= nil and type(less) ~= 'function' then
    error(string.format('[tds.Vec:sort] expected a comparison function, got %s', torch.type(less)), 2)
  end
  table.sort(self, less)
end

--- v:concat([sep[, i[, j]]]): tostring of entries i..j (default all) joined by sep.
--- Example: require('tds').Vec({'a', 'b', 1}):concat('-')  -- 'a-b-1'
function mt:concat(sep, i, j)
  local parts = {}
  for k = i or 1, j or #self do parts[#parts + 1] = tostring(rawget(self, k)) end
  return table.concat(parts, sep or '')
end

mt.__tostring = function(self)
  local entries = {}
  for k = 1, math.min(#self, 21) do entries[k] = { string.format('%5d : ', k), rawget(self, k) } end
  return U.format(self, string.format('tds.Vec[%d]{', #self), entries)
end

-- torch/tds's record: the length (writeLong), then each entry's object.
function mt:write(file)
  local n = #self
  file:writeLong(n)
  for k = 1, n do file:writeObject(rawget(self, k)) end
end

function mt:read(file)
  for k = 1, U.read_count(file, 'tds.Vec') do rawset(self, k, file:readObject()) end
end

tds.Vec, tds.vec = Vec, Vec
return Vec
