-- nn.functional's losses under PyTorch's torch.nn.functional names (camelCased), made of recorded
-- torch ops so that they are differentiable (to any order) in every tensor argument.
--
-- Note [Functional losses]: each takes its options as a last table ({reduction = 'mean' | 'sum' |
-- 'none', ...}; a string is taken as the reduction). 'none' returns the per-element (or per-sample)
-- losses as a tensor; 'mean' and 'sum' reduce with x:mean()/x:sum(), so, like torch.nllLoss and
-- every full reduction, the result is a Lua number unless an argument requires grad, then a
-- 0-dim tensor (Note [Full reductions under autograd]). The losses live in nn.functional only:
-- torch.nllLoss and torch.crossEntropy stay the fused class losses nn's criteria run on, and
-- nn.functional.nllLoss/crossEntropy forward to them. Targets must have the input's size (no
-- broadcasting) unless a function says otherwise.
local A = require 'nn.functional_args'
nn.functional = nn.functional or {}
local F = nn.functional
local fail = A.fail

local options, reduce = A.loss_options, A.reduce

-- Elementwise-loss prologue: input and target float tensors of one size, target of input's type;
-- under CUDA autocast an f16/bf16 input in f32 (PyTorch 1.13's CUDA list: Note [Autocast]).
local function pair(op, x, y)
  A.float(op, x, 'an input')
  A.same_size(op, x, y)
  x = torch._autocastF32(x)
  return x, A.like(y, x)
end

--- nn.functional.mseLoss(input, target [, {reduction = 'mean'}]): (input - target)^2.
function F.mseLoss(x, y, o)
  local _, r = options('mseLoss', o)
  x, y = pair('mseLoss', x, y)
  local d = torch.csub(x, y)
  return reduce(torch.cmul(d, d), r)
end

--- nn.functional.l1Loss(input, target [, {reduction = 'mean'}]): |input - target|.
function F.l1Loss(x, y, o)
  local _, r = options('l1Loss', o)
  x, y = pair('l1Loss', x, y)
  return reduce(torch.abs(torch.csub(x, y)), r)
end

-- b (a - b / 2) with a = |d| and b = min(a, delta): 0.5 d^2 where |d| < delta, delta (|d| - delta / 2)
-- elsewhere; finite and smooth in d.
local function huber(d, delta)
  local a = torch.abs(d)
  local b = torch.clamp(a, 0, delta)
  return torch.cmul(b, torch.csub(a, torch.mul(b, 0.5)))
end

--- nn.functional.huberLoss(input, target [, {reduction = 'mean', delta = 1}]): 0.5 d^2 where |d| <
--- delta, delta (|d| - 0.5 delta) elsewhere (d = input - target).
function F.huberLoss(x, y, o)
  local opts, r = options('huberLoss', o, { delta = true })
  local delta = A.number('huberLoss', opts.delta, 'delta', 1)
  if delta <= 0 then fail('huberLoss', 'delta must be positive, got %g', delta) end
  x, y = pair('huberLoss', x, y)
  return reduce(huber(torch.csub(x, y), delta), r)
end

--- nn.functional.smoothL1Loss(input, target [, {reduction = 'mean', beta = 1}]): 0.5 d^2 / beta
--- where |d| < beta, |d| - 0.5 beta elsewhere (the Huber loss divided by beta; beta = 0 is l1Loss).
function F.smoothL1Loss(x, y, o)
  local opts, r = options('smoothL1Loss', o, { beta = true })
  local beta = A.number('smoothL1Loss', opts.beta, 'beta', 1)
  if beta < 0 then fail('smoothL1Loss', 'beta must be >= 0, got %g', beta) end
  x, y = pair('smoothL1Loss', x, y)
  local d = torch.csub(x, y)
  if beta == 0 then return reduce(torch.abs(d), r) end
  return reduce(torch.div(huber(d, beta), beta), r)
end

-- An optional weight broadcast against x (checked), of x's type.
local function weight_arg(op, w, x, what)
  if w == nil then return nil end
  A.float(op, w, what or 'a weight')
  local nd, td = x:dim(), w:dim()
  local ok = td <= nd
  for i = 0, td - 1 do
    local a, b = w:size(td - i), x:size(nd - i)
    if a ~= b and a ~= 1 then ok = false end
  end
  if not ok then fail(op, '%s of size %s does not broadcast to the input of size %s', what or 'weight', A.shape(w), A.shape(x)) end
  return A.like(w, x)
end

-- log(v) clamped at -100 (PyTorch's BCE). Where v = 0 the log reads v + 1 and the result is
-- replaced by -100, so the gradient there is 0 (the clamped log is flat) rather than 0 * inf = NaN
-- (an input of exactly 0 or 1, e.g. a saturated sigmoid, made every gradient of the loss NaN).
local function clamped_log(v)
  local z = torch.le(v, 0):typeAs(v)
  local l = torch.clamp(torch.log(torch.add(v, z)), -100, math.huge)
  return torch.csub(torch.cmul(l, torch.mul(z, -1):add(1)), torch.mul(z, 100))
end

--- nn.functional.binaryCrossEntropy(input, target [, {reduction = 'mean', weight =}]): -w (y log x +
--- (1 - y) log(1 - x)) for probabilities x in [0, 1]; each log is clamped at -100 (PyTorch).
function F.binaryCrossEntropy(x, y, o)
  local op = 'binaryCrossEntropy'
  local opts, r = options(op, o, { weight = true })
  -- PyTorch 1.13 refuses it under CUDA autocast, whatever the input's dtype: log(1 - x) of a half
  -- sigmoid output loses everything near 1
  if torch.isTensor(x) and x:isCuda() and torch.isAutocastEnabled('cuda') then
    fail(op, 'is unsafe to autocast: a sigmoid followed by binaryCrossEntropy (nn.BCELoss) loses precision in '
      .. 'half; use binaryCrossEntropyWithLogits (nn.BCEWithLogitsLoss) on the logits, which is safe to autocast, '
      .. "or compute the loss inside torch.noAutocast('cuda', fn)")
  end
  x, y = pair(op, x, y)
  local w = weight_arg(op, opts.weight, x)
  if x:nElement() > 0 and (x:min() < 0 or x:max() > 1) then fail(op, 'input values must lie in [0, 1]') end
  local lp, lq = clamped_log(x), clamped_log(torch.add(torch.mul(x, -1), 1))
  local l = torch.neg(torch.add(torch.cmul(y, lp), torch.cmul(torch.add(torch.mul(y, -1), 1), lq)))
  if w then l = torch.cmul(l, w) end
  return reduce(l, r)
end

--- nn.functional.binaryCrossEntropyWithLogits(input, target [, {reduction = 'mean', weight =,
--- posWeight =}]): binaryCrossEntropy of sigmoid(input), computed from the logits without
--- overflow: w ((1 - y) x + (1 + (p - 1) y) softplus(-x)), p = posWeight (broadcast, e.g. per class).
function F.binaryCrossEntropyWithLogits(x, y, o)
  local op = 'binaryCrossEntropyWithLogits'
  local opts, r = options(op, o, { weight = true, posWeight = true })
  x, y = pair(op, x, y)
  local w = weight_arg(op, opts.weight, x)
  local pw = weight_arg(op, opts.posWeight, x, 'posWeight')
  local sp = torch.softplus(torch.neg(x))
  if pw then sp = torch.cmul(sp, torch.add(torch.cmul(y, torch.add(pw, -1)), 1)) end
  local l = torch.add(torch.cmul(torch.add(torch.mul(y, -1), 1), x), sp)
  if w then l = torch.cmul(l, w) end
  return reduce(l, r)
end

--- nn.functional.klDiv(input, target [, {reduction = 'mean', logTarget = false}]): the pointwise
--- Kullback-Leibler divergence of target from the log-probabilities input: y (log y - x), 0 where
--- y = 0 (with logTarget, target holds log y: exp(y) (y - x)). reduction 'batchmean' divides the
--- sum by the batch size (size(1)), the mathematically right KL; 'mean' averages over elements.
function F.klDiv(x, y, o)
  local op = 'klDiv'
  local opts, r = options(op, o, { logTarget = true }, 'batchmean')
  x, y = pair(op, x, y)
  local l
  if A.bool(op, opts.logTarget, 'logTarget', false) then
    l = torch.cmul(torch.exp(y), torch.csub(y, x))
  else
    local off = torch.le(y, 0):typeAs(y)  -- log(y + 1) = 0 where y = 0 (its terms vanish)
    l = torch.cmul(y, torch.csub(torch.log(torch.add(y, off)), x))
  end
  if r == 'batchmean' then return A.div(l:sum(), x:dim() > 0 and x:size(1) or 1) end
  return reduce(l, r)
end

--- nn.functional.poissonNllLoss(input, target [, {reduction = 'mean', logInput = true, full = false,
--- eps = 1e-8}]): the negative log-likelihood of target under Poisson(rate): exp(x) - y x with
--- logInput (x = log rate), else x - y log(x + eps); full adds Stirling's y log y - y +
--- 0.5 log(2 pi y) where y > 1.
function F.poissonNllLoss(x, y, o)
  local op = 'poissonNllLoss'
  local opts, r = options(op, o, { logInput = true, full = true, eps = true })
  x, y = pair(op, x, y)
  local l
  if A.bool(op, opts.logInput, 'logInput', true) then
    l = torch.csub(torch.exp(x), torch.cmul(y, x))
  else
    l = torch.csub(x, torch.cmul(y, torch.log(torch.add(x, A.number(op, opts.eps, 'eps', 1e-8)))))
  end
  if A.bool(op, opts.full, 'full', false) then
    local big = torch.gt(y, 1):typeAs(y)
    local ys = torch.add(torch.cmul(y, big), torch.mul(big, -1):add(1))  -- y where y > 1, else 1
    local st = torch.add(torch.csub(torch.cmul(ys, torch.log(ys)), ys), torch.mul(torch.log(torch.mul(ys, 2 * math.pi)), 0.5))
    l = torch.add(l, torch.cmul(st, big))
  end
  return reduce(l, r)
end

--- nn.functional.gaussianNllLoss(input, target, var [, {reduction = 'mean', full = false, eps =
--- 1e-6}]): 0.5 (log v + (x - y)^2 / v) (+ 0.5 log(2 pi) when full), v = max(var, eps) with the
--- clamp invisible to the gradient (PyTorch). var has input's size, or lacks (or has 1 as) its
--- last dim (one variance per sample, homoscedastic).
function F.gaussianNllLoss(x, y, var, o)
  local op = 'gaussianNllLoss'
  local opts, r = options(op, o, { full = true, eps = true })
  x, y = pair(op, x, y)
  A.float(op, var, 'var')
  var = A.like(var, x)
  local given = var
  if not var:isSameSizeAs(x) then
    local n = x:dim()
    if var:dim() == n - 1 and n >= 1 then
      var = var:unsqueeze(var:dim() + 1)
    end
    local ok = var:dim() == n and n >= 1 and var:size(n) == 1
    for i = 1, n - 1 do ok = ok and var:size(i) == x:size(i) end
    if not ok then fail(op, 'var of size %s does not match the input of size %s', A.shape(given), A.shape(x)) end
    var = var:expandAs(x)
  end
  if var:nElement() > 0 and var:min() < 0 then fail(op, 'var has negative entries') end
  local eps = A.number(op, opts.eps, 'eps', 1e-6)
  local v = torch.add(var, torch.csub(torch.clamp(var:detach(), eps, math.huge), var:detach()))
  local d = torch.csub(x, y)
  local l = torch.mul(torch.add(torch.log(v), torch.cdiv(torch.cmul(d, d), v)), 0.5)
  if A.bool(op, opts.full, 'full', false) then l = torch.add(l, 0.5 * math.log(2 * math.pi)) end
  return reduce(l, r)
end

--- nn.functional.softMarginLoss(input, target [, {reduction = 'mean'}]): log(1 + exp(-y x)), y = +-1.
function F.softMarginLoss(x, y, o)
  local _, r = options('softMarginLoss', o)
  x, y = pair('softMarginLoss', x, y)
  return reduce(torch.softplus(torch.neg(torch.cmul(y, x))), r)
end

return F
