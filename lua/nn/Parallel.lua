-- nn.Parallel(inputDimension, outputDimension): child i gets input:select(inputDimension, i); the
-- outputs are concatenated along outputDimension.
require 'nn.Container'
local S = require 'nn.support'
local Parallel, parent = torch.class('nn.Parallel', 'nn.Container')

function Parallel:__init(inputDimension, outputDimension)
  parent.__init(self)
  self.inputDimension = S.argInt('nn.Parallel', 'inputDimension', inputDimension, 1)
  self.outputDimension = S.argInt('nn.Parallel', 'outputDimension', outputDimension, 1)
end

local function name(self) return string.format('nn.Parallel(%d, %d)', self.inputDimension, self.outputDimension) end

local function slices(self, input)
  S.tensor(name(self), input)
  if self.inputDimension > input:dim() then
    S.fail(name(self), 'input dimension %d is out of range for an input of size %s', self.inputDimension, S.sizestr(input))
  end
  local n = input:size(self.inputDimension)
  if n > #self.modules then
    S.fail(name(self), 'input has %d slices along dimension %d but there are only %d modules', n,
      self.inputDimension, #self.modules)
  end
  return n
end

function Parallel:updateOutput(input)
  local n = slices(self, input)
  local outs = {}
  local d = self.outputDimension
  for i = 1, n do
    local o = self:rethrowErrors(self.modules[i], i, 'forward', input:select(self.inputDimension, i))
    if not torch.isTensor(o) or o:dim() < d then
      S.fail(name(self), 'module %d returned %s, which has no dimension %d', i, S.describe(o), d)
    end
    if i > 1 then
      local f = outs[1]
      local ok = o:dim() == f:dim()
      for k = 1, ok and o:dim() or 0 do if k ~= d and o:size(k) ~= f:size(k) then ok = false end end
      if not ok then
        S.fail(name(self), 'module %d returned size %s but module 1 returned size %s: they must match except along dimension %d',
          i, S.sizestr(o), S.sizestr(f), d)
      end
    end
    outs[i] = o
  end
  if S.recording(outs) then self.output = torch.cat(outs, d)
  else
    if not torch.isTensor(self.output) or self.output:needsGrad() then self.output = outs[1].new() end
    torch.cat(self.output, outs, d)
  end
  return self.output
end

local function backward(self, method, input, gradOutput, scale)
  local n = slices(self, input)
  local wants_gi = method == 'updateGradInput' or method == 'backward'
  if wants_gi then
    if not torch.isTensor(self.gradInput) or self.gradInput:type() ~= input:type() then self.gradInput = input.new() end
    self.gradInput:resizeAs(input)
  end
  local sizes = self.modules[1].output:size():totable()
  sizes[self.outputDimension] = 0
  for i = 1, n do sizes[self.outputDimension] = sizes[self.outputDimension] + self.modules[i].output:size(self.outputDimension) end
  S.gradLike(name(self), gradOutput, sizes)
  local offset = 1
  for i = 1, n do
    local m = self.modules[i]
    local size = m.output:size(self.outputDimension)
    local gi = self:rethrowErrors(m, i, method, input:select(self.inputDimension, i),
      gradOutput:narrow(self.outputDimension, offset, size), scale)
    if wants_gi then self.gradInput:select(self.inputDimension, i):copy(gi) end
    offset = offset + size
  end
  return self.gradInput
end

function Parallel:updateGradInput(input, gradOutput) return backward(self, 'updateGradInput', input, gradOutput) end
function Parallel:backward(input, gradOutput, scale) return backward(self, 'backward', input, gradOutput, scale or 1) end
function Parallel:accGradParameters(input, gradOutput, scale)
  backward(self, 'accGradParameters', input, gradOutput, scale or 1)
end
function Parallel:accUpdateGradParameters(input, gradOutput, lr)
  backward(self, 'accUpdateGradParameters', input, gradOutput, lr)
end

-- Torch7 prints the last branch of a Parallel with the inner arrow but without the bar below.
function Parallel:__tostring__() return self:_branchString('  |`-> ', '       ') end

return Parallel
