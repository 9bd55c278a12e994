-- nn.SpatialDepthWiseConvolution(nInputPlane, depthwiseMultiplier, kW, kH [, dW = 1, dH = 1]
-- [, padW = 0, padH = padW]): each input plane convolved on its own with depthwiseMultiplier kernels,
-- giving nOutputPlane = nInputPlane * depthwiseMultiplier planes; output plane (i-1)*multiplier + m
-- comes from input plane i with kernel weight[m][i] and bias[m][i]. Torch7's layouts: weight
-- depthwiseMultiplier x (nInputPlane*kH*kW), bias depthwiseMultiplier x nInputPlane.
-- Built on a grouped convolution (groups = nInputPlane) of differentiable ops (Note [Composite modules]).
local S = require 'nn.support'
local Co = require 'nn.composite'
local SpatialDepthWiseConvolution, parent = torch.class('nn.SpatialDepthWiseConvolution', 'nn.Module')
Co.install(SpatialDepthWiseConvolution)

local NAME = 'nn.SpatialDepthWiseConvolution'

function SpatialDepthWiseConvolution:__init(nInputPlane, depthwiseMultiplier, kW, kH, dW, dH, padW, padH)
  parent.__init(self)
  self.nInputPlane = S.argInt(NAME, 'nInputPlane', nInputPlane, 1)
  self.depthwiseMultiplier = S.argInt(NAME, 'depthwiseMultiplier', depthwiseMultiplier, 1)
  self.nOutputPlane = nInputPlane * depthwiseMultiplier
  self.kW, self.kH = S.argInt(NAME, 'kW', kW, 1), S.argInt(NAME, 'kH', kH, 1)
  self.dW, self.dH = S.argInt(NAME, 'dW', dW or 1, 1), S.argInt(NAME, 'dH', dH or 1, 1)
  self.padW = S.argInt(NAME, 'padW', padW or 0, 0)
  self.padH = S.argInt(NAME, 'padH', padH or self.padW, 0)
  self.weight = torch.Tensor(depthwiseMultiplier, nInputPlane * kH * kW)
  self.bias = torch.Tensor(depthwiseMultiplier, nInputPlane)
  self.gradWeight = torch.Tensor(depthwiseMultiplier, nInputPlane * kH * kW)
  self.gradBias = torch.Tensor(depthwiseMultiplier, nInputPlane)
  self:reset()
end

--- m:noBias(): drops the bias (returns m).
function SpatialDepthWiseConvolution:noBias() return nn.utils.noBias(self) end

--- m:reset([stdv]): uniform(-stdv, stdv) weight and bias, stdv = 1/sqrt(kW*kH*nInputPlane) by default
--- (Torch7's rule).
function SpatialDepthWiseConvolution:reset(stdv)
  return nn.utils.resetUniform(self, self.kW * self.kH * self.nInputPlane, stdv)
end

--- m:afterLoad(): files of Torch7's first version (no depthwiseMultiplier) kept the multiplier in
--- nOutputPlane; older ones a single `padding`.
function SpatialDepthWiseConvolution:afterLoad()
  if self.depthwiseMultiplier == nil and self.nOutputPlane then
    self.depthwiseMultiplier = self.nOutputPlane
    self.nOutputPlane = self.depthwiseMultiplier * self.nInputPlane
  end
  if self.padding then self.padW, self.padH, self.padding = self.padding, self.padding, nil end
  parent.afterLoad(self)
end

-- The differentiable forward (nn.composite installs updateOutput and the backward around it).
function SpatialDepthWiseConvolution:_compute(input)
  local n = input:dim()
  local C, mult = self.nInputPlane, self.depthwiseMultiplier
  if (n ~= 3 and n ~= 4) or input:size(n - 2) ~= C or input:size(n - 1) + 2 * self.padH < self.kH
      or input:size(n) + 2 * self.padW < self.kW then
    S.fail(tostring(self), 'expected a %d x H x W or N x %d x H x W input at least as large as the %dx%d kernel '
      .. '(padding %d,%d), got %s', C, C, self.kW, self.kH, self.padW, self.padH, S.describe(input))
  end
  -- grouped convolution weight: row (i-1)*mult + m is weight[m][i]
  local w = self.weight:view(mult, C, self.kH, self.kW):transpose(1, 2):reshape(C * mult, 1, self.kH, self.kW)
  local b = self.bias and self.bias:t():reshape(C * mult)
  return torch.conv2d(input, w, b, { self.dH, self.dW }, { self.padH, self.padW }, 1, C)
end

-- Torch7's format (the multiplier after the arrow).
function SpatialDepthWiseConvolution:__tostring__()
  local s = string.format('%s(%d -> %d, %dx%d', torch.typename(self), self.nInputPlane, self.depthwiseMultiplier,
    self.kW, self.kH)
  if self.dW ~= 1 or self.dH ~= 1 or self.padW ~= 0 or self.padH ~= 0 then
    s = s .. string.format(', %d,%d', self.dW, self.dH)
  end
  if self.padW ~= 0 or self.padH ~= 0 then s = s .. string.format(', %d,%d', self.padW, self.padH) end
  return s .. (self.bias and ')' or ') without bias')
end

return SpatialDepthWiseConvolution
