-- Torch7's xlua.progress and xlua.formatTime: the one-line bar
--  [=========>.......................]  45/100  ETA: 1s2ms | Step: 22ms
-- redrawn in place with '\r' and '\b', with the ETA while running and the total time at the end.
local ffi = require 'ffi'
local torch = require 'torch'
local lib = require 'torch.lib'

pcall(ffi.cdef, 'int ioctl(int fd, unsigned long request, ...);')

local M = {}

--- xlua.formatTime(seconds): a duration in the two largest units, as '1D2h', '3m4s', '5s12ms'
--- or '0ms'.
--- Example: xlua.formatTime(75.5)  -- '1m15s'
function M.formatTime(seconds)
  local floor = math.floor
  local days = floor(seconds / 3600 / 24)
  seconds = seconds - days * 3600 * 24
  local hours = floor(seconds / 3600)
  seconds = seconds - hours * 3600
  local minutes = floor(seconds / 60)
  seconds = seconds - minutes * 60
  local secondsf = floor(seconds)
  local millis = floor((seconds - secondsf) * 1000)
  local f, used = '', 0
  for _, part in ipairs({ { days, 'D' }, { hours, 'h' }, { minutes, 'm' }, { secondsf, 's' }, { millis, 'ms' } }) do
    if part[1] > 0 and used < 2 then
      f = f .. part[1] .. part[2]
      used = used + 1
    end
  end
  return f == '' and '0ms' or f
end
local formatTime = M.formatTime

-- The terminal's width: $COLUMNS (as tput), else the window size of stdout or stderr, else 80.
local TIOCGWINSZ = ffi.os == 'OSX' and 0x40087468 or 0x5413
local winsize = ffi.new('uint16_t[4]')
local function term_length()
  local cols = tonumber(os.getenv('COLUMNS') or '')
  if cols and cols > 0 then return cols end
  for fd = 1, 2 do
    local ok, rc = pcall(ffi.C.ioctl, fd, TIOCGWINSZ, winsize)
    if ok and rc == 0 and winsize[1] > 0 then return winsize[1] end
  end
  return 80
end

-- Note [xlua.progress state]: as in Torch7, one bar at a time lives in these upvalues; a call
-- whose position falls behind the finished bar's (progress(1, n) after progress(n, n)) starts a
-- new one. The bar is done when floor(current * barLength / goal) reaches barLength, so a loop
-- that never passes exactly goal leaves its bar open, as in Torch7.
local barDone, previous = true, -1
local timer, times, indices, last_draw
local termLength = math.min(term_length(), 120)

-- Note [xlua.progress throttling]: Torch7 redrew on every call (its maxfps = 10 was never
-- used), so a loop of a million fast steps spent its time writing to the terminal. We draw the
-- first and the last state of a bar and otherwise at most 10 times a second; the text of a
-- drawn state is Torch7's.
local MIN_INTERVAL = 0.1

--- xlua.progress(current, goal): draws the progress bar of a loop at step current of goal
--- (Torch7's format: the bar, current/goal, the ETA or, at the end, the total time, and the
--- mean time per step). Call it with current = goal last: it ends the line.
--- Example: for i = 1, 5 do xlua.progress(i, 5) end
function M.progress(current, goal)
  if type(current) ~= 'number' or type(goal) ~= 'number' or not (goal > 0) or current ~= current then
    error(string.format('xlua.progress: expected numbers (current, goal) with goal > 0, got (%s, %s)',
      tostring(current), tostring(goal)), lib.user_level())
  end
  local barLength = termLength - 34
  local percent = math.floor(current * barLength / goal)
  local new = barDone and (previous == -1 or percent < previous)
  if new then
    termLength = math.min(term_length(), 120)
    barLength = termLength - 34
    percent = math.floor(current * barLength / goal)
    barDone, previous = false, -1
    timer = torch.Timer()
    times, indices = { timer:time().real }, { current }
    last_draw = -math.huge
  elseif barDone then
    io.write('\r')
    return
  end
  local elapsed = timer:time().real
  if not new and percent ~= barLength and elapsed - last_draw < MIN_INTERVAL then return end
  last_draw = elapsed
  previous = percent

  local out = {}
  if not new then out[#out + 1] = '\r' end
  local bar = {}
  for i = 1, barLength do bar[i] = i < percent and '=' or (i == percent and '>' or '.') end
  out[#out + 1] = ' [' .. table.concat(bar) .. '] '
  -- Blank the right part, then write the times there.
  local pad = termLength - barLength - 4
  out[#out + 1] = string.rep(' ', pad) .. string.rep('\b', pad)
  local step = current == indices[1] and 0 or (elapsed - times[1]) / (current - indices[1])
  local remaining = math.max(0, (goal - current) * step)
  indices[#indices + 1], times[#times + 1] = current, elapsed
  -- The step is the mean over the last 100 drawn states.
  if #indices > 100 then
    table.remove(indices, 1)
    table.remove(times, 1)
  end
  local tm = (percent < barLength and (' ETA: ' .. formatTime(remaining)) or (' Tot: ' .. formatTime(elapsed)))
    .. ' | Step: ' .. formatTime(step)
  out[#out + 1] = tm
  -- Back to the middle of the bar for the count.
  out[#out + 1] = string.rep('\b', math.floor(5 + #tm + barLength / 2))
  out[#out + 1] = ' ' .. tostring(current) .. '/' .. tostring(goal) .. ' '
  if percent == barLength then
    barDone = true
    out[#out + 1] = '\n'
  end
  out[#out + 1] = '\r'
  io.write(table.concat(out))
  io.flush()
end

return M
