-- The heat maps of gnuplot.imagesc (a matrix, row 1 at the top, as gnuplot's `splot matrix with
-- image` under `set view map`) and of gnuplot.splot's fallback (a surface seen from above):
-- cells coloured through a palette ('gray', or gnuplot's default 'color' palette), and a colour bar.
-- Note [imagesc indices]: gnuplot numbered a matrix's rows and columns from 0 (`splot '-'
-- matrix`, ranges [-0.5 : n-0.5]), so Torch7's imagesc axes read 0 .. n-1; Tocha keeps those
-- labels, so that a figure reads as it did. splot's heat map uses Torch7's 1-based grid.
local axes = require 'plot.axes'
local scale = require 'gnuplot.scale'
local chart = require 'gnuplot.chart'
local heatmap = {}

local floor = math.floor
local function byte(v) return floor(math.max(0, math.min(1, v)) * 255 + 0.5) end

-- Palettes: t in [0, 1] to {r, g, b}. 'color' is gnuplot's default pm3d palette, rgbformulae
-- 7,5,15 (black, blue, red, yellow): r = sqrt(t), g = t^3, b = sin(2 pi t) clipped at 0.
heatmap.palettes = {
  gray = function(t) local v = byte(t) return { v, v, v } end,
  color = function(t) return { byte(math.sqrt(t)), byte(t ^ 3), byte(math.sin(2 * math.pi * t)) } end,
}
heatmap.palettes.grey = heatmap.palettes.gray

-- Note [Heat map cells]: a cell is a rectangle, so a 1000 x 1000 matrix made a million rectangles
-- (a 60 MB SVG, seconds of Lua for the PNG). Past the plot area's pixels (PNG) or 200 cells a
-- side (SVG), each drawn cell shows the nearest matrix cell: the picture a screen would show.
local SVG_CELLS = 200

-- The data indices shown by n display cells over a side of count cells.
local function sampled(count, n)
  local idx = {}
  for k = 1, n do idx[k] = n == count and k or math.min(count, floor((k - 0.5) / n * count) + 1) end
  return idx
end

--- heatmap.draw(surf, fig, who): fig.content = {z = ny x nx DoubleTensor, x0, dx, y0, dy (the
--- centres of the first cells and their spacing), reverse (row 1 at the top), palette, integer
--- (ticks at whole indices only)} drawn on surf.
function heatmap.draw(surf, fig, who)
  local c = fig.content
  local ny, nx = c.z:size(1), c.z:size(2)
  local p = c.z:data()
  local zlo, zhi
  for i = 0, nx * ny - 1 do zlo, zhi = scale.extent(zlo, zhi, p[i], false) end
  if zlo == nil then error('[' .. who .. '] the matrix has no finite values (all NaN or infinite)', 0) end
  local za = scale.axis{ lo = zlo, hi = zhi, exact = true, who = who, name = 'z' }
  local function ends(first, step, n)
    local a, b = first - step / 2, first + (n - 0.5) * step
    return math.min(a, b), math.max(a, b)
  end
  local xlo, xhi = ends(c.x0, c.dx, nx)
  local ylo, yhi = ends(c.y0, c.dy, ny)
  local xa = scale.axis{ lo = xlo, hi = xhi, exact = true, who = who, name = 'x' }
  local ya = scale.axis{ lo = ylo, hi = yhi, exact = true, who = who, name = 'y' }
  ya.reverse = c.reverse
  if c.integer then
    for _, ax in ipairs({ xa, ya }) do
      local keep = {}
      for _, t in ipairs(ax.ticks) do if t[1] == floor(t[1]) then keep[#keep + 1] = { t[1], string.format('%d', t[1]) } end end
      ax.ticks = keep
    end
  end
  local right = 70 + (fig.zlabel and c.zlabel and 20 or 0)
  local ok, box = pcall(chart.frame, surf, fig, xa, ya, right)
  if not ok then error('[' .. who .. '] ' .. tostring(box), 0) end
  local color = heatmap.palettes[c.palette]
  local span = za.hi - za.lo
  local cap = surf.img and { box.w, box.h } or { SVG_CELLS, SVG_CELLS }
  local dnx, dny = math.min(nx, math.max(1, floor(cap[1]))), math.min(ny, math.max(1, floor(cap[2])))
  local cols, rows = sampled(nx, dnx), sampled(ny, dny)
  -- cell edges on whole pixels, so that neighbouring cells share them (no seams)
  local function edges(from, length, n)
    local e = {}
    for k = 0, n do e[k] = floor(from + length * k / n + 0.5) end
    return e
  end
  local ex, ey = edges(box.left, box.w, dnx), edges(box.top, box.h, dny)
  -- cells run left to right with x (c.dx > 0), and top down with y when reversed
  local topdown = c.reverse == (c.dy > 0)
  for r = 1, dny do
    local e = topdown and r or dny - r + 1
    local row = rows[r] - 1
    for k = 1, dnx do
      local col = c.dx > 0 and cols[k] - 1 or nx - cols[k]
      local v = p[row * nx + col]
      if axes.finite(v) then
        surf:rect(ex[k - 1], ey[e - 1], ex[k] - ex[k - 1], ey[e] - ey[e - 1], color(math.max(0, math.min(1, (v - za.lo) / span))))
      end
    end
  end
  surf:frame(box.left, box.top, box.w, box.h, axes.black)
  -- the colour bar, low values at the bottom
  local bx, steps = box.left + box.w + 16, 64
  local eb = edges(box.top, box.h, steps)
  for s = 1, steps do
    surf:rect(bx, eb[steps - s], 16, eb[steps - s + 1] - eb[steps - s], color((s - 0.5) / steps))
  end
  surf:frame(bx, box.top, 16, box.h, axes.black)
  for _, t in ipairs(za.ticks) do
    local y = box.top + box.h * (1 - za.map(t[1]))
    surf:line(bx + 16, y, bx + 20, y, axes.black)
    surf:text(bx + 22, y - 3.5, t[2], axes.black, { size = 1 })
  end
  if fig.zlabel and c.zlabel then
    surf:text(fig.width - 18, box.top + box.h / 2, fig.zlabel, axes.black, { size = 2, anchor = 'middle', vertical = true })
  end
  fig.layout = { left = box.left, top = box.top, w = box.w, h = box.h }
end

return heatmap
