-- torch.distributions.bijectTo and transformTo (PyTorch's biject_to / transform_to): the
-- transform from unconstrained reals onto a constraint's set, looked up by the constraint's kind.
local torch = require 'torch.env'
local util = require 'torch.distributions.util'
local D = torch.distributions
local T = D.transforms

-- kind -> factory(constraint) -> transform, one table per registry.
local registries = { bijectTo = {}, transformTo = {} }

local function register(which, kind, factory)
  local op = 'distributions.register' .. which:sub(1, 1):upper() .. which:sub(2)
  if type(kind) == 'table' then kind = kind.kind end
  if type(kind) ~= 'string' then util.fail(op, 'expected a constraint or its kind (a string), got %s', util.describe(kind)) end
  if type(factory) ~= 'function' then util.fail(op, 'factory must be a function, got %s', util.describe(factory)) end
  registries[which][kind] = factory
end
--- torch.distributions.registerBijectTo(kind, factory): makes bijectTo(c) return factory(c) for
--- constraints c of that kind (a string such as 'greaterThan', or a constraint whose kind is used).
--- Example: torch.distributions.registerBijectTo('simplex', function(c) return torch.distributions.StickBreakingTransform() end)
function D.registerBijectTo(kind, factory) register('bijectTo', kind, factory) end
--- torch.distributions.registerTransformTo(kind, factory): the same for transformTo.
--- Example: torch.distributions.registerTransformTo('simplex', function(c) return torch.distributions.SoftmaxTransform() end)
function D.registerTransformTo(kind, factory) register('transformTo', kind, factory) end

local function lookup(which, c)
  local op = 'distributions.' .. which
  if type(c) ~= 'table' or type(c.check) ~= 'function' then util.fail(op, 'expected a constraint, got %s', util.describe(c)) end
  local f = c.kind and registries[which][c.kind]
  if not f then util.fail(op, 'cannot transform %s constraints (%s)', tostring(c.kind or 'unnamed'), c.desc or '?') end
  return f(c)
end
--- torch.distributions.bijectTo(constraint): a bijective transform from the unconstrained reals
--- onto the constraint's set (for HMC-like samplers: its logAbsDetJacobian exists), e.g. Exp then
--- Affine(lowerBound, 1) for greaterThan; an error for the kinds PyTorch registers none for.
--- Example: torch.distributions.bijectTo(torch.distributions.constraints.positive)(torch.zeros(2))
function D.bijectTo(c) return lookup('bijectTo', c) end
--- torch.distributions.transformTo(constraint): a transform from the unconstrained reals onto the
--- constraint's set, not necessarily bijective (for optimization: Softmax for the simplex).
--- Example: torch.distributions.transformTo(torch.distributions.constraints.simplex)(torch.zeros(3))
function D.transformTo(c) return lookup('transformTo', c) end

local function both(kind, f)
  register('bijectTo', kind, f)
  register('transformTo', kind, f)
end

both('real', function() return T.identityTransform end)
register('bijectTo', 'independent', function(c)
  return D.IndependentTransform(D.bijectTo(c.baseConstraint), c.reinterpretedBatchNdims)
end)
register('transformTo', 'independent', function(c)
  return D.IndependentTransform(D.transformTo(c.baseConstraint), c.reinterpretedBatchNdims)
end)
-- positive and nonnegative are greaterThan(0) and greaterThanEq(0), so they take this path, as
-- in PyTorch, whose later greater_than registration replaces the plain ExpTransform.
local function greater(c) return D.ComposeTransform({ D.ExpTransform(), D.AffineTransform(c.lowerBound, 1) }) end
both('greaterThan', greater)
both('greaterThanEq', greater)
both('lessThan', function(c) return D.ComposeTransform({ D.ExpTransform(), D.AffineTransform(c.upperBound, -1) }) end)
local function interval(c)
  local lo, hi = c.lowerBound, c.upperBound
  if lo == 0 and hi == 1 then return D.SigmoidTransform() end
  return D.ComposeTransform({ D.SigmoidTransform(), D.AffineTransform(lo, hi - lo) })
end
both('interval', interval)
both('halfOpenInterval', interval)
register('bijectTo', 'simplex', function() return D.StickBreakingTransform() end)
register('transformTo', 'simplex', function() return D.SoftmaxTransform() end)
register('transformTo', 'lowerCholesky', function() return D.LowerCholeskyTransform() end)
both('corrCholesky', function() return D.CorrCholeskyTransform() end)
for _, which in ipairs({ 'bijectTo', 'transformTo' }) do
  register(which, 'cat', function(c)
    local ts = {}
    for i, sub in ipairs(c.cseq) do ts[i] = D[which](sub) end
    return D.CatTransform(ts, c.dim, c.lengths)
  end)
  register(which, 'stack', function(c)
    local ts = {}
    for i, sub in ipairs(c.cseq) do ts[i] = D[which](sub) end
    return D.StackTransform(ts, c.dim)
  end)
end

return D.bijectTo
