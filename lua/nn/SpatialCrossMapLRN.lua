-- nn.SpatialCrossMapLRN(size [, alpha = 1e-4] [, beta = 0.75] [, k = 1]): Torch7's local response
-- normalization across channels (PyTorch's nn.LocalResponseNorm): x / (k + alpha / size * sum of
-- x^2 over the `size` channels around)^beta, for C x H x W or N x C x ... input. For odd sizes
-- the window is centred as in Torch7; for even sizes it follows PyTorch (size/2 channels before,
-- size/2 - 1 after). Differentiated through nn.functional.localResponseNorm's ops.
local A = require 'nn.functional_args'
local LRN, parent = torch.class('nn.SpatialCrossMapLRN', 'nn.Module')

function LRN:__init(size, alpha, beta, k)
  parent.__init(self)
  local name = 'nn.SpatialCrossMapLRN'
  if type(size) ~= 'number' or size < 1 or size ~= math.floor(size) then
    A.fail(name, 'size must be a positive integer, got %s', tostring(size))
  end
  self.size = size
  self.alpha = A.number(name, alpha, 'alpha', 1e-4)
  self.beta = A.number(name, beta, 'beta', 0.75)
  self.k = A.number(name, k, 'k', 1)
end

function LRN:updateOutput(input)
  nn.utils.checkFloatInput(self, input)
  if input:dim() < 3 or input:dim() > 5 then
    A.fail(tostring(self), 'expected a C x H x W or N x C x ... input (3 to 5 dims), got %s', nn.utils.describe(input))
  end
  local single = input:dim() == 3
  local x = single and input:unsqueeze(1) or input
  local y = nn.functional.localResponseNorm(x, self.size, self.alpha, self.beta, self.k)
  self.output = single and y:squeeze(1) or y
  return self.output
end

function LRN:__tostring__()
  return string.format('nn.SpatialCrossMapLRN(%d, %g, %g, %g)', self.size, self.alpha, self.beta, self.k)
end

return LRN
