-- ONNX nodes of Tocha's activations and other elementwise modules for torch.onnx.export: one
-- operator where ONNX has it (Relu, LeakyRelu, PRelu, Elu, Selu, Celu, Sigmoid, Tanh, Softmax
-- (SpatialSoftMax too), LogSoftmax, Softplus, Softsign, Clip (HardTanh, ReLU6, Clamp), HardSigmoid,
-- Shrink, Abs, Exp, Log, Sqrt, Pow), else PyTorch 1.13's opset-13 decomposition (GELU with Erf,
-- Hardswish, SiLU, Mish, LogSigmoid, Softmin, Tanhshrink); Dropout in evaluation (identity, or
-- Torch7's v1 scaling).
local lib = require 'torch.lib'
local U = require 'torch.onnx_util'

local M = {}
local function fail(fmt, ...) lib.fail('torch.onnx.export', fmt, ...) end

-- Single-node activations: op, attributes from the module.
local SIMPLE = {
  ['nn.Sigmoid'] = { 'Sigmoid' }, ['nn.Tanh'] = { 'Tanh' },
  ['nn.LeakyReLU'] = { 'LeakyRelu', function(m) return { { 'alpha', 'f', m.negval } } end },
  ['nn.Hardsigmoid'] = { 'HardSigmoid', function() return { { 'alpha', 'f', 1 / 6 }, { 'beta', 'f', 0.5 } } end },
}

local function scalar(G, ctx, x, v) return G:constScalar(ctx.path, v, x.elem) end

-- The softmax dim of a module: PyTorch-named ones keep m.dim (1-based, negative from the end),
-- Torch7's pick the class dim (nn.utils.softmaxDim).
local function softmax_axis(m, x)
  local r = #x.shape
  if m.dim ~= nil then
    local d = m.dim < 0 and m.dim + r + 1 or m.dim
    return d - 1
  end
  return nn.utils.softmaxDim(m, x.t) - 1
end

local CONVERT = {}

CONVERT['nn.Threshold'] = function(G, m, x, y, ctx)
  if m.threshold ~= 0 or m.val ~= 0 then
    fail('%s: only Threshold(0, 0) (ReLU) is exported, got threshold %g, value %g', ctx.where, m.threshold, m.val)
  end
  return G:node(ctx.path, 'Relu', { x }, nil, y, U.keep(x))
end
CONVERT['nn.ReLU'] = CONVERT['nn.Threshold']

CONVERT['nn.ELU'] = function(G, m, x, y, ctx)
  if (m._scale or 1) ~= 1 then
    return G:node(ctx.path, 'Selu', { x }, { { 'alpha', 'f', m.alpha }, { 'gamma', 'f', m._scale } }, y, U.keep(x))
  end
  return G:node(ctx.path, 'Elu', { x }, { { 'alpha', 'f', m.alpha } }, y, U.keep(x))
end
CONVERT['nn.SELU'] = CONVERT['nn.ELU']

-- HardTanh, ReLU6 and PyTorch's Hardtanh: Clip(x, min, max) with scalar initializers.
CONVERT['nn.HardTanh'] = function(G, m, x, y, ctx)
  return G:node(ctx.path, 'Clip', { x, scalar(G, ctx, x, m.min_val), scalar(G, ctx, x, m.max_val) }, nil, y, U.keep(x))
end
CONVERT['nn.ReLU6'], CONVERT['nn.Hardtanh'] = CONVERT['nn.HardTanh'], CONVERT['nn.HardTanh']
CONVERT['nn.Clamp'] = CONVERT['nn.HardTanh']

local function softmax(op)
  return function(G, m, x, y, ctx)
    return G:node(ctx.path, op, { x }, { { 'axis', 'i', softmax_axis(m, x) } }, y, U.keep(x))
  end
end
CONVERT['nn.SoftMax'], CONVERT['nn.Softmax'] = softmax('Softmax'), softmax('Softmax')
CONVERT['nn.LogSoftMax'], CONVERT['nn.LogSoftmax'] = softmax('LogSoftmax'), softmax('LogSoftmax')
-- nn.SpatialSoftMax (and PyTorch's Softmax2d, the same class): Softmax over the channels (axis 0 of
-- C x H x W, 1 of N x C x H x W), the dim nn.utils.softmaxDim gives it.
CONVERT['nn.SpatialSoftMax'] = softmax('Softmax')

-- Note [Softplus threshold]: Softplus(beta x) / beta, and x where beta x > threshold. Above the
-- default threshold 20 the two differ by under e^-20 relatively, so it exports as PyTorch 1.13 does
-- (Softplus alone); a smaller threshold (nn.Softplus(2, 1)) changed the result by up to 0.16 when it was
-- dropped, so it is exported as Where(Greater(beta x, threshold), x, softplus).
CONVERT['nn.SoftPlus'] = function(G, m, x, y, ctx)
  local th = m.threshold or 20
  local exact = th < 20
  if m.beta == 1 and not exact then return G:node(ctx.path, 'Softplus', { x }, nil, y, U.keep(x)) end
  local bx = m.beta == 1 and x or G:node(ctx.path, 'Mul', { x, scalar(G, ctx, x, m.beta) })
  local sp = G:node(ctx.path, 'Softplus', { bx })
  if not exact then return G:node(ctx.path, 'Div', { sp, scalar(G, ctx, x, m.beta) }, nil, y, U.keep(x)) end
  if m.beta ~= 1 then sp = G:node(ctx.path, 'Div', { sp, scalar(G, ctx, x, m.beta) }) end
  local above = G:node(ctx.path, 'Greater', { bx, scalar(G, ctx, x, th) })
  return G:node(ctx.path, 'Where', { above, x, sp }, nil, y, U.keep(x))
end
CONVERT['nn.Softplus'] = CONVERT['nn.SoftPlus']

-- x * Phi(x) = x * (erf(x / sqrt 2) + 1) * 0.5 (PyTorch 1.13's opset-13 GELU).
CONVERT['nn.GELU'] = function(G, m, x, y, ctx)
  if m.approximate and m.approximate ~= 'none' then fail('%s: approximate GELU is not exported', ctx.where) end
  local e = G:node(ctx.path, 'Erf', { G:node(ctx.path, 'Div', { x, scalar(G, ctx, x, math.sqrt(2)) }) })
  local xm = G:node(ctx.path, 'Mul', { x, G:node(ctx.path, 'Add', { e, scalar(G, ctx, x, 1) }) })
  return G:node(ctx.path, 'Mul', { xm, scalar(G, ctx, x, 0.5) }, nil, y, U.keep(x))
end

CONVERT['nn.Hardswish'] = function(G, m, x, y, ctx)
  local h = G:node(ctx.path, 'HardSigmoid', { x }, { { 'alpha', 'f', 1 / 6 }, { 'beta', 'f', 0.5 } })
  return G:node(ctx.path, 'Mul', { x, h }, nil, y, U.keep(x))
end

CONVERT['nn.SiLU'] = function(G, m, x, y, ctx)
  return G:node(ctx.path, 'Mul', { x, G:node(ctx.path, 'Sigmoid', { x }) }, nil, y, U.keep(x))
end

CONVERT['nn.Mish'] = function(G, m, x, y, ctx)
  local t = G:node(ctx.path, 'Tanh', { G:node(ctx.path, 'Softplus', { x }) })
  return G:node(ctx.path, 'Mul', { x, t }, nil, y, U.keep(x))
end

-- Note [Dropout at export]: evaluation-mode dropout is the identity (no node, as PyTorch), except
-- Torch7's v1 dropout, which multiplies by 1 - p; stochasticInference draws masks at evaluation
-- too, which an inference graph cannot reproduce, so it is an error.
local function dropout(G, m, x, y, ctx)
  if m.stochastic_inference then
    fail('%s draws random masks at evaluation (stochasticInference), which is training-only behaviour', ctx.where)
  end
  if m.v2 == false and m.p > 0 then
    return G:node(ctx.path, 'Mul', { x, scalar(G, ctx, x, 1 - m.p) }, nil, y, U.keep(x))
  end
  return x
end
for _, c in ipairs({ 'nn.Dropout', 'nn.SpatialDropout', 'nn.VolumetricDropout', 'nn.TemporalDropout',
  'nn.Dropout2d', 'nn.Dropout3d' }) do
  CONVERT[c] = dropout
end
CONVERT['nn.Identity'] = function(G, m, x) return x end

-- Torch7's and PyTorch's smaller elementwise modules.
CONVERT['nn.PReLU'] = function(G, m, x, y, ctx)
  local slope = G:init(U.pname(ctx, 'weight'), m:_slopes(x.t):contiguous()) -- broadcasts along the channel dim
  return G:node(ctx.path, 'PRelu', { x, slope }, nil, y, U.keep(x))
end
-- Note [CELU of doubles]: ONNX's Celu takes float tensors only (onnx.checker refused a Double
-- model's file), so other types export alpha * Elu(x / alpha), the same function exactly.
CONVERT['nn.CELU'] = function(G, m, x, y, ctx)
  if x.elem == 1 then return G:node(ctx.path, 'Celu', { x }, { { 'alpha', 'f', m.alpha } }, y, U.keep(x)) end
  if m.alpha == 1 then return G:node(ctx.path, 'Elu', { x }, { { 'alpha', 'f', 1 } }, y, U.keep(x)) end
  local scaled = G:node(ctx.path, 'Div', { x, scalar(G, ctx, x, m.alpha) })
  local e = G:node(ctx.path, 'Elu', { scaled }, { { 'alpha', 'f', 1 } })
  return G:node(ctx.path, 'Mul', { e, scalar(G, ctx, x, m.alpha) }, nil, y, U.keep(x))
end
local function shrink(soft)
  return function(G, m, x, y, ctx)
    return G:node(ctx.path, 'Shrink', { x }, { { 'bias', 'f', soft and m.lambda or 0 }, { 'lambd', 'f', m.lambda } },
      y, U.keep(x))
  end
end
CONVERT['nn.HardShrink'], CONVERT['nn.SoftShrink'] = shrink(false), shrink(true)
local function tanhshrink(G, m, x, y, ctx)
  return G:node(ctx.path, 'Sub', { x, G:node(ctx.path, 'Tanh', { x }) }, nil, y, U.keep(x))
end
CONVERT['nn.TanhShrink'], CONVERT['nn.Tanhshrink'] = tanhshrink, tanhshrink
local function softmin(G, m, x, y, ctx)
  local neg = G:node(ctx.path, 'Neg', { x })
  return G:node(ctx.path, 'Softmax', { neg }, { { 'axis', 'i', softmax_axis(m, x) } }, y, U.keep(x))
end
CONVERT['nn.SoftMin'], CONVERT['nn.Softmin'] = softmin, softmin
CONVERT['nn.LogSigmoid'] = function(G, m, x, y, ctx)
  return G:node(ctx.path, 'Log', { G:node(ctx.path, 'Sigmoid', { x }) }, nil, y, U.keep(x))
end
CONVERT['nn.Square'] = function(G, m, x, y, ctx) return G:node(ctx.path, 'Mul', { x, x }, nil, y, U.keep(x)) end
CONVERT['nn.Sqrt'] = function(G, m, x, y, ctx)
  local arg = x
  if (m.eps or 0) ~= 0 then arg = G:node(ctx.path, 'Add', { x, scalar(G, ctx, x, m.eps) }) end
  return G:node(ctx.path, 'Sqrt', { arg }, nil, y, U.keep(x))
end
CONVERT['nn.Power'] = function(G, m, x, y, ctx)
  return G:node(ctx.path, 'Pow', { x, scalar(G, ctx, x, m.pow) }, nil, y, U.keep(x))
end
local function constant(op)
  return function(G, m, x, y, ctx)
    local c = m.constant_scalar
    if type(c) ~= 'number' then fail('%s: only a number constant is exported', ctx.where) end
    return G:node(ctx.path, op, { x, scalar(G, ctx, x, c) }, nil, y, U.keep(x))
  end
end
CONVERT['nn.MulConstant'], CONVERT['nn.AddConstant'] = constant('Mul'), constant('Add')
CONVERT['nn.Contiguous'] = CONVERT['nn.Identity']
SIMPLE['nn.Abs'], SIMPLE['nn.Exp'], SIMPLE['nn.Log'] = { 'Abs' }, { 'Exp' }, { 'Log' }
SIMPLE['nn.SoftSign'], SIMPLE['nn.Softsign'] = { 'Softsign' }, { 'Softsign' }

for cls, spec in pairs(SIMPLE) do
  CONVERT[cls] = function(G, m, x, y, ctx)
    return G:node(ctx.path, spec[1], { x }, spec[2] and spec[2](m) or nil, y, U.keep(x))
  end
end

M.CONVERT = CONVERT
return M
