-- nn.DotProduct(): the dot product of the two tensors of {a, b}: vectors (-> a 1-element
-- vector) or batches of rows (N x d -> N).
local S = require 'nn.support'
local DotProduct, parent = torch.class('nn.DotProduct', 'nn.Module')

function DotProduct:__init()
  parent.__init(self)
  self.gradInput = { torch.Tensor(), torch.Tensor() }
end

-- a and b as batches of rows.
local function rows(name, input)
  S.tensors(name, input, 2)
  local a, b = input[1], input[2]
  if (a:dim() ~= 1 and a:dim() ~= 2) or not a:isSameSizeAs(b) then
    S.fail(name, 'expected two vectors or two batches (N x d) of the same size, got %s', S.describe(input))
  end
  if a:dim() == 1 then return a:view(1, -1), b:view(1, -1) end
  return a, b
end

function DotProduct:updateOutput(input)
  local a, b = rows('nn.DotProduct', input)
  self._prod = self._prod or a.new()
  torch.cmul(self._prod, a, b)
  torch.sum(self.output, self._prod, 2)
  self.output:resize(a:size(1))
  return self.output
end

function DotProduct:updateGradInput(input, gradOutput)
  local a, b = rows('nn.DotProduct', input)
  if not torch.isTensor(gradOutput) or gradOutput:nElement() ~= a:size(1) then
    S.fail('nn.DotProduct', 'gradOutput is %s, expected %d values', S.describe(gradOutput), a:size(1))
  end
  local go = gradOutput:contiguous():view(-1, 1):expandAs(a)
  local g1 = torch.cmul(b, go):view(input[1]:size())
  local g2 = torch.cmul(a, go):view(input[2]:size())
  self.gradInput = { g1, g2 }
  return self.gradInput
end

return DotProduct
