-- nn.Hardsigmoid(): relu6(x + 3) / 6 (PyTorch's nn.Hardsigmoid), differentiated through its ops.
local Hardsigmoid, parent = torch.class('nn.Hardsigmoid', 'nn.Module')

function Hardsigmoid:__init() parent.__init(self) end

function Hardsigmoid:updateOutput(input)
  nn.utils.checkFloatInput(self, input)
  self.output = nn.functional.hardsigmoid(input)
  return self.output
end

return Hardsigmoid
