-- nn.TripletMarginCriterion([margin = 1] [, {p = 2, eps = 1e-6, swap = false, sizeAverage = true}]):
-- PyTorch's TripletMarginLoss on input {anchor, positive, negative} (N x D or D each; the target
-- is ignored): max(0, margin + d(a, p) - d(a, n)), d the p-norm pairwise distance. Computed by
-- nn.functional.tripletMarginLoss; gradInput is a table of three.
require 'nn.FunctionalCriterion'
local A = require 'nn.functional_args'
local Triplet, parent = torch.class('nn.TripletMarginCriterion', 'nn.FunctionalCriterion')
local known = { p = true, eps = true, swap = true, sizeAverage = true }

function Triplet:__init(margin, opts)
  local name = 'nn.TripletMarginCriterion'
  opts = A.opts(name, opts, known)
  parent.__init(self, opts.sizeAverage)
  self.margin = A.number(name, margin, 'margin', 1)
  self.p = A.number(name, opts.p, 'p', 2)
  self.eps = A.number(name, opts.eps, 'eps', 1e-6)
  self.swap = A.bool(name, opts.swap, 'swap', false)
end

function Triplet:_loss(input, _, r)
  if type(input) ~= 'table' or torch.isTensor(input) or #input ~= 3 then
    A.fail(torch.typename(self), 'expected a table {anchor, positive, negative}, got %s', nn.utils.describe(input))
  end
  return nn.functional.tripletMarginLoss(input[1], input[2], input[3],
    { margin = self.margin, p = self.p, eps = self.eps, swap = self.swap, reduction = r })
end

function Triplet:__tostring__()
  return string.format('nn.TripletMarginCriterion(margin %g, p %g%s)', self.margin, self.p, self.swap and ', swap' or '')
end

return Triplet
