-- What every object format shares: classifying Lua values, a deterministic key order, field paths
-- for error messages ("model.modules[3].customFn"), nesting limits, and the class registry
-- (lookup by name, aliases and conversion hooks other modules fill: torch.serialization).
local ffi = require 'ffi'
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local is_tensor, is_storage = types.is_tensor, types.is_storage

local M = {}

-- Deeper nesting than this is refused (a corrupt or hostile file must not exhaust the stack).
M.MAX_DEPTH = 1000

local int64_t, uint64_t = ffi.typeof('int64_t'), ffi.typeof('uint64_t')

--- What a value is to the serializers: 'nil', 'number', 'string', 'boolean', 'table', 'class',
--- 'tensor', 'storage', 'int64', 'uint64', or nil plus a description of an unsaveable value.
function M.classify(v)
  local tv = type(v)
  if tv == 'number' or tv == 'string' or tv == 'boolean' or tv == 'nil' then return tv end
  if tv == 'table' then
    local name = torch.typename(v)
    if name and torch.getmetatable(name) then return 'class', name end
    return 'table'
  end
  if tv == 'cdata' then
    if is_tensor(v) then return 'tensor' end
    if is_storage(v) then return 'storage' end
    if ffi.istype(int64_t, v) then return 'int64' end
    if ffi.istype(uint64_t, v) then return 'uint64' end
    return nil, 'cdata value (' .. tostring(ffi.typeof(v)) .. ')'
  end
  return nil, tv
end

-- ---- key order ------------------------------------------------------------------------------

local rank = { number = 1, string = 2, boolean = 3 }

--- The keys of t in a stable order (array part first, then numbers, strings, booleans, others),
--- so that saving the same object twice gives the same bytes.
function M.sorted_keys(t)
  local keys, n = {}, 0
  for k in next, t do
    n = n + 1
    keys[n] = k
  end
  local array = true
  for i = 1, n do
    local k = keys[i]
    if type(k) ~= 'number' or k < 1 or k > n or k ~= math.floor(k) then array = false break end
  end
  if array then  -- n distinct integers in [1, n]: exactly 1..n
    for i = 1, n do keys[i] = i end
    return keys
  end
  local order = {}
  for i = 1, n do order[keys[i]] = i end
  table.sort(keys, function(a, b)
    local ra, rb = rank[type(a)] or 4, rank[type(b)] or 4
    if ra ~= rb then return ra < rb end
    if ra <= 2 then return a < b end
    if ra == 3 then return b and not a end
    return order[a] < order[b]
  end)
  return keys
end

-- ---- field paths ----------------------------------------------------------------------------

local function segment(k)
  local tk = type(k)
  if tk == 'string' then
    if k:match('^[%a_][%w_]*$') then return '.' .. k end
    return '[' .. string.format('%q', k):gsub('\\\n', '\\n') .. ']'
  elseif tk == 'number' then
    if k == math.floor(k) and math.abs(k) < 2 ^ 53 then return string.format('[%d]', k) end
    return '[' .. tostring(k) .. ']'
  elseif tk == 'boolean' then
    return '[' .. tostring(k) .. ']'
  end
  return '[<' .. torch.type(k) .. ' key>]'
end

--- "root.a[3].b" from a root name and a stack of keys.
function M.path_string(root, stack)
  local parts = { root }
  for i = 1, #stack do parts[#parts + 1] = segment(stack[i]) end
  return table.concat(parts)
end

--- The name of the caller's local variable holding `value` (the object given to torch.save), or
--- nil: error messages then read "model.modules[3].customFn" rather than "object...".
function M.root_name(value)
  local ok, name = pcall(function()
    local level = lib.user_level()
    for i = 1, 250 do
      local n, v = debug.getlocal(level, i)
      if not n then break end
      if rawequal(v, value) and n:match('^[%a_][%w_]*$') then return n end
    end
    local f = debug.getinfo(level, 'f').func
    for i = 1, 250 do
      local n, v = debug.getupvalue(f, i)
      if not n then break end
      if rawequal(v, value) then return n end
    end
  end)
  return ok and name or nil
end

-- ---- the class registry -----------------------------------------------------------------------

torch.serialization = torch.serialization or {}
local registry = torch.serialization
local aliases = {}
registry.classAliases = aliases

--- torch.serialization.registerClassAlias(name, target[, convert]): objects saved as class `name`
--- (in any format) load as class `target`; convert(obj, name, version, format), when given, runs
--- after the object's fields are read (format: 'tocha' or 't7') and may return a replacement object
--- (e.g. reshaping nn.SpatialConvolutionMM's weights into nn.SpatialConvolution's layout).
function registry.registerClassAlias(name, target, convert)
  if type(name) ~= 'string' or type(target) ~= 'string' then
    lib.fail('registerClassAlias', 'expected two class names (strings), got %s and %s', types.describe(name),
             types.describe(target))
  end
  if convert ~= nil and type(convert) ~= 'function' then
    lib.fail('registerClassAlias', 'convert must be a function, got %s', types.describe(convert))
  end
  aliases[name] = { target = target, convert = convert }
end

--- Removes an alias registered with registerClassAlias.
function registry.unregisterClassAlias(name) aliases[name] = nil end

local function is_tensor_type_name(name)
  return types.dtype_of_name[name] ~= nil or name:match('^torch%.%a*Storage$') ~= nil
    or name:match('^torch%.%a*Tensor$') ~= nil
end

-- Looks a method up the way Torch7's File.lua does: mt.__name or mt.name (parents included).
function M.class_method(mt, name)
  local f = mt['__' .. name]
  if type(f) ~= 'function' then f = mt[name] end
  return type(f) == 'function' and f or nil
end

--- An uninitialized instance of the class saved as `name` (after aliases), its metatable and the
--- alias's convert hook; nil plus a message when no such class is loaded.
function M.new_instance(name)
  local alias = aliases[name]
  local target = alias and alias.target or name
  if is_tensor_type_name(target) then
    return nil, string.format('unknown tensor type %s', target)
  end
  local mt = torch.getmetatable(target)
  if not mt then
    -- A class in a namespace that loads on first use (nn.models.ResNet: Note [Lazy namespaces]):
    -- walking the name through the loaded globals loads it. Nothing outside those lists is required.
    local t = _G
    local parts = {}
    for part in target:gmatch('[^%.]+') do parts[#parts + 1] = part end
    for i = 1, #parts - 1 do
      if type(t) ~= 'table' then break end
      local ok, v = pcall(function() return t[parts[i]] end)
      t = ok and v or nil
    end
    mt = torch.getmetatable(target)
  end
  if not mt then
    local module = target:match('^([%w_]+)%.')
    local hint = module and module ~= 'torch' and string.format(" (require '%s' before loading)", module) or ''
    if alias then hint = string.format(' (%s is an alias of %s)%s', name, target, hint) end
    return nil, string.format('unknown class %s%s', target, hint)
  end
  local obj = torch.factory(target)()
  return obj, mt, alias and alias.convert
end

-- Note [Errors in class hooks]: a class's read method, alias conversion and afterLoad hook run on
-- what the file holds; on a corrupt or foreign file they can fail with a bare Lua error ("bad
-- argument #1 to 'ipairs'" from nn.Container's afterLoad when `modules` is missing) that names
-- neither the file nor the class. Such errors are re-raised through the reader's fail function,
-- which names the operation and the file; errors the reader itself raised (from a nested
-- readObject: they hold its "[op] " prefix) pass through unchanged.
--- Runs f(...) for class `class`'s hook `what`; a failure is re-raised through fail(msg) unless
--- its message already holds `prefix` (the reader's "[op] ").
function M.run_hook(fail, prefix, class, what, f, ...)
  local ok, err = pcall(f, ...)
  if ok then return err end
  if type(err) == 'string' and err:find(prefix, 1, true) then error(err, 0) end
  fail(string.format('the %s hook of class %s failed (the file is corrupt or from an incompatible version): %s',
                     what, class, tostring(err)))
end

-- Note [After load]: a class may define afterLoad(self) to restore what the file does not hold
-- (nn modules re-link each parameter's .grad to its gradWeight and mark it as requiring grad).
-- It runs once the object and everything it holds are read, for every format.
--- Runs obj's afterLoad method if its class has one; returns obj. fail and prefix (optional) are
--- the reader's (Note [Errors in class hooks]).
function M.after_load(obj, fail, prefix)
  local name = torch.typename(obj)
  local mt = name and torch.getmetatable(name)
  local hook = mt and M.class_method(mt, 'afterLoad')
  if hook then
    if fail then M.run_hook(fail, prefix, name, 'afterLoad', hook, obj) else hook(obj) end
  end
  return obj
end

--- The version a class writes with its objects (Torch7's __version, default 1).
function M.class_version(mt)
  local v = rawget(mt, '__version')
  return type(v) == 'number' and v or 1
end

return M
