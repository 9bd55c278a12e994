-- nn.SpatialConvolution(nInputPlane, nOutputPlane, kW, kH [, dW = 1, dH = 1] [, padW = 0, padH = padW]
-- [, groups = 1]): 2-D convolution of C x H x W or N x C x H x W inputs with a weight of Torch7's
-- layout nOutputPlane x nInputPlane/groups x kH x kW. groups (cudnn.SpatialConvolution's 9th
-- argument) is a Tocha extension: channels split into groups convolved separately.
-- A Torch7-style module (one coarse autograd node) calling the conv ops directly into its buffers.
require 'nn.conv_utils'
local cu = nn.conv_utils
local C, check = cu.C, cu.check
local SpatialConvolution, parent = torch.class('nn.SpatialConvolution', 'nn.Module')

local function positive_int(v) return type(v) == 'number' and v >= 1 and v == math.floor(v) end
local function natural(v) return type(v) == 'number' and v >= 0 and v == math.floor(v) end

function SpatialConvolution:__init(nInputPlane, nOutputPlane, kW, kH, dW, dH, padW, padH, groups)
  parent.__init(self)
  local name = torch.typename(self)
  dW, dH, padW, groups = dW or 1, dH or 1, padW or 0, groups or 1
  padH = padH or padW
  local checked = { nInputPlane, nOutputPlane, kW, kH, dW, dH, groups }
  for k = 1, 7 do  -- not ipairs: it stops at a missing (nil) argument
    local v = checked[k]
    if not positive_int(v) then
      error(string.format('[%s] expected positive integer sizes (nInputPlane, nOutputPlane, kW, kH, dW, dH, groups), '
        .. 'got %s', name, table.concat({ tostring(nInputPlane), tostring(nOutputPlane), tostring(kW), tostring(kH),
          tostring(dW), tostring(dH), tostring(groups) }, ', ')), torch._lib.user_level())
    end
  end
  if not natural(padW) or not natural(padH) then
    error(string.format('[%s] padding must be non-negative integers, got %s, %s', name, tostring(padW),
      tostring(padH)), torch._lib.user_level())
  end
  if nInputPlane % groups ~= 0 or nOutputPlane % groups ~= 0 then
    error(string.format('[%s] nInputPlane (%d) and nOutputPlane (%d) must be divisible by groups (%d)', name,
      nInputPlane, nOutputPlane, groups), torch._lib.user_level())
  end
  self.nInputPlane, self.nOutputPlane = nInputPlane, nOutputPlane
  self.kW, self.kH, self.dW, self.dH, self.padW, self.padH = kW, kH, dW, dH, padW, padH
  self.groups = groups
  self.weight = torch.Tensor(self:_weightSize())
  self.gradWeight = torch.Tensor(self:_weightSize())
  self.bias = torch.Tensor(nOutputPlane)
  self.gradBias = torch.Tensor(nOutputPlane)
  self:reset()
end

-- The weight's size as created (subclasses keep other layouts, e.g. SpatialConvolutionMM's 2-D one).
function SpatialConvolution:_weightSize()
  return torch.LongStorage({ self.nOutputPlane, self.nInputPlane / self.groups, self.kH, self.kW })
end

--- m:noBias(): drops the bias (returns m).
function SpatialConvolution:noBias() return nn.utils.noBias(self) end

--- m:reset([stdv]): uniform(-stdv, stdv) weight and bias; stdv = 1/sqrt(kW*kH*nInputPlane/groups)
--- by default (Torch7's fan-in rule).
function SpatialConvolution:reset(stdv)
  return nn.utils.resetUniform(self, self.kW * self.kH * self.nInputPlane / (self.groups or 1), stdv)
end

-- Fields of older files (Torch7's `padding`, no groups, no gradWeight) brought up to date.
function SpatialConvolution:_upgrade()
  if self.padding then
    self.padW, self.padH, self.padding = self.padding, self.padding, nil
  end
  self.padW = self.padW or 0
  self.padH = self.padH or self.padW
  self.groups = self.groups or 1
  if not self.gradWeight or self.gradWeight:nElement() ~= self.weight:nElement() then
    self.gradWeight = self.weight.new(self.weight:size()):zero()
  end
  if self.bias and (not self.gradBias or self.gradBias:nElement() ~= self.bias:nElement()) then
    self.gradBias = self.bias.new(self.bias:size()):zero()
  end
  nn.utils.linkGradients(self)
  self._upgraded = true
end

-- Note [Loading Torch7 convolutions]: .t7 files written by Torch7 hold nn.SpatialConvolution(MM)
-- objects as their fields only (weight, bias, gradWeight, nInputPlane, nOutputPlane, kW, kH, dW,
-- dH, padW, padH; older ones `padding`; SpatialConvolutionMM's weight is nOutputPlane x
-- (nInputPlane*kH*kW)); the class is found by name and afterLoad (Note [After load]) runs
-- _upgrade, which fills what Tocha adds (groups, the weight.grad link). Torch7's finput/fgradInput
-- buffers are kept but unused.
--- m:afterLoad(): brings a loaded module (any format, Torch7's .t7 included) up to date.
function SpatialConvolution:afterLoad()
  if torch.isTensor(self.weight) then self:_upgrade() else parent.afterLoad(self) end
end

-- Kernel, stride, padding and dilation as (height, width) tables for the C ops.
function SpatialConvolution:_geometry()
  return { self.kH, self.kW }, { self.dH, self.dW }, { self.padH, self.padW },
    { self.dilationH or 1, self.dilationW or 1 }
end

-- weight and gradWeight as 4-D tensors (views of 2-D ones in SpatialConvolutionMM's layout).
function SpatialConvolution:_weights()
  local w, gw = self.weight, self.gradWeight
  if w:dim() ~= 4 then
    local size = { self.nOutputPlane, self.nInputPlane / self.groups, self.kH, self.kW }
    w = w:view(unpack(size))
    gw = gw:view(unpack(size))
  end
  return w, gw
end

function SpatialConvolution:updateOutput(input)
  if not self._upgraded then self:_upgrade() end
  local k, s, p, d = self:_geometry()
  cu.checkInput(self, input, 2, self.nInputPlane, k, p, d)
  local w = self:_weights()
  local o = cu.options(2, self.groups, s, p, d)
  check(C.tocha_conv_out(self.output.p, input.p, w.p, self.bias and self.bias.p or nil, o))
  return self.output
end

function SpatialConvolution:updateGradInput(input, gradOutput)
  if not self.gradInput then return end
  local k, s, p, d = self:_geometry()
  local out = cu.outputSizes(input, 2, k, s, p, d)
  cu.checkGradOutput(self, gradOutput, input, { self.nOutputPlane, out[1], out[2] })
  local w = self:_weights()
  local o = cu.backOptions(cu.options(2, self.groups, s, p, d), input, gradOutput, k)
  check(C.tocha_conv_transpose_out(self.gradInput.p, gradOutput.p, w.p, nil, o))
  return self.gradInput
end

function SpatialConvolution:accGradParameters(input, gradOutput, scale)
  local k, s, p, d = self:_geometry()
  -- checked here too: accGradParameters may be called alone, and the C op's message names neither
  -- the module nor the roles the caller knows
  local out = cu.outputSizes(input, 2, k, s, p, d)
  cu.checkGradOutput(self, gradOutput, input, { self.nOutputPlane, out[1], out[2] })
  local _, gw = self:_weights()
  local o = cu.options(2, self.groups, s, p, d)
  check(C.tocha_conv_weight_acc(gw.p, self.bias and self.gradBias.p or nil, input.p, gradOutput.p, o, scale or 1, 1))
end

function SpatialConvolution:__tostring__()
  local s = string.format('%s(%d -> %d, %dx%d', torch.typename(self), self.nInputPlane, self.nOutputPlane, self.kW,
    self.kH)
  local padW, padH = self.padW or self.padding or 0, self.padH or self.padding or 0
  if self.dW ~= 1 or self.dH ~= 1 or padW ~= 0 or padH ~= 0 then s = s .. string.format(', %d,%d', self.dW, self.dH) end
  if padW ~= 0 or padH ~= 0 then s = s .. ', ' .. padW .. ',' .. padH end
  if self.dilationW then s = s .. ', ' .. self.dilationW .. ',' .. self.dilationH end
  if (self.groups or 1) ~= 1 then s = s .. ', groups ' .. self.groups end
  return s .. (self.bias and ')' or ') without bias')
end

return SpatialConvolution
