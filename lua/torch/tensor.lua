-- Tensor handles: the FFI metatype, Torch7's tensor types and constructors, geometry queries,
-- type conversion, resize/set/copy/fill and element-wise Lua iteration (apply/map/map2).
local ffi = require 'ffi'
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local C, wrap, check, fail = lib.C, lib.wrap, lib.check, lib.fail
local is_tensor, is_storage = types.is_tensor, types.is_storage
local dims_a, dims_b = lib.dims_a, lib.dims_b

-- Every tensor method lives here; cdata hide their metatable, so this table is also what the
-- REPL completes from and what torch.getmetatable('torch.FloatTensor') returns.
local methods = {}
torch._tensor_methods = methods
-- Hooks filled by other files: numeric/table indexing (indexing.lua), properties (autograd).
local hooks = { index = nil, newindex = nil, properties = {}, setters = {} }
torch._tensor_hooks = hooks

local ctor_by_dtype = {}

local mt = {}
mt.__index = function(t, k)
  local m = methods[k]
  if m ~= nil then return m end
  if type(k) == 'string' then
    if k == 'new' then
      return (t.p.device_type ~= 0 and torch._cuda_ctor_by_dtype or ctor_by_dtype)[t.p.dtype]
    end
    local prop = hooks.properties[k]
    if prop then return (prop(t)) end
    return nil
  end
  return (hooks.index(t, k))
end
mt.__newindex = function(t, k, v)
  if type(k) == 'string' then
    local setter = hooks.setters[k]
    if setter then return (setter(t, v)) end
    fail('Tensor', "cannot set field '%s' on a tensor", k)
  end
  return (hooks.newindex(t, k, v))
end
mt.__len = function(t) return (methods.size(t)) end
mt.__tostring = function(t) return (torch._tensor_tostring(t)) end
mt.__eq = function(a, b)
  return is_tensor(a) and is_tensor(b) and a.p == b.p
end
torch._tensor_mt = mt  -- operators are added by ops.lua
ffi.metatype(types.Handle, mt)

function torch._cdata_typename(x)
  if is_tensor(x) then return (types.typename(x)) end
  if is_storage(x) then return types.storage_name[x.p.dtype] end
  return nil
end
--- torch.isTensor(x): true when x is a tensor of any type (torch.FloatTensor, torch.LongTensor...),
--- false for anything else (storages, numbers, tables).
--- Example: torch.isTensor(torch.ones(2)), torch.isTensor(42)
function torch.isTensor(x) return (is_tensor(x)) end
--- torch.isStorage(x): true when x is a storage of any type (torch.FloatStorage,
--- torch.LongStorage...), false for anything else (tensors included).
--- Example: torch.isStorage(torch.LongStorage({2, 3})), torch.isStorage(torch.ones(2))
function torch.isStorage(x) return (is_storage(x)) end

-- ---- construction --------------------------------------------------------------------------

local function new_tensor(n, sizes, dtype, value)
  return (wrap(C.tocha_tensor_full(n, sizes, value or 0, dtype, 0, 0)))
end
torch._new_tensor = new_tensor

-- Shape of a nested Lua table of numbers; errors name the first inconsistency.
local function table_shape(t, op)
  local shape = {}
  local cur = t
  while type(cur) == 'table' do
    shape[#shape + 1] = #cur
    if #shape > 16 then fail(op, 'nested table has more than 16 levels') end
    cur = cur[1]
  end
  return shape
end

local function fill_from_table(h, tbl, shape, op)
  local p = h.p
  local flat = {}
  local function walk(t, depth, where)
    if #t ~= shape[depth] then
      fail(op, 'inconsistent table: %s has %d elements but %d were expected', where, #t, shape[depth])
    end
    for i = 1, #t do
      local v = t[i]
      if depth == #shape then
        local tv = type(v)
        if tv == 'boolean' then v = v and 1 or 0
        elseif tv ~= 'number' then
          fail(op, 'table element %s[%d] is a %s, expected a number', where, i, types.describe(v))
        end
        flat[#flat + 1] = v
      else
        if type(v) ~= 'table' then
          fail(op, 'inconsistent table: %s[%d] is a %s, expected a table', where, i, type(v))
        end
        walk(v, depth + 1, where .. '[' .. i .. ']')
      end
    end
  end
  if #shape > 0 then walk(tbl, 1, 'table') end
  for i = 1, #flat do types.write(p, i - 1, flat[i]) end
end

-- Note [Tensors on storage views]: an offset counts inside the storage given, which may be a view
-- of another one (Torch7's torch.DoubleStorage(b, 2, 2)): the view's own offset is added, and
-- the view's size bounds the tensor (the underlying storage's was used: torch.DoubleTensor(v)
-- read b from its start, set(v, 2, {2}) read past v's end). Returns the absolute offset.
local function storage_view_offset(op, src, offset, nd, sizes, strides)
  if type(offset) ~= 'number' or offset ~= math.floor(offset) or offset < 1 then
    fail(op, 'storage offset must be an integer >= 1 (1-based), got %s', tostring(offset))
  end
  local n = tonumber(src.p.size[0])
  local last, stride, empty = offset - 1, 1, false  -- the farthest element read (0-based)
  for d = nd - 1, 0, -1 do
    local size = tonumber(sizes[d])
    local s = strides and tonumber(strides[d]) or stride
    if size == 0 then empty = true end
    if size > 0 and s > 0 then last = last + (size - 1) * s end
    stride = stride * math.max(size, 1)
  end
  if not empty and nd > 0 and last >= n then
    fail(op, 'the tensor reaches element %d of a storage of %d (offset %d)', last + 1, n, offset)
  end
  return tonumber(src.p.storage_offset) + offset - 1
end

local function construct(dtype, op, a1, ...)
  local n = select('#', ...)
  if a1 == nil then
    dims_a[0] = 0
    return (new_tensor(1, dims_a, dtype))
  end
  local ta = type(a1)
  -- A LongStorage gives sizes (and an optional second one strides), except to a LongTensor,
  -- which views a storage of its own type (Torch7's rule).
  if ta == 'number' or (is_storage(a1) and a1.p.dtype == types.I64 and dtype ~= types.I64) then
    local nd = types.read_sizes(op, dims_a, a1, ...)
    if ta ~= 'number' and n >= 1 then
      if types.read_sizes(op, dims_b, ...) ~= nd then fail(op, 'sizes and strides have different lengths') end
      local need = 1
      for i = 0, nd - 1 do
        if dims_a[i] == 0 then need = 0 break end
        need = need + (dims_a[i] - 1) * dims_b[i]
      end
      local base = new_tensor(1, ffi.new('int64_t[1]', need), dtype)
      return (wrap(C.tocha_tensor_view_storage(base.p, 0, nd, dims_a, dims_b)))
    end
    return (new_tensor(nd, dims_a, dtype))
  end
  if ta == 'table' and not getmetatable(a1) then
    local shape = table_shape(a1, op)
    for i, s in ipairs(shape) do dims_a[i - 1] = s end
    local h = new_tensor(#shape, dims_a, dtype)
    fill_from_table(h, a1, shape, op)
    return h
  end
  if is_tensor(a1) then
    if a1.p.dtype ~= dtype then
      fail(op, 'cannot make a %s share the storage of a %s; use :type() to convert', types.tensor_name[dtype], types.typename(a1))
    end
    return (wrap(C.tocha_tensor_alias(a1.p)))
  end
  if is_storage(a1) then
    if a1.p.dtype ~= dtype then
      fail(op, 'a %s cannot view a %s', types.tensor_name[dtype], types.storage_name[a1.p.dtype])
    end
    local offset, s1 = ...
    offset = offset or 1
    if type(offset) ~= 'number' or offset < 1 then fail(op, 'storage offset must be a number >= 1, got %s', tostring(offset)) end
    local nd, strides
    if s1 == nil then  -- the whole storage from offset
      nd = 1
      dims_a[0] = tonumber(a1.p.size[0]) - (offset - 1)
    elseif type(s1) == 'number' then  -- sz1, st1, sz2, st2 ...
      nd = 0
      for i = 2, n, 2 do
        dims_a[nd] = select(i, ...)
        local st = select(i + 1, ...)
        dims_b[nd] = st or -1
        nd = nd + 1
      end
      local acc = 1  -- missing strides are contiguous
      for i = nd - 1, 0, -1 do
        if dims_b[i] < 0 then dims_b[i] = acc end
        acc = acc * dims_a[i]
      end
      strides = dims_b
    else
      nd = types.read_sizes(op, dims_a, s1)
      local st = select(3, ...)
      if st ~= nil then
        if types.read_sizes(op, dims_b, st) ~= nd then fail(op, 'sizes and strides have different lengths') end
        strides = dims_b
      end
    end
    local abs = storage_view_offset(op, a1, offset, nd, dims_a, strides)  -- Note [Tensors on storage views]
    return (wrap(C.tocha_tensor_view_storage(a1.p, abs, nd, dims_a, strides)))
  end
  fail(op, 'cannot construct a tensor from %s', types.describe(a1))
end

-- Torch7 type tables: torch.FloatTensor(...) constructs; torch.FloatTensor.foo = f adds a method.
local ctor_mt = {}
for dtype = 0, lib.dtype_count - 1 do
  local name = types.tensor_name[dtype]
  local ctor = setmetatable({ __typename = name, dtype = dtype }, {
    __call = function(_, ...) return construct(dtype, name, ...) end,
    __index = methods,
    __newindex = methods,
    __tostring = function() return name end,
  })
  ctor_by_dtype[dtype] = function(...) return (construct(dtype, name, ...)) end
  torch[types.suffix[dtype] .. 'Tensor'] = ctor
  torch._register_metatable(name, methods, ctor)
end
torch._ctor_by_dtype = ctor_by_dtype
torch._construct = construct

local default_dtype = lib.dtype.f32
torch.Tensor = torch.FloatTensor

-- Note [Default type in worker states]: the default type lives in two places, this Lua state
-- (torch.Tensor) and the C library (the float type integer math promotes to), which is
-- process-wide. A worker state (a data loader's, a threads pool's) sets torch._per_state_default:
-- there setdefaulttensortype changes only the state's own type, as Torch7's per-thread states
-- did; otherwise a worker's init function changed the main state's promotions (torch.sqrt of a
-- LongTensor gave Doubles there). _set_state_default(dt) is that state-only half.
local function set_state_default(dt)
  default_dtype = dt
  torch.Tensor = torch[types.suffix[dt] .. 'Tensor']
  torch.Storage = torch[types.suffix[dt] .. 'Storage'] or torch.Storage  -- as Torch7 (it stayed FloatStorage)
end
torch._set_state_default = set_state_default
--- torch.setdefaulttensortype('torch.DoubleTensor'): the type torch.Tensor builds, and the float
--- type that integer math promotes to.
--- Example: torch.setdefaulttensortype('torch.DoubleTensor'); local t = torch.Tensor(2)
--- torch.setdefaulttensortype('torch.FloatTensor')
function torch.setdefaulttensortype(name)
  local dt = types.dtype_of_name[name]
  if not dt or (dt ~= lib.dtype.f32 and dt ~= lib.dtype.f64 and dt ~= lib.dtype.f16 and dt ~= lib.dtype.bf16) then
    fail('setdefaulttensortype', 'expected a floating tensor type name, got %s', tostring(name))
  end
  if not torch._per_state_default then check(C.tocha_set_default_float_dtype(dt)) end
  set_state_default(dt)
end
--- torch.getdefaulttensortype(): the name of the type torch.Tensor builds, 'torch.FloatTensor'
--- unless changed with torch.setdefaulttensortype.
--- Example: torch.getdefaulttensortype()
function torch.getdefaulttensortype() return types.tensor_name[default_dtype] end
function torch._default_dtype() return default_dtype end

-- ---- geometry ------------------------------------------------------------------------------

function methods.dim(t) return t.p.ndim end
methods.nDimension = methods.dim
function methods.nElement(t) return (tonumber(t.p.numel)) end
methods.numel = methods.nElement
function methods.elementSize(t) return t.p.elsize end
function methods.isContiguous(t) return bit.band(t.p.flags, 1) ~= 0 end
function methods.storageOffset(t) return tonumber(t.p.storage_offset) + 1 end

local function long_storage_of(arr, n)
  return (torch._long_storage(arr, n))
end

-- Index of dim d into size[]/stride[] (cdim keeps a negative dim negative: x:size(-1) read size[-1]).
local function geometry_dim(op, d, ndim)
  if ndim == 0 then lib.fail(op, 'a 0-dim tensor has no dimension %s', tostring(d)) end
  local c = types.cdim(op, d, ndim)
  return c < 0 and c + ndim or c
end
--- t:size() returns a LongStorage of the sizes (also #t); t:size(d) the size of dim d (negative from the end).
--- Example: torch.zeros(2, 3):size(-1)
function methods.size(t, d)
  local p = t.p
  if d then
    return (tonumber(p.size[geometry_dim('size', d, p.ndim)]))
  end
  return (long_storage_of(p.size, p.ndim))
end
function methods.stride(t, d)
  local p = t.p
  if d then
    return (tonumber(p.stride[geometry_dim('stride', d, p.ndim)]))
  end
  return (long_storage_of(p.stride, p.ndim))
end
function methods.isSameSizeAs(t, o)
  local a, b = t.p, types.check_tensor('isSameSizeAs', o, 1).p
  if a.ndim ~= b.ndim then return false end
  for i = 0, a.ndim - 1 do if a.size[i] ~= b.size[i] then return false end end
  return true
end
function methods.isSize(t, sizes)
  local n = types.read_sizes('isSize', dims_a, sizes)
  local p = t.p
  if n ~= p.ndim then return false end
  for i = 0, n - 1 do if dims_a[i] ~= p.size[i] then return false end end
  return true
end
function methods.isSetTo(t, o)
  local a, b = t.p, types.check_tensor('isSetTo', o, 1).p
  if C.tocha_tensor_same_storage(a, b) == 0 or a.storage_offset ~= b.storage_offset or a.ndim ~= b.ndim then
    return false
  end
  for i = 0, a.ndim - 1 do
    if a.size[i] ~= b.size[i] or a.stride[i] ~= b.stride[i] then return false end
  end
  return true
end
function methods.device(t)
  local p = t.p
  if p.device_type == 0 then return 'cpu' end
  return 'cuda:' .. p.device_index
end

-- ---- types ---------------------------------------------------------------------------------

--- t:type() is the class name; t:type(name) converts (a copy) unless t already has that type.
--- Example: torch.ones(2):type('torch.IntTensor'):type()
function methods.type(t, name)
  if name == nil then return (types.typename(t)) end
  local dt = types.dtype_of_name[name]
  if not dt then fail('type', 'unknown tensor type %s', tostring(name)) end
  local is_cuda = name:find('Cuda') ~= nil
  if is_cuda ~= (t.p.device_type ~= 0) then
    local moved = torch._to_device(t, is_cuda and 'cuda' or 'cpu')
    if moved.p.dtype == dt then return moved end
    t = moved
  end
  if t.p.dtype == dt then return t end
  return (wrap(C.tocha_tensor_to_dtype(t.p, dt)))
end
function methods.typeAs(t, o) return (methods.type(t, types.check_tensor('typeAs', o, 1):type())) end
for dtype = 0, lib.dtype_count - 1 do
  local lower = types.suffix[dtype]:lower()
  if lower == 'bfloat16' then lower = 'bfloat16' end
  methods[lower] = function(t)
    if t.p.dtype == dtype and t.p.device_type == 0 then return t end
    if t.p.device_type ~= 0 then t = torch._to_device(t, 'cpu') end
    if t.p.dtype == dtype then return t end
    return (wrap(C.tocha_tensor_to_dtype(t.p, dtype)))
  end
end
methods.bool = methods.bool
function methods.real(t) return (methods.type(t, torch.getdefaulttensortype())) end

-- ---- memory and data -------------------------------------------------------------------------

--- t:resize(sizes...) keeps the storage (growing it if needed), like Torch7.
--- Example: torch.range(1, 6):resize(2, 2)
function methods.resize(t, ...)
  local n = types.read_sizes('resize', dims_a, ...)
  check(C.tocha_tensor_resize(t.p, n, dims_a))
  return t
end
function methods.resizeAs(t, o)
  local p = types.check_tensor('resizeAs', o, 1).p
  check(C.tocha_tensor_resize(t.p, p.ndim, p.size))
  return t
end
--- t:set(src) / t:set(storage[, offset, sizes, strides]) makes t view other memory.
--- Example: torch.Tensor():set(torch.range(1, 4))
function methods.set(t, src, offset, sizes, strides)
  if src == nil then
    dims_a[0] = 0
    return (methods.set(t, new_tensor(1, dims_a, t.p.dtype)))
  end
  if is_tensor(src) then
    check(C.tocha_tensor_set(t.p, src.p))
    return t
  end
  if is_storage(src) then
    offset = offset or 1
    if type(offset) ~= 'number' then fail('set', 'storage offset must be a number, got %s', type(offset)) end
    local nd, st
    if sizes == nil then
      nd = 1
      dims_a[0] = tonumber(src.p.size[0]) - (offset - 1)
    else
      nd = types.read_sizes('set', dims_a, sizes)
      if strides ~= nil then
        types.read_sizes('set', dims_b, strides)
        st = dims_b
      end
    end
    local abs = storage_view_offset('set', src, offset, nd, dims_a, st)  -- Note [Tensors on storage views]
    check(C.tocha_tensor_set_storage(t.p, src.p, abs, nd, dims_a, st))
    return t
  end
  fail('set', 'expected a tensor or a storage, got %s', types.describe(src))
end
function methods.zero(t)
  check(C.tocha_tensor_fill(t.p, 0))
  return t
end
methods.zero_ = methods.zero
function methods.fill(t, v)
  if type(v) == 'boolean' then v = v and 1 or 0 end
  if type(v) ~= 'number' then fail('fill', 'expected a number, got %s', types.describe(v)) end
  check(C.tocha_tensor_fill(t.p, v))
  return t
end
methods.fill_ = methods.fill
--- t:copy(src[, nonBlocking]): values of src (any type, same number of elements or
--- broadcastable) into t; nonBlocking = true makes a copy between pinned host memory and a GPU
--- asynchronous (see t:copyAsync).
--- Example: torch.zeros(2, 2):copy(torch.IntTensor({{1, 2}, {3, 4}}))
function methods.copy(t, src, nonBlocking)
  if is_storage(src) then src = torch._tensor_of_storage(src) end
  types.check_tensor('copy', src, 1)
  if nonBlocking then check(C.tocha_tensor_copy_async(t.p, src.p))
  else check(C.tocha_tensor_copy(t.p, src.p)) end
  return t
end
methods.copy_ = methods.copy
function methods.clone(t) return (wrap(C.tocha_tensor_clone(t.p))) end
function methods.contiguous(t)
  if bit.band(t.p.flags, 1) ~= 0 then return t end
  return (wrap(C.tocha_tensor_contiguous(t.p)))
end
function methods.storage(t) return (torch._storage_of(t)) end
--- Releases the tensor now; later use of this handle is an error, not a crash.
--- Example: local t = torch.ones(1000); t:free()
function methods.free(t)
  ffi.gc(t, nil)
  C.tocha_handle_release(t)
end
function methods.retain(t) return t end
--- Raw typed pointer to the first element (CPU). Unsafe: valid while the tensor lives.
--- Example: local t = torch.Tensor({1, 2}); local p = t:data(); p[1] = 5  -- 0-based: t is {1, 5}
function methods.data(t)
  local p = t.p
  if p.device_type ~= 0 then fail('data', 'the tensor is on %s; data() is for CPU tensors', methods.device(t)) end
  local ct = types.ptr_ct[p.dtype] or ffi.typeof('uint16_t *')
  return ffi.cast(ct, p.storage.data) + p.storage_offset
end
function methods.cdata(t) return t.p end

-- Torch7's apply/map/map2: lua/torch/tensor_apply.lua.
require 'torch.tensor_apply'

--- Nested Lua tables of the values (a number for a 0-dim tensor).
--- Example: torch.Tensor({{1, 2}, {3, 4}}):totable()
function methods.totable(t)
  local c = t.p.device_type == 0 and t or torch._to_device(t, 'cpu')
  local p = c.p
  if p.ndim == 0 then return (types.read(p, tonumber(p.storage_offset))) end
  local function rec(off, d)
    local res = {}
    local n, st = tonumber(p.size[d]), tonumber(p.stride[d])
    for i = 0, n - 1 do
      if d == p.ndim - 1 then res[i + 1] = types.read(p, off + i * st)
      else res[i + 1] = rec(off + i * st, d + 1) end
    end
    return res
  end
  return (rec(tonumber(p.storage_offset), 0))
end

--- The value of a one-element tensor.
--- Example: torch.Tensor({{7}}):item()
function methods.item(t)
  local p = t.p
  if p.numel ~= 1 then fail('item', 'expected a tensor with one element, got size %s', types.shape_str(p)) end
  local c = t:contiguous()
  return (types.read(c.p, tonumber(c.p.storage_offset)))
end

return torch
