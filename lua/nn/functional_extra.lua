-- nn.functional's remaining PyTorch activations and dropouts (celu, threshold, the shrinks, rrelu,
-- prelu, glu, gumbelSoftmax, channel and alpha dropouts), built of recorded torch ops so they are
-- differentiable on any device. Where an nn module computes the same thing (nn.Threshold,
-- nn.HardShrink, nn.RReLU, nn.PReLU, nn.GatedLinearUnit, nn.SpatialDropout...) the same ops run
-- in the same order and draw the same random numbers, so both agree exactly.
require 'nn.functional_act'
local A = require 'nn.functional_args'
nn.functional = nn.functional or {}
local F = nn.functional

-- Note [Functional error names]: the functions of this file and of functional_fold.lua and
-- functional_attention.lua raise "[nn.functional.name] ...": several of their names (threshold,
-- unfold, maxPool1d...) are also torch functions, whose errors say "[name]".
local function op(name) return 'nn.functional.' .. name end
local fail = A.fail

--- nn.functional.celu(x [, alpha = 1] [, inplace = false]): max(0, x) + min(0, alpha (exp(x / alpha)
--- - 1)) (with inplace, written into x, which is returned, as nn.functional.celu_; Note [Inplace
--- flags], functional_args.lua).
--- Example: nn.functional.celu(torch.randn(4), 0.5)
function F.celu(x, alpha, inplace)
  if A.inplace_flag(op('celu'), inplace) then return A.inplace('celu', F.celu, x, alpha) end
  A.float(op('celu'), x)
  alpha = A.number(op('celu'), alpha, 'alpha', 1)
  if alpha == 0 then fail(op('celu'), 'alpha must not be 0') end
  return torch.mul(torch.elu(torch.div(x, alpha), 1), alpha)
end

--- nn.functional.threshold(x, threshold, value [, inplace = false]): x where x > threshold, value
--- elsewhere (nn.Threshold; no gradient where replaced). With inplace, written into x, which is
--- returned, as nn.functional.threshold_.
--- Example: nn.functional.threshold(torch.randn(4), 0.1, 20)
function F.threshold(x, th, value, inplace)
  if A.inplace_flag(op('threshold'), inplace) then return A.inplace('threshold', F.threshold, x, th, value) end
  A.float(op('threshold'), x)
  if th == nil or value == nil then fail(op('threshold'), 'expected (x, threshold, value), got no %s',
    th == nil and 'threshold' or 'value') end
  th, value = A.number(op('threshold'), th, 'threshold'), A.number(op('threshold'), value, 'value')
  return torch.maskedFill(x, torch.le(x, th), value)
end

local function lambd_arg(name, l)
  l = A.number(op(name), l, 'lambd', 0.5)
  if l < 0 then fail(op(name), 'lambd must be non-negative, got %g', l) end
  return l
end

--- nn.functional.hardshrink(x [, lambd = 0.5]): x where |x| > lambd, 0 elsewhere (nn.HardShrink).
--- Example: nn.functional.hardshrink(torch.randn(4))
function F.hardshrink(x, lambd)
  A.float(op('hardshrink'), x)
  lambd = lambd_arg('hardshrink', lambd)
  return torch.maskedFill(x, torch.le(torch.abs(x), lambd), 0)
end

--- nn.functional.softshrink(x [, lambd = 0.5]): x - lambd above lambd, x + lambd below -lambd, 0
--- between (nn.SoftShrink).
--- Example: nn.functional.softshrink(torch.randn(4), 0.2)
function F.softshrink(x, lambd)
  A.float(op('softshrink'), x)
  lambd = lambd_arg('softshrink', lambd)
  return torch.csub(x, torch.clamp(x, -lambd, lambd))
end

--- nn.functional.tanhshrink(x): x - tanh(x) (nn.TanhShrink).
--- Example: nn.functional.tanhshrink(torch.randn(4))
function F.tanhshrink(x) return torch.csub(A.float(op('tanhshrink'), x), torch.tanh(x)) end

-- PyTorch's spelling of nn.functional.logSigmoid: the same function (and so the same doc).
F.logsigmoid = F.logSigmoid

--- nn.functional.rrelu(x [, lower = 1/8] [, upper = 1/3] [, training = false] [, inplace = false]):
--- randomized leaky ReLU: x where x > 0, else x times a slope drawn from U(lower, upper) per element
--- when training, (lower + upper) / 2 otherwise (nn.RReLU, drawing the same slopes from the same
--- seed). With inplace, written into x, which is returned, as nn.functional.rrelu_.
--- Example: nn.functional.rrelu(torch.randn(4), 0.1, 0.3, true)
function F.rrelu(x, lower, upper, training, inplace)
  local name = op('rrelu')
  if A.inplace_flag(name, inplace) then return A.inplace('rrelu', F.rrelu, x, lower, upper, training) end
  A.float(name, x)
  lower, upper = A.number(name, lower, 'lower', 1 / 8), A.number(name, upper, 'upper', 1 / 3)
  if lower < 0 or lower > upper then fail(name, 'expected 0 <= lower <= upper, got lower=%g, upper=%g', lower, upper) end
  if not A.bool(name, training, 'training', false) then
    return torch.cmul(x, x.new(x:size()):fill((lower + upper) / 2):maskedFill(torch.gt(x, 0), 1))
  end
  local slopes = x.new(x:size()):uniform(lower, upper)
  return torch.cmul(x, slopes:maskedFill(torch.gt(x, 0), 1))
end

--- nn.functional.prelu(x, weight): x where x > 0, weight * x elsewhere; weight has 1 element
--- (shared) or one per channel: dim 2 of x, dim 1 of a vector, as nn.PReLU (PyTorch rejects a
--- vector with several weights). Differentiable in x and weight.
--- Example: nn.functional.prelu(torch.randn(2, 3), torch.Tensor({0.1, 0.2, 0.3}))
function F.prelu(x, weight)
  local name = op('prelu')
  A.float(name, x, 'an input')
  A.float(name, weight, 'a weight')
  if x:dim() == 0 then fail(name, 'expected an input of at least 1 dim, got a 0-dim tensor') end
  local n, cdim = weight:nElement(), x:dim() > 1 and 2 or 1
  local shape = {}
  for d = 1, x:dim() do shape[d] = 1 end
  if n ~= 1 then
    if n ~= x:size(cdim) then
      fail(name, 'weight has %d elements but the input of size %s has %d channels (dim %d)', n, A.shape(x),
        x:size(cdim), cdim)
    end
    shape[cdim] = n
  end
  local w = weight:reshape(torch.LongStorage(shape)):expandAs(x)
  return torch.add(torch.relu(x), torch.cmul(torch.clamp(x, -math.huge, 0), w))
end

--- nn.functional.glu(x [, dim = -1]): a * sigmoid(b), a and b the halves of x along dim (even
--- size), as nn.GatedLinearUnit.
--- Example: nn.functional.glu(torch.randn(3, 4))
function F.glu(x, dim)
  A.float(op('glu'), x)
  dim = A.dim(op('glu'), x, dim, -1)
  if x:dim() == 0 or x:size(dim) % 2 ~= 0 then
    fail(op('glu'), 'dim %d must have an even size, got an input of size %s', dim, A.shape(x))
  end
  local h = x:size(dim) / 2
  return torch.cmul(x:narrow(dim, 1, h), torch.sigmoid(x:narrow(dim, h + 1, h)))
end

--- nn.functional.gumbelSoftmax(logits [, {tau = 1, hard = false, dim = -1}]): softmax((logits + g)
--- / tau) along dim with g standard Gumbel noise; with hard, the one-hot of its argmax whose gradient
--- is the soft sample's (straight-through, y_hard - y_soft:detach() + y_soft as PyTorch).
--- Example: nn.functional.gumbelSoftmax(torch.randn(2, 5), {tau = 0.5, hard = true})
function F.gumbelSoftmax(logits, opts)
  local name = op('gumbelSoftmax')
  A.float(name, logits, 'logits')
  opts = A.opts(name, opts, { tau = true, hard = true, dim = true })
  local tau = A.number(name, opts.tau, 'tau', 1)
  if not (tau > 0) then fail(name, 'tau must be positive, got %g', tau) end
  local dim = A.dim(name, logits, opts.dim, -1)
  local gumbel = logits.new(logits:size()):exponential():log():neg()
  local soft = torch.softmax(torch.div(torch.add(logits, gumbel), tau), dim)
  if not A.bool(name, opts.hard, 'hard', false) then return soft end
  local _, idx = torch.max(soft:detach(), dim)
  local hard = logits.new(logits:size()):zero():scatter(dim, idx, 1)
  return torch.add(torch.csub(hard, soft:detach()), soft)
end

-- ---- dropouts -------------------------------------------------------------------------------------

local function p_arg(name, p)
  p = A.number(name, p, 'p', 0.5)
  if not (p >= 0 and p <= 1) then fail(name, 'p must be in [0, 1], got %g', p) end
  return p
end

-- The noise shape of a channel dropout: x's size up to the channel dim (2 of a batch, 1 of a sample
-- of rank - 1), 1 after it (SpatialDropout:_noiseShape).
local function channel_shape(x, batched_rank)
  local shape = x:size()
  for d = (x:dim() == batched_rank and 3 or 2), x:dim() do shape[d] = 1 end
  return shape
end

local CHANNEL = { dropout1d = { 3, 'N x C x L' }, dropout2d = { 4, 'N x C x H x W' },
                  dropout3d = { 5, 'N x C x D x H x W' } }
-- (inplace: Note [Inplace flags], functional_args.lua; checked after the identity cases, which return
-- x itself, as PyTorch, even for a leaf that requires grad)
local function channel_dropout(fname, x, p, training, inplace)
  local name, rank, layout = op(fname), CHANNEL[fname][1], CHANNEL[fname][2]
  inplace = A.inplace_flag(name, inplace)
  A.float(name, x)
  if x:dim() ~= rank and x:dim() ~= rank - 1 then
    fail(name, 'expected a %dD (%s) or %dD (unbatched) input, got size %s', rank, layout, rank - 1, A.shape(x))
  end
  p = p_arg(name, p)
  if not A.bool(name, training, 'training', true) or p == 0 then return x end
  if inplace then return A.inplace(fname, F[fname], x, p, training) end
  if p == 1 then return torch.mul(x, 0) end
  local mask = x.new(channel_shape(x, rank)):bernoulli(1 - p):div(1 - p)
  return torch.cmul(x, mask:expandAs(x))
end

--- nn.functional.dropout1d(x [, p = 0.5] [, training = true] [, inplace = false]): zeroes whole
--- channels (dim 2 of N x C x L, dim 1 of C x L) with probability p, scaling the rest by 1 / (1 - p);
--- the identity (x itself) when not training (nn.TemporalDropout(p, false, true) draws the same
--- mask). With inplace, the result is written into x, which is returned.
--- Example: nn.functional.dropout1d(torch.randn(2, 3, 5), 0.5)
function F.dropout1d(x, p, training, inplace) return channel_dropout('dropout1d', x, p, training, inplace) end
--- nn.functional.dropout2d(x [, p = 0.5] [, training = true] [, inplace = false]): dropout1d for
--- N x C x H x W or C x H x W inputs (nn.SpatialDropout(p, false, true); PyTorch 1.13 reads a 3D
--- input as N x C x L). With inplace, the result is written into x, which is returned.
--- Example: nn.functional.dropout2d(torch.randn(2, 3, 4, 4), 0.5)
function F.dropout2d(x, p, training, inplace) return channel_dropout('dropout2d', x, p, training, inplace) end
--- nn.functional.dropout3d(x [, p = 0.5] [, training = true] [, inplace = false]): dropout1d for
--- N x C x D x H x W or C x D x H x W inputs (nn.VolumetricDropout(p, false, true)). With inplace,
--- the result is written into x, which is returned.
--- Example: nn.functional.dropout3d(torch.randn(2, 3, 2, 4, 4), 0.5)
function F.dropout3d(x, p, training, inplace) return channel_dropout('dropout3d', x, p, training, inplace) end

-- Note [Alpha dropout]: PyTorch's formula (ATen's _dropout_impl): with keep mask m ~ Bernoulli(1 - p),
-- a = 1 / sqrt((alpha^2 p + 1)(1 - p)) and alpha = 1.7580993408473766 (SELU's lambda * alpha),
-- y = x m a + alpha a (m - 1 + p): kept elements become a x + alpha a p and dropped ones the SELU
-- saturation value -alpha scaled, so zero mean and unit variance survive.
local SELU_ALPHA = 1.7580993408473766
local function alpha_dropout(fname, x, p, training, feature, inplace)
  local name = op(fname)
  inplace = A.inplace_flag(name, inplace)
  A.float(name, x)
  if feature and x:dim() < 2 then
    fail(name, 'feature dropout needs at least 2 dims (N x C x ...), got size %s', A.shape(x))
  end
  p = p_arg(name, p)
  if not A.bool(name, training, 'training', false) or p == 0 or x:nElement() == 0 then return x end
  -- (after the identity cases, as channel_dropout)
  if inplace then return A.inplace(fname, F[fname], x, p, training) end
  if p == 1 then return torch.mul(x, 0) end
  local shape = feature and channel_shape(x, x:dim()) or x:size()
  local keep = x.new(shape):bernoulli(1 - p)
  local a = 1 / math.sqrt((SELU_ALPHA * SELU_ALPHA * p + 1) * (1 - p))
  local b = keep:clone():add(-1 + p):mul(SELU_ALPHA * a)
  return torch.add(torch.cmul(x, keep:mul(a):expandAs(x)), b:expandAs(x))
end

--- nn.functional.alphaDropout(x [, p = 0.5] [, training = false] [, inplace = false]): dropout that
--- keeps SELU's zero mean and unit variance: dropped elements are set to SELU's negative saturation
--- and all are rescaled (PyTorch's alpha_dropout; Note [Alpha dropout]). The identity (x itself)
--- when not training. With inplace, the result is written into x, which is returned.
--- Example: nn.functional.alphaDropout(torch.randn(6), 0.2, true)
function F.alphaDropout(x, p, training, inplace)
  return alpha_dropout('alphaDropout', x, p, training, false, inplace)
end

--- nn.functional.featureAlphaDropout(x [, p = 0.5] [, training = false] [, inplace = false]):
--- alphaDropout dropping whole channels: one draw per (dim 1, dim 2) pair, as PyTorch (so a C x L
--- input drops per row). With inplace, the result is written into x, which is returned.
--- Example: nn.functional.featureAlphaDropout(torch.randn(2, 3, 4), 0.2, true)
function F.featureAlphaDropout(x, p, training, inplace)
  return alpha_dropout('featureAlphaDropout', x, p, training, true, inplace)
end

return F
