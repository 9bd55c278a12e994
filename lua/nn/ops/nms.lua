-- nn.ops.nms and nn.ops.batchedNms (torchvision.ops.nms, batched_nms): greedy non-maximum
-- suppression returning 1-based indices (Note [Box coordinates], nn/ops/util.lua).
--
-- Note [NMS by rows]: torchvision's CPU kernel walks the boxes by decreasing score (a stable sort,
-- so equal scores keep their input order) and, for each box not yet suppressed, suppresses the
-- later ones whose IoU with it exceeds the threshold. Here the walk is one Lua step per box,
-- reading one flag; each kept box computes its IoU with the later boxes as one row of vector ops
-- (the kernel's formula and operation order, so the same boxes go) and ORs the row's
-- comparison into the flags: O(N^2) work in tensor ops, O(N) Lua steps, no loop over pairs.
-- Computing the whole N x N IoU matrix first (a dozen passes over N^2 numbers) was 5x slower on
-- the CPU for 2000 boxes; on CUDA that matrix is what runs (one launch per op rather than per
-- row), and the walk reads it on the CPU. A box's row there also flags itself and the boxes
-- already decided, which changes nothing, so the matrix need not be triangular. batchedNms suppresses
-- only within a category: on the CPU one nms per category (as torchvision above 1000 boxes; its
-- coordinate-offset trick for fewer boxes can differ from this by rounding), on CUDA by AND-ing
-- the same-category matrix in; kept boxes come by decreasing score, ties by index (torchvision's
-- order of ties there is its unstable sort's).
local U = require 'nn.ops.util'
local ops = nn.ops

local function check(op, boxes, scores, thr)
  U.boxes(op, boxes, 'boxes')
  U.tensor(op, scores, 'scores')
  if scores:dim() ~= 1 or scores:size(1) ~= boxes:size(1) then
    U.fail(op, 'scores must be a 1-D tensor of one score per box (%d), got size %s', boxes:size(1), U.shape(scores))
  end
  U.same(op, boxes, scores, 'boxes', 'scores')
  if not U.isFloat(boxes) then U.fail(op, 'boxes must be floating point, got %s', boxes:type()) end
  if type(thr) ~= 'number' then U.fail(op, 'expected iouThreshold (a number), got %s', U.describe(thr)) end
end

local function empty_long(like)
  local r = torch.LongTensor(0)
  return like:getDevice() >= 0 and r:to('cuda:' .. like:getDevice()) or r
end

-- CPU: the walk computing, for each kept box, its IoU with the later boxes only (one row of the
-- matrix, a dozen vector ops on float data in the boxes' dtype, in the kernel's operation order).
-- sb: boxes in score order (contiguous). Returns the kept positions (1-based, in score order)
-- as a Lua list.
local function walk_rows(sb, thr)
  local n = sb:size(1)
  local x1, y1, x2, y2 = sb:select(2, 1), sb:select(2, 2), sb:select(2, 3), sb:select(2, 4)
  local area = torch.cmul(x2 - x1, y2 - y1)
  local removed = torch.ByteTensor(n):zero()
  local flags = removed:data()
  local w, h = sb.new(n), sb.new(n)
  local keep = {}
  for i = 1, n do
    if flags[i - 1] == 0 then
      keep[#keep + 1] = i
      local m = n - i
      if m > 0 then
        local b = sb[i]
        local ww = w:narrow(1, 1, m):copy(x2:narrow(1, i + 1, m)):clamp(-math.huge, b[3])
        ww:add(-1, torch.clamp(x1:narrow(1, i + 1, m), b[1], math.huge)):clamp(0, math.huge)
        local hh = h:narrow(1, 1, m):copy(y2:narrow(1, i + 1, m)):clamp(-math.huge, b[4])
        hh:add(-1, torch.clamp(y1:narrow(1, i + 1, m), b[2], math.huge)):clamp(0, math.huge)
        ww:cmul(hh)  -- the intersections
        local over = ww:cdiv(torch.add(area:narrow(1, i + 1, m), area[i]):add(-1, ww)):gt(thr)
        removed:narrow(1, i + 1, m):cmax(over)
      end
    end
  end
  return keep
end

-- CUDA (and categories, which the CPU handles one by one): the whole matrix on the device, then
-- the walk over its rows on the CPU.
local function walk_matrix(sb, thr, cats)
  local over = ops.boxIou(sb, sb):gt(thr)
  if cats then over:cmul(cats:view(-1, 1):eq(cats:view(1, -1)):typeAs(over)) end
  over = over:to('cpu')
  local n = over:size(1)
  local removed = torch.ByteTensor(n):zero()
  local flags = removed:data()
  local keep = {}
  for i = 1, n do
    if flags[i - 1] == 0 then
      keep[#keep + 1] = i
      removed:cmax(over:select(1, i))
    end
  end
  return keep
end

-- Note [Comparing IoUs with a double threshold]: the kernel compares the IoU in the boxes' dtype
-- with the threshold as a double (C++ promotes the float); a tensor comparison with a Lua number
-- rounds the number to the tensor's dtype first, and 0.4 becomes 0.4000000059604645 in float32,
-- which keeps a box whose IoU is exactly that float. For float32 the threshold is replaced by the
-- largest float32 not above it, v: for a float32 x, x > thr exactly when x > v. Half and bfloat16
-- boxes compute in float32 (no nextafter for them).
local function dtype_threshold(sb, thr)
  if sb:type():find('Double') then return sb, thr end
  if not (sb:type() == 'torch.FloatTensor' or sb:type() == 'torch.CudaTensor') then sb = sb:to('float32') end
  local t = torch.FloatTensor(1):fill(thr)
  if t[1] > thr then t = torch.nextafter(t, torch.FloatTensor{ -math.huge }) end
  return sb, t[1]
end

local function run(boxes, scores, thr, idxs, matrix)
  local b, s = boxes:detach(), scores:detach()
  local _, order = torch.sort(s, 1, true)  -- stable: ties keep their input order
  local sb = b:index(1, order):contiguous()
  sb, thr = dtype_threshold(sb, thr)
  local cats = idxs and idxs:detach():index(1, order):contiguous() or nil
  local dev = b:getDevice()
  local keep = (dev >= 0 or matrix or cats) and walk_matrix(sb, thr, cats) or walk_rows(sb, thr)
  local kept = torch.LongTensor(keep)
  if dev >= 0 then kept = kept:to('cuda:' .. dev) end
  return order:index(1, kept)
end

-- batchedNms on the CPU: nms per category (torchvision's path for large inputs), the kept
-- indices merged by decreasing score, ties by index.
local function run_per_class(boxes, scores, thr, idxs)
  local b, s, c = boxes:detach(), scores:detach(), idxs:detach()
  local mask = torch.ByteTensor(b:size(1)):zero()
  for _, cat in ipairs(torch.unique(c):totable()) do
    local members = ops._where1(c:eq(cat))
    mask:indexFill(1, members:index(1, run(b:index(1, members), s:index(1, members), thr)), 1)
  end
  local kept = ops._where1(mask)
  local _, order = torch.sort(s:index(1, kept), 1, true)
  return kept:index(1, order)
end

-- The CUDA path's walk on any device (for the tests: both walks give the same boxes).
function ops._nmsByMatrix(boxes, scores, thr, idxs) return run(boxes, scores, thr, idxs, true) end

--- nn.ops.nms(boxes, scores, iouThreshold): greedy non-maximum suppression of K x 4 boxes
--- (x1, y1, x2, y2) by their K scores, dropping boxes whose IoU with a higher-scoring kept box is
--- above iouThreshold; returns the 1-based indices of the kept boxes (a LongTensor) by decreasing
--- score, equal scores in input order (torchvision's CPU kernel).
--- Example: print(nn.ops.nms(torch.Tensor{{0, 0, 2, 2}, {0, 0, 2, 2.1}, {3, 3, 4, 4}}, torch.Tensor{0.9, 0.8, 0.7}, 0.5))
function ops.nms(boxes, scores, iouThreshold)
  local op = 'nn.ops.nms'
  check(op, boxes, scores, iouThreshold)
  if boxes:size(1) == 0 then return empty_long(boxes) end
  return run(boxes, scores, iouThreshold)
end

--- nn.ops.batchedNms(boxes, scores, idxs, iouThreshold): nms within each category (idxs: a 1-D
--- integer tensor of one category per box); boxes of different categories never suppress each
--- other. Returns 1-based indices by decreasing score.
--- Example: print(nn.ops.batchedNms(torch.Tensor{{0, 0, 2, 2}, {0, 0, 2, 2}}, torch.Tensor{0.9, 0.8}, torch.LongTensor{1, 2}, 0.5))
function ops.batchedNms(boxes, scores, idxs, iouThreshold)
  local op = 'nn.ops.batchedNms'
  check(op, boxes, scores, iouThreshold)
  U.tensor(op, idxs, 'idxs')
  if idxs:dim() ~= 1 or idxs:size(1) ~= boxes:size(1) then
    U.fail(op, 'idxs must be a 1-D tensor of one category per box (%d), got size %s', boxes:size(1), U.shape(idxs))
  end
  if idxs:getDevice() ~= boxes:getDevice() then
    U.fail(op, 'idxs (device %d) and boxes (device %d) must be on the same device', idxs:getDevice(), boxes:getDevice())
  end
  if boxes:size(1) == 0 then return empty_long(boxes) end
  if boxes:getDevice() < 0 then return run_per_class(boxes, scores, iouThreshold, idxs) end
  return run(boxes, scores, iouThreshold, idxs)
end

return ops
