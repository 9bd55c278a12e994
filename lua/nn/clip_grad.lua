-- Gradient clipping: nn.utils.clipGradNorm and nn.utils.clipGradValue (PyTorch's
-- clip_grad_norm_ / clip_grad_value_), over a module's gradients or parameters' .grad, dense or
-- sparse (a sparse embedding's SparseTensor gradient).
local lib = require 'torch.lib'
local utils = nn.utils

-- The gradient tensors of a module (its gradWeight... tensors), a parameter tensor (its .grad)
-- or a list of parameters; parameters without a gradient are skipped.
local function gradients(op, params)
  if type(params) == 'table' and type(params.parameters) == 'function' then
    local _, grads = params:parameters()
    return grads or {}
  end
  if torch.isTensor(params) then params = { params } end
  if type(params) ~= 'table' then
    lib.fail(op, 'expected a module, a parameter tensor or a list of parameters, got %s', type(params))
  end
  local grads = {}
  for i, p in ipairs(params) do
    if not torch.isTensor(p) then lib.fail(op, 'parameter %d is %s, expected a tensor', i, type(p)) end
    local g = p.grad
    if g then grads[#grads + 1] = g end
  end
  return grads
end

-- A sparse gradient (a sparse embedding's, Note [Sparse embedding gradients] in nn/LookupTable.lua)
-- is coalesced in place first: its norm and clamp are those of the summed rows, as PyTorch's.
local function values_of(g)
  if torch.isSparse(g) then
    local _, vals = require('torch.sparse_grad').rows(g)
    return vals
  end
  return g
end

local function norm_of(g, p)
  g = values_of(g)
  if g:nElement() == 0 then return 0 end
  -- torch.abs, not g:abs(): Torch7's method form works in place, and took the signs off every
  -- gradient clipped with normType = inf
  if p == math.huge then return torch.noGrad(function() return torch.abs(g):max() end) end
  return torch.noGrad(g.norm, g, p)
end

--- nn.utils.clipGradNorm(params, maxNorm[, normType=2[, errorIfNonfinite=false]]): scales all
--- gradients of params (a module, a tensor or a list of parameters) in place so that their
--- joint normType-norm (math.huge or 'inf' for the max norm) is at most maxNorm; returns the
--- norm before clipping. A NaN or infinite norm is an error when errorIfNonfinite is true, and
--- leaves the gradients as they are otherwise.
--- Example: local l = nn.Linear(3, 2); l:backward(torch.randn(3), torch.randn(2)); nn.utils.clipGradNorm(l, 1)
function utils.clipGradNorm(params, maxNorm, normType, errorIfNonfinite)
  local op = 'nn.utils.clipGradNorm'
  if type(maxNorm) ~= 'number' or not (maxNorm >= 0) then lib.fail(op, 'maxNorm must be a non-negative number, got %s', tostring(maxNorm)) end
  normType = normType or 2
  if normType == 'inf' then normType = math.huge end
  if type(normType) ~= 'number' or not (normType > 0) then
    lib.fail(op, "normType must be a positive number or 'inf', got %s", tostring(normType))
  end
  local grads = gradients(op, params)
  if #grads == 0 then return 0 end
  local total = 0
  if normType == math.huge then
    for _, g in ipairs(grads) do total = math.max(total, norm_of(g, normType)) end
  else
    for _, g in ipairs(grads) do total = total + norm_of(g, normType) ^ normType end
    total = total ^ (1 / normType)
  end
  if total ~= total or total == math.huge then
    if errorIfNonfinite then lib.fail(op, 'the total norm of the gradients is %s', tostring(total)) end
    return total
  end
  local coef = maxNorm / (total + 1e-6)
  if coef < 1 then
    for _, g in ipairs(grads) do
      local v = values_of(g)
      torch.noGrad(v.mul, v, coef)
    end
  end
  return total
end

--- nn.utils.clipGradValue(params, clipValue): clamps every gradient of params (a module, a
--- tensor or a list of parameters) to [-clipValue, clipValue] in place.
--- Example: local l = nn.Linear(3, 2); l:backward(torch.randn(3), torch.randn(2)); nn.utils.clipGradValue(l, 0.1)
function utils.clipGradValue(params, clipValue)
  local op = 'nn.utils.clipGradValue'
  if type(clipValue) ~= 'number' or not (clipValue >= 0) then
    lib.fail(op, 'clipValue must be a non-negative number, got %s', tostring(clipValue))
  end
  for _, g in ipairs(gradients(op, params)) do
    local v = values_of(g)
    torch.noGrad(v.clamp, v, -clipValue, clipValue)
  end
end
