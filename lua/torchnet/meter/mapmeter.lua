-- tnt.mAPMeter (Torch7 torchnet's meter/mapmeter.lua): the mean over classes of tnt.APMeter's
-- average precisions.
local torch = require 'torch'
local tnt = require 'torchnet.env'
require 'torchnet.meter.apmeter'

local mAPMeter = torch.class('tnt.mAPMeter', 'tnt.Meter', tnt)

--- tnt.mAPMeter(): a meter of the mean average precision over K classes.
--- Example: local tnt = require 'torchnet'; local m = tnt.mAPMeter()
---   m:add(torch.Tensor{{0.9, 0.2}, {0.1, 0.8}}, torch.Tensor{{1, 0}, {0, 1}}); local map = m:value()  -- 1
function mAPMeter:__init()
  self.apmeter = tnt.APMeter()
end

--- mapmeter:reset(): forgets the examples.
--- Example: local tnt = require 'torchnet'; local m = tnt.mAPMeter(); m:reset()
function mAPMeter:reset()
  self.apmeter:reset()
end

--- mapmeter:add(output, target[, weight]): as tnt.APMeter's add.
--- Example: local tnt = require 'torchnet'; local m = tnt.mAPMeter(); m:add(torch.Tensor{0.3, 0.6}, torch.Tensor{0, 1})
function mAPMeter:add(...)
  self.apmeter:add(...)
end

--- mapmeter:value(): the mean of the per-class average precisions (0 before any add).
--- Example: local tnt = require 'torchnet'; local m = tnt.mAPMeter(); m:add(torch.Tensor{0.3, 0.6}, torch.Tensor{1, 0}); local v = m:value()  -- 0.5
function mAPMeter:value()
  local ap = self.apmeter:value()
  if ap:nElement() == 0 then return 0 end
  return ap:mean()
end

return mAPMeter
