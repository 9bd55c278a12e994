-- Regressions found in review of the plot module (lua/plot), optim.Logger and
-- optim.ConfusionMatrix: raster crashes and hangs on non-finite or overflowing coordinates,
-- unreadable tick labels, invalid SVG text, confusion images of fractions, errors that did not
-- name the function, and Logger/ConfusionMatrix edge cases checked against Torch7's semantics.
-- (The SVG files were also parsed with Python's xml.etree and the PNGs opened with Pillow while
-- these tests were written; at test time they are read back with libpng and checked as text.)
require 'optim'
local plot = require 'plot'
local axes = require 'plot.axes'
local data = require 'data'
local tester = torch.Tester()
local tests = torch.TestSuite()

local tmp = (os.getenv('TOCHA_TEST_TMP') or '/tmp') .. '/plot_logger_regressions'
os.execute('rm -rf "' .. tmp .. '" && mkdir -p "' .. tmp .. '"')

local FILES = dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/helpers/files.lua')
local read = FILES.read

local function fails(pattern, f, ...)
  local ok, err = pcall(f, ...)
  tester:assert(not ok, 'expected an error matching ' .. pattern)
  tester:assert(tostring(err):find(pattern, 1, true), 'got: ' .. tostring(err))
end

-- The text of every <text> element of an SVG document, in order.
local function svg_texts(s)
  local out = {}
  for t in s:gmatch('<text[^>]*>([^<]*)</text>') do out[#out + 1] = t end
  return out
end

-- An SVG document as XML: only characters XML 1.0 allows, no non-finite numbers in attributes.
local function assert_clean_svg(s, what)
  tester:assert(s:find('^<svg ') and s:find('</svg>\n$'), what .. ': a closed svg document')
  tester:assert(not s:find('[%z\1-\8\11\12\14-\31]'), what .. ': no control characters')
  tester:assert(not s:find('="[^"]*nan') and not s:find('="[^"]*inf'), what .. ': finite coordinates')
end

-- ---- plot: non-finite and overflowing coordinates ---------------------------------------------

function tests.overflowingRangeDrawsWithoutCrashing()
  -- hi - lo overflowed to inf: every coordinate became NaN, the PNG backend wrote pixels at
  -- NaN offsets (segfault) and its Bresenham loop never met its end point
  for _, ext in ipairs({ 'png', 'svg' }) do
    local path = tmp .. '/huge.' .. ext
    plot.lines{ path = path, series = { { name = 'huge', y = { -1e308, 1e308, 1.7e308 } } } }
    if ext == 'svg' then
      local s = read(path)
      assert_clean_svg(s, 'huge')
      tester:assertgt(#svg_texts(s), 6, 'y ticks are labelled')
      local _, polylines = s:gsub('<polyline', '')
      tester:asserteq(polylines, 1)
    else
      local img = data.image.load(path, { type = 'byte' })
      tester:assertTableEq(img:size():totable(), { 3, 500, 800 })
      local blue = axes.palette[1]
      local hits = img[1]:eq(blue[1]):cmul(img[2]:eq(blue[2])):cmul(img[3]:eq(blue[3])):sum()
      tester:assertgt(hits, 100, 'the curve is drawn')
    end
  end
  local ticks, step = axes.ticks(-1.7e308, 1.7e308, 5)
  tester:assert(#ticks >= 3 and step < math.huge, 'ticks over a range wider than the largest double')
end

function tests.degenerateLimitsAreErrors()
  -- xlim = {1, 1} divided by zero (segfault in the PNG backend); reversed or non-finite limits
  -- drew nothing and said nothing
  fails('[plot.lines] xlim must be {lo, hi} with finite lo < hi', plot.lines,
    { path = tmp .. '/x.png', xlim = { 1, 1 }, series = { { y = { 1, 2 } } } })
  fails('[plot.lines] ylim must be {lo, hi} with finite lo < hi', plot.lines,
    { path = tmp .. '/x.svg', ylim = { 2, 1 }, series = { { y = { 1, 2 } } } })
  fails('[plot.lines] ylim must be {lo, hi}', plot.lines, { path = tmp .. '/x.svg', ylim = 3, series = {} })
  fails('[plot.lines] xlim must be {lo, hi}', plot.lines,
    { path = tmp .. '/x.svg', xlim = { 0, math.huge }, series = {} })
end

function tests.tinyConstantSeriesGetsARange()
  -- a constant series of 5e-324 widened its range by 0.1 * 5e-324 = 0: a zero span, NaN
  -- coordinates, and a PNG backend looping forever
  local lo, hi = axes.range({ 5e-324 })
  tester:assert(lo < 5e-324 and hi > 5e-324, 'a subnormal constant gets a range')
  lo, hi = axes.range({ 1.7e308, 1.7e308 })
  tester:assert(lo < 1.7e308 and hi > 1.7e308 and hi < math.huge, 'the largest doubles get a finite range')
  lo, hi = axes.range({ -1.7e308, 1.7e308 }, 0.05)
  tester:assert(lo > -math.huge and hi < math.huge, 'padding stays finite')
  plot.lines{ path = tmp .. '/tiny.png', series = { { y = { 5e-324, 5e-324 } } } }
  tester:asserteq(data.image.load(tmp .. '/tiny.png'):size(2), 500)
end

function tests.rasterIgnoresNonFiniteAndFarCoordinates()
  -- the canvas itself: NaN coordinates wrote out of bounds; a segment to 1e12 looped 1e12 times
  local canvas = require('plot.raster').new(20, 10)
  local t0 = os.clock()
  canvas:line(0 / 0, 1, 5, 5, { 0, 0, 0 })
  canvas:line(1, 1, math.huge, 5, { 0, 0, 0 })
  canvas:dashed(0, 0, math.huge, 0, { 0, 0, 0 })
  canvas:rect(0 / 0, 0, 5, 5, { 0, 0, 0 })
  canvas:pixel(0 / 0, 0 / 0, { 0, 0, 0 })
  canvas:line(-1e12, 5, 1e12, 5, { 255, 0, 0 })
  tester:assertlt(os.clock() - t0, 1, 'far segments are clipped to the canvas')
  tester:asserteq(canvas.img:select(3, 2):eq(0):sum(), 20, 'the clipped line crosses the canvas once')
  tester:asserteq(canvas.img[2][2][2], 255, 'nothing drawn for non-finite coordinates')
end

-- ---- plot: labels and text ---------------------------------------------------------------------

function tests.tickLabelsTellTicksApart()
  -- '%.2g' printed 1000000, 1000500, ... all as 1e+06; a range near 1e-200 asked
  -- string.format for 201 decimals (a raw Lua error)
  local ticks, step = axes.ticks(1000000, 1002000, 5)
  local seen = {}
  for _, v in ipairs(ticks) do
    local l = axes.label(v, step)
    tester:assert(not seen[l], 'duplicate tick label ' .. l)
    seen[l] = true
    tester:assertalmosteq(tonumber(l), v, step * 1e-6, 'the label reads as its value')
  end
  ticks, step = axes.ticks(1.00e-5, 1.01e-5, 5)
  seen = {}
  for _, v in ipairs(ticks) do
    local l = axes.label(v, step)
    tester:assert(not seen[l], 'duplicate tick label ' .. l)
    seen[l] = true
  end
  tester:asserteq(axes.label(0, 2e-201), '0')
  plot.lines{ path = tmp .. '/small.svg', series = { { y = { 0, 1e-200 } } } }
  assert_clean_svg(read(tmp .. '/small.svg'), 'small')
end

function tests.svgTextIsValidXml()
  -- control characters and invalid UTF-8 made the document unparsable; &, <, > and quotes
  -- must be escaped
  local path = tmp .. '/text.svg'
  plot.lines{ path = path, title = 'a\1b\0c\27', xlabel = 'caf\233 \226\130\172', ylabel = '"q" & \'s\' <x>',
    series = { { name = 'ok \226\130\172 \239\191\191', y = { 1, 2 } } } }
  local s = read(path)
  assert_clean_svg(s, 'text')
  local texts = svg_texts(s)
  local all = table.concat(texts, '|')
  tester:assert(all:find('a?b?c?', 1, true), 'control characters shown as ?')
  tester:assert(all:find('caf? \226\130\172', 1, true), 'a Latin-1 byte as ?, valid UTF-8 kept')
  tester:assert(all:find('&quot;q&quot; &amp; \'s\' &lt;x&gt;', 1, true), 'escaped: ' .. all)
  tester:assert(all:find('ok \226\130\172 ?', 1, true), 'U+FFFF (not an XML character) as ?')
  -- the confusion heat map's labels go through the same escaping
  plot.confusion{ path = tmp .. '/cmtext.svg', matrix = { { 1, 0 }, { 0, 1 } }, labels = { '<a>', 'b&\2' } }
  s = read(tmp .. '/cmtext.svg')
  assert_clean_svg(s, 'confusion')
  tester:assert(s:find('&lt;a&gt;', 1, true) and s:find('b&amp;?', 1, true))
end

-- ---- plot: argument checking -------------------------------------------------------------------

function tests.badPlotArgumentsNameTheFunction()
  fails('[plot.lines] width must be a positive integer, got 300.5', plot.lines,
    { path = tmp .. '/x.png', width = 300.5, series = {} })
  fails('[plot.lines] height must be a positive integer, got 200', plot.lines,
    { path = tmp .. '/x.png', height = '200', series = {} })
  -- a 2-D tensor was flattened into one series without a word
  fails('[plot.lines] series[1].y must be a list of numbers or a 1D tensor, got a 3x2 tensor', plot.lines,
    { path = tmp .. '/x.svg', series = { { y = torch.Tensor(3, 2):fill(1) } } })
  fails('[plot.lines] series[1].color must be {r, g, b} in 0..255', plot.lines,
    { path = tmp .. '/x.png', series = { { y = { 1, 2 }, color = { 300, 0, 0 } } } })
  -- one series not wrapped in a list drew empty axes
  fails('[plot.lines] series must be a list of {name=, x=, y=}: wrap a single series in {}', plot.lines,
    { path = tmp .. '/x.svg', series = { name = 'loss', y = { 1, 2 } } })
  fails('[plot.confusion] path must be a .png or .svg file name, got nil', plot.confusion, { matrix = { { 1 } } })
  fails('[plot.lines] path must be a .png or .svg file name, got nil', plot.lines, { series = {} })
  fails('[plot.confusion] ' .. tmp .. '/x.jpg: unknown extension', plot.confusion, { path = tmp .. '/x.jpg', matrix = { { 1 } } })
  fails('[plot.confusion] matrix[1][2] must be a finite count >= 0, got -1', plot.confusion,
    { path = tmp .. '/x.png', matrix = { { 1, -1 }, { 0, 1 } } })
  fails('[plot.confusion] matrix[2][1] must be a finite count >= 0, got nan', plot.confusion,
    { path = tmp .. '/x.png', matrix = { { 1, 0 }, { 0 / 0, 1 } } })
  fails('[plot.confusion] matrix[1][1] must be a finite count >= 0, got a string', plot.confusion,
    { path = tmp .. '/x.png', matrix = { { 'a' } } })
end

function tests.writeErrorsNameTheFunction()
  -- the PNG backend's error named [io], not the plot function
  fails('[plot.lines] ' .. tmp .. '/no/such/dir/x.png: cannot write', plot.lines,
    { path = tmp .. '/no/such/dir/x.png', series = {} })
  fails('[plot.lines] ' .. tmp .. '/no/such/dir/x.svg: cannot write', plot.lines,
    { path = tmp .. '/no/such/dir/x.svg', series = {} })
  fails('[plot.confusion] ' .. tmp .. '/no/such/dir/x.png: cannot write', plot.confusion,
    { path = tmp .. '/no/such/dir/x.png', matrix = { { 1 } } })
end

-- ---- plot.confusion ----------------------------------------------------------------------------

function tests.confusionShowsFractionsAsFractions()
  -- a matrix of fractions (already normalized, or averaged) was printed with %d: all 0 and 1
  plot.confusion{ path = tmp .. '/frac.svg', matrix = torch.Tensor({ { 0.4, 0.6 }, { 0.25, 0.75 } }) }
  local texts = svg_texts(read(tmp .. '/frac.svg'))
  tester:assertTableEq({ texts[1], texts[2], texts[3], texts[4] }, { '0.40', '0.60', '0.25', '0.75' })
  plot.confusion{ path = tmp .. '/count.svg', matrix = torch.LongTensor({ { 3, 1 }, { 0, 12 } }) }
  texts = svg_texts(read(tmp .. '/count.svg'))
  tester:assertTableEq({ texts[1], texts[2], texts[3], texts[4] }, { '3', '1', '0', '12' })
end

function tests.confusionImageOfAConfusionMatrix()
  -- an optim.ConfusionMatrix (a Lua table) was read as an empty list of rows
  local cm = optim.ConfusionMatrix({ 'cat', 'dog' })
  cm:batchAdd(torch.LongTensor({ 1, 2, 2 }), torch.LongTensor({ 1, 1, 2 }))
  plot.confusion{ path = tmp .. '/cmobj.svg', matrix = cm }
  local texts = svg_texts(read(tmp .. '/cmobj.svg'))
  tester:assertTableEq({ texts[1], texts[2], texts[3], texts[4], texts[5] }, { '1', '1', '0', '1', 'cat' },
    'its counts, and its class names as labels')
end

function tests.confusionOfManyClassesStaysSmall()
  -- 24-pixel cells at any size: 1000 classes made a 24000 x 24000 image (1.7 GB, minutes)
  local n = 300
  local m = torch.LongTensor(n, n):zero()
  for i = 1, n do m[i][i] = 5 end
  local t0 = os.clock()
  plot.confusion{ path = tmp .. '/many.png', matrix = m }
  local img = data.image.load(tmp .. '/many.png', { type = 'byte' })
  tester:assertle(img:size(2), 2600)
  tester:assertle(img:size(3), 2600)
  tester:assertlt(os.clock() - t0, 20)
end

-- ---- optim.Logger ------------------------------------------------------------------------------

function tests.loggerRefusesAColumnGivenTwice()
  -- add{0.1, train = 0.2} wrote one of the two values (whichever pairs() met last)
  local path = tmp .. '/twice.log'
  local logger = optim.Logger(path)
  logger:setNames({ 'train', 'val' })
  fails("[optim.Logger] column train is given twice (as 1 and as 'train')", logger.add, logger, { 0.1, train = 0.2 })
  logger:add({ 1, 2 })
  logger.file:close()
  tester:asserteq(read(path), 'train\tval\t\n 1.0000e+00\t 2.0000e+00\t\n', 'the refused row wrote nothing')
end

function tests.loggerRefusesTwoColumnsOfOneName()
  -- add{loss = v} filled the second 'loss' column while plot() drew the first
  local logger = optim.Logger(tmp .. '/dupnames.log')
  fails('[optim.Logger] setNames: columns 1 and 3 are both named loss', logger.setNames, logger, { 'loss', 'acc', 'loss' })
  logger:setNames({ 'loss', 'acc' })
  logger.file:close()
  tester:asserteq(read(tmp .. '/dupnames.log'), 'loss\tacc\t\n')
end

function tests.loggerKeepsRowsOnOneLine()
  -- a string with a tab or a newline split its row (a column shifted, or a new row)
  local path = tmp .. '/tabs.log'
  local logger = optim.Logger(path)
  logger:setNames({ 'note', 'v' })
  logger:add({ 'a\tb', 1 })
  logger:add({ 'c\nd\r', 2 })
  logger.file:close()
  tester:asserteq(read(path), 'note\tv\t\na b\t 1.0000e+00\t\nc d \t 2.0000e+00\t\n')
  local names = optim.Logger(tmp .. '/tabnames.log')
  names:add({ ['x\ty'] = 1 })
  names.file:close()
  tester:asserteq(read(tmp .. '/tabnames.log'), 'x y\t\n 1.0000e+00\t\n')
end

function tests.loggerPlotsValuesAtTheirEntries()
  -- a column logged every other row (missing cells, strings) was plotted at x = 1, 2, 3 ...
  -- instead of its entries: curves of different columns did not line up
  local logger = optim.Logger(tmp .. '/sparse.log')
  logger:setNames({ 'train', 'val' })
  logger.plotFile = tmp .. '/sparse.svg'
  for i = 1, 6 do
    if i % 2 == 0 then logger:add({ 1 / i, 2 / i }) elseif i == 3 then logger:add({ 1 / i, 'n/a' })
    else logger:add({ 1 / i }) end
  end
  logger.file:close()
  tester:assertTableEq(logger.symbols[2], { 1, 'n/a', 0.5, 1 / 3 }, 'symbols keep Torch7\'s lists of logged values')
  logger:style({ train = '-', val = '-' })
  for _, module in ipairs({ true, false }) do
    logger.usePlotModule = module
    local s = read(logger:plot())
    local curves = {}
    for pts in s:gmatch('points="([^"]*)"') do curves[#curves + 1] = pts end
    tester:asserteq(#curves, 2)
    local xs = {}
    for _, c in ipairs(curves) do
      local list = {}
      for x in c:gmatch('([%d.]+),') do list[#list + 1] = tonumber(x) end
      xs[#xs + 1] = list
    end
    tester:asserteq(#xs[1], 6)
    tester:asserteq(#xs[2], 3)
    -- val's points sit at train's 2nd, 4th and 6th x positions
    for k = 1, 3 do tester:assertalmosteq(xs[2][k], xs[1][2 * k], 0.051, 'entry ' .. 2 * k) end
  end
end

function tests.loggerPlotWriteErrorNamesLogger()
  local logger = optim.Logger(tmp .. '/werr.log')
  logger.plotFile = tmp .. '/no/such/dir/werr.svg'
  logger:add({ a = 1 })
  logger:add({ a = 2 })
  logger.usePlotModule = false
  fails('[optim.Logger] plot cannot draw ' .. tmp .. '/no/such/dir/werr.svg: ', logger.plot, logger)
  logger.usePlotModule = true
  fails('[optim.Logger] plot cannot draw ' .. tmp .. '/no/such/dir/werr.svg: ', logger.plot, logger)
  logger.file:close()
end

-- ---- optim.ConfusionMatrix ---------------------------------------------------------------------

function tests.confusionPrintKeepsColumnsApart()
  -- the widened count columns had no separating space at exact powers of ten (10000000)
  local cm = optim.ConfusionMatrix(2)
  cm.mat[1][1], cm.mat[1][2], cm.mat[2][2] = 10000000, 10000000, 5
  local first = tostring(cm):match('\n(%[%[[^\n]*)\n')
  tester:asserteq(first, '[[ 10000000 10000000]   50.000% ')
  cm.mat[1][1], cm.mat[1][2] = 100000000, 99
  first = tostring(cm):match('\n(%[%[[^%]]*%])')
  tester:asserteq(first, '[[ 100000000        99]')
  -- counts below 10^7 keep Torch7's %8d columns
  cm:zero()
  cm.mat[1][1] = 9999999
  tester:asserteq(tostring(cm):match('\n(%[%[[^\n]*)\n'), '[[ 9999999       0]   100.000% ')
end

function tests.confusionRejectsBadClasses()
  local cm = optim.ConfusionMatrix(3)
  -- an infinite target was reported as "target -9223372036854775808"
  fails('[optim.ConfusionMatrix] target must be a class index, got inf', cm.add, cm, 1, math.huge)
  fails('[optim.ConfusionMatrix] prediction must be a class index, got -inf', cm.add, cm, -math.huge, 1)
  -- empty score vectors and N x 0 score matrices failed inside torch.max
  fails('[optim.ConfusionMatrix] expected a vector of class scores, got an empty tensor', cm.add, cm, torch.Tensor(0), 1)
  fails('[optim.ConfusionMatrix] predictions has no classes (size 2x0)', cm.batchAdd, cm, torch.Tensor(2, 0),
    torch.LongTensor({ 1, 2 }))
  fails('[optim.ConfusionMatrix] target 4 is not a class in 1..3', cm.batchAdd, cm, torch.LongTensor({ 1, 1 }),
    torch.ByteTensor({ 1, 4 }))
  -- scores for the wrong number of classes were counted whenever their argmax was a class
  fails('[optim.ConfusionMatrix] prediction has 2 scores for 3 classes', cm.add, cm, torch.Tensor({ 0.2, 0.8 }), 1)
  fails('[optim.ConfusionMatrix] target has 4 scores for 3 classes', cm.add, cm, 1, torch.Tensor({ 1, 0, 0, 0 }))
  fails('[optim.ConfusionMatrix] predictions has 4 scores per sample for 3 classes', cm.batchAdd, cm,
    torch.Tensor({ { 0.1, 0.9, 0, 0 }, { 0.8, 0.1, 0.1, 0 } }), torch.LongTensor({ 2, 1 }))
  tester:asserteq(cm.mat:sum(), 0, 'a refused batch counts nothing')
  -- an empty batch counts nothing
  cm:batchAdd(torch.LongTensor(0), torch.LongTensor(0))
  tester:asserteq(cm.mat:sum(), 0)
end

function tests.confusionAveragesAsTorch7()
  -- classes without samples (NaN valids) are left out of both averages; a class predicted but
  -- never a target has a union valid of 0 but is left out too (Torch7 checks valids first)
  local cm = optim.ConfusionMatrix({ 'a', 'b', 'c' })
  cm:batchAdd(torch.LongTensor({ 1, 1, 3, 2 }), torch.LongTensor({ 1, 1, 1, 2 }))
  cm:updateValids()
  tester:assert(cm.valids[3] ~= cm.valids[3], 'class c has no samples')
  tester:asserteq(cm.unionvalids[3], 0)
  tester:assertalmosteq(cm.averageValid, (2 / 3 + 1) / 2, 1e-7)
  tester:assertalmosteq(cm.averageUnionValid, (2 / 3 + 1) / 2, 1e-7)
  tester:assertalmosteq(cm.totalValid, 3 / 4, 1e-12)
  -- a one-hot CUDA-free stand-in: Byte one-hot targets and Float scores give the same counts
  local other = optim.ConfusionMatrix(3)
  other:batchAdd(torch.FloatTensor({ { 1, 0, 0 }, { .9, 0, .1 }, { 0, .2, .7 }, { 0, 1, 0 } }),
    torch.ByteTensor({ { 1, 0, 0 }, { 1, 0, 0 }, { 1, 0, 0 }, { 0, 1, 0 } }))
  tester:eq(other.mat, cm.mat, 0)
  if torch.CudaTensor and torch.cuda and torch.cuda.isAvailable and torch.cuda.isAvailable() then
    local gpu = optim.ConfusionMatrix(3)
    gpu:batchAdd(torch.Tensor({ 1, 1, 3, 2 }):cuda(), torch.Tensor({ 1, 1, 1, 2 }):cuda())
    gpu:add(torch.Tensor({ 0, 1, 0 }):cuda(), 2)
    cm:add(2, 2)
    tester:eq(gpu.mat, cm.mat, 0)
  end
end

tester:add(tests)
tester:run()
