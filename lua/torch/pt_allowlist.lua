-- The globals a PyTorch checkpoint's pickle may name (pt_unpickle.lua refuses all others): storage
-- types and dtypes (values), and the functions it may call: tensor and parameter rebuilds,
-- OrderedDict, torch.Size, torch.device, set/frozenset and protocol 2's bytes. This is the list of
-- PyTorch 1.13's weights_only unpickler (_weights_only_unpickler.py) minus what Tocha cannot
-- build (sparse, quantized and meta tensors), plus the harmless containers.
local types = require 'torch.types'

local A = {}

-- Markers shared with the unpickler: None on its stack, and the metatables of internal tuples
-- { n = count, ... } and globals { name = 'module.name', value = ... }.
A.NONE = setmetatable({}, { __tostring = function() return 'None' end })
A.Tuple, A.Global = {}, {}
local NONE, Tuple, Global = A.NONE, A.Tuple, A.Global

-- Storage types and dtypes: globals that are values (the checkpoint layer maps them to dtypes).
A.storage_types = {
  FloatStorage = 'float32', DoubleStorage = 'float64', HalfStorage = 'float16', BFloat16Storage = 'bfloat16',
  LongStorage = 'int64', IntStorage = 'int32', ShortStorage = 'int16', CharStorage = 'int8',
  ByteStorage = 'uint8', BoolStorage = 'bool', ComplexFloatStorage = 'complex64',
  ComplexDoubleStorage = 'complex128', QInt8Storage = 'qint8', QUInt8Storage = 'quint8',
  QInt32Storage = 'qint32', QUInt4x2Storage = 'quint4x2', QUInt2x4Storage = 'quint2x4',
}
local dtype_names = { 'float32', 'float64', 'float16', 'bfloat16', 'int64', 'int32', 'int16', 'int8', 'uint8',
                      'bool', 'complex32', 'complex64', 'complex128', 'half', 'float', 'double', 'long', 'int',
                      'short', 'cfloat', 'cdouble', 'qint8', 'quint8', 'qint32' }
local values = {}
for name, dtype in pairs(A.storage_types) do
  values['torch.' .. name] = dtype
  values['torch.cuda.' .. name] = dtype
end
values['torch.storage.UntypedStorage'], values['torch.UntypedStorage'] = 'uint8', 'uint8'
values['torch.storage._UntypedStorage'] = 'uint8'
for _, n in ipairs(dtype_names) do values['torch.' .. n] = n end
values['torch.Tensor'] = 'Tensor'
values['torch.nn.parameter.Parameter'] = 'Parameter'
A.values = values

-- Globals that may be called (REDUCE), by name: f(u, args) with args an internal Tuple.
local calls = {}

local function arg(u, args, i, what)
  local v = args[i]
  if v == NONE then return nil end
  return v
end

local function int_tuple(u, t, what)
  if getmetatable(t) ~= Tuple and type(t) ~= 'table' then u:fail('%s is not a tuple of integers', what) end
  local out, n = {}, getmetatable(t) == Tuple and t.n or #t
  for i = 1, n do
    local v = t[i]
    if type(v) == 'cdata' then v = tonumber(v) end
    if type(v) ~= 'number' or v ~= math.floor(v) then u:fail('%s holds %s, not an integer', what, tostring(v)) end
    out[i] = v
  end
  return out
end

local function rebuild_tensor(u, args, v2)
  local storage = args[1]
  if type(storage) ~= 'table' or not storage.is_storage then
    u:fail('a tensor is rebuilt from %s instead of a storage', tostring(storage))
  end
  local offset = args[2]
  if type(offset) ~= 'number' then u:fail('a tensor has storage offset %s', tostring(offset)) end
  local t = u.ctx.tensor(storage, offset, int_tuple(u, args[3], 'a tensor size'),
                         int_tuple(u, args[4], 'a tensor stride'))
  if v2 and args[5] == true then u:require_grad(t) end
  return t
end

calls['torch._utils._rebuild_tensor_v2'] = function(u, args) return rebuild_tensor(u, args, true) end
calls['torch._utils._rebuild_tensor'] = function(u, args) return rebuild_tensor(u, args, false) end
local function rebuild_parameter(u, args)
  local t = args[1]
  if not types.is_tensor(t) then u:fail('a parameter is rebuilt from %s instead of a tensor', tostring(t)) end
  if args[2] == true then u:require_grad(t) end
  return t
end
calls['torch._utils._rebuild_parameter'] = rebuild_parameter
calls['torch._utils._rebuild_parameter_with_state'] = rebuild_parameter
calls['torch._tensor._rebuild_from_type_v2'] = function(u, args)
  local f, cls, inner = args[1], args[2], args[3]
  if getmetatable(f) ~= Global or not calls[f.name] or getmetatable(cls) ~= Global
     or (cls.name ~= 'torch.Tensor' and cls.name ~= 'torch.nn.parameter.Parameter') then
    u:fail('_rebuild_from_type_v2 of %s (only torch.Tensor and torch.nn.Parameter are loaded)', tostring(cls and cls.name))
  end
  if getmetatable(inner) ~= Tuple then u:fail('_rebuild_from_type_v2 without an argument tuple') end
  return calls[f.name](u, inner)
end
calls['collections.OrderedDict'] = function(u, args)
  local t = u:new_dict('OrderedDict')
  local items = args[1]
  if items ~= nil and items ~= NONE then
    if type(items) ~= 'table' then u:fail('OrderedDict built from %s', tostring(items)) end
    for _, kv in ipairs(items) do
      if type(kv) ~= 'table' then u:fail('OrderedDict built from a list of %s', tostring(kv)) end
      u:set(t, kv[1], kv[2])
    end
  end
  return t
end
calls['torch.Size'] = function(u, args) return int_tuple(u, args[1] or {}, 'a torch.Size') end
calls['torch.device'] = function(u, args)
  local ty, idx = args[1], arg(u, args, 2)
  if type(ty) ~= 'string' then u:fail('torch.device(%s)', tostring(ty)) end
  return idx and string.format('%s:%d', ty, idx) or ty
end
local function make_set(u, args)
  local out = {}
  local items = arg(u, args, 1)
  if items ~= nil and (type(items) ~= 'table' or getmetatable(items) ~= nil) then u:fail('a set built from %s', tostring(items)) end
  if items then for i, v in ipairs(items) do out[i] = v end end
  return out
end
calls['builtins.set'], calls['builtins.frozenset'] = make_set, make_set
calls['__builtin__.set'], calls['__builtin__.frozenset'] = make_set, make_set
-- Protocol 2 pickles Python 3 bytes as _codecs.encode(latin-1 text, 'latin1').
calls['_codecs.encode'] = function(u, args)
  local s, enc = args[1], args[2]
  if type(s) ~= 'string' or (enc ~= 'latin1' and enc ~= 'latin-1') then
    u:fail('_codecs.encode(%s, %s) (only latin1 bytes are loaded)', tostring(s), tostring(enc))
  end
  return (s:gsub('[\xC2\xC3][\x80-\xBF]', function(c)
    return string.char((c:byte(1) - 0xC0) * 64 + c:byte(2) - 0x80)
  end))
end
A.calls = calls

-- Why some well-known globals are refused (appended to the error).
local hints = {
  ['torch._utils._rebuild_sparse_tensor'] = 'sparse tensors are not supported',
  ['torch._utils._rebuild_sparse_csr_tensor'] = 'sparse tensors are not supported',
  ['torch._utils._rebuild_qtensor'] = 'quantized tensors are not supported',
  ['torch._utils._rebuild_meta_tensor_no_storage'] = 'meta tensors hold no data',
  ['torch._utils._rebuild_wrapper_subclass'] = 'tensor subclasses are not supported',
}
A.hints = hints
A.rebuild_parameter = rebuild_parameter

return A
