-- Moving Lua values between the main state and data-loader worker states (each its own
-- lua_State on its own thread): datasets and transforms go to the workers, batches come back.
-- Tensors travel by reference (a list handed to C), never copied. See Note [Shipping datasets].
local torch = require 'torch'

local transfer = {}

-- Note [Shipping datasets]: a worker state must rebuild the dataset, its transforms and the
-- collate function. torch.serialize refuses functions (loading a file never runs code, DESIGN.md
-- decision 11) and copies tensor data, so the loader uses this codec instead, which only ever
-- talks to states of the same process:
--  * tensors go by reference (the C side retains them; workers share the dataset's memory);
--  * storages (torch.FloatStorage...) too, as a tensor over their memory;
--  * Lua functions go as bytecode (string.dump) plus their upvalues, encoded recursively, with
--    shared upvalues kept shared; globals they read are the worker's globals;
--  * loaded modules (package.loaded) and the functions they export go by name and are
--    require'd in the worker, so a transform that captured `torch` or `data` gets the worker's;
--  * torch.class objects go as their class name and fields; the worker requires the modules
--    that define the class (found in the main state) before building the object. A class
--    defined in the main script itself cannot be rebuilt: define it in a module, or give the
--    loader a constructor spec {module=, args=} (data.DataLoader).
-- C functions that no module exports, coroutines, userdata and cdata other than tensors are
-- refused with the path of the offending field.

local ffi = require 'ffi'
local is_tensor = torch.isTensor
local is_storage = require('torch.types').is_storage

-- ---- names of known values (modules and their exported functions) ------------------------------

local known, known_stamp = nil, -1

local function loaded_count()
  local n = 0
  for _ in pairs(package.loaded) do n = n + 1 end
  return n
end

-- value -> { kind, module[, key] }, for every loaded module table and its function and table fields.
local function known_values()
  local stamp = loaded_count()
  if known and stamp == known_stamp then return known end
  known, known_stamp = {}, stamp
  local names = {}
  for name, mod in pairs(package.loaded) do
    if type(name) == 'string' and type(mod) == 'table' then names[#names + 1] = name end
  end
  table.sort(names, function(a, b) return #a < #b or (#a == #b and a < b) end)  -- shortest name wins
  for _, name in ipairs(names) do
    local mod = package.loaded[name]
    if not known[mod] then known[mod] = { 'M', name } end
    -- User globals live in _G too and do not exist in a worker: only _G's C functions (print,
    -- pairs...) go by name; Lua functions and tables there are sent by value.
    local globals = name == '_G'
    for k, v in pairs(mod) do
      local t = type(v)
      if type(k) == 'string' and not known[v] and (t == 'function' or (t == 'table' and not globals))
          and not (globals and t == 'function' and pcall(string.dump, v)) then
        known[v] = { 'G', name, k }
      end
    end
  end
  return known
end

-- Modules a worker must require to know the class `name`: its dotted prefixes that are loaded
-- modules, and any loaded module that holds the constructor.
local function class_modules(name)
  local list, seen = {}, {}
  local function add(m) if not seen[m] then seen[m] = true list[#list + 1] = m end end
  local prefix = name
  while true do
    prefix = prefix:match('^(.*)%.[^.]*$')
    if not prefix then break end
    if package.loaded[prefix] then add(prefix) end
  end
  local ctor = torch.getconstructortable(name)
  for mod_name, mod in pairs(package.loaded) do
    if type(mod) == 'table' and type(mod_name) == 'string' and mod_name ~= '_G' then
      for _, v in pairs(mod) do
        if rawequal(v, ctor) then add(mod_name) break end
      end
    end
  end
  table.sort(list)
  return list
end

-- ---- encoding ----------------------------------------------------------------------------------

-- The class name when t is a torch.class constructor table.
local function constructor_name(t)
  local cmt = debug.getmetatable(t)
  local idx = type(cmt) == 'table' and rawget(cmt, '__index')
  local name = type(idx) == 'table' and rawget(idx, '__typename')
  return name and rawequal(torch.getconstructortable(name), t) and name or nil
end

local function number_text(x)
  if x ~= x then return 'nan' end
  if x == math.huge then return 'inf' end
  if x == -math.huge then return '-inf' end
  return string.format('%.17g', x)
end

local Encoder = {}
Encoder.__index = Encoder

function Encoder:fail(path, what)
  error(string.format('[DataLoader] cannot send %s %s (at %s)', what,
    self.from and 'from a worker state to the main state' or 'to a worker state', path), 0)
end

function Encoder:str(s)
  local out = self.out
  out[#out + 1] = #s
  out[#out + 1] = ':'
  out[#out + 1] = s
end

function Encoder:value(v, path)
  local out, t = self.out, type(v)
  if t == 'nil' then out[#out + 1] = 'N'
  elseif t == 'boolean' then out[#out + 1] = v and 'T' or 'F'
  elseif t == 'number' then out[#out + 1] = 'n' .. number_text(v) .. ';'
  elseif t == 'string' then out[#out + 1] = 's' self:str(v)
  elseif t == 'cdata' then
    -- A storage (torch.FloatStorage...) goes as a tensor over its memory ('y'): shared too.
    local storage = is_storage(v)
    if not storage and not is_tensor(v) then self:fail(path, 'a cdata value (' .. tostring(ffi.typeof(v)) .. ')') end
    local id = self.tensor_ids[v]
    if not id then
      id = #self.tensors + 1
      self.tensors[id] = storage and torch._tensor_of_storage(v) or v
      self.tensor_ids[v] = id
    end
    out[#out + 1] = (storage and 'y' or 'x') .. id .. ';'
  elseif t == 'table' or t == 'function' then
    local ref = self.seen[v]
    if ref then out[#out + 1] = 'r' .. ref .. ';' return end
    local name = self.known[v]
    if name then
      out[#out + 1] = name[1]
      self:str(name[2])
      if name[3] then self:str(name[3]) end
      return
    end
    local cls = t == 'table' and constructor_name(v)
    if cls then  -- a class's constructor table itself (data.TensorDataset...)
      out[#out + 1] = 'k'
      self:str(cls)
      return
    end
    self.nrefs = self.nrefs + 1
    self.seen[v] = self.nrefs
    if t == 'table' then self:table(v, path) else self:func(v, path) end
  else
    self:fail(path, 'a ' .. t)
  end
end

function Encoder:table(v, path)
  local out = self.out
  local mt = debug.getmetatable(v)  -- the real one: a __metatable field hides it from getmetatable
  local cls = mt and rawget(mt, '__typename')
  if cls and torch.getmetatable(cls) == mt then
    out[#out + 1] = 'c'
    self:str(cls)
    local mods = class_modules(cls)
    out[#out + 1] = #mods .. ';'
    for _, m in ipairs(mods) do self:str(m) end
  elseif mt then
    out[#out + 1] = 'm'
    self:value(mt, path .. '<metatable>')
  else
    out[#out + 1] = 't'
  end
  for k, x in pairs(v) do
    local kt = type(k)
    if kt ~= 'string' and kt ~= 'number' and kt ~= 'boolean' then
      self:fail(path, 'a table key of type ' .. kt)
    end
    self:value(k, path)
    self:value(x, path .. (kt == 'string' and ('.' .. k) or ('[' .. tostring(k) .. ']')))
  end
  out[#out + 1] = 'E'
end

function Encoder:func(f, path)
  local ok, code = pcall(string.dump, f)
  if not ok then self:fail(path, 'a C function that no loaded module exports') end
  local out = self.out
  out[#out + 1] = 'f'
  self:str(code)
  local n = 0
  while debug.getupvalue(f, n + 1) ~= nil do n = n + 1 end
  out[#out + 1] = n .. ';'
  for i = 1, n do
    local name, v = debug.getupvalue(f, i)
    local id = debug.upvalueid(f, i)
    local first = self.upvalues[id]
    if first then
      out[#out + 1] = 'U' .. first[1] .. ',' .. first[2] .. ';'
    else
      self.upvalues[id] = { self.seen[f], i }
      out[#out + 1] = 'u'
      self:value(v, path .. ' (upvalue ' .. name .. ')')
    end
  end
  -- Note [Function environments]: a function whose environment is not the globals table (setfenv,
  -- or a Lua 5.1 module(...) file's local functions) read its free names from that table; sent
  -- without it, the worker's globals answered nil for them. The environment goes along ('e'),
  -- unless the sender asks for the receiver's globals (threads: Torch7 jobs read the thread's).
  local env = getfenv(f)
  if rawequal(env, _G) or self.globals then
    out[#out + 1] = 'g'
  else
    out[#out + 1] = 'e'
    self:value(env, path .. ' (environment)')
  end
end

--- transfer.encode(value[, root[, direction]]): a string and the list of tensors it refers to, for
--- transfer.decode in another state of this process. root names the value in error messages;
--- direction is 'from' when a worker state sends it back (the messages say so), else 'to'.
--- opts.globals = true: every function runs with the receiving state's globals as environment.
function transfer.encode(value, root, direction, opts)
  local e = setmetatable({ out = {}, tensors = {}, tensor_ids = {}, seen = {}, nrefs = 0, upvalues = {},
                           known = known_values(), from = direction == 'from',
                           globals = opts ~= nil and opts.globals == true }, Encoder)
  e:value(value, root or 'value')
  return table.concat(e.out), e.tensors
end

-- ---- decoding ----------------------------------------------------------------------------------

local Decoder = {}
Decoder.__index = Decoder

function Decoder:fail(msg)
  error('[DataLoader] bad transfer data at byte ' .. self.pos .. ': ' .. msg, 0)
end

function Decoder:until_char(c)
  local j = self.s:find(c, self.pos, true)
  if not j then self:fail('missing ' .. c) end
  local text = self.s:sub(self.pos, j - 1)
  self.pos = j + 1
  return text
end

function Decoder:int(c) return tonumber(self:until_char(c or ';')) end

function Decoder:str()
  local n = self:int(':')
  local s = self.s:sub(self.pos, self.pos + n - 1)
  self.pos = self.pos + n
  return s
end

local special = { nan = 0 / 0, inf = math.huge, ['-inf'] = -math.huge }

local function require_module(name)
  local ok, m = pcall(require, name)
  if not ok then error('[DataLoader] a worker state cannot require ' .. name .. ': ' .. tostring(m), 0) end
  return m
end

function Decoder:value()
  local tag = self.s:sub(self.pos, self.pos)
  self.pos = self.pos + 1
  if tag == 'N' then return nil
  elseif tag == 'T' then return true
  elseif tag == 'F' then return false
  elseif tag == 'n' then
    local text = self:until_char(';')
    return special[text] or tonumber(text)
  elseif tag == 's' then return self:str()
  elseif tag == 'x' or tag == 'y' then
    local t = self.tensors[self:int()]
    if t == nil then self:fail('unknown tensor') end
    if tag == 'x' then return t end
    -- One storage handle per storage sent, as the sender had.
    self.storages = self.storages or {}
    self.storages[t] = self.storages[t] or torch._storage_of(t)
    return self.storages[t]
  elseif tag == 'r' then return self.refs[self:int()]
  elseif tag == 'M' then return require_module(self:str())
  elseif tag == 'G' then
    -- Note [Module fields set at run time]: a function or table found in a loaded module goes by
    -- name; a field the main state added at run time (data.myCollate = function ... end in a
    -- script) is not in the module the receiving state requires: an error, where nil silently
    -- meant "no collate" (the default one) or a missing transform.
    local m, k = self:str(), self:str()
    local v = require_module(m)[k]
    if v == nil then
      error(string.format('[DataLoader] %s.%s is not defined in the %s state once %s is required there (was it '
        .. 'added at run time?): define it in the module file, or pass a local function instead', m, k,
        self.where, m), 0)
    end
    return v
  elseif tag == 'k' then
    local name = self:str()
    local ctor = torch.getconstructortable(name)
    if not ctor then self:fail('unknown class ' .. name) end
    return ctor
  elseif tag == 'f' then return self:func()
  elseif tag == 't' or tag == 'm' or tag == 'c' then return self:table(tag)
  end
  self:fail('unknown tag ' .. tag)
end

function Decoder:table(tag)
  local v = {}
  self.refs[#self.refs + 1] = v
  if tag == 'c' then
    local name = self:str()
    local n = self:int()
    for _ = 1, n do require_module(self:str()) end
    local mt = torch.getmetatable(name)
    if not mt then
      error('[DataLoader] class ' .. name .. ' is not defined in the worker state: define it in a module '
        .. '(the worker requires the modules that define a class), or give the DataLoader a '
        .. 'constructor spec {module=..., args=...}', 0)
    end
    setmetatable(v, mt)
  elseif tag == 'm' then
    setmetatable(v, self:value())
  end
  -- rawset: the metatable is already set (a reference inside may point back to v), and its
  -- __newindex (a read-only table, a class's __newindex__ hook) must not see the restored fields.
  while self.s:sub(self.pos, self.pos) ~= 'E' do
    local k = self:value()
    rawset(v, k, self:value())
  end
  self.pos = self.pos + 1
  return v
end

function Decoder:func()
  local code = self:str()
  local f, err = loadstring(code)
  if not f then self:fail('bad function: ' .. tostring(err)) end
  self.refs[#self.refs + 1] = f
  local n = self:int()
  for i = 1, n do
    local tag = self.s:sub(self.pos, self.pos)
    self.pos = self.pos + 1
    if tag == 'U' then
      local ref, idx = self:int(','), self:int()
      debug.upvaluejoin(f, i, self.refs[ref], idx)
    else
      debug.setupvalue(f, i, self:value())
    end
  end
  local tag = self.s:sub(self.pos, self.pos)
  self.pos = self.pos + 1
  if tag == 'e' then setfenv(f, self:value())
  elseif tag ~= 'g' then self:fail('bad function environment tag ' .. tag) end
  return f
end

--- transfer.decode(s, tensors): the value transfer.encode encoded; tensors is the list it
--- returned (or its equivalent in this state).
function transfer.decode(s, tensors)
  local where = require('torch.lib').C.tocha_loader_worker_id() > 0 and 'worker' or 'main'
  local d = setmetatable({ s = s, pos = 1, tensors = tensors or {}, refs = {}, where = where }, Decoder)
  return d:value()
end

return transfer
