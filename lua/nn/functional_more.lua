-- nn.functional's rmsNorm, pdist, tripletMarginWithDistanceLoss and the 3-D adaptive pools
-- (adaptiveAvgPool3d, adaptiveMaxPool3d), built of recorded torch ops so they are differentiable
-- on any device; the modules nn.RMSNorm, nn.TripletMarginWithDistanceLoss and
-- nn.AdaptiveAvgPool3d/AdaptiveMaxPool3d compute with them.
require 'nn.functional_act'
require 'nn.functional_fold'
require 'nn.functional_loss_margin'
local A = require 'nn.functional_args'
local lib = require 'torch.lib'
nn.functional = nn.functional or {}
local F = nn.functional
local fail = A.fail
local function op(name) return 'nn.functional.' .. name end  -- Note [Functional error names]

-- Note [RMSNorm eps]: PyTorch 2.4's rms_norm uses torch.finfo(input.dtype).eps when eps is None
-- (not LayerNorm's 1e-5): the machine epsilon of the input's floating dtype.
local MACHINE_EPS = {
  [lib.dtype.f32] = 2 ^ -23, [lib.dtype.f64] = 2 ^ -52, [lib.dtype.f16] = 2 ^ -10, [lib.dtype.bf16] = 2 ^ -7,
}
F._machineEps = function(x) return MACHINE_EPS[x.p.dtype] or 2 ^ -23 end

-- normalizedShape as a list of sizes (a number, a table or a LongStorage), checked against the
-- last dims of x when x is given.
local function shape_list(name, s, x)
  local list
  if type(s) == 'number' then list = { s }
  elseif torch.typename(s) == 'torch.LongStorage' then list = s:totable()
  elseif type(s) == 'table' and not torch.isTensor(s) then list = s end
  if not list or #list == 0 then fail(name, 'expected normalizedShape as a number or a table of sizes, got %s', nn.utils.describe(s)) end
  for _, v in ipairs(list) do
    if type(v) ~= 'number' or v ~= math.floor(v) or v < 1 then
      fail(name, 'expected normalizedShape to hold positive integers, got %s', nn.utils.describe(s))
    end
  end
  if x then
    local ok = x:dim() >= #list
    for i = 1, #list do ok = ok and x:size(x:dim() - #list + i) == list[i] end
    if not ok then
      fail(name, 'expected an input whose last dims are %s, got %s', table.concat(list, 'x'), A.shape(x))
    end
  end
  return list
end
F._shapeList = shape_list

--- nn.functional.rmsNorm(x, normalizedShape [, weight] [, eps]): x / sqrt(mean(x^2) + eps) over
--- the last #normalizedShape dims, times weight (of size normalizedShape) when given; eps defaults
--- to the machine epsilon of x's dtype (PyTorch 2.4's rms_norm, Note [RMSNorm eps]).
--- Example: nn.functional.rmsNorm(torch.randn(2, 4), 4)
function F.rmsNorm(x, normalizedShape, weight, eps)
  local name = op('rmsNorm')
  A.float(name, x, 'an input')
  local list = shape_list(name, normalizedShape, x)
  eps = A.number(name, eps, 'eps', F._machineEps(x))
  local n = x:dim() - #list
  local count = 1
  for _, v in ipairs(list) do count = count * v end
  -- one row per normalized group: the mean of squares is a column broadcast back over the row
  local flat = x:reshape(torch.LongStorage({ x:nElement() / count, count }))
  local ms = torch.mean(torch.cmul(flat, flat), 2)
  local y = torch.cmul(flat, torch.rsqrt(torch.add(ms, eps)):expandAs(flat)):viewAs(x)
  if weight ~= nil then
    A.float(name, weight, 'weight')
    if weight:nElement() ~= count then
      fail(name, 'expected weight of size %s, got %s', table.concat(list, 'x'), A.shape(weight))
    end
    local ws = {}
    for d = 1, n do ws[d] = 1 end
    for _, v in ipairs(list) do ws[#ws + 1] = v end
    y = torch.cmul(y, A.like(weight, x):reshape(torch.LongStorage(ws)):expandAs(y))
  end
  return y
end

--- nn.functional.pdist(x [, p = 2]): the p-norm distances between the rows of an N x M tensor, the
--- pairs (i, j), i < j, in row-major order: N(N-1)/2 values (PyTorch's pdist).
--- Example: nn.functional.pdist(torch.randn(4, 3))
function F.pdist(x, p)
  local name = op('pdist')
  A.float(name, x, 'an input')
  if x:dim() ~= 2 then fail(name, 'expected a 2-D input (N x M), got %s', A.shape(x)) end
  p = A.number(name, p, 'p', 2)
  if p < 0 then fail(name, 'p must be >= 0, got %g', p) end
  local n = x:size(1)
  if n < 2 then return x.new(0) end
  local pairs_ = torch.triuIndices(n, n, 1)  -- 2 x N(N-1)/2, row-major, 1-based
  if x:isCuda() then pairs_ = pairs_:to(x:device()) end
  local I, J = pairs_[1], pairs_[2]
  local diff = torch.csub(x:index(1, I), x:index(1, J))
  if p == 2 then
    -- sqrt of a sum of squares whose gradient at a zero distance is 0, as PyTorch's pdist backward
    local s = torch.sum(torch.cmul(diff, diff), 2):view(-1)
    local safe = torch.noGrad(function() return torch.eq(s, 0) end)
    local r = torch.sqrt(torch.add(s, safe:typeAs(s)))
    return torch.cmul(r, torch.noGrad(function() return torch.ne(s, 0):typeAs(s) end))
  end
  return torch.norm(diff, p, 2):view(-1)
end

--- nn.functional.tripletMarginWithDistanceLoss(anchor, positive, negative [, {distanceFunction =
--- nn.functional.pairwiseDistance, margin = 1, swap = false, reduction = 'mean'}]): max(0, margin +
--- d(a, p) - d(a, n)) with any distance function d(x1, x2) -> per-sample distances; with swap,
--- d(a, n) is min(d(a, n), d(p, n)) (PyTorch's triplet_margin_with_distance_loss).
--- Example: nn.functional.tripletMarginWithDistanceLoss(torch.randn(3, 4), torch.randn(3, 4), torch.randn(3, 4))
function F.tripletMarginWithDistanceLoss(a, pos, neg, o)
  local name = op('tripletMarginWithDistanceLoss')
  local opts, r = A.loss_options(name, o, { distanceFunction = true, margin = true, swap = true })
  A.float(name, a, 'anchor')
  A.float(name, pos, 'positive')
  A.float(name, neg, 'negative')
  if a:dim() ~= pos:dim() or a:dim() ~= neg:dim() then
    fail(name, 'anchor, positive and negative must have the same number of dims, got %s, %s and %s', A.shape(a),
      A.shape(pos), A.shape(neg))
  end
  local d = opts.distanceFunction
  if d == nil then
    d = function(x1, x2) return F.pairwiseDistance(x1, x2) end
  elseif type(d) ~= 'function' then
    fail(name, 'expected distanceFunction to be a function, got %s', nn.utils.describe(d))
  end
  local margin = A.number(name, opts.margin, 'margin', 1)
  if margin <= 0 then fail(name, 'margin must be > 0, got %g', margin) end
  local dap, dan = d(a, pos), d(a, neg)
  if not torch.isTensor(dap) or not torch.isTensor(dan) then
    fail(name, 'distanceFunction must return tensors, got %s', nn.utils.describe(dap))
  end
  if A.bool(name, opts.swap, 'swap', false) then dan = torch.cmin(dan, d(pos, neg)) end
  local l = torch.clamp(torch.add(torch.csub(dap, dan), margin), 0, math.huge)
  if a:dim() == 1 and r == 'none' and l:nElement() == 1 then return l:view(torch.LongStorage({})) end  -- one triplet: 0-dim, as PyTorch
  return A.reduce(l, r)
end

-- Note [Separable 3-D adaptive pools]: an adaptive window is a product of one 1-D adaptive window
-- per dim (start floor((i-1)L/o), end ceil(iL/o) along each), so the average (and the max) over
-- it is the 1-D adaptive average (max) applied along W, then H, then D. The 1-D pools run on the
-- input with the pooled dim moved last.
local function along(x, dim, f)
  local last = x:dim()
  local t = dim == last and x or x:transpose(dim, last)
  local lead = t:size():totable()
  local l = table.remove(lead)
  local y = f(t:reshape(torch.LongStorage({ -1, 1, l })))
  lead[#lead + 1] = y:size(3)
  y = y:view(torch.LongStorage(lead))
  return dim == last and y or y:transpose(dim, last)
end

local function sizes3(name, x, s)
  A.float(name, x, 'an input')
  if x:dim() ~= 4 and x:dim() ~= 5 then fail(name, 'expected a 4-D (C x D x H x W) or 5-D input, got %s', A.shape(x)) end
  local o = {}
  if type(s) == 'number' then o = { s, s, s }
  elseif type(s) == 'table' and #s == 3 then o = { s[1], s[2], s[3] }
  else fail(name, 'expected outputSize as a number or a table of 3 numbers, got %s', nn.utils.describe(s)) end
  for d = 1, 3 do
    if o[d] == nil or o[d] == false then o[d] = x:size(x:dim() - 3 + d) end  -- None keeps the size
    if type(o[d]) ~= 'number' or o[d] < 1 or o[d] ~= math.floor(o[d]) then
      fail(name, 'expected outputSize to hold positive integers, got %s', nn.utils.describe(s))
    end
  end
  return o
end

--- nn.functional.adaptiveAvgPool3d(x, outputSize): averages over adaptive windows of a C x D x H x W
--- (or N x C x D x H x W) tensor; outputSize a number or {d, h, w} (nil/false keeps that size).
--- Example: nn.functional.adaptiveAvgPool3d(torch.randn(1, 2, 4, 5, 6), {2, 3, 2})
function F.adaptiveAvgPool3d(x, outputSize)
  local o = sizes3(op('adaptiveAvgPool3d'), x, outputSize)
  local n = x:dim()
  local y = x
  for k = 3, 1, -1 do y = along(y, n - 3 + k, function(t) return F.adaptiveAvgPool1d(t, o[k]) end) end
  return y
end

--- nn.functional.adaptiveMaxPool3d(x, outputSize [, returnIndices = false]): the max over adaptive
--- windows of a C x D x H x W (or N x C x D x H x W) tensor; with returnIndices also the 1-based flat
--- position (in D*H*W) of each maximum.
--- Example: nn.functional.adaptiveMaxPool3d(torch.randn(1, 2, 4, 5, 6), 2)
function F.adaptiveMaxPool3d(x, outputSize, returnIndices)
  local name = op('adaptiveMaxPool3d')
  local o = sizes3(name, x, outputSize)
  local n = x:dim()
  if not returnIndices then
    local y = x
    for k = 3, 1, -1 do y = along(y, n - 3 + k, function(t) return F.adaptiveMaxPool1d(t, o[k]) end) end
    return y
  end
  -- with indices: gather every window as a column (the input reshaped per window is not regular),
  -- so the max and its flat position come from one max over the window's elements
  local D, H, W = x:size(n - 2), x:size(n - 1), x:size(n)
  local lead = {}
  for d = 1, n - 3 do lead[d] = x:size(d) end
  local flat = x:reshape(torch.LongStorage({ -1, D * H * W }))
  local function bounds(i, L, O) return math.floor((i - 1) * L / O) + 1, math.ceil(i * L / O) end
  local vals, idxs = {}, {}
  for a = 1, o[1] do
    local d0, d1 = bounds(a, D, o[1])
    for b = 1, o[2] do
      local h0, h1 = bounds(b, H, o[2])
      for c = 1, o[3] do
        local w0, w1 = bounds(c, W, o[3])
        local pos = {}
        for d = d0, d1 do for h = h0, h1 do for w = w0, w1 do pos[#pos + 1] = ((d - 1) * H + h - 1) * W + w end end end
        local p = torch.LongTensor(pos):to(x:device())
        local v, i = torch.max(flat:index(2, p), 2)
        vals[#vals + 1] = v
        idxs[#idxs + 1] = p:index(1, i:view(-1)):view(-1, 1)
      end
    end
  end
  local shape = {}
  for d = 1, n - 3 do shape[d] = lead[d] end
  shape[#shape + 1], shape[#shape + 2], shape[#shape + 3] = o[1], o[2], o[3]
  local y = torch.cat(vals, 2):view(torch.LongStorage(shape))
  local idx = torch.cat(idxs, 2):view(torch.LongStorage(shape))
  return y, idx
end

return F
