-- nn.L1Penalty(l1weight [, sizeAverage = false] [, provideOutput = true]): Torch7's L1 regularizer
-- of activations: the output is the input; backward adds l1weight * sign(input) (divided by the
-- element count with sizeAverage) to the gradient (only that, without provideOutput). The
-- penalty of the last forward is in .loss.
local S = require 'nn.support'
local L1Penalty, parent = torch.class('nn.L1Penalty', 'nn.Module')

function L1Penalty:__init(l1weight, sizeAverage, provideOutput)
  parent.__init(self)
  if type(l1weight) ~= 'number' then
    error(string.format('[nn.L1Penalty] expected a number l1weight, got %s', type(l1weight)), torch._lib.user_level())
  end
  self.l1weight = l1weight
  self.sizeAverage = sizeAverage or false
  -- Torch7 wrote `provideOutput or true`, which ignored false; false is honoured here.
  self.provideOutput = provideOutput ~= false
end

local function weight(self, input)
  if self.sizeAverage == true then return self.l1weight / math.max(1, input:nElement()) end
  return self.l1weight
end

local function check_input(self, input, what)
  if not torch.isTensor(input) then
    error(string.format('[%s] expected a tensor %s, got %s', tostring(self), what or 'input', type(input)), torch._lib.user_level())
  end
end

function L1Penalty:updateOutput(input)
  check_input(self, input)
  self.loss = weight(self, input) * input:norm(1)
  self.output = input
  return self.output
end

function L1Penalty:updateGradInput(input, gradOutput)
  check_input(self, input)
  self.gradInput:resizeAs(input):copy(input):sign():mul(weight(self, input))
  if self.provideOutput == true then
    S.gradLike(torch.typename(self), gradOutput, input)
    self.gradInput:add(gradOutput)
  end
  return self.gradInput
end

function L1Penalty:__tostring__()
  return string.format('%s(%g)', torch.typename(self), self.l1weight)
end

return L1Penalty
