-- nn.TemporalDynamicKMaxPooling(minK [, factor = 0]): Torch7's dynamic k-max pooling (Kalchbrenner
-- et al., 2014) of nFrame x F or N x nFrame x F inputs: for each feature, the k largest frames in
-- their original order, k = max(minK, ceil(factor * nFrame)). m.indices (LongTensor, the output's
-- size) holds the frames taken; the gradient goes back to them.
local S = require 'nn.support'
local F = require 'nn.functional_pool'
local TemporalDynamicKMaxPooling, parent = torch.class('nn.TemporalDynamicKMaxPooling', 'nn.Module')

function TemporalDynamicKMaxPooling:__init(minK, factor)
  parent.__init(self)
  local name = 'nn.TemporalDynamicKMaxPooling'
  self.minK = S.argInt(name, 'minK', minK, 1)
  self.factor = factor or 0
  if type(self.factor) ~= 'number' or not (self.factor >= 0 and self.factor <= 1) then
    F.init_error(name, 'factor must be a number in [0, 1], got %s', type(factor) == 'number' and tostring(factor)
      or S.describe(factor))
  end
end

local function name(self) return string.format('%s(%d, %g)', torch.type(self), self.minK, self.factor) end

function TemporalDynamicKMaxPooling:updateOutput(input)
  if not torch.isTensor(input) or (input:dim() ~= 2 and input:dim() ~= 3) then
    S.fail(name(self), 'expected a 2D (nFrame x F) or 3D (N x nFrame x F) input, got %s', S.describe(input))
  end
  local seqDim = input:dim() - 1
  local L = input:size(seqDim)
  local k = math.max(self.minK, math.ceil(self.factor * L))
  if k > L then
    S.fail(name(self), 'input of size %s has %d frames, fewer than k = %d', S.sizestr(input), L, k)
  end
  torch.noGrad(function()
    local _, order = input:sort(seqDim, true)
    -- the k largest frames of each feature, back in their original order
    self.indices = order:narrow(seqDim, 1, k):sort(seqDim)
  end)
  self.output = input:gather(seqDim, self.indices)
  return self.output
end

function TemporalDynamicKMaxPooling:updateGradInput(input, gradOutput)
  if not self.gradInput then return end
  S.gradLike(name(self), gradOutput, self.output)
  torch.noGrad(function()
    self.gradInput = self.gradInput:typeAs(input):resizeAs(input):zero()
    -- a feature's frames are distinct: scatter, no accumulation needed
    self.gradInput:scatter(input:dim() - 1, self.indices, gradOutput)
  end)
  return self.gradInput
end

function TemporalDynamicKMaxPooling:clearState()
  self.indices = nil
  return parent.clearState(self)
end

return TemporalDynamicKMaxPooling
