-- nn.ops.roiAlign and nn.ops.roiPool (torchvision.ops.roi_align, roi_pool) and their modules
-- nn.ops.RoIAlign and nn.ops.RoIPool: features of N x C x H x W maps pooled over boxes to
-- K x C x outH x outW, differentiable in the input (not in the boxes, as in torchvision).
--
-- Note [Batch indices of boxes]: boxes come as torchvision's K x 5 tensor whose first column is
-- the image each box belongs to, or as a list of per-image K_i x 4 tensors. Tocha's indices are
-- 1-based, so that column holds 1..N (torchvision's 0..N-1); the coordinates after it are
-- positions, torchvision's (Note [Box coordinates], nn/ops/util.lua). A K x 5 tensor saved from
-- torchvision needs 1 added to its first column.
--
-- Note [RoIAlign as two matrix products]: torchvision's kernel averages, for each output bin, a
-- grid of bilinear samples; a sample is zero when its y or its x falls outside [-1, size], and
-- its weights are a product of a y-weight and an x-weight. So the whole average is separable:
-- out[k, c] = Ay[k] * I[b_k, c] * Ax[k]^T / count_k, where Ay[k] (outH x H) sums the y-weights
-- of the samples of each bin row over the image rows they touch, and Ax[k] likewise. The
-- weights come from the boxes alone (vector ops over K x outH x gridH samples, scatter-added);
-- the features then go through one mm per image and one bmm: no gather of 4 corners per sample
-- and channel, and autograd differentiates the products in the input.
local U = require 'nn.ops.util'
local P = require 'nn.pytorch_names_args'
local ops = nn.ops

-- The K x 5 rois (checked) from a K x 5 tensor or a list of K_i x 4 tensors.
local function rois_of(op, input, boxes)  -- also ops._rois
  if type(boxes) == 'table' and not torch.isTensor(boxes) then
    local parts = {}
    for i, b in ipairs(boxes) do
      U.boxes(op, b, 'boxes[' .. i .. ']')
      U.same(op, input, b, 'input', 'boxes[' .. i .. ']')
      parts[#parts + 1] = torch.cat({ b.new(b:size(1), 1):fill(i), b }, 2)
    end
    if #parts == 0 then return input.new(0, 5) end
    return torch.cat(parts, 1)
  end
  if not torch.isTensor(boxes) then
    U.fail(op, 'expected boxes as a K x 5 tensor or a list of K_i x 4 tensors, got %s', U.describe(boxes))
  end
  U.boxes(op, boxes, 'boxes (a tensor)', 5)
  U.same(op, input, boxes, 'input', 'boxes')
  return boxes
end

-- Note [Non-finite boxes]: torchvision's kernels cast ceil(NaN) or ceil(inf) to int and index the
-- input with the result (torchvision 0.14 crashes on a NaN box); here such boxes would reach a
-- scatter or an allocation whose error names neither the op nor the cause. They are refused.
local function finite_rois(op, rois)
  if rois:nElement() > 0 and not torch.isfinite(rois:detach()):all() then
    local bad = ops._where1(torch.isfinite(rois:detach()):all(2):view(-1):eq(0))[1]
    U.fail(op, 'box %d has a non-finite coordinate (NaN or inf)', bad)
  end
  return rois
end

ops._rois = function(op, input, boxes) return finite_rois(op, rois_of(op, input, boxes)) end

local function check_input(op, input)  -- also ops._checkInput
  U.tensor(op, input, 'input')
  if input:dim() ~= 4 then U.fail(op, 'input must be N x C x H x W, got size %s', U.shape(input)) end
  if not U.isFloat(input) then U.fail(op, 'input must be floating point, got %s', input:type()) end
end

ops._checkInput = check_input

-- The 0-based batch index of each roi (a LongTensor on the rois' device), checked to be in 1..N.
local function batch_of(op, rois, n)
  local col = rois:select(2, 1)
  local lo, hi = col:min(), col:max()
  if torch.isTensor(lo) then lo, hi = lo:item(), hi:item() end
  local whole = torch.floor(col):eq(col):all()  -- (col:floor() would floor col in place)
  if not whole or lo < 1 or hi > n then
    U.fail(op, 'the batch indices of boxes (first column) must be integers in 1..%d (1-based, Note [Batch indices of boxes]), got %g..%g', n, lo, hi)
  end
  return col:long():add(-1)
end
ops._batchOf = batch_of

-- A range 0..n-1 of rois' type and device, viewed with n at dim d of a `nd`-dim shape.
local function range(like, n, d, nd)
  local r = like.new(n)
  if n > 0 then r = r:fill(1):cumsum(1):add(-1) end
  local shape = {}
  for i = 1, nd do shape[i] = i == d and n or 1 end
  return r:view(unpack(shape))
end
ops._range = range

-- Note [RoIAlign as two matrix products]: the K x P x L weight matrix along one axis, from the
-- start, bin size and grid count of each roi (K) and the grid's maximum G.
local function axis_weights(start, bin, g, G, P, L)
  local K = start:size(1)
  local p, i = range(start, P, 2, 3), range(start, G, 3, 3)
  local s, b, gg = start:view(K, 1, 1), bin:view(K, 1, 1), g:view(K, 1, 1)
  local coord = s + torch.cmul(p, b)  -- start + p * bin, K x P x 1
  -- a box of no samples (g <= 0: a zero-size or inverted box with adaptive sampling) has none
  -- valid; its g is raised to 1 here so that 0 / 0 makes no NaN position to scatter at
  coord = coord:expand(K, P, G) + torch.cdiv(torch.cmul(i + 0.5, b), torch.clamp(gg, 1, math.huge))
  local valid = torch.cmul(torch.cmul(i:expand(K, P, G):lt(gg:expand(K, P, G)), coord:ge(-1)), coord:le(L)):typeAs(coord)
  local c = torch.clamp(coord, 0, math.huge)
  local lo = torch.floor(c)
  local atEnd = lo:ge(L - 1):typeAs(c)
  lo = torch.cmin(lo, L - 1)
  c = torch.cmul(c, 1 - atEnd) + atEnd * (L - 1)
  local hi = torch.cmin(lo + 1, L - 1)
  local l = c - lo
  local A = c.new(K, P, L):zero()
  A:scatterAdd(3, lo:long():add(1), torch.cmul(1 - l, valid))
  A:scatterAdd(3, hi:long():add(1), torch.cmul(l, valid))
  return A
end

--- nn.ops.roiAlign(input, boxes, outputSize[, spatialScale[, samplingRatio[, aligned]]]): Mask
--- R-CNN's RoIAlign: for each box, the average of bilinear samples of input (N x C x H x W) over
--- each of outputSize ({h, w} or a number) bins, K x C x h x w. boxes: K x 5 (1-based image
--- index, x1, y1, x2, y2; Note [Batch indices of boxes]) or a list of per-image K_i x 4 tensors;
--- spatialScale (default 1) maps box coordinates to input pixels; samplingRatio (default -1)
--- samples per bin along each axis, adaptive (ceil(box size / bins)) when <= 0; aligned (default
--- false) shifts boxes by -0.5 pixel. Options also as a trailing table. Differentiable in input.
--- Example: print(nn.ops.roiAlign(torch.rand(1, 1, 4, 4), torch.Tensor{{1, 0, 0, 3, 3}}, 2))
function ops.roiAlign(input, boxes, ...)
  local op = 'nn.ops.roiAlign'
  check_input(op, input)
  local rois = ops._rois(op, input, boxes)
  local o = P.parse(op, { 'outputSize', 'spatialScale', 'samplingRatio', 'aligned' }, ...)
  if o.outputSize == nil then U.fail(op, 'expected outputSize (a number or {h, w})') end
  local size = U.pair(op, o.outputSize, 'outputSize')
  local scale = U.number(op, o.spatialScale, 'spatialScale', 1)
  local ratio = U.int(op, o.samplingRatio, 'samplingRatio', -1)
  local aligned = U.bool(op, o.aligned, 'aligned', false)
  return ops._alignCore(op, input, rois, size[1], size[2], scale, ratio, aligned and 0.5 or 0, not aligned)
end

-- Note [Images of no pixels]: an input of height or width 0 has nothing to sample or pool: every
-- bin is empty, and the result 0, as torchvision's roi_pool and ps_roi_pool give (its roi_align
-- reads outside the input and crashes); the weights and bins below would index row -1.

-- RoIAlign's computation (Note [RoIAlign as two matrix products]) for checked arguments: boxes
-- shifted by -off pixels, their sizes raised to 1 when atLeast1 (torchvision's aligned = false).
function ops._alignCore(op, input, rois, PH, PW, scale, ratio, off, atLeast1)
  local N, C, H, W = input:size(1), input:size(2), input:size(3), input:size(4)
  local K = rois:size(1)
  if K == 0 then return input.new(0, C, PH, PW):zero() end
  local bidx = batch_of(op, rois, N)
  if H == 0 or W == 0 then return input.new(K, C, PH, PW):zero() end  -- Note [Images of no pixels]
  local r = rois:detach()
  local sw, sh = r:select(2, 2) * scale - off, r:select(2, 3) * scale - off
  local rw, rh = r:select(2, 4) * scale - off - sw, r:select(2, 5) * scale - off - sh
  if atLeast1 then rw, rh = torch.clamp(rw, 1, math.huge), torch.clamp(rh, 1, math.huge) end
  local bw, bh = rw / PW, rh / PH
  local gh = ratio > 0 and rh.new(K):fill(ratio) or torch.ceil(rh / PH)
  local gw = ratio > 0 and rw.new(K):fill(ratio) or torch.ceil(rw / PW)
  local Gh, Gw = math.max(gh:max(), 1), math.max(gw:max(), 1)
  local count = torch.clamp(torch.cmul(gh, gw), 1, math.huge)
  local Ay = axis_weights(sh, bh, gh, Gh, PH, H)  -- K x PH x H
  local Ax = axis_weights(sw, bw, gw, Gw, PW, W)  -- K x PW x W
  return torch.cdiv(ops._separable(input, bidx, Ay, Ax), count:view(K, 1, 1, 1):typeAs(input))
end

-- out[k, c] = Ay[k] * I[b_k, c] * Ax[k]^T for K x PH x H and K x PW x W weights: one mm and one
-- bmm per image (Note [RoIAlign as two matrix products]); K x C x PH x PW.
function ops._separable(input, bidx, Ay, Ax)
  local N, C, H, W = input:size(1), input:size(2), input:size(3), input:size(4)
  local PH, PW = Ay:size(2), Ax:size(2)
  local outs, order = {}, {}
  for n = 0, N - 1 do
    local members = ops._where1(bidx:eq(n))
    local m = members:nElement()
    if m > 0 then
      local img = input:select(1, n + 1):transpose(1, 2):reshape(H, C * W)     -- H x (C W)
      local t = torch.mm(Ay:index(1, members):view(m * PH, H), img)            -- (m PH) x (C W)
      t = torch.bmm(t:view(m, PH * C, W), Ax:index(1, members):transpose(2, 3)) -- m x (PH C) x PW
      outs[#outs + 1] = t:view(m, PH, C, PW):transpose(2, 3)
      order[#order + 1] = members
    end
  end
  local out = #outs == 1 and outs[1] or torch.cat(outs, 1)
  local _, inv = torch.sort(torch.cat(order, 1), 1)  -- back to the boxes' order
  return out:index(1, inv)
end

-- a reduction's value as a number (on CUDA reductions give 0-dim tensors)
local function num(v) return torch.isTensor(v) and v:item() or v end

-- floor(log2(v)) of a number v >= 1 (0 for v < 2), exactly
local function log2_floor(v)
  local k = 0
  while 2 ^ (k + 1) <= v do k = k + 1 end
  return k
end

-- Note [RoIPool by gathering]: each bin's pixels are gathered (rows of the input laid out
-- N H W x C, so each gather copies C contiguous numbers) into a Lh x Lw window, indices past
-- the bin's end clamped back into it (repeats leave the max alone), and the max taken over the
-- window, which autograd routes to the maximum. Boxes are grouped by their largest bin (Lh, Lw)
-- so small boxes do not pay for the largest one's window. K x C x PH x PW, empty bins not zeroed.
local function pool_windows(feats, bidx, r, hs, he, ws, we, lh, lw, H, W)
  local K, PH, PW, C = hs:size(1), hs:size(2), ws:size(2), feats:size(2)
  local key = torch.clamp(lh, 1, math.huge) * (W + 2) + torch.clamp(lw, 1, math.huge)
  local outs, order = {}, {}
  for _, kv in ipairs(torch.unique(key:long()):totable()) do
    local members = ops._where1(key:eq(kv))
    local m = members:nElement()
    local Lh, Lw = math.floor(kv / (W + 2)), kv % (W + 2)
    local function cells(lo, hi, Pn, Lmax, L)  -- m x Pn x Lmax pixel positions (0-based)
      lo, hi = lo:index(1, members), hi:index(1, members)
      local i = range(r, Lmax, 3, 3)
      local idx = torch.cmin(lo:view(m, Pn, 1) + i, (hi - 1):view(m, Pn, 1):expand(m, Pn, Lmax))
      return torch.clamp(idx, 0, L - 1)
    end
    local ys = cells(hs, he, PH, Lh, H):view(m, PH, Lh, 1, 1)
    local xs = cells(ws, we, PW, Lw, W):view(m, 1, 1, PW, Lw)
    local base = bidx:index(1, members):typeAs(r):view(m, 1, 1, 1, 1) * (H * W)
    local flat = (ys * W + xs + base):long():add(1)  -- m x PH x Lh x PW x Lw
    local v = feats:index(1, flat:view(-1)):view(m, PH, Lh, PW, Lw, C)
    v = torch.max(torch.max(v, 5), 3)  -- m x PH x 1 x PW x 1 x C
    outs[#outs + 1] = v:view(m, PH, PW, C):permute(1, 4, 2, 3)
    order[#order + 1] = members
  end
  local out = #outs == 1 and outs[1] or torch.cat(outs, 1)
  local _, inv = torch.sort(torch.cat(order, 1), 1)
  return out:index(1, inv)
end

-- Note [RoIPool by range-maximum tables]: the maximum over a window of h x w pixels with
-- 2^a <= h < 2^(a+1) and 2^b <= w < 2^(b+1) is the maximum of 4 (overlapping) 2^a x 2^b blocks
-- at its corners. The tables T[a][b] of the maxima of all 2^a x 2^b blocks are built by cmax of
-- two shifted halves (differentiable: a maximum's gradient follows it through the halves to its
-- pixel), laid out one after the other as rows of C channels, and each bin gathers its 4 corner
-- blocks' rows: K PH PW 4 rows whatever the bins' sizes. Forward values are the maxima exactly;
-- the gradient goes to a maximum's pixel, as the kernel's, but to a share of each of equal maxima
-- where the kernel picks the first (cmax splits ties). K x C x PH x PW, empty bins not zeroed.
local function pool_tables(feats, bidx, hs, he, ws, we, N, H, W, kh, kw)
  local K, PH, PW, C = hs:size(1), hs:size(2), ws:size(2), feats:size(2)
  local rows, offset, base = {}, {}, 0
  local col = feats:view(N, H, W, C)
  for a = 0, kh do
    if a > 0 then
      local h, half = H - 2 ^ a + 1, 2 ^ (a - 1)
      col = torch.cmax(col:narrow(2, 1, h), col:narrow(2, 1 + half, h))
    end
    local t = col
    for b = 0, kw do
      if b > 0 then
        local w, half = W - 2 ^ b + 1, 2 ^ (b - 1)
        t = torch.cmax(t:narrow(3, 1, w), t:narrow(3, 1 + half, w))
      end
      rows[#rows + 1] = t:reshape(-1, C)
      offset[#offset + 1] = base
      base = base + t:size(1) * t:size(2) * t:size(3)
    end
  end
  local all = #rows == 1 and rows[1] or torch.cat(rows, 1)
  -- per bin: its blocks' levels a, b and corners (0-based), in double (exact row numbers)
  local function corners(lo, hi, kmax, L)
    lo, hi = lo:double(), hi:double()
    local len = torch.clamp(hi - lo, 1, math.huge)
    local lev, size = lo.new(lo:size()):zero(), lo.new(lo:size()):fill(1)
    for t = 1, kmax do
      local up = len:ge(2 ^ t):double()
      lev:add(up)
      size:add(torch.cmul(up, size))  -- doubles where len >= 2^t
    end
    local first = torch.clamp(lo, 0, L - 1)
    local second = torch.clamp(lo + len - size, 0, L - 1)
    return lev, size, first, second
  end
  local ay, sy, y1, y2 = corners(hs, he, kh, H)  -- K x PH
  local ax, sx, x1, x2 = corners(ws, we, kw, W)  -- K x PW
  local offs = torch.DoubleTensor(offset)
  local lev = (ay:view(K, PH, 1) * (kw + 1) + ax:view(K, 1, PW)):long():add(1)
  local off = offs:index(1, lev:view(-1)):view(K, PH, PW)
  local th = (sy * -1):add(H + 1):view(K, PH, 1)  -- the table's height
  local tw = (sx * -1):add(W + 1):view(K, 1, PW)  -- and width
  local b = bidx:double():view(K, 1, 1)
  local idx = {}
  for _, y in ipairs({ y1, y2 }) do
    for _, x in ipairs({ x1, x2 }) do
      -- row of (b, y, x) in a table of th x tw blocks per image
      local row = torch.cmul(torch.cmul(b:expand(K, PH, 1), th) + y:view(K, PH, 1), tw) + x:view(K, 1, PW)
      idx[#idx + 1] = (row + off):view(K, PH, PW, 1)
    end
  end
  idx = torch.cat(idx, 4):long():add(1)  -- K x PH x PW x 4
  local v = all:index(1, idx:view(-1)):view(K, PH, PW, 4, C)
  return torch.max(v, 4):view(K, PH, PW, C):permute(1, 4, 2, 3)
end

--- nn.ops.roiPool(input, boxes, outputSize[, spatialScale]): Fast R-CNN's RoIPool: for each box
--- (rounded to whole pixels after scaling), the maximum of input over each of outputSize bins
--- (0 for an empty bin), K x C x h x w; boxes as in nn.ops.roiAlign (1-based image index).
--- Differentiable in input (the gradient goes to each bin's maximum).
--- Example: print(nn.ops.roiPool(torch.rand(1, 1, 4, 4), torch.Tensor{{1, 0, 0, 3, 3}}, 2))
function ops.roiPool(input, boxes, ...)
  local op = 'nn.ops.roiPool'
  check_input(op, input)
  local rois = ops._rois(op, input, boxes)
  local o = P.parse(op, { 'outputSize', 'spatialScale' }, ...)
  if o.outputSize == nil then U.fail(op, 'expected outputSize (a number or {h, w})') end
  local size = U.pair(op, o.outputSize, 'outputSize')
  local scale = U.number(op, o.spatialScale, 'spatialScale', 1)
  local N, C, H, W = input:size(1), input:size(2), input:size(3), input:size(4)
  local PH, PW, K = size[1], size[2], rois:size(1)
  if K == 0 then return input.new(0, C, PH, PW):zero() end
  local bidx = batch_of(op, rois, N)
  if H == 0 or W == 0 then return input.new(K, C, PH, PW):zero() end  -- Note [Images of no pixels]
  local r = rois:detach()
  local function bins(c1, c2, Pn, L)  -- K x Pn starts and ends (0-based, end exclusive) of the bins
    local s = torch.round(r:select(2, c1) * scale)
    local len = torch.clamp(torch.round(r:select(2, c2) * scale) - s + 1, 1, math.huge)
    local bin = (len / Pn):view(K, 1)
    local p = range(r, Pn, 2, 2)
    local lo = torch.clamp(torch.floor(torch.cmul(p:expand(K, Pn), bin)) + s:view(K, 1), 0, L)
    local hi = torch.clamp(torch.ceil(torch.cmul(p + 1, bin)) + s:view(K, 1), 0, L)
    return lo, hi
  end
  local hs, he = bins(3, 5, PH, H)
  local ws, we = bins(2, 4, PW, W)
  local lh = torch.max(he - hs, 2):view(K)
  local lw = torch.max(we - ws, 2):view(K)
  local feats = input:permute(1, 3, 4, 2):reshape(N * H * W, C)
  -- Note [RoIPool by range-maximum tables]: the windows' gather reads, per box, PH PW Lh Lw pixels
  -- of C channels; the tables read 4 per bin once built, for about 3 passes over N H W C per
  -- table. The cheaper goes. For 512 float32 boxes of 2 to 32 pixels on 2 x 256 x 50 x 50, 7 x 7
  -- bins, 2 cores: 234 ms by windows, 108 by tables (torchvision's kernel 111); with the backward
  -- 440 and 207 (torchvision 114: its backward is a scatter to saved argmaxes, where here each
  -- table's cmax passes the gradient back).
  local kh, kw = log2_floor(num(lh:max())), log2_floor(num(lw:max()))
  local tables = 3 * N * H * W * (kh + 1) * (kw + 1) + 4 * K * PH * PW
  local windows = num(torch.cmul(torch.clamp(lh, 1, math.huge), torch.clamp(lw, 1, math.huge)):sum()) * PH * PW
  local out
  -- 'tables' or 'windows' forces one (the tests run both); on CUDA the windows (tables untried)
  local mode = ops._roiPoolMode
  if mode == 'tables' or (mode == nil and tables < windows and input:getDevice() < 0) then
    out = pool_tables(feats, bidx, hs, he, ws, we, N, H, W, kh, kw)
  else
    out = pool_windows(feats, bidx, r, hs, he, ws, we, lh, lw, H, W)
  end
  local full = torch.cmul(he:gt(hs):view(K, PH, 1), we:gt(ws):view(K, 1, PW)):typeAs(out)
  return torch.cmul(out, full:view(K, 1, PH, PW))
end

-- ---- modules --------------------------------------------------------------------------------

-- Both modules take {input, boxes} (Torch7 modules have one input).
local function pair_input(op, x)
  if type(x) ~= 'table' or torch.isTensor(x) or x[1] == nil or x[2] == nil then
    U.fail(op, 'expected {input, boxes}, got %s', U.describe(x))
  end
  return x[1], x[2]
end

local RoIAlign, RAparent = torch.class('nn.ops.RoIAlign', 'nn.Module')

--- nn.ops.RoIAlign(outputSize, spatialScale, samplingRatio[, aligned]): the module of
--- nn.ops.roiAlign; forward takes {input, boxes}.
--- Example: print(nn.ops.RoIAlign(2, 1, -1):forward({torch.rand(1, 1, 4, 4), torch.Tensor{{1, 0, 0, 3, 3}}}))
function RoIAlign:__init(...)
  RAparent.__init(self)
  local op = 'nn.ops.RoIAlign'
  local o = P.parse(op, { 'outputSize', 'spatialScale', 'samplingRatio', 'aligned' }, ...)
  self.outputSize = U.pair(op, o.outputSize, 'outputSize')
  self.spatialScale = U.number(op, o.spatialScale, 'spatialScale', 1)
  self.samplingRatio = U.int(op, o.samplingRatio, 'samplingRatio', -1)
  self.aligned = U.bool(op, o.aligned, 'aligned', false)
end
function RoIAlign:updateOutput(x)
  local input, boxes = pair_input('nn.ops.RoIAlign', x)
  self.output = ops.roiAlign(input, boxes, self.outputSize, self.spatialScale, self.samplingRatio, self.aligned)
  return self.output
end
function RoIAlign:__tostring__()
  return string.format('nn.ops.RoIAlign(outputSize={%d, %d}, spatialScale=%g, samplingRatio=%d, aligned=%s)',
    self.outputSize[1], self.outputSize[2], self.spatialScale, self.samplingRatio, tostring(self.aligned))
end

local RoIPool, RPparent = torch.class('nn.ops.RoIPool', 'nn.Module')

--- nn.ops.RoIPool(outputSize, spatialScale): the module of nn.ops.roiPool; forward takes
--- {input, boxes}.
--- Example: print(nn.ops.RoIPool(2, 1):forward({torch.rand(1, 1, 4, 4), torch.Tensor{{1, 0, 0, 3, 3}}}))
function RoIPool:__init(...)
  RPparent.__init(self)
  local op = 'nn.ops.RoIPool'
  local o = P.parse(op, { 'outputSize', 'spatialScale' }, ...)
  self.outputSize = U.pair(op, o.outputSize, 'outputSize')
  self.spatialScale = U.number(op, o.spatialScale, 'spatialScale', 1)
end
function RoIPool:updateOutput(x)
  local input, boxes = pair_input('nn.ops.RoIPool', x)
  self.output = ops.roiPool(input, boxes, self.outputSize, self.spatialScale)
  return self.output
end
function RoIPool:__tostring__()
  return string.format('nn.ops.RoIPool(outputSize={%d, %d}, spatialScale=%g)', self.outputSize[1],
    self.outputSize[2], self.spatialScale)
end

return ops
