-- nn.utils.parametersToVector / nn.utils.vectorToParameters: PyTorch's
-- torch.nn.utils.parameters_to_vector and vector_to_parameters, between a list of parameters (or
-- a module's) and one flat vector, e.g. for second-order methods or evolution strategies.
local lib = require 'torch.lib'
local describe = require('torch.types').describe
local utils = nn.utils

-- The parameters as a list of tensors, all on one device: a list of tensors, one tensor, or a
-- module (its m:parameters()).
local function param_list(op, params)
  local list = params
  if torch.isTypeOf(params, 'nn.Module') then
    list = params:parameters() or {}
  elseif torch.isTensor(params) then
    list = { params }
  elseif type(params) ~= 'table' then
    lib.fail(op, 'expected a list of tensors or a module, got %s', describe(params))
  end
  if #list == 0 then lib.fail(op, 'expected at least one parameter, got an empty list') end
  for k, p in ipairs(list) do
    if not torch.isTensor(p) then lib.fail(op, 'parameter %d must be a tensor, got %s', k, describe(p)) end
    if p:device() ~= list[1]:device() then
      lib.fail(op, 'all parameters must be on one device: parameter 1 is on %s, parameter %d on %s',
               list[1]:device(), k, p:device())
    end
  end
  return list
end

--- nn.utils.parametersToVector(params): the parameters (a list of tensors or a module) flattened
--- and concatenated into one new 1-D tensor; differentiable (a cat of views), so gradients flow
--- back to each parameter.
--- Example: local v = nn.utils.parametersToVector(nn.Linear(3, 2)); print(v:size(1))
function utils.parametersToVector(params)
  local list = param_list('nn.utils.parametersToVector', params)
  local views = {}
  for k, p in ipairs(list) do views[k] = p:reshape(-1) end
  return torch.cat(views, 1)
end

-- Note [vectorToParameters copies]: PyTorch 1.13 rebinds each param.data to a view of vec, so
-- the parameters then share memory with vec; Tocha copies the values into the parameters in
-- place (without recording autograd), which keeps the tensors a module or an optimizer holds
-- and leaves vec independent of them. The sizes must match exactly: PyTorch ignores extra
-- elements of vec silently.

--- nn.utils.vectorToParameters(vec, params): copies the 1-D tensor vec, slice by slice, into the
--- parameters (a list of tensors or a module), in place and without recording autograd; vec must
--- have exactly as many elements as the parameters and be on their device.
--- Example: local m = nn.Linear(3, 2); nn.utils.vectorToParameters(torch.zeros(8), m); print(m.weight:sum())
function utils.vectorToParameters(vec, params)
  local op = 'nn.utils.vectorToParameters'
  if not torch.isTensor(vec) then lib.fail(op, 'expected vec to be a tensor, got %s', describe(vec)) end
  if vec:dim() ~= 1 then lib.fail(op, 'expected vec to be 1-D, got %s', describe(vec)) end
  local list = param_list(op, params)
  if vec:device() ~= list[1]:device() then
    lib.fail(op, 'vec is on %s and the parameters on %s', vec:device(), list[1]:device())
  end
  local total = 0
  for _, p in ipairs(list) do total = total + p:nElement() end
  if vec:size(1) ~= total then
    lib.fail(op, 'vec has %d elements, the parameters %d', vec:size(1), total)
  end
  torch.noGrad(function()
    local offset = 1
    for _, p in ipairs(list) do
      local n = p:nElement()
      if n > 0 then p:copy(vec:narrow(1, offset, n):view(p:size())) end
      offset = offset + n
    end
  end)
end
