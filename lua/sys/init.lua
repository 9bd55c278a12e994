-- Torch7's sys package (require 'sys' sets the global sys): a wall clock, tic/toc, sleeping,
-- running a shell command for its output, the OS name, the calling file's folder, and COLORS.
if rawget(_G, 'sys') and sys._tocha then return sys end
local ffi = require 'ffi'
local lib = require 'torch.lib'
local torch = require 'torch'
local paths = require 'paths'

sys = rawget(_G, 'sys') or {}
sys._tocha = true

for _, decl in ipairs({
  'struct timespec { long tv_sec; long tv_nsec; };',
  'int clock_gettime(int clk_id, struct timespec *tp);',
  'int nanosleep(const struct timespec *req, struct timespec *rem);',
}) do pcall(ffi.cdef, decl) end

local function fail(fn, fmt, ...)
  error('sys.' .. fn .. ': ' .. string.format(fmt, ...), lib.user_level())
end

local CLOCK_REALTIME = 0
local ts = ffi.new('struct timespec')

-- Note [sys.clock is the wall clock]: Torch7's sys.clock was gettimeofday, seconds since the
-- epoch, which scripts compare with os.time() or print as dates; we keep that meaning with
-- clock_gettime's nanoseconds (a double resolves about 0.2 microseconds at today's epoch).
-- Durations that must never go backwards use torch.Timer (monotonic), as sys.tic/toc do.
--- sys.clock(): the wall-clock time in seconds since the epoch, with sub-microsecond resolution.
--- Example: local t = sys.clock(); local dt = sys.clock() - t
function sys.clock()
  ffi.C.clock_gettime(CLOCK_REALTIME, ts)
  return tonumber(ts.tv_sec) + tonumber(ts.tv_nsec) * 1e-9
end

local tic_timer
--- sys.tic(): starts the stopwatch that sys.toc() reads.
--- Example: sys.tic()
function sys.tic()
  tic_timer = torch.Timer()
end

--- sys.toc([verbose]): the seconds since the last sys.tic() (printed too when verbose).
--- Example: sys.tic(); local dt = sys.toc()
function sys.toc(verbose)
  if not tic_timer then fail('toc', 'call sys.tic() first') end
  local dt = tic_timer:time().real
  if verbose then print(dt) end
  return dt
end

local req, rem = ffi.new('struct timespec'), ffi.new('struct timespec')
local EINTR = 4

--- sys.usleep(microseconds): sleeps that long (1 microsecond by default, as Torch7).
--- Example: sys.usleep(1000)
function sys.usleep(us)
  if us == nil then us = 1 end
  if type(us) ~= 'number' or us ~= us or us < 0 then
    fail('usleep', 'expected a non-negative number of microseconds, got %s', tostring(us))
  end
  local whole = math.floor(us / 1e6)
  req.tv_sec, req.tv_nsec = whole, math.floor((us - whole * 1e6) * 1e3)
  -- A signal may wake us early: sleep the remainder.
  while ffi.C.nanosleep(req, rem) ~= 0 and ffi.errno() == EINTR do
    req.tv_sec, req.tv_nsec = rem.tv_sec, rem.tv_nsec
  end
end

--- sys.sleep(seconds): sleeps that long (fractions allowed).
--- Example: sys.sleep(0.01)
function sys.sleep(seconds)
  if type(seconds) ~= 'number' then fail('sleep', 'expected a number of seconds, got %s', type(seconds)) end
  sys.usleep(seconds * 1e6)
end

local function strip(s) return (s:gsub('^%s*', ''):gsub('%s*$', '')) end

--- sys.execute(cmd): runs the shell command cmd and returns its output (stdout and stderr)
--- without leading and trailing white space.
--- Example: sys.execute('echo hi')  -- 'hi'
function sys.execute(cmd)
  if type(cmd) ~= 'string' then fail('execute', 'expected a command string, got %s', type(cmd)) end
  local f = assert(io.popen(cmd .. ' 2>&1'))
  local s = f:read('*a')
  f:close()
  return strip(s)
end

--- sys.fexecute(cmd[, readwhat]): sys.execute through a temporary file instead of a pipe;
--- readwhat is a file:read format ('*a' by default).
--- Example: sys.fexecute('echo hi')  -- 'hi'
function sys.fexecute(cmd, readwhat)
  if type(cmd) ~= 'string' then fail('fexecute', 'expected a command string, got %s', type(cmd)) end
  local tmp = os.tmpname()
  os.execute(cmd .. ' >' .. tmp .. ' 2>&1')
  local f = assert(io.open(tmp))
  local s = f:read(readwhat or '*a') or ''
  f:close()
  os.remove(tmp)
  return strip(s)
end

--- sys.uname(): 'linux', 'macos', 'windows' or '?'.
--- Example: sys.uname()
function sys.uname()
  -- Torch7 ran `uname -a` through a shell; the FFI knows the answer without a process.
  local os_name = ffi.os
  if os_name == 'Linux' then return 'linux' end
  if os_name == 'OSX' then return 'macos' end
  if os_name == 'Windows' then return 'windows' end
  return '?'
end
sys.OS = sys.uname()

--- sys.ls([dir]): the output of `ls dir` (sys.ll, sys.la, sys.lla: -l, -a, -la).
--- Example: sys.ls('.')
function sys.ls(d) return sys.execute('ls ' .. (d or '')) end
--- sys.ll([dir]): the output of `ls -l dir`.
--- Example: sys.ll('.')
function sys.ll(d) return sys.execute('ls -l ' .. (d or '')) end
--- sys.la([dir]): the output of `ls -a dir`.
--- Example: sys.la('.')
function sys.la(d) return sys.execute('ls -a ' .. (d or '')) end
--- sys.lla([dir]): the output of `ls -la dir`.
--- Example: sys.lla('.')
function sys.lla(d) return sys.execute('ls -la ' .. (d or '')) end

-- Torch7: the prefix of the Lua install (`which lua` without /bin/lua); ours is Tocha's.
sys.prefix = paths.install_prefix

--- sys.fpath(): the folder and the name of the Lua file calling it (for a chunk that is not a
--- file: the current directory and '').
--- Example: local dir, name = sys.fpath()
function sys.fpath()
  local info = debug.getinfo(2, 'S')
  local src = info and info.source or ''
  if src:sub(1, 1) ~= '@' then return paths.cwd(), '' end
  local f = src:sub(2)
  if f:sub(1, 1) ~= '/' then f = paths.concat(paths.cwd(), f) end
  return paths.dirname(f), paths.basename(f)
end

--- sys.split(str, pattern): the pieces of str between the matches of pattern (a leading empty
--- piece dropped, as Torch7).
--- Example: sys.split('a,b,c', ',')  -- {'a', 'b', 'c'}
function sys.split(s, pat)
  if type(s) ~= 'string' or type(pat) ~= 'string' then
    fail('split', 'expected (string, pattern), got (%s, %s)', type(s), type(pat))
  end
  local t = {}
  local fpat = '(.-)' .. pat
  local last_end = 1
  local a, e, cap = s:find(fpat, 1)
  while a do
    if a ~= 1 or cap ~= '' then t[#t + 1] = cap end
    last_end = e + 1
    -- An empty match would not advance: stop rather than loop forever.
    if e < a then break end
    a, e, cap = s:find(fpat, last_end)
  end
  if last_end <= #s then t[#t + 1] = s:sub(last_end) end
  return t
end

--- sys.isNaN(x): true when x is NaN.
--- Example: sys.isNaN(0 / 0)  -- true
function sys.isNaN(x) return x ~= x end

-- Terminal colours (ANSI escapes): lower case normal, capitalised bold, _name backgrounds.
sys.COLORS = {
  none = '\27[0m',
  black = '\27[0;30m', red = '\27[0;31m', green = '\27[0;32m', yellow = '\27[0;33m',
  blue = '\27[0;34m', magenta = '\27[0;35m', cyan = '\27[0;36m', white = '\27[0;37m',
  Black = '\27[1;30m', Red = '\27[1;31m', Green = '\27[1;32m', Yellow = '\27[1;33m',
  Blue = '\27[1;34m', Magenta = '\27[1;35m', Cyan = '\27[1;36m', White = '\27[1;37m',
  _black = '\27[40m', _red = '\27[41m', _green = '\27[42m', _yellow = '\27[43m',
  _blue = '\27[44m', _magenta = '\27[45m', _cyan = '\27[46m', _white = '\27[47m',
}

-- Backward compatibility, as Torch7's sys: dirname and concat; basename, filep, dirp and pwd
-- come from older sys releases (its README lists them; xlua.installed calls sys.filep).
sys.dirname = paths.dirname
sys.concat = paths.concat
sys.basename = paths.basename
sys.filep = paths.filep
sys.dirp = paths.dirp
sys.pwd = paths.cwd

package.loaded.sys = sys
return sys
