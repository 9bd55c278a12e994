-- nn.Hardswish(): x * relu6(x + 3) / 6 (PyTorch's nn.Hardswish, MobileNetV3), differentiated
-- through its ops.
local Hardswish, parent = torch.class('nn.Hardswish', 'nn.Module')

function Hardswish:__init() parent.__init(self) end

function Hardswish:updateOutput(input)
  nn.utils.checkFloatInput(self, input)
  self.output = nn.functional.hardswish(input)
  return self.output
end

return Hardswish
