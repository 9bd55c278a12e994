-- A small SVG line-plot writer: what optim.Logger:plot uses when the `plot` module is not used
-- (logger.usePlotModule = false, or it fails to load). Axes with "nice" ticks (the plot module's
-- pure-Lua axis arithmetic, plot/axes.lua), grid, optional log-scale y, legend.
local svg = {}

local W, H = 720, 480
local ML, MR, MT, MB = 70, 20, 40, 50  -- margins: left, right, top, bottom
local COLORS = { '#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f',
                 '#bcbd22', '#17becf' }

-- Axis arithmetic shared with the plot module (pure Lua, loads without libpng): its ticks are
-- k * step for integer k (v = v + step never advanced when step is below v's precision: 1e16 and
-- 1e16 + 2 hung) and its ranges and scales survive spans wider than the largest double
-- (-1e308 .. 1e308 made every coordinate NaN): Note [Spans wider than the largest double].
local axes = require 'plot.axes'

-- Labels are user text, written as XML text by the plot module's escaping (Note [XML text] in
-- lua/plot/svg.lua: control characters and malformed UTF-8 as '?').
local xml_text = require('plot.svg').escape
local function esc(s) return (xml_text(tostring(s))) end
local function finite(v) return type(v) == 'number' and v == v and v ~= math.huge and v ~= -math.huge end
local function num(v) return string.format('%.2f', v) end

-- About n round tick values covering [lo, hi] (steps of 1, 2 or 5 times a power of ten), and
-- the step between them.
-- plot.axes.ticks gives the two ends for spans too fine for the values' precision (Note [Ticks
-- finer than the values' precision], lua/plot/axes.lua).
local ticks = axes.ticks

-- [lo, hi] of the finite values seen (math.huge, -math.huge when none), widened when equal.
local function range(lo, hi)
  if lo == math.huge then return 0, 1 end
  if lo == hi then return axes.range({ lo }) end
  return lo, hi
end

--- svg.lines(path, {title=, xlabel=, ylabel=, logscale=, series = {{name=, x={...}, y={...},
--- style='-'|'+'|'.'|'+-'}, ...}}): writes a line plot to path. Non-finite points (and, in log
--- scale, non-positive ones) are skipped. Returns path.
function svg.lines(path, opts)
  local series = opts.series or {}
  local logy = opts.logscale
  local function ty(v) return logy and math.log10(v) or v end
  local xlo, xhi, ylo, yhi = math.huge, -math.huge, math.huge, -math.huge
  local clean = {}
  for i, s in ipairs(series) do
    local pts = {}
    for k = 1, #s.y do
      local x, y = s.x and s.x[k] or k, s.y[k]
      if finite(x) and finite(y) and (not logy or y > 0) then
        pts[#pts + 1] = { x, ty(y) }
        xlo, xhi = math.min(xlo, x), math.max(xhi, x)
        ylo, yhi = math.min(ylo, ty(y)), math.max(yhi, ty(y))
      end
    end
    clean[i] = pts
  end
  xlo, xhi = range(xlo, xhi)
  ylo, yhi = range(ylo, yhi)
  ylo, yhi = axes.range({ ylo, yhi }, 0.04)  -- keep curves off the frame
  local pw, ph = W - ML - MR, H - MT - MB
  local px = axes.scale(xlo, xhi, ML, pw)
  local py0 = axes.scale(ylo, yhi, 0, ph)
  local function py(y) return MT + ph - py0(y) end

  local out = {}
  local function put(fmt, ...) out[#out + 1] = string.format(fmt, ...) end
  put('<?xml version="1.0" encoding="UTF-8"?>\n')
  put('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">\n', W, H, W, H)
  put('<rect width="%d" height="%d" fill="white"/>\n', W, H)
  if opts.title then put('<text x="%d" y="24" text-anchor="middle" font-size="15">%s</text>\n', W / 2, esc(opts.title)) end
  -- grid and tick labels
  local xt, xstep = ticks(xlo, xhi, 8)
  for _, v in ipairs(xt) do
    put('<line x1="%s" y1="%d" x2="%s" y2="%d" stroke="#e0e0e0"/>\n', num(px(v)), MT, num(px(v)), MT + ph)
    put('<text x="%s" y="%d" text-anchor="middle">%s</text>\n', num(px(v)), MT + ph + 16, esc(axes.label(v, xstep)))
  end
  local yt, ystep = ticks(ylo, yhi, 6)
  for _, v in ipairs(yt) do
    put('<line x1="%d" y1="%s" x2="%d" y2="%s" stroke="#e0e0e0"/>\n', ML, num(py(v)), ML + pw, num(py(v)))
    local label = logy and string.format('%g', 10 ^ v) or axes.label(v, ystep)
    put('<text x="%d" y="%s" text-anchor="end">%s</text>\n', ML - 6, num(py(v) + 4), esc(label))
  end
  put('<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="black"/>\n', ML, MT, pw, ph)
  if opts.xlabel then put('<text x="%d" y="%d" text-anchor="middle">%s</text>\n', ML + pw / 2, H - 12, esc(opts.xlabel)) end
  if opts.ylabel then
    put('<text x="16" y="%d" text-anchor="middle" transform="rotate(-90 16 %d)">%s</text>\n', MT + ph / 2, MT + ph / 2,
        esc(opts.ylabel .. (logy and ' (log scale)' or '')))
  end
  -- curves
  for i, s in ipairs(series) do
    local color = COLORS[(i - 1) % #COLORS + 1]
    local style = s.style or '-'
    local pts = clean[i]
    local line = style:find('-', 1, true) or not (style:find('+', 1, true) or style:find('.', 1, true))
    if line and #pts > 1 then
      local coords = {}
      for k, p in ipairs(pts) do coords[k] = num(px(p[1])) .. ',' .. num(py(p[2])) end
      put('<polyline fill="none" stroke="%s" stroke-width="1.5" points="%s"/>\n', color, table.concat(coords, ' '))
    end
    if style:find('+', 1, true) then
      for _, p in ipairs(pts) do
        local x, y = px(p[1]), py(p[2])
        put('<path d="M%s %sh8M%s %sv8" stroke="%s"/>\n', num(x - 4), num(y), num(x), num(y - 4), color)
      end
    elseif style:find('.', 1, true) then
      for _, p in ipairs(pts) do put('<circle cx="%s" cy="%s" r="2" fill="%s"/>\n', num(px(p[1])), num(py(p[2])), color) end
    end
    -- legend entry
    local ly = MT + 14 + (i - 1) * 16
    put('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2"/>\n', ML + pw - 150, ly - 4, ML + pw - 130, ly - 4, color)
    put('<text x="%d" y="%d">%s</text>\n', ML + pw - 125, ly, esc(s.name or ('series ' .. i)))
  end
  put('</svg>\n')
  local f, err = io.open(path, 'w')
  if not f then error('optim.svg: cannot write ' .. tostring(path) .. ': ' .. tostring(err), 0) end
  f:write(table.concat(out))
  f:close()
  return path
end

return svg
