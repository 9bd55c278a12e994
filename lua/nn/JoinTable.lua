-- nn.JoinTable(dimension[, nInputDims]): concatenates a table of tensors along dimension
-- (negative from the end; with nInputDims, inputs with one more dim are batches).
local S = require 'nn.support'
local JoinTable, parent = torch.class('nn.JoinTable', 'nn.Module')

function JoinTable:__init(dimension, nInputDims)
  parent.__init(self)
  self.dimension = S.argInt('nn.JoinTable', 'dimension', dimension)
  if dimension == 0 then error('[nn.JoinTable] dimension 0 is out of range (dims are 1-based)', torch._lib.user_level()) end
  self.nInputDims = nInputDims
  self.gradInput = {}
end

local function name(self)
  return string.format('nn.JoinTable(%d%s)', self.dimension, self.nInputDims and ', ' .. self.nInputDims or '')
end

local function join_dim(self, input)
  S.tensors(name(self), input, nil, 1)
  local first = input[1]
  local d = S.dim(name(self), self.dimension, first, self.nInputDims)
  for i = 2, #input do
    local t = input[i]
    local ok = t:dim() == first:dim()
    for k = 1, ok and t:dim() or 0 do if k ~= d and t:size(k) ~= first:size(k) then ok = false end end
    if not ok then
      S.fail(name(self), 'input %d has size %s but input 1 has size %s: they must match except along dimension %d',
        i, S.sizestr(t), S.sizestr(first), d)
    end
  end
  return d
end

function JoinTable:updateOutput(input)
  local d = join_dim(self, input)
  torch.cat(self.output, input, d)
  return self.output
end

function JoinTable:updateGradInput(input, gradOutput)
  local d = join_dim(self, input)
  local sizes = input[1]:size():totable()
  sizes[d] = 0
  for _, t in ipairs(input) do sizes[d] = sizes[d] + t:size(d) end
  S.gradLike(name(self), gradOutput, sizes)
  if type(self.gradInput) ~= 'table' then self.gradInput = {} end
  local offset = 1
  for i, t in ipairs(input) do
    local gi = self.gradInput[i]
    if not torch.isTensor(gi) or gi:type() ~= t:type() then gi = t.new() self.gradInput[i] = gi end
    gi:resizeAs(t):copy(gradOutput:narrow(d, offset, t:size(d)))
    offset = offset + t:size(d)
  end
  for i = #input + 1, #self.gradInput do self.gradInput[i] = nil end
  return self.gradInput
end

return JoinTable
