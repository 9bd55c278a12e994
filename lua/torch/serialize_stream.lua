-- Lua handles over C byte streams (bindings/tocha_serialize.h): files (atomic writes, mmap) and
-- memory. Every format reader/writer goes through these; C errors are re-raised as
-- "[<op>] <file>: <message>" at the user's line. Memory streams are named "<memory>" here as in
-- the C layer's messages, so both kinds of error name the same stream.
local ffi = require 'ffi'
local lib = require 'torch.lib'
local types = require 'torch.types'
local C = lib.C

local S = {}

S.KIND = { u8 = 0, i8 = 1, i16 = 2, i32 = 3, i64 = 4, f32 = 5, f64 = 6, f16 = 7, bf16 = 8, bool = 9 }
S.ASCII, S.AUTOSPACE = 1, 2
-- The element kind holding each dtype bit for bit (dtype ids from lib.dtype).
S.native_kind = { [0] = 5, 6, 7, 8, 4, 3, 0, 9, 1, 2 }

local free_stream = C.tocha_stream_free
local release_storage = types.release_storage

-- Raises the last C error as "[op] message" (the C layer's "[io] " prefix is replaced).
function S.raise(op)
  local msg = ffi.string(C.tocha_last_error())
  msg = msg:gsub('^%[io%] ', ''):gsub('^%[load%] ', '')
  error('[' .. op .. '] ' .. msg, lib.user_level())
end

local Stream = {}
Stream.__index = Stream

local function wrap(p, name, op, keep)
  if p == nil then S.raise(op) end
  return setmetatable({ s = ffi.gc(p, free_stream), name = name, op = op, keep = keep }, Stream)
end

--- Opens a file stream: mode 'r', 'w' (atomic replacement on close) or 'rw'; op names errors.
function S.open_file(path, mode, op)
  if type(path) ~= 'string' then lib.fail(op, 'expected a file name (string), got %s', types.describe(path)) end
  return wrap(C.tocha_stream_open_file(path, mode), path, op)
end

--- A writable memory stream (optionally starting with the bytes of a string).
function S.open_memory(str, op)
  return wrap(C.tocha_stream_open_memory(str, str and #str or 0, 1), '<memory>', op)
end

--- A read-only stream over a Lua string (no copy; the stream keeps the string alive).
function S.borrow_string(str, op)
  return wrap(C.tocha_stream_open_memory(str, #str, 0), '<memory>', op, str)
end

--- A read-only stream over a storage's bytes (no copy; the stream keeps the storage alive).
function S.borrow_storage(st, op)
  local p = st.p
  local ptr = p.storage.data + p.storage_offset * p.elsize
  return wrap(C.tocha_stream_open_memory(ptr, tonumber(p.numel) * p.elsize, 0), '<memory>', op, st)
end

function Stream:fail(fmt, ...)
  local msg = select('#', ...) > 0 and string.format(fmt, ...) or fmt
  error('[' .. self.op .. '] ' .. self.name .. ': ' .. msg, lib.user_level())
end
function Stream:raise() S.raise(self.op) end
function Stream:check(status) if status ~= 0 then S.raise(self.op) end end

--- Finishes the stream (commits an atomic write); the handle is freed right away.
function Stream:close()
  local s = self.s
  if s == nil then return end
  local status = C.tocha_stream_close(s)
  self:free()
  if status ~= 0 then S.raise(self.op) end
end
--- Frees the stream now: an unfinished atomic write is discarded, the old file stays.
function Stream:free()
  local s = self.s
  if s == nil then return end
  self.s = nil
  ffi.gc(s, nil)
  free_stream(s)
  self.keep = nil
end
function Stream:is_open() return self.s ~= nil and C.tocha_stream_is_open(self.s) ~= 0 end
function Stream:tell()
  local n = C.tocha_stream_tell(self.s)
  if n < 0 then S.raise(self.op) end
  return tonumber(n)
end
function Stream:size()
  local n = C.tocha_stream_size(self.s)
  if n < 0 then S.raise(self.op) end
  return tonumber(n)
end
function Stream:seek(pos) self:check(C.tocha_stream_seek(self.s, pos)) end
function Stream:flush() self:check(C.tocha_stream_flush(self.s)) end
--- The next byte (a number) without consuming it, or nil at the end.
function Stream:peek()
  local c = C.tocha_stream_peek(self.s)
  if c == -2 then S.raise(self.op) end
  return c >= 0 and c or nil
end

--- Writes a string or (ptr, n) bytes.
function Stream:write(src, n)
  self:check(C.tocha_stream_write(self.s, src, n or #src))
end
--- Reads up to n bytes into ptr; returns the count.
function Stream:read_into(ptr, n)
  local got = C.tocha_stream_read(self.s, ptr, n)
  if got < 0 then S.raise(self.op) end
  return tonumber(got)
end
--- Reads exactly n bytes as a string, or fails naming `what`.
function Stream:read_string(n, what)
  local at = self:tell()
  if n > self:size() - at then
    self:fail('unexpected end of file reading %s: needed %d bytes at offset %d but only %d remain '
              .. '(the file is truncated or corrupt)', what or 'data', n, at, self:size() - at)
  end
  local buf = ffi.new('uint8_t[?]', math.max(n, 1))
  local got = self:read_into(buf, n)
  if got ~= n then self:fail('unexpected end of file reading %s', what or 'data') end
  return ffi.string(buf, n)
end
--- A memory stream's bytes as a Lua string.
function Stream:contents()
  local n = ffi.new('int64_t[1]')
  local p = C.tocha_stream_data(self.s, n)
  return ffi.string(p, tonumber(n[0]))
end

-- ---- values and tensors ------------------------------------------------------------------------

function Stream:write_values(ptr, kind, n, flags)
  self:check(C.tocha_stream_write_values(self.s, ptr, kind, n, flags))
end
function Stream:read_values(ptr, kind, n, flags)
  local got = C.tocha_stream_read_values(self.s, ptr, kind, n, flags)
  if got < 0 then S.raise(self.op) end
  return tonumber(got)
end
function Stream:write_tensor(t, kind, flags)
  self:check(C.tocha_stream_write_tensor(self.s, t.p, kind, flags))
end
function Stream:read_tensor(t, kind, flags)
  local got = C.tocha_stream_read_tensor(self.s, t.p, kind, flags)
  if got < 0 then S.raise(self.op) end
  return tonumber(got)
end
--- A new 1D tensor of dtype from the next n values of kind (size checked before allocating).
function Stream:read_storage(n, kind, dtype, flags)
  local p = C.tocha_stream_read_storage(self.s, n, kind, dtype, flags)
  if p == nil then S.raise(self.op) end
  return lib.wrap(p)
end

local blob_out = ffi.new('int64_t[2]')
local crc_out = ffi.new('uint32_t[1]')
--- Writes the whole storage under tensor p plus padding; returns nbytes, padded, crc.
function Stream:write_blob(p, align)
  self:check(C.tocha_stream_write_blob(self.s, p, align, blob_out, blob_out + 1, crc_out))
  return tonumber(blob_out[0]), tonumber(blob_out[1]), crc_out[0]
end
function Stream:pad(align)
  if C.tocha_stream_pad(self.s, align) < 0 then S.raise(self.op) end
end
--- A 1D CPU tensor over a data block (see tocha_stream_read_blob).
function Stream:read_blob(offset, nbytes, padded, dtype, mmap, verify, crc)
  local p = C.tocha_stream_read_blob(self.s, offset, nbytes, padded, dtype, mmap and 1 or 0, verify and 1 or 0, crc or 0)
  if p == nil then S.raise(self.op) end
  return lib.wrap(p)
end

--- A new ByteStorage holding the bytes of a string.
function S.byte_storage(str)
  local t = lib.wrap(C.tocha_tensor_empty(1, ffi.new('int64_t[1]', #str), lib.dtype.u8, 0, 0))
  ffi.copy(ffi.cast('void *', t.p.storage.data), str, #str)
  return S.storage_handle(t, 0, #str)
end

-- ---- tensor helpers shared by the formats ------------------------------------------------------

local dims_a, dims_b = ffi.new('int64_t[16]'), ffi.new('int64_t[16]')
--- The view of base (a 1D tensor from read_blob/read_storage) with untrusted geometry; sizes and
--- strides are Lua arrays, offset is 0-based; `what` names it in errors (callers start it with the
--- stream's name, which C's message would not hold).
function S.view(base, offset, sizes, strides, what, op)
  local n = #sizes
  if n > 16 then error(string.format('[%s] %s: %d dimensions (at most 16)', op, what, n), lib.user_level()) end
  for i = 1, n do dims_a[i - 1] = sizes[i]; dims_b[i - 1] = strides[i] end
  local p = C.tocha_tensor_view_checked(base.p, offset, n, dims_a, dims_b, what)
  if p == nil then S.raise(op) end
  return lib.wrap(p)
end

--- A storage handle (torch.XStorage) sharing tensor t's memory from element `offset` (0-based).
function S.storage_handle(t, offset, size)
  local one = ffi.new('int64_t[1]', size)
  local p = C.tocha_tensor_view_storage(t.p, offset, 1, one, nil)
  if p == nil then lib.raise() end
  return ffi.gc(types.StorageHandle(p), release_storage)
end

--- Moves a freshly loaded CPU tensor to a device ('cuda:N'); returns it unchanged for 'cpu'.
function S.to_device(t, device_type, device_index, op)
  if device_type == 0 then return t end
  local p = C.tocha_tensor_to_device(t.p, device_type, device_index)
  if p == nil then
    error(string.format("[%s] cannot restore a tensor to cuda:%d (%s); load with {device='cpu'}", op, device_index,
      ffi.string(C.tocha_last_error())), lib.user_level())
  end
  return lib.wrap(p)
end

return S
