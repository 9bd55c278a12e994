-- nn.GRUCell(inputSize, hiddenSize [, bias]): one GRU step, {x, h} -> h' (x alone: zero state),
-- PyTorch's nn.GRUCell with Torch7's module API (see nn/RNNCellBase.lua).
require 'nn.RNNCellBase'
local GRUCell, parent = torch.class('nn.GRUCell', 'nn.RNNCellBase')

function GRUCell:__init(inputSize, hiddenSize, bias)
  parent.__init(self, 'GRU', inputSize, hiddenSize, bias)
end

return GRUCell
