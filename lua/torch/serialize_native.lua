-- Tocha's checkpoint format: constants and the 64-byte header shared by the writer
-- (serialize_native_write.lua) and the reader (serialize_native_read.lua).
local lib = require 'torch.lib'
local buffer = require 'torch.serialize_buffer'
local C = lib.C

-- Note [Checkpoint format] (version 1). Integers are little-endian and fixed-width.
--   [0, 64)              header: magic "\x89TCH\r\n\x1a\n", u32 version, u32 flags (0), u64 meta_offset,
--                        u64 meta_length, u64 data_offset (64), u64 data_length, u32 meta_crc,
--                        u32 blob_count, u32 reserved (0), u32 header_crc (CRC-32 of bytes [0, 60)).
--   [64, meta_offset)    data: one blob per storage, in index order, each followed by zeros up to a
--                        multiple of 64 bytes (so mmap gives aligned tensors); its index record holds
--                        the CRC-32 of the blob and its padding.
--   [meta_offset, end)   index: the object graph, one value (the saved object); CRC-32 in the header.
-- Every byte is covered by a checksum and the blobs must tile the data section exactly, so any
-- flipped or missing byte is detected (mmap loads skip blob checksums unless {verify=true}).
-- Index values are a u8 tag and its payload:
--   0 nil | 1 number: f64 | 2 string: u32 length, bytes | 5 boolean: u8 0/1
--   3 table: u32 id, u32 count, count x (key, value)
--   4 class object: u32 id, string name, i32 version, u8 mode; mode 0: u32 count, count x (key, value)
--     (its fields); mode 1: u64 length, the bytes the class's write(file) method wrote
--   6 tensor: u32 id, u8 dtype, u8 flags (2: requires grad), u8 ndim, i64 size[ndim], i64 stride[ndim],
--     i64 storage offset, then its blob (a blob record or a reference)
--   7 storage: u32 id, u8 dtype, i64 offset, i64 size, then its blob
--   8 reference: u32 id of an earlier table, class object, tensor, storage or blob
--   9 blob: u32 id, u8 dtype, u8 device type, u16 device index, u64 nbytes, u64 offset (from the data
--     section), u64 padded length, u32 crc
--   10 int64: i64 | 11 uint64: u64
-- Ids count from 1 in the order objects first appear; shared objects and cycles become references.
-- There is no tag for functions: loading never runs code from a file.
local N = {}

N.MAGIC = '\137TCH\r\n\26\n'
N.VERSION = 1
N.HEADER_SIZE = 64
N.ALIGN = 64
N.TAG = { NIL = 0, NUMBER = 1, STRING = 2, TABLE = 3, CLASS = 4, BOOLEAN = 5, TENSOR = 6, STORAGE = 7, REF = 8,
          BLOB = 9, INT64 = 10, UINT64 = 11 }
N.FLAG_REQUIRES_GRAD = 2

--- The 64 header bytes for the given section layout.
function N.encode_header(h)
  local w = buffer.writer()
  w:bytes(N.MAGIC)
  w:u32(N.VERSION)
  w:u32(0)
  w:u64(h.meta_offset)
  w:u64(h.meta_length)
  w:u64(N.HEADER_SIZE)
  w:u64(h.meta_offset - N.HEADER_SIZE)
  w:u32(h.meta_crc)
  w:u32(h.blob_count)
  w:u32(0)
  w:u32(C.tocha_crc32(0, w.buf, w:pos()))
  return w:tostring()
end

--- Parses and checks a header string against the file size; fail(msg) raises.
function N.decode_header(s, file_size, fail)
  if #s < N.HEADER_SIZE or s:sub(1, 8) ~= N.MAGIC then fail('not a Tocha checkpoint (bad magic)') end
  local r = buffer.string_reader(s, fail)
  r:bytes(8)
  local h = {}
  h.version = r:u32()
  h.flags = r:u32()
  h.meta_offset, h.meta_length = r:u64(), r:u64()
  h.data_offset, h.data_length = r:u64(), r:u64()
  h.meta_crc, h.blob_count = r:u32(), r:u32()
  local reserved, crc = r:u32(), r:u32()
  if C.tocha_crc32(0, s, 60) ~= crc then fail('header checksum mismatch: the file is corrupt') end
  if h.version > N.VERSION or h.version < 1 then
    fail(string.format('written in checkpoint format version %d; this Tocha reads versions up to %d', h.version,
                       N.VERSION))
  end
  if h.flags ~= 0 or reserved ~= 0 then fail('unknown header flags: the file is corrupt or from a newer Tocha') end
  if h.data_offset ~= N.HEADER_SIZE or h.meta_offset ~= h.data_offset + h.data_length
     or h.meta_offset % N.ALIGN ~= 0 or h.meta_offset + h.meta_length ~= file_size then
    fail(string.format('inconsistent section sizes (data %d+%d, index %d+%d) for a file of %d bytes: '
                       .. 'the file is truncated or corrupt', h.data_offset, h.data_length, h.meta_offset,
                       h.meta_length, file_size))
  end
  return h
end

return N
