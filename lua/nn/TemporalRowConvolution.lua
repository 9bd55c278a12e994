-- nn.TemporalRowConvolution(inputFrameSize, kW [, dW = 1] [, featFirst = false]): a row-oriented 1-D
-- convolution: each feature (row) of a sequence convolved over time with its own kW kernel,
-- output[t][i] = bias[i] + sum_k weight[i][1][k] * input[dW*(t-1)+k][i]. Input nInputFrame x
-- inputFrameSize (or a batch of them); with featFirst, inputFrameSize x nInputFrame. weight
-- inputFrameSize x 1 x kW, bias inputFrameSize (Torch7's layouts).
-- Built on a grouped 1-D convolution (one group per feature) of differentiable ops
-- (Note [Composite modules]).
local S = require 'nn.support'
local Co = require 'nn.composite'
local TemporalRowConvolution, parent = torch.class('nn.TemporalRowConvolution', 'nn.Module')
Co.install(TemporalRowConvolution)

local NAME = 'nn.TemporalRowConvolution'

function TemporalRowConvolution:__init(inputFrameSize, kW, dW, featFirst)
  parent.__init(self)
  self.inputFrameSize = S.argInt(NAME, 'inputFrameSize', inputFrameSize, 1)
  self.kW = S.argInt(NAME, 'kW', kW, 1)
  self.dW = S.argInt(NAME, 'dW', dW or 1, 1)
  self.featFirst = featFirst and true or false
  self.weight = torch.Tensor(inputFrameSize, 1, kW)
  self.bias = torch.Tensor(inputFrameSize)
  self.gradWeight = torch.Tensor(inputFrameSize, 1, kW)
  self.gradBias = torch.Tensor(inputFrameSize)
  self:reset()
end

--- m:noBias(): drops the bias (returns m).
function TemporalRowConvolution:noBias() return nn.utils.noBias(self) end

--- m:reset([stdv]): uniform(-stdv, stdv) weight and bias, stdv = 1/sqrt(kW*inputFrameSize) by default.
function TemporalRowConvolution:reset(stdv)
  return nn.utils.resetUniform(self, self.kW * self.inputFrameSize, stdv)
end

-- The differentiable forward (nn.composite installs updateOutput and the backward around it).
function TemporalRowConvolution:_compute(input)
  local n, F = input:dim(), self.inputFrameSize
  local fdim, tdim = n, n - 1  -- feature and time dims
  if self.featFirst then fdim, tdim = n - 1, n end
  if (n ~= 2 and n ~= 3) or input:size(fdim) ~= F or input:size(tdim) < self.kW then
    local layout = self.featFirst and string.format('%d x nInputFrame', F) or string.format('nInputFrame x %d', F)
    S.fail(tostring(self), 'expected a %s input (or a batch of them) of at least %d frames, got %s', layout, self.kW,
      S.describe(input))
  end
  local x = n == 2 and input:view(1, input:size(1), input:size(2)) or input
  if not self.featFirst then x = x:transpose(2, 3) end  -- N x F x T
  local y = torch.conv1d(x, self.weight, self.bias, self.dW, 0, 1, F)
  if not self.featFirst then y = y:transpose(2, 3):contiguous() end
  if n == 2 then y = y:view(y:size(2), y:size(3)) end
  return y
end

function TemporalRowConvolution:__tostring__()
  local s = string.format('%s(%d, %d', torch.typename(self), self.inputFrameSize, self.kW)
  if self.dW ~= 1 then s = s .. string.format(', %d', self.dW) end
  return s .. (self.bias and ')' or ') without bias')
end

return TemporalRowConvolution
