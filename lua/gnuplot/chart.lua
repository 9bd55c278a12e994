-- The 2-D chart of gnuplot.plot, bar and hist on a plot surface: the frame, ticks and optional
-- grid, the series in their styles (lines, points, dots, boxes, impulses, vectors, cubic splines),
-- the key, the title and the axis labels. The page layout is shared with gnuplot/heatmap.lua.
local axes = require 'plot.axes'
local scale = require 'gnuplot.scale'
local style = require 'gnuplot.style'
local chart = {}

local SIZE = 2  -- text scale: 10x14-pixel characters

-- Torch7's gnuplot line colours (the torchstyle preamble's line styles 1-16).
chart.palette = {
  { 29, 69, 153 }, { 17, 173, 52 }, { 230, 43, 23 }, { 230, 159, 23 }, { 114, 151, 230 }, { 103, 235, 132 },
  { 249, 122, 109 }, { 249, 201, 109 }, { 47, 63, 96 }, { 47, 108, 61 }, { 143, 70, 63 }, { 143, 116, 63 },
  { 3, 26, 73 }, { 2, 82, 20 }, { 109, 13, 3 }, { 109, 73, 3 },
}

--- chart.frame(surf, fig, xa, ya, right): the plot area {left, top, w, h} for axes xa and ya,
--- leaving right pixels on the right (a colour bar), with the ticks, grid, labels and title
--- drawn; fig.ratio == 'equal' gives both axes the same units.
function chart.frame(surf, fig, xa, ya, right)
  local W, H = fig.width, fig.height
  local ylw = 0
  for _, t in ipairs(ya.ticks) do ylw = math.max(ylw, surf:text_width(t[2], SIZE)) end
  local left = 16 + ylw + 10 + (fig.ylabel and 24 or 0)
  local top = fig.title and 44 or 20
  local bottom = 38 + (fig.xlabel and 26 or 0)
  -- the last x tick label, centred on the right edge, must fit in the margin
  local last = xa.ticks[#xa.ticks]
  local margin = math.max(24, last and surf:text_width(last[2], SIZE) / 2 + 6 or 0)
  local pw, ph = W - left - margin - (right or 0), H - top - bottom
  if pw < 20 or ph < 20 then error('the figure is too small for its labels', 0) end
  if fig.ratio == 'equal' and not xa.log and not ya.log then
    local ux, uy = (xa.hi - xa.lo) / pw, (ya.hi - ya.lo) / ph
    local u = math.max(ux, uy)
    local w2, h2 = (xa.hi - xa.lo) / u, (ya.hi - ya.lo) / u
    if axes.finite(w2) and axes.finite(h2) then
      left, top = left + (pw - w2) / 2, top + (ph - h2) / 2
      pw, ph = w2, h2
    end
  end
  local box = { left = left, top = top, w = pw, h = ph }
  function box.x(v) local m = xa.map(v) return m and left + m * pw end
  function box.y(v) local m = ya.map(v) if m then return ya.reverse and top + m * ph or top + ph - m * ph end end
  for _, t in ipairs(ya.ticks) do
    local y = box.y(t[1])
    if fig.grid then surf:dashed(left, y, left + pw, y, axes.light) end
    surf:line(left - 5, y, left, y, axes.black)
    surf:text(left - 9, y - 7, t[2], axes.black, { size = SIZE, anchor = 'end' })
  end
  for _, t in ipairs(xa.ticks) do
    local x = box.x(t[1])
    if fig.grid then surf:dashed(x, top, x, top + ph, axes.light) end
    surf:line(x, top + ph, x, top + ph + 5, axes.black)
    surf:text(x, top + ph + 10, t[2], axes.black, { size = SIZE, anchor = 'middle' })
  end
  if fig.title then surf:text(left + pw / 2, 12, fig.title, axes.black, { size = SIZE, anchor = 'middle' }) end
  if fig.xlabel then surf:text(left + pw / 2, H - 24, fig.xlabel, axes.black, { size = SIZE, anchor = 'middle' }) end
  if fig.ylabel then
    surf:text(10, top + ph / 2, fig.ylabel, axes.black, { size = SIZE, anchor = 'middle', vertical = true })
  end
  return box
end

-- The key: one row per named series (unnamed ones have none, as gnuplot's title '').
local function key(surf, fig, box, series)
  if not fig.key.show then return end
  local rows = {}
  for i, s in ipairs(series) do if s.name ~= '' then rows[#rows + 1] = i end end
  if #rows == 0 then return end
  local lw = 0
  for _, i in ipairs(rows) do lw = math.max(lw, surf:text_width(series[i].name, SIZE)) end
  local bw, bh = lw + 50, #rows * 20 + 8
  local bx = fig.key.h == 'left' and box.left + 8 or fig.key.h == 'center' and box.left + (box.w - bw) / 2
    or box.left + box.w - bw - 8
  local by = fig.key.v == 'bottom' and box.top + box.h - bh - 8 or fig.key.v == 'middle' and box.top + (box.h - bh) / 2
    or box.top + 8
  -- no background, as gnuplot's key: the curves stay visible under it
  if fig.key.box then surf:frame(bx, by, bw, bh, axes.gray) end
  for r, i in ipairs(rows) do
    local s = series[i]
    local y = by + 4 + (r - 1) * 20 + 10
    style.sample(surf, s, bx + 8, y, bx + 32)
    surf:text(bx + 40, y - 7, s.name, axes.black, { size = SIZE })
  end
end

--- chart.draw(surf, fig, who): fig's series chart on surf.
function chart.draw(surf, fig, who)
  local series = fig.content.series
  local xlo, xhi, ylo, yhi
  for i, s in ipairs(series) do
    s.color = chart.palette[(i - 1) % #chart.palette + 1]
    s.points = style.points(s)  -- the drawn points: splines sampled, vector ends, box edges
    for _, p in ipairs(s.points) do
      xlo, xhi = scale.extent(xlo, xhi, p[1], fig.log.x)
      ylo, yhi = scale.extent(ylo, yhi, p[2], fig.log.y)
    end
  end
  if xlo == nil or ylo == nil then
    local logs = (fig.log.x or fig.log.y) and ' (or none > 0 on a log axis)' or ''
    error(string.format('[%s] nothing to draw: the data has no finite values%s', who, logs), 0)
  end
  local xa = scale.axis{ lo = xlo, hi = xhi, fixed = fig.range.x, log = fig.log.x, tics = fig.tics.x, who = who, name = 'x' }
  local ya = scale.axis{ lo = ylo, hi = yhi, fixed = fig.range.y, log = fig.log.y, tics = fig.tics.y, who = who, name = 'y' }
  local ok, box = pcall(chart.frame, surf, fig, xa, ya)
  if not ok then error('[' .. who .. '] ' .. tostring(box), 0) end
  for _, s in ipairs(series) do style.draw(surf, s, box, ya) end
  surf:frame(box.left, box.top, box.w, box.h, axes.black)
  key(surf, fig, box, series)
end

return chart
