-- nn.VolumetricFractionalMaxPooling(poolSizeT, poolSizeW, poolSizeH, outT, outW, outH) or (...,
-- ratioT, ratioW, ratioH): Torch7's 3-D fractional max pooling (Graham, 2014). Like Torch7's
-- THNN it reads C x H x W x T (or N x C x H x W x T) input, time LAST (Note [Fractional pooling's
-- time dim]), with poolSizeH x poolSizeW x poolSizeT windows at pseudo-random starts drawn per
-- plane from m.randomSamples (N x C x 3 uniforms: T's, W's, H's) at each forward unless
-- :fixPoolingRegions(). m.indices: 1-based positions of the maxima within each H x W x T plane.
local S = require 'nn.support'
local F = require 'nn.functional_pool'
local VFMP, parent = torch.class('nn.VolumetricFractionalMaxPooling', 'nn.Module')

-- Note [Fractional pooling's time dim]: unlike nn.VolumetricMaxPooling (C x T x H x W), Torch7's
-- VolumetricFractionalMaxPooling indexes its input as plane, height, width, time (THNN's
-- heightDim = 1, widthDim = 2, timeDim = 3), and its ratios scale size(-1) by ratioT. Kept, so
-- that Torch7 models give the same outputs; PyTorch's FractionalMaxPool3d reads C x T x H x W.

local NAME = 'nn.VolumetricFractionalMaxPooling'

function VFMP:__init(poolSizeT, poolSizeW, poolSizeH, arg1, arg2, arg3)
  parent.__init(self)
  self.poolSizeT = S.argInt(NAME, 'poolSizeT', poolSizeT, 2)
  self.poolSizeW = S.argInt(NAME, 'poolSizeW', poolSizeW, 2)
  self.poolSizeH = S.argInt(NAME, 'poolSizeH', poolSizeH, 2)
  if type(arg1) ~= 'number' or type(arg2) ~= 'number' or type(arg3) ~= 'number' then
    F.init_error(NAME, 'expected an output size (outT, outW, outH) or reduction ratios (ratioT, ratioW, ratioH), '
      .. 'got %s, %s and %s', S.describe(arg1), S.describe(arg2), S.describe(arg3))
  end
  if arg1 >= 1 and arg2 >= 1 and arg3 >= 1 then
    self.outT = S.argInt(NAME, 'outT', arg1, 1)
    self.outW = S.argInt(NAME, 'outW', arg2, 1)
    self.outH = S.argInt(NAME, 'outH', arg3, 1)
  else
    for _, r in ipairs({ arg1, arg2, arg3 }) do
      if not (r > 0 and r < 1) then
        F.init_error(NAME, 'reduction ratios must all lie in (0, 1) (or give an output size >= 1), got %s, %s and %s',
          tostring(arg1), tostring(arg2), tostring(arg3))
      end
    end
    self.ratioT, self.ratioW, self.ratioH = arg1, arg2, arg3
  end
  self.indices = torch.LongTensor()
  self.randomSamples = nil
  self.newRandomPool = false  -- true: keep the pooling regions (Torch7's name)
end

--- m:fixPoolingRegions([val = true]): keep the pooling regions of the next forward for the ones
--- after it (false draws new ones at each forward again); returns m.
--- Example: nn.VolumetricFractionalMaxPooling(2, 2, 2, 0.5, 0.5, 0.5):fixPoolingRegions()
function VFMP:fixPoolingRegions(val)
  if val == nil then val = true end
  self.newRandomPool = val
  return self
end

-- The output sizes (T, W, H) for a checked input (plane, H, W, T last).
local function outSizes(self, input)
  local n = input:dim()
  local H, W, T = input:size(n - 2), input:size(n - 1), input:size(n)
  local oT, oW, oH = self.outT, self.outW, self.outH
  if self.ratioT then
    oT, oW, oH = math.floor(T * self.ratioT), math.floor(W * self.ratioW), math.floor(H * self.ratioH)
  end
  if oT < 1 or oW < 1 or oH < 1 or oT + self.poolSizeT - 1 > T or oW + self.poolSizeW - 1 > W
      or oH + self.poolSizeH - 1 > H then
    S.fail(tostring(self), 'input of size %s (C x H x W x T) is too small for a %dx%dx%d output (HxWxT) of %dx%dx%d '
      .. 'windows', S.sizestr(input), oH, oW, oT, self.poolSizeH, self.poolSizeW, self.poolSizeT)
  end
  return oT, oW, oH
end

local intervals = require('nn.fractional_pool').intervals

function VFMP:updateOutput(input)
  F.check_input(self, input, 4, 'N x C x H x W x T')
  if not nn.utils.isFloating(input) then
    S.fail(tostring(self), 'expected a floating-point input, got %s', S.describe(input))
  end
  local oT, oW, oH = outSizes(self, input)
  local n = input:dim()
  local N, C = n == 5 and input:size(1) or 1, input:size(n - 3)
  local H, W, T = input:size(n - 2), input:size(n - 1), input:size(n)
  local r = self.randomSamples
  -- new samples at each forward, unless fixed; a new batch or plane count always draws
  if not torch.isTensor(r) or r:dim() ~= 3 or r:size(1) ~= N or r:size(2) ~= C or not self.newRandomPool then
    self.randomSamples = input.new(N, C, 3):uniform()
  end
  local u = self.randomSamples:view(N * C, 3)
  if u:type() ~= input:type() then u = u:type(input:type()) end
  local P = N * C
  local seqT = intervals(u:select(2, 1), T, oT, self.poolSizeT, input)
  local seqW = intervals(u:select(2, 2), W, oW, self.poolSizeW, input)
  local seqH = intervals(u:select(2, 3), H, oH, self.poolSizeH, input)
  -- the 1-based flat position of each window's first cell, then a running maximum over its cells
  local start = torch.add(seqH:view(P, oH, 1, 1):mul(W * T), seqW:view(P, 1, oW, 1):mul(T))
  start = torch.add(start, seqT:view(P, 1, 1, oT)):add(1)
  local x = input:contiguous():view(P, H * W * T)
  local best, index
  for a = 0, self.poolSizeH - 1 do
    for b = 0, self.poolSizeW - 1 do
      for c = 0, self.poolSizeT - 1 do
        local at = torch.add(start, (a * W + b) * T + c):view(P, oH * oW * oT)
        local v = x:gather(2, at)
        if not best then best, index = v, at else
          local take = torch.logicalOr(torch.gt(v, best), torch.ne(v, v))  -- the first maximum; NaN wins
          best, index = torch.where(take, v, best), torch.where(take, at, index)
        end
      end
    end
  end
  local size = input:size()
  size[n - 2], size[n - 1], size[n] = oH, oW, oT
  F.buffer(self, 'output', input):resize(size):copy(best:view(size))
  self.indices = nn.utils.longBuffer(self.indices, input)
  self.indices:resize(size):copy(index:view(size))
  return self.output
end

function VFMP:updateGradInput(input, gradOutput)
  if not self.gradInput then return end
  if not torch.isTensor(self.randomSamples) then S.fail(tostring(self), 'run forward before backward') end
  S.gradLike(tostring(self), gradOutput, self.output)
  F.call(self, F.maxPoolBackward, F.buffer(self, 'gradInput', gradOutput), gradOutput, self.indices, input, 3)
  return self.gradInput
end

function VFMP:clearState()
  self.randomSamples = nil
  self.indices = torch.LongTensor()
  return parent.clearState(self)
end

function VFMP:__tostring__()
  return string.format('%s(%sx%sx%s, %d,%d,%d)', torch.type(self), tostring(self.outT or self.ratioT),
    tostring(self.outW or self.ratioW), tostring(self.outH or self.ratioH), self.poolSizeT, self.poolSizeW,
    self.poolSizeH)
end

return VFMP
