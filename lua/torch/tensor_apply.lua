-- Torch7's Lua iteration over a tensor's elements: t:apply(f), t:map(u, f), t:map2(u, v, f), and
-- torch._each_offset (the row-major walk over storage offsets that gradcheck also uses).
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local fail = lib.fail
local methods = torch._tensor_methods

-- Calls f(offset) for each element of p in row-major order (offsets from the storage start).
local function each_offset(p, f)
  local nd = p.ndim
  if p.numel == 0 then return end
  if nd == 0 then f(tonumber(p.storage_offset)) return end
  local idx, sizes, strides = {}, {}, {}
  for d = 1, nd do idx[d] = 0 sizes[d] = tonumber(p.size[d - 1]) strides[d] = tonumber(p.stride[d - 1]) end
  local off = tonumber(p.storage_offset)
  while true do
    f(off)
    local d = nd
    while d >= 1 do
      idx[d] = idx[d] + 1
      off = off + strides[d]
      if idx[d] < sizes[d] then break end
      off = off - strides[d] * sizes[d]
      idx[d] = 0
      d = d - 1
    end
    if d == 0 then return end
  end
end
torch._each_offset = each_offset

-- f must be callable: a number or nil met inside the element loop failed as a raw "attempt to call".
local function require_function(op, f)
  local mt = type(f) ~= 'function' and getmetatable(f)
  if type(f) ~= 'function' and not (type(mt) == 'table' and mt.__call) then
    fail(op, 'expected a function, got %s', torch.typename(f) or type(f))
  end
end
local function require_cpu(op, t)
  if t.p.device_type ~= 0 then fail(op, 'needs a CPU tensor, got one on %s', methods.device(t)) end
end

-- f's result to write: a number or boolean; anything else was a bare FFI conversion error.
local function written(op, r, i)
  if type(r) == 'number' or type(r) == 'boolean' then return r end
  fail(op, 'the function returned a %s for element %d; expected a number or nil', type(r), i)
end
--- t:apply(f): f(x) for each element; a returned number replaces it.
--- Example: torch.Tensor({1, 2, 3}):apply(function(x) return x * x end)
function methods.apply(t, f)
  require_cpu('apply', t)
  require_function('apply', f)
  local p, i = t.p, 0
  each_offset(p, function(off)
    i = i + 1
    local r = f(types.read(p, off))
    if r ~= nil then types.write(p, off, written('apply', r, i)) end
  end)
  return t
end
--- t:map(u, f): t[i] = f(t[i], u[i]) (f returning nil keeps t[i]).
--- Example: torch.Tensor({1, 2}):map(torch.Tensor({10, 20}), function(a, b) return a + b end)
function methods.map(t, u, f)
  require_cpu('map', t)
  require_function('map', f)
  types.check_tensor('map', u, 1)
  if t:nElement() ~= u:nElement() then fail('map', 'tensors have %d and %d elements', t:nElement(), u:nElement()) end
  local p, q = t.p, u:contiguous().p
  local base, i = tonumber(q.storage_offset), 0
  each_offset(p, function(off)
    local r = f(types.read(p, off), types.read(q, base + i))
    i = i + 1
    if r ~= nil then types.write(p, off, written('map', r, i)) end
  end)
  return t
end
function methods.map2(t, u, v, f)
  require_cpu('map2', t)
  require_function('map2', f)
  types.check_tensor('map2', u, 1)
  types.check_tensor('map2', v, 2)
  if t:nElement() ~= u:nElement() or t:nElement() ~= v:nElement() then
    fail('map2', 'tensors have %d, %d and %d elements', t:nElement(), u:nElement(), v:nElement())
  end
  local p, q, r = t.p, u:contiguous().p, v:contiguous().p
  local bq, br, i = tonumber(q.storage_offset), tonumber(r.storage_offset), 0
  each_offset(p, function(off)
    local x = f(types.read(p, off), types.read(q, bq + i), types.read(r, br + i))
    i = i + 1
    if x ~= nil then types.write(p, off, written('map2', x, i)) end
  end)
  return t
end
