-- BLAS products as torch functions and tensor methods, with Torch7's call forms: torch.dot(x, y)
-- returns a number; torch.mv/mm/bmm/ger([res,] a, b); torch.addmm/addmv/addr/addbmm/baddbmm
-- ([res,] [v1,] M, [v2,] a, b) = v1 * M + v2 * product, and their method forms (M:addmm(a, b)
-- updates M). The LAPACK functions live in torch.lapack, loaded from here.
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

-- Reads the optional multipliers and the addend from args[first..last]: ([v1,] M, [v2,]).
local function parse_addend(args, first, last)
  local i, v1, M, v2 = first, nil, nil, nil
  if type(args[i]) == 'number' then v1, i = args[i], i + 1 end
  if is_tensor(args[i]) then M, i = args[i], i + 1 else return nil end
  if i <= last and type(args[i]) == 'number' then v2, i = args[i], i + 1 end
  if i ~= last + 1 then return nil end
  return v1 or 1, M, v2 or 1
end

-- addmm, addmv, addr, addbmm, baddbmm.
local function install_add_product(name, nm, na, nb)
  local f, f_out = C['tocha_' .. name], C['tocha_' .. name .. '_out']
  local usage = string.format('([res,] [v1,] %s, [v2,] %s, %s)', nm, na, nb)
  local function apply(res, v1, M, v2, a, b)
    if res then
      check(f_out(res.p, v1, M.p, v2, a.p, b.p))
      return res
    end
    return wrap(f(v1, M.p, v2, a.p, b.p))
  end
  -- The last two arguments are the factors; a leading tensor before the addend is res.
  local function factors(args, n, min_n, how)
    local a, b = args[n - 1], args[n]
    if n < min_n or not is_tensor(a) or not is_tensor(b) then
      fail(name, 'expected %s, got %s', how, describe_args(args, n))
    end
    return a, b
  end
  torch[name] = function(...)
    local n, args = select('#', ...), { ... }
    local a, b = factors(args, n, 3, usage)
    local tensors = 0
    for i = 1, n - 2 do if is_tensor(args[i]) then tensors = tensors + 1 end end
    local res, first = nil, 1
    if tensors == 2 and is_tensor(args[1]) then res, first = args[1], 2 end
    local v1, M, v2 = parse_addend(args, first, n - 2)
    if not M then fail(name, 'expected %s, got %s', usage, describe_args(args, n)) end
    return apply(res, v1, M, v2, a, b)
  end
  -- Torch7's method forms: self:f(a, b) and self:f(v2, a, b) and self:f(v1, v2, a, b) update self;
  -- self:f([v1,] M, [v2,] a, b) sets self = v1 * M + v2 * product.
  local musage = string.format('([v1,] [%s,] [v2,] %s, %s)', nm, na, nb)
  methods[name] = function(self, ...)
    local n, args = select('#', ...), { ... }
    local a, b = factors(args, n, 2, musage)
    local has_m = false
    for i = 1, n - 2 do if is_tensor(args[i]) then has_m = true end end
    if not has_m then
      local k = n - 2
      if k == 0 then return apply(self, 1, self, 1, a, b) end
      if k == 1 and type(args[1]) == 'number' then return apply(self, 1, self, args[1], a, b) end
      if k == 2 and type(args[1]) == 'number' and type(args[2]) == 'number' then
        return apply(self, args[1], self, args[2], a, b)
      end
      fail(name, 'expected %s, got %s', musage, describe_args(args, n))
    end
    local v1, M, v2 = parse_addend(args, 1, n - 2)
    if not M then fail(name, 'expected %s, got %s', musage, describe_args(args, n)) end
    return apply(self, v1, M, v2, a, b)
  end
  methods[name .. '_'] = methods[name]
end
--- torch.addmm([res,] [v1,] M, [v2,] mat1, mat2): v1 * M + v2 * (mat1 x mat2) for M (n x p),
--- mat1 (n x m) and mat2 (m x p); v1 and v2 default to 1. Returns a new tensor, or res filled.
--- The method M:addmm([v1,] [v2,] mat1, mat2) updates M in place (as does M:addmm_).
--- Example: torch.addmm(torch.zeros(2, 2), torch.ones(2, 3), torch.ones(3, 2))
install_add_product('addmm', 'M', 'mat1', 'mat2')
--- torch.addmv([res,] [v1,] vec1, [v2,] mat, vec2): v1 * vec1 + v2 * (mat x vec2) for vec1 (n),
--- mat (n x m) and vec2 (m); v1 and v2 default to 1. Returns a new tensor, or res filled.
--- The method vec1:addmv([v1,] [v2,] mat, vec2) updates vec1 in place (as does vec1:addmv_).
--- Example: torch.addmv(torch.ones(2), torch.ones(2, 3), torch.ones(3))
install_add_product('addmv', 'vec1', 'mat', 'vec2')
--- torch.addr([res,] [v1,] M, [v2,] vec1, vec2): v1 * M + v2 * the outer product of vec1 (n) and
--- vec2 (m), for M (n x m); v1 and v2 default to 1. Returns a new tensor, or res filled. The
--- method M:addr([v1,] [v2,] vec1, vec2) updates M in place (as does M:addr_).
--- Example: torch.addr(torch.zeros(2, 2), torch.Tensor({1, 2}), torch.Tensor({1, 2}))
install_add_product('addr', 'M', 'vec1', 'vec2')
--- torch.addbmm([res,] [v1,] M, [v2,] batch1, batch2): v1 * M + v2 * the sum over i of
--- batch1[i] x batch2[i], for batch1 (b x n x m), batch2 (b x m x p) and M (n x p); v1 and v2
--- default to 1. Returns a new tensor, or res filled. The method M:addbmm([v1,] [v2,] batch1,
--- batch2) updates M in place (as does M:addbmm_).
--- Example: torch.addbmm(torch.zeros(2, 2), torch.ones(4, 2, 3), torch.ones(4, 3, 2))
install_add_product('addbmm', 'M', 'batch1', 'batch2')
--- torch.baddbmm([res,] [v1,] M, [v2,] batch1, batch2): v1 * M + v2 * bmm(batch1, batch2), per
--- batch: slice i is v1 * M[i] + v2 * batch1[i] x batch2[i], for batch1 (b x n x m), batch2
--- (b x m x p) and M (b x n x p); v1 and v2 default to 1. Returns a new tensor, or res filled.
--- The method M:baddbmm([v1,] [v2,] batch1, batch2) updates M in place (as does M:baddbmm_).
--- Example: torch.baddbmm(torch.zeros(4, 2, 2), torch.ones(4, 2, 3), torch.ones(4, 3, 2)):size()
install_add_product('baddbmm', 'M', 'batch1', 'batch2')

require 'torch.lapack'

return torch
