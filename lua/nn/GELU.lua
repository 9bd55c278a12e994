-- nn.GELU(): x * Phi(x) with the exact (erf) form, PyTorch's default.
local GELU, parent = torch.class('nn.GELU', 'nn.Module')

--- nn.GELU().
function GELU:__init()
  parent.__init(self)
end

-- Phi(x) = (1 + erf(x / sqrt 2)) / 2 is kept for the backward.
function GELU:updateOutput(input)
  nn.utils.checkFloatInput(self, input)
  local cdf = torch.mul(nn.utils.buffer(self._cdf, input), input, math.sqrt(0.5))
  self._cdf = cdf
  cdf:erf():add(1):mul(0.5)
  self.output = torch.cmul(self.output, input, cdf)
  return self.output
end

-- dy/dx = Phi(x) + x * phi(x), phi the standard normal density.
function GELU:updateGradInput(input, gradOutput)
  local d = torch.cmul(nn.utils.buffer(self._d, input), input, input)
  self._d = d
  d:mul(-0.5):exp():mul(1 / math.sqrt(2 * math.pi)):cmul(input):add(self._cdf)
  self.gradInput = torch.cmul(self.gradInput, gradOutput, d)
  return self.gradInput
end

return GELU
