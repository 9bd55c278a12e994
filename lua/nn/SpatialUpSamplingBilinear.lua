-- nn.SpatialUpSamplingBilinear(scale) or ({oheight = H, owidth = W}): bilinear resampling of
-- (C x H' x W') or (N x C x H' x W') inputs with aligned corners (output pixel i samples input
-- position (i-1)*(H'-1)/(H-1), 1-based), as Torch7's. An integer scale gives H'*scale x W'*scale,
-- the size Torch7's last release computed (its docs still gave (H'-1)*(scale-1) + H', the rule of
-- releases before the table form).
local F = require 'nn.functional_pool'
local SpatialUpSamplingBilinear, parent = torch.class('nn.SpatialUpSamplingBilinear', 'nn.Module')

function SpatialUpSamplingBilinear:__init(params)
  parent.__init(self)
  local name = 'nn.SpatialUpSamplingBilinear'
  if type(params) == 'table' then
    self.oheight, self.owidth = params.oheight, params.owidth
    local checked = { self.oheight, self.owidth }
    for k = 1, 2 do  -- not ipairs: it stops at a missing (nil) argument
      local v = checked[k]
      if type(v) ~= 'number' or v < 1 or v ~= math.floor(v) then
        F.init_error(name, 'oheight and owidth must be positive integers, got %s and %s', tostring(self.oheight),
          tostring(self.owidth))
      end
    end
  elseif type(params) ~= 'number' or params < 1 or params ~= math.floor(params) then
    F.init_error(name, 'expected an integer scale_factor >= 1 or {oheight=, owidth=}, got %s', tostring(params))
  else
    self.scale_factor = params
  end
end

local function out_size(self, input)
  local n = input:dim()
  if self.scale_factor then return input:size(n - 1) * self.scale_factor, input:size(n) * self.scale_factor end
  return self.oheight, self.owidth
end

function SpatialUpSamplingBilinear:updateOutput(input)
  F.check_input(self, input, 3, 'N x C x H x W')
  local h, w = out_size(self, input)
  F.call(self, F.upsample2d, F.buffer(self, 'output', input), input, h, w, 1, true)
  return self.output
end

function SpatialUpSamplingBilinear:updateGradInput(input, gradOutput)
  F.check_grad(self, gradOutput, input, out_size(self, input))
  F.call(self, F.upsample2dBackward, F.buffer(self, 'gradInput', gradOutput), gradOutput, input, 1, true)
  return self.gradInput
end

function SpatialUpSamplingBilinear:__tostring__()
  if self.scale_factor then return string.format('%s(%d)', torch.type(self), self.scale_factor) end
  return string.format('%s(%d, %d)', torch.type(self), self.oheight, self.owidth)
end

return SpatialUpSamplingBilinear
