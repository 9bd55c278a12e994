-- nn.functional's margin, ranking and class losses (marginRankingLoss, hingeEmbeddingLoss,
-- cosineEmbeddingLoss, tripletMarginLoss, multiMarginLoss, multilabelSoftMarginLoss, nllLoss,
-- crossEntropy): recorded torch ops, options and reductions as Note [Functional losses] says.
local A = require 'nn.functional_args'
nn.functional = nn.functional or {}
local F = nn.functional
local fail, options, reduce = A.fail, A.loss_options, A.reduce
local I64 = torch._lib.dtype.i64

-- max(0, z) with PyTorch's clamp_min gradient: a hinge exactly at 0 passes the gradient through
-- (relu gave 0 there: F.hinge_embedding_loss([1, 0.5], -1, margin = 1) has gradient [-1, -1]).
local function hinge(z) return torch.clamp(z, 0, math.huge) end

-- +-1 labels y as x's type, checked to have n elements (a number becomes a filled tensor).
local function signs(op, y, like, n)
  if type(y) == 'number' then return like.new(n):fill(y) end
  A.tensor(op, y, 'a target')
  if y:nElement() ~= n then fail(op, 'target has %d elements, expected %d', y:nElement(), n) end
  return A.like(y, like)
end

--- nn.functional.marginRankingLoss(x1, x2, y [, {reduction = 'mean', margin = 0}]): max(0, -y (x1 -
--- x2) + margin), y = 1 when x1 should rank higher, -1 when x2 should.
function F.marginRankingLoss(x1, x2, y, o)
  local op = 'marginRankingLoss'
  local opts, r = options(op, o, { margin = true })
  A.float(op, x1, 'x1')
  A.same_size(op, x1, x2, 'x1', 'x2')
  x1 = torch._autocastF32(x1)  -- Note [Autocast]: CUDA's f32 list has the losses
  x2 = A.like(x2, x1)
  y = signs(op, y, x1, x1:nElement()):viewAs(x1)
  local m = A.number(op, opts.margin, 'margin', 0)
  return reduce(hinge(torch.add(torch.neg(torch.cmul(torch.csub(x1, x2), y)), m)), r)
end

--- nn.functional.hingeEmbeddingLoss(input, y [, {reduction = 'mean', margin = 1}]): x where y = 1,
--- max(0, margin - x) where y = -1 (input: distances).
function F.hingeEmbeddingLoss(x, y, o)
  local op = 'hingeEmbeddingLoss'
  local opts, r = options(op, o, { margin = true })
  A.float(op, x, 'an input')
  x = torch._autocastF32(x)
  y = signs(op, y, x, x:nElement()):viewAs(x)
  local m = A.number(op, opts.margin, 'margin', 1)
  local pos, neg = torch.ne(y, -1):typeAs(x), torch.ne(y, 1):typeAs(x)
  local l = torch.add(torch.cmul(x, pos), torch.cmul(hinge(torch.add(torch.mul(x, -1), m)), neg))
  return reduce(l, r)
end

--- nn.functional.cosineEmbeddingLoss(x1, x2, y [, {reduction = 'mean', margin = 0}]): per row of
--- x1, x2 (N x D, or one D-vector): 1 - cos where y = 1, max(0, cos - margin) where y = -1, with
--- cos = sum(x1 x2) / sqrt((|x1|^2 + 1e-12) (|x2|^2 + 1e-12)) (PyTorch's).
function F.cosineEmbeddingLoss(x1, x2, y, o)
  local op = 'cosineEmbeddingLoss'
  local opts, r = options(op, o, { margin = true })
  A.float(op, x1, 'x1')
  A.same_size(op, x1, x2, 'x1', 'x2')
  if x1:dim() ~= 1 and x1:dim() ~= 2 then fail(op, 'expected x1 and x2 of size N x D or D, got %s', A.shape(x1)) end
  x1 = torch._autocastF32(x1)
  x2 = A.like(x2, x1)
  local d = x1:dim()
  local n = d == 2 and x1:size(1) or 1
  local dot = torch.sum(torch.cmul(x1, x2), d)
  local m1 = torch.add(torch.sum(torch.cmul(x1, x1), d), 1e-12)
  local m2 = torch.add(torch.sum(torch.cmul(x2, x2), d), 1e-12)
  local cos = torch.cdiv(dot, torch.sqrt(torch.cmul(m1, m2))):view(n)
  y = signs(op, y, x1, n):view(n)
  local pos, neg = torch.eq(y, 1):typeAs(cos), torch.eq(y, -1):typeAs(cos)
  local margin = A.number(op, opts.margin, 'margin', 0)
  local l = torch.add(torch.cmul(torch.add(torch.mul(cos, -1), 1), pos), torch.cmul(hinge(torch.add(cos, -margin)), neg))
  if d == 1 and r == 'none' then return l:view(torch.LongStorage({})) end  -- one pair: 0-dim, as PyTorch
  return reduce(l, r)
end

--- nn.functional.tripletMarginLoss(anchor, positive, negative [, {reduction = 'mean', margin = 1,
--- p = 2, eps = 1e-6, swap = false}]): max(0, margin + d(a, p) - d(a, n)) per row, d the
--- pairwiseDistance (||u - v + eps||_p); with swap, d(a, n) is min(d(a, n), d(p, n)).
function F.tripletMarginLoss(a, pos, neg, o)
  local op = 'tripletMarginLoss'
  local opts, r = options(op, o, { margin = true, p = true, eps = true, swap = true })
  A.float(op, a, 'anchor')
  A.same_size(op, a, pos, 'anchor', 'positive')
  A.same_size(op, a, neg, 'anchor', 'negative')
  if a:dim() ~= 1 and a:dim() ~= 2 then fail(op, 'expected inputs of size N x D or D, got %s', A.shape(a)) end
  a = torch._autocastF32(a)
  pos, neg = A.like(pos, a), A.like(neg, a)
  local p, eps = A.number(op, opts.p, 'p', 2), A.number(op, opts.eps, 'eps', 1e-6)
  local dap = F.pairwiseDistance(a, pos, p, eps)
  local dan = F.pairwiseDistance(a, neg, p, eps)
  if A.bool(op, opts.swap, 'swap', false) then dan = torch.cmin(dan, F.pairwiseDistance(pos, neg, p, eps)) end
  local l = hinge(torch.add(torch.csub(dap, dan), A.number(op, opts.margin, 'margin', 1)))
  if a:dim() == 1 and r == 'none' then return l:view(torch.LongStorage({})) end  -- one triplet: 0-dim, as PyTorch
  return reduce(l, r)
end

-- (scores as N x C, targets as a LongTensor of N on the scores' device, whether a vector was given).
local function class_args(op, x, t)
  A.float(op, x, 'scores')
  x = torch._autocastF32(x)
  if x:dim() ~= 1 and x:dim() ~= 2 then fail(op, 'expected scores of size N x C or C, got %s', A.shape(x)) end
  local single = x:dim() == 1
  if single then x = x:view(1, x:size(1)) end
  if type(t) == 'number' then t = torch.LongTensor({ t }) end
  A.tensor(op, t, 'a target')
  if t.p.dtype ~= I64 then t = t:long() end
  if t:nElement() ~= x:size(1) then fail(op, 'target has %d elements for %d rows of scores', t:nElement(), x:size(1)) end
  t = t:contiguous():view(-1)
  if x.p.device_type ~= t.p.device_type then t = t:to(x:device()) end
  return x, t, single
end

local function class_weight(op, w, x)
  if w == nil then return nil end
  A.float(op, w, 'a weight')
  if w:dim() ~= 1 or w:size(1) ~= x:size(2) then
    fail(op, 'weight must be a vector of %d classes, got size %s', x:size(2), A.shape(w))
  end
  return A.like(w, x)
end

--- nn.functional.multiMarginLoss(input, target [, {reduction = 'mean', p = 1, margin = 1, weight =}]):
--- per row of input (N x C or C) with 1-based class target y: sum over j ~= y of w_y max(0, margin -
--- x_y + x_j)^p, divided by C (Torch7's MultiMarginCriterion). p is 1 or 2.
function F.multiMarginLoss(x, t, o)
  local op = 'multiMarginLoss'
  local opts, r = options(op, o, { p = true, margin = true, weight = true })
  local single
  x, t, single = class_args(op, x, t)
  local p = A.number(op, opts.p, 'p', 1)
  if p ~= 1 and p ~= 2 then fail(op, 'p must be 1 or 2, got %g', p) end
  local w = class_weight(op, opts.weight, x)
  local N, C = x:size(1), x:size(2)
  if t:nElement() > 0 and (t:min() < 1 or t:max() > C) then fail(op, 'target out of range [1, %d]', C) end
  local ti = t:view(N, 1)
  local xy = torch.gather(x, 2, ti)
  local l = torch.relu(torch.add(torch.csub(x, xy:expandAs(x)), A.number(op, opts.margin, 'margin', 1)))
  if p == 2 then l = torch.cmul(l, l) end
  local other = x.new(N, C):fill(1):scatter(2, ti, 0)
  l = torch.cmul(l, other)
  if w then l = torch.cmul(l, torch.index(w, 1, t):view(N, 1):expandAs(l)) end
  l = torch.div(torch.sum(l, 2), C):view(N)
  if single and r == 'none' then return l:view(torch.LongStorage({})) end  -- one sample: 0-dim, as PyTorch
  return reduce(l, r)
end

--- nn.functional.multilabelSoftMarginLoss(input, target [, {reduction = 'mean', weight =}]): per row
--- of input (N x C) with 0/1 targets: -(1/C) sum_j w_j (y_j log sigmoid(x_j) + (1 - y_j)
--- log sigmoid(-x_j)).
function F.multilabelSoftMarginLoss(x, y, o)
  local op = 'multilabelSoftMarginLoss'
  local opts, r = options(op, o, { weight = true })
  A.float(op, x, 'an input')
  A.same_size(op, x, y)
  x = torch._autocastF32(x)
  y = A.like(y, x)
  local single = x:dim() == 1
  if single then x, y = x:view(1, -1), y:view(1, -1) end
  if x:dim() ~= 2 then fail(op, 'expected an input of size N x C or C, got %s', A.shape(x)) end
  -- -(y log s(x) + (1 - y) log s(-x)) = softplus(x) - y x
  local l = torch.csub(torch.softplus(x), torch.cmul(y, x))
  local w = class_weight(op, opts.weight, x)
  if w then l = torch.cmul(l, w:view(1, -1):expandAs(l)) end
  l = torch.div(torch.sum(l, 2), x:size(2)):view(x:size(1))
  if single and r == 'none' then return l:view(torch.LongStorage({})) end  -- one sample: 0-dim, as PyTorch
  return reduce(l, r)
end

local class_known = { weight = true, ignoreIndex = true, labelSmoothing = true }

-- Note [Mean over no weight]: PyTorch's 'mean' nll_loss and cross_entropy divide by the total
-- weight of the targets kept, so when it is 0 (every target ignored, an empty batch, zero class
-- weights) the loss is 0 / 0 = nan with a zero gradient. The fused torch.nllLoss and
-- torch.crossEntropy keep Torch7's THNN answer, 0 (ClassNLLCriterion skips the division), so the
-- PyTorch-named forms (these and nn.NLLLoss, nn.CrossEntropyLoss) put PyTorch's nan back.

-- s (a number or a recorded 0-dim loss) replaced by nan, its gradient 0.
local function no_weight(s)
  if torch.isTensor(s) then return torch.add(torch.mul(s, 0), 0 / 0) end
  return 0 / 0
end

-- F._classMean(l, t, w, ign): the 'mean' class loss l of the fused op (a number or a 0-dim
-- tensor) for targets t (a LongTensor of N on the scores' device), class weights w (or nil) and
-- ignoreIndex ign, with Note [Mean over no weight]'s nan. A number or a CPU loss is read (the
-- total weight is only looked at when the loss is exactly 0); a device loss is not (Note [Unread
-- device losses], nn/ClassNLLCriterion.lua): a 0 or nan is added to it by device ops.
function F._classMean(l, t, w, ign)
  local onDevice = torch.isTensor(l) and l.p.device_type ~= 0
  if not onDevice and (torch.isTensor(l) and l:item() or l) ~= 0 then return l end
  local keep = torch.ne(t, ign)
  local safe = torch.cmul(t, keep:typeAs(t)):add(torch.eq(t, ign):typeAs(t))  -- ignored rows read class 1
  local kw = keep:typeAs(w or (torch.isTensor(l) and l or torch.DoubleTensor()))
  if w then kw = torch.cmul(kw, torch.index(w, 1, safe)) end
  if not onDevice then
    if kw:nElement() > 0 and kw:sum() ~= 0 then return l end
    return no_weight(l)
  end
  local total = torch.sum(kw:view(-1), 1)  -- a 1-element tensor, not read
  local nanOrZero = torch.cdiv(total.new(1):zero(), torch.ne(total, 0):typeAs(total))  -- 0 / 0 or 0 / 1
  return torch.add(l, nanOrZero:view(torch.LongStorage({})):typeAs(l))
end

-- The per-row class losses -w_y logp[y] (0 where y = ignoreIndex), and the per-row weights w_y
-- (0 where ignored), for 'none' and for the compositions below.
local function picked(logp, t, w, ign)
  local N = logp:size(1)
  local keep = torch.ne(t, ign)
  local safe = torch.cmul(t, keep:typeAs(t)):add(torch.eq(t, ign):typeAs(t))  -- ignored rows pick class 1 (t's device)
  local lp = torch.gather(logp, 2, safe:view(N, 1)):view(N)
  local wy = keep:typeAs(logp)
  if w then wy = torch.cmul(wy, torch.index(w, 1, safe)) end
  return torch.neg(torch.cmul(lp, wy)), wy
end

-- nllLoss on N x C (or C) log-probabilities.
local function nll_rows(x, t, o)
  local op = 'nllLoss'
  local opts, r = options(op, o, { weight = true, ignoreIndex = true })
  local ign = A.int(op, opts.ignoreIndex, 'ignoreIndex', -100)
  local x2, t2, single = class_args(op, x, t)
  local w = class_weight(op, opts.weight, x2)
  if r ~= 'none' then
    local l = torch.nllLoss(x, t2, { weights = w, sizeAverage = r == 'mean', ignoreIndex = ign })
    return r == 'mean' and F._classMean(l, t2, w, ign) or l
  end
  local C = x2:size(2)
  local safe = torch.cmul(t2, torch.ne(t2, ign):typeAs(t2)):add(torch.eq(t2, ign):typeAs(t2))  -- ignored rows read as class 1
  if safe:nElement() > 0 and (safe:max() > C or safe:min() < 1) then fail(op, 'target out of range [1, %d]', C) end
  local l = picked(x2, t2, w, ign)
  return single and l:view(torch.LongStorage({})) or l  -- one sample: 0-dim, as PyTorch
end

-- crossEntropy on N x C (or C) scores.
local function ce_rows(x, t, o)
  local op = 'crossEntropy'
  local opts, r = options(op, o, class_known)
  local ign = A.int(op, opts.ignoreIndex, 'ignoreIndex', -100)
  local e = A.number(op, opts.labelSmoothing, 'labelSmoothing', 0)
  if e < 0 or e > 1 then fail(op, 'labelSmoothing must be in [0, 1], got %g', e) end
  if torch.isTensor(t) and nn.utils.isFloating(t) and t:isSameSizeAs(x) then  -- class probabilities
    A.float(op, x, 'scores')
    local single = x:dim() == 1
    local x2 = single and x:view(1, -1) or x
    if x2:dim() ~= 2 then fail(op, 'expected scores of size N x C or C, got %s', A.shape(x)) end
    local y = A.like(t, x):viewAs(x2)
    local C = x2:size(2)
    if e > 0 then y = torch.add(torch.mul(y, 1 - e), e / C) end
    local w = class_weight(op, opts.weight, x2)
    local l = torch.cmul(torch.logSoftmax(x2, 2), y)
    if w then l = torch.cmul(l, w:view(1, C):expandAs(l)) end
    l = torch.neg(torch.sum(l, 2)):view(x2:size(1))
    if single and r == 'none' then return l:view(torch.LongStorage({})) end  -- one sample: 0-dim, as PyTorch
    return reduce(l, r)
  end
  local x2, t2, single = class_args(op, x, t)
  local w = class_weight(op, opts.weight, x2)
  if e == 0 and r ~= 'none' then
    local l = torch.crossEntropy(x, t2, { weights = w, sizeAverage = r == 'mean', ignoreIndex = ign })
    return r == 'mean' and F._classMean(l, t2, w, ign) or l
  end
  local C = x2:size(2)
  local keep = torch.ne(t2, ign)
  local safe = torch.cmul(t2, keep:typeAs(t2)):add(torch.eq(t2, ign):typeAs(t2))  -- ignored rows read as class 1
  if safe:nElement() > 0 and (safe:max() > C or safe:min() < 1) then
    fail(op, 'target out of range [1, %d]', C)
  end
  local logp = torch.logSoftmax(x2, 2)
  local nll, wy = picked(logp, t2, w, ign)
  local l = nll
  if e > 0 then
    local lw = w and torch.cmul(logp, w:view(1, C):expandAs(logp)) or logp
    local smooth = torch.neg(torch.cmul(torch.sum(lw, 2):view(-1), keep:typeAs(logp)))
    l = torch.add(torch.mul(nll, 1 - e), torch.mul(smooth, e / C))
  end
  if r == 'none' then return single and l:view(torch.LongStorage({})) or l end  -- one sample: 0-dim, as PyTorch
  if r == 'sum' then return l:sum() end
  local total = wy:detach():sum()
  if total == 0 then return no_weight(l:sum()) end  -- Note [Mean over no weight]
  return A.div(l:sum(), total)
end

-- K-dim class losses (N x C x d1 x ...): the class dim moved last and the rest flattened into
-- rows; 'none' gets the N x d1 x ... shape back.
local function spatial(op, rows, x, t, o)
  if not torch.isTensor(x) or x:dim() <= 2 then return rows(x, t, o) end
  local n, C = x:dim(), x:size(2)
  local perm, shape = { 1 }, { x:size(1) }
  for i = 3, n do perm[#perm + 1] = i shape[#shape + 1] = x:size(i) end
  perm[#perm + 1] = 2
  local xf = x:permute(unpack(perm)):reshape(-1, C)
  if torch.isTensor(t) and nn.utils.isFloating(t) and t:isSameSizeAs(x) then
    t = t:permute(unpack(perm)):reshape(-1, C)
  elseif torch.isTensor(t) then
    local ok = t:dim() == n - 1
    for i = 1, n - 1 do ok = ok and t:size(i) == shape[i] end
    if not ok then
      fail(op, 'scores of size %s need class targets of size %s, got %s', A.shape(x), table.concat(shape, 'x'),
        A.shape(t))
    end
    t = t:reshape(-1)
  end
  local l = rows(xf, t, o)
  if torch.isTensor(l) and l:dim() == 1 and l:size(1) == xf:size(1) then l = l:view(torch.LongStorage(shape)) end
  return l
end

--- nn.functional.nllLoss(logProbs, target [, {reduction = 'mean', weight =, ignoreIndex = -100}]):
--- -w_y logProbs[y] per row (N x C or C, or N x C x d1 x ... with targets N x d1 x ...; 1-based class targets), averaged over the total weight
--- of the non-ignored targets ('mean'). 'mean' and 'sum' run torch.nllLoss.
function F.nllLoss(x, t, o) return spatial('nllLoss', nll_rows, x, t, o) end

--- nn.functional.crossEntropy(scores, target [, {reduction = 'mean', weight =, ignoreIndex = -100,
--- labelSmoothing = 0}]): nllLoss of logSoftmax(scores) (N x C or C, or N x C x d1 x ... with targets N x d1 x ...). target holds 1-based
--- classes, or class probabilities of the scores' size (then -sum_j w_j y_j logp_j per row, 'mean'
--- divides by N). labelSmoothing e mixes the targets with the uniform distribution: (1 - e) y + e / C.
function F.crossEntropy(x, t, o) return spatial('crossEntropy', ce_rows, x, t, o) end

return F
