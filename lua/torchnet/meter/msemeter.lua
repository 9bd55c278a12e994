-- tnt.MSEMeter (Torch7 torchnet's meter/msemeter.lua): the mean squared error (or its root) over
-- all elements added.
local torch = require 'torch'
local tnt = require 'torchnet.env'
local argcheck = require 'torchnet.argcheck'
local Meter = require 'torchnet.meter'

local MSEMeter = torch.class('tnt.MSEMeter', 'tnt.Meter', tnt)

local args = argcheck.parser{ name = 'tnt.MSEMeter', { name = 'root', type = 'boolean', default = false } }

--- tnt.MSEMeter{[root=false]}: a meter of the mean squared error (root mean squared when root).
--- Example: local tnt = require 'torchnet'; local m = tnt.MSEMeter()
---   m:add(torch.Tensor{1, 2}, torch.Tensor{1, 4}); local mse = m:value()  -- 2
function MSEMeter:__init(...)
  self:reset()
  self.root = args(...)
end

--- msemeter:reset(): forgets the errors.
--- Example: local tnt = require 'torchnet'; local m = tnt.MSEMeter(); m:reset()
function MSEMeter:reset()
  self.n, self.sesum = 0, 0
end

--- msemeter:add(output, target): adds the squared differences of two tensors of the same size.
--- Example: local tnt = require 'torchnet'; local m = tnt.MSEMeter(); m:add(torch.zeros(2, 2), torch.ones(2, 2))
function MSEMeter:add(output, target)
  if argcheck.isplain(output) and target == nil then output, target = output.output, output.target end
  Meter.__check.tensor('tnt.MSEMeter.add', 'output', output)
  Meter.__check.tensor('tnt.MSEMeter.add', 'target', target)
  if not output:isSameSizeAs(target) then
    error(string.format('[tnt.MSEMeter.add] output and target not the same size (%s and %s)',
      table.concat(output:size():totable(), 'x'), table.concat(target:size():totable(), 'x')), 2)
  end
  self.n = self.n + output:nElement()
  self.sesum = self.sesum + (output:double() - target:double()):pow(2):sum()
end

--- msemeter:value(): the mean squared error (its square root when root; 0 before any add).
--- Example: local tnt = require 'torchnet'; local m = tnt.MSEMeter{root = true}; m:add(torch.Tensor{3}, torch.Tensor{0}); local r = m:value()  -- 3
function MSEMeter:value()
  local mse = self.sesum / math.max(1, self.n)
  return self.root and math.sqrt(mse) or mse
end

return MSEMeter
