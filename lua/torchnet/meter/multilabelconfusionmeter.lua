-- tnt.MultiLabelConfusionMeter (Torch7 torchnet's meter/multilabelconfusionmeter.lua): a K x K
-- confusion matrix for multi-label problems, where each example's p top-scored classes are its
-- predictions, p being its number of true labels.
local torch = require 'torch'
local tnt = require 'torchnet.env'
local argcheck = require 'torchnet.argcheck'
local Meter = require 'torchnet.meter'

local MultiLabelConfusionMeter = torch.class('tnt.MultiLabelConfusionMeter', 'tnt.Meter', tnt)

local args = argcheck.parser{ name = 'tnt.MultiLabelConfusionMeter', noordered = true,
  { name = 'k', type = 'number' }, { name = 'normalized', type = 'boolean', default = true } }

--- tnt.MultiLabelConfusionMeter{k=[, normalized=true]}: correct predictions count on the diagonal;
--- each missed true label spreads one count equally over the wrong predictions (row: true label).
--- Example: local tnt = require 'torchnet'; local m = tnt.MultiLabelConfusionMeter{k = 3, normalized = false}
---   m:add(torch.Tensor{{0.9, 0.8, 0.1}}, torch.Tensor{{1, 0, 1}})  -- conf[1][1] = 1, conf[3][2] = 1
function MultiLabelConfusionMeter:__init(...)
  local k, normalized = args(...)
  if k < 1 or k ~= math.floor(k) then
    error(string.format('[tnt.MultiLabelConfusionMeter] k should be a positive integer, got %s', tostring(k)), 2)
  end
  self.conf = torch.DoubleTensor(k, k)
  self.normalized = normalized
  self:reset()
end

--- multilabelconfusionmeter:reset(): zeroes the matrix.
--- Example: local tnt = require 'torchnet'; local m = tnt.MultiLabelConfusionMeter{k = 2}; m:reset()
function MultiLabelConfusionMeter:reset()
  self.conf:zero()
end

local add_args = argcheck.parser{ name = 'tnt.MultiLabelConfusionMeter.add',
  { name = 'output', type = 'torch.*Tensor' }, { name = 'target', type = 'torch.*Tensor' } }

--- multilabelconfusionmeter:add(output, target): N x K scores and N x K 0/1 targets (or K-vectors).
--- Example: local tnt = require 'torchnet'; local m = tnt.MultiLabelConfusionMeter{k = 2}; m:add(torch.Tensor{0.7, 0.2}, torch.Tensor{1, 0})
function MultiLabelConfusionMeter:add(...)
  local output, target = add_args(...)
  local fname = 'tnt.MultiLabelConfusionMeter.add'
  output = Meter.__check.scores2d(fname, output)
  if target:dim() == 1 then target = target:view(1, target:size(1)) end
  local k = self.conf:size(1)
  if not target:isSameSizeAs(output) then
    error(string.format('[%s] number of targets (%s) and outputs (%s) do not match', fname,
      table.concat(target:size():totable(), 'x'), table.concat(output:size():totable(), 'x')), 2)
  end
  if not Meter.__check.binary(target) then error(string.format('[%s] target values should be 0 or 1', fname), 2) end
  if output:size(2) ~= k then
    error(string.format('[%s] target size (%d) does not match size of confusion matrix (%d)', fname, output:size(2), k), 2)
  end
  local _, pred = output:sort(2, true)
  local conf = self.conf
  -- a set computation per example, as in torchnet; the rows are small (K labels)
  for n = 1, pred:size(1) do
    local row = target[n]
    local truth, predicted, npos = {}, {}, 0
    for c = 1, k do
      if row[c] == 1 then npos = npos + 1; truth[c] = true end
    end
    for j = 1, npos do predicted[pred[n][j]] = true end
    for c in pairs(truth) do
      if predicted[c] then
        conf[c][c] = conf[c][c] + 1
        truth[c], predicted[c] = nil, nil
      end
    end
    local nwrong = 0
    for _ in pairs(predicted) do nwrong = nwrong + 1 end
    for c1 in pairs(truth) do
      for c2 in pairs(predicted) do conf[c1][c2] = conf[c1][c2] + 1 / nwrong end
    end
  end
end

--- multilabelconfusionmeter:value(): a copy of the K x K matrix, rows normalized when asked.
--- Example: local tnt = require 'torchnet'; local m = tnt.MultiLabelConfusionMeter{k = 2}; m:add(torch.Tensor{0.7, 0.2}, torch.Tensor{1, 0}); local c = m:value()
function MultiLabelConfusionMeter:value()
  local conf = self.conf:clone()
  if self.normalized then conf:cdiv(conf:sum(2):add(1e-8):expandAs(conf)) end
  return conf
end

return MultiLabelConfusionMeter
