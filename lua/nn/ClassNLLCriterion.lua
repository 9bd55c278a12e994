-- nn.ClassNLLCriterion([weights][, sizeAverage][, ignoreIndex]): -input[target] for log
-- probabilities (a vector with a class number, or a batch with a LongTensor of classes; 1-based),
-- weighted per class, averaged over the total weight of the targets when sizeAverage. Runs on the
-- fused nllLoss op (Note [Fused class losses] in core/ops/loss.cpp).
local ClassNLLCriterion, parent = torch.class('nn.ClassNLLCriterion', 'nn.Criterion')

--- nn.ClassNLLCriterion([weights, sizeAverage=true, ignoreIndex=-100]).
function ClassNLLCriterion:__init(weights, sizeAverage, ignoreIndex)
  parent.__init(self)
  self.sizeAverage = sizeAverage == nil and true or sizeAverage
  if weights ~= nil and (not torch.isTensor(weights) or weights:dim() ~= 1) then
    error('[' .. torch.typename(self) .. '] weights must be a 1-D tensor, got ' .. nn.utils.describe(weights), torch._lib.user_level())
  end
  self.weights = weights
  self.ignoreIndex = ignoreIndex or -100
end

-- Note [Class criterions]: nllLoss and crossEntropy check the sizes and the target range
-- themselves; the Lua side only names the criterion in their messages and matches the weights'
-- type to the input's.
local function rethrow(self, ok, ...)
  if ok then return ... end
  local msg = tostring((...)):gsub('^.-%[(%a+)%] ', '')
  error(string.format('[%s] %s', tostring(self), msg), torch._lib.user_level())
end
ClassNLLCriterion._rethrow = rethrow

function ClassNLLCriterion:_options(input)
  local w = self.weights
  if w and torch.isTensor(input) and w.p.dtype ~= input.p.dtype then
    self._w = self._w and self._w.p.dtype == input.p.dtype and self._w or w:typeAs(input)
    self._w:copy(w)
    w = self._w
  end
  local o = self._opts or {}
  self._opts = o
  o.weights, o.sizeAverage, o.ignoreIndex = w, self.sizeAverage, self.ignoreIndex
  return o
end

ClassNLLCriterion._op = 'nllLoss'

-- The loss tensor and its value. The value is read inside the criterion's pcall: on CUDA a bad
-- target surfaces when the loss is read (Note [Deferred device errors]), and it is named after the
-- criterion like the CPU's. With leave_on_device, a GPU loss is not read: its value is the tensor.
local function loss_and_value(op, input, target, opts, leave_on_device)
  local r = torch[op](input, target, opts)
  if leave_on_device and torch.isTensor(r) and r:device() ~= 'cpu' then return r, r end
  return r, torch.isTensor(r) and r:item() or r
end

function ClassNLLCriterion:updateOutput(input, target)
  local _, value = rethrow(self, pcall(loss_and_value, self._op, input, target, self:_options(input)))
  self.output = value
  return self.output
end

-- Into self.gradInput when it has the input's type, as Torch7's criterions reuse theirs: a
-- training step then allocates no gradient here (on a GPU, no new block per step while the dead
-- ones wait for Lua's collector).
function ClassNLLCriterion:updateGradInput(input, target)
  local o = self:_options(input)
  local g = self.gradInput
  local out = torch.isTensor(g) and torch.isTensor(input) and torch.type(g) == torch.type(input) and g or nil
  self.gradInput = rethrow(self, pcall(torch._classLossBackward, self._op, 1, input, target, o.weights,
    o.sizeAverage, o.ignoreIndex, out))
  return self.gradInput
end

-- The autograd form is the fused op itself (a C++ node, differentiable twice), not a Lua node.
-- Note [Unread device losses]: on a GPU the autograd form does not read its loss, so a training
-- step of `crit(model(x), y):backward()` never waits for the device (PyTorch's step does not
-- either); self.output is then the one-element loss tensor, and a bad target is raised at the next
-- synchronization, such as loss:item() (Note [Deferred device errors]), named after the op.
function ClassNLLCriterion:loss(input, target)
  local r, value = rethrow(self, pcall(loss_and_value, self._op, input, target, self:_options(input), true))
  self.output = value
  return r
end

return ClassNLLCriterion
