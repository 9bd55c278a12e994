-- Error reports without Tocha's own frames: debug.traceback with the frames of Tocha's Lua files
-- and of the error/xpcall plumbing removed (the message itself is kept whole). Used by the
-- script runner (cli.lua), the REPL and the host's last-resort handler (_G.__tocha_traceback).
local M = {}

local function library_root()
  local ok, lib = pcall(require, 'torch.lib')
  return ok and lib.lua_root or nil
end

-- Note [Error objects]: the handler must not raise (xpcall would report "error in error
-- handling" and lose the error): a __tostring that raises or returns a non-string is reported
-- as such. error(nil) is named as Lua 5.4's lua.c does ("(error object is a nil value)"; it
-- printed "nil"); other objects without a __tostring keep tostring's text ("table: 0x...").
local function message(msg)
  local kind = type(msg)
  if kind == 'string' or kind == 'number' then return tostring(msg) end
  if msg == nil then return '(error object is a nil value)' end
  local ok, s = pcall(tostring, msg)
  if ok and (type(s) == 'string' or type(s) == 'number') then return tostring(s) end
  return '(error object is a ' .. kind .. ' value whose __tostring '
    .. (ok and ('returned a ' .. type(s)) or ('failed: ' .. (type(s) == 'string' and s or type(s)))) .. ')'
end
M.message = message

-- How many levels the stack has below this function (debug.getinfo(n) costs O(n): searched).
local function stack_depth()
  local lo, hi = 1, 2
  while debug.getinfo(hi, 'S') do lo, hi = hi, hi * 2 end
  while hi - lo > 1 do
    local mid = math.floor((lo + hi) / 2)
    if debug.getinfo(mid, 'S') then lo = mid else hi = mid end
  end
  return lo
end

-- Note [Long library paths]: debug.traceback shows a file whose path has 60 characters or more
-- as "..." and its last 56 (LuaJIT's LUA_IDSIZE), so an installed library
-- (/usr/local/share/tocha/lua/torch/distributions/...) no longer contains the root and its frames
-- leaked into reports. The short names of the library's files on the stack are collected from
-- debug.getinfo (which has the whole path) and matched exactly; only at the levels a traceback
-- shows (its first 12 and last 10 when the stack is deep): reading every level of a stack
-- overflow took seconds.
local function library_short_names(root)
  local names = {}
  if not root then return names end
  local prefix = '@' .. root .. '/'
  local function add(level)
    local info = debug.getinfo(level, 'S')
    if info and info.source:sub(1, #prefix) == prefix then names[info.short_src] = true end
  end
  local depth = stack_depth()
  for level = 2, math.min(depth, 40) do add(level) end
  for level = math.max(41, depth - 30), depth do add(level) end
  return names
end

local function hidden(line, root, short_names)
  local shown = line:match('^%s*(.-):%d+:')
  return (root and line:find(root, 1, true)) or (shown and short_names[shown])
    or line:find("%[C%]: in function 'error'")
    or line:find("%[C%]: in function 'xpcall'")
    or line:find("%[C%]: at 0x") or line:find('^%s*%[builtin#%d+%]:')
end

-- `text` (debug.traceback's) without the hidden frames.
local function filter(text, root, short_names)
  local head, frames = text:match('^(.*\nstack traceback:)(.*)$')
  if not head then return text end
  local out = { head }
  for line in frames:gmatch('[^\n]+') do
    if not hidden(line, root, short_names) then out[#out + 1] = line end
  end
  if #out == 1 then return (head:gsub('\nstack traceback:$', '')) end  -- every frame was the library's
  return table.concat(out, '\n')
end

local function filtered(msg, level)
  local root = library_root()
  return filter(debug.traceback(message(msg), level), root, library_short_names(root))
end

-- The traceback of `msg` from `level` (default: the caller of the message handler), filtered.
-- The handler must not raise (Note [Error objects]), hence the pcall; after a stack overflow
-- little stack is left for it (LuaJIT then reports "error in error handling" instead, now and
-- then, whatever the handler does): the plain filter, without pcall or reading the stack.
function M.traceback(msg, level)
  if type(msg) == 'string' and msg:find('stack overflow', 1, true) then
    return filter(debug.traceback(msg, level or 2), library_root(), {})
  end
  local ok, text = pcall(filtered, msg, (level or 2) + 2)  -- + this function and pcall
  if ok then return text end
  return type(msg) == 'string' and msg or message(msg)
end

-- For the REPL: also drops the frame of the typed chunk itself, and the whole "stack traceback:"
-- section when nothing else is left (a one-line error needs no traceback).
function M.repl_traceback(msg)
  local text = M.traceback(msg, 3)
  local head, frames = text:match('^(.*)\nstack traceback:(.*)$')
  if not head then return text end
  local keep = {}
  for line in frames:gmatch('[^\n]+') do
    if not line:find('^%s*stdin:%d+: in main chunk$') and not line:find('^%s*%(tail call%): %?$') then
      keep[#keep + 1] = line
    end
  end
  -- The REPL's own protected calls sit below the typed chunk.
  while #keep > 0 and keep[#keep]:find("^%s*%[C%]: in function '?x?pcall'?$") do keep[#keep] = nil end
  if #keep == 0 then return head end
  return head .. '\nstack traceback:\n' .. table.concat(keep, '\n')
end

return M
