-- Composite functions nn builds on (softmax family, smooth activations, layer norm), as torch
-- functions. They are made of recorded primitives, so they are differentiable to any order.
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local C, wrap, fail = lib.C, lib.wrap, lib.fail
local check_tensor, cdim = types.check_tensor, types.cdim
local methods = torch._tensor_methods

local function default_dim(x) return x.p.ndim == 0 and 1 or x.p.ndim end

-- PyTorch's dtype argument of the soft-maxes: x cast (recorded) before, as PyTorch does; given as
-- a trailing {dtype = ...} table or a dtype name (Note [dtype names]). It was silently ignored.
local function softmax_input(op, x, opts)
  if opts == nil then return x end
  local name = opts
  if type(opts) == 'table' and getmetatable(opts) == nil then
    for k in pairs(opts) do
      if k ~= 'dtype' then fail(op, 'unknown option %s (expected dtype)', tostring(k)) end
    end
    name = opts.dtype
    if name == nil then return x end
  end
  local dt = torch._dtype_arg(op, name)
  if dt ~= lib.dtype.f32 and dt ~= lib.dtype.f64 and dt ~= lib.dtype.f16 and dt ~= lib.dtype.bf16 then
    fail(op, 'dtype must be a floating type, got %s', tostring(name))
  end
  if x.p.dtype == dt then return x end
  return (wrap(C.tocha_tensor_to_dtype(x.p, dt)))
end

--- torch.softmax(x [, dim = last] [, {dtype = ...}]): exp(x) / sum(exp(x)) along dim, computed in
--- dtype when given (x cast first, as PyTorch's dtype argument).
--- Example: torch.softmax(torch.Tensor({1, 2, 3}))
function torch.softmax(x, dim, opts)
  check_tensor('softmax', x)
  x = softmax_input('softmax', x, opts)
  return wrap(C.tocha_softmax(x.p, cdim('softmax', dim or default_dim(x), x.p.ndim)))
end
--- torch.logSoftmax(x [, dim = last] [, {dtype = ...}]): log(softmax(x)), computed stably.
--- Example: torch.logSoftmax(torch.Tensor({1, 2, 3}))
function torch.logSoftmax(x, dim, opts)
  check_tensor('logSoftmax', x)
  x = softmax_input('logSoftmax', x, opts)
  return wrap(C.tocha_log_softmax(x.p, cdim('logSoftmax', dim or default_dim(x), x.p.ndim)))
end
--- torch.gelu(x [, approximate = 'none']): x * Phi(x) (the erf form); approximate = 'tanh' uses
--- 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))), as PyTorch's gelu (the argument was ignored).
--- Example: torch.gelu(torch.Tensor({-1, 0, 1}))
function torch.gelu(x, approximate)
  check_tensor('gelu', x)
  if approximate == nil or approximate == 'none' then return (wrap(C.tocha_gelu(x.p))) end
  if approximate ~= 'tanh' then fail('gelu', "approximate must be 'none' or 'tanh', got %s", tostring(approximate)) end
  local inner = torch.mul(torch.add(x, torch.mul(torch.pow(x, 3), 0.044715)), math.sqrt(2 / math.pi))
  return torch.mul(torch.cmul(x, torch.add(torch.tanh(inner), 1)), 0.5)
end
--- torch.silu(x): x * sigmoid(x).
--- Example: torch.silu(torch.Tensor({-1, 0, 1}))
function torch.silu(x) return wrap(C.tocha_silu(check_tensor('silu', x).p)) end
--- torch.elu(x [, alpha = 1]): x for x > 0, alpha * (exp(x) - 1) otherwise.
--- Example: torch.elu(torch.Tensor({-1, 0, 1}), 0.5)
function torch.elu(x, alpha) return wrap(C.tocha_elu(check_tensor('elu', x).p, alpha or 1, 1)) end
--- torch.selu(x): the self-normalizing ELU (fixed alpha and scale).
--- Example: torch.selu(torch.Tensor({-1, 0, 1}))
function torch.selu(x) return wrap(C.tocha_selu(check_tensor('selu', x).p)) end
--- torch.leakyRelu(x [, slope = 0.01]): x for x > 0, slope * x otherwise.
--- Example: torch.leakyRelu(torch.Tensor({-1, 0, 1}), 0.1)
function torch.leakyRelu(x, slope) return wrap(C.tocha_leaky_relu(check_tensor('leakyRelu', x).p, slope or 0.01)) end
--- torch.softplus(x [, beta = 1] [, threshold = 20]): log(1 + exp(beta x)) / beta.
--- Example: torch.softplus(torch.Tensor({-1, 0, 1}))
function torch.softplus(x, beta, threshold)
  -- Note [Autocast]: CUDA's f32 list has softplus
  return wrap(C.tocha_softplus(torch._autocastF32(check_tensor('softplus', x)).p, beta or 1, threshold or 20))
end
--- torch.layerNorm(x, ndims [, weight] [, bias] [, eps = 1e-5]): normalizes over the last ndims dims.
--- Example: torch.layerNorm(torch.Tensor({{1, 2, 3}, {2, 4, 6}}), 1)
function torch.layerNorm(x, ndims, weight, bias, eps)
  check_tensor('layerNorm', x)
  if type(ndims) ~= 'number' then fail('layerNorm', 'expected the number of normalized dims, got %s', types.describe(ndims)) end
  if weight ~= nil then check_tensor('layerNorm', weight, 3) end
  if bias ~= nil then check_tensor('layerNorm', bias, 4) end
  return wrap(C.tocha_layer_norm(x.p, ndims, weight and weight.p or nil, bias and bias.p or nil, eps or 1e-5))
end

for _, name in ipairs({ 'softmax', 'logSoftmax', 'gelu', 'silu', 'elu', 'selu', 'leakyRelu', 'softplus' }) do
  local f = torch[name]
  methods[name] = function(x, ...) return f(x, ...) end
end

return torch
