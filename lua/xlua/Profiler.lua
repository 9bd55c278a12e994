-- Torch7's xlua.Profiler: named stopwatches of wall-clock and CPU time
-- (p:start('load') ... p:lap('load'); p:printAll()).
return function(xlua, sys)
  local Profiler = {}

  --- xlua.Profiler([mode][, verbose]): a profiler; mode 'off' silences its printing, verbose
  --- prints each event as it starts and laps.
  --- Example: local p = xlua.Profiler(); p:start('step'); p:lap('step')
  function xlua.Profiler(mode, verbose)
    local self = { events = {}, list = {}, off = mode == 'off', verbose = verbose or false }
    for k, v in pairs(Profiler) do self[k] = v end
    return self
  end

  local function event(self, name, method)
    local e = self.events[name]
    if not e then error(string.format('xlua.Profiler:%s: no event %s (start it first)', method, tostring(name)), 3) end
    return e
  end

  --- p:start(name[, 'fps']): (re)starts the stopwatch name; 'fps' makes reports show its rate.
  --- Example: xlua.Profiler():start('load')
  function Profiler:start(name, fps)
    local e = self.events[name]
    if e then
      e.cpu, e.real = os.clock(), sys.clock()
    else
      e = { cpu = os.clock(), real = sys.clock(), name = name }
      self.events[name] = e
      self.list[#self.list + 1] = e
    end
    if fps == 'fps' then e.fps = true end
    if self.verbose then io.write('<' .. name .. '>') io.flush() end
  end

  --- p:setColor(name, color): the colour of an event (Torch7 used it when drawing on Qt).
  --- Example: local p = xlua.Profiler(); p:start('a'); p:setColor('a', 'red')
  function Profiler:setColor(name, color) event(self, name, 'setColor').color = color end

  --- p:cpu(name[, divider]): the CPU seconds since start(name) (divided by divider).
  --- Example: local p = xlua.Profiler(); p:start('a'); return p:cpu('a')
  function Profiler:cpu(name, divider)
    local e = event(self, name, 'cpu')
    local d = os.clock() - e.cpu
    if divider then d = d / divider end
    e.cpud = d
    return d
  end

  --- p:real(name[, divider]): the wall-clock seconds since start(name) (divided by divider).
  --- Example: local p = xlua.Profiler(); p:start('a'); return p:real('a')
  function Profiler:real(name, divider)
    local e = event(self, name, 'real')
    local d = sys.clock() - e.real
    if divider then d = d / divider end
    e.reald = d
    return d
  end

  --- p:lap(name[, divider]): records and returns the real and CPU seconds since start(name).
  --- Example: local p = xlua.Profiler(); p:start('a'); return p:lap('a')
  function Profiler:lap(name, divider)
    local r = self:real(name, divider)
    local c = self:cpu(name, divider)
    if self.verbose then io.write('\r') self:print(name) end
    return r, c
  end

  local function line(e)
    local s = string.format('$ real %f | cpu %f <%s>', e.reald or -1, e.cpud or -1, e.name)
    if e.fps then s = s .. string.format(' = %f fps', 1 / e.reald) end
    return s
  end

  --- p:format(name): the last lap of name as text.
  --- Example: local p = xlua.Profiler(); p:start('a'); p:lap('a'); return p:format('a')
  function Profiler:format(name)
    local e = event(self, name, 'format')
    return string.format('$ real | cpu: %f | %f <%s>', e.reald or -1, e.cpud or -1, name)
  end

  --- p:print(name): prints p:format(name) (unless the profiler is off).
  --- Example: local p = xlua.Profiler(); p:start('a'); p:lap('a'); p:print('a')
  function Profiler:print(name)
    if not self.off then print(self:format(name)) end
  end

  --- p:formatAll(): a report of every event's last lap, in start order.
  --- Example: local p = xlua.Profiler(); p:start('a'); p:lap('a'); return p:formatAll()
  function Profiler:formatAll()
    local s = '$ profiler report:'
    for _, e in ipairs(self.list) do s = s .. '\n' .. line(e) end
    return s
  end

  --- p:printAll(): prints p:formatAll() (unless the profiler is off).
  --- Example: local p = xlua.Profiler(); p:start('a'); p:lap('a'); p:printAll()
  function Profiler:printAll()
    if not self.off then print(self:formatAll()) end
  end

  --- p:displayAll(): Torch7 drew the report on a Qt painter; Tocha has no Qt (an error saying so).
  --- Example: local p = xlua.Profiler(); pcall(p.displayAll, p, {})
  function Profiler:displayAll()
    error('xlua.Profiler:displayAll draws on a Qt painter, and Tocha has no Qt: use p:printAll() or p:formatAll()', 2)
  end
end
