-- Tensor and storage type names, element readers/writers by dtype, and argument helpers shared by
-- the torch module files (sizes, dims and indices arrive 1-based from Lua and go 0-based to C).
local ffi = require 'ffi'
local lib = require 'torch.lib'
local C = lib.C

local types = {}

local Handle = lib.Handle
if not pcall(ffi.typeof, 'tocha_storage_handle') then
  ffi.cdef('typedef struct tocha_storage_handle { tocha_tensor *p; } tocha_storage_handle;')
end
local StorageHandle = ffi.typeof('tocha_storage_handle')
types.Handle, types.StorageHandle = Handle, StorageHandle
-- A storage handle has the tensor handle's layout, so the Lua C finalizer serves both (Note
-- [Handle finalizer]); the FFI fallback needs a pointer of the storage handle's own type.
types.release_storage = type(lib.release) == 'function' and lib.release
  or ffi.cast('void(*)(tocha_storage_handle *)', C.tocha_handle_release)

function types.is_tensor(x) return (ffi.istype(Handle, x)) end
function types.is_storage(x) return (ffi.istype(StorageHandle, x)) end
local is_tensor, is_storage = types.is_tensor, types.is_storage

-- dtype id -> Torch7 class suffix ("Float" ...), in the order of core/dtype.h.
types.suffix = { [0] = 'Float', 'Double', 'Half', 'BFloat16', 'Long', 'Int', 'Byte', 'Bool', 'Char', 'Short' }
types.tensor_name, types.storage_name, types.cuda_tensor_name = {}, {}, {}
types.dtype_of_name = {}
for id = 0, lib.dtype_count - 1 do
  local s = types.suffix[id]
  types.tensor_name[id] = 'torch.' .. s .. 'Tensor'
  types.storage_name[id] = 'torch.' .. s .. 'Storage'
  types.cuda_tensor_name[id] = s == 'Float' and 'torch.CudaTensor' or ('torch.Cuda' .. s .. 'Tensor')
  types.dtype_of_name[types.tensor_name[id]] = id
  types.dtype_of_name[types.cuda_tensor_name[id]] = id
end
types.I64 = lib.dtype.i64

function types.typename(h)
  local p = h.p
  if p.device_type ~= 0 then return types.cuda_tensor_name[p.dtype] end
  return types.tensor_name[p.dtype]
end

-- Element access by dtype through the data pointer (CPU); f16/bf16 go through C.
local ptr_ct = {
  [0] = ffi.typeof('float *'), ffi.typeof('double *'), false, false,
  ffi.typeof('int64_t *'), ffi.typeof('int32_t *'), ffi.typeof('uint8_t *'), ffi.typeof('uint8_t *'),
  ffi.typeof('int8_t *'), ffi.typeof('int16_t *'),
}
types.ptr_ct = ptr_ct
local BOOL, F32, F64 = lib.dtype.bool, lib.dtype.f32, lib.dtype.f64
local double_out = ffi.new('double[1]')
local float_read = require 'torch.float_read'
local read_f32, read_f64 = float_read.f32, float_read.f64

-- Note [int64 values beyond 2^53]: Lua numbers are doubles, so an int64 element above 2^53 in
-- magnitude reads (x[i], item, totable, tolist) as the nearest double: 2^53 + 1 reads as 2^53, as in
-- Torch7. The tensor itself stays exact (its ops, comparisons, conversions and serialization work on
-- the int64s); x:data()[i] gives the exact value as an int64_t cdata.

-- Reads element at element offset `off` from the storage start of tensor p. Floats go through
-- torch.float_read (Note [NaNs that LuaJIT reads as other values]); int64 as Note [int64 values
-- beyond 2^53].
function types.read(p, off)
  local ct = ptr_ct[p.dtype]
  if ct and p.device_type == 0 then
    local dt = p.dtype
    if dt == F32 then return read_f32(p.storage.data, off) end
    if dt == F64 then return read_f64(p.storage.data, off) end
    local v = ffi.cast(ct, p.storage.data)[off]
    if p.dtype == BOOL then return v ~= 0 end
    return (tonumber(v))
  end
  -- f16/bf16 or device memory: let C convert.
  lib.check(C.tocha_tensor_get_at(p, off, double_out))
  if p.dtype == BOOL then return double_out[0] ~= 0 end
  return double_out[0]
end

function types.write(p, off, v)
  if type(v) == 'boolean' then v = v and 1 or 0 end
  local ct = ptr_ct[p.dtype]
  if ct and p.device_type == 0 then
    if p.dtype == BOOL then v = (v ~= 0) and 1 or 0 end
    ffi.cast(ct, p.storage.data)[off] = v
    C.tocha_tensor_bump_version(p)
    return
  end
  lib.check(C.tocha_tensor_set_at(p, off, v))
end

-- The integer dtypes' ranges, [lo, hi).
types.int_range = { [lib.dtype.i64] = { -2 ^ 63, 2 ^ 63 }, [lib.dtype.i32] = { -2 ^ 31, 2 ^ 31 },
  [lib.dtype.i16] = { -2 ^ 15, 2 ^ 15 }, [lib.dtype.i8] = { -2 ^ 7, 2 ^ 7 }, [lib.dtype.u8] = { 0, 256 } }

-- Checks that the Lua number v can fill a tensor of dtype id and returns it: an integer dtype takes
-- v truncated toward zero and refuses NaN, infinities and values out of its range, as PyTorch's
-- full, full_like and new_full ("value cannot be converted to type uint8_t without overflow"); the
-- C cast wrapped 300 to 44 in a ByteTensor and made NaN INT_MIN.
function types.check_value(op, v, id)
  local r = types.int_range[id]
  if r then
    local tv = v < 0 and math.ceil(v) or math.floor(v)
    if not (tv >= r[1] and tv < r[2]) then
      lib.fail(op, 'value %s cannot be converted to %s without overflow', tostring(v), types.tensor_name[id])
    end
  end
  return v
end

-- The narrower floating dtypes' largest finite values (float, at::Half, at::BFloat16).
types.float_max = { [lib.dtype.f32] = 3.4028234663852886e38, [lib.dtype.f16] = 65504,
  [lib.dtype.bf16] = 3.3895313892515355e38 }

-- Note [Floating fill values]: PyTorch's full, new_full, full_like and fill_diagonal_ refuse a
-- finite value beyond the floating dtype's largest finite value ("value cannot be converted to
-- type float without overflow": 1e300 in a FloatTensor, 1e5 in a HalfTensor; c10's overflows<>:
-- |v| > max, inf and NaN allowed, values between max and the rounding boundary refused too),
-- where the C cast gives inf. check_value does not do this itself: Torch7's x:fill(1e300) gives
-- inf (as in Torch7), and torch.fullLike also wraps numbers inside Tocha the way PyTorch wraps a
-- Python scalar (special.xlog1py(HalfTensor, 1e5) is inf in PyTorch, lua/torch/special.lua), so
-- only the user-facing PyTorch-named fills call this one (full, fullLike, the new* methods,
-- fillDiagonal); the internal callers wrap numbers with torch._filledLike, which casts.
-- types.check_value_pytorch(op, v, id): check_value, and a float, half or bfloat16 dtype refuses
-- a finite v it can only hold as inf (Note [Floating fill values]); returns v.
function types.check_value_pytorch(op, v, id)
  types.check_value(op, v, id)
  local m = types.float_max[id]
  if m and (v > m or v < -m) and v ~= math.huge and v ~= -math.huge then
    lib.fail(op, 'value %s cannot be converted to %s without overflow', tostring(v), types.tensor_name[id])
  end
  return v
end

-- Note [Unknown options]: an options table with a misspelt key ({weights = w} for histogram's
-- weight, {dims = 2}) or a Lua list where a tensor belongs (bincount's weights as {0.5, 1}) used to
-- be read as "no option" and gave a plausible but wrong result; PyTorch rejects an unknown
-- keyword, so these are errors naming the key.
-- types.check_option_keys(op, t, name...): fails unless every key of t is one of the names; returns t.
function types.check_option_keys(op, t, ...)
  for k in pairs(t) do
    local known = false
    for i = 1, select('#', ...) do
      if k == select(i, ...) then known = true break end
    end
    if not known then
      if type(k) == 'number' then
        lib.fail(op, 'options must be given by name ({%s = ...}), got a list entry [%s] = %s', (...), tostring(k),
          types.describe(t[k]))
      end
      lib.fail(op, "unknown option '%s' (expected %s)", tostring(k), table.concat({ ... }, ', '))
    end
  end
  return t
end

-- Converts a 1-based (or negative) dim to C's 0-based form; 0 and out-of-range are errors.
function types.cdim(op, d, ndim)
  if type(d) ~= 'number' then lib.fail(op, 'expected a dimension (number), got %s', type(d)) end
  if d ~= math.floor(d) then lib.fail(op, 'dimension %s is not an integer', tostring(d)) end
  local n = ndim == 0 and 1 or ndim
  if d == 0 or d > n or d < -n then
    lib.fail(op, 'dimension %d out of range for a %dD tensor (dims are 1-based)', d, ndim)
  end
  return d > 0 and d - 1 or d
end

-- Converts a 1-based (or negative) index into a 0-based one for a dim of size n.
function types.cindex(op, i, n)
  if type(i) ~= 'number' then lib.fail(op, 'expected an index (number), got %s', type(i)) end
  if i ~= math.floor(i) then lib.fail(op, 'index %s is not an integer', tostring(i)) end
  if i < 0 then i = i + n + 1 end
  if i < 1 or i > n then lib.fail(op, 'index %d out of range for a dimension of size %d', i < 1 and i - n - 1 or i, n) end
  return i - 1
end

-- Read through the view's offset and stride (a LongStorage view or a narrowed or selected
-- LongTensor read the underlying memory from element 0), each value checked as an integer.
local size_number
local function storage_numbers(s, buf, op)
  local p = s.p
  local n = tonumber(p.size[0])
  if n > 16 then lib.fail(op, 'at most 16 dimensions, got %d', n) end
  local off = tonumber(p.storage_offset)
  local step = types.is_tensor(s) and tonumber(p.stride[0]) or 1
  for i = 0, n - 1 do buf[i] = size_number(op, i + 1, tonumber(types.read(p, off + i * step))) end
  return n
end

-- A size given as a Lua number must be an integer that fits int64 (-1 is left to the caller to
-- accept or reject): 1.5 used to become 1 and NaN or 1e300 an arbitrary int64.
function size_number(op, i, v)
  if type(v) ~= 'number' then lib.fail(op, 'size %d is a %s, expected a number', i, type(v)) end
  if v ~= math.floor(v) or v >= 2 ^ 63 or v < -2 ^ 63 then
    lib.fail(op, 'size %d must be an integer, got %s', i, tostring(v))
  end
  return v
end

-- Reads a size list given as numbers (varargs), a LongStorage, a table of numbers or a
-- LongTensor into buf (an int64_t[16]); returns the count.
function types.read_sizes(op, buf, first, ...)
  if first == nil then return 0 end
  local tf = type(first)
  if tf == 'number' then
    local n = select('#', ...) + 1
    if n > 16 then lib.fail(op, 'at most 16 dimensions, got %d', n) end
    buf[0] = size_number(op, 1, first)
    for i = 1, n - 1 do buf[i] = size_number(op, i + 1, (select(i, ...))) end
    return n
  elseif tf == 'table' then
    local n = #first
    if n > 16 then lib.fail(op, 'at most 16 dimensions, got %d', n) end
    for i = 1, n do buf[i - 1] = size_number(op, i, first[i]) end
    return n
  elseif is_storage(first) or is_tensor(first) then
    if first.p.ndim ~= 1 and not (is_tensor(first) and first.p.numel == 0) then
      lib.fail(op, 'sizes must be given as a 1D LongStorage or LongTensor')
    end
    return (storage_numbers(first, buf, op))
  end
  lib.fail(op, 'expected sizes (numbers, a table or a LongStorage), got %s', tf)
end

-- The sizes of tensor p as a Lua array.
function types.size_table(p)
  local t = {}
  for i = 0, p.ndim - 1 do t[i + 1] = tonumber(p.size[i]) end
  return t
end

function types.shape_str(p)
  if p.ndim == 0 then return '[]' end
  local s = {}
  -- from the int64 itself: tostring of a number writes 2^62 as 4.6116860184274e+18
  for i = 0, p.ndim - 1 do s[#s + 1] = (tostring(p.size[i]):gsub('LL$', '')) end
  return (table.concat(s, 'x'))
end

-- Describes a Lua value for error messages ("torch.FloatTensor", "number", "nil"...).
function types.describe(x)
  if is_tensor(x) then return types.typename(x) .. ' of size ' .. types.shape_str(x.p) end
  if is_storage(x) then return types.storage_name[x.p.dtype] end
  local torch = package.loaded['torch.env']
  local tn = torch and torch.typename and torch.typename(x)
  return tn or type(x)
end

function types.check_tensor(op, x, argn)
  if not is_tensor(x) then
    lib.fail(op, 'expected a tensor as argument %d, got %s', argn or 1, types.describe(x))
  end
  return x
end

return types
