-- nn.functional.interpolate's remaining PyTorch modes and options ('area', 'nearest-exact',
-- 'bicubic', antialias, recomputeScaleFactor) and nn.functional.pad's 'circular' mode. Calls that
-- functional_pool.lua already served go to it unchanged; the new ones are resampled here, one dim
-- at a time, as a weighted sum of a few shifted copies of the input (recorded index/cmul/add ops:
-- differentiable, on any device).
require 'nn.functional_pool'
local ffi = require 'ffi'
local A = require 'nn.functional_args'
local F = nn.functional
local fail = A.fail
local base_interpolate = F._interpolateBase or F.interpolate
local base_pad = F._padBase or F.pad
F._interpolateBase, F._padBase = base_interpolate, base_pad

-- Note [Resampling taps]: every mode is separable; along one dim of input size I and output size O
-- it is, for each output o, a list of (input index, weight) taps, computed here in Lua with
-- PyTorch 1.13's coordinate formulas (area_pixel_compute_scale / _source_index, the cubic
-- convolution with A = -0.75, the antialiasing filters with support scaled by the downsampling
-- factor). The taps are padded to one count K with zero weights, and the dim is resampled as
-- sum_k w_k * x:index(dim, idx_k).
local function cubic1(t, a) return ((a + 2) * t - (a + 3)) * t * t + 1 end
local function cubic2(t, a) return ((a * t - 5 * a) * t + 8 * a) * t - 4 * a end

-- scale: the user's scale factor for this dim when it is used for coordinates, else nil.
local function area_scale(I, O, align, scale)
  if align then return O > 1 and (I - 1) / (O - 1) or 0 end
  if scale and scale > 0 then return 1 / scale end
  return I / O
end

-- Note [Nearest indices in single precision]: PyTorch 1.13's nearest modes compute the source index
-- as floorf((o + offset) * scale), scale = 1 / scaleFactor or I / O in double, the product rounded
-- to a float by floorf's argument. In double alone the product can land just below an integer that
-- the float rounding reaches (19 cells, scaleFactor 2.6: output 39 read cell 14, PyTorch's 15), so
-- an output now and then took its neighbour's cell; the rounding is emulated. (PyTorch's
-- channels-last kernel, which it also takes for C = 1 tensors, differs again in those rare cells:
-- float scales, a copy for O = I and halving for O = 2 I; this follows its N x C x H x W kernel.)
local f32buf = ffi.new('float[1]')
local function f32(v) f32buf[0] = v return f32buf[0] end

local function taps(mode, I, O, align, scale, antialias)
  local out = {}
  if mode == 'nearest' or mode == 'nearest-exact' then
    local s = (scale and scale > 0) and 1 / scale or I / O
    local off = mode == 'nearest-exact' and 0.5 or 0
    for o = 0, O - 1 do out[o + 1] = { { math.min(math.floor(f32((o + off) * s)), I - 1), 1 } } end
  elseif mode == 'area' then
    for o = 0, O - 1 do
      local a, b = math.floor(o * I / O), math.ceil((o + 1) * I / O)
      local t = {}
      for i = a, b - 1 do t[#t + 1] = { i, 1 / (b - a) } end
      out[o + 1] = t
    end
  elseif antialias then
    local s = area_scale(I, O, align, scale)
    local interp = mode == 'bicubic' and 4 or 2
    local support = s >= 1 and interp * 0.5 * s or interp * 0.5
    local inv = s >= 1 and 1 / s or 1
    local filter = mode == 'bicubic' and function(x)
      x = math.abs(x)
      if x < 1 then return cubic1(x, -0.5) elseif x < 2 then return cubic2(x, -0.5) end
      return 0
    end or function(x) x = math.abs(x) return x < 1 and 1 - x or 0 end
    local trunc = function(v) return v >= 0 and math.floor(v) or math.ceil(v) end
    for o = 0, O - 1 do
      local center = s * (o + 0.5)
      local xmin = math.max(trunc(center - support + 0.5), 0)
      local xsize = math.min(trunc(center + support + 0.5), I) - xmin
      local t, total = {}, 0
      for j = 0, xsize - 1 do
        local w = filter((j + xmin - center + 0.5) * inv)
        t[#t + 1] = { xmin + j, w }
        total = total + w
      end
      if total ~= 0 then for _, tw in ipairs(t) do tw[2] = tw[2] / total end end
      out[o + 1] = t
    end
  elseif mode == 'bicubic' then
    local s = area_scale(I, O, align, scale)
    for o = 0, O - 1 do
      local src = align and s * o or s * (o + 0.5) - 0.5
      local i0 = math.floor(src)
      local t = src - i0
      local w = { cubic2(t + 1, -0.75), cubic1(t, -0.75), cubic1(1 - t, -0.75), cubic2(2 - t, -0.75) }
      local r = {}
      for k = 1, 4 do r[k] = { math.max(0, math.min(I - 1, i0 - 2 + k)), w[k] } end
      out[o + 1] = r
    end
  elseif O == I then -- linear, bilinear, trilinear: PyTorch copies a dim whose size is kept, whatever
    -- the scale factor (1.05 on 19 cells keeps 19: not the shifted samples of 1 / 1.05)
    for o = 0, O - 1 do out[o + 1] = { { o, 1 } } end
  else -- linear, bilinear, trilinear
    local s = area_scale(I, O, align, scale)
    for o = 0, O - 1 do
      local src = align and s * o or math.max(s * (o + 0.5) - 0.5, 0)
      local i0 = math.floor(src)
      local i1 = i0 < I - 1 and i0 + 1 or i0
      local l1 = src - i0
      out[o + 1] = { { i0, 1 - l1 }, { i1, l1 } }
    end
  end
  return out
end

-- x resampled along dim to O entries by the taps of one dim.
local function resample_dim(x, dim, tp)
  local K = 0
  for _, t in ipairs(tp) do K = math.max(K, #t) end
  local y
  for k = 1, K do
    local idx, w = {}, {}
    for o, t in ipairs(tp) do
      local tk = t[k] or { t[1][1], 0 }
      idx[o], w[o] = tk[1] + 1, tk[2]
    end
    local shape = {}
    for d = 1, x:dim() do shape[d] = 1 end
    shape[dim] = #tp
    local wt = torch.DoubleTensor(w):to(x:device()):typeAs(x):view(torch.LongStorage(shape))
    local picked = x:index(dim, torch.LongTensor(idx):to(x:device()))
    local term = torch.cmul(picked, wt:expandAs(picked))
    y = y and torch.add(y, term) or term
  end
  return y
end

-- Note [Scale factors that do not divide]: PyTorch maps output position i to source (i + 0.5) /
-- scaleFactor - 0.5 (or i / scaleFactor for 'nearest'), where Tocha's first interpolate used the
-- sizes' ratio in / out; the two agree exactly when in * scaleFactor is a whole number (every
-- integer scale). Otherwise (scaleFactor = 1.7 on 4 elements) a call without
-- recomputeScaleFactor takes the path with PyTorch's formula. True if the ratio rule is exact.
local function exact_scale(x, sf)
  if sf == nil then return true end
  local n = x:dim() - 2
  if n < 1 or n > 3 then return true end  -- the error comes from the base function
  for i = 1, n do
    local s = type(sf) == 'number' and sf or (type(sf) == 'table' and sf[i])
    if type(s) ~= 'number' then return true end
    local out = x:size(2 + i) * s
    if out ~= math.floor(out) then return false end
  end
  return true
end

local LINEAR = { 'linear', 'bilinear', 'trilinear' }
local MODES = { nearest = true, ['nearest-exact'] = true, area = true, linear = true, bilinear = true, bicubic = true,
                trilinear = true }
local known = { size = true, scaleFactor = true, mode = true, alignCorners = true, antialias = true,
                recomputeScaleFactor = true }

--- nn.functional.interpolate(x, {size= | scaleFactor= [, mode = 'nearest'] [, alignCorners = false]
--- [, antialias = false] [, recomputeScaleFactor]}): resamples the last 1, 2 or 3 dims of an
--- N x C x L, N x C x H x W or N x C x D x H x W tensor. Modes: 'nearest', 'nearest-exact', 'area'
--- (adaptive average pooling) on any of them; 'linear' (3-D), 'bilinear' and 'bicubic' (4-D),
--- 'trilinear' (5-D), which take alignCorners; antialias (bilinear, bicubic) widens the filter when
--- downsampling (PIL's, as PyTorch). A scaleFactor gives source coordinates from the factor itself,
--- as PyTorch's default (recomputeScaleFactor = true: from the sizes' ratio). The output size is
--- floor(size * scaleFactor).
--- Example: nn.functional.interpolate(torch.randn(1, 1, 4, 4), {scaleFactor = 0.5, mode = 'bicubic', antialias = true})
function F.interpolate(x, opts)
  local name = 'interpolate'
  A.tensor(name, x, 'an input')
  local o = A.opts(name, opts, known)
  local mode = o.mode or 'nearest'
  if not MODES[mode] then
    fail(name, "mode must be 'nearest', 'nearest-exact', 'area', 'linear', 'bilinear', 'bicubic' or 'trilinear', got %s",
      tostring(mode))
  end
  local rec = o.recomputeScaleFactor
  if rec ~= nil and type(rec) ~= 'boolean' then
    fail(name, 'recomputeScaleFactor must be a boolean, got %s', tostring(rec))
  end
  if o.antialias ~= nil and type(o.antialias) ~= 'boolean' then
    fail(name, 'antialias must be a boolean, got %s', tostring(o.antialias))
  end
  -- only true is refused with a size: PyTorch takes recompute_scale_factor = False (a no-op) there
  if rec == true and o.size ~= nil then fail(name, 'recomputeScaleFactor is not meaningful with an explicit size') end
  local new = mode == 'area' or mode == 'nearest-exact' or mode == 'bicubic' or o.antialias
    or (rec == false and o.scaleFactor ~= nil) or (rec == nil and not exact_scale(x, o.scaleFactor))
  if not new then
    if rec == nil and o.antialias == nil then return base_interpolate(x, opts) end
    return base_interpolate(x, { size = o.size, scaleFactor = o.scaleFactor, mode = o.mode, alignCorners = o.alignCorners })
  end
  local n = x:dim() - 2
  if n < 1 or n > 3 then
    fail(name, 'expected a 3D (N x C x L), 4D (N x C x H x W) or 5D (N x C x D x H x W) tensor, got size %s', A.shape(x))
  end
  A.float(name, x, 'an input')
  local ok = mode == 'nearest' or mode == 'nearest-exact' or mode == 'area' or mode == LINEAR[n]
    or (mode == 'bicubic' and n == 2)
  if not ok then fail(name, 'mode %s does not apply to a %dD tensor', tostring(mode), x:dim()) end
  local linearish = mode == LINEAR[n] or mode == 'bicubic'
  if o.alignCorners ~= nil and not linearish then
    fail(name, 'alignCorners only goes with the linear and bicubic modes')
  end
  if o.antialias and not ((mode == 'bilinear' or mode == 'bicubic') and n == 2) then
    fail(name, 'antialias is only supported for the bilinear and bicubic modes (4-D input)')
  end
  if (o.size == nil) == (o.scaleFactor == nil) then fail(name, 'give exactly one of size and scaleFactor') end
  local sizes, scales = {}, {}
  if o.size ~= nil then
    local s = type(o.size) == 'number' and o.size or nil
    for i = 1, n do sizes[i] = s or (type(o.size) == 'table' and o.size[i]) end
    if type(o.size) == 'table' and #o.size ~= n then fail(name, 'expected size as a number or %d numbers', n) end
  else
    local sf = o.scaleFactor
    if type(sf) ~= 'number' and (type(sf) ~= 'table' or #sf ~= n) then
      fail(name, 'expected scaleFactor as a number or %d numbers', n)
    end
    for i = 1, n do
      local v = type(sf) == 'number' and sf or sf[i]
      if type(v) ~= 'number' or v <= 0 then fail(name, 'scale factors must be positive numbers') end
      sizes[i] = math.floor(x:size(2 + i) * v)
      if rec ~= true then scales[i] = v end
    end
  end
  for i = 1, n do
    if type(sizes[i]) ~= 'number' or sizes[i] % 1 ~= 0 or sizes[i] < 1 then
      fail(name, 'output sizes must be positive integers, got %s', tostring(sizes[i]))
    end
  end
  -- an empty batch resamples to an empty batch (PyTorch's rule: only the batch dim may be 0)
  for d = 2, x:dim() do
    if x:size(d) == 0 then
      fail(name, 'expected a non-empty input (only the batch may be empty), got size %s', A.shape(x))
    end
  end
  local y = x
  for i = n, 1, -1 do
    local d = 2 + i
    y = resample_dim(y, d, taps(mode, x:size(d), sizes[i], o.alignCorners == true, scales[i], o.antialias))
  end
  return y
end

-- Note [Constant padding of any rank]: PyTorch pads any number of trailing dims with a constant,
-- the base padding op at most 3 (more pads raised an error). The last 3 dims go to it, each further
-- dim is padded by the same op as the last dim of a transposed view.
local function pad_constant_nd(x, pads, value)
  local name = 'pad'
  A.tensor(name, x, 'an input')
  local n = x:dim()
  if #pads / 2 > n then
    fail(name, '%d pads need a tensor of at least %d dims, got size %s', #pads, #pads / 2, A.shape(x))
  end
  for i = 1, #pads do A.int(name, pads[i], 'a pad') end
  local y = base_pad(x, { pads[1], pads[2], pads[3], pads[4], pads[5], pads[6] }, 'constant', value)
  for j = 4, #pads / 2 do
    local d = n - j + 1
    y = base_pad(y:transpose(d, n), { pads[2 * j - 1], pads[2 * j] }, 'constant', value):transpose(d, n)
  end
  return y:contiguous()
end

--- nn.functional.pad(x, pads [, mode = 'constant'] [, value = 0]): pads the last dims; pads is
--- {left, right [, top, bottom [, front, back ...]]} (from the last dim, as PyTorch's F.pad; 'constant'
--- pads any number of dims, the others at most 3). Modes: 'constant', 'reflect' (the edge is not
--- repeated), 'replicate' and 'circular' (wraps around: each pad at most the dim's size; negative pads
--- crop first, then the cropped tensor wraps, as PyTorch).
--- Example: nn.functional.pad(torch.randn(1, 1, 4), {2, 1}, 'circular')
local PAD_MODES = { constant = true, reflect = true, replicate = true, circular = true }
function F.pad(x, pads, mode, value)
  local name = 'pad'
  if mode ~= nil and not PAD_MODES[mode] then
    fail(name, "mode must be 'constant', 'reflect', 'replicate' or 'circular', got %s", tostring(mode))
  end
  if (mode == nil or mode == 'constant') and type(pads) == 'table' and #pads > 6 and #pads % 2 == 0 then
    return pad_constant_nd(x, pads, value)
  end
  if mode ~= 'circular' then return base_pad(x, pads, mode, value) end
  A.tensor(name, x, 'an input')
  if type(pads) ~= 'table' or #pads % 2 ~= 0 or #pads == 0 or #pads / 2 > x:dim() then
    fail(name, 'expected pads as a table of 2 numbers per padded dim (at most %d dims), got %s', x:dim(),
      type(pads) == 'table' and #pads .. ' numbers' or type(pads))
  end
  if value ~= nil and value ~= 0 then fail(name, 'a value only goes with constant padding') end
  for i = 1, #pads do A.int(name, pads[i], 'a pad') end
  local y = x
  for j = 1, #pads / 2 do
    local d = x:dim() - j + 1
    local l, r = pads[2 * j - 1], pads[2 * j]
    local L = y:size(d)
    if l < 0 or r < 0 then
      local a, b = math.max(-l, 0), math.max(-r, 0)
      if a + b > L then fail(name, 'pads %d, %d crop more than the %d entries of dim %d', l, r, L, d) end
      y = y:narrow(d, a + 1, L - a - b)
      L = y:size(d)
    end
    l, r = math.max(l, 0), math.max(r, 0)
    if l > L or r > L then
      fail(name, 'circular pads %d, %d exceed the size %d of dim %d (they may wrap once)', l, r, L, d)
    end
    local parts = {}
    if l > 0 then parts[#parts + 1] = y:narrow(d, L - l + 1, l) end
    parts[#parts + 1] = y
    if r > 0 then parts[#parts + 1] = y:narrow(d, 1, r) end
    if #parts > 1 then y = torch.cat(parts, d) end
  end
  return y
end
