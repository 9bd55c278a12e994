-- nn.Index(dimension): {tensor, indices} -> tensor:index(dimension, indices) (Torch7). Built from
-- the differentiable index op: the gradient adds gradOutput back at the indices (a repeated index
-- accumulates), and the indices get a zero gradient.
local S = require 'nn.support'
local i64 = require('torch.lib').dtype.i64
local Index, parent = torch.class('nn.Index', 'nn.Module')

--- nn.Index(dimension): dimension counts from 1 (negative: from the end).
function Index:__init(dimension)
  parent.__init(self)
  S.argInt('nn.Index', 'dimension', dimension)
  if dimension == 0 then error('[nn.Index] dimension must be nonzero, got 0', torch._lib.user_level()) end
  self.dimension = dimension
  self.gradInput = { self.gradInput, self.gradInput.new() }  -- Torch7's shape: {tensor's, indices'}
end

local function name(self) return string.format('nn.Index(%s)', tostring(self.dimension)) end

-- The op's message without the position prefix that error() put in front of it.
local function op_message(err) return (tostring(err):gsub('^[^%[]*', '')) end

function Index:updateOutput(input)
  local n = name(self)
  S.tensors(n, input, 2)
  local t, index = input[1], input[2]
  if index.p.dtype ~= i64 or index:dim() ~= 1 then
    S.fail(n, 'expected the indices as a 1-D LongTensor, got %s', S.describe(index))
  end
  local d = S.dim(n, self.dimension, t)
  local ok, out = pcall(t.index, t, d, index)
  if not ok then S.fail(n, '%s', op_message(out)) end
  self.output = out
  return out
end

return Index
