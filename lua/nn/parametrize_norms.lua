-- nn.utils.parametrizations.spectralNorm and weightNorm (PyTorch's parametrizations.spectral_norm
-- and, from PyTorch 2.1, weight_norm) with their modules nn.SpectralNormParametrization (buffers
-- _u, _v) and nn.WeightNormParametrization (originals original0 = g, original1 = v). The older
-- wrappers nn.SpectralNorm / nn.WeightNorm (nn.utils.spectralNorm) stay as they are.
local lib = require 'torch.lib'
local fail = lib.fail
local core = require 'nn.parametrize_core'
local parametrizations = nn.utils.parametrizations

-- Transposed convolutions hold their weight as nInputPlane x nOutputPlane x ...: the output dim is 2.
-- By torch.isTypeOf (Note [Transposed by class] in nn/SpectralNorm.lua): nn.ConvTranspose1d/2d/3d too.
local function is_transposed(m)
  return torch.isTypeOf(m, 'nn.SpatialFullConvolution') or torch.isTypeOf(m, 'nn.VolumetricFullConvolution')
end

local function check_dim(op, W, dim)
  if type(dim) ~= 'number' or dim ~= math.floor(dim) or dim == 0 or dim < -W:dim() or dim > W:dim() then
    fail(op, 'dim must be between 1 and %d (or negative from the end), got %s', W:dim(), tostring(dim))
  end
  return dim < 0 and dim + W:dim() + 1 or dim
end
-- W with dim moved to the front, as a size(dim) x rest matrix.
local function as_matrix(W, dim)
  local p = W
  for i = dim - 1, 1, -1 do p = p:transpose(i, i + 1) end
  return p:contiguous():view(p:size(1), -1)
end
local function normalize(x, eps) return torch.cdiv(x, torch.norm(x, 2, 1):clamp(eps, math.huge):expandAs(x)) end

-- ---- spectral norm -----------------------------------------------------------------------------
local SN, SNParent = torch.class('nn.SpectralNormParametrization', 'nn.Module')
SN._stateParams, SN._stateBuffers = {}, { '_u', '_v' }

--- nn.SpectralNormParametrization(weight [, nPowerIterations=1, dim=1, eps=1e-12]): PyTorch's
--- _SpectralNorm: W / sigma, sigma the largest singular value of W (dim first, flattened) from power
--- iteration on the buffers _u, _v (15 steps at construction, nPowerIterations per training
--- forward); a 1D weight is normalized to unit norm.
--- Example: local p = nn.SpectralNormParametrization(torch.randn(3, 4)); print(p:forward(torch.randn(3, 4)))
function SN:__init(weight, n, dim, eps)
  local op = 'nn.SpectralNormParametrization'
  if not torch.isTensor(weight) then fail(op, 'expected the weight (a tensor), got %s', torch.type(weight)) end
  for _, v in ipairs({ { 'nPowerIterations', n }, { 'dim', dim }, { 'eps', eps } }) do
    if v[2] ~= nil and type(v[2]) ~= 'number' then fail(op, '%s must be a number, got %s', v[1], torch.type(v[2])) end
  end
  SNParent.__init(self)
  self.nPowerIterations, self.dim, self.eps = n or 1, dim or 1, eps or 1e-12
  if weight:dim() > 1 then
    local Wm = as_matrix(weight, self.dim)
    self._u = normalize(weight.new(Wm:size(1)):normal(0, 1), self.eps)
    self._v = normalize(weight.new(Wm:size(2)):normal(0, 1), self.eps)
    torch.noGrad(self._power, self, Wm, 15)
  end
end

function SN:_power(Wm, n)
  for _ = 1, n do
    self._u:copy(normalize(torch.mv(Wm, self._v), self.eps))
    self._v:copy(normalize(torch.mv(Wm:t(), self._u), self.eps))
  end
end

function SN:updateOutput(W)
  if W:dim() == 1 then
    self.output = normalize(W, self.eps)
    return self.output
  end
  local Wm = as_matrix(W, self.dim)
  -- no power step when a backward replays the forward (Note [Replayed parametrizations])
  if self.train ~= false and not core.replaying then torch.noGrad(self._power, self, Wm:detach(), self.nPowerIterations) end
  -- clones, as PyTorch: the graph keeps this forward's u and v when a later forward steps them
  local sigma = torch.dot(self._u:clone(), torch.mv(Wm, self._v:clone()))
  self.output = W / sigma
  return self.output
end

--- nn.utils.parametrizations.spectralNorm(module [, name='weight'] [, {nPowerIterations=1, eps=1e-12, dim=}]):
--- PyTorch's parametrizations.spectral_norm: module[name] becomes original / sigma (dim: 1, or 2 for
--- the transposed convolutions); keys 'parametrizations.weight.original', '....0._u', '....0._v'.
--- Example: local m = nn.utils.parametrizations.spectralNorm(nn.Linear(4, 3)); print(torch.linalg.svdvals(m.weight)[1])
function parametrizations.spectralNorm(module, name, o)
  local op = 'nn.utils.parametrizations.spectralNorm'
  local W
  name, o, W = core.target_args(op, module, name, o)
  local n = o.nPowerIterations or 1
  if type(n) ~= 'number' or n < 1 or n ~= math.floor(n) then fail(op, 'nPowerIterations must be a positive integer, got %s', tostring(n)) end
  local dim = check_dim(op, W, o.dim or (is_transposed(module) and 2 or 1))
  local p = nn.SpectralNormParametrization(torch.noGrad(W.clone, W), n, dim, o.eps)
  return nn.utils.parametrize.registerParametrization(module, name, p)
end

-- ---- weight norm -------------------------------------------------------------------------------
local WN, WNParent = torch.class('nn.WeightNormParametrization', 'nn.Module')
WN._stateParams = {}

--- nn.WeightNormParametrization([dim=1]): PyTorch's _WeightNorm: forward({g, v}) = g * v / ||v||,
--- norms over all dims but dim (dim 0: over everything); rightInverse(W) = {||W||, W}.
--- Example: local p = nn.WeightNormParametrization(1); print(p:forward(p:rightInverse(torch.randn(2, 3))))
function WN:__init(dim)
  if dim ~= nil and type(dim) ~= 'number' then fail('nn.WeightNormParametrization', 'dim must be a number, got %s', torch.type(dim)) end
  WNParent.__init(self)
  self.dim = dim or 1
end

-- ||v|| over all dims but dim, keeping v's rank (sizes 1 elsewhere).
function WN:_norm(v)
  local s = {}
  for i = 1, v:dim() do s[i] = (i == self.dim) and v:size(i) or 1 end
  if self.dim == 0 then return torch.norm(v:contiguous():view(-1), 2, 1):view(torch.LongStorage(s)) end
  return torch.norm(as_matrix(v, self.dim), 2, 2):view(torch.LongStorage(s))
end

function WN:updateOutput(input)
  local g, v = input[1], input[2]
  self.output = torch.cmul(v, torch.cdiv(g, self:_norm(v)):expandAs(v))
  return self.output
end

--- wn:rightInverse(W): {g, v} = {||W|| (over all dims but dim), W}.
--- Example: print(nn.WeightNormParametrization(1):rightInverse(torch.ones(2, 2)))
function WN:rightInverse(W)
  return { self:_norm(W), W:clone() }
end

--- nn.utils.parametrizations.weightNorm(module [, name='weight'] [, {dim=1}]): PyTorch 2.1's
--- parametrizations.weight_norm: module[name] = g * v / ||v|| with originals original0 = g and
--- original1 = v; dim 0 takes the norm of the whole tensor (PyTorch's dim=None).
--- Example: local m = nn.utils.parametrizations.weightNorm(nn.Linear(3, 2)); print(m.parametrizations.weight.original0)
function parametrizations.weightNorm(module, name, o)
  local op = 'nn.utils.parametrizations.weightNorm'
  local W
  name, o, W = core.target_args(op, module, name, o)
  local dim = o.dim == nil and 1 or o.dim
  if dim ~= 0 then dim = check_dim(op, W, dim) end
  return nn.utils.parametrize.registerParametrization(module, name, nn.WeightNormParametrization(dim))
end

return parametrizations
