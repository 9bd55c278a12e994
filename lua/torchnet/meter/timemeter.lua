-- tnt.TimeMeter (Torch7 torchnet's meter/timemeter.lua): wall time since reset(), with
-- stop/resume, optionally per unit (incUnit() after each batch gives the time per batch).
local torch = require 'torch'
local tnt = require 'torchnet.env'
local argcheck = require 'torchnet.argcheck'
require 'torchnet.meter'

local TimeMeter = torch.class('tnt.TimeMeter', 'tnt.Meter', tnt)

local args = argcheck.parser{ name = 'tnt.TimeMeter', { name = 'unit', type = 'boolean', default = false } }

--- tnt.TimeMeter{[unit=false]}: a meter of the seconds since reset (divided by the unit count when unit).
--- Example: local tnt = require 'torchnet'; local m = tnt.TimeMeter{unit = true}; m:incUnit(); local s = m:value()
function TimeMeter:__init(...)
  self.unit = args(...)
  self.timer = torch.Timer()
  self:reset()
end

--- timemeter:reset(): restarts the timer and the unit count from zero.
--- Example: local tnt = require 'torchnet'; local m = tnt.TimeMeter(); m:reset()
function TimeMeter:reset()
  self.timer:reset()
  self.n = 0
end

--- timemeter:stop(): pauses the timer.
--- Example: local tnt = require 'torchnet'; local m = tnt.TimeMeter(); m:stop(); m:resume()
function TimeMeter:stop()
  self.timer:stop()
end

--- timemeter:resume(): resumes a stopped timer.
--- Example: local tnt = require 'torchnet'; local m = tnt.TimeMeter(); m:stop(); m:resume()
function TimeMeter:resume()
  self.timer:resume()
end

local inc_args = argcheck.parser{ name = 'tnt.TimeMeter.incUnit', { name = 'value', type = 'number', default = 1 } }

--- timemeter:incUnit([value]): adds value (default 1) to the unit count.
--- Example: local tnt = require 'torchnet'; local m = tnt.TimeMeter{unit = true}; m:incUnit(32)
function TimeMeter:incUnit(...)
  self.n = self.n + inc_args(...)
end

--- timemeter:value(): the seconds the timer ran since reset (per unit when unit = true).
--- Example: local tnt = require 'torchnet'; local s = tnt.TimeMeter():value()
function TimeMeter:value()
  local time = self.timer:time().real
  if self.unit then return time / self.n end
  return time
end

return TimeMeter
