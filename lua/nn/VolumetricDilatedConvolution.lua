-- nn.VolumetricDilatedConvolution(nInputPlane, nOutputPlane, kT, kW, kH [, dT, dW, dH]
-- [, padT, padW, padH] [, dilationT = 1, dilationW = 1, dilationH = 1]): 3-D convolution whose kernel
-- taps are dilation voxels apart (atrous); weight nOutputPlane x nInputPlane x kT x kH x kW as
-- VolumetricConvolution's. Output size floor((in + 2 * pad - dilation * (k - 1) - 1) / d) + 1.
require 'nn.VolumetricConvolution'
local S = require 'nn.support'
local cu = nn.conv_utils
local C, check = cu.C, cu.check
local VolumetricDilatedConvolution, parent = torch.class('nn.VolumetricDilatedConvolution', 'nn.VolumetricConvolution')

local NAME = 'nn.VolumetricDilatedConvolution'

function VolumetricDilatedConvolution:__init(nInputPlane, nOutputPlane, kT, kW, kH, dT, dW, dH, padT, padW, padH,
                                             dilationT, dilationW, dilationH)
  -- checked here first so that errors name this class, not the parent
  local checked = { nInputPlane, nOutputPlane, kT, kW, kH, dT or 1, dW or 1, dH or 1 }
  for i = 1, 8 do  -- not ipairs: it stops at a missing (nil) argument
    local v = checked[i]
    S.argInt(NAME, ({ 'nInputPlane', 'nOutputPlane', 'kT', 'kW', 'kH', 'dT', 'dW', 'dH' })[i], v, 1)
  end
  -- missing pads follow VolumetricConvolution's (and Torch7's) rule: padW = padT, padH = padW
  padT = S.argInt(NAME, 'padT', padT or 0, 0)
  padW = S.argInt(NAME, 'padW', padW or padT, 0)
  padH = S.argInt(NAME, 'padH', padH or padW, 0)
  parent.__init(self, nInputPlane, nOutputPlane, kT, kW, kH, dT, dW, dH, padT, padW, padH)
  self.dilationT = S.argInt(NAME, 'dilationT', dilationT or 1, 1)
  self.dilationW = S.argInt(NAME, 'dilationW', dilationW or 1, 1)
  self.dilationH = S.argInt(NAME, 'dilationH', dilationH or 1, 1)
end

-- Kernel, stride, padding and dilation as (T, H, W) tables for the C ops.
function VolumetricDilatedConvolution:_geometry()
  return { self.kT, self.kH, self.kW }, { self.dT, self.dH, self.dW }, { self.padT, self.padH, self.padW },
    { self.dilationT, self.dilationH, self.dilationW }
end

function VolumetricDilatedConvolution:updateOutput(input)
  local k, s, p, d = self:_geometry()
  cu.checkInput(self, input, 3, self.nInputPlane, k, p, d)
  check(C.tocha_conv_out(self.output.p, input.p, self.weight.p, self.bias and self.bias.p or nil,
    cu.options(3, 1, s, p, d)))
  return self.output
end

function VolumetricDilatedConvolution:updateGradInput(input, gradOutput)
  if not self.gradInput then return end
  local k, s, p, d = self:_geometry()
  local out = cu.outputSizes(input, 3, k, s, p, d)
  cu.checkGradOutput(self, gradOutput, input, { self.nOutputPlane, out[1], out[2], out[3] })
  local o = cu.backOptions(cu.options(3, 1, s, p, d), input, gradOutput, k)
  check(C.tocha_conv_transpose_out(self.gradInput.p, gradOutput.p, self.weight.p, nil, o))
  return self.gradInput
end

function VolumetricDilatedConvolution:accGradParameters(input, gradOutput, scale)
  local k, s, p, d = self:_geometry()
  local out = cu.outputSizes(input, 3, k, s, p, d)
  cu.checkGradOutput(self, gradOutput, input, { self.nOutputPlane, out[1], out[2], out[3] })
  check(C.tocha_conv_weight_acc(self.gradWeight.p, self.bias and self.gradBias.p or nil, input.p, gradOutput.p,
    cu.options(3, 1, s, p, d), scale or 1, 1))
end

-- Torch7's format (kT first here, unlike VolumetricConvolution's), dilations always printed.
function VolumetricDilatedConvolution:__tostring__()
  local s = string.format('%s(%d -> %d, %dx%dx%d', torch.typename(self), self.nInputPlane, self.nOutputPlane,
    self.kT, self.kW, self.kH)
  if self.dT ~= 1 or self.dW ~= 1 or self.dH ~= 1 or self.padT ~= 0 or self.padW ~= 0 or self.padH ~= 0 then
    s = s .. string.format(', %d,%d,%d', self.dT, self.dW, self.dH)
  end
  if self.padT ~= 0 or self.padW ~= 0 or self.padH ~= 0 then
    s = s .. string.format(', %d,%d,%d', self.padT, self.padW, self.padH)
  end
  s = s .. string.format(', %d,%d,%d', self.dilationT, self.dilationW, self.dilationH)
  return s .. (self.bias and ')' or ') without bias')
end

return VolumetricDilatedConvolution
