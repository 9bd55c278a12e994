-- nn.DontCast(module[, castin, castout, moduleType]): a Decorator whose module keeps its tensor
-- type when the network around it is converted (m:float(), m:cuda()...) (Torch7's nn, from dpnn).
-- With castin, inputs (and gradInputs back) are copied between the outside type and moduleType;
-- with castout (default: castin), outputs and gradOutputs are. moduleType defaults to the type
-- of the module's output or parameters.
require 'nn.Decorator'
local S = require 'nn.support'
local DontCast, parent = torch.class('nn.DontCast', 'nn.Decorator')

-- The type of the first tensor in x (a tensor or nested tables), and whether there was one.
local function tensor_type(x)
  if torch.isTensor(x) then return torch.type(x), true end
  if type(x) == 'table' then
    for _, v in ipairs(x) do
      local t, found = tensor_type(v)
      if found then return t, true end
    end
  end
  return torch.type(x), false
end

-- x with every tensor converted to type name (differentiable: autograd sees through it).
local function cast(x, name)
  if torch.isTensor(x) then return x:type() == name and x or x:type(name) end
  if type(x) == 'table' then
    local r = {}
    for k, v in pairs(x) do r[k] = cast(v, name) end
    return r
  end
  return x
end

function DontCast:__init(module, castin, castout, moduleType)
  parent.__init(self, module)
  self.castin = S.argBool('nn.DontCast', 'castin', castin)
  if castout == nil then castout = self.castin end
  self.castout = S.argBool('nn.DontCast', 'castout', castout)
  if moduleType ~= nil and (type(moduleType) ~= 'string' or not torch.getmetatable(moduleType)) then
    error('[nn.DontCast] moduleType must be a tensor type name, got ' .. S.describe(moduleType), torch._lib.user_level())
  end
  self.moduleType = moduleType
  if (self.castin or self.castout) and not self.moduleType then
    local t, found = tensor_type(module.output)
    if not found or (torch.isTensor(module.output) and module.output:nElement() == 0) then
      local params = module:parameters()
      local pt, pfound = tensor_type(params)
      if pfound then t, found = pt, true end
    end
    if not found then error('[nn.DontCast] cannot tell the module type: give moduleType (argument 4)', torch._lib.user_level()) end
    self.moduleType = t
  end
end

function DontCast:updateOutput(input)
  local x = self.castin and cast(input, self.moduleType) or input
  local out = self.module:forward(x)
  if self.castout then out = cast(out, (tensor_type(self.output))) end
  self.output = out
  return out
end

-- The gradients of the module's own types in, the outside types back out.
local function grads(self, method, input, gradOutput, scale)
  local x = self.castin and cast(input, self.moduleType) or input
  local go = self.castout and cast(gradOutput, self.moduleType) or gradOutput
  local gi = self.module[method](self.module, x, go, scale)
  if method ~= 'accGradParameters' and method ~= 'accUpdateGradParameters' then
    self.gradInput = self.castin and cast(gi, (tensor_type(input))) or gi
  end
  return self.gradInput
end

function DontCast:updateGradInput(input, gradOutput) return grads(self, 'updateGradInput', input, gradOutput) end
function DontCast:accGradParameters(input, gradOutput, scale) grads(self, 'accGradParameters', input, gradOutput, scale) end
function DontCast:accUpdateGradParameters(input, gradOutput, lr) grads(self, 'accUpdateGradParameters', input, gradOutput, lr) end
function DontCast:backward(input, gradOutput, scale) return grads(self, 'backward', input, gradOutput, scale or 1) end

-- Dont cast (the essence thereof): only the outside-facing output and gradInput change type.
-- (An empty tensor of the type is made with torch.Tensor():type(name): class metatables have no
-- constructor, and :type keeps a CUDA type's device rule in one place.)
function DontCast:type(name)
  if not name then return self._type end
  if self.castout and tensor_type(self.output) ~= name then self.output = torch.Tensor():type(name) end
  if self.castin and tensor_type(self.gradInput) ~= name then self.gradInput = torch.Tensor():type(name) end
  self._type = name
  return self
end

return DontCast
