-- optim.Logger: logs named values to a tab-separated text file (Torch7's format) and plots
-- their curves to an image file: through the `plot` module when present, else the built-in
-- SVG writer (optim/svg.lua); gnuplot is not needed.
local lib = require 'torch.lib'
local svg = require 'optim.svg'

local Logger = torch.class('optim.Logger')
local NAME = 'optim.Logger'

local function shell_quote(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

--- optim.Logger([filename[, timestamp]]): a logger writing to filename (its directory is
--- created; timestamp appends the date to the name), or to stdout. logger.plotFile is where
--- plot() draws (filename .. '.svg'; a '.png' path needs the plot module).
function Logger:__init(filename, timestamp)
  if filename ~= nil then
    if type(filename) ~= 'string' or filename == '' then lib.fail(NAME, 'filename must be a string, got %s', type(filename)) end
    self.name = filename
    local dir = filename:match('^(.*)/[^/]*$')
    if dir and dir ~= '' then os.execute('mkdir -p ' .. shell_quote(dir)) end
    if timestamp then filename = filename .. '-' .. os.date('%Y_%m_%d_%X') end
    local f, err = io.open(filename, 'w')
    if not f then lib.fail(NAME, 'cannot open %s: %s', filename, tostring(err)) end
    self.file = f
    self.plotFile = self.name .. '.svg'
  else
    self.file = io.stdout
    self.name = 'stdout'
    print('<Logger> warning: no path provided, logging to std out')
  end
  self.empty = true
  self.symbols = {}
  self.styles = {}
  self.names = {}
  self.idx = {}
  self.order = {}  -- column keys in file order
  self.entries = {}  -- per column: the row number of each value in symbols (plot's x)
  self.nrows = 0
  self.showPlot = true
  self.defaultStyle = '+'
  self.logscale = false
end

-- Column keys of a table in a stable order: its list part, then other keys sorted by name
-- (Torch7 wrote pairs() order, which differs between runs).
local function ordered_keys(t)
  local keys, seen = {}, {}
  for i = 1, #t do keys[#keys + 1] = i seen[i] = true end
  local rest = {}
  for k in pairs(t) do if not seen[k] then rest[#rest + 1] = k end end
  table.sort(rest, function(a, b) return tostring(a) < tostring(b) end)
  for _, k in ipairs(rest) do keys[#keys + 1] = k end
  return keys
end

-- Note [One row a line]: a tab, newline or carriage return inside a logged string or a column
-- name split its cell or its row (Torch7 wrote them as they were), so every reader of the file
-- saw shifted columns; they are written as spaces.
local function cell(s) return (s:gsub('[\t\r\n]', ' ')) end

local function add_column(self, key, name)
  self.order[#self.order + 1] = key
  self.symbols[key] = {}
  self.entries[key] = {}
  self.styles[key] = { self.defaultStyle }
  self.names[key] = name
  self.idx[name] = key
  self.file:write(cell(tostring(name)) .. '\t')
end

--- logger:setNames{name1, name2, ...}: declares the columns and writes the header row; add()
--- then takes values in this order (or by name).
function Logger:setNames(names)
  if type(names) ~= 'table' or #names == 0 then lib.fail(NAME, 'setNames expects a list of column names') end
  if not self.empty then lib.fail(NAME, 'setNames must come before the first add') end
  -- two columns of one name: add{name = v} filled the last, plot() drew the first
  local seen = {}
  for k, name in ipairs(names) do
    if seen[name] then lib.fail(NAME, 'setNames: columns %d and %d are both named %s', seen[name], k, tostring(name)) end
    seen[name] = k
  end
  self.empty = false
  self.nsymbols = #names
  for k, name in ipairs(names) do add_column(self, k, name) end
  self.file:write('\n')
  self.file:flush()
  return self
end

-- The column key of a key given to add/style/plot: the key itself, or the column of that name.
local function resolve(self, k)
  if self.symbols[k] then return k end
  if self.idx[k] ~= nil then return self.idx[k] end
  local names = {}
  for _, key in ipairs(self.order) do names[#names + 1] = tostring(self.names[key]) end
  lib.fail(NAME, '%s is not a column (columns: %s)', tostring(k), table.concat(names, ', '))
end

--- logger:add{values}: appends one row: numbers (written as %11.4e) or strings, keyed like the
--- columns (by position after setNames, or by name); the first add without setNames makes the
--- header from its keys.
function Logger:add(symbols)
  if type(symbols) ~= 'table' then lib.fail(NAME, 'add expects a table of values, got %s', type(symbols)) end
  -- values are checked before anything is written: a refused first row left its header behind
  for k, v in pairs(symbols) do
    if type(v) ~= 'number' and type(v) ~= 'string' then
      lib.fail(NAME, 'can only log numbers and strings, got %s for %s', type(v), tostring(k))
    end
  end
  if self.empty then
    self.empty = false
    self.nsymbols = #symbols
    for _, k in ipairs(ordered_keys(symbols)) do add_column(self, k, k) end
    self.file:write('\n')
  end
  local row, given = {}, {}
  for k, v in pairs(symbols) do
    local key = resolve(self, k)
    if given[key] ~= nil then
      -- add{0.1, train = 0.2} kept whichever value pairs() met last
      local a, b = given[key], k
      if type(a) ~= 'number' and type(b) == 'number' or (type(a) == type(b) and tostring(b) < tostring(a)) then a, b = b, a end
      local function show(x) return type(x) == 'number' and tostring(x) or "'" .. tostring(x) .. "'" end
      lib.fail(NAME, 'column %s is given twice (as %s and as %s)', tostring(self.names[key]), show(a), show(b))
    end
    given[key], row[key] = k, v
  end
  self.nrows = self.nrows + 1
  for _, key in ipairs(self.order) do
    local v = row[key]
    if type(v) == 'number' then self.file:write(string.format('%11.4e', v) .. '\t')
    elseif v ~= nil then self.file:write(cell(v) .. '\t')
    else self.file:write('\t') end
    if v ~= nil then
      table.insert(self.symbols[key], v)
      table.insert(self.entries[key], self.nrows)
    end
  end
  self.file:write('\n')
  self.file:flush()
end

--- logger:style{name = '-' | '+' | '.' | '+-' | {styles...}}: how plot() draws each column
--- ('-' lines, '+' crosses, '.' dots; default '+').
function Logger:style(symbols)
  if type(symbols) ~= 'table' then lib.fail(NAME, 'style expects a table, got %s', type(symbols)) end
  for name, style in pairs(symbols) do
    local key = resolve(self, name)
    if type(style) == 'string' then self.styles[key] = { style }
    elseif type(style) == 'table' then self.styles[key] = style
    else lib.fail(NAME, 'style should be a string or a table of strings, got %s', type(style)) end
  end
  return self
end

--- logger:setlogscale(bool): plot the y axis in log scale.
function Logger:setlogscale(value) self.logscale = value end

--- logger:display(bool): whether plot() draws at all (Torch7 used it for the gnuplot window).
function Logger:display(value) self.showPlot = value end

-- Runs a drawing function; its errors (an unwritable plotFile) are the Logger's.
local function draw(path, f, ...)
  local ok, err = pcall(f, ...)
  if not ok then
    local msg = tostring(err):gsub('^%[[^%]]*%] ', ''):gsub('^optim%.svg: ', '')
    if msg:sub(1, #path + 2) == path .. ': ' then msg = msg:sub(#path + 3) end
    lib.fail(NAME, 'plot cannot draw %s: %s', path, msg)
  end
end

--- logger:plot([name...]): draws the columns (all, or the given names) with at least two
--- numbers into logger.plotFile (PNG or SVG by extension), each value at its row's entry, and
--- returns its path, or nil when there is nothing to draw. Uses the `plot` module when it loads
--- (unless logger.usePlotModule is false), else writes SVG itself.
function Logger:plot(...)
  if not self.showPlot then return nil end
  local keys = {}
  local args = { ... }
  if #args == 0 then keys = self.order else for i, name in ipairs(args) do keys[i] = resolve(self, name) end end
  local series = {}
  for _, key in ipairs(keys) do
    -- Note [Values at their entries]: x is the row each value was logged in: numbering a column's
    -- values 1, 2, 3 put a column logged every other row (or with strings or missing cells)
    -- beside the wrong entries of the others. symbols keeps Torch7's plain lists of values.
    local values, xs = {}, {}
    local rows = self.entries[key]
    for i, v in ipairs(self.symbols[key]) do
      if type(v) == 'number' then values[#values + 1], xs[#xs + 1] = v, rows and rows[i] or i end
    end
    if #values > 1 then
      for _, style in ipairs(self.styles[key]) do
        series[#series + 1] = { name = tostring(self.names[key]), x = xs, y = values, style = style }
      end
    end
  end
  if #series == 0 then return nil end
  local path = self.plotFile
  if not path then
    if not self.warned then print('<Logger> warning: logging to stdout, set logger.plotFile to plot') self.warned = true end
    return nil
  end
  local title = '<Logger::' .. self.name .. '>'
  local ok, plot = false, nil
  if self.usePlotModule ~= false then ok, plot = pcall(require, 'plot') end
  if ok and type(plot) == 'table' and type(plot.lines) == 'function' then
    -- Only the documented keys of plot.lines: a log scale is drawn as log10 of the values.
    local curves, seen = {}, {}
    for _, s in ipairs(series) do
      if not seen[s.name] then
        seen[s.name] = true
        local xs, ys = {}, {}
        for i, y in ipairs(s.y) do
          if not self.logscale or y > 0 then
            xs[#xs + 1], ys[#ys + 1] = s.x[i], self.logscale and math.log10(y) or y
          end
        end
        curves[#curves + 1] = { name = s.name, x = xs, y = ys }
      end
    end
    draw(path, plot.lines, { path = path, title = title, xlabel = 'entry',
      ylabel = self.logscale and 'log10(value)' or 'value', series = curves })
  else
    if not path:lower():match('%.svg$') then
      lib.fail(NAME, 'cannot write %s: without the plot module only .svg files can be drawn', path)
    end
    draw(path, svg.lines, path, { title = title, xlabel = 'entry', ylabel = 'value', series = series,
      logscale = self.logscale })
  end
  return path
end
