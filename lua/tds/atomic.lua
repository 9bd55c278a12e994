-- tds.AtomicCounter: torch/tds's counter (inc returns the value before the increment, as
-- THAtomicAddLong does). Tocha's threads do not share Lua objects, so it is a plain counter.
local torch = require 'torch'
local tds = require 'tds.env'
local U = require 'tds.util'

--- tds.AtomicCounter(): a counter starting at 0 with :inc(), :get() and :set(n).
--- Example: local tds = require 'tds'; local c = tds.AtomicCounter(); c:inc(); print(c:get())  -- 1
local mt, AtomicCounter = U.class('tds.AtomicCounter', function(self)
  rawset(self, 'count', 0)
  return self
end)

--- c:inc(): adds 1 and returns the value it had before.
--- Example: require('tds').AtomicCounter():inc()  -- 0
function mt:inc()
  local c = self.count
  self.count = c + 1
  return c
end

--- c:get(): the current value.
--- Example: require('tds').AtomicCounter():get()  -- 0
function mt:get() return self.count end

--- c:set(n): sets the value.
--- Example: require('tds').AtomicCounter():set(100)
function mt:set(n)
  if type(n) ~= 'number' or n ~= math.floor(n) then
    error(string.format('[tds.AtomicCounter:set] expected an integer, got %s', torch.type(n)), 2)
  end
  self.count = n
end

mt.__tostring = function(self) return 'tds.AtomicCounter=' .. string.format('%d', self.count) end

function mt:write(file) file:writeLong(self.count) end
function mt:read(file) self.count = file:readLong() end

tds.AtomicCounter, tds.atomic_counter = AtomicCounter, AtomicCounter
return AtomicCounter
