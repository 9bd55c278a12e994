-- nn.LayerNormalization(normalizedShape [, eps = 1e-5] [, elementwiseAffine = true]): PyTorch's
-- LayerNorm: normalizes over the last dims (normalizedShape: a number, a table or a
-- LongStorage), then applies a per-element weight (init 1) and bias (init 0). Built on
-- torch.layerNorm, so autograd differentiates it (Note [Modules and autograd]).
local LN, parent = torch.class('nn.LayerNormalization', 'nn.Module')

local function shape_of(s)
  if type(s) == 'number' then return { s } end
  if torch.typename(s) == 'torch.LongStorage' then return s:totable() end
  if type(s) == 'table' then return s end
end

function LN:__init(normalizedShape, eps, elementwiseAffine)
  parent.__init(self)
  local shape = shape_of(normalizedShape)
  local ok = shape and #shape > 0
  for _, v in ipairs(shape or {}) do
    if type(v) ~= 'number' or v < 1 or v ~= math.floor(v) then ok = false end
  end
  if not ok then
    error(string.format('[nn.LayerNormalization] expected a normalized shape of positive sizes, got %s',
      tostring(normalizedShape)), 2)
  end
  self.normalizedShape = torch.LongStorage(shape)
  self.eps = eps or 1e-5
  if type(self.eps) ~= 'number' or self.eps < 0 then
    error(string.format('[nn.LayerNormalization] expected eps >= 0, got %s', tostring(eps)), 2)
  end
  self.elementwiseAffine = elementwiseAffine ~= false
  if self.elementwiseAffine then
    self.weight = torch.Tensor(self.normalizedShape)
    self.bias = torch.Tensor(self.normalizedShape)
    self.gradWeight = torch.Tensor(self.normalizedShape):zero()
    self.gradBias = torch.Tensor(self.normalizedShape):zero()
  end
  self:reset()
end

--- ln:reset(): weight 1 and bias 0 (PyTorch's initialization).
function LN:reset()
  if self.weight then
    self.weight:fill(1)
    self.bias:zero()
    self.gradWeight:zero()
    self.gradBias:zero()
  end
  nn.utils.linkGradients(self)
  return self
end

local function shape_str(s) return table.concat(torch.isTensor(s) and s:size():totable() or s:totable(), 'x') end

function LN:updateOutput(input)
  local n = #self.normalizedShape
  local ok = torch.isTensor(input) and input:dim() >= n
  for i = 1, n do
    ok = ok and input:size(input:dim() - n + i) == self.normalizedShape[i]
  end
  if not ok then
    error(string.format('[%s] expected an input whose last dims are %s, got %s', tostring(self),
      shape_str(self.normalizedShape), torch.isTensor(input)
        and (torch.type(input) .. ' of size ' .. (input:dim() == 0 and '[]' or shape_str(input))) or type(input)), 0)
  end
  self.output = torch.layerNorm(input, n, self.weight, self.bias, self.eps)
  return self.output
end

function LN:__tostring__()
  return string.format('%s(%s%s)', torch.typename(self), shape_str(self.normalizedShape),
    self.elementwiseAffine and '' or ', without affine')
end

return LN
