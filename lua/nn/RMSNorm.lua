-- nn.RMSNorm(normalizedShape [, eps, elementwiseAffine = true]): PyTorch 2.4's RMSNorm: x / sqrt(
-- mean(x^2) + eps) over the last #normalizedShape dims, times a weight of size normalizedShape
-- (init 1, no bias: state dict key 'weight'). eps defaults to the machine epsilon of the input's
-- dtype (Note [RMSNorm eps], nn/functional_more.lua). Forward is nn.functional.rmsNorm's recorded
-- ops, backward autograd's (Note [Modules and autograd]).
local P = require 'nn.pytorch_names_args'
local lib = require 'torch.lib'
require 'nn.functional_more'
local RMSNorm, parent = torch.class('nn.RMSNorm', 'nn.Module')
local NAME = 'nn.RMSNorm'

function RMSNorm:__init(...)
  parent.__init(self)
  local o = P.parse(NAME, { 'normalizedShape', 'eps', 'elementwiseAffine' }, ...)
  self.normalizedShape = nn.functional._shapeList(NAME, o.normalizedShape)
  self.eps = P.number(NAME, 'eps', o.eps)
  if self.eps ~= nil and self.eps < 0 then lib.fail(NAME, 'eps must be >= 0, got %g', self.eps) end
  self.elementwiseAffine = P.bool(NAME, 'elementwiseAffine', o.elementwiseAffine, true)
  if self.elementwiseAffine then
    local size = torch.LongStorage(self.normalizedShape)
    self.weight = torch.Tensor(size)
    self.gradWeight = torch.Tensor(size):zero()
  end
  self:reset()
end

--- m:reset(): weight 1 (PyTorch's reset_parameters).
--- Example: nn.RMSNorm(4):reset()
function RMSNorm:reset()
  if self.weight then
    self.weight:fill(1)
    self.gradWeight:zero()
  end
  nn.utils.linkGradients(self)
  return self
end

-- Note [RMSNorm in half precision]: PyTorch's rms_norm computes f16/bf16 inputs in f32 (their
-- opmath type) and casts the result back. In f16 the squares overflow from |x| = 256 (65504 is
-- its largest value), and a row holding one such element normalized to all zeros here. eps keeps
-- its default of the input dtype's machine epsilon (Note [RMSNorm eps], as PyTorch documents).
local LOW = { [lib.dtype.f16] = 'float16', [lib.dtype.bf16] = 'bfloat16' }

function RMSNorm:updateOutput(input)
  nn.utils.checkFloatInput(self, input)
  local low = LOW[input.p.dtype]
  if low then
    local eps = self.eps or nn.functional._machineEps(input)
    self.output = nn.functional.rmsNorm(input:to('float32'), self.normalizedShape, self.weight, eps):to(low)
  else
    self.output = nn.functional.rmsNorm(input, self.normalizedShape, self.weight, self.eps)
  end
  return self.output
end

function RMSNorm:__tostring__()
  return string.format('nn.RMSNorm({%s}, eps=%s%s)', table.concat(self.normalizedShape, ', '),
    self.eps and string.format('%g', self.eps) or 'machine eps', self.elementwiseAffine and '' or ', without affine')
end

return RMSNorm
