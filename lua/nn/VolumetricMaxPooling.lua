-- nn.VolumetricMaxPooling(kT, kW, kH [, dT, dW, dH] [, padT, padW, padH]): max pooling of
-- (C x T x H x W) or (N x C x T x H x W) inputs; :ceil() rounds output sizes up. self.indices holds
-- the 1-based flat positions ((t-1)*H*W + (h-1)*W + w) of the maxima in their volumes.
local F = require 'nn.functional_pool'
local VolumetricMaxPooling, parent = torch.class('nn.VolumetricMaxPooling', 'nn.Module')
VolumetricMaxPooling.__version = 2

function VolumetricMaxPooling:__init(kT, kW, kH, dT, dW, dH, padT, padW, padH)
  parent.__init(self)
  F.init_window3d(self, kT, kW, kH, dT, dW, dH, padT, padW, padH)
  self.ceil_mode = false
  self.indices = torch.LongTensor()
end

--- m:ceil() / m:floor(): round output sizes up or down (the default); return m.
function VolumetricMaxPooling:ceil() self.ceil_mode = true return self end
function VolumetricMaxPooling:floor() self.ceil_mode = false return self end

-- (T, H, W) windows; modules saved by Torch7 releases without padding load without pad fields.
local function windows(self)
  return { self.kT, self.kH, self.kW }, { self.dT, self.dH, self.dW },
         { self.padT or 0, self.padH or 0, self.padW or 0 }
end

function VolumetricMaxPooling:updateOutput(input)
  F.check_input(self, input, 4, 'N x C x T x H x W')
  self.indices = F.long_buffer(self.indices, input)
  local k, d, p = windows(self)
  F.call(self, F.maxPool3d, F.buffer(self, 'output', input), self.indices, input, k, d, p, self.ceil_mode)
  return self.output
end

function VolumetricMaxPooling:updateGradInput(input, gradOutput)
  F.call(self, F.maxPoolBackward, F.buffer(self, 'gradInput', gradOutput), gradOutput, self.indices, input, 3)
  return self.gradInput
end

function VolumetricMaxPooling:clearState()
  self.indices = torch.LongTensor()
  return parent.clearState(self)
end

function VolumetricMaxPooling:__tostring__()
  local s = string.format('%s(%dx%dx%d, %d,%d,%d', torch.type(self), self.kT, self.kW, self.kH, self.dT, self.dW,
    self.dH)
  local pT, pW, pH = self.padT or 0, self.padW or 0, self.padH or 0
  if pT ~= 0 or pW ~= 0 or pH ~= 0 then s = s .. ', ' .. pT .. ',' .. pW .. ',' .. pH end
  return s .. ')'
end

return VolumetricMaxPooling
