-- torch.linalg.tensorinv and tensorsolve: inverses and solutions of tensors seen as the matrices
-- their leading and trailing dims form (NumPy's and PyTorch's definitions), through linalg.inv and
-- linalg.solve: differentiable, Float and Double.
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local fail = lib.fail
local describe, check_tensor = types.describe, types.check_tensor
local linalg = torch.linalg

local function shape(t) return t:dim() == 0 and 'scalar' or table.concat(t:size():totable(), 'x') end
-- f(...)'s result; an error from the torch.linalg function it is names op instead (a singular
-- tensor is tensorinv's error, not linalg.inv's).
local function as_op(op, f, ...)
  local ok, r = pcall(f, ...)
  if not ok then error((tostring(r):gsub('%[linalg%.%a+%]', '[' .. op .. ']', 1)), 0) end
  return r
end
local function prod(list, i, j)
  local p = 1
  for k = i, j do p = p * list[k] end
  return p
end

--- torch.linalg.tensorinv(A [, ind=2]): the tensor X with tensordot(X, A, ind) the identity: A's
--- first ind dims (a count, as PyTorch's ind, not a dim index) must hold as many elements as the
--- others; X has A's last dims then its first ind dims. Differentiable.
--- Example: torch.linalg.tensorinv(torch.eye(4):view(4, 2, 2), 1)
function linalg.tensorinv(A, ind)
  local op = 'linalg.tensorinv'
  check_tensor(op, A, 1)
  if type(ind) == 'table' and getmetatable(ind) == nil then ind = ind.ind end
  ind = ind == nil and 2 or ind
  if type(ind) ~= 'number' or ind ~= math.floor(ind) or ind < 1 then
    fail(op, 'ind must be a positive integer, got %s', type(ind) == 'number' and tostring(ind) or describe(ind))
  end
  local s = A:size():totable()
  if ind > #s then fail(op, 'ind (%d) is larger than the number of dims of A (%s)', ind, shape(A)) end
  local rows, cols = prod(s, 1, ind), prod(s, ind + 1, #s)
  if rows ~= cols then
    fail(op, 'the first %d dims of A (%s) hold %d elements but the others hold %d: they must be equal', ind, shape(A), rows, cols)
  end
  local out = {}
  for k = ind + 1, #s do out[#out + 1] = s[k] end
  for k = 1, ind do out[#out + 1] = s[k] end
  return as_op(op, linalg.inv, A:reshape(rows, cols)):reshape(torch.LongStorage(out))
end

--- torch.linalg.tensorsolve(A, B [, dims]): X with tensordot(A, X, X:dim()) = B: A's leading dims
--- are B's shape, its trailing ones X's, and their element counts equal. dims (1-based dims of A,
--- a number or a table) are first moved to A's end, as PyTorch's dims. Differentiable.
--- Example: torch.linalg.tensorsolve(torch.eye(4):view(2, 2, 4), torch.ones(2, 2))
function linalg.tensorsolve(A, B, dims)
  local op = 'linalg.tensorsolve'
  check_tensor(op, A, 1)
  check_tensor(op, B, 2)
  if type(dims) == 'table' and getmetatable(dims) == nil and dims.dims ~= nil then dims = dims.dims end
  if dims ~= nil then
    local list = type(dims) == 'number' and { dims } or dims
    if type(list) ~= 'table' then fail(op, 'dims must be a dim or a table of dims, got %s', describe(dims)) end
    local moved, order = {}, {}
    for _, d in ipairs(list) do
      if type(d) ~= 'number' or d ~= math.floor(d) or d == 0 or d < -A:dim() or d > A:dim() then
        fail(op, 'dims must be between 1 and %d (or negative from the end), got %s', A:dim(), tostring(d))
      end
      if d < 0 then d = d + A:dim() + 1 end
      if moved[d] then fail(op, 'dim %d appears twice in dims', d) end
      moved[d] = true
    end
    for d = 1, A:dim() do if not moved[d] then order[#order + 1] = d end end
    for _, d in ipairs(list) do order[#order + 1] = d < 0 and d + A:dim() + 1 or d end
    A = A:permute(unpack(order))
  end
  local s = A:size():totable()
  local nb = B:dim()
  if nb > #s then fail(op, 'B (%s) has more dims than A (%s)', shape(B), shape(A)) end
  for k = 1, nb do
    if s[k] ~= B:size(k) then fail(op, "A's leading dims (%s) must be B's shape, got B of size %s", shape(A), shape(B)) end
  end
  local rows, cols = B:nElement(), prod(s, nb + 1, #s)
  if rows ~= cols then
    fail(op, "A's leading dims (B's shape, %d elements) and trailing dims (%d elements) must hold as many elements, got A of size %s",
      rows, cols, shape(A))
  end
  local out = {}
  for k = nb + 1, #s do out[#out + 1] = s[k] end
  local x = as_op(op, linalg.solve, A:reshape(rows, cols), B:reshape(rows, 1))
  if #out == 0 then return x:view({}) end
  return x:reshape(torch.LongStorage(out))
end

return linalg
