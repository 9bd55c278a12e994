-- PyTorch's order statistics, counts and pairwise statistics: torch.quantile, nanquantile,
-- bincount, histogram, cov, corrcoef, trapezoid/trapz, cumulativeTrapezoid, cdist, pdist,
-- cosineSimilarity and pairwiseDistance, in C (core/ops/quantile.cpp, histogram.cpp,
-- stats_pairwise.cpp). Dims are 1-based; keyword arguments come in a table; Note [Stats keepdim]
-- in stats.lua. Each returns new tensors, and so do the methods.
local ffi = require 'ffi'
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
require 'torch.stats'
local C, wrap, check, fail = lib.C, lib.wrap, lib.check, lib.fail
local is_tensor, describe, cdim, check_tensor = types.is_tensor, types.describe, types.cdim, types.check_tensor
local methods = torch._tensor_methods
local S = torch._stats_util

local out_a, out_b = ffi.new('tocha_tensor *[1]'), ffi.new('tocha_tensor *[1]')
local function is_opts(v) return type(v) == 'table' and getmetatable(v) == nil end
-- Options tables: Note [Unknown options] (lua/torch/types.lua).
local check_opts = types.check_option_keys
local function number(op, v, what, default)
  if v == nil then return default end
  if type(v) ~= 'number' then fail(op, '%s must be a number, got %s', what, describe(v)) end
  return v
end
local function opt_tensor(op, v, what)
  if v == nil then return nil end
  if not is_tensor(v) then fail(op, '%s must be a tensor, got %s', what, describe(v)) end
  return v.p
end

-- quantile(x, q [, dim [, keepdim [, interpolation]]]) or (x, q, {dim=, keepdim=, interpolation=})
local function quantile(op, skip, x, q, dim, keepdim, interpolation)
  check_tensor(op, x, 1)
  if is_opts(dim) then
    if keepdim ~= nil then fail(op, 'options given in a table take no further arguments') end
    check_opts(op, dim, 'dim', 'keepdim', 'interpolation')
    dim, keepdim, interpolation = dim.dim, dim.keepdim, dim.interpolation
  end
  keepdim = S.check_bool(op, keepdim, 'keepdim')
  interpolation = interpolation == nil and 'linear' or interpolation
  if type(interpolation) ~= 'string' then fail(op, 'interpolation must be a string, got %s', describe(interpolation)) end
  local qt
  if type(q) == 'number' then
    qt = torch.DoubleTensor(1):fill(q):view({})
  elseif is_opts(q) then
    for i = 1, #q do
      if type(q[i]) ~= 'number' then fail(op, 'q[%d] must be a number, got %s', i, describe(q[i])) end
    end
    qt = torch.DoubleTensor(q)
  elseif is_tensor(q) then
    qt = q
  else
    fail(op, 'q must be a number, a table of numbers or a tensor, got %s', describe(q))
  end
  -- q given as numbers goes to x's device (a q tensor must be there already, as in PyTorch)
  if not is_tensor(q) and x.p.device_type ~= 0 then qt = qt:to(x:device()) end
  local has, d = 0, 0
  if dim ~= nil then has, d = 1, cdim(op, dim, x.p.ndim) end
  local r = wrap(C.tocha_quantile(x.p, qt.p, has, d, keepdim and 1 or 0, interpolation, skip))
  if dim == nil and not keepdim and type(q) == 'number' then return (S.value(x, r)) end
  return r
end
--- torch.quantile(x, q [, dim [, keepdim [, interpolation]]]): the q-th quantiles of x (Float
--- or Double) along dim (1-based), or of all its elements without dim. q is a probability in
--- [0, 1] (then dim is removed unless keepdim, and without dim the result is a Lua number), or
--- a table or 1-D tensor of them (a leading dim of that size). interpolation between the two
--- order statistics around rank q (n - 1): 'linear' (default), 'lower', 'higher', 'midpoint'
--- or 'nearest' (half to even, as PyTorch). A slice holding NaN gives NaN. Options may come as a
--- table: torch.quantile(x, {0.25, 0.75}, {dim = 2, interpolation = 'lower'}). Differentiable.
--- x:quantile(...) is the same.
--- Example: torch.quantile(torch.Tensor({{1, 2, 3, 4}, {4, 3, 2, 1}}), 0.5, 2)
function torch.quantile(x, q, dim, keepdim, interpolation)
  return (quantile('quantile', 0, x, q, dim, keepdim, interpolation))
end
methods.quantile = torch.quantile
--- torch.nanquantile(x, q [, dim [, keepdim [, interpolation]]]): torch.quantile ignoring NaN
--- elements (NaN for a slice with no numbers). x:nanquantile(...) is the same.
--- Example: torch.nanquantile(torch.Tensor({1, 0/0, 3}), 0.5)
function torch.nanquantile(x, q, dim, keepdim, interpolation)
  return (quantile('nanquantile', 1, x, q, dim, keepdim, interpolation))
end
methods.nanquantile = torch.nanquantile

--- torch.bincount(x [, weights [, minlength = 0]]): the number of occurrences of each value
--- 0, 1, ..., max(x) in the 1-D non-negative integer tensor x (values count from 0, as in
--- PyTorch: they are counts, not indices), a LongTensor of max(max(x) + 1, minlength) elements;
--- with weights (x's size) the sum of each value's weights instead (the weights' type when
--- floating, else a DoubleTensor). CPU and CUDA. x:bincount(...) is the same.
--- Example: torch.bincount(torch.LongTensor({0, 2, 2, 5}))
function torch.bincount(x, weights, minlength)
  check_tensor('bincount', x, 1)
  if is_opts(weights) then
    if minlength ~= nil then fail('bincount', 'options given in a table take no further arguments') end
    check_opts('bincount', weights, 'weights', 'minlength')
    weights, minlength = weights.weights, weights.minlength
  end
  if type(weights) == 'number' and minlength == nil then weights, minlength = nil, weights end
  minlength = number('bincount', minlength, 'minlength', 0)
  if minlength ~= math.floor(minlength) or minlength >= 2 ^ 62 then
    fail('bincount', 'minlength must be an integer, got %s', tostring(minlength))
  end
  return (wrap(C.tocha_bincount(x.p, opt_tensor('bincount', weights, 'weights'), minlength)))
end
methods.bincount = torch.bincount

--- torch.histogram(x, bins [, {range = {min, max}, weight = w, density = false}]): the histogram
--- of x's elements (Float or Double) and its bin edges, two new tensors. bins is a count of equal
--- bins over range (default: x's smallest to largest value, widened by 0.5 each way when they are
--- equal) or a 1-D tensor of increasing edges. Bins are closed on the left, the last one on both
--- sides; elements outside are not counted. weight (x's size) replaces each element's 1; density
--- divides each bin by the total and its width. x:histogram(...) is the same.
--- Example: torch.histogram(torch.Tensor({1, 2, 1, 4}), 3)
function torch.histogram(x, bins, opts)
  check_tensor('histogram', x, 1)
  if opts ~= nil and not is_opts(opts) then fail('histogram', 'options must be a table, got %s', describe(opts)) end
  opts = check_opts('histogram', opts or {}, 'range', 'weight', 'density')
  local nb, edges = 0, nil
  if type(bins) == 'number' then
    if bins ~= math.floor(bins) or bins < 1 or bins >= 2 ^ 40 then
      fail('histogram', 'bins must be a positive integer, got %s', tostring(bins))
    end
    nb = bins
  elseif is_tensor(bins) then
    edges = bins.p
  else
    fail('histogram', 'bins must be a number or a tensor of edges, got %s', describe(bins))
  end
  local has, lo, hi = 0, 0, 0
  if opts.range ~= nil then
    local r = opts.range
    if not is_opts(r) or type(r[1]) ~= 'number' or type(r[2]) ~= 'number' then
      fail('histogram', 'range must be a table {min, max} of numbers, got %s', describe(r))
    end
    has, lo, hi = 1, r[1], r[2]
  end
  local density = S.check_bool('histogram', opts.density, 'density')
  check(C.tocha_histogram(x.p, nb, edges, has, lo, hi, opt_tensor('histogram', opts.weight, 'weight'),
                          density and 1 or 0, out_a, out_b))
  return wrap(out_a[0]), wrap(out_b[0])
end
methods.histogram = torch.histogram

--- torch.cov(x [, {correction = 1, fweights = f, aweights = a}]): the covariance matrix of the
--- variables in the rows of x (a 1-D x is one variable: a 0-dim result) over the observations in
--- its columns. fweights (integer, one per observation) repeat observations, aweights (floating)
--- weigh them; the sum is divided by max(0, N - correction) with PyTorch's weighted N.
--- Differentiable. x:cov(...) is the same.
--- Example: torch.cov(torch.Tensor({{1, 2, 3}, {2, 2, 5}}))
function torch.cov(x, opts)
  check_tensor('cov', x, 1)
  if opts ~= nil and not is_opts(opts) then fail('cov', 'options must be a table, got %s', describe(opts)) end
  opts = check_opts('cov', opts or {}, 'correction', 'fweights', 'aweights')
  local correction = number('cov', opts.correction, 'correction', 1)
  return (wrap(C.tocha_cov(x.p, correction, opt_tensor('cov', opts.fweights, 'fweights'),
                           opt_tensor('cov', opts.aweights, 'aweights'))))
end
methods.cov = torch.cov

--- torch.corrcoef(x): Pearson's correlation coefficients of the rows of x (variables) over its
--- columns (observations), clipped to [-1, 1]. Differentiable. x:corrcoef() is the same.
--- Example: torch.corrcoef(torch.Tensor({{1, 2, 3}, {3, 1, 2}}))
function torch.corrcoef(x)
  check_tensor('corrcoef', x, 1)
  return (wrap(C.tocha_corrcoef(x.p)))
end
methods.corrcoef = torch.corrcoef

-- (y [, x | dx] [, dim]) or (y [, x], {dx=, dim=})
local function trapezoid(op, cumulative, y, a2, a3)
  check_tensor(op, y, 1)
  local x, dx, dim = nil, 1, -1
  if is_tensor(a2) then
    x = a2
  elseif type(a2) == 'number' then
    dx = a2
  elseif is_opts(a2) then
    if a3 ~= nil then fail(op, 'options given in a table take no further arguments') end
    a3 = a2
  elseif a2 ~= nil then
    fail(op, 'expected sample points x (a tensor) or a spacing dx (a number), got %s', describe(a2))
  end
  if is_opts(a3) then
    check_opts(op, a3, 'x', 'dx', 'dim')
    if a3.x ~= nil then x = a3.x end
    if a3.dx ~= nil then
      if x ~= nil then fail(op, 'give either x or dx, not both') end
      dx = number(op, a3.dx, 'dx')
    end
    if a3.dim ~= nil then dim = a3.dim end
  elseif a3 ~= nil then
    dim = a3
  end
  if x ~= nil and not is_tensor(x) then fail(op, 'x must be a tensor, got %s', describe(x)) end
  if y.p.ndim == 0 then fail(op, 'expected y with at least one dimension, got a 0-dim tensor') end
  local d = cdim(op, dim, y.p.ndim)
  -- Note [trapezoid broadcasting]: PyTorch broadcasts sample points of several dims against y
  -- (x of size 1 x n for y of size m x n); the C kernel takes y's size, so expand x to it.
  if x ~= nil and x.p.ndim > 1 and x.p.ndim <= y.p.ndim and not x:isSameSizeAs(y) then
    local ok, xe = pcall(torch.broadcastTo, x, y:size())
    if ok then x = xe end
  end
  return (wrap(C.tocha_trapezoid(y.p, x and x.p or nil, dx, d, cumulative)))
end
--- torch.trapezoid(y [, x | dx] [, dim = -1]): the integral of y along dim (1-based) by the
--- trapezoid rule, at sample points x (a 1-D tensor of y's size along dim, or a tensor of y's
--- size or one that broadcasts to it) or with spacing dx (a number, default 1); options may
--- come as a table torch.trapezoid(y, {dx = 0.5, dim = 1}). dim is removed. Differentiable.
--- torch.trapz is the same.
--- Example: torch.trapezoid(torch.Tensor({1, 2, 3}), torch.Tensor({0, 1, 3}))
function torch.trapezoid(y, a2, a3) return (trapezoid('trapezoid', 0, y, a2, a3)) end
--- torch.trapz(y [, x | dx] [, dim = -1]): torch.trapezoid (PyTorch's older name).
--- Example: torch.trapz(torch.Tensor({1, 2, 3}), 2)
function torch.trapz(y, a2, a3) return (trapezoid('trapezoid', 0, y, a2, a3)) end
--- torch.cumulativeTrapezoid(y [, x | dx] [, dim = -1]): the running trapezoid integrals of y
--- along dim, one fewer than y has there (PyTorch's cumulative_trapezoid). Differentiable.
--- Example: torch.cumulativeTrapezoid(torch.Tensor({1, 2, 3}), 2)
function torch.cumulativeTrapezoid(y, a2, a3) return (trapezoid('cumulativeTrapezoid', 1, y, a2, a3)) end

--- torch.cdist(x1, x2 [, p = 2]): the p-norm distances between each row of x1 (..., P, M) and
--- each row of x2 (..., R, M), a new (..., P, R) tensor; batch dims broadcast. p >= 0: 0 counts
--- differing coordinates, math.huge is the largest difference. Floating-point tensors of one
--- type. Differentiable (0 where a distance is 0, as PyTorch).
--- Example: torch.cdist(torch.Tensor({{0, 0}, {1, 1}}), torch.Tensor({{1, 0}}))
function torch.cdist(x1, x2, p)
  check_tensor('cdist', x1, 1)
  check_tensor('cdist', x2, 2)
  if is_opts(p) then p = check_opts('cdist', p, 'p').p end
  x1, x2 = torch._autocastF32(x1), torch._autocastF32(x2)  -- Note [Autocast]: CUDA's f32 list
  return (wrap(C.tocha_cdist(x1.p, x2.p, number('cdist', p, 'p', 2))))
end

--- torch.pdist(x [, p = 2]): the p-norm distances between the rows of x (N x M) for each pair
--- i < j, in row-major order: a 1-D tensor of N (N - 1) / 2 values. Differentiable.
--- Example: torch.pdist(torch.Tensor({{0, 0}, {1, 1}, {3, 0}}))
function torch.pdist(x, p)
  check_tensor('pdist', x, 1)
  x = torch._autocastF32(x)  -- Note [Autocast]: CUDA's f32 list
  return (wrap(C.tocha_pdist(x.p, number('pdist', p, 'p', 2))))
end

--- torch.cosineSimilarity(x1, x2 [, dim [, eps = 1e-8]]): the cosine of the angle between x1 and
--- x2 (floating-point, broadcast) along dim: sum(x1 x2) / sqrt(max(|x1|^2, eps^2) max(|x2|^2,
--- eps^2)), dim removed. dim defaults to 2 (PyTorch's dim=1), or 1 for vectors. Differentiable,
--- the clamps invisible to the gradient as in PyTorch 1.13; nn.functional.cosineSimilarity.
--- Example: torch.cosineSimilarity(torch.Tensor({{1, 0}, {1, 1}}), torch.Tensor({{1, 0}, {-1, 1}}))
function torch.cosineSimilarity(x1, x2, dim, eps)
  check_tensor('cosineSimilarity', x1, 1)
  check_tensor('cosineSimilarity', x2, 2)
  if is_opts(dim) then
    check_opts('cosineSimilarity', dim, 'dim', 'eps')
    dim, eps = dim.dim, dim.eps
  end
  local nd = math.max(x1.p.ndim, x2.p.ndim)
  if nd == 0 then fail('cosineSimilarity', 'expected tensors with at least one dimension') end
  local d = cdim('cosineSimilarity', dim == nil and (nd == 1 and 1 or 2) or dim, nd)
  x1, x2 = torch._autocastF32(x1), torch._autocastF32(x2)  -- Note [Autocast]: CUDA's f32 list
  return (wrap(C.tocha_cosine_similarity(x1.p, x2.p, d, number('cosineSimilarity', eps, 'eps', 1e-8))))
end

--- torch.pairwiseDistance(x1, x2 [, p = 2 [, eps = 1e-6 [, keepdim = false]]]): the p-norm of
--- x1 - x2 + eps along the last dim (x1 and x2 broadcast), that dim removed unless keepdim
--- (PyTorch's pairwise_distance; nn.PairwiseDistance without eps). Differentiable.
--- Example: torch.pairwiseDistance(torch.Tensor({{0, 0}, {3, 4}}), torch.Tensor({{1, 0}, {0, 0}}))
function torch.pairwiseDistance(x1, x2, p, eps, keepdim)
  check_tensor('pairwiseDistance', x1, 1)
  check_tensor('pairwiseDistance', x2, 2)
  if is_opts(p) then
    check_opts('pairwiseDistance', p, 'p', 'eps', 'keepdim')
    p, eps, keepdim = p.p, p.eps, p.keepdim
  end
  keepdim = S.check_bool('pairwiseDistance', keepdim, 'keepdim')
  return (wrap(C.tocha_pairwise_distance(x1.p, x2.p, number('pairwiseDistance', p, 'p', 2),
                                         number('pairwiseDistance', eps, 'eps', 1e-6), keepdim and 1 or 0)))
end

return torch
