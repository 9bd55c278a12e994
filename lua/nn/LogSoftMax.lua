-- nn.LogSoftMax(): log(softmax(x)) over the last dim of a vector or a batch of rows.
local LogSoftMax, parent = torch.class('nn.LogSoftMax', 'nn.Module')

function LogSoftMax:updateOutput(input)
  if input:dim() ~= 1 and input:dim() ~= 2 then
    error(string.format('[nn.LogSoftMax] expected a vector or a batch of rows, got size %s',
      table.concat(input:size():totable(), 'x')), 0)
  end
  self.output = torch.logSoftmax(input, input:dim())
  return self.output
end

-- d/dx: gradOutput - exp(output) * sum(gradOutput) along the class dim.
function LogSoftMax:updateGradInput(input, gradOutput)
  local d = input:dim()
  local s = torch.sum(gradOutput, d)
  self.gradInput = torch.csub(gradOutput, torch.cmul(torch.exp(self.output), s))
  return self.gradInput
end

return LogSoftMax
