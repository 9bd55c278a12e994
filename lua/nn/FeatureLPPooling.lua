-- nn.FeatureLPPooling(width, stride, power [, batch_mode = false]): Torch7's p-norm pooling across
-- features: output feature o is (sum of x^power over input features (o-1)*stride + 1 ..
-- (o-1)*stride + width)^(1/power). The feature dim is the first (batch_mode: the second) of 1-3
-- dims (batch_mode: 2-4); it shrinks to (nFeature - width) / stride + 1. Gradients by hand, as
-- Torch7's: grad * (x / output)^(power - 1), nothing where the output is 0.
local S = require 'nn.support'
local F = require 'nn.functional_pool'
local FeatureLPPooling, parent = torch.class('nn.FeatureLPPooling', 'nn.Module')

function FeatureLPPooling:__init(width, stride, power, batch_mode)
  parent.__init(self)
  local name = 'nn.FeatureLPPooling'
  -- Torch7's limits (its kernels unrolled the window)
  local function str(v) return type(v) == 'number' and tostring(v) or S.describe(v) end
  if not S.isint(width) or width < 2 or width > 16 then
    F.init_error(name, 'width must be an integer within 2 to 16, got %s', str(width))
  end
  if not S.isint(stride) or stride < 1 or stride > 4 then
    F.init_error(name, 'stride must be an integer within 1 to 4, got %s', str(stride))
  end
  if type(power) ~= 'number' or power ~= power or power == 0 then
    F.init_error(name, 'power must be a non-zero number, got %s', str(power))
  end
  if batch_mode ~= nil and type(batch_mode) ~= 'boolean' then
    F.init_error(name, 'batch_mode must be true or false, got %s', str(batch_mode))
  end
  self.width, self.stride, self.power = width, stride, power
  self.batch_mode = batch_mode or false
end

-- The feature dim of a checked input, and the output's feature count.
local function featureDim(self, input)
  local lo = self.batch_mode and 2 or 1
  if not torch.isTensor(input) or input:dim() < lo or input:dim() > lo + 2 or not nn.utils.isFloating(input) then
    S.fail(tostring(self), 'expected a floating-point tensor of %d to %d dims%s, got %s', lo, lo + 2,
      self.batch_mode and ' (batch x feature x ...)' or ' (feature x ...)', S.describe(input))
  end
  local fd = lo
  if input:size(fd) < self.width then
    S.fail(tostring(self), 'input of size %s has %d features, fewer than the width %d', S.sizestr(input),
      input:size(fd), self.width)
  end
  return fd, math.floor((input:size(fd) - self.width) / self.stride) + 1
end

-- The features at offset j (0-based) of each window: a strided view of x.
local function tap(x, fd, j, count, stride)
  return x:narrow(fd, j + 1, (count - 1) * stride + 1):unfold(fd, 1, stride):select(x:dim() + 1, 1)
end

function FeatureLPPooling:updateOutput(input)
  local fd, count = featureDim(self, input)
  local sum = torch.pow(tap(input, fd, 0, count, self.stride), self.power)
  for j = 1, self.width - 1 do sum:add(torch.pow(tap(input, fd, j, count, self.stride), self.power)) end
  self.output = sum:pow(1 / self.power)
  return self.output
end

function FeatureLPPooling:updateGradInput(input, gradOutput)
  if not self.gradInput then return end
  local fd, count = featureDim(self, input)
  S.gradLike(tostring(self), gradOutput, self.output)
  torch.noGrad(function()
    self.gradInput = self.gradInput:typeAs(input):resizeAs(input):zero()
    local zero = self.output:eq(0)
    for j = 0, self.width - 1 do
      local g = torch.cdiv(tap(input, fd, j, count, self.stride), self.output):pow(self.power - 1):cmul(gradOutput)
      tap(self.gradInput, fd, j, count, self.stride):add(g:maskedFill(zero, 0))
    end
  end)
  return self.gradInput
end

function FeatureLPPooling:__tostring__()
  -- Torch7's format, with the closing parenthesis it forgot
  return string.format('%s(w%d s%d power %g batch %d)', torch.type(self), self.width, self.stride, self.power,
    self.batch_mode and 1 or 0)
end

return FeatureLPPooling
