-- Argument parsing shared by the PyTorch-named subclasses (pytorch_names_*.lua): PyTorch's
-- positional-or-keyword arguments as Lua positionals or a trailing table of camelCase options,
-- size arguments as a number or a table of one number per dim, and errors naming the class.
local lib = require 'torch.lib'
local types = require 'torch.types'

local P = {}

-- Note [Options table or size table]: PyTorch's size arguments may be tuples, which in Lua are
-- arrays ({3, 3}); the options table is told apart by having a string key. An empty trailing table
-- is taken as options (no size argument is ever empty).
-- Note [Classes as the last positional argument]: an options table is a plain table; a Torch
-- class (nn.Hardsigmoid: its fields live in its metatable) or a module passed last is an argument
-- (SqueezeExcitation(4, 2, nn.ReLU, nn.Hardsigmoid) had lost its scale activation to the default).
local function is_options(t)
  if type(t) ~= 'table' or torch.isTensor(t) or getmetatable(t) ~= nil then return false end
  if next(t) == nil then return true end
  for k in pairs(t) do if type(k) == 'string' then return true end end
  return false
end

--- nn.pytorchArgs.parse(cls, names, ...): PyTorch's arguments named by `names` (in PyTorch's
--- positional order, camelCase), from positionals and/or a trailing options table; errors on an
--- unknown option or an argument given twice. Returns a table name -> value.
--- Example: print(nn.pytorchArgs.parse('nn.X', {'a', 'b'}, 1, {b = 2}).b)
function P.parse(cls, names, ...)
  local n = select('#', ...)
  local args = { ... }
  local opts = {}
  if n > 0 and is_options(args[n]) then
    for k, v in pairs(args[n]) do opts[k] = v end
    n = n - 1
  end
  local known = {}
  for _, k in ipairs(names) do known[k] = true end
  for k in pairs(opts) do
    if not known[k] then
      lib.fail(cls, 'unknown option %s (expected %s)', tostring(k), table.concat(names, ', '))
    end
  end
  if n > #names then lib.fail(cls, 'expected at most %d arguments, got %d', #names, n) end
  for i = 1, n do
    if args[i] ~= nil then
      if opts[names[i]] ~= nil then lib.fail(cls, 'argument %s given twice (positional and option)', names[i]) end
      opts[names[i]] = args[i]
    end
  end
  return opts
end

--- nn.pytorchArgs.tuple(cls, name, v, nd, default, min): a size argument as a table of nd
--- integers >= min (default 1): a number (repeated) or a table of nd numbers; v nil gives default.
--- Example: print(nn.pytorchArgs.tuple('nn.X', 'stride', 2, 2)[2])
function P.tuple(cls, name, v, nd, default, min)
  if v == nil then v = default end
  min = min or 1
  local t = {}
  if type(v) == 'number' then
    for d = 1, nd do t[d] = v end
  elseif type(v) == 'table' and #v == nd then
    for d = 1, nd do t[d] = v[d] end
  else
    lib.fail(cls, 'expected %s as a number or a table of %d numbers, got %s', name, nd, types.describe(v))
  end
  for d = 1, nd do
    if type(t[d]) ~= 'number' or t[d] ~= math.floor(t[d]) or t[d] < min then
      lib.fail(cls, 'expected %s to hold integers >= %d, got %s', name, min, type(v) == 'table' and
        '{' .. table.concat(v, ', ') .. '}' or tostring(v))
    end
  end
  return t
end

--- nn.pytorchArgs.int(cls, name, v, default, min): an integer argument >= min (default 1).
--- Example: print(nn.pytorchArgs.int('nn.X', 'groups', nil, 1))
function P.int(cls, name, v, default, min)
  if v == nil then v = default end
  min = min or 1
  if type(v) ~= 'number' or v ~= math.floor(v) or v < min then
    lib.fail(cls, 'expected %s to be an integer >= %d, got %s', name, min, types.describe(v))
  end
  return v
end

--- nn.pytorchArgs.bool(cls, name, v, default): a boolean argument.
--- Example: print(nn.pytorchArgs.bool('nn.X', 'bias', nil, true))
function P.bool(cls, name, v, default)
  if v == nil then return default end
  if type(v) ~= 'boolean' then lib.fail(cls, 'expected %s to be a boolean, got %s', name, types.describe(v)) end
  return v
end

--- nn.pytorchArgs.number(cls, name, v, default): a number argument.
--- Example: print(nn.pytorchArgs.number('nn.X', 'eps', nil, 1e-5))
function P.number(cls, name, v, default)
  if v == nil then return default end
  if type(v) ~= 'number' then lib.fail(cls, 'expected %s to be a number, got %s', name, types.describe(v)) end
  return v
end

--- nn.pytorchArgs.unsupported(cls, name, v, allowed): errors unless option v is nil or `allowed`.
--- Example: nn.pytorchArgs.unsupported('nn.X', 'sparse', false, false)
function P.unsupported(cls, name, v, allowed)
  if v ~= nil and v ~= allowed then
    lib.fail(cls, 'option %s = %s is not supported (only %s)', name, tostring(v), tostring(allowed))
  end
end

--- nn.pytorchArgs.dim(cls, d, n): a 1-based dim (negative counts from the end, as PyTorch) of an
--- n-D tensor, checked.
--- Example: print(nn.pytorchArgs.dim('nn.X', -1, 3))
function P.dim(cls, d, n)
  local r = d < 0 and d + n + 1 or d
  if r < 1 or r > n then lib.fail(cls, 'dim %d out of range for a %d-D input', d, n) end
  return r
end

nn.pytorchArgs = P
-- A dim option: nil (default), or an integer other than 0 (dims are 1-based; negative ones count
-- from the end: Note [PyTorch dims here], nn/pytorch_names_act.lua).
function P.dim_option(cls, d, default)
  if d == nil then return default end
  d = P.int(cls, 'dim', d, nil, -math.huge)
  if d == 0 then lib.fail(cls, 'dim 0 does not exist: dims are 1-based (PyTorch\'s dim=0 is dim 1 here)') end
  return d
end

return P
