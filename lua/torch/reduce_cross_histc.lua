-- Torch7's cross, renorm and histc with their result-tensor forms (torch.f([res,] x, ...)), beside
-- the reductions of lua/torch/reduce.lua, whose helpers they share.
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local C, wrap, check, fail = lib.C, lib.wrap, lib.check, lib.fail
local describe = types.describe
local is_tensor, cdim, check_tensor = types.is_tensor, types.cdim, types.check_tensor
local methods = torch._tensor_methods
local util = torch._reduce_util
local check_number = util.check_number

-- Note [cross broadcasts]: PyTorch 1.13's torch.cross is linalg.cross with Torch7's default dim:
-- a and b have one number of dims and their sizes broadcast, except along dim, where both must
-- have size 3; without dim it is a's first dim of size 3 (PyTorch warns that leaving dim out is
-- deprecated; Torch7 code relies on it, so no warning here). Equal sizes go straight to C.
local function cross_broadcast(a, b, dim)
  local ap, bp = a.p, b.p
  local n = ap.ndim
  local same = n == bp.ndim
  if same then
    for i = 0, n - 1 do
      if ap.size[i] ~= bp.size[i] then same = false break end
    end
  end
  if same then return a, b, dim end
  if n ~= bp.ndim then
    fail('cross', 'a and b must have the same number of dims, got %s and %s', describe(a), describe(b))
  end
  local d = dim  -- 0-based (negative counts from the end)
  if d ~= nil and d < 0 then d = d + n end
  if d == nil then
    for i = 0, n - 1 do
      if ap.size[i] == 3 then d = i break end
    end
    if d == nil then fail('cross', 'no dimension of size 3 in a (%s)', describe(a)) end
  end
  if ap.size[d] ~= 3 or bp.size[d] ~= 3 then
    fail('cross', 'dim %d must have size 3 in both inputs, got %s and %s', d + 1, describe(a), describe(b))
  end
  local shape = {}
  for i = 0, n - 1 do
    local sa, sb = tonumber(ap.size[i]), tonumber(bp.size[i])
    if sa ~= sb and sa ~= 1 and sb ~= 1 then
      fail('cross', 'the sizes of a (%s) and b (%s) do not broadcast (dim %d)', describe(a), describe(b), i + 1)
    end
    shape[i + 1] = sa == 1 and sb or sa
  end
  shape = torch.LongStorage(shape)
  return a:expand(shape), b:expand(shape), d
end

local function cross_apply(res, a, b, dim)
  check_tensor('cross', a, res and 2 or 1)
  check_tensor('cross', b, res and 3 or 2)
  local d
  if dim ~= nil then d = cdim('cross', dim, a.p.ndim) end
  a, b, d = cross_broadcast(a, b, d)
  local has = d == nil and 0 or 1
  if res then check(C.tocha_cross_out(res.p, a.p, b.p, has, d or 0)) return res end
  return (wrap(C.tocha_cross(a.p, b.p, has, d or 0)))
end
--- torch.cross([res,] a, b [, dim]): the cross product of the 3-vectors of a and b along dim
--- (1-based; by default a's first dim of size 3), a new tensor, or res resized and filled. a and
--- b have one number of dims and sizes that broadcast (both of size 3 along dim), as in PyTorch
--- 1.13 (Note [cross broadcasts]). a:cross(b [, dim]) is the same.
--- Example: torch.cross(torch.Tensor({1, 0, 0}), torch.Tensor({0, 1, 0}))
function torch.cross(...)
  if util.leading_tensors(...) >= 3 then return (cross_apply(...)) end
  return (cross_apply(nil, ...))
end
methods.cross = torch.cross

-- torch.renorm([res,] x, p, dim, maxnorm); x:renorm(p, dim, maxnorm) works in place (Torch7).
local function renorm_apply(res, x, p, dim, maxnorm)
  check_tensor('renorm', x, res and 2 or 1)
  check_number('renorm', p, 'p')
  check_number('renorm', maxnorm, 'maxnorm')
  local d = cdim('renorm', dim, x.p.ndim)
  if res then check(C.tocha_renorm_out(res.p, x.p, p, d, maxnorm)) return res end
  return (wrap(C.tocha_renorm(x.p, p, d, maxnorm)))
end
--- torch.renorm([res,] x, p, dim, maxnorm): a new tensor (or res filled) where each slice of x
--- along dim (x:select(dim, i), dim 1-based) whose p-norm exceeds maxnorm is scaled down to norm
--- maxnorm; the other slices are copied unchanged. The method x:renorm(p, dim, maxnorm) changes
--- x in place.
--- Example: torch.renorm(torch.Tensor({{3, 4}, {1, 0}}), 2, 1, 1)
function torch.renorm(a1, a2, ...)
  if is_tensor(a2) then return (renorm_apply(a1, a2, ...)) end
  return (renorm_apply(nil, a1, a2, ...))
end
function methods.renorm(self, a1, ...)
  if is_tensor(a1) then return (renorm_apply(self, a1, ...)) end
  return (renorm_apply(self, self, a1, ...))
end
methods.renorm_ = methods.renorm

-- torch.histc([res,] x [, nbins [, min [, max]]]): 100 bins over the data's range by default.
local function histc_apply(res, x, nbins, lo, hi)
  check_tensor('histc', x, res and 2 or 1)
  nbins = check_number('histc', nbins == nil and 100 or nbins, 'nbins')
  lo = check_number('histc', lo == nil and 0 or lo, 'min')
  hi = check_number('histc', hi == nil and 0 or hi, 'max')
  if res then check(C.tocha_histc_out(res.p, x.p, nbins, lo, hi)) return res end
  return (wrap(C.tocha_histc(x.p, nbins, lo, hi)))
end
--- torch.histc([res,] x [, nbins [, min [, max]]]): a histogram of x's values: a new 1D tensor of
--- the default floating type (or res filled) counting the elements in each of nbins (default
--- 100) equal-width bins from min to max. When min and max are equal (both 0 by default) the
--- range is x's smallest to largest value; values outside the range are not counted.
--- Example: torch.histc(torch.Tensor({1, 2, 2, 3}), 3)
function torch.histc(a1, a2, ...)
  if is_tensor(a2) then return (histc_apply(a1, a2, ...)) end
  return (histc_apply(nil, a1, a2, ...))
end
methods.histc = torch.histc

return torch
