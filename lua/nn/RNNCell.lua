-- nn.RNNCell(inputSize, hiddenSize [, bias] [, nonlinearity = 'tanh' | 'relu']): one Elman RNN
-- step, {x, h} -> h' (x alone: zero state), PyTorch's nn.RNNCell (see nn/RNNCellBase.lua).
require 'nn.RNNCellBase'
local RNNCell, parent = torch.class('nn.RNNCell', 'nn.RNNCellBase')

function RNNCell:__init(inputSize, hiddenSize, bias, nonlinearity)
  nonlinearity = nonlinearity or 'tanh'
  if nonlinearity ~= 'tanh' and nonlinearity ~= 'relu' then
    error(string.format("[nn.RNNCell] nonlinearity must be 'tanh' or 'relu', got %s", tostring(nonlinearity)),
      torch._lib.user_level())
  end
  self.nonlinearity = nonlinearity
  parent.__init(self, nonlinearity == 'tanh' and 'RNN_TANH' or 'RNN_RELU', inputSize, hiddenSize, bias)
end

return RNNCell
