-- PyTorch's tensor factories and dtype settings on Torch7's type names: torch.tensor,
-- torch.asTensor, torch.frombuffer, torch.emptyStrided, torch.setDefaultDtype/getDefaultDtype,
-- and the dtype names they accept ('float32', 'torch.DoubleTensor'...).
local ffi = require 'ffi'
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local C, wrap, fail, dt_ids = lib.C, lib.wrap, lib.fail, lib.dtype
local is_tensor, describe = types.is_tensor, types.describe

-- Note [dtype names]: Tocha's types are Torch7's class names, so a dtype is given as one
-- ('torch.DoubleTensor', a Cuda name too) or as PyTorch's name as a string ('float64',
-- 'double', 'int64', 'long', 'bool'...); there are no torch.float32-style dtype objects.
-- getDefaultDtype answers with PyTorch's name ('float32').
local PYTORCH_NAMES = {
  float32 = dt_ids.f32, float = dt_ids.f32, float64 = dt_ids.f64, double = dt_ids.f64,
  float16 = dt_ids.f16, half = dt_ids.f16, bfloat16 = dt_ids.bf16, int64 = dt_ids.i64, long = dt_ids.i64,
  int32 = dt_ids.i32, int = dt_ids.i32, int16 = dt_ids.i16, short = dt_ids.i16, int8 = dt_ids.i8,
  char = dt_ids.i8, uint8 = dt_ids.u8, bool = dt_ids.bool,
}
local CANONICAL = { [dt_ids.f32] = 'float32', [dt_ids.f64] = 'float64', [dt_ids.f16] = 'float16',
  [dt_ids.bf16] = 'bfloat16', [dt_ids.i64] = 'int64', [dt_ids.i32] = 'int32', [dt_ids.i16] = 'int16',
  [dt_ids.i8] = 'int8', [dt_ids.u8] = 'uint8', [dt_ids.bool] = 'bool' }

-- A dtype name (nil gives nil) as a dtype id; a Cuda type name also returns 'cuda'.
local function dtype_arg(op, v)
  if v == nil then return nil end
  if type(v) == 'string' then
    local id = PYTORCH_NAMES[v:gsub('^torch%.', '')] or types.dtype_of_name[v]
    if id then return id, v:find('Cuda') and 'cuda' or nil end
  end
  fail(op, "expected a dtype such as 'float32', 'int64' or 'torch.DoubleTensor', got %s",
    type(v) == 'string' and "'" .. v .. "'" or describe(v))
end
torch._dtype_arg = dtype_arg
torch._dtype_name = CANONICAL

local function is_floating(id)
  return id == dt_ids.f32 or id == dt_ids.f64 or id == dt_ids.f16 or id == dt_ids.bf16
end

-- The options each function takes: a key outside them (a typo, PyTorch's requires_grad spelling)
-- was ignored, and the tensor came back without the dtype or gradient asked for.
local OPT_KEYS = {
  tensor = { dtype = true, device = true, requiresGrad = true },
  asTensor = { dtype = true, device = true, requiresGrad = true },  -- requiresGrad: its own error
  frombuffer = { dtype = true, count = true, offset = true, requiresGrad = true },
  emptyStrided = { dtype = true, device = true, requiresGrad = true },
}
local function check_opts(op, opts)
  if opts == nil then return {} end
  if type(opts) ~= 'table' or getmetatable(opts) ~= nil then
    fail(op, 'expected options as a table {dtype=, device=, requiresGrad=}, got %s', describe(opts))
  end
  local keys = OPT_KEYS[op]
  for k in pairs(opts) do
    if not keys[k] then
      local names = {}
      for name in pairs(keys) do names[#names + 1] = name end
      table.sort(names)
      fail(op, "unknown option '%s' (expected %s)", tostring(k), table.concat(names, ', '))
    end
  end
  return opts
end

-- t converted to the options' dtype and device; requiresGrad set when asked.
local function finish(op, t, opts, dt)
  local id, cuda = dtype_arg(op, opts.dtype)
  id = id or dt
  if id and t.p.dtype ~= id then t = wrap(C.tocha_tensor_to_dtype(t.p, id)) end
  return torch._factory_finish(op, t, opts, opts.device or cuda)
end

-- Walks nested tables: fills flat (row-major), records the sizes, infers the dtype.
local function flatten(op, data, depth, sizes, flat, info)
  local n = #data
  for k in pairs(data) do
    if type(k) ~= 'number' or k < 1 or k > n or k ~= math.floor(k) then
      fail(op, 'expected a sequence (a Lua table with keys 1..n), got a table with key %s', tostring(k))
    end
  end
  if sizes[depth] == nil then
    if info.leaf_depth and depth > info.leaf_depth then fail(op, 'ragged nesting: a table where a number was expected') end
    sizes[depth] = n
  elseif sizes[depth] ~= n then
    fail(op, 'ragged nesting: sequences at depth %d have lengths %d and %d', depth, sizes[depth], n)
  end
  for i = 1, n do
    local v = data[i]
    local tv = type(v)
    if tv == 'table' and getmetatable(v) == nil then
      if info.leaf_depth and info.leaf_depth <= depth then fail(op, 'ragged nesting: a table where a number was expected') end
      flatten(op, v, depth + 1, sizes, flat, info)
    elseif tv == 'number' or tv == 'boolean' then
      if info.leaf_depth == nil then info.leaf_depth = depth
      elseif info.leaf_depth ~= depth or sizes[depth + 1] ~= nil then fail(op, 'ragged nesting: a number where a table was expected') end
      if tv == 'number' then
        info.all_bool = false
        -- Lua numbers do not say whether they were written 1e20 or 1: a whole number beyond int64's
        -- range can only have been meant as a float
        if v ~= math.floor(v) or v ~= v or v >= 2 ^ 63 or v < -2 ^ 63 then info.float = true end
      end
      flat[#flat + 1] = v
    else
      fail(op, 'expected numbers, booleans or nested tables of them, got %s', describe(v))
    end
  end
end

local INT_RANGE = types.int_range

local function shape_of(sizes)
  local shape = torch.LongStorage(#sizes)
  for i, v in ipairs(sizes) do shape[i] = v end
  return shape
end

-- A new CPU tensor holding data (nested tables, a number or a boolean), dtype inferred as
-- PyTorch's: all booleans BoolTensor, any non-integer number (or one beyond int64's range) the
-- default float type, else Long.
local function from_data(op, data, want)
  if type(data) ~= 'table' and type(data) ~= 'number' and type(data) ~= 'boolean' or getmetatable(data) ~= nil then
    fail(op, 'expected data as nested tables, a number, a boolean or a tensor, got %s', describe(data))
  end
  local flat, sizes, info = {}, {}, { all_bool = true }
  if type(data) == 'number' or type(data) == 'boolean' then
    flat[1] = data
    info.all_bool = type(data) == 'boolean'
    info.float = type(data) == 'number' and (data ~= math.floor(data) or data ~= data or data >= 2 ^ 63 or data < -2 ^ 63)
  else
    flatten(op, data, 1, sizes, flat, info)
  end
  local id = want
  if id == nil then
    id = (#flat > 0 and info.all_bool) and dt_ids.bool or (info.float or #flat == 0) and torch._default_dtype() or dt_ids.i64
  end
  -- Integer dtypes take numbers truncated toward zero, as PyTorch's conversion; out of range is
  -- an error (PyTorch: "value cannot be converted to type ... without overflow").
  local range = INT_RANGE[id]
  local truncate = false
  for i, v in ipairs(flat) do
    if type(v) == 'boolean' then
      if not info.all_bool or id ~= dt_ids.bool then flat[i] = v and 1 or 0 end
    elseif range then
      local tv = v < 0 and math.ceil(v) or math.floor(v)
      if not (tv >= range[1] and tv < range[2]) then
        fail(op, 'value %s cannot be converted to %s without overflow', tostring(v), types.tensor_name[id])
      end
      if tv ~= v then truncate = true end
    end
  end
  if truncate then
    local d = torch.DoubleTensor(flat)
    return (wrap(C.tocha_tensor_to_dtype(d.p, id)):view(shape_of(sizes)))
  end
  local t = torch._ctor_by_dtype[id](#flat > 0 and flat or 0)
  return (t:view(shape_of(sizes)))
end
torch._tensor_from_data = from_data

--- torch.tensor(data [, {dtype=, device=, requiresGrad=}]): a new tensor holding a copy of data:
--- nested Lua tables of numbers or booleans, a number, a boolean (0-dim) or a tensor (copied,
--- detached). The dtype is PyTorch's inference unless given: all integers a LongTensor, any
--- other number the default float type, all booleans a BoolTensor (Note [dtype names]).
--- Example: torch.tensor({{1, 2}, {3, 4.5}})
function torch.tensor(data, opts)
  opts = check_opts('tensor', opts)
  if is_tensor(data) then return (finish('tensor', data:detach():clone(), opts)) end
  return (finish('tensor', from_data('tensor', data, (dtype_arg('tensor', opts.dtype))), opts))
end

--- torch.asTensor(data [, {dtype=, device=}]): data as a tensor, without a copy when data is a
--- tensor of that dtype and device already (the same tensor, its autograd history kept);
--- converted otherwise, and built like torch.tensor from tables and numbers.
--- Example: torch.asTensor({1, 2, 3}, {dtype = 'float64'})
function torch.asTensor(data, opts)
  opts = check_opts('asTensor', opts)
  if opts.requiresGrad ~= nil then fail('asTensor', 'takes no requiresGrad option (PyTorch\'s as_tensor has none)') end
  if is_tensor(data) then return (finish('asTensor', data, opts)) end
  return (torch.tensor(data, opts))
end

--- torch.frombuffer(buffer, {dtype= [, count = -1] [, offset = 0]}): a 1-D tensor of dtype read
--- from the bytes of buffer, a Lua string or FFI cdata (a pointer needs count), starting offset
--- bytes in, count elements (-1: all the rest). The bytes are copied (Lua strings are
--- immutable), where PyTorch shares the buffer.
--- Example: torch.frombuffer(string.char(1, 2, 3), {dtype = 'uint8'})
function torch.frombuffer(buffer, opts)
  opts = check_opts('frombuffer', opts)
  local id = dtype_arg('frombuffer', opts.dtype)
  if id == nil then fail('frombuffer', 'needs a dtype, as in PyTorch ({dtype = \'float32\'...})') end
  local count, offset = opts.count or -1, opts.offset or 0
  if type(count) ~= 'number' or count ~= math.floor(count) or count < -1 then
    fail('frombuffer', 'count must be -1 or a non-negative integer, got %s', tostring(count))
  end
  if type(offset) ~= 'number' or offset ~= math.floor(offset) or offset < 0 then
    fail('frombuffer', 'offset must be a non-negative integer, got %s', tostring(offset))
  end
  local ptr, len
  if type(buffer) == 'string' then
    ptr, len = buffer, #buffer
  elseif type(buffer) == 'cdata' then
    ptr = buffer
    local ok, size = pcall(ffi.sizeof, buffer)
    len = ok and size or nil
    if len == nil and count == -1 then fail('frombuffer', 'a pointer buffer needs count (its size is unknown)') end
  else
    fail('frombuffer', 'expected a Lua string or FFI cdata, got %s', describe(buffer))
  end
  local t = wrap(C.tocha_tensor_empty(1, ffi.new('int64_t[1]', 0), id, 0, 0))
  local esize = t.p.elsize
  if len ~= nil then
    if offset > len then fail('frombuffer', 'offset %d is past the buffer\'s %d bytes', offset, len) end
    if count == -1 then
      if (len - offset) % esize ~= 0 then
        fail('frombuffer', 'the buffer\'s %d bytes after offset %d are not a multiple of the element size %d', len - offset, offset, esize)
      end
      count = (len - offset) / esize
    elseif offset + count * esize > len then
      fail('frombuffer', '%d elements of %d bytes from offset %d need %d bytes, the buffer has %d', count, esize, offset, offset + count * esize, len)
    end
  end
  t = wrap(C.tocha_tensor_empty(1, ffi.new('int64_t[1]', count), id, 0, 0))
  if count > 0 then ffi.copy(ffi.cast('char *', t.p.storage.data), ffi.cast('const char *', ptr) + offset, count * esize) end
  -- A bool holds 0 or 1: the byte 2 made a BoolTensor whose sum counted it twice and whose :long()
  -- gave 2, and 255 failed all(). Any nonzero byte is true (PyTorch shares the bytes unchecked).
  if id == dt_ids.bool and count > 0 then
    local u = wrap(C.tocha_tensor_to_dtype(t.p, dt_ids.u8))
    t = wrap(C.tocha_tensor_to_dtype(u:ne(0).p, dt_ids.bool))
  end
  return (finish('frombuffer', t, { requiresGrad = opts.requiresGrad }))
end

--- torch.emptyStrided(sizes, strides [, {dtype=, device=}]): a new uninitialized tensor with
--- those sizes and strides (tables or LongStorages) over a storage just large enough.
--- Example: torch.emptyStrided({2, 3}, {1, 2}):stride()
function torch.emptyStrided(sizes, strides, opts)
  opts = check_opts('emptyStrided', opts)
  for _, v in ipairs({ sizes, strides }) do
    if not (type(v) == 'table' and getmetatable(v) == nil or types.is_storage(v)) then
      fail('emptyStrided', 'expected sizes and strides as tables or LongStorages, got %s', describe(v))
    end
  end
  -- LongStorage truncated {2.5} to a size of 2
  for w, v in pairs({ size = sizes, stride = strides }) do
    if not types.is_storage(v) then
      for i = 1, #v do
        if type(v[i]) ~= 'number' or v[i] ~= math.floor(v[i]) or math.abs(v[i]) >= 2 ^ 53 then
          fail('emptyStrided', '%s %d must be an integer, got %s', w, i, type(v[i]) == 'number' and tostring(v[i]) or describe(v[i]))
        end
      end
    end
  end
  local sz, st = torch.LongStorage(sizes), torch.LongStorage(strides)
  if #sz ~= #st then fail('emptyStrided', 'sizes and strides differ in length (%d and %d)', #sz, #st) end
  local need = 1
  for i = 1, #sz do
    if sz[i] < 0 or st[i] < 0 then fail('emptyStrided', 'sizes and strides must be non-negative, got size %d stride %d', sz[i], st[i]) end
    if sz[i] == 0 then need = 0 break end
    need = need + (sz[i] - 1) * st[i]
  end
  local id, cuda = dtype_arg('emptyStrided', opts.dtype)
  local base = wrap(C.tocha_tensor_empty(1, ffi.new('int64_t[1]', need), id or torch._default_dtype(), 0, 0))
  local device = opts.device or cuda
  if device ~= nil then base = torch._to_device(base, device, 'emptyStrided') end
  return (finish('emptyStrided', base:asStrided(sz, st, 1), { requiresGrad = opts.requiresGrad }))
end

--- torch.setDefaultDtype(dtype): the default floating dtype ('float32', 'float64', 'float16',
--- 'bfloat16' or a type name): torch.setdefaulttensortype with PyTorch's names.
--- Example: torch.setDefaultDtype('float32')
function torch.setDefaultDtype(d)
  if d == nil then fail('setDefaultDtype', "expected a dtype such as 'float32' or 'float64', got nil") end
  local id = dtype_arg('setDefaultDtype', d)
  if not is_floating(id) then fail('setDefaultDtype', 'expected a floating dtype, got \'%s\'', d) end
  torch.setdefaulttensortype(types.tensor_name[id])
end

--- torch.getDefaultDtype(): the default floating dtype as PyTorch names it ('float32' unless
--- changed by setDefaultDtype or setdefaulttensortype).
--- Example: torch.getDefaultDtype()
function torch.getDefaultDtype() return CANONICAL[torch._default_dtype()] end

return torch
