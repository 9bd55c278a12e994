-- A pickler writing Lua values as the protocol-2 pickle that PyTorch's torch.save puts in
-- data.pkl: tables become dicts (OrderedDicts when they were loaded as such) or lists, tensors
-- become torch._utils._rebuild_tensor_v2 calls on persistent storage ids.
--
-- Note [Pickle opcodes written]: only the opcodes of PyTorch 1.13's weights_only unpickler
-- (_weights_only_unpickler.py) are used, so torch.load(f, weights_only=True) accepts the file,
-- except BINFLOAT and BINBYTES, which that unpickler lacks (a checkpoint holding a non-integer
-- number or a non-UTF-8 string loads with weights_only=False, or in later PyTorch versions).
-- Lua numbers with an integer value are written as Python ints (2.0 becomes 2).
local ffi = require 'ffi'
local bit = require 'bit'
local lib = require 'torch.lib'
local common = require 'torch.serialize_common'
local buffer = require 'torch.serialize_buffer'
local U = require 'torch.pt_unpickle'

local P = {}

local Pickler = {}
Pickler.__index = Pickler

function Pickler:fail(fmt, ...)
  local msg = select('#', ...) > 0 and string.format(fmt, ...) or fmt
  error(string.format('[%s] %s (at %s)', self.op, msg, common.path_string('object', self.keys)), lib.user_level())
end

local function op(self, c) self.m:u8(type(c) == 'string' and c:byte() or c) end

-- Memoizes the value on top of the pickle stack (BINPUT / LONG_BINPUT).
function Pickler:put(obj)
  local i = self.nmemo
  self.nmemo = i + 1
  self.memo[obj] = i
  if i < 256 then op(self, 'q') self.m:u8(i) else op(self, 'r') self.m:u32(i) end
end
function Pickler:get(i)
  if i < 256 then op(self, 'h') self.m:u8(i) else op(self, 'j') self.m:u32(i) end
end

function Pickler:global(module, name)
  local key = module .. '.' .. name
  local i = self.memo[key]
  if i then self:get(i) return end
  op(self, 'c')
  self.m:bytes(module .. '\n' .. name .. '\n')
  self:put(key)
end

local TWO63 = 2 ^ 63

function Pickler:int(v)
  local m = self.m
  if v >= 0 and v < 256 then op(self, 'K') m:u8(v)
  elseif v >= 0 and v < 65536 then op(self, 'M') m:u16(v)
  elseif v >= -2 ^ 31 and v < 2 ^ 31 then op(self, 'J') m:i32(v)
  else  -- LONG1: the shortest little-endian two's complement
    local x = ffi.cast('int64_t', v)
    local bytes = {}
    for i = 1, 8 do bytes[i] = tonumber(bit.band(bit.rshift(x, 8 * (i - 1)), 0xFF)) end
    local n = 8
    while n > 1 do
      local fill = bytes[n - 1] >= 128 and 255 or 0
      if bytes[n] ~= fill then break end
      n = n - 1
    end
    op(self, 0x8a) m:u8(n)
    for i = 1, n do m:u8(bytes[i]) end
  end
end

function Pickler:number(v)
  if v == math.floor(v) and v >= -TWO63 and v < TWO63 then return self:int(v) end
  op(self, 'G')  -- BINFLOAT: big-endian double
  local b = ffi.new('double[1]', v)
  local p = ffi.cast('uint8_t *', b)
  for i = 7, 0, -1 do self.m:u8(p[i]) end
end

-- Valid UTF-8 (what Python's str holds); anything else is written as bytes.
local function is_utf8(s)
  if not s:find('[\128-\255]') then return true end
  local i, n = 1, #s
  while i <= n do
    local c = s:byte(i)
    local k = c < 0x80 and 0 or (c >= 0xC2 and c < 0xE0) and 1 or (c >= 0xE0 and c < 0xF0) and 2
              or (c >= 0xF0 and c < 0xF5) and 3 or nil
    if not k then return false end
    for j = i + 1, i + k do
      local d = s:byte(j)
      if not d or d < 0x80 or d > 0xBF then return false end
    end
    -- Python refuses overlong forms (E0 80..9F, F0 80..8F) and code points past U+10FFFF (F4 90..),
    -- and a BINUNICODE holding one made PyTorch's torch.load fail on the whole file. Surrogates
    -- (ED A0..BF) pass: pickle decodes with 'surrogatepass'.
    local d = s:byte(i + 1)
    if (c == 0xE0 and d < 0xA0) or (c == 0xF0 and d < 0x90) or (c == 0xF4 and d > 0x8F) then return false end
    i = i + k + 1
  end
  return true
end

function Pickler:string(s)
  op(self, is_utf8(s) and 'X' or 'B')
  self.m:u32(#s)
  self.m:bytes(s)
end

function Pickler:int_tuple(t)
  local n = #t
  if n == 0 then op(self, ')') return end
  if n > 3 then op(self, '(') end
  for i = 1, n do self:int(t[i]) end
  op(self, n == 1 and 0x85 or n == 2 and 0x86 or n == 3 and 0x87 or 't')
end

-- A tensor: _rebuild_tensor_v2(storage pid, offset, size, stride, requires_grad, OrderedDict()).
function Pickler:tensor(t)
  local d = self.hooks.tensor(t, self)
  self:global('torch._utils', '_rebuild_tensor_v2')
  op(self, '(')
  op(self, '(')
  self:string('storage')
  self:global('torch', d.storage_type)
  self:string(d.key)
  self:string('cpu')
  self:int(d.numel)
  op(self, 't')
  op(self, 'Q')
  self:int(d.offset)
  self:int_tuple(d.sizes)
  self:int_tuple(d.strides)
  op(self, d.requires_grad and 0x88 or 0x89)
  self:global('collections', 'OrderedDict')
  op(self, ')')
  op(self, 'R')
  op(self, 't')
  op(self, 'R')
end

-- Keys in the order the table was loaded with (U.info), then the others in a stable order.
local function ordered_keys(t)
  local info, keys, seen = U.info[t], {}, {}
  if info then
    for _, k in ipairs(info.keys) do
      if rawget(t, k) ~= nil and not seen[k] then keys[#keys + 1] = k seen[k] = true end
    end
  end
  for _, k in ipairs(common.sorted_keys(t)) do
    if not seen[k] then keys[#keys + 1] = k end
  end
  return keys
end

-- The length of t as a Python list, or nil for a dict. A table loaded from a PyTorch list
-- (U.lists) stays a list: its holes (Nones) are written as None and an empty one as [] (they
-- became dicts with integer keys, or {}). Its length is its largest index, so a list shortened
-- in Lua is written shortened, and trailing Nones are dropped (they left no trace in Lua).
local function list_length(t)
  if U.info[t] then return nil end
  local loaded = U.lists[t] ~= nil
  local n, count = 0, 0
  for k in next, t do
    if type(k) ~= 'number' or k < 1 or k ~= math.floor(k) then return nil end
    if k > n then n = k end
    count = count + 1
  end
  if n == 0 then return loaded and 0 or nil end
  if not loaded and count ~= n then return nil end  -- a Lua array with holes stays a dict, as before
  return n
end

local BATCH = 1000  -- items per APPENDS/SETITEMS, as Python's pickle

function Pickler:items(t, keys)
  local stack, d = self.keys, #self.keys + 1
  for b = 1, #keys, BATCH do
    op(self, '(')
    for i = b, math.min(b + BATCH - 1, #keys) do
      local k = keys[i]
      local tk = type(k)
      if tk == 'number' then self:number(k) elseif tk == 'string' then self:string(k)
      elseif tk == 'boolean' then op(self, k and 0x88 or 0x89)
      elseif tk == 'cdata' and (ffi.istype('int64_t', k) or ffi.istype('uint64_t', k)) then
        self:value(k)  -- an integer key past 2^53, as the unpickler gives it
      else self:fail('a table key of type %s cannot be a Python dict key', tk) end
      stack[d] = k
      self:value(rawget(t, k))
      stack[d] = nil
    end
    op(self, 'u')
  end
end

function Pickler:table(t)
  self.depth = self.depth + 1
  if self.depth > common.MAX_DEPTH then self:fail('tables nested more than %d levels deep', common.MAX_DEPTH) end
  local n = list_length(t)
  if n then
    op(self, ']')
    self:put(t)
    local stack, d = self.keys, #self.keys + 1
    for b = 1, n, BATCH do
      op(self, '(')
      for i = b, math.min(b + BATCH - 1, n) do
        stack[d] = i
        self:value(t[i])
      end
      stack[d] = nil
      op(self, 'e')
    end
  else
    local info = U.info[t]
    if info and info.class == 'OrderedDict' then
      self:global('collections', 'OrderedDict')
      op(self, ')')
      op(self, 'R')
    else
      op(self, '}')
    end
    self:put(t)
    self:items(t, ordered_keys(t))
    if info and info.class == 'OrderedDict' and info.attrs and next(info.attrs) then
      op(self, '}')  -- the instance attributes (a state dict's _metadata), then BUILD
      self:items(info.attrs, ordered_keys(info.attrs))
      op(self, 'b')
    end
  end
  self.depth = self.depth - 1
end

function Pickler:value(v)
  local kind, what = common.classify(v)
  if kind == 'nil' then op(self, 'N')
  elseif kind == 'boolean' then op(self, v and 0x88 or 0x89)
  elseif kind == 'number' then self:number(v)
  elseif kind == 'string' then self:string(v)
  elseif kind == 'uint64' and v >= 2 ^ 63 then
    -- LONG1 of 9 bytes: the 8 bytes and a zero sign byte (a Python int, as the unpickler reads it)
    op(self, 0x8a) self.m:u8(9)
    for i = 0, 7 do self.m:u8(tonumber(bit.band(bit.rshift(v, 8 * i), 0xFF))) end
    self.m:u8(0)
  elseif kind == 'int64' or kind == 'uint64' then
    self:int(ffi.cast('int64_t', v))
  elseif kind == 'table' or kind == 'tensor' then
    local key = kind == 'tensor' and self.hooks.identity(v) or v
    local i = self.memo[key]
    if i then self:get(i) return end
    if kind == 'tensor' then
      self:tensor(v)
      self:put(key)
    else
      self:table(v)
    end
  elseif kind == 'class' then
    self:fail("cannot save a %s in PyTorch's format (only tensors, tables, numbers, strings and booleans; "
              .. 'save a module\'s stateDict())', what)
  elseif kind == 'storage' then
    self:fail("cannot save a bare storage in PyTorch's format (save a tensor over it)")
  else
    self:fail("cannot save a %s in PyTorch's format", what or type(v))
  end
end

--- The pickle of obj as a string. hooks.tensor(t) returns { storage_type = 'FloatStorage', key,
--- numel, offset, sizes, strides, requires_grad }; hooks.identity(t) a key shared by handles of
--- one tensor. op names errors.
function P.dump(obj, hooks, op_name)
  local self = setmetatable({ m = buffer.writer(), memo = {}, nmemo = 0, hooks = hooks, op = op_name, keys = {},
                              depth = 0 }, Pickler)
  op(self, 0x80) self.m:u8(2)
  self:value(obj)
  op(self, '.')
  return self.m:tostring()
end

return P
