-- nn.GELU([approximate = 'none']): x * Phi(x) with the exact (erf) form, PyTorch's default, or
-- PyTorch's tanh approximation 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) for 'tanh'.
local GELU, parent = torch.class('nn.GELU', 'nn.Module')

local C = math.sqrt(2 / math.pi)
local K = 0.044715

--- nn.GELU([approximate = 'none']) or nn.GELU({approximate = 'tanh'}): PyTorch's GELU.
--- Example: nn.GELU('tanh'):forward(torch.randn(3))
function GELU:__init(approximate)
  parent.__init(self)
  if type(approximate) == 'table' and not torch.isTensor(approximate) then
    for k in pairs(approximate) do
      if k ~= 'approximate' then
        error(string.format('[nn.GELU] unknown option %s (expected approximate)', tostring(k)), torch._lib.user_level())
      end
    end
    approximate = approximate.approximate
  end
  if approximate == nil then approximate = 'none' end
  if approximate ~= 'none' and approximate ~= 'tanh' then
    error(string.format("[nn.GELU] approximate must be 'none' or 'tanh', got %s", tostring(approximate)), torch._lib.user_level())
  end
  self.approximate = approximate
end

-- Modules saved before the option existed are exact.
local function tanh_form(self) return self.approximate == 'tanh' end

-- Phi(x) = (1 + erf(x / sqrt 2)) / 2 is kept for the backward (for 'tanh', t = tanh(u)).
function GELU:updateOutput(input)
  nn.utils.checkFloatInput(self, input)
  if tanh_form(self) then
    local t = torch.cmul(nn.utils.buffer(self._cdf, input), input, input)
    self._cdf = t
    t:mul(K):add(1):cmul(input):mul(C):tanh()
    self.output = torch.cmul(self.output, input, torch.add(t, 1)):mul(0.5)
    return self.output
  end
  local cdf = torch.mul(nn.utils.buffer(self._cdf, input), input, math.sqrt(0.5))
  self._cdf = cdf
  cdf:erf():add(1):mul(0.5)
  self.output = torch.cmul(self.output, input, cdf)
  return self.output
end

-- dy/dx = Phi(x) + x * phi(x), phi the standard normal density; for 'tanh',
-- 0.5 (1 + t) + 0.5 x (1 - t^2) C (1 + 3 K x^2).
function GELU:updateGradInput(input, gradOutput)
  local d = torch.cmul(nn.utils.buffer(self._d, input), input, input)
  self._d = d
  if tanh_form(self) then
    local t = self._cdf
    d:mul(3 * K):add(1):mul(C):cmul(input):cmul(torch.cmul(t, t):mul(-1):add(1)):add(t):add(1):mul(0.5)
  else
    d:mul(-0.5):exp():mul(1 / math.sqrt(2 * math.pi)):cmul(input):add(self._cdf)
  end
  self.gradInput = torch.cmul(self.gradInput, gradOutput, d)
  return self.gradInput
end

function GELU:__tostring__()
  return tanh_form(self) and "nn.GELU(approximate='tanh')" or 'nn.GELU'
end

return GELU
