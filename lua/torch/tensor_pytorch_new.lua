-- PyTorch's x:new_*() factories (newZeros, newOnes, newFull, newEmpty, newEmptyStrided,
-- newTensor): new tensors with x's dtype and device unless the trailing options say otherwise.
local ffi = require 'ffi'
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local C, wrap, fail, dt = lib.C, lib.wrap, lib.fail, lib.dtype
local is_tensor, describe, check_tensor = types.is_tensor, types.describe, types.check_tensor
local methods = torch._tensor_methods

local PYTORCH_NAMES = {
  float32 = dt.f32, float = dt.f32, float64 = dt.f64, double = dt.f64, float16 = dt.f16, half = dt.f16,
  bfloat16 = dt.bf16, int64 = dt.i64, long = dt.i64, int32 = dt.i32, int = dt.i32, int16 = dt.i16, short = dt.i16,
  int8 = dt.i8, char = dt.i8, uint8 = dt.u8, bool = dt.bool,
}
local sizes_buf = ffi.new('int64_t[16]')
local strides_buf = ffi.new('int64_t[16]')

-- A dtype option ('float64', 'torch.DoubleTensor'...) as a dtype id; a Cuda type name also
-- answers 'cuda' as the device it implies.
local function dtype_id(op, v)
  if type(v) == 'string' then
    local id = PYTORCH_NAMES[(v:gsub('^torch%.', ''))] or types.dtype_of_name[v]
    if id then return id, v:find('Cuda') and 'cuda' or nil end
  end
  fail(op, "expected a dtype such as 'float32', 'int64' or 'torch.DoubleTensor', got %s",
    type(v) == 'string' and "'" .. v .. "'" or describe(v))
end

-- Note [new_* sizes and options]: sizes come as numbers, a table or a LongStorage, as for
-- torch.zeros; a trailing plain table with a string key ({dtype=, device=, requiresGrad=}) is the
-- options, so x:newZeros({}) is a 0-dim tensor and x:newZeros({2, 3}, {dtype='int64'}) works.
local function is_opts(v)
  if type(v) ~= 'table' or getmetatable(v) ~= nil then return false end
  for k in pairs(v) do if type(k) == 'string' then return true end end
  return false
end

local function split_opts(...)
  local n = select('#', ...)
  local last = n > 0 and select(n, ...) or nil
  if is_opts(last) then return last, n - 1 end
  return nil, n
end

torch._pytorch_dtype_id = dtype_id

local OPT_KEYS = { dtype = true, device = true, requiresGrad = true, pinMemory = true }

-- The new tensor made by make(dtype, device_type, device_index), with the options applied.
local function build(op, x, opts, make)
  check_tensor(op, x, 1)
  opts = opts or {}
  for k in pairs(opts) do
    if not OPT_KEYS[k] then fail(op, "unknown option '%s' (expected dtype, device, requiresGrad)", tostring(k)) end
  end
  local id, cuda = x.p.dtype, nil
  if opts.dtype ~= nil then id, cuda = dtype_id(op, opts.dtype) end
  local t = make(id, x.p.device_type, x.p.device_index)
  return torch._factory_finish(op, t, opts, opts.device or cuda)
end

-- Sizes must not be negative: -1 reached C, whose error named 'empty'.
local function check_sizes(op, buf, nd)
  for i = 0, nd - 1 do
    if buf[i] < 0 then fail(op, 'size %d must be non-negative, got %d', i + 1, tonumber(buf[i])) end
  end
end

local function full(op, x, value, ...)
  local opts, n = split_opts(...)
  local nd = types.read_sizes(op, sizes_buf, unpack({ ... }, 1, n))
  if n > 1 and type((...)) ~= 'number' then
    fail(op, 'expected sizes as numbers, one table or one LongStorage, got %d arguments', n)
  end
  if n == 0 then fail(op, 'expected sizes (numbers, a table or a LongStorage)') end
  check_sizes(op, sizes_buf, nd)
  return build(op, x, opts, function(id, dev, idx)
    -- an integer type refuses a value it cannot hold, as PyTorch's new_full (300 wrapped to 44)
    types.check_value_pytorch(op, value, id)  -- Note [Floating fill values]
    return (wrap(C.tocha_tensor_full(nd, sizes_buf, value, id, dev, idx)))
  end)
end

--- x:newZeros(sizes... [, {dtype=, device=, requiresGrad=}]): a tensor of zeros of the given sizes
--- (numbers, a table or a LongStorage) with x's type and device unless the options say otherwise.
--- Example: torch.LongTensor(2):newZeros(2, 3)
function methods.newZeros(x, ...) return (full('newZeros', x, 0, ...)) end
--- x:newOnes(sizes... [, options]): a tensor of ones, as x:newZeros.
--- Example: torch.zeros(1):newOnes({2, 2}, {dtype = 'float64'})
function methods.newOnes(x, ...) return (full('newOnes', x, 1, ...)) end
--- x:newEmpty(sizes... [, options]): a new tensor of the given sizes, as x:newZeros (Tocha fills
--- it with zeros where PyTorch leaves it uninitialized).
--- Example: torch.zeros(1):newEmpty(2, 3):size()
function methods.newEmpty(x, ...) return (full('newEmpty', x, 0, ...)) end
--- x:newFull(sizes, value [, options]): a tensor of the given sizes (a table or a LongStorage)
--- filled with value, with x's type and device unless the options say otherwise.
--- Example: torch.zeros(1):newFull({2, 2}, 3.5)
function methods.newFull(x, sizes, value, opts)
  if type(sizes) == 'number' then fail('newFull', 'expected sizes as a table or a LongStorage, got a number') end
  if type(value) == 'boolean' then value = value and 1 or 0 end
  if type(value) ~= 'number' then fail('newFull', 'expected a fill value (number), got %s', describe(value)) end
  if opts ~= nil and not is_opts(opts) and not (type(opts) == 'table' and next(opts) == nil) then
    fail('newFull', 'expected options as a table {dtype=, device=, requiresGrad=}, got %s', describe(opts))
  end
  if opts == nil or next(opts) == nil then return (full('newFull', x, value, sizes)) end
  return (full('newFull', x, value, sizes, opts))
end
--- x:newEmptyStrided(sizes, strides [, options]): a new tensor with the given sizes and strides
--- (tables or LongStorages) over a storage just large enough, zero-filled, with x's type and device.
--- Example: torch.zeros(1):newEmptyStrided({2, 3}, {1, 2}):stride()
function methods.newEmptyStrided(x, sizes, strides, opts)
  local op = 'newEmptyStrided'
  if opts ~= nil and not is_opts(opts) then
    fail(op, 'expected options as a table {dtype=, device=, requiresGrad=}, got %s', describe(opts))
  end
  local nd = types.read_sizes(op, sizes_buf, sizes)
  if types.read_sizes(op, strides_buf, strides) ~= nd then fail(op, 'sizes and strides have different lengths') end
  for i = 0, nd - 1 do
    if sizes_buf[i] < 0 then fail(op, 'sizes must be non-negative, got size %d = %d', i + 1, tonumber(sizes_buf[i])) end
  end
  local need = 1
  for i = 0, nd - 1 do
    if strides_buf[i] < 0 then fail(op, 'strides must be non-negative, got %d', tonumber(strides_buf[i])) end
    if sizes_buf[i] == 0 then need = 0 break end
    need = need + (sizes_buf[i] - 1) * strides_buf[i]
  end
  return build(op, x, opts, function(id, dev, idx)
    local base = wrap(C.tocha_tensor_full(1, ffi.new('int64_t[1]', need), 0, id, dev, idx))
    return (wrap(C.tocha_tensor_view_storage(base.p, 0, nd, sizes_buf, strides_buf)))
  end)
end
--- x:newTensor(data [, options]): a copy of data (a number, a boolean, nested tables of them or
--- a tensor, detached) with x's type and device unless the options say otherwise. Numbers are
--- checked as torch.tensor checks them (truncated toward zero into an integer type, a value the
--- type cannot hold refused, ragged tables refused); a tensor converts as x:type() would.
--- Example: torch.LongTensor(1):newTensor({{1, 2}, {3, 4}})
function methods.newTensor(x, data, opts)
  local op = 'newTensor'
  if opts ~= nil and not is_opts(opts) then
    fail(op, 'expected options as a table {dtype=, device=, requiresGrad=}, got %s', describe(opts))
  end
  return build(op, x, opts, function(id, dev, idx)
    local t
    if is_tensor(data) then
      local src = data:detach()
      t = data.p.dtype == id and src:clone() or wrap(C.tocha_tensor_to_dtype(src.p, id))
    elseif type(data) == 'number' or type(data) == 'boolean' or type(data) == 'table' and getmetatable(data) == nil then
      -- torch.tensor's reading (Note [dtype names]): the Torch7 constructor wrapped 300 to 44 in
      -- a ByteTensor where PyTorch's new_tensor refuses it
      t = torch._tensor_from_data(op, data, id)
    else
      fail(op, 'expected data as a number, a table of numbers or a tensor, got %s', describe(data))
    end
    return (torch._to_device(t, dev == 0 and 'cpu' or ('cuda:' .. idx), op))
  end)
end
