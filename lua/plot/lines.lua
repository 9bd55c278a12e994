-- plot.lines: line charts (learning curves: loss and metrics per epoch, train vs validation)
-- with axes, ticks, grid, axis labels, a title and a legend.
local axes = require 'plot.axes'

local function fail(msg) error('[plot.lines] ' .. msg, 3) end

-- A list of numbers from a Lua list or a 1D tensor (of any type or device).
local function numbers(v, what)
  if type(v) == 'table' then
    for i, x in ipairs(v) do
      if type(x) ~= 'number' then fail(string.format('%s[%d] is a %s, not a number', what, i, type(x))) end
    end
    return v
  end
  local ok, torch = pcall(require, 'torch')
  if ok and torch.isTensor(v) then
    -- a 2-D tensor was flattened into one series without a word
    if v:dim() ~= 1 then
      fail(string.format('%s must be a list of numbers or a 1D tensor, got a %s tensor', what,
        table.concat(v:size():totable(), 'x')))
    end
    return v:double():totable()
  end
  fail(what .. ' must be a list of numbers or a 1D tensor')
end

local finite = axes.finite

-- An optional positive integer option.
local function size_opt(v, name, default)
  if v == nil then return default end
  if type(v) ~= 'number' or v < 1 or v ~= math.floor(v) or v > 1e5 then
    fail(string.format('%s must be a positive integer, got %s', name, tostring(v)))
  end
  return v
end

-- An optional {lo, hi} axis range.
local function limits(v, name)
  if v == nil then return nil end
  if type(v) ~= 'table' or type(v[1]) ~= 'number' or type(v[2]) ~= 'number' or not finite(v[1])
      or not finite(v[2]) or not (v[1] < v[2]) then
    fail(string.format('%s must be {lo, hi} with finite lo < hi, got %s', name,
      type(v) == 'table' and ('{' .. tostring(v[1]) .. ', ' .. tostring(v[2]) .. '}') or tostring(v)))
  end
  return v
end

-- An optional {r, g, b} color.
local function color_opt(c, what)
  if c == nil then return nil end
  local ok = type(c) == 'table'
  for k = 1, 3 do
    local v = ok and c[k]
    ok = ok and type(v) == 'number' and v >= 0 and v <= 255 and v == math.floor(v)
  end
  if not ok then fail(what .. ' must be {r, g, b} in 0..255') end
  return c
end

-- The series with their x and y lists checked.
local function prepare(series)
  if type(series) ~= 'table' then fail('series must be a list of {name=, x=, y=}') end
  -- series = {name=, y=} (one series, not wrapped in a list) drew empty axes without a word
  if series.y ~= nil or series.x ~= nil then fail('series must be a list of {name=, x=, y=}: wrap a single series in {}') end
  local out = {}
  for i, s in ipairs(series) do
    if type(s) ~= 'table' then fail('series[' .. i .. '] must be a table') end
    local y = numbers(s.y, 'series[' .. i .. '].y')
    local x
    if s.x ~= nil then
      x = numbers(s.x, 'series[' .. i .. '].x')
      if #x ~= #y then fail(string.format('series[%d] has %d x values and %d y values', i, #x, #y)) end
    else
      x = {}
      for k = 1, #y do x[k] = k end
    end
    out[i] = { name = s.name and tostring(s.name) or ('series ' .. i), x = x, y = y,
               color = color_opt(s.color, 'series[' .. i .. '].color') }
  end
  return out
end

--- plot.lines{path=, series={{name=, x=, y=}, ...}[, title=][, xlabel=][, ylabel=][, width=][,
--- height=][, xlim={lo, hi}][, ylim={lo, hi}]}: writes a line chart to path, a PNG or an SVG
--- file (by the extension). x defaults to 1..#y; NaN values leave gaps. Returns path.
return function(opts)
  if type(opts) ~= 'table' then fail('expected a table of options') end
  local series = prepare(opts.series or {})
  local W, H = size_opt(opts.width, 'width', 800), size_opt(opts.height, 'height', 500)
  local xlim, ylim = limits(opts.xlim, 'xlim'), limits(opts.ylim, 'ylim')
  local surf = axes.surface(opts.path, W, H, 'plot.lines')
  local size = 2  -- text scale: 10x14-pixel characters

  local xs, ys = {}, {}
  for _, s in ipairs(series) do
    for k = 1, #s.y do
      if finite(s.x[k]) and finite(s.y[k]) then xs[#xs + 1] = s.x[k] ys[#ys + 1] = s.y[k] end
    end
  end
  local xlo, xhi = axes.range(xs, 0)
  local ylo, yhi = axes.range(ys, 0.05)
  if xlim then xlo, xhi = xlim[1], xlim[2] end
  if ylim then ylo, yhi = ylim[1], ylim[2] end
  local xticks, xstep = axes.ticks(xlo, xhi, 6)
  local yticks, ystep = axes.ticks(ylo, yhi, 5)

  local ylabels, ylw = {}, 0
  for i, v in ipairs(yticks) do
    ylabels[i] = axes.label(v, ystep)
    ylw = math.max(ylw, surf:text_width(ylabels[i], size))
  end
  local left = 16 + ylw + 10 + (opts.ylabel and 24 or 0)
  local top = opts.title and 44 or 20
  local bottom = 14 + 14 + 10 + (opts.xlabel and 26 or 0)
  local right = 24
  local pw, ph = W - left - right, H - top - bottom
  if pw < 20 or ph < 20 then fail('the plot is too small for its labels') end
  local px = axes.scale(xlo, xhi, left, pw)
  local py = axes.scale(ylo, yhi, top + ph, -ph)

  -- Grid, ticks and tick labels.
  for i, v in ipairs(yticks) do
    local y = py(v)
    surf:dashed(left, y, left + pw, y, axes.light)
    surf:line(left - 5, y, left, y, axes.black)
    surf:text(left - 9, y - 7, ylabels[i], axes.black, { size = size, anchor = 'end' })
  end
  for _, v in ipairs(xticks) do
    local x = px(v)
    surf:dashed(x, top, x, top + ph, axes.light)
    surf:line(x, top + ph, x, top + ph + 5, axes.black)
    surf:text(x, top + ph + 10, axes.label(v, xstep), axes.black, { size = size, anchor = 'middle' })
  end
  surf:frame(left, top, pw, ph, axes.black)

  -- The series, clipped to the plot area by the axis ranges.
  for i, s in ipairs(series) do
    local color = s.color or axes.palette[(i - 1) % #axes.palette + 1]
    local run = {}
    local function flush()
      if #run > 0 then surf:polyline(run, color, 2) end
      run = {}
    end
    for k = 1, #s.y do
      local x, y = s.x[k], s.y[k]
      if finite(x) and finite(y) and x >= xlo and x <= xhi and y >= ylo and y <= yhi then
        run[#run + 1] = { px(x), py(y) }
      else
        flush()
      end
    end
    flush()
    if #s.y <= 60 then
      for k = 1, #s.y do
        local x, y = s.x[k], s.y[k]
        if finite(x) and finite(y) and x >= xlo and x <= xhi and y >= ylo and y <= yhi then
          surf:rect(px(x) - 2.5, py(y) - 2.5, 5, 5, color)
        end
      end
    end
  end

  -- Title, axis labels, legend.
  if opts.title then surf:text(left + pw / 2, 12, tostring(opts.title), axes.black, { size = size, anchor = 'middle' }) end
  if opts.xlabel then
    surf:text(left + pw / 2, H - 24, tostring(opts.xlabel), axes.black, { size = size, anchor = 'middle' })
  end
  if opts.ylabel then
    surf:text(10, top + ph / 2, tostring(opts.ylabel), axes.black, { size = size, anchor = 'middle', vertical = true })
  end
  if #series > 0 then
    local lw = 0
    for _, s in ipairs(series) do lw = math.max(lw, surf:text_width(s.name, size)) end
    local bw, bh = lw + 48, #series * 20 + 8
    local bx, by = left + pw - bw - 8, top + 8
    surf:rect(bx, by, bw, bh, { 255, 255, 255 })
    surf:frame(bx, by, bw, bh, axes.gray)
    for i, s in ipairs(series) do
      local color = s.color or axes.palette[(i - 1) % #axes.palette + 1]
      local y = by + 4 + (i - 1) * 20 + 10
      surf:line(bx + 8, y, bx + 30, y, color, 2)
      surf:text(bx + 38, y - 7, s.name, axes.black, { size = size })
    end
  end
  surf:save(opts.path, 'plot.lines')
  return opts.path
end
