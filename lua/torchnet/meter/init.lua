-- tnt.Meter (Torch7 torchnet's meter/init.lua): the base class of meters, which accumulate
-- observations with add(...), report with value() and start over with reset(); plus the input
-- checks the meters share.
local torch = require 'torch'
local tnt = require 'torchnet.env'

local Meter = torch.class('tnt.Meter', tnt)

function Meter:__init() end

--- meter:reset(): forgets the observations (each meter defines it).
--- Example: local tnt = require 'torchnet'; local m = tnt.AverageValueMeter(); m:add(1); m:reset()
function Meter:reset()
  error(string.format('[%s.reset] A tnt.Meter should implement the reset() function.', torch.type(self)), 2)
end

--- meter:value(): the measure over the observations so far (each meter defines it).
--- Example: local tnt = require 'torchnet'; local m = tnt.AverageValueMeter(); m:add(1); m:add(3); local mean = m:value()  -- 2
function Meter:value()
  error(string.format('[%s.value] A tnt.Meter should implement the value() function.', torch.type(self)), 2)
end

--- meter:add(...): records an observation (each meter defines it).
--- Example: local tnt = require 'torchnet'; local m = tnt.AverageValueMeter(); m:add(0.5)
function Meter:add()
  error(string.format('[%s.add] A tnt.Meter should implement the add() function.', torch.type(self)), 2)
end

-- Shared input checks. fname names the method in errors.
local check = {}
Meter.__check = check

function check.tensor(fname, what, x)
  if not torch.isTensor(x) then
    error(string.format('[%s] %s should be a tensor, got %s', fname, what, torch.type(x)), 3)
  end
end

-- output as N x K (a K-vector is one example), in double.
function check.scores2d(fname, output)
  check.tensor(fname, 'output', output)
  if output:dim() == 1 then output = output:view(1, output:size(1)) end
  if output:dim() ~= 2 then
    error(string.format('[%s] wrong output size %s (1D or 2D, N x K, expected)', fname,
      table.concat(output:size():totable(), 'x')), 3)
  end
  return output:double()
end

-- Whether every element of x is 0 or 1.
function check.binary(x)
  return x:eq(0):add(x:eq(1)):min() == 1
end

return Meter
