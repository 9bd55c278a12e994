-- Torch7's object stream (File.lua's writeObject/readObject) on torch.File: .t7 files in binary
-- and ascii, references and cycles included. Serialized functions (bytecode) are refused unless
-- the file allows code (torch.load's {allowCode=true}).

-- Tags: 0 nil, 1 number, 2 string, 3 table, 4 torch object, 5 boolean, 6/7/8 functions. Tables,
-- torch objects and functions (7, 8) carry an index, so shared objects are written once.
local ffi = require 'ffi'
local torch = require 'torch.env'
local lib = require 'torch.lib'
local common = require 'torch.serialize_common'
local T = require 'torch.t7_tensor'
local File = require 'torch.file'

local TNIL, TNUMBER, TSTRING, TTABLE, TTORCH, TBOOLEAN = 0, 1, 2, 3, 4, 5
local TFUNCTION, TLEGACY_RECUR, TRECUR = 6, 7, 8

local PENDING = {}
local intptr_t = ffi.typeof('intptr_t')
local function address(p) return tonumber(ffi.cast(intptr_t, p)) end

-- Object tables live as long as the file, so references work across writeObject calls (Torch7).
local function wenv(self)
  local e = rawget(self, '_wenv')
  if not e then
    e = { index = {}, n = 0, alive = {}, keys = {}, depth = 0 }
    rawset(self, '_wenv', e)
  end
  return e
end
local function renv(self)
  local e = rawget(self, '_renv')
  if not e then
    e = { objects = {}, keys = {}, depth = 0 }
    rawset(self, '_renv', e)
  end
  return e
end

local function fail(self, e, root, fmt, ...)
  local msg = string.format(fmt, ...)
  if #e.keys > 0 then msg = msg .. ' (at ' .. common.path_string(root, e.keys) .. ')' end
  self._stream:fail('%s', msg)
end

-- ---- writing -------------------------------------------------------------------------------------

-- "model.modules[3]": where the writer is, named after the caller's variable (found on error only).
local function where(e)
  return common.path_string(common.root_name(e.root) or 'object', e.keys)
end

local function write_function(self, e, f)
  local ok, dumped = pcall(string.dump, f)
  if not ok then self._stream:fail('cannot save a C function at %s', where(e)) end
  self:writeInt(#dumped)
  self:_writeBytes(dumped)
  local upvalues = {}
  for i = 1, math.huge do
    local name, value = debug.getupvalue(f, i)
    if not name then break end
    upvalues[i] = { name = name, value = value }
  end
  self:writeObject(upvalues)
end

-- The identity of a referenced value: the table itself, or a tensor's or storage's address.
local function identity(obj, kind)
  if kind == 'tensor' then return 'T' .. address(obj.p) end
  if kind == 'storage' then
    local p = obj.p
    return 'S' .. address(p.storage) .. ':' .. tonumber(p.storage_offset) .. ':' .. tonumber(p.numel)
  end
  return obj
end

local function write_torch_object(self, e, obj, kind, name)
  -- A freed tensor reads as empty: it was written as an empty tensor without a word.
  if kind == 'tensor' and obj.p == lib.FREED then self._stream:fail('cannot save a freed tensor at %s', where(e)) end
  if kind == 'tensor' then name = T.write_name(obj.p.dtype, 'Tensor')
  elseif kind == 'storage' then name = T.write_name(obj.p.dtype, 'Storage') end
  local version = 'V 1'
  local mt = kind == 'class' and torch.getmetatable(name)
  if mt then version = 'V ' .. common.class_version(mt) end
  self:writeInt(#version)
  self:_writeBytes(version)
  self:writeInt(#name)
  self:_writeBytes(name)
  if kind == 'tensor' then
    T.write_tensor(self, obj, function(t) return t:storage() end)
  elseif kind == 'storage' then
    T.write_storage(self, obj)
  else
    local write = common.class_method(mt, 'write')
    if write then
      write(obj, self)
    else
      local var = {}  -- Torch7 writes the fields as a table of their own
      for k, v in next, obj do var[k] = v end
      self:writeObject(var)
    end
  end
end

local write_value

local function write_body(self, e, obj, kind, name, tag)
  if tag == TRECUR then
    write_function(self, e, obj)
  elseif tag == TTORCH then
    write_torch_object(self, e, obj, kind, name)
  else
    local keys = common.sorted_keys(obj)
    self:writeInt(#keys)
    local d = #e.keys + 1
    for i = 1, #keys do
      local k = keys[i]
      write_value(self, e, k)
      e.keys[d] = k
      write_value(self, e, rawget(obj, k))
      e.keys[d] = nil
    end
  end
end

write_value = function(self, e, obj)
  local kind, name = common.classify(obj)
  if kind == 'nil' then return self:writeInt(TNIL) end
  if kind == 'number' then self:writeInt(TNUMBER) return self:writeDouble(obj) end
  if kind == 'int64' or kind == 'uint64' then self:writeInt(TNUMBER) return self:writeDouble(tonumber(obj)) end
  if kind == 'boolean' then self:writeInt(TBOOLEAN) return self:writeInt(obj and 1 or 0) end
  if kind == 'string' then
    if #obj >= 2 ^ 31 then self._stream:fail('a string of %d bytes at %s is too long for a .t7 file', #obj, where(e)) end
    self:writeInt(TSTRING)
    self:writeInt(#obj)
    return self:_writeBytes(obj)
  end
  local tag
  if kind == 'table' then tag = TTABLE
  elseif kind == 'class' or kind == 'tensor' or kind == 'storage' then tag = TTORCH
  elseif name == 'function' and self._allowCode then tag = TRECUR
  elseif name == 'function' then
    self._stream:fail('cannot save a function at %s: checkpoints hold data, not code', where(e))
  else
    self._stream:fail('cannot save a %s at %s', name, where(e))
  end
  self:writeInt(tag)
  local id = identity(obj, kind)
  local index = self._referenced and e.index[id]
  if index then return self:writeInt(index) end
  index = e.n + 1
  e.n = index
  if self._referenced then
    e.index[id] = index
    e.alive[#e.alive + 1] = obj  -- keeps addresses from being reused while the file is open
  end
  self:writeInt(index)
  e.depth = e.depth + 1
  if e.depth > common.MAX_DEPTH then
    self._stream:fail('objects nested more than %d levels deep at %s (a cycle written with referenced(false)?)',
                      common.MAX_DEPTH, where(e))
  end
  write_body(self, e, obj, kind, name, tag)
  e.depth = e.depth - 1
end

--- file:writeObject(obj) writes any saveable value in Torch7's object format.
function File:writeObject(obj)
  local e = wenv(self)
  if e.depth > 0 then return write_value(self, e, obj) end  -- from a class's write method
  e.keys, e.root = {}, obj
  local ok, err = pcall(write_value, self, e, obj)
  e.depth, e.root = 0, nil
  if not ok then error(err, 0) end
end

-- ---- reading -------------------------------------------------------------------------------------

local function read_function(self, e, tag, index)
  if not self._allowCode then
    fail(self, e, 'object', 'the file contains a serialized function (Lua bytecode); loading it would run code '
         .. 'from the file. Pass {allowCode=true} to torch.load if you trust it')
  end
  local dumped = self:_readBytes(self:readInt())
  local f, err = loadstring(dumped)
  if not f then fail(self, e, 'object', 'cannot load a serialized function: %s', tostring(err)) end
  if index then e.objects[index] = f end
  local upvalues = self:readObject()
  if type(upvalues) ~= 'table' then fail(self, e, 'object', 'corrupt function upvalues') end
  for i, up in ipairs(upvalues) do
    if tag == TRECUR then
      if type(up) == 'table' and up.name ~= '_ENV' then debug.setupvalue(f, i, up.value) end
    else
      debug.setupvalue(f, i, up)
    end
  end
  return f
end

local function read_torch_object(self, e, index)
  local version = self:_readBytes(self:readInt())
  local vnum = tonumber(version:match('^V (.*)$'))
  local name = version
  if vnum then name = self:_readBytes(self:readInt()) else vnum = 0 end
  local info, what, suffix = T.parse_name(name)
  if info then
    local obj = what == 'Tensor' and T.read_tensor(self, info) or T.read_storage(self, info, suffix)
    e.objects[index] = obj
    return obj
  end
  local obj, mt, convert = common.new_instance(name)
  if not obj then fail(self, e, 'object', '%s', mt) end
  e.objects[index] = obj
  -- Hooks run on the file's data: their errors name the file (Note [Errors in class hooks]).
  local st = self._stream
  local prefix = '[' .. st.op .. '] '
  local function hook_fail(msg) fail(self, e, 'object', '%s', msg) end
  local read = common.class_method(mt, 'read')
  if read then
    common.run_hook(hook_fail, prefix, name, 'read', read, obj, self, vnum)
  else
    local fields = self:readObject()
    if type(fields) ~= 'table' then fail(self, e, 'object', 'the fields of a %s are a %s: the file is corrupt', name, type(fields)) end
    for k, v in next, fields do rawset(obj, k, v) end
  end
  if convert then
    local replaced = common.run_hook(hook_fail, prefix, name, 'alias conversion', convert, obj, name, vnum, 't7')
    if replaced ~= nil then obj = replaced end
    e.objects[index] = obj
  end
  return common.after_load(obj, hook_fail, prefix)
end

local function read_value(self, e)
  local st = self:_s()
  local tag = self:readInt()
  if tag == TNIL then return nil end
  if tag == TNUMBER then return self:readDouble() end
  if tag == TBOOLEAN then return self:readInt() == 1 end
  if tag == TSTRING then return self:_readBytes(self:readInt()) end
  if tag == TFUNCTION then return read_function(self, e, tag, nil) end
  if tag ~= TTABLE and tag ~= TTORCH and tag ~= TLEGACY_RECUR and tag ~= TRECUR then
    fail(self, e, 'object', 'unknown object type %d at byte %d: the file is corrupt or not a Torch7 file', tag, st:tell())
  end
  local index = self:readInt()
  local known = e.objects[index]
  if known == PENDING then fail(self, e, 'object', 'a reference to an object that is still being read: corrupt file') end
  if known ~= nil and self._referenced then return known end
  e.depth = e.depth + 1
  if e.depth > common.MAX_DEPTH then fail(self, e, 'object', 'objects nested more than %d levels deep', common.MAX_DEPTH) end
  local obj
  if tag == TTABLE then
    local size = self:readInt()
    if size < 0 or size > st:size() - st:tell() then
      fail(self, e, 'object', 'a table of %d entries does not fit in the file: corrupt or truncated', size)
    end
    obj = {}
    e.objects[index] = obj
    local d = #e.keys + 1
    for _ = 1, size do
      local k = self:readObject()
      if k == nil or k ~= k then fail(self, e, 'object', 'a table key is nil or NaN: the file is corrupt') end
      e.keys[d] = k
      rawset(obj, k, self:readObject())
      e.keys[d] = nil
    end
  elseif tag == TTORCH then
    e.objects[index] = PENDING
    obj = read_torch_object(self, e, index)
  else
    obj = read_function(self, e, tag, index)
  end
  e.depth = e.depth - 1
  return obj
end

--- file:readObject() reads one value written by writeObject (Torch7's object format).
function File:readObject()
  local e = renv(self)
  if e.depth > 0 then return read_value(self, e) end  -- from a class's read method
  e.keys = {}
  local ok, v = pcall(read_value, self, e)
  e.depth = 0
  if not ok then error(v, 0) end
  return v
end

-- ---- entry points ------------------------------------------------------------------------------------

local M = {}

--- Writes obj to a stream as a .t7 object; opts: ascii, referenced, allowCode.
function M.write(stream, obj, opts)
  local f = File._wrap(stream)
  if not opts.ascii then f:binary() end
  f:referenced(opts.referenced ~= false)
  if opts.allowCode then f:allowCode(true) end
  f:writeObject(obj)
end

--- Reads one .t7 object from a stream; opts: ascii, longSize, referenced, allowCode.
function M.read(stream, opts)
  local f = File._wrap(stream)
  if not opts.ascii then f:binary() end
  if opts.longSize then f._longsize = opts.longSize end
  f:referenced(opts.referenced ~= false)
  if opts.allowCode then f:allowCode(true) end
  return f:readObject()
end

return M
