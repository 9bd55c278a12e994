-- `?name`, `name?` and help(value) in the REPL: a function's doc (torch.doc: signature, one
-- paragraph, example, where it is defined), the contents of a module or class, the methods of a
-- tensor; `?` alone explains the REPL itself.
local colors = require 'tocha.colors'
local complete = require 'tocha.complete'

local M = {}
local paint = colors.paint

M.usage_text = [[
Tocha's REPL: Lua (LuaJIT) with the torch module loaded.

  1 + 1                 an expression's values are printed; end it with ; to hide them
  x = torch.randn(3, 4) statements run as typed; an unfinished one continues on the next line
  x:na<Tab>             completes globals, fields, methods, tensor methods and file names
  ?torch.mm             help on a function, module or class (also torch.mm? and help(torch.mm))
  %time expr            runs expr and prints the wall time it took
  %timeit expr          runs expr many times and prints the time per run
  timer on | timer off  prints the wall time of every command
  $ ls -l               runs a shell command
  _LAST                 the last value printed

  Up/Down and Ctrl-R search the history (kept in ~/.tocha_history, or $TOCHA_HISTORY; set
  it to "" to keep none). Ctrl-C cancels the line being typed, or interrupts the running
  command (a second Ctrl-C, if the command does not stop, ends tocha). Ctrl-D exits.
  Large tensors are shown abbreviated; print(x) shows every element.]]

-- tostring(v), or a placeholder when its __tostring raises or returns a non-string: help on a
-- broken object must still answer.
local function safe_tostring(v)
  local ok, s = pcall(tostring, v)
  if ok and type(s) == 'string' then return s end
  return '<' .. type(v) .. ' whose __tostring ' .. (ok and 'returned a ' .. type(s) or 'failed') .. '>'
end

-- The text wrapped at `width` columns, every line starting with `indent`.
local function wrap(text, indent, width)
  local lines, line = {}, indent
  for word in text:gmatch('%S+') do
    if #line + #word + 1 > width and #line > #indent then
      lines[#lines + 1] = line
      line = indent
    end
    line = line .. (#line > #indent and ' ' or '') .. word
  end
  if #line > #indent then lines[#lines + 1] = line end
  return table.concat(lines, '\n')
end

-- Names laid out in columns, as `ls` does.
local function columns(names, indent, width)
  local w = 0
  for _, n in ipairs(names) do w = math.max(w, #n) end
  w = w + 2
  local per = math.max(1, math.floor((width - #indent) / w))
  local out, line = {}, {}
  for i, n in ipairs(names) do
    line[#line + 1] = n .. string.rep(' ', w - #n)
    if #line == per or i == #names then
      out[#out + 1] = indent .. table.concat(line):gsub('%s+$', '')
      line = {}
    end
  end
  return table.concat(out, '\n')
end

-- A path relative to the Lua modules' root, which is shorter to read.
local function short_path(where)
  local lib = package.loaded['torch.lib']
  if where and lib and where:sub(1, #lib.lua_root + 1) == lib.lua_root .. '/' then
    return where:sub(#lib.lua_root + 2)
  end
  return where
end

local function function_help(f, name)
  local doc = require 'torch.doc'
  local entry = doc.get(f, name)
  local short = name and name:match('[.:]([%w_]+)$')
  -- A tensor method (x:narrow) without a doc of its own shares the doc of the torch function;
  -- only a tensor method: `?math.max` showed torch.max's doc.
  local tmethods = rawget(_G, 'torch') and rawget(torch, '_tensor_methods')
  if not entry and short and tmethods and rawequal(tmethods[short], f) and type(torch[short]) == 'function' then
    entry = doc.get(torch[short], 'torch.' .. short)
  end
  local out = {}
  local sig = entry and entry.signature or doc.guess_signature(f, name)
  out[1] = paint('bold', sig)
  if entry and entry.text and entry.text ~= '' then
    out[#out + 1] = wrap(entry.text, '  ', 78)
  elseif debug.getinfo(f, 'S').what == 'C' then
    out[#out + 1] = '  A function written in C (Lua or LuaJIT builtin): see the Lua 5.1 manual.'
  else
    out[#out + 1] = '  No documentation yet.'
  end
  if entry and entry.example then
    out[#out + 1] = '  Example:\n' .. ('    ' .. entry.example):gsub('\n', '\n    ')
  end
  local where = entry and entry.source or doc.where(f)
  if where then out[#out + 1] = paint('Black', '  [' .. short_path(where) .. ']') end
  return table.concat(out, '\n')
end

local function sorted_members(t, fallback_too)
  local names = {}
  local seen = {}
  local function add(tbl)
    for k in next, tbl do
      if type(k) == 'string' and not k:match('^_') and not seen[k] then
        seen[k] = true
        names[#names + 1] = k
      end
    end
  end
  if type(t) == 'table' then add(t) end
  if fallback_too then
    local idx = debug.getmetatable(t)
    idx = type(idx) == 'table' and rawget(idx, '__index')
    if type(idx) == 'table' then add(idx) end
  end
  table.sort(names)
  return names
end

local function table_help(t, name)
  local mt = debug.getmetatable(t)
  local idx = type(mt) == 'table' and rawget(mt, '__index')
  local class = type(idx) == 'table' and rawget(idx, '__typename')
  -- torch.FloatTensor, torch.LongStorage...: the type table names itself and its __index is
  -- the methods (`?torch.Tensor` listed only "dtype" before).
  if not class and type(idx) == 'table' and type(rawget(t, '__typename')) == 'string' then class = rawget(t, '__typename') end
  if class then  -- a torch.class constructor, or an object of one (whose metatable is the class)
    local object = rawequal(mt, idx)
    local out = { paint('bold', class) .. (object and ' object' or ' (class)') }
    local init = rawget(idx, '__init')
    local doc = require 'torch.doc'
    local entry = type(init) == 'function' and doc.get(init, class .. '.__init')
    -- a doc registered with a signature only has no text
    if entry and type(entry.text) == 'string' and entry.text ~= '' then out[#out + 1] = wrap(entry.text, '  ', 78) end
    if object then out[#out + 1] = '  Fields:\n' .. columns(sorted_members(t), '    ', 78) end
    out[#out + 1] = '  Methods:\n' .. columns(sorted_members(idx), '    ', 78)
    return table.concat(out, '\n')
  end
  local fns, tables, others = {}, {}, {}
  for _, k in ipairs(sorted_members(t)) do
    local v = rawget(t, k)
    if type(v) == 'function' then fns[#fns + 1] = k
    elseif type(v) == 'table' then tables[#tables + 1] = k
    else others[#others + 1] = k end
  end
  -- The array part counts too: `?m.modules` (a list of modules) said "0 functions, 0 tables
  -- and 0 other values".
  local n = 0
  while rawget(t, n + 1) ~= nil do n = n + 1 end
  local out = { paint('bold', name or safe_tostring(t)) .. string.format(': a table of %s%d functions, %d tables and %d other values',
    n > 0 and string.format('%d array entries (t[1] to t[%d]), ', n, n) or '', #fns, #tables, #others) }
  if #fns > 0 then out[#out + 1] = '  Functions:\n' .. columns(fns, '    ', 78) end
  if #tables > 0 then out[#out + 1] = '  Tables and classes:\n' .. columns(tables, '    ', 78) end
  if #others > 0 then out[#out + 1] = '  Values:\n' .. columns(others, '    ', 78) end
  if name then out[#out + 1] = '  ?' .. name .. '.<name> tells more.' end
  return table.concat(out, '\n')
end

-- A name for `value`, looked for among the globals and inside torch, nn, optim and data. Only
-- for values with an identity: help(true) was named after the first `true` field found
-- ("torch._loaded: boolean true").
local named_kinds = { ['function'] = true, table = true, userdata = true, thread = true, cdata = true }
local function find_name(value)
  if not named_kinds[type(value)] then return nil end
  for _, mod in ipairs({ 'torch', 'nn', 'optim', 'data' }) do
    local t = rawget(_G, mod)
    if type(t) == 'table' then
      for k, v in next, t do
        if rawequal(v, value) and type(k) == 'string' then return mod .. '.' .. k end
      end
    end
  end
  for k, v in next, _G do
    if rawequal(v, value) and type(k) == 'string' then return k end
  end
  local torch = rawget(_G, 'torch')
  local methods = torch and rawget(torch, '_tensor_methods')
  if methods then
    for k, v in next, methods do
      if rawequal(v, value) then return 'x:' .. k end
    end
  end
  -- Fields of the other global tables (string.format, math.floor, io.open...): help(string.format)
  -- showed "?(...)".
  for g, t in next, _G do
    if type(g) == 'string' and type(t) == 'table' and g:match('^[%a_][%w_]*$') then
      for k, v in next, t do
        if rawequal(v, value) and type(k) == 'string' and k:match('^[%a_][%w_]*$') then return g .. '.' .. k end
      end
    end
  end
  return nil
end

-- The help text for `value` (named `name` when it was typed).
function M.describe(value, name)
  name = name or find_name(value)
  local torch = rawget(_G, 'torch')
  if type(value) == 'function' then return function_help(value, name) end
  if type(value) == 'table' then return table_help(value, name) end
  if torch and torch.isTensor and torch.isTensor(value) then
    return paint('bold', require('tocha.pretty_tensor').summary(value))
      .. '\n  Methods (x:name(...); ?x:name tells more):\n'
      .. columns(sorted_members(rawget(torch, '_tensor_methods')), '    ', 78)
  end
  if value == nil then
    if name then return name .. ' is nil' end
    return 'help: got nil (an undefined or misspelt name, or a module not loaded yet, is nil)'
  end
  local kind = torch and torch.typename and torch.typename(value) or type(value)  -- torch.LongStorage, not cdata
  return (name and (name .. ': ') or '') .. kind .. ' ' .. safe_tostring(value)
end

-- complete.field, and for a tensor its properties too (x.shape, x.grad: computed by the
-- tensor's own __index, which runs no user code); `?x.shape` said "x.shape is nil".
local function tensor_field(v, key)
  local r = complete.field(v, key)
  local torch = rawget(_G, 'torch')
  if r == nil and torch and torch.isTensor and torch.isTensor(v) then
    local ok, p = pcall(function() return v[key] end)
    if ok then r = p end
  end
  return r
end

-- The value of a help topic typed after `?`: a dotted name (read without side effects),
-- `obj:method`, or any expression.
function M.lookup(topic)
  local obj_path, method = topic:match('^([%a_][%w_.]*):([%a_][%w_]*)$')
  local path = obj_path or topic
  if path:match('^[%a_][%w_]*[%w_.]*$') and not path:find('%.%.') and not path:find('%.$') then
    local v = rawget(_G, path:match('^[^.]+'))
    for part in path:gmatch('%.([^.]+)') do v = tensor_field(v, part) end
    if method then v = complete.field(v, method) end
    return true, v
  end
  local chunk, err = loadstring('return ' .. topic, '=help')
  if not chunk then return false, err end
  return pcall(chunk)
end

-- help(value): prints the help of a value (help() alone: how to use the REPL).
function M.help(...)
  if select('#', ...) == 0 then print(M.usage_text) return end
  print(M.describe((...)))
end

-- `?topic`: prints the help of what the topic names.
function M.topic(topic)
  topic = topic:match('^%s*(.-)%s*$')
  if topic == '' then print(M.usage_text) return end
  local ok, v = M.lookup(topic)
  if not ok then io.stderr:write(tostring(v), '\n') return end
  if v == nil then print(M.missing(topic)) return end
  print(M.describe(v, topic))
end

-- Why the dotted name `topic` is nil: which part is missing, and for a module that is not
-- loaded, how to load it (`?nn.Linear` said "nn.Linear is nil" before `require 'nn'`).
function M.missing(topic)
  local path = topic:match('^([%a_][%w_.]*):[%a_][%w_]*$') or topic
  if not path:match('^[%a_][%w_.]*$') or path:find('%.%.') or path:find('%.$') then return topic .. ' is nil' end
  local root = path:match('^[^.]+')
  if rawget(_G, root) == nil then
    -- only Tocha's own modules: a stray x.lua in the current directory is not a hint
    local lib = package.loaded['torch.lib']
    local found = package.searchpath and lib and package.searchpath(root, package.path)
    if found and found:sub(1, #lib.lua_root + 1) == lib.lua_root .. '/' then
      return topic .. ' is nil: ' .. root .. " is not loaded (require '" .. root .. "' loads it)"
    end
    return topic == root and (topic .. ' is nil') or (topic .. ' is nil: ' .. root .. ' is nil')
  end
  local v, prefix = rawget(_G, root), root
  for part in path:gmatch('%.([^.]+)') do
    prefix = prefix .. '.' .. part
    v = tensor_field(v, part)
    if v == nil then break end
  end
  if prefix ~= path then return topic .. ' is nil: ' .. prefix .. ' is nil' end
  return topic .. ' is nil'
end

return M
