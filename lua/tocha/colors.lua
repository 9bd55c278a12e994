-- Colours of the REPL's output, in Torch7's trepl scheme (numbers cyan, booleans blue, strings
-- green inside tables, functions magenta, tensors red, nil and timings dark grey). Only on a
-- terminal, and never when NO_COLOR is set (https://no-color.org) or TERM is "dumb".
local ffi = require 'ffi'

local M = {}

local codes = {
  none = '\27[0m', red = '\27[0;31m', green = '\27[0;32m', yellow = '\27[0;33m',
  blue = '\27[0;34m', magenta = '\27[0;35m', cyan = '\27[0;36m', white = '\27[0;37m',
  Black = '\27[1;30m', Red = '\27[1;31m', Green = '\27[1;32m', Blue = '\27[1;34m',
  Magenta = '\27[1;35m', Cyan = '\27[1;36m', bold = '\27[1m',
}

pcall(ffi.cdef, 'int isatty(int fd);')
function M.isatty(fd) return ffi.C.isatty(fd) == 1 end

-- Whether colours suit this process's stdout.
function M.wanted()
  local no = os.getenv('NO_COLOR')
  if no and no ~= '' then return false end
  if os.getenv('TERM') == 'dumb' then return false end
  return M.isatty(1)
end

M.enabled = false
function M.enable(on) M.enabled = on and true or false end

-- `s` in colour `name` (plain text when colours are off).
function M.paint(name, s)
  if not M.enabled then return s end
  return codes[name] .. s .. codes.none
end

-- The same for a readline prompt: the escape codes are marked invisible (\1 ... \2) so that
-- readline measures the prompt's width correctly.
function M.prompt(name, s)
  if not M.enabled then return s end
  return '\1' .. codes[name] .. '\2' .. s .. '\1' .. codes.none .. '\2'
end

return M
