-- The arguments of gnuplot.plot, gnuplot.imagesc and gnuplot.splot as Torch7 read them
-- ([legend,] x [, y] [, format]; lists of such series; a matrix [, palette]), checked, with the
-- data copied into contiguous DoubleTensors (the plot keeps a snapshot, as gnuplot received one).
local torch = require 'torch'
local args = {}

local function fail(who, msg, ...) error(string.format('[' .. who .. '] ' .. msg, ...), 0) end

--- args.isNumbers(v): v is a non-empty Lua list of numbers (accepted where Torch7 took a 1D tensor).
function args.isNumbers(v)
  if type(v) ~= 'table' or getmetatable(v) ~= nil or type(v[1]) ~= 'number' then return false end
  for i = 2, #v do if type(v[i]) ~= 'number' then return false end end
  return true
end

local function describe(v)
  if torch.isTensor(v) then return torch.typename(v) .. ' of size ' .. table.concat(v:size():totable(), 'x') end
  return type(v) == 'string' and ("'" .. v .. "'") or type(v)
end
args.describe = describe

--- args.tensor(v, who, what): v (a tensor of any type or device, or a list of numbers) as a new
--- contiguous DoubleTensor; errors name who.
function args.tensor(v, who, what)
  if args.isNumbers(v) then return torch.DoubleTensor(v) end
  if not torch.isTensor(v) then fail(who, '%s must be a tensor, got %s', what, describe(v)) end
  if v:nElement() == 0 then fail(who, '%s is empty', what) end
  local d = torch.DoubleTensor(v:size())
  d:copy(v:cpu():double())  -- a GPU tensor comes to the host first
  return d
end

local function is_data(v) return torch.isTensor(v) or args.isNumbers(v) end

local USAGE = 'expecting [string,] tensor [,tensor] [,string]'

-- Note [Plot formats]: Torch7 turned the format into a gnuplot `with` clause: '.', '+', '-',
-- '+-', '|', '~', 'v' or their gnuplot names, and any other string was passed on as
-- `with <string>`. Tocha reads the style word of such strings (lines, points, linespoints, dots,
-- boxes, impulses, vectors, with an optional leading `with`); modifiers after it (lw 2, ls 1,
-- lc rgb ...) are ignored. Styles with no renderer here (filledcurves, errorbars...) and
-- smoothing splines ('~ COEF', acsplines) are errors, not a different picture.
local STYLES = {
  [''] = 'default', ['.'] = 'dots', dots = 'dots', d = 'dots', ['+'] = 'points', points = 'points',
  p = 'points', ['-'] = 'lines', lines = 'lines', l = 'lines', ['+-'] = 'linespoints',
  linespoints = 'linespoints', lp = 'linespoints', ['|'] = 'boxes', boxes = 'boxes',
  ['~'] = 'csplines', csplines = 'csplines', v = 'vectors', V = 'vectors', vectors = 'vectors',
  impulses = 'impulses', i = 'impulses',
}

--- args.style(format, who): the drawing style a Torch7 format string names (Note [Plot formats]).
function args.style(f, who)
  local s = STYLES[f]
  if s then return s end
  local word = f:gsub('^%s*with%s+', ''):match('^%s*(%S+)') or ''
  if f:match('^%s*smooth%s+csplines') then return 'csplines' end
  s = STYLES[word]
  if s and #word > 1 then return s end
  if f:find('~', 1, true) or f:find('acsplines', 1, true) then
    fail(who, "format '%s': smoothing splines (acsplines) are not drawn by Tocha; use '~' (cubic splines "
      .. "through the points) or '-'", f)
  end
  fail(who, "format '%s' is not a style Tocha draws: use '.', '+', '-', '+-', '|', '~', 'v' or one of "
    .. 'lines, points, linespoints, dots, boxes, impulses, vectors', f)
end

-- One series spec ({[legend,] x [, y] [, format]}) as a list of series (a multi-column y gives
-- one series per column).
local function series_of(t, who, index)
  local what = index and ('series ' .. index) or 'the data'
  local n = t.n or #t
  if n == 0 then fail(who, 'empty argument list: %s', USAGE) end
  local legend, x, y, format
  local k = 1
  if type(t[k]) == 'string' then legend = t[k] k = k + 1 end
  if is_data(t[k]) then x = t[k] k = k + 1 end
  if x and is_data(t[k]) then y = t[k] k = k + 1 end
  if type(t[k]) == 'string' then format = t[k] k = k + 1 end
  if not x or k <= n then
    fail(who, '%s: %s, got %s at position %d', what, USAGE, describe(t[k]), k)
  end
  format = format or ''
  local style = args.style(format, who)
  x = args.tensor(x, who, what .. "'s x")
  if y then y = args.tensor(y, who, what .. "'s y") end
  local dx, dy
  if not y then
    if x:dim() == 2 and x:size(2) == 4 and style == 'vectors' then
      y, dy = x:select(2, 2):clone(), x:select(2, 4):clone()
      dx, x = x:select(2, 3):clone(), x:select(2, 1):clone()
    elseif x:dim() == 2 and x:size(2) >= 2 then
      y = x:narrow(2, 2, x:size(2) - 1):clone()
      x = x:select(2, 1):clone()
    elseif x:dim() == 2 and x:size(2) == 1 or x:dim() == 1 then
      y = x:view(-1):clone()
      x = torch.range(1, y:size(1)):double()
    end
  elseif style == 'vectors' then
    if x:dim() ~= 2 or x:size(2) ~= 2 or y:dim() ~= 2 or y:size(2) ~= 2 then
      fail(who, "%s: format 'v' takes x and y as n x 2 tensors (x, dx) and (y, dy), got %s and %s", what,
        describe(x), describe(y))
    end
    dx, x = x:select(2, 2):clone(), x:select(2, 1):clone()
    dy, y = y:select(2, 2):clone(), y:select(2, 1):clone()
  end
  if x:dim() ~= 1 or y:dim() > 2 then
    fail(who, '%s: x must be 1D and y 1D or 2D (one series per column), got x %s and y %s', what,
      describe(x), describe(y))
  end
  if y:size(1) ~= x:size(1) then
    fail(who, '%s: x has %d values and y has %d', what, x:size(1), y:size(1))
  end
  local out = {}
  local cols = y:dim() == 2 and y:size(2) or 1
  for c = 1, cols do
    local yc = y:dim() == 2 and y:select(2, c):clone() or y
    local name = legend or ''
    if cols > 1 and name ~= '' then name = name .. ' ' .. c end
    out[#out + 1] = { name = name, x = x, y = yc, dx = dx, dy = dy, style = style }
  end
  return out
end

--- args.plot(who, ...): the series of a gnuplot.plot call: ([legend,] x [, y] [, format]), or
--- such tables, as arguments or in one list.
function args.plot(who, ...)
  local a = { ... }
  local n = select('#', ...)
  if n == 0 then fail(who, 'no inputs, expecting at least a vector') end
  local specs
  if type(a[1]) == 'table' and not args.isNumbers(a[1]) then
    specs = a
    if type(a[1][1]) == 'table' and not args.isNumbers(a[1][1]) then specs = a[1] end
    for i = 1, n do
      if specs == a and type(a[i]) ~= 'table' then
        fail(who, 'series %d: expecting a table {[string,] tensor [,tensor] [,string]}, got %s', i, describe(a[i]))
      end
    end
  else
    specs = { a }
    specs[1].n = n
  end
  local series = {}
  for i, spec in ipairs(specs) do
    if spec ~= a and args.isNumbers(spec) then spec = { spec } end  -- {{1, 2, 3}}: a list as y
    for _, s in ipairs(series_of(spec, who, #specs > 1 and i or nil)) do series[#series + 1] = s end
  end
  return series
end

--- args.matrix(v, who, what): v as a 2D DoubleTensor (a tensor, or a list of rows of numbers).
function args.matrix(v, who, what)
  if type(v) == 'table' and not torch.isTensor(v) and args.isNumbers(v[1]) then
    local ok, m = pcall(torch.DoubleTensor, v)
    if ok then return m end
  end
  local m = args.tensor(v, who, what)
  if m:dim() ~= 2 then fail(who, '%s must be a 2D tensor (a matrix), got %s', what, describe(v)) end
  return m
end

return args
