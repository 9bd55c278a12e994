-- tnt.AUCMeter (Torch7 torchnet's meter/aucmeter.lua): the area under the ROC curve of a binary
-- classifier's scores, with the curve itself.
local torch = require 'torch'
local tnt = require 'torchnet.env'
local argcheck = require 'torchnet.argcheck'
local Meter = require 'torchnet.meter'

local AUCMeter = torch.class('tnt.AUCMeter', 'tnt.Meter', tnt)

--- tnt.AUCMeter(): a meter of the ROC AUC of scores against 0/1 targets.
--- Example: local tnt = require 'torchnet'; local m = tnt.AUCMeter()
---   m:add(torch.Tensor{0.9, 0.6, 0.4, 0.2}, torch.Tensor{1, 0, 1, 0}); local auc = m:value()  -- 0.75
function AUCMeter:__init()
  self:reset()
end

--- aucmeter:reset(): forgets the examples.
--- Example: local tnt = require 'torchnet'; local m = tnt.AUCMeter(); m:reset()
function AUCMeter:reset()
  self.__scores, self.__targets = {}, {}
  self.scores = torch.DoubleTensor()
  self.targets = torch.LongTensor()
end

local add_args = argcheck.parser{ name = 'tnt.AUCMeter.add',
  { name = 'output', type = 'torch.*Tensor' }, { name = 'target', type = 'torch.*Tensor' } }

--- aucmeter:add(output, target): N scores and their N targets (0 or 1); a N x 1 tensor counts as N.
--- Example: local tnt = require 'torchnet'; local m = tnt.AUCMeter(); m:add(torch.Tensor{0.8, 0.3}, torch.Tensor{1, 0})
function AUCMeter:add(...)
  local output, target = add_args(...)
  local fname = 'tnt.AUCMeter.add'
  local n = output:nElement()
  if output:dim() > 1 and n ~= output:size(1) then
    error(string.format('[%s] dimensionality of output should be 1 (e.g., nn.Sigmoid output), got %s', fname,
      table.concat(output:size():totable(), 'x')), 2)
  end
  if target:nElement() ~= n then
    error(string.format('[%s] number of outputs (%d) and targets (%d) does not match', fname, n, target:nElement()), 2)
  end
  if not Meter.__check.binary(target) then error(string.format('[%s] targets should be binary (0 or 1)', fname), 2) end
  -- chunks are concatenated when value() needs them (Note [Growing buffers] in apmeter.lua)
  self.__scores[#self.__scores + 1] = output:contiguous():view(n):double():clone()
  self.__targets[#self.__targets + 1] = target:contiguous():view(n):long():clone()
  self.scores, self.targets = nil, nil
end

local function gather(self)
  if not self.scores then
    local s, t = self.__scores, self.__targets
    self.scores = #s > 0 and torch.cat(s, 1) or torch.DoubleTensor()
    self.targets = #t > 0 and torch.cat(t, 1) or torch.LongTensor()
    self.__scores, self.__targets = { self.scores }, { self.targets }
  end
end

--- aucmeter:value(): auc, tpr, fpr: the area under the ROC curve (0.5 before any add) and the
--- curve's true and false positive rates (N + 1 points), from the scores sorted decreasingly.
--- Example: local tnt = require 'torchnet'; local m = tnt.AUCMeter(); m:add(torch.Tensor{0.1, 0.9}, torch.Tensor{0, 1}); local auc = m:value()  -- 1
function AUCMeter:value()
  gather(self)
  local n = self.scores:nElement()
  if n == 0 then return 0.5 end
  local _, sortind = self.scores:sort(1, true)
  local t = self.targets:index(1, sortind):double()
  local tpr = torch.cat(torch.DoubleTensor{ 0 }, t:cumsum(1), 1)
  local fpr = torch.cat(torch.DoubleTensor{ 0 }, (1 - t):cumsum(1), 1)
  tpr:div(self.targets:sum())
  fpr:div(n - self.targets:sum())
  -- torchnet's rule: each step right (a negative) adds the current height, a rectangle; with no
  -- tied scores this is the exact area under the step ROC curve
  local auc = torch.cmul(tpr:narrow(1, 1, n), fpr:narrow(1, 2, n) - fpr:narrow(1, 1, n)):sum()
  return auc, tpr, fpr
end

return AUCMeter
