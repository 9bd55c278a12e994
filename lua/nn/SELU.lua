-- nn.SELU([inplace]): the self-normalizing ELU, scale * elu(x, alpha) with PyTorch's constants.
require 'nn.ELU'
local SELU, parent = torch.class('nn.SELU', 'nn.ELU')

--- nn.SELU([inplace=false]).
function SELU:__init(inplace)
  parent.__init(self, 1.6732632423543772848170429916717, inplace)
  self._scale = 1.0507009873554804934193349852946
end

function SELU:__tostring__()
  return torch.typename(self)
end

return SELU
