-- torch.distributions.transforms: the Transform base class (call, inverse, log |det J|, shapes,
-- caching, saving) and its inverse; Compose, Independent and Reshape (transforms_compose.lua), the
-- elementwise, simplex/matrix and functor transforms live in the other transforms_*.lua.
local torch = require 'torch.env'
local util = require 'torch.distributions.util'
local constraints = require 'torch.distributions.constraints'
local C = require('torch.lib').C
local D = torch.distributions

local T = D.transforms or {}
D.transforms = T

-- Note [Transform fields]: domain, codomain (constraints), bijective, sign (1, -1, a tensor,
-- or nil where the transform is not monotone) and eventDim (nil when domain and codomain
-- event dims differ, where PyTorch raises) are plain fields, fixed when the transform is built
-- (transforms are immutable). inv() is a method: it builds the inverse on first use.
-- Subclasses override forwardShape, inverseShape, withCache and equals without doc comments of
-- their own: the base's (below) say what they do.

-- Defines class `name` (a Transform subclass unless parent is given) as D[name] and T[name].
function T._class(name, parent)
  local mt = torch.class('torch.distributions.' .. name, parent and ('torch.distributions.' .. parent)
    or 'torch.distributions.Transform', D)
  T[name] = D[name]
  return mt
end

-- Reads the trailing options table of a transform constructor: only the keys in `allowed`
-- (cacheSize always). Returns the table (never nil).
function T._opts(op, opts, allowed)
  if opts == nil then return {} end
  if type(opts) ~= 'table' or getmetatable(opts) ~= nil then
    util.fail(op, 'options must be a table {cacheSize=}, got %s', util.describe(opts))
  end
  for k in pairs(opts) do
    if k ~= 'cacheSize' and not (allowed and allowed[k]) then util.fail(op, 'unknown option %s', tostring(k)) end
  end
  return opts
end

-- A shape given as a table or a LongStorage, as a LongStorage.
function T._shape(op, s) return util.sample_shape(op, s) end

-- torch.broadcastShapes(...), with an error naming the transform (op) and the shapes.
function T._broadcast(op, ...)
  local ok, r = pcall(torch.broadcastShapes, ...)
  if ok then return r end
  local strs = {}
  for i = 1, select('#', ...) do strs[i] = util.shape_str(select(i, ...)) end
  util.fail(op, 'shapes %s do not broadcast (the value against the parameters)', table.concat(strs, ', '))
end

local Transform = torch.class('torch.distributions.Transform', D)
T.Transform = D.Transform
Transform.bijective = false
Transform.domain = constraints.real
Transform.codomain = constraints.real

-- 'distributions.ExpTransform', the prefix of every error message.
function Transform:_op() return 'distributions.' .. self.__typename:match('([^%.]+)$') end

--- torch.distributions.Transform([{cacheSize=0}]): the base class of invertible maps with a
--- computable log |det J| (subclasses define _call, _inverse and logAbsDetJacobian); cacheSize 1
--- remembers the last (x, y) pair, so inv(t(x)) returns x itself.
--- Example: torch.distributions.ExpTransform({cacheSize = 1})
function Transform:__init(opts)
  self:_setCache(T._opts(self:_op(), opts).cacheSize)
  if rawget(getmetatable(self), 'eventDim') == nil then self:_setEventDim() end
end

function Transform:_setCache(n)
  n = n or 0
  if n ~= 0 and n ~= 1 then util.fail(self:_op(), 'cacheSize must be 0 or 1, got %s', tostring(n)) end
  self.cacheSize = n
  self._cx, self._cy, self._cxv, self._cyv = nil, nil, nil, nil
end

-- Note [Transform cache versions]: the cache holds the last (x, y) pair by identity, as PyTorch's,
-- and also their version counters (bumped by every in-place change, views included), so that
-- t(x) after x:add(1) computes t of the new x instead of returning the stale y (PyTorch 1.13
-- returns the stale one), and likewise inv(y) after y changes.
local function version(t) return C.tocha_tensor_version(t.p) end
function Transform:_remember(x, y)
  self._cx, self._cy, self._cxv, self._cyv = x, y, version(x), version(y)
end
-- Whether the cached pair is still what it was when cached.
function Transform:_fresh()
  return version(self._cx) == self._cxv and version(self._cy) == self._cyv
end

-- Sets eventDim from the domain and codomain (Note [Transform fields]).
function Transform:_setEventDim()
  local a, b = self.domain.eventDim, self.codomain.eventDim
  self.eventDim = (a == b) and a or nil
end

function Transform:_input(x, what)
  if not torch.isTensor(x) then util.fail(self:_op(), '%s must be a tensor, got %s', what or 'x', util.describe(x)) end
end

--- t(x): the transform of tensor x (with cacheSize 1, the cached y when x is the last x).
--- Example: torch.distributions.ExpTransform()(torch.zeros(2))
function Transform:__call__(x)
  self:_input(x, 'x')
  if self.cacheSize == 0 then return self:_call(x) end
  if rawequal(x, self._cx) and self:_fresh() then return self._cy end
  local y = self:_call(x)
  self:_remember(x, y)
  return y
end

-- y => x, through the cache.
function Transform:_invCall(y)
  self:_input(y, 'y')
  if self.cacheSize == 0 then return self:_inverse(y) end
  if rawequal(y, self._cy) and self:_fresh() then return self._cx end
  local x = self:_inverse(y)
  self:_remember(x, y)
  return x
end

function Transform:_call() util.fail(self:_op(), 'the forward map is not implemented') end
function Transform:_inverse() util.fail(self:_op(), 'the inverse map is not implemented') end

--- t:inv(): the inverse transform (t:inv():inv() is t); t:inv()(y) computes x from y.
--- Example: torch.distributions.ExpTransform():inv()(torch.ones(2))
function Transform:inv()
  if not self._invT then
    local inv = D._InverseTransform(self)
    self._invT = inv
  end
  return self._invT
end

--- t:logAbsDetJacobian(x, y): log |dy/dx| at x (y = t(x)), summed over the transform's event
--- dims; an error for transforms that are not bijective.
--- Example: torch.distributions.ExpTransform():logAbsDetJacobian(torch.zeros(2), torch.ones(2))
function Transform:logAbsDetJacobian()
  util.fail(self:_op(), 'logAbsDetJacobian is not implemented%s', self.bijective and '' or ' (the transform is not bijective)')
end

--- t:forwardShape(shape): the shape of t(x) for x of the given shape (a table or LongStorage).
--- Example: torch.distributions.StickBreakingTransform():forwardShape({5, 3})
function Transform:forwardShape(shape) return T._shape(self:_op(), shape) end
--- t:inverseShape(shape): the shape of t:inv()(y) for y of the given shape.
--- Example: torch.distributions.StickBreakingTransform():inverseShape({5, 4})
function Transform:inverseShape(shape) return T._shape(self:_op(), shape) end

--- t:withCache([cacheSize=1]): the same transform with the given cache size (t itself when it
--- already has it).
--- Example: torch.distributions.ExpTransform():withCache(1).cacheSize
function Transform:withCache(n)
  n = n or 1
  if n == self.cacheSize then return self end
  local new = self:_copy()
  new:_setCache(n)
  return new
end

-- A shallow copy without the cache and the inverse (withCache and expand use it).
function Transform:_copy()
  local new = setmetatable({}, getmetatable(self))
  for k, v in pairs(self) do new[k] = v end
  new._invT, new._cx, new._cy, new._cxv, new._cyv = nil, nil, nil, nil, nil
  return new
end

-- Note [Saving transforms]: torch.save writes a transform's fields with its constraints
-- (domain, codomain) as data (Note [Saving constraints]) and without the cache (a cache is not
-- state, and the version counters start again after loading); torch.load rebuilds them.
local CACHE = { _cx = true, _cy = true, _cxv = true, _cyv = true }
function Transform:write(file)
  local data = {}
  for k, v in pairs(self) do
    if constraints._isConstraint(v) then
      data[k] = { __constraint = constraints._toData(v, self:_op()) }
    elseif not CACHE[k] then
      data[k] = v
    end
  end
  file:writeObject(data)
end
function Transform:read(file)
  for k, v in pairs(file:readObject()) do
    if type(v) == 'table' and v.__constraint then v = constraints._fromData(v.__constraint) end
    self[k] = v
  end
end

-- Parameters compared by equals (numbers or tensors), per class.
Transform._eqParams = {}
local function same_value(a, b)
  if type(a) == 'number' and type(b) == 'number' then return a == b end
  if type(a) == 'number' or type(b) == 'number' or torch.isTensor(a) and torch.isTensor(b) then
    local ok, r = pcall(function() return torch.all(torch.eq(torch.isTensor(a) and a or b, torch.isTensor(a) and b or a)) end)
    return ok and r
  end
  return rawequal(a, b)
end
--- t:equals(other): whether other is the same transform (same class and equal parameters, as
--- PyTorch's ==); TransformedDistribution KL divergences compare transforms with it.
--- Example: torch.distributions.AffineTransform(0, 2):equals(torch.distributions.AffineTransform(0, 2))
function Transform:equals(other)
  if rawequal(self, other) then return true end
  if getmetatable(other) ~= getmetatable(self) or self._identityOnly then return false end
  for _, k in ipairs(self._eqParams) do
    if not same_value(self[k], other[k]) then return false end
  end
  return true
end

function Transform:__tostring__() return self.__typename:match('([^%.]+)$') .. '()' end

-- The inverse of a transform (PyTorch's _InverseTransform): calls the base's inverse and
-- negates its log |det J|.
local Inverse = torch.class('torch.distributions._InverseTransform', 'torch.distributions.Transform', D)
function Inverse:__init(base)
  self._base = base
  self:_setCache(base.cacheSize)
  self.domain, self.codomain = base.codomain, base.domain
  self.bijective, self.sign = base.bijective, base.sign
  self:_setEventDim()
  self._invT = base
end
function Inverse:_op() return self._base:_op() .. ':inv()' end
function Inverse:__call__(y) return self._base:_invCall(y) end
function Inverse:inv() return self._base end
function Inverse:logAbsDetJacobian(x, y) return -self._base:logAbsDetJacobian(y, x) end
function Inverse:forwardShape(s) return self._base:inverseShape(s) end
function Inverse:inverseShape(s) return self._base:forwardShape(s) end
function Inverse:withCache(n) return self._base:withCache(n):inv() end
function Inverse:equals(other)
  return torch.isTypeOf(other, 'torch.distributions._InverseTransform') and self._base:equals(other._base)
end
function Inverse:__tostring__() return '_InverseTransform(' .. tostring(self._base) .. ')' end

local function check_transform(op, t, what)
  if not torch.isTypeOf(t, 'torch.distributions.Transform') then
    util.fail(op, '%s must be a transform, got %s', what, util.describe(t))
  end
end
T._check = check_transform

require 'torch.distributions.transforms_compose'
require 'torch.distributions.transforms_elementwise'
require 'torch.distributions.transforms_matrix'
require 'torch.distributions.transforms_functor'

return T
