-- Writes Tocha checkpoints (Note [Checkpoint format] in serialize_native.lua): walks the object
-- graph once, streaming storage blobs to the file and building the index in memory, then writes
-- the index and the header. The writer is also the `file` a class's write(file) method receives.
local ffi = require 'ffi'
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local buffer = require 'torch.serialize_buffer'
local common = require 'torch.serialize_common'
local N = require 'torch.serialize_native'
local TAG = N.TAG

local Writer = {}
Writer.__index = Writer

local intptr_t = ffi.typeof('intptr_t')
local function address(p) return tonumber(ffi.cast(intptr_t, p)) end

function Writer:fail(fmt, ...)
  local msg = select('#', ...) > 0 and string.format(fmt, ...) or fmt
  error('[' .. self.op .. '] ' .. msg, lib.user_level())
end

function Writer:path()
  return common.path_string(common.root_name(self.root) or 'object', self.keys)
end

function Writer:refuse(what)
  if what == 'function' then
    self:fail('cannot save a function at %s: checkpoints hold data, not code (remove the field before saving '
              .. 'and set it again after loading)', self:path())
  end
  self:fail('cannot save a %s at %s', what, self:path())
end

function Writer:new_id()
  local id = self.next_id
  self.next_id = id + 1
  return id
end

function Writer:enter()
  self.depth = self.depth + 1
  if self.depth > common.MAX_DEPTH then
    self:fail('objects nested more than %d levels deep at %s (a linked structure too deep to save)',
              common.MAX_DEPTH, self:path())
  end
end

-- ---- values -------------------------------------------------------------------------------------

function Writer:value(v)
  local m = self.m
  local kind, name = common.classify(v)
  if kind == 'number' then
    m:u8(TAG.NUMBER) m:f64(v)
  elseif kind == 'string' then
    m:u8(TAG.STRING) m:str(v)
  elseif kind == 'boolean' then
    m:u8(TAG.BOOLEAN) m:u8(v and 1 or 0)
  elseif kind == 'nil' then
    m:u8(TAG.NIL)
  elseif kind == 'table' or kind == 'class' then
    local id = self.ids[v]
    if id then m:u8(TAG.REF) m:u32(id) return end
    id = self:new_id()
    self.ids[v] = id
    self:enter()
    if kind == 'class' then self:class(v, name, id) else
      m:u8(TAG.TABLE) m:u32(id)
      self:fields(v)
    end
    self.depth = self.depth - 1
  elseif kind == 'tensor' then
    self:tensor(v)
  elseif kind == 'storage' then
    self:storage(v)
  elseif kind == 'int64' then
    m:u8(TAG.INT64) m:i64(v)
  elseif kind == 'uint64' then
    m:u8(TAG.UINT64) m:u64(v)
  else
    self:refuse(name)
  end
end

-- A table's entries: count, then (key, value) pairs in a stable order.
function Writer:fields(t)
  local keys = common.sorted_keys(t)
  self.m:u32(#keys)
  local stack = self.keys
  local d = #stack + 1
  for i = 1, #keys do
    local k = keys[i]
    local kind = common.classify(k)
    if not kind then
      self:fail('cannot save a table key of type %s in %s', type(k), self:path())
    end
    self:value(k)
    stack[d] = k
    self:value(rawget(t, k))
    stack[d] = nil
  end
end

function Writer:class(obj, name, id)
  local m = self.m
  local mt = torch.getmetatable(name)
  m:u8(TAG.CLASS) m:u32(id) m:str(name) m:i32(common.class_version(mt))
  local write = common.class_method(mt, 'write')
  if write then
    m:u8(1)
    local at = m:pos()
    m:u64(0)
    write(obj, self)
    m:patch_u64(at, m:pos() - at - 8)
  else
    m:u8(0)
    self:fields(obj)
  end
end

-- ---- tensors, storages and their data blobs ---------------------------------------------------------

-- Written handles stay referenced until the save ends, so no address is reused for another
-- object (a write hook may create and drop temporary tensors).
function Writer:keep(x) self.alive[#self.alive + 1] = x end

function Writer:blob(h)
  local p, m = h.p, self.m
  local key = address(p.storage)
  local b = self.blobs[key]
  if b then
    if b.dtype ~= p.dtype then
      self:fail('a storage at %s is shared by tensors of different types', self:path())
    end
    m:u8(TAG.REF) m:u32(b.id)
    return
  end
  local id = self:new_id()
  self.blobs[key] = { id = id, dtype = p.dtype }
  self.blob_count = self.blob_count + 1
  local offset = self.s:tell() - N.HEADER_SIZE
  local nbytes, padded, crc = self.s:write_blob(p, N.ALIGN)
  m:u8(TAG.BLOB) m:u32(id) m:u8(p.dtype) m:u8(p.device_type) m:u16(p.device_index)
  m:u64(nbytes) m:u64(offset) m:u64(padded) m:u32(crc)
end

function Writer:tensor(t)
  local p, m = t.p, self.m
  if p == lib.FREED then self:refuse('freed tensor') end
  local key = address(p)
  local id = self.tensors[key]
  if id then m:u8(TAG.REF) m:u32(id) return end
  id = self:new_id()
  self.tensors[key] = id
  self:keep(t)
  local flags = bit.band(p.flags, N.FLAG_REQUIRES_GRAD)
  m:u8(TAG.TENSOR) m:u32(id) m:u8(p.dtype) m:u8(flags) m:u8(p.ndim)
  for i = 0, p.ndim - 1 do m:i64(p.size[i]) end
  for i = 0, p.ndim - 1 do m:i64(p.stride[i]) end
  m:i64(p.storage_offset)
  self:blob(t)
end

function Writer:storage(s)
  local p, m = s.p, self.m
  local key = address(p.storage) .. ':' .. tonumber(p.storage_offset) .. ':' .. tonumber(p.numel)
  local id = self.storages[key]
  if id then m:u8(TAG.REF) m:u32(id) return end
  id = self:new_id()
  self.storages[key] = id
  self:keep(s)
  m:u8(TAG.STORAGE) m:u32(id) m:u8(p.dtype) m:i64(p.storage_offset) m:i64(p.numel)
  self:blob(s)
end

-- ---- the File protocol for class write(file) methods (Torch7's writeObject, writeInt...) -----------

function Writer:writeObject(v) self:value(v) end
local scalar_writers = { Byte = 'u8', Char = 'i8', Short = 'i16', Int = 'i32', Long = 'i64', Float = 'f32',
                         Double = 'f64' }
-- Storages of each method's type, as in torch.File.
local D = lib.dtype
local storage_dtype = { Byte = D.u8, Char = D.i8, Short = D.i16, Int = D.i32, Long = D.i64, Float = D.f32,
                        Double = D.f64 }
for name, method in pairs(scalar_writers) do
  Writer['write' .. name] = function(self, v)
    if types.is_storage(v) then  -- raw values; the reader asks for the same count
      local p = v.p
      if p.dtype ~= storage_dtype[name] or p.device_type ~= 0 then
        self:fail('write%s: expected a CPU %s, got %s', name, types.storage_name[storage_dtype[name] or 6],
                  types.describe(v))
      end
      self.m:bytes(p.storage.data + p.storage_offset * p.elsize, tonumber(p.numel) * p.elsize)
      return tonumber(p.numel)
    end
    if type(v) ~= 'number' then self:fail('write%s: expected a number, got %s', name, types.describe(v)) end
    self.m[method](self.m, v)
  end
end
function Writer:writeBool(v) self.m:i32(v and 1 or 0) end
--- Writes a string with its length (readString() reads it back).
function Writer:writeString(s) self.m:str(s) end
function Writer:isBinary() return true end
function Writer:isWritable() return true end
function Writer:isReadable() return false end
function Writer:isReferenced() return true end
function Writer:referenced() return self end

-- ---- entry point ----------------------------------------------------------------------------------

local W = {}

--- Writes obj to stream (positioned at 0) as a checkpoint; op names errors ('save', 'serialize').
function W.write(stream, obj, op)
  local self = setmetatable({ s = stream, m = buffer.writer(), op = op, root = obj, keys = {}, depth = 0,
                              next_id = 1, ids = {}, tensors = {}, storages = {}, blobs = {}, alive = {},
                              blob_count = 0 }, Writer)
  stream:write(string.rep('\0', N.HEADER_SIZE))  -- the header is written last
  self:value(obj)
  local meta_offset = stream:tell()
  local m = self.m
  stream:write(m.buf, m:pos())
  local header = N.encode_header({ meta_offset = meta_offset, meta_length = m:pos(),
                                   meta_crc = lib.C.tocha_crc32(0, m.buf, m:pos()), blob_count = self.blob_count })
  stream:seek(0)
  stream:write(header)
end

return W
