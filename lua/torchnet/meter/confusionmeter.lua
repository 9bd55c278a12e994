-- tnt.ConfusionMeter (Torch7 torchnet's meter/confusionmeter.lua): the K x K confusion matrix of a
-- single-label classifier (rows: targets, columns: predicted classes = argmax of the scores).
local torch = require 'torch'
local tnt = require 'torchnet.env'
local argcheck = require 'torchnet.argcheck'
local Meter = require 'torchnet.meter'

local ConfusionMeter = torch.class('tnt.ConfusionMeter', 'tnt.Meter', tnt)

local args = argcheck.parser{ name = 'tnt.ConfusionMeter', noordered = true,
  { name = 'k', type = 'number' }, { name = 'normalized', type = 'boolean', default = false } }

--- tnt.ConfusionMeter{k=[, normalized=false]}: a confusion matrix for k classes (counts, or rows
--- normalized to sum to 1).
--- Example: local tnt = require 'torchnet'; local m = tnt.ConfusionMeter{k = 2}
---   m:add(torch.Tensor{{0.9, 0.1}, {0.3, 0.7}, {0.6, 0.4}}, torch.LongTensor{1, 2, 2})  -- m:value() is {{1, 0}, {1, 1}}
function ConfusionMeter:__init(...)
  local k, normalized = args(...)
  if k < 1 or k ~= math.floor(k) then
    error(string.format('[tnt.ConfusionMeter] k should be a positive integer, got %s', tostring(k)), 2)
  end
  self.conf = torch.LongTensor(k, k)
  self.normalized = normalized
  self:reset()
end

--- confusionmeter:reset(): zeroes the matrix.
--- Example: local tnt = require 'torchnet'; local m = tnt.ConfusionMeter{k = 3}; m:reset()
function ConfusionMeter:reset()
  self.conf:zero()
end

local add_args = argcheck.parser{ name = 'tnt.ConfusionMeter.add',
  { name = 'output', type = 'torch.*Tensor' }, { name = 'target', type = 'torch.*Tensor|number' } }

--- confusionmeter:add(output, target): output is N x K scores (or a K-vector), target N classes
--- in 1..K or an N x K one-hot matrix.
--- Example: local tnt = require 'torchnet'; local m = tnt.ConfusionMeter{k = 2}; m:add(torch.Tensor{0.2, 0.8}, torch.LongTensor{1})
function ConfusionMeter:add(...)
  local output, target = add_args(...)
  local fname = 'tnt.ConfusionMeter.add'
  output = Meter.__check.scores2d(fname, output)
  if type(target) == 'number' then target = torch.LongTensor{ target } end
  local n, k = output:size(1), self.conf:size(1)
  if output:size(2) ~= k then
    error(string.format('[%s] number of outputs (%d) does not match size of confusion matrix (%d)', fname, output:size(2), k), 2)
  end
  local onehot = target:dim() == 2 and not (target:size(2) == 1 and k ~= 1)
  if onehot then
    if target:size(1) ~= n or target:size(2) ~= k then
      error(string.format('[%s] a one-hot target should be %dx%d, got %s', fname, n, k, table.concat(target:size():totable(), 'x')), 2)
    end
    if not Meter.__check.binary(target) then
      error(string.format('[%s] in one-hot encoding, target values should be 0 or 1', fname), 2)
    end
    if target:sum(2):ne(1):sum() > 0 then
      error(string.format('[%s] multi-label setting is not supported (use tnt.MultiLabelConfusionMeter)', fname), 2)
    end
    local _, pos = target:double():max(2)
    target = pos:view(n)
  else
    if target:nElement() ~= n then
      error(string.format('[%s] number of targets (%d) and outputs (%d) do not match', fname, target:nElement(), n), 2)
    end
    target = target:contiguous():view(n):long()
    if n > 0 and (target:min() < 1 or target:max() > k) then
      error(string.format('[%s] targets should be classes in 1..%d, got values in %d..%d', fname, k, target:min(), target:max()), 2)
    end
  end
  if n == 0 then return end
  local _, pred = output:max(2)
  local cell = (target:long() - 1):mul(k):add(pred:view(n):long())
  self.conf:view(k * k):indexAdd(1, cell, torch.LongTensor(n):fill(1))
end

--- confusionmeter:value(): the K x K matrix (a LongTensor of counts, or a DoubleTensor with rows
--- summing to 1 when normalized).
--- Example: local tnt = require 'torchnet'; local m = tnt.ConfusionMeter{k = 2, normalized = true}
---   m:add(torch.Tensor{{0.9, 0.1}, {0.8, 0.2}}, torch.LongTensor{1, 1}); local c = m:value()  -- {{1, 0}, {0, 0}}
function ConfusionMeter:value()
  if not self.normalized then return self.conf end
  local confmat = self.conf:double()
  return confmat:cdiv(confmat:sum(2):clamp(1e-12, math.huge):expandAs(confmat))
end

return ConfusionMeter
