-- nn.Transpose({d1, d2}, {d3, d4}, ...): swaps each pair of dims in turn; the output is a
-- contiguous copy. setNumInputDims(n) shifts the dims past a leading batch dim.
local S = require 'nn.support'
local Transpose, parent = torch.class('nn.Transpose', 'nn.Module')

function Transpose:__init(...)
  parent.__init(self)
  self.permutations = { ... }
  for i, p in ipairs(self.permutations) do
    if type(p) ~= 'table' or not S.isint(p[1]) or not S.isint(p[2]) or p[1] < 1 or p[2] < 1 then
      error(string.format('[nn.Transpose] permutation %d must be a pair of dims {d1, d2}, got %s', i, S.describe(p)), torch._lib.user_level())
    end
  end
  self.numInputDims = nil
end

--- t:setNumInputDims(n): the number of dims of one sample (more input dims means a batch).
function Transpose:setNumInputDims(n)
  if n ~= nil then S.argInt('nn.Transpose', 'numInputDims', n, 0) end
  self.numInputDims = n
  return self
end

local function name(self)
  local parts = {}
  for i, p in ipairs(self.permutations) do parts[i] = '{' .. p[1] .. ',' .. p[2] .. '}' end
  return 'nn.Transpose(' .. table.concat(parts, ', ') .. ')'
end

-- x with the permutations applied (forward order) or undone (reverse order).
local function permute(self, input, x, reverse)
  local offset = self.numInputDims and input:dim() - self.numInputDims or 0
  local n = #self.permutations
  for k = 1, n do
    local p = self.permutations[reverse and n - k + 1 or k]
    local a, b = p[1] + offset, p[2] + offset
    if a > x:dim() or b > x:dim() or a < 1 or b < 1 then
      S.fail(name(self), 'cannot swap dims %d and %d of an input of size %s', a, b, S.sizestr(input))
    end
    x = x:transpose(a, b)
  end
  return x
end

function Transpose:updateOutput(input)
  S.tensor(name(self), input)
  local t = permute(self, input, input, false)
  self.output:resize(t:size()):copy(t)
  return self.output
end

function Transpose:updateGradInput(input, gradOutput)
  S.gradLike(name(self), gradOutput, permute(self, input, input, false))
  local t = permute(self, input, gradOutput, true)
  self.gradInput:resize(t:size()):copy(t)
  return self.gradInput
end

return Transpose
