-- Torch7's gnuplot package (require 'gnuplot' sets the global gnuplot) drawn by Tocha's own plot
-- backends instead of a gnuplot process: figures written as PNG or SVG files, line plots, bars,
-- histograms, heat maps, and the decorations (title, labels, axis ranges, grid, key, log scale).
require 'torch'
if rawget(_G, 'gnuplot') and gnuplot._tocha then return gnuplot end
gnuplot = { _tocha = true }

local figures = require 'gnuplot.figures'
local args = require 'gnuplot.args'
local histc = require 'gnuplot.hist'
local raw = require 'gnuplot.raw'

local function fail(who, msg, ...) error(string.format('[' .. who .. '] ' .. msg, ...), 0) end

-- Note [When files are written]: Torch7's gnuplot wrote a file figure when the plot was
-- refreshed: by plotflush, and by every title, xlabel, grid... call after the plot command. Here
-- every call that changes a figure with something plotted redraws its file, so the file is
-- complete after each call (plotflush is kept for Torch7 scripts, and redraws too). Settings made
-- before a plot are kept for it and for the following plots of that figure, as gnuplot kept them.
local function redraw(fig, who) return figures.draw(fig, who) end

local function check_name(fname, who)
  if type(fname) ~= 'string' or fname == '' then fail(who, 'expected a file name, got %s', tostring(fname)) end
end

--- gnuplot.figure([n]): selects figure n (a new one with the next free number when n is nil) and
--- returns its number. Without a file (pngfigure/svgfigure), Torch7's window is a PNG file,
--- gnuplot<n>.png in the current folder (TOCHA_GNUPLOT_DIR), whose path is printed when written.
--- Example: require 'gnuplot'; local n = gnuplot.figure(); gnuplot.plot(torch.Tensor{1, 4, 9})
function gnuplot.figure(n)
  return figures.select(n, 'gnuplot.figure').id
end

-- Note [Figures of the same file]: scripts call pngfigure('loss.png') once an epoch. Torch7
-- started a gnuplot process each time (figures 1, 2, 3...); here each figure keeps a copy of its
-- data, so memory would grow with the epochs. A new figure (no n) for a file that a figure
-- already writes replaces that figure: fresh settings, as a new one, under the same number.
local function file_figure(fname, n, term, who)
  check_name(fname, who)
  if n == nil then
    for id, f in pairs(figures.list) do
      if f.path == fname then n = id figures.list[id] = nil break end
    end
  end
  local fig = figures.select(n, who)
  fig.path, fig.term = fname, term
  return fig.id
end

--- gnuplot.pngfigure(fname[, n]): a figure drawn to the PNG file fname (whatever its extension);
--- returns its number.
--- Example: require 'gnuplot'; gnuplot.pngfigure('loss.png'); gnuplot.plot('loss', torch.Tensor{3, 2, 1.5}, '-')
function gnuplot.pngfigure(fname, n) return file_figure(fname, n, 'png', 'gnuplot.pngfigure') end

--- gnuplot.svgfigure(fname[, n]): a figure drawn to the SVG file fname; returns its number.
--- Example: require 'gnuplot'; gnuplot.svgfigure('loss.svg'); gnuplot.plot(torch.Tensor{3, 2, 1.5})
function gnuplot.svgfigure(fname, n) return file_figure(fname, n, 'svg', 'gnuplot.svgfigure') end

local function no_backend(who, kind)
  return function()
    fail(who, "Tocha draws PNG and SVG files only (no %s backend): gnuplot.svgfigure('plot.svg') gives a vector "
      .. 'file, which converters (rsvg-convert, inkscape) turn into %s', kind, kind)
  end
end

--- gnuplot.epsfigure(fname): an error: Tocha has no PostScript backend (use gnuplot.svgfigure).
--- Example: require 'gnuplot'; print(pcall(gnuplot.epsfigure, 'plot.eps'))
gnuplot.epsfigure = no_backend('gnuplot.epsfigure', 'EPS')

--- gnuplot.pdffigure(fname): an error: Tocha has no PDF backend (use gnuplot.svgfigure).
--- Example: require 'gnuplot'; print(pcall(gnuplot.pdffigure, 'plot.pdf'))
gnuplot.pdffigure = no_backend('gnuplot.pdffigure', 'PDF')

--- gnuplot.figprint(fname): writes the current figure to fname too (.png or .svg).
--- Example: require 'gnuplot'; gnuplot.figure(); gnuplot.plot(torch.Tensor{1, 2}); gnuplot.figprint('copy.svg')
function gnuplot.figprint(fname)
  local who = 'gnuplot.figprint'
  check_name(fname, who)
  local ext = (fname:match('%.([^./]+)$') or ''):lower()
  if ext ~= 'png' and ext ~= 'svg' then
    fail(who, '%s: Tocha prints figures to .png and .svg files only', fname)
  end
  local fig = figures.current and figures.list[figures.current]
  if not fig or not fig.content then fail(who, 'no figure with a plot to print') end
  figures.draw(fig, who, fname, ext)
end

--- gnuplot.plotflush([n]): (re)writes the file of figure n (the current one).
--- Example: require 'gnuplot'; gnuplot.pngfigure('flushed.png'); gnuplot.plot(torch.Tensor{1, 2}); gnuplot.plotflush()
function gnuplot.plotflush(n)
  if n == nil then n = figures.current end
  local fig = n and figures.list[n]
  if not fig then
    print('no figure ' .. tostring(n))  -- as Torch7
    return
  end
  redraw(fig, 'gnuplot.plotflush')
end

--- gnuplot.close([n]): forgets figure n (the current one); its file stays as last written.
--- Example: require 'gnuplot'; local n = gnuplot.figure(); gnuplot.close(n)
function gnuplot.close(n)
  if n ~= nil then figures.id(n, 'gnuplot.close') end
  figures.close(n)
end

--- gnuplot.closeall(): forgets every figure; the next figure is number 1 again.
--- Example: require 'gnuplot'; gnuplot.closeall()
function gnuplot.closeall() figures.closeall() end

--- gnuplot.plot(...): line plots: plot(y), plot(x, y), plot(x, y, format), plot('name', x, y,
--- format), or several series as tables plot({'a', x1, y1, '-'}, {'b', x2, y2, '+'}). Formats:
--- '.', '+', '-', '+-', '|' (boxes), '~' (cubic splines), 'v' (vectors), or gnuplot's style names.
--- Tensors of any type (a 2D x: first column x, the others y), or Lua lists of numbers.
--- Example: require 'gnuplot'; gnuplot.pngfigure('sin.png'); local x = torch.linspace(-3, 3, 50); gnuplot.plot({'sin', x, torch.sin(x), '-'}, {'cos', x, torch.cos(x), '+'})
function gnuplot.plot(...)
  local series = args.plot('gnuplot.plot', ...)
  local fig = figures.active('gnuplot.plot')
  fig.content = { kind = 'lines', series = series }
  redraw(fig, 'gnuplot.plot')
end

--- gnuplot.bar([name,] [x,] y): a bar chart (plot with the '|' format).
--- Example: require 'gnuplot'; gnuplot.pngfigure('bars.png'); gnuplot.bar(torch.Tensor{3, 1, 2})
function gnuplot.bar(...)
  if select('#', ...) == 0 then fail('gnuplot.bar', 'no inputs, expecting at least a vector') end
  local a = { ... }
  a[select('#', ...) + 1] = '|'
  local series = args.plot('gnuplot.bar', a)
  local fig = figures.active('gnuplot.bar')
  fig.content = { kind = 'lines', series = series }
  redraw(fig, 'gnuplot.bar')
end

--- gnuplot.histc(x[, bins][, min][, max][, raw]): Torch7's histogram table of x (any shape):
--- raw (torch.histc's counts), bins, binwidth, h[i] = {val = centre, nb = count}, max, min
--- (the fullest and emptiest bins' entries); bins defaults to 10, min and max to x's range.
--- Example: require 'gnuplot'; local h = gnuplot.histc(torch.Tensor{1, 2, 2, 3}, 3); print(h.raw, h.max.val)
function gnuplot.histc(x, bins, min, max, rawOnly)
  return histc(x, bins, min, max, rawOnly, 'gnuplot.histc')
end

--- gnuplot.hist(x[, bins][, min][, max]): draws the histogram of x as boxes and returns the
--- table of gnuplot.histc.
--- Example: require 'gnuplot'; gnuplot.pngfigure('hist.png'); local h = gnuplot.hist(torch.randn(1000), 20)
function gnuplot.hist(x, bins, min, max)
  local h = histc(x, bins, min, max, false, 'gnuplot.hist')
  local centres = torch.DoubleTensor(h.bins)
  for i = 1, h.bins do centres[i] = h[i].val end
  local fig = figures.active('gnuplot.hist')
  fig.content = { kind = 'lines', series = { { name = '', x = centres, y = h.raw, style = 'boxes' } } }
  redraw(fig, 'gnuplot.hist')
  return h
end

--- gnuplot.imagesc(m[, palette]): the matrix m as a heat map, row 1 at the top, with a colour
--- bar; palette 'gray' (the default) or 'color' (gnuplot's black-blue-red-yellow).
--- Example: require 'gnuplot'; gnuplot.pngfigure('heat.png'); gnuplot.imagesc(torch.rand(8, 12), 'color')
function gnuplot.imagesc(m, palette, ...)
  local who = 'gnuplot.imagesc'
  if m == nil then fail(who, 'no inputs, expecting at least a matrix') end
  if select('#', ...) > 0 then fail(who, 'expecting tensor [,string], got %d arguments', 2 + select('#', ...)) end
  local z = args.matrix(m, who, 'the matrix')
  palette = palette == nil and 'gray' or palette
  if type(palette) ~= 'string' or not require('gnuplot.heatmap').palettes[palette] then
    fail(who, "palette must be 'gray' or 'color', got %s", args.describe(palette))
  end
  local fig = figures.active(who)
  fig.content = { kind = 'image', z = z, x0 = 0, dx = 1, y0 = 0, dy = 1, reverse = true, integer = true, palette = palette }
  redraw(fig, who)
end

local splot = require 'gnuplot.splot'

--- gnuplot.splot(z) / splot(x, y, z) / splot('name', x, y, z): a surface, drawn as a heat map
--- seen from above (Tocha has no 3-D renderer; zlabel names the colour bar); one surface a figure.
--- Example: require 'gnuplot'; gnuplot.pngfigure('surface.png'); gnuplot.splot(torch.rand(10, 10))
function gnuplot.splot(...)
  local content = splot.content('gnuplot.splot', ...)
  local fig = figures.active('gnuplot.splot')
  fig.content = content
  redraw(fig, 'gnuplot.splot')
end

--- gnuplot.scatter3(...): an error: Tocha has no 3-D renderer.
--- Example: require 'gnuplot'; print(pcall(gnuplot.scatter3, torch.rand(5), torch.rand(5), torch.rand(5)))
function gnuplot.scatter3()
  fail('gnuplot.scatter3', "Tocha has no 3-D renderer: plot two of the coordinates with gnuplot.plot(x, y, '+')")
end

require('gnuplot.settings')(gnuplot, figures, redraw, raw)

return gnuplot
