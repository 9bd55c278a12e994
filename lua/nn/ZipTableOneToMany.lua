-- nn.ZipTableOneToMany(): { v, {a, b, c} } -> { {v, a}, {v, b}, {v, c} } (Torch7's nn). The output
-- holds the input's own tensors, so autograd sees through it (the module is transparent); Torch7's
-- backward sums the gradients that reach v and passes the others back.
local S = require 'nn.support'
local ZipTableOneToMany, parent = torch.class('nn.ZipTableOneToMany', 'nn.Module')
ZipTableOneToMany._transparent = true  -- outputs are the inputs' tensors (Note [Modules and autograd])

local NAME = 'nn.ZipTableOneToMany'

function ZipTableOneToMany:__init()
  parent.__init(self)
  self.output = {}
  self.gradInput = {}
  self.gradInputEl = torch.Tensor()  -- Torch7's buffer for v's gradient
end

local function is_list(x) return type(x) == 'table' and not torch.isTensor(x) and getmetatable(x) == nil end

local function check(input)
  if not is_list(input) or #input ~= 2 or input[1] == nil or not is_list(input[2]) then
    S.fail(NAME, 'expected {element, table}, got %s', S.describe(input))
  end
  return input[1], input[2]
end

function ZipTableOneToMany:updateOutput(input)
  local v, list = check(input)
  self.output = {}
  for i = 1, #list do self.output[i] = { v, list[i] } end
  return self.output
end

local function grad_input(self, input, gradOutput)
  local v, list = check(input)
  if not is_list(gradOutput) or #gradOutput ~= #list then
    S.fail(NAME, 'gradOutput is %s, expected %d pairs {grad of the element, grad of entry i}', S.describe(gradOutput), #list)
  end
  local el = S.zeroLike(self.gradInputEl, v)
  local rest = {}
  for i = 1, #list do
    local g = gradOutput[i]
    if not is_list(g) then S.fail(NAME, 'gradOutput %d is %s, expected a pair', i, S.describe(g)) end
    S.checkLike(NAME, string.format('gradOutput[%d][1]', i), g[1], v)
    el = S.addInto(el, g[1])
    rest[i] = g[2]
  end
  self.gradInputEl = el
  self.gradInput = { el, rest }
  return self.gradInput
end

-- The sum is computed by hand: no recording even when called outside Module:backward.
function ZipTableOneToMany:updateGradInput(input, gradOutput)
  return torch.noGrad(grad_input, self, input, gradOutput)
end

return ZipTableOneToMany
