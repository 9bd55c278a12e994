-- nn.functional's spatial-transformer pair under PyTorch's names: affineGrid (sampling grids from
-- affine matrices) and gridSample (bilinear/trilinear or nearest sampling of an input at grid
-- points), made of recorded tensor ops so that they are differentiable in theta, input and grid.
--
-- Note [gridSample from tensor ops]: there is no fused grid-sampler kernel. Each grid component is
-- unnormalized to a 0-based source coordinate (PyTorch's rule: (g + 1) (size - 1) / 2 with
-- alignCorners, ((g + 1) size - 1) / 2 without), padded ('border' clips, 'reflection' reflects then
-- clips, both with PyTorch's gradients: 0 on and beyond the borders, -1 on reflected stretches),
-- then floored (a constant). For each of the 2^k corners (k = 2 or 3 spatial dims) the input,
-- laid out as (N * spatial) x C, is read by torch.index at flattened indices, and the rows are
-- weighted by the products of (c - floor c) or (1 - (c - floor c)) times an in-bounds mask (so
-- 'zeros' padding drops each out-of-range corner on its own, as PyTorch does). The weights are
-- differentiable in the grid, index's backward (index_add) gives the input's gradient, and only
-- existing ops run, so it works on every device. Memory: a transposed copy of the input
-- (N C D H W) plus, per corner, an index of N * P longs and the N * P x C rows read (kept by
-- autograd), P = the number of grid points: about 2^k N C P elements over the fused kernel's
-- N C P. 'nearest' rounds halves to even (PyTorch's nearbyint) and reads one corner; its result
-- does not depend on the grid differentiably (PyTorch's gradient there is 0), so the grid gets
-- no gradient from it. PyTorch 1.13's 5-D CPU kernel rounded halves away from zero instead (made
-- consistent with nearbyint by PyTorch PR 97000); here 4-D and 5-D both round to even. A point at
-- NaN, inf or beyond the int range reads as outside (PyTorch's safe_downgrade_to_int_range).
-- Unlike PyTorch's kernels, which skip out-of-range corners, an input holding NaN or inf spreads
-- it to outputs whose weights for it are 0 (0 * inf).
local A = require 'nn.functional_args'
nn.functional = nn.functional or {}
local F = nn.functional
local fail = A.fail

local LONG = 'torch.LongTensor'
local unpack = table.unpack or unpack

-- -1..1 in n steps (PyTorch's linspace_from_neg_one): 0 alone for n = 1; without alignCorners the
-- points are the pixel centers, scaled by (n - 1) / n.
local function base_coords(n, align)
  local v = torch.DoubleTensor(n):zero()
  if n <= 1 then return v end
  local scale = align and 1 or (n - 1) / n
  for i = 1, n do v[i] = (-1 + 2 * (i - 1) / (n - 1)) * scale end
  return v
end

--- nn.functional.affineGrid(theta, size [, {alignCorners = false}]): the sampling grid of affine
--- maps: theta N x 2 x 3 with size {N, C, H, W} gives N x H x W x 2 (x, y in [-1, 1] at output
--- pixels mapped by theta), theta N x 3 x 4 with {N, C, D, H, W} gives N x D x H x W x 3.
--- Differentiable in theta; feed the grid to nn.functional.gridSample (PyTorch's affine_grid).
--- Example: nn.functional.affineGrid(torch.Tensor{{{1, 0, 0}, {0, 1, 0}}}, {1, 1, 2, 3})
function F.affineGrid(theta, size, o)
  local op = 'affineGrid'
  local opts = A.opts(op, o, { alignCorners = true })
  local align = A.bool(op, opts.alignCorners, 'alignCorners', false)
  A.float(op, theta, 'theta')
  if torch.typename(size) == 'torch.LongStorage' then size = size:totable() end
  if type(size) ~= 'table' or (#size ~= 4 and #size ~= 5) then
    fail(op, 'size must be a table {N, C, H, W} or {N, C, D, H, W}, got %s',
      type(size) == 'table' and ('a table of ' .. #size .. ' values') or nn.utils.describe(size))
  end
  for i, v in ipairs(size) do
    A.int(op, v, 'size[' .. i .. ']')
    if v < 1 then fail(op, 'size[%d] must be >= 1, got %d', i, v) end
  end
  local k = #size - 2
  if theta:dim() ~= 3 or theta:size(1) ~= size[1] or theta:size(2) ~= k or theta:size(3) ~= k + 1 then
    fail(op, 'expected theta of size %dx%dx%d for size {%s}, got %s', size[1], k, k + 1, table.concat(size, ', '),
      A.shape(theta))
  end
  -- base: the output points as rows (x, y[, z], 1), x fastest (the grid's W dim is last)
  local spatial = {}
  for j = 1, k do spatial[j] = size[k + 3 - j] end  -- x <- W, y <- H, z <- D
  local P = 1
  for j = 1, k do P = P * spatial[j] end
  local base = torch.ones(P, k + 1):double()
  local rep = 1
  for j = 1, k do
    local v = base_coords(spatial[j], align)
    -- component j varies every `rep` points and repeats every rep * spatial[j]
    base:select(2, j):copy(v:view(1, spatial[j], 1):expand(P / (rep * spatial[j]), spatial[j], rep):contiguous():view(-1))
    rep = rep * spatial[j]
  end
  base = A.like(base, theta)
  local grid = torch.matmul(base, theta:transpose(2, 3))  -- N x P x k
  local shape = { size[1] }
  for i = 3, #size do shape[#shape + 1] = size[i] end
  shape[#shape + 1] = k
  return grid:view(unpack(shape))
end

-- ---- gridSample ------------------------------------------------------------------------------

-- x clipped to [0, size - 1]; its gradient is 1 strictly inside only (PyTorch counts the borders
-- as outside).
local function clip(x, size)
  local d = x:detach()
  local high = torch.ge(d, size - 1):typeAs(d):mul(size - 1)
  return torch.where(torch.cmul(torch.gt(d, 0), torch.lt(d, size - 1)), x, high)
end

-- x reflected into [low2 / 2, high2 / 2] (PyTorch's reflect_coordinates, with its gradient: +-1,
-- +1 at the fold itself).
local function reflect(x, low2, high2)
  local d = x:detach()
  if low2 == high2 then return d.new(d:size()):zero() end
  local min, span = low2 / 2, (high2 - low2) / 2
  -- A NaN or inf point reflects to NaN, clipped to 0 below; its constants (sign, flips) would be
  -- NaN too, and 0 * NaN in their backward gave the grid a NaN gradient where 'border' and 'zeros'
  -- give 0. Such points reflect from min instead: the same value once clipped, gradient 0.
  local finite = torch.isfinite(d)
  if not finite:all() then
    x = torch.where(finite, x, min)
    d = x:detach()
  end
  local sign = torch.ge(d, min):typeAs(d):mul(2):add(-1)
  local a = torch.cmul(torch.add(x, -min), sign)  -- |x - min|
  local flips = torch.floor(torch.div(a:detach(), span))
  local odd = torch.remainder(flips, 2)
  local extra = torch.csub(a, torch.mul(flips, span))
  -- even flips: extra + min; odd: span - extra + min
  return torch.add(torch.cmul(extra, torch.mul(odd, -2):add(1)), torch.mul(odd, span):add(min))
end

local function source_coord(g, size, pad, align)
  local x
  -- PyTorch's CPU kernel's roundings: (g + 1) (size - 1) / 2, or g size / 2 + (size - 1) / 2
  if align then x = torch.mul(torch.add(g, 1), (size - 1) / 2)
  else x = torch.add(torch.mul(g, size / 2), (size - 1) / 2) end
  if pad == 'border' then x = clip(x, size)
  elseif pad == 'reflection' then
    if align then x = reflect(x, 0, 2 * (size - 1)) else x = reflect(x, -1, 2 * size - 1) end
    x = clip(x, size)
  end
  -- PyTorch's safe_downgrade_to_int_range: a coordinate that is not finite or beyond the int range
  -- reads -100, outside the input (so a NaN or inf point samples zeros, not NaN)
  local d = x:detach()
  return torch.where(torch.cmul(torch.isfinite(d), torch.lt(torch.abs(d), 2 ^ 31 - 1)), x, -100)
end

-- Half-way cases to even (C's nearbyint, PyTorch's nearest mode); c is not recorded.
local function round_even(c)
  local r = torch.floor(torch.add(c, 0.5))
  local tie = torch.eq(torch.csub(r, c), 0.5):typeAs(c)
  return torch.csub(r, torch.cmul(tie, torch.remainder(r, 2)))
end

-- The in-bounds mask (0/1 of r's type) of integral positions r, and r as longs with 0 where it
-- is out of bounds (NaN and inf included: their conversion to an integer is undefined).
local function position(r, size)
  local ok = torch.cmul(torch.ge(r, 0), torch.le(r, size - 1))
  return ok:typeAs(r), torch.where(ok, r, 0):to(LONG)
end

-- The empty result of gridSample, still recorded from input and grid (as PyTorch's), so that
-- backward through a sum of it works and gives them zero gradients.
function F._gridSampleEmpty(input, grid, shape)
  local function zero(t) return torch.mul(torch.sum(t:reshape(-1), 1), 0) end  -- (a 1-element tensor)
  return torch.add(torch.add(input.new(unpack(shape)):zero(), zero(input)), zero(grid))
end

local MODES = { bilinear = true, nearest = true }
local PADS = { zeros = true, border = true, reflection = true }

--- nn.functional.gridSample(input, grid [, {mode = 'bilinear', paddingMode = 'zeros', alignCorners =
--- false}]): input (N x C x H x W) sampled at grid (N x Ho x Wo x 2: x then y, -1..1 spanning the
--- input) into N x C x Ho x Wo; 5-D input N x C x D x H x W with grid N x Do x Ho x Wo x 3
--- (x, y, z) samples trilinearly. mode 'bilinear' | 'nearest'; paddingMode 'zeros' | 'border' |
--- 'reflection' (PyTorch's grid_sample). Differentiable in input and grid (bilinear).
--- Example: nn.functional.gridSample(torch.randn(1, 1, 3, 3), torch.zeros(1, 2, 2, 2))
function F.gridSample(input, grid, o)
  local op = 'gridSample'
  local opts = A.opts(op, o, { mode = true, paddingMode = true, alignCorners = true })
  local mode, pad = opts.mode or 'bilinear', opts.paddingMode or 'zeros'
  local align = A.bool(op, opts.alignCorners, 'alignCorners', false)
  if not MODES[mode] then fail(op, "mode must be 'bilinear' or 'nearest', got %s", tostring(mode)) end
  if not PADS[pad] then fail(op, "paddingMode must be 'zeros', 'border' or 'reflection', got %s", tostring(pad)) end
  A.float(op, input, 'an input')
  A.float(op, grid, 'a grid')
  local nd = input:dim()
  if nd ~= 4 and nd ~= 5 then fail(op, 'expected a 4-D or 5-D input, got %s', A.shape(input)) end
  local k = nd - 2
  if grid:dim() ~= nd or grid:size(1) ~= input:size(1) or grid:size(nd) ~= k then
    fail(op, 'expected a grid of size %dx...x%d with %d dims for input %s, got %s', input:size(1), k, nd,
      A.shape(input), A.shape(grid))
  end
  if grid.p.dtype ~= input.p.dtype or grid.p.device_type ~= input.p.device_type then
    fail(op, 'input %s and grid %s must have one type and device', torch.type(input), torch.type(grid))
  end
  local N, C = input:size(1), input:size(2)
  local sizes, strides, S = {}, {}, 1  -- per grid component: x <- W, y <- H, z <- D
  for j = 1, k do
    sizes[j] = input:size(nd - j + 1)
    strides[j] = S
    S = S * sizes[j]
  end
  -- (PyTorch's grid_sampler check: an empty input has no value to read, even with 'border')
  if S == 0 then fail(op, 'expected an input with non-empty spatial dims, got %s', A.shape(input)) end
  local P = 1  -- (from the grid's dims: grid:nElement() / N is 0 / 0 for an empty batch)
  local out_shape = { N, C }
  for i = 2, nd - 1 do
    out_shape[#out_shape + 1] = grid:size(i)
    P = P * grid:size(i)
  end
  if N * C * P == 0 then return F._gridSampleEmpty(input, grid, out_shape) end

  local g = grid:contiguous():view(N * P, k)
  local coords = {}
  for j = 1, k do coords[j] = source_coord(g:select(2, j), sizes[j], pad, align) end
  local src = input:contiguous():view(N, C, S):transpose(2, 3):contiguous():view(N * S, C)
  local base = torch.range(0, N - 1):long():mul(S):add(1):view(N, 1)  -- index counts from 1
  base = base:expand(N, P):contiguous():view(-1)
  if input:isCuda() then base = base:to(input:device()) end

  local out
  if mode == 'nearest' then
    local idx, valid = base, nil
    for j = 1, k do
      local ok, r = position(round_even(coords[j]:detach()), sizes[j])
      idx = torch.add(idx, torch.mul(r, strides[j]))
      valid = valid and torch.cmul(valid, ok) or ok
    end
    out = torch.cmul(torch.index(src, 1, idx), valid:view(-1, 1))
  else
    local lo, frac = {}, {}
    for j = 1, k do
      lo[j] = torch.floor(coords[j]:detach())
      frac[j] = torch.csub(coords[j], lo[j])
    end
    for corner = 0, 2 ^ k - 1 do
      local idx, w = base, nil
      for j = 1, k do
        local up = math.floor(corner / 2 ^ (j - 1)) % 2
        local ok, r = position(up == 1 and torch.add(lo[j], 1) or lo[j], sizes[j])
        local wj = up == 1 and frac[j] or torch.add(torch.neg(frac[j]), 1)
        wj = torch.cmul(wj, ok)
        w = w and torch.cmul(w, wj) or wj
        idx = torch.add(idx, torch.mul(r, strides[j]))
      end
      local term = torch.cmul(torch.index(src, 1, idx), w:view(-1, 1))
      out = out and torch.add(out, term) or term
    end
  end
  out = out:view(N, P, C):transpose(2, 3):contiguous()
  return out:view(unpack(out_shape))
end

return F
