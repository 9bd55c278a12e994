-- Little-endian fixed-width byte buffers in Lua memory: ByteWriter builds the object index
-- (metadata) of a checkpoint, ByteReader parses one with a bounds check on every read, so a
-- corrupt length is an error, never a read past the end.
local ffi = require 'ffi'
local float_read = require 'torch.float_read'

local B = {}

local u8p, u16p, u32p = ffi.typeof('uint8_t *'), ffi.typeof('uint16_t *'), ffi.typeof('uint32_t *')
local i32p, i64p, u64p = ffi.typeof('int32_t *'), ffi.typeof('int64_t *'), ffi.typeof('uint64_t *')
local f32p, f64p = ffi.typeof('float *'), ffi.typeof('double *')
local i8p, i16p = ffi.typeof('int8_t *'), ffi.typeof('int16_t *')
local bytes_t = ffi.typeof('uint8_t[?]')

-- ---- ByteWriter --------------------------------------------------------------------------------

local W = {}
W.__index = W

--- A growable little-endian buffer.
function B.writer()
  local cap = 4096
  return setmetatable({ buf = bytes_t(cap), cap = cap, n = 0 }, W)
end

local function grow(w, need)
  local cap = w.cap
  while cap < w.n + need do cap = cap * 2 end
  local fresh = bytes_t(cap)
  ffi.copy(fresh, w.buf, w.n)
  w.buf, w.cap = fresh, cap
end

-- Reserves k bytes and returns their address.
local function reserve(w, k)
  if w.n + k > w.cap then grow(w, k) end
  local p = w.buf + w.n
  w.n = w.n + k
  return p
end

function W:u8(v) reserve(self, 1)[0] = v end
function W:i8(v) ffi.cast(i8p, reserve(self, 1))[0] = v end
function W:i16(v) ffi.cast(i16p, reserve(self, 2))[0] = v end
function W:u16(v) ffi.cast(u16p, reserve(self, 2))[0] = v end
function W:u32(v) ffi.cast(u32p, reserve(self, 4))[0] = v end
function W:i32(v) ffi.cast(i32p, reserve(self, 4))[0] = v end
function W:i64(v) ffi.cast(i64p, reserve(self, 8))[0] = v end
function W:u64(v) ffi.cast(u64p, reserve(self, 8))[0] = v end
function W:f32(v) ffi.cast(f32p, reserve(self, 4))[0] = v end
function W:f64(v) ffi.cast(f64p, reserve(self, 8))[0] = v end
--- Appends raw bytes: a string, or (ptr, n).
function W:bytes(src, n)
  n = n or #src
  if n > 0 then ffi.copy(reserve(self, n), src, n) end
end
--- A u32 length then the bytes of a string.
function W:str(s)
  self:u32(#s)
  self:bytes(s)
end
function W:pos() return self.n end
function W:patch_u32(at, v) ffi.cast(u32p, self.buf + at)[0] = v end
function W:patch_u64(at, v) ffi.cast(u64p, self.buf + at)[0] = v end
function W:tostring() return ffi.string(self.buf, self.n) end

-- ---- ByteReader --------------------------------------------------------------------------------

local R = {}
R.__index = R

--- A reader over n bytes at ptr; `keep` holds the owner of the memory; fail(msg) raises errors.
function B.reader(ptr, n, keep, fail)
  return setmetatable({ p = ffi.cast(u8p, ptr), n = n, i = 0, keep = keep, fail = fail }, R)
end
--- A reader over a Lua string.
function B.string_reader(s, fail)
  return B.reader(s, #s, s, fail)
end

-- Returns the address of the next k bytes and advances, or fails: corrupt sizes stop here.
local function take(r, k, what)
  local i = r.i
  if k > r.n - i then
    r.fail(string.format('unexpected end of data reading %s: needed %d bytes at offset %d but only %d remain '
                         .. '(the file is truncated or corrupt)', what or 'a value', k, i, r.n - i))
  end
  r.i = i + k
  return r.p + i
end
B.take = take

function R:u8(what) return take(self, 1, what)[0] end
function R:i8(what) return ffi.cast(i8p, take(self, 1, what))[0] end
function R:i16(what) return ffi.cast(i16p, take(self, 2, what))[0] end
function R:u16(what) return ffi.cast(u16p, take(self, 2, what))[0] end
function R:u32(what) return ffi.cast(u32p, take(self, 4, what))[0] end
function R:i32(what) return ffi.cast(i32p, take(self, 4, what))[0] end
function R:i64(what) return tonumber(ffi.cast(i64p, take(self, 8, what))[0]) end
function R:u64(what) return tonumber(ffi.cast(u64p, take(self, 8, what))[0]) end
function R:i64_cdata(what) return ffi.cast(i64p, take(self, 8, what))[0] end
function R:u64_cdata(what) return ffi.cast(u64p, take(self, 8, what))[0] end
-- Floats from a file through torch.float_read: a corrupt NaN must not become a Lua table.
function R:f32(what) return float_read.f32(take(self, 4, what), 0) end
function R:f64(what) return float_read.f64(take(self, 8, what), 0) end
--- n raw bytes as a string.
function R:bytes(n, what) return ffi.string(take(self, n, what), n) end
--- A u32 length then that many bytes.
function R:str(what)
  local n = self:u32(what)
  return ffi.string(take(self, n, what), n)
end
--- Copies n bytes to dst.
function R:copy_to(dst, n, what) ffi.copy(dst, take(self, n, what), n) end
function R:remaining() return self.n - self.i end
function R:pos() return self.i end

return B
