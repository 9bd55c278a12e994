-- Review of data.image (lua/data/image.lua over core/data/image*.cpp): decoding the fixtures of
-- tests/data/image_review (made by gen.py there with Pillow 9.4) against torchvision 0.14's
-- io.read_image (expected.lua), channel conversions, PNG round trips, JPEG quality, refused
-- tensors and options, corrupt, truncated and oversized files, and a byte-flipping fuzz loop.
local torch = require 'torch'
local data = require 'data'
local tester = torch.Tester()
local tests = torch.TestSuite()

local DIR = (debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/../data/image_review/'
local EXPECTED = dofile(DIR .. 'expected.lua')
local tmp = (os.getenv('TOCHA_TEST_TMP') or '/tmp') .. '/image_io_regressions'
os.execute('rm -rf "' .. tmp .. '" && mkdir -p "' .. tmp .. '"')

local function slurp(path)
  local f = assert(io.open(path, 'rb'))
  local s = f:read('*a')
  f:close()
  return s
end

local function write(path, bytes)
  local f = assert(io.open(path, 'wb'))
  f:write(bytes)
  f:close()
  return path
end

local function exists(path)
  local f = io.open(path, 'rb')
  if f then f:close() end
  return f ~= nil
end

-- The error must name the call and (when given) the file.
local function fails(op, name, pattern, f, ...)
  local ok, err = pcall(f, ...)
  err = tostring(err)
  tester:assert(not ok, op .. ': expected an error matching ' .. tostring(pattern))
  if ok then return end
  tester:assert(err:find('[' .. op .. ']', 1, true), 'names ' .. op .. ': ' .. err)
  if name then tester:assert(err:find(name, 1, true), 'names ' .. name .. ': ' .. err) end
  if pattern then tester:assert(err:find(pattern, 1, true), 'says ' .. pattern .. ': ' .. err) end
end

-- Cases whose cause was in the C++ decoders (core/data/image_png.cpp: Note [PNG samples as
-- stored]; image_jpeg.cpp: Note [JPEG warnings] and CMYK refused by name).
local function decoder_case(what, check)
  local ok, err = pcall(check)
  tester:assert(ok, what .. ': ' .. tostring(err))
end

local function reference(name)
  local e = assert(EXPECTED[name], name)
  return torch.DoubleTensor(e.values):view(unpack(e.shape)), e
end

local function sizes(t) return table.concat(t:size():totable(), 'x') end

-- Layout (C x H x W), dtype and values equal to torchvision 0.14's read_image.
local function check_like_torchvision(file, channels, key)
  local ref, e = reference(key)
  local img = data.image.load(DIR .. file, { type = 'byte', channels = channels })
  tester:asserteq(torch.type(img), 'torch.ByteTensor', key)
  tester:asserteq(sizes(img), table.concat(e.shape, 'x'), key .. ' layout')
  if sizes(img) == table.concat(e.shape, 'x') then
    tester:asserteq((img:double() - ref):abs():max(), 0, key .. ' values as torchvision 0.14')
  end
  return img
end

-- ---- decoding ------------------------------------------------------------------------------

local AS_TORCHVISION = {
  'gray1.png', 'gray2.png', 'gray4.png', 'gray8.png', 'graya8.png', 'rgb8.png', 'rgba8.png', 'palette.png',
  'palette_trns.png', 'rgb_1x1.png', 'gray_1x13.png', 'rgb_13x1.png', 'rgb_adam7.png', 'gray_adam7_3x2.png',
  'gray_adam7_1x1.png', 'rgb.jpg', 'rgb_progressive.jpg', 'gray.jpg', 'rgb_1x1.jpg', 'rgb_1x13.jpg',
  'gray_13x1.jpg', 'rgb_exif6.jpg',
}

function tests.decodesAsTorchvision()
  for _, file in ipairs(AS_TORCHVISION) do
    local img = check_like_torchvision(file, nil, file)
    -- float and double are the bytes / 255; decode() of the same bytes is load()
    local f = data.image.load(DIR .. file)
    tester:asserteq(torch.type(f), 'torch.FloatTensor')
    tester:assertle((f:double() - img:double():div(255)):abs():max(), 1e-7, file .. ' float')
    tester:asserteq(torch.type(data.image.load(DIR .. file, { type = 'double' })), 'torch.DoubleTensor')
    tester:assert(torch.equal(data.image.decode(slurp(DIR .. file), { type = 'byte' }), img), file .. ' decode')
  end
end

-- Note: EXIF orientation is ignored, as torchvision 0.14 (rgb_exif6.jpg says "rotate 90 CW";
-- it loads as stored, 16 rows x 20 columns).
function tests.exifOrientationIgnored()
  local img = data.image.load(DIR .. 'rgb_exif6.jpg', { type = 'byte' })
  tester:assertTableEq(img:size():totable(), { 3, 16, 20 })
end

-- 16-bit PNGs: 8-bit samples within 1 of value / 257 (torchvision 0.14 refuses them; newer
-- versions and libpng's png_set_scale_16 / strip_16 agree within 1).
-- libpng's simplified API took 16-bit samples without gAMA as linear light and converted them to
-- sRGB (value 1871 -> 50 for 7; 32768 -> 188 for 128).
function tests.sixteenBitPngs()
  for _, file in ipairs { 'gray16.png', 'rgb16.png', 'graya16.png' } do
    local ref, e = reference(file)
    local img = data.image.load(DIR .. file, { type = 'byte' })
    tester:asserteq(sizes(img), table.concat(e.shape, 'x'), file .. ' layout')
    decoder_case(file .. ' 16-bit samples to 8 bits', function()
      local err = (img:double() - ref:div(257)):abs():max()
      assert(err <= 1, 'off by ' .. err)
    end)
  end
end

-- gAMA 1.0: torchvision and Pillow return the stored samples (libpng's simplified API converted
-- them to sRGB: off by up to 72).
function tests.gammaChunkIgnored()
  local ref = reference('rgb_gama1.png')
  local img = data.image.load(DIR .. 'rgb_gama1.png', { type = 'byte' })
  tester:assertTableEq(img:size():totable(), { 3, 5, 7 })
  decoder_case('rgb_gama1.png stored samples', function()
    local err = (img:double() - ref):abs():max()
    assert(err == 0, 'off by ' .. err)
  end)
end

-- opts.channels against torchvision 0.14's ImageReadMode GRAY / RGB / RGB_ALPHA.
function tests.channelConversionsAsTorchvision()
  for _, key in ipairs { 'gray8.png@3', 'gray8.png@4', 'graya8.png@4', 'rgb8.png@4', 'rgb.jpg@1', 'gray.jpg@3' } do
    local file, c = key:match('^(.*)@(%d)$')
    check_like_torchvision(file, tonumber(c), key)
  end
  -- Dropping alpha composited over black (torchvision and PIL's
  -- convert('RGB') drop it; the comment in image_png.cpp says "like PIL"), and RGB to gray is
  -- computed in linear light (torchvision: Rec. 709 weights on the stored values; off by 45).
  for _, key in ipairs { 'graya8.png@1', 'rgba8.png@3', 'rgba8.png@1', 'palette_trns.png@3', 'rgb8.png@1' } do
    local file, c = key:match('^(.*)@(%d)$')
    local ref, e = reference(key)
    local img = data.image.load(DIR .. file, { type = 'byte', channels = tonumber(c) })
    tester:asserteq(sizes(img), table.concat(e.shape, 'x'), key .. ' layout')
    decoder_case(key .. ' as torchvision', function()
      local err = (img:double() - ref):abs():max()
      assert(err == 0, 'off by ' .. err)
    end)
  end
  fails('image.load', DIR .. 'rgb.jpg', '2 channels', data.image.load, DIR .. 'rgb.jpg', { channels = 2 })
end

-- torchvision 0.14 returns CMYK's 4 stored components; Tocha refuses, naming the call and file.
function tests.cmykJpegRefused()
  fails('image.load', DIR .. 'cmyk.jpg', nil, data.image.load, DIR .. 'cmyk.jpg')
  local ok, err = pcall(data.image.load, DIR .. 'cmyk.jpg')
  tester:assert(not ok)
  -- the message said "corrupt or truncated JPEG: Unsupported color conversion request" about a
  -- valid CMYK file
  decoder_case('cmyk.jpg refused as CMYK', function()
    assert(tostring(err):find('CMYK'), tostring(err))
  end)
end

-- A JFIF APP0 with revision 2.01 holds a valid image (torchvision 0.14 decodes it to rgb.jpg's
-- pixels, printing libjpeg's warning); image_jpeg.cpp turned every libjpeg warning into an
-- error, this header-only one ("unknown JFIF revision number") too.
function tests.jfifRevisionWarningOnly()
  local s = slurp(DIR .. 'rgb.jpg')
  tester:asserteq(s:sub(7, 11), 'JFIF\0')
  local v2 = s:sub(1, 11) .. '\2' .. s:sub(13)
  local ok, img = pcall(data.image.decode, v2, { name = 'jfif2', type = 'byte' })
  if not ok then tester:assert(tostring(img):find('[image.decode] jfif2', 1, true), tostring(img)) end
  decoder_case('JFIF 2.01 decodes', function()
    assert(ok, tostring(img))
    assert(torch.equal(img, data.image.load(DIR .. 'rgb.jpg', { type = 'byte' })))
  end)
end

-- ---- writing -------------------------------------------------------------------------------

function tests.pngRoundTripsExactly()
  torch.manualSeed(7)
  for _, shape in ipairs { { 1, 5, 7 }, { 2, 5, 7 }, { 3, 5, 7 }, { 4, 5, 7 }, { 3, 1, 1 }, { 1, 1, 13 }, { 4, 13, 1 } } do
    local img = torch.ByteTensor(unpack(shape)):random(0, 255)
    img[1][1][1] = 0
    img[shape[1]][shape[2]][shape[3]] = 255
    local path = tmp .. '/rt_' .. table.concat(shape, 'x') .. '.png'
    data.image.save(path, img)
    tester:assert(torch.equal(data.image.load(path, { type = 'byte' }), img), path)
    tester:assert(torch.equal(data.image.decode(slurp(path), { type = 'byte' }), img), path .. ' decode')
  end
  -- height x width, and a non-contiguous view
  local hw = torch.ByteTensor(6, 9):random(0, 255)
  data.image.save(tmp .. '/hw.png', hw)
  tester:assert(torch.equal(data.image.load(tmp .. '/hw.png', { type = 'byte' })[1], hw), 'HxW')
  local chw = torch.ByteTensor(9, 6, 3):random(0, 255):permute(3, 2, 1)
  tester:assert(not chw:isContiguous())
  data.image.save(tmp .. '/view.png', chw)
  tester:assert(torch.equal(data.image.load(tmp .. '/view.png', { type = 'byte' }), chw), 'non-contiguous')
  -- floats are rounded to the nearest level and come back as level / 255
  local f = torch.rand(3, 4, 5)
  data.image.save(tmp .. '/f.png', f)
  local back = data.image.load(tmp .. '/f.png', { type = 'double' })
  tester:assertle((back - f:double():mul(255):add(0.5):floor():div(255)):abs():max(), 1e-12, 'float levels')
  -- the documented clamp (Note [Saving floats]): as torchvision.utils.save_image
  local over = torch.DoubleTensor({ { { -0.5, 0, 0.4, 1, 1.7, math.huge, -math.huge } } })
  data.image.save(tmp .. '/clamp.png', over)
  tester:assertTableEq(data.image.load(tmp .. '/clamp.png', { type = 'byte' }):view(-1):totable(),
    { 0, 0, 102, 255, 255, 255, 0 })
end

-- A smooth picture: JPEG errors shrink as the quality grows.
local function smooth()
  local x = torch.linspace(0, 1, 32):view(1, 1, 32):expand(3, 24, 32)
  local y = torch.linspace(0, 1, 24):view(1, 24, 1):expand(3, 24, 32)
  local img = (x * 0.6 + y * 0.3):contiguous()
  img[2]:mul(0.8)
  img[3]:add(0.05)
  return img
end

function tests.jpegQuality()
  local img = smooth()
  local last_size, last_err = 0, math.huge
  for _, q in ipairs { 5, 50, 95, 100 } do
    local path = tmp .. '/q' .. q .. '.jpg'
    data.image.save(path, img, { quality = q })
    local size = #slurp(path)
    local err = (data.image.load(path):double() - img:double()):abs():mean()
    tester:assertgt(size, last_size, 'size grows with quality ' .. q)
    tester:assertlt(err, last_err, 'error shrinks with quality ' .. q)
    last_size, last_err = size, err
  end
  tester:assertlt(last_err, 1 / 255, 'quality 100')
  -- the default is 90: the same file as quality = 90
  data.image.save(tmp .. '/d.jpg', img)
  data.image.save(tmp .. '/q90.jpg', img, { quality = 90 })
  tester:asserteq(slurp(tmp .. '/d.jpg'), slurp(tmp .. '/q90.jpg'), 'default quality 90')
  for _, q in ipairs { 0, 101, 50.5, -1, '90', 0 / 0 } do
    fails('image.save', tmp .. '/bad_q.jpg', 'opts.quality', data.image.save, tmp .. '/bad_q.jpg', img, { quality = q })
  end
  tester:assert(not exists(tmp .. '/bad_q.jpg'), 'nothing written')
end

function tests.badTensorsRefused()
  local path = tmp .. '/bad.png'
  local cases = {
    { torch.ByteTensor(7), 'expected a channels x height x width' },
    { torch.ByteTensor(1, 3, 4, 5), 'expected a channels x height x width' },
    { torch.ByteTensor(5, 4, 4):zero(), '1 to 4 channels' },
    { torch.ByteTensor(3, 0, 4), '1 to 4 channels' },
    { torch.ByteTensor(0, 4, 4), '1 to 4 channels' },
    -- an IntTensor of 200s was saved as 255s (taken as [0, 1]): Note [Saving floats]
    { torch.IntTensor(3, 4, 4):fill(200), 'expected a ByteTensor' },
    { torch.LongTensor(4, 4):fill(3), 'expected a ByteTensor' },
    { torch.ByteTensor(4, 4):fill(1):bool(), 'expected a ByteTensor' },
    -- NaN was saved as 0
    { torch.FloatTensor(3, 2, 2):fill(0 / 0), 'NaN' },
  }
  for _, c in ipairs(cases) do
    fails('image.save', path, c[2], data.image.save, path, c[1])
  end
  fails('image.save', nil, 'expected a channels x height x width', data.image.save, path, 'pixels')
  fails('image.save', nil, 'expected a file name', data.image.save, { 'x.png' }, torch.ByteTensor(3, 2, 2))
  fails('image.save', nil, 'options must be a table', data.image.save, path, torch.ByteTensor(3, 2, 2), 90)
  fails('image.save', nil, 'unknown option qualty', data.image.save, path, torch.ByteTensor(3, 2, 2), { qualty = 9 })
  tester:assert(not exists(path), 'nothing written after refusals')
  local jpg = tmp .. '/bad.jpg'
  fails('image.save', jpg, '1 or 3 channels', data.image.save, jpg, torch.ByteTensor(2, 4, 4):zero())
  fails('image.save', jpg, '1 or 3 channels', data.image.save, jpg, torch.ByteTensor(4, 4, 4):zero())
  tester:assert(not exists(jpg), 'no JPEG written')
  fails('image.save', tmp .. '/x.bmp', 'unknown image extension', data.image.save, tmp .. '/x.bmp', torch.ByteTensor(3, 2, 2))
  fails('image.save', tmp .. '/no/dir/x.png', nil, data.image.save, tmp .. '/no/dir/x.png', torch.ByteTensor(3, 2, 2):zero())
end

-- ---- reading: options, corrupt and oversized files -----------------------------------------

function tests.readOptionsRefused()
  local file = DIR .. 'rgb8.png'
  -- a string was taken as "no options" (load(path, 'byte') gave floats)
  fails('image.load', nil, 'options must be a table', data.image.load, file, 'byte')
  fails('image.load', nil, 'unknown option channel', data.image.load, file, { channel = 1 })
  for _, c in ipairs { 5, -1, 2.5, '3' } do
    fails('image.load', nil, 'opts.channels', data.image.load, file, { channels = c })
  end
  fails('image.load', nil, 'opts.type', data.image.load, file, { type = 'int' })
  fails('image.load', nil, 'opts.maxPixels', data.image.load, file, { maxPixels = 0 })
  fails('image.load', nil, 'expected a file name', data.image.load, 3)
  fails('image.decode', nil, 'expected a string', data.image.decode, torch.ByteTensor(3))
  fails('image.decode', nil, 'opts.name', data.image.decode, slurp(file), { name = 3 })
end

function tests.corruptFilesRefused()
  fails('image.load', tmp .. '/none.png', 'cannot open', data.image.load, tmp .. '/none.png')
  fails('image.load', tmp, nil, data.image.load, tmp)  -- a directory
  fails('image.load', tmp .. '/empty.png', 'not a PNG or JPEG', data.image.load, write(tmp .. '/empty.png', ''))
  fails('image.load', tmp .. '/text.jpg', 'not a PNG or JPEG', data.image.load, write(tmp .. '/text.jpg', 'hello, world\n'))
  fails('image.decode', '(string)', 'not a PNG or JPEG', data.image.decode, '')
  fails('image.decode', 'blob', 'not a PNG or JPEG', data.image.decode, 'GIF89a', { name = 'blob' })
  -- a PNG signature followed by a JPEG, and the other way round
  local png, jpg = slurp(DIR .. 'rgb8.png'), slurp(DIR .. 'rgb.jpg')
  fails('image.decode', 'x', 'PNG', data.image.decode, png:sub(1, 8) .. jpg, { name = 'x' })
  fails('image.decode', 'y', 'JPEG', data.image.decode, jpg:sub(1, 3) .. png, { name = 'y' })
  -- every truncation of a PNG and a JPEG is an error (libjpeg's "premature end" warnings too)
  for _, file in ipairs { 'rgb8.png', 'rgb_adam7.png', 'rgb.jpg', 'rgb_progressive.jpg', 'gray.jpg' } do
    local s = slurp(DIR .. file)
    for n = 0, #s - 1 do
      local ok = pcall(data.image.decode, s:sub(1, n), { name = file })
      -- a file cut inside the closing IEND chunk (12 bytes) or EOI marker (2) holds every pixel
      if ok and n < #s - (file:find('%.png$') and 12 or 2) then
        tester:assert(false, file .. ' cut to ' .. n .. ' bytes decoded')
      end
    end
  end
  local cut = write(tmp .. '/cut.png', png:sub(1, #png - 20))
  fails('image.load', cut, 'corrupt or truncated PNG', data.image.load, cut)
end

-- Note [Image size limit]: a few bytes declaring a huge image are refused before decoding
-- (the decoders allocated 14.4 GB for huge.png and 12.8 GB for huge.jpg first).
function tests.hugeDeclaredSizesRefused()
  for _, file in ipairs { 'huge.png', 'huge_max.png', 'huge.jpg', 'huge_progressive.jpg' } do
    fails('image.load', DIR .. file, 'declares', data.image.load, DIR .. file)
    fails('image.decode', file, 'declares', data.image.decode, slurp(DIR .. file), { name = file })
  end
  -- the limit is an option; over it, 1e6 x 1e6 still fails cleanly (the allocation), naming the file
  fails('image.load', DIR .. 'huge_max.png', nil, data.image.load, DIR .. 'huge_max.png', { maxPixels = math.huge })
  fails('image.load', DIR .. 'rgb8.png', 'over the limit of 34', data.image.load, DIR .. 'rgb8.png', { maxPixels = 34 })
  tester:asserteq(data.image.load(DIR .. 'rgb8.png', { maxPixels = 35 }):size(3), 7)
  -- a JPEG whose frame header lies after a large APP segment is still checked
  local jpg = slurp(DIR .. 'huge.jpg')
  local app = '\255\239\255\255' .. string.rep('y', 65533)  -- APP15, the longest segment
  local big = write(tmp .. '/late_sof.jpg', jpg:sub(1, 2) .. app .. app .. jpg:sub(3))
  fails('image.load', big, 'declares', data.image.load, big)
end

-- Random byte flips in the fixtures: a valid byte image or an error naming the call and the
-- file, never a crash (200 iterations, deterministic).
function tests.fuzzByteFlips()
  local files = { 'rgb8.png', 'rgba8.png', 'palette_trns.png', 'rgb_adam7.png', 'gray16.png', 'gray2.png',
    'rgb.jpg', 'rgb_progressive.jpg', 'gray.jpg', 'rgb_exif6.jpg' }
  local blobs = {}
  for i, f in ipairs(files) do blobs[i] = slurp(DIR .. f) end
  local state = 12345
  local function rand(n)  -- a small LCG, the same on every run
    state = (state * 1103515245 + 12345) % 2147483648
    return state % n + 1
  end
  local decoded, refused = 0, 0
  for it = 1, 200 do
    local k = rand(#files)
    local s = blobs[k]
    local bytes = { s:byte(1, -1) }
    for _ = 1, rand(4) do
      local at = rand(#bytes)
      bytes[at] = (bytes[at] + rand(255)) % 256
    end
    local blob = string.char(unpack(bytes))
    local name = 'fuzz' .. it .. '_' .. files[k]
    local ok, img
    if it % 10 == 0 then  -- now and then through a file
      ok, img = pcall(data.image.load, write(tmp .. '/' .. name, blob), { type = 'byte' })
      name = tmp .. '/' .. name
    else
      ok, img = pcall(data.image.decode, blob, { name = name, type = 'byte' })
    end
    if ok then
      decoded = decoded + 1
      tester:assert(torch.type(img) == 'torch.ByteTensor' and img:dim() == 3 and img:size(1) >= 1 and img:size(1) <= 4,
        name .. ' decoded to ' .. torch.type(img))
    else
      refused = refused + 1
      local op = it % 10 == 0 and '[image.load] ' or '[image.decode] '
      tester:assert(tostring(img):find(op .. name, 1, true), name .. ': ' .. tostring(img))
    end
  end
  tester:asserteq(decoded + refused, 200)
  tester:assertgt(refused, 0, 'some flips are caught')
end

-- A PNG signature followed by anything but the IHDR chunk: libpng took the damaged chunk length as
-- an allocation and the error read "not a valid PNG: out of memory".
function tests.damagedFirstChunkNamesTheFile()
  local blob = '\137PNG\r\n\26\n' .. string.rep('garbage', 20)
  local ok, err = pcall(data.image.decode, blob, { name = 'bad.png' })
  tester:assert(not ok and tostring(err):find('bad.png', 1, true) ~= nil, tostring(err))
  tester:assert(tostring(err):find('IHDR chunk does not follow the signature', 1, true) ~= nil, tostring(err))
  tester:assert(tostring(err):find('out of memory', 1, true) == nil, tostring(err))
  ok, err = pcall(data.image.decode, '\137PNG\r\n\26\n\0\0\0\13IHD', { name = 'cut.png' })
  tester:assert(not ok and tostring(err):find('IHDR chunk does not follow', 1, true) ~= nil, tostring(err))
end

tester:add(tests)
tester:run()
