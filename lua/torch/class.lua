-- Torch7's class system: torch.class, typename/type, isTypeOf, factory and metatable lookup.
-- Classes are Lua tables; tensors and storages are FFI handles named by their dtype.
local ffi = require 'ffi'
local torch = require 'torch.env'
local lib = require 'torch.lib'

local metatables = {}     -- class name -> metatable
local constructors = {}   -- class name -> constructor table
torch._metatables = metatables

-- Installs `value` at a dotted name ("nn.Linear") inside `root` (default _G).
local function set_dotted(root, name, value)
  local parts = {}
  for p in name:gmatch('[^%.]+') do parts[#parts + 1] = p end
  local t = root
  for i = 1, #parts - 1 do
    t[parts[i]] = t[parts[i]] or {}
    t = t[parts[i]]
  end
  t[parts[#parts]] = value
end

local function metamethod_forwarders(mt, name)
  -- Lua looks metamethods up with rawget, so inherited __tostring__/__call__/__add__... are
  -- reached through these forwarders (luaT did the same in C).
  mt.__tostring = function(self)
    local f = self.__tostring__
    if f then return f(self) end
    return name
  end
  mt.__call = function(self, ...)
    local f = self.__call__
    if not f then error('attempt to call an object of class ' .. name, 2) end
    return f(self, ...)
  end
  for _, op in ipairs({ 'add', 'sub', 'mul', 'div', 'mod', 'pow', 'unm', 'concat', 'eq', 'lt', 'le' }) do
    mt['__' .. op] = function(a, b)
      local obj = (type(a) == 'table' and a['__' .. op .. '__']) and a or b
      local f = type(obj) == 'table' and obj['__' .. op .. '__']
      if not f then error('attempt to perform ' .. op .. ' on an object of class ' .. name, 2) end
      return f(a, b)
    end
  end
end

-- Note [__index__ and __newindex__]: luaT lets a class (or a parent) define __index__(self, key),
-- returning value, true when it handles the key, and __newindex__(self, key, value), returning true
-- when it stored the value. Classes that define neither keep a plain table __index (method lookup
-- stays a table chain); the hooks are installed on a class's metatable when an instance is made
-- (constructor, factory, torch.setmetatable) and the class has one by then.
local hooked = setmetatable({}, { __mode = 'k' })
local lua_classes = setmetatable({}, { __mode = 'k' })  -- metatables made by torch.class
local function install_hooks(mt)
  if hooked[mt] or not lua_classes[mt] or (mt.__index__ == nil and mt.__newindex__ == nil) then return end
  hooked[mt] = true
  mt.__index = function(self, k)
    local f = mt.__index__
    if f then
      local v, found = f(self, k)
      if found then return v end
    end
    return mt[k]
  end
  mt.__newindex = function(self, k, v)
    local f = mt.__newindex__
    if f and f(self, k, v) then return end
    rawset(self, k, v)
  end
end

--- torch.class(name[, parentName][, module]): defines a class; returns its metatable (where
--- methods go) and the parent's. Instances are created by calling the constructor at `name`.
--- Example: local M = {}  -- the table the constructor goes in (by default the global at name)
--- local Point = torch.getmetatable('example.Point') or torch.class('example.Point', M)
--- function Point:__init(x) self.x = x end
--- local p = torch.getconstructortable('example.Point')(3)
function torch.class(name, parent_name, module)
  if type(name) ~= 'string' then lib.fail('class', 'expected a class name (string), got %s', type(name)) end
  if type(parent_name) == 'table' and module == nil then module, parent_name = parent_name, nil end
  if metatables[name] then lib.fail('class', 'class %s already exists', name) end
  local parent
  if parent_name then
    parent = metatables[parent_name]
    if not parent then lib.fail('class', 'parent class %s of %s does not exist', parent_name, name) end
  end
  local mt = { __typename = name }
  mt.__index = mt
  lua_classes[mt] = true
  metamethod_forwarders(mt, name)
  if parent then
    -- Note [Class metatables]: as with luaT, getmetatable(mt) is the parent's metatable and
    -- getmetatable(Class) the class's metatable (Torch7 code walks classes that way); the raw
    -- metatables stay plain __index proxies, so the parent's operator forwarders never run on the
    -- method tables themselves (comparing two classes' metatables would call its __eq).
    setmetatable(mt, { __index = parent, __metatable = parent })
    mt.__parent = parent
  end
  local ctor = setmetatable({}, {
    __index = mt,
    __newindex = mt,
    __call = function(_, ...)
      if not hooked[mt] then install_hooks(mt) end
      local self = setmetatable({}, mt)
      local init = self.__init
      if init then init(self, ...) end
      return self
    end,
    __tostring = function() return name end,
    __metatable = mt,
  })
  metatables[name] = mt
  constructors[name] = ctor
  if module then
    set_dotted(module, name:match('([^%.]+)$'), ctor)
  else
    set_dotted(_G, name, ctor)
  end
  return mt, parent
end

--- Registers an externally built metatable under a class name (tensor and storage types use it).
function torch._register_metatable(name, mt, ctor)
  metatables[name] = mt
  constructors[name] = ctor
end

--- torch.getmetatable(name): the metatable of the class called name (where its methods live), e.g.
--- 'torch.Timer' or 'torch.FloatTensor', or nil when no such class exists.
--- Example: torch.getmetatable('torch.Timer')
function torch.getmetatable(name) return metatables[name] end
--- torch.getconstructortable(name): the constructor table of the class called name (the value
--- that is called to make an instance, e.g. torch.Timer), or nil when no such class exists.
--- Example: torch.getconstructortable('torch.Timer') == torch.Timer
function torch.getconstructortable(name) return constructors[name] end
--- torch.setmetatable(obj, name): makes the table obj an instance of the class called name (its
--- constructor is not run) and returns obj; an unknown class is an error.
--- Example: torch.typename(torch.setmetatable({}, 'torch.Timer'))
function torch.setmetatable(obj, name)
  local mt = metatables[name]
  if not mt then lib.fail('setmetatable', 'unknown class %s', tostring(name)) end
  install_hooks(mt)
  return setmetatable(obj, mt)
end
--- A function creating an uninitialized instance of a class (deserialization uses it): an empty
--- object of a torch.class class (its __init is not run), an empty tensor or storage of a tensor
--- or storage type; nil for an unknown name.
--- Example: torch.typename(torch.factory('torch.Timer')())
function torch.factory(name)
  local mt = metatables[name]
  if not mt then return nil end
  if constructors[name] and rawget(mt, '__factory') then return rawget(mt, '__factory') end
  local ctor = constructors[name]
  if not lua_classes[mt] and ctor then
    -- tensor and storage types are FFI handles: an empty one, not a table with their methods
    return function() return ctor() end
  end
  return function()
    if not hooked[mt] then install_hooks(mt) end
    return setmetatable({}, mt)
  end
end

--- Class name of a torch object (tensor, storage, class instance) or nil.
--- Example: torch.typename(torch.ones(2))
function torch.typename(obj)
  local t = type(obj)
  if t == 'cdata' then
    local f = torch._cdata_typename
    return f and f(obj) or nil
  elseif t == 'table' then
    -- the raw metatable: a constructor's __metatable is its class's (Note [Class metatables]),
    -- but a constructor is no instance (luaT: torch.typename(nn.Linear) is nil)
    local mt = debug.getmetatable(obj)
    return mt and rawget(mt, '__typename') or nil
  end
  return nil
end

--- torch.typename(obj) or Lua's type(obj).
--- Example: torch.type(torch.ones(2)), torch.type(42)
function torch.type(obj)
  return torch.typename(obj) or type(obj)
end

-- Note [isTypeOf names]: as in Torch7, a string spec that is a plain name must be the whole class
-- name ('nn.Transformer' is not an nn.TransformerEncoder, 'torch.distributions.Transform' not a
-- TransformedDistribution: a substring matched, so wrong objects passed the checks built on it),
-- while a pattern that matches something other than itself ('torch.*Tensor', 'Conv%d') counts
-- wherever it matches. Tocha also accepts the name without its package ('Linear' for nn.Linear).
local function name_matches(name, spec)
  local m = name:match(spec)
  if m == nil then return false end
  if m ~= spec or m == name then return true end
  return name:match('([^%.]+)$') == spec
end

--- Whether obj's class (or one of its parents) is spec: a class name, a pattern over class names
--- (Note [isTypeOf names]) or a constructor.
--- Example: torch.isTypeOf(nn.Linear(2, 2), 'nn.Module')
function torch.isTypeOf(obj, spec)
  local name = torch.typename(obj)
  if type(spec) ~= 'string' and type(spec) ~= 'table' then
    lib.fail('isTypeOf', 'expected a class name, a pattern or a constructor, got %s', type(spec))
  end
  if not name then return false end
  if type(spec) == 'table' then
    if type(obj) ~= 'table' then
      -- Tensors and storages are FFI handles (getmetatable gives the string 'ffi'): their class is
      -- the constructor registered under their type name (torch.isTypeOf(x, torch.FloatTensor)).
      return constructors[name] == spec
    end
    -- getmetatable(Class) is the class's metatable (Note [Class metatables])
    local target = getmetatable(spec)
    if type(target) == 'table' and not rawget(target, '__typename') then target = rawget(target, '__index') end
    local mt = debug.getmetatable(obj)
    while mt do
      if mt == target then return true end
      mt = rawget(mt, '__parent')
    end
    return false
  end
  local mt = metatables[name]
  while mt do
    local n = rawget(mt, '__typename')
    if n and name_matches(n, spec) then return true end
    mt = rawget(mt, '__parent')
  end
  return name_matches(name, spec)
end

--- A number identifying an object: a tensor's or storage's C address, the address of a table,
--- function, thread, userdata, string or other cdata. Other values (numbers, booleans, nil) are
--- an error, as in Torch7.
--- Example: torch.pointer(torch.ones(2))
function torch.pointer(obj)
  local t = type(obj)
  if t == 'cdata' then
    if torch.isTensor(obj) or torch.isStorage(obj) then
      -- A storage is identified by the storage itself (every s = t:storage() handle agrees).
      if torch.isStorage(obj) and obj.p.storage ~= nil then return tonumber(ffi.cast('intptr_t', obj.p.storage)) end
      if obj.p ~= nil then return tonumber(ffi.cast('intptr_t', obj.p)) end
    end
    -- Any other cdata: its own address (reading a field 'p' failed on arrays, and gave the
    -- value of a struct's field p).
    local ok, v = pcall(ffi.cast, 'intptr_t', ffi.cast('const void *', obj))
    if ok then return tonumber(v) end
  elseif t == 'string' then
    return tonumber(ffi.cast('intptr_t', ffi.cast('const char *', obj)))
  elseif t ~= 'table' and t ~= 'function' and t ~= 'thread' and t ~= 'userdata' then
    lib.fail('pointer', 'expected a torch object, table, function, thread, userdata, string or cdata, got %s', t)
  end
  -- LuaJIT's '%p' is the object's address even when a __tostring hides it (tostring(obj) was
  -- parsed, so every class instance, with its torch.class __tostring, gave nil) and for builtins.
  return tonumber((string.format('%p', obj)))
end

--- torch.isequal(a, b): true when a and b are the same Lua value (rawequal: no __eq metamethod
--- runs, so two distinct tensors with equal contents are not equal).
--- Example: torch.isequal(torch.Timer, torch.Timer)
function torch.isequal(a, b) return rawequal(a, b) end

return torch
