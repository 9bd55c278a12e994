-- tnt.APMeter (Torch7 torchnet's meter/apmeter.lua): average precision per class of the scores
-- added so far, optionally with a weight per example.
local torch = require 'torch'
local tnt = require 'torchnet.env'
local argcheck = require 'torchnet.argcheck'
local Meter = require 'torchnet.meter'

local APMeter = torch.class('tnt.APMeter', 'tnt.Meter', tnt)

--- tnt.APMeter(): a meter of the average precision of each of K classes (N x K scores, 0/1 targets).
--- Example: local tnt = require 'torchnet'; local m = tnt.APMeter()
---   m:add(torch.Tensor{0.9, 0.8, 0.3}, torch.Tensor{1, 0, 1}); local ap = m:value()[1]  -- (1/1 + 2/3) / 2
function APMeter:__init()
  self:reset()
end

--- apmeter:reset(): forgets the examples.
--- Example: local tnt = require 'torchnet'; local m = tnt.APMeter(); m:reset()
function APMeter:reset()
  -- Note [Growing buffers]: rows are appended into buffers that grow by half, as torchnet's
  -- storages did, so adding N batches copies O(total) elements rather than O(N * total).
  self.__buf = nil
  self.n = 0
  self.weighted = nil
  self.scores = torch.DoubleTensor()
  self.targets = torch.LongTensor()
  self.weights = torch.DoubleTensor()
end

local add_args = argcheck.parser{ name = 'tnt.APMeter.add',
  { name = 'output', type = 'torch.*Tensor' }, { name = 'target', type = 'torch.*Tensor' },
  { name = 'weight', type = 'torch.*Tensor', opt = true } }

local function as2d(fname, what, x)
  if x:dim() == 1 then return x:view(x:size(1), 1) end
  if x:dim() ~= 2 then
    error(string.format('[%s] wrong %s size %s (should be 1D or 2D with one column per class)', fname, what,
      table.concat(x:size():totable(), 'x')), 4)
  end
  return x
end

--- apmeter:add(output, target[, weight]): output and target are N x K (or N-vectors for one class);
--- targets are 0 or 1; weight (N, >= 0) weighs the examples (all adds must then give one).
--- Example: local tnt = require 'torchnet'; local m = tnt.APMeter()
---   m:add(torch.Tensor{{0.9, 0.1}, {0.2, 0.6}}, torch.Tensor{{1, 0}, {0, 1}}, torch.Tensor{1, 2})
function APMeter:add(...)
  local output, target, weight = add_args(...)
  local fname = torch.type(self) == 'tnt.mAPMeter' and 'tnt.mAPMeter.add' or 'tnt.APMeter.add'
  output = as2d(fname, 'output', output):double()
  target = as2d(fname, 'target', target)
  local n, k = output:size(1), output:size(2)
  if target:size(1) ~= n or target:size(2) ~= k then
    error(string.format('[%s] dimensions for output (%dx%d) and target (%dx%d) do not match', fname, n, k,
      target:size(1), target:size(2)), 2)
  end
  if not Meter.__check.binary(target) then error(string.format('[%s] targets should be binary (0 or 1)', fname), 2) end
  if weight then
    if weight:nElement() ~= n then
      error(string.format('[%s] weight should hold one value per example (%d), got %d', fname, n, weight:nElement()), 2)
    end
    weight = weight:contiguous():view(n):double()
    if n > 0 and weight:min() < 0 then error(string.format('[%s] weight should be non-negative only', fname), 2) end
  end
  if self.__buf and k ~= self.__buf.scores:size(2) then
    error(string.format('[%s] dimensions for output (%d classes) should match previously added examples (%d)', fname, k,
      self.__buf.scores:size(2)), 2)
  end
  if self.weighted ~= nil and self.weighted ~= (weight ~= nil) then
    error(string.format('[%s] give a weight with every add or with none', fname), 2)
  end
  self.weighted = weight ~= nil
  local total = self.n + n
  local buf = self.__buf
  if not buf or buf.scores:size(1) < total then
    local cap = math.max(total, math.ceil((buf and buf.scores:size(1) or 0) * 1.5), 16)
    local new = { scores = torch.DoubleTensor(cap, k), targets = torch.LongTensor(cap, k), weights = torch.DoubleTensor(cap) }
    if self.n > 0 then
      new.scores:narrow(1, 1, self.n):copy(self.scores)
      new.targets:narrow(1, 1, self.n):copy(self.targets)
      new.weights:narrow(1, 1, self.n):copy(buf.weights:narrow(1, 1, self.n))
    end
    buf = new
    self.__buf = buf
  end
  if n > 0 then
    buf.scores:narrow(1, self.n + 1, n):copy(output)
    buf.targets:narrow(1, self.n + 1, n):copy(target)
    buf.weights:narrow(1, self.n + 1, n):copy(weight or torch.DoubleTensor(n):fill(1))
  end
  self.n = total
  self.scores = buf.scores:narrow(1, 1, total)
  self.targets = buf.targets:narrow(1, 1, total)
  self.weights = self.weighted and buf.weights:narrow(1, 1, total) or torch.DoubleTensor()
end

--- apmeter:value(): a K-vector (DoubleTensor) of average precisions: for each class, the mean over
--- its positives of the precision at their rank when sorting by decreasing score (with weights:
--- weighted true positives over weighted count); 0 for a class without positives.
--- Example: local tnt = require 'torchnet'; local m = tnt.APMeter(); m:add(torch.Tensor{0.1, 0.9}, torch.Tensor{0, 1}); local ap = m:value()  -- {1}
function APMeter:value()
  if self.n == 0 then return torch.DoubleTensor() end
  local n, k = self.n, self.scores:size(2)
  local _, sortind = self.scores:sort(1, true)
  local truth = self.targets:gather(1, sortind):double()
  local tp, range
  if self.weighted then
    local w = self.weights:view(n, 1):expand(n, k):gather(1, sortind)
    tp = torch.cmul(truth, w):cumsum(1)
    range = w:cumsum(1)
  else
    tp = truth:cumsum(1)
    range = torch.range(1, n):double():view(n, 1):expand(n, k)
  end
  local precision = tp:cdiv(range)
  return precision:cmul(truth):sum(1):view(k):cdiv(truth:sum(1):view(k):clamp(1, math.huge))
end

return APMeter
