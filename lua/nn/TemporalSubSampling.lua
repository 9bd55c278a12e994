-- nn.TemporalSubSampling(inputFrameSize, kW [, dW = 1]): Torch7's trainable sub-sampling of
-- nFrame x inputFrameSize or N x nFrame x inputFrameSize sequences: output frame t is the sum of
-- input frames (t-1)*dW + 1 .. (t-1)*dW + kW times a per-feature weight, plus a per-feature bias
-- (in batch mode too, where Torch7's C code forgot the bias). Gradients written by hand (Torch7 style).
local S = require 'nn.support'
local F = require 'nn.functional_pool'
local TemporalSubSampling, parent = torch.class('nn.TemporalSubSampling', 'nn.Module')

function TemporalSubSampling:__init(inputFrameSize, kW, dW)
  parent.__init(self)
  local name = 'nn.TemporalSubSampling'
  self.inputFrameSize = S.argInt(name, 'inputFrameSize', inputFrameSize, 1)
  self.kW = S.argInt(name, 'kW', kW, 1)
  self.dW = S.argInt(name, 'dW', dW or 1, 1)
  self.weight = torch.Tensor(inputFrameSize)
  self.bias = torch.Tensor(inputFrameSize)
  self.gradWeight = torch.Tensor(inputFrameSize):zero()
  self.gradBias = torch.Tensor(inputFrameSize):zero()
  self:reset()
end

--- m:reset([stdv]): weight and bias uniform in (-stdv, stdv); stdv = 1/sqrt(kW) by default, or the
--- given stdv times sqrt(3) (Torch7).
function TemporalSubSampling:reset(stdv)
  stdv = stdv and stdv * math.sqrt(3) or 1 / math.sqrt(self.kW)
  self.weight:uniform(-stdv, stdv)
  self.bias:uniform(-stdv, stdv)
  nn.utils.linkGradients(self)
  return self
end

-- The module with its configuration, for errors (it prints as Torch7's did: its class name).
local function name(self)
  return string.format('%s(%d, %d, %d)', torch.type(self), self.inputFrameSize, self.kW, self.dW)
end

-- The window sums (.. x nOutputFrame x F) of a checked input, and the frame dim.
local function sums(self, input)
  local F = self.inputFrameSize
  if not torch.isTensor(input) or (input:dim() ~= 2 and input:dim() ~= 3) or input:size(input:dim()) ~= F then
    S.fail(name(self), 'expected a 2D (nFrame x %d) or 3D (N x nFrame x %d) input, got %s', F, F, S.describe(input))
  end
  if input:type() ~= self.weight:type() then
    S.fail(name(self), 'expected a %s input (the type of the weight), got %s', self.weight:type(), S.describe(input))
  end
  local t = input:dim() - 1
  if input:size(t) < self.kW then
    S.fail(name(self), 'input of size %s has fewer than kW = %d frames', S.sizestr(input), self.kW)
  end
  return input:unfold(t, self.kW, self.dW):sum(t + 2):select(t + 2, 1), t
end

function TemporalSubSampling:updateOutput(input)
  local s = sums(self, input)
  self.output = s:cmul(self.weight:view(1, -1):expandAs(s)):add(self.bias:view(1, -1):expandAs(s))
  return self.output
end

function TemporalSubSampling:updateGradInput(input, gradOutput)
  if not self.gradInput then return end
  S.gradLike(name(self), gradOutput, self.output)
  torch.noGrad(function()
    local t = input:dim() - 1
    local o = gradOutput:size(t)
    local g = torch.cmul(gradOutput, self.weight:view(1, -1):expandAs(gradOutput))
    self.gradInput = self.gradInput:typeAs(input):resizeAs(input):zero()
    -- one strided view of the gradient per window offset (kW of them); a view's frames are distinct
    for j = 1, self.kW do
      self.gradInput:narrow(t, j, (o - 1) * self.dW + 1):unfold(t, 1, self.dW):select(t + 2, 1):add(g)
    end
  end)
  return self.gradInput
end

function TemporalSubSampling:accGradParameters(input, gradOutput, scale)
  scale = scale or 1
  S.gradLike(name(self), gradOutput, self.output)
  torch.noGrad(function()
    local F = self.inputFrameSize
    self.gradWeight:add(scale, sums(self, input):cmul(gradOutput):contiguous():view(-1, F):sum(1):view(F))
    self.gradBias:add(scale, gradOutput:contiguous():view(-1, F):sum(1):view(F))
  end)
end

return TemporalSubSampling
