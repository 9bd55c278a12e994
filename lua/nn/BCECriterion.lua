-- nn.BCECriterion([weights][, sizeAverage=true]): binary cross-entropy of probabilities x in
-- [0, 1] against targets y: -sum w (y log(x + eps) + (1 - y) log(1 - x + eps)), eps = 1e-12
-- (Torch7's THNN), divided by the element count when sizeAverage. weights (a vector) weigh the
-- elements of a vector input, or the columns of a batch.
local BCECriterion, parent = torch.class('nn.BCECriterion', 'nn.Criterion')

local eps = 1e-12

--- nn.BCECriterion([weights, sizeAverage=true]).
function BCECriterion:__init(weights, sizeAverage)
  parent.__init(self)
  self.sizeAverage = sizeAverage == nil and true or sizeAverage
  if weights ~= nil and (not torch.isTensor(weights) or weights:dim() ~= 1) then
    error('[nn.BCECriterion] weights must be a 1-D tensor, got ' .. nn.utils.describe(weights), torch._lib.user_level())
  end
  self.weights = weights
end

-- The weights broadcast to input's shape (Torch7: a batch weighs its columns), or nil.
function BCECriterion:_weights(input)
  local w = self.weights
  if not w then return nil end
  if w.p.dtype ~= input.p.dtype then w = w:typeAs(input) end
  local n = input:dim() == 1 and input:nElement() or input:size(input:dim())
  if w:nElement() ~= n then
    error(string.format('[%s] %d weights for input %s (one per %s)', tostring(self), w:nElement(),
      nn.utils.describe(input), input:dim() == 1 and 'element' or 'column'), torch._lib.user_level())
  end
  if input:dim() == 1 then return w end
  local shape = {}
  for d = 1, input:dim() do shape[d] = 1 end
  shape[input:dim()] = n
  return w:view(unpack(shape)):expandAs(input)
end

function BCECriterion:_check(input, target)
  target = nn.utils.targetAs(self, input, target)
  if input:nElement() > 0 and (input:min() < 0 or input:max() > 1) then
    error(string.format('[%s] input values must lie in [0, 1] (probabilities), got values in [%g, %g]',
      tostring(self), input:min(), input:max()), torch._lib.user_level())
  end
  return target
end

function BCECriterion:updateOutput(input, target)
  target = self:_check(input, target)
  local w = self:_weights(input)
  local l1 = torch.add(nn.utils.buffer(self._l1, input), input, eps):log()
  local l0 = torch.mul(nn.utils.buffer(self._l0, input), input, -1):add(1 + eps):log()
  self._l1, self._l0 = l1, l0
  if w then l1:cmul(w) l0:cmul(w) end
  -- y l1 + (1 - y) l0 = y (l1 - l0) + l0
  local s = torch.dot(target, l1:add(-1, l0)) + l0:sum()
  s = -s
  self.output = self.sizeAverage and s / input:nElement() or s
  return self.output
end

-- d/dx = -w (y - x) / ((1 - x + eps) (x + eps)).
function BCECriterion:updateGradInput(input, target)
  target = self:_check(input, target)
  local w = self:_weights(input)
  local norm = self.sizeAverage and 1 / input:nElement() or 1
  local d = torch.mul(nn.utils.buffer(self._l0, input), input, -1):add(1 + eps)
  self._l0 = d
  d:cmul(torch.add(nn.utils.buffer(self._l1, input), input, eps))
  self.gradInput = torch.csub(self.gradInput, input, target):cdiv(d):mul(norm)
  if w then self.gradInput:cmul(w) end
  return self.gradInput
end

return BCECriterion
