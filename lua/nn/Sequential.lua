-- nn.Sequential: feeds each module's output to the next one.
require 'nn.Container'
local Sequential, parent = torch.class('nn.Sequential', 'nn.Container')

--- nn.Sequential([module1, module2, ...]): Torch7's empty container, or PyTorch's form with the
--- modules in order (each added as by s:add). Before, the modules given were silently dropped.
--- Example: nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2))
function Sequential:__init(...)
  parent.__init(self)
  for i = 1, select('#', ...) do
    local m = select(i, ...)
    if type(m) ~= 'table' or not m.forward then
      error(string.format('[nn.Sequential] argument %d must be a module, got %s', i, torch.type(m)), torch._lib.user_level())
    end
    self:add(m)
  end
end

--- s:insert(module[, index]) inserts a module (at the end by default).
function Sequential:insert(module, index)
  if type(module) ~= 'table' or not module.forward then
    error(string.format('[nn.Sequential] insert expects a module, got %s', torch.type(module)), torch._lib.user_level())
  end
  index = index or (#self.modules + 1)
  if index > #self.modules + 1 or index < 1 then
    error(string.format('[nn.Sequential] index %d out of range for insert into %d modules', index, #self.modules), torch._lib.user_level())
  end
  table.insert(self.modules, index, module)
  self.output = self.modules[#self.modules].output
  self.gradInput = self.modules[1].gradInput
  return self
end

--- s:remove([index]) removes and returns a module (the last by default).
function Sequential:remove(index)
  index = index or #self.modules
  if index > #self.modules or index < 1 then
    error(string.format('[nn.Sequential] index %d out of range for remove from %d modules', index, #self.modules), torch._lib.user_level())
  end
  local removed = table.remove(self.modules, index)
  -- Torch7 re-points output and gradInput at the new last and first modules (they named the
  -- removed module's tensors before).
  if #self.modules > 0 then
    self.output = self.modules[#self.modules].output
    self.gradInput = self.modules[1].gradInput
  else
    self.output, self.gradInput = torch.Tensor(), torch.Tensor()
  end
  return removed
end

function Sequential:updateOutput(input)
  local current = input
  for i = 1, #self.modules do current = self:rethrowErrors(self.modules[i], i, 'forward', current) end
  self.output = current
  return current
end

-- An empty Sequential passes its input through (updateOutput's loop runs no module), so its
-- gradInput is gradOutput; the backward walks below indexed modules[1] and crashed.
function Sequential:updateGradInput(input, gradOutput)
  if #self.modules == 0 then self.gradInput = gradOutput return gradOutput end
  local current = gradOutput
  for i = #self.modules, 2, -1 do
    current = self:rethrowErrors(self.modules[i], i, 'updateGradInput', self.modules[i - 1].output, current)
  end
  current = self:rethrowErrors(self.modules[1], 1, 'updateGradInput', input, current)
  self.gradInput = current
  return current
end

-- Walks the modules backwards calling method(input_i, gradOutput_i, arg) (the gradOutput of
-- module i is the gradInput that module i+1 computed in updateGradInput).
local function walk_backwards(self, method, input, gradOutput, arg)
  if #self.modules == 0 then return end
  local current = gradOutput
  for i = #self.modules, 2, -1 do
    local m = self.modules[i]
    self:rethrowErrors(m, i, method, self.modules[i - 1].output, current, arg)
    current = m.gradInput
  end
  self:rethrowErrors(self.modules[1], 1, method, input, current, arg)
end

function Sequential:accGradParameters(input, gradOutput, scale)
  walk_backwards(self, 'accGradParameters', input, gradOutput, scale or 1)
end

function Sequential:accUpdateGradParameters(input, gradOutput, lr)
  walk_backwards(self, 'accUpdateGradParameters', input, gradOutput, lr)
end

function Sequential:backward(input, gradOutput, scale)
  if #self.modules == 0 then self.gradInput = gradOutput return gradOutput end
  scale = scale or 1
  local current = gradOutput
  for i = #self.modules, 2, -1 do
    current = self:rethrowErrors(self.modules[i], i, 'backward', self.modules[i - 1].output, current, scale)
  end
  current = self:rethrowErrors(self.modules[1], 1, 'backward', input, current, scale)
  self.gradInput = current
  return current
end

function Sequential:__tostring__()
  local tab, line, next = '  ', '\n', '  |`-> '
  local str = 'nn.Sequential'
  str = str .. ' {' .. line .. tab .. '[input'
  for i = 1, #self.modules do str = str .. ' -> (' .. i .. ')' end
  str = str .. ' -> output]'
  for i, m in ipairs(self.modules) do
    str = str .. line .. tab .. '(' .. i .. '): ' .. tostring(m):gsub(line, line .. tab)
  end
  str = str .. line .. '}'
  return str
end

return Sequential
