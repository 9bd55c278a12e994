-- Pointwise ops as torch functions and tensor methods, installed from the op table (core/ops.def)
-- with Torch7's conventions: torch.f([res,] x, ...) allocates unless res is given; x:f(...) works
-- in place on x and returns it; x:f_(...) is the same. Comparisons return ByteTensor masks.
-- Also the arithmetic operators (+ - * / % ^ unary-).
--
-- Note [No tail calls on hot paths]: LuaJIT 2.1 counts every tail call recorded into a trace
-- against the loop unroll limit (15) and never resets the count on return, so a user's loop whose
-- body reaches 16 tail calls through our wrappers (is_tensor alone was 6 of them in
-- `(torch.cmul(x, w) + b):relu():sum()`) aborts recording and runs interpreted. The wrappers
-- of torch's hot modules therefore return `(f(...))`, an ordinary call, where f returns one value.
local ffi = require 'ffi'
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local C, wrap, check, fail = lib.C, lib.wrap, lib.check, lib.fail
local is_tensor, describe = types.is_tensor, types.describe
local methods = torch._tensor_methods

local UNARY, UNARY_FLOAT, BINARY, BINARY_FLOAT, COMPARE = 0, 1, 2, 3, 4
local UNARY_INT, BINARY_INT = 7, 8  -- integer and bool dtypes only (after POINTWISE 5, OTHER 6)

local function num(v)
  if type(v) == 'boolean' then return v and 1 or 0 end
  return v
end

-- Note [A boolean beside a BoolTensor]: PyTorch keeps bool op bool in bool (tensor([True]) + True is
-- tensor([True])); the number 1 would promote to Long. The boolean becomes a 0-dim tensor of the
-- operand's type (same device), which the engine's promotion keeps in bool.
local BOOL = lib.dtype.bool
local function boolean_operand(t, v)
  if t.p.dtype ~= BOOL then return v and 1 or 0 end
  return (methods.view(methods.fill(methods.resize(t.new(), 1), v and 1 or 0), torch.LongStorage()))
end

local function install_unary(name)
  local f, f_out = C['tocha_' .. name], C['tocha_' .. name .. '_out']
  -- torch.f(x) or torch.f(res, x)
  torch[name] = function(a, b)
    if b == nil then
      if not is_tensor(a) then fail(name, 'expected a tensor, got %s', describe(a)) end
      return (wrap(f(a.p)))
    end
    if not is_tensor(a) or not is_tensor(b) then fail(name, 'expected (res, tensor), got (%s, %s)', describe(a), describe(b)) end
    check(f_out(a.p, b.p))
    return a
  end
  -- x:f() in place; y:f(x) sets y = f(x)
  methods[name] = function(self, x)
    if x == nil then x = self elseif not is_tensor(x) then fail(name, 'expected a tensor, got %s', describe(x)) end
    check(f_out(self.p, x.p))
    return self
  end
  methods[name .. '_'] = methods[name]
end

-- Computes a (tensor|number) op b (tensor|number) into res (or a new tensor).
local function binary_apply(name, f, f_out, f_s, f_s_out, f_rs, res, a, b)
  if type(b) == 'boolean' and is_tensor(a) then b = boolean_operand(a, b) end
  if type(a) == 'boolean' and is_tensor(b) then a = boolean_operand(b, a) end
  if is_tensor(a) then
    if is_tensor(b) then
      if res then check(f_out(res.p, a.p, b.p)) return res end
      return (wrap(f(a.p, b.p)))
    elseif type(b) == 'number' then
      if res then check(f_s_out(res.p, a.p, b)) return res end
      return (wrap(f_s(a.p, b)))
    end
    fail(name, 'expected a tensor or a number as the second operand, got %s', describe(b))
  end
  a = num(a)
  if type(a) == 'number' and is_tensor(b) then
    local r = wrap(f_rs(a, b.p))
    if res then methods.resizeAs(res, r) methods.copy(res, r) return res end
    return r
  end
  fail(name, 'expected tensor or number operands, got %s and %s', describe(a), describe(b))
end

local function install_binary(name, kind)
  local f, f_out = C['tocha_' .. name], C['tocha_' .. name .. '_out']
  local f_s, f_s_out, f_rs = C['tocha_' .. name .. '_scalar'], C['tocha_' .. name .. '_scalar_out'], C['tocha_' .. name .. '_rscalar']
  local function apply(res, a, b) return (binary_apply(name, f, f_out, f_s, f_s_out, f_rs, res, a, b)) end
  torch[name] = function(a1, a2, a3)
    if a3 ~= nil then
      if not is_tensor(a1) then fail(name, 'expected a result tensor as argument 1, got %s', describe(a1)) end
      return (apply(a1, a2, a3))
    end
    return (apply(nil, a1, a2))
  end
  if kind == COMPARE then
    -- a:lt(b) returns a new ByteTensor mask; r:lt(a, b) writes into r.
    methods[name] = function(self, a1, a2)
      if a2 ~= nil then return (apply(self, a1, a2)) end
      return (apply(nil, self, a1))
    end
  else
    methods[name] = function(self, a1, a2)
      if a2 ~= nil then return (apply(self, a1, a2)) end
      return (apply(self, self, a1))
    end
  end
  methods[name .. '_'] = methods[name]
end

for i = 0, C.tocha_op_count() - 1 do
  local kind = C.tocha_op_kind(i)
  local name = ffi.string(C.tocha_op_name(i))
  if kind == UNARY or kind == UNARY_FLOAT or kind == UNARY_INT then install_unary(name)
  elseif kind == BINARY or kind == BINARY_FLOAT or kind == COMPARE or kind == BINARY_INT then install_binary(name, kind) end
end

-- add/sub with Torch7's multiplier: add([res,] x, [value,] y) = x + value*y; csub likewise.
local function install_scaled(name, plain, scaled, scaled_out)
  local function apply(res, a, alpha, b)
    if alpha == nil then
      -- a missing operand must not reach plain(res, a, nil): torch.add(res, a, nil) reads as the
      -- two-operand form and x:add(nil) returned x + x
      if b == nil then fail(name, 'expected a tensor or a number as the second operand, got nil') end
      return (plain(res, a, b))
    end
    if not is_tensor(a) or not is_tensor(b) or type(alpha) ~= 'number' then
      fail(name, 'expected (tensor, number, tensor), got (%s, %s, %s)', describe(a), describe(alpha), describe(b))
    end
    if res then check(scaled_out(res.p, a.p, alpha, b.p)) return res end
    return (wrap(scaled(a.p, alpha, b.p)))
  end
  torch[name] = function(a1, a2, a3, a4)
    if a4 ~= nil then return (apply(a1, a2, a3, a4)) end
    if a3 ~= nil then
      if is_tensor(a2) then return (apply(a1, a2, nil, a3)) end
      return (apply(nil, a1, a2, a3))
    end
    return (apply(nil, a1, nil, a2))
  end
  methods[name] = function(self, a1, a2, a3)
    if a3 ~= nil then return (apply(self, a1, a2, a3)) end
    if a2 ~= nil then
      if type(a1) == 'number' and is_tensor(a2) then return (apply(self, self, a1, a2)) end
      return (apply(self, a1, nil, a2))
    end
    return (apply(self, self, nil, a1))
  end
  methods[name .. '_'] = methods[name]
end
do
  local add, csub = torch.add, torch.csub
  install_scaled('add', function(res, a, b) if res then return (add(res, a, b)) end return (add(a, b)) end,
    C.tocha_add_alpha, C.tocha_add_alpha_out)
  install_scaled('csub', function(res, a, b) if res then return (csub(res, a, b)) end return (csub(a, b)) end,
    C.tocha_csub_alpha, C.tocha_csub_alpha_out)
end

-- Torch7 names for the tensor-tensor forms and other aliases.
for alias, name in pairs({ cmul = 'mul', cdiv = 'div', cpow = 'pow', cfmod = 'fmod', cremainder = 'remainder',
                           mod = 'fmod', cmod = 'fmod' }) do
  torch[alias] = torch[name]
  methods[alias] = methods[name]
  methods[alias .. '_'] = methods[name]
end

-- clamp([res,] x, min, max): either bound may be nil.
local function clamp_apply(res, x, lo, hi)
  if not is_tensor(x) then fail('clamp', 'expected a tensor, got %s', describe(x)) end
  if lo ~= nil and type(lo) ~= 'number' then fail('clamp', 'min must be a number, got %s', describe(lo)) end
  if hi ~= nil and type(hi) ~= 'number' then fail('clamp', 'max must be a number, got %s', describe(hi)) end
  if lo == nil and hi == nil then fail('clamp', 'at least one of min and max must be given') end
  local hl, hh = lo ~= nil and 1 or 0, hi ~= nil and 1 or 0
  if res then check(C.tocha_clamp_out(res.p, x.p, hl, lo or 0, hh, hi or 0)) return res end
  return (wrap(C.tocha_clamp(x.p, hl, lo or 0, hh, hi or 0)))
end
function torch.clamp(a1, a2, a3, a4)
  if is_tensor(a2) then return (clamp_apply(a1, a2, a3, a4)) end
  return (clamp_apply(nil, a1, a2, a3))
end
function methods.clamp(self, a1, a2, a3)
  if is_tensor(a1) then return (clamp_apply(self, a1, a2, a3)) end
  return (clamp_apply(self, self, a1, a2))
end
methods.clamp_ = methods.clamp

-- addcmul/addcdiv([res,] x, [value,] t1, t2)
local function install_addc(name, f, f_out)
  local function apply(res, x, value, t1, t2)
    if not is_tensor(x) or not is_tensor(t1) or not is_tensor(t2) or type(value) ~= 'number' then
      fail(name, 'expected ([res,] tensor, [value,] tensor, tensor), got (%s, %s, %s, %s)', describe(x), describe(value), describe(t1), describe(t2))
    end
    if res then check(f_out(res.p, x.p, value, t1.p, t2.p)) return res end
    return (wrap(f(x.p, value, t1.p, t2.p)))
  end
  torch[name] = function(a1, a2, a3, a4, a5)
    if a5 ~= nil then return (apply(a1, a2, a3, a4, a5)) end
    if a4 ~= nil then
      if is_tensor(a2) then return (apply(a1, a2, 1, a3, a4)) end
      return (apply(nil, a1, a2, a3, a4))
    end
    return (apply(nil, a1, 1, a2, a3))
  end
  methods[name] = function(self, a1, a2, a3, a4)
    if a4 ~= nil then return (apply(self, a1, a2, a3, a4)) end
    if a3 ~= nil then
      if type(a1) == 'number' then return (apply(self, self, a1, a2, a3)) end
      return (apply(self, a1, 1, a2, a3))
    end
    return (apply(self, self, 1, a1, a2))
  end
  methods[name .. '_'] = methods[name]
end
install_addc('addcmul', C.tocha_addcmul, C.tocha_addcmul_out)
install_addc('addcdiv', C.tocha_addcdiv, C.tocha_addcdiv_out)

-- lerp([res,] a, b, weight): a + weight * (b - a), weight a number or a tensor.
local function lerp_apply(res, a, b, w)
  if not is_tensor(a) or not is_tensor(b) then fail('lerp', 'expected two tensors, got %s and %s', describe(a), describe(b)) end
  local r
  if type(w) == 'number' then r = wrap(C.tocha_lerp_scalar(a.p, b.p, w))
  elseif is_tensor(w) then
    if res then check(C.tocha_lerp_out(res.p, a.p, b.p, w.p)) return res end
    r = wrap(C.tocha_lerp(a.p, b.p, w.p))
  else fail('lerp', 'weight must be a number or a tensor, got %s', describe(w)) end
  if res then
    -- x:lerp(y, w) works in place: a broadcast result of another shape (x 3x1, y 1x3 gives 3x3)
    -- is refused as the other in-place ops refuse it; resizing x here changed its shape silently.
    if rawequal(res, a) and not methods.isSameSizeAs(res, r) then
      fail('lerp', 'in-place result has size %s but the operation produces %s', types.shape_str(res.p), types.shape_str(r.p))
    end
    methods.resizeAs(res, r) methods.copy(res, r) return res
  end
  return r
end
function torch.lerp(a1, a2, a3, a4)
  if a4 ~= nil then return (lerp_apply(a1, a2, a3, a4)) end
  return (lerp_apply(nil, a1, a2, a3))
end
function methods.lerp(self, a1, a2, a3)
  if a3 ~= nil then return (lerp_apply(self, a1, a2, a3)) end
  return (lerp_apply(self, self, a1, a2))
end
methods.lerp_ = methods.lerp

--- torch.where(cond, a, b): elements of a where cond is non-zero, else of b (numbers allowed).
--- torch.where(cond) alone is torch.nonzero(cond, {asTuple = true}): one LongTensor of 1-based
--- indices per dim, as PyTorch's.
--- Example: torch.where(torch.ByteTensor({1, 0, 1}), torch.Tensor({1, 2, 3}), 0)
function torch.where(cond, a, b)
  if not is_tensor(cond) then fail('where', 'condition must be a tensor, got %s', describe(cond)) end
  if a == nil and b == nil then return torch.nonzero(cond, { asTuple = true }) end
  local ref = is_tensor(a) and a or (is_tensor(b) and b or nil)
  local function as_tensor(v)
    if is_tensor(v) then return v end
    if type(v) ~= 'number' then fail('where', 'expected a tensor or a number, got %s', describe(v)) end
    local dt = ref and ref.p.dtype or torch._default_dtype()
    local t = torch._new_tensor(0, nil, dt, v)
    -- a number joins the tensors' device (a CPU scalar would be a device mix)
    local on = ref or cond
    if on.p.device_type ~= 0 then t = t:to(on:device()) end
    return t
  end
  return (wrap(C.tocha_where(cond.p, as_tensor(a).p, as_tensor(b).p)))
end

--- Whether two tensors have the same size and elements (Torch7's equal).
--- Example: torch.equal(torch.ones(2), torch.Tensor({1, 1}))
function torch.equal(a, b)
  if not is_tensor(a) or not is_tensor(b) then fail('equal', 'expected two tensors, got %s and %s', describe(a), describe(b)) end
  local r = C.tocha_tensor_equal(a.p, b.p)
  if r < 0 then lib.raise() end
  return r == 1
end
methods.equal = torch.equal

-- ---- operators -------------------------------------------------------------------------------
local mt = torch._tensor_mt
mt.__add = function(a, b) return (torch.add(a, b)) end
mt.__sub = function(a, b) return (torch.csub(a, b)) end
mt.__div = function(a, b) return (torch.div(a, b)) end
mt.__mod = function(a, b) return (torch.remainder(a, b)) end
mt.__pow = function(a, b) return (torch.pow(a, b)) end
mt.__unm = function(a) return (torch.neg(a)) end
-- Torch7: tensor * tensor is dot (1D.1D), mv (2D.1D) or mm (2D.2D); with a number it scales.
-- A 0-dim tensor scales too (Torch7 had none; a full reduction under autograd is one, so
-- `a:sum() * b:sum()` is the product of two numbers, as in PyTorch).
mt.__mul = function(a, b)
  if is_tensor(a) and is_tensor(b) then
    local da, db = a.p.ndim, b.p.ndim
    if da == 0 or db == 0 then return (torch.cmul(a, b)) end
    if da == 1 and db == 1 then return (torch.dot(a, b)) end
    if da == 2 and db == 1 then return (torch.mv(a, b)) end
    if da == 2 and db == 2 then return (torch.mm(a, b)) end
    fail('mul', 'tensor * tensor is dot, mv or mm; got %dD * %dD (use cmul for elementwise products)', da, db)
  end
  return (torch.mul(a, b))
end

-- Note [Comparing one-element tensors]: a full reduction of a tensor that requires grad is a
-- 0-dim tensor (Note [Full reductions under autograd]); so that `if loss < best` and
-- `w:norm() > 10` keep working, < and <= compare one-element tensors with numbers (and with
-- each other) by value. Any other tensor comparison through these operators is an error
-- (use torch.lt / torch.le for elementwise comparisons).
local function scalar_of(x, op)
  if not is_tensor(x) then return x end
  if x.p.numel ~= 1 then
    fail(op, 'the %s operator compares one-element tensors with numbers; got a tensor of size %s (use torch.%s for elementwise comparison)',
      op == 'lt' and '<' or '<=', table.concat(x:size():totable(), 'x'), op)
  end
  return (x:item())
end
mt.__lt = function(a, b) return scalar_of(a, 'lt') < scalar_of(b, 'lt') end
mt.__le = function(a, b) return scalar_of(a, 'le') <= scalar_of(b, 'le') end

return torch
