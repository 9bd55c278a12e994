-- Argument parsing for torchnet's constructors and methods. Torch7's torchnet used torch/argcheck:
-- every function took either its arguments in order or ONE table of named arguments
-- (tnt.ListDataset{list = l, load = f} or tnt.ListDataset(l, f)), with defaults, optional
-- arguments and type checks. This file does the same for a declared list of parameters.
local torch = require 'torch'

local argcheck = {}

local PLAIN = { number = true, string = true, boolean = true, ['function'] = true, table = true }

-- Whether v is of type t: a Lua type, 'torch.*Tensor' (any tensor), a tensor type name
-- ('torch.LongTensor'), or a class name checked with torch.isTypeOf ('tnt.Dataset', 'nn.Module').
-- t may list alternatives separated by '|'.
local function typeok(v, t)
  if t:find('|', 1, true) then
    for alt in t:gmatch('[^|]+') do
      if typeok(v, alt) then return true end
    end
    return false
  end
  if PLAIN[t] then return type(v) == t end
  if t == 'torch.*Tensor' then return torch.isTensor(v) end
  if t:match('^torch%.%a*Tensor$') then return torch.typename(v) == t end
  return torch.isTypeOf(v, t)
end
argcheck.typeok = typeok

local function describe(v)
  local ty = torch.type(v)
  if type(v) == 'number' or type(v) == 'boolean' then return ty .. ' ' .. tostring(v) end
  if type(v) == 'string' then return string.format('string %q', v) end
  return ty
end

-- A plain Lua table: not a class instance, not a tensor (a named-argument table is one).
local function isplain(v)
  return type(v) == 'table' and getmetatable(v) == nil
end
argcheck.isplain = isplain

local function fill(spec, get, fname)
  local out = {}
  for i, p in ipairs(spec) do
    local v = get(i, p)
    if v == nil then
      if p.default ~= nil then
        v = p.default
      elseif p.defaulta then
        for j = 1, i - 1 do
          if spec[j].name == p.defaulta then v = out[j] end
        end
      elseif not p.opt then
        return nil, string.format('[%s] missing argument %s (%s)', fname, p.name, p.type)
      end
    elseif not typeok(v, p.type) then
      return nil, string.format('[%s] argument %s: expected %s, got %s', fname, p.name, p.type, describe(v))
    end
    out[i] = v
  end
  return out
end

local function named(spec, fname, t)
  local known = {}
  for _, p in ipairs(spec) do known[p.name] = true end
  for k in pairs(t) do
    if not known[k] then
      return nil, string.format('[%s] unknown argument %s', fname, tostring(k))
    end
  end
  return fill(spec, function(_, p) return t[p.name] end, fname)
end

local function ordered(spec, fname, n, ...)
  if n > #spec then
    return nil, string.format('[%s] too many arguments (%d given, at most %d expected: %s)', fname, n,
      #spec, argcheck.usage(spec))
  end
  local args = { ... }
  return fill(spec, function(i) return args[i] end, fname)
end

--- argcheck.usage(spec): the parameter list of spec as text ("list, load[, path]").
--- Example: require('torchnet.argcheck').usage{{name = 'list', type = 'table'}, {name = 'path', type = 'string', opt = true}}
function argcheck.usage(spec)
  local parts = {}
  for _, p in ipairs(spec) do
    local optional = p.opt or p.default ~= nil or p.defaulta
    parts[#parts + 1] = optional and ('[' .. p.name .. ']') or p.name
  end
  return table.concat(parts, ', ')
end

-- Note [Named or ordered]: torch/argcheck tried both forms. Here one plain table whose keys are
-- all parameter names is a named call; anything else is an ordered call. A function whose first
-- parameter is itself a table (tnt.utils.table.mergetensor{t1, t2}) gets integer keys, so stays
-- ordered; when a named reading fails (an empty table, a missing argument), the ordered reading
-- is tried before reporting the named error. `noordered` (torchnet's flag, where a single table
-- would be ambiguous) forbids ordered calls, `nonamed` named ones.

--- argcheck.parser(spec): a function parse(...) returning the checked values of the parameters
--- declared in spec (a list of {name=, type=, default=, opt=, defaulta=}; spec.name names the
--- function in errors; spec.noordered / spec.nonamed as in torch/argcheck).
--- Example: local parse = require('torchnet.argcheck').parser{name = 'f', {name = 'x', type = 'number'},
---   {name = 'y', type = 'number', default = 2}}
---   local x, y = parse{x = 1}  -- 1, 2; parse(1, 3) gives 1, 3
function argcheck.parser(spec)
  local fname = spec.name or '?'
  local n = #spec
  return function(...)
    local nargs = select('#', ...)
    local first = ...
    local out, err
    if not spec.nonamed and nargs == 1 and isplain(first) then
      local allnames = true
      for k in pairs(first) do
        if type(k) ~= 'string' then allnames = false break end
      end
      if allnames or spec.noordered then
        out, err = named(spec, fname, first)
        if not out and not spec.noordered and n > 0 and typeok(first, spec[1].type) then
          local out2 = ordered(spec, fname, nargs, ...)
          if out2 then out, err = out2, nil end
        end
        if not out then error(err, 3) end
        return unpack(out, 1, n)
      end
    end
    if spec.noordered and nargs > 0 then
      error(string.format('[%s] expects one table of named arguments {%s}, got %d argument(s) (first: %s)',
        fname, argcheck.usage(spec), nargs, describe(first)), 3)
    end
    out, err = ordered(spec, fname, nargs, ...)
    if not out then error(err, 3) end
    return unpack(out, 1, n)
  end
end

return argcheck
