-- The profile object torch.profiler returns: its events, per-name averages, PyTorch-style table
-- and Chrome trace export. All times are microseconds; event starts count from start().
local ffi = require 'ffi'
local lib = require 'torch.lib'
local J = require 'torch.safetensors_json'

pcall(ffi.cdef, 'int getpid(void);')

local Profile = {}
Profile.__index = Profile

-- Wraps a finished session's events (closed, starts relative to the session start).
function Profile.new(events, wall, options)
  return setmetatable({ _events = events, _wall = wall, _options = options }, Profile)
end

local function shapes_str(shapes)
  if shapes == nil then return '' end
  if type(shapes) ~= 'table' then return tostring(shapes) end
  local parts = {}
  for i = 1, #shapes do parts[i] = shapes_str(shapes[i]) end
  return '[' .. table.concat(parts, ', ') .. ']'
end

local function check_opts(op, opts, allowed)
  if opts == nil then return {} end
  if type(opts) ~= 'table' then lib.fail(op, 'options must be a table, got %s', type(opts)) end
  for k, v in pairs(opts) do
    local want = allowed[k]
    if not want then
      local names = {}
      for n in pairs(allowed) do names[#names + 1] = n end
      table.sort(names)
      lib.fail(op, "unknown option '%s' (expected %s)", tostring(k), table.concat(names, ', '))
    end
    if type(v) ~= want then lib.fail(op, 'option %s must be a %s, got %s', k, want, type(v)) end
  end
  return opts
end

local SORT_KEYS = { selfTime = true, totalTime = true, count = true, name = true }
local function sorter(op, key)
  key = key or 'selfTime'
  if not SORT_KEYS[key] then
    lib.fail(op, "sortBy must be 'selfTime', 'totalTime', 'count' or 'name', got '%s'", tostring(key))
  end
  if key == 'name' then return function(a, b) return a.name < b.name end end
  return function(a, b)
    if a[key] ~= b[key] then return a[key] > b[key] end
    if a.name ~= b.name then return a.name < b.name end
    return (a.shapes or '') < (b.shapes or '')
  end
end

--- prof:events(): the recorded calls in start order, each {name, kind = 'op'|'module'|'user_annotation'
--- (torch.profiler.recordFunction), start,
--- totalTime, selfTime, depth (0: called from outside any profiled function), parent (index of
--- the enclosing event or nil), shapes (with recordShapes), error (true when the call raised)}.
--- Example: local p = torch.profiler.profile(function() torch.ones(2):add(1) end); return #p:events()
function Profile:events()
  local r = {}
  for i, ev in ipairs(self._events) do r[i] = ev end
  return r
end

--- prof:totalTime(): microseconds from start to stop of the profiled region (wall clock).
--- Example: local p = torch.profiler.profile(function() torch.ones(2):add(1) end); return p:totalTime()
function Profile:totalTime() return self._wall end

--- prof:keyAverages([{groupByShape = false, sortBy = 'selfTime'}]): one row per event name (and
--- per input shapes when groupByShape): {name, kind, count, selfTime, totalTime, mean (total per
--- call), selfMean, shapes (a string, when grouped)}, sorted by sortBy (largest first; 'name':
--- alphabetical).
--- Example: local p = torch.profiler.profile(function() torch.ones(2):add(1) end); return p:keyAverages()[1].name
function Profile:keyAverages(opts)
  local op = 'profiler.keyAverages'
  opts = check_opts(op, opts, { groupByShape = 'boolean', sortBy = 'string' })
  local by_shape = opts.groupByShape
  if by_shape and not self._options.recordShapes then
    lib.fail(op, 'groupByShape needs a profile recorded with {recordShapes = true}')
  end
  local rows, index = {}, {}
  for _, ev in ipairs(self._events) do
    local shapes = by_shape and shapes_str(ev.shapes) or nil
    local key = shapes and (ev.name .. '\0' .. shapes) or ev.name
    local row = index[key]
    if not row then
      row = { name = ev.name, kind = ev.kind, count = 0, selfTime = 0, totalTime = 0, shapes = shapes }
      index[key] = row
      rows[#rows + 1] = row
    end
    row.count = row.count + 1
    row.selfTime = row.selfTime + ev.selfTime
    row.totalTime = row.totalTime + ev.totalTime
  end
  for _, row in ipairs(rows) do
    row.mean = row.totalTime / row.count
    row.selfMean = row.selfTime / row.count
  end
  table.sort(rows, sorter(op, opts.sortBy))
  return rows
end

-- 12.345us, 1.234ms or 1.234s, as PyTorch's table writes times.
local function fmt_time(us)
  if us < 1e3 then return string.format('%.3fus', us) end
  if us < 1e6 then return string.format('%.3fms', us / 1e3) end
  return string.format('%.3fs', us / 1e6)
end

--- prof:table([{sortBy = 'selfTime', rowLimit = 20, groupByShape = false}]): PyTorch's
--- key_averages().table(): one row per name with self %, self total, total, mean and calls (and
--- input shapes when grouped), then the self time total and the wall time.
--- Example: local p = torch.profiler.profile(function() torch.ones(2):add(1) end); print(p:table({sortBy = 'count'}))
function Profile:table(opts)
  local op = 'profiler.table'
  opts = check_opts(op, opts, { sortBy = 'string', rowLimit = 'number', groupByShape = 'boolean' })
  local limit = opts.rowLimit or 20
  if limit < 1 or limit ~= math.floor(limit) then lib.fail(op, 'rowLimit must be a positive integer, got %s', tostring(limit)) end
  local ok, rows = pcall(self.keyAverages, self, { groupByShape = opts.groupByShape or false, sortBy = opts.sortBy })
  if not ok then error((rows:gsub('%[profiler%.keyAverages%]', '[' .. op .. ']')), 0) end
  local self_total = 0
  for _, r in ipairs(rows) do self_total = self_total + r.selfTime end
  local header = { 'Name', 'Self %', 'Self total', 'Total', 'Mean', 'Calls' }
  if opts.groupByShape then header[#header + 1] = 'Input shapes' end
  local lines = {}
  for i = 1, math.min(limit, #rows) do
    local r = rows[i]
    local pct = self_total > 0 and 100 * r.selfTime / self_total or 0
    local cells = { r.name, string.format('%.2f%%', pct), fmt_time(r.selfTime), fmt_time(r.totalTime),
                    fmt_time(r.mean), tostring(r.count) }
    if opts.groupByShape then cells[#cells + 1] = r.shapes end
    lines[#lines + 1] = cells
  end
  local widths = {}
  for c = 1, #header do
    local w = #header[c]
    for _, cells in ipairs(lines) do w = math.max(w, #cells[c]) end
    widths[c] = w
  end
  local function row(cells)
    local out = {}
    for c = 1, #cells do
      -- names and shapes left-aligned, numbers right-aligned
      local left = c == 1 or c == 7
      out[c] = string.format('%' .. (left and '-' or '') .. widths[c] .. 's', cells[c])
    end
    return (table.concat(out, '  '):gsub('%s+$', ''))
  end
  local seps = {}
  for c = 1, #header do seps[c] = string.rep('-', widths[c]) end
  local sep = table.concat(seps, '  ')
  local out = { sep, row(header), sep }
  for _, cells in ipairs(lines) do out[#out + 1] = row(cells) end
  out[#out + 1] = sep
  out[#out + 1] = string.format('Self time total: %s (wall time %s, %d events)', fmt_time(self_total),
                                fmt_time(self._wall), #self._events)
  return table.concat(out, '\n')
end

function Profile:__tostring() return self:table() end

local function json_shapes(shapes)
  if type(shapes) ~= 'table' then return tostring(shapes) end
  local parts = {}
  for i = 1, #shapes do parts[i] = json_shapes(shapes[i]) end
  return '[' .. table.concat(parts, ',') .. ']'
end

--- prof:exportChromeTrace(path): writes the events as a Chrome trace (JSON "traceEvents" of
--- complete events, ph = "X", ts and dur in microseconds, cat = 'op', 'module' or 'user_annotation') for
--- chrome://tracing or ui.perfetto.dev; returns path.
--- Example: local p, f = torch.profiler.profile(function() torch.ones(2):add(1) end), os.tmpname(); p:exportChromeTrace(f); os.remove(f)
function Profile:exportChromeTrace(path)
  local op = 'profiler.exportChromeTrace'
  if type(path) ~= 'string' then lib.fail(op, 'expected a file path (string), got %s', type(path)) end
  local pid = 1
  pcall(function() pid = tonumber(ffi.C.getpid()) end)
  local out = {}
  for i, ev in ipairs(self._events) do
    local args = string.format('"depth":%d', ev.depth)
    if ev.shapes then args = args .. ',"Input Dims":' .. json_shapes(ev.shapes) end
    if ev.error then args = args .. ',"error":true' end
    out[i] = string.format('{"name":%s,"cat":"%s","ph":"X","ts":%.3f,"dur":%.3f,"pid":%d,"tid":1,"args":{%s}}',
                           J.quote(ev.name), ev.kind, ev.start, ev.totalTime, pid, args)
  end
  local f, err = io.open(path, 'w')
  if not f then lib.fail(op, 'cannot open %s for writing: %s', path, tostring(err)) end
  f:write('{"traceEvents":[\n', table.concat(out, ',\n'), '\n],"displayTimeUnit":"ms"}\n')
  f:close()
  return path
end

return Profile
