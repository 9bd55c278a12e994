-- PyTorch's torch.* linear-algebra functions that torch.linalg does not name the same way
-- (cholesky, choleskySolve, choleskyInverse, triangularSolve, pinverse, matrixPower, matrixExp)
-- with Torch7's potri and trtrs, and the matrix builders kron, blockDiag, diagEmbed, diagflat,
-- inner, vdot, chainMatmul. Composites of torch.linalg and recorded ops: differentiable, batched
-- where PyTorch's are, Float and Double. Functions return new tensors.
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local fail = lib.fail
local is_tensor, describe, check_tensor = types.is_tensor, types.describe, types.check_tensor
local linalg = torch.linalg
local methods = torch._tensor_methods

local function tensors(op, ...)
  for i = 1, select('#', ...) do check_tensor(op, (select(i, ...)), i) end
end
local function flag(op, name, v, default)
  if v == nil then return default end
  if type(v) ~= 'boolean' then fail(op, '%s must be a boolean, got %s', name, describe(v)) end
  return v
end
local function char(op, what, v, default, a, b)
  if v == nil then return default end
  if v ~= a and v ~= b then
    fail(op, "%s must be '%s' or '%s', got %s", what, a, b, type(v) == 'string' and ("'" .. v .. "'") or describe(v))
  end
  return v
end
-- The matrix transpose of the last two dims.
local function mT(x) return x:transpose(x:dim() - 1, x:dim()) end
-- Checked before any transpose: the solver's own message then named the transposed size (a 2x3
-- factor "got size 3x2" with upper or transpose).
local function square(op, what, M)
  local m, n = M:size(M:dim() - 1), M:size(M:dim())
  if m ~= n then fail(op, '%s must be square in its last two dims, got size %s', what, table.concat(M:size():totable(), 'x')) end
end
-- f(...)'s one result; an error it raises names op instead of the torch.linalg function that
-- raised it, so that a caller of trtrs reads [trtrs], not [linalg.solveTriangular]. Level 0: the
-- message already holds the caller's position (Note [Error levels] in lib.lua).
-- The first tag is renamed whichever it is: the torch.linalg function, or the op it was built on
-- (inner, vdot and chainMatmul run torch.matmul, whose errors said [matmul]).
local function as_op(op, f, ...)
  local ok, r = pcall(f, ...)
  if not ok then error((tostring(r):gsub('%[[%w%.]+%]', '[' .. op .. ']', 1)), 0) end
  return r
end
-- as_op for functions with several results (torch.lu's LU and pivots, luUnpack's P, L, U).
local function as_op_all(op, f, ...)
  local function finish(ok, ...)
    if not ok then error((tostring((...)):gsub('%[[%w%.]+%]', '[' .. op .. ']', 1)), 0) end
    return ...
  end
  return finish(pcall(f, ...))
end

--- torch.cholesky(A [, upper=false]): PyTorch's torch.cholesky: the lower factor L (A = L L^T) of
--- each symmetric positive-definite matrix, or U (A = U^T U) with upper. Torch7's torch.potrf
--- (upper by default) is unchanged. Differentiable.
--- Example: torch.cholesky(torch.eye(2) * 4)
function torch.cholesky(A, upper)
  tensors('cholesky', A)
  return as_op('cholesky', linalg.cholesky, A, { upper = flag('cholesky', 'upper', upper, false) })
end

-- choleskySolve's work, its errors naming op (choleskyInverse and potri come through here).
local function cholesky_solve(op, B, L, upper)
  tensors(op, B, L)
  upper = flag(op, 'upper', upper, false)
  if B:dim() < 2 then fail(op, 'B must be a matrix or a batch of them, got a %dD tensor', B:dim()) end
  if L:dim() < 2 then fail(op, 'the factor must be a matrix or a batch of them, got a %dD tensor', L:dim()) end
  square(op, 'the factor', L)
  -- A = F^T F with F upper, or F F^T with F lower: two triangular solves
  local solve = linalg.solveTriangular
  if upper then
    local Y = as_op(op, solve, mT(L), B, { upper = false })
    return as_op(op, solve, L, Y, { upper = true })
  end
  local Y = as_op(op, solve, L, B, { upper = false })
  return as_op(op, solve, mT(L), Y, { upper = true })
end
--- torch.choleskySolve(B, L [, upper=false]): X with A X = B given A's Cholesky factor L (lower,
--- A = L L^T) or U (upper); batched, differentiable in B and L.
--- Example: torch.choleskySolve(torch.ones(2, 1), torch.eye(2) * 2)
function torch.choleskySolve(B, L, upper) return cholesky_solve('choleskySolve', B, L, upper) end

-- choleskyInverse's work, its errors naming op (potri's too).
local function cholesky_inverse(op, L, upper)
  tensors(op, L)
  if L:dim() < 2 then fail(op, 'expected a matrix or a batch of them, got a %dD tensor', L:dim()) end
  local n = L:size(L:dim())
  local I = torch.eye(n):typeAs(L)
  if L:dim() > 2 then
    local s = L:size():totable()
    I = I:view(1, n, n):expand(torch.LongStorage(s)):contiguous()
  end
  return cholesky_solve(op, I, L, upper)
end
--- torch.choleskyInverse(L [, upper=false]): A^-1 given A's Cholesky factor (lower L, or upper U).
--- Example: torch.choleskyInverse(torch.eye(2) * 2)
function torch.choleskyInverse(L, upper) return cholesky_inverse('choleskyInverse', L, upper) end

--- torch.potri([res,] chol [, 'U' or 'L']): Torch7's potri: A^-1 given A's Cholesky factor chol
--- (upper 'U', the default: A = U^T U; 'L': A = L L^T), a new matrix or res (resized).
--- Example: torch.potri(torch.eye(2) * 2)
function torch.potri(a1, a2, a3)
  local res, chol, uplo = nil, a1, a2
  if is_tensor(a2) then res, chol, uplo = a1, a2, a3 end
  tensors('potri', chol)
  if chol:dim() ~= 2 then fail('potri', 'chol must be 2D, got a %dD tensor', chol:dim()) end
  local r = cholesky_inverse('potri', chol, char('potri', 'uplo', uplo, 'U', 'U', 'L') == 'U')
  if res then
    res:resizeAs(r):copy(r)
    return res
  end
  return r
end

--- torch.trtrs([resb, resa,] B, A [, 'U' or 'L'] [, 'N' or 'T'] [, 'N' or 'U']): Torch7's trtrs:
--- X with op(A) X = B for a triangular A ('U' upper, the default, or 'L'), op 'N' (A) or 'T'
--- (A^T), diagonal 'N' (read) or 'U' (unit). Returns X and a copy of A (or resb, resa filled).
--- Example: torch.trtrs(torch.ones(2, 1), torch.Tensor({{2, 1}, {0, 4}}))
function torch.trtrs(...)
  local args = { ... }
  local resb, resa
  if is_tensor(args[3]) then resb, resa = table.remove(args, 1), table.remove(args, 1) end
  local B, A, uplo, trans, diag = args[1], args[2], args[3], args[4], args[5]
  tensors('trtrs', B, A)
  if args[6] ~= nil then
    fail('trtrs', "expected ([resb, resa,] B, A [, 'U'|'L'] [, 'N'|'T'] [, 'N'|'U']); got an extra argument %s", describe(args[6]))
  end
  if A:dim() ~= 2 then fail('trtrs', 'A must be 2D, got a %dD tensor', A:dim()) end
  square('trtrs', 'A', A)
  local upper = char('trtrs', 'uplo', uplo, 'U', 'U', 'L') == 'U'
  local T = char('trtrs', 'trans', trans, 'N', 'N', 'T') == 'T'
  local unit = char('trtrs', 'diag', diag, 'N', 'N', 'U') == 'U'
  local vec = B:dim() == 1
  local Bm = vec and B:view(-1, 1) or B
  local M = T and A:t() or A
  local X = as_op('trtrs', linalg.solveTriangular, M, Bm, { upper = upper ~= T, unitriangular = unit })
  if vec then X = X:view(-1) end
  if resb then
    resb:resizeAs(X):copy(X)
    resa:resizeAs(A):copy(A)
    return resb, resa
  end
  return X, A:clone()
end
-- Torch7 wraps every LAPACK call as a method too (res:potri(chol), B:trtrs(A)), as lapack.lua does
-- for gesv, potrf and the rest.
methods.potri, methods.trtrs = torch.potri, torch.trtrs

--- torch.triangularSolve(B, A [, upper=true [, transpose=false [, unitriangular=false]]]):
--- PyTorch's triangular_solve: X with op(A) X = B for triangular A (batched, the batch dims
--- broadcasting), and a copy of A broadcast to X's batch dims.
--- Example: torch.triangularSolve(torch.ones(2, 1), torch.Tensor({{2, 1}, {0, 4}}))
function torch.triangularSolve(B, A, upper, transpose, unitriangular)
  tensors('triangularSolve', B, A)
  upper = flag('triangularSolve', 'upper', upper, true)
  transpose = flag('triangularSolve', 'transpose', transpose, false)
  if A:dim() < 2 then fail('triangularSolve', 'A must be a matrix or a batch of them, got %s', describe(A)) end
  square('triangularSolve', 'A', A)
  local M = transpose and mT(A) or A
  local X = as_op('triangularSolve', linalg.solveTriangular, M, B, { upper = upper ~= transpose,
    unitriangular = flag('triangularSolve', 'unitriangular', unitriangular, false) })
  -- PyTorch's cloned_coefficient is A broadcast to the batch dims of the solution (B 2x3x2 with
  -- A 3x3 gives a 2x3x3 copy), not A's own shape
  local s, pad = X:size():totable(), {}
  s[#s - 1], s[#s] = A:size(A:dim() - 1), A:size(A:dim())
  for i = 1, #s - A:dim() do pad[i] = 1 end
  for i = 1, A:dim() do pad[#pad + 1] = A:size(i) end
  return X, A:contiguous():view(torch.LongStorage(pad)):expand(torch.LongStorage(s)):clone():contiguous()
end

--- torch.pinverse(A [, rcond=1e-15]): the pseudo-inverse (torch.linalg.pinv with PyTorch's
--- torch.pinverse default cut-off).
--- Example: torch.pinverse(torch.Tensor({{1, 2}}))
function torch.pinverse(A, rcond)
  tensors('pinverse', A)
  if rcond ~= nil and type(rcond) ~= 'number' then fail('pinverse', 'rcond must be a number, got %s', describe(rcond)) end
  return as_op('pinverse', linalg.pinv, A, rcond or 1e-15)
end

--- torch.matrixPower(A, n): torch.linalg.matrixPower.
--- Example: torch.matrixPower(torch.eye(2) * 2, 2)
function torch.matrixPower(A, n) return as_op('matrixPower', linalg.matrixPower, A, n) end
--- torch.matrixExp(A): torch.linalg.matrixExp.
--- Example: torch.matrixExp(torch.zeros(2, 2))
function torch.matrixExp(A) return as_op('matrixExp', linalg.matrixExp, A) end

--- torch.chainMatmul(m1, m2, ...): the product of matrices (torch.linalg.multiDot of 2D tensors).
--- Example: torch.chainMatmul(torch.eye(2), torch.ones(2, 3))
function torch.chainMatmul(...)
  local list, n = { ... }, select('#', ...)
  if n == 0 then fail('chainMatmul', 'expected one or more matrices, got none') end
  -- up to select('#'): ipairs stopped at a nil, so (a, nil, b) returned a copy of a
  for i = 1, n do
    local t = list[i]
    if not is_tensor(t) or t:dim() ~= 2 then fail('chainMatmul', 'argument %d must be a 2D tensor, got %s', i, describe(t)) end
  end
  if n == 1 then return list[1]:clone() end
  return as_op('chainMatmul', linalg.multiDot, list)
end

--- torch.kron(a, b): the Kronecker product; a and b padded with leading size-1 dims to the same
--- rank; result size a:size(i) * b:size(i) (two 0-dim tensors give a 0-dim one); dtypes promote as
--- cmul's. Differentiable.
--- Example: torch.kron(torch.eye(2), torch.ones(2, 2))
function torch.kron(a, b)
  tensors('kron', a, b)
  if a:dim() == 0 and b:dim() == 0 then return torch.cmul(a, b) end  -- 0-dim, as PyTorch's
  local n = math.max(a:dim(), b:dim())
  local sa, sb = {}, {}
  for i = 1, n do
    sa[i] = (i > n - a:dim()) and a:size(i - (n - a:dim())) or 1
    sb[i] = (i > n - b:dim()) and b:size(i - (n - b:dim())) or 1
  end
  local va, vb, out = {}, {}, {}
  for i = 1, n do
    va[#va + 1], va[#va + 2] = sa[i], 1
    vb[#vb + 1], vb[#vb + 2] = 1, sb[i]
    out[i] = sa[i] * sb[i]
  end
  local r = torch.cmul(a:contiguous():view(torch.LongStorage(va)), b:contiguous():view(torch.LongStorage(vb)))
  return r:contiguous():view(torch.LongStorage(out))
end

--- torch.blockDiag(t1, t2, ...): a matrix with the tensors on its diagonal (0D counts as 1x1, 1D
--- as a row, so an empty 1D adds a row of no columns), zeros elsewhere, of the dtype PyTorch's
--- promotion gives all the inputs (torch.promoteTypes: int64 with float64 is float64); no tensors
--- give an empty 1 x 0 tensor. Differentiable.
--- Example: torch.blockDiag(torch.ones(1, 2), torch.Tensor({{3}}))
function torch.blockDiag(...)
  local list, n = { ... }, select('#', ...)
  -- Note [blockDiag with no tensors]: PyTorch 1.13's block_diag() is an empty 1 x 0 tensor
  -- (at::empty({1, 0})), not 0 x 0; kept so that shapes computed from it agree.
  if n == 0 then return torch.Tensor(1, 0) end
  local mats, cols, dtype = {}, 0, nil
  for i = 1, n do
    local t = list[i]
    if not is_tensor(t) or t:dim() > 2 then fail('blockDiag', 'argument %d must be a tensor of at most 2 dims, got %s', i, describe(t)) end
    dtype = dtype and torch.promoteTypes(dtype, t) or torch.promoteTypes(t, t)
  end
  -- Note [blockDiag promotes]: the blocks were cast to the first one's type, so a LongTensor
  -- first truncated a later 0.5 to 0; PyTorch promotes over all the inputs. t:to(dtype) keeps
  -- the device and is recorded (a Float block's gradient comes back as a FloatTensor); newZeros
  -- keeps the device too.
  for i = 1, n do
    local t = list[i]:to(dtype)
    local m = t:dim() == 2 and t or t:contiguous():view(1, -1)
    mats[i] = m
    cols = cols + m:size(2)
  end
  local rows, c0 = {}, 0
  for i, m in ipairs(mats) do
    local r, c = m:size(1), m:size(2)
    local parts = {}
    if c0 > 0 then parts[#parts + 1] = m:newZeros(r, c0) end
    parts[#parts + 1] = m
    if cols - c0 - c > 0 then parts[#parts + 1] = m:newZeros(r, cols - c0 - c) end
    rows[i] = #parts == 1 and parts[1] or torch.cat(parts, 2)
    c0 = c0 + c
  end
  return #rows == 1 and rows[1]:clone() or torch.cat(rows, 1)
end

--- torch.diagEmbed(x [, offset=0]): (..., n) -> (..., n+|offset|, n+|offset|) with x on the
--- offset-th diagonal of the last two dims (PyTorch's default dim1, dim2). Differentiable.
--- Example: torch.diagEmbed(torch.Tensor({{1, 2}, {3, 4}}))
function torch.diagEmbed(x, offset)
  tensors('diagEmbed', x)
  offset = offset or 0
  if type(offset) ~= 'number' or offset ~= math.floor(offset) then fail('diagEmbed', 'offset must be an integer, got %s', describe(offset)) end
  if x:dim() < 1 then fail('diagEmbed', 'expected at least one dim, got a 0-dim tensor') end
  -- x as a column next to n x n zeros, flattened: element i * (n + 1) is x_i, the rest zeros
  -- (multiplying by an identity would put inf * 0 = NaN beside an infinite x_i)
  local n = x:size(x:dim())
  local lead = x:size():totable()
  lead[#lead] = nil
  local function shape(...)
    local t = { unpack(lead) }
    for _, v in ipairs({ ... }) do t[#t + 1] = v end
    return torch.LongStorage(t)
  end
  local r = torch.cat(x:unsqueeze(x:dim() + 1), torch.zeros(shape(n, n)):typeAs(x), x:dim() + 1)
  r = r:view(shape(n * (n + 1))):narrow(#lead + 1, 1, n * n):contiguous():view(shape(n, n))
  if offset ~= 0 then
    local k = math.abs(offset)
    local s = r:size():totable()
    s[#s] = k
    local zc = torch.zeros(torch.LongStorage(s)):typeAs(x)
    r = offset > 0 and torch.cat(zc, r, #s) or torch.cat(r, zc, #s)
    s = r:size():totable()
    s[#s - 1] = k
    local zr = torch.zeros(torch.LongStorage(s)):typeAs(x)
    r = offset > 0 and torch.cat(r, zr, #s - 1) or torch.cat(zr, r, #s - 1)
  end
  return r
end

--- torch.diagflat(x [, offset=0]): a square matrix with x's elements (flattened) on its
--- offset-th diagonal.
--- Example: torch.diagflat(torch.Tensor({{1, 2}, {3, 4}}))
function torch.diagflat(x, offset)
  tensors('diagflat', x)
  return torch.diagEmbed(x:contiguous():view(-1), offset)
end

--- torch.inner(a, b): sums of products over the last dim of a and b (result size a's other dims
--- then b's); 0-dim operands multiply.
--- Example: torch.inner(torch.Tensor({1, 2}), torch.Tensor({3, 4}))
function torch.inner(a, b)
  tensors('inner', a, b)
  if a:dim() == 0 or b:dim() == 0 then return torch.cmul(a, b) end
  local k = a:size(a:dim())
  if b:size(b:dim()) ~= k then
    fail('inner', 'the last dims differ: a is %s, b is %s', table.concat(a:size():totable(), 'x'), table.concat(b:size():totable(), 'x'))
  end
  local out, ra, rb = {}, 1, 1
  for i = 1, a:dim() - 1 do out[#out + 1] = a:size(i); ra = ra * a:size(i) end
  for i = 1, b:dim() - 1 do out[#out + 1] = b:size(i); rb = rb * b:size(i) end
  -- row counts written out: view(-1, 0) cannot infer them when the summed dim has size 0
  local r = as_op('inner', torch.matmul, a:contiguous():view(ra, k), b:contiguous():view(rb, k):t())
  if #out == 0 then return r:view({}) end
  return r:contiguous():view(torch.LongStorage(out))
end

--- torch.vdot(a, b): the dot product of two 1D tensors of one size, a 0-dim tensor (real
--- tensors: no conjugation).
--- Example: torch.vdot(torch.Tensor({1, 2}), torch.Tensor({3, 4}))
function torch.vdot(a, b)
  tensors('vdot', a, b)
  if a:dim() ~= 1 or b:dim() ~= 1 or a:size(1) ~= b:size(1) then
    local function shape(t) return t:dim() == 0 and 'a 0-dim tensor' or 'size ' .. table.concat(t:size():totable(), 'x') end
    fail('vdot', 'expected two 1D tensors of one size, got %s and %s', shape(a), shape(b))
  end
  return as_op('vdot', torch.matmul, a, b)
end


--- torch.cartesianProd(t1, t2, ...): the Cartesian product of 1D tensors, one row per tuple
--- (size (n1 * n2 * ..., k)); one tensor gives a copy of it.
--- Example: torch.cartesianProd(torch.Tensor({1, 2}), torch.Tensor({3, 4}))
function torch.cartesianProd(...)
  local list = { ... }
  local n = select('#', ...)
  if n == 0 then fail('cartesianProd', 'expected at least one 1D tensor') end
  local sizes = {}
  for i = 1, n do
    local t = list[i]
    if not is_tensor(t) or t:dim() ~= 1 then fail('cartesianProd', 'argument %d must be a 1D tensor, got %s', i, describe(t)) end
    sizes[i] = t:size(1)
  end
  if n == 1 then return list[1]:clone() end
  local total = 1
  for i = 1, n do total = total * sizes[i] end
  if total * n >= 2 ^ 40 then  -- before expand and contiguous ask for it
    fail('cartesianProd', '%d tensors of sizes %s give %.0f tuples: too many', n, table.concat(sizes, ', '), total)
  end
  local cols = {}
  for i = 1, n do
    local shape = {}
    for j = 1, n do shape[j] = j == i and sizes[i] or 1 end
    cols[i] = list[i]:contiguous():view(torch.LongStorage(shape)):expand(torch.LongStorage(sizes)):contiguous():view(-1)
  end
  return torch.stack(cols, 2)
end

--- torch.combinations(x [, r=2 [, withReplacement=false]]) or (x, {r=, withReplacement=}): the
--- r-element combinations of a 1D tensor's elements in order, one per row (size (count, r); no
--- combination gives 0 x r). Differentiable.
--- Example: torch.combinations(torch.Tensor({1, 2, 3}))
function torch.combinations(x, r, with)
  check_tensor('combinations', x, 1)
  if type(r) == 'table' and getmetatable(r) == nil then r, with = r.r, r.withReplacement end
  r = r == nil and 2 or r
  if type(r) ~= 'number' or r ~= math.floor(r) or r < 0 or r >= 2 ^ 53 then
    fail('combinations', 'r must be a non-negative integer below 2^53, got %s', tostring(r))
  end
  with = flag('combinations', 'withReplacement', with, false)
  if x:dim() ~= 1 then fail('combinations', 'expected a 1D tensor, got a %dD tensor', x:dim()) end
  local n = x:size(1)
  if r == 0 then return x.new():typeAs(x):resize(0) end  -- PyTorch: an empty 1D tensor
  if n == 0 or (not with and r > n) then return x.new():typeAs(x):resize(0, r) end
  -- the count in closed form (C(n, r), or C(n + r - 1, r) with replacement) so that a result too
  -- large for Lua's enumeration fails at once instead of running for hours; C(top, r) as
  -- C(top, top - r) when that is fewer factors, so a huge r (2^62) costs at most n of them
  local top = with and n + r - 1 or n
  local k, count = math.min(r, with and n - 1 or n - r), 1
  for i = 1, k do count = count * (top - k + i) / i end
  if count < 1 then return x.new():typeAs(x):resize(0, r) end
  if count * r > 2 ^ 26 then
    fail('combinations', '%d elements taken %d at a time give %.0f combinations: too many', n, r, count)
  end
  -- lexicographic order, into one flat index list
  local flat, cur, k = {}, {}, 0
  for i = 1, r do cur[i] = with and 1 or i end
  while true do
    for i = 1, r do flat[k + i] = cur[i] end
    k = k + r
    local i = r
    while i >= 1 and cur[i] == (with and n or n - r + i) do i = i - 1 end
    if i == 0 then break end
    cur[i] = cur[i] + 1
    for j = i + 1, r do cur[j] = with and cur[i] or cur[j - 1] + 1 end
  end
  return x:index(1, torch.LongTensor(flat)):view(k / r, r)
end

-- The 1-based (row, column) indices of a rows x cols matrix where keep(i, j) holds, row-major.
-- Each row's kept columns are one range [lo, hi], so the result is built from per-row counts with
-- tensor ops: O(N) work and memory for N indices (the rows with an empty range are skipped first).
-- A double loop over rows x cols in Lua never returned for large sizes (the fuzz suite found it).
local function indices(op, rows, cols, offset, lower)
  for _, v in ipairs({ rows, cols, offset }) do
    if type(v) ~= 'number' or v ~= math.floor(v) or math.abs(v) >= 2 ^ 53 then
      fail(op, 'expected integers (rows, cols [, offset]), got %s', describe(v))
    end
  end
  if rows < 0 or cols < 0 then fail(op, 'rows and cols must be non-negative, got %d and %d', rows, cols) end
  -- rows first..last are those with a column: lower keeps j <= i + offset, upper j >= i + offset
  local first = lower and math.max(1, 1 - offset) or 1
  local last = lower and rows or math.min(rows, cols - offset)
  if cols == 0 or first > last then return torch.LongTensor(2, 0) end
  -- the count, in closed form, so that a result too large fails before any work
  local function sum_of(a, b, c, s)  -- sum of c + s * i over a <= i <= b
    return b < a and 0 or (b - a + 1) * (c + s * (a + b) / 2)
  end
  local n
  if lower then  -- min(cols, i + offset) columns in row i: i + offset up to the knee, then cols
    local knee = math.min(last, cols - offset)
    n = sum_of(first, knee, offset, 1) + sum_of(math.max(first, knee + 1), last, cols, 0)
  else           -- cols - max(1, i + offset) + 1 columns in row i: cols up to the knee, then fewer
    local knee = math.min(last, 1 - offset)
    n = sum_of(first, knee, cols, 0) + sum_of(math.max(first, knee + 1), last, cols + 1 - offset, -1)
  end
  if 2 * n >= 2 ^ 40 then fail(op, 'a %d x %d matrix has %.0f indices with offset %d: too many', rows, cols, n, offset) end
  local out = torch.LongTensor(2, n)
  local r = torch.range(torch.LongTensor(), first, last)
  local lo = lower and torch.LongTensor(last - first + 1):fill(1) or torch.clamp(r + offset, 1, cols)
  local hi = lower and torch.clamp(r + offset, 1, cols) or torch.LongTensor(last - first + 1):fill(cols)
  local cnt = hi - lo + 1
  local start = torch.cumsum(cnt, 1) - cnt
  out[1]:copy(torch.repeatInterleave(r, cnt))
  out[2]:copy(torch.range(torch.LongTensor(), 0, n - 1) - torch.repeatInterleave(start - lo, cnt))
  return out
end

--- torch.trilIndices(rows, cols [, offset=0]): a 2 x N LongTensor of the 1-based (row, column)
--- indices of the lower triangle (j - i <= offset) of a rows x cols matrix, row by row.
--- Example: torch.trilIndices(3, 3)
function torch.trilIndices(rows, cols, offset)
  offset = offset or 0
  return indices('trilIndices', rows, cols, offset, true)
end

--- torch.triuIndices(rows, cols [, offset=0]): the same for the upper triangle (j - i >= offset).
--- Example: torch.triuIndices(3, 3, 1)
function torch.triuIndices(rows, cols, offset)
  offset = offset or 0
  return indices('triuIndices', rows, cols, offset, false)
end

--- torch.lu(A): PyTorch's torch.lu: LU and pivots (torch.linalg.luFactor).
--- Example: torch.lu(torch.Tensor({{1, 2}, {3, 4}}))
function torch.lu(A) return as_op_all('lu', linalg.luFactor, A) end
--- torch.luSolve(B, LU, pivots): PyTorch's torch.lu_solve argument order (torch.linalg.luSolve).
--- Example: torch.luSolve(torch.ones(2, 1), torch.eye(2), torch.IntTensor({1, 2}))
function torch.luSolve(B, LU, pivots) return as_op('luSolve', linalg.luSolve, LU, pivots, B) end
--- torch.luUnpack(LU, pivots): P, L, U (torch.linalg.luUnpack).
--- Example: torch.luUnpack(torch.lu(torch.Tensor({{1, 2}, {3, 4}})))
function torch.luUnpack(LU, pivots) return as_op_all('luUnpack', linalg.luUnpack, LU, pivots) end

return torch
