-- The image package's colour spaces, kernels and display helpers (lua/image/color.lua,
-- kernels.lua, display.lua): rgb<->hsv and rgb<->hsl against Python's colorsys (the same
-- formulas; float64), rgb2lab against generic/image.c's formulas evaluated in Python, yuv and luma
-- in closed form, byte ranges, Torch7's gaussian/gaussian1D closed forms (computed in Python),
-- laplacian, convolve's modes, lcn, minmax, toDisplayTensor, drawRect, y2jet; and that every
-- public image function has a `---` doc with an example; and values shared with torchvision 0.14
-- (_rgb2hsv/_hsv2rgb, the Gaussian kernel) and PyTorch 1.13 (conv2d), computed in float64.
require 'image'
local tester = torch.Tester()
local tests = torch.TestSuite()

-- colorsys / closed-form values (see the header), computed in Python at the time, 10 decimals.
local REF = {
  RGB = {{{0.3, 0.2, 0.1846}, {0.0073, 0.0861, 0.9648}}, {{0.3, 0.9, 0.0861}, {0.6816, 0.319, 0.4835}}, {{0.3,
    0.9, 0.2529}, {0.9874, 0.2669, 0.6278}}},
  HSV = {{{0.0, 0.5, 0.7650879296}, {0.5520014964, 0.4627164734, 0.9500311655}}, {{0.0, 0.7777777777,
    0.6595492289}, {0.9926068462, 0.7300940438, 0.4988598673}}, {{0.3, 0.9, 0.2529}, {0.9874, 0.319, 0.9648}}},
  HSL = {{{0.0, 0.5, 0.7650879296}, {0.5520014964, 0.4627164734, 0.9500311655}}, {{0.0, 0.7777777777,
    0.4920353982}, {0.9853222077, 0.5749197728, 0.8723944172}}, {{0.3, 0.55, 0.1695}, {0.49735, 0.20255,
    0.72415}}},
  GAUSS_5x3 = {{0.2050235153, 0.3993312801, 0.4987044175, 0.3993312801, 0.2050235153}, {0.8222245810,
    1.6014748058, 2.0, 1.6014748058, 0.8222245810}, {0.2050235153, 0.3993312801, 0.4987044175, 0.3993312801,
    0.2050235153}},
  GAUSS_4_NORM = {{0.0180823720, 0.0491529833, 0.0491529833, 0.0180823720}, {0.0491529833, 0.1336116613,
    0.1336116613, 0.0491529833}, {0.0491529833, 0.1336116613, 0.1336116613, 0.0491529833}, {0.0180823720,
    0.0491529833, 0.0491529833, 0.0180823720}},
  GAUSS1D_5 = {0.2780373004, 0.7261490370, 1.0, 0.7261490370, 0.2780373004},
  LAB = {{{32.5331750597, 83.2839108787, 12.9471046706}, {67.4418029001, 30.6976625961, 66.8104784927}}, {{0.0,
    -41.9538166009, 21.9341494602}, {-9.4831584342, -22.5335399948, 50.6537775084}}, {{0.0, -12.4522226180,
    -22.1677106559}, {-48.8164476702, 2.3172398776, 2.4581671330}}},
}

local function T(t) return torch.DoubleTensor(t) end
local RGB = T(REF.RGB)
local function errors(f, pattern) tester:assertErrorPattern(f, pattern) end

function tests.hsv()
  tester:assertTensorEq(image.rgb2hsv(RGB), T(REF.HSV), 1e-9)
  tester:assertTensorEq(image.hsv2rgb(T(REF.HSV)), RGB, 1e-9)
  tester:assertTensorEq(image.rgb2hsv(RGB:float()), T(REF.HSV):float(), 1e-6)
  local before = RGB:clone()
  local out = torch.DoubleTensor()
  tester:assert(image.rgb2hsv(out, RGB) == out)
  tester:assertTensorEq(out, T(REF.HSV), 1e-9)
  tester:assertTensorEq(RGB, before, 0)
  -- bytes: 0..255 in and out, rounded
  local b = torch.ByteTensor({ { { 255, 51 } }, { { 128, 51 } }, { { 0, 230 } } })
  local hb = image.rgb2hsv(b)
  tester:asserteq(torch.type(hb), 'torch.ByteTensor')
  local ref = image.rgb2hsv(b:double() / 255):mul(255):add(0.5):floor()
  tester:assertTensorEq(hb:double(), ref, 0)
  -- hue 1 wraps to red
  local red = image.hsv2rgb(T({ { { 1 } }, { { 1 } }, { { 1 } } }))
  tester:assertTensorEq(red, T({ { { 1 } }, { { 0 } }, { { 0 } } }), 1e-12)
end

function tests.hsl()
  tester:assertTensorEq(image.rgb2hsl(RGB), T(REF.HSL), 1e-9)
  tester:assertTensorEq(image.hsl2rgb(T(REF.HSL)), RGB, 1e-9)
  tester:assertTensorEq(image.hsl2rgb(image.rgb2hsl(RGB:float())), RGB:float(), 1e-6)
end

function tests.lab()
  tester:assertTensorEq(image.rgb2lab(RGB), T(REF.LAB), 1e-9)
  tester:assertTensorEq(image.lab2rgb(T(REF.LAB)), RGB, 1e-4)  -- the D65 constants are not exact inverses
  local white = image.rgb2lab(torch.ones(3, 1, 1))
  tester:assertalmosteq(white[1][1][1], 100, 1e-4)
  errors(function() image.rgb2lab(torch.ByteTensor(3, 2, 2)) end, '%[image%.rgb2lab%] expected a floating%-point')
end

function tests.yuvAndLuma()
  local r, g, b = RGB[1], RGB[2], RGB[3]
  local yuv = image.rgb2yuv(RGB)
  tester:assertTensorEq(yuv[1], r * 0.299 + g * 0.587 + b * 0.114, 1e-12)
  tester:assertTensorEq(yuv[2], r * -0.14713 + g * -0.28886 + b * 0.436, 1e-12)
  tester:assertTensorEq(yuv[3], r * 0.615 + g * -0.51499 + b * -0.10001, 1e-12)
  tester:assertTensorEq(image.yuv2rgb(yuv), RGB, 2e-4)  -- Torch7's rounded coefficients
  local y = image.rgb2y(RGB)
  tester:assertTableEq(y:size():totable(), { 1, 2, 3 })
  tester:assertTensorEq(y[1], yuv[1], 1e-12)
  local nrgb = image.rgb2nrgb(RGB)
  tester:assertTensorEq(nrgb:sum(1)[1], (r + g + b):cdiv(r + g + b + 1e-6), 1e-12)
  errors(function() image.rgb2yuv(torch.rand(2, 3, 3)) end, '%[image%.rgb2yuv%] input must be a 3 x H x W')
  errors(function() image.rgb2hsv(torch.rand(3, 3)) end, '%[image%.rgb2hsv%] input must be a 3 x H x W')
end

function tests.gaussians()
  local g = image.gaussian{ width = 5, height = 3, sigma_horz = 0.3, sigma_vert = 0.2, amplitude = 2 }
  tester:asserteq(torch.type(g), torch.getdefaulttensortype())
  tester:assertTensorEq(g:double(), T(REF.GAUSS_5x3), 1e-6)
  tester:assertTensorEq(image.gaussian(4, 0.25, 1, true):double(), T(REF.GAUSS_4_NORM), 1e-6)
  tester:assertTensorEq(image.gaussian{ size = 4, normalize = true }:double(), T(REF.GAUSS_4_NORM), 1e-6)
  tester:assertTensorEq(image.gaussian1D(5):double(), T(REF.GAUSS1D_5), 1e-6)
  tester:assertalmosteq(image.gaussian1D{ size = 5, normalize = true }:sum(), 1, 1e-6)
  local into = torch.DoubleTensor(3, 5)
  tester:assert(image.gaussian{ tensor = into, sigma_horz = 0.3, sigma_vert = 0.2, amplitude = 2 } == into)
  tester:assertTensorEq(into, T(REF.GAUSS_5x3), 1e-9)
  tester:assertTableEq(image.gaussian():size():totable(), { 3, 3 })
  -- the Laplacian of Gaussian: 1 at the centre of an odd kernel, symmetric, Torch7's form
  local l = image.laplacian{ size = 5, sigma = 0.2 }:double()
  tester:assertalmosteq(l[3][3], 1, 1e-12)
  local r2 = ((1 - 3) / (0.2 * 5)) ^ 2 / 2
  tester:assertalmosteq(l[1][3], (1 - r2) * math.exp(-r2), 1e-6)
  tester:assertTensorEq(l, l:t(), 1e-12)
  errors(function() image.gaussian{ size = 3, sigmaa = 1 } end, '%[image%.gaussian%] unknown argument sigmaa')
  errors(function() image.gaussian(0) end, '%[image%.gaussian%] size must be a positive')
  errors(function() image.gaussian1D(3, -1) end, '%[image%.gaussian1D%] sigma must be a positive number')
end

function tests.convolve()
  local delta = torch.zeros(5, 5)
  delta[3][3] = 1
  local k = torch.range(1, 9):view(3, 3)
  local placed = torch.zeros(5, 5)
  placed:narrow(1, 2, 3):narrow(2, 2, 3):copy(k)
  tester:assertTensorEq(image.convolve(delta, k, 'same'), placed, 0)  -- a centred delta gives the kernel
  tester:assertTableEq(image.convolve(delta, k, 'full'):size():totable(), { 7, 7 })
  tester:assertTableEq(image.convolve(delta, k):size():totable(), { 3, 3 })  -- 'valid' by default
  tester:assertalmosteq(image.convolve(delta, k)[2][2], 5, 1e-6)
  -- convolution flips the kernel: a shifted delta shows it
  local one = torch.zeros(3, 3)
  one[1][1] = 1
  tester:assertalmosteq(image.convolve(one, k, 'full')[1][1], 1, 1e-6)
  -- 3-D images, each plane with the same kernel; a dst
  local x = torch.rand(2, 6, 6)
  local y = image.convolve(x, image.gaussian(3), 'same')
  tester:assertTensorEq(y[2], image.convolve(x[2], image.gaussian(3), 'same'), 1e-6)
  local d = torch.Tensor()
  image.convolve(d, x, image.gaussian(3), 'same')
  tester:assertTensorEq(d, y, 0)
  errors(function() image.convolve(x, k, 'circular') end, '%[image%.convolve%] mode has to be one of')
  errors(function() image.convolve(torch.ByteTensor(4, 4), k) end, '%[image%.convolve%] expected a floating%-point')
end

function tests.lcnPyramidMorphology()
  torch.manualSeed(3)
  local x = torch.rand(16, 16)
  local y = image.lcn(x)
  tester:asserteq(torch.type(y), 'torch.DoubleTensor')
  tester:assertTableEq(y:size():totable(), { 8, 8 })
  tester:assert(y:ne(y):sum() == 0)
  tester:assertTableEq(image.lcn(x:view(1, 16, 16), image.gaussian(3)):size():totable(), { 14, 14 })
  errors(function() image.lcn(torch.rand(3, 8, 8)) end, '%[image%.lcn%] grayscale image expected')
  local p = image.gaussianpyramid(torch.rand(3, 16, 16), { 1, 0.5, 0.25 })
  tester:asserteq(#p, 3)
  tester:assertTableEq(p[3]:size():totable(), { 3, 4, 4 })
  local e = torch.zeros(5, 5)
  e:narrow(1, 2, 3):narrow(2, 2, 3):fill(1)
  local er = image.erode(e)
  tester:asserteq(er:sum(), 1)
  tester:asserteq(er[3][3], 1)
  tester:assertTensorEq(image.dilate(er), e, 0)
end

function tests.minmaxAndDisplayTensor()
  local t = torch.Tensor({ 2, 4, 6 })
  tester:assertTensorEq(image.minmax{ tensor = t }, torch.Tensor({ 0, 0.5, 1 }), 1e-6)
  tester:assertTensorEq(t, torch.Tensor({ 2, 4, 6 }), 0)  -- not in place by default
  local sat = image.minmax{ tensor = t, min = 3, max = 5, saturate = true }
  tester:assertTensorEq(sat, torch.Tensor({ 0, 0.5, 1 }), 1e-6)
  local sym = image.minmax{ tensor = torch.Tensor({ -1, 0, 2 }), symm = true }
  tester:assertTensorEq(sym, torch.Tensor({ 0.25, 0.5, 1 }), 1e-6)
  image.minmax{ tensor = t, inplace = true }
  tester:assertTensorEq(t, torch.Tensor({ 0, 0.5, 1 }), 1e-6)
  -- a grid of 5 images, 2 a row, 1 pixel apart: 3 rows of (4 + 1) pixels, 2 columns of (4 + 1)
  local imgs = torch.Tensor(5, 3, 4, 4)
  for i = 1, 5 do imgs[i]:fill(i) end
  local g = image.toDisplayTensor{ input = imgs, nrow = 2, padding = 1 }
  tester:assertTableEq(g:size():totable(), { 3, 15, 10 })
  -- cells of (4 + 1) pixels, the image first (Torch7's offset floor(padding / 2) = 0), then the gap
  tester:assertalmosteq(g[1][1][1], 0, 1e-6)          -- image 1 -> 0 after min-max
  tester:assertalmosteq(g[1][5][5], 1, 1e-6)          -- padding filled with the maximum (5 -> 1)
  tester:assertalmosteq(g[1][1][6], 0.25, 1e-6)       -- image 2
  tester:assertalmosteq(g[1][6][9], 0.75, 1e-6)       -- image 4
  tester:assertalmosteq(g[1][11][1], 1, 1e-6)         -- image 5
  tester:assertalmosteq(g[1][11][6], 1, 1e-6)         -- empty slot: the maximum
  local p2 = image.toDisplayTensor{ input = imgs, nrow = 2, padding = 2 }
  tester:assertalmosteq(p2[1][1][1], 1, 1e-6)         -- padding 2: one pixel before each image
  tester:assertalmosteq(p2[1][2][2], 0, 1e-6)
  local list = image.toDisplayTensor({ torch.zeros(4, 4), torch.ones(4, 4) })  -- positional, a list
  tester:assertTableEq(list:size():totable(), { 1, 4, 8 })
  tester:assertTableEq(image.toDisplayTensor{ input = torch.rand(7, 5, 5), nrow = 3 }:size():totable(), { 15, 15 })
  local single = image.toDisplayTensor{ input = torch.Tensor({ { 1, 3 } }) }
  tester:assertTensorEq(single, torch.Tensor({ { 0, 1 } }), 1e-6)
  errors(function() image.minmax(torch.rand(3)) end, '%[image%.minmax%] expected a table')
  errors(function() image.toDisplayTensor{ input = 'x' } end, '%[image%.toDisplayTensor%] unknown or incompatible')
end

function tests.drawRect()
  local z = torch.zeros(3, 6, 6)
  local r = image.drawRect(z, 2, 2, 5, 4)  -- 1-based corners, included
  tester:asserteq(z:sum(), 0)  -- a copy unless inplace
  local expect = torch.zeros(6, 6)
  expect:narrow(1, 2, 3):narrow(2, 2, 4):fill(1)
  expect:narrow(1, 3, 1):narrow(2, 3, 2):fill(0)
  tester:assertTensorEq(r[1], expect, 0)
  tester:asserteq(r[2]:sum() + r[3]:sum(), 0)
  local b = image.drawRect(torch.ByteTensor(3, 6, 6):zero(), 2, 2, 5, 5,
    { color = { 0, 200, 0 }, lineWidth = 2, inplace = true })
  tester:asserteq(b[2][1][1], 200)
  tester:asserteq(b[2][2][2], 200)   -- two pixels wide: the band x - 1 .. x, outward
  tester:asserteq(b[2][3][3], 0)
  tester:asserteq(b[1]:sum(), 0)
  errors(function() image.drawRect(torch.zeros(6, 6), 1, 1, 2, 2) end, '%[image%.drawRect%] input image has to be')
end

function tests.drawText()
  local font = require 'plot.font'
  local rows = font.glyph(string.byte('H'))
  local glyph = torch.zeros(8, 6)
  for r = 1, 7 do for c = 1, 5 do glyph[r][c] = math.floor(rows[r] / 2 ^ (5 - c)) % 2 end end
  local z = torch.zeros(3, 20, 16)
  local t = image.drawText(z, 'H\nH', 2, 3, { color = { 0, 255, 0 } })
  tester:asserteq(z:sum(), 0)  -- a copy unless inplace
  tester:assertTensorEq(t[2]:narrow(1, 4, 8):narrow(2, 3, 6), glyph, 0)   -- x, y: 0-based offsets
  tester:assertTensorEq(t[2]:narrow(1, 12, 8):narrow(2, 3, 6), glyph, 0)  -- '\n': 8 pixels lower
  tester:asserteq(t[1]:sum() + t[3]:sum(), 0)
  tester:asserteq(t[2]:sum(), 2 * glyph:sum())
  -- size 2 doubles each pixel; bg paints the rest of the cell; bytes take 0..255
  -- 13 pixels wide: a 12-pixel cell in 12 columns would wrap first, as Torch7's test (x + 12 >= width)
  local b = image.drawText(torch.ByteTensor(3, 16, 13):zero(), 'H', 0, 0,
    { size = 2, bg = { 7, 7, 7 }, inplace = true })
  tester:asserteq(b[1][1][1], glyph[1][1] == 1 and 255 or 7)
  tester:asserteq(b[1]:eq(255):sum(), 4 * glyph:sum())
  tester:asserteq(b[1]:eq(7):sum(), 4 * (48 - glyph:sum()))
  -- wrapping at the right edge: the second character starts a new line at x = 0
  local wr = image.drawText(torch.zeros(3, 16, 10), 'HH', 0, 0)
  tester:asserteq(wr[1]:narrow(1, 9, 8):narrow(2, 1, 6):sum(), glyph:sum())
  tester:assertTensorEq(image.drawText(z, '   '), z, 0)
  errors(function() image.drawText(torch.zeros(4, 4), 'x', 1, 1) end, '%[image%.drawText%] input image has to be')
end

function tests.colormaps()
  local jet = image.jetColormap(4)
  tester:assertTensorEq(jet, torch.Tensor({ { 0, 0.5, 1 }, { 0.5, 1, 0.5 }, { 1, 0.5, 0 }, { 0.5, 0, 0 } }), 1e-6)
  local y = image.y2jet(torch.Tensor({ { 1, 2 }, { 3, 4 } }))
  tester:assertTableEq(y:size():totable(), { 3, 2, 2 })
  tester:assertTensorEq(y[1], torch.Tensor({ { 0, 0.5 }, { 1, 0.5 } }), 1e-6)
  local yb = image.y2jet(torch.ByteTensor({ { 1, 4 } }))
  tester:asserteq(yb[1][1][2], 128)
  local cm = image.colormap(10)
  tester:assertTableEq(cm:size():totable(), { 10, 3 })
  tester:assert(cm:min() >= 0 and cm:max() <= 1)
  tester:assertTensorEq(cm[1], torch.Tensor({ 0.65, 0.35, 0.35 }), 1e-6)  -- hue 0, saturation 0.3, lightness 0.5
  errors(function() image.y2jet(torch.Tensor({ { 0, 1 } })) end, '%[image%.y2jet%] levels must be at least 1')
end

function tests.everyFunctionHasADocWithAnExample()
  local doc = require 'torch.doc'
  local missing = {}
  for name, f in pairs(image) do
    if type(f) == 'function' then
      local entry = doc.get(f, 'image.' .. name)
      if not entry or not entry.text or entry.text == '' or not entry.example then missing[#missing + 1] = name end
    end
  end
  table.sort(missing)
  tester:asserteq(#missing, 0, 'image functions without a doc and example: ' .. table.concat(missing, ', '))
end

---------------------------------------------------------------------------------------------------
-- torchvision 0.14's _rgb2hsv / _hsv2rgb (the same formulas as generic/image.c), float64.
local TV = {
  RGB = { { { 0.2, 0.9, 0.5, 0.4 }, { 1.0, 0.0, 0.3, 0.7 } }, { { 0.2, 0.9, 0.5, 0.1 }, { 0.0, 1.0, 0.3, 0.7 } },
    { { 0.6, 0.1, 0.5, 0.4 }, { 1.0, 0.0, 0.8, 0.2 } } },
  HSV = { { { 0.6666666666666665, 0.16666666666666674, 0.0, 0.8333333333333334 }, { 0.8333333333333334,
    0.33333333333333326, 0.6666666666666665, 0.16666666666666674 } }, { { 0.6666666666666666, 0.888888888888889,
    0.0, 0.7500000000000001 }, { 1.0, 1.0, 0.625, 0.7142857142857143 } }, { { 0.6, 0.9, 0.5, 0.4 },
    { 1.0, 1.0, 0.8, 0.7 } } },
  HSV_IN = { { { 0.0, 0.1, 0.35, 0.999 }, { 0.5, 0.66, 0.8, 1.0 } }, { { 0.0, 0.5, 1.0, 0.3 }, { 0.7, 0.2, 1.0, 0.9 } },
    { { 0.4, 0.8, 1.0, 0.6 }, { 0.3, 0.9, 0.5, 1.0 } } },
  RGB_OUT = { { { 0.4, 0.8, 0.0, 0.6 }, { 0.09000000000000001, 0.7200000000000001, 0.40000000000000036, 1.0 } },
    { { 0.4, 0.6400000000000001, 1.0, 0.42 }, { 0.3, 0.7272000000000001, 0.0, 0.09999999999999998 } },
    { { 0.4, 0.4, 0.09999999999999964, 0.42108000000000007 }, { 0.3, 0.9, 0.5, 0.09999999999999998 } } },
  -- exp(-x^2 / (2 sigma^2)) normalized, torchvision's _get_gaussian_kernel1d(5, 1.3) / 2d([5, 3], [1.3, 0.7])
  K1 = { 0.09877498815325954, 0.23994707564005802, 0.32255587241336486, 0.23994707564005802, 0.09877498815325954 },
  K2 = { { 0.020688777704128396, 0.05025778085612481, 0.0675604914390576, 0.05025778085612481, 0.020688777704128396 },
    { 0.057397432745002745, 0.1394315139278084, 0.18743488953524967, 0.1394315139278084, 0.057397432745002745 },
    { 0.020688777704128396, 0.05025778085612481, 0.0675604914390576, 0.05025778085612481, 0.020688777704128396 } },
}

function tests.colourAndKernelsAgreeWithTorchvision()
  local T = torch.DoubleTensor
  tester:assertTensorEq(image.rgb2hsv(T(TV.RGB)), T(TV.HSV), 1e-12)
  tester:assertTensorEq(image.hsv2rgb(T(TV.HSV_IN)), T(TV.RGB_OUT), 1e-12)
  -- Torch7's sigma is relative to the size, its centre mean * size + 0.5
  tester:assertTensorEq(image.gaussian1D{ size = 5, sigma = 1.3 / 5, normalize = true }:double(), T(TV.K1), 1e-7)
  tester:assertTensorEq(image.gaussian{ width = 5, height = 3, sigma_horz = 1.3 / 5, sigma_vert = 0.7 / 3,
    normalize = true }:double(), T(TV.K2), 1e-7)
end

-- PyTorch 1.13's conv2d with the kernel flipped (image.convolve convolves, as Torch7's torch.conv2).
local CONV = {
  X = { { 1.0, 2.8284271247461903, 5.196152422706632, 1.0, 4.180339887498949 }, { 0.6969384566990691,
    4.520259177452132, 1.6274169979695223, 6.0, 3.6227766016837926 }, { 1.4828726939093997, 6.569219381653056,
    4.872166581031863, 3.3832034148351795, 2.0947501931112527 }, { 1.0, 0.09279563550022374, 6.367532368147138,
    5.819079927272796, 5.442719099991592 }, { 5.234089594072643, 5.189146716115445, 5.304125036192545,
    5.5755076535925525, 6.0 } },
  K = { { 1, 2, 0 }, { 0, -1, 3 }, { 4, 0, -2 } },
  VALID = { { 34.365771227809574, 23.4040428617934, 14.07246272127271 }, { 9.54831341770268, 48.349117872590114,
    39.55044769359372 }, { 35.11254376923186, 10.488987160365781, 29.06920009473501 } },
  FULL_ROW1 = { 1.0, 4.82842712474619, 10.853006672199012, 11.392304845413264, 6.180339887498949,
    8.360679774997898, 0.0 },
}

function tests.convolveFlipsTheKernel()
  local T = torch.DoubleTensor
  local x, k = T(CONV.X), T(CONV.K)
  tester:assertTensorEq(image.convolve(x, k), T(CONV.VALID), 1e-10)
  local full = image.convolve(x, k, 'full')
  tester:assertTensorEq(full[1], T(CONV.FULL_ROW1), 1e-10)
  tester:assertTensorEq(image.convolve(x, k, 'same'), full:narrow(1, 2, 5):narrow(2, 2, 5), 0)
  -- 3-D images: each plane with the 2-D kernel
  local x3 = torch.cat({ x:view(1, 5, 5), (x * 2):view(1, 5, 5) }, 1)
  tester:assertTensorEq(image.convolve(x3, k)[2], T(CONV.VALID) * 2, 1e-9)
end

tester:add(tests)
tester:run()
