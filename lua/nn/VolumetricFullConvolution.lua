-- nn.VolumetricFullConvolution(nInputPlane, nOutputPlane, kT, kW, kH [, dT = 1, dW = 1, dH = 1]
-- [, padT = 0, padW = 0, padH = 0] [, adjT = 0, adjW = 0, adjH = 0]): the transposed ("full") 3-D
-- convolution of C x T x H x W or N x C x T x H x W inputs, weight nInputPlane x nOutputPlane x kT x
-- kH x kW (Torch7). Output size (in - 1) * d - 2 * pad + k + adj per dim; adj < d picks among the
-- sizes a strided convolution maps to the same input size; a table input {input, target} takes adj
-- from target's size instead. The 3-D twin of SpatialFullConvolution.
require 'nn.conv_utils'
local S = require 'nn.support'
local cu = nn.conv_utils
local C, check = cu.C, cu.check
local VolumetricFullConvolution, parent = torch.class('nn.VolumetricFullConvolution', 'nn.Module')

local NAME = 'nn.VolumetricFullConvolution'

-- cudnn.VolumetricFullConvolution extends this class with the same fields: its .t7 files load here.
if torch.serialization and torch.serialization.registerClassAlias then
  torch.serialization.registerClassAlias('cudnn.VolumetricFullConvolution', NAME)
end

function VolumetricFullConvolution:__init(nInputPlane, nOutputPlane, kT, kW, kH, dT, dW, dH, padT, padW, padH,
                                          adjT, adjW, adjH)
  parent.__init(self)
  self.nInputPlane = S.argInt(NAME, 'nInputPlane', nInputPlane, 1)
  self.nOutputPlane = S.argInt(NAME, 'nOutputPlane', nOutputPlane, 1)
  self.kT, self.kW, self.kH = S.argInt(NAME, 'kT', kT, 1), S.argInt(NAME, 'kW', kW, 1), S.argInt(NAME, 'kH', kH, 1)
  self.dT = S.argInt(NAME, 'dT', dT or 1, 1)
  self.dW = S.argInt(NAME, 'dW', dW or 1, 1)
  self.dH = S.argInt(NAME, 'dH', dH or 1, 1)
  self.padT = S.argInt(NAME, 'padT', padT or 0, 0)
  self.padW = S.argInt(NAME, 'padW', padW or 0, 0)
  self.padH = S.argInt(NAME, 'padH', padH or 0, 0)
  self.adjT = S.argInt(NAME, 'adjT', adjT or 0, 0)
  self.adjW = S.argInt(NAME, 'adjW', adjW or 0, 0)
  self.adjH = S.argInt(NAME, 'adjH', adjH or 0, 0)
  if self.adjT >= self.dT or self.adjW >= self.dW or self.adjH >= self.dH then
    error(string.format('[%s] adjT, adjW and adjH must be smaller than dT, dW and dH, got %d,%d,%d for strides '
      .. '%d,%d,%d', NAME, self.adjT, self.adjW, self.adjH, self.dT, self.dW, self.dH), torch._lib.user_level())
  end
  self.weight = torch.Tensor(nInputPlane, nOutputPlane, kT, kH, kW)
  self.gradWeight = torch.Tensor(nInputPlane, nOutputPlane, kT, kH, kW)
  self.bias = torch.Tensor(nOutputPlane)
  self.gradBias = torch.Tensor(nOutputPlane)
  self:reset()
end

--- m:noBias(): drops the bias (returns m).
function VolumetricFullConvolution:noBias() return nn.utils.noBias(self) end

--- m:reset([stdv]): uniform(-stdv, stdv) weight and bias, stdv = 1/sqrt(kT*kW*kH*nInputPlane) by default.
function VolumetricFullConvolution:reset(stdv)
  return nn.utils.resetUniform(self, self.kT * self.kW * self.kH * self.nInputPlane, stdv)
end

--- m:afterLoad(): brings a loaded module up to date the way Torch7's backCompatibility did: files
--- older than adjT/adjW/adjH held the weight as nOutputPlane x nInputPlane and the pads as pT, pW, pH.
function VolumetricFullConvolution:afterLoad()
  if torch.isTensor(self.weight) and self.adjW == nil then
    self.weight = self.weight:transpose(1, 2):contiguous()
    if torch.isTensor(self.gradWeight) then self.gradWeight = self.gradWeight:transpose(1, 2):contiguous() end
  end
  self.padT, self.padW, self.padH = self.padT or self.pT or 0, self.padW or self.pW or 0, self.padH or self.pH or 0
  self.adjT, self.adjW, self.adjH = self.adjT or 0, self.adjW or 0, self.adjH or 0
  if torch.isTensor(self.weight) and (not torch.isTensor(self.gradWeight)
      or self.gradWeight:nElement() ~= self.weight:nElement()) then
    self.gradWeight = self.weight.new(self.weight:size()):zero()
  end
  parent.afterLoad(self)
end

local function options(self, adj)
  return cu.options(3, 1, { self.dT, self.dH, self.dW }, { self.padT, self.padH, self.padW }, nil, adj)
end

-- As in Torch7 the input may be a table {input, target}: the output then takes target's last three
-- sizes (adj = (size + 2 * pad - k) % d, whatever adjT, adjW and adjH say) and gradInput is
-- {gradInput, zeros of target's size} (Note [Target-sized output] in SpatialFullConvolution.lua).
-- Returns the input tensor and {adjT, adjH, adjW}.
local function resolve(self, input)
  if type(input) ~= 'table' then return input, { self.adjT, self.adjH, self.adjW } end
  local x, target = input[1], input[2]
  if not torch.isTensor(x) or not torch.isTensor(target) or target:dim() < 3 then
    cu.fail(self, 'expected a 4D (%d x D x H x W) or 5D input tensor, or a table {input, target} of two '
      .. 'tensors (target with 3 or more dims), got {%s, %s}', self.nInputPlane, cu.describe(x), cu.describe(target))
  end
  local n = target:dim()
  return x, { (target:size(n - 2) + 2 * self.padT - self.kT) % self.dT,
              (target:size(n - 1) + 2 * self.padH - self.kH) % self.dH,
              (target:size(n) + 2 * self.padW - self.kW) % self.dW }
end

-- The output's channel count and (T, H, W) sizes for input.
local function output_size(self, input, adj)
  local first = input:dim() - 3
  local want = { self.nOutputPlane }
  local dims = { { self.dT, self.padT, self.kT, adj[1] }, { self.dH, self.padH, self.kH, adj[2] },
                 { self.dW, self.padW, self.kW, adj[3] } }
  for d, v in ipairs(dims) do want[d + 1] = (input:size(first + d) - 1) * v[1] - 2 * v[2] + v[3] + v[4] end
  return want
end

function VolumetricFullConvolution:updateOutput(input)
  local x, adj = resolve(self, input)
  cu.checkInput(self, x, 3, self.nInputPlane, { 1, 1, 1 }, { 0, 0, 0 })
  local want = output_size(self, x, adj)
  if want[2] < 1 or want[3] < 1 or want[4] < 1 then
    cu.fail(self, 'input of size %s gives an empty output (%dx%dx%d)', S.sizestr(x), want[2], want[3], want[4])
  end
  check(C.tocha_conv_transpose_out(self.output.p, x.p, self.weight.p, self.bias and self.bias.p or nil,
    options(self, adj)))
  return self.output
end

-- The input gradient is the convolution the transposed one is the adjoint of.
function VolumetricFullConvolution:updateGradInput(input, gradOutput)
  if not self.gradInput then return end
  local x, adj = resolve(self, input)
  cu.unwrapGradInput(self, x)  -- Note [Target-sized output]
  cu.checkGradOutput(self, gradOutput, x, output_size(self, x, adj))
  check(C.tocha_conv_out(self.gradInput.p, gradOutput.p, self.weight.p, nil, options(self, nil)))
  return cu.wrapGradInput(self, input)
end

-- The weight gradient is that of the convolution it transposes, with gradOutput as that
-- convolution's input (Note [Convolution roles]).
function VolumetricFullConvolution:accGradParameters(input, gradOutput, scale)
  local x, adj = resolve(self, input)
  cu.checkGradOutput(self, gradOutput, x, output_size(self, x, adj))
  check(C.tocha_conv_weight_acc(self.gradWeight.p, nil, gradOutput.p, x.p, options(self, nil), scale or 1, 1))
  if self.bias then check(C.tocha_conv_bias_acc(self.gradBias.p, gradOutput.p, 3, scale or 1)) end
end

-- Torch7's format: sizes, strides and pads in W, H, T order.
function VolumetricFullConvolution:__tostring__()
  local s = string.format('%s(%d -> %d, %dx%dx%d', torch.typename(self), self.nInputPlane, self.nOutputPlane,
    self.kW, self.kH, self.kT)
  if self.dW ~= 1 or self.dH ~= 1 or self.dT ~= 1 or self.padW ~= 0 or self.padH ~= 0 or self.padT ~= 0 then
    s = s .. string.format(', %d,%d,%d', self.dW, self.dH, self.dT)
  end
  if self.padW ~= 0 or self.padH ~= 0 or self.padT ~= 0 then
    s = s .. string.format(', %d,%d,%d', self.padW, self.padH, self.padT)
  end
  if (self.adjW or 0) ~= 0 or (self.adjH or 0) ~= 0 or (self.adjT or 0) ~= 0 then
    s = s .. string.format(', %d,%d,%d', self.adjW, self.adjH, self.adjT)
  end
  return s .. (self.bias and ')' or ') without bias')
end

return VolumetricFullConvolution
