-- gnuplot.raw without a gnuplot process: the `set`/`unset` commands Torch7 scripts send most
-- (title, axis labels, ranges, log scale, grid, key, tick labels, size, terminal, output) applied
-- to the figure's settings; cosmetic ones ignored with a note; anything else is an error.
local raw = {}

local WHO = 'gnuplot.raw'
local function fail(msg, ...) error(string.format('[' .. WHO .. '] ' .. msg, ...), 0) end

-- Note [gnuplot.raw]: Torch7 piped the string to gnuplot. Tocha has no gnuplot process, so the
-- commands that set what Tocha draws are read here and the rest is refused with an error naming
-- the command (a `plot 'file' using 1:2` cannot be drawn without gnuplot), except settings that
-- only change the looks (fonts, line styles, borders, tic formats): those are ignored, with a note
-- on stderr once per setting, so that scripts that polish their plots still run.
local COSMETIC = {
  style = true, border = true, pointsize = true, samples = true, format = true, tics = true, mxtics = true,
  mytics = true, macro = true, palette = true, colorbox = true, cbrange = true, view = true, hidden3d = true,
  contour = true, cntrparam = true, boxwidth = true, offsets = true, lmargin = true, rmargin = true,
  tmargin = true, bmargin = true, origin = true, datafile = true, encoding = true, zeroaxis = true,
  xzeroaxis = true, yzeroaxis = true, pm3d = true, zrange = true, ztics = true, cbtics = true, label = true,
  arrow = true, object = true, decimalsign = true, bars = true, clip = true, mouse = true,
}
local noted = {}

-- The words of a command: quoted strings (unquoted), [..] and (..) groups, other words.
local function tokens(s)
  local out, i, n = {}, 1, #s
  while i <= n do
    local ch = s:sub(i, i)
    if ch:match('%s') then
      i = i + 1
    elseif ch == '"' or ch == "'" then
      local j = s:find(ch, i + 1, true)
      if not j then fail("unterminated string in '%s'", s) end
      out[#out + 1] = { str = s:sub(i + 1, j - 1) }
      i = j + 1
    elseif ch == '[' or ch == '(' then
      local close = ch == '[' and ']' or ')'
      local j = s:find(close, i + 1, true)
      if not j then fail("missing '%s' in '%s'", close, s) end
      out[#out + 1] = { group = ch, text = s:sub(i + 1, j - 1) }
      i = j + 1
    else
      local j = s:find('[%s"\'%[%(]', i) or n + 1
      out[#out + 1] = { word = s:sub(i, j - 1) }
      i = j
    end
  end
  return out
end

local function bound(v, text)
  v = v:match('^%s*(.-)%s*$')
  if v == '' or v == '*' then return nil end
  local x = tonumber(v)
  if not x or x ~= x or x == math.huge or x == -math.huge then fail("'%s': %s is not a number", text, v) end
  return x
end

-- A range [a:b] (either end '*' or empty: autoscaled).
local function range(tok, text)
  if not tok or tok.group ~= '[' then fail("'%s': expected a range such as [0:10]", text) end
  local a, b = tok.text:match('^([^:]*):([^:]*)$')
  if not a then fail("'%s': expected a range such as [0:10]", text) end
  a, b = bound(a, text), bound(b, text)
  if a and b and not (a < b) then fail("'%s': the range must run from low to high", text) end
  return { a, b }
end

-- Custom tick labels ("label" value, ...).
local function tics(tok, text)
  local list = {}
  for item in (tok.text .. ','):gmatch('([^,]*),') do
    local label, v = item:match('^%s*["\'](.-)["\']%s+(%S+)%s*$')
    local x = tonumber(v or item)
    if not x then fail("'%s': cannot read the tick '%s'", text, item) end
    list[#list + 1] = { x, label or string.format('%g', x) }
  end
  return list
end

local function words_after(t, k)
  local w = {}
  for i = k, #t do if t[i].word then w[#w + 1] = t[i].word end end
  return w
end

-- Applies one `set`/`unset` command to fig.
local function apply(fig, text)
  local t = tokens(text)
  if #t == 0 then return end
  local verb = t[1].word
  local what = t[2] and t[2].word
  local set = verb == 'set' or verb == 'se'
  if not (set or verb == 'unset') or not what then
    fail("'%s': Tocha draws without a gnuplot process and reads only set/unset commands (title, xlabel, ylabel, "
      .. 'zlabel, xrange, yrange, logscale, grid, key, xtics, ytics, size, terminal, output); plot data with '
      .. 'gnuplot.plot', text)
  end
  local arg = t[3]
  if what == 'title' or what == 'xlabel' or what == 'ylabel' or what == 'zlabel' then
    fig[what] = set and arg and (arg.str or arg.word) or nil
  elseif what == 'xrange' or what == 'yrange' then
    fig.range[what:sub(1, 1)] = set and range(arg, text) or {}
  elseif what == 'autoscale' then
    local ax = arg and arg.word
    if not ax or ax:find('x') then fig.range.x = {} end
    if not ax or ax:find('y') then fig.range.y = {} end
  elseif what == 'logscale' or what == 'log' then
    local ax = arg and arg.word and not tonumber(arg.word) and arg.word or 'xy'
    if ax:find('x') then fig.log.x = set end
    if ax:find('y') then fig.log.y = set end
  elseif what == 'grid' then
    fig.grid = set
  elseif what == 'key' then
    fig.key.show = set
    for _, w in ipairs(words_after(t, 3)) do
      if w == 'left' or w == 'right' or w == 'center' then fig.key.h = w
      elseif w == 'top' or w == 'bottom' then fig.key.v = w
      elseif w == 'box' then fig.key.box = true
      elseif w == 'nobox' then fig.key.box = false
      elseif w == 'off' then fig.key.show = false
      elseif w == 'on' then fig.key.show = true end
    end
  elseif what == 'xtics' or what == 'ytics' then
    local ax = what:sub(1, 1)
    if not set then fig.tics[ax] = {}
    elseif arg and arg.group == '(' then fig.tics[ax] = tics(arg, text)
    else fig.tics[ax] = nil end
  elseif what == 'size' then
    local w = words_after(t, 3)
    if w[1] == 'square' or (w[1] == 'ratio' and tonumber(w[2]) == -1) then fig.ratio = 'equal'
    elseif w[1] == 'nosquare' or w[1] == 'noratio' or not set then fig.ratio = nil end
  elseif what == 'term' or what == 'terminal' then
    local name = arg and arg.word
    if name == 'png' or name == 'pngcairo' then fig.term = fig.path and 'png' or fig.term
    elseif name == 'svg' then fig.term = fig.path and 'svg' or fig.term
    elseif set and name then fail("'%s': Tocha writes PNG and SVG files only", text) end
    local size = text:match('size%s+([%d.]+%s*,%s*[%d.]+)')
    if size then
      local w, h = size:match('([%d.]+)%s*,%s*([%d.]+)')
      w, h = math.floor(tonumber(w)), math.floor(tonumber(h))
      if w < 100 or h < 100 or w > 10000 or h > 10000 then fail("'%s': sizes run from 100 to 10000 pixels", text) end
      fig.width, fig.height = w, h
    end
  elseif what == 'output' or what == 'out' then
    if set then
      local path = arg and (arg.str or arg.word)
      if not path then fail("'%s': expected a file name", text) end
      fig.path = path
      fig.term = fig.term or (path:lower():match('%.svg$') and 'svg' or 'png')
    end
  elseif COSMETIC[what] then
    if not noted[what] then
      noted[what] = true
      io.stderr:write(string.format("[gnuplot.raw] '%s %s' changes only the looks: ignored (no gnuplot process)\n",
        verb, what))
    end
  else
    fail("'%s': '%s %s' is not a setting Tocha's renderer knows", text, verb, what)
  end
end

--- raw.run(fig, cmd): applies the commands of cmd (one per line or `;`) to fig (Note [gnuplot.raw]).
function raw.run(fig, cmd)
  if type(cmd) ~= 'string' then fail('expected a gnuplot command string, got %s', type(cmd)) end
  for line in (cmd .. '\n'):gmatch('([^\n]*)\n') do
    -- split at ; outside quotes
    local part, q = {}, nil
    for ch in line:gmatch('.') do
      if q then
        if ch == q then q = nil end
        part[#part + 1] = ch
      elseif ch == '"' or ch == "'" then
        q = ch
        part[#part + 1] = ch
      elseif ch == ';' then
        apply(fig, table.concat(part))
        part = {}
      elseif ch == '#' then
        break
      else
        part[#part + 1] = ch
      end
    end
    apply(fig, table.concat(part))
  end
end

return raw
