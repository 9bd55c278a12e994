-- Torch7's File API: torch.DiskFile and torch.MemoryFile typed reads and writes in binary and
-- ascii, storages, strings, positions, flags, quiet mode, longSize, and writeObject/readObject.
local ffi = require 'ffi'
local tester = torch.Tester()
local tests = torch.TestSuite()

local TMP = (os.getenv('TOCHA_TEST_TMP') or '/tmp') .. '/serialize_file_'

local function read_file(path)
  local f = assert(io.open(path, 'rb'))
  local s = f:read('*a')
  f:close()
  return s
end

function tests.asciiScalarsMatchTorch7()
  local path = TMP .. 'ascii.txt'
  local f = torch.DiskFile(path, 'w')
  tester:assert(not f:isBinary(), 'DiskFile starts in ascii mode (Torch7)')
  f:writeInt(42)
  f:writeDouble(0.1)
  f:writeFloat(0.1)
  f:writeLong(-7)
  f:writeShort(3)
  f:writeByte(65)
  f:writeChar(66)
  f:writeBool(true)
  f:writeString('raw text')
  f:writeInt(torch.IntStorage({ 1, 2, 3 }))
  f:close()
  tester:asserteq(read_file(path), '42\n0.10000000000000001\n0.100000001\n-7\n3\nA\nB\n1\nraw text1 2 3\n')
  local r = torch.DiskFile(path, 'r')
  tester:asserteq(r:readInt(), 42)
  tester:asserteq(r:readDouble(), 0.1)
  tester:assertalmosteq(r:readFloat(), 0.1, 1e-7)
  tester:asserteq(r:readLong(), -7)
  tester:asserteq(r:readShort(), 3)
  tester:asserteq(r:readByte(), 65)
  tester:asserteq(r:readChar(), 66)
  tester:asserteq(r:readBool(), true)
  tester:asserteq(r:readString('*l'), 'raw text1 2 3')
  r:close()
  tester:assertErrorPattern(function() r:readInt() end, 'closed file')
end

function tests.binaryStoragesAndPositions()
  local f = torch.MemoryFile():binary()
  f:writeInt(7)
  tester:asserteq(f:writeDouble(torch.DoubleStorage({ 1.5, -2 })), 2)
  f:writeLong(torch.LongStorage({ 2 ^ 40 }))
  f:writeChar(torch.CharStorage({ 120, 121, 122 }))
  tester:asserteq(f:position(), 4 + 16 + 8 + 3 + 1)
  f:seek(1)
  tester:asserteq(f:readInt(), 7)
  local d = f:readDouble(2)
  tester:asserteq(torch.type(d), 'torch.DoubleStorage')
  tester:eq(d:totable(), { 1.5, -2 })
  tester:asserteq(f:readLong(1)[1], 2 ^ 40)
  tester:asserteq(f:readChar(3):string(), 'xyz')
  local into = torch.IntStorage(1)
  f:seek(1)
  tester:asserteq(f:readInt(into), 1)
  tester:asserteq(into[1], 7)
  f:seekEnd()
  tester:asserteq(f:position(), 32)
  tester:asserteq(#f:storage(), 31)
  tester:asserteq(f:string():sub(1, 4), ffi.string(ffi.new('int32_t[1]', 7), 4))
end

function tests.readErrorsAndQuiet()
  local f = torch.MemoryFile('12', 'r')
  tester:asserteq(f:readInt(), 12)
  tester:assertErrorPattern(function() f:readInt() end, 'read error: read 0 blocks instead of 1')
  tester:assert(f:hasError())
  f:clearError():quiet()
  tester:asserteq(f:readInt(), 0)
  tester:assert(f:hasError())
  tester:asserteq(torch.DiskFile(TMP .. 'missing', 'r', true), nil)
  tester:assertErrorPattern(function() torch.DiskFile(TMP .. 'missing', 'r') end, 'No such file')
  tester:assertErrorPattern(function() torch.DiskFile(TMP .. 'x', 'a') end, "mode should be 'r', 'w' or 'rw'")
  tester:assertErrorPattern(function() torch.MemoryFile('abc', 'r'):writeInt(1) end, 'read%-only')
  tester:assertErrorPattern(function() torch.MemoryFile():seek(0) end, 'greater than 0')
end

function tests.readWriteInPlace()
  local path = TMP .. 'rw.bin'
  local w = torch.DiskFile(path, 'w'):binary()
  w:writeInt(torch.IntStorage({ 1, 2, 3 }))
  w:close()
  local f = torch.DiskFile(path, 'rw'):binary()
  f:seek(5)
  f:writeInt(20)
  f:seek(1)
  tester:eq(f:readInt(3):totable(), { 1, 20, 3 })
  f:seekEnd()
  f:writeInt(4)
  f:close()
  tester:asserteq(#read_file(path), 16)
end

function tests.objectsThroughFiles()
  local path = TMP .. 'objects.t7'
  local shared = torch.Tensor({ 1, 2 })
  local f = torch.DiskFile(path, 'w'):binary()
  f:writeObject({ a = shared })
  f:writeObject(shared)  -- references reach across calls on the same file
  f:writeObject('end')
  f:close()
  local r = torch.DiskFile(path, 'r'):binary()
  local first = r:readObject()
  tester:assert(rawequal(r:readObject(), first.a))
  tester:asserteq(r:readObject(), 'end')
  r:close()
  tester:asserteq(torch.load(path).a[2], 2)  -- torch.load reads the first object
  local m = torch.MemoryFile()
  m:writeObject({ 1, 'two', { three = 3 } })
  local back = torch.MemoryFile(m:storage(), 'r'):readObject()
  tester:asserteq(back[3].three, 3)
end

function tests.longSizeAndEndianness()
  local f = torch.MemoryFile():binary()
  f:longSize(4)
  f:writeLong(-5)
  tester:asserteq(#f:string(), 4)
  f:seek(1)
  tester:asserteq(f:readLong(), -5)
  tester:assert(torch.DiskFile(TMP .. 'e', 'w'):isLittleEndianCPU())
  tester:assertErrorPattern(function() torch.DiskFile(TMP .. 'e', 'w'):bigEndianEncoding() end, 'not supported')
end

tester:add(tests)
tester:run()
