-- Torch7 tensors and storages in .t7 object streams: class names <-> (file element kind, Tocha
-- dtype), and their bodies (generic/Tensor.c and generic/Storage.c write/read in Torch7). Types
-- Tocha lacks load widened (Char and Short as Int); cuda types load as CPU tensors.
local ffi = require 'ffi'
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local S = require 'torch.serialize_stream'
local KIND, D = S.KIND, lib.dtype

local T = {}

-- Torch7 type suffix -> file kind and the dtype it loads as.
local t7types = {
  Byte = { kind = KIND.u8, dtype = D.u8 }, Char = { kind = KIND.i8, dtype = D.i8 },
  Short = { kind = KIND.i16, dtype = D.i16 }, Int = { kind = KIND.i32, dtype = D.i32 },
  Long = { kind = KIND.i64, dtype = D.i64 }, Float = { kind = KIND.f32, dtype = D.f32 },
  Double = { kind = KIND.f64, dtype = D.f64 }, Half = { kind = KIND.f16, dtype = D.f16 },
}
-- cutorch names: CudaTensor is float; the others carry their type.
local cuda = { [''] = 'Float', Double = 'Double', Half = 'Half', Long = 'Long', Int = 'Int', Byte = 'Byte',
               Char = 'Char', Short = 'Short' }

--- For a Torch7 class name, its type info and 'Tensor' or 'Storage'; nil for other classes.
function T.parse_name(name)
  local suffix, what = name:match('^torch%.(%a-)(Tensor)$')
  if not suffix then suffix, what = name:match('^torch%.(%a-)(Storage)$') end
  if not suffix then return nil end
  local c = suffix:match('^Cuda(%a*)$')
  if c then suffix = cuda[c] end
  local info = suffix and t7types[suffix]
  if not info then return nil end
  return info, what, suffix
end

-- The Torch7 type a Tocha dtype is written as (bool as Byte, bf16 converted to Float).
local write_suffix = { [D.f32] = 'Float', [D.f64] = 'Double', [D.f16] = 'Half', [D.bf16] = 'Float',
                       [D.i64] = 'Long', [D.i32] = 'Int', [D.i16] = 'Short', [D.i8] = 'Char', [D.u8] = 'Byte',
                       [D.bool] = 'Byte' }
--- The Torch7 class name a tensor (or storage, `what`) of this dtype is written as.
function T.write_name(dtype, what) return 'torch.' .. write_suffix[dtype] .. what end

local function long_kind(file) return file._longsize == 4 and KIND.i32 or KIND.i64 end
local longs64, longs32 = ffi.new('int64_t[16]'), ffi.new('int32_t[16]')

-- Writes n longs from a Lua array in one call (one ascii line, as THFile_writeLongRaw does).
local function write_longs(file, arr)
  local n = #arr
  local buf = file._longsize == 4 and longs32 or longs64
  for i = 1, n do buf[i - 1] = arr[i] end
  file:_s():write_values(buf, long_kind(file), n, file:_flags())
end

local function read_longs(file, n, what)
  local buf = file._longsize == 4 and longs32 or longs64
  local got = file:_s():read_values(buf, long_kind(file), n, file:_flags())
  if got ~= n then file:_s():fail('unexpected end of data reading %s', what) end
  local out = {}
  for i = 1, n do out[i] = tonumber(buf[i - 1]) end
  return out
end

-- ---- storages -------------------------------------------------------------------------------------

--- Writes a storage handle's body: size, then its values as the Torch7 type's elements.
function T.write_storage(file, s)
  local suffix = write_suffix[s.p.dtype]
  local kind = suffix == 'Long' and long_kind(file) or t7types[suffix].kind
  write_longs(file, { tonumber(s.p.numel) })
  file:_s():write_tensor(s, kind, file:_flags())
end

--- Reads a storage body of Torch7 type `info` as a storage handle.
function T.read_storage(file, info, suffix)
  local n = read_longs(file, 1, 'a storage size')[1]
  local kind = suffix == 'Long' and long_kind(file) or info.kind
  local t = file:_s():read_storage(n, kind, info.dtype, file:_flags())
  return S.storage_handle(t, 0, n)
end

-- ---- tensors --------------------------------------------------------------------------------------

--- Writes a tensor's body: ndim, sizes, strides, 1-based offset, then its storage as an object.
--- `storage_of(t)` gives the storage handle to write (converted for bf16 and bool).
function T.write_tensor(file, t, storage_of)
  local p = t.p
  if p.numel == 0 then  -- Torch7 has no empty dimensions: an empty tensor has none
    file:writeInt(0)
    write_longs(file, { 1 })
    file:writeObject(nil)
    return
  end
  local sizes, strides = {}, {}
  for i = 0, p.ndim - 1 do
    sizes[i + 1] = tonumber(p.size[i])
    strides[i + 1] = tonumber(p.stride[i])
  end
  if p.ndim == 0 then sizes, strides = { 1 }, { 1 } end  -- a scalar becomes a 1-element vector
  file:writeInt(#sizes)
  write_longs(file, sizes)
  write_longs(file, strides)
  write_longs(file, { tonumber(p.storage_offset) + 1 })
  file:writeObject(storage_of(t))
end

--- Reads a tensor body of Torch7 type `info`.
function T.read_tensor(file, info)
  local ndim = file:readInt()
  if ndim < 0 or ndim > 16 then file:_s():fail('a tensor with %d dimensions (Tocha supports 0 to 16)', ndim) end
  local sizes = read_longs(file, ndim, 'tensor sizes')
  local strides = read_longs(file, ndim, 'tensor strides')
  local offset = read_longs(file, 1, 'a storage offset')[1]
  local storage = file:readObject()
  if storage ~= nil and not (types.is_storage(storage) and storage.p.dtype == info.dtype) then
    file:_s():fail('a %s whose storage is a %s: the file is corrupt', types.tensor_name[info.dtype],
                   types.describe(storage))
  end
  local empty = ndim == 0 or storage == nil
  for i = 1, ndim do if sizes[i] == 0 then empty = true end end
  if empty then return torch[types.suffix[info.dtype] .. 'Tensor']() end
  local st = file._stream
  return S.view(storage, offset - 1, sizes, strides, st.name .. ': a ' .. types.tensor_name[info.dtype], st.op)
end

return T
