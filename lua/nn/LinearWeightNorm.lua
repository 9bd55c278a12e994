-- nn.LinearWeightNorm(inputSize, outputSize[, bias=true]): nn.Linear whose weight is
-- reparametrized as weight_j = g_j v_j / |v_j| (weight normalization, Salimans & Kingma 2016) with
-- Torch7's fields: the parameters v (outputSize x inputSize), g (outputSize x 1) and bias, their
-- gradients gradV, gradG, gradBias, and weight recomputed from v and g by updateWeightMatrix (every
-- forward in training mode; in evaluation mode only after the parameters changed).
local S = require 'nn.support'

require 'nn.Linear'
local LinearWeightNorm, parent = torch.class('nn.LinearWeightNorm', 'nn.Linear')

function LinearWeightNorm:__init(inputSize, outputSize, bias)
  nn.Module.__init(self)  -- not nn.Linear's: there is no gradWeight here
  S.argInt('nn.LinearWeightNorm', 'inputSize', inputSize, 1)
  S.argInt('nn.LinearWeightNorm', 'outputSize', outputSize, 1)
  self.inputSize, self.outputSize = inputSize, outputSize
  self.v = S.alloc('nn.LinearWeightNorm', outputSize, inputSize)
  self.gradV = torch.Tensor(outputSize, inputSize):zero()
  self.weight = torch.Tensor(outputSize, inputSize)
  self.g = torch.Tensor(outputSize, 1)
  self.gradG = torch.Tensor(outputSize, 1):zero()
  self.norm = torch.Tensor(outputSize, 1)
  self.scale = torch.Tensor(outputSize, 1)
  if bias ~= false then
    self.bias = torch.Tensor(outputSize)
    self.gradBias = torch.Tensor(outputSize):zero()
  end
  self:reset()
end

--- LinearWeightNorm.fromLinear(linear): the same layer reparametrized (g = |w_j|, v = w_j / |w_j|).
function LinearWeightNorm.fromLinear(linear)
  if torch.typename(linear) ~= 'nn.Linear' then
    error('[nn.LinearWeightNorm] fromLinear expects an nn.Linear, got ' .. S.describe(linear), torch._lib.user_level())
  end
  local m = nn.LinearWeightNorm(linear.weight:size(2), linear.weight:size(1), linear.bias ~= nil)
  torch.noGrad(function()
    m:type(linear.weight:type())
    m.g:norm(linear.weight, 2, 2)
    m.v:copy(linear.weight):cdiv(m.g:expandAs(m.v))
    if linear.bias then m.bias:copy(linear.bias) end
  end)
  m.dirty = true
  return m
end

--- l:toLinear(): an nn.Linear holding the current weight and bias.
function LinearWeightNorm:toLinear()
  self:updateWeightMatrix()
  local m = nn.Linear(self.inputSize, self.outputSize, self.bias ~= nil):type(self.weight:type())
  torch.noGrad(function()
    m.weight:copy(self.weight)
    if self.bias then m.bias:copy(self.bias) end
  end)
  return m
end

--- l:parameters(): {v, g[, bias]}, {gradV, gradG[, gradBias]} (Torch7).
function LinearWeightNorm:parameters()
  if self.bias then return { self.v, self.g, self.bias }, { self.gradV, self.gradG, self.gradBias } end
  return { self.v, self.g }, { self.gradV, self.gradG }
end

--- l:reset([stdv]): uniform(-stdv, stdv) v and bias (stdv = 1/sqrt(inputSize) by default), g = |v_j|.
function LinearWeightNorm:reset(stdv)
  stdv = stdv and stdv * math.sqrt(3) or 1 / math.sqrt(self.inputSize)
  torch.noGrad(function()
    self.v:uniform(-stdv, stdv)
    self.g:norm(self.v, 2, 2)
    if self.bias then self.bias:uniform(-stdv, stdv) end
  end)
  self.dirty = true
  nn.utils.linkGradients(self)
  return self
end

--- l:updateWeightMatrix(): weight = g v / |v| (row by row), when training or after a change.
function LinearWeightNorm:updateWeightMatrix()
  if not (self.dirty or self.train) then return end
  torch.noGrad(function()
    self.norm = torch.norm(self.v, 2, 2)
    self.scale = torch.cdiv(self.g, self.norm)
    self.weight:resizeAs(self.v):copy(self.v):cmul(self.scale:expandAs(self.v))
  end)
  self.dirty = false
end

function LinearWeightNorm:updateOutput(input)
  self:updateWeightMatrix()
  return parent.updateOutput(self, input)
end

-- Input and gradOutput checked against the layer (nn.Linear's backward trusts them).
local function check_backward(self, input, gradOutput)
  local I = self.inputSize
  if not torch.isTensor(input) or (input:dim() ~= 1 and input:dim() ~= 2) or input:size(input:dim()) ~= I then
    S.fail(tostring(self), 'expected a vector of %d features or a batch (N x %d), got %s', self.inputSize,
      self.inputSize, S.describe(input))
  end
  S.gradLike(tostring(self), gradOutput, input:dim() == 1 and { self.outputSize } or { input:size(1), self.outputSize })
end

-- Under createGraph=true the input gradient is built from a weight recorded from v and g, so a
-- gradient penalty reaches them through it (Note [Gradient penalties through a reparametrized
-- weight] in nn/reparam.lua); self.weight itself is written with recording off.
function LinearWeightNorm:updateGradInput(input, gradOutput)
  check_backward(self, input, gradOutput)
  if not (torch.isGradEnabled() and (self.v:needsGrad() or self.g:needsGrad())) then
    return parent.updateGradInput(self, input, gradOutput)
  end
  local w = self.weight
  self.weight = torch.cmul(self.v, torch.cdiv(self.g, torch.norm(self.v, 2, 2)):expandAs(self.v))
  local ok, res = pcall(parent.updateGradInput, self, input, gradOutput)
  self.weight = w
  if not ok then error(res, 0) end
  return res
end

-- dL/dg_j = sum_i dW_ji v_ji / |v_j|; dL/dv_j = (g_j / |v_j|) (dW_j - dL/dg_j v_j / |v_j|), for
-- this call's dW = gradOutput^T input. Computed before anything is added, so the gradients may
-- alias the parameters (accUpdateGradParameters); Torch7 rescaled the whole accumulated gradV
-- and overwrote gradG instead of adding.
function LinearWeightNorm:accGradParameters(input, gradOutput, scale)
  scale = scale or 1
  if type(scale) ~= 'number' then
    S.fail(tostring(self), 'scale must be a number, got %s', S.describe(scale))
  end
  check_backward(self, input, gradOutput)
  torch.noGrad(function()
    local x = input:dim() == 1 and input:view(1, -1) or input
    local go = gradOutput:contiguous():view(x:size(1), self.outputSize)
    local dW = torch.mm(go:t(), x)
    local norm = torch.norm(self.v, 2, 2)
    local vn = torch.cdiv(self.v, norm:expandAs(self.v))
    local dg = torch.cmul(dW, vn):sum(2)
    local dv = dW:add(-1, torch.cmul(vn, dg:expandAs(vn))):cmul(torch.cdiv(self.g, norm):expandAs(dW))
    local db = self.bias and go:sum(1):view(-1)
    self.gradV:add(scale, dv)
    self.gradG:add(scale, dg)
    if db then self.gradBias:add(scale, db) end
  end)
  self.dirty = true
end

function LinearWeightNorm:accUpdateGradParameters(input, gradOutput, lr)
  local gv, gg, gb = self.gradV, self.gradG, self.gradBias
  self.gradV, self.gradG, self.gradBias = self.v, self.g, self.bias
  local ok, err = pcall(self.accGradParameters, self, input, gradOutput, -lr)
  self.gradV, self.gradG, self.gradBias = gv, gg, gb
  if not ok then error(err, 0) end
end

function LinearWeightNorm:updateParameters(lr)
  parent.updateParameters(self, lr)
  self.dirty = true
end

function LinearWeightNorm:noBias()
  self.bias, self.gradBias = nil, nil
  return self
end

function LinearWeightNorm:clearState()
  self.dirty = true
  return parent.clearState(self)
end

function LinearWeightNorm:__tostring__()
  return string.format('nn.LinearWeightNorm(%d -> %d)%s', self.inputSize, self.outputSize,
    self.bias == nil and ' without bias' or '')
end

return LinearWeightNorm
