-- The image package's files (lua/image/io.lua over data.image's libpng/libjpeg codecs):
-- image.load/save round trips through temporary PNG and JPEG files, Torch7's value ranges per
-- tensortype ('byte' 0..255, 'float'/'double' in [0, 1], default type), depth conversions (Torch7's
-- luma weights, its shapes), compress/decompress through ByteTensors, header sizes, and errors.
-- Expected values are closed forms of the saved bytes (PNG is lossless; JPEG within a bound).
require 'image'
local tester = torch.Tester()
local tests = torch.TestSuite()

local TMP = (os.getenv('TOCHA_TEST_TMP') or '/tmp') .. '/image_pkg_io_' .. tostring(os.time()) .. '_'
  .. tostring(math.random(1, 1e9))
os.execute("mkdir -p '" .. TMP .. "'")
local function path(name) return TMP .. '/' .. name end

local function errors(f, pattern) tester:assertErrorPattern(f, pattern) end

torch.manualSeed(11)
local RGB = torch.ByteTensor(3, 5, 7):random(0, 255)

function tests.pngRoundTripAndRanges()
  image.save(path('a.png'), RGB)
  local b = image.load(path('a.png'), nil, 'byte')
  tester:asserteq(torch.type(b), 'torch.ByteTensor')
  tester:assertTensorEq(b, RGB, 0)
  local f = image.load(path('a.png'), 3, 'float')
  tester:asserteq(torch.type(f), 'torch.FloatTensor')
  tester:assertTensorEq(f, RGB:float():div(255), 1e-7)
  local d = image.load(path('a.png'), 3, 'double')
  tester:asserteq(torch.type(d), 'torch.DoubleTensor')
  tester:assertTensorEq(d, RGB:double():div(255), 1e-12)
  -- no type: the default tensor type, in [0, 1]
  tester:asserteq(torch.type(image.load(path('a.png'))), torch.getdefaulttensortype())
  torch.setdefaulttensortype('torch.DoubleTensor')
  local ok, x = pcall(image.load, path('a.png'))
  torch.setdefaulttensortype('torch.FloatTensor')
  tester:assert(ok and torch.type(x) == 'torch.DoubleTensor', tostring(x))
  -- floats are saved clamped to [0, 1] and rounded; the input is left untouched
  local fl = torch.Tensor({ { { -0.5, 0.2, 1.7 } } })
  local keep = fl:clone()
  image.save(path('f.png'), fl)
  tester:assertTensorEq(fl, keep, 0)
  tester:assertTableEq(image.load(path('f.png'), nil, 'byte'):view(-1):totable(), { 0, 51, 255 })
  -- 2-D tensors save as gray
  image.save(path('g.png'), RGB[1])
  local g = image.load(path('g.png'), nil, 'byte')
  tester:assertTableEq(g:size():totable(), { 1, 5, 7 })
  tester:assertTensorEq(g[1], RGB[1], 0)
end

function tests.depths()
  image.save(path('rgb.png'), RGB)
  image.save(path('gray.png'), RGB[2]:view(1, 5, 7))
  image.save(path('rgba.png'), torch.cat(RGB, torch.ByteTensor(1, 5, 7):fill(9), 1))
  -- depth 1 of a colour file: Torch7's luma 0.299 R + 0.587 G + 0.114 B, H x W (rounded for bytes)
  local r, g, b = RGB[1]:double(), RGB[2]:double(), RGB[3]:double()
  local luma = (r * 0.299 + g * 0.587 + b * 0.114)
  local y = image.load(path('rgb.png'), 1, 'byte')
  tester:assertTableEq(y:size():totable(), { 5, 7 })
  tester:assertTensorEq(y:double(), (luma + 0.5):floor(), 0)
  tester:assertTensorEq(image.load(path('rgb.png'), 1, 'double'), luma / 255, 1e-12)
  tester:assertTensorEq(image.load(path('rgba.png'), 1, 'double'), luma / 255, 1e-12)
  -- depth 1 of a gray file stays 1 x H x W (Torch7's shapes)
  tester:assertTableEq(image.load(path('gray.png'), 1, 'byte'):size():totable(), { 1, 5, 7 })
  -- depth 3: gray replicated, alpha dropped; depth 4: an opaque alpha added
  local g3 = image.load(path('gray.png'), 3, 'byte')
  for c = 1, 3 do tester:assertTensorEq(g3[c], RGB[2], 0) end
  tester:assertTensorEq(image.load(path('rgba.png'), 3, 'byte'), RGB, 0)
  local a4 = image.load(path('rgb.png'), 4, 'byte')
  tester:assertTensorEq(a4:narrow(1, 1, 3), RGB, 0)
  tester:asserteq(a4[4]:min(), 255)
  tester:asserteq(image.load(path('rgb.png'), 4, 'float')[4]:min(), 1)
  tester:asserteq(image.load(path('rgba.png')):size(1), 4)
end

function tests.jpeg()
  local smooth = torch.linspace(0, 1, 16):view(1, 1, 16):expand(3, 16, 16):contiguous()
  smooth[2]:mul(0.5)
  image.save(path('s.jpg'), smooth)
  local y = image.load(path('s.jpg'), 3, 'float')
  tester:assertTableEq(y:size():totable(), { 3, 16, 16 })
  tester:assertlt((y - smooth):abs():max(), 0.05)
  tester:assertTensorEq(image.loadJPG(path('s.jpg')), y, 0)
  -- in memory, at a given quality
  local bytes = image.compressJPG(smooth, 95)
  tester:asserteq(torch.type(bytes), 'torch.ByteTensor')
  tester:asserteq(bytes:dim(), 1)
  tester:asserteq(bytes[1], 0xFF)
  tester:asserteq(bytes[2], 0xD8)
  local z = image.decompressJPG(bytes, 3, 'float')
  tester:assertlt((z - smooth):abs():max(), 0.03)
  tester:assertlt(image.compressJPG(smooth, 10):nElement(), bytes:nElement())
  tester:assertTensorEq(image.decompress(bytes, nil, 'byte'), image.decompressJPG(bytes, nil, 'byte'), 0)
  -- a file read with torch.DiskFile-like code: the bytes of the file
  local f = assert(io.open(path('s.jpg'), 'rb'))
  local s = f:read('*a')
  f:close()
  local t = torch.ByteTensor(torch.ByteStorage():string(s))
  tester:assertTensorEq(image.decompressJPG(t), y, 0)
  -- saveJPG writes JPEG whatever the name says
  image.saveJPG(path('named.img'), smooth)
  tester:asserteq(image.getSize(path('named.img')), 3)
end

function tests.pngInMemory()
  local bytes = image.compressPNG(RGB)
  tester:assertTensorEq(image.decompressPNG(bytes, nil, 'byte'), RGB, 0)
  tester:assertTensorEq(image.decompress(bytes, 3, 'double'), RGB:double() / 255, 1e-12)
  -- a view into a larger ByteTensor
  local padded = torch.ByteTensor(bytes:nElement() + 10):fill(0)
  padded:narrow(1, 6, bytes:nElement()):copy(bytes)
  tester:assertTensorEq(image.decompressPNG(padded:narrow(1, 6, bytes:nElement()), nil, 'byte'), RGB, 0)
end

function tests.sizes()
  image.save(path('s.png'), torch.rand(4, 6, 9))
  image.save(path('s.jpg'), torch.rand(3, 10, 5))
  image.save(path('g.jpg'), torch.rand(1, 7, 8))
  local function three(...) return { ... } end
  tester:assertTableEq(three(image.getPNGsize(path('s.png'))), { 4, 6, 9 })
  tester:assertTableEq(three(image.getJPGsize(path('s.jpg'))), { 3, 10, 5 })
  tester:assertTableEq(three(image.getJPGsize(path('g.jpg'))), { 1, 7, 8 })
  tester:assertTableEq(three(image.getSize(path('s.png'))), { 4, 6, 9 })
  tester:assertTableEq(three(image.getSize(path('s.jpg'))), { 3, 10, 5 })
  tester:assert(image.getJPGSize == image.getJPGsize and image.getPNGSize == image.getPNGsize)
  tester:assert(image.is_supported('jpg') and image.is_supported('PNG') and not image.is_supported('gif'))
end

function tests.errors()
  image.save(path('e.png'), RGB)
  errors(function() image.load(path('missing.png')) end, '%[image%.load%] cannot open .*missing%.png')
  errors(function() image.load(path('e.png'), 2) end, '%[image%.load%] depth must be 1, 3 or 4')
  errors(function() image.load(path('e.png'), 3, 'int') end, "%[image%.load%] tensortype must be 'float'")
  errors(function() image.load() end, '%[image%.load%] expected a file name')
  local f = assert(io.open(path('bad.png'), 'wb'))
  f:write('\137PNG\r\n\26\n garbage')
  f:close()
  errors(function() image.load(path('bad.png')) end, '%[image%.load%] .*bad%.png')
  f = assert(io.open(path('x.gif'), 'wb'))
  f:write('GIF89a')
  f:close()
  errors(function() image.load(path('x.gif')) end, '%[image%.load%] unknown image type: gif')
  errors(function() image.loadJPG(path('e.png')) end, '%[image%.loadJPG%] .* is a PNG file, not JPG')
  errors(function() image.save(path('x.bmp'), RGB) end, '%[image%.save%] unknown image type: bmp')
  errors(function() image.save(path('x.jpg'), torch.rand(4, 3, 3)) end, '%[image%.save%] .*1 or 3 channels')
  errors(function() image.save(path('x.png'), torch.rand(3)) end, '%[image%.save%] tensor must be a H x W or C x H x W')
  errors(function() image.decompressJPG(torch.rand(10)) end, '%[image%.decompressJPG%] expected a ByteTensor')
  errors(function() image.decompress(torch.ByteTensor({ 1, 2, 3, 4, 5 })) end,
    '%[image%.decompress%] input must be either jpg or png format')
  errors(function() image.decompressPNG(image.compressJPG(torch.rand(3, 4, 4))) end,
    '%[image%.decompressPNG%] the bytes hold a JPG image, not PNG')
  errors(function() image.decompressJPG(torch.ByteTensor({ 0xFF, 0xD8, 0xFF, 0xE0, 1, 2 })) end,
    '%[image%.decompressJPG%]')
  errors(function() image.compressJPG(torch.rand(3, 4, 4), 101) end, '%[image%.compressJPG%] quality must be')
  errors(function() image.getJPGsize(path('e.png')) end, '%[image%.getJPGsize%] .* not a JPEG file')
end

function tests.noGuiNoSamples()
  errors(function() image.display(torch.rand(3, 4, 4)) end, '%[image%.display%] Tocha has no GUI.*image%.save')
  errors(function() image.window() end, '%[image%.window%] Tocha has no GUI')
  errors(function() image.lena() end, '%[image%.lena%] Tocha ships no sample images')
  errors(function() image.fabio() end, '%[image%.fabio%]')
end

tester:add(tests)
tester:run()
os.execute("rm -rf '" .. TMP .. "'")
