-- tnt.MovingAverageValueMeter (Torch7 torchnet's meter/movingaveragevaluemeter.lua): the mean and
-- standard deviation of the last `windowsize` numbers added.
local torch = require 'torch'
local tnt = require 'torchnet.env'
local argcheck = require 'torchnet.argcheck'
require 'torchnet.meter'

local MovingAverageValueMeter = torch.class('tnt.MovingAverageValueMeter', 'tnt.Meter', tnt)

local args = argcheck.parser{ name = 'tnt.MovingAverageValueMeter', { name = 'windowsize', type = 'number' } }

--- tnt.MovingAverageValueMeter{windowsize=}: a meter over the last windowsize values.
--- Example: local tnt = require 'torchnet'; local m = tnt.MovingAverageValueMeter{windowsize = 2}
---   m:add(1); m:add(2); m:add(4); local mean = m:value()  -- 3
function MovingAverageValueMeter:__init(...)
  local windowsize = args(...)
  if windowsize < 1 or windowsize ~= math.floor(windowsize) then
    error(string.format('[tnt.MovingAverageValueMeter] windowsize should be a positive integer, got %s', tostring(windowsize)), 2)
  end
  self.windowsize = windowsize
  self.valuequeue = torch.DoubleTensor(windowsize)
  self:reset()
end

--- movingaveragevaluemeter:reset(): forgets the values.
--- Example: local tnt = require 'torchnet'; local m = tnt.MovingAverageValueMeter(3); m:add(1); m:reset()
function MovingAverageValueMeter:reset()
  self.sum, self.n, self.var = 0, 0, 0
  self.valuequeue:fill(0)
end

local add_args = argcheck.parser{ name = 'tnt.MovingAverageValueMeter.add', { name = 'value', type = 'number' } }

--- movingaveragevaluemeter:add(value): adds value, dropping the oldest once the window is full.
--- Example: local tnt = require 'torchnet'; local m = tnt.MovingAverageValueMeter(3); m:add(1)
function MovingAverageValueMeter:add(...)
  local value = add_args(...)
  local q = (self.n % self.windowsize) + 1
  local old = self.valuequeue[q]
  self.sum = self.sum + value - old
  self.var = self.var + value * value - old * old
  self.valuequeue[q] = value
  self.n = self.n + 1
end

--- movingaveragevaluemeter:value(): mean, std of the values in the window (std unbiased; 0 for one value).
--- Example: local tnt = require 'torchnet'; local m = tnt.MovingAverageValueMeter(2); m:add(1); m:add(3); local mean, std = m:value()  -- 2, sqrt(2)
function MovingAverageValueMeter:value()
  local n = math.min(self.n, self.windowsize)
  local mean = self.sum / math.max(1, n)
  -- the running sums can drift a hair below zero variance: clamp before the square root
  local std = math.sqrt(math.max(0, (self.var - n * mean * mean) / math.max(1, n - 1)))
  return mean, std
end

return MovingAverageValueMeter
