-- nn.ops.MultiScaleRoIAlign (torchvision.ops.MultiScaleRoIAlign): RoIAlign over a feature pyramid,
-- each box pooled from the level its size maps to (FPN paper, eq. 1).
local U = require 'nn.ops.util'
local ops = nn.ops

-- round half to even, as torch.round (the scales are powers of two picked from log2 ratios)
local function round_even(v)
  local f = math.floor(v)
  local d = v - f
  if d > 0.5 or (d == 0.5 and f % 2 == 1) then return f + 1 end
  return f
end

local MS, parent = torch.class('nn.ops.MultiScaleRoIAlign', 'nn.Module')

--- nn.ops.MultiScaleRoIAlign(featmapNames, outputSize, samplingRatio[, {canonicalScale = 224,
--- canonicalLevel = 4}]): pools each box from one level of a feature pyramid: level floor(4 +
--- log2(sqrt(area) / 224)) clamped to the levels present, each level's scale inferred from its
--- size and the largest image (as torchvision, on the first forward). forward takes {features,
--- boxes, imageShapes}: features a list of {name, tensor} pairs (an FPN's output) or a table
--- name -> tensor, of which the featmapNames are used in that order; boxes a list of per-image
--- K_i x 4 tensors; imageShapes a list of {h, w}. Returns K x C x h x w, boxes in list order.
--- Example: print(nn.ops.MultiScaleRoIAlign({'a'}, 2, 2):forward({{a = torch.rand(1, 3, 8, 8)}, {torch.Tensor{{0, 0, 9, 9}}}, {{16, 16}}}):size())
function MS:__init(featmapNames, outputSize, samplingRatio, opts)
  parent.__init(self)
  local op = 'nn.ops.MultiScaleRoIAlign'
  if type(featmapNames) ~= 'table' or #featmapNames == 0 then
    U.fail(op, 'featmapNames must be a non-empty list of names, got %s', U.describe(featmapNames))
  end
  self.featmapNames = featmapNames
  self.outputSize = U.pair(op, outputSize, 'outputSize')
  self.samplingRatio = U.int(op, samplingRatio, 'samplingRatio')
  if self.samplingRatio == nil then U.fail(op, 'expected samplingRatio (an integer)') end
  local o = U.opts(op, opts, { canonicalScale = true, canonicalLevel = true })
  self.canonicalScale = U.number(op, o.canonicalScale, 'canonicalScale', 224)
  self.canonicalLevel = U.number(op, o.canonicalLevel, 'canonicalLevel', 4)
end

-- The features named by featmapNames, in order.
function MS:_filter(x)
  local op = 'nn.ops.MultiScaleRoIAlign'
  local want, out = {}, {}
  for _, n in ipairs(self.featmapNames) do want[n] = true end
  if type(x) ~= 'table' or torch.isTensor(x) then U.fail(op, 'expected features as a table, got %s', U.describe(x)) end
  if #x > 0 and type(x[1]) == 'table' and not torch.isTensor(x[1]) then
    for _, pair in ipairs(x) do if want[pair[1]] then out[#out + 1] = pair[2] end end
  else
    for _, n in ipairs(self.featmapNames) do out[#out + 1] = x[n] end
  end
  if #out ~= #self.featmapNames then
    U.fail(op, 'features hold %d of the %d maps named in featmapNames', #out, #self.featmapNames)
  end
  for i, f in ipairs(out) do
    if not torch.isTensor(f) or f:dim() ~= 4 then U.fail(op, 'feature map %d must be N x C x H x W, got %s', i, U.describe(f)) end
  end
  return out
end

-- torchvision's _setup_scales: each level's scale 2^round(log2(H_level / max image height)), and
-- the level range they span.
function MS:_setupScales(feats, shapes)
  local op = 'nn.ops.MultiScaleRoIAlign'
  if type(shapes) ~= 'table' or #shapes == 0 then U.fail(op, 'imageShapes must be a non-empty list of {h, w}') end
  local maxH = 0
  for i, s in ipairs(shapes) do
    if type(s) ~= 'table' or type(s[1]) ~= 'number' or type(s[2]) ~= 'number' or s[1] <= 0 or s[2] <= 0 then
      U.fail(op, 'imageShapes[%d] must be {h, w} of positive numbers, got %s', i, U.describe(s))
    end
    maxH = math.max(maxH, s[1])
  end
  local scales = {}
  for i, f in ipairs(feats) do scales[i] = 2 ^ round_even(math.log(f:size(3) / maxH) / math.log(2)) end
  local lmin = -math.log(scales[1]) / math.log(2)
  local lmax = -math.log(scales[#scales]) / math.log(2)
  local function trunc(v) return v < 0 and math.ceil(v - 1e-9) or math.floor(v + 1e-9) end
  self.scales, self.kMin, self.kMax = scales, trunc(lmin), trunc(lmax)
end

function MS:updateOutput(input)
  local op = 'nn.ops.MultiScaleRoIAlign'
  if type(input) ~= 'table' or torch.isTensor(input) or input[1] == nil or input[2] == nil then
    U.fail(op, 'expected {features, boxes, imageShapes}, got %s', U.describe(input))
  end
  local feats, boxes, shapes = self:_filter(input[1]), input[2], input[3]
  if type(boxes) ~= 'table' or torch.isTensor(boxes) then U.fail(op, 'boxes must be a list of per-image K_i x 4 tensors') end
  if self.scales == nil then self:_setupScales(feats, shapes) end
  local rois = ops._rois(op, feats[1], boxes)
  local PH, PW = self.outputSize[1], self.outputSize[2]
  if #feats == 1 then
    self.output = ops.roiAlign(feats[1], rois, self.outputSize, self.scales[1], self.samplingRatio)
    return self.output
  end
  local K = rois:size(1)
  if K == 0 then
    self.output = feats[1].new(0, feats[1]:size(2), PH, PW):zero()
    return self.output
  end
  -- the level of each box (torchvision's LevelMapper; eps 1e-6)
  local r = rois:detach()
  local s = torch.sqrt(torch.cmul(r:select(2, 4) - r:select(2, 2), r:select(2, 5) - r:select(2, 3)))
  local lv = torch.floor(torch.log(s / self.canonicalScale) / math.log(2) + (self.canonicalLevel + 1e-6))
  lv = torch.clamp(lv, self.kMin, self.kMax) - self.kMin
  local outs, order = {}, {}
  for level, f in ipairs(feats) do
    local members = ops._where1(lv:eq(level - 1))
    if members:nElement() > 0 then
      outs[#outs + 1] = ops.roiAlign(f, rois:index(1, members), self.outputSize, self.scales[level], self.samplingRatio)
      order[#order + 1] = members
    end
  end
  -- Note [Boxes of no level]: a box with x2 < x1 or y2 < y1 (not both) has a negative area and a
  -- NaN level, in no level's range; torchvision leaves its row of the (zero-filled) result at 0.
  -- Without a block of its own it would be missing and the rows after it shifted.
  local lost = ops._where1(lv:ne(lv))
  if lost:nElement() > 0 then
    outs[#outs + 1] = feats[1].new(lost:nElement(), feats[1]:size(2), PH, PW):zero()
    order[#order + 1] = lost
  end
  local out = #outs == 1 and outs[1] or torch.cat(outs, 1)
  local _, inv = torch.sort(torch.cat(order, 1), 1)
  self.output = out:index(1, inv)
  return self.output
end

function MS:__tostring__()
  return string.format('nn.ops.MultiScaleRoIAlign(featmapNames={%s}, outputSize={%d, %d}, samplingRatio=%d)',
    table.concat(self.featmapNames, ', '), self.outputSize[1], self.outputSize[2], self.samplingRatio)
end

return ops
