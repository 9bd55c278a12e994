-- nn.SpatialFractionalMaxPooling(poolSizeW, poolSizeH, outW, outH) or (poolSizeW, poolSizeH, ratioW,
-- ratioH): Torch7's fractional max pooling (Graham, 2014) of C x H x W or N x C x H x W inputs:
-- poolSizeW x poolSizeH windows at pseudo-random starts, drawn per plane from m.randomSamples
-- (N x C x 2 uniforms, W's then H's) at each forward unless :fixPoolingRegions(); the output is
-- outH x outW, or floor(H * ratioH) x floor(W * ratioW). m.indices as nn.SpatialMaxPooling's.
local S = require 'nn.support'
local F = require 'nn.functional_pool'
local SFMP, parent = torch.class('nn.SpatialFractionalMaxPooling', 'nn.Module')

function SFMP:__init(poolSizeW, poolSizeH, arg1, arg2)
  parent.__init(self)
  local name = 'nn.SpatialFractionalMaxPooling'
  self.poolSizeW = S.argInt(name, 'poolSizeW', poolSizeW, 2)
  self.poolSizeH = S.argInt(name, 'poolSizeH', poolSizeH, 2)
  if type(arg1) ~= 'number' or type(arg2) ~= 'number' then
    F.init_error(name, 'expected an output size (outW, outH) or reduction ratios (ratioW, ratioH), got %s and %s',
      S.describe(arg1), S.describe(arg2))
  end
  if arg1 >= 1 and arg2 >= 1 then
    self.outW = S.argInt(name, 'outW', arg1, 1)
    self.outH = S.argInt(name, 'outH', arg2, 1)
  else
    if not (arg1 > 0 and arg1 < 1 and arg2 > 0 and arg2 < 1) then
      F.init_error(name, 'reduction ratios must both lie in (0, 1) (or give an output size >= 1), got %s and %s',
        tostring(arg1), tostring(arg2))
    end
    self.ratioW, self.ratioH = arg1, arg2
  end
  self.indices = torch.LongTensor()
  self.randomSamples = nil
  self.newRandomPool = false  -- true: keep the pooling regions (Torch7's name)
end

--- m:fixPoolingRegions([val = true]): keep the pooling regions of the next forward for the ones
--- after it (false draws new ones at each forward again); returns m.
function SFMP:fixPoolingRegions(val)
  if val == nil then val = true end
  self.newRandomPool = val
  return self
end

-- The output size for a checked input.
local function outSizes(self, input)
  local H, W = input:size(input:dim() - 1), input:size(input:dim())
  local oW, oH = self.outW, self.outH
  if self.ratioW then oW, oH = math.floor(W * self.ratioW), math.floor(H * self.ratioH) end
  if oW < 1 or oH < 1 or oH + self.poolSizeH - 1 > H or oW + self.poolSizeW - 1 > W then
    S.fail(tostring(self), 'input of size %s is too small for a %dx%d output of %dx%d windows', S.sizestr(input),
      oH, oW, self.poolSizeH, self.poolSizeW)
  end
  return oW, oH
end

local intervals = require('nn.fractional_pool').intervals

function SFMP:updateOutput(input)
  F.check_input(self, input, 3, 'N x C x H x W')
  if not nn.utils.isFloating(input) then
    S.fail(tostring(self), 'expected a floating-point input, got %s', S.describe(input))
  end
  local oW, oH = outSizes(self, input)
  local n = input:dim()
  local N, C, H, W = n == 4 and input:size(1) or 1, input:size(n - 2), input:size(n - 1), input:size(n)
  local r = self.randomSamples
  -- new samples at each forward, unless fixed; a new batch or plane count always draws
  if not torch.isTensor(r) or r:dim() ~= 3 or r:size(1) ~= N or r:size(2) ~= C or not self.newRandomPool then
    self.randomSamples = input.new(N, C, 2):uniform()
  end
  local u = self.randomSamples:view(N * C, 2)
  if u:type() ~= input:type() then u = u:type(input:type()) end
  local P = N * C
  local seqW = intervals(u:select(2, 1), W, oW, self.poolSizeW, input)
  local seqH = intervals(u:select(2, 2), H, oH, self.poolSizeH, input)
  -- the 1-based flat position of each window's first cell, then a running maximum over its cells
  local start = torch.add(seqH:view(P, oH, 1):mul(W), seqW:view(P, 1, oW)):add(1)
  local x = input:contiguous():view(P, H * W)
  local best, index
  for a = 0, self.poolSizeH - 1 do
    for b = 0, self.poolSizeW - 1 do
      local at = torch.add(start, a * W + b):view(P, oH * oW)
      local v = x:gather(2, at)
      if not best then best, index = v, at else
        local take = torch.logicalOr(torch.gt(v, best), torch.ne(v, v))  -- the first maximum; NaN wins
        best, index = torch.where(take, v, best), torch.where(take, at, index)
      end
    end
  end
  local size = input:size()
  size[n - 1], size[n] = oH, oW
  F.buffer(self, 'output', input):resize(size):copy(best:view(size))
  self.indices = nn.utils.longBuffer(self.indices, input)
  self.indices:resize(size):copy(index:view(size))
  return self.output
end

function SFMP:updateGradInput(input, gradOutput)
  if not self.gradInput then return end
  if not torch.isTensor(self.randomSamples) then S.fail(tostring(self), 'run forward before backward') end
  S.gradLike(tostring(self), gradOutput, self.output)
  F.call(self, F.maxPoolBackward, F.buffer(self, 'gradInput', gradOutput), gradOutput, self.indices, input, 2)
  return self.gradInput
end

function SFMP:__tostring__()
  return string.format('%s(%s,%s,%d,%d)', torch.type(self), tostring(self.outW or self.ratioW),
    tostring(self.outH or self.ratioH), self.poolSizeW, self.poolSizeH)
end

return SFMP
