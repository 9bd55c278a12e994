-- Torch7's File API: torch.File (typed reads and writes in binary or Torch7 ascii, positions,
-- error flags), torch.DiskFile and torch.MemoryFile. writeObject/readObject come from t7.lua.
local ffi = require 'ffi'
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local S = require 'torch.serialize_stream'
local float_read = require 'torch.float_read'
local KIND = S.KIND

local File = torch.class('torch.File', torch)

-- Per element type: the file kind of scalars, the kind and dtype of storages.
local elem = {
  Byte = { kind = KIND.u8, skind = KIND.u8, dtype = lib.dtype.u8, ct = 'uint8_t[1]' },
  Char = { kind = KIND.i8, skind = KIND.i8, dtype = lib.dtype.i8, ct = 'int8_t[1]' },
  Short = { kind = KIND.i16, skind = KIND.i16, dtype = lib.dtype.i16, ct = 'int16_t[1]' },
  Int = { kind = KIND.i32, skind = KIND.i32, dtype = lib.dtype.i32, ct = 'int32_t[1]' },
  Long = { kind = KIND.i64, skind = KIND.i64, dtype = lib.dtype.i64, ct = 'int64_t[1]' },
  Float = { kind = KIND.f32, skind = KIND.f32, dtype = lib.dtype.f32, ct = 'float[1]' },
  Double = { kind = KIND.f64, skind = KIND.f64, dtype = lib.dtype.f64, ct = 'double[1]' },
}
for _, e in pairs(elem) do e.scratch = ffi.new(e.ct) end
-- Floats read back through torch.float_read (Note [NaNs that LuaJIT reads as other values]).
elem.Float.read, elem.Double.read = float_read.f32, float_read.f64
local long32 = { kind = KIND.i32, skind = KIND.i32, dtype = lib.dtype.i64, scratch = ffi.new('int32_t[1]') }

-- Sets up a File over a stream wrapper (serialize_stream.lua). Torch7 files start in ascii mode.
function File:_open(stream)
  self._stream = stream
  self._binary = false
  self._autospace = true
  self._quiet = false
  self._error = false
  self._referenced = true
  self._longsize = 8
  return self
end

--- A torch.File over a stream wrapper (used by torch.save/load for .t7 files).
function File._wrap(stream)
  return File._open(setmetatable({}, torch.getmetatable('torch.File')), stream)
end

function File:_s()
  local st = self._stream
  if not st or not st:is_open() then lib.fail('File', 'attempt to use a closed file') end
  return st
end
function File:_flags() return (self._binary and 0 or S.ASCII) + (self._autospace and S.AUTOSPACE or 0) end
function File:_elem(name)
  if name == 'Long' and self._longsize == 4 then return long32 end
  return elem[name]
end
-- Torch7's read failure: an error, or in quiet mode the hasError flag.
function File:_short_read(got, want)
  self._error = true
  if not self._quiet then
    self._stream:fail('read error: read %d blocks instead of %d (the file is truncated or corrupt)', got, want)
  end
end

-- ---- modes and flags ----------------------------------------------------------------------------

--- Switches to binary mode (raw little-endian values).
function File:binary() self._binary = true return self end
--- Switches to ascii mode (Torch7's text: %d, %.9g floats, %.17g doubles).
function File:ascii() self._binary = false return self end
--- Whether the file is in binary mode.
function File:isBinary() return self._binary end
--- In ascii mode, separates values by spaces and ends each write with a newline (default).
function File:autoSpacing() self._autospace = true return self end
--- In ascii mode, writes values without separators.
function File:noAutoSpacing() self._autospace = false return self end
--- Whether ascii auto-spacing is on.
function File:isAutoSpacing() return self._autospace end
--- Read errors set hasError() instead of raising.
function File:quiet() self._quiet = true return self end
--- Read errors raise (default).
function File:pedantic() self._quiet = false return self end
--- Whether the file is quiet.
function File:isQuiet() return self._quiet end
--- Whether a read failed in quiet mode.
function File:hasError() return self._error end
--- Clears the error flag.
function File:clearError() self._error = false return self end
--- Whether the file can be read.
function File:isReadable() return lib.C.tocha_stream_readable(self:_s().s) ~= 0 end
--- Whether the file can be written.
function File:isWritable() return lib.C.tocha_stream_writable(self:_s().s) ~= 0 end
--- file:referenced(false) writes every object in full, without references (Torch7).
function File:referenced(ref) self._referenced = ref ~= false return self end
--- Whether writeObject writes shared objects once (default).
function File:isReferenced() return self._referenced end
--- file:allowCode(true) lets readObject load serialized functions (Tocha extension; off by default).
function File:allowCode(flag) self._allowCode = flag ~= false return self end

--- file:longSize(n) reads and writes longs as n bytes (4 or 8; 0 = native 8), for 32-bit .t7 files.
function File:longSize(n)
  if n ~= 0 and n ~= 4 and n ~= 8 then lib.fail('longSize', 'invalid long size %s (expected 0, 4 or 8)', tostring(n)) end
  self._longsize = n == 0 and 8 or n
  return self
end

-- ---- positions ------------------------------------------------------------------------------------

--- Flushes buffered writes to the operating system.
function File:synchronize() self:_s():flush() return self end
--- Moves to byte `pos` (1-based, Torch7).
function File:seek(pos)
  if type(pos) ~= 'number' or pos < 1 then lib.fail('seek', 'position has to be greater than 0, got %s', tostring(pos)) end
  self:_s():seek(pos - 1)
  return self
end
--- Moves to the end of the file.
function File:seekEnd()
  local st = self:_s()
  st:seek(st:size())
  return self
end
--- The current byte position (1-based).
function File:position() return self:_s():tell() + 1 end
--- Closes the file; a DiskFile opened with 'w' appears at its path now.
function File:close()
  if self._stream then
    local st = self._stream
    self._stream = nil
    st:close()
  end
  return self
end

-- ---- typed values -----------------------------------------------------------------------------------

-- Torch7 takes only the storage type of the method (writeInt: an IntStorage); converting another
-- type silently lost data (writeInt(FloatStorage{1.5}) wrote 1).
local function check_storage(op, e, s)
  if s.p.dtype ~= e.dtype then
    lib.fail(op, 'expected a number or a %s, got %s', types.storage_name[e.dtype], types.describe(s))
  end
end

for name in pairs(elem) do
  --- file:readX() reads a number; file:readX(n) a new storage of n values; file:readX(storage) fills it.
  File['read' .. name] = function(self, arg)
    local st, e, flags = self:_s(), self:_elem(name), self:_flags()
    if arg == nil then
      local got = st:read_values(e.scratch, e.kind, 1, flags)
      if got ~= 1 then self:_short_read(got, 1) return 0 end
      if e.read then return e.read(e.scratch, 0) end
      return tonumber(e.scratch[0])
    elseif type(arg) == 'number' then
      local ok, t = pcall(st.read_storage, st, arg, e.skind, e.dtype, flags)
      if not ok then
        if not self._quiet then error(t, 0) end
        self._error = true
        return torch[types.suffix[e.dtype] .. 'Storage']()
      end
      return S.storage_handle(t, 0, arg)
    elseif types.is_storage(arg) then
      check_storage('read' .. name, e, arg)
      local n = #arg
      local got = st:read_tensor(arg, e.skind, flags)
      if got ~= n then self:_short_read(got, n) end
      return got
    end
    lib.fail('read' .. name, 'expected nothing, a number or a storage, got %s', types.describe(arg))
  end
  --- file:writeX(number) writes one value; file:writeX(storage) all of its values.
  File['write' .. name] = function(self, v)
    local st, e, flags = self:_s(), self:_elem(name), self:_flags()
    if type(v) == 'number' then
      e.scratch[0] = v
      st:write_values(e.scratch, e.kind, 1, flags)
      return 1
    elseif types.is_storage(v) then
      check_storage('write' .. name, e, v)
      st:write_tensor(v, e.skind, flags)
      return #v
    end
    lib.fail('write' .. name, 'expected a number or a storage, got %s', types.describe(v))
  end
end

--- Writes a boolean as an int (Torch7).
function File:writeBool(v) return self:writeInt(v and 1 or 0) end
--- Reads a boolean written by writeBool.
function File:readBool() return self:readInt() == 1 end

--- Writes the bytes of a string as they are (no length, no spacing); returns the count.
function File:writeString(s)
  if type(s) ~= 'string' then lib.fail('writeString', 'expected a string, got %s', types.describe(s)) end
  self:_s():write(s)
  return #s
end
--- file:readString('*a') reads to the end, file:readString('*l') one line (without its newline).
function File:readString(fmt)
  local st = self:_s()
  if fmt == '*a' then
    local n = st:size() - st:tell()
    if n == 0 then self:_short_read(0, 1) return '' end
    return st:read_string(n)
  elseif fmt == '*l' then
    if not st:peek() then self:_short_read(0, 1) return '' end
    local parts, n = {}, 0
    local buf = ffi.new('uint8_t[1]')
    while true do
      local c = st:peek()
      if not c then break end
      st:read_into(buf, 1)
      if c == 10 then break end
      n = n + 1
      parts[n] = string.char(c)
    end
    return table.concat(parts)
  end
  lib.fail('readString', "format must be '*a' or '*l', got %s", tostring(fmt))
end

-- Raw bytes with Torch7's spacing (writeChar of a string; the .t7 string encoding).
function File:_writeBytes(s)
  self:_s():write_values(s, KIND.u8, #s, self:_flags())
end
function File:_readBytes(n)
  local st = self:_s()
  if n < 0 or n > st:size() - st:tell() then
    st:fail('a string of %d bytes at offset %d does not fit in the file (truncated or corrupt)', n, st:tell())
  end
  local buf = ffi.new('uint8_t[?]', math.max(n, 1))
  local got = st:read_values(buf, KIND.u8, n, self:_flags())
  if got ~= n then self:_short_read(got, n) end
  return ffi.string(buf, got)
end

-- ---- DiskFile ---------------------------------------------------------------------------------------

-- Unlike Torch7, DiskFile(name, 'w') is atomic (DESIGN.md decision 11): the file appears,
-- replacing the old one, at close(); a writer that is never closed leaves the previous file.
local DiskFile = torch.class('torch.DiskFile', 'torch.File', torch)

--- torch.DiskFile(name[, mode='r'][, quiet]): mode 'r', 'w' (atomic, appears at close) or 'rw'.
function DiskFile:__init(name, mode, quiet)
  mode = mode or 'r'
  if mode ~= 'r' and mode ~= 'w' and mode ~= 'rw' then
    lib.fail('DiskFile', "file mode should be 'r', 'w' or 'rw', got %s", tostring(mode))
  end
  self:_open(S.open_file(name, mode, 'DiskFile'))
  self._name = name
  if quiet then self._quiet = true end
end
-- Torch7 returns nil instead of raising when a quiet DiskFile (or PipeFile) cannot be opened:
-- replaces the constructor torch[short] of class cls by a callable table that does so.
function File._quietConstructor(cls, short)
  local ctor = torch[short]
  torch[short] = setmetatable({}, {
    __index = cls, __newindex = cls, __tostring = function() return 'torch.' .. short end,
    __call = function(_, name, mode, quiet)
      if quiet then
        local ok, f = pcall(ctor, name, mode, quiet)
        return ok and f or nil
      end
      return ctor(name, mode, quiet)
    end,
  })
end
File._quietConstructor(DiskFile, 'DiskFile')

--- The file name.
function DiskFile:name() return self._name end
--- Whether this CPU is little-endian.
function DiskFile:isLittleEndianCPU() return ffi.abi('le') end
--- Whether this CPU is big-endian.
function DiskFile:isBigEndianCPU() return not ffi.abi('le') end
--- Native byte order (little-endian): the default.
function DiskFile:nativeEndianEncoding() return self end
--- Little-endian byte order: the native order here.
function DiskFile:littleEndianEncoding() return self end
--- Big-endian byte order: not supported.
function DiskFile:bigEndianEncoding()
  lib.fail('bigEndianEncoding', 'big-endian files are not supported (this CPU is little-endian)')
end
--- Accepted for Torch7 compatibility; writes are buffered until close or synchronize.
function DiskFile:noBuffer() return self end

-- ---- MemoryFile -------------------------------------------------------------------------------------

local MemoryFile = torch.class('torch.MemoryFile', 'torch.File', torch)

--- torch.MemoryFile([contents][, mode='rw']): contents is a string or a ByteStorage.
function MemoryFile:__init(a, b)
  local contents, mode = a, b
  if type(a) == 'string' and b == nil and (a == 'r' or a == 'w' or a == 'rw') then contents, mode = nil, a end
  mode = mode or 'rw'
  if mode ~= 'r' and mode ~= 'w' and mode ~= 'rw' then
    lib.fail('MemoryFile', "file mode should be 'r', 'w' or 'rw', got %s", tostring(mode))
  end
  if types.is_storage(contents) then contents = contents:string() end
  if contents ~= nil and type(contents) ~= 'string' then
    lib.fail('MemoryFile', 'expected a string or a ByteStorage, got %s', types.describe(contents))
  end
  self:_open(mode == 'r' and S.borrow_string(contents or '', 'MemoryFile') or S.open_memory(contents, 'MemoryFile'))
end

--- The bytes written so far, as a new ByteStorage.
function MemoryFile:storage()
  return S.byte_storage(self:_s():contents())
end
--- The bytes written so far, as a string (Tocha extension).
function MemoryFile:string() return self:_s():contents() end

return File
