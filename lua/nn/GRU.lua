-- nn.GRU(inputSize, hiddenSize [, numLayers] [, {numLayers=, dropout=, batchFirst=, bias=}]): a
-- multi-layer GRU over whole sequences, PyTorch's nn.GRU with Torch7's module API (see
-- nn/RNNBase.lua): forward({input, h0}) or forward(input); final states in m.hN.
require 'nn.RNNBase'
local GRU, parent = torch.class('nn.GRU', 'nn.RNNBase')

function GRU:__init(inputSize, hiddenSize, ...)
  parent.__init(self, 'GRU', inputSize, hiddenSize, ...)
end

return GRU
