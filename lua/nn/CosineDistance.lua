-- nn.CosineDistance(): the cosine similarity a.b / (|a| |b|) of the two tensors of {a, b}:
-- vectors (-> a 1-element vector) or batches of rows (N x d -> N). 1e-12 is added to each
-- squared norm (Torch7).
local S = require 'nn.support'
local CosineDistance, parent = torch.class('nn.CosineDistance', 'nn.Module')

local EPS = 1e-12

function CosineDistance:__init()
  parent.__init(self)
  self.gradInput = { torch.Tensor(), torch.Tensor() }
end

local function rows(input)
  S.tensors('nn.CosineDistance', input, 2)
  local a, b = input[1], input[2]
  if (a:dim() ~= 1 and a:dim() ~= 2) or not a:isSameSizeAs(b) then
    S.fail('nn.CosineDistance', 'expected two vectors or two batches (N x d) of the same size, got %s', S.describe(input))
  end
  if a:dim() == 1 then return a:contiguous():view(1, -1), b:contiguous():view(1, -1) end
  return a, b
end

-- dot (N x 1), 1/|a|^2, 1/|b|^2 and 1/(|a| |b|).
local function terms(a, b)
  local dot = torch.cmul(a, b):sum(2)
  local ia = torch.cmul(a, a):sum(2):add(EPS):cinv()
  local ib = torch.cmul(b, b):sum(2):add(EPS):cinv()
  local w = torch.cmul(ia, ib):sqrt()
  return dot, ia, ib, w
end

function CosineDistance:updateOutput(input)
  local a, b = rows(input)
  local dot, _, _, w = terms(a, b)
  self.output = torch.cmul(dot, w):view(a:size(1))
  return self.output
end

-- d cos/da = (b - cos' a) w with cos' = dot / |a|^2; same for b.
function CosineDistance:updateGradInput(input, gradOutput)
  local a, b = rows(input)
  if not torch.isTensor(gradOutput) or gradOutput:nElement() ~= a:size(1) then
    S.fail('nn.CosineDistance', 'gradOutput is %s, expected %d values', S.describe(gradOutput), a:size(1))
  end
  local dot, ia, ib, w = terms(a, b)
  local go = gradOutput:contiguous():view(-1, 1)
  local scale = torch.cmul(w, go)
  local g1 = torch.cmul(a, torch.cmul(dot, ia):expandAs(a)):mul(-1):add(b):cmul(scale:expandAs(a))
  local g2 = torch.cmul(b, torch.cmul(dot, ib):expandAs(b)):mul(-1):add(a):cmul(scale:expandAs(b))
  self.gradInput = { g1:view(input[1]:size()), g2:view(input[2]:size()) }
  return self.gradInput
end

return CosineDistance
