-- A reader of TensorBoard event files for tests/lua/test_tensorboard.lua, sharing no code with the
-- writer: TFRecords with both CRCs checked by a bitwise CRC32C, protobuf messages decoded
-- generically into field numbers, and the Event / Summary.Value layout on top.
local ffi = require 'ffi'
local bit = require 'bit'
local M = {}

function M.hex(s) return (s:gsub('.', function(c) return string.format('%02x', c:byte()) end)) end

-- Bitwise CRC32C (no table), so the reader does not share the writer's code.
function M.crc32c_bitwise(s)
  local c = bit.bnot(0)
  for i = 1, #s do
    c = bit.bxor(c, s:byte(i))
    for _ = 1, 8 do
      local lsb = bit.band(c, 1)
      c = bit.rshift(c, 1)
      if lsb == 1 then c = bit.bxor(c, 0x82F63B78) end
    end
  end
  c = bit.bnot(c)
  return c < 0 and c + 2 ^ 32 or c
end
function M.masked(c) return (bit.ror(c, 15) + 0xa282ead8) % 2 ^ 32 end
local function u32le(s, i) local a, b, c, d = s:byte(i, i + 3) return a + b * 256 + c * 65536 + d * 16777216 end

-- The data of each TFRecord of a file; a wrong CRC or a cut record is an error naming it.
function M.read_records(path)
  local function check(ok, what, at) if not ok then error(string.format('%s: bad %s at byte %d', path, what, at), 3) end end
  local f = assert(io.open(path, 'rb'))
  local s = f:read('*a')
  f:close()
  local out, i = {}, 1
  while i <= #s do
    local n = u32le(s, i) + u32le(s, i + 4) * 2 ^ 32
    check(i + 15 <= #s, 'record header', i)
    check(u32le(s, i + 8) == M.masked(M.crc32c_bitwise(s:sub(i, i + 7))), 'length CRC', i)
    local data = s:sub(i + 12, i + 11 + n)
    check(#data == n and i + 15 + n <= #s, 'record length', i)
    check(u32le(s, i + 12 + n) == M.masked(M.crc32c_bitwise(data)), 'data CRC', i)
    out[#out + 1] = data
    i = i + 16 + n
  end
  return out
end

local d64 = ffi.new('union { double d; uint8_t b[8]; }')
local f32 = ffi.new('union { float f; uint8_t b[4]; }')
function M.as_double(s) ffi.copy(d64.b, s, 8) return d64.d end
function M.as_float(s) ffi.copy(f32.b, s, 4) return f32.f end

-- A protobuf message as {[field] = {values...}}: varints as numbers, the rest as byte strings.
function M.decode(s)
  local msg, i = {}, 1
  local function varint()
    local v, scale = 0, 1
    while true do
      local b = s:byte(i)
      i = i + 1
      v = v + (b % 128) * scale
      scale = scale * 128
      if b < 128 then return v end
    end
  end
  while i <= #s do
    local k = varint()
    local field, wire = math.floor(k / 8), k % 8
    local v
    if wire == 0 then v = varint()
    elseif wire == 1 then v = s:sub(i, i + 7) i = i + 8
    elseif wire == 5 then v = s:sub(i, i + 3) i = i + 4
    elseif wire == 2 then local n = varint() v = s:sub(i, i + n - 1) i = i + n
    else error('unexpected wire type ' .. wire) end
    msg[field] = msg[field] or {}
    table.insert(msg[field], v)
  end
  return msg
end

function M.packed_doubles(s)
  local out = {}
  for i = 1, #s, 8 do out[#out + 1] = M.as_double(s:sub(i, i + 7)) end
  return out
end

-- Event -> {wall_time, step, file_version, value = decoded Summary.Value}.
function M.read_event(data)
  local e = M.decode(data)
  local ev = { wall_time = e[1] and M.as_double(e[1][1]), step = e[2] and e[2][1] or 0, file_version = e[3] and e[3][1] }
  if e[5] then
    local values = M.decode(e[5][1])[1]
    if #values ~= 1 then error('expected one value per summary, got ' .. #values, 2) end
    ev.value = M.decode(values[1])
    ev.tag = ev.value[1][1]
  end
  return ev
end

return M
