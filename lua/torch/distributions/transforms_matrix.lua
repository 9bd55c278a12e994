-- Transforms of torch.distributions onto vectors and matrices: Softmax and StickBreaking (onto
-- the simplex), LowerCholesky and CorrCholesky (onto Cholesky factors), with the packing of a
-- triangle into a vector (PyTorch's vec_to_tril_matrix / tril_matrix_to_vec, row-major).
local torch = require 'torch.env'
local util = require 'torch.distributions.util'
local constraints = require 'torch.distributions.constraints'
local D = torch.distributions
local T = D.transforms

local LOG2 = math.log(2)
local function last(x) return x:dim() end
local function ones_like_shape(x, shape) return util.empty(x, shape):fill(1) end
-- x with a column of ones before (front) or after its last dim (PyTorch's pad(x, [1, 0], value=1)).
local function pad_one(x, front)
  local s = x:size()
  s[#s] = 1
  local o = ones_like_shape(x, s)
  return torch.cat(front and { o, x } or { x, o }, last(x))
end
-- K, K - 1, ..., 1 in x's dtype and device.
local function offsets(x, K)
  return -torch.cumsum(ones_like_shape(x, torch.LongStorage({ K })), 1) + (K + 1)
end
local function on_device(idx, x)
  if x:device() ~= 'cpu' then return idx:to(x:device()) end
  return idx
end

-- Row-major positions (1-based, in an n x n matrix flattened) of the entries with col - row <= diag.
local positions = {}
local function tril_positions(n, diag)
  local key = n .. ':' .. diag
  if not positions[key] then
    local list = {}
    for r = 1, n do
      for c = 1, n do
        if c - r <= diag then list[#list + 1] = (r - 1) * n + c end
      end
    end
    positions[key] = list
  end
  return positions[key]
end

--- transforms.trilMatrixToVec(mat, diag): the entries of the (..., n, n) matrices with
--- col - row <= diag, row by row, as (..., N) vectors (differentiable).
--- Example: torch.distributions.transforms.trilMatrixToVec(torch.Tensor({{1, 2}, {3, 4}}), 0)
function T.trilMatrixToVec(mat, diag)
  diag = diag or 0
  local n = mat:size(last(mat))
  if diag < -n or diag >= n then util.fail('distributions.transforms.trilMatrixToVec', 'diag %d is outside [%d, %d]', diag, -n, n - 1) end
  local s = mat:size()
  local b = util.slice(s, 1, #s - 2)
  local flat = torch.reshape(mat, util.cat(b, { n * n }))
  local pos = tril_positions(n, diag)
  if #pos == 0 then return util.empty(mat, util.cat(b, { 0 })) end
  return torch.indexSelect(flat, last(flat), on_device(torch.LongTensor(pos), mat))
end

--- transforms.vecToTrilMatrix(vec, diag): the inverse of trilMatrixToVec: (..., N) vectors into
--- (..., n, n) matrices with zeros above diagonal diag (differentiable).
--- Example: torch.distributions.transforms.vecToTrilMatrix(torch.Tensor({1, 2, 3}), 0)
function T.vecToTrilMatrix(vec, diag)
  diag = diag or 0
  local N = vec:size(last(vec))
  local a = 1 + 2 * diag
  local nf = (-a + math.sqrt(a * a + 8 * N + 4 * math.abs(diag) * (diag + 1))) / 2
  local n = math.floor(nf + 0.5)
  if math.abs(n - nf) > 1e-9 or #tril_positions(n, diag) ~= N then
    util.fail('distributions.transforms.vecToTrilMatrix', 'a vector of length %d does not fill the triangle of a square matrix', N)
  end
  -- Each of the n*n entries picks an element of vec, or the zero appended after it.
  local map, k = {}, 0
  for i = 1, n * n do map[i] = N + 1 end
  for _, p in ipairs(tril_positions(n, diag)) do k = k + 1; map[p] = k end
  local s = vec:size()
  s[#s] = 1
  local padded = torch.cat({ vec, util.empty(vec, s):zero() }, last(vec))
  local flat = torch.indexSelect(padded, last(padded), on_device(torch.LongTensor(map), vec))
  return torch.reshape(flat, util.cat(util.slice(vec:size(), 1, vec:dim() - 1), { n, n }))
end

local function need_dims(op, x, n, what)
  if x:dim() < n then util.fail(op, '%s needs at least %d dims, got %s', what, n, util.describe(x)) end
end
local function need_shape_dims(op, s, n)
  if #s < n then util.fail(op, 'shape %s needs at least %d dims', util.shape_str(s), n) end
end

local Softmax = T._class('SoftmaxTransform')
Softmax.domain, Softmax.codomain, Softmax.eventDim = constraints.realVector, constraints.simplex, 1
--- torch.distributions.SoftmaxTransform([{cacheSize=}]): y = exp(x) normalized along the last dim;
--- not bijective (inv(y) is log y).
--- Example: torch.distributions.SoftmaxTransform()(torch.Tensor({0, 1, 2}))
function Softmax:__init(opts) D.Transform.__init(self, opts) end
function Softmax:_call(x)
  need_dims(self:_op(), x, 1, 'x')
  local p = torch.exp(x - torch.max(x, last(x)))
  return p / torch.sum(p, last(p))
end
function Softmax:_inverse(y) return torch.log(y) end
function Softmax:forwardShape(s)
  s = T._shape(self:_op(), s)
  need_shape_dims(self:_op(), s, 1)
  return s
end
Softmax.inverseShape = Softmax.forwardShape

local Stick = T._class('StickBreakingTransform')
Stick.domain, Stick.codomain, Stick.bijective, Stick.eventDim = constraints.realVector, constraints.simplex, true, 1
--- torch.distributions.StickBreakingTransform([{cacheSize=}]): K reals onto the simplex of K + 1
--- entries by stick breaking (bijective; the Dirichlet's unconstrained parametrization).
--- Example: torch.distributions.StickBreakingTransform()(torch.Tensor({0, 0}))
function Stick:__init(opts) D.Transform.__init(self, opts) end
function Stick:_call(x)
  need_dims(self:_op(), x, 1, 'x')
  local K = x:size(last(x))
  local z = T._clippedSigmoid(x - torch.log(offsets(x, K)))
  local zc = torch.cumprod(-z + 1, last(z))
  return torch.cmul(pad_one(z, false), pad_one(zc, true))
end
function Stick:_inverse(y)
  need_dims(self:_op(), y, 1, 'y')
  local K = y:size(last(y)) - 1
  local crop = y:narrow(last(y), 1, K)
  -- Clamped so that the remaining stick stays positive when y's last entry is about 0.
  local sf = torch.clampMin(-torch.cumsum(crop, last(crop)) + 1, util.tiny(y))
  return torch.log(crop) - torch.log(sf) + torch.log(offsets(y, K))
end
--- StickBreakingTransform:logAbsDetJacobian(x, y): log |det| of the map onto the first K entries of y.
--- Example: torch.distributions.StickBreakingTransform():logAbsDetJacobian(torch.zeros(2), torch.Tensor({1, 1, 1}) / 3)
function Stick:logAbsDetJacobian(x, y)
  local K = x:size(last(x))
  x = x - torch.log(offsets(x, K))
  -- 1 - sigmoid(x) = exp(-x) sigmoid(x).
  local t = -x - torch.softplus(-x) + torch.log(y:narrow(last(y), 1, K))
  return util.sum_last(t)
end
function Stick:forwardShape(s)
  s = T._shape(self:_op(), s)
  need_shape_dims(self:_op(), s, 1)
  return util.cat(util.slice(s, 1, #s - 1), { s[#s] + 1 })
end
function Stick:inverseShape(s)
  s = T._shape(self:_op(), s)
  need_shape_dims(self:_op(), s, 1)
  return util.cat(util.slice(s, 1, #s - 1), { s[#s] - 1 })
end

local LowerChol = T._class('LowerCholeskyTransform')
LowerChol.domain, LowerChol.codomain, LowerChol.eventDim = constraints.independent(constraints.real, 2), constraints.lowerCholesky, 2
--- torch.distributions.LowerCholeskyTransform([{cacheSize=}]): square matrices onto lower
--- triangular ones with a positive diagonal: the strict lower triangle kept, the diagonal
--- exponentiated (not bijective: the upper triangle is dropped).
--- Example: torch.distributions.LowerCholeskyTransform()(torch.zeros(2, 2))
function LowerChol:__init(opts) D.Transform.__init(self, opts) end
function LowerChol:_call(x)
  need_dims(self:_op(), x, 2, 'x')
  return torch.tril(x, -1) + torch.diagEmbed(torch.exp(torch.diagonal(x, 0, -2, -1)))
end
function LowerChol:_inverse(y)
  need_dims(self:_op(), y, 2, 'y')
  return torch.tril(y, -1) + torch.diagEmbed(torch.log(torch.diagonal(y, 0, -2, -1)))
end

local Corr = T._class('CorrCholeskyTransform')
Corr.domain, Corr.codomain, Corr.bijective = constraints.realVector, constraints.corrCholesky, true
--- torch.distributions.CorrCholeskyTransform([{cacheSize=}]): vectors of D(D-1)/2 reals onto the
--- Cholesky factors of D x D correlation matrices (tanh, then a signed stick breaking on each row,
--- as PyTorch and Stan); logAbsDetJacobian is that of the map onto the strict lower triangle.
--- Example: torch.distributions.CorrCholeskyTransform()(torch.Tensor({0.5, -0.2, 0.1}))
function Corr:__init(opts) D.Transform.__init(self, opts) end
function Corr:_call(x)
  need_dims(self:_op(), x, 1, 'x')
  self:forwardShape(x:size())  -- the last dim a triangular number, or an error naming the transform
  local e = util.eps(x)
  x = torch.clamp(torch.tanh(x), -1 + e, 1 - e)
  local r = T.vecToTrilMatrix(x, -1)
  local n = r:size(last(r))
  -- y = sign(r) sqrt(z * cumprod(1 - z)) = r * sqrt(cumprod(1 - z)) shifted right by one.
  local z = torch.pow(r, 2)
  local c = torch.cumprod(torch.sqrt(-z + 1), last(z))
  r = r + torch.diagEmbed(ones_like_shape(x, torch.LongStorage({ n })))
  return torch.cmul(r, pad_one(c:narrow(last(c), 1, n - 1), true))
end
function Corr:_inverse(y)
  need_dims(self:_op(), y, 2, 'y')
  self:inverseShape(y:size())  -- square, or an error naming the transform
  local n = y:size(last(y))
  local cs = -torch.cumsum(torch.pow(y, 2), last(y)) + 1
  local shifted = pad_one(cs:narrow(last(cs), 1, n - 1), true)
  local t = T.trilMatrixToVec(y, -1) / torch.sqrt(T.trilMatrixToVec(shifted, -1))
  return torch.log((t + 1) / (-t + 1)) / 2
end
--- CorrCholeskyTransform:logAbsDetJacobian(x, y): log |det| of the map onto the strict lower triangle of y (Stan's formula, as PyTorch).
--- Example: torch.distributions.CorrCholeskyTransform():logAbsDetJacobian(torch.zeros(1), torch.eye(2))
function Corr:logAbsDetJacobian(x, y)
  local cs = -torch.cumsum(torch.pow(y, 2), last(y)) + 1
  -- diag -2: the entries before each strict-lower one, without shifting the cumulative sum (none
  -- below 3 x 3, and for 1 x 1 factors diag -2 is out of range: PyTorch 1.13 raises there).
  local stick = 0
  if y:size(last(y)) >= 3 then stick = util.sum_last(torch.log(T.trilMatrixToVec(cs, -2))) * 0.5 end
  local tanh = util.sum_last(x + torch.softplus(x * -2) - LOG2) * -2
  return tanh + stick
end
function Corr:forwardShape(s)
  local op = self:_op()
  s = T._shape(op, s)
  need_shape_dims(op, s, 1)
  local N = s[#s]
  local n = math.floor(math.sqrt(0.25 + 2 * N) + 0.5 + 0.5)
  if n * (n - 1) / 2 ~= N then util.fail(op, 'the last dim %d is not a triangular number n(n-1)/2', N) end
  return util.cat(util.slice(s, 1, #s - 1), { n, n })
end
function Corr:inverseShape(s)
  local op = self:_op()
  s = T._shape(op, s)
  need_shape_dims(op, s, 2)
  if s[#s] ~= s[#s - 1] then util.fail(op, 'shape %s is not square', util.shape_str(s)) end
  local n = s[#s]
  return util.cat(util.slice(s, 1, #s - 2), { n * (n - 1) / 2 })
end

return T
