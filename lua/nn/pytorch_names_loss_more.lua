-- The rest of PyTorch 1.13's losses under their PyTorch names, as subclasses of the criterions
-- with the same semantics: nn.SoftMarginLoss, PoissonNLLLoss, GaussianNLLLoss, MarginRankingLoss,
-- HingeEmbeddingLoss, MultiLabelMarginLoss, MultiLabelSoftMarginLoss, CosineEmbeddingLoss,
-- MultiMarginLoss, CTCLoss. Options, reductions, the legacy sizeAverage/reduce flags, forward/
-- backward and c(input, target) follow Note [PyTorch-named losses] (nn/pytorch_names_loss.lua):
-- the parent computes 'mean' and 'sum' where it gives PyTorch's value, nn.functional's loss the
-- rest ('none' always). Class targets and CTC's blank are 1-based (Tocha's indices).
--
-- Note [Losses of several tensors]: PyTorch calls MarginRankingLoss(x1, x2, y),
-- CosineEmbeddingLoss(x1, x2, y), GaussianNLLLoss(input, target, var) and CTCLoss(logProbs,
-- targets, inputLengths, targetLengths); the call form c(...) takes these orders. Torch7's
-- forward(input, target)/backward(input, target) keep the parents' packing: input {x1, x2} with
-- target y, input {input, var} with the target (backward gives {gradInput, gradVar}), and CTC's
-- logProbs with the target {targets, inputLengths, targetLengths}. The call form accepts the
-- packed form too (c({x1, x2}, y)), so containers such as nn.ParallelCriterion, which pass one
-- input and one target, work.
local P = require 'nn.pytorch_names_args'
local lib = require 'torch.lib'
for _, f in ipairs({ 'SoftMarginCriterion', 'PoissonNLLCriterion', 'GaussianNLLCriterion', 'MarginRankingCriterion',
  'HingeEmbeddingCriterion', 'MultiLabelMarginCriterion', 'MultiLabelSoftMarginCriterion', 'CosineEmbeddingCriterion',
  'MultiMarginCriterion', 'CTCCriterion' }) do
  require('nn.' .. f)
end
require 'nn.functional_loss'
require 'nn.functional_loss_margin'
require 'nn.functional_more2'
require 'nn.functional_ctc'
local F = nn.functional

local describe = nn.utils.describe
local C = require 'nn.pytorch_loss_class'
local define, reduction = C.define, C.reduction
local function is_pack(v) return type(v) == 'table' and not torch.isTensor(v) end

-- A class-weight option: nil or a 1-D tensor.
local function weight_opt(name, v)
  if v ~= nil and (not torch.isTensor(v) or v:dim() ~= 1) then
    lib.fail(name, 'expected weight to be a 1-D tensor (one per class), got %s', describe(v))
  end
  return v
end

-- A loss with the reduction options only, on a parent built from sizeAverage (SoftMarginLoss).
local function plain(f)
  return {
    names = { 'sizeAverage', 'reduce', 'reduction' },
    init = function(self, o, r, parent) parent.__init(self, r ~= 'sum') end,
    f = function(self, x, t) return f(x, t, { reduction = self.reduction }) end }
end

--- nn.SoftMarginLoss([{reduction = 'mean'}]): PyTorch's SoftMarginLoss, log(1 + exp(-y x)) for
--- targets y = +-1 of the input's size.
--- Example: print(nn.SoftMarginLoss():forward(torch.randn(4), torch.Tensor({1, -1, 1, 1})))
define('nn.SoftMarginLoss', 'nn.SoftMarginCriterion', plain(F.softMarginLoss))

--- nn.MultiLabelMarginLoss([{reduction = 'mean'}]): PyTorch's MultiLabelMarginLoss on scores (C or
--- N x C) and a LongTensor target of their size listing each sample's 1-based classes, ended by the
--- first 0 (PyTorch's -1 after 0-based classes).
--- Example: print(nn.MultiLabelMarginLoss():forward(torch.randn(2, 4), torch.LongTensor({{4, 1, 0, 0}, {2, 0, 0, 0}})))
define('nn.MultiLabelMarginLoss', 'nn.MultiLabelMarginCriterion', {
  names = { 'sizeAverage', 'reduce', 'reduction' },
  init = function(self, _, r, parent)
    parent.__init(self)
    self.sizeAverage = r ~= 'sum'
  end,
  f = function(self, x, t) return F.multilabelMarginLoss(x, t, { reduction = self.reduction }) end })

-- FunctionalCriterion parents compute with self:_loss (nn.functional) in every reduction.
local function by_parent_loss(self, x, t) return self:_loss(x, t, self.reduction) end

--- nn.PoissonNLLLoss([logInput = true, full = false, sizeAverage, eps = 1e-8, reduce, reduction =
--- 'mean'] or a trailing table): PyTorch's PoissonNLLLoss: exp(x) - y x with logInput, else
--- x - y log(x + eps); full adds Stirling's term.
--- Example: print(nn.PoissonNLLLoss({full = true}):forward(torch.randn(4), torch.Tensor({0, 1, 2, 3})))
define('nn.PoissonNLLLoss', 'nn.PoissonNLLCriterion', {
  names = { 'logInput', 'full', 'sizeAverage', 'eps', 'reduce', 'reduction' },
  init = function(self, o, r, parent)
    local name = 'nn.PoissonNLLLoss'
    parent.__init(self, { logInput = P.bool(name, 'logInput', o.logInput, true),
      full = P.bool(name, 'full', o.full, false), eps = P.number(name, 'eps', o.eps, 1e-8), sizeAverage = r ~= 'sum' })
  end,
  f = by_parent_loss })

--- nn.GaussianNLLLoss([{full = false, eps = 1e-6, reduction = 'mean'}]) (options as a table only:
--- PyTorch's are keyword-only): PyTorch's GaussianNLLLoss, 0.5 (log v + (input - target)^2 / v),
--- v = max(var, eps). c(input, target, var) as PyTorch; forward/backward({input, var}, target)
--- (Note [Losses of several tensors]); var has the input's size or one value per sample.
--- Example: print(nn.GaussianNLLLoss()(torch.randn(3, 2), torch.randn(3, 2), torch.rand(3, 1) + 0.5))
define('nn.GaussianNLLLoss', 'nn.GaussianNLLCriterion', {
  names = { 'full', 'eps', 'reduction' }, keywordOnly = true,
  init = function(self, o, r, parent)
    local name = 'nn.GaussianNLLLoss'
    local eps = P.number(name, 'eps', o.eps, 1e-6)
    if not (eps > 0) then lib.fail(name, 'eps must be > 0, got %s', tostring(eps)) end
    parent.__init(self, { full = P.bool(name, 'full', o.full, false), eps = eps, sizeAverage = r ~= 'sum' })
  end,
  f = by_parent_loss,
  call = function(input, target, var)
    if is_pack(input) then return input, target end
    return { input, var }, target
  end })

-- Pair losses (MarginRankingLoss, CosineEmbeddingLoss): c(x1, x2, y) or c({x1, x2}, y).
local function pair_call(x1, x2, y)
  if is_pack(x1) then return x1, x2 end
  return { x1, x2 }, y
end
local function pair(name, input)
  if not is_pack(input) or #input ~= 2 then
    lib.fail(name, 'expected input {x1, x2} (or the call c(x1, x2, y)), got %s', describe(input))
  end
  return input[1], input[2]
end

--- nn.MarginRankingLoss([margin = 0, sizeAverage, reduce, reduction = 'mean'] or a trailing table):
--- PyTorch's MarginRankingLoss, max(0, -y (x1 - x2) + margin), y = 1 where x1 should rank higher,
--- -1 where x2 should. c(x1, x2, y) as PyTorch; forward/backward({x1, x2}, y) (Note [Losses of
--- several tensors]); a number y labels every pair.
--- Example: print(nn.MarginRankingLoss(0.1)(torch.randn(4), torch.randn(4), torch.Tensor({1, -1, 1, -1})))
define('nn.MarginRankingLoss', 'nn.MarginRankingCriterion', {
  names = { 'margin', 'sizeAverage', 'reduce', 'reduction' },
  init = function(self, o, r, parent)
    parent.__init(self, P.number('nn.MarginRankingLoss', 'margin', o.margin, 0))
    self.sizeAverage = r ~= 'sum'
  end,
  -- a number y for every pair (Torch7's parent would leave a number's loss unaveraged)
  prepare = function(_, input, y)
    if type(y) == 'number' and is_pack(input) and torch.isTensor(input[1]) then
      y = input[1].new(input[1]:size()):fill(y)
    end
    return input, y
  end,
  f = function(self, input, y)
    local x1, x2 = pair('nn.MarginRankingLoss', input)
    return F.marginRankingLoss(x1, x2, y, { reduction = self.reduction, margin = self.margin })
  end,
  call = pair_call })

--- nn.CosineEmbeddingLoss([margin = 0, sizeAverage, reduce, reduction = 'mean'] or a trailing
--- table): PyTorch's CosineEmbeddingLoss per row of x1, x2 (N x D or D): 1 - cos where y = 1,
--- max(0, cos - margin) where y = -1. c(x1, x2, y) as PyTorch; forward/backward({x1, x2}, y)
--- (Note [Losses of several tensors]).
--- Example: print(nn.CosineEmbeddingLoss(0.2)(torch.randn(3, 5), torch.randn(3, 5), torch.Tensor({1, -1, 1})))
define('nn.CosineEmbeddingLoss', 'nn.CosineEmbeddingCriterion', {
  names = { 'margin', 'sizeAverage', 'reduce', 'reduction' },
  init = function(self, o, r, parent)
    parent.__init(self, P.number('nn.CosineEmbeddingLoss', 'margin', o.margin, 0))
    self.sizeAverage = r ~= 'sum'
  end,
  f = function(self, input, y)
    local x1, x2 = pair('nn.CosineEmbeddingLoss', input)
    return F.cosineEmbeddingLoss(x1, x2, y, { reduction = self.reduction, margin = self.margin })
  end,
  call = pair_call })

--- nn.HingeEmbeddingLoss([margin = 1, sizeAverage, reduce, reduction = 'mean'] or a trailing
--- table): PyTorch's HingeEmbeddingLoss on distances x and labels y = +-1: x where y = 1,
--- max(0, margin - x) where y = -1.
--- Example: print(nn.HingeEmbeddingLoss(2):forward(torch.rand(4), torch.Tensor({1, -1, -1, 1})))
define('nn.HingeEmbeddingLoss', 'nn.HingeEmbeddingCriterion', {
  names = { 'margin', 'sizeAverage', 'reduce', 'reduction' },
  init = function(self, o, r, parent)
    parent.__init(self, P.number('nn.HingeEmbeddingLoss', 'margin', o.margin, 1))
    self.sizeAverage = r ~= 'sum'
  end,
  f = function(self, x, y)
    return F.hingeEmbeddingLoss(x, y, { reduction = self.reduction, margin = self.margin })
  end })

--- nn.MultiLabelSoftMarginLoss([weight, sizeAverage, reduce, reduction = 'mean'] or a trailing
--- table): PyTorch's MultiLabelSoftMarginLoss on scores (N x C or C) and 0/1 targets of their size:
--- per sample -(1/C) sum_j w_j (y_j log sigmoid(x_j) + (1 - y_j) log sigmoid(-x_j)).
--- Example: print(nn.MultiLabelSoftMarginLoss():forward(torch.randn(2, 3), torch.Tensor({{1, 0, 1}, {0, 0, 1}})))
define('nn.MultiLabelSoftMarginLoss', 'nn.MultiLabelSoftMarginCriterion', {
  names = { 'weight', 'sizeAverage', 'reduce', 'reduction' },
  init = function(self, o, r, parent)
    parent.__init(self, weight_opt('nn.MultiLabelSoftMarginLoss', o.weight), r ~= 'sum')
  end,
  -- the parent's sum adds every element's loss; PyTorch's sums the per-sample means over C
  functional = function(self) return self.reduction ~= 'mean' end,
  f = function(self, x, t)
    return F.multilabelSoftMarginLoss(x, t, { reduction = self.reduction, weight = self.weights })
  end })

--- nn.MultiMarginLoss([p = 1, margin = 1, weight, sizeAverage, reduce, reduction = 'mean'] or a
--- trailing table): PyTorch's MultiMarginLoss on scores (N x C or C) and 1-based class targets:
--- per sample sum over j ~= y of w_y max(0, margin - x_y + x_j)^p / C; p is 1 or 2.
--- Example: print(nn.MultiMarginLoss({margin = 0.5}):forward(torch.randn(2, 4), torch.LongTensor({4, 1})))
define('nn.MultiMarginLoss', 'nn.MultiMarginCriterion', {
  names = { 'p', 'margin', 'weight', 'sizeAverage', 'reduce', 'reduction' },
  init = function(self, o, r, parent)
    local name = 'nn.MultiMarginLoss'
    local p = P.number(name, 'p', o.p, 1)
    if p ~= 1 and p ~= 2 then lib.fail(name, 'p must be 1 or 2, got %s', tostring(p)) end
    parent.__init(self, p, weight_opt(name, o.weight), P.number(name, 'margin', o.margin, 1))
    self.sizeAverage = r ~= 'sum'
  end,
  f = function(self, x, t)
    return F.multiMarginLoss(x, t, { reduction = self.reduction, p = self.p, margin = self.margin,
                                     weight = self.weights })
  end })

--- nn.CTCLoss([blank = 1, reduction = 'mean', zeroInfinity = false] or a trailing table): PyTorch's
--- CTCLoss (nn.CTCCriterion, computed by nn.functional.ctcLoss) with a 1-based blank (PyTorch's
--- blank = 0 is 1 here). c(logProbs, targets, inputLengths, targetLengths) as PyTorch;
--- forward/backward(logProbs, {targets, inputLengths, targetLengths}) (Note [CTCCriterion arguments]).
--- Example: print(nn.CTCLoss()(torch.randn(5, 2, 4):logSoftmax(3), torch.LongTensor{{2, 3}, {4, 4}}, {5, 5}, {2, 2}))
do
  local name = 'nn.CTCLoss'
  local cls, parent = torch.class(name, 'nn.CTCCriterion')
  function cls:__init(...)
    local o = P.parse(name, { 'blank', 'reduction', 'zeroInfinity' }, ...)
    local blank = P.int(name, 'blank', o.blank, 1, -math.huge)
    if blank < 1 then lib.fail(name, "blank is a 1-based class (PyTorch's blank = 0 is 1 here), got %d", blank) end
    parent.__init(self, blank, reduction(name, o), P.bool(name, 'zeroInfinity', o.zeroInfinity, false))
  end
  function cls:__tostring__() return (parent.__tostring__(self):gsub('^nn%.[%w_]+', name, 1)) end
  function cls:__call__(logProbs, targets, inputLengths, targetLengths)
    if is_pack(targets) then return self:loss(logProbs, targets) end
    return self:loss(logProbs, { targets, inputLengths, targetLengths })
  end
end

return nn.SoftMarginLoss
