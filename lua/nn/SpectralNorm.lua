-- nn.SpectralNorm(module[, {name='weight', nPowerIterations=1, eps=1e-12, dim=}]): spectral
-- normalization (Miyato et al., 2018; PyTorch's torch.nn.utils.spectral_norm) of a module's weight:
-- weight = weight_orig / sigma, sigma its largest singular value estimated by power iteration with
-- persistent vectors u and v. nn.utils.spectralNorm / removeSpectralNorm (nn/utils_spectral.lua)
-- are PyTorch's names for wrapping and unwrapping.
-- Note [SpectralNorm is a wrapper]: PyTorch re-registers the module's weight and recomputes it in a
-- forward pre-hook. Tocha's layers are Torch7 modules that read self.weight in updateOutput and
-- accumulate gradWeight in accGradParameters, so the normalization wraps the module, as
-- nn.WeightNorm does: one coarse autograd node whose forward writes weight_orig / sigma into the
-- module's weight, and whose accGradParameters turns the module's weight gradient G into the
-- gradient of weight_orig with u and v held constant, as PyTorch's autograd sees them:
--   dL/dweight_orig = (G - <G, weight> u v^T) / sigma      (weight and G as h x w matrices)
-- So Torch7's module:backward and autograd's loss:backward() both fill gradWeight_orig, for any
-- module with a weight (Linear, the convolutions), and the wrapped module keeps its own class.
require 'nn.Container'
local lib = require 'torch.lib'
local reparam = require 'nn.reparam'
local describe = require('torch.types').describe
local SpectralNorm, parent = torch.class('nn.SpectralNorm', 'nn.Container')

-- Transposed convolutions hold their weight as nInputPlane x nOutputPlane x ...: the output dim is 2.
-- Note [Transposed by class]: tested with torch.isTypeOf, so PyTorch's nn.ConvTranspose1d/2d/3d
-- (subclasses of the Full convolutions, with their own typenames) get dim 2 as PyTorch's dim=1;
-- an exact typename match gave them dim 1, the input channels.
local function is_transposed(m)
  return torch.isTypeOf(m, 'nn.SpatialFullConvolution') or torch.isTypeOf(m, 'nn.VolumetricFullConvolution')
end

local function capital(s) return s:sub(1, 1):upper() .. s:sub(2) end

-- x / max(||x||, eps) into x. Norms and sigma stay one-element tensors: no device sync per forward.
local function normalize(x, eps)
  return x:cdiv(torch.norm(x, 2, 1):clamp(eps, math.huge))
end

--- nn.SpectralNorm(module[, {name='weight', nPowerIterations=1, eps=1e-12, dim=}]): module with its
--- weight spectrally normalized; parameters weight_orig (+ the module's others), buffers weight_u and
--- weight_v; dim is the output dim (1, 2 for Spatial/VolumetricFullConvolution), negative from the end.
--- Example: local sn = nn.SpectralNorm(nn.Linear(4, 3)); print(sn:forward(torch.randn(2, 4)))
-- op names the function in errors (nn.utils.spectralNorm passes its own name).
function SpectralNorm:__init(module, options, op)
  op = op or 'nn.SpectralNorm'
  parent.__init(self)
  self._transparent = false
  if not torch.isTypeOf(module, 'nn.Module') then lib.fail(op, 'expected a module with a weight, got %s', describe(module)) end
  if torch.isTypeOf(module, 'nn.SpectralNorm') then lib.fail(op, 'the module is already spectrally normalized') end
  options = options or {}
  if type(options) ~= 'table' then lib.fail(op, 'options must be a table, got %s', describe(options)) end
  for k in pairs(options) do
    if k ~= 'name' and k ~= 'nPowerIterations' and k ~= 'eps' and k ~= 'dim' then
      lib.fail(op, 'unknown option %s (expected name, nPowerIterations, eps or dim)', tostring(k))
    end
  end
  local name = options.name or 'weight'
  local w = type(name) == 'string' and module[name]
  if not torch.isTensor(w) or w:dim() < 1 then
    lib.fail(op, '%s has no tensor %s to normalize', tostring(module), tostring(name))
  end
  if module.accGradParameters == nn.Module.accGradParameters then
    lib.fail(op, '%s gets its gradients from autograd alone: the wrapper needs its accGradParameters', tostring(module))
  end
  if not torch.isTensor(module['grad' .. capital(name)]) then
    lib.fail(op, '%s has no gradient grad%s for its %s', tostring(module), capital(name), name)
  end
  local n = options.nPowerIterations or 1
  if type(n) ~= 'number' or n < 1 or n ~= math.floor(n) then
    lib.fail(op, 'nPowerIterations must be a positive integer, got %s', tostring(options.nPowerIterations))
  end
  local eps = options.eps or 1e-12
  if type(eps) ~= 'number' or not (eps > 0) then lib.fail(op, 'eps must be a positive number, got %s', tostring(eps)) end
  local dim = options.dim or (is_transposed(module) and 2 or 1)
  if type(dim) ~= 'number' or dim ~= math.floor(dim) or dim < -w:dim() or dim > w:dim() or dim == 0 then
    lib.fail(op, 'dim must be between 1 and %d (or negative from the end), got %s', w:dim(), tostring(options.dim))
  end
  if dim < 0 then dim = dim + w:dim() + 1 end
  self.name, self.nPowerIterations, self.eps, self.dim = name, n, eps, dim
  self.modules[1] = module
  self._orig, self._gradOrig = name .. '_orig', 'grad' .. capital(name) .. '_orig'
  self._u, self._v, self._gradName = name .. '_u', name .. '_v', 'grad' .. capital(name)
  self._stateParams, self._stateBuffers = { self._orig }, { self._u, self._v }
  self[self._orig] = torch.noGrad(w.clone, w)  -- a leaf: w requires grad, a recorded clone would not be
  self[self._gradOrig] = w.new(w:size()):zero()
  self[name] = w  -- the normalized weight, rewritten by each forward
  local mat = self:_matrix(w)
  self[self._u] = normalize(w.new(mat:size(1)):normal(0, 1), eps)
  self[self._v] = normalize(w.new(mat:size(2)):normal(0, 1), eps)
  nn.utils.linkGradients(self)
end

-- t (shaped like the weight) as an h x w matrix: dim moved to the front, the rest flattened.
function SpectralNorm:_permuted(t)
  for i = self.dim - 1, 1, -1 do t = t:transpose(i, i + 1) end
  return t
end
function SpectralNorm:_matrix(t)
  local p = self:_permuted(t)
  return p:contiguous():view(p:size(1), -1)
end

--- sn:parameters(): the module's parameters with weight_orig (and its gradient) in place of the weight.
function SpectralNorm:parameters()
  local m = self.modules[1]
  local params, grads = m:parameters()
  params, grads = params or {}, grads or {}
  local p, g = {}, {}
  for i = 1, #params do
    if rawequal(params[i], m[self.name]) then
      p[i], g[i] = self[self._orig], self[self._gradOrig]
    else
      p[i], g[i] = params[i], grads[i]
    end
  end
  return p, g
end

-- sigma = u . (W v) (a one-element tensor) from the persistent vectors, after nPowerIterations
-- steps when `iterate` (training mode); writes weight_orig / sigma into the module's weight.
function SpectralNorm:_compute(iterate)
  local orig, u, v = self[self._orig], self[self._u], self[self._v]
  local W = self:_matrix(orig)
  if iterate then
    for _ = 1, self.nPowerIterations do
      normalize(torch.mv(v, W:t(), u), self.eps)
      normalize(torch.mv(u, W, v), self.eps)
    end
  end
  self._sigma = torch.cmul(u, torch.mv(W, v)):sum(1)
  local m = self.modules[1]
  m[self.name]:copy(orig):cdiv(self._sigma)
  return self._sigma
end

function SpectralNorm:updateOutput(input)
  torch.noGrad(self._compute, self, self.train ~= false)
  self.output = self.modules[1]:updateOutput(input)
  return self.output
end

-- The weight orig / sigma as a recorded function of orig (u and v fixed, as in the backward), put
-- in place by reparam.updateGradInput while gradients are recorded: a gradient penalty through the
-- input gradient reaches orig (it was computed from the plain weight, a constant to autograd).
function SpectralNorm:_recordedWeight()
  local orig = self[self._orig]
  local sigma = torch.cmul(self[self._u], torch.mv(self:_matrix(orig), self[self._v])):sum(1)
  return torch.cdiv(orig, sigma:view(torch.LongStorage(orig:dim()):fill(1)):expandAs(orig))
end
function SpectralNorm:_paramsNeedGrad() return self[self._orig]:needsGrad() end

function SpectralNorm:updateGradInput(input, gradOutput)
  self.gradInput = reparam.updateGradInput(self, self.modules[1], self.name, input, gradOutput)
  return self.gradInput
end
SpectralNorm.type = reparam.type  -- keeps orig requiring grad through :double()/:float()

function SpectralNorm:accGradParameters(input, gradOutput, scale)
  return torch.noGrad(self._accGradParameters, self, input, gradOutput, scale)
end

function SpectralNorm:_accGradParameters(input, gradOutput, scale)
  local m = self.modules[1]
  local w = m[self.name]
  if not self._sigma or self._sigma:nElement() == 0 then lib.fail('nn.SpectralNorm', 'backward needs a forward first') end
  local G = self:_matrix(reparam.weightGradient(self, m, w, self._gradName, input, gradOutput, scale))
  local Wn = self:_matrix(w)
  local dot = torch.cmul(G, Wn):view(-1):sum(1)
  local d = torch.csub(G, torch.cmul(torch.ger(self[self._u], self[self._v]), dot)):cdiv(self._sigma)
  self:_permuted(self[self._gradOrig]):add(d:view(self:_permuted(w):size()))
end

SpectralNorm.accUpdateGradParameters = reparam.accUpdateGradParameters

-- Parameters are weight_orig and the module's others, not the children's own list.
function SpectralNorm:zeroGradParameters() nn.Module.zeroGradParameters(self) end
function SpectralNorm:updateParameters(lr) nn.Module.updateParameters(self, lr) end
function SpectralNorm:share(other, ...) return nn.Module.share(self, other, ...) end

--- sn:reset([stdv]): re-draws the module's weight (its own reset) and takes it as weight_orig.
function SpectralNorm:reset(stdv)
  local m = self.modules[1]
  m:reset(stdv)
  torch.noGrad(function() self[self._orig]:copy(m[self.name]) end)
  return self
end

function SpectralNorm:__tostring__()
  return 'nn.SpectralNorm [' .. tostring(self.modules[1]) .. ']'
end

return SpectralNorm
