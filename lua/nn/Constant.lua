-- nn.Constant(value[, nInputDim]): outputs a copy of value (a number or a tensor) whatever the
-- input (Torch7's nn, from dpnn); with nInputDim, an input with more dims is a batch and the
-- value is repeated once per sample. The input gets a zero gradient. Use it in a ConcatTable to
-- append a constant to an input.
local S = require 'nn.support'
local Constant, parent = torch.class('nn.Constant', 'nn.Module')

function Constant:__init(value, nInputDim)
  parent.__init(self)
  if type(value) == 'number' then value = torch.Tensor({ value }) end
  if not torch.isTensor(value) or value:dim() == 0 then
    error('[nn.Constant] value must be a number or a tensor with at least one dim, got ' .. S.describe(value), torch._lib.user_level())
  end
  if nInputDim ~= nil then S.argInt('nn.Constant', 'nInputDim', nInputDim, 0) end
  self.value = value
  self.nInputDim = nInputDim
end

function Constant:updateOutput(input)
  local v = self.value
  if self.nInputDim and torch.isTensor(input) and input:dim() > self.nInputDim then
    local size = v:size():totable()
    table.insert(size, 1, input:size(1))
    local one = v:contiguous():view(torch.LongStorage({ 1, unpack(v:size():totable()) }))
    self.output = one:expand(torch.LongStorage(size)):clone()
  elseif self.nInputDim and not torch.isTensor(input) then
    S.fail(string.format('nn.Constant(%s, %d)', S.sizestr(v), self.nInputDim),
      'expected a tensor input (its dims tell a batch), got %s', S.describe(input))
  else
    self.output = v:clone()
  end
  return self.output
end

-- Zeros shaped like the input (a tensor or a table of them).
function Constant:updateGradInput(input, gradOutput)
  if torch.isTensor(input) or type(input) == 'table' then
    self.gradInput = torch.noGrad(S.zeroLike, self.gradInput, input)
  else
    self.gradInput = nil
  end
  return self.gradInput
end

return Constant
