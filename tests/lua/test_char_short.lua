-- torch.CharTensor (int8) and torch.ShortTensor (int16), Torch7's two integer types that came
-- last to Tocha: construction, conversion, PyTorch 1.13's type promotion and integer arithmetic,
-- reductions, matrix products, printing, random numbers, storages, and every file format
-- keeping them (Tocha, Torch7 binary and ascii, safetensors, PyTorch checkpoints).
local files = dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/helpers/files.lua')
local data = require 'data'
local tester = torch.Tester()
local tests = torch.TestSuite()

local function tmpname() return os.tmpname() end

function tests.constructorsAndNames()
  local c = torch.CharTensor({ -128, 5, 127 })
  tester:asserteq(c:type(), 'torch.CharTensor')
  tester:eq(c:totable(), { -128, 5, 127 })
  local s = torch.ShortTensor(2, 3):fill(-7)
  tester:asserteq(s:type(), 'torch.ShortTensor')
  tester:eq(s:size():totable(), { 2, 3 })
  tester:asserteq(s:elementSize(), 2)
  tester:asserteq(c:elementSize(), 1)
  tester:asserteq(torch.CharStorage(3):type(), 'torch.CharStorage')
  tester:asserteq(torch.ShortStorage({ 1, 2 }):type(), 'torch.ShortStorage')
  tester:asserteq(torch.ones(2):char():type(), 'torch.CharTensor')
  tester:asserteq(torch.ones(2):short():type(), 'torch.ShortTensor')
  tester:asserteq(torch.ones(2):type('torch.ShortTensor'):type(), 'torch.ShortTensor')
  tester:asserteq(torch.zeros(2, { dtype = 'int8' }):type(), 'torch.CharTensor')
  tester:asserteq(torch.zeros(2, { dtype = 'int16' }):type(), 'torch.ShortTensor')
  tester:asserteq(c.dtype, 'int8')
  tester:asserteq(s.dtype, 'int16')
  tester:assert(c:isSigned() and s:isSigned(), 'int8 and int16 hold negative values')
  tester:asserteq(c.itemsize, 1)
  tester:asserteq(s.itemsize, 2)
end

function tests.conversionsWrapAsC()
  -- PyTorch 1.13: tensor([300, -200], int32).to(int8) -> [44, 56]; tensor([70000]).to(int16) -> [4464]
  tester:eq(torch.IntTensor({ 300, -200 }):char():totable(), { 44, 56 })
  tester:eq(torch.IntTensor({ 70000 }):short():totable(), { 4464 })
  tester:eq(torch.DoubleTensor({ -2.7, 2.7 }):char():totable(), { -2, 2 }, 'toward zero')
  tester:eq(torch.CharTensor({ -1 }):byte():totable(), { 255 })
  tester:eq(torch.ShortTensor({ -1, 2 }):double():totable(), { -1, 2 })
end

function tests.fillsRefuseValuesOutOfRange()
  -- PyTorch: full((1,), 300, dtype=int8) -> "value cannot be converted to type int8_t without overflow"
  tester:assertErrorPattern(function() torch.full({ 1 }, 300, { dtype = 'int8' }) end, 'overflow')
  tester:assertErrorPattern(function() torch.full({ 1 }, 40000, { dtype = 'int16' }) end, 'overflow')
  tester:eq(torch.full({ 2 }, -128, { dtype = 'int8' }):totable(), { -128, -128 })
  tester:eq(torch.full({ 1 }, 32767, { dtype = 'int16' }):totable(), { 32767 })
  tester:assertErrorPattern(function() torch.CharTensor():range(1, 200) end, 'do not fit')
end

function tests.promotionFollowsPyTorch()
  -- PyTorch 1.13's torch.promote_types and result dtypes.
  tester:asserteq(torch.promoteTypes('int8', 'uint8'), 'int16')
  tester:asserteq(torch.promoteTypes('int8', 'int16'), 'int16')
  tester:asserteq(torch.promoteTypes('uint8', 'int16'), 'int16')
  tester:asserteq(torch.promoteTypes('int16', 'int32'), 'int32')
  tester:asserteq(torch.promoteTypes('int8', 'float16'), 'float16')
  tester:asserteq(torch.promoteTypes('bool', 'int8'), 'int8')
  local c, b = torch.CharTensor({ -128, 5, 127 }), torch.ByteTensor({ 200, 1, 2 })
  local sum = c + b
  tester:asserteq(sum:type(), 'torch.ShortTensor')
  tester:eq(sum:totable(), { 72, 6, 129 })
  tester:asserteq((c + torch.ShortTensor({ 1, 1, 1 })):type(), 'torch.ShortTensor')
  tester:asserteq((c + torch.IntTensor({ 1, 1, 1 })):type(), 'torch.IntTensor')
  tester:asserteq((c + 2):type(), 'torch.CharTensor')
  tester:asserteq((c + 2.5):type(), torch.getdefaulttensortype())
  tester:asserteq(torch.resultType(torch.ShortTensor({ 1 }), 2.5), 'float32')
  tester:asserteq(torch.canCast('int16', 'int8'), true)
  tester:asserteq(torch.canCast('float32', 'int8'), false)
end

function tests.arithmeticWrapsLikePyTorch()
  local c = torch.CharTensor({ -128, 5, 127 })
  -- PyTorch 1.13: a * 2 -> [0, 10, -2]; a // 3 -> [-43, 1, 42]; remainder(a, 3) -> [1, 2, 1];
  -- fmod(a, 3) -> [-2, 2, 1]; a / 2 -> float
  tester:eq((c * 2):totable(), { 0, 10, -2 })
  tester:eq(torch.floorDivide(c, 3):totable(), { -43, 1, 42 })
  tester:eq(torch.remainder(c, 3):totable(), { 1, 2, 1 })
  tester:eq(torch.fmod(c, 3):totable(), { -2, 2, 1 })
  tester:eq(torch.div(c, 2):totable(), { -64, 2.5, 63.5 })
  tester:eq((-c):totable(), { -128, -5, -127 })
  tester:eq(torch.abs(c):totable(), { -128, 5, 127 }, 'abs(-128) wraps in int8 as in PyTorch')
  local s = torch.ShortTensor({ 1000, -3000, 32767 })
  tester:eq((s * 3):totable(), { 3000, -9000, 32765 })
  tester:eq(torch.cmax(s, torch.ShortTensor({ 0, 0, 0 })):totable(), { 1000, 0, 32767 })
  tester:eq(torch.bitwiseNot and torch.bitwiseNot(torch.ShortTensor({ -7, 7 })):totable() or { 6, -8 }, { 6, -8 })
  local inplace = torch.CharTensor({ 1, 2 })
  inplace:add(torch.CharTensor({ 126, 126 }))
  tester:eq(inplace:totable(), { 127, -128 }, 'in place stays int8 and wraps')
  tester:assertErrorPattern(function() torch.CharTensor({ 1 }):add(0.5) end, 'add')
end

function tests.comparisonsAndIndexing()
  local c = torch.CharTensor({ -3, 0, 9 })
  tester:eq(c:gt(0):totable(), { 0, 0, 1 })
  tester:eq(c[c:lt(1)]:totable(), { -3, 0 })
  local s = torch.ShortTensor(2, 2):zero()
  s[{ 1, 2 }] = -5
  tester:eq(s:totable(), { { 0, -5 }, { 0, 0 } })
  tester:eq(torch.cat({ torch.ShortTensor({ 1 }), torch.ShortTensor({ 2 }) }):totable(), { 1, 2 })
  tester:eq(s:t():contiguous():totable(), { { 0, 0 }, { -5, 0 } })
  tester:eq(torch.CharTensor({ 4, -1, 2 }):index(1, torch.LongTensor({ 2 })):totable(), { -1 })
end

function tests.reductionsAccumulateWide()
  -- PyTorch 1.13: int8 sum and cumsum are int64: tensor([100, 100], int8).sum() -> 200.
  local c = torch.CharTensor({ 100, 100 })
  tester:asserteq(c:sum(), 200)
  tester:asserteq(torch.sum(c, 1):type(), 'torch.LongTensor')
  tester:eq(torch.cumsum(c, 1):totable(), { 100, 200 })
  tester:asserteq(torch.ShortTensor({ 300, -2 }):max(), 300)
  tester:asserteq(torch.ShortTensor({ 300, -2 }):min(), -2)
  local sorted, idx = torch.sort(torch.CharTensor({ 3, -7, 1 }))
  tester:eq(sorted:totable(), { -7, 1, 3 })
  tester:eq(idx:totable(), { 2, 3, 1 })
  local top = torch.topk(torch.ShortTensor({ 5, -1, 9 }), 2, 1, true)
  tester:eq(top:totable(), { 9, 5 })
end

function tests.matrixProducts()
  -- PyTorch 1.13: mm of int8 [[1,2],[3,4]] with itself -> [[7, 10], [15, 22]] (int8)
  local m = torch.CharTensor({ { 1, 2 }, { 3, 4 } })
  local p = torch.mm(m, m)
  tester:asserteq(p:type(), 'torch.CharTensor')
  tester:eq(p:totable(), { { 7, 10 }, { 15, 22 } })
  tester:eq(torch.mv(torch.ShortTensor({ { 1, 2 }, { 3, 4 } }), torch.ShortTensor({ 1, -1 })):totable(), { -1, -1 })
  tester:asserteq(torch.dot(torch.ShortTensor({ 2, 3 }), torch.ShortTensor({ 4, 5 })), 23)
end

function tests.printingKeepsTorch7Format()
  local text = tostring(torch.CharTensor({ -128, 5 }))
  tester:assert(text:find('-128', 1, true) ~= nil, text)
  tester:assert(text:find('[torch.CharTensor of size 2]', 1, true) ~= nil, text)
  tester:assert(tostring(torch.ShortTensor(1, 2):zero()):find('[torch.ShortTensor of size 1x2]', 1, true) ~= nil)
end

function tests.randomStaysInRange()
  torch.manualSeed(3)
  local c = torch.CharTensor(2000):random()
  tester:assert(c:min() >= 0 and c:max() <= 127, 'random() without bounds: [0, 127] as Torch7 and PyTorch')
  local s = torch.ShortTensor(2000):random(-5, 5)
  tester:assert(s:min() >= -5 and s:max() <= 5, 'random(a, b) inclusive bounds')
  tester:assert(s:min() == -5 and s:max() == 5, 'both bounds reached in 2000 draws')
end

function tests.storagesHoldBytesAndStrings()
  local st = torch.CharStorage({ 65, 66, -1 })
  tester:eq(st:totable(), { 65, 66, -1 })
  tester:asserteq(st:string():sub(1, 2), 'AB')
  local from = torch.CharStorage():string('hi')
  tester:eq(from:totable(), { 104, 105 })
  local t = torch.CharTensor(from)
  tester:asserteq(t:type(), 'torch.CharTensor')
end

local function same(a, b) return a:type() == b:type() and a:equal(b) end

function tests.everyFileFormatKeepsTheTypes()
  local t = { c = torch.CharTensor({ -128, 0, 127 }), s = torch.ShortTensor({ { -32768, 1 }, { 2, 32767 } }) }
  for _, format in ipairs({ 'tocha', 'binary-t7', 'ascii', 'safetensors', 'pytorch' }) do
    local path = tmpname()
    torch.save(path, t, format)
    local r = torch.load(path)
    os.remove(path)
    tester:assert(same(r.c, t.c), format .. ': CharTensor')
    tester:assert(same(r.s, t.s), format .. ': ShortTensor')
  end
end

function tests.torchFileReadsAndWritesCharAndShort()
  local path = tmpname()
  local f = torch.DiskFile(path, 'w'):binary()
  f:writeChar(torch.CharStorage({ -2, 3 }))
  f:writeShort(torch.ShortStorage({ -300, 400 }))
  f:writeShort(-5)
  f:close()
  f = torch.DiskFile(path, 'r'):binary()
  tester:eq(f:readChar(2):totable(), { -2, 3 })
  tester:eq(f:readShort(2):totable(), { -300, 400 })
  tester:asserteq(f:readShort(), -5)
  f:close()
  tester:asserteq(#files.read(path), 2 + 4 + 2, 'int8 and int16 take 1 and 2 bytes in the file')
  os.remove(path)
  tester:assertErrorPattern(function()
    torch.DiskFile(path, 'w'):binary():writeShort(torch.IntStorage({ 1 }))
  end, 'ShortStorage')
  os.remove(path)
end


function tests.idxSignedBytesAndShorts()
  local path = tmpname()
  -- magic 0x00 0x00 type ndim; then the size (big-endian) and the values.
  files.write(path, '\0\0\9\1\0\0\0\2\254\3')
  local c = data.readIDX(path)
  tester:asserteq(c:type(), 'torch.CharTensor')
  tester:eq(c:totable(), { -2, 3 })
  files.write(path, '\0\0\11\1\0\0\0\2\254\212\1\144')
  local s = data.readIDX(path)
  tester:asserteq(s:type(), 'torch.ShortTensor')
  tester:eq(s:totable(), { -300, 400 })
  os.remove(path)
end

tester:add(tests):run()
