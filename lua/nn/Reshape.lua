-- nn.Reshape(d1, d2, ... [, batchMode]) or nn.Reshape(LongStorage [, batchMode]): views the input
-- as the given size; an input with more elements keeps its first dim as a batch (Torch7's rule:
-- batch unless the element count matches and size(1) ~= 1; batchMode true/false forces it).
local S = require 'nn.support'
local Reshape, parent = torch.class('nn.Reshape', 'nn.Module')

function Reshape:__init(...)
  parent.__init(self)
  local arg = { ... }
  if type(arg[#arg]) == 'boolean' then self.batchMode = table.remove(arg) end
  local sizes = arg
  if #arg == 1 and torch.typename(arg[1]) == 'torch.LongStorage' then sizes = arg[1]:totable() end
  if #sizes == 0 then error('[nn.Reshape] expected sizes, e.g. nn.Reshape(2, 3)', torch._lib.user_level()) end
  self.nelement = 1
  for i, v in ipairs(sizes) do
    S.argInt('nn.Reshape', 'size ' .. i, v, 1)
    self.nelement = self.nelement * v
  end
  self.size = torch.LongStorage(sizes)
  local b = { 1 }
  for i, v in ipairs(sizes) do b[i + 1] = v end
  self.batchsize = torch.LongStorage(b)
end

function Reshape:updateOutput(input)
  S.tensor(tostring(self), input)
  if not input:isContiguous() then
    self._input = self._input or input.new()
    input = self._input:resizeAs(input):copy(input)
  end
  local n = input:nElement()
  if self.batchMode == false or (self.batchMode == nil and n == self.nelement and input:size(1) ~= 1) then
    if n ~= self.nelement then
      S.fail(tostring(self), 'input of size %s has %d elements, expected %d', S.sizestr(input), n, self.nelement)
    end
    self.output = input:view(self.size)
  else
    if input:dim() == 0 or n ~= input:size(1) * self.nelement then
      S.fail(tostring(self), 'input of size %s is not a batch of %d-element samples', S.sizestr(input), self.nelement)
    end
    self.batchsize[1] = input:size(1)
    self.output = input:view(self.batchsize)
  end
  return self.output
end

function Reshape:updateGradInput(input, gradOutput)
  if not torch.isTensor(gradOutput) or gradOutput:nElement() ~= input:nElement() then
    S.fail(tostring(self), 'gradOutput is %s but the input has %d elements', S.describe(gradOutput), input:nElement())
  end
  if not gradOutput:isContiguous() then
    self._gradOutput = self._gradOutput or gradOutput.new()
    gradOutput = self._gradOutput:resizeAs(gradOutput):copy(gradOutput)
  end
  self.gradInput = gradOutput:viewAs(input)
  return self.gradInput
end

function Reshape:__tostring__()
  return 'nn.Reshape(' .. table.concat(self.size:totable(), 'x') .. ')'
end

return Reshape
