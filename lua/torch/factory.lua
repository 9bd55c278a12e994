-- Tensor factories with Torch7's [res,] forms: zeros, ones, full, empty, eye, range, arange,
-- linspace, logspace, rand, randn, and the *Like family. Without res they build the default
-- tensor type (torch.getdefaulttensortype()); with res, res's type is kept and res is resized.
-- Each is also a method of the result: x:zeros(2, 3) is torch.zeros(x, 2, 3).
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local C, wrap, check, fail = lib.C, lib.wrap, lib.check, lib.fail
local is_tensor, describe = types.is_tensor, types.describe
local dims_a = lib.dims_a
local methods = torch._tensor_methods

-- Reads sizes (numbers, a table, a LongStorage or LongTensor) into dims_a, checking that each
-- is a non-negative integer; returns the count.
local function read_sizes(op, ...)
  local first = ...
  if type(first) == 'number' or type(first) == 'table' then
    local list = type(first) == 'table' and first or { ... }
    for i = 1, #list do
      local v = list[i]
      if type(v) == 'number' and (v < 0 or v ~= math.floor(v)) then
        fail(op, 'size %d must be a non-negative integer, got %s', i, tostring(v))
      end
    end
  end
  local n = types.read_sizes(op, dims_a, ...)
  local total = 1
  for i = 0, n - 1 do
    if dims_a[i] < 0 then fail(op, 'size %d must be non-negative, got %d', i + 1, tonumber(dims_a[i])) end
    total = total * tonumber(dims_a[i])
  end
  if total >= 2 ^ 62 then fail(op, 'a tensor of size %s has too many elements', types.shape_str({ ndim = n, size = dims_a })) end
  return n
end

local function default_dtype() return (torch._default_dtype()) end

local function resize(res, op, ...)
  local n = read_sizes(op, ...)
  check(C.tocha_tensor_resize(res.p, n, dims_a))
  return res
end

-- A new tensor of the default type with the given sizes (none: an empty tensor, like
-- torch.Tensor()), or res resized (none: res keeps its size).
local function sized(op, res, ...)
  if res ~= nil then
    if select('#', ...) == 0 then return res end
    return (resize(res, op, ...))
  end
  local n
  if select('#', ...) == 0 then n, dims_a[0] = 1, 0 else n = read_sizes(op, ...) end
  return (wrap(C.tocha_tensor_empty(n, dims_a, default_dtype(), 0, 0)))
end

-- Splits an optional leading result tensor off the arguments.
local function res_and_args(...)
  if is_tensor((...)) then return ... end
  return nil, ...
end

local function filler(op, value)
  return function(...)
    local t = sized(op, res_and_args(...))
    check(C.tocha_tensor_fill(t.p, value))
    return t
  end
end

--- torch.zeros([res,] sizes...), torch.ones([res,] sizes...), torch.empty([res,] sizes...).
--- Example: local z, o, e = torch.zeros(2, 3), torch.ones(4), torch.empty(2, 2)
torch.zeros = filler('zeros', 0)
torch.ones = filler('ones', 1)
function torch.empty(...) return (sized('empty', res_and_args(...))) end

--- torch.full([res,] sizes..., value): sizes as numbers, a table or a LongStorage.
--- Example: torch.full(2, 3, 7)
function torch.full(...)
  local n = select('#', ...)
  local value = select(n, ...)
  if type(value) == 'boolean' then value = value and 1 or 0 end
  if n < 2 then fail('full', 'expected sizes followed by a fill value, got %d argument(s)', n) end
  if type(value) ~= 'number' then
    fail('full', 'expected sizes followed by a fill value (a number), got %s last', describe(value))
  end
  local args = { ... }
  local t = sized('full', res_and_args(unpack(args, 1, n - 1)))
  check(C.tocha_tensor_fill(t.p, value))
  return t
end

-- ---- computed factories ----------------------------------------------------------------------

local function num(op, v, what, default)
  if v == nil and default ~= nil then return default end
  if type(v) ~= 'number' then fail(op, 'expected %s (a number), got %s', what, describe(v)) end
  return v
end
local function count(op, v, what, default)
  v = num(op, v, what, default)
  if v ~= math.floor(v) then fail(op, '%s must be an integer, got %s', what, tostring(v)) end
  return v
end

-- Runs the allocating C function (with the default dtype) or the _out one on res.
local function build(res, alloc, out, ...)
  if res then
    check(out(res.p, ...))
    return res
  end
  local args = { ... }
  args[#args + 1] = default_dtype()
  return wrap(alloc(unpack(args)))
end

--- torch.eye([res,] n [, m]): an n x m (default n x n) identity matrix.
--- Example: torch.eye(3)
function torch.eye(...)
  local res, n, m = res_and_args(...)
  n = count('eye', n, 'n')
  m = count('eye', m, 'm', n)
  return (build(res, C.tocha_eye, C.tocha_eye_out, n, m))
end

--- torch.range([res,] x, y [, step=1]): x, x+step, ... up to y inclusive (Torch7).
--- Example: torch.range(1, 5, 2)
function torch.range(...)
  local res, x, y, step = res_and_args(...)
  return build(res, C.tocha_range, C.tocha_range_out, num('range', x, 'x'), num('range', y, 'y'),
    num('range', step, 'step', 1))
end

--- torch.arange([res,] [start=0,] stop [, step=1]): start, start+step, ... below stop (PyTorch).
--- Example: torch.arange(0, 1, 0.25)
function torch.arange(...)
  local res, a, b, step = res_and_args(...)
  if b == nil then a, b = 0, a end
  return build(res, C.tocha_arange, C.tocha_arange_out, num('arange', a, 'start'), num('arange', b, 'stop'),
    num('arange', step, 'step', 1))
end

--- torch.linspace([res,] a, b [, n=100]): n evenly spaced points from a to b.
--- Example: torch.linspace(0, 1, 5)
function torch.linspace(...)
  local res, a, b, n = res_and_args(...)
  return build(res, C.tocha_linspace, C.tocha_linspace_out, num('linspace', a, 'a'), num('linspace', b, 'b'),
    count('linspace', n, 'n', 100))
end

--- torch.logspace([res,] a, b [, n=100 [, base=10]]): n points from base^a to base^b.
--- Example: torch.logspace(0, 2, 3)
function torch.logspace(...)
  local res, a, b, n, base = res_and_args(...)
  return build(res, C.tocha_logspace, C.tocha_logspace_out, num('logspace', a, 'a'), num('logspace', b, 'b'),
    count('logspace', n, 'n', 100), num('logspace', base, 'base', 10))
end

-- ---- random tensors --------------------------------------------------------------------------

local gen_and_args = torch._gen_and_args

local function random_tensor(op, fill)
  return function(...)
    local n, args = select('#', ...), { ... }
    local i, res, gen = 1, nil, nil
    if is_tensor(args[i]) then res, i = args[i], i + 1 end
    if torch._is_generator(args[i]) then gen, i = args[i], i + 1 end
    local t = sized(op, res, unpack(args, i, n))
    fill(t, gen)
    return t
  end
end

--- torch.rand([res,] [gen,] sizes...): uniform on [0, 1); torch.randn: standard normal.
--- Example: torch.manualSeed(1); local u, n = torch.rand(2, 3), torch.randn(4)
torch.rand = random_tensor('rand', function(t, gen) return t:uniform(gen) end)
torch.randn = random_tensor('randn', function(t, gen) return t:normal(gen) end)

-- ---- *Like -------------------------------------------------------------------------------------

-- An uninitialized tensor with x's type, device and sizes.
local function like(op, x)
  if not is_tensor(x) then fail(op, 'expected a tensor, got %s', describe(x)) end
  local p = x.p
  return (wrap(C.tocha_tensor_empty(p.ndim, p.size, p.dtype, p.device_type, p.device_index)))
end

--- torch.emptyLike(x): a new uninitialized tensor with x's type, device and sizes (its contents
--- are arbitrary; the data is not copied).
--- Example: torch.emptyLike(torch.LongTensor(2, 3)):size()
function torch.emptyLike(x) return (like('emptyLike', x)) end
--- torch.zerosLike(x): a new tensor of zeros with x's type, device and sizes.
--- Example: torch.zerosLike(torch.ones(2, 3))
function torch.zerosLike(x) return like('zerosLike', x):zero() end
--- torch.onesLike(x): a new tensor of ones with x's type, device and sizes.
--- Example: torch.onesLike(torch.IntTensor(2, 2))
function torch.onesLike(x) return like('onesLike', x):fill(1) end
--- torch.fullLike(x, value): a new tensor of value with x's type, device and sizes.
--- Example: torch.fullLike(torch.IntTensor(2, 2), 7)
function torch.fullLike(x, value)
  local t = like('fullLike', x)
  if type(value) == 'boolean' then value = value and 1 or 0 end
  if type(value) ~= 'number' then fail('fullLike', 'expected a fill value (a number), got %s', describe(value)) end
  return (t:fill(value))
end
--- torch.randLike([gen,] x) and torch.randnLike([gen,] x).
--- Example: torch.manualSeed(1); local u, n = torch.randLike(torch.zeros(3)), torch.randnLike(torch.zeros(2, 2))
function torch.randLike(...)
  local g, x = gen_and_args(...)
  local t = like('randLike', x)
  check(C.tocha_uniform_(t.p, g, 0, 1))
  return t
end
function torch.randnLike(...)
  local g, x = gen_and_args(...)
  local t = like('randnLike', x)
  check(C.tocha_normal_(t.p, g, 0, 1))
  return t
end

-- x:zeros(2, 3) etc.: the res forms as methods.
for _, name in ipairs({ 'zeros', 'ones', 'full', 'empty', 'eye', 'range', 'arange', 'linspace', 'logspace',
                        'rand', 'randn' }) do
  local f = torch[name]
  methods[name] = function(self, ...) return (f(self, ...)) end
end

return torch
