-- torch.histogramdd (PyTorch's): the D-dimensional histogram of the points in the rows of a
-- (..., D) tensor, from tensor ops (searchsorted for the bins, bincount for the counts), so it
-- runs on every device.
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local fail, describe, is_tensor = lib.fail, types.describe, types.is_tensor
local OP = 'histogramdd'

-- Note [histogramdd bins]: as PyTorch, a bin is closed on the left and open on the right except
-- the last of each dim, closed on both sides; points outside the edges or with a NaN coordinate
-- are not counted. Bins are found by searching the edges (the rule PyTorch's linear search
-- corrects to), for equal-width and given edges alike. Without a range the edges span each
-- coordinate's smallest to largest value, widened by 0.5 each way when they are equal, and
-- [0, 1] when there are no points (PyTorch's, and torch.histogram's). Not differentiable
-- (PyTorch's histogramdd has no derivative either).
-- Note [histogramdd devices]: the masks and bin numbers are built from comparisons and
-- searchsorted on x's device; x:byte() or x:long() would move a CUDA tensor to the CPU
-- (Torch7's conversions) and the ops that combine them would then mix devices.

local function is_plain(t) return type(t) == 'table' and getmetatable(t) == nil end

local function count_arg(v, d)
  if type(v) ~= 'number' or v ~= math.floor(v) or v < 1 or v >= 2 ^ 40 then
    fail(OP, 'bins must be positive integers, got %s for dim %d', type(v) == 'number' and tostring(v) or describe(v), d)
  end
  return v
end

-- range as {min1, max1, min2, max2, ...} (PyTorch's flat form) or {{min1, max1}, ...}.
local function read_range(r, D)
  if not is_plain(r) then
    fail(OP, 'range must be a table of %d numbers (min and max per dim), got %s', 2 * D, describe(r))
  end
  local flat = {}
  for _, v in ipairs(r) do
    if is_plain(v) then flat[#flat + 1], flat[#flat + 2] = v[1], v[2] else flat[#flat + 1] = v end
  end
  if #flat ~= 2 * D then
    fail(OP, 'range must hold %d numbers (min and max for each of %d dims), got %d', 2 * D, D, #flat)
  end
  for i, v in ipairs(flat) do
    if type(v) ~= 'number' then fail(OP, 'range entry %d must be a number, got %s', i, describe(v)) end
  end
  return flat
end

-- Edges of dim d: n + 1 equal-width edges from lo to hi in x's type.
local function uniform_edges(x, d, n, lo, hi)
  if lo ~= lo or hi ~= hi or math.abs(lo) == math.huge or math.abs(hi) == math.huge then
    fail(OP, 'range of [%s, %s] is not finite for dim %d', tostring(lo), tostring(hi), d)
  end
  if lo > hi then fail(OP, 'min should not exceed max, got min %g and max %g for dim %d', lo, hi, d) end
  if lo == hi then lo, hi = lo - 0.5, hi + 0.5 end
  -- in x's precision, not the default type's: float edges for a DoubleTensor merged
  -- 1e10, 1e10 + 0.5 and 1e10 + 1 and lost points
  local tn = x:type()
  local double = tn == 'torch.DoubleTensor' or tn == 'torch.CudaDoubleTensor'
  local res = double and torch.DoubleTensor() or torch.FloatTensor()
  return torch.linspace(res, lo, hi, n + 1):type(tn)
end

--- torch.histogramdd(x, bins [, {range = {min1, max1, ...}, weight = w, density = false}]): hist,
--- edges: the histogram of the N points in the rows of x (..., D) (Float or Double; leading dims
--- are flattened) and a table of the D tensors of bin edges. bins is one count for every dim, a
--- table of D counts, or a table of D 1-D tensors of increasing edges; range (2 D numbers, or D
--- pairs) bounds the equal-width bins (default: the data's min and max per dim); weight (N
--- values, or x's leading shape) replaces each point's 1; density divides by the total and each
--- bin's volume. Bins are closed on the left, the last on both sides (Note [histogramdd bins]).
--- Example: torch.histogramdd(torch.Tensor({{0, 0}, {1, 1}, {1, 1}, {2, 2}}), 2)
function torch.histogramdd(x, bins, opts)
  if not is_tensor(x) then fail(OP, 'expected the input to be a tensor, got %s', describe(x)) end
  local tn = x:type()
  if tn ~= 'torch.FloatTensor' and tn ~= 'torch.DoubleTensor' and tn ~= 'torch.CudaTensor'
     and tn ~= 'torch.CudaDoubleTensor' then
    fail(OP, 'the input must be a Float or Double tensor, got %s', describe(x))
  end
  if x:dim() < 2 then fail(OP, 'the input must have at least 2 dims (..., D), got %s', describe(x)) end
  if opts ~= nil and not is_plain(opts) then fail(OP, 'options must be a table, got %s', describe(opts)) end
  opts = opts or {}
  for k in pairs(opts) do
    if k ~= 'range' and k ~= 'weight' and k ~= 'density' then
      fail(OP, "unknown option '%s' (expected range, weight, density)", tostring(k))
    end
  end
  local D = x:size(x:dim())
  local pts = x:detach():contiguous():view(-1, D)
  local N = pts:size(1)
  -- the edges of each dim
  local edges = {}
  if is_plain(bins) and is_tensor(bins[1]) then
    if #bins ~= D then fail(OP, 'bins holds %d edge tensors but the input has %d dims (its last dim)', #bins, D) end
    if opts.range ~= nil then fail(OP, 'range cannot be given with edge tensors as bins') end
    for d, e in ipairs(bins) do
      if not is_tensor(e) or e:dim() ~= 1 or e:nElement() < 2 then
        fail(OP, 'bins[%d] must be a 1-D tensor of at least 2 edges (one bin), got %s', d, describe(e))
      end
      e = e:type(tn)
      if e:nElement() > 1 and torch.lt(e:narrow(1, 2, e:nElement() - 1), e:narrow(1, 1, e:nElement() - 1)):any() then
        fail(OP, 'the edges in bins[%d] must be increasing', d)
      end
      edges[d] = e
    end
  else
    local counts = {}
    if type(bins) == 'number' then
      for d = 1, D do counts[d] = count_arg(bins, d) end
    elseif is_plain(bins) then
      if #bins ~= D then fail(OP, 'bins holds %d counts but the input has %d dims (its last dim)', #bins, D) end
      for d = 1, D do counts[d] = count_arg(bins[d], d) end
    else
      fail(OP, 'bins must be a number, a table of counts or a table of edge tensors, got %s', describe(bins))
    end
    local r = opts.range and read_range(opts.range, D)
    local lo, hi
    if not r and N > 0 then
      lo, hi = torch.min(pts, 1):view(-1), torch.max(pts, 1):view(-1)
    end
    for d = 1, D do
      local a, b = 0, 0
      if r then a, b = r[2 * d - 1], r[2 * d] elseif N > 0 then a, b = lo[d], hi[d] else a, b = 0, 1 end
      edges[d] = uniform_edges(pts, d, counts[d], a, b)
    end
  end
  -- the bin of each point along each dim, and the points inside every dim's edges
  local shape, total = {}, 1
  for d = 1, D do
    shape[d] = edges[d]:nElement() - 1
    total = total * shape[d]
  end
  local weight = opts.weight
  if weight ~= nil then
    if not is_tensor(weight) or weight:nElement() ~= N then
      fail(OP, 'weight must be a tensor of %d elements (one per point), got %s', N, describe(weight))
    end
    weight = weight:detach():contiguous():view(-1):type(tn)
  end
  local density = opts.density
  if density ~= nil and type(density) ~= 'boolean' then
    fail(OP, 'density must be a boolean, got %s', describe(density))
  end
  local hist
  if total == 0 or N == 0 then
    hist = pts.new(torch.LongStorage({ total })):zero()
  else
    local inside, linear  -- Note [histogramdd devices]
    local stride = total
    for d = 1, D do
      local e, v = edges[d], pts:select(2, d)
      local n = shape[d]
      stride = stride / n
      local bin = torch.searchsorted(e, v, true) - 2  -- 0-based: (# edges <= v) - 1
      bin = torch.clamp(bin, 0, math.max(n - 1, 0))  -- the last edge belongs to the last bin
      local within = torch.logicalAnd(torch.ge(v, e[1]), torch.le(v, e[e:nElement()]))
      inside = inside and torch.logicalAnd(inside, within) or within
      linear = linear and linear + bin * stride or bin * stride
    end
    local w = weight and torch.where(inside, weight, 0) or inside:type(tn)
    hist = torch.bincount(torch.where(inside, linear, 0), w, total):type(tn)
  end
  hist = hist:view(torch.LongStorage(shape))
  if density then
    hist = hist / hist:sum()
    for d = 1, D do
      local e = edges[d]
      local widths = e:narrow(1, 2, shape[d]) - e:narrow(1, 1, shape[d])
      local vshape = {}
      for k = 1, D do vshape[k] = k == d and shape[d] or 1 end
      hist = torch.cdiv(hist, widths:view(torch.LongStorage(vshape)))
    end
  end
  return hist, edges
end
