-- nn.VolumetricUpSamplingTrilinear(scale) or ({odepth = T, oheight = H, owidth = W}): trilinear
-- resampling of (C x T' x H' x W') or (N x C x T' x H' x W') inputs with aligned corners (output voxel
-- i samples input position (i-1)*(T'-1)/(T-1), 1-based, per dim), Torch7's convention as in
-- SpatialUpSamplingBilinear; an integer scale gives T'*scale x H'*scale x W'*scale.
-- Note [Separable resampling] (nn/resample.lua): three products with small interpolation matrices.
local F = require 'nn.functional_pool'
local R = require 'nn.resample'
local S = require 'nn.support'
local VolumetricUpSamplingTrilinear, parent = torch.class('nn.VolumetricUpSamplingTrilinear', 'nn.Module')

local NAME = 'nn.VolumetricUpSamplingTrilinear'

function VolumetricUpSamplingTrilinear:__init(params)
  parent.__init(self)
  if type(params) == 'table' and not torch.isTensor(params) then
    self.odepth, self.oheight, self.owidth = params.odepth, params.oheight, params.owidth
    local sizes = { self.odepth, self.oheight, self.owidth }
    for i = 1, 3 do
      local v = sizes[i]
      if not S.isint(v) or v < 1 then
        F.init_error(NAME, 'odepth, oheight and owidth must be positive integers, got %s, %s and %s',
          S.describe(self.odepth), S.describe(self.oheight), S.describe(self.owidth))
      end
    end
  elseif not S.isint(params) or params < 1 then
    F.init_error(NAME, 'expected an integer scale_factor >= 1 or {odepth=, oheight=, owidth=}, got %s',
      S.describe(params))
  else
    self.scale_factor = params
  end
end

-- The output's (T, H, W) for input.
local function out_size(self, input)
  local n, s = input:dim(), self.scale_factor
  if s then return { input:size(n - 2) * s, input:size(n - 1) * s, input:size(n) * s } end
  return { self.odepth, self.oheight, self.owidth }
end

-- The three matrices for input (cached per sizes and type: forward and backward share them).
local function matrices(self, input)
  local n, out = input:dim(), out_size(self, input)
  local key = string.format('%s:%d,%d,%d>%d,%d,%d', torch.type(input), input:size(n - 2), input:size(n - 1),
    input:size(n), out[1], out[2], out[3])
  if self._matKey ~= key then
    self._mats = {}
    for i = 1, 3 do self._mats[i] = R.linear_matrix(input, input:size(n - 3 + i), out[i], true) end
    self._matKey = key
  end
  return self._mats, out
end

function VolumetricUpSamplingTrilinear:updateOutput(input)
  F.check_input(self, input, 4, 'N x C x T x H x W')
  if input:nElement() == 0 or not nn.utils.isFloating(input) then
    F.fail(self, 'expected a non-empty floating-point input, got %s', S.describe(input))
  end
  local m = matrices(self, input)
  local n = input:dim()
  local y = R.along(R.along(R.along(input, n - 2, m[1]), n - 1, m[2]), n, m[3])
  F.buffer(self, 'output', input):resize(y:size()):copy(y)
  return self.output
end

function VolumetricUpSamplingTrilinear:updateGradInput(input, gradOutput)
  F.check_input(self, input, 4, 'N x C x T x H x W')
  local m, out = matrices(self, input)
  local n = input:dim()
  local want = input:size():totable()
  want[n - 2], want[n - 1], want[n] = out[1], out[2], out[3]
  S.gradLike(tostring(self), gradOutput, want)
  local g = R.along(R.along(R.along(gradOutput, n - 2, m[1]:t()), n - 1, m[2]:t()), n, m[3]:t())
  F.buffer(self, 'gradInput', gradOutput):resizeAs(input):copy(g)
  return self.gradInput
end

function VolumetricUpSamplingTrilinear:__tostring__()
  if self.scale_factor then return string.format('%s(%d)', torch.type(self), self.scale_factor) end
  return string.format('%s(%d, %d, %d)', torch.type(self), self.odepth, self.oheight, self.owidth)
end

return VolumetricUpSamplingTrilinear
