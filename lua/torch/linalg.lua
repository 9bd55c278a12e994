-- BLAS products as torch functions and tensor methods, with Torch7's call forms: torch.dot(x, y)
-- returns a number; torch.mv/mm/bmm/ger([res,] a, b); torch.addmm/addmv/addr/addbmm/baddbmm
-- ([res,] [v1,] M, [v2,] a, b) = v1 * M + v2 * product (or PyTorch's ([res,] M, a, b, {beta =,
-- alpha =})), and their method forms (M:addmm(a, b) updates M). The LAPACK functions live in
-- torch.lapack, loaded from here.
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local C, wrap, check, fail = lib.C, lib.wrap, lib.check, lib.fail
local is_tensor, describe = types.is_tensor, types.describe
local methods = torch._tensor_methods

local function describe_args(args, n)
  local parts = {}
  for i = 1, n do parts[i] = describe(args[i]) end
  return '(' .. table.concat(parts, ', ') .. ')'
end

--- torch.dot(x, y): the sum of x[i] * y[i] as a number (tensors with equal element counts); a
--- 0-dim tensor when an input requires grad (Note [Full reductions under autograd]).
--- Example: torch.dot(torch.Tensor({1, 2, 3}), torch.Tensor({4, 5, 6}))
function torch.dot(x, y)
  if not is_tensor(x) or not is_tensor(y) then
    fail('dot', 'expected two tensors, got %s and %s', describe(x), describe(y))
  end
  local r = wrap(C.tocha_dot(x.p, y.p))
  if torch._reduce_util.tracked(x) or torch._reduce_util.tracked(y) then return r end
  return types.read(r.p, r.p.storage_offset)
end
methods.dot = torch.dot

-- mv, mm, bmm, ger: torch.f([res,] a, b). res:f(a, b) writes into res (Torch7); a:f(b) returns a
-- new tensor (PyTorch's a.mm(b); Torch7 had no one-argument method form).
local function install_product(name, na, nb)
  local f, f_out = C['tocha_' .. name], C['tocha_' .. name .. '_out']
  local function apply(res, a, b)
    if not is_tensor(a) or not is_tensor(b) then
      fail(name, 'expected tensors ([res,] %s, %s), got %s and %s', na, nb, describe(a), describe(b))
    end
    if res then
      check(f_out(res.p, a.p, b.p))
      return res
    end
    return wrap(f(a.p, b.p))
  end
  torch[name] = function(a1, a2, a3)
    if a3 ~= nil then
      if not is_tensor(a1) then fail(name, 'expected a result tensor as argument 1, got %s', describe(a1)) end
      return apply(a1, a2, a3)
    end
    return apply(nil, a1, a2)
  end
  methods[name] = function(self, a1, a2)
    if a2 ~= nil then return apply(self, a1, a2) end
    return apply(nil, self, a1)
  end
end
--- torch.mv([res,] mat, vec): the matrix-vector product of mat (n x m) and vec (m), a new 1D
--- tensor of size n, or res resized and filled (then returned). res:mv(mat, vec) fills res;
--- mat:mv(vec) returns a new tensor.
--- Example: torch.mv(torch.Tensor({{1, 2}, {3, 4}}), torch.Tensor({1, 1}))
install_product('mv', 'mat', 'vec')
--- torch.mm([res,] a, b): the matrix product of a (n x m) and b (m x p), a new n x p tensor, or
--- res resized and filled (then returned). res:mm(a, b) fills res; a:mm(b) returns a new tensor.
--- The * operator on two matrices is the same product.
--- Example: torch.mm(torch.ones(2, 3), torch.ones(3, 4))
install_product('mm', 'a', 'b')
--- torch.bmm([res,] batch1, batch2): batched matrix product: batch1 (b x n x m) times batch2
--- (b x m x p) is a new b x n x p tensor whose slice i is batch1[i] * batch2[i], or res resized
--- and filled (then returned). res:bmm(batch1, batch2) fills res; batch1:bmm(batch2) returns a
--- new tensor.
--- Example: torch.bmm(torch.ones(5, 2, 3), torch.ones(5, 3, 4)):size()
install_product('bmm', 'batch1', 'batch2')
--- torch.ger([res,] vec1, vec2): the outer product of vec1 (n) and vec2 (m), a new n x m tensor
--- with element (i, j) = vec1[i] * vec2[j], or res resized and filled (then returned).
--- res:ger(vec1, vec2) fills res; vec1:ger(vec2) returns a new tensor.
--- Example: torch.ger(torch.Tensor({1, 2}), torch.Tensor({1, 2, 3}))
install_product('ger', 'vec1', 'vec2')

-- Note [Product call forms]: torch.f([res,] [v1,] M, [v2,] a, b) is Torch7's call; PyTorch's
-- keywords come as a trailing table, torch.f([res,] M, a, b, {beta = v1, alpha = v2}) (not mixed
-- with positional multipliers; unknown keys are refused as in Note [Unknown options],
-- stats_more.lua). nn.Linear and Torch7 code call these in tight loops, so the entry points
-- take fixed parameters and tell the forms apart by their count and types: no varargs, no
-- argument tables, no loops (a vararg version with a loop over the arguments made LuaJIT's
-- traces abort, ~13 us per 16x16 torch.addmm(res, M, a, b) against ~0.4 us for the C call).
-- beta = 0 ignores NaN and inf in M (the C ops do not read M then), as PyTorch documents.

-- The addend part ([res,] [v1,] M, [v2,]) of k arguments x1..xk: res, v1, M, v2 (M nil when the
-- arguments fit no form).
local function addend(x1, x2, x3, x4, k)
  if k == 1 then
    if is_tensor(x1) then return nil, 1, x1, 1 end
  elseif k == 2 then
    if is_tensor(x2) then
      if is_tensor(x1) then return x1, 1, x2, 1 end
      if type(x1) == 'number' then return nil, x1, x2, 1 end
    elseif type(x2) == 'number' and is_tensor(x1) then
      return nil, 1, x1, x2
    end
  elseif k == 3 then
    if is_tensor(x1) then
      if is_tensor(x2) and type(x3) == 'number' then return x1, 1, x2, x3 end
      if type(x2) == 'number' and is_tensor(x3) then return x1, x2, x3, 1 end
    elseif type(x1) == 'number' and is_tensor(x2) and type(x3) == 'number' then
      return nil, x1, x2, x3
    end
  elseif k == 4 then
    if is_tensor(x1) and type(x2) == 'number' and is_tensor(x3) and type(x4) == 'number' then
      return x1, x2, x3, x4
    end
  end
  return nil, nil, nil, nil
end

local function is_opts(v) return type(v) == 'table' and getmetatable(v) == nil end

-- beta, alpha of an options table (Note [Product call forms]).
local function read_opts(name, o)
  local beta, alpha = 1, 1
  for k, v in pairs(o) do
    if k == 'beta' or k == 'alpha' then
      if type(v) ~= 'number' then fail(name, '%s must be a number, got %s', k, describe(v)) end
      if k == 'beta' then beta = v else alpha = v end
    elseif type(k) == 'number' then
      fail(name, 'options must be given by name ({beta = ..., alpha = ...}), got a list entry [%d] = %s', k, describe(v))
    else
      fail(name, "unknown option '%s' (expected beta, alpha)", tostring(k))
    end
  end
  return beta, alpha
end

-- The number of arguments up to the last non-nil one (at most 7 are read).
local function count(a1, a2, a3, a4, a5, a6, a7)
  if a7 ~= nil then return 7 elseif a6 ~= nil then return 6 elseif a5 ~= nil then return 5
  elseif a4 ~= nil then return 4 elseif a3 ~= nil then return 3 elseif a2 ~= nil then return 2
  elseif a1 ~= nil then return 1 end
  return 0
end


-- addmm, addmv, addr, addbmm, baddbmm.
local function install_add_product(name, nm, na, nb)
  local f, f_out = C['tocha_' .. name], C['tocha_' .. name .. '_out']
  local usage = string.format('([res,] [v1,] %s, [v2,] %s, %s) or ([res,] %s, %s, %s, {beta =, alpha =})',
    nm, na, nb, nm, na, nb)
  local function apply(res, v1, M, v2, a, b)
    if res then
      check(f_out(res.p, v1, M.p, v2, a.p, b.p))
      return res
    end
    return (wrap(f(v1, M.p, v2, a.p, b.p)))
  end
  local function with_opts(res, M, a, b, o)
    local beta, alpha = read_opts(name, o)
    return apply(res, beta, M, alpha, a, b)
  end
  local function bad(how, a1, a2, a3, a4, a5, a6, a7, a8)
    local n = count(a1, a2, a3, a4, a5, a6, a7)
    if a8 ~= nil then n = 8 end
    local args = { a1, a2, a3, a4, a5, a6, a7, a8 }
    local extra = ''
    if n > 0 and is_opts(args[n]) then
      extra = ' (an options table replaces the multipliers v1 and v2: give one or the other)'
    end
    fail(name, 'expected %s, got %s%s', how, describe_args(args, n), extra)
  end
  torch[name] = function(a1, a2, a3, a4, a5, a6, a7)
    local n = count(a1, a2, a3, a4, a5, a6, a7)
    if n == 3 then
      if is_tensor(a1) and is_tensor(a2) and is_tensor(a3) then return apply(nil, 1, a1, 1, a2, a3) end
    elseif n == 4 then
      if is_tensor(a4) and is_tensor(a3) then
        local res, v1, M, v2 = addend(a1, a2, nil, nil, 2)
        if M then return apply(res, v1, M, v2, a3, a4) end
      elseif is_opts(a4) and is_tensor(a1) and is_tensor(a2) and is_tensor(a3) then
        return with_opts(nil, a1, a2, a3, a4)
      end
    elseif n == 5 then
      if is_tensor(a5) and is_tensor(a4) then
        local res, v1, M, v2 = addend(a1, a2, a3, nil, 3)
        if M then return apply(res, v1, M, v2, a4, a5) end
      elseif is_opts(a5) and is_tensor(a1) and is_tensor(a2) and is_tensor(a3) and is_tensor(a4) then
        return with_opts(a1, a2, a3, a4, a5)
      end
    elseif n == 6 then
      if is_tensor(a6) and is_tensor(a5) then
        local res, v1, M, v2 = addend(a1, a2, a3, a4, 4)
        if M then return apply(res, v1, M, v2, a5, a6) end
      end
    end
    return bad(usage, a1, a2, a3, a4, a5, a6, a7)
  end
  -- Torch7's method forms: self:f(a, b) and self:f(v2, a, b) and self:f(v1, v2, a, b) update self,
  -- as does self:f(a, b, {beta =, alpha =}); self:f([v1,] M, [v2,] a, b [, opts]) sets self = v1 *
  -- M + v2 * product. Note [Product methods work in place]: PyTorch's M.addmm(a, b) returns a new
  -- tensor and only M.addmm_(a, b) updates M, but Torch7 code (nn.Linear's gradWeight:addmm)
  -- relies on M:addmm(a, b) updating M, so both method names update in place here; the PyTorch
  -- form that returns a new tensor is torch.addmm(M, a, b).
  local musage = string.format('([v1,] [%s,] [v2,] %s, %s) or ([%s,] %s, %s, {beta =, alpha =})',
    nm, na, nb, nm, na, nb)
  methods[name] = function(self, a1, a2, a3, a4, a5, a6)
    if not is_tensor(self) then
      fail(name, 'expected a tensor to call the method on, got %s', describe(self))
    end
    local n = count(a1, a2, a3, a4, a5, a6)
    if n == 2 then
      if is_tensor(a1) and is_tensor(a2) then return apply(self, 1, self, 1, a1, a2) end
    elseif n == 3 then
      if is_tensor(a3) and is_tensor(a2) then
        if type(a1) == 'number' then return apply(self, 1, self, a1, a2, a3) end
        if is_tensor(a1) then return apply(self, 1, a1, 1, a2, a3) end
      elseif is_opts(a3) and is_tensor(a1) and is_tensor(a2) then
        return with_opts(self, self, a1, a2, a3)
      end
    elseif n == 4 then
      if is_tensor(a4) and is_tensor(a3) then
        if type(a1) == 'number' and type(a2) == 'number' then return apply(self, a1, self, a2, a3, a4) end
        local res, v1, M, v2 = addend(a1, a2, nil, nil, 2)
        if M and not res then return apply(self, v1, M, v2, a3, a4) end
      elseif is_opts(a4) and is_tensor(a1) and is_tensor(a2) and is_tensor(a3) then
        return with_opts(self, a1, a2, a3, a4)
      end
    elseif n == 5 then
      if is_tensor(a5) and is_tensor(a4) then
        local res, v1, M, v2 = addend(a1, a2, a3, nil, 3)
        if M and not res then return apply(self, v1, M, v2, a4, a5) end
      end
    end
    return bad(musage, a1, a2, a3, a4, a5, a6)
  end
  methods[name .. '_'] = methods[name]
end
--- torch.addmm([res,] [v1,] M, [v2,] mat1, mat2): v1 * M + v2 * (mat1 x mat2) for M (n x p),
--- mat1 (n x m) and mat2 (m x p); v1 and v2 default to 1. Returns a new tensor, or res filled.
--- PyTorch's keywords as a last table: torch.addmm([res,] M, mat1, mat2, {beta = v1, alpha = v2});
--- beta = 0 ignores M (NaN and inf in it too). The method M:addmm([v1,] [v2,] mat1, mat2) and
--- M:addmm(mat1, mat2, {beta =, alpha =}) update M in place, as does M:addmm_ (Torch7's meaning,
--- Note [Product methods work in place]).
--- Example: torch.addmm(torch.zeros(2, 2), torch.ones(2, 3), torch.ones(3, 2), {beta = 0.5, alpha = 2})
install_add_product('addmm', 'M', 'mat1', 'mat2')
--- torch.addmv([res,] [v1,] vec1, [v2,] mat, vec2): v1 * vec1 + v2 * (mat x vec2) for vec1 (n),
--- mat (n x m) and vec2 (m); v1 and v2 default to 1. Returns a new tensor, or res filled.
--- Also torch.addmv([res,] vec1, mat, vec2, {beta = v1, alpha = v2}). The method
--- vec1:addmv([v1,] [v2,] mat, vec2 [, {beta =, alpha =}]) updates vec1 in place (as does vec1:addmv_).
--- Example: torch.addmv(torch.ones(2), torch.ones(2, 3), torch.ones(3))
install_add_product('addmv', 'vec1', 'mat', 'vec2')
--- torch.addr([res,] [v1,] M, [v2,] vec1, vec2): v1 * M + v2 * the outer product of vec1 (n) and
--- vec2 (m), for M (n x m); v1 and v2 default to 1. Returns a new tensor, or res filled. Also
--- torch.addr([res,] M, vec1, vec2, {beta = v1, alpha = v2}). The method M:addr([v1,] [v2,] vec1,
--- vec2 [, {beta =, alpha =}]) updates M in place (as does M:addr_).
--- Example: torch.addr(torch.zeros(2, 2), torch.Tensor({1, 2}), torch.Tensor({1, 2}))
install_add_product('addr', 'M', 'vec1', 'vec2')
--- torch.addbmm([res,] [v1,] M, [v2,] batch1, batch2): v1 * M + v2 * the sum over i of
--- batch1[i] x batch2[i], for batch1 (b x n x m), batch2 (b x m x p) and M (n x p); v1 and v2
--- default to 1. Returns a new tensor, or res filled. Also torch.addbmm([res,] M, batch1, batch2,
--- {beta = v1, alpha = v2}). The method M:addbmm([v1,] [v2,] batch1, batch2 [, {beta =, alpha =}])
--- updates M in place (as does M:addbmm_).
--- Example: torch.addbmm(torch.zeros(2, 2), torch.ones(4, 2, 3), torch.ones(4, 3, 2))
install_add_product('addbmm', 'M', 'batch1', 'batch2')
--- torch.baddbmm([res,] [v1,] M, [v2,] batch1, batch2): v1 * M + v2 * bmm(batch1, batch2), per
--- batch: slice i is v1 * M[i] + v2 * batch1[i] x batch2[i], for batch1 (b x n x m), batch2
--- (b x m x p) and M (b x n x p); v1 and v2 default to 1. Returns a new tensor, or res filled.
--- Also torch.baddbmm([res,] M, batch1, batch2, {beta = v1, alpha = v2}). The method
--- M:baddbmm([v1,] [v2,] batch1, batch2 [, {beta =, alpha =}]) updates M in place (as does M:baddbmm_).
--- Example: torch.baddbmm(torch.zeros(4, 2, 2), torch.ones(4, 2, 3), torch.ones(4, 3, 2)):size()
install_add_product('baddbmm', 'M', 'batch1', 'batch2')

require 'torch.lapack'

return torch
