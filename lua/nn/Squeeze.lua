-- nn.Squeeze([dim[, numInputDims]]): removes size-1 dims (all, or only dim). With numInputDims,
-- an input with one more dim is a batch: dim shifts by one and a batch of one keeps its dim.
local S = require 'nn.support'
local Squeeze, parent = torch.class('nn.Squeeze', 'nn.Module')

function Squeeze:__init(dim, numInputDims)
  parent.__init(self)
  if dim ~= nil then S.argInt('nn.Squeeze', 'dim', dim, 1) end
  self.dim = dim
  self:setNumInputDims(numInputDims)
end

--- s:setNumInputDims(n): the number of dims of one sample (more input dims means a batch).
function Squeeze:setNumInputDims(n)
  if n ~= nil then S.argInt('nn.Squeeze', 'numInputDims', n, 0) end
  self.numInputDims = n
  return self
end

local function name(self) return 'nn.Squeeze(' .. (self.dim and tostring(self.dim) or '') .. ')' end

function Squeeze:updateOutput(input)
  S.tensor(name(self), input)
  local dim, keepBatch = self.dim, false
  if self.numInputDims and input:dim() == self.numInputDims + 1 then
    if dim then dim = dim + 1 elseif input:size(1) == 1 then keepBatch = true end
  end
  if dim and dim > input:dim() then
    S.fail(name(self), 'dimension %d is out of range for an input of size %s', dim, S.sizestr(input))
  end
  local out = dim and input:squeeze(dim) or input:squeeze()
  -- Note [Squeeze keeps one dim]: Torch7's squeeze never went below one dim (all size-1 dims give
  -- a one-element vector, and a vector is never squeezed); the tensor op here is PyTorch's, which
  -- gives a 0-dim tensor there, so that case is put back to Torch7's.
  if out:dim() == 0 and input:dim() > 0 then out = out:view(1) end
  if keepBatch then
    local s = out:size():totable()
    table.insert(s, 1, 1)
    out = out:view(torch.LongStorage(s))
  end
  self.output = out
  return self.output
end

function Squeeze:updateGradInput(input, gradOutput)
  if not torch.isTensor(gradOutput) or gradOutput:nElement() ~= input:nElement() then
    S.fail(name(self), 'gradOutput is %s but the input has %d elements', S.describe(gradOutput), input:nElement())
  end
  self.gradInput = gradOutput:contiguous():view(input:size())
  return self.gradInput
end

return Squeeze
