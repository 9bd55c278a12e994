-- nn.VolumetricDilatedMaxPooling(kT, kW, kH [, dT, dW, dH] [, padT, padW, padH] [, dilationT,
-- dilationW, dilationH]): Torch7's max pooling of C x T x H x W or N x C x T x H x W inputs over
-- windows whose taps lie dilation cells apart; :ceil()/:floor() as nn.VolumetricMaxPooling, whose
-- indices convention it keeps (1-based (t-1)*H*W + (h-1)*W + w). Built from existing ops by
-- nn.SpatialDilatedMaxPooling._pool (Note [Dilated max pooling from taps]).
require 'nn.VolumetricMaxPooling'
require 'nn.SpatialDilatedMaxPooling'
local S = require 'nn.support'
local F = require 'nn.functional_pool'
local SDMP = nn.SpatialDilatedMaxPooling
local VolumetricDilatedMaxPooling, parent = torch.class('nn.VolumetricDilatedMaxPooling', 'nn.VolumetricMaxPooling')

function VolumetricDilatedMaxPooling:__init(kT, kW, kH, dT, dW, dH, padT, padW, padH, dilationT, dilationW, dilationH)
  local name = 'nn.VolumetricDilatedMaxPooling'
  dT, dW, dH = dT or kT, dW or kW, dH or kH
  padT, padW, padH = padT or 0, padW or 0, padH or 0
  local check = SDMP._checkInts
  check(name, { 'kT', 'kW', 'kH', 'dT', 'dW', 'dH' }, { kT, kW, kH, dT, dW, dH }, 1)
  check(name, { 'padT', 'padW', 'padH' }, { padT, padW, padH }, 0)
  check(name, { 'dilationT', 'dilationW', 'dilationH' }, { dilationT or 1, dilationW or 1, dilationH or 1 }, 1)
  if padT > kT / 2 or padW > kW / 2 or padH > kH / 2 then
    F.init_error(name, 'padding %d,%d,%d must be at most half the kernel %dx%dx%d', padT, padW, padH, kT, kW, kH)
  end
  parent.__init(self, kT, kW, kH, dT, dW, dH, padT, padW, padH)
  self.dilationT = dilationT or 1
  self.dilationW = dilationW or 1
  self.dilationH = dilationH or 1
end

-- Without dilation the C max pooling computes the same thing (values, indices, gradients), faster.
local function undilated(self)
  return (self.dilationT or 1) == 1 and (self.dilationW or 1) == 1 and (self.dilationH or 1) == 1
end

function VolumetricDilatedMaxPooling:updateOutput(input)
  F.check_input(self, input, 4, 'N x C x T x H x W')
  SDMP._checkFloating(self, input)
  -- recorded as Torch7 did (unpooling modules read them)
  local n = input:dim()
  self.itime, self.iheight, self.iwidth = input:size(n - 2), input:size(n - 1), input:size(n)
  if undilated(self) then return parent.updateOutput(self, input) end
  return SDMP._pool(self, input, { self.kT, self.kH, self.kW }, { self.dT, self.dH, self.dW },
    { self.padT or 0, self.padH or 0, self.padW or 0 },
    { self.dilationT or 1, self.dilationH or 1, self.dilationW or 1 }, self.ceil_mode)
end

function VolumetricDilatedMaxPooling:updateGradInput(input, gradOutput)
  if undilated(self) then
    S.gradLike(tostring(self), gradOutput, self.output)
    return parent.updateGradInput(self, input, gradOutput)
  end
  return SDMP._backward(self, input, gradOutput, 3)
end

function VolumetricDilatedMaxPooling:__tostring__()
  local s = string.format('%s(%dx%dx%d, %d,%d,%d', torch.type(self), self.kT, self.kW, self.kH, self.dT, self.dW,
    self.dH)
  local pT, pW, pH = self.padT or 0, self.padW or 0, self.padH or 0
  if pT ~= 0 or pW ~= 0 or pH ~= 0 then s = s .. ', ' .. pT .. ',' .. pW .. ',' .. pH end
  return s .. ', ' .. (self.dilationT or 1) .. ',' .. (self.dilationW or 1) .. ',' .. (self.dilationH or 1) .. ')'
end

return VolumetricDilatedMaxPooling
