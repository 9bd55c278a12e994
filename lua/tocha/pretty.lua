-- How the REPL shows values: results of expressions and the arguments of its print(). Tables are
-- pretty-printed with nesting (depth limit), cycles marked and long tables truncated; tensors use
-- pretty_tensor; torch.class objects use their __tostring__. Colours come from colors.lua.
local colors = require 'tocha.colors'
local pretty_tensor = require 'tocha.pretty_tensor'

local M = { depth = 4, items = 40, inline_width = 72 }
local paint = colors.paint

local function is_tensor(v) return type(v) == 'cdata' and torch and torch.isTensor and torch.isTensor(v) end
local function is_storage(v) return type(v) == 'cdata' and torch and torch.isStorage and torch.isStorage(v) end

-- Looks a key up through a class's metatables without running any __index function.
local function class_field(obj, key)
  local mt = debug.getmetatable(obj)
  for _ = 1, 20 do
    if type(mt) ~= 'table' then return nil end
    local v = rawget(mt, key)
    if v ~= nil then return v end
    local up = debug.getmetatable(mt)
    mt = up and rawget(up, '__index')
  end
end

-- The class name of a torch.class object, or nil.
local function class_name(v)
  local mt = debug.getmetatable(v)
  return type(mt) == 'table' and rawget(mt, '__typename') or nil
end

-- Whether tostring(v) says more than the address: a class with __tostring__, or any __tostring.
local function has_tostring(v)
  local mt = debug.getmetatable(v)
  if type(mt) ~= 'table' then return false end
  if rawget(mt, '__typename') then return class_field(v, '__tostring__') ~= nil end
  return rawget(mt, '__tostring') ~= nil
end

-- Note [Showing never raises]: a __tostring that raises (an object in a broken state) or
-- returns a non-string is shown as a placeholder: before, one such object anywhere inside a
-- table hid the whole table behind the error, and a number from __tostring failed inside
-- pretty.lua ("attempt to index local 's'").
local function safe_tostring(v)
  local ok, s = pcall(tostring, v)
  if ok and type(s) == 'string' then return s end
  local mt = debug.getmetatable(v)
  local name = type(mt) == 'table' and rawget(mt, '__typename') or type(v)
  if ok then return '<' .. name .. ': __tostring returned a ' .. type(s) .. '>' end
  return '<' .. name .. ': __tostring failed: ' .. (type(s) == 'string' and s or type(s)) .. '>'
end

local function quote(s)
  s = string.format('%q', s):gsub('\\\n', '\\n')
  return s
end

-- One-line form of a non-table value; `nested` quotes strings (inside tables).
local function scalar(v, nested)
  local t = type(v)
  if v == nil then return paint('Black', 'nil')
  elseif t == 'number' then return paint('cyan', tostring(v))
  elseif t == 'boolean' then return paint('blue', tostring(v))
  elseif t == 'string' then
    if not nested then return v end
    return paint('Black', '"') .. paint('green', quote(v):sub(2, -2)) .. paint('Black', '"')
  elseif t == 'function' then return paint('magenta', tostring(v))
  elseif is_tensor(v) then return paint('red', pretty_tensor.summary(v))
  elseif is_storage(v) then
    return paint('red', torch.typename(v):gsub('^torch%.', '') .. ' - size: ' .. v:size())
  end
  return safe_tostring(v)
end

local function is_identifier(s)
  return type(s) == 'string' and s:match('^[%a_][%w_]*$') ~= nil
end

local function key_text(k)
  if is_identifier(k) then return k end
  if type(k) == 'string' then return quote(k) end
  if type(k) == 'number' then return tostring(k) end
  return '[' .. safe_tostring(k) .. ']'
end

-- Keys in display order: the array part first, then the others by type and text.
local type_order = { number = 1, string = 2, boolean = 3 }
local function sorted_keys(t)
  local n = 0
  while rawget(t, n + 1) ~= nil do n = n + 1 end
  local keys, others = {}, {}
  for i = 1, n do keys[i] = i end
  for k in next, t do
    if not (type(k) == 'number' and k >= 1 and k <= n and k == math.floor(k)) then others[#others + 1] = k end
  end
  table.sort(others, function(a, b)
    local ta, tb = type_order[type(a)] or 4, type_order[type(b)] or 4
    if ta ~= tb then return ta < tb end
    if ta == 1 or ta == 2 then return a < b end
    return safe_tostring(a) < safe_tostring(b)
  end)
  for _, k in ipairs(others) do keys[#keys + 1] = k end
  return keys, n
end

local render

-- `{1, 2, 3}` for a short array of short scalars, or nil.
local function inline(t, keys, n)
  if #keys ~= n or n > 16 then return nil end
  local parts, width = {}, 2
  for i = 1, n do
    local v = rawget(t, i)
    local tv = type(v)
    if tv ~= 'number' and tv ~= 'boolean' and not (tv == 'string' and #v <= 20) then return nil end
    local s = scalar(v, true)
    width = width + #tostring(v) + 2
    parts[i] = s
  end
  if width > M.inline_width then return nil end
  return '{' .. table.concat(parts, ', ') .. '}'
end

local function render_table(t, indent, depth, stack)
  if stack[t] then return paint('Black', '<cycle: ' .. safe_tostring(t) .. '>') end
  if next(t) == nil then return '{}' end
  local keys, n = sorted_keys(t)
  local short = inline(t, keys, n)
  if short then return short end
  if depth >= M.depth then return paint('Black', '{... ' .. #keys .. ' entries}') end
  stack[t] = true
  local inner = indent .. '  '
  local out = { '{' }
  for i, k in ipairs(keys) do
    if i > M.items then
      out[#out + 1] = inner .. paint('Black', '... (' .. (#keys - M.items) .. ' more)')
      break
    end
    out[#out + 1] = inner .. key_text(k) .. ' : ' .. render(rawget(t, k), inner, depth + 1, stack)
  end
  out[#out + 1] = indent .. '}'
  stack[t] = nil
  return table.concat(out, '\n')
end

-- Multi-line text nested at `indent`: continuation lines are indented.
local function indented(s, indent)
  return (s:gsub('\n$', ''):gsub('\n', '\n' .. indent))
end

function render(v, indent, depth, stack)
  if type(v) == 'table' then
    if has_tostring(v) then return indented(safe_tostring(v), indent) end
    local name = class_name(v)
    local body = render_table(v, indent, depth, stack)
    return name and (paint('green', name) .. ' ' .. body) or body
  end
  return scalar(v, depth > 0)
end

-- The text of one REPL result (tensors abbreviated when large; strings as they are).
function M.result(v)
  if is_tensor(v) then return (pretty_tensor.format(v):gsub('\n$', '')) end
  if is_storage(v) then return (tostring(v):gsub('^\n', ''):gsub('\n$', '')) end
  if type(v) == 'table' then return render(v, '', 0, {}) end
  return scalar(v, false)
end

-- The text of several results: tab-separated when each fits on one line, else one per line.
function M.results(n, values)
  local parts, multiline = {}, false
  for i = 1, n do
    parts[i] = M.result(values[i])
    if parts[i]:find('\n') then multiline = true end
  end
  return table.concat(parts, multiline and '\n' or '\t')
end

-- The REPL's print: Lua's print, except that tables are pretty-printed (as trepl's print_new).
function M.print(...)
  local n = select('#', ...)
  local parts = {}
  for i = 1, n do
    local v = select(i, ...)
    if type(v) == 'table' and not has_tostring(v) then parts[i] = render(v, '', 0, {})
    else parts[i] = tostring(v) end
  end
  io.stdout:write(table.concat(parts, '\t'), '\n')
end

return M
