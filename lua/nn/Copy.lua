-- nn.Copy([intype, outtype, forceCopy, dontCast]): converts the input to outtype (a tensor type
-- name) and gradients back to intype. When the types are equal and forceCopy is not set, input
-- and gradOutput pass through uncopied. dontCast keeps the types through module:type().
local Copy, parent = torch.class('nn.Copy', 'nn.Module')

local function empty(typename, argname)
  local ok, t = pcall(function() return torch.Tensor():type(typename) end)
  if not ok or type(typename) ~= 'string' then
    error(string.format('[nn.Copy] %s must be a tensor type name like torch.DoubleTensor, got %s', argname,
      tostring(typename)), torch._lib.user_level())
  end
  return t
end

function Copy:__init(intype, outtype, forceCopy, dontCast)
  parent.__init(self)
  intype = intype or torch.Tensor():type()
  outtype = outtype or torch.Tensor():type()
  self.gradInput = empty(intype, 'intype')
  self.output = empty(outtype, 'outtype')
  self.dontCast = dontCast
  -- Torch7 replaced the methods on the instance; a flag keeps the module serializable.
  self.passthrough = (not forceCopy) and intype == outtype
end

function Copy:updateOutput(input)
  if not torch.isTensor(input) then error('[nn.Copy] expected a tensor, got ' .. torch.type(input), torch._lib.user_level()) end
  if self.passthrough then
    self.output = input
  else
    self.output:resize(input:size()):copy(input)
  end
  return self.output
end

function Copy:updateGradInput(input, gradOutput)
  if not torch.isTensor(gradOutput) or gradOutput:nElement() ~= input:nElement() then
    error('[nn.Copy] gradOutput does not match the input of size ' .. table.concat(input:size():totable(), 'x'), torch._lib.user_level())
  end
  if self.passthrough then
    self.gradInput = gradOutput
  else
    self.gradInput:resize(gradOutput:size()):copy(gradOutput)
  end
  return self.gradInput
end

function Copy:type(name, cache)
  if name and self.dontCast then return self end
  return parent.type(self, name, cache)
end

return Copy
