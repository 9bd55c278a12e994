-- nn.Clamp(min, max): clamps to [min, max] (Torch7's nn.HardTanh with other bounds).
require 'nn.HardTanh'
local Clamp, parent = torch.class('nn.Clamp', 'nn.HardTanh')

--- nn.Clamp(min_value, max_value).
function Clamp:__init(min_value, max_value)
  parent.__init(self, min_value, max_value)
end

return Clamp
