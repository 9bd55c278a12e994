-- model:summary(): a Keras-style table of every leaf module with its output size and parameter
-- count, found by running one forward pass on zeros (or on a given input) with recording off.
local utils = nn.utils

local function size_str(x)
  if torch.isTensor(x) then return table.concat(x:size():totable(), 'x') end
  if type(x) == 'table' then
    local parts = {}
    for i, v in ipairs(x) do parts[i] = size_str(v) end
    return '{' .. table.concat(parts, ', ') .. '}'
  end
  return tostring(x)
end

local function count_params(m)
  local n = 0
  local params = m:parameters()
  if params then for _, p in ipairs(params) do n = n + p:nElement() end end
  return n
end

local function first_line(m)
  return (tostring(m):match('^[^\n]*'))
end

-- An input for the summary: a tensor, or zeros of the given sizes in the module's tensor type.
local function make_input(model, ...)
  local first = ...
  if torch.isTensor(first) or (type(first) == 'table' and torch.isTensor(first[1])) then return first end
  local sizes = type(first) == 'table' and first or torch.typename(first) == 'torch.LongStorage' and first:totable()
    or { ... }
  if #sizes == 0 then
    error('[nn.Module.summary] expected an input tensor or its sizes, e.g. model:summary(1, 28, 28)', torch._lib.user_level())
  end
  local params = model:parameters()
  local proto = params and params[1] or torch.Tensor()
  return proto.new(torch.LongStorage(sizes)):zero()
end

--- utils.summary(model, input | sizes...): prints each leaf module's output size and parameter
--- count after one forward pass, and returns the text.
function utils.summary(model, ...)
  local input = make_input(model, ...)
  local rows = {}
  local patched = {}
  local children = require 'nn.field_children'
  for _, m in ipairs(model:listModules()) do
    -- leaves only: a container, or a PyTorch-style module with children in fields, is not a row
    if not m.modules and #children.named(m) == 0 then
      local original = rawget(m, 'updateOutput')
      patched[#patched + 1] = { m, original }
      local cls = getmetatable(m).updateOutput
      m.updateOutput = function(self, x)
        local out = cls(self, x)
        rows[#rows + 1] = { first_line(self), size_str(out), count_params(self) }
        return out
      end
    end
  end
  -- Evaluation mode: the dummy forward must not move batch-norm running statistics or draw dropout
  -- masks, and batch norm accepts a single sample there. The mode of every module is restored.
  local modes = {}
  for i, m in ipairs(model:listModules()) do modes[i] = m.train end
  model:evaluate()
  local ok, err = pcall(torch.noGrad, function() return model:forward(input) end)
  for i, m in ipairs(model:listModules()) do m.train = modes[i] end
  for _, p in ipairs(patched) do p[1].updateOutput = p[2] end
  if not ok then error(err, 0) end
  local w1, w2 = #'Layer', #'Output size'
  for _, r in ipairs(rows) do w1, w2 = math.max(w1, #r[1]), math.max(w2, #r[2]) end
  local fmt = '%-4s %-' .. w1 .. 's  %-' .. w2 .. 's  %12s'
  local lines = { string.format(fmt, '#', 'Layer', 'Output size', 'Parameters') }
  lines[2] = string.rep('-', #lines[1])
  local total = 0
  for i, r in ipairs(rows) do
    lines[#lines + 1] = string.format(fmt, tostring(i), r[1], r[2], tostring(r[3]))
    total = total + r[3]
  end
  lines[#lines + 1] = lines[2]
  lines[#lines + 1] = string.format('Input size: %s    Total parameters: %d', size_str(input), total)
  local text = table.concat(lines, '\n')
  print(text)
  return text
end

return utils
