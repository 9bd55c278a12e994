-- gnuplot's errors: bad input to every drawing and setting function raises an error naming the
-- function and what it got; what has no backend here (EPS, PDF, 3-D, gnuplot commands) says so.
require 'gnuplot'
local tester = torch.Tester()
local tests = torch.TestSuite()

local tmp = (os.getenv('TOCHA_TEST_TMP') or '/tmp') .. '/gnuplot_errors_' .. tostring(os.time()) .. '_'
  .. tostring(math.random(1, 1e9))
os.execute('rm -rf "' .. tmp .. '" && mkdir -p "' .. tmp .. '"')

local function raises(pattern, f, ...)
  local args, n = { ... }, select('#', ...)
  local ok, err = pcall(f, unpack(args, 1, n))
  tester:assert(not ok, 'expected an error matching ' .. pattern)
  if not ok then
    tester:assert(tostring(err):find(pattern, 1, true) ~= nil, string.format("'%s' does not contain '%s'", tostring(err), pattern))
  end
end

local function fresh(ext)
  gnuplot.closeall()
  gnuplot.svgfigure(tmp .. '/errors.' .. (ext or 'svg'))
end

function tests.noSuchBackend()
  raises('[gnuplot.epsfigure] Tocha draws PNG and SVG files only (no EPS backend)', gnuplot.epsfigure, 'a.eps')
  raises('[gnuplot.pdffigure] Tocha draws PNG and SVG files only (no PDF backend)', gnuplot.pdffigure, 'a.pdf')
  raises('[gnuplot.scatter3] Tocha has no 3-D renderer', gnuplot.scatter3, torch.rand(3), torch.rand(3), torch.rand(3))
  raises('[gnuplot.setterm]', gnuplot.setterm, 'postscript')
  raises('[gnuplot.pngfigure] expected a file name, got nil', gnuplot.pngfigure)
  raises('[gnuplot.svgfigure] expected a file name', gnuplot.svgfigure, 3)
  raises('[gnuplot.figure] the figure number must be a positive integer, got 0', gnuplot.figure, 0)
  raises('[gnuplot.figure] the figure number must be a positive integer, got 1.5', gnuplot.figure, 1.5)
  fresh()
  raises('[gnuplot.figprint] no figure with a plot to print', gnuplot.figprint, tmp .. '/x.png')
  gnuplot.plot(torch.Tensor({ 1, 2 }))
  raises('[gnuplot.figprint] ' .. tmp .. '/x.eps: Tocha prints figures to .png and .svg files only', gnuplot.figprint, tmp .. '/x.eps')
end

function tests.badPlotInput()
  fresh()
  raises('[gnuplot.plot] no inputs, expecting at least a vector', gnuplot.plot)
  raises('[gnuplot.plot] the data: expecting [string,] tensor [,tensor] [,string], got number at position 1', gnuplot.plot, 3)
  raises('[gnuplot.plot] the data: x has 3 values and y has 2', gnuplot.plot, torch.Tensor(3):zero(), torch.Tensor(2):zero())
  raises('[gnuplot.plot] series 2: x has 2 values and y has 3', gnuplot.plot, { torch.Tensor(2):zero() },
    { torch.Tensor(2):zero(), torch.Tensor(3):zero() })
  raises("[gnuplot.plot] the data's x is empty", gnuplot.plot, torch.Tensor())
  raises('[gnuplot.plot] the data: x must be 1D', gnuplot.plot, torch.rand(2, 3, 4))
  raises("got 'oops' at position 4", gnuplot.plot, torch.rand(3), torch.rand(3), '-', 'oops')
  raises('[gnuplot.plot] series 2: expecting a table', gnuplot.plot, { torch.rand(3) }, 5)
  raises('[gnuplot.plot] nothing to draw: the data has no finite values', gnuplot.plot, torch.Tensor({ 0 / 0, 0 / 0 }))
  raises("[gnuplot.plot] format 'with filledcurves' is not a style Tocha draws", gnuplot.plot, torch.rand(3), 'with filledcurves')
  raises("[gnuplot.plot] format '~ 0.5': smoothing splines (acsplines)", gnuplot.plot, torch.rand(3), '~ 0.5')
  raises("[gnuplot.plot] the data: format 'v' takes x and y as n x 2 tensors", gnuplot.plot, torch.rand(3), torch.rand(3), 'v')
  raises('[gnuplot.bar] no inputs', gnuplot.bar)
  -- a log axis with nothing positive
  gnuplot.plot(torch.Tensor({ -1, -2 }))
  raises('[gnuplot.logscale] nothing to draw: the data has no finite values (or none > 0 on a log axis)', gnuplot.logscale, true)
  gnuplot.logscale(false)
end

function tests.badHistInput()
  fresh()
  raises("[gnuplot.hist] x must be a tensor, got 'abc'", gnuplot.hist, 'abc')
  raises('[gnuplot.hist] bins must be a positive integer, got 0', gnuplot.hist, torch.rand(5), 0)
  raises('[gnuplot.hist] bins must be a positive integer, got 2.5', gnuplot.hist, torch.rand(5), 2.5)
  raises('[gnuplot.hist] x holds NaN values', gnuplot.hist, torch.Tensor({ 1, 0 / 0 }))
  raises('[gnuplot.hist] x holds infinite values: pass min and max', gnuplot.hist, torch.Tensor({ 1, math.huge }))
  raises('[gnuplot.hist] min (3) must not exceed max (1)', gnuplot.hist, torch.rand(5), 4, 3, 1)
  raises('[gnuplot.histc] min must be a finite number, got nan', gnuplot.histc, torch.rand(5), 4, 0 / 0, 1)
  -- infinite values with a range given are outside it, as torch.histc leaves them
  tester:asserteq(gnuplot.histc(torch.Tensor({ 0.5, math.huge }), 2, 0, 1).raw:sum(), 1)
end

function tests.badImageInput()
  fresh()
  raises('[gnuplot.imagesc] no inputs, expecting at least a matrix', gnuplot.imagesc)
  raises('[gnuplot.imagesc] the matrix must be a 2D tensor (a matrix), got torch.FloatTensor of size 5', gnuplot.imagesc, torch.rand(5))
  raises("[gnuplot.imagesc] palette must be 'gray' or 'color', got 'rgbformulae 33,13,10'", gnuplot.imagesc, torch.rand(2, 2),
    'rgbformulae 33,13,10')
  raises('[gnuplot.imagesc] expecting tensor [,string], got 3 arguments', gnuplot.imagesc, torch.rand(2, 2), 'gray', 1)
  raises('[gnuplot.imagesc] the matrix has no finite values', gnuplot.imagesc, torch.Tensor(2, 2):fill(0 / 0))
  raises('one surface per figure, got 2', gnuplot.splot, { torch.rand(3, 3) }, { torch.rand(3, 3) })
  raises('[gnuplot.splot] x, y and z must have the same size', gnuplot.splot, torch.rand(3, 3), torch.rand(3, 2), torch.rand(3, 3))
  raises('[gnuplot.splot] x and y must form a regular grid', gnuplot.splot, torch.rand(3, 3), torch.rand(3, 3), torch.rand(3, 3))
  raises('[gnuplot.splot] z must be a 2D tensor', gnuplot.splot, torch.rand(3))
end

function tests.badSettings()
  fresh()
  raises('[gnuplot.title] expected a string, got nil', gnuplot.title)
  raises('[gnuplot.xlabel] expected a string, got table', gnuplot.xlabel, {})
  raises("[gnuplot.movelegend] the horizontal location must be 'left', 'right' or 'center', got up", gnuplot.movelegend, 'up', 'top')
  raises("[gnuplot.movelegend] the vertical location must be 'top', 'bottom' or 'middle', got nil", gnuplot.movelegend, 'left')
  raises('[gnuplot.axis] expected {xmin, xmax, ymin, ymax}, got a table of 2 entries', gnuplot.axis, { 0, 1 })
  raises('[gnuplot.axis] xmin must be below xmax, got 2 and 1', gnuplot.axis, { 2, 1, 0, 1 })
  raises("[gnuplot.axis] axis[3] must be a finite number, '' (keep) or '*' (autoscale), got nan", gnuplot.axis, { 0, 1, 0 / 0, 1 })
  raises("[gnuplot.axis] expected {xmin, xmax, ymin, ymax}, 'auto', 'image', 'equal' or 'fill', got tight", gnuplot.axis, 'tight')
  raises("[gnuplot.logscale] axes must be 'x', 'y' or 'xy', got z", gnuplot.logscale, true, 'z')
  gnuplot.plot(torch.Tensor({ 1, 2 }))
  raises('[gnuplot.axis] the x range must be positive on a log scale, got -1', function()
    gnuplot.logscale(true, 'x')
    gnuplot.axis({ -1, 10, '', '' })
  end)
  gnuplot.closeall()
end

function tests.rawWithoutGnuplot()
  fresh()
  raises("[gnuplot.raw] 'plot sin(x)': Tocha draws without a gnuplot process", gnuplot.raw, 'plot sin(x)')
  raises("[gnuplot.raw] 'set multiplot': 'set multiplot' is not a setting Tocha's renderer knows", gnuplot.raw, 'set multiplot')
  raises("[gnuplot.raw] 'set xrange [2:1]': the range must run from low to high", gnuplot.raw, 'set xrange [2:1]')
  raises("[gnuplot.raw] 'set yrange [a:1]': a is not a number", gnuplot.raw, 'set yrange [a:1]')
  raises("[gnuplot.raw] 'set terminal postscript eps': Tocha writes PNG and SVG files only", gnuplot.raw, 'set terminal postscript eps')
  raises('[gnuplot.raw] unterminated string', gnuplot.raw, 'set title "abc')
  raises('[gnuplot.raw] expected a gnuplot command string, got nil', gnuplot.raw)
  -- what it reads: ranges with autoscaled ends, log scale, size, output
  gnuplot.raw('set yrange [0.1:*]\nset logscale y 2')
  gnuplot.raw('set terminal png size 320,240')
  gnuplot.raw("set output '" .. tmp .. "/raw.png'")
  gnuplot.hist(torch.Tensor({ 1, 2, 2, 3, 3, 3 }), 3)
  local img = require('data').image.load(tmp .. '/raw.png')
  tester:assertTableEq(img:size():totable(), { 3, 240, 320 })
  gnuplot.closeall()
end

tester:add(tests)
tester:run()
os.execute('rm -rf "' .. tmp .. '"')
