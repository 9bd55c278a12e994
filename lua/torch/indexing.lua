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
local index_rows, assign_rows  -- Note [Indexing with an index tensor]

local function index_error(p, i, d)
  if p == lib.FREED then fail('index', 'tensor was freed (t:free() was called on it earlier)') end
  if p.ndim == 0 then fail('index', 'cannot index a 0-dim tensor with [%s]; use t:item()', tostring(i)) end
  if i ~= math.floor(i) then fail('index', 'index %s along dimension %d is not an integer', tostring(i), d + 1) end
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
      offset_along(r.p, d - 1, e, 0)  -- the bounds check, with index's message (select's turns 0 into -n-1)
      r = methods.select(r, d, e)
    elseif type(e) == 'table' then
      local n = r:size(d)
      local s, f = e[1] or 1, e[2] or e[1] or n
      if type(s) ~= 'number' or type(f) ~= 'number' then fail('index', 'range %d must hold numbers', i) end
      -- narrow would truncate a fraction silently ({1.5, 2} read row 1)
      if s ~= math.floor(s) or f ~= math.floor(f) then
        fail('index', 'range {%s, %s} for dimension %d must hold integers', tostring(e[1]), tostring(e[2]), d)
      end
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

-- Note [Indexing with an index tensor]: PyTorch's x[idx] with an integer tensor (advanced indexing
-- of the first dim) is x:index(1, idx), a copy, with 1-based entries as every index here; idx may
-- have any shape (the result has idx's dims, then x's other dims) and a negative entry counts from
-- the end, as in x[i]. x[idx] = v fills (a number) or copies (a tensor, broadcast to that shape)
-- those rows, as PyTorch's index_put_: with a repeated index the last write wins. Torch7 refused
-- these keys (an error), so no Torch7 program meant anything else by them.
local INDEX_DTYPES = { [lib.dtype.i64] = true, [lib.dtype.i32] = true }
local function flat_rows(op, t, k)
  if not INDEX_DTYPES[tonumber(k.p.dtype)] then
    fail(op, 'cannot index with a %s; use a LongTensor (or IntTensor) of indices or a ByteTensor mask', types.typename(k))
  end
  if t.p.ndim == 0 then fail(op, 'cannot index a 0-dim tensor with a %s; use t:item()', types.typename(k)) end
  local flat = k:contiguous():view(k:nElement())
  if k:nElement() > 0 and flat:min() < 0 then
    flat = torch.add(flat, torch.lt(flat, 0):typeAs(flat):mul(t:size(1) + 1))
  end
  return flat
end
-- The shape of x[idx]: idx's sizes, then x's sizes after the first.
local function rows_shape(t, k)
  local shape = k:size():totable()
  for d = 2, t:dim() do shape[#shape + 1] = t:size(d) end
  return torch.LongStorage(shape)
end
index_rows = function(t, k)
  local r = methods.index(t, 1, flat_rows('index', t, k))
  if k:dim() == 1 then return r end
  return (r:view(rows_shape(t, k)))
end
assign_rows = function(t, k, v)
  local flat = flat_rows('newindex', t, k)
  if type(v) == 'number' or type(v) == 'boolean' then return (methods.indexFill(t, 1, flat, v)) end
  if not is_tensor(v) then fail('newindex', 'expected a number or a tensor to assign, got %s', types.describe(v)) end
  local rows = t:size():totable()
  rows[1] = flat:nElement()
  local src = v:expand(rows_shape(t, k)):reshape(torch.LongStorage(rows))
  return (methods.indexCopy(t, 1, flat, src))
end

hooks.index = function(t, k)
  local p = t.p
  if type(k) == 'number' then
    if p.ndim == 1 then return (read(p, offset_along(p, 0, k, tonumber(p.storage_offset)))) end
    if p.ndim == 0 then index_error(p, k, 0) end
    offset_along(p, 0, k, 0)  -- as in view_of
    return (methods.select(t, 1, k))
  end
  if type(k) == 'table' then
    local off = element_offset(p, k)
    if off then return (read(p, off)) end
    return (view_of(t, k))
  end
  if is_storage(k) then return (hooks.index(t, k:totable())) end
  if is_mask(k) then return (methods.maskedSelect(t, k)) end
  if is_tensor(k) then return (index_rows(t, k)) end
  if type(k) == 'boolean' then fail('index', 'cannot index a tensor with a boolean (%s)', tostring(k)) end  -- was nil
  return nil
end

-- Note [Assignments under autograd]: a raw element write (types.write) is invisible to autograd,
-- and the engine leaves a fill or copy into a view of a plain tensor unrecorded, so y[2] = 0 on a
-- y with history kept y's old gradient (1 where 0 was expected) and z[{{1, 2}}] = s dropped s's
-- gradient. When grad mode is on and t has history (needs grad, not a leaf) or the value is a
-- tensor that needs grad, the assignment is the recorded t:put_(positions, values) instead, the
-- positions being the 1-based flat indices that the same key selects from a LongTensor holding
-- 1..n in t's shape (as Note [Scatters through positions] in misc_scatter.lua). Leaves that need
-- grad keep Torch7's unrecorded writes (DESIGN: in-place updates of leaves are not recorded), and
-- a t that is a view of a tensor with history gets the engine's error from put_'s copy.
local function recorded(t, v)
  -- the flag tests first: Torch7 loops write elements one by one
  local needs = methods.needsGrad(t) and not methods.isLeaf(t) or is_tensor(v) and methods.needsGrad(v)
  return needs and torch.isGradEnabled()
end

-- The 1-based row-major position of the element that a table of numbers (one per dim, already
-- bounds-checked) names, or nil when k is not such a table.
local function element_position(p, k)
  if type(k) ~= 'table' or #k ~= p.ndim or p.ndim == 0 then return nil end
  local lin = 0
  for d = 0, p.ndim - 1 do
    local i, n = k[d + 1], tonumber(p.size[d])
    if type(i) ~= 'number' then return nil end
    lin = lin * n + (i < 0 and i + n or i - 1)
  end
  return lin + 1
end

-- t[k] = v as put_ at the positions the same key selects from a tensor of positions (k a number:
-- its row); an element's position is computed without the positions tensor (element loops stay
-- O(1) per write). No closures here or in newindex: a function creating one cannot be compiled
-- by LuaJIT, and every Torch7 element write went through it (8 ns became 500 ns).
local function recorded_assign(t, v, k)
  local p = t.p
  local lin = element_position(p, type(k) == 'number' and p.ndim == 1 and { k } or k)
  local where
  if lin then
    where = torch.LongTensor({ lin }):view(torch.LongStorage({}))
  else
    local pos = torch.arange(torch.LongTensor(), 1, methods.nElement(t) + 1):view(methods.size(t))
    where = type(k) == 'number' and methods.select(pos, 1, k) or view_of(pos, k)
  end
  if p.device_type ~= 0 then where = torch._to_device(where, methods.device(t)) end
  local src
  if type(v) == 'number' or type(v) == 'boolean' then
    src = lib.wrap(lib.C.tocha_tensor_empty(0, nil, p.dtype, p.device_type, p.device_index))
    methods.fill(src, v == true and 1 or v == false and 0 or v)
  elseif is_tensor(v) then
    src = v  -- copy moves a tensor across devices; put wants it on t's
    if v.p.device_type ~= p.device_type or v.p.device_index ~= p.device_index then
      src = torch._to_device(v, methods.device(t), 'newindex')
    end
  else
    fail('newindex', 'cannot assign a %s to a tensor slice; expected a number or a tensor', types.describe(v))
  end
  -- as copy: as many elements (row-major order), or src broadcast to the selected shape
  if methods.nElement(src) ~= methods.nElement(where) then
    local ok, e = pcall(methods.expand, src, methods.size(where))
    if not ok then
      fail('newindex', 'cannot assign a tensor of size %s to a selection of size %s', types.shape_str(src.p),
        types.shape_str(where.p))
    end
    src = e
  end
  methods.put_(t, where, src)
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
  if p ~= lib.FREED and (type(k) == 'number' or type(k) == 'table') and recorded(t, v) then
    if type(k) == 'number' then
      if p.ndim == 0 then index_error(p, k, 0) end
      offset_along(p, 0, k, 0)
    elseif element_offset(p, k) == nil then
      view_of(t, k)  -- the bounds and type checks, before any work
    end
    return (recorded_assign(t, v, k))
  end
  if type(k) == 'number' then
    if p.ndim == 1 and (type(v) == 'number' or type(v) == 'boolean') then
      return (write(p, offset_along(p, 0, k, tonumber(p.storage_offset)), v))
    end
    if p.ndim == 0 then index_error(p, k, 0) end
    offset_along(p, 0, k, 0)
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
  if is_tensor(k) then return (assign_rows(t, k, v)) end
  fail('newindex', 'cannot index a tensor with a %s', types.describe(k))
end

return torch
