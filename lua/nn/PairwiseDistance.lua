-- nn.PairwiseDistance([p = 2]): the p-norm distance ||a - b||_p of the two tensors of {a, b}:
-- vectors (-> a 1-element vector) or batches of rows (N x d -> N).
local S = require 'nn.support'
local PairwiseDistance, parent = torch.class('nn.PairwiseDistance', 'nn.Module')

function PairwiseDistance:__init(p)
  parent.__init(self)
  if p ~= nil and (type(p) ~= 'number' or not (p > 0)) then
    error('[nn.PairwiseDistance] p must be a positive number, got ' .. tostring(p), 2)
  end
  self.norm = p or 2
  self.gradInput = {}
end

local function name(self) return string.format('nn.PairwiseDistance(%g)', self.norm) end

local function diff(self, input)
  S.tensors(name(self), input, 2)
  local a, b = input[1], input[2]
  if (a:dim() ~= 1 and a:dim() ~= 2) or not a:isSameSizeAs(b) then
    S.fail(name(self), 'expected two vectors or two batches (N x d) of the same size, got %s', S.describe(input))
  end
  local d = torch.csub(a, b)
  return a:dim() == 1 and d:view(1, -1) or d
end

function PairwiseDistance:updateOutput(input)
  local d = diff(self, input)
  self.output = torch.norm(d, self.norm, 2):view(d:size(1))
  return self.output
end

-- Note [PairwiseDistance gradient]: d||x||_p/dx_k = x_k |x_k|^(p-2) / ||x||_p^(p-1), with
-- 1e-6 added to the norm as Torch7 does. Torch7 skipped the |x_k|^(p-2) factor for 1 < p < 2
-- and used a random sign at x_k = 0 for p = 1; here the factor is always applied and the
-- gradient at x_k = 0 is 0 for p <= 2 (sign(0) = 0).
function PairwiseDistance:updateGradInput(input, gradOutput)
  local d = diff(self, input)
  local n = d:size(1)
  if not torch.isTensor(gradOutput) or gradOutput:nElement() ~= n then
    S.fail(name(self), 'gradOutput is %s, expected %d values', S.describe(gradOutput), n)
  end
  local p = self.norm
  local g
  if p == 1 then g = torch.sign(d)
  else
    -- out of place throughout: under createGraph (Note [Coarse nodes under createGraph]) these
    -- ops are recorded, and an in-place add on the norm that norm's backward saved was refused
    g = d
    if p ~= 2 then
      local f = torch.pow(torch.abs(d), p - 2)
      if p < 2 then f = torch.maskedFill(f, torch.eq(d, 0), 0) end
      g = torch.cmul(g, f)
    end
    local norm = torch.pow(torch.add(torch.norm(d, p, 2), 1e-6), -(p - 1))
    g = torch.cmul(g, norm:expandAs(g))
  end
  g = torch.cmul(g, gradOutput:contiguous():view(n, 1):expandAs(g))
  local g1 = g:view(input[1]:size())
  self.gradInput = { g1, torch.mul(g1, -1) }
  return self.gradInput
end

return PairwiseDistance
