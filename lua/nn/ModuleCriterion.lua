-- nn.ModuleCriterion(criterion[, inputModule, targetModule, castTarget]): a criterion applied to
-- inputModule(input) and targetModule(target) (dpnn, then Torch7's nn), e.g. a LogSoftMax in
-- front of ClassNLLCriterion. The gradient goes back through inputModule; like Torch7, the
-- modules' parameters are not the criterion's (a warning says so when inputModule has some).
-- castTarget (default true): type() converts targetModule too.
local S = require 'nn.support'
local ModuleCriterion, parent = torch.class('nn.ModuleCriterion', 'nn.Criterion')

local function is_module(m) return torch.isTypeOf(m, 'nn.Module') end

function ModuleCriterion:__init(criterion, inputModule, targetModule, castTarget)
  parent.__init(self)
  if not torch.isTypeOf(criterion, 'nn.Criterion') then
    error('[nn.ModuleCriterion] criterion must be a criterion, got ' .. S.describe(criterion), torch._lib.user_level())
  end
  for _, m in ipairs({ { 'inputModule', inputModule }, { 'targetModule', targetModule } }) do
    if m[2] ~= nil and not is_module(m[2]) then
      error(string.format('[nn.ModuleCriterion] %s must be a module or nil, got %s', m[1], S.describe(m[2])), torch._lib.user_level())
    end
  end
  if castTarget ~= nil and type(castTarget) ~= 'boolean' then
    error('[nn.ModuleCriterion] castTarget must be true or false, got ' .. S.describe(castTarget), torch._lib.user_level())
  end
  self.criterion = criterion
  self.inputModule = inputModule
  self.targetModule = targetModule
  self.castTarget = castTarget ~= false
  if inputModule then
    local params = inputModule:parameters()
    if params and #params > 0 then print("Warning: nn.ModuleCriterion doesn't support parameter updates") end
  end
end

local function in_module(self, which, fn, ...)
  local ok, res = pcall(fn, ...)
  if not ok then error(string.format('%s (in the %s of nn.ModuleCriterion)', tostring(res), which), 0) end
  return res
end

function ModuleCriterion:updateOutput(input, target)
  self.input, self.target = nil, nil
  if self.inputModule then self.input = in_module(self, 'inputModule', self.inputModule.forward, self.inputModule, input) end
  if self.targetModule then
    self.target = in_module(self, 'targetModule', self.targetModule.forward, self.targetModule, target)
  end
  local x, t = self.input or input, self.target or target
  self.output = self.criterion:forward(x, t)
  return self.output
end

function ModuleCriterion:updateGradInput(input, target)
  -- the module outputs of this (input, target): updateOutput may not have run (Torch7 habit)
  if self.inputModule and self.input == nil then self:updateOutput(input, target) end
  local x, t = self.input or input, self.target or target
  self.gradInput = self.criterion:backward(x, t)
  if self.inputModule then
    self.gradInput = in_module(self, 'inputModule', self.inputModule.backward, self.inputModule, input, self.gradInput)
  end
  return self.gradInput
end

function ModuleCriterion:type(name, cache)
  cache = cache or {}
  if self.inputModule then self.inputModule:type(name, cache) end
  if self.castTarget and self.targetModule then self.targetModule:type(name, cache) end
  self.criterion:type(name, cache)
  -- the rest of the fields only (each module converted itself, and the target module not at all
  -- without castTarget); the per-call input and target are dropped
  local keep = { self.criterion, self.inputModule, self.targetModule }
  self.criterion, self.inputModule, self.targetModule, self.input, self.target = nil, nil, nil, nil, nil
  local ok, err = pcall(parent.type, self, name, cache)
  self.criterion, self.inputModule, self.targetModule = keep[1], keep[2], keep[3]
  if not ok then error(err, 0) end
  return self
end

function ModuleCriterion:clearState()
  self.input, self.target = nil, nil
  local list = { self.criterion, self.inputModule, self.targetModule }
  for k = 1, 3 do
    if list[k] and list[k].clearState then list[k]:clearState() end
  end
  return parent.clearState(self)
end

return ModuleCriterion
