-- Torch7's indexing sugar on tensors: x[i], x[{i,j}], x[{ {a,b}, {}, k }], x[mask] for reading
-- and the same forms for assignment (a number fills, a tensor copies).
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local fail = lib.fail
local is_tensor, is_storage = types.is_tensor, types.is_storage
local methods = torch._tensor_methods
local hooks = torch._tensor_hooks
local read, write = types.read, types.write

local function index_error(p, i, d)
  if p == lib.FREED then fail('index', 'tensor was freed (t:free() was called on it earlier)') end
  if p.ndim == 0 then fail('index', 'cannot index a 0-dim tensor with [%s]; use t:item()', tostring(i)) end
  fail('index', 'index %s out of range for dimension %d of size %d', tostring(i), d + 1, tonumber(p.size[d]))
end

-- Element offset (from the storage start) of a 1-based index along dim d of p, or an error.
local function offset_along(p, d, i, base)
  local n = tonumber(p.size[d])
  local j = i
  if j < 0 then j = j + n + 1 end
  if j < 1 or j > n or j ~= math.floor(j) then index_error(p, i, d) end
  return base + (j - 1) * tonumber(p.stride[d])
end

-- For a table of numbers covering every dim: the element offset; nil when it is not one.
local function element_offset(p, k)
  local nd = p.ndim
  if #k ~= nd or nd == 0 then return nil end
  local off = tonumber(p.storage_offset)
  for d = 0, nd - 1 do
    local i = k[d + 1]
    if type(i) ~= 'number' then return nil end
    off = offset_along(p, d, i, off)
  end
  return off
end

-- The view selected by a Torch7 index table: numbers select (drop the dim), {a,b}/{a} narrow
-- an inclusive range, {} keeps a dim.
local function view_of(t, k)
  local r, d = t, 1
  local nk = #k
  if nk > t.p.ndim then fail('index', 'too many indices (%d) for a %dD tensor', nk, t.p.ndim) end
  for i = 1, nk do
    local e = k[i]
    if type(e) == 'number' then
      r = methods.select(r, d, e)
    elseif type(e) == 'table' then
      local n = r:size(d)
      local s, f = e[1] or 1, e[2] or e[1] or n
      if type(s) ~= 'number' or type(f) ~= 'number' then fail('index', 'range %d must hold numbers', i) end
      if s < 0 then s = s + n + 1 end
      if f < 0 then f = f + n + 1 end
      if s < 1 or f > n or f < s - 1 then
        fail('index', 'range {%s, %s} out of bounds for dimension %d of size %d', tostring(e[1]), tostring(e[2]), d, n)
      end
      r = methods.narrow(r, d, s, f - s + 1)
      d = d + 1
    else
      fail('index', 'index %d is a %s; expected a number or a {from, to} table', i, type(e))
    end
  end
  return r
end

local function is_mask(k)
  if not is_tensor(k) then return false end
  local dt = k.p.dtype
  return dt == lib.dtype.u8 or dt == lib.dtype.bool
end

hooks.index = function(t, k)
  local p = t.p
  if type(k) == 'number' then
    if p.ndim == 1 then return (read(p, offset_along(p, 0, k, tonumber(p.storage_offset)))) end
    if p.ndim == 0 then index_error(p, k, 0) end
    return (methods.select(t, 1, k))
  end
  if type(k) == 'table' then
    local off = element_offset(p, k)
    if off then return (read(p, off)) end
    return (view_of(t, k))
  end
  if is_storage(k) then return (hooks.index(t, k:totable())) end
  if is_mask(k) then return (methods.maskedSelect(t, k)) end
  if is_tensor(k) then fail('index', 'cannot index with a %s; use index(dim, indices) or a ByteTensor mask', types.typename(k)) end
  return nil
end

local function assign(view, v)
  if type(v) == 'number' or type(v) == 'boolean' then
    methods.fill(view, v)
  elseif is_tensor(v) then
    methods.copy(view, v)
  else
    fail('newindex', 'cannot assign a %s to a tensor slice; expected a number or a tensor', types.describe(v))
  end
end

hooks.newindex = function(t, k, v)
  local p = t.p
  if type(k) == 'number' then
    if p.ndim == 1 and (type(v) == 'number' or type(v) == 'boolean') then
      return (write(p, offset_along(p, 0, k, tonumber(p.storage_offset)), v))
    end
    if p.ndim == 0 then index_error(p, k, 0) end
    return (assign(methods.select(t, 1, k), v))
  end
  if type(k) == 'table' then
    local off = element_offset(p, k)
    if off and (type(v) == 'number' or type(v) == 'boolean') then return (write(p, off, v)) end
    return (assign(view_of(t, k), v))
  end
  if is_storage(k) then return (hooks.newindex(t, k:totable(), v)) end
  if is_mask(k) then
    if type(v) == 'number' or type(v) == 'boolean' then return (methods.maskedFill(t, k, v)) end
    return (methods.maskedCopy(t, k, v))
  end
  fail('newindex', 'cannot index a tensor with a %s', types.describe(k))
end

return torch
