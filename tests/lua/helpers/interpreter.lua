-- The `tocha` executable running the current test, for suites that start child processes:
-- I.path (absolute when it can be found), I.quote(s) (a shell word) and I.TOCHA (the quoted path).
-- Load with dofile(<this test's directory> .. '/helpers/interpreter.lua').
local ffi = require 'ffi'
local I = {}

-- The interpreter is the lowest entry of `arg` (arg[-1] for `tocha test.lua`); found through
-- PATH, ask the kernel where this process's executable is.
local function find_interpreter()
  local lo = -1
  while arg[lo - 1] do lo = lo - 1 end
  local exe = arg[lo]
  if exe and exe:find('/') then return exe end
  pcall(ffi.cdef, 'long readlink(const char *path, char *buf, size_t size);')
  local buf = ffi.new('char[4096]')
  local n = ffi.C.readlink('/proc/self/exe', buf, 4095)
  return n > 0 and ffi.string(buf, n) or exe
end

function I.quote(s) return "'" .. tostring(s):gsub("'", "'\\''") .. "'" end
I.path = find_interpreter()
I.TOCHA = I.quote(I.path)
return I
