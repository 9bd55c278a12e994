-- nn.Dropout(p [, v1] [, inplace] [, stochasticInference]): Torch7's dropout. In training each
-- element is zeroed with probability p and the others are scaled by 1 / (1 - p) (inverted
-- dropout), so evaluation is the identity; v1 = true is the old form that does not scale in
-- training and multiplies by (1 - p) in evaluation. Masks come from the torch generator
-- (torch.manualSeed makes them reproducible).
local Dropout, parent = torch.class('nn.Dropout', 'nn.Module')

-- Note [Dropout options table]: PyTorch's nn.Dropout(p, inplace) is written nn.Dropout(p,
-- {inplace = true}) or nn.Dropout({p = 0.3}) here; a table in v1's place was once taken as a true
-- v1 (Torch7's unscaled dropout), silently giving a PyTorch user the wrong scaling.
local function options(p, v1)
  local o
  if type(p) == 'table' and not torch.isTensor(p) then o, p = p, nil
  elseif type(v1) == 'table' and not torch.isTensor(v1) then o = v1 end
  if not o then return nil end
  for k in pairs(o) do
    if k ~= 'p' and k ~= 'inplace' then
      error(string.format('[nn.Dropout] unknown option %s (expected p, inplace)', tostring(k)), torch._lib.user_level())
    end
  end
  if p ~= nil and o.p ~= nil then error('[nn.Dropout] argument p given twice (positional and option)', torch._lib.user_level()) end
  if o.inplace ~= nil and type(o.inplace) ~= 'boolean' then
    error(string.format('[nn.Dropout] inplace must be a boolean, got %s', tostring(o.inplace)), torch._lib.user_level())
  end
  return p == nil and o.p or p, o.inplace
end

function Dropout:__init(p, v1, inplace, stochasticInference)
  parent.__init(self)
  if type(p) == 'table' or type(v1) == 'table' then
    if inplace ~= nil or stochasticInference ~= nil then
      error('[nn.Dropout] expected (p [, v1, inplace, stochasticInference]) or (p, {inplace =}), got more arguments', torch._lib.user_level())
    end
    p, inplace = options(p, v1)
    v1 = nil
  end
  self.p = p or 0.5
  if type(self.p) ~= 'number' or self.p < 0 or self.p >= 1 then
    error(string.format('[%s] illegal percentage, must be 0 <= p < 1, got %s', torch.typename(self), tostring(p)), torch._lib.user_level())
  end
  self.train = true
  self.inplace = inplace or false
  self.stochastic_inference = stochasticInference or false
  self.v2 = not v1  -- version 2 scales in training instead of evaluation
  self.noise = torch.Tensor()
end

local function check_input(self, input, what)
  if not nn.utils.isFloating(input) then
    error(string.format('[%s] expected a floating-point %s, got %s', tostring(self), what or 'input',
      torch.isTensor(input) and torch.type(input) or type(input)), torch._lib.user_level())
  end
end

-- Whether this forward pass draws a mask.
function Dropout:_masking()
  return self.p > 0 and (self.train or self.stochastic_inference)
end

-- A fresh mask shaped like `shape` (keep with probability 1 - p, scaled for inverted dropout).
function Dropout:_drawNoise(input, shape)
  if self.noise:type() ~= input:type() then self.noise = input.new() end
  self.noise:resize(shape):bernoulli(1 - self.p)
  if self.v2 then self.noise:div(1 - self.p) end
  return self.noise
end

function Dropout:updateOutput(input)
  check_input(self, input)
  if self.inplace then self.output:set(input) else self.output:resizeAs(input) end
  if self:_masking() then
    torch.cmul(self.output, input, self:_drawNoise(input, input:size()))
  elseif not self.v2 and self.p > 0 then
    torch.mul(self.output, input, 1 - self.p)
  elseif not self.inplace then
    self.output:copy(input)
  end
  return self.output
end

function Dropout:updateGradInput(input, gradOutput)
  check_input(self, gradOutput, 'gradOutput')
  if self.inplace then self.gradInput:set(gradOutput) else self.gradInput:resizeAs(gradOutput) end
  if self:_masking() then
    torch.cmul(self.gradInput, gradOutput, self.noise)
  elseif not self.v2 and self.p > 0 then
    torch.mul(self.gradInput, gradOutput, 1 - self.p)
  elseif not self.inplace then
    self.gradInput:copy(gradOutput)
  end
  return self.gradInput
end

--- d:setp(p): changes the drop probability.
function Dropout:setp(p)
  self.p = p
end

function Dropout:clearState()
  if self.noise then self.noise:set() end
  return parent.clearState(self)
end

function Dropout:__tostring__()
  return string.format('%s(%g, busy)', torch.typename(self), self.p)
end

return Dropout
