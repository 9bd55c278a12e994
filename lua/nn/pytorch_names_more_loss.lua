-- nn.TripletMarginWithDistanceLoss (PyTorch's), and the reduction = 'none' support it shares
-- with nn.CTCCriterion: withNone(cls) gives a subclass of nn.FunctionalCriterion (whose _loss(
-- input, target, reduction) computes the loss with recorded ops) PyTorch's per-sample losses.
-- Note [Criterions with reduction none]: as the PyTorch-named losses (Note [PyTorch-named
-- losses]), forward returns the per-sample tensor for 'none' (a number otherwise), backward the
-- gradient of its sum, and c(input, target) the recorded loss, so c(x, y):sum():backward() works.
require 'nn.FunctionalCriterion'
require 'nn.functional_more'
local P = require 'nn.pytorch_names_args'
local lib = require 'torch.lib'
local M = {}

-- Gives cls (a subclass of nn.FunctionalCriterion holding self.reduction, whose _reduction()
-- answers 'sum' while self.reduction is 'sum') 'none' support.
function M.withNone(cls)
  local FC = nn.FunctionalCriterion
  function cls:updateOutput(input, target)
    if self.reduction ~= 'none' then return FC.updateOutput(self, input, target) end
    self.output = torch.noGrad(function() return self:_loss(input, target, 'none') end)
    return self.output
  end
  function cls:updateGradInput(input, target)
    if self.reduction ~= 'none' then return FC.updateGradInput(self, input, target) end
    self.reduction = 'sum'
    local ok, r = pcall(FC.updateGradInput, self, input, target)
    self.reduction = 'none'
    if not ok then error(r, 0) end
    return r
  end
  function cls:loss(input, target)
    if self.reduction ~= 'none' then return nn.Criterion.loss(self, input, target) end
    return self:_loss(input, target, 'none')
  end
end

local REDUCTIONS = { mean = true, sum = true, none = true }

-- nn.TripletMarginWithDistanceLoss([distanceFunction, margin = 1, swap = false, reduction = 'mean']
-- or a trailing options table): PyTorch's, on input {anchor, positive, negative} (the target is
-- ignored); distanceFunction(x1, x2), a Lua function of recorded ops, returns per-sample
-- distances; nil is nn.functional.pairwiseDistance.
-- Note [Distance functions are functions]: PyTorch takes any callable, nn.PairwiseDistance()
-- included; here a module is refused, since the loss calls it two or three times in one graph and
-- a Torch7-style module's backward only knows its last forward (Note [Modules and autograd]):
-- wrap the computation in a function (function(a, b) return nn.functional.pairwiseDistance(a, b,
-- 1) end).
do
  local name = 'nn.TripletMarginWithDistanceLoss'
  local cls, parent = torch.class(name, 'nn.FunctionalCriterion')
  function cls:__init(...)
    parent.__init(self)
    local o = P.parse(name, { 'distanceFunction', 'margin', 'swap', 'reduction' }, ...)
    local d = o.distanceFunction
    if d ~= nil and type(d) ~= 'function' then
      lib.fail(name, 'expected distanceFunction to be a function (x1, x2) -> distances (a module is not accepted: '
        .. 'Note [Distance functions are functions]), got %s', nn.utils.describe(d))
    end
    self.distanceFunction = d
    self.margin = P.number(name, 'margin', o.margin, 1)
    if self.margin <= 0 then lib.fail(name, 'margin must be > 0, got %g', self.margin) end
    self.swap = P.bool(name, 'swap', o.swap, false)
    self.reduction = o.reduction or 'mean'
    if not REDUCTIONS[self.reduction] then
      lib.fail(name, "reduction must be 'mean', 'sum' or 'none', got %s", tostring(self.reduction))
    end
    self.sizeAverage = self.reduction == 'mean'
  end
  function cls:_loss(input, _, r)
    if type(input) ~= 'table' or torch.isTensor(input) or #input ~= 3 then
      lib.fail(name, 'expected input {anchor, positive, negative}, got %s', nn.utils.describe(input))
    end
    local d = self.distanceFunction
    return nn.functional.tripletMarginWithDistanceLoss(input[1], input[2], input[3],
      { distanceFunction = d, margin = self.margin, swap = self.swap, reduction = r })
  end
  function cls:_reduction() return self.reduction end
  M.withNone(cls)
  function cls:__tostring__()
    return string.format('%s(margin=%g%s, reduction=%s)', name, self.margin, self.swap and ', swap' or '', self.reduction)
  end
end

return M
