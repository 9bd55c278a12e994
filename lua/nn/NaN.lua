-- nn.NaN(module[, id]): a Decorator that raises an error naming the module (and id) as soon as a
-- NaN appears in its output, gradInput or parameter gradients (dpnn, then Torch7's nn), saying
-- whether the input, the parameters or gradOutput already held one. Under autograd
-- (loss:backward()) the gradOutput reaching the output is checked by a hook.
require 'nn.Decorator'
local NaN, parent = torch.class('nn.NaN', 'nn.Decorator')

local idseq = 0
--- nn.NaN.newId(): the next default id.
function NaN.newId()
  idseq = idseq + 1
  return idseq
end

function NaN:__init(module, id)
  parent.__init(self, module)
  self.id = id or NaN.newId()
end

local function has_nan(x)
  if torch.isTensor(x) then return nn.utils.isFloating(x) and x:nElement() > 0 and x:ne(x):any() end
  if type(x) == 'table' then
    for _, v in pairs(x) do if has_nan(v) then return true end end
  end
  return false
end
NaN.recursiveIsNaN = function(_, x) return has_nan(x) end  -- Torch7's method name

local function fail(self, where)
  error(string.format('[nn.NaN] NaN found in %s of module :\n%s', where, tostring(self)), torch._lib.user_level())
end

function NaN:updateOutput(input)
  local out = parent.updateOutput(self, input)
  if torch.noGrad(has_nan, out) then
    if torch.noGrad(has_nan, input) then fail(self, 'input') end
    if torch.noGrad(has_nan, (self:parameters())) then fail(self, 'parameters') end
    fail(self, 'output')
  end
  -- autograd's backward skips updateGradInput: check what reaches the output there. A hook on an
  -- output made by an op belongs to that op's node and goes with it, so one per forward piles
  -- nothing up; an output that is a leaf (an input passed through) would keep them all: skipped.
  if torch.isGradEnabled() then
    for _, t in ipairs(nn.Module._collect_tensors(out, {})) do
      if t:needsGrad() and not t:isLeaf() then
        t:registerHook(function(g) if torch.noGrad(has_nan, g) then fail(self, 'gradOutput') end end)
      end
    end
  end
  return out
end

local function check_grads(self, gradOutput)
  if torch.noGrad(has_nan, self.gradInput) then
    if torch.noGrad(has_nan, gradOutput) then fail(self, 'gradOutput') end
    fail(self, 'gradInput')
  end
end

function NaN:updateGradInput(input, gradOutput)
  parent.updateGradInput(self, input, gradOutput)
  check_grads(self, gradOutput)
  return self.gradInput
end

local function check_params(self)
  local _, grads = self:parameters()
  if torch.noGrad(has_nan, grads) then fail(self, 'gradParameters') end
end

function NaN:accGradParameters(input, gradOutput, scale)
  parent.accGradParameters(self, input, gradOutput, scale)
  check_params(self)
end

function NaN:backward(input, gradOutput, scale)
  parent.backward(self, input, gradOutput, scale)
  check_grads(self, gradOutput)
  check_params(self)
  return self.gradInput
end

function NaN:__tostring__()
  return string.format('%s(%s) @ %s', torch.type(self), tostring(self.id), tostring(self.module))
end

return NaN
