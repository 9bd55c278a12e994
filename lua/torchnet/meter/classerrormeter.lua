-- tnt.ClassErrorMeter (Torch7 torchnet's meter/classerrormeter.lua): the top-k classification
-- error (or accuracy), in percent, for one or several k.
local torch = require 'torch'
local tnt = require 'torchnet.env'
local argcheck = require 'torchnet.argcheck'
local Meter = require 'torchnet.meter'

local ClassErrorMeter = torch.class('tnt.ClassErrorMeter', 'tnt.Meter', tnt)

local args = argcheck.parser{ name = 'tnt.ClassErrorMeter', noordered = true,
  { name = 'topk', type = 'table', default = { 1 } },
  { name = 'accuracy', type = 'boolean', default = false },
}

--- tnt.ClassErrorMeter{[topk={1}, accuracy=false]}: a meter of the percentage of examples whose
--- target is not among the k highest scores, for each k in topk (the percentage that is, with accuracy).
--- Example: local tnt = require 'torchnet'; local m = tnt.ClassErrorMeter{topk = {1, 2}}
---   m:add(torch.Tensor{{0.1, 0.7, 0.2}, {0.5, 0.1, 0.4}}, torch.LongTensor{3, 1})  -- m:value(1) == 50, m:value(2) == 0
function ClassErrorMeter:__init(...)
  local topk, accuracy = args(...)
  local ks = {}
  for i, k in ipairs(topk) do
    if type(k) ~= 'number' or k < 1 or k ~= math.floor(k) then
      error(string.format('[tnt.ClassErrorMeter] topk[%d] should be a positive integer, got %s', i, tostring(k)), 2)
    end
    ks[i] = k
  end
  if #ks == 0 then error('[tnt.ClassErrorMeter] topk should list at least one k', 2) end
  table.sort(ks)
  self.topk = ks
  self.accuracy = accuracy
  self:reset()
end

--- classerrormeter:reset(): forgets the examples.
--- Example: local tnt = require 'torchnet'; local m = tnt.ClassErrorMeter(); m:reset()
function ClassErrorMeter:reset()
  self.sum = {}
  for _, k in ipairs(self.topk) do self.sum[k] = 0 end
  self.n = 0
end

local add_args = argcheck.parser{ name = 'tnt.ClassErrorMeter.add',
  { name = 'output', type = 'torch.*Tensor' }, { name = 'target', type = 'torch.*Tensor|number' } }

--- classerrormeter:add(output, target): output holds the scores of N examples for K classes (N x K,
--- or a K-vector for one example), target their classes in 1..K (N values).
--- Example: local tnt = require 'torchnet'; local m = tnt.ClassErrorMeter(); m:add(torch.Tensor{0.2, 0.8}, torch.LongTensor{2})
function ClassErrorMeter:add(...)
  local output, target = add_args(...)
  local fname = 'tnt.ClassErrorMeter.add'
  output = Meter.__check.scores2d(fname, output)
  if type(target) == 'number' then target = torch.LongTensor{ target } end
  local no, nc = output:size(1), output:size(2)
  if target:nElement() ~= no then
    error(string.format('[%s] target and output do not match: %d targets for %d examples', fname, target:nElement(), no), 2)
  end
  target = target:contiguous():view(no):long()
  if no > 0 and (target:min() < 1 or target:max() > nc) then
    error(string.format('[%s] targets should be classes in 1..%d, got values in %d..%d', fname, nc, target:min(), target:max()), 2)
  end
  local maxk = self.topk[#self.topk]
  if maxk > nc then
    error(string.format('[%s] topk %d is larger than the number of classes %d', fname, maxk, nc), 2)
  end
  local _, pred = output:topk(maxk, 2, true, true)
  local correct = pred:eq(target:view(no, 1):expandAs(pred))
  for _, k in ipairs(self.topk) do
    self.sum[k] = self.sum[k] + no - correct:narrow(2, 1, k):sum()
  end
  self.n = self.n + no
end

--- classerrormeter:value([k]) or value{k=}: the top-k error in percent (accuracy when asked at
--- construction) for k (one of topk), or a table k -> value for all of them.
--- Example: local tnt = require 'torchnet'; local m = tnt.ClassErrorMeter{accuracy = true}
---   m:add(torch.Tensor{{0.2, 0.8}}, torch.LongTensor{2}); local acc = m:value()[1]  -- 100
function ClassErrorMeter:value(k)
  if type(k) == 'table' then k = k.k end  -- value{k = 1}, torchnet's named form
  if k then
    if not self.sum[k] then
      error(string.format('[tnt.ClassErrorMeter.value] invalid k %s (this k was not provided at construction time)', tostring(k)), 2)
    end
    return self.accuracy and (1 - self.sum[k] / self.n) * 100 or self.sum[k] * 100 / self.n
  end
  local value = {}
  for _, kk in ipairs(self.topk) do value[kk] = self:value(kk) end
  return value
end

return ClassErrorMeter
