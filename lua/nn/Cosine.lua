-- nn.Cosine(inputSize, outputSize): y_j = (w_j . x) / (|w_j| |x|), the cosine similarity of the
-- input with each row w_j of an outputSize x inputSize weight (Torch7's layout), for a vector or
-- a batch of rows. 1e-12 is added to each norm (Torch7).
local S = require 'nn.support'

local Cosine, parent = torch.class('nn.Cosine', 'nn.Module')

local EPS = 1e-12

function Cosine:__init(inputSize, outputSize)
  parent.__init(self)
  S.argInt('nn.Cosine', 'inputSize', inputSize, 1)
  S.argInt('nn.Cosine', 'outputSize', outputSize, 1)
  self.weight = S.alloc('nn.Cosine', outputSize, inputSize)
  self.gradWeight = torch.Tensor(outputSize, inputSize)
  self:reset()
end

local function name(self) return string.format('nn.Cosine(%d -> %d)', self.weight:size(2), self.weight:size(1)) end

--- c:reset([stdv]): uniform(-stdv, stdv) weight; the default stdv is 1/sqrt(outputSize), as Torch7
--- has it (it reads weight:size(1)).
function Cosine:reset(stdv)
  stdv = stdv and stdv * math.sqrt(3) or 1 / math.sqrt(self.weight:size(1))
  self.weight:uniform(-stdv, stdv)
  self.gradWeight:zero()
  nn.utils.linkGradients(self)
  return self
end

-- The input as N x inputSize rows, after checking it.
local function rows(self, input)
  local I = self.weight:size(2)
  if not torch.isTensor(input) or not nn.utils.isFloating(input) or (input:dim() ~= 1 and input:dim() ~= 2)
      or input:size(input:dim()) ~= I then
    S.fail(name(self), 'expected a vector of %d features or a batch (N x %d), got %s', I, I, S.describe(input))
  end
  return input:dim() == 1 and input:view(1, I) or input
end

-- The cosines (N x O), |w_j| + eps (1 x O) and |x_n| + eps (N x 1).
local function cosines(self, x)
  local wn = torch.norm(self.weight, 2, 2):add(EPS):view(1, -1)
  local xn = torch.norm(x, 2, 2):add(EPS)
  local y = torch.mm(x, self.weight:t())
  y:cdiv(wn:expandAs(y)):cdiv(xn:expandAs(y))
  return y, wn, xn
end

function Cosine:updateOutput(input)
  local x = rows(self, input)
  local y = cosines(self, x)
  self.output = input:dim() == 1 and y:view(-1) or y
  return self.output
end

-- The pieces both gradients need: cosines, norms, and gradOutput as N x O.
local function terms(self, input, gradOutput)
  local x = rows(self, input)
  local y, wn, xn = cosines(self, x)
  S.gradLike(name(self), gradOutput, input:dim() == 1 and { y:size(2) } or y)
  return x, y, wn, xn, gradOutput:contiguous():view(y:size(1), y:size(2))
end

-- dy_j/dx = w_j / (|w_j| |x|) - y_j x / |x|^2. Computed with recording off (see nn.Euclidean).
function Cosine:updateGradInput(input, gradOutput)
  self.gradInput = torch.noGrad(function()
    local x, y, wn, xn, go = terms(self, input, gradOutput)
    local gy = torch.cmul(go, y):sum(2)                                 -- N x 1
    local gi = torch.mm(torch.cdiv(go, wn:expandAs(go)), self.weight)   -- N x I
    gi:add(-1, torch.cmul(x, torch.cdiv(gy, xn):expandAs(x)))
    return gi:cdiv(xn:expandAs(gi)):viewAs(input)
  end)
  return self.gradInput
end

-- dy_j/dw_j = x / (|w_j| |x|) - y_j w_j / |w_j|^2.
function Cosine:accGradParameters(input, gradOutput, scale)
  scale = scale or 1
  if type(scale) ~= 'number' then S.fail(name(self), 'scale must be a number, got %s', S.describe(scale)) end
  torch.noGrad(function()
    local x, y, wn, xn, go = terms(self, input, gradOutput)
    local gw = torch.mm(go:t(), torch.cdiv(x, xn:expandAs(x)))          -- O x I
    local gy = torch.cmul(go, y):sum(1):view(-1, 1)                     -- O x 1
    gw:add(-1, torch.cmul(self.weight, torch.cdiv(gy, wn:view(-1, 1)):expandAs(self.weight)))
    self.gradWeight:add(scale, gw:cdiv(wn:view(-1, 1):expandAs(gw)))
  end)
end

return Cosine
