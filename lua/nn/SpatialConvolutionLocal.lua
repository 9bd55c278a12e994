-- nn.SpatialConvolutionLocal(nInputPlane, nOutputPlane, iW, iH, kW, kH [, dW = 1, dH = 1]
-- [, padW = 0, padH = padW]): a locally connected layer: a convolution whose weights are untied,
-- one nOutputPlane x nInputPlane x kH x kW kernel per output position, so the input size is fixed
-- (nInputPlane x iH x iW, or a batch of them). weight oH x oW x nOutputPlane x nInputPlane x kH x kW,
-- bias nOutputPlane x oH x oW (Torch7's layouts).
-- Built on differentiable ops (Note [Composite modules]): the input's patches (unfold views) times
-- each position's kernel, one batched matrix product over the oH*oW positions.
local S = require 'nn.support'
local Co = require 'nn.composite'
local SpatialConvolutionLocal, parent = torch.class('nn.SpatialConvolutionLocal', 'nn.Module')
Co.install(SpatialConvolutionLocal)

local NAME = 'nn.SpatialConvolutionLocal'

function SpatialConvolutionLocal:__init(nInputPlane, nOutputPlane, iW, iH, kW, kH, dW, dH, padW, padH)
  parent.__init(self)
  self.nInputPlane = S.argInt(NAME, 'nInputPlane', nInputPlane, 1)
  self.nOutputPlane = S.argInt(NAME, 'nOutputPlane', nOutputPlane, 1)
  self.iW, self.iH = S.argInt(NAME, 'iW', iW, 1), S.argInt(NAME, 'iH', iH, 1)
  self.kW, self.kH = S.argInt(NAME, 'kW', kW, 1), S.argInt(NAME, 'kH', kH, 1)
  self.dW, self.dH = S.argInt(NAME, 'dW', dW or 1, 1), S.argInt(NAME, 'dH', dH or 1, 1)
  self.padW = S.argInt(NAME, 'padW', padW or 0, 0)
  self.padH = S.argInt(NAME, 'padH', padH or self.padW, 0)
  self.oW = math.floor((self.padW * 2 + iW - kW) / self.dW) + 1
  self.oH = math.floor((self.padH * 2 + iH - kH) / self.dH) + 1
  if self.oW < 1 or self.oH < 1 then
    error(string.format('[%s] illegal configuration: a %dx%d input (padding %d,%d) is smaller than the %dx%d kernel',
      NAME, iW, iH, self.padW, self.padH, kW, kH), torch._lib.user_level())
  end
  self.weight = torch.Tensor(self.oH, self.oW, nOutputPlane, nInputPlane, kH, kW)
  self.bias = torch.Tensor(nOutputPlane, self.oH, self.oW)
  self.gradWeight = torch.Tensor():resizeAs(self.weight)
  self.gradBias = torch.Tensor():resizeAs(self.bias)
  self:reset()
end

--- m:reset([stdv]): uniform(-stdv, stdv) weight and bias, stdv = 1/sqrt(kW*kH*nInputPlane) by default.
function SpatialConvolutionLocal:reset(stdv)
  return nn.utils.resetUniform(self, self.kW * self.kH * self.nInputPlane, stdv)
end

local function check_input(self, input)
  local n = torch.isTensor(input) and input:dim() or 0
  local ok = n == 3 or n == 4
  if ok then
    ok = input:size(n - 2) == self.nInputPlane and input:size(n - 1) == self.iH and input:size(n) == self.iW
  end
  if not ok then
    S.fail(tostring(self), 'expected an input of size %dx%dx%d or N x %dx%dx%d, got %s', self.nInputPlane, self.iH,
      self.iW, self.nInputPlane, self.iH, self.iW, S.describe(input))
  end
end

-- The differentiable forward (nn.composite installs updateOutput and the backward around it).
function SpatialConvolutionLocal:_compute(input)
  check_input(self, input)
  local x = input:dim() == 3 and input:view(1, self.nInputPlane, self.iH, self.iW) or input
  if self.padW > 0 or self.padH > 0 then
    x = nn.functional.pad(x, { self.padW, self.padW, self.padH, self.padH })
  end
  local N, L = x:size(1), self.oH * self.oW
  local K = self.nInputPlane * self.kH * self.kW
  -- N x C x oH x oW x kH x kW patches -> (oH*oW) x N x (C*kH*kW), the order of the weight's rows
  local cols = x:unfold(3, self.kH, self.dH):unfold(4, self.kW, self.dW):permute(3, 4, 1, 2, 5, 6)
    :contiguous():view(L, N, K)
  local w = self.weight:contiguous():view(L, self.nOutputPlane, K)
  local y = torch.bmm(cols, w:transpose(2, 3))  -- L x N x nOutputPlane
  y = y:view(self.oH, self.oW, N, self.nOutputPlane):permute(3, 4, 1, 2)
  y = torch.add(y, self.bias:view(1, self.nOutputPlane, self.oH, self.oW):expandAs(y))
  if input:dim() == 3 then y = y:view(self.nOutputPlane, self.oH, self.oW) end
  return y
end

function SpatialConvolutionLocal:__tostring__()
  local s = string.format('%s(%d -> %d, %dx%d, %dx%d', torch.typename(self), self.nInputPlane, self.nOutputPlane,
    self.iW, self.iH, self.kW, self.kH)
  if self.dW ~= 1 or self.dH ~= 1 or self.padW ~= 0 or self.padH ~= 0 then
    s = s .. string.format(', %d,%d', self.dW, self.dH)
  end
  if self.padW ~= 0 or self.padH ~= 0 then s = s .. string.format(', %d,%d', self.padW, self.padH) end
  return s .. ')'
end

return SpatialConvolutionLocal
