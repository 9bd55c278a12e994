-- tnt.AverageValueMeter (Torch7 torchnet's meter/averagevaluemeter.lua): the mean and standard
-- deviation of the numbers added (a loss over an epoch...).
local torch = require 'torch'
local tnt = require 'torchnet.env'
local argcheck = require 'torchnet.argcheck'
require 'torchnet.meter'

local AverageValueMeter = torch.class('tnt.AverageValueMeter', 'tnt.Meter', tnt)

--- tnt.AverageValueMeter(): a meter of the mean and standard deviation of added numbers.
--- Example: local tnt = require 'torchnet'; local m = tnt.AverageValueMeter()
---   m:add(1); m:add(2); m:add(6); local mean, std = m:value()  -- 3, sqrt(7)
function AverageValueMeter:__init()
  self:reset()
end

--- averagevaluemeter:reset(): forgets the values.
--- Example: local tnt = require 'torchnet'; local m = tnt.AverageValueMeter(); m:add(1); m:reset()
function AverageValueMeter:reset()
  self.sum, self.n, self.var = 0, 0, 0
end

local add_args = argcheck.parser{ name = 'tnt.AverageValueMeter.add',
  { name = 'value', type = 'number' }, { name = 'n', type = 'number', default = 1 } }

--- averagevaluemeter:add(value[, n]): adds value, counted n times in the mean's denominator (n = 1
--- by default; torchnet's weighting: the sum gets value once, as when value is a batch's summed
--- loss and n its size).
--- Example: local tnt = require 'torchnet'; local m = tnt.AverageValueMeter(); m:add(6, 3)  -- mean 2
function AverageValueMeter:add(...)
  local value, n = add_args(...)
  self.sum = self.sum + value
  self.var = self.var + value * value
  self.n = self.n + n
end

--- averagevaluemeter:value(): mean, std: sum / n and the unbiased standard deviation
--- sqrt((sum of squares - n * mean^2) / (n - 1)) (nan for n <= 1, as in torchnet).
--- Example: local tnt = require 'torchnet'; local m = tnt.AverageValueMeter(); m:add(1); m:add(3); local mean, std = m:value()  -- 2, sqrt(2)
function AverageValueMeter:value()
  local n = self.n
  local mean = self.sum / n
  local std = math.sqrt((self.var - n * mean * mean) / (n - 1))
  return mean, std
end

return AverageValueMeter
