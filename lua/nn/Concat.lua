-- nn.Concat(dim): applies every child to the same input and concatenates their outputs along dim
-- (negative counts from the end). gradInput is the sum of the children's gradInputs (tensors, or
-- tables of them when the input is a table).
require 'nn.Container'
local S = require 'nn.support'
local Concat, parent = torch.class('nn.Concat', 'nn.Container')

function Concat:__init(dimension)
  parent.__init(self)
  self.dimension = S.argInt('nn.Concat', 'dimension', dimension)
  if dimension == 0 then error('[nn.Concat] dimension 0 is out of range (dims are 1-based)', torch._lib.user_level()) end
end

local function name(self) return string.format('nn.Concat(%d)', self.dimension) end

-- The concatenation dim and each child's extent along it, checking the outputs fit together.
local function layout(self, outs)
  local first = outs[1]
  if not torch.isTensor(first) then S.fail(name(self), 'module 1 returned %s, expected a tensor', S.describe(first)) end
  local d = S.dim(name(self), self.dimension, first)
  for i = 2, #outs do
    local o = outs[i]
    local ok = torch.isTensor(o) and o:dim() == first:dim()
    for k = 1, ok and first:dim() or 0 do
      if k ~= d and o:size(k) ~= first:size(k) then ok = false end
    end
    if not ok then
      S.fail(name(self), 'module %d returned %s but module 1 returned size %s: they must match except along dimension %d',
        i, S.describe(o), S.sizestr(first), d)
    end
  end
  return d
end

function Concat:updateOutput(input)
  if #self.modules == 0 then S.fail(name(self), 'has no modules') end
  local outs = {}
  for i, m in ipairs(self.modules) do outs[i] = self:rethrowErrors(m, i, 'forward', input) end
  local d = layout(self, outs)
  self._dim = d
  -- Under autograd a fresh tensor is recorded as the cat of the children's outputs; otherwise the
  -- output buffer is reused (Torch7).
  if S.recording(outs) then self.output = torch.cat(outs, d)
  else
    if not torch.isTensor(self.output) or self.output:needsGrad() then self.output = outs[1].new() end
    torch.cat(self.output, outs, d)
  end
  return self.output
end

-- Runs method on each child with its slice of gradOutput; sums the children's gradInputs.
local function backward(self, method, input, gradOutput, scale)
  local d = self._dim or S.dim(name(self), self.dimension, S.tensor(name(self), gradOutput, 'a gradOutput'))
  local sizes = self.modules[1].output:size():totable()
  sizes[d] = 0
  for _, m in ipairs(self.modules) do sizes[d] = sizes[d] + m.output:size(d) end
  S.gradLike(name(self), gradOutput, sizes)
  local pieces, offset = {}, 1
  for i, m in ipairs(self.modules) do
    local n = m.output:size(d)
    pieces[i] = gradOutput:narrow(d, offset, n)
    offset = offset + n
  end
  return self:_childrenBackward(method, input, pieces, scale)
end
Concat._branchBackward = backward

-- Runs method on each child with its piece of gradOutput; sums the children's gradInputs (shared
-- with nn.DepthConcat, whose pieces are windows).
function Concat:_childrenBackward(method, input, pieces, scale)
  local first = true
  for i, m in ipairs(self.modules) do
    local gi = self:rethrowErrors(m, i, method, input, pieces[i], scale)
    if method ~= 'accGradParameters' and method ~= 'accUpdateGradParameters' and gi ~= nil then
      if first then self.gradInput = S.copyInto(self.gradInput, gi) first = false
      else S.addInto(self.gradInput, gi) end
    end
  end
  return self.gradInput
end

function Concat:updateGradInput(input, gradOutput) return self:_branchBackward('updateGradInput', input, gradOutput) end
function Concat:backward(input, gradOutput, scale) return self:_branchBackward('backward', input, gradOutput, scale or 1) end
function Concat:accGradParameters(input, gradOutput, scale)
  self:_branchBackward('accGradParameters', input, gradOutput, scale or 1)
end
function Concat:accUpdateGradParameters(input, gradOutput, lr)
  self:_branchBackward('accUpdateGradParameters', input, gradOutput, lr)
end

function Concat:__tostring__() return self:_branchString('   `-> ', '       ') end

return Concat
