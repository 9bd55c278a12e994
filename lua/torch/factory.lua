-- Tensor factories with Torch7's [res,] forms: zeros, ones, full, empty, eye, range, arange,
-- linspace, logspace, rand, randn, and the *Like family. Without res they build the default
-- tensor type (torch.getdefaulttensortype()); with res, res's type is kept and res is resized.
-- PyTorch's dtype/device/requires_grad keywords come as trailing options (Note [Factory options]).
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
local function check_size(op, i, v)
  if type(v) == 'number' and (v < 0 or v ~= math.floor(v)) then
    fail(op, 'size %d must be a non-negative integer, got %s', i, tostring(v))
  end
end
local function read_sizes(op, ...)
  local first = ...
  -- no table of the numbers per call (zeros(3) took 3x as long)
  if type(first) == 'table' then
    for i = 1, #first do check_size(op, i, first[i]) end
  elseif type(first) == 'number' then
    for i = 1, select('#', ...) do check_size(op, i, (select(i, ...))) end
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
local DT = lib.dtype
local function is_floating(id) return id == DT.f32 or id == DT.f64 or id == DT.f16 or id == DT.bf16 end

-- ---- options -----------------------------------------------------------------------------------

-- Note [Factory options]: PyTorch's dtype=, device= and requires_grad= keywords are a trailing
-- options table {dtype=, device=, requiresGrad=} (dtype as in Note [dtype names]): torch.zeros(2, 3,
-- {dtype = 'int64'}), torch.arange(5, {dtype = 'int32'}), torch.zerosLike(x, {dtype = 'float64'}).
-- A plain table with a string key is options, so a size table ({2, 3}, or {} for a 0-dim tensor)
-- is never taken for them. A result tensor (Torch7's res) decides the type itself, so res and
-- options together are refused. The options were refused ("size 3 is a table") or, after a size
-- table or in the *Like forms, silently ignored.
local OPT_KEYS = { dtype = true, device = true, requiresGrad = true }

local function is_opts(v)
  if type(v) ~= 'table' or getmetatable(v) ~= nil then return false end
  for k in pairs(v) do if type(k) == 'string' then return true end end
  return false
end

-- The options' dtype id (nil: not given) and device (nil: the CPU, or the input's), checked.
local function resolve_opts(op, opts)
  if opts == nil then return nil, nil end
  if type(opts) ~= 'table' or getmetatable(opts) ~= nil then
    fail(op, 'expected options as a table {dtype=, device=, requiresGrad=}, got %s', describe(opts))
  end
  for k in pairs(opts) do
    if not OPT_KEYS[k] then fail(op, "unknown option '%s' (expected dtype, device, requiresGrad)", tostring(k)) end
  end
  local id, device = nil, opts.device
  if opts.dtype ~= nil then
    local cuda
    id, cuda = torch._dtype_arg(op, opts.dtype)
    device = device or cuda
  end
  -- a bad device is refused before anything is allocated
  if device ~= nil and torch.cuda and torch.cuda._parse_device then torch.cuda._parse_device(op, device) end
  return id, device
end

-- t moved to device (when given) and requiring grad when the options ask.
local function finish(op, t, opts, device)
  if device ~= nil then t = torch._to_device(t, device, op) end
  if opts ~= nil and opts.requiresGrad then
    if not is_floating(t.p.dtype) then
      fail(op, 'only floating-point tensors can require gradients, got %s', types.typename(t))
    end
    t:requiresGrad()
  end
  return t
end
torch._factory_opts, torch._factory_finish = resolve_opts, finish

-- Splits the arguments into an optional leading result tensor, the rest (args[i..n]) and trailing
-- options; o = {res =, opts =, id =, device =}.
local function parse(op, ...)
  local args, n = { ... }, select('#', ...)
  local o = {}
  if n > 0 and is_opts(args[n]) then o.opts, args[n], n = args[n], nil, n - 1 end
  local i = 1
  if is_tensor(args[1]) then o.res, i = args[1], 2 end
  if o.res and o.opts then
    fail(op, 'got a result tensor and options: give one (the result tensor decides the type and device)')
  end
  o.id, o.device = resolve_opts(op, o.opts)
  return o, args, i, n
end

local function resize(res, op, ...)
  local n = read_sizes(op, ...)
  check(C.tocha_tensor_resize(res.p, n, dims_a))
  return res
end

-- A new tensor of dtype id (nil: the default type) with the given sizes (none: an empty tensor,
-- like torch.Tensor()), or res resized (none: res keeps its size).
local function sized(op, res, id, ...)
  if res ~= nil then
    if select('#', ...) == 0 then return res end
    return (resize(res, op, ...))
  end
  local n
  if select('#', ...) == 0 then n, dims_a[0] = 1, 0 else n = read_sizes(op, ...) end
  return (wrap(C.tocha_tensor_empty(n, dims_a, id or default_dtype(), 0, 0)))
end

-- Whether the last argument is an options table (Note [Factory options]). Calls without one take
-- the direct path: parse's tables and unpack leave a call uncompiled (zeros(3) took 3x as long).
local function has_opts(...)
  local n = select('#', ...)
  return n > 0 and is_opts((select(n, ...)))
end

local function filler(op, value)
  return function(...)
    if not has_opts(...) then
      local t
      if is_tensor((...)) then t = sized(op, (...), nil, select(2, ...))
      else t = sized(op, nil, nil, ...) end
      check(C.tocha_tensor_fill(t.p, value))
      return t
    end
    local o, args, i, n = parse(op, ...)
    local t = sized(op, o.res, o.id, unpack(args, i, n))
    check(C.tocha_tensor_fill(t.p, value))
    return finish(op, t, o.opts, o.device)
  end
end

--- torch.zeros([res,] sizes... [, {dtype=, device=, requiresGrad=}]), torch.ones(...),
--- torch.empty(...): sizes as numbers, a table or a LongStorage; the options as Note [Factory
--- options] (PyTorch's keywords).
--- Example: local z, o, e = torch.zeros(2, 3), torch.ones(4, {dtype = 'int64'}), torch.empty(2, 2)
torch.zeros = filler('zeros', 0)
torch.ones = filler('ones', 1)
function torch.empty(...)
  if not has_opts(...) then
    if is_tensor((...)) then return (sized('empty', (...), nil, select(2, ...))) end
    return (sized('empty', nil, nil, ...))
  end
  local o, args, i, n = parse('empty', ...)
  return finish('empty', sized('empty', o.res, o.id, unpack(args, i, n)), o.opts, o.device)
end

-- Note [full's dtype]: PyTorch infers full's dtype from the fill value: a bool gives bool, an
-- integer int64, a float the default dtype. A Lua number does not say whether 3 was written 3.0,
-- and Torch7-style code expects the default type from torch.full(2, 2, 0), so an integral fill
-- keeps the default type; a boolean one, which cannot be mistaken, gives a BoolTensor as in
-- PyTorch (it gave a FloatTensor of ones).

--- torch.full([res,] sizes..., value [, {dtype=, device=, requiresGrad=}]): sizes as numbers, a
--- table or a LongStorage; value a number or a boolean (a BoolTensor unless res or dtype says
--- otherwise: Note [full's dtype]). An integer type refuses a value it cannot hold (NaN, 300 in
--- a ByteTensor), as PyTorch; a fractional one is truncated toward zero.
--- Example: torch.full(2, 3, 7)
function torch.full(...)
  local o, args, i, n = parse('full', ...)
  if n < 2 then fail('full', 'expected sizes followed by a fill value, got %d argument(s)', n) end
  local value = args[n]
  local id = o.id
  if type(value) == 'boolean' then
    if o.res == nil and id == nil then id = lib.dtype.bool end
    value = value and 1 or 0
  end
  if type(value) ~= 'number' then
    fail('full', 'expected sizes followed by a fill value (a number or a boolean), got %s last', describe(value))
  end
  local t = sized('full', o.res, id, unpack(args, i, n - 1))
  types.check_value_pytorch('full', value, t.p.dtype)  -- Note [Floating fill values]
  check(C.tocha_tensor_fill(t.p, value))
  return finish('full', t, o.opts, o.device)
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

-- Runs the allocating C function (with the options' dtype or the default) or the _out one on res.
local function build(op, o, alloc, out, ...)
  if o.res then
    check(out(o.res.p, ...))
    return o.res
  end
  local args = { ... }
  args[#args + 1] = o.id or default_dtype()
  return finish(op, wrap(alloc(unpack(args))), o.opts, o.device)
end

-- An integer result cannot step by a fraction: arange(LongTensor, 0, 3, 0.5) gave {0, 0, 1, 1, 2,
-- 2}; PyTorch refuses (its step truncates to 0), and so did Torch7's range.
local function integer_step(op, o, step)
  local id = o.res and o.res.p.dtype or o.id or default_dtype()
  if not is_floating(id) and step ~= math.floor(step) then
    fail(op, 'step must be an integer for a %s result, got %s', o.res and types.typename(o.res) or types.tensor_name[id],
      tostring(step))
  end
end

--- torch.eye([res,] n [, m] [, options]): an n x m (default n x n) identity matrix.
--- Example: torch.eye(3)
function torch.eye(...)
  local o, args, i = parse('eye', ...)
  local n = count('eye', args[i], 'n')
  local m = count('eye', args[i + 1], 'm', n)
  return (build('eye', o, C.tocha_eye, C.tocha_eye_out, n, m))
end

--- torch.range([res,] x, y [, step=1] [, options]): x, x+step, ... up to y inclusive (Torch7).
--- Example: torch.range(1, 5, 2)
function torch.range(...)
  local o, args, i = parse('range', ...)
  local x, y = num('range', args[i], 'x'), num('range', args[i + 1], 'y')
  local step = num('range', args[i + 2], 'step', 1)
  integer_step('range', o, step)
  return (build('range', o, C.tocha_range, C.tocha_range_out, x, y, step))
end

--- torch.arange([res,] [start=0,] stop [, step=1] [, options]): start, start+step, ... below stop
--- (PyTorch: ceil((stop - start) / step) values).
--- Example: torch.arange(0, 1, 0.25)
function torch.arange(...)
  local o, args, i = parse('arange', ...)
  local a, b, step = args[i], args[i + 1], args[i + 2]
  if b == nil then a, b = 0, a end
  a, b, step = num('arange', a, 'start'), num('arange', b, 'stop'), num('arange', step, 'step', 1)
  integer_step('arange', o, step)
  return (build('arange', o, C.tocha_arange, C.tocha_arange_out, a, b, step))
end

--- torch.linspace([res,] a, b [, n=100] [, options]): n evenly spaced points from a to b.
--- Example: torch.linspace(0, 1, 5)
function torch.linspace(...)
  local o, args, i = parse('linspace', ...)
  return (build('linspace', o, C.tocha_linspace, C.tocha_linspace_out, num('linspace', args[i], 'a'),
    num('linspace', args[i + 1], 'b'), count('linspace', args[i + 2], 'n', 100)))
end

--- torch.logspace([res,] a, b [, n=100 [, base=10]] [, options]): n points from base^a to base^b.
--- Example: torch.logspace(0, 2, 3)
function torch.logspace(...)
  local o, args, i = parse('logspace', ...)
  return (build('logspace', o, C.tocha_logspace, C.tocha_logspace_out, num('logspace', args[i], 'a'),
    num('logspace', args[i + 1], 'b'), count('logspace', args[i + 2], 'n', 100),
    num('logspace', args[i + 3], 'base', 10)))
end

-- ---- random tensors --------------------------------------------------------------------------

local gen_and_args = torch._gen_and_args

-- Random draws need a floating type (PyTorch refuses integer ones too): a dtype option is checked
-- here, an integer res or x by the C fill ("[uniform] expects a floating-point tensor").
local function floating_dtype(op, opts, id)
  if id ~= nil and not is_floating(id) then fail(op, "expected a floating dtype, got '%s'", tostring(opts.dtype)) end
end

local function random_tensor(op, fill)
  return function(...)
    local o, args, i, n = parse(op, ...)
    local gen
    if torch._is_generator(args[i]) then gen, i = args[i], i + 1 end
    floating_dtype(op, o.opts, o.id)
    local t = sized(op, o.res, o.id, unpack(args, i, n))
    fill(t, gen)
    return finish(op, t, o.opts, o.device)
  end
end

--- torch.rand([res,] [gen,] sizes... [, options]): uniform on [0, 1); torch.randn: standard
--- normal. A floating type only.
--- Example: torch.manualSeed(1); local u, n = torch.rand(2, 3), torch.randn(4, {dtype = 'float64'})
torch.rand = random_tensor('rand', function(t, gen) return t:uniform(gen) end)
torch.randn = random_tensor('randn', function(t, gen) return t:normal(gen) end)

-- ---- *Like -------------------------------------------------------------------------------------

-- An uninitialized tensor with x's sizes and, unless the options say otherwise, x's type and
-- device; also the device to move it to.
local function like(op, x, opts)
  if not is_tensor(x) then fail(op, 'expected a tensor, got %s', describe(x)) end
  local id, device = resolve_opts(op, opts)
  local p = x.p
  return (wrap(C.tocha_tensor_empty(p.ndim, p.size, id or p.dtype, p.device_type, p.device_index))), device, id
end

--- torch.emptyLike(x [, {dtype=, device=, requiresGrad=}]): a new uninitialized tensor with x's
--- sizes, and x's type and device unless the options say otherwise (its contents are arbitrary).
--- Example: torch.emptyLike(torch.LongTensor(2, 3)):size()
function torch.emptyLike(x, opts)
  local t, device = like('emptyLike', x, opts)
  return (finish('emptyLike', t, opts, device))
end
--- torch.zerosLike(x [, options]): a new tensor of zeros with x's sizes, type and device (the
--- options as emptyLike).
--- Example: torch.zerosLike(torch.ones(2, 3))
function torch.zerosLike(x, opts)
  local t, device = like('zerosLike', x, opts)
  return (finish('zerosLike', t:zero(), opts, device))
end
--- torch.onesLike(x [, options]): a new tensor of ones with x's sizes, type and device.
--- Example: torch.onesLike(torch.IntTensor(2, 2), {dtype = 'float64'})
function torch.onesLike(x, opts)
  local t, device = like('onesLike', x, opts)
  return (finish('onesLike', t:fill(1), opts, device))
end
local function full_like(x, value, opts, check_value)
  local t, device = like('fullLike', x, opts)
  if type(value) == 'boolean' then value = value and 1 or 0 end
  if type(value) ~= 'number' then fail('fullLike', 'expected a fill value (a number), got %s', describe(value)) end
  check_value('fullLike', value, t.p.dtype)
  return (finish('fullLike', t:fill(value), opts, device))
end
--- torch.fullLike(x, value [, options]): a new tensor of value with x's sizes, type and device; a
--- type refuses a value it cannot hold (NaN or 300 in a ByteTensor, 1e300 in a FloatTensor), as
--- PyTorch (Note [Floating fill values]).
--- Example: torch.fullLike(torch.IntTensor(2, 2), 7)
function torch.fullLike(x, value, opts) return (full_like(x, value, opts, types.check_value_pytorch)) end
-- torch._filledLike(x, value): fullLike for numbers Tocha wraps the way PyTorch wraps a Python
-- scalar (special functions, distributions): a floating value out of range becomes inf, as there.
function torch._filledLike(x, value) return (full_like(x, value, nil, types.check_value)) end

local function random_like(op, fill, ...)
  local g, x, opts = gen_and_args(...)
  local t, device, id = like(op, x, opts)
  floating_dtype(op, opts, id)
  check(fill(t.p, g, 0, 1))
  return (finish(op, t, opts, device))
end
--- torch.randLike([gen,] x [, options]) and torch.randnLike([gen,] x [, options]): uniform on
--- [0, 1) and standard normal draws with x's sizes, type and device (a floating type).
--- Example: torch.manualSeed(1); local u, n = torch.randLike(torch.zeros(3)), torch.randnLike(torch.zeros(2, 2))
function torch.randLike(...) return (random_like('randLike', C.tocha_uniform_, ...)) end
function torch.randnLike(...) return (random_like('randnLike', C.tocha_normal_, ...)) end

-- x:zeros(2, 3) etc.: the res forms as methods.
for _, name in ipairs({ 'zeros', 'ones', 'full', 'empty', 'eye', 'range', 'arange', 'linspace', 'logspace',
                        'rand', 'randn' }) do
  local f = torch[name]
  methods[name] = function(self, ...) return (f(self, ...)) end
end

return torch
