-- nn.SpatialDropout(p [, stochasticInference] [, inverted]): Torch7's feature-map dropout: each
-- channel of an N x C x H x W input (or a C x H x W sample) is zeroed whole with probability p,
-- since neighbouring activations are correlated. Like Torch7 it scales by (1 - p) in evaluation;
-- inverted = true scales the kept maps by 1 / (1 - p) in training instead (PyTorch's Dropout2d).
-- Temporal/VolumetricDropout change only the number of dims (nDim).
local SpatialDropout, parent = torch.class('nn.SpatialDropout', 'nn.Module')

SpatialDropout.nDim = 4  -- dims of a mini-batch; a single sample has nDim - 1

function SpatialDropout:__init(p, stochasticInference, inverted)
  parent.__init(self)
  self.p = p or 0.5
  if type(self.p) ~= 'number' or self.p < 0 or self.p >= 1 then
    error(string.format('[%s] illegal percentage, must be 0 <= p < 1, got %s', torch.typename(self), tostring(p)), torch._lib.user_level())
  end
  self.train = true
  self.stochastic_inference = stochasticInference or false
  self.v2 = inverted or false
  self.noise = torch.Tensor()
end

local function size_str(t)
  if not torch.isTensor(t) then return type(t) end
  return torch.type(t) .. ' of size ' .. (t:dim() == 0 and '[]' or table.concat(t:size():totable(), 'x'))
end

-- The mask's shape: the input's up to the channel dim, 1 after it.
function SpatialDropout:_noiseShape(input, what)
  local nd = self.nDim
  if not torch.isTensor(input) or (input:dim() ~= nd and input:dim() ~= nd - 1) or input:type():find('Long')
      or input:type():find('Int') or input:type():find('Byte') or input:type():find('Bool') then
    error(string.format('[%s] expected a floating-point %s of %dD (N x C x ...) or %dD (C x ...), got %s',
      tostring(self), what or 'input', nd, nd - 1, size_str(input)), torch._lib.user_level())
  end
  local shape = input:size()
  for d = (input:dim() == nd and 3 or 2), input:dim() do shape[d] = 1 end
  return shape
end

function SpatialDropout:_masking()
  return self.p > 0 and (self.train or self.stochastic_inference)
end

function SpatialDropout:updateOutput(input)
  local shape = self:_noiseShape(input)
  self.output:resizeAs(input)
  if self:_masking() then
    if self.noise:type() ~= input:type() then self.noise = input.new() end
    self.noise:resize(shape):bernoulli(1 - self.p)
    if self.v2 then self.noise:div(1 - self.p) end
    torch.cmul(self.output, input, self.noise:expandAs(input))
  elseif not self.v2 and self.p > 0 then
    torch.mul(self.output, input, 1 - self.p)
  else
    self.output:copy(input)
  end
  return self.output
end

function SpatialDropout:updateGradInput(input, gradOutput)
  self:_noiseShape(gradOutput, 'gradOutput')
  -- the mask would broadcast over any H x W, giving a gradInput of the wrong size
  if not torch.isTensor(input) or not gradOutput:isSameSizeAs(input) then
    error(string.format('[%s] gradOutput (%s) must have the size of the input (%s)', tostring(self),
      size_str(gradOutput), size_str(input)), torch._lib.user_level())
  end
  self.gradInput:resizeAs(gradOutput)
  if self:_masking() then
    torch.cmul(self.gradInput, gradOutput, self.noise:expandAs(gradOutput))
  elseif not self.v2 and self.p > 0 then
    torch.mul(self.gradInput, gradOutput, 1 - self.p)
  else
    self.gradInput:copy(gradOutput)
  end
  return self.gradInput
end

--- d:setp(p): changes the drop probability (0 <= p < 1).
--- Example: nn.SpatialDropout(0.5):setp(0.2)
function SpatialDropout:setp(p)
  if type(p) ~= 'number' or p < 0 or p >= 1 then
    error(string.format('[%s] setp: illegal percentage, must be 0 <= p < 1, got %s', tostring(self), tostring(p)), torch._lib.user_level())
  end
  self.p = p
  return self
end

function SpatialDropout:clearState()
  if self.noise then self.noise:set() end
  return parent.clearState(self)
end

function SpatialDropout:__tostring__()
  return string.format('%s(%g)', torch.typename(self), self.p)
end

return SpatialDropout
