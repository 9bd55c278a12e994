-- The forward of nn modules built from differentiable torch ops (not a class): the convolution-
-- family modules without a C kernel of their own (SpatialConvolutionLocal, Spatial(Full)-
-- ConvolutionMap, SpatialDepthWiseConvolution, TemporalRowConvolution) install it. Such a module
-- defines _compute(input); updateOutput checks the input's type against the parameters' first and
-- names the module in errors raised inside the ops. Backward is autograd's (Note [Modules and
-- autograd]), Torch7's separate calls included (Note [Torch7 calls on autograd modules]).
local S = require 'nn.support'
local Co = {}
nn.composite = Co

-- input must be a tensor of the parameters' type (a mismatch would fail inside an op, naming it).
local function check_type(self, input)
  if not torch.isTensor(input) then
    S.fail(tostring(self), 'expected a tensor input, got %s', S.describe(input))
  end
  if self.weight and input:type() ~= self.weight:type() then
    S.fail(tostring(self), 'input is a %s but the module holds %ss (convert one with :type())', input:type(),
      self.weight:type())
  end
end

-- self:_compute(x); an error raised inside an op (which names the op) is raised again naming the
-- module, so that a user sees which layer refused the input.
local function compute(self, x)
  local ok, y = pcall(self._compute, self, x)
  if ok then return y end
  local name = '[' .. tostring(self) .. '] '
  local msg = tostring(y)
  if msg:sub(1, #name) ~= name then msg = name .. msg:gsub('^[^\n]-:%d+: ', '') end
  error(msg, 0)
end

--- nn.composite.install(class): gives class (which defines _compute(input)) Torch7's updateOutput;
--- Module's updateGradInput and accGradParameters then answer through autograd (Note [Torch7 calls
--- on autograd modules]).
function Co.install(class)
  function class:updateOutput(input)
    check_type(self, input)
    self.output = compute(self, input)
    return self.output
  end
end

return Co
