-- nn.AddConstant(c[, inplace]): input + c, where c is a number or a vector added to each row of
-- a vector or a batch. In place, the input itself changes and backward restores it (Torch7).
local S = require 'nn.support'
local AddConstant, parent = torch.class('nn.AddConstant', 'nn.Module')

function AddConstant:__init(constant_scalar, ip)
  parent.__init(self)
  if type(constant_scalar) ~= 'number' and not torch.isTensor(constant_scalar) then
    error('[nn.AddConstant] the constant must be a number or a tensor, got ' .. S.describe(constant_scalar), torch._lib.user_level())
  end
  self.constant_scalar = constant_scalar
  self.inplace = S.argBool('nn.AddConstant', 'inplace', ip)
end

local function name(self)
  local c = self.constant_scalar
  return string.format('nn.AddConstant(%s%s)', type(c) == 'number' and string.format('%g', c) or S.describe(c),
    self.inplace and ', inplace' or '')
end

-- The constant shaped to add to input (a number, or the vector expanded over the rows).
local function constant(self, input)
  S.tensor(name(self), input)
  local c = self.constant_scalar
  if type(c) == 'number' then return c end
  local n = c:nElement()
  if input:dim() < 1 or input:dim() > 2 or input:size(input:dim()) ~= n then
    S.fail(name(self), 'the constant has %d elements but the input is of size %s', n, S.sizestr(input))
  end
  c = c:typeAs(input):view(-1)
  if input:dim() == 2 then c = c:view(1, n):expand(input:size(1), n) end
  return c
end

function AddConstant:updateOutput(input)
  local c = constant(self, input)
  if self.inplace then
    input:add(c)
    self.output = input
  else
    if not torch.isTensor(self.output) or self.output == input then self.output = input.new() end
    self.output:resizeAs(input):copy(input):add(c)
  end
  return self.output
end

function AddConstant:updateGradInput(input, gradOutput)
  S.gradLike(name(self), gradOutput, input)
  if self.inplace then
    self.gradInput = gradOutput
    local c = constant(self, input)
    if type(c) == 'number' then input:add(-c) else input:csub(c) end
  else
    if not torch.isTensor(self.gradInput) or self.gradInput == gradOutput then self.gradInput = gradOutput.new() end
    self.gradInput:resizeAs(gradOutput):copy(gradOutput)
  end
  return self.gradInput
end

return AddConstant
