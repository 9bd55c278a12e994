-- nn.Decorator(module): wraps one module and forwards every call to it (dpnn, then Torch7's nn);
-- the base class of NaN, DontCast and Profile. It is a Container (self.modules[1] is the module,
-- self.module too), so parameters, modes, clearState and autograd go to the wrapped module.
require 'nn.Container'
local S = require 'nn.support'
local Decorator, parent = torch.class('nn.Decorator', 'nn.Container')

function Decorator:__init(module)
  parent.__init(self)
  if not torch.isTypeOf(module, 'nn.Module') then
    error(string.format('[%s] expects a module to decorate, got %s', torch.typename(self), S.describe(module)), torch._lib.user_level())
  end
  self.module = module
  self.modules[1] = module
end

-- The wrapped module is self.module and self.modules[1] (they may differ after a user replaced one).
local function inner(self)
  local m = self.modules[1] or self.module
  self.module, self.modules[1] = m, m
  return m
end

function Decorator:updateOutput(input)
  self.output = inner(self):forward(input)
  return self.output
end

function Decorator:updateGradInput(input, gradOutput)
  self.gradInput = inner(self):updateGradInput(input, gradOutput)
  return self.gradInput
end

function Decorator:accGradParameters(input, gradOutput, scale)
  inner(self):accGradParameters(input, gradOutput, scale)
end

function Decorator:accUpdateGradParameters(input, gradOutput, lr)
  inner(self):accUpdateGradParameters(input, gradOutput, lr)
end

function Decorator:sharedAccUpdateGradParameters(input, gradOutput, lr)
  local m = inner(self)
  if m.sharedAccUpdateGradParameters then m:sharedAccUpdateGradParameters(input, gradOutput, lr)
  else m:accUpdateGradParameters(input, gradOutput, lr) end
end

-- The module's own backward: one that only defines updateOutput gets its gradients from autograd.
function Decorator:backward(input, gradOutput, scale)
  self.gradInput = inner(self):backward(input, gradOutput, scale)
  return self.gradInput
end

function Decorator:__tostring__()
  return torch.type(self) .. ' @ ' .. tostring(inner(self))
end

return Decorator
