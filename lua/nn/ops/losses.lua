-- nn.ops' losses (torchvision.ops giou_loss, diou_loss, ciou_loss, focal_loss): the box losses on
-- matched pairs of boxes (..., 4 each, same size) and the sigmoid focal loss of RetinaNet, with
-- torchvision's defaults (reduction 'none', eps 1e-7, alpha 0.25, gamma 2).
local U = require 'nn.ops.util'
local P = require 'nn.pytorch_names_args'
local ops = nn.ops

-- torchvision's _upcast_non_float: anything but float32/float64 computes in float32.
local function upcast(x)
  local t = x:type()
  if t:find('Double') or t == 'torch.FloatTensor' or t == 'torch.CudaTensor' then return x end
  return x:to('float32')
end

local function box_pair(op, b1, b2)
  U.tensor(op, b1, 'boxes1')
  U.tensor(op, b2, 'boxes2')
  if b1:dim() < 1 or b1:size(b1:dim()) ~= 4 then U.fail(op, 'boxes1 must be ... x 4, got size %s', U.shape(b1)) end
  if not b1:isSameSizeAs(b2) then
    U.fail(op, 'boxes1 (%s) and boxes2 (%s) must have the same size', U.shape(b1), U.shape(b2))
  end
  U.same(op, b1, b2, 'boxes1', 'boxes2')
  return upcast(b1), upcast(b2)
end

local function loss_opts(op, ...)
  local o = P.parse(op, { 'reduction', 'eps' }, ...)
  return U.reduction(op, o.reduction, 'none'), U.number(op, o.eps, 'eps', 1e-7)
end

-- The columns of both boxes, the IoU (inter / (union + eps)) and the enclosing box's corners.
local function parts(b1, b2, eps)
  local c = function(b, j) return U.col(b, j) end
  local x1, y1, x2, y2 = c(b1, 1), c(b1, 2), c(b1, 3), c(b1, 4)
  local gx1, gy1, gx2, gy2 = c(b2, 1), c(b2, 2), c(b2, 3), c(b2, 4)
  -- Note [Intersections of touching boxes]: torchvision's losses (_loss_inter_union) fill the
  -- intersection only where both sides are positive, so boxes that touch (a side exactly 0) get
  -- no gradient through it, where a clamp at 0 passes the other side's length (the IoU functions
  -- of boxes.lua clamp, as torchvision's box_iou does). Picking w and h by that mask keeps the
  -- losses' gradients torchvision's, and NaN sides give an intersection of 0 as there.
  local w = torch.cmin(x2, gx2) - torch.cmax(x1, gx1)
  local h = torch.cmin(y2, gy2) - torch.cmax(y1, gy1)
  local both = torch.logicalAnd(w:gt(0), h:gt(0))
  local zero = w.new(w:size()):zero()
  local inter = torch.cmul(torch.where(both, w, zero), torch.where(both, h, zero))
  local union = torch.cmul(x2 - x1, y2 - y1) + torch.cmul(gx2 - gx1, gy2 - gy1) - inter
  local p = { x1 = x1, y1 = y1, x2 = x2, y2 = y2, gx1 = gx1, gy1 = gy1, gx2 = gx2, gy2 = gy2, union = union }
  p.iou = torch.cdiv(inter, union + eps)
  p.cw = torch.cmax(x2, gx2) - torch.cmin(x1, gx1)
  p.ch = torch.cmax(y2, gy2) - torch.cmin(y1, gy1)
  return p
end

-- 1 - IoU + d^2 / c^2 and the IoU (torchvision's _diou_iou_loss).
local function diou_loss(p, eps)
  local diag = torch.cmul(p.cw, p.cw) + torch.cmul(p.ch, p.ch) + eps
  local dx = (p.x1 + p.x2) * 0.5 - (p.gx1 + p.gx2) * 0.5
  local dy = (p.y1 + p.y2) * 0.5 - (p.gy1 + p.gy2) * 0.5
  return torch.cdiv(torch.cmul(dx, dx) + torch.cmul(dy, dy), diag) - p.iou + 1
end

--- nn.ops.generalizedBoxIouLoss(boxes1, boxes2[, reduction[, eps]]): 1 - GIoU of each pair of
--- boxes (..., 4 in (x1, y1, x2, y2) form, same size); reduction 'none' (default), 'mean' (0 for
--- no boxes) or 'sum'; options also as {reduction = , eps = }.
--- Example: print(nn.ops.generalizedBoxIouLoss(torch.Tensor{{0, 0, 2, 2}}, torch.Tensor{{1, 1, 3, 3}}))
function ops.generalizedBoxIouLoss(boxes1, boxes2, ...)
  local op = 'nn.ops.generalizedBoxIouLoss'
  local b1, b2 = box_pair(op, boxes1, boxes2)
  local r, eps = loss_opts(op, ...)
  local p = parts(b1, b2, eps)
  local area = torch.cmul(p.cw, p.ch)
  local loss = 1 - p.iou + torch.cdiv(area - p.union, area + eps)
  return U.reduce(loss, r, true)
end

--- nn.ops.distanceBoxIouLoss(boxes1, boxes2[, reduction[, eps]]): 1 - DIoU of each pair of boxes
--- (1 - IoU + squared centre distance over the squared diagonal of the enclosing box).
--- Example: print(nn.ops.distanceBoxIouLoss(torch.Tensor{{0, 0, 2, 2}}, torch.Tensor{{1, 1, 3, 3}}, 'sum'))
function ops.distanceBoxIouLoss(boxes1, boxes2, ...)
  local op = 'nn.ops.distanceBoxIouLoss'
  local b1, b2 = box_pair(op, boxes1, boxes2)
  local r, eps = loss_opts(op, ...)
  return U.reduce(diou_loss(parts(b1, b2, eps), eps), r, true)
end

--- nn.ops.completeBoxIouLoss(boxes1, boxes2[, reduction[, eps]]): 1 - CIoU of each pair of boxes:
--- the DIoU loss plus alpha * v, v the aspect-ratio term and alpha = v / (1 - IoU + v + eps) held
--- constant by autograd. As in torchvision 0.14, its inner DIoU loss uses eps 1e-7 whatever eps is.
--- Example: print(nn.ops.completeBoxIouLoss(torch.Tensor{{0, 0, 2, 2}}, torch.Tensor{{1, 1, 3, 4}}))
function ops.completeBoxIouLoss(boxes1, boxes2, ...)
  local op = 'nn.ops.completeBoxIouLoss'
  local b1, b2 = box_pair(op, boxes1, boxes2)
  local r, eps = loss_opts(op, ...)
  local p = parts(b1, b2, 1e-7)
  local loss = diou_loss(p, 1e-7)
  local v = ops._aspectV(p.x2 - p.x1, p.y2 - p.y1, p.gx2 - p.gx1, p.gy2 - p.gy1)
  local alpha = torch.noGrad(function() return torch.cdiv(v, (v - p.iou) + (1 + eps)) end):detach()
  return U.reduce(loss + torch.cmul(alpha, v), r, true)
end

--- nn.ops.sigmoidFocalLoss(inputs, targets[, alpha[, gamma[, reduction]]]): RetinaNet's focal loss
--- of logits against 0/1 targets (same size), the binary cross-entropy with logits times
--- (1 - p_t)^gamma, weighted by alpha for positives and 1 - alpha for negatives (alpha < 0: no
--- weighting); defaults alpha 0.25, gamma 2, reduction 'none'; options also as a table.
--- Example: print(nn.ops.sigmoidFocalLoss(torch.Tensor{2, -1}, torch.Tensor{1, 0}, {reduction = 'sum'}))
function ops.sigmoidFocalLoss(inputs, targets, ...)
  local op = 'nn.ops.sigmoidFocalLoss'
  U.tensor(op, inputs, 'inputs')
  U.tensor(op, targets, 'targets')
  if not U.isFloat(inputs) then U.fail(op, 'inputs must be floating point, got %s', inputs:type()) end
  if not inputs:isSameSizeAs(targets) then
    U.fail(op, 'inputs (%s) and targets (%s) must have the same size', U.shape(inputs), U.shape(targets))
  end
  if inputs:getDevice() ~= targets:getDevice() then
    U.fail(op, 'inputs (device %d) and targets (device %d) must be on the same device', inputs:getDevice(), targets:getDevice())
  end
  local o = P.parse(op, { 'alpha', 'gamma', 'reduction' }, ...)
  local alpha = U.number(op, o.alpha, 'alpha', 0.25)
  local gamma = U.number(op, o.gamma, 'gamma', 2)
  local r = U.reduction(op, o.reduction, 'none')
  local t = targets:typeAs(inputs)
  local p = torch.sigmoid(inputs)
  local ce = nn.functional.binaryCrossEntropyWithLogits(inputs, t, { reduction = 'none' })
  local pt = torch.cmul(p, t) + torch.cmul(1 - p, 1 - t)
  local loss = torch.cmul(ce, torch.pow(1 - pt, gamma))
  if alpha >= 0 then loss = torch.cmul(t * alpha + (1 - t) * (1 - alpha), loss) end
  return U.reduce(loss, r, false)
end

return ops
