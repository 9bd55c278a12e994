-- nn.PairwiseDistance([p = 2] [, {eps = 0, keepdim = false}]): the p-norm distance ||a - b + eps||_p
-- of the two tensors of {a, b}: vectors (-> a 1-element vector) or batches of rows (N x d -> N, or
-- N x 1 with keepdim).
-- Note [PairwiseDistance options]: PyTorch's PairwiseDistance(p, eps = 1e-6, keepdim = False) comes
-- as nn.PairwiseDistance(p, {eps =, keepdim =}) or nn.PairwiseDistance({p =, eps =, keepdim =});
-- eps defaults to 0, Torch7's distance (PyTorch's 1e-6 shifts it by about 1e-6: pass eps = 1e-6 for
-- its values). An options table was once ignored without a word.
local S = require 'nn.support'
local PairwiseDistance, parent = torch.class('nn.PairwiseDistance', 'nn.Module')

--- nn.PairwiseDistance([p = 2] [, {eps = 0, keepdim = false}]).
--- Example: nn.PairwiseDistance(1, {eps = 1e-6, keepdim = true}):forward({torch.randn(3, 4), torch.randn(3, 4)})
function PairwiseDistance:__init(p, opts)
  parent.__init(self)
  if type(p) == 'table' and opts == nil then p, opts = nil, p end
  if opts ~= nil then
    if type(opts) ~= 'table' then
      error('[nn.PairwiseDistance] expected an options table {eps =, keepdim =}, got ' .. tostring(opts), torch._lib.user_level())
    end
    for k in pairs(opts) do
      if k ~= 'p' and k ~= 'eps' and k ~= 'keepdim' then
        error(string.format('[nn.PairwiseDistance] unknown option %s (expected p, eps, keepdim)', tostring(k)), torch._lib.user_level())
      end
    end
    if p ~= nil and opts.p ~= nil then error('[nn.PairwiseDistance] argument p given twice', torch._lib.user_level()) end
    p = p or opts.p
    if opts.eps ~= nil and type(opts.eps) ~= 'number' then
      error('[nn.PairwiseDistance] eps must be a number, got ' .. tostring(opts.eps), torch._lib.user_level())
    end
    if opts.keepdim ~= nil and type(opts.keepdim) ~= 'boolean' then
      error('[nn.PairwiseDistance] keepdim must be a boolean, got ' .. tostring(opts.keepdim), torch._lib.user_level())
    end
    self.eps, self.keepdim = opts.eps, opts.keepdim
  end
  if p ~= nil and (type(p) ~= 'number' or not (p > 0)) then
    error('[nn.PairwiseDistance] p must be a positive number, got ' .. tostring(p), torch._lib.user_level())
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
  if self.eps and self.eps ~= 0 then d = torch.add(d, self.eps) end
  return a:dim() == 1 and d:view(1, -1) or d
end

function PairwiseDistance:updateOutput(input)
  local d = diff(self, input)
  self.output = torch.norm(d, self.norm, 2):view(d:size(1))
  if self.keepdim and input[1]:dim() == 2 then self.output = self.output:view(d:size(1), 1) end
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
