-- Error reports without Tocha's own frames: debug.traceback with the frames of Tocha's Lua files
-- and of the error/xpcall plumbing removed (the message itself is kept whole). Used by the
-- script runner (cli.lua), the REPL and the host's last-resort handler (_G.__tocha_traceback).
local M = {}

local function library_root()
  local ok, lib = pcall(require, 'torch.lib')
  return ok and lib.lua_root or nil
end

local function hidden(line, root)
  return (root and line:find(root, 1, true)) or line:find("%[C%]: in function 'error'")
    or line:find("%[C%]: in function 'xpcall'")
    or line:find("%[C%]: at 0x") or line:find('^%s*%[builtin#%d+%]:')
end

-- The traceback of `msg` from `level` (default: the caller of the message handler), filtered.
function M.traceback(msg, level)
  local text = debug.traceback(tostring(msg), level or 2)
  local root = library_root()
  local head, frames = text:match('^(.*\nstack traceback:)(.*)$')
  if not head then return text end
  local out = { head }
  for line in frames:gmatch('[^\n]+') do
    if not hidden(line, root) then out[#out + 1] = line end
  end
  if #out == 1 then return (head:gsub('\nstack traceback:$', '')) end  -- every frame was the library's
  return table.concat(out, '\n')
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
