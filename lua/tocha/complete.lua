-- Tab completion for the REPL: keywords, globals, fields of tables and of their metatables'
-- __index chains (methods of torch.class objects, string methods), tensor methods (cdata hide
-- their metatable, so torch._tensor_methods is used) and module classes (nn.Spa<Tab>).
-- Everything is read with rawget: completing never runs user code.
local M = {}

local keywords = {}
for w in ([[and break do else elseif end false for function if in local nil not or repeat return
           then true until while]]):gmatch('%a+') do keywords[#keywords + 1] = w end

-- The table that `obj.key` falls back to: an __index table, or the methods of a tensor.
local function fallback(obj)
  if type(obj) == 'cdata' then
    local torch = rawget(_G, 'torch')
    if torch and torch.isTensor and torch.isTensor(obj) then return rawget(torch, '_tensor_methods') end
    if torch and torch.isStorage and torch.isStorage(obj) then return rawget(torch, '_storage_methods') end
    return nil
  end
  local mt = debug.getmetatable(obj)
  local idx = type(mt) == 'table' and rawget(mt, '__index') or nil
  return type(idx) == 'table' and idx or nil
end

-- The lazily loaded names of a table (Note [Lazy namespaces], lua/torch/init.lua).
local function lazy_names(obj)
  local mt = type(obj) == 'table' and debug.getmetatable(obj) or nil
  return type(mt) == 'table' and type(rawget(mt, '__lazy')) == 'table' and rawget(mt, '__lazy') or nil
end

-- obj[key] without running metamethods other than __index tables (at most 20 levels); a lazy
-- namespace is loaded, as the user is about to use it.
local function field(obj, key)
  for _ = 1, 20 do
    if obj == nil then return nil end
    if type(obj) == 'table' then
      local v = rawget(obj, key)
      if v ~= nil then return v end
      local lazy = lazy_names(obj)
      if lazy and lazy[key] then
        local mod = lazy[key]
        lazy[key] = nil
        if pcall(require, mod) then return rawget(obj, key) end
        lazy[key] = mod  -- a module that fails to load says why when the name is used, not nil
      end
    end
    obj = fallback(obj)
  end
end
M.field = field

-- The names reachable from obj (its keys and those of its fallbacks), with their values, and
-- the set of those that are lazy names not loaded yet (their value is a stand-in table).
local function members(obj)
  local out, seen, pending = {}, {}, {}
  -- A tensor's properties (x.shape, x.grad, x.T...) are computed by its __index after the
  -- methods, not stored with them: they are listed without being read (true: a value, no
  -- suffix), unless a method of the same name shadows them.
  local torch = rawget(_G, 'torch')
  local hooks = torch and type(obj) == 'cdata' and torch.isTensor and torch.isTensor(obj) and rawget(torch, '_tensor_hooks')
  for _ = 1, 20 do
    if obj == nil then break end
    if type(obj) == 'table' then
      for k, v in next, obj do
        if type(k) == 'string' and k:match('^[%a_][%w_]*$') and not seen[k] then
          seen[k] = true
          out[k] = v
        end
      end
      for k in pairs(lazy_names(obj) or {}) do  -- namespaces not loaded yet: tables
        if not seen[k] then seen[k] = true out[k] = {} pending[k] = true end
      end
    end
    obj = fallback(obj)
  end
  for k in pairs(hooks and hooks.properties or {}) do
    if type(k) == 'string' and not seen[k] then seen[k] = true out[k] = true end
  end
  return out, pending
end

local function callable(v)
  if type(v) == 'function' then return true end
  local mt = debug.getmetatable(v)
  return type(mt) == 'table' and rawget(mt, '__call') ~= nil
end

-- What follows a name completed alone: '(' for functions, '.' for plain tables.
local function suffix(v)
  if callable(v) then return '(' end
  if type(v) == 'table' then return '.' end
  return ''
end

-- Candidates for `word`, the text before the cursor up to a break character (readline's word).
-- Each candidate replaces the whole word; nil means "complete a file name" (unused for now).
function M.candidates(word)
  local lead, path = word:match('^(.-)([%a_][%w_%.:]*)$')
  if not path then
    if word ~= '' then return {} end  -- after a number or a bracket: nothing sensible to offer
    lead, path = '', ''
  end
  if lead:find('[%w_.:]$') then return {} end
  local base, sep, partial = path:match('^(.*)([%.:])([%w_]*)$')
  local pool, is_kw, pending, obj = {}, {}, {}, nil
  if base then
    if base == '' or base:find('[.:]$') or base:find(':') then return {} end
    obj = rawget(_G, base:match('^[^.]+'))
    for part in base:gmatch('%.([^.]+)') do obj = field(obj, part) end
    if obj == nil then return {} end
    pool, pending = members(obj)
    if sep == ':' then
      for k, v in pairs(pool) do if not callable(v) then pool[k] = nil end end
    end
  else
    base, sep, partial = '', '', path
    pool = members(_G)
    for _, k in ipairs(keywords) do
      if pool[k] == nil then pool[k] = true is_kw[k] = true end
    end
  end
  local names = {}
  for k in pairs(pool) do
    -- Private names (_x) only when asked for.
    if k:sub(1, #partial) == partial and (partial:sub(1, 1) == '_' or k:sub(1, 1) ~= '_') then
      names[#names + 1] = k
    end
  end
  table.sort(names)
  local prefix = lead .. base .. sep
  local out = {}
  for i, k in ipairs(names) do out[i] = prefix .. k end
  if #names == 1 then
    local k = names[1]
    -- A lazy name completed alone is loaded (as field does) for its suffix: torch.pola<Tab>
    -- gave 'torch.polar.' (the stand-in is a table) for a function.
    if pending[k] then pool[k] = field(obj, k) end
    out[1] = out[1] .. (is_kw[k] and ' ' or suffix(pool[k]))
  end
  return out
end

return M
