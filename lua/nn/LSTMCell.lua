-- nn.LSTMCell(inputSize, hiddenSize [, bias]): one LSTM step, {x, h, c} -> {h', c'} (x alone:
-- zero states), PyTorch's nn.LSTMCell with Torch7's module API (see nn/RNNCellBase.lua).
require 'nn.RNNCellBase'
local LSTMCell, parent = torch.class('nn.LSTMCell', 'nn.RNNCellBase')

function LSTMCell:__init(inputSize, hiddenSize, bias)
  parent.__init(self, 'LSTM', inputSize, hiddenSize, bias)
end

return LSTMCell
