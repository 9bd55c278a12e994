-- nn.ReLU6([inplace]): min(max(0, x), 6) (nn.HardTanh(0, 6)).
require 'nn.HardTanh'
local ReLU6, parent = torch.class('nn.ReLU6', 'nn.HardTanh')

--- nn.ReLU6([inplace=false]).
function ReLU6:__init(inplace)
  parent.__init(self, 0, 6, inplace)
end

return ReLU6
