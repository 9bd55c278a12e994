-- nn.LSTM(inputSize, hiddenSize [, numLayers] [, {numLayers=, dropout=, batchFirst=, bias=}]): a
-- multi-layer LSTM over whole sequences, PyTorch's nn.LSTM with Torch7's module API (see
-- nn/RNNBase.lua): forward({input, h0, c0}) or forward(input); final states in m.hN and m.cN.
require 'nn.RNNBase'
local LSTM, parent = torch.class('nn.LSTM', 'nn.RNNBase')

function LSTM:__init(inputSize, hiddenSize, ...)
  parent.__init(self, 'LSTM', inputSize, hiddenSize, ...)
end

return LSTM
