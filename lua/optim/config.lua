-- Config checking for the functional optimizers: every known key of every optimizer, with the
-- values it accepts, so a typo or a bad value is a clear error naming the optimizer and the key.
local lib = require 'torch.lib'

local config = {}

-- Note [Config checking]: Torch7's optimizers read config keys and ignore the rest, and keep
-- their state in the same table when no state table is given (state = state or config). Tocha
-- checks each value its optimizer reads, and refuses keys that no optimizer knows (typos such
-- as `learningrate`). Keys of another optimizer (momentum given to optim.adam) and state keys
-- are accepted and ignored, because classic scripts share one config table between optimizers.

local specs = {}   -- optimizer name -> { key -> kind }
local known = {}   -- every config or state key of every optimizer

local kinds = {
  number = { 'a finite number', function(v) return type(v) == 'number' and v == v and v ~= math.huge and v ~= -math.huge end },
  nonneg = { 'a non-negative number', function(v) return type(v) == 'number' and v >= 0 and v ~= math.huge end },
  positive = { 'a positive number', function(v) return type(v) == 'number' and v > 0 and v ~= math.huge end },
  unit = { 'a number in [0, 1)', function(v) return type(v) == 'number' and v >= 0 and v < 1 end },
  unitclosed = { 'a number in [0, 1]', function(v) return type(v) == 'number' and v >= 0 and v <= 1 end },
  count = { 'a positive integer', function(v) return type(v) == 'number' and v >= 1 and v == math.floor(v) end },
  boolean = { 'a boolean', function(v) return type(v) == 'boolean' end },
  tensor = { 'a tensor', function(v) return torch.isTensor(v) end },
  ['function'] = { 'a function', function(v) return type(v) == 'function' end },
  table = { 'a table', function(v) return type(v) == 'table' end },
  any = { 'anything', function() return true end },
  betas = { 'a table {beta1, beta2} of numbers in [0, 1)', function(v)
    return type(v) == 'table' and #v == 2 and type(v[1]) == 'number' and type(v[2]) == 'number'
      and v[1] >= 0 and v[1] < 1 and v[2] >= 0 and v[2] < 1
  end },
  epsMode = { "'torch7' or 'pytorch'", function(v) return v == 'torch7' or v == 'pytorch' end },
  lineSearchFn = { "nil or 'strong_wolfe'", function(v) return v == 'strong_wolfe' end },
}

--- Checks one value against a kind (see `kinds`), raising "[owner] key must be ..." otherwise.
function config.validate(owner, key, kind, v)
  local entry = kinds[kind]
  if not entry[2](v) then lib.fail(owner, '%s must be %s, got %s', tostring(key), entry[1], tostring(v)) end
end

-- Edit distance between two strings (they are short config keys).
local function distance(a, b)
  local prev = {}
  for j = 0, #b do prev[j] = j end
  for i = 1, #a do
    local cur = { [0] = i }
    for j = 1, #b do
      local cost = a:sub(i, i) == b:sub(j, j) and 0 or 1
      cur[j] = math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
    end
    prev = cur
  end
  return prev[#b]
end

--- The closest of a set of names (a table whose keys are names) to key, or nil if none is close.
function config.closest(key, names)
  local lk = key:lower()
  local best, best_d
  for k in pairs(names) do
    local d = distance(lk, k:lower())
    if d <= math.max(2, math.floor(#lk / 4)) and (not best_d or d < best_d or (d == best_d and k < best)) then
      best, best_d = k, d
    end
  end
  return best
end

--- Registers the config keys of an optimizer (key -> kind) and the keys it keeps as state.
function config.register(name, keys, state_keys)
  specs[name] = keys
  for k in pairs(keys) do known[k] = true end
  for _, k in ipairs(state_keys or {}) do known[k] = true end
end

local function check_table(name, t)
  local spec = specs[name]
  for k, v in pairs(t) do
    local kind = spec[k]
    if kind then
      config.validate('optim.' .. name, k, kind, v)
    elseif not known[k] then
      local hint = type(k) == 'string' and config.closest(k, known)
      lib.fail('optim.' .. name, 'unknown config key %s%s', type(k) == 'string' and "'" .. k .. "'" or tostring(k),
               hint and " (did you mean '" .. hint .. "'?)" or '')
    end
  end
end

--- Checks the config (and a separate state table) of the optimizer `name`; returns config and
--- state (state defaults to config, as in Torch7).
function config.check(name, cfg, state)
  if cfg ~= nil and type(cfg) ~= 'table' then lib.fail('optim.' .. name, 'config must be a table, got %s', type(cfg)) end
  if state ~= nil and type(state) ~= 'table' then lib.fail('optim.' .. name, 'state must be a table, got %s', type(state)) end
  cfg = cfg or {}
  check_table(name, cfg)
  if state and state ~= cfg then check_table(name, state) end
  return cfg, state or cfg
end

--- Checks that x is a floating-point tensor (an integer x failed deep inside a kernel or a
--- tensor op, with an error naming that op; and before any state was written).
function config.checkX(name, x)
  if not torch.isTensor(x) then lib.fail('optim.' .. name, 'x must be a tensor, got %s', type(x)) end
  if not torch.isFloatingPoint(x) then
    lib.fail('optim.' .. name, 'x must be a floating-point tensor, got a %s', torch.typename(x))
  end
end

--- Checks a per-element tensor of the config (learningRates, weightDecays): floating point, with
--- one value per element of x (the kernels' own errors named them, not the optimizer).
function config.checkPerElement(name, key, t, x)
  if t == nil then return end
  if not torch.isFloatingPoint(t) then
    lib.fail('optim.' .. name, '%s must be a floating-point tensor, got a %s', key, torch.typename(t))
  end
  if t:nElement() ~= x:nElement() then
    lib.fail('optim.' .. name, '%s has %d elements but x has %d', key, t:nElement(), x:nElement())
  end
end

--- Calls opfunc(x) and checks that it returned f(x) and a gradient tensor.
function config.evaluate(name, opfunc, x)
  if type(opfunc) ~= 'function' and not (type(opfunc) == 'table' and getmetatable(opfunc) and getmetatable(opfunc).__call) then
    lib.fail('optim.' .. name, 'opfunc must be a function returning f(x), df/dx; got %s', type(opfunc))
  end
  config.checkX(name, x)
  local fx, dfdx = opfunc(x)
  if torch.isSparse and torch.isSparse(dfdx) then  -- it said "df/dx is table"
    lib.fail('optim.' .. name, 'df/dx is a sparse tensor, which optim.%s does not take (optim.sgd and optim.adagrad do; or return df/dx:toDense())', name)
  end
  if not torch.isTensor(dfdx) then
    lib.fail('optim.' .. name, 'opfunc must return f(x) and df/dx (a tensor); df/dx is %s', type(dfdx))
  end
  if not torch.isFloatingPoint(dfdx) then
    lib.fail('optim.' .. name, 'df/dx must be a floating-point tensor, got a %s', torch.typename(dfdx))
  end
  if dfdx:nElement() ~= x:nElement() then
    lib.fail('optim.' .. name, 'df/dx has %d elements but x has %d', dfdx:nElement(), x:nElement())
  end
  return fx, dfdx
end

--- f(x) as a Lua number (opfuncs may return a one-element tensor, such as a loss under autograd).
function config.number(f)
  if torch.isTensor(f) then return f:item() end
  return f
end

return config
