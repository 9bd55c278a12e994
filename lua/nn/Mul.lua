-- nn.Mul(): multiplies the input by a single learnable scalar weight.
local Mul, parent = torch.class('nn.Mul', 'nn.Module')

function Mul:__init()
  parent.__init(self)
  self.weight = torch.Tensor(1)
  self.gradWeight = torch.Tensor(1)
  self:reset()
end

--- m:reset([stdv]): weight uniform in (-stdv, stdv), stdv = 1 by default.
function Mul:reset(stdv)
  stdv = stdv and stdv * math.sqrt(3) or 1 / math.sqrt(self.weight:size(1))
  self.weight:uniform(-stdv, stdv)
  self.gradWeight:zero()
  nn.utils.linkGradients(self)
  return self
end

local function check(input)
  if not torch.isTensor(input) then error('[nn.Mul] expected a tensor input, got ' .. torch.type(input), torch._lib.user_level()) end
end

function Mul:updateOutput(input)
  check(input)
  self.output:resizeAs(input):copy(input):mul(self.weight[1])
  return self.output
end

function Mul:updateGradInput(input, gradOutput)
  if not torch.isTensor(gradOutput) or not gradOutput:isSameSizeAs(input) then
    error('[nn.Mul] gradOutput does not match the input of size ' .. table.concat(input:size():totable(), 'x'), torch._lib.user_level())
  end
  if torch.isGradEnabled() and (gradOutput:needsGrad() or self.weight:needsGrad()) then
    -- under createGraph: a product with the weight tensor, so the graph of the gradient reaches
    -- the weight too (Note [Coarse nodes under createGraph]); the number weight[1] was a constant
    -- to the next differentiation, whose result came out silently wrong
    self.gradInput = torch.cmul(gradOutput, self.weight:view(1):expand(gradOutput:nElement()):viewAs(gradOutput))
    return self.gradInput
  end
  self.gradInput:resizeAs(input):copy(gradOutput):mul(self.weight[1])
  return self.gradInput
end

function Mul:accGradParameters(input, gradOutput, scale)
  scale = scale or 1
  if not torch.isTensor(gradOutput) or not gradOutput:isSameSizeAs(input) then
    error('[nn.Mul] gradOutput does not match the input of size ' .. table.concat(input:size():totable(), 'x'), torch._lib.user_level())
  end
  self.gradWeight[1] = self.gradWeight[1] + scale * input:contiguous():view(-1):dot(gradOutput:contiguous():view(-1))
end

return Mul
