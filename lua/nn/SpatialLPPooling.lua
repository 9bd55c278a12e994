-- nn.SpatialLPPooling(nInputPlane, pnorm, kW, kH [, dW = kW, dH = kH]): Torch7's p-norm pooling of
-- C x H x W or N x C x H x W inputs, (sum of x^p over each kW x kH window)^(1/p), built as Torch7
-- built it: a Sequential of Power (Square for p = 2), SpatialAveragePooling, MulConstant(kW*kH)
-- and Power(1/p) (Sqrt). It has no parameters; nInputPlane is not used (as in Torch7).
require 'nn.Sequential'
local S = require 'nn.support'
local F = require 'nn.functional_pool'
local SpatialLPPooling, parent = torch.class('nn.SpatialLPPooling', 'nn.Sequential')

function SpatialLPPooling:__init(nInputPlane, pnorm, kW, kH, dW, dH)
  parent.__init(self)
  local name = 'nn.SpatialLPPooling'
  S.argInt(name, 'nInputPlane', nInputPlane, 1)
  if type(pnorm) ~= 'number' or not (pnorm > 0 and pnorm < math.huge) then
    F.init_error(name, 'pnorm must be a positive number, got %s', type(pnorm) == 'number' and tostring(pnorm)
      or S.describe(pnorm))
  end
  dW, dH = dW or kW, dH or kH
  for _, v in ipairs({ { 'kW', kW }, { 'kH', kH }, { 'dW', dW }, { 'dH', dH } }) do S.argInt(name, v[1], v[2], 1) end
  self.kW, self.kH, self.dW, self.dH = kW, kH, dW, dH
  self:add(pnorm == 2 and nn.Square() or nn.Power(pnorm))
  self:add(nn.SpatialAveragePooling(kW, kH, dW, dH))
  self:add(nn.MulConstant(kW * kH))
  self:add(pnorm == 2 and nn.Sqrt() or nn.Power(1 / pnorm))
end

function SpatialLPPooling:updateOutput(input)
  if not torch.isTensor(input) or (input:dim() ~= 3 and input:dim() ~= 4) then
    S.fail(string.format('nn.SpatialLPPooling(%dx%d, %d,%d)', self.kW, self.kH, self.dW, self.dH),
      'expected a 3D (C x H x W) or 4D (N x C x H x W) input, got %s', S.describe(input))
  end
  return parent.updateOutput(self, input)
end

-- The pooling has nothing to learn (Torch7 turned these off the same way).
function SpatialLPPooling:reset() return self end
function SpatialLPPooling:accGradParameters() end
function SpatialLPPooling:accUpdateGradParameters() end
function SpatialLPPooling:zeroGradParameters() end
function SpatialLPPooling:updateParameters() end

return SpatialLPPooling
