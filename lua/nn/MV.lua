-- nn.MV([trans = false]): the matrix-vector product of a table {M, v}: M (m x n) and v (n), or
-- batches M (N x m x n) and v (N x n); trans uses M's transpose.
local S = require 'nn.support'
local MV, parent = torch.class('nn.MV', 'nn.Module')

function MV:__init(trans)
  parent.__init(self)
  self.trans = S.argBool('nn.MV', 'trans', trans)
  self.gradInput = { torch.Tensor(), torch.Tensor() }
end

local function name(self) return string.format('nn.MV(%s)', tostring(self.trans)) end

-- M as used (transposed when asked) and v as a column (batch: N x n x 1).
local function operands(self, input)
  S.tensors(name(self), input, 2)
  local m, v = input[1], input[2]
  local batch = m:dim() == 3
  if not ((m:dim() == 2 and v:dim() == 1) or (batch and v:dim() == 2 and v:size(1) == m:size(1))) then
    S.fail(name(self), 'expected {matrix, vector} or {N x m x n, N x n}, got %s', S.describe(input))
  end
  if self.trans then m = m:transpose(m:dim() - 1, m:dim()) end
  if m:size(m:dim()) ~= v:size(v:dim()) then
    S.fail(name(self), 'cannot multiply a %s matrix by a vector of %d', S.sizestr(m), v:size(v:dim()))
  end
  return m, v, batch
end

function MV:updateOutput(input)
  local m, v, batch = operands(self, input)
  if batch then
    self._out = self._out or m.new()
    torch.bmm(self._out, m, v:contiguous():view(v:size(1), v:size(2), 1))
    self.output = self._out:view(m:size(1), m:size(2))
  else
    torch.mv(self.output, m, v)
  end
  return self.output
end

-- y = op(M) v: dop(M) = dy v^T (per batch element) and dv = op(M)^T dy.
function MV:updateGradInput(input, gradOutput)
  local m, v, batch = operands(self, input)
  S.gradLike(name(self), gradOutput, batch and { m:size(1), m:size(2) } or { m:size(1) })
  local gM, gv
  if batch then
    local N = m:size(1)
    local go = gradOutput:contiguous():view(N, m:size(2), 1)
    gM = torch.bmm(go, v:contiguous():view(N, 1, v:size(2)))
    gv = torch.bmm(m:transpose(2, 3), go):view(N, m:size(3))
    if self.trans then gM = gM:transpose(2, 3) end
  else
    gM = torch.ger(gradOutput, v)
    gv = torch.mv(m:t(), gradOutput)
    if self.trans then gM = gM:t() end
  end
  self.gradInput = { gM:contiguous(), gv }
  return self.gradInput
end

return MV
