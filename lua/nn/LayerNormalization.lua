-- nn.LayerNormalization(normalizedShape [, eps = 1e-5] [, elementwiseAffine = true]): PyTorch's
-- LayerNorm: normalizes over the last dims (normalizedShape: a number, a table or a
-- LongStorage), then applies a per-element weight (init 1) and bias (init 0). Torch7 style on
-- the fused kernels of torch._layerNormOut (one coarse autograd node).
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
      tostring(normalizedShape)), torch._lib.user_level())
  end
  self.normalizedShape = torch.LongStorage(shape)
  self.eps = eps or 1e-5
  if type(self.eps) ~= 'number' or self.eps < 0 then
    error(string.format('[nn.LayerNormalization] expected eps >= 0, got %s', tostring(eps)), torch._lib.user_level())
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

-- The number of normalized dims, after checking that the input ends with normalizedShape.
function LN:_check(input, what)
  local n = #self.normalizedShape
  local ok = torch.isTensor(input) and input:dim() >= n
  for i = 1, n do
    ok = ok and input:size(input:dim() - n + i) == self.normalizedShape[i]
  end
  if not ok then
    error(string.format('[%s] expected %s whose last dims are %s, got %s', tostring(self), what or 'an input',
      shape_str(self.normalizedShape), torch.isTensor(input)
        and (torch.type(input) .. ' of size ' .. (input:dim() == 0 and '[]' or shape_str(input))) or type(input)), torch._lib.user_level())
  end
  return n
end

-- Note [Normalization under autocast]: an f16/bf16 input with f32 parameters (a low-precision
-- activation under torch.autocast) is normalized in the parameters' dtype, as PyTorch's autocast
-- runs normalization in f32; gradInput is then of that dtype and autograd casts it to the input's.
local function in_param_dtype(t, ref)
  local d = t.p.dtype
  if ref and d ~= ref.p.dtype and (d == 2 or d == 3) then return t:typeAs(ref) end
  return t
end

function LN:updateOutput(input)
  local n = self:_check(input)
  nn.utils.checkFloatInput(self, input)
  input = in_param_dtype(input, self.weight)
  if self.weight and input.p.dtype ~= self.weight.p.dtype then
    error(string.format('[%s] the input is a %s but the parameters are %s (convert one with :type())',
      tostring(self), torch.type(input), torch.type(self.weight)), torch._lib.user_level())
  end
  self.save_mean = self.save_mean or input.new()
  self.save_std = self.save_std or input.new()
  self._stashInput, self._stashGradOutput = nil, nil
  torch._layerNormOut(self.output, self.save_mean, self.save_std, input, n, self.weight, self.bias, self.eps)
  return self.output
end

local function check_backward(self, input, gradOutput)
  local n = self:_check(input)
  if not torch.isTensor(gradOutput) or not gradOutput:isSameSizeAs(input) then
    error(string.format('[%s] gradOutput must have the size of the input', tostring(self)), torch._lib.user_level())
  end
  -- one saved mean per normalized row of this input: none before a forward (or after
  -- clearState), and none either for an empty batch, whose backward is empty (not an error)
  local rows = input:nElement()
  for i = 1, n do rows = rows / self.normalizedShape[i] end
  if not self.save_mean or self.save_mean:nElement() ~= rows then
    error(string.format('[%s] backward needs a forward first (of an input of this size)', tostring(self)), torch._lib.user_level())
  end
  return n
end

-- Note [Batch-norm parameter gradients] (nn/BatchNormalization.lua) applies here too.
function LN:updateGradInput(input, gradOutput)
  local n = check_backward(self, input, gradOutput)
  if self.gradInput == nil then return end
  local x, g = in_param_dtype(input, self.weight), in_param_dtype(gradOutput, self.weight)
  local gw, gb
  if self.weight then
    self._gw = (self._gw or x.new()):resizeAs(self.weight):zero()
    self._gb = (self._gb or x.new()):resizeAs(self.bias):zero()
    gw, gb = self._gw, self._gb
  end
  torch._layerNormBackwardOut(self.gradInput, gw, gb, g, x, n, self.weight, self.save_mean,
    self.save_std, 1)
  if self.weight then self._stashInput, self._stashGradOutput = input, gradOutput end
  return self.gradInput
end

function LN:accGradParameters(input, gradOutput, scale)
  if not self.weight then return end
  scale = scale or 1
  local si, sg = self._stashInput, self._stashGradOutput
  self._stashInput, self._stashGradOutput = nil, nil
  if si and torch.pointer(si) == torch.pointer(input) and torch.pointer(sg) == torch.pointer(gradOutput) then
    self.gradWeight:add(scale, self._gw)
    self.gradBias:add(scale, self._gb)
    return
  end
  local n = check_backward(self, input, gradOutput)
  torch._layerNormBackwardOut(nil, self.gradWeight, self.gradBias, in_param_dtype(gradOutput, self.weight),
    in_param_dtype(input, self.weight), n, self.weight, self.save_mean, self.save_std, scale)
end

function LN:clearState()
  self._stashInput, self._stashGradOutput = nil, nil
  return parent.clearState(self, 'save_mean', 'save_std')
end

function LN:__tostring__()
  return string.format('%s(%s%s)', torch.typename(self), shape_str(self.normalizedShape),
    self.elementwiseAffine and '' or ', without affine')
end

return LN
