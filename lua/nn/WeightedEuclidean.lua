-- nn.WeightedEuclidean(inputSize, outputSize): y_j = || c_j .* (x - w_j) ||_2 for the columns w_j
-- of an inputSize x outputSize weight and c_j of a diagonal covariance diagCov of the same size
-- (Torch7's fields), for a vector or a batch of rows.
local S = require 'nn.support'

local WeightedEuclidean, parent = torch.class('nn.WeightedEuclidean', 'nn.Module')

function WeightedEuclidean:__init(inputSize, outputSize)
  parent.__init(self)
  S.argInt('nn.WeightedEuclidean', 'inputSize', inputSize, 1)
  S.argInt('nn.WeightedEuclidean', 'outputSize', outputSize, 1)
  self.weight = S.alloc('nn.WeightedEuclidean', inputSize, outputSize)
  self.gradWeight = torch.Tensor(inputSize, outputSize)
  self.diagCov = torch.Tensor(inputSize, outputSize)
  self.gradDiagCov = torch.Tensor(inputSize, outputSize)
  self:reset()
end

local function name(self)
  return string.format('nn.WeightedEuclidean(%d -> %d)', self.weight:size(1), self.weight:size(2))
end

--- m:reset([stdv]): uniform(-stdv, stdv) weight (stdv = 1/sqrt(inputSize) by default) and a diagCov of ones.
function WeightedEuclidean:reset(stdv)
  stdv = stdv and stdv * math.sqrt(3) or 1 / math.sqrt(self.weight:size(1))
  self.weight:uniform(-stdv, stdv)
  self.diagCov:fill(1)
  self.gradWeight:zero()
  self.gradDiagCov:zero()
  nn.utils.linkGradients(self)
  return self
end

--- m:parameters(): {weight, diagCov}, {gradWeight, gradDiagCov} (Torch7).
function WeightedEuclidean:parameters()
  return { self.weight, self.diagCov }, { self.gradWeight, self.gradDiagCov }
end

-- x - w_j for every sample and column (N x I x O), and N, I, O.
local function differences(self, input)
  local I, O = self.weight:size(1), self.weight:size(2)
  if not torch.isTensor(input) or not nn.utils.isFloating(input) or (input:dim() ~= 1 and input:dim() ~= 2)
      or input:size(input:dim()) ~= I then
    S.fail(name(self), 'expected a vector of %d features or a batch (N x %d), got %s', I, I, S.describe(input))
  end
  local x = input:dim() == 1 and input:view(1, I) or input
  local N = x:size(1)
  return torch.csub(x:contiguous():view(N, I, 1):expand(N, I, O), self.weight:view(1, I, O):expand(N, I, O)), N, I, O
end

function WeightedEuclidean:updateOutput(input)
  local diff, N, I, O = differences(self, input)
  diff:cmul(self.diagCov:view(1, I, O):expand(N, I, O))
  local y = torch.norm(diff, 2, 2):view(N, O)
  self.output = input:dim() == 1 and y:view(O) or y
  return self.output
end

-- (x - w_j) (N x I x O) and gradOutput / (y_j + 1e-7) expanded to N x I x O (Torch7's guard
-- against dividing by zero).
local function scaled(self, input, gradOutput)
  local diff, N, I, O = differences(self, input)
  S.gradLike(name(self), gradOutput, input:dim() == 1 and { O } or { N, O })
  local c = self.diagCov:view(1, I, O):expand(N, I, O)
  local y = torch.norm(torch.cmul(diff, c), 2, 2):add(1e-7)
  local w = torch.cdiv(gradOutput:contiguous():view(N, 1, O), y):expand(N, I, O)
  return diff, w, c, N, I, O
end

-- dy_j/dx = c_j^2 (x - w_j) / y_j = -dy_j/dw_j. Computed with recording off (see nn.Euclidean).
function WeightedEuclidean:updateGradInput(input, gradOutput)
  self.gradInput = torch.noGrad(function()
    local diff, w, c, N, I = scaled(self, input, gradOutput)
    local gi = diff:cmul(w):cmul(c):cmul(c):sum(3)
    return input:dim() == 1 and gi:view(I) or gi:view(N, I)
  end)
  return self.gradInput
end

-- dy_j/dc_j = c_j (x - w_j)^2 / y_j.
function WeightedEuclidean:accGradParameters(input, gradOutput, scale)
  scale = scale or 1
  if type(scale) ~= 'number' then S.fail(name(self), 'scale must be a number, got %s', S.describe(scale)) end
  torch.noGrad(function()
    local diff, w, c, _, I, O = scaled(self, input, gradOutput)
    local gw = torch.cmul(diff, w):cmul(c):cmul(c):sum(1):view(I, O)
    local gc = diff:cmul(diff):cmul(w):cmul(c):sum(1):view(I, O)
    self.gradWeight:add(-scale, gw)
    self.gradDiagCov:add(scale, gc)
  end)
end

--- m:accUpdateGradParameters(input, gradOutput, lr): weight and diagCov move by -lr times their gradients.
function WeightedEuclidean:accUpdateGradParameters(input, gradOutput, lr)
  local gw, gc = self.gradWeight, self.gradDiagCov
  -- both gradients are computed before either parameter moves
  local tw, tc = gw.new(gw:size()):zero(), gc.new(gc:size()):zero()
  self.gradWeight, self.gradDiagCov = tw, tc
  local ok, err = pcall(self.accGradParameters, self, input, gradOutput, 1)
  self.gradWeight, self.gradDiagCov = gw, gc
  if not ok then error(err, 0) end
  torch.noGrad(function()
    self.weight:add(-lr, tw)
    self.diagCov:add(-lr, tc)
  end)
end

return WeightedEuclidean
