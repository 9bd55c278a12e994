-- nn.MultiMarginCriterion([p=1][, weights][, margin=1]): the multi-class hinge loss. For a sample
-- x of C scores with class y (1-based): sum over i ~= y of max(0, margin - x[y] + x[i])^p * w[y],
-- divided by C, and averaged over the batch when sizeAverage (Torch7's THNN).
local MultiMarginCriterion, parent = torch.class('nn.MultiMarginCriterion', 'nn.Criterion')

--- nn.MultiMarginCriterion([p=1, weights, margin=1]); p is 1 or 2, weights one per class.
function MultiMarginCriterion:__init(p, weights, margin)
  parent.__init(self)
  if p ~= nil and p ~= 1 and p ~= 2 then error('[nn.MultiMarginCriterion] only p=1 and p=2 are supported, got ' .. tostring(p), torch._lib.user_level()) end
  if weights ~= nil and (not torch.isTensor(weights) or weights:dim() ~= 1) then
    error('[nn.MultiMarginCriterion] weights must be a 1-D tensor, got ' .. nn.utils.describe(weights), torch._lib.user_level())
  end
  self.p = p or 1
  self.margin = margin or 1
  self.weights = weights
  self.sizeAverage = true
end

-- (N x C scores, N x 1 LongTensor of 1-based classes) checked.
function MultiMarginCriterion:_prepare(input, target)
  nn.utils.checkFloatInput(self, input)
  if input:dim() ~= 1 and input:dim() ~= 2 then
    error(string.format('[%s] expected a vector or a batch (N x C) of scores, got %s', tostring(self),
      nn.utils.describe(input)), torch._lib.user_level())
  end
  local x = input:dim() == 1 and input:view(1, -1) or input
  local n, c = x:size(1), x:size(2)
  local t
  if type(target) == 'number' then
    -- A LongTensor on the input's device, also after :type()/:cuda() converted the old one.
    self._t1 = nn.utils.longBuffer(self._t1, x):resize(1):fill(target)
    t = self._t1
  elseif torch.isTensor(target) then
    t = target.p.dtype == 4 and target or target:to('torch.LongTensor')
  else
    error(string.format('[%s] target must be a class number or a tensor of them, got %s', tostring(self),
      nn.utils.describe(target)), torch._lib.user_level())
  end
  if t:nElement() ~= n then
    error(string.format('[%s] %d targets for a batch of %d', tostring(self), t:nElement(), n), torch._lib.user_level())
  end
  if n > 0 and (t:min() < 1 or t:max() > c) then
    error(string.format('[%s] target out of range: classes are 1..%d, got %d..%d', tostring(self), c, t:min(), t:max()), torch._lib.user_level())
  end
  if self.weights and self.weights:nElement() ~= c then
    error(string.format('[%s] %d weights for %d classes', tostring(self), self.weights:nElement(), c), torch._lib.user_level())
  end
  return x, t:contiguous():view(n, 1)
end

-- z = margin - x[y] + x (N x C) with the target column excluded through the mask `off`.
function MultiMarginCriterion:_margins(x, t)
  local xt = x:gather(2, t)
  self._z = torch.csub(nn.utils.buffer(self._z, x), x, xt):add(self.margin)
  self._off = torch.le(nn.utils.maskBuffer(self._off, self._z), self._z, 0)
  self._off:scatter(2, t, 1)
  return self._z, self._off
end

function MultiMarginCriterion:_classWeights(x, t)
  if not self.weights then return nil end
  return self.weights:typeAs(x):index(1, t:view(-1)):view(-1, 1)
end

function MultiMarginCriterion:updateOutput(input, target)
  local x, t = self:_prepare(input, target)
  local z, off = self:_margins(x, t)
  local h = z:clone():maskedFill(off, 0)
  if self.p == 2 then h:cmul(h) end
  local w = self:_classWeights(x, t)
  if w then h:cmul(w:expandAs(h)) end
  local s = h:sum() / x:size(2)
  self.output = self.sizeAverage and s / x:size(1) or s
  return self.output
end

-- d/dx[i] = g (p = 1) or 2 g z (p = 2) where z > 0, i ~= y; d/dx[y] = -(sum of those).
function MultiMarginCriterion:updateGradInput(input, target)
  local x, t = self:_prepare(input, target)
  local z, off = self:_margins(x, t)
  local g = 1 / x:size(2)
  if self.sizeAverage then g = g / x:size(1) end
  local gi = nn.utils.buffer(self._gi, x)
  self._gi = gi
  if self.p == 2 then gi:resizeAs(z):copy(z):mul(2 * g) else gi:resizeAs(z):fill(g) end
  gi:maskedFill(off, 0)
  local w = self:_classWeights(x, t)
  if w then gi:cmul(w:expandAs(gi)) end
  gi:scatter(2, t, gi:sum(2):mul(-1))
  self.gradInput = input:dim() == 1 and gi:view(-1) or gi
  return self.gradInput
end

return MultiMarginCriterion
