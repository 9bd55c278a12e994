-- The bytes of TensorBoard event files: CRC32C, the protobuf wire format of the messages
-- SummaryWriter writes (tensorflow/core/util/event.proto, framework/summary.proto, tensor.proto)
-- and TFRecord framing. Pure LuaJIT (bit and FFI); used by lua/torch/tensorboard.lua.
local ffi = require 'ffi'
local bit = require 'bit'
local band, bxor, bnot, rshift, ror = bit.band, bit.bxor, bit.bnot, bit.rshift, bit.ror
local char, concat, floor = string.char, table.concat, math.floor

local M = {}

-- ---- CRC32C (Castagnoli, reflected polynomial 0x82F63B78) ------------------------------------

local TABLE = ffi.new('int32_t[256]')
for i = 0, 255 do
  local c = i
  for _ = 1, 8 do
    c = band(c, 1) ~= 0 and bxor(rshift(c, 1), 0x82F63B78) or rshift(c, 1)
  end
  TABLE[i] = c
end

local function u32(x) return x < 0 and x + 4294967296 or x end

--- crc32c(s[, crc]): the CRC32C of the string s (continuing from crc), an unsigned 32-bit number.
function M.crc32c(s, crc)
  local p = ffi.cast('const uint8_t *', s)
  local c = bnot(crc or 0)
  for i = 0, #s - 1 do
    c = bxor(TABLE[band(bxor(c, p[i]), 0xff)], rshift(c, 8))
  end
  return u32(bnot(c))
end

-- Note [Masked CRC]: TFRecord stores rotr(crc, 15) + 0xa282ead8 (mod 2^32), so that a CRC of
-- data that itself holds CRCs does not look like one (TensorFlow's crc32c::Mask).
--- masked_crc32c(s): the masked CRC32C TFRecord stores for the string s.
function M.masked_crc32c(s)
  return u32(bit.tobit(ror(M.crc32c(s), 15) + 0xa282ead8))
end

-- ---- Fixed-width little-endian numbers -------------------------------------------------------

local LE = ffi.abi('le')
local num64 = ffi.new('union { double d; uint8_t b[8]; }')
local num32 = ffi.new('union { float f; uint8_t b[4]; }')

local function bytes_of(buf, n)
  local s = ffi.string(buf, n)
  return LE and s or s:reverse()
end

local function le32(x)
  return char(band(x, 0xff), band(rshift(x, 8), 0xff), band(rshift(x, 16), 0xff), band(rshift(x, 24), 0xff))
end
M.le32 = le32

-- n: a non-negative integer below 2^53 (record lengths).
local function le64(n)
  local hi = floor(n / 4294967296)
  return le32(bit.tobit(n % 4294967296)) .. le32(bit.tobit(hi))
end

local function double(v) num64.d = v return bytes_of(num64.b, 8) end
local function float(v) num32.f = v return bytes_of(num32.b, 4) end

-- ---- Protobuf wire format ----------------------------------------------------------------------

-- Varint of an integer: fast path for 0 <= n < 2^53; negative int64 values take the 10-byte
-- two's-complement form protobuf gives them.
local function varint(n)
  if n < 0 then
    local u = ffi.cast('uint64_t', ffi.cast('int64_t', n))
    local out = {}
    while u >= 128 do
      out[#out + 1] = char(tonumber(u % 128) + 128)
      u = u / 128
    end
    out[#out + 1] = char(tonumber(u))
    return concat(out)
  end
  local out = {}
  while n >= 128 do
    out[#out + 1] = char(n % 128 + 128)
    n = floor(n / 128)
  end
  out[#out + 1] = char(n)
  return concat(out)
end
M.varint = varint

local WIRE_VARINT, WIRE_I64, WIRE_LEN, WIRE_I32 = 0, 1, 2, 5
local function key(field, wire) return varint(field * 8 + wire) end

-- Note [Proto3 defaults]: the messages are proto3, where a field at its default (0, '') is not
-- written, except a member of a oneof, which is written whenever it is set (a scalar of 0.0
-- must reach TensorBoard). `present` asks for that. Messages always are written when given.
--- pb.double(field, v[, present]), pb.float, pb.int(field, n[, present]), pb.bytes(field, s[,
--- present]), pb.message(field, bytes), pb.packed_doubles(field, list): encoded fields, '' for
--- a default value.
function M.double(field, v, present)
  if v == 0 and not present then return '' end
  return key(field, WIRE_I64) .. double(v)
end
function M.float(field, v, present)
  if v == 0 and not present then return '' end
  return key(field, WIRE_I32) .. float(v)
end
function M.int(field, n, present)
  if n == 0 and not present then return '' end
  return key(field, WIRE_VARINT) .. varint(n)
end
function M.bytes(field, s, present)
  if #s == 0 and not present then return '' end
  return key(field, WIRE_LEN) .. varint(#s) .. s
end
function M.message(field, s) return key(field, WIRE_LEN) .. varint(#s) .. s end
function M.packed_doubles(field, list)
  if #list == 0 then return '' end
  local parts = {}
  for i = 1, #list do parts[i] = double(list[i]) end
  return M.bytes(field, concat(parts))
end

-- ---- TensorBoard messages ----------------------------------------------------------------------

--- event{wall_time=, step=, file_version= | summary= | session_log=}: an Event (summary:
--- Summary bytes; session_log: SessionLog bytes).
function M.event(e)
  return M.double(1, e.wall_time or 0) .. M.int(2, e.step or 0)
    .. (e.file_version and M.bytes(3, e.file_version, true) or '')
    .. (e.summary and M.message(5, e.summary) or '')
    .. (e.session_log and M.message(7, e.session_log) or '')
end

--- summary(values): a Summary of the list of encoded Summary.Value messages.
function M.summary(values)
  local parts = {}
  for i, v in ipairs(values) do parts[i] = M.message(1, v) end
  return concat(parts)
end

--- value{tag=, simple_value= | image= | histo= | tensor=, metadata=}: a Summary.Value; image,
--- histo, tensor and metadata are encoded messages.
function M.value(v)
  return M.bytes(1, v.tag)
    .. (v.simple_value and M.float(2, v.simple_value, true) or '')
    .. (v.image and M.message(4, v.image) or '')
    .. (v.histo and M.message(5, v.histo) or '')
    .. (v.tensor and M.message(8, v.tensor) or '')
    .. (v.metadata and M.message(9, v.metadata) or '')
end

--- histogram{min=, max=, num=, sum=, sum_squares=, bucket_limit={...}, bucket={...}}: a HistogramProto.
function M.histogram(h)
  return M.double(1, h.min) .. M.double(2, h.max) .. M.double(3, h.num) .. M.double(4, h.sum)
    .. M.double(5, h.sum_squares) .. M.packed_doubles(6, h.bucket_limit) .. M.packed_doubles(7, h.bucket)
end

--- image{height=, width=, colorspace=, encoded=}: a Summary.Image.
function M.image(im)
  return M.int(1, im.height) .. M.int(2, im.width) .. M.int(3, im.colorspace) .. M.bytes(4, im.encoded)
end

local DT_STRING = 7
--- string_tensor(s): a TensorProto of dtype DT_STRING and shape {1} holding s.
function M.string_tensor(s)
  local shape = M.message(2, M.int(1, 1))          -- TensorShapeProto{dim = {Dim{size = 1}}}
  return M.int(1, DT_STRING) .. M.message(2, shape) .. M.bytes(8, s, true)
end

--- plugin_metadata(name[, content]): a SummaryMetadata naming the plugin that shows a value.
function M.plugin_metadata(name, content)
  return M.message(1, M.bytes(1, name) .. M.bytes(2, content or ''))
end

-- ---- TFRecord ------------------------------------------------------------------------------------

--- record(data): data framed as a TFRecord: length (uint64 LE), masked CRC32C of the length,
--- data, masked CRC32C of the data.
function M.record(data)
  local len = le64(#data)
  return len .. le32(bit.tobit(M.masked_crc32c(len))) .. data .. le32(bit.tobit(M.masked_crc32c(data)))
end

return M
