-- nn.ops' box utilities (torchvision.ops.boxes): areas, the pairwise IoU family (IoU, GIoU, DIoU,
-- CIoU), format conversion, clipping, small-box removal and boxes around masks. Built on tensor
-- ops, so they run on CUDA and differentiate under autograd as torchvision's do. Boxes are
-- torchvision's (x1, y1, x2, y2) positions (Note [Box coordinates], nn/ops/util.lua).
local U = require 'nn.ops.util'
local ops = nn.ops

-- The four columns of N x 4 boxes, each as N x 1 (rows of a pairwise matrix) or 1 x N (columns).
local function rows(b) return U.col(b, 1):unsqueeze(2), U.col(b, 2):unsqueeze(2), U.col(b, 3):unsqueeze(2), U.col(b, 4):unsqueeze(2) end
local function cols(b) return U.col(b, 1):unsqueeze(1), U.col(b, 2):unsqueeze(1), U.col(b, 3):unsqueeze(1), U.col(b, 4):unsqueeze(1) end

local function pair_args(op, b1, b2)
  U.boxes(op, b1, 'boxes1')
  U.boxes(op, b2, 'boxes2')
  U.same(op, b1, b2, 'boxes1', 'boxes2')
  return U.floating(b1), U.floating(b2)
end

--- nn.ops.boxArea(boxes): the areas (x2 - x1) * (y2 - y1) of K x 4 boxes, a tensor of K.
--- Example: print(nn.ops.boxArea(torch.Tensor{{0, 0, 2, 3}}))
function ops.boxArea(boxes)
  U.boxes('nn.ops.boxArea', boxes, 'boxes')
  return torch.cmul(U.col(boxes, 3) - U.col(boxes, 1), U.col(boxes, 4) - U.col(boxes, 2))
end

-- Pairwise intersection and union (N x M) and the enclosing box's width and height.
local function inter_union(b1, b2)
  local x1, y1, x2, y2 = rows(b1)
  local gx1, gy1, gx2, gy2 = cols(b2)
  local w = torch.clamp(torch.cmin(x2, gx2) - torch.cmax(x1, gx1), 0)
  local h = torch.clamp(torch.cmin(y2, gy2) - torch.cmax(y1, gy1), 0)
  local inter = torch.cmul(w, h)
  local union = torch.cmul(x2 - x1, y2 - y1) + torch.cmul(gx2 - gx1, gy2 - gy1) - inter
  local ew = torch.clamp(torch.cmax(x2, gx2) - torch.cmin(x1, gx1), 0)
  local eh = torch.clamp(torch.cmax(y2, gy2) - torch.cmin(y1, gy1), 0)
  return inter, union, ew, eh
end

--- nn.ops.boxIou(boxes1, boxes2): the N x M matrix of intersection over union of N x 4 and M x 4
--- boxes in (x1, y1, x2, y2) form.
--- Example: print(nn.ops.boxIou(torch.Tensor{{0, 0, 2, 2}}, torch.Tensor{{1, 1, 3, 3}}))
function ops.boxIou(boxes1, boxes2)
  local b1, b2 = pair_args('nn.ops.boxIou', boxes1, boxes2)
  local inter, union = inter_union(b1, b2)
  return torch.cdiv(inter, union)
end

--- nn.ops.generalizedBoxIou(boxes1, boxes2): the N x M generalized IoU, IoU - (C - U) / C with C
--- the area of the smallest box enclosing both.
--- Example: print(nn.ops.generalizedBoxIou(torch.Tensor{{0, 0, 1, 1}}, torch.Tensor{{2, 0, 3, 1}}))
function ops.generalizedBoxIou(boxes1, boxes2)
  local b1, b2 = pair_args('nn.ops.generalizedBoxIou', boxes1, boxes2)
  local inter, union, ew, eh = inter_union(b1, b2)
  local area = torch.cmul(ew, eh)
  return torch.cdiv(inter, union) - torch.cdiv(area - union, area)
end

-- DIoU and IoU, pairwise (torchvision's _box_diou_iou).
local function diou_iou(b1, b2, eps)
  local inter, union, ew, eh = inter_union(b1, b2)
  local iou = torch.cdiv(inter, union)
  local diag = torch.cmul(ew, ew) + torch.cmul(eh, eh) + eps
  local x1, y1, x2, y2 = rows(b1)
  local gx1, gy1, gx2, gy2 = cols(b2)
  local dx = (x1 + x2) * 0.5 - (gx1 + gx2) * 0.5
  local dy = (y1 + y2) * 0.5 - (gy1 + gy2) * 0.5
  return iou - torch.cdiv(torch.cmul(dx, dx) + torch.cmul(dy, dy), diag), iou
end

--- nn.ops.distanceBoxIou(boxes1, boxes2[, eps]): the N x M distance IoU, IoU - d^2 / c^2 with d
--- the distance of the centres and c the diagonal of the enclosing box (eps 1e-7 added to c^2).
--- Example: print(nn.ops.distanceBoxIou(torch.Tensor{{0, 0, 2, 2}}, torch.Tensor{{1, 1, 3, 3}}))
function ops.distanceBoxIou(boxes1, boxes2, eps)
  local b1, b2 = pair_args('nn.ops.distanceBoxIou', boxes1, boxes2)
  eps = U.number('nn.ops.distanceBoxIou', eps, 'eps', 1e-7)
  return (diou_iou(b1, b2, eps))
end

-- The aspect-ratio term v of CIoU, from the widths and heights of predictions and targets.
local function aspect_v(wp, hp, wg, hg)
  local d = torch.atan(torch.cdiv(wg, hg)) - torch.atan(torch.cdiv(wp, hp))
  return torch.cmul(d, d) * (4 / (math.pi * math.pi))
end
ops._aspectV = aspect_v

--- nn.ops.completeBoxIou(boxes1, boxes2[, eps]): the N x M complete IoU, DIoU - alpha * v with v
--- the aspect-ratio term; alpha = v / (1 - IoU + v + eps) is a constant for autograd, as in
--- torchvision.
--- Example: print(nn.ops.completeBoxIou(torch.Tensor{{0, 0, 2, 2}}, torch.Tensor{{1, 1, 3, 4}}))
function ops.completeBoxIou(boxes1, boxes2, eps)
  local b1, b2 = pair_args('nn.ops.completeBoxIou', boxes1, boxes2)
  eps = U.number('nn.ops.completeBoxIou', eps, 'eps', 1e-7)
  local diou, iou = diou_iou(b1, b2, eps)
  local x1, y1, x2, y2 = rows(b1)
  local gx1, gy1, gx2, gy2 = cols(b2)
  local v = aspect_v(x2 - x1, y2 - y1, gx2 - gx1, gy2 - gy1)
  local alpha = torch.noGrad(function() return torch.cdiv(v, (v - iou) + (1 + eps)) end)
  return diou - torch.cmul(alpha:detach(), v)
end

-- ---- formats -------------------------------------------------------------------------------

local to_xyxy = {
  xyxy = function(a, b, c, d) return a, b, c, d end,
  xywh = function(x, y, w, h) return x, y, x + w, y + h end,
  cxcywh = function(cx, cy, w, h) return cx - w * 0.5, cy - h * 0.5, cx + w * 0.5, cy + h * 0.5 end,
}
local from_xyxy = {
  xyxy = function(a, b, c, d) return a, b, c, d end,
  xywh = function(x1, y1, x2, y2) return x1, y1, x2 - x1, y2 - y1 end,
  cxcywh = function(x1, y1, x2, y2) return (x1 + x2) * 0.5, (y1 + y2) * 0.5, x2 - x1, y2 - y1 end,
}

--- nn.ops.boxConvert(boxes, inFmt, outFmt): boxes (... x 4) from one format to another among
--- 'xyxy' (corners), 'xywh' (top-left corner, width, height) and 'cxcywh' (centre, width, height);
--- a copy when the formats agree.
--- Example: print(nn.ops.boxConvert(torch.Tensor{{1, 2, 4, 6}}, 'xyxy', 'cxcywh'))
function ops.boxConvert(boxes, inFmt, outFmt)
  local op = 'nn.ops.boxConvert'
  U.tensor(op, boxes, 'boxes')
  if boxes:dim() < 1 or boxes:size(boxes:dim()) ~= 4 then
    U.fail(op, 'boxes must have 4 numbers in the last dim, got size %s', U.shape(boxes))
  end
  for _, f in ipairs({ inFmt, outFmt }) do
    if to_xyxy[f] == nil then U.fail(op, "unsupported format %s (expected 'xyxy', 'xywh' or 'cxcywh')", tostring(f)) end
  end
  if inFmt == outFmt then return boxes:clone() end
  local a, b, c, d = to_xyxy[inFmt](U.col(boxes, 1), U.col(boxes, 2), U.col(boxes, 3), U.col(boxes, 4))
  return torch.stack({ from_xyxy[outFmt](a, b, c, d) }, boxes:dim())
end

--- nn.ops.clipBoxesToImage(boxes, size): boxes (... x 2k, x and y alternating) clipped to an image
--- of size {height, width}: x in [0, width], y in [0, height].
--- Example: print(nn.ops.clipBoxesToImage(torch.Tensor{{-1, 2, 9, 5}}, {4, 8}))
function ops.clipBoxesToImage(boxes, size)
  local op = 'nn.ops.clipBoxesToImage'
  U.tensor(op, boxes, 'boxes')
  local nd = boxes:dim()
  if nd < 1 or boxes:size(nd) % 2 ~= 0 then
    U.fail(op, 'boxes must have an even number of coordinates in the last dim, got size %s', U.shape(boxes))
  end
  if type(size) ~= 'table' or type(size[1]) ~= 'number' or type(size[2]) ~= 'number' then
    U.fail(op, 'expected size as {height, width}, got %s', U.describe(size))
  end
  local h, w = size[1], size[2]
  if not (h >= 0 and w >= 0) then U.fail(op, 'size must be {height, width} of non-negative numbers, got {%g, %g}', h, w) end
  local parts = {}
  for j = 1, boxes:size(nd) do
    parts[j] = torch.clamp(U.col(boxes, j), 0, j % 2 == 1 and w or h)
  end
  if #parts == 0 then return boxes:clone() end
  return torch.stack(parts, nd)
end

-- 1-based positions (a LongTensor of K) of the true entries of a 1-D byte/bool mask.
local function device_of(x) return x:getDevice() >= 0 and ('cuda:' .. x:getDevice()) or 'cpu' end
local function where1(mask)
  local nz = torch.nonzero(mask)
  return nz:nElement() == 0 and torch.LongTensor(0):to(device_of(mask)) or nz:view(-1)
end
ops._where1 = where1

--- nn.ops.removeSmallBoxes(boxes, minSize): the 1-based indices (a LongTensor) of the K x 4 boxes
--- whose width and height are both at least minSize.
--- Example: print(nn.ops.removeSmallBoxes(torch.Tensor{{0, 0, 1, 5}, {0, 0, 3, 3}}, 2))
function ops.removeSmallBoxes(boxes, minSize)
  local op = 'nn.ops.removeSmallBoxes'
  U.boxes(op, boxes, 'boxes')
  minSize = U.number(op, minSize, 'minSize')
  if minSize == nil then U.fail(op, 'expected minSize (a number), got nil') end
  if boxes:size(1) == 0 then return torch.LongTensor(0):to(device_of(boxes)) end
  local b = boxes:detach()
  local keep = torch.cmul((U.col(b, 3) - U.col(b, 1)):ge(minSize), (U.col(b, 4) - U.col(b, 2)):ge(minSize))
  return where1(keep)
end

--- nn.ops.masksToBoxes(masks): the N x 4 float boxes (x1, y1, x2, y2) around the nonzero pixels of
--- N x H x W masks, in torchvision's 0-based pixel positions (Note [Box coordinates]): x1, y1 are
--- the first nonzero column and row, x2, y2 the last. An empty mask is an error, as in torchvision.
--- Example: print(nn.ops.masksToBoxes(torch.ByteTensor{{{0, 1, 1}, {0, 1, 0}}}))
function ops.masksToBoxes(masks)
  local op = 'nn.ops.masksToBoxes'
  U.tensor(op, masks, 'masks')
  if masks:dim() ~= 3 then U.fail(op, 'masks must be N x H x W, got size %s', U.shape(masks)) end
  local n, h, w = masks:size(1), masks:size(2), masks:size(3)
  if masks:nElement() == 0 then return torch.FloatTensor(0, 4):to(device_of(masks)) end  -- torchvision: 0 x 4 even for N x 0 x W
  local nz = masks:detach():ne(0)
  local function span(any, len)  -- any: N x len of 0/1 as floats; first and last 0-based position
    local idx = any:clone():fill(1):cumsum(2):add(-1)
    local lo = torch.min(idx + (1 - any) * (len + 1), 2):view(n)
    local hi = torch.max(torch.cmul(idx, any) - (1 - any), 2):view(n)
    return lo, hi
  end
  local rowsAny = nz:any(3):view(n, h):to('float32')
  local colsAny = nz:any(2):view(n, w):to('float32')
  local empty = rowsAny:sum(2):view(n):eq(0)
  if empty:any() then
    U.fail(op, 'mask %d has no nonzero pixel (torchvision fails on it too)', where1(empty)[1])
  end
  local y1, y2 = span(rowsAny, h)
  local x1, x2 = span(colsAny, w)
  return torch.stack({ x1, y1, x2, y2 }, 2)
end

return ops
