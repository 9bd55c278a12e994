-- PyTorch's loss names as subclasses of Torch7's criterions: nn.CrossEntropyLoss, NLLLoss, MSELoss,
-- L1Loss, SmoothL1Loss, HuberLoss, BCELoss, BCEWithLogitsLoss, KLDivLoss, TripletMarginLoss, with
-- PyTorch's options as a trailing camelCase table ({weight =, reduction = 'mean' | 'sum' | 'none',
-- ignoreIndex =, labelSmoothing =, beta =, delta =, margin =, posWeight =, ...}) or positionals in
-- PyTorch's order. Class targets and ignoreIndex are 1-based (Tocha's indices).
-- Note [PyTorch-named losses]: with reduction 'mean' or 'sum' and only options the Torch7 parent
-- has, the parent computes the loss (its fused ops). Otherwise (reduction 'none', labelSmoothing,
-- SmoothL1's beta, K-dim class targets, BCELoss always: PyTorch clamps its logs at -100 where
-- Torch7's BCECriterion adds 1e-12) the nn.functional loss computes it: forward gives a number, or
-- the per-element tensor for 'none'; backward gives the gradient of the loss (of its sum for
-- 'none'); c(input, target) returns the recorded loss, so c(x, y):sum():backward() works.
-- PyTorch's deprecated sizeAverage/reduce map to a reduction as PyTorch does.
local P = require 'nn.pytorch_names_args'
local lib = require 'torch.lib'
local F = nn.functional
for _, f in ipairs({ 'CrossEntropyCriterion', 'ClassNLLCriterion', 'MSECriterion', 'AbsCriterion',
  'SmoothL1Criterion', 'HuberCriterion', 'BCECriterion', 'BCEWithLogitsCriterion', 'KLDivCriterion',
  'TripletMarginCriterion' }) do
  require('nn.' .. f)
end

local C = require 'nn.pytorch_loss_class'
local reduction, define = C.reduction, C.define

local function tensor_opt(name, what, v)
  if v ~= nil and not torch.isTensor(v) then
    lib.fail(name, 'expected %s to be a tensor, got %s', what, nn.utils.describe(v))
  end
  return v
end

local function class_functional(self, input, target)
  return (self.labelSmoothing or 0) ~= 0 or (torch.isTensor(input) and input:dim() > 2)
      or (torch.isTensor(target) and nn.utils.isFloating(target))
end
local function class_init(ce)
  return function(self, o, r, parent)
    local name = torch.typename(self)
    local w = tensor_opt(name, 'weight', o.weight)
    parent.__init(self, w, r ~= 'sum', P.int(name, 'ignoreIndex', o.ignoreIndex, -100, -math.huge))
    if ce then
      self.labelSmoothing = P.number(name, 'labelSmoothing', o.labelSmoothing, 0)
      if self.labelSmoothing < 0 or self.labelSmoothing > 1 then
        lib.fail(name, 'labelSmoothing must be in [0, 1], got %g', self.labelSmoothing)
      end
    end
  end
end
-- The fused parent's 'mean' with PyTorch's nan where the total target weight is 0 (Note [Mean
-- over no weight], nn/functional_loss_margin.lua); the parent checked input and target.
local I64 = lib.dtype.i64
local function class_mean(self, l, input, target)
  if self.reduction ~= 'mean' or not torch.isTensor(input) then return l end
  if not torch.isTensor(l) and l ~= 0 then return l end  -- the common case reads nothing more
  local t = target
  if type(t) == 'number' then
    t = torch.LongTensor({ t })
    if input.p.device_type ~= 0 then t = t:to(input:device()) end
  elseif t.p.dtype ~= I64 then
    t = t:to('torch.LongTensor')
  end
  return F._classMean(l, t:contiguous():view(-1), self:_options(input).weights, self.ignoreIndex)
end
local function class_opts(self)
  return { reduction = self.reduction, weight = self.weights, ignoreIndex = self.ignoreIndex,
           labelSmoothing = self.labelSmoothing }
end

-- nn.CrossEntropyLoss([{weight =, ignoreIndex = -100, reduction = 'mean', labelSmoothing = 0}]):
-- PyTorch's CrossEntropyLoss on scores (C, N x C or N x C x d...) and 1-based class targets (or
-- class probabilities of the input's size).
define('nn.CrossEntropyLoss', 'nn.CrossEntropyCriterion', {
  names = { 'weight', 'sizeAverage', 'ignoreIndex', 'reduce', 'reduction', 'labelSmoothing' },
  init = class_init(true), functional = class_functional, mean = class_mean,
  f = function(self, x, t) return F.crossEntropy(x, t, class_opts(self)) end })

-- nn.NLLLoss([{weight =, ignoreIndex = -100, reduction = 'mean'}]): PyTorch's NLLLoss, 1-based targets.
define('nn.NLLLoss', 'nn.ClassNLLCriterion', {
  names = { 'weight', 'sizeAverage', 'ignoreIndex', 'reduce', 'reduction' },
  init = class_init(false), functional = class_functional, mean = class_mean,
  f = function(self, x, t) return F.nllLoss(x, t, class_opts(self)) end })

local function plain(f)
  return {
    names = { 'sizeAverage', 'reduce', 'reduction' },
    init = function(self, o, r, parent) parent.__init(self, r ~= 'sum') end,
    f = function(self, x, t) return f(x, t, { reduction = self.reduction }) end }
end
-- nn.MSELoss([{reduction = 'mean'}]) and nn.L1Loss([{reduction = 'mean'}]): PyTorch's.
define('nn.MSELoss', 'nn.MSECriterion', plain(F.mseLoss))
define('nn.L1Loss', 'nn.AbsCriterion', plain(F.l1Loss))

-- nn.SmoothL1Loss([{reduction = 'mean', beta = 1}]): PyTorch's SmoothL1Loss.
define('nn.SmoothL1Loss', 'nn.SmoothL1Criterion', {
  names = { 'sizeAverage', 'reduce', 'reduction', 'beta' },
  init = function(self, o, r, parent)
    parent.__init(self, r ~= 'sum')
    self.beta = P.number('nn.SmoothL1Loss', 'beta', o.beta, 1)
    if self.beta < 0 then lib.fail('nn.SmoothL1Loss', 'beta must be >= 0, got %g', self.beta) end
  end,
  functional = function(self) return self.beta ~= 1 end,
  f = function(self, x, t) return F.smoothL1Loss(x, t, { reduction = self.reduction, beta = self.beta }) end })

-- nn.HuberLoss([{reduction = 'mean', delta = 1}]): PyTorch's HuberLoss.
define('nn.HuberLoss', 'nn.HuberCriterion', {
  names = { 'reduction', 'delta' },
  init = function(self, o, r, parent)
    local delta = P.number('nn.HuberLoss', 'delta', o.delta, 1)
    if delta <= 0 then lib.fail('nn.HuberLoss', 'delta must be > 0, got %g', delta) end
    parent.__init(self, delta, r ~= 'sum')
  end,
  f = function(self, x, t) return F.huberLoss(x, t, { reduction = self.reduction, delta = self.delta }) end })

-- nn.BCELoss([{weight =, reduction = 'mean'}]): PyTorch's BCELoss (logs clamped at -100).
define('nn.BCELoss', 'nn.BCECriterion', {
  names = { 'weight', 'sizeAverage', 'reduce', 'reduction' },
  init = function(self, o, r, parent) parent.__init(self, tensor_opt('nn.BCELoss', 'weight', o.weight), r ~= 'sum') end,
  functional = function() return true end,
  f = function(self, x, t) return F.binaryCrossEntropy(x, t, { reduction = self.reduction, weight = self.weights }) end })

-- nn.BCEWithLogitsLoss([{weight =, reduction = 'mean', posWeight =}]): PyTorch's BCEWithLogitsLoss.
define('nn.BCEWithLogitsLoss', 'nn.BCEWithLogitsCriterion', {
  names = { 'weight', 'sizeAverage', 'reduce', 'reduction', 'posWeight' },
  init = function(self, o, r, parent)
    parent.__init(self, tensor_opt('nn.BCEWithLogitsLoss', 'weight', o.weight),
      tensor_opt('nn.BCEWithLogitsLoss', 'posWeight', o.posWeight), r ~= 'sum')
  end,
  f = function(self, x, t)
    return F.binaryCrossEntropyWithLogits(x, t, { reduction = self.reduction, weight = self.weights,
                                                  posWeight = self.posWeight })
  end })

-- nn.KLDivLoss([{reduction = 'mean' | 'batchmean' | 'sum' | 'none', logTarget = false}]): PyTorch's.
define('nn.KLDivLoss', 'nn.KLDivCriterion', {
  names = { 'sizeAverage', 'reduce', 'reduction', 'logTarget' }, extraReduction = 'batchmean',
  init = function(self, o, r, parent)
    parent.__init(self, { logTarget = P.bool('nn.KLDivLoss', 'logTarget', o.logTarget, false),
                          batchMean = r == 'batchmean', sizeAverage = r ~= 'sum' })
  end,
  f = function(self, x, t) return F.klDiv(x, t, { reduction = self.reduction, logTarget = self.logTarget }) end })

-- nn.TripletMarginLoss([{margin = 1, p = 2, eps = 1e-6, swap = false, reduction = 'mean'}]): PyTorch's,
-- on input {anchor, positive, negative} (the target is ignored).
define('nn.TripletMarginLoss', 'nn.TripletMarginCriterion', {
  names = { 'margin', 'p', 'eps', 'swap', 'sizeAverage', 'reduce', 'reduction' },
  init = function(self, o, r, parent)
    local name = 'nn.TripletMarginLoss'
    parent.__init(self, P.number(name, 'margin', o.margin, 1), { p = P.number(name, 'p', o.p, 2),
      eps = P.number(name, 'eps', o.eps, 1e-6), swap = P.bool(name, 'swap', o.swap, false), sizeAverage = r ~= 'sum' })
  end,
  f = function(self, x)
    if type(x) ~= 'table' or torch.isTensor(x) or #x ~= 3 then
      lib.fail('nn.TripletMarginLoss', 'expected input {anchor, positive, negative}, got %s', nn.utils.describe(x))
    end
    return F.tripletMarginLoss(x[1], x[2], x[3], { reduction = self.reduction, margin = self.margin, p = self.p,
                                                   eps = self.eps, swap = self.swap })
  end })

return nn.CrossEntropyLoss
