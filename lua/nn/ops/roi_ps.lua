-- nn.ops.psRoiAlign and nn.ops.psRoiPool (torchvision.ops.ps_roi_align, ps_roi_pool), R-FCN's
-- position-sensitive RoI pooling, and their modules nn.ops.PSRoIAlign and nn.ops.PSRoIPool.
-- Boxes as in nn.ops.roiAlign (Note [Batch indices of boxes], nn/ops/roi.lua).
--
-- Note [Position-sensitive pooling]: output bin (i, j) of output channel c reads input channel
-- (c - 1) * outH * outW + (i - 1) * outW + j only. Both are computed as their plain versions over
-- all C input channels (the separable products of nn/ops/roi.lua), then bin (i, j) of each group
-- of outH * outW channels is picked by an identity mask: outH * outW times the arithmetic the
-- kernel does, in a few large ops rather than a gather per bin, and differentiable in the input.
local U = require 'nn.ops.util'
local P = require 'nn.pytorch_names_args'
local ops = nn.ops

-- K x C x PH x PW -> K x (C / (PH PW)) x PH x PW: each bin from its own channel of the group.
local function pick(full, PH, PW)
  local K, C = full:size(1), full:size(2)
  local PP = PH * PW
  local eye = full.new(PP, PP):zero()
  for q = 1, PP do eye[q][q] = 1 end
  local v = full:reshape(K, C / PP, PP, PP)
  return torch.cmul(v, eye:view(1, 1, PP, PP)):sum(3):view(K, C / PP, PH, PW)
end

local function args(op, input, boxes, names, ...)
  ops._checkInput(op, input)
  local rois = ops._rois(op, input, boxes)
  local o = P.parse(op, names, ...)
  if o.outputSize == nil then U.fail(op, 'expected outputSize (a number or {h, w})') end
  local size = U.pair(op, o.outputSize, 'outputSize')
  local C = input:size(2)
  if C % (size[1] * size[2]) ~= 0 then
    U.fail(op, 'input channels (%d) must be a multiple of outputSize h * w (%d)', C, size[1] * size[2])
  end
  return rois, o, size
end

-- Note [Zero-size boxes in psRoiAlign]: with adaptive sampling a box of zero width or height has
-- ceil(0) = 0 samples per bin; torchvision 0.14's ps_roi_align divides their sum by that count
-- (0 / 0: NaN), where its roi_align divides by max(count, 1) (0). Both go through the same core
-- here, which gives roi_align's 0: a NaN would spread through a detector's loss from one
-- degenerate proposal.

--- nn.ops.psRoiAlign(input, boxes, outputSize[, spatialScale[, samplingRatio]]): position-sensitive
--- RoIAlign: input N x C x H x W with C a multiple of h * w; output K x C/(h w) x h x w, bin (i, j)
--- of channel c averaging bilinear samples of input channel (c-1) h w + (i-1) w + j. Boxes are
--- shifted by -0.5 pixel (as torchvision's aligned = true); a box of no samples (zero-size,
--- adaptive sampling) gives 0 (Note [Zero-size boxes in psRoiAlign]). Differentiable in input.
--- Example: print(nn.ops.psRoiAlign(torch.rand(1, 4, 5, 5), torch.Tensor{{1, 0, 0, 4, 4}}, 2):size())
function ops.psRoiAlign(input, boxes, ...)
  local op = 'nn.ops.psRoiAlign'
  local rois, o, size = args(op, input, boxes, { 'outputSize', 'spatialScale', 'samplingRatio' }, ...)
  local scale = U.number(op, o.spatialScale, 'spatialScale', 1)
  local ratio = U.int(op, o.samplingRatio, 'samplingRatio', -1)
  local full = ops._alignCore(op, input, rois, size[1], size[2], scale, ratio, 0.5, false)
  return pick(full, size[1], size[2])
end

--- nn.ops.psRoiPool(input, boxes, outputSize[, spatialScale]): position-sensitive RoIPool: the
--- average (not the maximum) of input channel (c-1) h w + (i-1) w + j over bin (i, j) of each box
--- rounded to whole pixels; 0 for an empty bin. As torchvision 0.14's kernel, bins are clipped to
--- end at the input's last row and column (exclusive). Differentiable in input: the gradient is
--- that of this forward; torchvision 0.14's backward clips those bins differently, so its gradient
--- differs (and fails its own gradcheck) where bins reach the last row or column.
--- Example: print(nn.ops.psRoiPool(torch.rand(1, 4, 5, 5), torch.Tensor{{1, 0, 0, 4, 4}}, 2):size())
function ops.psRoiPool(input, boxes, ...)
  local op = 'nn.ops.psRoiPool'
  local rois, o, size = args(op, input, boxes, { 'outputSize', 'spatialScale' }, ...)
  local scale = U.number(op, o.spatialScale, 'spatialScale', 1)
  local N, C, H, W = input:size(1), input:size(2), input:size(3), input:size(4)
  local PH, PW, K = size[1], size[2], rois:size(1)
  if K == 0 then return input.new(0, C / (PH * PW), PH, PW):zero() end
  local bidx = ops._batchOf(op, rois, N)
  if H == 0 or W == 0 then return input.new(K, C / (PH * PW), PH, PW):zero() end  -- Note [Images of no pixels], nn/ops/roi.lua
  local r = rois:detach()
  -- 0/1 weights of the pixels [lo, hi) of each bin along one axis, and the bins' lengths
  local function axis(c1, c2, Pn, L)
    local s = torch.round(r:select(2, c1) * scale)
    local len = torch.clamp(torch.round(r:select(2, c2) * scale) - s, 1, math.huge)
    local bin = (len / Pn):view(K, 1)
    local p = ops._range(r, Pn, 2, 2):expand(K, Pn)
    -- clipped to [0, L - 1] as torchvision's kernel does (roiPool clips to L): the last row and
    -- column of the input never count, and bins reaching past them shrink or empty
    local lo = torch.clamp(torch.floor(torch.cmul(p, bin)) + s:view(K, 1), 0, L - 1)
    local hi = torch.clamp(torch.ceil(torch.cmul(p + 1, bin)) + s:view(K, 1), 0, L - 1)
    local pix = ops._range(r, L, 3, 3)
    local A = torch.cmul(pix:ge(lo:view(K, Pn, 1)), pix:lt(hi:view(K, Pn, 1))):typeAs(r)
    return A, hi - lo
  end
  local Ay, lh = axis(3, 5, PH, H)
  local Ax, lw = axis(2, 4, PW, W)
  local area = torch.cmul(lh:view(K, PH, 1), lw:view(K, 1, PW))
  local sums = ops._separable(input, bidx, Ay:typeAs(input), Ax:typeAs(input))
  local inv = torch.cdiv(area:gt(0):typeAs(area), torch.clamp(area, 1, math.huge))
  return pick(torch.cmul(sums, inv:view(K, 1, PH, PW):typeAs(input)), PH, PW)
end

local function module(name, fn, names)
  local cls, parent = torch.class('nn.ops.' .. name, 'nn.Module')
  cls.__init = function(self, ...)
    parent.__init(self)
    local op = 'nn.ops.' .. name
    local o = P.parse(op, names, ...)
    self.outputSize = U.pair(op, o.outputSize, 'outputSize')
    self.spatialScale = U.number(op, o.spatialScale, 'spatialScale', 1)
    self.samplingRatio = names[3] and U.int(op, o.samplingRatio, 'samplingRatio', -1) or nil
  end
  cls.updateOutput = function(self, x)
    if type(x) ~= 'table' or torch.isTensor(x) or x[1] == nil or x[2] == nil then
      U.fail('nn.ops.' .. name, 'expected {input, boxes}, got %s', U.describe(x))
    end
    if self.samplingRatio then
      self.output = fn(x[1], x[2], self.outputSize, self.spatialScale, self.samplingRatio)
    else
      self.output = fn(x[1], x[2], self.outputSize, self.spatialScale)
    end
    return self.output
  end
  cls.__tostring__ = function(self)
    return string.format('nn.ops.%s(outputSize={%d, %d}, spatialScale=%g%s)', name, self.outputSize[1],
      self.outputSize[2], self.spatialScale, self.samplingRatio and (', samplingRatio=' .. self.samplingRatio) or '')
  end
end
--- nn.ops.PSRoIAlign(outputSize, spatialScale, samplingRatio): the module of nn.ops.psRoiAlign;
--- forward takes {input, boxes}.
--- Example: print(nn.ops.PSRoIAlign(2, 1, -1):forward({torch.rand(1, 4, 5, 5), torch.Tensor{{1, 0, 0, 4, 4}}}):size())
module('PSRoIAlign', ops.psRoiAlign, { 'outputSize', 'spatialScale', 'samplingRatio' })
--- nn.ops.PSRoIPool(outputSize, spatialScale): the module of nn.ops.psRoiPool; forward takes
--- {input, boxes}.
--- Example: print(nn.ops.PSRoIPool(2, 1):forward({torch.rand(1, 4, 5, 5), torch.Tensor{{1, 0, 0, 4, 4}}}):size())
module('PSRoIPool', ops.psRoiPool, { 'outputSize', 'spatialScale' })

return ops
