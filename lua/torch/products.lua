-- PyTorch's product functions: torch.matmul, torch.outer, torch.tensordot and torch.einsum, built
-- in C on the BLAS ops (Notes [matmul plan] in core/ops/matmul.cpp and [einsum plan] in
-- core/ops/einsum.cpp), so they are differentiable and run on every device those ops do. Torch7's
-- products (dot, mv, mm, bmm, ger and `x * y`) are unchanged, in torch.linalg.
local ffi = require 'ffi'
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local C, wrap, check, fail = lib.C, lib.wrap, lib.check, lib.fail
local is_tensor, describe, cdim = types.is_tensor, types.describe, types.cdim
local methods = torch._tensor_methods

local MAX_DIMS = 16

-- torch.f([res,] a, b) as torch.mm has it; res:f(a, b) fills res and a:f(b) returns a new tensor
-- (PyTorch's a.matmul(b); Torch7 had no one-argument method form).
local function install_product(name)
  local f, f_out = C['tocha_' .. name], C['tocha_' .. name .. '_out']
  local function apply(res, a, b)
    if not is_tensor(a) or not is_tensor(b) then
      fail(name, 'expected tensors ([res,] a, b), got %s and %s', describe(a), describe(b))
    end
    if res then
      check(f_out(res.p, a.p, b.p))
      return res
    end
    return (wrap(f(a.p, b.p)))
  end
  torch[name] = function(a1, a2, a3)
    if a3 ~= nil then
      if not is_tensor(a1) then fail(name, 'expected a result tensor as argument 1, got %s', describe(a1)) end
      return (apply(a1, a2, a3))
    end
    return (apply(nil, a1, a2))
  end
  methods[name] = function(self, a1, a2)
    if a2 ~= nil then return (apply(self, a1, a2)) end
    return (apply(nil, self, a1))
  end
end

--- torch.matmul([res,] a, b): PyTorch's matrix product by rank: two vectors give their dot
--- product as a 0-dim tensor, a matrix and a vector mv, two matrices mm, a vector first is a row
--- (1D.2D), and higher ranks a batched product whose batch dims (all but the last two)
--- broadcast: 10x1x3x4 with 5x4x2 gives 10x5x3x2. a and b share a dtype (as mm; integers too).
--- A new tensor, or res resized and filled (then returned). a:matmul(b) returns a new tensor and
--- res:matmul(a, b) fills res. Differentiable.
--- Example: torch.matmul(torch.ones(10, 1, 3, 4), torch.ones(5, 4, 2)):size()
install_product('matmul')

--- torch.outer([res,] a, b): the outer product of two vectors, element (i, j) = a[i] * b[j]: a
--- new n x m tensor, or res resized and filled (PyTorch's name for torch.ger). a:outer(b)
--- returns a new tensor. Differentiable.
--- Example: torch.outer(torch.Tensor({1, 2}), torch.Tensor({1, 2, 3}))
install_product('outer')

local dims_a = ffi.new('int64_t[?]', MAX_DIMS)
local dims_b = ffi.new('int64_t[?]', MAX_DIMS)

-- One side of tensordot's dims: a number or a table of numbers, 1-based dims of x.
local function read_side(x, side, buf, which)
  if type(side) == 'number' then side = { side } end
  if type(side) ~= 'table' or getmetatable(side) ~= nil then
    fail('tensordot', 'dims of %s must be a number or a table of numbers, got %s', which, describe(side))
  end
  local n = table.maxn(side)
  if n > MAX_DIMS then fail('tensordot', 'at most %d dims of %s, got %d', MAX_DIMS, which, n) end
  for i = 1, n do
    if type(side[i]) ~= 'number' then
      fail('tensordot', 'dim %d of %s is a %s, expected a number', i, which, describe(side[i]))
    end
    buf[i - 1] = cdim('tensordot', side[i], x.p.ndim)
  end
  return n
end

--- torch.tensordot(a, b [, dims]): sums products over dims of a paired with dims of b. dims is
--- a number n (default 2: the last n dims of a against the first n of b) or a table of two
--- lists of 1-based dims, {{3, 4}, {1, 2}}; paired dims have equal sizes (or one is 1). The
--- result has a's other dims, then b's. One mm after permute and reshape. Differentiable.
--- Example: torch.tensordot(torch.ones(2, 3, 4), torch.ones(3, 4, 5), 2):size()
function torch.tensordot(a, b, dims)
  if not is_tensor(a) or not is_tensor(b) then
    fail('tensordot', 'expected tensors (a, b [, dims]), got %s and %s', describe(a), describe(b))
  end
  if dims == nil then dims = 2 end
  if type(dims) == 'number' then
    if dims ~= math.floor(dims) then fail('tensordot', 'dims must be an integer, got %s', tostring(dims)) end
    -- checked here: the C side takes an int, and the FFI would wrap 1e10 to a negative count
    if dims < 0 or dims > MAX_DIMS then
      fail('tensordot', 'cannot contract the last %s dims of a (%d dims) with the first %s of b (%d dims)',
        tostring(dims), a.p.ndim, tostring(dims), b.p.ndim)
    end
    return (wrap(C.tocha_tensordot(a.p, b.p, dims)))
  end
  if type(dims) ~= 'table' or getmetatable(dims) ~= nil or table.maxn(dims) ~= 2 then
    fail('tensordot', 'dims must be a number or a table of two lists ({{dims of a}, {dims of b}}), got %s',
      type(dims) == 'table' and 'a table of ' .. table.maxn(dims) .. ' elements' or describe(dims))
  end
  local na = read_side(a, dims[1], dims_a, 'a')
  local nb = read_side(b, dims[2], dims_b, 'b')
  if na ~= nb then fail('tensordot', 'got %d dims of a but %d dims of b to contract', na, nb) end
  return (wrap(C.tocha_tensordot_dims(a.p, b.p, na, dims_a, dims_b)))
end

-- Note [einsum sublists]: PyTorch's torch.einsum(op1, sublist1, op2, sublist2, ..., [sublistOut])
-- names each operand's dims by a list of integers in 0..51 (and Ellipsis, here the string '...').
-- They are labels, not dims or indices, so they stay 0-based as PyTorch's (a sublist written for
-- PyTorch means the same here); they become the equation's letters as PyTorch maps them, 0..25 to
-- A..Z and 26..51 to a..z, so an implicit output (no sublistOut) has the same order: ascending
-- numbers. The equation then runs as any other.
local function sublist_terms(list, what)
  if type(list) ~= 'table' or getmetatable(list) ~= nil then
    fail('einsum', "expected %s (a table of integers in 0..51 or '...'), got %s", what, describe(list))
  end
  local n, term = table.maxn(list), {}
  for j = 1, n do
    local v = list[j]
    if v == '...' then
      term[j] = '...'
    elseif type(v) == 'number' and v == math.floor(v) and v >= 0 and v < 52 then
      term[j] = string.char(v < 26 and 65 + v or 71 + v)  -- 'A' + v, 'a' + v - 26
    else
      fail('einsum', "%s: entry %d must be an integer in 0..51 or '...', got %s", what, j,
        type(v) == 'number' and tostring(v) or describe(v))
    end
  end
  return table.concat(term)
end

-- (equation, operands) of torch.einsum(op1, sublist1, ..., [sublistOut]) (Note [einsum sublists]).
local function sublist_equation(...)
  local n, args = select('#', ...), { ... }
  local terms, ops = {}, {}
  local i = 1
  while i <= n do
    local k = #ops + 1
    if not is_tensor(args[i]) then
      if i == n and k > 1 then break end  -- the output's sublist
      fail('einsum', 'sublist form: argument %d should be operand %d (a tensor), got %s', i, k, describe(args[i]))
    end
    if i == n then fail('einsum', 'sublist form: operand %d has no sublist after it', k) end
    ops[k] = args[i]
    terms[k] = sublist_terms(args[i + 1], 'the sublist of operand ' .. k)
    i = i + 2
  end
  local eq = table.concat(terms, ',')
  if i == n then eq = eq .. '->' .. sublist_terms(args[n], 'the output sublist') end
  return eq, ops
end

--- torch.einsum(equation, a, b, ...): Einstein summation as PyTorch's: one comma-separated term
--- of labels (a-z, A-Z) per operand, '->' before the output's labels (without it: the labels
--- used once, in alphabetical order); labels absent from the output are summed, a label repeated
--- in a term takes the diagonal ('ii->i'), '...' stands for broadcast dims, and a label's size
--- broadcasts from 1. The operands may also come as one table: torch.einsum(equation, {a, b}).
--- They are contracted left to right, one mm or bmm per pair; the result has the operands' dtype
--- and never shares their storage. Differentiable. PyTorch's sublist form works too:
--- torch.einsum(a, {0, 1}, b, {1, 2}[, {0, 2}]) (Note [einsum sublists]).
--- Example: torch.einsum('bij,bjk->bik', torch.ones(2, 3, 4), torch.ones(2, 4, 5)):size()
function torch.einsum(equation, ...)
  if is_tensor(equation) then
    local second = ...
    if type(second) ~= 'table' or getmetatable(second) ~= nil then  -- a forgotten equation, most likely
      fail('einsum', 'expected an equation (a string) first, got %s (or a sublist after it: torch.einsum(a, {0, 1}, ...))',
        describe(equation))
    end
    return torch.einsum(sublist_equation(equation, ...))
  end
  if type(equation) ~= 'string' then
    fail('einsum', 'expected an equation (a string) first, got %s', describe(equation))
  end
  -- the C side reads the equation up to a NUL: 'ij\0->i' would run as 'ij' (a wrong result)
  local nul = equation:find('\0', 1, true)
  if nul then fail('einsum', 'the equation has a NUL character at position %d', nul) end
  local list = { ... }
  local n = select('#', ...)
  if n == 1 and type(list[1]) == 'table' and getmetatable(list[1]) == nil then
    list = list[1]
    n = table.maxn(list)
  end
  if n == 0 then fail('einsum', "expected at least one operand for '%s'", equation) end
  local arr = ffi.new('const tocha_tensor *[?]', n)
  for i = 1, n do
    if not is_tensor(list[i]) then fail('einsum', 'operand %d is %s, expected a tensor', i, describe(list[i])) end
    arr[i - 1] = list[i].p
  end
  return (wrap(C.tocha_einsum(equation, n, arr)))
end

return torch
