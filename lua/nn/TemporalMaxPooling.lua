-- nn.TemporalMaxPooling(kW [, dW = kW]): max over windows of kW frames every dW frames of a
-- (nFrame x frameSize) or (nBatch x nFrame x frameSize) input, per feature (Torch7's layout).
-- self.indices holds the 1-based frame of each maximum (Torch7 kept the 0-based offset inside the
-- window in this internal buffer; an absolute frame matches the other max poolings' indices).
local F = require 'nn.functional_pool'
local TemporalMaxPooling, parent = torch.class('nn.TemporalMaxPooling', 'nn.Module')

function TemporalMaxPooling:__init(kW, dW)
  parent.__init(self)
  dW = dW or kW
  if type(kW) ~= 'number' or type(dW) ~= 'number' or kW < 1 or dW < 1 then
    F.init_error('nn.TemporalMaxPooling', 'expected a positive kernel width and step, got %s and %s',
      tostring(kW), tostring(dW))
  end
  self.kW, self.dW = kW, dW
  self.indices = torch.LongTensor()
end

function TemporalMaxPooling:updateOutput(input)
  F.check_input(self, input, 2, 'nBatch x nFrame x frameSize')
  self.indices = F.long_buffer(self.indices, input)
  F.call(self, F.temporalMaxPool, F.buffer(self, 'output', input), self.indices, input, self.kW, self.dW)
  return self.output
end

-- The pooled dim is the frames (one before the last).
function TemporalMaxPooling:updateGradInput(input, gradOutput)
  local gi = F.buffer(self, 'gradInput', gradOutput)
  F.call(self, F.maxPoolBackward, gi, gradOutput, self.indices, input, 1, 1)
  return self.gradInput
end

function TemporalMaxPooling:clearState()
  self.indices = torch.LongTensor()
  return parent.clearState(self)
end

function TemporalMaxPooling:__tostring__()
  return string.format('%s(%d, %d)', torch.type(self), self.kW, self.dW)
end

return TemporalMaxPooling
