-- NaNs whose bits LuaJIT would read as other Lua values (Note [NaNs that LuaJIT reads as other
-- values], lua/torch/float_read.lua): every way a float of tensor, storage or file memory reaches
-- Lua gives a NaN number. Before, t[1] of a double 0xFFFFFFFFFFFFFFFE was nil, printing a float of
-- all ones failed inside math.ceil, and the fuzz suite crashed LuaJIT on the garbage of the fake
-- GPU's device memory.
local ffi = require 'ffi'
local tester = torch.Tester()
local tests = torch.TestSuite()

-- Bit patterns that are NaNs to the CPU and tagged values to LuaJIT (nil, false, a string...).
local F64_BITS = { 0xFFFFFFFFFFFFFFFEULL, 0xFFFFFFFFFFFFFFFFULL, 0xFFFD000000001234ULL, 0xFFFA5A5A5A5A5A5AULL }
local F32_BITS = { 0xFFFFFFFF, 0xFFFFFFFE, 0xFFF00001, 0xFFC12345 }

local function is_nan_number(v) return type(v) == 'number' and v ~= v end

-- A tensor of type tname whose elements have the given bit patterns (ctype: the unsigned type).
local function from_bits(tname, ctype, bits)
  local t = torch.Tensor():type(tname):resize(#bits)
  local p = ffi.cast(ctype .. ' *', t:data())
  for i, b in ipairs(bits) do p[i - 1] = b end
  return t
end
local function doubles() return from_bits('torch.DoubleTensor', 'uint64_t', F64_BITS) end
local function floats() return from_bits('torch.FloatTensor', 'uint32_t', F32_BITS) end
local function halves() return from_bits('torch.HalfTensor', 'uint16_t', { 0xFFFF, 0xFE01 }) end

function tests.elementReadsGiveNaNNumbers()
  for _, make in ipairs({ doubles, floats, halves }) do
    local t = make()
    local name = torch.type(t)
    local tbl = t:totable()
    for i = 1, t:size(1) do
      tester:assert(is_nan_number(t[i]), name .. ' t[' .. i .. '] is a NaN number')
      tester:assert(is_nan_number(t:storage()[i]), name .. ' storage[' .. i .. ']')
      tester:assert(is_nan_number(tbl[i]), name .. ' totable()[' .. i .. ']')
      tester:assert(is_nan_number(t[{ { i } }]:item()), name .. ' item() of element ' .. i)
    end
    local seen = 0
    t:apply(function(v) seen = seen + (is_nan_number(v) and 1 or 0) end)
    tester:asserteq(seen, t:size(1), name .. ' apply sees NaN numbers')
  end
end

function tests.reductionsGiveNaNNumbers()
  for _, make in ipairs({ doubles, floats }) do
    local t = make()
    tester:assert(is_nan_number(t:sum()), torch.type(t) .. ' sum')
    tester:assert(is_nan_number(t:max()), torch.type(t) .. ' max')
    tester:assert(is_nan_number(t:dist(t:clone():zero())), torch.type(t) .. ' dist')
  end
end

function tests.printingShowsNaN()
  for _, make in ipairs({ doubles, floats, halves }) do
    local t = make()
    local s = tostring(t)
    tester:assert(s:find('nan') ~= nil, torch.type(t) .. ' prints nan: ' .. s)
    tester:assert(tostring(t:storage()):find('nan') ~= nil, torch.type(t) .. ' storage prints nan')
    local pretty = require('tocha.pretty_tensor').format(t:view(1, -1):expand(2000, t:size(1)))
    tester:assert(pretty:find('nan') ~= nil, 'the REPL form of a large tensor prints nan')
  end
end

function tests.fileReadsGiveNaNNumbers()
  local f = torch.MemoryFile()
  f:binary()
  f:writeLong(-2)  -- the bits 0xFFFFFFFFFFFFFFFE
  f:writeInt(-1)   -- 0xFFFFFFFF
  f:seek(1)
  tester:assert(is_nan_number(f:readDouble()), 'readDouble of a tagged NaN')
  tester:assert(is_nan_number(f:readFloat()), 'readFloat of all ones')
  f:close()
end

-- A t7 checkpoint whose saved number is a tagged NaN (a corrupt or hostile file) loads as NaN.
function tests.corruptT7NumberLoadsAsNaN()
  local f = torch.MemoryFile()
  f:binary()
  f:writeObject({ 1.5 })
  local bytes = f:string()
  f:close()
  local at = bytes:find('\0\0\0\0\0\0\248\63', 1, true)
  tester:assert(at ~= nil, 'the double 1.5 is in the file')
  local patched = bytes:sub(1, at - 1) .. '\254' .. ('\255'):rep(7) .. bytes:sub(at + 8)
  local g = torch.MemoryFile(patched, 'r')
  g:binary()
  local ok, obj = pcall(g.readObject, g)
  tester:assert(ok, 'the patched file loads: ' .. tostring(obj))
  if ok then tester:assert(is_nan_number(obj[1]), 'its number is a NaN number') end
end

tester:add(tests)
tester:run()
