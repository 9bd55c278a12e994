-- Dataset readers on small files written here: IDX (plain and gzip, every type, truncation,
-- trailing bytes), MNIST directories, CSV (quotes, missing values, malformed rows), CIFAR
-- records, PNG/JPEG round trips and corrupt images, image folders; and Fashion-MNIST from
-- Debian's package when it is installed.
local data = require 'data'
local tester = torch.Tester()
local tests = torch.TestSuite()

local tmp = (os.getenv('TOCHA_TEST_TMP') or '/tmp') .. '/data_readers'
os.execute('rm -rf "' .. tmp .. '" && mkdir -p "' .. tmp .. '"')

local function write(path, bytes)
  local f = assert(io.open(path, 'wb'))
  f:write(bytes)
  f:close()
  return path
end

local function gzip(path)
  os.execute('gzip -kf "' .. path .. '"')
  return path .. '.gz'
end

local function be32(n)
  return string.char(math.floor(n / 2 ^ 24) % 256, math.floor(n / 2 ^ 16) % 256, math.floor(n / 256) % 256, n % 256)
end

local function idx_header(code, sizes)
  local s = string.char(0, 0, code, #sizes)
  for _, n in ipairs(sizes) do s = s .. be32(n) end
  return s
end

local function fails(pattern, f, ...)
  local ok, err = pcall(f, ...)
  tester:assert(not ok, 'expected an error matching ' .. pattern)
  tester:assert(tostring(err):find(pattern, 1, true), tostring(err))
end

function tests.idxTypesPlainAndGzip()
  local bytes = {}
  for i = 0, 23 do bytes[#bytes + 1] = string.char(i * 10 % 256) end
  local u8 = write(tmp .. '/u8.idx', idx_header(0x08, { 2, 3, 4 }) .. table.concat(bytes))
  for _, path in ipairs({ u8, gzip(u8) }) do
    local t = data.readIDX(path)
    tester:asserteq(t:type(), 'torch.ByteTensor')
    tester:assertTableEq(t:size():totable(), { 2, 3, 4 })
    tester:asserteq(t[2][3][4], 230)
    tester:asserteq(t[1][1][2], 10)
  end
  -- Big-endian shorts, ints (negative included), floats, doubles.
  local s16 = write(tmp .. '/s16.idx', idx_header(0x0B, { 2 }) .. string.char(0xFF, 0xFE, 0x01, 0x00))
  tester:assertTableEq(data.readIDX(s16):totable(), { -2, 256 })
  local i32 = write(tmp .. '/i32.idx', idx_header(0x0C, { 2 }) .. be32(7) .. string.char(0xFF, 0xFF, 0xFF, 0xFF))
  tester:assertTableEq(data.readIDX(i32):totable(), { 7, -1 })
  local f32 = write(tmp .. '/f32.idx', idx_header(0x0D, { 1 }) .. string.char(0x3F, 0xC0, 0, 0))  -- 1.5
  tester:asserteq(data.readIDX(f32)[1], 1.5)
  tester:asserteq(data.readIDX(f32):type(), 'torch.FloatTensor')
  local f64 = write(tmp .. '/f64.idx', idx_header(0x0E, { 1 }) .. string.char(0xC0, 0x04, 0, 0, 0, 0, 0, 0))  -- -2.5
  tester:asserteq(data.readIDX(f64)[1], -2.5)
  local i8 = write(tmp .. '/i8.idx', idx_header(0x09, { 2 }) .. string.char(0x80, 0x7F))
  tester:assertTableEq(data.readIDX(i8):totable(), { -128, 127 })
end

function tests.idxErrorsNameFileAndOffset()
  local body = string.rep('\1', 2 * 3 * 4)
  local cut = write(tmp .. '/cut.idx', idx_header(0x08, { 2, 3, 4 }) .. body:sub(1, 20))
  fails(cut .. ': truncated: a 2x3x4 array of unsigned bytes needs 40 bytes, the data ends at byte 36 (in item 2 of 2)',
    data.readIDX, cut)
  -- A gzip stream cut short is caught by zlib, not taken as a short file.
  local whole = write(tmp .. '/whole.idx', idx_header(0x08, { 2000 }) .. string.rep('x', 2000))
  local gz = gzip(whole)
  local f = io.open(gz, 'rb')
  local compressed = f:read('*a')
  f:close()
  local cutgz = write(tmp .. '/cut.idx.gz', compressed:sub(1, #compressed - 12))
  fails(cutgz .. ': truncated gzip file', data.readIDX, cutgz)
  local trailing = write(tmp .. '/trailing.idx', idx_header(0x08, { 2 }) .. 'abc')
  fails('1 unexpected byte after the 2 array (byte 10 on)', data.readIDX, trailing)
  fails('not an IDX file (byte 0', data.readIDX, write(tmp .. '/bad.idx', 'PK\3\4xxxxxxxx'))
  fails('unknown IDX type code 0x7 at byte 2', data.readIDX, write(tmp .. '/type.idx', string.char(0, 0, 7, 1) .. be32(1)))
  fails('header needs 12 bytes', data.readIDX, write(tmp .. '/hdr.idx', string.char(0, 0, 8, 2) .. be32(1)))
  fails(tmp .. '/missing.idx: cannot open: No such file or directory', data.readIDX, tmp .. '/missing.idx')
end

local function mnist_dir(name, n, labels, gz)
  local dir = tmp .. '/' .. name
  os.execute('mkdir -p "' .. dir .. '"')
  for _, prefix in ipairs({ 'train', 't10k' }) do
    local pix = {}
    for i = 1, n * 4 do pix[i] = string.char((i * 7) % 256) end
    local img = write(dir .. '/' .. prefix .. '-images-idx3-ubyte', idx_header(0x08, { n, 2, 2 }) .. table.concat(pix))
    local lbl = write(dir .. '/' .. prefix .. '-labels-idx1-ubyte', idx_header(0x08, { #labels }) .. string.char(unpack(labels)))
    if gz then
      gzip(img) gzip(lbl)
      os.remove(img) os.remove(lbl)
    end
  end
  return dir
end

function tests.mnistDirectories()
  for _, gz in ipairs({ false, true }) do
    local dir = mnist_dir(gz and 'mnist_gz' or 'mnist', 3, { 0, 9, 4 }, gz)
    local train, test = data.mnist(dir)
    tester:asserteq(train:size(), 3)
    tester:asserteq(test:size(), 3)
    local s = train:get(2)
    tester:assertTableEq(s.input:size():totable(), { 1, 2, 2 })
    tester:asserteq(s.target:item(), 10)  -- labels become 1-based classes
    tester:assertalmosteq(s.input[1][1][1], ((4 + 1) * 7 % 256) / 255, 1e-6)
    local raw = data.mnist(dir, { type = 'byte' })
    tester:asserteq(raw:get(1).input:type(), 'torch.ByteTensor')
  end
  fails('inconsistent sizes', data.mnist, mnist_dir('mnist_sizes', 3, { 0, 1 }))
  fails('label 12 of item 2 (byte 9) is out of range 0..9', data.mnist, mnist_dir('mnist_label', 2, { 1, 12 }))
  fails('missing file: neither ' .. tmp .. '/nowhere/train-images-idx3-ubyte', data.mnist, tmp .. '/nowhere')
  fails('dataset-fashion-mnist', data.fashionMnist, tmp .. '/nowhere')
end

function tests.fashionMnistFromDebian()
  if not io.open(data.fashionMnistDir .. '/t10k-labels-idx1-ubyte.gz') then return end
  local labels = data.readIDX(data.fashionMnistDir .. '/t10k-labels-idx1-ubyte.gz')
  tester:asserteq(labels:nElement(), 10000)
  tester:asserteq(labels:max(), 9)
  local images = data.readIDX(data.fashionMnistDir .. '/t10k-images-idx3-ubyte.gz')
  tester:assertTableEq(images:size():totable(), { 10000, 28, 28 })
  tester:asserteq(#data.fashionMnistClasses, 10)
end

function tests.csvColumnsQuotesAndMissingValues()
  local path = write(tmp .. '/iris.csv', table.concat({
    'sepal, petal,"name, quoted",species',
    '1.5,2,"a ""b""",setosa',
    '2.5,3,"two',
    'lines",virginica',
    '-3e2,NA,x,setosa',
    '', '',
  }, '\r\n'))
  fails(path .. ':5: missing value in column petal (field 2)', data.readCSV, path)
  local t = data.readCSV(path, { missing = 'nan' })
  tester:asserteq(t.n, 3)
  tester:assertTableEq(t.names, { 'sepal', 'petal', 'name, quoted', 'species' })
  tester:asserteq(t.kinds.sepal, 'numeric')
  tester:asserteq(t.kinds.species, 'categorical')
  tester:asserteq(t.columns.sepal[3], -300)
  tester:assert(t.columns.petal[3] ~= t.columns.petal[3], 'NaN for the missing value')
  tester:asserteq(t.columns['name, quoted'][1], 'a "b"')
  tester:asserteq(t.columns['name, quoted'][2], 'two\r\nlines')
  tester:assertTableEq(t.levels.species, { 'setosa', 'virginica' })
  tester:assertTableEq(t:column('species'):totable(), { 1, 2, 1 })
  local filled = data.readCSV(path, { missing = -1 })
  tester:asserteq(filled.columns.petal[3], -1)
  local ds = t:dataset{ target = 'species', inputs = { 'sepal' } }
  tester:asserteq(ds:size(), 3)
  tester:asserteq(ds:get(2).target:item(), 2)
  tester:asserteq(ds.classes[2], 'virginica')
  local forced = data.readCSV(path, { missing = 'nan', categorical = { 'sepal' } })
  tester:asserteq(forced.kinds.sepal, 'categorical')
  -- No header, other separator, gzip.
  local semi = write(tmp .. '/semi.csv', '1;2\n3;4\n')
  local nh = data.readCSV(gzip(semi), { header = false, separator = ';' })
  tester:assertTableEq(nh.names, { 'V1', 'V2' })
  tester:assertTableEq(nh:tensor():totable(), { { 1, 2 }, { 3, 4 } })
end

function tests.csvMalformedRowsAreErrors()
  local short = write(tmp .. '/short.csv', 'a,b,c\n1,2,3\n4,5,6\n7,8')  -- cut in the middle of a row
  fails(short .. ':4: expected 3 fields, got 2', data.readCSV, short)
  local long = write(tmp .. '/long.csv', 'a,b\n1,2\n3,4,5\n')
  fails(long .. ':3: expected 2 fields, got 3', data.readCSV, long)
  local quote = write(tmp .. '/quote.csv', 'a,b\n1,"open\n2,3\n')
  fails(quote .. ':2: unterminated quoted field', data.readCSV, quote)
  local blank = write(tmp .. '/blank.csv', 'a,b\n1,2\n\n3,4\n')
  fails(blank .. ':3: empty line in the middle of the data', data.readCSV, blank)
  local cat = write(tmp .. '/cat.csv', 'a,b\n1,x\n2,\n')
  fails(cat .. ':3: missing value in column b (field 2)', data.readCSV, cat)
  local dup = write(tmp .. '/dup.csv', 'a,a\n1,2\n')
  fails('column name a appears twice', data.readCSV, dup)
  fails('no column zz', function() data.readCSV((long:gsub('long', 'semi'))):column('zz') end)
end

local function cifar_record(label, seed)
  local px = {}
  for i = 1, 3072 do px[i] = string.char((i + seed) % 256) end
  return string.char(label) .. table.concat(px)
end

function tests.cifarBatches()
  local path = write(tmp .. '/data_batch_1.bin', cifar_record(3, 0) .. cifar_record(9, 5))
  local x, y = data.readCIFAR(path)
  tester:assertTableEq(x:size():totable(), { 2, 3, 32, 32 })
  tester:assertTableEq(y:totable(), { 4, 10 })
  tester:asserteq(x[2][1][1][1], 6)       -- first pixel of record 2: (1 + 5) % 256
  tester:asserteq(x[1][2][1][1], (1025) % 256)  -- green plane starts at pixel 1025
  local cut = write(tmp .. '/cut.bin', cifar_record(1, 0) .. cifar_record(2, 0):sub(1, 100))
  fails(cut .. ': truncated: 3173 bytes is not a whole number of 3073-byte records (record 2 starts at byte 3073', data.readCIFAR, cut)
  local bad = write(tmp .. '/bad.bin', cifar_record(1, 0) .. cifar_record(10, 0))
  fails(bad .. ': label 10 of record 2 (byte 3073) is out of range 0..9', data.readCIFAR, bad)
  local c100 = write(tmp .. '/c100.bin', string.char(2) .. cifar_record(57, 0))
  local _, fine = data.readCIFAR(c100, { labelBytes = 2, classes = 100 })
  tester:asserteq(fine[1], 58)
  local dir = tmp .. '/cifar'
  os.execute('mkdir -p "' .. dir .. '"')
  for i = 1, 5 do write(dir .. '/data_batch_' .. i .. '.bin', cifar_record(i, i)) end
  write(dir .. '/test_batch.bin', cifar_record(0, 0) .. cifar_record(1, 1))
  local train, test = data.cifar10(dir)
  tester:asserteq(train:size(), 5)
  tester:asserteq(test:size(), 2)
  tester:asserteq(train:get(5).target:item(), 6)
  tester:asserteq(train.classes[1], 'airplane')
end

-- A smooth image (JPEG keeps it within a few levels).
local function gradient(c, h, w)
  local img = torch.FloatTensor(c, h, w)
  for k = 1, c do
    for i = 1, h do
      for j = 1, w do img[k][i][j] = ((i - 1) / (h - 1) * 0.6 + (j - 1) / (w - 1) * 0.3 + k * 0.03) end
    end
  end
  return img
end

function tests.pngAndJpegRoundTrips()
  local img = gradient(3, 24, 32)
  data.image.save(tmp .. '/g.png', img)
  local back = data.image.load(tmp .. '/g.png')
  tester:assertTableEq(back:size():totable(), { 3, 24, 32 })
  tester:assertle((back - img):abs():max(), 0.5 / 255 + 1e-6)
  local bytes = torch.ByteTensor(1, 5, 7):random(0, 255)
  data.image.save(tmp .. '/b.png', bytes)
  tester:assert(torch.equal(data.image.load(tmp .. '/b.png', { type = 'byte' }), bytes), 'exact bytes through PNG')
  tester:asserteq(data.image.load(tmp .. '/b.png', { channels = 3 }):size(1), 3)
  data.image.save(tmp .. '/g.jpg', img, { quality = 95 })
  local jpg = data.image.load(tmp .. '/g.jpg')
  tester:assertlt((jpg - img):abs():mean(), 0.02)
  tester:asserteq(data.image.load(tmp .. '/g.jpg', { channels = 1 }):size(1), 1)
  -- Truncated or corrupt images are errors, not gray pixels.
  local f = io.open(tmp .. '/g.jpg', 'rb')
  local j = f:read('*a')
  f:close()
  fails(tmp .. '/cut.jpg: corrupt or truncated JPEG', data.image.load, write(tmp .. '/cut.jpg', j:sub(1, math.floor(#j / 2))))
  f = io.open(tmp .. '/g.png', 'rb')
  local p = f:read('*a')
  f:close()
  fails(tmp .. '/cut.png: corrupt or truncated PNG', data.image.load, write(tmp .. '/cut.png', p:sub(1, #p - 30)))
  fails('not a PNG or JPEG file', data.image.load, write(tmp .. '/x.png', 'hello world'))
  fails('unknown image extension', data.image.save, tmp .. '/x.bmp', img)
end

function tests.imageFolders()
  local root = tmp .. '/folder'
  os.execute('mkdir -p "' .. root .. '/cat" "' .. root .. '/dog" "' .. root .. '/empty_not"')
  data.image.save(root .. '/cat/1.png', gradient(3, 8, 8))
  data.image.save(root .. '/cat/2.JPG', gradient(3, 8, 8))
  data.image.save(root .. '/dog/1.png', gradient(1, 8, 8))
  data.image.save(root .. '/empty_not/x.png', gradient(3, 8, 8))
  write(root .. '/dog/notes.txt', 'not an image')
  local ds = data.ImageFolder(root)
  tester:assertTableEq(ds.classes, { 'cat', 'dog', 'empty_not' })
  tester:asserteq(ds:size(), 4)
  tester:asserteq(#ds.ignored, 1)
  local s = ds:get(3)
  tester:asserteq(s.target, 2)
  tester:assertTableEq(s.input:size():totable(), { 3, 8, 8 })  -- gray converted to 3 channels
  local batches = 0
  for b in data.DataLoader(ds, { batchSize = 2, workers = 2 }):iter() do
    batches = batches + 1
    tester:asserteq(b.input:dim(), 4)
  end
  tester:asserteq(batches, 2)
  os.execute('mkdir -p "' .. root .. '/void"')
  fails(root .. '/void holds no image files', data.ImageFolder, root)
  fails('cannot list the directory', data.ImageFolder, tmp .. '/no_such_dir')
end

tester:add(tests)
tester:run()
