-- nn.ops.nms and nn.ops.batchedNms (torchvision.ops.nms, batched_nms): greedy non-maximum
-- suppression returning 1-based indices (Note [Box coordinates], nn/ops/util.lua).
--
-- Note [NMS by rows]: torchvision's CPU kernel walks the boxes by decreasing score (a stable sort,
-- so equal scores keep their input order) and, for each box not yet suppressed, suppresses the
-- later ones whose IoU with it exceeds the threshold. On the CPU that walk runs as the kernel's
-- loop over the boxes' data (Note [NMS walk through data pointers]); earlier versions computed
-- each kept box's row of IoUs with tensor ops (op dispatch dominated) and, before that, the whole
-- N x N IoU matrix (a dozen passes over N^2 numbers, 5x slower still). On CUDA that matrix is
-- what runs (one launch per op rather than per row), and the walk reads it on the CPU. A box's
-- row there also flags itself and the boxes already decided, which changes nothing, so the matrix
-- need not be triangular. batchedNms suppresses only within a category: on the CPU the one walk
-- skips pairs of different categories, which is one nms per category (as torchvision above 1000
-- boxes; its coordinate-offset trick for fewer boxes can differ from this by rounding), on CUDA by
-- AND-ing the same-category matrix in; kept boxes come by decreasing score, ties by index
-- (torchvision's order of ties there is its unstable sort's).
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

-- Note [NMS walk through data pointers]: on the CPU the greedy walk is the kernel's own double
-- loop, run by LuaJIT over the float (or double) data of the sorted boxes: for each box not yet
-- suppressed, its IoU with each later box not yet suppressed. A walk by rows of tensor ops (a
-- dozen ops per kept box over the later boxes) spent its time dispatching ops: 34 ms for 2000
-- float32 boxes against torchvision's 12.5; this loop, compiled to scalar machine code (branch-free
-- min/max: branches made a tangle of side traces 3 times as slow), takes 10. The same boxes go as in
-- the kernel: LuaJIT computes in double, so for float32 boxes each +, -, *, / is rounded back to
-- float32 through a float cell (a double result of two floats rounded to float is the float
-- result: 53 >= 2 * 24 + 2 bits), in the kernel's order, and the IoU is compared with the
-- threshold as the kernel compares it (Note [Comparing IoUs with a double threshold]). With
-- categories (batchedNms) the boxes are grouped by category, score order within, and each box's
-- walk stops at the end of its group: one nms per category in one pass.
local ffi = require 'ffi'
local cell = ffi.new('float[1]')
local function f32(v) cell[0] = v; return cell[0] end
local function f64(v) return v end
local max, min = math.max, math.min

-- sb: boxes in score order (contiguous float or double); cats: nil, or their categories (a
-- contiguous DoubleTensor: int64 cdata would be boxed numbers in the loop) with the boxes grouped by
-- category, so that a box's walk stops at the end of its group. Returns the kept positions
-- (1-based, in sb's order) as a Lua list.
local function walk_rows(sb, thr, cats)
  sb = sb:contiguous()  -- (and kept alive while its data is read)
  local n = sb:size(1)
  local r = sb:type():find('Double') and f64 or f32
  local d = sb:data()
  local area = ffi.new('double[?]', n)
  for i = 0, n - 1 do area[i] = r(r(d[4 * i + 2] - d[4 * i]) * r(d[4 * i + 3] - d[4 * i + 1])) end
  local removed = ffi.new('uint8_t[?]', n)
  local last = n - 1  -- where box i's walk stops: the end of its category's group
  local c = cats and cats:data()
  local keep = {}
  for i = 0, n - 1 do
    if c and (i == 0 or c[i - 1] ~= c[i]) then  -- a new group
      last = i
      while last + 1 < n and c[last + 1] == c[i] do last = last + 1 end
    end
    if removed[i] == 0 then
      keep[#keep + 1] = i + 1
      local ix1, iy1, ix2, iy2, ia = d[4 * i], d[4 * i + 1], d[4 * i + 2], d[4 * i + 3], area[i]
      for j = i + 1, last do
        if removed[j] == 0 then
          local o = 4 * j
          local xx1, yy1, xx2, yy2 = d[o], d[o + 1], d[o + 2], d[o + 3]
          -- as std::max and std::min (for numbers; with NaNs the kernel's operand order is not kept)
          local w = r(min(xx2, ix2) - max(xx1, ix1))
          local h = r(min(yy2, iy2) - max(yy1, iy1))
          w, h = max(w, 0), max(h, 0)
          local inter = r(w * h)
          if r(inter / r(r(ia + area[j]) - inter)) > thr then removed[j] = 1 end
        end
      end
    end
  end
  return keep
end

-- CUDA (and ops._nmsByMatrix): the whole matrix on the device, then the walk over its rows on the
-- CPU.
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
  local keep
  if dev >= 0 or matrix then keep = walk_matrix(sb, thr, cats)
  elseif not cats then keep = walk_rows(sb, thr)
  else
    -- grouped by category, score order within (the keys are distinct: no tie for the sort to order)
    local n = sb:size(1)
    local cmax = cats:double():abs():max()
    if torch.isTensor(cmax) then cmax = cmax:item() end
    if cmax * (n + 1) >= 2 ^ 52 then
      U.fail('nn.ops.batchedNms', 'category indices (idxs) must be below 2^52 / %d in size, got %g', n + 1, cmax)
    end
    -- (a copy: cats:double() is cats itself for double categories, which mul would overwrite)
    local key = torch.mul(cats:double(), n):add(torch.range(1, n):double())
    local _, g = torch.sort(key, 1)
    local pos = g:index(1, torch.LongTensor(walk_rows(sb:index(1, g), thr, cats:double():index(1, g))))
    keep = torch.sort(pos, 1)  -- back to score order
  end
  local kept = torch.LongTensor(keep)
  if dev >= 0 then kept = kept:to('cuda:' .. dev) end
  return order:index(1, kept)
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
  return run(boxes, scores, iouThreshold, idxs)
end

return ops
