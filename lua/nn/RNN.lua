-- nn.RNN(inputSize, hiddenSize [, numLayers] [, {numLayers=, nonlinearity='tanh'|'relu', dropout=,
-- batchFirst=, bias=}]): a multi-layer Elman RNN, h_t = f(W_ih x_t + b_ih + W_hh h_{t-1} + b_hh),
-- PyTorch's nn.RNN with Torch7's module API (see nn/RNNBase.lua); final states in m.hN.
require 'nn.RNNBase'
local RNN, parent = torch.class('nn.RNN', 'nn.RNNBase')

function RNN:__init(inputSize, hiddenSize, ...)
  parent.__init(self, 'RNN', inputSize, hiddenSize, ...)
end

return RNN
