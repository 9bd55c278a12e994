-- nn.Mish(): x * tanh(softplus(x)) (PyTorch's nn.Mish), differentiated through its ops.
local Mish, parent = torch.class('nn.Mish', 'nn.Module')

function Mish:__init() parent.__init(self) end

function Mish:updateOutput(input)
  nn.utils.checkFloatInput(self, input)
  self.output = nn.functional.mish(input)
  return self.output
end

return Mish
