-- nn.Identity(): passes its input through (tensors or tables).
local Identity, parent = torch.class('nn.Identity', 'nn.Module')

function Identity:updateOutput(input)
  self.output = input
  return input
end

function Identity:updateGradInput(input, gradOutput)
  self.gradInput = gradOutput
  return gradOutput
end

return Identity
