-- nn.VolumetricConvolution(nInputPlane, nOutputPlane, kT, kW, kH [, dT = 1, dW = 1, dH = 1]
-- [, padT = 0, padW = padT, padH = padW]): 3-D convolution of C x T x H x W or N x C x T x H x W
-- inputs with a weight nOutputPlane x nInputPlane x kT x kH x kW (Torch7's argument order and layout).
require 'nn.conv_utils'
local cu = nn.conv_utils
local C, check = cu.C, cu.check
local VolumetricConvolution, parent = torch.class('nn.VolumetricConvolution', 'nn.Module')

function VolumetricConvolution:__init(nInputPlane, nOutputPlane, kT, kW, kH, dT, dW, dH, padT, padW, padH)
  parent.__init(self)
  self.nInputPlane, self.nOutputPlane = nInputPlane, nOutputPlane
  self.kT, self.kW, self.kH = kT, kW, kH
  self.dT, self.dW, self.dH = dT or 1, dW or 1, dH or 1
  self.padT = padT or 0
  self.padW = padW or self.padT
  self.padH = padH or self.padW
  local checked = { nInputPlane, nOutputPlane, kT, kW, kH, self.dT, self.dW, self.dH }
  for k = 1, 8 do  -- not ipairs: it stops at a missing (nil) argument
    local v = checked[k]
    if type(v) ~= 'number' or v < 1 or v ~= math.floor(v) then
      error(string.format('[nn.VolumetricConvolution] expected positive integer sizes, got %s', tostring(v)), torch._lib.user_level())
    end
  end
  self.weight = torch.Tensor(nOutputPlane, nInputPlane, kT, kH, kW)
  self.gradWeight = torch.Tensor(nOutputPlane, nInputPlane, kT, kH, kW)
  self.bias = torch.Tensor(nOutputPlane)
  self.gradBias = torch.Tensor(nOutputPlane)
  self:reset()
end

--- m:noBias(): drops the bias (returns m).
function VolumetricConvolution:noBias() return nn.utils.noBias(self) end

--- m:reset([stdv]): uniform(-stdv, stdv) weight and bias, stdv = 1/sqrt(kT*kW*kH*nInputPlane) by default.
function VolumetricConvolution:reset(stdv)
  return nn.utils.resetUniform(self, self.kT * self.kW * self.kH * self.nInputPlane, stdv)
end

function VolumetricConvolution:_geometry()
  return { self.kT, self.kH, self.kW }, { self.dT, self.dH, self.dW }, { self.padT, self.padH, self.padW }
end

function VolumetricConvolution:updateOutput(input)
  local k, s, p = self:_geometry()
  cu.checkInput(self, input, 3, self.nInputPlane, k, p)
  check(C.tocha_conv_out(self.output.p, input.p, self.weight.p, self.bias and self.bias.p or nil, cu.options(3, 1, s, p)))
  return self.output
end

function VolumetricConvolution:updateGradInput(input, gradOutput)
  if not self.gradInput then return end
  local k, s, p = self:_geometry()
  local out = cu.outputSizes(input, 3, k, s, p)
  cu.checkGradOutput(self, gradOutput, input, { self.nOutputPlane, out[1], out[2], out[3] })
  local o = cu.backOptions(cu.options(3, 1, s, p), input, gradOutput, k)
  check(C.tocha_conv_transpose_out(self.gradInput.p, gradOutput.p, self.weight.p, nil, o))
  return self.gradInput
end

function VolumetricConvolution:accGradParameters(input, gradOutput, scale)
  local k, s, p = self:_geometry()
  local out = cu.outputSizes(input, 3, k, s, p)  -- the C op's message would not name the module
  cu.checkGradOutput(self, gradOutput, input, { self.nOutputPlane, out[1], out[2], out[3] })
  check(C.tocha_conv_weight_acc(self.gradWeight.p, self.bias and self.gradBias.p or nil, input.p, gradOutput.p,
    cu.options(3, 1, s, p), scale or 1, 1))
end

function VolumetricConvolution:__tostring__()
  local s = string.format('%s(%d -> %d, %dx%dx%d', torch.typename(self), self.nInputPlane, self.nOutputPlane,
    self.kT, self.kW, self.kH)
  if self.dT ~= 1 or self.dW ~= 1 or self.dH ~= 1 or self.padT ~= 0 or self.padW ~= 0 or self.padH ~= 0 then
    s = s .. string.format(', %d,%d,%d', self.dT, self.dW, self.dH)
  end
  if self.padT ~= 0 or self.padW ~= 0 or self.padH ~= 0 then
    s = s .. ', ' .. self.padT .. ',' .. self.padW .. ',' .. self.padH
  end
  return s .. (self.bias and ')' or ') without bias')
end

return VolumetricConvolution
