-- nn.WeightNorm(module [, outputDim = 1]): weight normalization (Salimans & Kingma, 2016) of a
-- module with a weight: weight = g * v / ||v|| per output unit (the slices along outputDim), with
-- parameters v (nOutput x the rest), g (nOutput) and the module's bias (Torch7's fields).
-- Note [WeightNorm gradients]: the wrapper is one coarse autograd node (not a transparent
-- container): its accGradParameters turns the module's weight gradient into gradients of g and
-- v, so Torch7's backward and autograd's loss:backward() both fill gradV and gradG. Unlike
-- Torch7, which re-drew v at random, construction keeps the module's function (v = weight,
-- g = ||weight||, as PyTorch); reset() re-draws Torch7's way.
require 'nn.Container'
local reparam = require 'nn.reparam'
local WeightNorm, parent = torch.class('nn.WeightNorm', 'nn.Container')

function WeightNorm:__init(module, outputDim)
  parent.__init(self)
  self._transparent = false
  if type(module) ~= 'table' or not torch.isTensor(module.weight) or not module.updateGradInput then
    error('[nn.WeightNorm] expects a module with a weight', torch._lib.user_level())
  end
  local w = module.weight
  self.outputDim = outputDim or 1
  if type(self.outputDim) ~= 'number' or self.outputDim < 1 or self.outputDim > w:dim() then
    error(string.format('[nn.WeightNorm] outputDim must be between 1 and %d, got %s', w:dim(), tostring(outputDim)), torch._lib.user_level())
  end
  self.modules[1] = module
  self.weight = module.weight  -- the effective weight, recomputed by each forward
  if module.bias then
    self.bias = module.bias
    self.gradBias = module.gradBias
  end
  local nOut = w:size(self.outputDim)
  self.viewIn = torch.LongStorage({ nOut, w:nElement() / nOut })
  -- Note [WeightNorm parameters are leaves]: v and g are computed from the module's weight, which
  -- requires grad (its own .grad is its gradWeight): recorded, they were non-leaves whose history
  -- led back to that weight, so linkGradients could not make gradV and gradG their .grad (a
  -- non-leaf keeps no .grad), the coarse node sent their gradients back through that history
  -- (loss:backward() left gradV and gradG at zero) and a second torch.autograd.grad met the
  -- freed graph of the norm. Computed with recording off they are leaves, like every parameter.
  self.v, self.g = torch.noGrad(function()
    local v = self:_permuteIn(w):contiguous():view(self.viewIn):clone()
    return v, torch.norm(v, 2, 2):view(nOut):clone()
  end)
  self.gradV = self.v.new(self.viewIn):zero()
  self.gradG = self.g.new(nOut):zero()
  self.eps = 1e-12  -- the smallest norm used: an all-zero v stays finite
  nn.utils.linkGradients(self)
end

-- The weight with outputDim moved to the front, and back.
function WeightNorm:_permuteIn(t)
  for i = self.outputDim - 1, 1, -1 do t = t:transpose(i, i + 1) end
  return t
end
function WeightNorm:_permuteOut(t)
  for i = 1, self.outputDim - 1 do t = t:transpose(i, i + 1) end
  return t
end

--- wn:parameters(): v, g and the module's bias, with gradV, gradG and gradBias.
function WeightNorm:parameters()
  if self.bias then return { self.v, self.g, self.bias }, { self.gradV, self.gradG, self.gradBias } end
  return { self.v, self.g }, { self.gradV, self.gradG }
end

--- wn:reset(): Torch7's initialization: v ~ N(0, 2 / fan-in), g = ||v||, bias 0.
function WeightNorm:reset()
  self.v:normal(0, math.sqrt(2 / self.viewIn[2]))
  self.g:copy(torch.norm(self.v, 2, 2):view(-1))
  if self.bias then self.bias:zero() end
  return self
end

-- ||v|| per row (an nOut x 1 column) into self._norm.
function WeightNorm:_norms()
  self._norm = torch.clamp(torch.cmul(self.v, self.v):sum(2):sqrt(), self.eps, math.huge)
  return self._norm
end

function WeightNorm:updateOutput(input)
  local scale = torch.cdiv(self.g:view(-1, 1), self:_norms())
  local w = torch.cmul(self.v, scale:expandAs(self.v))
  self.weight:copy(self:_permuteOut(w:view(self:_permuteIn(self.weight):size())))
  self.output = self.modules[1]:updateOutput(input)
  return self.output
end

-- g * v / ||v|| shaped like the module's weight, recorded (Note [Gradient penalties through a
-- reparametrized weight] in nn/reparam.lua).
function WeightNorm:_recordedWeight()
  local norm = torch.clamp(torch.norm(self.v, 2, 2), self.eps, math.huge)
  local w = torch.cmul(self.v, torch.cdiv(self.g:view(-1, 1), norm):expandAs(self.v))
  return self:_permuteOut(w:view(self:_permuteIn(self.weight):size())):contiguous()
end
function WeightNorm:_paramsNeedGrad() return self.v:needsGrad() or self.g:needsGrad() end

function WeightNorm:updateGradInput(input, gradOutput)
  self.gradInput = reparam.updateGradInput(self, self.modules[1], 'weight', input, gradOutput)
  return self.gradInput
end

-- dL/dg = sum(dL/dw * v) / ||v||; dL/dv = g / ||v|| * (dL/dw - v * sum(dL/dw * v) / ||v||^2).
-- Runs with recording off even when called directly (nn.Jacobian, Torch7 scripts) rather than
-- through Module:backward: recorded, gradG and gradV (g.grad and v.grad) would get a history that
-- leads back to g and v themselves, a cycle that reference counting never frees (LeakSanitizer
-- found it).
function WeightNorm:accGradParameters(input, gradOutput, scale)
  return torch.noGrad(self._accGradParameters, self, input, gradOutput, scale)
end

function WeightNorm:_accGradParameters(input, gradOutput, scale)
  local m = self.modules[1]
  local gw = reparam.weightGradient(self, m, m.weight, 'gradWeight', input, gradOutput, scale)
  local dw = self:_permuteIn(gw):contiguous():view(self.viewIn)
  local norm = self._norm
  local dot = torch.cmul(dw, self.v):sum(2)
  self.gradG:add(torch.cdiv(dot, norm):view(-1))
  local proj = torch.cmul(self.v, torch.cdiv(dot, torch.cmul(norm, norm)):expandAs(self.v))
  self.gradV:add(torch.cmul(torch.csub(dw, proj), torch.cdiv(self.g:view(-1, 1), norm):expandAs(dw)))
end

WeightNorm.accUpdateGradParameters = reparam.accUpdateGradParameters
--- wn:type(name): converts v, g and the module (float(), double(), cuda()); v and g keep requiring grad.
--- Example: local wn = nn.WeightNorm(nn.Linear(3, 2)):double(); print(wn.v.grad == wn.gradV)
WeightNorm.type = reparam.type

function WeightNorm:zeroGradParameters()
  nn.Module.zeroGradParameters(self)
end
function WeightNorm:updateParameters(lr)
  nn.Module.updateParameters(self, lr)
end
function WeightNorm:share(other, ...)
  return nn.Module.share(self, other, ...)
end

function WeightNorm:__tostring__()
  return 'nn.WeightNorm [' .. tostring(self.modules[1]) .. ']'
end

return WeightNorm
