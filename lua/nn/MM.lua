-- nn.MM([transA = false, transB = false]): the matrix product of a table {A, B} of matrices, or
-- of batches of matrices (3D, bmm), with A and/or B transposed first.
local S = require 'nn.support'
local MM, parent = torch.class('nn.MM', 'nn.Module')

function MM:__init(transA, transB)
  parent.__init(self)
  self.transA = S.argBool('nn.MM', 'transA', transA)
  self.transB = S.argBool('nn.MM', 'transB', transB)
  self.gradInput = { torch.Tensor(), torch.Tensor() }
end

local function name(self)
  return string.format('nn.MM(%s, %s)', tostring(self.transA), tostring(self.transB))
end

-- A and B as used in the product (transposed as asked), and the dims of the matrix part.
local function operands(self, input)
  S.tensors(name(self), input, 2)
  local a, b = input[1], input[2]
  local nd = a:dim()
  if (nd ~= 2 and nd ~= 3) or b:dim() ~= nd or (nd == 3 and a:size(1) ~= b:size(1)) then
    S.fail(name(self), 'expected two matrices or two batches of matrices, got %s', S.describe(input))
  end
  local h, w = nd - 1, nd
  if self.transA then a = a:transpose(h, w) end
  if self.transB then b = b:transpose(h, w) end
  if a:size(w) ~= b:size(h) then
    S.fail(name(self), 'cannot multiply %s by %s', S.sizestr(a), S.sizestr(b))
  end
  return a, b, h, w
end

function MM:updateOutput(input)
  local a, b, h = operands(self, input)
  if h == 1 then torch.mm(self.output, a, b) else torch.bmm(self.output, a, b) end
  return self.output
end

-- With C = op(A) op(B): dop(A) = dC op(B)^T and dop(B) = op(A)^T dC, transposed back when op is.
function MM:updateGradInput(input, gradOutput)
  local a, b, h, w = operands(self, input)
  S.gradLike(name(self), gradOutput, h == 1 and { a:size(1), b:size(2) } or { a:size(1), a:size(2), b:size(3) })
  local mul = h == 1 and torch.mm or torch.bmm
  local go = gradOutput
  if type(self.gradInput) ~= 'table' then self.gradInput = {} end
  local g1 = torch.isTensor(self.gradInput[1]) and self.gradInput[1] or a.new()
  local g2 = torch.isTensor(self.gradInput[2]) and self.gradInput[2] or a.new()
  if self.transA then mul(g1, b, go:transpose(h, w)) else mul(g1, go, b:transpose(h, w)) end
  if self.transB then mul(g2, go:transpose(h, w), a) else mul(g2, a:transpose(h, w), go) end
  self.gradInput = { g1, g2 }
  return self.gradInput
end

return MM
