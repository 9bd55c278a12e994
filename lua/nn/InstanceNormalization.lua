-- nn.InstanceNormalization(nFeatures [, eps = 1e-5] [, momentum = 0.1] [, affine = false]
-- [, trackRunningStats = false]): PyTorch's InstanceNorm1d/2d/3d in one class: each channel of
-- each sample normalized over its positions. Input N x C x ... (3 to 5 dims), or one sample
-- C x ... (2 to 4 dims): the input is a batch when it has 3+ dims and size(2) == nFeatures.
-- With trackRunningStats, training updates running_mean/running_var and evaluation uses them.
-- Differentiated through nn.functional.instanceNorm's ops.
local A = require 'nn.functional_args'
local IN, parent = torch.class('nn.InstanceNormalization', 'nn.Module')

function IN:__init(nFeatures, eps, momentum, affine, trackRunningStats)
  parent.__init(self)
  local name = 'nn.InstanceNormalization'
  if type(nFeatures) ~= 'number' or nFeatures < 1 or nFeatures ~= math.floor(nFeatures) then
    A.fail(name, 'nFeatures must be a positive integer, got %s', tostring(nFeatures))
  end
  self.nFeatures = nFeatures
  self.eps = A.number(name, eps, 'eps', 1e-5)
  self.momentum = A.number(name, momentum, 'momentum', 0.1)
  self.affine = A.bool(name, affine, 'affine', false)
  self.trackRunningStats = A.bool(name, trackRunningStats, 'trackRunningStats', false)
  if self.affine then
    self.weight, self.bias = torch.Tensor(nFeatures), torch.Tensor(nFeatures)
    self.gradWeight, self.gradBias = torch.Tensor(nFeatures):zero(), torch.Tensor(nFeatures):zero()
  end
  if self.trackRunningStats then
    self.running_mean, self.running_var = torch.zeros(nFeatures), torch.ones(nFeatures)
    self._stateBuffers = { 'running_mean', 'running_var' }
  end
  self:reset()
end

--- m:reset(): weight 1, bias 0, running mean 0 and variance 1 (PyTorch's initialization).
function IN:reset()
  if self.weight then
    self.weight:fill(1) self.bias:zero() self.gradWeight:zero() self.gradBias:zero()
  end
  if self.running_mean then self.running_mean:zero() self.running_var:fill(1) end
  nn.utils.linkGradients(self)
  return self
end

function IN:updateOutput(input)
  nn.utils.checkFloatInput(self, input)
  local C, n = self.nFeatures, input:dim()
  local x
  if n >= 3 and n <= 5 and input:size(2) == C then x = input
  elseif n >= 2 and n <= 4 and input:size(1) == C then x = input:unsqueeze(1)
  else
    A.fail(tostring(self), 'expected N x %d x ... (3 to 5 dims) or %d x ... (2 to 4 dims), got %s', C, C,
      nn.utils.describe(input))
  end
  local track = self.running_mean ~= nil
  local use = self.train ~= false or not track
  -- the replay of Torch7's backward (below) must not move the running statistics a second time
  local stats = track and not (use and self._replaying)
  local y = nn.functional.instanceNorm(x, {
    runningMean = stats and self.running_mean or nil, runningVar = stats and self.running_var or nil,
    weight = self.weight, bias = self.bias, useInputStats = use,
    momentum = self.momentum, eps = self.eps })
  self.output = x == input and y or y:squeeze(1)
  return self.output
end

-- m:backward(input, gradOutput [, scale]): nn.Module's, which replays updateOutput under autograd
-- (nn.utils.autogradBackward): flagged so that the replay leaves the running statistics as the
-- forward left them (they moved twice per training step).
function IN:backward(input, gradOutput, scale)
  self._replaying = true
  local ok, err = pcall(parent.backward, self, input, gradOutput, scale)
  self._replaying = nil
  if not ok then error(err, 0) end
  return self.gradInput
end

function IN:__tostring__()
  local extra = ''
  if self.affine then extra = extra .. ', affine' end
  if self.trackRunningStats then extra = extra .. ', trackRunningStats' end
  return string.format('nn.InstanceNormalization(%d%s)', self.nFeatures, extra)
end

return IN
