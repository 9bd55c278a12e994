-- optim.checkgrad: compares opfunc's gradient with central finite differences.
local lib = require 'torch.lib'
local cfg = require 'optim.config'

-- The n-th element (1-based, row-major) of x as an index table for x[{...}] (any strides).
local function index_of(x, n)
  local idx, rem = {}, n - 1
  for d = x:dim(), 1, -1 do
    local s = x:size(d)
    idx[d] = rem % s + 1
    rem = math.floor(rem / s)
  end
  return idx
end

--- optim.checkgrad(opfunc, x[, eps]): the relative error |dC - dC_est| / |dC + dC_est| between the
--- gradient opfunc(x) returns and central differences with step eps (1e-7; use double tensors);
--- also returns both gradients. x is restored afterwards; it may be a non-contiguous view (each
--- element is perturbed in place, where opfunc reads it).
--- Example: optim.checkgrad(function(x) return x:dot(x), x * 2 end, torch.DoubleTensor{1, 2})
function optim.checkgrad(opfunc, x, eps)
  eps = eps or 1e-7
  if type(eps) ~= 'number' or not (eps > 0) then lib.fail('optim.checkgrad', 'eps must be positive, got %s', tostring(eps)) end
  local _, g = cfg.evaluate('checkgrad', opfunc, x)
  local dC = g:clone():view(x:size())
  local dC_est = dC.new(dC:size())
  local ef = dC_est:view(-1)
  -- Note [checkgrad on views]: x:view(-1) refuses a non-contiguous x (a transposed weight),
  -- which Torch7's x[i] indexing took; such an x is addressed element by element instead.
  local xf = x:isContiguous() and x:view(-1) or nil
  local function get(i) if xf then return xf[i] end return x[index_of(x, i)] end
  local function set(i, v) if xf then xf[i] = v else x[index_of(x, i)] = v end end
  for i = 1, x:nElement() do
    local v = get(i)
    set(i, v + eps)
    local C1 = cfg.number((opfunc(x)))
    set(i, v - eps)
    local C2 = cfg.number((opfunc(x)))
    set(i, v)
    ef[i] = (C1 - C2) / (2 * eps)
  end
  local diff = torch.norm(dC - dC_est) / torch.norm(dC + dC_est)
  return diff, dC, dC_est
end
