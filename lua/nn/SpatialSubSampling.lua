-- nn.SpatialSubSampling(nInputPlane, kW, kH [, dW = 1, dH = 1]): Torch7's trainable sub-sampling of
-- nInputPlane x H x W or N x nInputPlane x H x W inputs: each output is its plane's weight times the
-- sum of a kW x kH window, plus the plane's bias. The window sums are the average pooling ops times
-- the window size; the gradients are written by hand (Torch7 style, so accUpdateGradParameters works).
require 'nn.conv_utils'
local S = require 'nn.support'
local F = require 'nn.functional_pool'
local cu = nn.conv_utils
local unpack = table.unpack or unpack
local SpatialSubSampling, parent = torch.class('nn.SpatialSubSampling', 'nn.Module')

function SpatialSubSampling:__init(nInputPlane, kW, kH, dW, dH)
  parent.__init(self)
  local name = 'nn.SpatialSubSampling'
  self.nInputPlane = S.argInt(name, 'nInputPlane', nInputPlane, 1)
  self.kW, self.kH = S.argInt(name, 'kW', kW, 1), S.argInt(name, 'kH', kH, 1)
  self.dW, self.dH = S.argInt(name, 'dW', dW or 1, 1), S.argInt(name, 'dH', dH or 1, 1)
  self.weight = torch.Tensor(nInputPlane)
  self.bias = torch.Tensor(nInputPlane)
  self.gradWeight = torch.Tensor(nInputPlane):zero()
  self.gradBias = torch.Tensor(nInputPlane):zero()
  self:reset()
end

--- m:reset([stdv]): weight and bias uniform in (-stdv, stdv); stdv = 1/sqrt(kW*kH) by default, or
--- the given stdv times sqrt(3) (Torch7).
function SpatialSubSampling:reset(stdv)
  stdv = stdv and stdv * math.sqrt(3) or 1 / math.sqrt(self.kW * self.kH)
  self.weight:uniform(-stdv, stdv)
  self.bias:uniform(-stdv, stdv)
  nn.utils.linkGradients(self)
  return self
end

-- The module with its configuration, for errors (it prints as Torch7's did: its class name).
local function name(self)
  return string.format('%s(%d, %dx%d, %d,%d)', torch.type(self), self.nInputPlane, self.kW, self.kH, self.dW, self.dH)
end

-- The window sums of a checked input, and the weight and bias shaped to broadcast against them.
local function sums(self, input)
  local C = self.nInputPlane
  if not torch.isTensor(input) or (input:dim() ~= 3 and input:dim() ~= 4) or input:size(input:dim() - 2) ~= C then
    S.fail(name(self), 'expected a 3D (%d x H x W) or 4D (N x %d x H x W) input, got %s', C, C, S.describe(input))
  end
  if input:type() ~= self.weight:type() then
    S.fail(name(self), 'expected a %s input (the type of the weight), got %s', self.weight:type(), S.describe(input))
  end
  local n = input:dim()
  if input:size(n - 1) < self.kH or input:size(n) < self.kW then
    S.fail(name(self), 'input of size %s is smaller than the kernel %dx%d', S.sizestr(input), self.kW, self.kH)
  end
  local s = torch.avgPool2d(input, { self.kH, self.kW }, { self.dH, self.dW }):mul(self.kW * self.kH)
  local shape = n == 4 and { 1, C, 1, 1 } or { C, 1, 1 }
  return s, self.weight:view(unpack(shape)), self.bias:view(unpack(shape))
end

function SpatialSubSampling:updateOutput(input)
  local s, w, b = sums(self, input)
  self.output = s:cmul(w):add(b)
  return self.output
end

function SpatialSubSampling:updateGradInput(input, gradOutput)
  if not self.gradInput then return end
  S.gradLike(name(self), gradOutput, self.output)
  local _, w = torch.noGrad(sums, self, input)
  torch.noGrad(function()
    local sizes, n = cu.sizes(input)
    -- the adjoint of the window sum: the average pooling's backward times the window size
    cu.check(cu.C.tocha_avg_pool2d_backward_out(self.gradInput.p, torch.cmul(gradOutput, w).p, n, sizes,
      cu.poolOptions(self)))
    self.gradInput:mul(self.kW * self.kH)
  end)
  return self.gradInput
end

function SpatialSubSampling:accGradParameters(input, gradOutput, scale)
  scale = scale or 1
  S.gradLike(name(self), gradOutput, self.output)
  torch.noGrad(function()
    local s = sums(self, input)
    -- sums over every dim but the plane dim
    local pd = input:dim() - 2
    local function perPlane(t) return t:transpose(1, pd):contiguous():view(self.nInputPlane, -1):sum(2):view(-1) end
    self.gradWeight:add(scale, perPlane(s:cmul(gradOutput)))
    self.gradBias:add(scale, perPlane(gradOutput))
  end)
end

return SpatialSubSampling
