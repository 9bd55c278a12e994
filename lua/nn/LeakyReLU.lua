-- nn.LeakyReLU(negval=0.01[, inplace]): x for x > 0, negval * x otherwise.
local S = require 'nn.support'
local LeakyReLU, parent = torch.class('nn.LeakyReLU', 'nn.Module')

--- nn.LeakyReLU([negval=1/100, inplace=false]); nn.LeakyReLU(true) is in place with the default slope.
function LeakyReLU:__init(negval, ip)
  parent.__init(self)
  if type(negval) == 'boolean' then negval, ip = nil, negval end
  self.negval = negval or 1 / 100
  self.inplace = ip or false
  if type(self.negval) ~= 'number' then
    error(string.format('[nn.LeakyReLU] negval must be a number, got %s', type(negval)), torch._lib.user_level())
  end
  if type(self.inplace) ~= 'boolean' then
    error(string.format('[nn.LeakyReLU] the in-place flag must be a boolean, got %s', type(ip)), torch._lib.user_level())
  end
end

-- The factor each element is multiplied by (1 or negval) is kept for the backward.
function LeakyReLU:updateOutput(input)
  nn.utils.checkFloatInput(self, input)
  self._mask = torch.gt(nn.utils.maskBuffer(self._mask, input), input, 0)
  self._factor = nn.utils.buffer(self._factor, input)
  self._factor:resizeAs(input):copy(self._mask):mul(1 - self.negval):add(self.negval)
  if self.inplace then
    input:cmul(self._factor)
    self.output = input
  else
    self.output = torch.cmul(self.output, input, self._factor)
  end
  return self.output
end

function LeakyReLU:updateGradInput(input, gradOutput)
  S.gradLike(torch.typename(self), gradOutput, input)
  if self.inplace then
    self.gradInput = gradOutput:cmul(self._factor)
  else
    self.gradInput = torch.cmul(self.gradInput, gradOutput, self._factor)
  end
  return self.gradInput
end

function LeakyReLU:__tostring__()
  return torch.typename(self) .. string.format('(%g)', self.negval)
end

return LeakyReLU
