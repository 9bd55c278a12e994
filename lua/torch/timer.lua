-- torch.Timer (Torch7's Timer.c: reset, stop, resume, time() -> {real, user, sys} in seconds) and
-- torch.tic/toc, on clock_gettime(CLOCK_MONOTONIC) and getrusage through the FFI.
local ffi = require 'ffi'
local torch = require 'torch.env'
local lib = require 'torch.lib'

-- Each declaration on its own: another module may already have declared some of them, and a
-- redefinition error must not stop the rest.
for _, decl in ipairs({
  'struct timespec { long tv_sec; long tv_nsec; };',
  'struct timeval { long tv_sec; long tv_usec; };',
  'struct rusage { struct timeval ru_utime; struct timeval ru_stime; long ru_rest[14]; };',
  'int clock_gettime(int clk_id, struct timespec *tp);',
  'int getrusage(int who, struct rusage *usage);',
}) do pcall(ffi.cdef, decl) end

local CLOCK_MONOTONIC = ffi.os == 'OSX' and 6 or 1
local RUSAGE_SELF = 0
local ts = ffi.new('struct timespec')
local ru = ffi.new('struct rusage')

-- Monotonic, so a wall-clock adjustment (NTP, suspend) never makes a duration negative.
local function real_now()
  ffi.C.clock_gettime(CLOCK_MONOTONIC, ts)
  return tonumber(ts.tv_sec) + tonumber(ts.tv_nsec) * 1e-9
end
-- User and system CPU seconds of the whole process (all threads), like Torch7.
local function cpu_now()
  ffi.C.getrusage(RUSAGE_SELF, ru)
  return tonumber(ru.ru_utime.tv_sec) + tonumber(ru.ru_utime.tv_usec) * 1e-6,
         tonumber(ru.ru_stime.tv_sec) + tonumber(ru.ru_stime.tv_usec) * 1e-6
end

local Timer = torch.getmetatable('torch.Timer') or torch.class('torch.Timer', torch)

local function start(self)
  self._start_real = real_now()
  self._start_user, self._start_sys = cpu_now()
end

--- A running timer at zero.
function Timer:__init()
  self._running = true
  self._real, self._user, self._sys = 0, 0, 0
  start(self)
end

--- Zeroes the accumulated time; a running timer keeps running, a stopped one stays stopped.
function Timer:reset()
  self._real, self._user, self._sys = 0, 0, 0
  start(self)
  return self
end

--- Stops the timer, keeping what it accumulated (a no-op when already stopped, as in Torch7).
function Timer:stop()
  if self._running then
    local t = self:time()
    self._real, self._user, self._sys = t.real, t.user, t.sys
    self._running = false
  end
  return self
end

--- Starts a stopped timer again; time keeps accumulating from where stop() left it.
function Timer:resume()
  if not self._running then
    self._running = true
    start(self)
  end
  return self
end

--- Accumulated seconds: {real = wall clock, user = CPU in user mode, sys = CPU in the kernel}.
function Timer:time()
  if not self._running then return { real = self._real, user = self._user, sys = self._sys } end
  local user, sys = cpu_now()
  return { real = self._real + real_now() - self._start_real,
           user = self._user + user - self._start_user,
           sys = self._sys + sys - self._start_sys }
end

function Timer:__tostring__()
  return 'torch.Timer [status: ' .. (self._running and 'running' or 'stopped') .. ']'
end

-- Torch7's utils.c: tic() returns a time stamp, toc(t) the seconds since it. The argument of toc
-- is optional here (the last tic), which MATLAB users expect.
local last_tic
--- torch.tic(): the current time in seconds, a number from a monotonic clock (Torch7's utils);
--- also remembered for torch.toc().
--- Example: torch.tic()
function torch.tic()
  last_tic = real_now()
  return last_tic
end
--- torch.toc([t]): the seconds elapsed since time stamp t from torch.tic() (default: the last
--- torch.tic() call), a number.
--- Example: local t = torch.tic(); return torch.toc(t)
function torch.toc(t)
  t = t or last_tic
  if type(t) ~= 'number' then lib.fail('toc', 'expected a time stamp from torch.tic(), got %s', type(t)) end
  return real_now() - t
end

return Timer
