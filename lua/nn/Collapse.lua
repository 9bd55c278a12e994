-- nn.Collapse(nInputDim): flattens each sample into a vector (Torch7's nn, from dpnn): an input
-- with more than nInputDim dims is a batch (B x ...) and becomes B x features; otherwise the whole
-- input becomes one vector. Built from differentiable views.
local S = require 'nn.support'
local Collapse, parent = torch.class('nn.Collapse', 'nn.Module')

function Collapse:__init(nInputDim)
  parent.__init(self)
  S.argInt('nn.Collapse', 'nInputDim', nInputDim, 0)
  self.nInputDim = nInputDim
end

function Collapse:updateOutput(input)
  if not torch.isTensor(input) or input:dim() == 0 then
    S.fail(string.format('nn.Collapse(%d)', self.nInputDim), 'expected a tensor with at least one dim, got %s',
      S.describe(input))
  end
  local x = input:contiguous()
  if input:dim() > self.nInputDim then
    -- explicit sizes: a -1 cannot be resolved for an empty batch
    local rest = 1
    for k = 2, input:dim() do rest = rest * input:size(k) end
    self.output = x:view(input:size(1), rest)
  else
    self.output = x:view(input:nElement())
  end
  return self.output
end

return Collapse
