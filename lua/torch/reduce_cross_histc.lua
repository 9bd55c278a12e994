-- Torch7's cross, renorm and histc with their result-tensor forms (torch.f([res,] x, ...)), beside
-- the reductions of lua/torch/reduce.lua, whose helpers they share.
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local C, wrap, check = lib.C, lib.wrap, lib.check
local is_tensor, cdim, check_tensor = types.is_tensor, types.cdim, types.check_tensor
local methods = torch._tensor_methods
local util = torch._reduce_util
local check_number = util.check_number

local function cross_apply(res, a, b, dim)
  check_tensor('cross', a, 1)
  check_tensor('cross', b, 2)
  local has, d = 0, 0
  if dim ~= nil then has, d = 1, cdim('cross', dim, a.p.ndim) end
  if res then check(C.tocha_cross_out(res.p, a.p, b.p, has, d)) return res end
  return (wrap(C.tocha_cross(a.p, b.p, has, d)))
end
--- torch.cross([res,] a, b [, dim]): the cross product of the 3-vectors of a and b along dim
--- (1-based; by default the first dim of size 3), a new tensor of a's size, or res resized and
--- filled. a:cross(b [, dim]) is the same.
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
