-- A safe unpickler for PyTorch checkpoints (Python pickle protocols 2-5, the opcodes torch.save
-- writes): builds Lua values and never runs code. Like PyTorch's weights_only=True, it calls
-- only an allowlist of globals (containers, tensor and parameter rebuilds, storage types, dtypes,
-- torch.Size); any other global is an error naming it.
--
-- Note [Python values in Lua]: dict and OrderedDict -> a table (its key order and attributes such
-- as a state dict's _metadata are kept aside, see U.info), list/tuple/set -> an array, str and
-- bytes -> a string, int/float -> a number (an int64 cdata beyond 2^53, a uint64 cdata from 2^63
-- to 2^64), None -> nil (a None inside a list leaves a hole; the items after it keep their
-- indices, and U.lists marks the table so that torch.save(..., 'pytorch') writes it back as a
-- list with its inner Nones), dtype and storage-type globals -> their names ('float32').
-- Tuples stay internal objects (with their length, None included) until they are stored in a
-- container, so the rebuild functions see their exact arguments.
local ffi = require 'ffi'
local bit = require 'bit'
local torch = require 'torch.env'
local types = require 'torch.types'
local float_read = require 'torch.float_read'
local A = require 'torch.pt_allowlist'

local U = {}

--- Key order and attributes of tables built from Python dicts: info[t] = { keys = {...},
--- class = 'OrderedDict' or 'dict', attrs = {...} } (weak keys).
U.info = setmetatable({}, { __mode = 'k' })
--- The lengths of tables built from Python lists and sets (Nones leave holes): lists[t] = n (weak keys).
U.lists = setmetatable({}, { __mode = 'k' })

local NONE, Tuple, Global = A.NONE, A.Tuple, A.Global
local values, calls, hints, rebuild_parameter = A.values, A.calls, A.hints, A.rebuild_parameter
U.Tuple, U.Global = Tuple, Global

local MAX_DEPTH = 1000  -- MARKs nested deeper than this are refused (a hostile file)

-- ---- the machine --------------------------------------------------------------------------------

local Unpickler = {}
Unpickler.__index = Unpickler

function Unpickler:fail(fmt, ...)
  local ok, msg = pcall(string.format, fmt, ...)
  if not ok then msg = fmt end
  self.ctx.fail('pickle %s: %s', self.what, msg)
end

function Unpickler:require_grad(t)
  local ok = pcall(t.requiresGrad, t, true)
  if not ok then self:fail('a %s requires grad (only floating-point tensors can)', torch.typename(t)) end
end

function Unpickler:new_dict(class)
  local t = {}
  U.info[t] = { keys = {}, class = class, attrs = nil }
  return t
end

-- A raw stack value as a Lua value for a container (Note [Python values in Lua]).
function Unpickler:finish(v)
  if v == NONE then return nil end
  local mt = getmetatable(v)
  if mt == Tuple then
    local done = self.finished[v]
    if done then return done end
    done = {}
    self.finished[v] = done
    U.lists[done] = v.n
    for i = 1, v.n do done[i] = self:finish(v[i]) end
    return done
  elseif mt == Global then
    if v.value then return v.value end
    self:fail('the function %s appears as a value', v.name)
  elseif type(v) == 'table' and v.is_storage then
    return self.ctx.storage_value(v)
  end
  return v
end

function Unpickler:set(t, k, v)
  if type(t) ~= 'table' or getmetatable(t) ~= nil then self:fail('item assignment on %s', tostring(t)) end
  k = self:finish(k)
  if k == nil or (type(k) == 'number' and k ~= k) then self:fail('a dict key is None or NaN') end
  local info = U.info[t]
  if info and rawget(t, k) == nil then info.keys[#info.keys + 1] = k end
  rawset(t, k, self:finish(v))
end

function Unpickler:push(v)
  local sp = self.sp + 1
  self.sp = sp
  self.stack[sp] = v
end
function Unpickler:pop()
  local sp = self.sp
  if sp <= self.base then self:fail('stack underflow at byte %d', self.src:tell()) end
  local v = self.stack[sp]
  self.stack[sp] = nil
  self.sp = sp - 1
  return v
end
function Unpickler:top()
  if self.sp <= self.base then self:fail('stack underflow at byte %d', self.src:tell()) end
  return self.stack[self.sp]
end
-- Pops everything above the last MARK; returns a Tuple.
function Unpickler:pop_mark()
  local marks = self.marks
  if #marks == 0 then self:fail('no MARK at byte %d', self.src:tell()) end
  local base = marks[#marks]
  marks[#marks] = nil
  local items = setmetatable({ n = self.sp - base }, Tuple)
  for i = base + 1, self.sp do
    items[i - base] = self.stack[i]
    self.stack[i] = nil
  end
  self.sp = base
  self.base = marks[#marks] or 0
  return items
end
function Unpickler:mark()
  if #self.marks >= MAX_DEPTH then self:fail('more than %d nested MARKs', MAX_DEPTH) end
  self.marks[#self.marks + 1] = self.sp
  self.base = self.sp
end

function Unpickler:global(module, name)
  local full = module .. '.' .. name
  local value, call = values[full], calls[full]
  if value == nil and call == nil then
    local hint = hints[full] or (module:match('^__torch__') and 'a TorchScript class: load the file in PyTorch '
      .. 'and save its state_dict()')
      or ((module:match('^torch%.nn%.modules') or module:match('^torch%.nn%.parallel')) and 'a whole nn.Module was '
      .. 'saved (torch.save(model)); in PyTorch, save model.state_dict() instead. The file was not loaded: it may '
      .. 'run code in Python')
      or (module:match('^torch%.optim') and 'a whole optimizer was saved; in PyTorch, save optimizer.state_dict() '
      .. 'instead. The file was not loaded: it may run code in Python')
      or 'only tensors, storages and plain containers are loaded, as with '
      .. "PyTorch's weights_only=True: the file may run code in Python"
    self:fail("unsupported global '%s' (%s)", full, hint)
  end
  return setmetatable({ name = full, value = value }, Global)
end

function Unpickler:call(f, args)
  if getmetatable(f) ~= Global or not calls[f.name] then
    self:fail('cannot call %s', getmetatable(f) == Global and f.name or tostring(f))
  end
  if getmetatable(args) ~= Tuple then self:fail('%s called without an argument tuple', f.name) end
  return calls[f.name](self, args)
end

-- Signed little-endian integer of n bytes (LONG1/LONG4).
function Unpickler:long(s)
  local n = #s
  if n == 0 then return 0 end
  local neg = s:byte(n) >= 128
  if n > 8 then
    local fill = neg and 255 or 0
    for i = 9, n do if s:byte(i) ~= fill then self:fail('an integer of %d bytes is too large', n) end end
    n = 8
    -- The low 8 bytes read as int64 have the wrong sign past int64's range: 2^63 (9 bytes, the
    -- last 0) read as -2^63 and 2^64-1 as -1. Integers below 2^64 are exact as uint64.
    if (s:byte(8) >= 128) ~= neg then
      if neg then self:fail('the integer below -2^63 does not fit in 64 bits') end
      local u = 0ULL
      for i = 8, 1, -1 do u = u * 256 + s:byte(i) end
      return u
    end
  end
  local v = 0ULL
  for i = n, 1, -1 do v = v * 256 + s:byte(i) end
  if neg and n < 8 then v = v - bit.lshift(1ULL, 8 * n) end
  local i64 = ffi.cast('int64_t', v)
  if i64 >= -9007199254740992LL and i64 <= 9007199254740992LL then return tonumber(i64) end
  return i64
end

local function be_double(s)
  local b = ffi.new('uint8_t[8]')
  for i = 0, 7 do b[i] = s:byte(8 - i) end
  return float_read.f64(b, 0)
end

local op = {}
local function def(code, f) op[type(code) == 'string' and code:byte() or code] = f end

def(0x80, function(u) local v = u.src:byte() if v > 5 then u:fail('pickle protocol %d (at most 5)', v) end end)
def(0x95, function(u) u.src:read(8) end)  -- FRAME: a length hint
def('(', function(u) u:mark() end)
def('0', function(u) u:pop() end)
def('1', function(u) u:pop_mark() end)
def('2', function(u) u:push(u:top()) end)
def('N', function(u) u:push(NONE) end)
def(0x88, function(u) u:push(true) end)
def(0x89, function(u) u:push(false) end)
def('J', function(u) u:push(tonumber(ffi.cast('int32_t *', ffi.cast('const char *', u.src:read(4)))[0])) end)
def('K', function(u) u:push(u.src:byte()) end)
def('M', function(u) local s = u.src:read(2) u:push(s:byte(1) + 256 * s:byte(2)) end)
def(0x8a, function(u) u:push(u:long(u.src:read(u.src:byte()))) end)
def(0x8b, function(u) u:push(u:long(u.src:read(u.src:u32()))) end)
def('I', function(u)
  local l = u.src:line()
  if l == '00' or l == '01' then u:push(l == '01') return end
  local v = tonumber(l)
  if not v then u:fail('bad INT %q', l) end
  u:push(v)
end)
def('L', function(u)
  local v = tonumber((u.src:line():gsub('L$', '')))
  if not v then u:fail('bad LONG') end
  u:push(v)
end)
def('G', function(u) u:push(be_double(u.src:read(8))) end)
def('F', function(u) local v = tonumber(u.src:line()) if not v then u:fail('bad FLOAT') end u:push(v) end)
def('X', function(u) u:push(u.src:read(u.src:u32())) end)
def(0x8c, function(u) u:push(u.src:read(u.src:byte())) end)
def(0x8d, function(u) u:push(u.src:read(u.src:u64())) end)
def('T', function(u) u:push(u.src:read(u.src:u32())) end)
def('U', function(u) u:push(u.src:read(u.src:byte())) end)
def('B', function(u) u:push(u.src:read(u.src:u32())) end)
def('C', function(u) u:push(u.src:read(u.src:byte())) end)
def(0x8e, function(u) u:push(u.src:read(u.src:u64())) end)
def(0x96, function(u) u:push(u.src:read(u.src:u64())) end)
def(')', function(u) u:push(setmetatable({ n = 0 }, Tuple)) end)
def('t', function(u) u:push(u:pop_mark()) end)
local function tuple_of(u, k)
  local t = setmetatable({ n = k }, Tuple)
  for i = k, 1, -1 do t[i] = u:pop() end
  u:push(t)
end
def(0x85, function(u) tuple_of(u, 1) end)
def(0x86, function(u) tuple_of(u, 2) end)
def(0x87, function(u) tuple_of(u, 3) end)
-- Lists and sets are built with their lengths kept aside (u.lens): a None leaves a hole, and
-- #list after a hole is any border, so appending at #list + 1 shifted the items after a None
-- that ended a batch of APPENDS (pickle writes lists in batches of 1000).
local function new_list(u, n)
  local t = {}
  u.lens[t] = n
  return t
end
def(']', function(u) u:push(new_list(u, 0)) end)
def('l', function(u)
  local items = u:pop_mark()
  local t = new_list(u, items.n)
  for i = 1, items.n do t[i] = u:finish(items[i]) end
  u:push(t)
end)
local function append(u, list, items)
  local n = type(list) == 'table' and u.lens[list]
  if not n then u:fail('append to %s', tostring(list)) end
  for i = 1, items.n do list[n + i] = u:finish(items[i]) end
  u.lens[list] = n + items.n
end
def('a', function(u) local v = u:pop() append(u, u:top(), { n = 1, v }) end)
def('e', function(u) local items = u:pop_mark() append(u, u:top(), items) end)
def(0x8f, function(u) u:push(new_list(u, 0)) end)
def(0x90, function(u) local items = u:pop_mark() append(u, u:top(), items) end)
def(0x91, function(u)
  local items = u:pop_mark()
  local t = new_list(u, items.n)
  for i = 1, items.n do t[i] = u:finish(items[i]) end
  u:push(t)
end)
def('}', function(u) u:push(u:new_dict('dict')) end)
def('d', function(u)
  local items, t = u:pop_mark(), u:new_dict('dict')
  for i = 1, items.n - 1, 2 do u:set(t, items[i], items[i + 1]) end
  u:push(t)
end)
def('s', function(u) local v = u:pop() local k = u:pop() u:set(u:top(), k, v) end)
def('u', function(u)
  local items = u:pop_mark()
  if items.n % 2 ~= 0 then u:fail('SETITEMS with an odd number of items') end
  local t = u:top()
  for i = 1, items.n - 1, 2 do u:set(t, items[i], items[i + 1]) end
end)
def('c', function(u)
  local module = u.src:line()
  u:push(u:global(module, u.src:line()))
end)
def(0x93, function(u)
  local name, module = u:pop(), u:pop()
  if type(name) ~= 'string' or type(module) ~= 'string' then u:fail('STACK_GLOBAL without two strings') end
  u:push(u:global(module, name))
end)
def('R', function(u)
  local args = u:pop()
  u:push(u:call(u:pop(), args))
end)
def(0x81, function(u)  -- NEWOBJ: only torch.nn.Parameter(data, requires_grad)
  local args, cls = u:pop(), u:pop()
  if getmetatable(cls) ~= Global or cls.name ~= 'torch.nn.parameter.Parameter' or getmetatable(args) ~= Tuple then
    u:fail('cannot instantiate %s', getmetatable(cls) == Global and cls.name or tostring(cls))
  end
  u:push(rebuild_parameter(u, args))
end)
def('b', function(u)
  local state = u:pop()
  local inst = u:top()
  local info = type(inst) == 'table' and U.info[inst]
  if info and type(state) == 'table' and U.info[state] then
    info.attrs = info.attrs or {}
    for k, v in pairs(state) do info.attrs[k] = v end
  elseif types.is_tensor(inst) and (state == NONE or (type(state) == 'table' and next(state) == nil)) then
    -- a tensor with no Python attributes
  else
    u:fail('cannot set the state of %s', tostring(inst))
  end
end)
def('Q', function(u)
  local pid = u:pop()
  u:push(u.ctx.persistent_load(u, pid))
end)
def('P', function(u) u:push(u.ctx.persistent_load(u, u.src:line())) end)
local function get(u, i)
  local v = u.memo[i]
  if v == nil then u:fail('memo entry %d is not set', i) end
  u:push(v)
end
local function put(u, i) u.memo[i] = u:top() end
def('h', function(u) get(u, u.src:byte()) end)
def('j', function(u) get(u, u.src:u32()) end)
local function text_index(u)
  local i = tonumber(u.src:line())
  if not i or i < 0 or i ~= math.floor(i) then u:fail('a bad memo index in GET or PUT') end
  return i
end
def('g', function(u) get(u, text_index(u)) end)
def('q', function(u) put(u, u.src:byte()) end)
def('r', function(u) put(u, u.src:u32()) end)
def('p', function(u) put(u, text_index(u)) end)
def(0x94, function(u) u.memo[u.nmemo] = u:top() u.nmemo = u.nmemo + 1 end)

local names = { i = 'INST', o = 'OBJ', [0x82] = 'EXT1', [0x83] = 'EXT2', [0x84] = 'EXT4', [0x92] = 'NEWOBJ_EX',
                [0x97] = 'NEXT_BUFFER', [0x98] = 'READONLY_BUFFER' }

--- Unpickles one object from src (see the sources below) and returns it. ctx: fail(fmt, ...)
--- raises "[op] file: ..."; persistent_load(u, pid) returns a storage object { is_storage = true };
--- tensor(storage, offset, sizes, strides) returns a tensor; storage_value(storage) the value of a
--- bare storage; what names the pickle in errors.
function U.load(src, ctx, what)
  local u = setmetatable({ src = src, ctx = ctx, what = what, stack = {}, sp = 0, base = 0, marks = {},
                           memo = {}, nmemo = 0, finished = {}, lens = U.lists }, Unpickler)
  src.u = u
  while true do
    local code = src:byte()
    if code == 46 then  -- STOP
      if u.sp ~= 1 then u:fail('STOP with %d values on the stack', u.sp) end
      return u:finish(u:pop())
    end
    local f = op[code]
    if not f then
      local c = names[code] or (code >= 32 and code < 127 and string.format("'%s'", string.char(code))) or ''
      u:fail('unsupported opcode 0x%02x %s at byte %d', code, c, src:tell() - 1)
    end
    f(u)
  end
end

-- ---- sources ------------------------------------------------------------------------------------

local Src = {}
Src.__index = Src
function Src:eof(n) self.u:fail('truncated: needed %d bytes at byte %d', n, self:tell()) end
function Src:byte()
  local i = self.i
  if i >= self.n then self:need(1) i = self.i end
  self.i = i + 1
  return self.s:byte(i + 1)
end
function Src:read(n)
  if n > self.n - self.i then self:need(n) end
  local i = self.i
  self.i = i + n
  return self.s:sub(i + 1, i + n)
end
function Src:u32() return tonumber(ffi.cast('const uint32_t *', ffi.cast('const char *', self:read(4)))[0]) end
function Src:u64() return tonumber(ffi.cast('const uint64_t *', ffi.cast('const char *', self:read(8)))[0]) end
function Src:line()
  local s = {}
  while true do
    local c = self:byte()
    if c == 10 then return table.concat(s) end
    s[#s + 1] = string.char(c)
    if #s > 4096 then self.u:fail('a text line longer than 4096 bytes') end
  end
end
function Src:tell() return self.start + self.i end
function Src:need(n) self:eof(n) end

--- A source over a string.
function U.string_source(s)
  return setmetatable({ s = s, i = 0, n = #s, start = 0 }, Src)
end

local StreamSrc = setmetatable({}, { __index = Src })
StreamSrc.__index = StreamSrc
-- Refills the window from the stream (64 KiB at a time) so that n bytes are available.
function StreamSrc:need(n)
  local left = self.stream_size - (self.start + self.n)
  local have = self.n - self.i
  if have + left < n then self:eof(n) end
  local more = self.stream:read_string(math.min(left, math.max(n - have, 65536)), 'a pickle')
  self.s = self.s:sub(self.i + 1) .. more
  self.start = self.start + self.i
  self.i, self.n = 0, #self.s
end

--- A source reading a stream from its current position; src:tell() is the stream offset.
function U.stream_source(stream)
  local at = stream:tell()
  return setmetatable({ stream = stream, s = '', i = 0, n = 0, start = at, stream_size = stream:size() }, StreamSrc)
end

return U
