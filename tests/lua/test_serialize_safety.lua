-- Files are safe by default (DESIGN.md decision 11): atomic writes (a child killed mid-write leaves
-- the previous file intact), and truncated, flipped, wrong-magic, huge-size and random inputs give
-- clear errors without crashing or allocating huge buffers (a fuzz over thousands of mutations).
local ffi = require 'ffi'
local tester = torch.Tester()
local tests = torch.TestSuite()

local TMP = (os.getenv('TOCHA_TEST_TMP') or '/tmp') .. '/serialize_safety_'
local C = torch._lib.C

local function read_file(path)
  local f = io.open(path, 'rb')
  if not f then return nil end
  local s = f:read('*a')
  f:close()
  return s
end
local function write_file(path, s)
  local f = assert(io.open(path, 'wb'))
  f:write(s)
  f:close()
end
local I = dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/helpers/interpreter.lua')
local quote = I.quote
local function interpreter() return I.path end
local FIXTURES = (arg[0]:match('^(.*)/[^/]*$') or '.') .. '/fixtures'

local function temp_files(path)
  local dir, base = path:match('^(.*)/([^/]*)$')
  local found = {}
  local p = io.popen('ls -a ' .. quote(dir))
  for name in p:lines() do
    if name:sub(1, #base + 2) == '.' .. base .. '.' and name:match('%.tmp$') then found[#found + 1] = dir .. '/' .. name end
  end
  p:close()
  return found
end

local function sample()
  return { w = torch.randn(4, 5), name = 'model', layers = { { k = 3 }, { k = 5 } }, b = torch.LongTensor({ 1, 2, 3 }),
           flag = true, h = torch.HalfTensor({ 0.5 }) }
end

-- ---- atomic writes ------------------------------------------------------------------------------------

function tests.killedMidWriteKeepsPreviousFile()
  local exe = quote(interpreter())
  for _, fmt in ipairs({ 'tocha', 'binary-t7', 'ascii' }) do
    local path, marker = TMP .. 'killed.' .. fmt, TMP .. 'killed.' .. fmt .. '.marker'
    os.remove(marker)
    for _, f in ipairs(temp_files(path)) do os.remove(f) end
    torch.save(path, { version = 'previous', t = torch.Tensor({ 1, 2, 3 }) }, fmt)
    local before = read_file(path)
    local cmd = string.format('%s %s %s %s %s >/dev/null 2>&1 & echo $!', exe, quote(FIXTURES .. '/serialize_child.lua'),
                              quote(path), quote(marker), fmt)
    local p = io.popen(cmd)
    local pid = tonumber(p:read('*l'))
    p:close()
    tester:assert(pid ~= nil, 'no child pid')
    local waited = 0
    while not read_file(marker) and waited < 600 do
      os.execute('sleep 0.1')
      waited = waited + 1
    end
    tester:assert(read_file(marker) == 'writing', 'the child never reached the middle of the write')
    local temps = temp_files(path)
    tester:asserteq(#temps, 1, 'one temporary file beside the target while writing')
    tester:assert(temps[1] and #read_file(temps[1]) > 1000, 'the temporary file holds the data written so far')
    os.execute('kill -9 ' .. pid .. ' 2>/dev/null; while kill -0 ' .. pid .. ' 2>/dev/null; do sleep 0.05; done')
    tester:asserteq(read_file(path), before, fmt .. ': the previous file is intact')
    tester:asserteq(torch.load(path).version, 'previous')
    for _, f in ipairs(temps) do os.remove(f) end
    os.remove(marker)
  end
end

function tests.failedSaveKeepsPreviousFile()
  local path = TMP .. 'failed.tch'
  torch.save(path, { v = 1 })
  local before = read_file(path)
  for _, fmt in ipairs({ 'tocha', 'binary-t7', 'ascii' }) do
    tester:assertErrorPattern(function() torch.save(path, { w = torch.randn(100), f = print }, fmt) end, 'function')
    tester:asserteq(read_file(path), before)
    tester:asserteq(#temp_files(path), 0, 'the temporary file is removed')
  end
  -- an unclosed DiskFile writes nothing
  local f = torch.DiskFile(path, 'w')
  f:writeString('partial')
  f = nil
  collectgarbage()
  collectgarbage()
  tester:asserteq(read_file(path), before)
  tester:asserteq(#temp_files(path), 0)
end

function tests.keepsPermissionsAndFollowsSymlinks()
  local path, link = TMP .. 'perm.tch', TMP .. 'perm.link'
  torch.save(path, 1)
  os.execute('chmod 640 ' .. quote(path) .. '; rm -f ' .. quote(link) .. '; ln -s ' .. quote(path) .. ' ' .. quote(link))
  torch.save(link, 2)
  tester:asserteq(torch.load(path), 2)
  local p = io.popen('stat -c %a ' .. quote(path) .. '; test -L ' .. quote(link) .. ' && echo link')
  tester:asserteq(p:read('*l'), '640')
  tester:asserteq(p:read('*l'), 'link')
  p:close()
end

-- ---- corrupt inputs ------------------------------------------------------------------------------------

local function clean_error(f, ...)
  local ok, err = pcall(f, ...)
  return not ok and type(err) == 'string' and err:find('%[%a+%]') ~= nil, err
end

function tests.truncatedAtEveryLength()
  local s = torch.serialize(sample())
  for cut = 0, #s - 1 do
    local ok, err = clean_error(torch.deserialize, s:sub(1, cut))
    if not ok then tester:assert(false, 'cut at ' .. cut .. ': ' .. tostring(err)) break end
  end
  local path = TMP .. 'trunc.tch'
  write_file(path, s:sub(1, #s - 10))
  tester:assertErrorPattern(function() torch.load(path) end, 'trunc.tch: .*truncated or corrupt')
  tester:assertErrorPattern(function() torch.load(path, { mmap = true }) end, 'truncated or corrupt')
end

function tests.everyFlippedByteIsDetected()
  local s = torch.serialize(sample())
  for i = 1, #s do
    local m = s:sub(1, i - 1) .. string.char(bit.bxor(s:byte(i), 0x10)) .. s:sub(i + 1)
    local ok, err = clean_error(torch.deserialize, m)
    if not ok then tester:assert(false, 'flip at ' .. i .. ': ' .. tostring(err)) break end
  end
  local flipped = s:sub(1, 100) .. string.char(bit.bxor(s:byte(101), 1)) .. s:sub(102)
  tester:assertErrorPattern(function() torch.deserialize(flipped) end, 'checksum mismatch in the tensor data')
end

function tests.wrongMagicAndEmpty()
  tester:assertErrorPattern(function() torch.deserialize('') end, 'empty file')
  tester:assertErrorPattern(function() torch.deserialize('PK\3\4 not a checkpoint at all') end, 'not a Tocha checkpoint, a Torch7')
  local s = torch.serialize(1)
  tester:assertErrorPattern(function() torch.deserialize('\137TCX' .. s:sub(5)) end, 'not a Tocha checkpoint')
  local path = TMP .. 'dir'
  os.execute('mkdir -p ' .. quote(path))
  tester:assertErrorPattern(function() torch.load(path) end, 'directory')
end

local function peak_bytes()
  local live, peak = ffi.new('int64_t[1]'), ffi.new('int64_t[1]')
  C.tocha_memory_stats(0, live, peak, nil, nil)
  return tonumber(peak[0])
end

-- Rewrites the header's and the index's checksums so that only the sizes are wrong.
local function refresh_checksums(s)
  local meta_offset = tonumber(ffi.cast('uint64_t *', s:sub(17, 24))[0])
  local meta = s:sub(meta_offset + 1)
  local head = ffi.new('uint8_t[64]')
  ffi.copy(head, s, 64)
  ffi.cast('uint32_t *', head + 48)[0] = C.tocha_crc32(0, meta, #meta)
  ffi.cast('uint32_t *', head + 60)[0] = C.tocha_crc32(0, head, 60)
  return ffi.string(head, 64) .. s:sub(65)
end

function tests.newerVersionsAndUnknownFlags()
  local s = torch.serialize({ 1 })
  local function patched(offset, value)
    local head = ffi.new('uint8_t[64]')
    ffi.copy(head, s, 64)
    ffi.cast('uint32_t *', head + offset)[0] = value
    ffi.cast('uint32_t *', head + 60)[0] = C.tocha_crc32(0, head, 60)
    return ffi.string(head, 64) .. s:sub(65)
  end
  tester:assertErrorPattern(function() torch.deserialize(patched(8, 2)) end,
    'checkpoint format version 2; this Tocha reads versions up to 1')
  tester:assertErrorPattern(function() torch.deserialize(patched(12, 1)) end, 'unknown header flags')
end

function tests.hugeDeclaredSizes()
  local peak = peak_bytes()
  local s = torch.serialize({ t = torch.FloatTensor(16):fill(1), name = 'abc' })
  local meta_offset = tonumber(ffi.cast('uint64_t *', s:sub(17, 24))[0])
  -- a blob claiming 2^50 bytes (index checksum made valid)
  local meta = s:sub(meta_offset + 1)
  local at = meta:find('\9\3\0\0\0', 1, true)  -- the blob record (tag 9, id 3)
  tester:assert(at ~= nil)
  local patched = s:sub(1, meta_offset + at + 8) .. ffi.string(ffi.new('uint64_t[1]', 2 ^ 50), 8) .. meta:sub(at + 17)
  tester:assertErrorPattern(function() torch.deserialize(refresh_checksums(patched)) end, 'does not fit the data section')
  -- a string claiming 2^31 bytes
  local sat = meta:find('\2\3\0\0\0abc', 1, true)
  patched = s:sub(1, meta_offset + sat) .. '\0\0\0\128' .. meta:sub(sat + 5)
  tester:assertErrorPattern(function() torch.deserialize(refresh_checksums(patched)) end, 'unexpected end of data')
  -- an index length of 2^60
  local head = ffi.new('uint8_t[64]')
  ffi.copy(head, s, 64)
  ffi.cast('uint64_t *', head + 24)[0] = 2 ^ 60
  ffi.cast('uint32_t *', head + 60)[0] = C.tocha_crc32(0, head, 60)
  tester:assertErrorPattern(function() torch.deserialize(ffi.string(head, 64) .. s:sub(65)) end, 'inconsistent section sizes')
  -- Torch7: a storage of 2^40 floats, a string of 2^30 bytes, a table of 2^31 entries
  local function i32(v) return ffi.string(ffi.new('int32_t[1]', v), 4) end
  local function i64(v) return ffi.string(ffi.new('int64_t[1]', v), 8) end
  local storage = i32(4) .. i32(1) .. i32(3) .. 'V 1' .. i32(18) .. 'torch.FloatStorage' .. i64(2 ^ 40) .. '\0\0\0\0'
  tester:assertErrorPattern(function() torch.deserialize(storage) end, 'declares 1099511627776 elements')
  tester:assertErrorPattern(function() torch.deserialize(i32(2) .. i32(2 ^ 30) .. 'abc') end, 'does not fit in the file')
  tester:assertErrorPattern(function() torch.deserialize(i32(3) .. i32(1) .. i32(2 ^ 31 - 1)) end, 'does not fit in the file')
  tester:assertErrorPattern(function() torch.deserialize('4\n1\n3\nV 1\n18\ntorch.FloatStorage\n99999999999\n') end, 'declares')
  -- safetensors: a header of 2^60 bytes
  tester:assertErrorPattern(function() torch.deserialize(i64(2 ^ 40) .. '{"a":1}' .. string.rep(' ', 10), { format = 'safetensors' }) end,
    'declares a 1099511627776%-byte header')
  tester:assertlt(peak_bytes() - peak, 64 * 2 ^ 20, 'no huge allocation')
end

-- ---- fuzzing ----------------------------------------------------------------------------------------

local function mutate(s, rng)
  local n = #s
  local kind = rng(6)
  local i = rng(math.max(n, 1))
  if kind == 1 then  -- flip one bit
    return s:sub(1, i - 1) .. string.char(bit.bxor(s:byte(i) or 0, bit.lshift(1, rng(8) - 1))) .. s:sub(i + 1)
  elseif kind == 2 then  -- overwrite a byte
    return s:sub(1, i - 1) .. string.char(rng(256) - 1) .. s:sub(i + 1)
  elseif kind == 3 then  -- truncate
    return s:sub(1, i - 1)
  elseif kind == 4 then  -- insert random bytes
    local bytes = {}
    for k = 1, rng(8) do bytes[k] = string.char(rng(256) - 1) end
    return s:sub(1, i) .. table.concat(bytes) .. s:sub(i + 1)
  elseif kind == 5 then  -- overwrite 4 bytes with an extreme int32
    local v = ({ 0x7fffffff, -1, 0x80000000, 0x10000, 17 })[rng(5)]
    return s:sub(1, i - 1) .. ffi.string(ffi.new('int32_t[1]', v), 4) .. s:sub(i + 4)
  end
  local j = rng(math.max(n, 1))  -- duplicate a chunk
  if j < i then i, j = j, i end
  return s:sub(1, j) .. s:sub(i, j) .. s:sub(j + 1)
end

function tests.fuzzMutatedCheckpoints()
  local gen = torch.Generator()
  torch.manualSeed(gen, 2024)
  local function rng(n) return torch.random(gen, 1, n) end
  local Point = torch.class('serializefuzz.Point')
  local obj = sample()
  obj.shared = obj.layers[1]
  obj.p = serializefuzz.Point()
  obj.p.w = obj.w:narrow(1, 2, 2)
  local peak = peak_bytes()
  local cases, detected = 0, 0
  for _, fmt in ipairs({ 'tocha', 'binary-t7', 'ascii', 'safetensors' }) do
    local input = fmt == 'safetensors' and { w = obj.w, b = obj.b, h = obj.h } or obj
    local base = torch.serialize(input, fmt)
    for _ = 1, 1000 do
      local m = mutate(base, rng)
      if m ~= base then
        cases = cases + 1
        local ok, err = pcall(torch.deserialize, m)
        if not ok then
          detected = detected + 1
          if type(err) ~= 'string' or not err:find('%[deserialize%]') then
            tester:assert(false, fmt .. ': unclear error ' .. tostring(err))
            break
          end
        elseif fmt == 'tocha' then
          tester:assert(false, 'a mutated checkpoint loaded without error')
          break
        end
      end
    end
  end
  tester:assertgt(cases, 3900)
  tester:assertgt(detected, cases / 2)
  tester:assertlt(peak_bytes() - peak, 64 * 2 ^ 20, 'no huge allocation')
  Point = nil
end

function tests.randomFiles()
  local gen = torch.Generator()
  torch.manualSeed(gen, 99)
  for len = 0, 400, 3 do
    local bytes = torch.ByteTensor(len):random(gen, 0, 255)
    local s = len > 0 and ffi.string(bytes:data(), len) or ''
    for _, prefix in ipairs({ '', '\137TCH\r\n\26\n', '\3\0\0\0', '4\n1\n', '\20\0\0\0\0\0\0\0{' }) do
      local ok, err = pcall(torch.deserialize, prefix .. s)
      if not ok and not (type(err) == 'string' and err:find('%[deserialize%]')) then
        tester:assert(false, 'unclear error: ' .. tostring(err))
        return
      end
    end
  end
  local path = TMP .. 'random.bin'
  write_file(path, string.rep('\255', 1000))
  tester:assertErrorPattern(function() torch.load(path) end, 'random.bin: not a Tocha checkpoint')
end

tester:add(tests)
tester:run()
