-- nn.MSECriterion([sizeAverage]): mean (or sum) of (input - target)^2.
local MSECriterion, parent = torch.class('nn.MSECriterion', 'nn.Criterion')

function MSECriterion:__init(sizeAverage)
  parent.__init(self)
  self.sizeAverage = sizeAverage == nil and true or sizeAverage
end

local function check(input, target)
  if not torch.isTensor(target) or target:nElement() ~= input:nElement() then
    error(string.format('[nn.MSECriterion] input has %d elements but target %s', input:nElement(),
      torch.isTensor(target) and ('has ' .. target:nElement()) or ('is a ' .. torch.type(target))), 0)
  end
end

function MSECriterion:updateOutput(input, target)
  check(input, target)
  local d = torch.csub(input, target:typeAs(input):viewAs(input))
  local s = torch.dot(d, d)
  self.output = self.sizeAverage and s / input:nElement() or s
  return self.output
end

function MSECriterion:updateGradInput(input, target)
  check(input, target)
  local norm = self.sizeAverage and 2 / input:nElement() or 2
  self.gradInput = torch.csub(input, target:typeAs(input):viewAs(input)):mul(norm)
  return self.gradInput
end

return MSECriterion
