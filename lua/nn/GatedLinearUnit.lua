-- nn.GatedLinearUnit([dim]): splits the input in two halves a, b along dim (the last by
-- default) and returns a * sigmoid(b).
local GatedLinearUnit, parent = torch.class('nn.GatedLinearUnit', 'nn.Module')

--- nn.GatedLinearUnit([dim=last]).
function GatedLinearUnit:__init(dim)
  parent.__init(self)
  if dim ~= nil and (type(dim) ~= 'number' or dim < 1) then
    error(string.format('[nn.GatedLinearUnit] dim must be a positive number, got %s', tostring(dim)), torch._lib.user_level())
  end
  self.dim = dim
end

-- The two halves of input along the gating dim, checked.
function GatedLinearUnit:_halves(input)
  nn.utils.checkFloatInput(self, input)
  local dim = self.dim or input:dim()
  if dim > input:dim() or input:size(dim) % 2 ~= 0 then
    error(string.format('[%s] dim %d must exist and have an even size, got %s', tostring(self), dim,
      nn.utils.describe(input)), torch._lib.user_level())
  end
  local h = input:size(dim) / 2
  return input:narrow(dim, 1, h), input:narrow(dim, h + 1, h), dim, h
end

function GatedLinearUnit:updateOutput(input)
  local a, b = self:_halves(input)
  self._sig = torch.sigmoid(nn.utils.buffer(self._sig, input), b)
  self.output = torch.cmul(self.output, a, self._sig)
  return self.output
end

-- d/da = gradOutput * s; d/db = gradOutput * a * s * (1 - s), s = sigmoid(b).
function GatedLinearUnit:updateGradInput(input, gradOutput)
  local a, _, dim, h = self:_halves(input)
  local s = self._sig
  self.gradInput:resizeAs(input)
  local ga, gb = self.gradInput:narrow(dim, 1, h), self.gradInput:narrow(dim, h + 1, h)
  torch.cmul(ga, gradOutput, s)
  torch.mul(gb, s, -1):add(1):cmul(s):cmul(a):cmul(gradOutput)
  return self.gradInput
end

return GatedLinearUnit
