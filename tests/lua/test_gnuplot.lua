-- Torch7's gnuplot package drawn by Tocha's plot backends: the files written (PNG read back,
-- SVG parsed as XML), series and legends, histograms against torch.histc, heat-map pixels in
-- the data's order, splot's heat map, figures without a file, formats and settings.
require 'gnuplot'
local data = require 'data'
local figures = require 'gnuplot.figures'
local tester = torch.Tester()
local tests = torch.TestSuite()

local tmp = (os.getenv('TOCHA_TEST_TMP') or '/tmp') .. '/gnuplot_' .. tostring(os.time()) .. '_' .. tostring(math.random(1, 1e9))
os.execute('rm -rf "' .. tmp .. '" && mkdir -p "' .. tmp .. '"')
local HERE = debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.'
local read = dofile(HERE .. '/helpers/files.lua').read
local PALETTE = require('gnuplot.chart').palette

-- A small XML reader: the document's elements as {name=, attrs={...}, text=...} in order, after
-- checking that tags nest and close, attributes are quoted and text holds no raw < or stray &.
local function parse_xml(s)
  local elements, stack, pos = {}, {}, 1
  while true do
    local a, b = s:find('<[^>]*>', pos)
    local text = s:sub(pos, (a or #s + 1) - 1)
    assert(not text:find('<', 1, true), 'a raw < in text')
    assert(not text:gsub('&%a+;', ''):gsub('&#%d+;', ''):find('&', 1, true), 'a stray & in text')
    if #stack > 0 and text:match('%S') then stack[#stack].text = (stack[#stack].text or '') .. text end
    if not a then break end
    local tag = s:sub(a + 1, b - 1)
    if tag:sub(1, 1) == '/' then
      local top = table.remove(stack)
      assert(top and top.name == tag:sub(2), 'mismatched </' .. tag:sub(2) .. '>')
    elseif tag:sub(1, 1) ~= '?' then
      local name, rest = tag:match('^([%w:%-]+)(.-)$')
      assert(name, 'bad tag <' .. tag .. '>')
      local closed = rest:sub(-1) == '/'
      if closed then rest = rest:sub(1, -2) end
      local attrs = {}
      local left = rest:gsub('%s+([%w:%-]+)="([^"<]*)"', function(k, v) attrs[k] = v return '' end)
      assert(not left:match('%S'), 'unquoted attribute in <' .. tag .. '>')
      local el = { name = name, attrs = attrs }
      elements[#elements + 1] = el
      if not closed then stack[#stack + 1] = el end
    end
    pos = b + 1
  end
  assert(#stack == 0, 'unclosed <' .. (stack[1] and stack[1].name or '?') .. '>')
  return elements
end

local function count(elements, name, pred)
  local n = 0
  for _, e in ipairs(elements) do if e.name == name and (not pred or pred(e)) then n = n + 1 end end
  return n
end

local function rgb(c) return string.format('rgb(%d,%d,%d)', c[1], c[2], c[3]) end

-- Pixels of the image (3 x H x W bytes) equal to color.
local function count_color(img, c)
  local r, g, b = img[1]:eq(c[1]), img[2]:eq(c[2]), img[3]:eq(c[3])
  return r:cmul(g):cmul(b):sum()
end

local function pixel(img, x, y) return { img[1][y][x], img[2][y][x], img[3][y][x] } end

function tests.pngFigureIsAPng()
  gnuplot.closeall()
  local path = tmp .. '/lines.png'
  tester:asserteq(gnuplot.pngfigure(path), 1)
  local x = torch.linspace(0, 6, 40)
  gnuplot.plot({ 'sin', x, torch.sin(x), '-' }, { 'cos', x, torch.cos(x), '+' })
  gnuplot.xlabel('x')
  gnuplot.ylabel('y')
  gnuplot.title('Waves')
  gnuplot.plotflush()
  local bytes = read(path)
  tester:asserteq(bytes:sub(1, 8), '\137PNG\r\n\26\n', 'the PNG signature')
  tester:asserteq(bytes:sub(13, 16), 'IHDR')
  local img = data.image.load(path, { type = 'byte' })
  tester:assertTableEq(img:size():totable(), { 3, 480, 640 })
  tester:assertgt(count_color(img, PALETTE[1]), 300, 'the first series in Torch7 line colour 1')
  tester:assertgt(count_color(img, PALETTE[2]), 200, 'the second series in colour 2')
  tester:asserteq(count_color(img, PALETTE[3]), 0, 'no third series')
  tester:assertTableEq(pixel(img, 2, 2), { 255, 255, 255 }, 'a white background')
end

function tests.svgFigureSeriesLegendTitle()
  gnuplot.closeall()
  local path = tmp .. '/lines.svg'
  gnuplot.svgfigure(path)
  gnuplot.title('Loss & <accuracy>')  -- set before the plot: kept for it
  local y = torch.Tensor({ 2.3, 1.1, 0.7, 0.5, 0.45 })
  gnuplot.plot({ 'train', y, '-' }, { 'validation', torch.range(1, 5), y + 0.2, '-' }, { y * 0.5, '-' })
  local els = parse_xml(read(path))
  tester:asserteq(els[1].name, 'svg')
  tester:asserteq(els[1].attrs.width, '640')
  tester:asserteq(count(els, 'polyline'), 3, 'one polyline per series')
  for i = 1, 3 do
    tester:asserteq(count(els, 'polyline', function(e) return e.attrs.stroke == rgb(PALETTE[i]) end), 1)
  end
  local texts = {}
  for _, e in ipairs(els) do if e.name == 'text' then texts[e.text] = (texts[e.text] or 0) + 1 end end
  tester:asserteq(texts['train'], 1, 'the legend names the series')
  tester:asserteq(texts['validation'], 1)
  tester:asserteq(texts['Loss &amp; &lt;accuracy&gt;'], 1, 'the title, escaped')
  -- the key has an entry per named series only (the third has no name, as gnuplot's title '')
  local samples = count(els, 'line', function(e) return e.attrs['stroke-width'] == '2' end)
  tester:asserteq(samples, 2)
end

function tests.plotForms()
  gnuplot.closeall()
  local path = tmp .. '/forms.svg'
  gnuplot.svgfigure(path)
  local polylines = function() return count(parse_xml(read(path)), 'polyline') end
  gnuplot.plot(torch.Tensor({ 1, 3, 2 }))                        -- y alone
  tester:asserteq(polylines(), 1)
  gnuplot.plot({ 1, 2, 3 }, { 3, 1, 2 }, '-')                      -- Lua lists
  tester:asserteq(polylines(), 1)
  gnuplot.plot(torch.Tensor({ { 1, 2, 5 }, { 2, 3, 6 }, { 3, 1, 4 } }))  -- columns: x, y1, y2
  tester:asserteq(polylines(), 2)
  gnuplot.plot({ { 'a', torch.Tensor({ 1, 2 }) }, { 'b', torch.Tensor({ 2, 1 }) } })  -- one list of series
  tester:asserteq(polylines(), 2)
  gnuplot.plot(torch.IntTensor({ 1, 2, 3 }), torch.FloatTensor({ 1, 4, 9 }), 'with lines lw 2')
  tester:asserteq(polylines(), 1)
  -- points, dots, boxes and impulses draw no polyline; splines one
  for _, f in ipairs({ '+', '.', '|', 'impulses' }) do
    gnuplot.plot(torch.Tensor({ 1, 3, 2 }), f)
    tester:asserteq(polylines(), 0, f)
  end
  gnuplot.plot(torch.Tensor({ 1, 3, 2, 5 }), '~')
  local pts = parse_xml(read(path))
  for _, e in ipairs(pts) do
    if e.name == 'polyline' then
      local _, n = e.attrs.points:gsub(',', '')
      tester:asserteq(n, 300, 'a cubic spline sampled at 300 points')
    end
  end
  -- vectors: (x, dx) and (y, dy) columns
  gnuplot.plot(torch.Tensor({ { 0, 1 }, { 1, 1 } }), torch.Tensor({ { 0, 1 }, { 1, -1 } }), 'v')
  tester:asserteq(polylines(), 2)
end

function tests.nanLeavesGapsAndLogScaleDropsNonPositive()
  gnuplot.closeall()
  local path = tmp .. '/gaps.svg'
  gnuplot.svgfigure(path)
  gnuplot.plot(torch.Tensor({ 1, 2, 0 / 0, 4, 5 }), '-')
  tester:asserteq(count(parse_xml(read(path)), 'polyline'), 2, 'NaN splits the line')
  gnuplot.plot(torch.Tensor({ 100, 10, 0, 1, 0.1 }), '-')
  gnuplot.logscale(true, 'y')
  local els = parse_xml(read(path))
  tester:asserteq(count(els, 'polyline'), 2, '0 has no place on a log axis')
  local labels = {}
  for _, e in ipairs(els) do if e.name == 'text' then labels[e.text] = true end end
  tester:assert(labels['100'] and labels['1'] and labels['0.1'], 'decade ticks')
  gnuplot.logscale(false)
  tester:asserteq(count(parse_xml(read(path)), 'polyline'), 1)
end

function tests.histCountsAreTorchHistc()
  gnuplot.closeall()
  torch.manualSeed(7)
  local x = torch.randn(2000)
  local path = tmp .. '/hist.svg'
  gnuplot.svgfigure(path)
  local h = gnuplot.hist(x, 25)
  tester:assertTensorEq(h.raw, torch.histc(x, 25, x:min(), x:max()):double(), 0)
  tester:asserteq(h.bins, 25)
  tester:assertalmosteq(h.binwidth, (x:max() - x:min()) / 25, 1e-12)
  tester:assertalmosteq(h[1].val, x:min() + h.binwidth / 2, 1e-12)
  tester:asserteq(h.raw:sum(), 2000)
  local fullest = h.raw:max()
  tester:asserteq(h.max.nb, fullest)
  local nonzero = h.raw:ne(0):sum()
  local els = parse_xml(read(path))
  tester:asserteq(count(els, 'rect', function(e) return e.attrs.fill == rgb(PALETTE[1]) end), nonzero, 'a box per non-empty bin')
  -- the default 10 bins, min and max given, other shapes
  tester:asserteq(gnuplot.histc(torch.rand(4, 5)).bins, 10)
  local h2 = gnuplot.hist(torch.Tensor({ 0.5, 1.5, 1.5, 2.5, 9 }), 3, 0, 3)
  tester:assertTensorEq(h2.raw, torch.DoubleTensor({ 1, 2, 1 }), 0, 'values past max are left out')
  tester:assertTensorEq(gnuplot.histc(torch.Tensor({ 2, 2 }), 4, nil, nil, true), torch.histc(torch.Tensor({ 2, 2 }), 4):double(), 0)
end

function tests.imagescPixelsFollowTheData()
  gnuplot.closeall()
  local path = tmp .. '/image.png'
  local n = gnuplot.pngfigure(path)
  gnuplot.imagesc(torch.Tensor({ { 1, 2, 3 }, { 4, 5, 6 } }), 'gray')
  local img = data.image.load(path, { type = 'byte' })
  local L = figures.list[n].layout
  local last = -1
  for i = 1, 2 do
    for j = 1, 3 do
      local x = math.floor(L.left + (j - 0.5) * L.w / 3) + 1
      local y = math.floor(L.top + (i - 0.5) * L.h / 2) + 1
      local p = pixel(img, x, y)
      tester:asserteq(p[1], p[2], 'gray')
      tester:assertgt(p[1], last, string.format('cell (%d, %d) lighter than the one before (row 1 on top)', i, j))
      last = p[1]
    end
  end
  tester:assertTableEq(pixel(img, math.floor(L.left + L.w / 6) + 1, math.floor(L.top + L.h / 4) + 1), { 0, 0, 0 })
  -- 'color': gnuplot's default palette runs from black to yellow
  gnuplot.imagesc(torch.Tensor({ { 0, 1 } }), 'color')
  img = data.image.load(path, { type = 'byte' })
  L = figures.list[n].layout
  local y = math.floor(L.top + L.h / 2) + 1
  tester:assertTableEq(pixel(img, math.floor(L.left + L.w / 4) + 1, y), { 0, 0, 0 })
  tester:assertTableEq(pixel(img, math.floor(L.left + 3 * L.w / 4) + 1, y), { 255, 255, 0 })
  -- SVG: one rect per cell for small matrices
  gnuplot.svgfigure(tmp .. '/image.svg')
  gnuplot.imagesc(torch.rand(4, 5))
  local els = parse_xml(read(tmp .. '/image.svg'))
  tester:asserteq(count(els, 'rect', function(e) return e.attrs.fill:match('^rgb%((%d+),%1,%1%)$') ~= nil end), 20 + 64 + 1,
    'the cells, the colour bar and the white background are gray')
end

function tests.splotIsAHeatMap()
  gnuplot.closeall()
  local path = tmp .. '/surface.png'
  gnuplot.pngfigure(path)
  local z = torch.Tensor(6, 4)
  for i = 1, 6 do for j = 1, 4 do z[i][j] = i * 10 + j end end
  gnuplot.splot(z)
  gnuplot.zlabel('height')
  tester:assertTableEq(data.image.load(path):size():totable(), { 3, 480, 640 })
  -- x along the columns (meshgrid) works too
  local xs = torch.linspace(0, 1, 4):view(1, 4):expand(6, 4):clone()
  local ys = torch.linspace(0, 5, 6):view(6, 1):expand(6, 4):clone()
  gnuplot.splot('surface', xs, ys, z)
end

function tests.figuresWithoutAFileAreDefaultPngs()
  gnuplot.closeall()
  local saved, printed = figures.dir, {}
  figures.dir = tmp
  local old_print = print
  print = function(...) printed[#printed + 1] = table.concat({ ... }, ' ') end
  local ok, err = pcall(function()
    gnuplot.plot(torch.Tensor({ 1, 2, 3 }))   -- no figure yet: figure 1, as Torch7's window
    gnuplot.title('again')                    -- the path is printed once
    tester:asserteq(gnuplot.figure(), 2)
    gnuplot.plotflush(5)
    gnuplot.setterm('svg')                    -- window figures as SVG files
    gnuplot.plot(torch.Tensor({ 1, 2 }))      -- figure 2
  end)
  print = old_print
  figures.dir = saved
  gnuplot.setterm('x11')                      -- a window terminal: PNG files again
  tester:asserteq(figures.windowTerm, 'png')
  tester:assert(ok, tostring(err))
  tester:asserteq(read(tmp .. '/gnuplot1.png'):sub(2, 4), 'PNG')
  tester:assert(read(tmp .. '/gnuplot2.svg'):find('^<svg'), 'setterm svg')
  tester:asserteq(#printed, 3)
  tester:assert(printed[1]:find(tmp .. '/gnuplot1.png', 1, true), printed[1])
  tester:asserteq(printed[2], 'no figure 5')
end

function tests.figureNumbersAndFiles()
  gnuplot.closeall()
  tester:asserteq(gnuplot.pngfigure(tmp .. '/one.png'), 1)
  tester:asserteq(gnuplot.svgfigure(tmp .. '/two.svg'), 2)
  tester:asserteq(gnuplot.pngfigure(tmp .. '/seven.dat', 7), 7)
  gnuplot.bar(torch.Tensor({ 3, 1, 2 }))
  tester:asserteq(read(tmp .. '/seven.dat'):sub(1, 8), '\137PNG\r\n\26\n', 'PNG bytes whatever the name')
  gnuplot.title('old')
  tester:asserteq(gnuplot.pngfigure(tmp .. '/seven.dat'), 7, 'the same file: the same figure')
  tester:asserteq(figures.list[7].title, nil, 'with fresh settings')
  gnuplot.bar(torch.Tensor({ 3, 1, 2 }))
  gnuplot.figprint(tmp .. '/seven_copy.svg')
  tester:assert(read(tmp .. '/seven_copy.svg'):find('^<svg'), 'figprint wrote an SVG copy')
  tester:asserteq(gnuplot.figure(2), 2)
  gnuplot.close(2)
  tester:asserteq(gnuplot.figure(), 2, 'the freed number is reused')
  gnuplot.closeall()
  tester:asserteq(gnuplot.figure(), 1)
end

function tests.settingsChangeTheDrawing()
  gnuplot.closeall()
  local path = tmp .. '/settings.svg'
  gnuplot.svgfigure(path)
  gnuplot.plot({ 'a', torch.Tensor({ 1, 2, 3 }) })
  local function texts()
    local t = {}
    for _, e in ipairs(parse_xml(read(path))) do if e.name == 'text' then t[e.text] = true end end
    return t
  end
  gnuplot.axis({ 0, 10, '', '' })
  tester:assert(texts()['10'], 'the x range set by axis')
  gnuplot.axis({ '', '', -10, 10 })
  local t = texts()
  tester:assert(t['10'] and t['-5'] and t['5'], "'' keeps an end")
  gnuplot.axis('auto')
  tester:assert(not texts()['10'])
  local dashed = function() return count(parse_xml(read(path)), 'line', function(e) return e.attrs['stroke-dasharray'] end) end
  tester:asserteq(dashed(), 0, 'no grid by default, as gnuplot')
  gnuplot.grid(true)
  tester:assertgt(dashed(), 4)
  gnuplot.grid(false)
  gnuplot.movelegend('left', 'bottom')
  gnuplot.axis('equal')
  gnuplot.raw('set title "from raw"; set xlabel \'epoch\'')
  gnuplot.raw('set key box # a comment')
  gnuplot.raw('set xtics ("one" 1, "two" 2, "three" 3)')
  gnuplot.raw('set style data lines')  -- only the looks: ignored
  gnuplot.plotflush()
  t = texts()
  tester:assert(t['from raw'] and t['epoch'] and t['two'], 'raw settings apply at the next flush')
  -- the plot keeps a copy of its data, as gnuplot received one
  local y = torch.Tensor({ 1, 2, 3 })
  gnuplot.plot(y)
  local before = read(path)
  y:fill(7)
  gnuplot.plotflush()
  tester:asserteq(read(path), before)
end

tester:add(tests)
tester:run()
os.execute('rm -rf "' .. tmp .. '"')
