-- Elementwise transforms of torch.distributions: Exp, Power, Sigmoid, Softplus, Tanh, Abs and
-- Affine (PyTorch 1.13's formulas, including its clamping of sigmoid to [tiny, 1 - eps]).
local torch = require 'torch.env'
local util = require 'torch.distributions.util'
local constraints = require 'torch.distributions.constraints'
local D = torch.distributions
local T = D.transforms

local LOG2 = math.log(2)

local Exp = T._class('ExpTransform')
Exp.domain, Exp.codomain, Exp.bijective, Exp.sign = constraints.real, constraints.positive, true, 1
--- torch.distributions.ExpTransform([{cacheSize=}]): y = exp(x); log |dy/dx| = x.
--- Example: torch.distributions.ExpTransform()(torch.Tensor({0, 1}))
function Exp:__init(opts) D.Transform.__init(self, opts) end
function Exp:_call(x) return torch.exp(x) end
function Exp:_inverse(y) return torch.log(y) end
--- ExpTransform:logAbsDetJacobian(x, y): x.
--- Example: torch.distributions.ExpTransform():logAbsDetJacobian(torch.zeros(2), torch.ones(2))
function Exp:logAbsDetJacobian(x) return x end

local Power = T._class('PowerTransform')
Power.domain, Power.codomain, Power.bijective, Power.sign = constraints.positive, constraints.positive, true, 1
Power._eqParams = { 'exponent' }
--- torch.distributions.PowerTransform(exponent [, {cacheSize=}]): y = x^exponent on the positive
--- reals (exponent a number or a tensor that broadcasts with x).
--- Example: torch.distributions.PowerTransform(2)(torch.Tensor({1, 3}))
function Power:__init(exponent, opts)
  local op = self:_op()
  local out = util.convert(op, { 'exponent' }, { exponent })
  self.exponent = out[1]
  -- A number stays a number in the arithmetic, so that x keeps its dtype (PyTorch's 0-dim rule).
  self._e = type(exponent) == 'number' and exponent or self.exponent
  -- Note [PowerTransform sign]: x^e decreases for e < 0, so the sign is the exponent's (PyTorch
  -- 1.13 says +1 for every exponent, and its cdf of PowerTransform(-1) is then 1 minus the true one).
  if type(exponent) == 'number' then
    self.sign = exponent > 0 and 1 or (exponent < 0 and -1 or 0)
  else
    self.sign = torch.sign(self.exponent)
  end
  self:_setCache(T._opts(op, opts).cacheSize)
  self.eventDim = 0
end
function Power:_call(x) return torch.pow(x, self._e) end
function Power:_inverse(y)
  local inv = type(self._e) == 'number' and 1 / self._e or torch.pow(self._e, -1)
  return torch.pow(y, inv)
end
--- PowerTransform:logAbsDetJacobian(x, y): log |exponent y / x|.
--- Example: torch.distributions.PowerTransform(2):logAbsDetJacobian(torch.ones(2), torch.ones(2))
function Power:logAbsDetJacobian(x, y)
  local r = y / x
  r = type(self._e) == 'number' and r * self._e or torch.cmul(r, self._e)
  return torch.log(torch.abs(r))
end
function Power:forwardShape(s) return T._broadcast(self:_op(), T._shape(self:_op(), s), self.exponent:size()) end
Power.inverseShape = Power.forwardShape
function Power:__tostring__() return 'PowerTransform(exponent: ' .. util.describe(self.exponent) .. ')' end

-- sigmoid(x) clamped to [tiny, 1 - eps] of x's dtype, as PyTorch's _clipped_sigmoid.
local function clipped_sigmoid(x)
  return torch.clamp(torch.sigmoid(x), util.tiny(x), 1 - util.eps(x))
end
T._clippedSigmoid = clipped_sigmoid

local Sigmoid = T._class('SigmoidTransform')
Sigmoid.domain, Sigmoid.codomain, Sigmoid.bijective, Sigmoid.sign = constraints.real, constraints.unitInterval, true, 1
--- torch.distributions.SigmoidTransform([{cacheSize=}]): y = 1 / (1 + exp(-x)), clamped to
--- [tiny, 1 - eps]; the inverse is logit(y).
--- Example: torch.distributions.SigmoidTransform()(torch.Tensor({0}))
function Sigmoid:__init(opts) D.Transform.__init(self, opts) end
function Sigmoid:_call(x) return clipped_sigmoid(x) end
function Sigmoid:_inverse(y)
  y = torch.clamp(y, util.tiny(y), 1 - util.eps(y))
  return torch.log(y) - torch.log1p(-y)
end
--- SigmoidTransform:logAbsDetJacobian(x, y): -softplus(-x) - softplus(x).
--- Example: torch.distributions.SigmoidTransform():logAbsDetJacobian(torch.zeros(2), torch.Tensor({0.5, 0.5}))
function Sigmoid:logAbsDetJacobian(x) return -torch.softplus(-x) - torch.softplus(x) end

local Softplus = T._class('SoftplusTransform')
Softplus.domain, Softplus.codomain, Softplus.bijective, Softplus.sign = constraints.real, constraints.positive, true, 1
--- torch.distributions.SoftplusTransform([{cacheSize=}]): y = log(1 + exp(x)) (linear above 20).
--- Example: torch.distributions.SoftplusTransform()(torch.Tensor({0, 30}))
function Softplus:__init(opts) D.Transform.__init(self, opts) end
function Softplus:_call(x) return torch.softplus(x) end
function Softplus:_inverse(y) return torch.log(-torch.expm1(-y)) + y end
--- SoftplusTransform:logAbsDetJacobian(x, y): -softplus(-x).
--- Example: torch.distributions.SoftplusTransform():logAbsDetJacobian(torch.zeros(2), torch.ones(2))
function Softplus:logAbsDetJacobian(x) return -torch.softplus(-x) end

local Tanh = T._class('TanhTransform')
Tanh.domain, Tanh.codomain, Tanh.bijective, Tanh.sign = constraints.real, constraints.interval(-1, 1), true, 1
--- torch.distributions.TanhTransform([{cacheSize=}]): y = tanh(x); the inverse atanh(y) is not
--- clamped (use cacheSize 1 near +-1, as PyTorch advises).
--- Example: torch.distributions.TanhTransform()(torch.Tensor({0.5}))
function Tanh:__init(opts) D.Transform.__init(self, opts) end
function Tanh:_call(x) return torch.tanh(x) end
function Tanh:_inverse(y) return torch.atanh(y) end
-- 2 (log 2 - x - softplus(-2x)): log(1 - tanh(x)^2) without cancellation (PyTorch's formula).
--- TanhTransform:logAbsDetJacobian(x, y): 2 (log 2 - x - softplus(-2x)).
--- Example: torch.distributions.TanhTransform():logAbsDetJacobian(torch.zeros(2), torch.zeros(2))
function Tanh:logAbsDetJacobian(x) return (-x - torch.softplus(x * -2) + LOG2) * 2 end

local Abs = T._class('AbsTransform')
Abs.domain, Abs.codomain = constraints.real, constraints.positive
--- torch.distributions.AbsTransform([{cacheSize=}]): y = |x|; not bijective (inv(y) is y, and
--- there is no logAbsDetJacobian), as PyTorch.
--- Example: torch.distributions.AbsTransform()(torch.Tensor({-2, 3}))
function Abs:__init(opts) D.Transform.__init(self, opts) end
function Abs:_call(x) return torch.abs(x) end
function Abs:_inverse(y) return y end

local Affine = T._class('AffineTransform')
Affine.bijective = true
Affine._eqParams = { 'loc', 'scale', 'eventDim' }

--- torch.distributions.AffineTransform(loc, scale [, eventDim=0] [, {eventDim=, cacheSize=}]):
--- y = loc + scale x elementwise (loc, scale numbers or tensors that broadcast with x); eventDim
--- is the number of rightmost dims that form an event (log |det J| sums over them).
--- Example: torch.distributions.AffineTransform(1, 2)(torch.Tensor({0, 1}))
function Affine:__init(loc, scale, eventDim, opts)
  local op = self:_op()
  if type(eventDim) == 'table' and opts == nil then eventDim, opts = nil, eventDim end
  opts = T._opts(op, opts, { eventDim = true })
  if opts.eventDim ~= nil then
    if eventDim ~= nil then util.fail(op, 'eventDim given both as an argument and as an option') end
    eventDim = opts.eventDim
  end
  eventDim = eventDim or 0
  if type(eventDim) ~= 'number' or eventDim < 0 or eventDim ~= math.floor(eventDim) then
    util.fail(op, 'eventDim must be a non-negative integer, got %s', tostring(eventDim))
  end
  for _, p in ipairs({ { 'loc', loc }, { 'scale', scale } }) do
    if type(p[2]) ~= 'number' and not torch.isTensor(p[2]) then
      util.fail(op, '%s must be a number or a tensor, got %s', p[1], util.describe(p[2]))
    end
  end
  self.loc, self.scale, self.eventDim = loc, scale, eventDim
  self.domain = eventDim == 0 and constraints.real or constraints.independent(constraints.real, eventDim)
  self.codomain = self.domain
  if type(scale) == 'number' then
    self.sign = scale > 0 and 1 or (scale < 0 and -1 or 0)
  else
    self.sign = torch.sign(scale)
  end
  self:_setCache(opts.cacheSize)
end
function Affine:_call(x)
  local s = self.scale
  return (type(s) == 'number' and x * s or torch.cmul(x, s)) + self.loc
end
function Affine:_inverse(y)
  local s = self.scale
  return type(s) == 'number' and (y - self.loc) / s or torch.cdiv(y - self.loc, s)
end
-- Note [Affine event dims]: log |scale| is broadcast to x's shape before its eventDim rightmost
-- dims are summed, so a scale smaller than the event counts once per element. PyTorch 1.13 sums
-- scale's own last dims instead, which undercounts a 0-dim tensor scale with eventDim > 0.
--- AffineTransform:logAbsDetJacobian(x, y): log |scale| broadcast to x, summed over the eventDim last dims.
--- Example: torch.distributions.AffineTransform(0, torch.Tensor({2, 3}), 1):logAbsDetJacobian(torch.zeros(2), torch.zeros(2))
function Affine:logAbsDetJacobian(x)
  local r
  if type(self.scale) == 'number' then
    r = torch.fullLike(x, math.log(math.abs(self.scale)))
  else
    r = torch.log(torch.abs(self.scale))
    r = r:expand(T._broadcast(self:_op(), r:size(), x:size()))
  end
  return util.sum_rightmost(r, self.eventDim)
end
local function shape_of(v) return torch.isTensor(v) and v:size() or torch.LongStorage() end
function Affine:forwardShape(s)
  return T._broadcast(self:_op(), T._shape(self:_op(), s), shape_of(self.loc), shape_of(self.scale))
end
Affine.inverseShape = Affine.forwardShape
function Affine:__tostring__()
  local function str(v) return type(v) == 'number' and tostring(v) or util.describe(v) end
  return string.format('AffineTransform(loc: %s, scale: %s%s)', str(self.loc), str(self.scale),
    self.eventDim > 0 and ', eventDim: ' .. self.eventDim or '')
end

return T
