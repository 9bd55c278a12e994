-- Joining and matrix-shape helpers with Torch7's call forms: torch.cat, torch.stack (PyTorch's,
-- with a 1-based dim), diag, tril and triu. Loaded by index.lua.
local ffi = require 'ffi'
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local C, wrap, check, fail = lib.C, lib.wrap, lib.check, lib.fail
local is_tensor, describe = types.is_tensor, types.describe
local methods = torch._tensor_methods

-- A 1-based (or negative) dim for C, where -1 is the last; nil gives `default`.
local function dim_arg(op, dim, default)
  if dim == nil then return default end
  if type(dim) ~= 'number' or dim ~= math.floor(dim) then
    fail(op, 'expected a dimension (an integer), got %s', describe(dim))
  end
  if dim == 0 then fail(op, 'dimension 0 is out of range (dims are 1-based)') end
  return dim > 0 and dim - 1 or dim
end

local function k_arg(op, k)
  if k == nil then return 0 end
  if type(k) ~= 'number' or k ~= math.floor(k) then fail(op, 'expected a diagonal offset (an integer), got %s', describe(k)) end
  return k
end

local function tensor_arg(op, x, what)
  if not is_tensor(x) then fail(op, 'expected %s (a tensor), got %s', what, describe(x)) end
  return x
end

-- A Lua list of tensors as a C array of their pointers. The caller keeps `list` (which holds the
-- handles) alive across the C call.
local function tensor_array(op, list)
  local n = #list
  if n == 0 then fail(op, 'expected at least one tensor, got an empty table') end
  local arr = ffi.new('const tocha_tensor *[?]', n)
  for i = 1, n do
    local t = list[i]
    if not is_tensor(t) then fail(op, 'element %d of the table is %s, expected a tensor', i, describe(t)) end
    arr[i - 1] = t.p
  end
  return n, arr
end

--- torch.cat([res,] a, b [, dim]) or torch.cat([res,] {a, b, ...} [, dim]): concatenation along
--- dim (default: the last). Empty tensors are skipped; a dim one past the last adds a dim (Torch7).
--- Example: torch.cat({torch.ones(2), torch.zeros(3)}, 1)
function torch.cat(a1, a2, a3, a4)
  local res, list, dim
  if type(a1) == 'table' then
    list, dim = a1, a2
  elseif is_tensor(a1) and type(a2) == 'table' then
    res, list, dim = a1, a2, a3
  elseif is_tensor(a1) and is_tensor(a2) and is_tensor(a3) then
    res, list, dim = a1, { a2, a3 }, a4
  elseif is_tensor(a1) and is_tensor(a2) then
    list, dim = { a1, a2 }, a3
  else
    fail('cat', 'expected ([res,] tensor, tensor [, dim]) or ([res,] {tensors} [, dim]), got (%s, %s)',
      describe(a1), describe(a2))
  end
  local n, arr = tensor_array('cat', list)
  local d = dim_arg('cat', dim, -1)
  if res then check(C.tocha_cat_out(res.p, n, arr, d)) return res end
  return (wrap(C.tocha_cat(n, arr, d)))
end
--- x:cat(y [, dim]) concatenates x and y; res:cat(a, b [, dim]) and res:cat({...} [, dim]) fill res.
--- Example: torch.ones(2):cat(torch.zeros(3))
function methods.cat(self, ...) return (torch.cat(self, ...)) end

--- torch.stack([res,] {tensors} [, dim]): tensors of one size along a new dim (default 1).
--- Example: torch.stack({torch.ones(2), torch.zeros(2)}, 1)
function torch.stack(a1, a2, a3)
  local res, list, dim
  if is_tensor(a1) then res, list, dim = a1, a2, a3 else list, dim = a1, a2 end
  if type(list) ~= 'table' then fail('stack', 'expected a table of tensors, got %s', describe(list)) end
  local n, arr = tensor_array('stack', list)
  local d = dim_arg('stack', dim, 0)
  if res then check(C.tocha_stack_out(res.p, n, arr, d)) return res end
  return (wrap(C.tocha_stack(n, arr, d)))
end

-- ---- matrix shapes -----------------------------------------------------------------------------

local function diag(res, x, k)
  tensor_arg('diag', x, 'a vector or a matrix')
  k = k_arg('diag', k)
  if res then check(C.tocha_diag_out(res.p, x.p, k)) return res end
  return (wrap(C.tocha_diag(x.p, k)))
end
--- torch.diag([res,] x [, k]): vector -> matrix with x on the k-th diagonal; matrix -> that diagonal.
--- Example: torch.diag(torch.Tensor({1, 2, 3}))
function torch.diag(a1, a2, a3)
  if is_tensor(a2) then return (diag(tensor_arg('diag', a1, 'a result tensor'), a2, a3)) end
  return (diag(nil, a1, a2))
end
--- x:diag([k]) is a new tensor; res:diag(x [, k]) fills res.
--- Example: torch.Tensor({{1, 2}, {3, 4}}):diag()
function methods.diag(self, a1, a2)
  if is_tensor(a1) then return (diag(self, a1, a2)) end
  return (diag(nil, self, a1))
end

local function install_triangle(name, f, f_out)
  local function apply(res, x, k)
    tensor_arg(name, x, 'a matrix')
    k = k_arg(name, k)
    if res then check(f_out(res.p, x.p, k)) return res end
    return (wrap(f(x.p, k)))
  end
  --- torch.tril([res,] x [, k]) / torch.triu(...): a new tensor unless res is given.
  --- Example: local lower, upper = torch.tril(torch.ones(3, 3)), torch.triu(torch.ones(3, 3), 1)
  torch[name] = function(a1, a2, a3)
    if is_tensor(a2) then return (apply(tensor_arg(name, a1, 'a result tensor'), a2, a3)) end
    return (apply(nil, a1, a2))
  end
  --- x:tril([k]) works in place; res:tril(x [, k]) fills res.
  --- Example: torch.ones(3, 3):tril(), torch.ones(3, 3):triu(1)
  methods[name] = function(self, a1, a2)
    if is_tensor(a1) then return (apply(self, a1, a2)) end
    return (apply(self, self, a1))
  end
  methods[name .. '_'] = methods[name]
end
install_triangle('tril', C.tocha_tril, C.tocha_tril_out)
install_triangle('triu', C.tocha_triu, C.tocha_triu_out)

return torch
