-- ZIP archives as PyTorch's torch.save writes them (PKWARE APPNOTE 6.3): a reader (central
-- directory, ZIP64, stored and deflated entries) and a writer (stored entries, data aligned to
-- 64 bytes like PyTorch's, ZIP64 past 4 GiB). Every offset and size from a file is checked
-- against the file before it is used, so a corrupt archive is an error naming what is wrong.
local ffi = require 'ffi'
local bit = require 'bit'
local lib = require 'torch.lib'

local Z = {}

local u16p, u32p, u64p = ffi.typeof('uint16_t *'), ffi.typeof('uint32_t *'), ffi.typeof('uint64_t *')
local function u16(s, i) return ffi.cast(u16p, ffi.cast('const char *', s) + i)[0] end
local function u32(s, i) return tonumber(ffi.cast(u32p, ffi.cast('const char *', s) + i)[0]) end
local function u64(s, i) return tonumber(ffi.cast(u64p, ffi.cast('const char *', s) + i)[0]) end

local LOCAL, CENTRAL, EOCD = 0x04034b50, 0x02014b50, 0x06054b50
local EOCD64, LOCATOR64 = 0x06064b50, 0x07064b50
local MAX32 = 0xFFFFFFFF

Z.ALIGN = 64  -- PyTorch aligns every record's data to 64 bytes (mmap-friendly)
-- Sizes and offsets from this one on are written in ZIP64 form (tests lower it to exercise ZIP64).
Z.zip64_from = MAX32

-- ---- deflate through zlib ------------------------------------------------------------------------

-- Note [Deflate]: PyTorch stores entries uncompressed, but a checkpoint re-zipped by another tool
-- may deflate them. zlib is linked into the tocha executable; failing that, libz is loaded by
-- name; without either, a deflated entry is a clear error rather than a guess.
local zlib
local function get_zlib()
  if zlib ~= nil then return zlib end
  pcall(ffi.cdef, [[
    typedef struct tocha_pt_z_stream {
      const uint8_t *next_in; unsigned avail_in; unsigned long total_in;
      uint8_t *next_out; unsigned avail_out; unsigned long total_out;
      const char *msg; void *state; void *zalloc; void *zfree; void *opaque;
      int data_type; unsigned long adler; unsigned long reserved;
    } tocha_pt_z_stream;
    const char *zlibVersion(void);
    int inflateInit2_(tocha_pt_z_stream *strm, int windowBits, const char *version, int stream_size);
    int inflate(tocha_pt_z_stream *strm, int flush);
    int inflateEnd(tocha_pt_z_stream *strm);
  ]])
  local function try(ns) return pcall(function() local _ = ns.inflate, ns.inflateInit2_, ns.zlibVersion end) end
  if try(ffi.C) then zlib = ffi.C else
    local ok, ns = pcall(ffi.load, 'z')
    zlib = ok and try(ns) and ns or false
  end
  return zlib
end

--- Inflates raw deflate data (a string) into exactly n bytes; returns them as a string or nil and
--- a message.
function Z.inflate(data, n)
  local z = get_zlib()
  if not z then return nil, 'the entry is deflated and zlib is not available to inflate it' end
  local strm = ffi.new('tocha_pt_z_stream')
  if z.inflateInit2_(strm, -15, z.zlibVersion(), ffi.sizeof(strm)) ~= 0 then return nil, 'zlib failed to start' end
  local out = ffi.new('uint8_t[?]', n + 1)
  strm.next_in, strm.avail_in = ffi.cast('const uint8_t *', data), #data
  strm.next_out, strm.avail_out = out, n + 1
  local rc = z.inflate(strm, 4)  -- Z_FINISH
  local got = tonumber(strm.total_out)
  z.inflateEnd(strm)
  if rc ~= 1 then return nil, string.format('corrupt deflate data (zlib status %d)', rc) end
  if got ~= n then return nil, string.format('inflates to %d bytes, the directory says %d', got, n) end
  return ffi.string(out, n)
end

-- ---- reading --------------------------------------------------------------------------------------

-- The ZIP64 extended information extra field: replaces the 32-bit fields that hold 0xFFFFFFFF.
local function zip64_extra(fail, name, extra, e)
  local i = 0
  while i + 4 <= #extra do
    local id, len = u16(extra, i), u16(extra, i + 2)
    if i + 4 + len > #extra then break end
    if id == 1 then
      local j, stop = i + 4, i + 4 + len
      for _, f in ipairs({ 'usize', 'csize', 'offset' }) do
        if e[f] == MAX32 then
          if j + 8 > stop then fail('entry %s: truncated ZIP64 extra field', name) end
          e[f] = u64(extra, j)
          j = j + 8
        end
      end
    end
    i = i + 4 + len
  end
end

--- Reads the central directory of the archive in stream (a torch.serialize_stream handle).
--- Returns { entries = {name -> entry}, names = {in order} }; entry: name, method, crc, csize,
--- usize, offset (of the local header).
function Z.open(stream)
  local size = stream:size()
  local function fail(...) stream:fail(...) end
  if size < 22 then fail('too short for a ZIP archive (%d bytes)', size) end
  local tail_len = math.min(size, 22 + 65535)
  stream:seek(size - tail_len)
  local tail = stream:read_string(tail_len, 'the end of the ZIP archive')
  local at
  for i = tail_len - 22, 0, -1 do
    if tail:byte(i + 1) == 0x50 and u32(tail, i) == EOCD then at = i break end
  end
  if not at then
    fail('starts like a PyTorch checkpoint (a ZIP archive) but has no ZIP end-of-central-directory record: it is '
         .. 'truncated, or not a Tocha checkpoint, a Torch7 .t7 file, a safetensors file or a PyTorch checkpoint')
  end
  local count, cd_size, cd_off = u16(tail, at + 10), u32(tail, at + 12), u32(tail, at + 16)
  if count == 0xFFFF or cd_size == MAX32 or cd_off == MAX32 then
    local eocd_pos = size - tail_len + at
    if eocd_pos < 20 then fail('ZIP64 archive without its locator') end
    stream:seek(eocd_pos - 20)
    local loc = stream:read_string(20, 'the ZIP64 locator')
    if u32(loc, 0) ~= LOCATOR64 then fail('ZIP64 archive without its locator') end
    local rec_off = u64(loc, 8)
    if rec_off + 56 > eocd_pos then fail('ZIP64 end record at offset %d lies outside the file', rec_off) end
    stream:seek(rec_off)
    local rec = stream:read_string(56, 'the ZIP64 end record')
    if u32(rec, 0) ~= EOCD64 then fail('corrupt ZIP64 end record at offset %d', rec_off) end
    count, cd_size, cd_off = u64(rec, 32), u64(rec, 40), u64(rec, 48)
  end
  if cd_off + cd_size > size or cd_size < 46 * count then
    fail('the ZIP central directory (%d entries, %d bytes at offset %d) does not fit in the %d-byte file',
         count, cd_size, cd_off, size)
  end
  stream:seek(cd_off)
  local cd = stream:read_string(cd_size, 'the ZIP central directory')
  local entries, names, i = {}, {}, 0
  for k = 1, count do
    if i + 46 > cd_size or u32(cd, i) ~= CENTRAL then fail('corrupt ZIP central directory entry %d', k) end
    local nlen, xlen, clen = u16(cd, i + 28), u16(cd, i + 30), u16(cd, i + 32)
    if i + 46 + nlen + xlen + clen > cd_size then fail('corrupt ZIP central directory entry %d', k) end
    local name = cd:sub(i + 47, i + 46 + nlen)
    local e = { name = name, flags = u16(cd, i + 8), method = u16(cd, i + 10), crc = u32(cd, i + 16),
                csize = u32(cd, i + 20), usize = u32(cd, i + 24), offset = u32(cd, i + 42) }
    zip64_extra(fail, name, cd:sub(i + 47 + nlen, i + 46 + nlen + xlen), e)
    if e.offset + 30 + e.csize > cd_off then
      fail("ZIP entry '%s' (%d bytes at offset %d) lies outside the archive's data", name, e.csize, e.offset)
    end
    if entries[name] then fail("the ZIP archive holds '%s' twice", name) end
    entries[name] = e
    names[#names + 1] = name
    i = i + 46 + nlen + xlen + clen
  end
  return { stream = stream, entries = entries, names = names, cd_off = cd_off }
end

--- The offset of an entry's data in the file (from its local header), checked to fit.
function Z.data_offset(zip, e)
  if e.data_at then return e.data_at end
  local stream = zip.stream
  stream:seek(e.offset)
  local h = stream:read_string(30, "the local header of '" .. e.name .. "'")
  if u32(h, 0) ~= LOCAL then stream:fail("corrupt ZIP local header for '%s' at offset %d", e.name, e.offset) end
  local at = e.offset + 30 + u16(h, 26) + u16(h, 28)
  if at + e.csize > zip.cd_off then
    stream:fail("ZIP entry '%s' (%d bytes at offset %d) runs past the archive's data", e.name, e.csize, at)
  end
  if e.method == 0 and e.csize ~= e.usize then
    stream:fail("stored ZIP entry '%s' has %d bytes but declares %d", e.name, e.csize, e.usize)
  end
  if e.method ~= 0 and e.method ~= 8 then
    stream:fail("ZIP entry '%s' uses compression method %d (only stored and deflated entries are supported)",
                e.name, e.method)
  end
  if bit.band(e.flags, 1) ~= 0 then stream:fail("ZIP entry '%s' is encrypted", e.name) end
  e.data_at = at
  return at
end

--- An entry's bytes as a string (inflated, CRC-checked).
function Z.read(zip, e)
  local stream = zip.stream
  local at = Z.data_offset(zip, e)
  stream:seek(at)
  local s = stream:read_string(e.csize, "ZIP entry '" .. e.name .. "'")
  if e.method == 8 then
    if e.usize > 1032 * e.csize + 1024 then  -- deflate's best ratio is about 1032:1
      stream:fail("ZIP entry '%s' claims to inflate %d bytes to %d (corrupt)", e.name, e.csize, e.usize)
    end
    local out, err = Z.inflate(s, e.usize)
    if not out then stream:fail("ZIP entry '%s': %s", e.name, err) end
    s = out
  end
  if lib.C.tocha_crc32(0, s, #s) ~= e.crc then
    stream:fail("ZIP entry '%s' fails its CRC-32 check (the file is corrupt)", e.name)
  end
  return s
end

-- ---- writing --------------------------------------------------------------------------------------

local Writer = {}
Writer.__index = Writer

--- A ZIP writer over a writable stream positioned at 0.
function Z.writer(stream)
  return setmetatable({ stream = stream, entries = {} }, Writer)
end

local function le(ct, v) return ffi.string(ffi.new(ct .. '[1]', v), ffi.sizeof(ct)) end
local function h16(v) return le('uint16_t', v) end
local function h32(v) return le('uint32_t', v) end
local function h64(v) return le('uint64_t', v) end

-- Writes a local header for `size` bytes of data that start ALIGN-aligned; returns the entry.
function Writer:begin(name, size, crc)
  local stream = self.stream
  local offset = stream:tell()
  local big = size >= Z.zip64_from
  local extra = big and (h16(1) .. h16(16) .. h64(size) .. h64(size)) or ''
  local data_at = offset + 30 + #name + #extra
  local pad = (Z.ALIGN - data_at % Z.ALIGN) % Z.ALIGN
  if pad > 0 and pad < 4 then pad = pad + Z.ALIGN end  -- room for the padding field's own header
  if pad > 0 then extra = extra .. h16(0x4246) .. h16(pad - 4) .. string.rep('Z', pad - 4) end  -- 'FB', as PyTorch
  local e = { name = name, size = size, crc = crc or 0, offset = offset, big = big }
  stream:write(h32(LOCAL) .. h16(big and 45 or 20) .. h16(0) .. h16(0) .. h16(0) .. h16(0x21) .. h32(e.crc)
               .. h32(big and MAX32 or size) .. h32(big and MAX32 or size) .. h16(#name) .. h16(#extra) .. name .. extra)
  self.entries[#self.entries + 1] = e
  return e
end

--- Sets an entry's CRC once its data is written (the stream is back at its end afterwards).
function Writer:set_crc(e, crc)
  local stream = self.stream
  local here = stream:tell()
  e.crc = crc
  stream:seek(e.offset + 14)
  stream:write(h32(crc))
  stream:seek(here)
end

--- Adds an entry holding a string.
function Writer:add(name, data)
  self:begin(name, #data, lib.C.tocha_crc32(0, data, #data))
  self.stream:write(data)
end

--- Writes the central directory and the end records.
function Writer:finish()
  local stream = self.stream
  local cd_off = stream:tell()
  local parts = {}
  for i, e in ipairs(self.entries) do
    local far = e.offset >= Z.zip64_from
    local extra = ''
    if e.big or far then
      extra = (e.big and h64(e.size) .. h64(e.size) or '') .. (far and h64(e.offset) or '')
      extra = h16(1) .. h16(#extra) .. extra
    end
    parts[i] = h32(CENTRAL) .. h16((e.big or far) and 45 or 20) .. h16((e.big or far) and 45 or 20) .. h16(0) .. h16(0)
      .. h16(0) .. h16(0x21) .. h32(e.crc) .. h32(e.big and MAX32 or e.size) .. h32(e.big and MAX32 or e.size)
      .. h16(#e.name) .. h16(#extra) .. h16(0) .. h16(0) .. h16(0) .. h32(0) .. h32(far and MAX32 or e.offset)
      .. e.name .. extra
  end
  local cd = table.concat(parts)
  stream:write(cd)
  local n, zip64 = #self.entries, cd_off + #cd >= Z.zip64_from or #self.entries >= 0xFFFF
  if zip64 then
    local rec_off = stream:tell()
    stream:write(h32(EOCD64) .. h64(44) .. h16(45) .. h16(45) .. h32(0) .. h32(0) .. h64(n) .. h64(n)
                 .. h64(#cd) .. h64(cd_off))
    stream:write(h32(LOCATOR64) .. h32(0) .. h64(rec_off) .. h32(1))
  end
  stream:write(h32(EOCD) .. h16(0) .. h16(0) .. h16(zip64 and 0xFFFF or n) .. h16(zip64 and 0xFFFF or n)
               .. h32(zip64 and MAX32 or #cd) .. h32(zip64 and MAX32 or cd_off) .. h16(0))
end

return Z
