-- ComposeTransform (a chain of transforms), the identity, IndependentTransform (a transform with
-- extra event dims) and ReshapeTransform of torch.distributions.transforms.
local torch = require 'torch.env'
local util = require 'torch.distributions.util'
local constraints = require 'torch.distributions.constraints'
local D = torch.distributions
local T = D.transforms
local Transform = D.Transform
local check_transform = T._check
local Compose = T._class('ComposeTransform')

--- torch.distributions.ComposeTransform(parts [, {cacheSize=}]): the transforms of the list parts
--- applied in order (x -> parts[#parts](...parts[1](x))); its domain and codomain take the
--- largest event dims among the parts. ComposeTransform({}) is the identity.
--- Example: torch.distributions.ComposeTransform({torch.distributions.ExpTransform(), torch.distributions.AffineTransform(1, 2)})(torch.zeros(2))
function Compose:__init(parts, opts)
  local op = self:_op()
  if type(parts) ~= 'table' or getmetatable(parts) ~= nil then
    util.fail(op, 'parts must be a list of transforms, got %s', util.describe(parts))
  end
  local n = T._opts(op, opts).cacheSize or 0
  local ps = {}
  for i, p in ipairs(parts) do
    check_transform(op, p, 'part ' .. i)
    ps[i] = n ~= 0 and p:withCache(n) or p
  end
  self.parts = ps
  self:_setCache(n)
  self:_shapeInfo()
end

function Compose:_shapeInfo()
  local ps = self.parts
  if #ps == 0 then
    self.domain, self.codomain, self.bijective, self.sign, self.eventDim = constraints.real, constraints.real, true, 1, 0
    return
  end
  -- The event dims, propagated from the last part back (domain) and from the first on (codomain).
  local domain, ed = ps[1].domain, ps[#ps].codomain.eventDim
  for i = #ps, 1, -1 do
    ed = math.max(ed + ps[i].domain.eventDim - ps[i].codomain.eventDim, ps[i].domain.eventDim)
  end
  if ed > domain.eventDim then domain = constraints.independent(domain, ed - domain.eventDim) end
  local codomain, ec = ps[#ps].codomain, ps[1].domain.eventDim
  for i = 1, #ps do
    ec = math.max(ec + ps[i].codomain.eventDim - ps[i].domain.eventDim, ps[i].codomain.eventDim)
  end
  if ec > codomain.eventDim then codomain = constraints.independent(codomain, ec - codomain.eventDim) end
  self.domain, self.codomain = domain, codomain
  local bij, sign = true, 1
  for _, p in ipairs(ps) do
    bij = bij and p.bijective
    if sign ~= nil and p.sign ~= nil then
      if type(sign) == 'number' and type(p.sign) == 'number' then sign = sign * p.sign
      elseif type(sign) == 'number' then sign = p.sign * sign
      else sign = torch.cmul(sign, p.sign) end
    else
      sign = nil
    end
  end
  self.bijective, self.sign = bij, sign
  self:_setEventDim()
end

function Compose:__call__(x)
  self:_input(x, 'x')
  for _, p in ipairs(self.parts) do x = p(x) end
  return x
end
--- ComposeTransform:inv(): the composition of the parts' inverses in reverse order.
--- Example: torch.distributions.ComposeTransform({torch.distributions.ExpTransform()}):inv()(torch.ones(1))
function Compose:inv()
  if not self._invT then
    local ps = {}
    for i = #self.parts, 1, -1 do ps[#ps + 1] = self.parts[i]:inv() end
    local inv = D.ComposeTransform(ps)
    inv._invT = self
    self._invT = inv
  end
  return self._invT
end
function Compose:withCache(n)
  n = n or 1
  if n == self.cacheSize then return self end
  return D.ComposeTransform(self.parts, { cacheSize = n })
end
--- ComposeTransform:logAbsDetJacobian(x, y): the sum of the parts' terms, each summed over the
--- event dims it lacks (the intermediate values are recomputed unless the parts cache them).
--- Example: torch.distributions.ComposeTransform({torch.distributions.ExpTransform()}):logAbsDetJacobian(torch.zeros(1), torch.ones(1))
function Compose:logAbsDetJacobian(x, y)
  if #self.parts == 0 then return torch.zerosLike(x) end
  local xs = { x }
  for i = 1, #self.parts - 1 do xs[i + 1] = self.parts[i](xs[i]) end
  xs[#self.parts + 1] = y
  local total
  local ed = self.domain.eventDim
  for i, p in ipairs(self.parts) do
    local term = util.sum_rightmost(p:logAbsDetJacobian(xs[i], xs[i + 1]), ed - p.domain.eventDim)
    total = total and total + term or term
    ed = ed + p.codomain.eventDim - p.domain.eventDim
  end
  return total
end
function Compose:forwardShape(s)
  s = T._shape(self:_op(), s)
  for _, p in ipairs(self.parts) do s = p:forwardShape(s) end
  return s
end
function Compose:inverseShape(s)
  s = T._shape(self:_op(), s)
  for i = #self.parts, 1, -1 do s = self.parts[i]:inverseShape(s) end
  return s
end
function Compose:equals(other)
  if not torch.isTypeOf(other, 'torch.distributions.ComposeTransform') or #other.parts ~= #self.parts then return false end
  for i, p in ipairs(self.parts) do
    if not p:equals(other.parts[i]) then return false end
  end
  return true
end
function Compose:__tostring__()
  local s = {}
  for i, p in ipairs(self.parts) do s[i] = tostring(p) end
  return 'ComposeTransform(' .. table.concat(s, ', ') .. ')'
end

-- The identity (PyTorch's identity_transform).
T.identityTransform = D.ComposeTransform({})

local Independent = T._class('IndependentTransform')

--- torch.distributions.IndependentTransform(base, reinterpretedBatchNdims [, {cacheSize=}]): base
--- with its last reinterpretedBatchNdims batch dims taken as event dims: the same map, with
--- logAbsDetJacobian summed over them.
--- Example: torch.distributions.IndependentTransform(torch.distributions.ExpTransform(), 1):logAbsDetJacobian(torch.zeros(2, 3), torch.ones(2, 3))
function Independent:__init(base, n, opts)
  local op = self:_op()
  check_transform(op, base, 'base')
  if type(n) ~= 'number' or n < 0 or n ~= math.floor(n) then
    util.fail(op, 'reinterpretedBatchNdims must be a non-negative integer, got %s', tostring(n))
  end
  local c = T._opts(op, opts).cacheSize or 0
  self.baseTransform = base:withCache(c)
  self.reinterpretedBatchNdims = n
  self:_setCache(c)
  self.domain = constraints.independent(base.domain, n)
  self.codomain = constraints.independent(base.codomain, n)
  self.bijective, self.sign = base.bijective, base.sign
  self:_setEventDim()
end
Independent._eqParams = { 'reinterpretedBatchNdims' }
function Independent:withCache(n)
  n = n or 1
  if n == self.cacheSize then return self end
  return D.IndependentTransform(self.baseTransform, self.reinterpretedBatchNdims, { cacheSize = n })
end
function Independent:_call(x)
  if x:dim() < self.domain.eventDim then util.fail(self:_op(), 'x needs at least %d dims, got %s', self.domain.eventDim, util.describe(x)) end
  return self.baseTransform(x)
end
function Independent:_inverse(y)
  if y:dim() < self.codomain.eventDim then util.fail(self:_op(), 'y needs at least %d dims, got %s', self.codomain.eventDim, util.describe(y)) end
  return self.baseTransform:inv()(y)
end
--- IndependentTransform:logAbsDetJacobian(x, y): the base's, summed over the reinterpreted dims.
--- Example: torch.distributions.IndependentTransform(torch.distributions.ExpTransform(), 1):logAbsDetJacobian(torch.zeros(3), torch.ones(3))
function Independent:logAbsDetJacobian(x, y)
  return util.sum_rightmost(self.baseTransform:logAbsDetJacobian(x, y), self.reinterpretedBatchNdims)
end
function Independent:forwardShape(s) return self.baseTransform:forwardShape(s) end
function Independent:inverseShape(s) return self.baseTransform:inverseShape(s) end
function Independent:equals(other)
  return Transform.equals(self, other) and self.baseTransform:equals(other.baseTransform)
end
function Independent:__tostring__()
  return string.format('IndependentTransform(%s, %d)', tostring(self.baseTransform), self.reinterpretedBatchNdims)
end

local Reshape = T._class('ReshapeTransform')
Reshape.bijective = true
Reshape.sign = 1

local function numel(s)
  local n = 1
  for i = 1, #s do n = n * s[i] end
  return n
end
--- torch.distributions.ReshapeTransform(inShape, outShape [, {cacheSize=}]): reshapes the
--- rightmost inShape dims to outShape (the same number of elements); log |det J| is 0.
--- Example: torch.distributions.ReshapeTransform({2, 3}, {6})(torch.zeros(4, 2, 3)):size()
function Reshape:__init(inShape, outShape, opts)
  local op = self:_op()
  self.inShape, self.outShape = T._shape(op, inShape), T._shape(op, outShape)
  if numel(self.inShape) ~= numel(self.outShape) then
    util.fail(op, 'inShape %s and outShape %s have different numbers of elements', util.shape_str(self.inShape),
      util.shape_str(self.outShape))
  end
  self:_setCache(T._opts(op, opts).cacheSize)
  self.domain = constraints.independent(constraints.real, #self.inShape)
  self.codomain = constraints.independent(constraints.real, #self.outShape)
  self:_setEventDim()
end
function Reshape:equals(other)
  return Transform.equals(self, other) and util.same_shape(self.inShape, other.inShape)
    and util.same_shape(self.outShape, other.outShape)
end
-- x's dims before its last #from dims, which must be `from`.
local function batch_of(op, x, from, what)
  local s = x:size()
  local cut = #s - #from
  if cut < 0 or not util.same_shape(util.slice(s, cut + 1, #s), from) then
    util.fail(op, '%s of size %s does not end with %s', what, util.shape_str(s), util.shape_str(from))
  end
  return util.slice(s, 1, cut)
end
function Reshape:_call(x)
  return torch.reshape(x, util.cat(batch_of(self:_op(), x, self.inShape, 'x'), self.outShape))
end
function Reshape:_inverse(y)
  return torch.reshape(y, util.cat(batch_of(self:_op(), y, self.outShape, 'y'), self.inShape))
end
--- ReshapeTransform:logAbsDetJacobian(x, y): zeros of x's batch shape.
--- Example: torch.distributions.ReshapeTransform({2}, {2}):logAbsDetJacobian(torch.zeros(2), torch.zeros(2))
function Reshape:logAbsDetJacobian(x)
  local b = batch_of(self:_op(), x, self.inShape, 'x')
  return util.empty(x, b):zero()
end
-- Shape s, which must end with self[from], with that end replaced by self[to].
local function reshape_shape(self, s, from, to)
  local op = self:_op()
  s = T._shape(op, s)
  local cut = #s - #self[from]
  if cut < 0 or not util.same_shape(util.slice(s, cut + 1, #s), self[from]) then
    util.fail(op, 'shape %s does not end with %s %s', util.shape_str(s), from, util.shape_str(self[from]))
  end
  return util.cat(util.slice(s, 1, cut), self[to])
end
function Reshape:forwardShape(s) return reshape_shape(self, s, 'inShape', 'outShape') end
function Reshape:inverseShape(s) return reshape_shape(self, s, 'outShape', 'inShape') end

return T
