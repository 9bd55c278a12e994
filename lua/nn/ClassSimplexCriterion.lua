-- nn.ClassSimplexCriterion(nClasses): MSE between the input (nClasses values per sample) and the
-- vertex of a regular simplex that embeds the target class (Torch7; arXiv 1506.08230). The
-- vertices are the rows of self.simplex (nClasses x nClasses, unit norm, centred at the origin).
local S = require 'nn.support'
require 'nn.MSECriterion'
local ClassSimplexCriterion, parent = torch.class('nn.ClassSimplexCriterion', 'nn.MSECriterion')

-- The n + 1 vertices (rows, n coordinates each) of a regular simplex centred at the origin with
-- unit-norm vertices (Wikipedia's construction, Torch7's regsplex). The loop is over n.
local function regsplex(n)
  local a = torch.zeros(n + 1, n)
  for k = 1, n do
    if k == 1 then a[k][k] = 1
    else a[k][k] = math.sqrt(1 - a[{ { k }, { 1, k - 1 } }]:norm() ^ 2) end
    local c = (a[k][k] ^ 2 - 1 - 1 / n) / a[k][k]
    a[{ { k + 1, n + 1 }, { k } }]:fill(c)
  end
  return a
end

--- nn.ClassSimplexCriterion(nClasses): nClasses >= 2.
function ClassSimplexCriterion:__init(nClasses)
  S.argInt('nn.ClassSimplexCriterion', 'nClasses', nClasses, 2)
  parent.__init(self)
  self.nClasses = nClasses
  -- embedded in nClasses dims, one more than the minimum: critical for training (Torch7)
  local ok, simp = pcall(torch.zeros, nClasses, nClasses)  -- absurd sizes: an error naming the criterion
  if not ok then
    error(string.format('[nn.ClassSimplexCriterion] cannot allocate a %.0fx%.0f simplex: %s', nClasses, nClasses,
      (tostring(simp):gsub('^.-%] ', ''))), torch._lib.user_level())
  end
  simp:narrow(2, 1, nClasses - 1):copy(regsplex(nClasses - 1))
  self.simplex = simp
  self._target = torch.Tensor(nClasses)
end

local function name(self) return string.format('nn.ClassSimplexCriterion(%d)', self.nClasses) end

-- The simplex vertices of the target classes (a class number, or a vector of them), with the
-- input's type and size.
local function vertices(self, input, target)
  nn.utils.checkFloatInput(self, input, 'a floating-point input tensor')
  local K = self.nClasses
  local simplex = self.simplex
  if simplex:type() ~= input:type() then simplex = simplex:typeAs(input) end
  local idx = nn.utils.longBuffer(nil, simplex)
  if type(target) == 'number' then
    if not S.isint(target) or target < 1 or target > K then
      S.fail(name(self), 'target class must be in [1, %d], got %s', K, tostring(target))
    end
    idx:resize(1):fill(target)
  elseif torch.isTensor(target) and target:dim() == 1 then
    if nn.utils.isFloating(target) and torch.ne(target, torch.floor(target)):sum() > 0 then
      S.fail(name(self), 'target classes must be integers, got %s', S.describe(target))
    end
    idx:resize(target:size(1)):copy(target)
    if idx:nElement() > 0 and (idx:min() < 1 or idx:max() > K) then
      S.fail(name(self), 'target classes must be in [1, %d]', K)
    end
  else
    S.fail(name(self), 'expected a class number or a vector of them as target, got %s', S.describe(target))
  end
  if input:nElement() ~= idx:nElement() * K then
    S.fail(name(self), 'input is %s but %d target(s) need %d values', S.describe(input), idx:nElement(),
      idx:nElement() * K)
  end
  local t = simplex:index(1, idx)
  self._target = t
  return t:viewAs(input)
end

function ClassSimplexCriterion:updateOutput(input, target)
  return parent.updateOutput(self, input, vertices(self, input, target))
end

function ClassSimplexCriterion:updateGradInput(input, target)
  return parent.updateGradInput(self, input, vertices(self, input, target))
end

--- c:getPredictions(input): the dot products of each input row with every simplex vertex (N x nClasses).
function ClassSimplexCriterion:getPredictions(input)
  nn.utils.checkFloatInput(self, input, 'a floating-point input tensor')
  if input:dim() == 1 then input = input:view(1, -1) end
  if input:dim() ~= 2 or input:size(2) ~= self.nClasses then
    S.fail(name(self), 'expected a vector of %d values or N x %d, got %s', self.nClasses, self.nClasses,
      S.describe(input))
  end
  return torch.mm(input, self.simplex:typeAs(input):t())
end

--- c:getTopPrediction(input): the class of the nearest vertex (largest dot product) for each row.
function ClassSimplexCriterion:getTopPrediction(input)
  local prod = self:getPredictions(input)
  local _, maxs = prod:max(prod:dim())
  return maxs:view(-1)
end

return ClassSimplexCriterion
