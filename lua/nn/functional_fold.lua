-- nn.functional's sliding-window functions missing from functional_pool.lua and functional_conv.lua:
-- unfold (im2col) and fold (col2im), the 1-D max/average/adaptive poolings and the Lp poolings,
-- as PyTorch's torch.nn.functional lays them out. Built of recorded ops (index, indexAdd, the 2-D
-- pooling ops on a height-1 view), so differentiable on any device.
require 'nn.functional_pool'
local A = require 'nn.functional_args'
nn.functional = nn.functional or {}
local F = nn.functional
local fail = A.fail

-- Note [Functional error names] (nn/functional_extra.lua): errors say "[nn.functional.name]".
local function op(name) return 'nn.functional.' .. name end

-- A number or a table of n integers >= min, as a table of n integers (nil gives default).
local function ints(name, v, n, what, default, min)
  if v == nil then v = default end
  local t = {}
  if type(v) == 'number' then
    for i = 1, n do t[i] = v end
  elseif type(v) == 'table' and #v == n then
    for i = 1, n do t[i] = v[i] end
  else
    fail(name, 'expected %s as a number or a table of %d numbers, got %s', what, n, type(v) == 'table'
      and #v .. ' numbers' or tostring(v))
  end
  for i = 1, n do
    if type(t[i]) ~= 'number' or t[i] ~= math.floor(t[i]) or t[i] < min then
      fail(name, '%s must be integers >= %d, got %s', what, min, tostring(t[i]))
    end
  end
  return t
end

-- A 1-based LongTensor on like's device.
local function indices_like(list, like)
  local idx = torch.LongTensor(list)
  if like.p.device_type ~= 0 then idx = idx:to(like:device()) end
  return idx
end

-- ---- unfold / fold --------------------------------------------------------------------------------

-- The window geometry of unfold/fold: per dim (h, w) the kernel, dilation, padding, stride, and the
-- count of window positions for an input of `sizes`; rows/cols: the 1-based padded-input positions
-- of every (kernel offset, window position) pair, offset-major.
local function geometry(name, sizes, kernel, opts)
  opts = A.opts(name, opts, { dilation = true, padding = true, stride = true })
  local g = { k = ints(name, kernel, 2, 'kernelSize', nil, 1), d = ints(name, opts.dilation, 2, 'dilation', 1, 1),
              p = ints(name, opts.padding, 2, 'padding', 0, 0), s = ints(name, opts.stride, 2, 'stride', 1, 1),
              n = {}, pos = {} }
  for i = 1, 2 do
    local span = g.d[i] * (g.k[i] - 1) + 1
    g.n[i] = math.floor((sizes[i] + 2 * g.p[i] - span) / g.s[i]) + 1
    if sizes[i] + 2 * g.p[i] < span or g.n[i] < 1 then
      fail(name, 'a spatial size of %dx%d padded by %dx%d is smaller than the dilated kernel %dx%d', sizes[1],
        sizes[2], g.p[1], g.p[2], g.d[1] * (g.k[1] - 1) + 1, g.d[2] * (g.k[2] - 1) + 1)
    end
    local pos = {}
    for j = 0, g.k[i] - 1 do
      for o = 0, g.n[i] - 1 do pos[#pos + 1] = j * g.d[i] + o * g.s[i] + 1 end
    end
    g.pos[i] = pos
  end
  return g
end

--- nn.functional.unfold(x, kernelSize [, {dilation = 1, padding = 0, stride = 1}]): im2col: the
--- sliding kernelSize blocks of an N x C x H x W (or C x H x W) tensor as N x (C*kh*kw) x L columns,
--- L = oh*ow windows row-major, rows ordered channel, kernel row, kernel column (PyTorch's layout).
--- Sizes are numbers or {h, w} pairs.
--- Example: nn.functional.unfold(torch.randn(1, 2, 4, 4), 2, {stride = 2}):size()
function F.unfold(x, kernelSize, opts)
  local name = op('unfold')
  A.float(name, x, 'an input')
  if x:dim() ~= 3 and x:dim() ~= 4 then
    fail(name, 'expected a 4D (N x C x H x W) or 3D (C x H x W) input, got size %s', A.shape(x))
  end
  local batched = x:dim() == 4
  if not batched then x = x:unsqueeze(1) end
  local n, c, h, w = x:size(1), x:size(2), x:size(3), x:size(4)
  local g = geometry(name, { h, w }, kernelSize, opts)
  if g.p[1] > 0 or g.p[2] > 0 then x = F.pad(x, { g.p[2], g.p[2], g.p[1], g.p[1] }) end
  local cols = torch.index(torch.index(x, 3, indices_like(g.pos[1], x)), 4, indices_like(g.pos[2], x))
  local kh, kw, oh, ow = g.k[1], g.k[2], g.n[1], g.n[2]
  local y = cols:reshape(n, c, kh, oh, kw, ow):permute(1, 2, 3, 5, 4, 6):reshape(n, c * kh * kw, oh * ow)
  return batched and y or y:squeeze(1)
end

--- nn.functional.fold(x, outputSize, kernelSize [, {dilation = 1, padding = 0, stride = 1}]):
--- col2im, the adjoint of unfold: sums the N x (C*kh*kw) x L (or (C*kh*kw) x L) columns back into
--- N x C x H x W, overlapping windows adding up (fold(unfold(x)) is x times each pixel's window count).
--- Example: nn.functional.fold(torch.randn(1, 8, 4), {4, 4}, 2, {stride = 2}):size()
function F.fold(x, outputSize, kernelSize, opts)
  local name = op('fold')
  A.float(name, x, 'an input')
  if x:dim() ~= 2 and x:dim() ~= 3 then
    fail(name, 'expected a 3D (N x C*kh*kw x L) or 2D (C*kh*kw x L) input, got size %s', A.shape(x))
  end
  local batched = x:dim() == 3
  if not batched then x = x:unsqueeze(1) end
  local size = ints(name, outputSize, 2, 'outputSize', nil, 1)
  local g = geometry(name, size, kernelSize, opts)
  local kh, kw, oh, ow = g.k[1], g.k[2], g.n[1], g.n[2]
  if x:size(2) % (kh * kw) ~= 0 or x:size(3) ~= oh * ow then
    fail(name, 'input of size %s does not fit: dim 2 must be a multiple of %d (kernel %dx%d) and dim 3 %d (%dx%d windows)',
      A.shape(batched and x or x:squeeze(1)), kh * kw, kh, kw, oh * ow, oh, ow)
  end
  local n, c = x:size(1), x:size(2) / (kh * kw)
  local hp, wp = size[1] + 2 * g.p[1], size[2] + 2 * g.p[2]
  local blocks = x:reshape(n, c, kh, kw, oh, ow):permute(1, 2, 3, 5, 4, 6):reshape(n, c, kh * oh, kw * ow)
  local rows = torch.indexAdd(x.new(n, c, kh * oh, wp):zero(), 4, indices_like(g.pos[2], x), blocks)
  local y = torch.indexAdd(x.new(n, c, hp, wp):zero(), 3, indices_like(g.pos[1], x), rows)
  y = y:narrow(3, g.p[1] + 1, size[1]):narrow(4, g.p[2] + 1, size[2])
  return batched and y or y:squeeze(1)
end

-- ---- 1-D and Lp pooling ---------------------------------------------------------------------------

local function rank_arg(name, x, lo, layout)
  A.float(name, x, 'an input')
  if x:dim() ~= lo and x:dim() ~= lo + 1 then
    fail(name, 'expected a %dD (%s) or %dD (unbatched) input, got size %s', lo + 1, layout, lo, A.shape(x))
  end
  return x
end
local function one(name, v, what, default, min) return ints(name, v, 1, what, default, min)[1] end
-- Runs pool(x4, ...) on x viewed as (N x) C x 1 x L and drops the height again from each result.
local function on_rows(x, pool, ...)
  local a, b = pool(x:unsqueeze(x:dim()), ...)
  return a:squeeze(a:dim() - 1), b and b:squeeze(b:dim() - 1)
end
local function window_check(name, k, p)
  if p > k / 2 then fail(name, 'padding %d must be at most half the kernel size %d', p, k) end
end

-- Note [Dilated 1-D max pooling]: the 2-D pooling op has no dilation, so a dilated maxPool1d gathers
-- its windows (index of the -inf padded input at o*s + j*d) and takes their max; the window count
-- follows PyTorch's rule (ceil mode drops a last window that starts in the right padding).
local function dilated_max_pool(x, k, s, p, d, ceil)
  local l = x:size(x:dim())
  local span = d * (k - 1) + 1
  local q = (l + 2 * p - span) / s
  local n = (ceil and math.ceil(q) or math.floor(q)) + 1
  if ceil and (n - 1) * s >= l + p then n = n - 1 end
  local need = (n - 1) * s + span
  local xp = F.pad(x, { p, math.max(need - l - p, 0) }, 'constant', -math.huge):narrow(x:dim(), 1, need)
  local pos, src = {}, {}
  for o = 0, n - 1 do
    for j = 0, k - 1 do pos[#pos + 1] = o * s + j * d + 1; src[#src + 1] = o * s + j * d + 1 - p end
  end
  local windows = torch.index(xp, x:dim(), indices_like(pos, x))
  local shape = x:size():totable()
  shape[x:dim()], shape[x:dim() + 1] = n, k
  shape = torch.LongStorage(shape)
  local v, j = torch.max(windows:view(shape), x:dim() + 1)
  local lead = {}
  for i = 1, x:dim() - 1 do lead[i] = 1 end
  lead[x:dim()], lead[x:dim() + 1] = n, k
  local where = indices_like(src, x):view(torch.LongStorage(lead)):expand(shape)
  local idx = torch.gather(where, x:dim() + 1, j)
  return v:squeeze(x:dim() + 1), idx:squeeze(x:dim() + 1)
end

--- nn.functional.maxPool1d(x, kernelSize [, stride = kernelSize] [, padding = 0] [, dilation = 1]
--- [, ceilMode = false] [, returnIndices = false]): max pooling of an N x C x L (or C x L) tensor;
--- with returnIndices also the 1-based positions of the maxima in L.
--- Example: nn.functional.maxPool1d(torch.randn(1, 2, 9), 3, 2, 1, 2)
function F.maxPool1d(x, kernelSize, stride, padding, dilation, ceilMode, returnIndices)
  local name = op('maxPool1d')
  rank_arg(name, x, 2, 'N x C x L')
  local k = one(name, kernelSize, 'kernelSize', nil, 1)
  local s, p = one(name, stride, 'stride', k, 1), one(name, padding, 'padding', 0, 0)
  local d = one(name, dilation, 'dilation', 1, 1)
  window_check(name, k, p)
  ceilMode = A.bool(name, ceilMode, 'ceilMode', false)
  if x:size(x:dim()) + 2 * p < d * (k - 1) + 1 then
    fail(name, 'input of size %s padded by %d is shorter than the dilated kernel %d', A.shape(x), p, d * (k - 1) + 1)
  end
  local v, i
  if d == 1 then
    v, i = on_rows(x, torch.maxPool2d, { 1, k }, { 1, s }, { 0, p }, ceilMode)
  else
    v, i = dilated_max_pool(x, k, s, p, d, ceilMode)
  end
  if A.bool(name, returnIndices, 'returnIndices', false) then return v, i end
  return v
end

--- nn.functional.avgPool1d(x, kernelSize [, stride = kernelSize] [, padding = 0] [, ceilMode = false]
--- [, countIncludePad = true]): average pooling of an N x C x L (or C x L) tensor.
--- Example: nn.functional.avgPool1d(torch.randn(1, 2, 9), 3, 2, 1)
function F.avgPool1d(x, kernelSize, stride, padding, ceilMode, countIncludePad)
  local name = op('avgPool1d')
  rank_arg(name, x, 2, 'N x C x L')
  local k = one(name, kernelSize, 'kernelSize', nil, 1)
  local s, p = one(name, stride, 'stride', k, 1), one(name, padding, 'padding', 0, 0)
  window_check(name, k, p)
  if x:size(x:dim()) + 2 * p < k then fail(name, 'input of size %s padded by %d is shorter than the kernel %d',
    A.shape(x), p, k) end
  return (on_rows(x, torch.avgPool2d, { 1, k }, { 1, s }, { 0, p }, A.bool(name, ceilMode, 'ceilMode', false),
    A.bool(name, countIncludePad, 'countIncludePad', true)))
end

-- (sum of x^p over each window)^(1/p), as PyTorch: the average pooling of x^p times the window size
-- (the ops of nn.SpatialLPPooling, Square and Sqrt for p = 2, so both agree exactly).
-- Note [Lp pooling at zero]: PyTorch takes (sign(s) relu(|s|))^(1/p) of the window sums s, whose
-- gradient at s = 0 is 0 (relu's at 0), where s^(1/p) alone has an infinite slope (0 * inf: NaN).
-- A window of zeros (common after a ReLU) gave the whole input gradient NaNs. Such windows take the
-- root of 1 masked back to 0: the same values, and PyTorch's gradient 0 there.
local function lp_pool(name, x, p, avg, count)
  if type(p) ~= 'number' or not (p > 0 and p < math.huge) then
    fail(name, 'normType must be a positive finite number, got %s', tostring(p))
  end
  local y = torch.mul(avg(p == 2 and torch.cmul(x, x) or torch.pow(x, p)), count)
  local nonzero = torch.ne(y:detach(), 0)
  y = torch.where(nonzero, y, 1)
  return torch.where(nonzero, p == 2 and torch.sqrt(y) or torch.pow(y, 1 / p), 0)
end

--- nn.functional.lpPool1d(x, normType, kernelSize [, stride = kernelSize] [, ceilMode = false]):
--- the normType-norm of each window of an N x C x L (or C x L) tensor.
--- Example: nn.functional.lpPool1d(torch.rand(1, 2, 8), 2, 3, 2)
function F.lpPool1d(x, normType, kernelSize, stride, ceilMode)
  local name = op('lpPool1d')
  rank_arg(name, x, 2, 'N x C x L')
  local k = one(name, kernelSize, 'kernelSize', nil, 1)
  local s = one(name, stride, 'stride', k, 1)
  ceilMode = A.bool(name, ceilMode, 'ceilMode', false)
  if x:size(x:dim()) < k then fail(name, 'input of size %s is shorter than the kernel %d', A.shape(x), k) end
  return lp_pool(name, x, normType, function(t) return F.avgPool1d(t, k, s, 0, ceilMode) end, k)
end

--- nn.functional.lpPool2d(x, normType, kernelSize [, stride = kernelSize] [, ceilMode = false]):
--- the normType-norm of each window of an N x C x H x W (or C x H x W) tensor (nn.SpatialLPPooling);
--- sizes are numbers or {h, w}.
--- Example: nn.functional.lpPool2d(torch.rand(1, 2, 4, 4), 3, 2)
function F.lpPool2d(x, normType, kernelSize, stride, ceilMode)
  local name = op('lpPool2d')
  rank_arg(name, x, 3, 'N x C x H x W')
  local k = ints(name, kernelSize, 2, 'kernelSize', nil, 1)
  local s = ints(name, stride, 2, 'stride', k, 1)
  ceilMode = A.bool(name, ceilMode, 'ceilMode', false)
  if x:size(x:dim() - 1) < k[1] or x:size(x:dim()) < k[2] then
    fail(name, 'input of size %s is smaller than the kernel %dx%d', A.shape(x), k[1], k[2])
  end
  return lp_pool(name, x, normType, function(t) return torch.avgPool2d(t, k, s, 0, ceilMode) end, k[1] * k[2])
end

--- nn.functional.adaptiveMaxPool1d(x, outputSize [, returnIndices = false]): max over outputSize
--- adaptive windows of an N x C x L (or C x L) tensor; with returnIndices also the 1-based positions.
--- Example: nn.functional.adaptiveMaxPool1d(torch.randn(1, 2, 10), 3)
function F.adaptiveMaxPool1d(x, outputSize, returnIndices)
  local name = op('adaptiveMaxPool1d')
  rank_arg(name, x, 2, 'N x C x L')
  local o = one(name, outputSize, 'outputSize', nil, 1)
  local v, i = on_rows(x, F.adaptiveMaxPool2d, { 1, o })
  if A.bool(name, returnIndices, 'returnIndices', false) then return v, i end
  return v
end

--- nn.functional.adaptiveAvgPool1d(x, outputSize): averages over outputSize adaptive windows
--- (floor((i-1)L/o) + 1 .. ceil(iL/o)) of an N x C x L (or C x L) tensor.
--- Example: nn.functional.adaptiveAvgPool1d(torch.randn(1, 2, 10), 3)
function F.adaptiveAvgPool1d(x, outputSize)
  local name = op('adaptiveAvgPool1d')
  rank_arg(name, x, 2, 'N x C x L')
  return (on_rows(x, F.adaptiveAvgPool2d, { 1, one(name, outputSize, 'outputSize', nil, 1) }))
end

return F
