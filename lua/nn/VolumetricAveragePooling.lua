-- nn.VolumetricAveragePooling(kT, kW, kH [, dT, dW, dH] [, padT, padW, padH]): average pooling of
-- (C x T x H x W) or (N x C x T x H x W) inputs. Padding, :ceil() and :setCountExcludePad() extend
-- Torch7's module as later releases did; by default padded cells count in the divisor.
local F = require 'nn.functional_pool'
local VolumetricAveragePooling, parent = torch.class('nn.VolumetricAveragePooling', 'nn.Module')

function VolumetricAveragePooling:__init(kT, kW, kH, dT, dW, dH, padT, padW, padH)
  parent.__init(self)
  F.init_window3d(self, kT, kW, kH, dT, dW, dH, padT, padW, padH)
  self.ceil_mode = false
  self.count_include_pad = true
end

--- m:ceil() / m:floor(): round output sizes up or down (the default); return m.
function VolumetricAveragePooling:ceil() self.ceil_mode = true return self end
function VolumetricAveragePooling:floor() self.ceil_mode = false return self end
--- m:setCountIncludePad() / m:setCountExcludePad(): whether padded cells count in the divisor.
function VolumetricAveragePooling:setCountIncludePad() self.count_include_pad = true return self end
function VolumetricAveragePooling:setCountExcludePad() self.count_include_pad = false return self end

-- (T, H, W) windows; modules saved by Torch7 releases without padding load without pad fields.
local function windows(self)
  return { self.kT, self.kH, self.kW }, { self.dT, self.dH, self.dW },
         { self.padT or 0, self.padH or 0, self.padW or 0 }
end

function VolumetricAveragePooling:updateOutput(input)
  F.check_input(self, input, 4, 'N x C x T x H x W')
  local k, d, p = windows(self)
  F.call(self, F.avgPool3d, F.buffer(self, 'output', input), input, k, d, p, self.ceil_mode,
    self.count_include_pad ~= false)
  return self.output
end

function VolumetricAveragePooling:updateGradInput(input, gradOutput)
  local k, d, p = windows(self)
  F.call(self, F.avgPool3dBackward, F.buffer(self, 'gradInput', gradOutput), gradOutput, input, k, d, p,
    self.ceil_mode, self.count_include_pad ~= false)
  return self.gradInput
end

function VolumetricAveragePooling:__tostring__()
  local s = string.format('%s(%dx%dx%d, %d,%d,%d', torch.type(self), self.kT, self.kW, self.kH, self.dT, self.dW,
    self.dH)
  local pT, pW, pH = self.padT or 0, self.padW or 0, self.padH or 0
  if pT ~= 0 or pW ~= 0 or pH ~= 0 then s = s .. ', ' .. pT .. ',' .. pW .. ',' .. pH end
  return s .. ')'
end

return VolumetricAveragePooling
