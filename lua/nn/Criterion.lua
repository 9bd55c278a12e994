-- nn.Criterion: Torch7's loss API (forward(input, target) -> a number, backward -> gradInput).
-- Note [Losses and autograd]: forward returns a Lua number, as Torch7 scripts expect; calling the
-- criterion, criterion(input, target), returns the loss as a one-element tensor recorded as one
-- coarse autograd node when the input requires grad, so `criterion(model(x), y):backward()`
-- works (PyTorch's habit). Both fill the same parameter gradients. The class criteria's autograd
-- form leaves a GPU loss unread (Note [Unread device losses], nn/ClassNLLCriterion.lua).
local Criterion = torch.class('nn.Criterion')

function Criterion:__init()
  self.gradInput = torch.Tensor()
  self.output = 0
end

function Criterion:updateOutput(input, target) return self.output end
function Criterion:updateGradInput(input, target) return self.gradInput end

-- Closure-free walks over tensors and tables of them (closures abort LuaJIT traces).
local any_needs_grad, collect_tensors = nn.Module._any_needs_grad, nn.Module._collect_tensors

local function needs_node(self, input)
  if self.updateGradInput == Criterion.updateGradInput or not torch.isGradEnabled() then return false end
  return any_needs_grad(input)
end

-- Note [Criterion buffer types]: criterions are rarely converted with :double() (Torch7's default
-- type was double, so scripts never did), and updateGradInput writes into self.gradInput: give
-- it the input's type first, or a float buffer would silently round a double gradient.
local function match_grad_buffer(crit, input)
  if torch.isTensor(input) and torch.isTensor(crit.gradInput) then
    crit.gradInput = nn.utils.buffer(crit.gradInput, input)
  end
end

-- The backward of a criterion node: gradInput scaled by the incoming gradient of the loss.
local function criterion_backward(entry, grads)
  local crit = entry.criterion
  match_grad_buffer(crit, entry.input)
  local gi = crit:updateGradInput(entry.input, entry.target)
  local scale = grads[1]
  local flat = {}
  local function walk(g, x)
    if torch.isTensor(x) then
      flat[#flat + 1] = torch.isTensor(g) and torch.cmul(g, scale:typeAs(g)) or nil
    elseif type(x) == 'table' then
      for i, v in ipairs(x) do walk(type(g) == 'table' and g[i] or nil, v) end
    end
  end
  walk(gi, entry.input)
  return flat
end

--- c:forward(input, target): the loss, a number (Torch7).
function Criterion:forward(input, target)
  return torch.noGrad(self.updateOutput, self, input, target)
end

--- c:loss(input, target): the loss for autograd: a one-element tensor when input requires grad
--- (loss:backward() then reaches the model), else a number. c(input, target) is the same.
function Criterion:loss(input, target)
  if not needs_node(self, input) then return self:updateOutput(input, target) end
  local value = torch.noGrad(self.updateOutput, self, input, target)
  local inputs = collect_tensors(input, {})
  local out = torch._new_tensor(0, nil, inputs[1].p.dtype, value)
  torch.autograd._record_lua_node({ label = torch.typename(self) or 'nn.Criterion', backward = criterion_backward,
                                    criterion = self, input = input, target = target }, inputs, { out })
  return out
end

--- c:backward(input, target): the gradient of the loss with respect to input.
function Criterion:backward(input, target)
  match_grad_buffer(self, input)
  return torch.noGrad(self.updateGradInput, self, input, target)
end

function Criterion:__call__(input, target)
  return self:loss(input, target)
end

function Criterion:clone()
  return nn.utils.deepCopy(self)
end

function Criterion:type(name, cache)
  cache = cache or {}
  nn.utils.convertTensors(self, name, cache)
  return self
end
function Criterion:float() return self:type('torch.FloatTensor') end
function Criterion:double() return self:type('torch.DoubleTensor') end
function Criterion:cuda() return self:type('torch.CudaTensor') end

function Criterion:clearState()
  if torch.isTensor(self.gradInput) then self.gradInput = self.gradInput.new() end
  return self
end

function Criterion:__tostring__() return torch.typename(self) or 'nn.Criterion' end

return Criterion
