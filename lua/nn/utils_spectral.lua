-- nn.utils.spectralNorm / nn.utils.removeSpectralNorm: PyTorch's torch.nn.utils.spectral_norm and
-- remove_spectral_norm over the nn.SpectralNorm wrapper (Note [SpectralNorm is a wrapper] in
-- nn/SpectralNorm.lua): use the module they return, as PyTorch's m = spectral_norm(m).
local lib = require 'torch.lib'
local describe = require('torch.types').describe
require 'nn.SpectralNorm'
local utils = nn.utils

--- nn.utils.spectralNorm(module[, {name='weight', nPowerIterations=1, eps=1e-12, dim=}]): module
--- wrapped in nn.SpectralNorm: its weight becomes weight_orig / sigma, sigma the largest singular
--- value of weight_orig (as an h x w matrix with dim first: 1, or 2 for the transposed
--- convolutions) estimated by nPowerIterations power-iteration steps per forward in training mode.
--- Example: local m = nn.utils.spectralNorm(nn.Linear(4, 3)); print(m:forward(torch.randn(2, 4)))
function utils.spectralNorm(module, options)
  if not torch.isTypeOf(module, 'nn.Module') then
    lib.fail('nn.utils.spectralNorm', 'expected a module with a weight, got %s', describe(module))
  end
  -- Note [One reparametrization per weight] in nn/functional_more2_utils.lua: a pruned or
  -- parametrized tensor is rewritten at each forward after the wrapper wrote it.
  local name = type(options) == 'table' and options.name or 'weight'
  if torch.isTypeOf(module, 'nn.WeightNorm') or require('nn.parametrize_core').entry(module, name) then
    lib.fail('nn.utils.spectralNorm', 'the %s of %s is already reparametrized (weight norm, pruning or a parametrization)',
      tostring(name), torch.typename(module))
  end
  return nn.SpectralNorm(module, options, 'nn.utils.spectralNorm')
end

-- The plain module of a wrapper, its weight fixed to weight_orig / sigma with the current u and v
-- (no power iteration, as PyTorch's remove).
local function unwrap(sn)
  local m = sn.modules[1]
  torch.noGrad(sn._compute, sn, false)
  nn.utils.linkGradients(m)
  return m
end

--- nn.utils.removeSpectralNorm(module[, name='weight']): undoes spectralNorm: for an nn.SpectralNorm,
--- the wrapped module with a plain weight equal to the normalized one; for a container, the same
--- container with every nn.SpectralNorm inside it (of that weight name) replaced so.
--- Example: local m = nn.utils.removeSpectralNorm(nn.utils.spectralNorm(nn.Linear(4, 3)))
function utils.removeSpectralNorm(module, name)
  local op = 'nn.utils.removeSpectralNorm'
  if not torch.isTypeOf(module, 'nn.Module') then lib.fail(op, 'expected a module, got %s', describe(module)) end
  if type(name) == 'table' then name = name.name end
  name = name or 'weight'
  if type(name) ~= 'string' then lib.fail(op, 'name must be a string, got %s', describe(name)) end
  local function matches(m) return torch.isTypeOf(m, 'nn.SpectralNorm') and m.name == name end
  if matches(module) then return unwrap(module) end
  local found = false
  local function walk(m)
    if type(m.modules) ~= 'table' then return end
    for i, c in ipairs(m.modules) do
      if matches(c) then
        m.modules[i] = unwrap(c)
        if m.module == c then m.module = m.modules[i] end  -- decorators keep the module twice
        found = true
      end
      walk(m.modules[i])
    end
  end
  walk(module)
  if not found then lib.fail(op, "spectral norm of '%s' not found in %s", name, tostring(module)) end
  return module
end

return utils
