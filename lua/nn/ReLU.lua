-- nn.ReLU([inplace]): max(0, x).
require 'nn.Threshold'
local ReLU, parent = torch.class('nn.ReLU', 'nn.Threshold')

function ReLU:__init(ip)
  parent.__init(self, 0, 0, ip)
end

function ReLU:__tostring__() return 'nn.ReLU' .. (self.inplace and '(inplace)' or '') end

return ReLU
