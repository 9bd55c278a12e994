-- The plot module: learning curves and confusion matrices as PNG (read back and probed pixel by
-- pixel) and SVG (parsed), nice ticks, and errors for bad input.
local plot = require 'plot'
local axes = require 'plot.axes'
local data = require 'data'
local tester = torch.Tester()
local tests = torch.TestSuite()

local tmp = (os.getenv('TOCHA_TEST_TMP') or '/tmp') .. '/plot'
os.execute('rm -rf "' .. tmp .. '" && mkdir -p "' .. tmp .. '"')

local FILES = dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/helpers/files.lua')
local read = FILES.read

-- Pixels of a region of an image (3 x H x W bytes) equal to color.
local function count_color(img, color, y0, y1, x0, x1)
  local n = 0
  for y = y0, y1 do
    for x = x0, x1 do
      if img[1][y][x] == color[1] and img[2][y][x] == color[2] and img[3][y][x] == color[3] then n = n + 1 end
    end
  end
  return n
end

function tests.ticksAreNice()
  local t, step = axes.ticks(0, 1, 5)
  tester:asserteq(step, 0.2)
  tester:asserteq(#t, 6)
  t, step = axes.ticks(0.37, 2.31, 5)
  tester:asserteq(step, 0.5)
  tester:assertalmosteq(t[1], 0.5, 1e-12)
  tester:asserteq(axes.label(0.5, 0.5), '0.5')
  tester:asserteq(axes.label(3, 1), '3')
  tester:asserteq(axes.label(1e-17, 0.1), '0.0')
  local lo, hi = axes.range({ 2, 2 })
  tester:assert(lo < 2 and hi > 2, 'a flat series gets a range')
end

function tests.learningCurvesPng()
  local path = tmp .. '/curves.png'
  local ret = plot.lines{ path = path, title = 'Learning curves', xlabel = 'epoch', ylabel = 'loss',
    series = { { name = 'train', y = { 2.3, 1.2, 0.8, 0.6, 0.5 } },
               { name = 'validation', x = { 1, 2, 3, 4, 5 }, y = torch.Tensor({ 2.2, 1.3, 0 / 0, 0.8, 0.9 }) } } }
  tester:asserteq(ret, path)
  tester:asserteq(read(path):sub(2, 4), 'PNG')
  local img = data.image.load(path, { type = 'byte' })
  tester:assertTableEq(img:size():totable(), { 3, 500, 800 })
  tester:asserteq(img[1][2][2], 255)  -- white background
  local blue, orange = axes.palette[1], axes.palette[2]
  tester:assertgt(count_color(img, blue, 1, 500, 1, 800), 300, 'the train curve is drawn')
  tester:assertgt(count_color(img, orange, 1, 500, 1, 800), 200, 'the validation curve is drawn')
  tester:assertgt(count_color(img, { 0, 0, 0 }, 1, 40, 250, 550), 50, 'a title at the top')
  tester:assertgt(count_color(img, { 0, 0, 0 }, 100, 400, 1, 30), 20, 'a vertical y label on the left')
  -- A custom size, a single point, many points.
  local many = {}
  for i = 1, 500 do many[i] = math.sin(i / 30) end
  plot.lines{ path = tmp .. '/small.png', width = 300, height = 200, series = { { name = 'one', y = { 1 } }, { y = many } } }
  tester:assertTableEq(data.image.load(tmp .. '/small.png'):size():totable(), { 3, 200, 300 })
end

function tests.learningCurvesSvg()
  local path = tmp .. '/curves.svg'
  plot.lines{ path = path, title = 'A & B <loss>', series = { { name = 'train', y = { 1, 0.5 } }, { name = 'val', y = { 1.1, 0.7 } } } }
  local s = read(path)
  tester:assert(s:find('^<svg xmlns="http://www.w3.org/2000/svg"'), 'an svg document')
  tester:assert(s:find('</svg>\n$'), 'closed')
  local _, polylines = s:gsub('<polyline', '')
  tester:asserteq(polylines, 2)
  tester:assert(s:find('A &amp; B &lt;loss&gt;', 1, true), 'escaped title')
  tester:assert(not s:find('A & B', 1, true))
end

function tests.confusionMatrixImage()
  local m = torch.Tensor({ { 50, 2, 3 }, { 4, 40, 6 }, { 0, 1, 59 } })
  local path = plot.confusion{ path = tmp .. '/cm.png', matrix = m, labels = { 'cat', 'dog', 'bird' }, title = 'Confusion' }
  local img = data.image.load(path, { type = 'byte' })
  -- Cells are shaded by value: the diagonal's large counts are darker than the small ones.
  local cell_center = function(i, j)
    -- Find the grid from its black frame: the first dark row/column of the image's middle.
    local H, W = img:size(2), img:size(3)
    local left, top
    for x = 1, W do if img[1][math.floor(H / 2)][x] == 0 and img[2][math.floor(H / 2)][x] == 0 and x > 60 then left = x break end end
    for y = 1, H do if img[1][y][left + 5] == 0 then top = y break end end
    local cell = 64  -- 640 / 3 capped at 64
    return img[1][top + (i - 1) * cell + 4][left + (j - 1) * cell + 4]
  end
  tester:assertlt(cell_center(3, 3), cell_center(1, 1))
  tester:assertlt(cell_center(1, 1), cell_center(2, 3))
  tester:assertlt(cell_center(2, 3), cell_center(3, 1) + 1)
  plot.confusion{ path = tmp .. '/cm.svg', matrix = { { 1, 0 }, { 2, 3 } }, normalize = true }
  tester:assert(read(tmp .. '/cm.svg'):find('0.40', 1, true), 'normalized rows (2 / 5)')
end

function tests.badInputIsAClearError()
  local function fails(pattern, f)
    local ok, err = pcall(f)
    tester:assert(not ok, 'expected an error matching ' .. pattern)
    tester:assert(tostring(err):find(pattern, 1, true), tostring(err))
  end
  fails('unknown extension', function() plot.lines{ path = tmp .. '/x.bmp', series = {} } end)
  fails('series[1] has 2 x values and 3 y values', function()
    plot.lines{ path = tmp .. '/x.png', series = { { x = { 1, 2 }, y = { 1, 2, 3 } } } }
  end)
  fails('series[1].y[2] is a string', function() plot.lines{ path = tmp .. '/x.png', series = { { y = { 1, 'a' } } } } end)
  fails('row 2 has 1 values, expected 2', function() plot.confusion{ path = tmp .. '/x.png', matrix = { { 1, 2 }, { 3 } } } end)
  fails('cannot write', function() plot.lines{ path = tmp .. '/no/such/dir/x.svg', series = {} } end)
end

tester:add(tests)
tester:run()
