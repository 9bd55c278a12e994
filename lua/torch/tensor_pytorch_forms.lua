-- PyTorch's keyword forms of existing functions as trailing option tables (add/csub/subtract
-- {alpha=}, addcmul/addcdiv {value=}, sort {dim=, descending=, stable=}), and small additions:
-- torch.angle for real tensors, x:dimOrder(), x.layout, x:toDense(), torch.resultType,
-- torch.setDefaultTensorType and the anomaly-mode switches.
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local doc = require 'torch.doc'
local C, fail, dt = lib.C, lib.fail, lib.dtype
local is_tensor, describe, check_tensor = types.is_tensor, types.describe, types.check_tensor
local methods, props = torch._tensor_methods, torch._tensor_hooks.properties

-- A plain table (no metatable) whose keys are all in `allowed`: PyTorch's keyword arguments.
local function options(op, v, allowed)
  if type(v) ~= 'table' or getmetatable(v) ~= nil then return nil end
  for k in pairs(v) do
    if type(k) ~= 'string' then return nil end
    if not allowed[k] then fail(op, "unknown option '%s'", k) end
  end
  return v
end

-- Note [Keyword forms]: f(..., {alpha = a}) becomes Torch7's f(..., a, y) (the scale goes before
-- the last `k` operands), so the existing function does the work and every older call form still
-- reaches it unchanged.
local function scaled(name, key, k, f)
  local allowed = { [key] = true }
  return function(...)
    local n = select('#', ...)
    local o = options(name, (select(n, ...)), allowed)
    if not o then return f(...) end
    local args = { ... }
    args[n] = nil
    local s = o[key]
    if s == nil then return f(unpack(args, 1, n - 1)) end
    if type(s) ~= 'number' then fail(name, '%s must be a number, got %s', key, describe(s)) end
    -- add(x, number, {alpha}): PyTorch's x + alpha * number; Torch7's scaled form takes a tensor
    if k == 1 and type(args[n - 1]) == 'number' then
      -- as the tensor form (and PyTorch) refuse a fractional alpha for integer x: folded into the
      -- number, add(LongTensor, 3, {alpha = 0.5}) had given a FloatTensor
      local x = args[n - 2]
      if is_tensor(x) and not torch._pytorch_is_floating(x.p.dtype) and s ~= math.floor(s) then
        fail(name, 'alpha %s must be an integer for a %s', tostring(s), x:type())
      end
      args[n - 1] = args[n - 1] * s
      return f(unpack(args, 1, n - 1))
    end
    table.insert(args, n - k, s)
    return f(unpack(args, 1, n))
  end
end
local subtract_was_csub = torch.subtract ~= nil and torch.subtract == torch.csub
local msubtract_was_csub = methods.subtract ~= nil and methods.subtract == methods.csub
for _, spec in ipairs({ { 'add', 'alpha', 1 }, { 'csub', 'alpha', 1 }, { 'addcmul', 'value', 2 },
                        { 'addcdiv', 'value', 2 } }) do
  local name, key, k = spec[1], spec[2], spec[3]
  local tf, mf = torch[name], methods[name]
  local old = doc.get(tf, 'torch.' .. name)
  torch[name] = scaled(name, key, k, tf)
  local m = scaled(name, key, k, mf)
  if methods[name .. '_'] == mf then methods[name .. '_'] = m end
  methods[name] = m
  if old then
    doc.register(torch[name], old.signature .. ' or torch.' .. name .. '(..., {' .. key .. ' = v})',
      (old.text or '') .. ' PyTorch\'s keyword form {' .. key .. ' = v} is accepted as a trailing table.', old.example)
  end
end
if subtract_was_csub then torch.subtract = torch.csub end
if msubtract_was_csub then methods.subtract, methods.subtract_ = methods.csub, methods.csub end

local sort0 = torch.sort
local SORT_OPTS = { dim = true, descending = true, stable = true }
--- torch.sort([resval, resind,] x [, dim] [, descending] [, {dim=, descending=, stable=}]): the
--- values and 1-based indices of x sorted along dim (default: the last), always stable (so
--- stable = true changes nothing); PyTorch's keywords come as a trailing table. x:sort(...) is
--- the same.
--- Example: torch.sort(torch.Tensor({3, 1, 2}), {descending = true})
function torch.sort(...)
  local n = select('#', ...)
  local o = options('sort', (select(n, ...)), SORT_OPTS)
  if not o then return sort0(...) end
  local args = { ... }
  args[n] = nil
  n = n - 1
  if o.stable ~= nil and type(o.stable) ~= 'boolean' then fail('sort', 'stable must be a boolean, got %s', describe(o.stable)) end
  -- positional dim/descending after the tensor argument(s) give way to the options
  local last_tensor = 0
  for i = 1, n do if is_tensor(args[i]) then last_tensor = i end end
  local dim, desc = args[last_tensor + 1], args[last_tensor + 2]
  if type(dim) == 'boolean' then dim, desc = nil, dim end
  if o.dim ~= nil then dim = o.dim end
  if o.descending ~= nil then desc = o.descending end
  args[last_tensor + 1], args[last_tensor + 2] = dim, desc
  return sort0(unpack(args, 1, last_tensor + 2))
end
methods.sort = torch.sort

--- torch.angle(x): the argument of each (real) element: 0 for x >= 0, pi for x < 0, NaN for NaN,
--- in the default floating type for integer x (PyTorch's angle of a real tensor; its gradient is
--- 0). x:angle() works in place (floating x).
--- Example: torch.angle(torch.Tensor({1, -2, 0}))
local function angle(x)
  check_tensor('angle', x, 1)
  -- converted on x's device: x:type('torch.FloatTensor') brought a CUDA integer tensor to the host
  if not torch._pytorch_is_floating(x.p.dtype) then x = lib.wrap(C.tocha_tensor_to_dtype(x.p, torch._default_dtype())) end
  local r = torch.where(torch.lt(x, 0), x:newFull({}, math.pi), 0)
  -- the NaNs of x stay NaN (taken from x detached: where(isnan(x), x, r) sent x's gradient
  -- through at the NaNs, where PyTorch's angle has a zero gradient everywhere)
  r = torch.where(torch.isnan(x), x:detach(), r)
  if x:needsGrad() then
    -- keeps x's graph with a zero gradient: 0 * x at finite x (0 * inf would be NaN)
    r = r + torch.where(torch.isfinite(x), x, 0) * 0
  end
  return r
end
if torch.angle == nil then torch.angle = angle end
if methods.angle == nil then
  function methods.angle(x)
    check_tensor('angle', x, 1)
    -- the angles are floating point: an integer x would have kept 3 for pi
    if not torch._pytorch_is_floating(x.p.dtype) then
      fail('angle', 'result of type %s cannot be written into a %s', torch.getdefaulttensortype(), x:type())
    end
    return (x:copy(angle(x)))
  end
  methods.angle_ = methods.angle
end

--- x:dimOrder(): the dims of x (1-based) from the outermost to the innermost in memory, by
--- decreasing stride (ties keep the dim order), PyTorch 2's dim_order.
--- Example: torch.zeros(2, 3):t():dimOrder()
function methods.dimOrder(x)
  check_tensor('dimOrder', x, 1)
  local order = {}
  for i = 1, x:dim() do order[i] = i end
  table.sort(order, function(a, b)
    local sa, sb = x:stride(a), x:stride(b)
    if sa ~= sb then return sa > sb end
    return a < b
  end)
  return order
end
if props.layout == nil then
  --- x.layout (a property): 'strided', the layout of every dense Tocha tensor.
  --- Example: torch.zeros(2).layout
  props.layout = function() return 'strided' end
end
if methods.toDense == nil then
  --- x:toDense(): x itself, already dense (PyTorch's to_dense of a strided tensor).
  --- Example: torch.ones(2):toDense()
  function methods.toDense(x) return (check_tensor('toDense', x, 1)) end
end
if torch.setDefaultTensorType == nil then torch.setDefaultTensorType = torch.setdefaulttensortype end
--- torch.isAnomalyEnabled(): whether anomaly detection (torch.autograd.detectAnomaly) is on.
--- Example: torch.isAnomalyEnabled()
function torch.isAnomalyEnabled() return C.tocha_is_anomaly_enabled() ~= 0 end
--- torch.setAnomalyEnabled(on): turns anomaly detection on or off for the code that follows
--- (torch.autograd.setDetectAnomaly).
--- Example: torch.setAnomalyEnabled(false)
function torch.setAnomalyEnabled(on)
  if type(on) ~= 'boolean' then fail('setAnomalyEnabled', 'expected a boolean, got %s', describe(on)) end
  torch.autograd.setDetectAnomaly(on)
end

-- ---- resultType --------------------------------------------------------------------------------
local CAT = { [dt.bool] = 0, [dt.u8] = 1, [dt.i8] = 1, [dt.i16] = 1, [dt.i32] = 1, [dt.i64] = 1, [dt.f16] = 2,
  [dt.bf16] = 2, [dt.f32] = 2, [dt.f64] = 2 }
local function promote(a, b)
  if a == nil then return b end
  if b == nil then return a end
  local name = torch.promoteTypes(torch._pytorch_dtype_name[a], torch._pytorch_dtype_name[b])
  return (torch._pytorch_dtype_id('resultType', name))
end
-- PyTorch's combine_categories: the higher-priority result wins unless the lower one is of a
-- higher category (bool < integer < floating point).
local function combine(higher, lower)
  if higher == nil then return lower end
  if lower == nil or CAT[higher] == 2 then return higher end
  if higher == dt.bool or CAT[lower] == 2 then return promote(higher, lower) end
  return higher
end
--- torch.resultType(a, b): the dtype name PyTorch's type promotion gives an op on a and b
--- (tensors or numbers): tensors with dims outrank 0-dim tensors, which outrank numbers, unless the
--- lower one is of a higher category (bool < integer < floating point); a Lua number is an integer
--- (int64) when integral, else of the default floating type; booleans are bool.
--- Example: torch.resultType(torch.LongTensor({1}), 2.5)
function torch.resultType(a, b)
  local dims, zero, wrapped
  for i, v in ipairs({ a, b }) do
    if is_tensor(v) then
      local id = tonumber(v.p.dtype)
      if v:dim() > 0 then dims = promote(dims, id) else zero = promote(zero, id) end
    elseif type(v) == 'number' then
      local id = v == math.floor(v) and v == v and math.abs(v) ~= math.huge and dt.i64 or torch._default_dtype()
      wrapped = promote(wrapped, tonumber(id))
    elseif type(v) == 'boolean' then
      wrapped = promote(wrapped, dt.bool)
    else
      fail('resultType', 'argument %d must be a tensor, a number or a boolean, got %s', i, describe(v))
    end
  end
  return torch._pytorch_dtype_name[combine(dims, combine(zero, wrapped))]
end
