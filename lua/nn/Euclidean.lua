-- nn.Euclidean(inputSize, outputSize): y_j = ||x - w_j||_2 for the columns w_j of an
-- inputSize x outputSize weight, for a vector or a batch of rows.
local S = require 'nn.support'
local Euclidean, parent = torch.class('nn.Euclidean', 'nn.Module')

function Euclidean:__init(inputSize, outputSize)
  parent.__init(self)
  S.argInt('nn.Euclidean', 'inputSize', inputSize, 1)
  S.argInt('nn.Euclidean', 'outputSize', outputSize, 1)
  self.weight = torch.Tensor(inputSize, outputSize)
  self.gradWeight = torch.Tensor(inputSize, outputSize)
  self:reset()
end

local function name(self) return string.format('nn.Euclidean(%d -> %d)', self.weight:size(1), self.weight:size(2)) end

--- e:reset([stdv]): uniform(-stdv, stdv) weight, stdv = 1/sqrt(inputSize) by default.
function Euclidean:reset(stdv)
  stdv = stdv and stdv * math.sqrt(3) or 1 / math.sqrt(self.weight:size(1))
  self.weight:uniform(-stdv, stdv)
  self.gradWeight:zero()
  nn.utils.linkGradients(self)
  return self
end

-- x - w_j for every sample and column: N x inputSize x outputSize.
local function differences(self, input)
  local I, O = self.weight:size(1), self.weight:size(2)
  if not torch.isTensor(input) or (input:dim() ~= 1 and input:dim() ~= 2) or input:size(input:dim()) ~= I then
    S.fail(name(self), 'expected a vector of %d features or a batch (N x %d), got %s', I, I, S.describe(input))
  end
  local x = input:dim() == 1 and input:view(1, I) or input
  local N = x:size(1)
  return torch.csub(x:contiguous():view(N, I, 1):expand(N, I, O), self.weight:view(1, I, O):expand(N, I, O)), N, I, O
end

function Euclidean:updateOutput(input)
  local diff, N, _, O = differences(self, input)
  local y = torch.norm(diff, 2, 2):view(N, O)
  self.output = input:dim() == 1 and y:view(O) or y
  return self.output
end

-- dy_j/dx = (x - w_j) / y_j = -dy_j/dw_j, with 1e-7 added to y (Torch7) against division by zero.
local function scaled(self, input, gradOutput)
  local diff, N, I, O = differences(self, input)
  if not torch.isTensor(gradOutput) or gradOutput:nElement() ~= N * O then
    S.fail(name(self), 'gradOutput is %s, expected %d x %d values', S.describe(gradOutput), N, O)
  end
  local y = torch.norm(diff, 2, 2):add(1e-7)
  local w = torch.cdiv(gradOutput:contiguous():view(N, 1, O), y)
  return diff:cmul(w:expand(N, I, O)), N, I, O
end

-- The gradients below are computed by hand, so they run with recording off even when called
-- directly (nn.Jacobian, Torch7 scripts) rather than through Module:backward: recorded, the
-- in-place cmul on diff (which norm saved) closes a cycle node -> saved diff -> its new grad_fn ->
-- ... -> norm's node that reference counting never frees (LeakSanitizer found it).
function Euclidean:updateGradInput(input, gradOutput)
  local t, N, I = torch.noGrad(scaled, self, input, gradOutput)
  self.gradInput = t:sum(3):view(input:dim() == 1 and torch.LongStorage({ I }) or torch.LongStorage({ N, I }))
  return self.gradInput
end

function Euclidean:accGradParameters(input, gradOutput, scale)
  torch.noGrad(function()
    local t, _, I, O = scaled(self, input, gradOutput)
    self.gradWeight:add(-(scale or 1), t:sum(1):view(I, O))
  end)
end

return Euclidean
