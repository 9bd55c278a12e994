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
install_product('mv', 'mat', 'vec')
install_product('mm', 'a', 'b')
install_product('bmm', 'batch1', 'batch2')
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
install_add_product('addmm', 'M', 'mat1', 'mat2')
install_add_product('addmv', 'vec1', 'mat', 'vec2')
install_add_product('addr', 'M', 'vec1', 'vec2')
install_add_product('addbmm', 'M', 'batch1', 'batch2')
install_add_product('baddbmm', 'M', 'batch1', 'batch2')

require 'torch.lapack'

return torch
