-- nn.Convert([inputShape, outputShape]): converts between data layouts named by axis letters
-- (Torch7's nn, from dpnn): 'bchw' -> 'bf' flattens samples, 'bhwc' -> 'bchw' permutes, 'bf' ->
-- 'b', 'bt' -> 'b', 'b' -> 'bt' or 'bf'; a shape without 'b' gets it in front, and an input one
-- dim short of the shape is one sample. The input is also converted to the module's type, so
-- nn.Convert() alone converts types. Built from differentiable views and type conversions.
local S = require 'nn.support'
local Convert, parent = torch.class('nn.Convert', 'nn.Module')

local function bad_shape(shape)
  if type(shape) ~= 'string' or #shape == 0 or not shape:match('^[%a%*]+$') then return true end
  for i = 1, #shape do
    if shape:find(shape:sub(i, i), i + 1, true) then return true end  -- letters appear once
  end
  return false
end

function Convert:__init(inputShape, outputShape)
  parent.__init(self)
  if outputShape ~= nil and inputShape == nil then error('[nn.Convert] expecting inputShape when outputShape is given', torch._lib.user_level()) end
  inputShape = inputShape or 'b*'
  outputShape = outputShape or inputShape
  for _, s in ipairs({ inputShape, outputShape }) do
    if bad_shape(s) then error('[nn.Convert] a shape is a string of distinct axis letters (bchw, bf...), got ' .. S.describe(s), torch._lib.user_level()) end
  end
  self.inputShape = inputShape:find('b', 1, true) and inputShape or ('b' .. inputShape)
  self.outputShape = outputShape:find('b', 1, true) and outputShape or ('b' .. outputShape)
  self.inputBatchDim = self.inputShape:find('b', 1, true)
  self.outputBatchDim = self.outputShape:find('b', 1, true)
  local ins, outs = self.inputShape, self.outputShape
  if ins == 'b*' or outs == 'b*' then
    if ins ~= outs then error('[nn.Convert] both or neither shapes must be b*, got ' .. ins .. ' and ' .. outs, torch._lib.user_level()) end
    self.nInputDim, self.nOutputDim, self.transposition = -1, -1, true
  else
    self.nInputDim, self.nOutputDim = #ins, #outs
    self.transposition = #ins == #outs and not outs:find('[^' .. ins .. ']')
  end
  local ok = self.transposition or (outs == 'bf' and ins ~= 'bt') or (outs == 'bt' and ins == 'b')
    or (outs == 'b' and (ins == 'bt' or ins == 'tb' or ins == 'bf' or ins == 'fb'))
  if not ok then error(string.format('[nn.Convert] unrecognized conversion of shape %s to %s', ins, outs), torch._lib.user_level()) end
end

local function name(self) return string.format("nn.Convert('%s', '%s')", self.inputShape, self.outputShape) end

-- x (batch form, laid out as inputShape) laid out as outputShape.
local function convert(self, x)
  local ins, outs = self.inputShape, self.outputShape
  if ins == outs then return x end
  if self.transposition then
    local order = {}
    for i = 1, #outs do order[i] = ins:find(outs:sub(i, i), 1, true) end
    return x:permute(unpack(order))
  end
  local b = self.inputBatchDim
  if outs == 'bf' then
    if #ins == 1 then return x:view(x:size(1), 1) end
    -- Torch7 swaps b with dim 1 (a transposition, not a move) before flattening the samples
    local y = b ~= 1 and x:transpose(1, b):contiguous() or x:contiguous()
    return y:view(y:size(1), y:nElement() / math.max(y:size(1), 1))
  elseif outs == 'bt' then
    return x:view(x:size(1), 1)
  end
  -- outs == 'b': the first of the classes (bt) or the single feature (bf)
  local axis = ins:find('t', 1, true) or ins:find('f', 1, true)
  if ins:find('f', 1, true) and x:size(axis) > 1 then
    S.fail(name(self), 'cannot convert shape %s to b when there is more than one feature (input of size %s)', ins, S.sizestr(x))
  end
  return x:select(axis, 1)
end

function Convert:updateOutput(input)
  if not torch.isTensor(input) then S.fail(name(self), 'expected a tensor, got %s', S.describe(input)) end
  -- the module's type (Torch7 converts the input to self.output's)
  local ty = self._type or torch.type(self.output)
  local x = input:type() == ty and input or input:type(ty)
  local batch = true
  if self.nInputDim ~= -1 then
    if x:dim() == self.nInputDim - 1 then
      batch = false
      x = x:unsqueeze(self.inputBatchDim)
    elseif x:dim() ~= self.nInputDim then
      S.fail(name(self), 'expected %d dims (%s) or %d for one sample, got %s', self.nInputDim, self.inputShape,
        self.nInputDim - 1, S.describe(input))
    end
  end
  local y = convert(self, x)
  if not batch then y = y:select(self.outputBatchDim, 1) end
  self.output = y
  return y
end

return Convert
