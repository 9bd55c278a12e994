-- Lua side of the embedding API (bindings/capi_embed.cpp): tensors cross the boundary as
-- addresses of tocha_tensor objects (plain Lua numbers: user-space addresses fit in 53 bits),
-- and functions are found by dotted global names.
local ffi = require 'ffi'
local lib = require 'torch.lib'
local C = lib.C

local M = {}

-- This state's autograd callback owner (Note [Callback owners]); the C side sets it as the
-- thread's current owner on every call and clears it when the interpreter closes.
M.owner = torch.autograd._owner

-- A Lua tensor for the tensor at `address`; takes its own reference.
function M.tensor(address)
  local p = ffi.cast('tocha_tensor *', address)
  C.tocha_tensor_retain(p)
  return lib.wrap(p)
end

-- The address of t's tensor object (the caller takes a reference before the handle can die).
function M.address(t)
  if t.p == lib.FREED then error('the tensor was freed (t:free())', 0) end
  return tonumber(ffi.cast('uintptr_t', t.p))
end

-- Note [Dotted names]: a name with an empty part ("", "x.", "a..b", ".x") is an error: it was
-- read as another name (get_global("") gave _G, call("m.") called m, "a..b" meant a.b) or set a
-- global with a dot in its name (set_global("y.") made _G["y."]).
local function check_name(name)
  if type(name) ~= 'string' or name == '' or name:find('^%.') or name:find('%.$') or name:find('%.%.') then
    error('[embed] bad global name ' .. string.format('%q', tostring(name))
      .. ' (expected a name or a dotted path such as "model.predict")', 0)
  end
end

-- The value at a dotted global name ("model.predict"), or nil and the missing part.
function M.resolve(name)
  check_name(name)
  local v = _G
  for part in name:gmatch('[^.]+') do
    if type(v) ~= 'table' and type(v) ~= 'userdata' and type(v) ~= 'cdata' then return nil, part end
    v = v[part]
    if v == nil then return nil, part end
  end
  return v
end

-- Sets a dotted global name, creating no intermediate tables (their absence is an error).
function M.assign(name, value)
  check_name(name)
  local head, last = name:match('^(.*)%.([^.]+)$')
  if not head then
    _G[name] = value
    return
  end
  local t, missing = M.resolve(head)
  if t == nil then error('[embed] cannot set ' .. name .. ': ' .. (missing or head) .. ' is nil', 0) end
  if type(t) ~= 'table' then error('[embed] cannot set ' .. name .. ': ' .. head .. ' is a ' .. type(t) .. ', not a table', 0) end
  t[last] = value
end

return M
