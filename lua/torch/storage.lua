-- Torch7 storages (torch.FloatStorage, torch.LongStorage...): 1-based arrays of one dtype. A
-- storage handle holds a 1D contiguous tensor over the memory, so storages and tensors share it.
local ffi = require 'ffi'
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local C, check, fail = lib.C, lib.check, lib.fail
local is_tensor, is_storage = types.is_tensor, types.is_storage
local release_storage = types.release_storage

local smethods = {}
torch._storage_methods = smethods

local function wrap_storage(p)
  if p == nil then lib.raise() end
  local s = ffi.gc(types.StorageHandle(p), release_storage)
  if C.tocha_memory_gc_pending() == 1 then lib.collect() end
  return s
end

local one = ffi.new('int64_t[1]')
local function new_storage(n, dtype)
  one[0] = n
  return wrap_storage(C.tocha_tensor_full(1, one, 0, dtype, 0, 0))
end

local function sizeof(s) return tonumber(s.p.size[0]) end

local smt = {
  __index = function(s, k)
    local m = smethods[k]
    if m ~= nil then return m end
    if type(k) == 'number' then
      local p = s.p
      local n = tonumber(p.size[0])
      if k < 1 or k > n or k ~= math.floor(k) then
        if p == lib.FREED then fail('Storage', 'storage was freed') end
        fail('Storage', 'index %s out of range for a storage of size %d', tostring(k), n)
      end
      return types.read(p, tonumber(p.storage_offset) + k - 1)
    end
    return nil
  end,
  __newindex = function(s, k, v)
    if type(k) ~= 'number' then fail('Storage', "cannot set field '%s' on a storage", tostring(k)) end
    local p = s.p
    local n = tonumber(p.size[0])
    if k < 1 or k > n or k ~= math.floor(k) then
      fail('Storage', 'index %s out of range for a storage of size %d', tostring(k), n)
    end
    if type(v) ~= 'number' and type(v) ~= 'boolean' then fail('Storage', 'expected a number, got %s', types.describe(v)) end
    types.write(p, tonumber(p.storage_offset) + k - 1, v)
  end,
  __len = function(s) return sizeof(s) end,
  __tostring = function(s) return torch._storage_tostring(s) end,
  __eq = function(a, b) return is_storage(a) and is_storage(b) and a.p == b.p end,
}
ffi.metatype(types.StorageHandle, smt)

local function construct_storage(dtype, name, a1, a2, a3)
  if a1 == nil then return new_storage(0, dtype) end
  if type(a1) == 'number' then
    if a1 < 0 or a1 ~= math.floor(a1) then fail(name, 'invalid size %s', tostring(a1)) end
    return new_storage(a1, dtype)
  end
  if type(a1) == 'table' then
    local s = new_storage(#a1, dtype)
    for i = 1, #a1 do
      local v = a1[i]
      if type(v) ~= 'number' and type(v) ~= 'boolean' then fail(name, 'table element %d is a %s, expected a number', i, type(v)) end
      s[i] = v
    end
    return s
  end
  if is_storage(a1) then  -- a view: (storage, offset, size)
    if a1.p.dtype ~= dtype then fail(name, 'cannot view a %s as a %s', types.storage_name[a1.p.dtype], name) end
    local offset = a2 or 1
    if type(offset) ~= 'number' or offset ~= math.floor(offset) then
      fail(name, 'offset must be a 1-based integer, got %s', type(offset) == 'number' and tostring(offset) or types.describe(offset))
    end
    local size = a3 or (sizeof(a1) - offset + 1)
    if type(size) ~= 'number' or size ~= math.floor(size) then
      fail(name, 'size must be an integer, got %s', type(size) == 'number' and tostring(size) or types.describe(size))
    end
    if offset < 1 or size < 0 or offset - 1 + size > sizeof(a1) then
      fail(name, 'view of %d elements at offset %d exceeds a storage of size %d', size, offset, sizeof(a1))
    end
    one[0] = size
    return wrap_storage(C.tocha_tensor_view_storage(a1.p, a1.p.storage_offset + offset - 1, 1, one, nil))
  end
  fail(name, 'cannot construct a storage from %s', types.describe(a1))
end

for dtype = 0, lib.dtype_count - 1 do
  local name = types.storage_name[dtype]
  local ctor = setmetatable({ __typename = name, dtype = dtype }, {
    __call = function(_, ...) return construct_storage(dtype, name, ...) end,
    __index = smethods,
    __tostring = function() return name end,
  })
  torch[types.suffix[dtype] .. 'Storage'] = ctor
  torch._register_metatable(name, smethods, ctor)
end
torch.Storage = torch.FloatStorage

-- A LongStorage holding n int64 values from a C array (t:size(), t:stride()).
function torch._long_storage(arr, n)
  local s = new_storage(n, types.I64)
  local dst = ffi.cast('int64_t *', s.p.storage.data)
  for i = 0, n - 1 do dst[i] = arr[i] end
  return s
end

-- The whole storage under tensor t, as a storage handle.
function torch._storage_of(t)
  local p = t.p
  if p.storage == nil then return nil end
  one[0] = C.tocha_tensor_storage_size(p)
  return wrap_storage(C.tocha_tensor_view_storage(p, 0, 1, one, nil))
end

-- A 1D tensor sharing a storage's memory.
function torch._tensor_of_storage(s)
  return lib.wrap(C.tocha_tensor_alias(s.p))
end

function smethods.size(s) return sizeof(s) end
function smethods.elementSize(s) return s.p.elsize end
function smethods.fill(s, v)
  check(C.tocha_tensor_fill(s.p, v))
  return s
end
function smethods.zero(s) return smethods.fill(s, 0) end
function smethods.copy(s, src)
  if is_storage(src) or is_tensor(src) then
    if src.p.numel ~= s.p.numel then
      fail('copy', 'cannot copy %d elements into a storage of size %d', tonumber(src.p.numel), sizeof(s))
    end
    check(C.tocha_tensor_copy(s.p, src.p))
  elseif type(src) == 'table' then
    if #src ~= sizeof(s) then fail('copy', 'table has %d elements, storage %d', #src, sizeof(s)) end
    for i = 1, #src do s[i] = src[i] end
  else
    fail('copy', 'expected a storage, tensor or table, got %s', types.describe(src))
  end
  return s
end
function smethods.resize(s, n)
  if type(n) ~= 'number' or n < 0 or n ~= math.floor(n) then
    fail('resize', 'invalid size %s', type(n) == 'number' and tostring(n) or types.describe(n))
  end
  one[0] = n
  check(C.tocha_tensor_resize(s.p, 1, one))
  return s
end
function smethods.totable(s)
  local t = {}
  for i = 1, sizeof(s) do t[i] = s[i] end
  return t
end
--- A storage's bytes as a Lua string (Torch7: Byte and CharStorage), or, given a string, sets the storage to its bytes.
function smethods.string(s, str)
  local p = s.p
  -- the bytes are read and written through host pointers
  if p.device_type ~= 0 then fail('string', 'expected a CPU storage, got one on %s', 'cuda:' .. p.device_index) end
  if str ~= nil then
    if type(str) ~= 'string' then fail('string', 'expected a string, got %s', types.describe(str)) end
    smethods.resize(s, #str)
    ffi.copy(ffi.cast('char *', p.storage.data) + p.storage_offset * p.elsize, str, #str)
    return s
  end
  return ffi.string(p.storage.data + p.storage_offset * p.elsize, sizeof(s) * p.elsize)
end
function smethods.data(s)
  local p = s.p
  local ct = types.ptr_ct[p.dtype] or ffi.typeof('uint16_t *')
  return ffi.cast(ct, p.storage.data) + p.storage_offset
end
function smethods.free(s)
  ffi.gc(s, nil)
  C.tocha_handle_release(ffi.cast('tocha_handle *', s))
end
function smethods.retain(s) return s end
function smethods.type(s) return types.storage_name[s.p.dtype] end

return torch
