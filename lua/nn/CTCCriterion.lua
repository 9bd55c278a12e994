-- nn.CTCCriterion([blank = 1] [, reduction = 'mean'] [, zeroInfinity = false]): PyTorch's CTCLoss
-- as a criterion, computed by nn.functional.ctcLoss (Note [CTC by recorded ops]).
--
-- Note [CTCCriterion arguments]: PyTorch-like, not warp-ctc's Torch7 criterion (which took raw
-- activations batch-first and label tables): input is log-softmax output T x N x C (time first,
-- e.g. nn.LogSoftMax over the last dim), target the table {targets, inputLengths, targetLengths}
-- with ctcLoss's forms (targets N x S padded or 1-D concatenated; lengths tables or integer
-- tensors). blank is a 1-based class. reduction is 'mean' (each loss over its target length,
-- averaged: PyTorch's), 'sum' or 'none': forward then gives the per-sample losses (a tensor of N),
-- backward the gradient of their sum, c(input, target) the recorded losses (Note [Criterions with
-- reduction none], nn/pytorch_names_more_loss.lua).
require 'nn.FunctionalCriterion'
local A = require 'nn.functional_args'
local none = require 'nn.pytorch_names_more_loss'
local CTC, parent = torch.class('nn.CTCCriterion', 'nn.FunctionalCriterion')

function CTC:__init(blank, reduction, zeroInfinity)
  parent.__init(self)
  local name = 'nn.CTCCriterion'
  self.blank = A.int(name, blank, 'blank', 1)
  if self.blank < 1 then A.fail(name, 'blank must be a class index >= 1, got %d', self.blank) end
  self.reduction = reduction or 'mean'
  if self.reduction ~= 'mean' and self.reduction ~= 'sum' and self.reduction ~= 'none' then
    A.fail(name, "reduction must be 'mean', 'sum' or 'none', got %s", tostring(self.reduction))
  end
  self.sizeAverage = self.reduction == 'mean'
  self.zeroInfinity = A.bool(name, zeroInfinity, 'zeroInfinity', false)
end

-- reduction and sizeAverage agree unless a Torch7 script set sizeAverage after construction
function CTC:_reduction()
  if self.reduction == 'none' then return 'none' end
  return self.sizeAverage and 'mean' or 'sum'
end

function CTC:_loss(input, target, r)
  if type(target) ~= 'table' or #target ~= 3 then
    A.fail(tostring(self), 'expected the target {targets, inputLengths, targetLengths}, got %s', nn.utils.describe(target))
  end
  return nn.functional.ctcLoss(input, target[1], target[2], target[3],
    { blank = self.blank, reduction = r, zeroInfinity = self.zeroInfinity })
end

none.withNone(CTC)

function CTC:__tostring__()
  return string.format('nn.CTCCriterion(blank %d, %s%s)', self.blank, self:_reduction(),
    self.zeroInfinity and ', zeroInfinity' or '')
end

return CTC
