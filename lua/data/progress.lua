-- data.ProgressBar: one line per long loop (epochs, batches, loading) showing a bar, the count,
-- the rate, the ETA and running values (loss, metrics). On a terminal the line is redrawn in
-- place; otherwise (a log file, a pipe) a plain line is printed per 10% done (at most one per
-- 5 seconds, and at least one per 30 seconds), then a final one.
local torch = require 'torch'
local data = require 'data.env'
local util = require 'data.util'

local ProgressBar = torch.class('data.ProgressBar', data)

--- data.ProgressBar{total=[, title=][, width=30][, output=io.stdout][, tty=auto][, interval=5]}:
--- a progress bar for total steps; tty forces (true) or disables (false) in-place redrawing;
--- output is any object with write and flush (a Lua file); interval is the least number of
--- seconds between two plain lines when not redrawing. In a torch.distributed job only rank 0
--- draws (allRanks = true: every rank).
function ProgressBar:__init(opts)
  opts = opts or {}
  if type(opts) == 'number' then opts = { total = opts } end
  if opts.total ~= nil and (type(opts.total) ~= 'number' or opts.total < 0) then
    util.fail('ProgressBar', 'total must be a non-negative number, got %s', tostring(opts.total))
  end
  self.total, self.title, self.width = opts.total, opts.title, opts.width or 30
  self.output = opts.output or io.stdout
  if opts.tty == nil then self.tty = self.output == io.stdout and torch.isatty(io.stdout) or
    self.output == io.stderr and torch.isatty(io.stderr)
  else self.tty = opts.tty end
  self.interval = opts.interval or 5  -- seconds between two plain lines (not a terminal)
  self.timer = torch.Timer()
  self.count, self.last_draw, self.last_line, self.tenths = 0, -1, 0, 0
  local dist = torch.distributed
  self.silent = not opts.allRanks and dist ~= nil and dist.isInitialized() and dist.rank() ~= 0
end

local function clock(s)
  if s ~= s or s == math.huge then return '--:--' end
  s = math.floor(s + 0.5)
  local h, m = math.floor(s / 3600), math.floor(s / 60) % 60
  if h > 0 then return string.format('%d:%02d:%02d', h, m, s % 60) end
  return string.format('%d:%02d', m, s % 60)
end

local function rate_text(r)
  if r >= 100 then return string.format('%.0f', r) end
  if r >= 10 then return string.format('%.1f', r) end
  return string.format('%.2f', r)
end

local function format_value(v)
  if type(v) ~= 'number' then return tostring(v) end
  if v ~= 0 and (math.abs(v) >= 1e5 or math.abs(v) < 1e-3) then return string.format('%.3e', v) end
  return string.format('%.4f', v)
end

-- Running values in a stable order: a list of {name, value} pairs or a table (sorted by key).
local function info_text(info)
  if not info then return '' end
  local parts = {}
  if #info > 0 then
    for _, kv in ipairs(info) do parts[#parts + 1] = kv[1] .. ' ' .. format_value(kv[2]) end
  else
    local keys = {}
    for k in pairs(info) do keys[#keys + 1] = k end
    table.sort(keys)
    for _, k in ipairs(keys) do parts[#parts + 1] = k .. ' ' .. format_value(info[k]) end
  end
  return #parts > 0 and ('  ' .. table.concat(parts, '  ')) or ''
end

--- bar:line([info]): the text of the bar now (without a newline).
function ProgressBar:line(info, done)
  local elapsed = self.timer:time().real
  local rate = elapsed > 0 and self.count / elapsed or 0
  local head = self.title and (self.title .. ' ') or ''
  local text
  if self.total and self.total > 0 then
    local frac = math.min(self.count / self.total, 1)
    local fill = math.floor(frac * self.width + 0.5)
    local bar = string.rep('=', math.max(fill - 1, 0)) .. (fill > 0 and (frac >= 1 and '=' or '>') or '')
    local digits = #tostring(self.total)
    local eta = done and ('in ' .. clock(elapsed)) or ('ETA ' .. clock(rate > 0 and (self.total - self.count) / rate or 0 / 0))
    text = string.format('%s[%s%s] %' .. digits .. 'd/%d  %s/s  %s', head, bar, string.rep(' ', self.width - fill),
      self.count, self.total, rate_text(rate), eta)
  else
    text = string.format('%s%d  %s/s  %s', head, self.count, rate_text(rate), clock(elapsed))
  end
  return text .. info_text(info)
end

--- bar:update(count[, info]): count steps are done; info holds running values ({loss = 0.3}
--- or {{'loss', 0.3}, {'acc', 0.9}} to fix the order). Redraws at most 10 times a second on a
--- terminal; prints a line per 10% (or 30 s) otherwise.
function ProgressBar:update(count, info)
  self.count = count
  if self.silent then return end
  local now = self.timer:time().real
  if self.tty then
    if now - self.last_draw < 0.1 and not (self.total and count >= self.total) then return end
    self.last_draw = now
    self.output:write('\r' .. self:line(info) .. '\27[K')
    self.output:flush()
  else
    -- Whole tenths done; the last one is left to finish().
    local tenths = self.total and self.total > 0 and math.floor(10 * count / self.total) or 0
    if count < (self.total or math.huge) and ((tenths > self.tenths and now - self.last_line >= self.interval)
        or now - self.last_line >= 30) then
      self.tenths = tenths
      self.last_line = now
      self.output:write(self:line(info) .. '\n')
      self.output:flush()
    end
  end
end

--- bar:finish([info]): the final line (with the total time), ending with a newline.
function ProgressBar:finish(info)
  if self.silent then return end
  if self.tty then self.output:write('\r' .. self:line(info, true) .. '\27[K\n')
  else self.output:write(self:line(info, true) .. '\n') end
  self.output:flush()
end

--- data.progress(i, n[, info]): Torch7's xlua.progress: one bar per loop, created at i = 1 and
--- finished at i = n.
--- Example: for i = 1, 3 do data.progress(i, 3) end
function data.progress(i, n, info)
  if type(i) ~= 'number' or type(n) ~= 'number' or n < 1 then
    util.fail('progress', 'expected (i, n) with n >= 1, got (%s, %s)', tostring(i), tostring(n))
  end
  if i <= 1 or not data._bar or data._bar.total ~= n then data._bar = data.ProgressBar{ total = n } end
  data._bar:update(i, info)
  if i >= n then
    data._bar:finish(info)
    data._bar = nil
  end
end

return ProgressBar
