-- Reads Tocha checkpoints (Note [Checkpoint format] in serialize_native.lua): checksums first, then
-- every count, id, offset and geometry is validated; blobs load by copy or mmap. The reader is also
-- the `file` a class's read(file, version) method receives.
local ffi = require 'ffi'
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local buffer = require 'torch.serialize_buffer'
local common = require 'torch.serialize_common'
local S = require 'torch.serialize_stream'
local N = require 'torch.serialize_native'
local TAG = N.TAG

local Reader = {}
Reader.__index = Reader

local PENDING, BLOB = {}, {}  -- markers in `objects` for ids that are not values

function Reader:fail(fmt, ...)
  local msg = select('#', ...) > 0 and string.format(fmt, ...) or fmt
  if #self.keys > 0 then msg = msg .. ' (at ' .. common.path_string('object', self.keys) .. ')' end
  error('[' .. self.op .. '] ' .. self.s.name .. ': ' .. msg, lib.user_level())
end

-- Ids come in order; anything else is corruption.
function Reader:claim(id)
  if id ~= self.next_id then self:fail('object id %d where %d was expected: the file is corrupt', id, self.next_id) end
  self.next_id = id + 1
  self.objects[id] = PENDING
  return id
end

function Reader:enter()
  self.depth = self.depth + 1
  if self.depth > common.MAX_DEPTH then self:fail('objects nested more than %d levels deep', common.MAX_DEPTH) end
end

-- ---- values -------------------------------------------------------------------------------------

function Reader:value()
  local r = self.r
  local tag = r:u8('a value tag')
  if tag == TAG.NUMBER then return r:f64()
  elseif tag == TAG.STRING then return r:str('a string')
  elseif tag == TAG.BOOLEAN then
    local b = r:u8()
    if b > 1 then self:fail('corrupt boolean value %d', b) end
    return b == 1
  elseif tag == TAG.NIL then return nil
  elseif tag == TAG.TABLE then
    local t = {}
    self.objects[self:claim(r:u32())] = t
    self:enter()
    self:fields(t)
    self.depth = self.depth - 1
    return t
  elseif tag == TAG.CLASS then return self:class()
  elseif tag == TAG.TENSOR then return self:tensor()
  elseif tag == TAG.STORAGE then return self:storage()
  elseif tag == TAG.REF then
    local id = r:u32()
    local o = self.objects[id]
    if o == nil or o == PENDING or o == BLOB then
      self:fail('reference to object %d, which %s: the file is corrupt', id,
                o == nil and 'does not exist' or o == BLOB and 'is a data block' or 'is not complete yet')
    end
    return o
  elseif tag == TAG.INT64 then return r:i64_cdata()
  elseif tag == TAG.UINT64 then return r:u64_cdata()
  end
  self:fail('unknown value tag %d at index offset %d: the file is corrupt', tag, r:pos() - 1)
end

function Reader:fields(t)
  local r = self.r
  local n = r:u32('a table size')
  if n * 2 > r:remaining() then self:fail('a table declares %d entries but the index is shorter: the file is corrupt', n) end
  local stack = self.keys
  local d = #stack + 1
  for _ = 1, n do
    local k = self:value()
    if k == nil or k ~= k then self:fail('a table key is nil or NaN: the file is corrupt') end
    stack[d] = k
    rawset(t, k, self:value())
    stack[d] = nil
  end
end

function Reader:class()
  local r = self.r
  local id = self:claim(r:u32())
  local name = r:str('a class name')
  local version = r:i32()
  local mode = r:u8()
  local obj, mt, convert = common.new_instance(name)
  if not obj then self:fail('%s', mt) end
  self.objects[id] = obj
  self:enter()
  -- Hooks run on the file's data: their errors name the file (Note [Errors in class hooks]).
  local prefix = '[' .. self.op .. '] '
  local function hook_fail(msg) self:fail('%s', msg) end
  if mode == 0 then
    self:fields(obj)
  elseif mode == 1 then
    local len = r:u64()
    if len > r:remaining() then self:fail('class %s declares %d bytes of data but the index is shorter', name, len) end
    local read = common.class_method(mt, 'read')
    if not read then self:fail('class %s was saved by its write method but has no read method', name) end
    local start = r:pos()
    common.run_hook(hook_fail, prefix, name, 'read', read, obj, self, version)
    if r:pos() - start ~= len then
      self:fail("class %s's read method consumed %d bytes but its write method wrote %d (they disagree)", name,
                r:pos() - start, len)
    end
  else
    self:fail('class %s has an unknown encoding %d: the file is corrupt', name, mode)
  end
  self.depth = self.depth - 1
  if convert then
    local replaced = common.run_hook(hook_fail, prefix, name, 'alias conversion', convert, obj, name, version, 'tocha')
    if replaced ~= nil then obj = replaced end
    self.objects[id] = obj
  end
  return common.after_load(obj, hook_fail, prefix)
end

-- ---- tensors, storages and blobs -------------------------------------------------------------------

local function check_dtype(self, d)
  if d >= lib.dtype_count then self:fail('unknown dtype %d: the file is corrupt', d) end
  return d
end

-- The 1D tensor over a storage blob (a new blob record or a reference to one) and its dtype.
function Reader:blob()
  local r = self.r
  local tag = r:u8('a data block')
  if tag == TAG.REF then
    local b = self.blobs[r:u32()]
    if not b then self:fail('reference to a data block that does not exist: the file is corrupt') end
    return b.t, b.dtype
  end
  if tag ~= TAG.BLOB then self:fail('expected a data block, got tag %d: the file is corrupt', tag) end
  local id = self:claim(r:u32())
  self.objects[id] = BLOB
  local dtype = check_dtype(self, r:u8())
  local device_type, device_index = r:u8(), r:u16()
  local nbytes, offset, padded, crc = r:u64(), r:u64(), r:u64(), r:u32()
  -- Blobs tile the data section in index order, so every data byte is accounted for.
  if offset ~= self.data_end or padded < nbytes or padded - nbytes >= N.ALIGN or (offset + padded) % N.ALIGN ~= 0
     or offset + padded > self.h.data_length then
    self:fail('data block of %d bytes at offset %d does not fit the data section: the file is corrupt', nbytes, offset)
  end
  self.data_end = offset + padded
  self.blob_count = self.blob_count + 1
  local t = self.s:read_blob(N.HEADER_SIZE + offset, nbytes, padded, dtype, self.mmap, self.verify, crc)
  if self.device ~= 'cpu' then t = S.to_device(t, device_type, device_index, self.op) end
  self.blobs[id] = { t = t, dtype = dtype }
  return t, dtype
end

function Reader:tensor()
  local r = self.r
  local id = self:claim(r:u32())
  local dtype = check_dtype(self, r:u8())
  local flags, ndim = r:u8(), r:u8()
  if ndim > 16 then self:fail('a tensor with %d dimensions (at most 16): the file is corrupt', ndim) end
  local sizes, strides = {}, {}
  for i = 1, ndim do sizes[i] = r:i64() end
  for i = 1, ndim do strides[i] = r:i64() end
  local offset = r:i64()
  local base, bdtype = self:blob()
  if bdtype ~= dtype then self:fail('a %s over %s data: the file is corrupt', types.tensor_name[dtype], types.suffix[bdtype]) end
  local what = self.s.name .. ': ' .. common.path_string('tensor at object', self.keys)
  local t = S.view(base, offset, sizes, strides, what, self.op)
  -- An integer tensor cannot require grad; files written before Note [Integer outputs carry no
  -- history] (core/autograd/record.cpp) may still carry the flag on indices: it is dropped.
  if bit.band(flags, N.FLAG_REQUIRES_GRAD) ~= 0 and t.requiresGrad and t.p.dtype <= 3 then t:requiresGrad() end
  self.objects[id] = t
  return t
end

function Reader:storage()
  local r = self.r
  local id = self:claim(r:u32())
  local dtype = check_dtype(self, r:u8())
  local offset, size = r:i64(), r:i64()
  local base, bdtype = self:blob()
  if bdtype ~= dtype or offset < 0 or size < 0 or offset + size > base:nElement() then
    self:fail('a storage view [%d, %d) outside its data (%d elements): the file is corrupt', offset, offset + size,
              base:nElement())
  end
  local s = S.storage_handle(base, offset, size)
  self.objects[id] = s
  return s
end

-- ---- the File protocol for class read(file, version) methods --------------------------------------

function Reader:readObject() return self:value() end
local scalar_readers = { Byte = 'u8', Char = 'i8', Short = 'i16', Int = 'i32', Long = 'i64', Float = 'f32',
                         Double = 'f64' }
local D = lib.dtype
local storage_dtype = { Byte = D.u8, Char = D.i8, Short = D.i16, Int = D.i32, Long = D.i64, Float = D.f32,
                        Double = D.f64 }
local storage_elsize = { Byte = 1, Char = 1, Short = 2, Int = 4, Long = 8, Float = 4, Double = 8 }
for name, method in pairs(scalar_readers) do
  Reader['read' .. name] = function(self, n)
    if n == nil then return tonumber(self.r[method](self.r)) end
    local dt = storage_dtype[name]
    local s
    if dt and types.is_storage(n) then  -- fills the given storage, as torch.File's readX(storage) does
      s = n
      if s.p.dtype ~= dt or s.p.device_type ~= 0 then
        self:fail('read%s: expected a count or a CPU %s, got %s', name, types.storage_name[dt], types.describe(s))
      end
      n = #s
    elseif type(n) ~= 'number' or not dt then
      self:fail('read%s: expected nothing, a count or a storage', name)
    end
    local es = storage_elsize[name]
    if n < 0 or n * es > self.r:remaining() then self:fail('read%s: %d values do not fit in the data left', name, n) end
    local filled = s ~= nil
    s = s or torch[types.suffix[dt] .. 'Storage'](n)
    local p = s.p
    self.r:copy_to(ffi.cast('void *', p.storage.data + p.storage_offset * p.elsize), n * es, 'read' .. name)
    if filled then return n end
    return s
  end
end
function Reader:readBool() return self.r:i32() == 1 end
--- Reads a string written by writeString.
function Reader:readString() return self.r:str('a string') end
function Reader:isBinary() return true end
function Reader:isReadable() return true end
function Reader:isWritable() return false end
function Reader:isReferenced() return true end
function Reader:referenced() return self end

-- ---- entry point ----------------------------------------------------------------------------------

local R = {}

--- Reads a checkpoint from stream. opts: mmap (map blobs instead of reading them), verify (check
--- blob checksums; on by default unless mmap), device ('cpu' keeps tensors on the CPU).
function R.read(stream, opts, op)
  local self = setmetatable({ s = stream, op = op, keys = {}, depth = 0, next_id = 1, objects = {}, blobs = {},
                              data_end = 0, blob_count = 0, mmap = opts.mmap and true or false,
                              device = opts.device }, Reader)
  self.verify = opts.verify == true or (opts.verify == nil and not self.mmap)
  local function fail(msg) self:fail('%s', msg) end
  local size = stream:size()
  if size < N.HEADER_SIZE then self:fail('not a Tocha checkpoint: only %d bytes', size) end
  stream:seek(0)
  local h = N.decode_header(stream:read_string(N.HEADER_SIZE, 'the header'), size, fail)
  self.h = h
  stream:seek(h.meta_offset)
  local meta = ffi.new('uint8_t[?]', math.max(h.meta_length, 1))
  if stream:read_into(meta, h.meta_length) ~= h.meta_length then self:fail('the file is truncated') end
  if lib.C.tocha_crc32(0, meta, h.meta_length) ~= h.meta_crc then
    self:fail('index checksum mismatch: the file is corrupt')
  end
  self.r = buffer.reader(meta, h.meta_length, meta, fail)
  local obj = self:value()
  if self.r:remaining() ~= 0 then self:fail('%d unread bytes after the object: the file is corrupt', self.r:remaining()) end
  if self.data_end ~= h.data_length or self.blob_count ~= h.blob_count then
    self:fail('the data section holds bytes no tensor uses: the file is corrupt')
  end
  return obj
end

return R
