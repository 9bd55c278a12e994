-- nn.WhiteNoise([mean = 0, std = 0.1]): dpnn's additive Gaussian noise: in training the output is
-- input + N(mean, std^2) noise drawn at each forward (kept in m.noise), in evaluation input +
-- mean; the gradient passes through unchanged (training only, as in dpnn).
local S = require 'nn.support'
local WhiteNoise, parent = torch.class('nn.WhiteNoise', 'nn.Module')

--- nn.WhiteNoise([mean = 0, std = 0.1]): std must be >= 0.
--- Example: nn.WhiteNoise(0, 0.5):forward(torch.zeros(3))
function WhiteNoise:__init(mean, std)
  parent.__init(self)
  self.mean = mean == nil and 0 or S.argNumber('nn.WhiteNoise', 'mean', mean)
  self.std = std == nil and 0.1 or S.argNumber('nn.WhiteNoise', 'std', std)
  if self.std < 0 then S.fail('nn.WhiteNoise', 'std must be >= 0, got %g', self.std) end
  self.noise = torch.Tensor()
end

function WhiteNoise:updateOutput(input)
  nn.utils.checkFloatInput(self, input)
  self.output = nn.utils.buffer(self.output, input):resizeAs(input):copy(input)
  if self.train ~= false then
    self.noise = nn.utils.buffer(self.noise, input):resizeAs(input)
    if self.std > 0 then self.noise:normal(self.mean, self.std) else self.noise:fill(self.mean) end
    self.output:add(self.noise)
  elseif self.mean ~= 0 then
    self.output:add(self.mean)
  end
  return self.output
end

function WhiteNoise:updateGradInput(input, gradOutput)
  if self.train == false then
    S.fail('nn.WhiteNoise', 'backward is only defined in training mode (call m:training())')
  end
  S.gradLike('nn.WhiteNoise', gradOutput, input)
  self.gradInput = nn.utils.buffer(self.gradInput, gradOutput):resizeAs(gradOutput):copy(gradOutput)
  return self.gradInput
end

function WhiteNoise:__tostring__()
  return string.format('%s mean: %f, std: %f', torch.type(self), self.mean, self.std)
end

return WhiteNoise
