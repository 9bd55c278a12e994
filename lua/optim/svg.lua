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

-- Note [XML text in optim.svg]: labels are user text; XML 1.0 forbids control characters and
-- malformed UTF-8, which made the whole file unparsable. They are written as '?', as in
-- lua/plot/svg.lua (Note [XML text]), whose escaping is local to that file: this is its copy.
local function utf8_clean(s)
  local out, i, n = {}, 1, #s
  while i <= n do
    local c = s:byte(i)
    local len, lo, hi = 0, 0x80, 0xBF  -- the length of the sequence and its second byte's range
    if c < 0x80 then len = 1
    elseif c >= 0xC2 and c <= 0xDF then len = 2
    elseif c >= 0xE0 and c <= 0xEF then len = 3
      if c == 0xE0 then lo = 0xA0 elseif c == 0xED then hi = 0x9F end  -- overlong; surrogates
    elseif c >= 0xF0 and c <= 0xF4 then len = 4
      if c == 0xF0 then lo = 0x90 elseif c == 0xF4 then hi = 0x8F end  -- overlong; > U+10FFFF
    end
    local ok = len > 0 and i + len - 1 <= n
    for k = 1, len - 1 do
      local b = ok and s:byte(i + k)
      ok = ok and b >= (k == 1 and lo or 0x80) and b <= (k == 1 and hi or 0xBF)
    end
    local seq = ok and s:sub(i, i + len - 1)
    if seq == '\239\191\190' or seq == '\239\191\191' then  -- U+FFFE, U+FFFF: not characters
      out[#out + 1] = '?' i = i + len
    elseif ok then out[#out + 1] = seq i = i + len
    else out[#out + 1] = '?' i = i + 1 end
  end
  return table.concat(out)
end

local function esc(s)
  s = tostring(s):gsub('[%z\1-\8\11\12\14-\31]', '?')
  if s:find('[\128-\255]') then s = utf8_clean(s) end
  return (s:gsub('&', '&amp;'):gsub('<', '&lt;'):gsub('>', '&gt;'):gsub('"', '&quot;'))
end
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
