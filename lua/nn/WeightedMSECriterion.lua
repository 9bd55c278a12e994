-- nn.WeightedMSECriterion(weight): Torch7's MSE of input against weight .* target: the weight
-- scales the target only (not the difference). weight has the input's size, or one sample's size
-- for a batch (input:dim() == weight:dim() + 1); mean or sum by sizeAverage (default true).
local S = require 'nn.support'
require 'nn.MSECriterion'
local WeightedMSECriterion, parent = torch.class('nn.WeightedMSECriterion', 'nn.MSECriterion')

--- nn.WeightedMSECriterion(weight): weight is a tensor (copied).
function WeightedMSECriterion:__init(w)
  if not torch.isTensor(w) or not nn.utils.isFloating(w) then
    error('[nn.WeightedMSECriterion] weight must be a floating-point tensor, got ' .. S.describe(w), torch._lib.user_level())
  end
  parent.__init(self)
  self.weight = w:clone()
  self.buffer = torch.Tensor()
end

-- weight .* target in self.buffer, with the input's type and size.
local function weighted_target(self, input, target)
  target = nn.utils.targetAs(self, input, target)
  local w = self.weight
  if w:type() ~= input:type() then w = w:typeAs(input) end
  local b = nn.utils.buffer(self.buffer, input)
  self.buffer = b
  b:resizeAs(input):copy(target)
  local sample = input:size():totable()
  table.remove(sample, 1)
  local per_sample = 1
  for _, n in ipairs(sample) do per_sample = per_sample * n end
  if input:dim() == w:dim() + 1 and input:dim() > 1 then
    if w:nElement() ~= per_sample then
      S.fail(tostring(self), 'weight is %s but a sample of the input is of size %s', S.describe(self.weight),
        S.sizestr(sample))
    end
    b:cmul(w:contiguous():view(1, unpack(sample)):expandAs(b))
  elseif w:nElement() == input:nElement() then
    b:cmul(w:contiguous():viewAs(b))
  else
    S.fail(tostring(self), 'weight is %s but the input is %s (expected the input size or one sample\'s)',
      S.describe(self.weight), S.describe(input))
  end
  return b
end

function WeightedMSECriterion:updateOutput(input, target)
  return parent.updateOutput(self, input, weighted_target(self, input, target))
end

function WeightedMSECriterion:updateGradInput(input, target)
  return parent.updateGradInput(self, input, weighted_target(self, input, target))
end

return WeightedMSECriterion
