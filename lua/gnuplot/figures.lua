-- gnuplot's figures: the numbered figures and the current one, each figure's settings (title,
-- labels, ranges, key, log axes) and content, and writing a figure to its file through Tocha's
-- plot backends (plot/raster.lua for PNG, plot/svg.lua for SVG).
local figures = { list = {}, current = nil }

-- Note [Figures without a file]: Torch7 opened a window (wxt, qt, x11) for gnuplot.figure() and
-- for a plot made before any pngfigure. Tocha has no window: such a figure is drawn to the PNG
-- file gnuplot<n>.png in figures.dir (TOCHA_GNUPLOT_DIR, else the current folder), and the path
-- is printed the first time it is written, so that scripts written for a screen still run and
-- leave their plots behind. gnuplot.setterm('svg') makes them SVG files.
figures.dir = os.getenv('TOCHA_GNUPLOT_DIR') or '.'
figures.windowTerm = 'png'

local function fail(who, msg, ...) error(string.format('[' .. who .. '] ' .. msg, ...), 3) end

-- A figure with gnuplot's defaults: no grid, the key at the top right, linear axes, autoscale.
local function new_figure(n)
  return { id = n, width = 640, height = 480, grid = false, ratio = nil,
           key = { h = 'right', v = 'top', show = true, box = false },
           log = { x = false, y = false }, range = { x = {}, y = {} }, tics = {} }
end

--- figures.id(n, who): n checked as a figure number (a positive integer), or the next free one.
function figures.id(n, who)
  if n == nil then
    n = 1
    while figures.list[n] do n = n + 1 end
    return n
  end
  if type(n) ~= 'number' or n < 1 or n ~= math.floor(n) or n > 2 ^ 31 then
    fail(who, 'the figure number must be a positive integer, got %s', tostring(n))
  end
  return n
end

--- figures.select(n, who): figure n (created when new; the next free number when n is nil),
--- made current.
function figures.select(n, who)
  n = figures.id(n, who)
  local fig = figures.list[n]
  if not fig then
    fig = new_figure(n)
    figures.list[n] = fig
  end
  figures.current = n
  return fig
end

--- figures.active(who): the current figure, creating figure 1 (a window in Torch7) when there
--- is none, as Torch7's plot commands did.
function figures.active(who)
  if figures.current and figures.list[figures.current] then return figures.list[figures.current] end
  return figures.select(nil, who)
end

--- figures.close(n): forgets figure n (its file stays as last written).
function figures.close(n)
  if n == nil then n = figures.current end
  if n == nil then return end
  figures.list[n] = nil
  figures.current = nil  -- Torch7 left no figure current after a close
end

function figures.closeall()
  figures.list, figures.current = {}, nil
end

-- The file a figure is drawn to and its format.
local function target(fig)
  if fig.path then return fig.path, fig.term end
  local term = figures.windowTerm
  return figures.dir .. '/gnuplot' .. fig.id .. '.' .. term, term, true
end

-- Note [PNG files of any name]: gnuplot's png terminal wrote PNG bytes whatever the file was
-- called (pngfigure('plot.dat')), while plot's PNG writer picks the format by the extension (.jpg
-- gives JPEG, others are refused). A name not ending in .png is written under a temporary .png
-- name first and renamed.
local function save(surf, path, term, who)
  if term == 'png' and not path:lower():match('%.png$') then
    local tmp = path .. '.tmp' .. tostring(os.time()) .. tostring(math.random(1, 1e9)) .. '.png'
    surf:save(tmp, who)
    local ok, err = os.rename(tmp, path)
    if not ok then
      os.remove(tmp)
      error('[' .. who .. '] ' .. path .. ': cannot write: ' .. tostring(err), 0)
    end
  else
    surf:save(path, who)
  end
end

--- figures.draw(fig, who[, path, term]): draws fig's content to its file (or to path in the
--- format term); nothing when nothing was plotted yet. Errors name who.
function figures.draw(fig, who, path, term)
  if not fig.content then return end
  local window
  if not path then path, term, window = target(fig) end
  local surf = term == 'svg' and require('plot.svg').new(fig.width, fig.height)
    or require('plot.raster').new(fig.width, fig.height)
  if fig.content.kind == 'image' then
    require('gnuplot.heatmap').draw(surf, fig, who)
  else
    require('gnuplot.chart').draw(surf, fig, who)
  end
  save(surf, path, term, who)
  if window and fig.announced ~= path then
    fig.announced = path
    print(string.format('[gnuplot] figure %d has no window in Tocha: drawn to %s', fig.id, path))
  end
  return path
end

return figures
