-- Products with sparse COO matrices (torch.sparse.mm/addmm, torch.smm, torch.hspmm, sparse x
-- sparse), torch.sparse.softmax/logSoftmax/sum, torch.mm's dispatch to them and the operators of
-- torch.SparseTensor. A product gathers the dense rows the entries pick (index), scales them by
-- the values (cmul) and adds them into their output rows (indexAdd): recorded ops, so it is
-- differentiable in the dense operand and in the values and runs on any device.
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local U = require 'torch.sparse_util'
local fail = lib.fail
local is_tensor = types.is_tensor
local mt = U.mt
local sparse = torch.sparse

local function check_matrix(op, S, what, argn)
  U.check_sparse(op, S, argn or 1)
  if #S._size ~= 2 or S._indices:size(1) ~= 2 then
    fail(op, '%s must be a 2-D sparse matrix (2 sparse dims, no dense dims), got %s', what, U.describe(S))
  end
end

local function same_place(op, S, D)
  local v = S._values
  if v.p.dtype ~= D.p.dtype then fail(op, 'the sparse values are %s but the dense operand is %s', U.describe(v), U.describe(D)) end
  if v.p.device_type ~= D.p.device_type or v.p.device_index ~= D.p.device_index then
    fail(op, 'the sparse matrix is on %s but the dense operand on %s', tostring(v:device()), tostring(D:device()))
  end
end

-- Note [Chunked sparse products]: out[rows[e]] += alpha * vals[e] * D[cols[e]] for every entry e.
-- When something needs a gradient this is three recorded ops on all entries (index, cmul,
-- indexAdd). Otherwise, on the CPU, the entries go in chunks whose scaled rows (about 512 KiB)
-- stay in cache, written in place into one reused buffer: 2.6x faster than the whole-tensor form
-- on a 10000 x 10000 matrix with 100000 entries times 10000 x 64 (bench/sparse.lua), which spends
-- its time writing and reading back a 25 MB intermediate.
local CHUNK_BYTES = 2 ^ 19
local function add_product(out, rows, cols, vals, D, alpha)
  local nnz, p = rows:size(1), D:size(2)
  if alpha ~= 1 then vals = torch.mul(vals, alpha) end
  if torch.isGradEnabled() and (vals:needsGrad() or D:needsGrad() or out:needsGrad()) then
    local g = torch.cmul(D:index(1, cols), vals:reshape(nnz, 1):expand(nnz, p))
    return (torch.indexAdd(out, 1, rows, g))
  end
  local chunk = nnz
  if D.p.device_type == 0 then
    chunk = math.max(64, math.floor(CHUNK_BYTES / (p * (D.p.dtype == lib.dtype.f64 and 8 or 4))))
  end
  local buf = U.empty(D, { math.min(chunk, nnz), p })
  for s = 1, nnz, chunk do
    local len = math.min(chunk, nnz - s + 1)
    local c, v = cols, vals
    if len < nnz then c, v = cols:narrow(1, s, len), vals:narrow(1, s, len) end
    buf:index(D, 1, c)
    buf:cmul(v:reshape(len, 1):expand(len, p))
    out:indexAdd(1, len < nnz and rows:narrow(1, s, len) or rows, buf)
  end
  return out
end

-- S (n x m, sparse) times D (m x p, dense), times alpha, added into out (a fresh n x p tensor).
local function sparse_dense(op, S, D, out, alpha)
  same_place(op, S, D)
  if D:dim() ~= 2 or D:size(1) ~= S._size[2] then
    fail(op, 'sizes do not match: %s times %s', U.describe(S), U.describe(D))
  end
  out = out or U.zeros(D, { S._size[1], D:size(2) })
  if out:dim() ~= 2 or out:size(1) ~= S._size[1] or out:size(2) ~= D:size(2) then
    fail(op, 'M is %s but the product is %dx%d', U.describe(out), S._size[1], D:size(2))
  end
  return (add_product(out, S._indices:select(1, 1), S._indices:select(1, 2), S._values, D, alpha or 1))
end

-- A (n x k) times B (k x m), both sparse: a coalesced sparse n x m, from the pairs of entries
-- whose inner indices meet.
local function sparse_sparse(op, A, B)
  check_matrix(op, B, 'the second operand')
  if A._size[2] ~= B._size[1] then fail(op, 'sizes do not match: %s times %s', U.describe(A), U.describe(B)) end
  local pa, pb = U.join(A._indices:select(1, 2), B._indices:select(1, 1))
  local idx = torch.cat({ A._indices:select(1, 1):index(1, pa):view(1, -1), B._indices:select(1, 2):index(1, pb):view(1, -1) }, 1)
  local vals = torch.cmul(A._values:index(1, pa), B._values:index(1, pb))
  return (U.new(idx, vals, { A._size[1], B._size[2] }, false):coalesce())
end

--- torch.sparse.mm(S, D): the matrix product of a 2-D SparseTensor S (n x m) and a dense m x p
--- matrix D (a dense n x p tensor), or of two SparseTensors (a coalesced SparseTensor), or of a
--- dense D and a sparse S (dense). Differentiable in the dense operand and in the values.
--- Example: torch.sparse.mm(torch.eye(2):toSparse(), torch.ones(2, 3))
function sparse.mm(a, b)
  if U.is_sparse(a) then
    check_matrix('mm', a, 'the sparse operand')
    if U.is_sparse(b) then return (sparse_sparse('mm', a, b)) end
    if not is_tensor(b) then fail('mm', 'expected a dense or sparse matrix as argument 2, got %s', U.describe(b)) end
    return (sparse_dense('mm', a, b))
  end
  if is_tensor(a) and U.is_sparse(b) then
    check_matrix('mm', b, 'the sparse operand')
    if a:dim() ~= 2 then fail('mm', 'expected a dense matrix as argument 1, got %s', U.describe(a)) end
    return (sparse_dense('mm', b:t(), a:t()):t())
  end
  fail('mm', 'expected a SparseTensor among the operands, got %s and %s', U.describe(a), U.describe(b))
end

--- torch.sparse.addmm(M, S, D [, {beta = 1, alpha = 1}]) or ([beta,] M, [alpha,] S, D), Torch7's
--- order: beta * M + alpha * (S x D) for a 2-D SparseTensor S and dense M, D; a new dense tensor.
--- Example: torch.sparse.addmm(torch.ones(2, 2), torch.eye(2):toSparse(), torch.ones(2, 2), {beta = 2})
function sparse.addmm(...)
  local args, n = { ... }, select('#', ...)
  local beta, alpha, M, S, D = 1, 1
  local i = 1
  if type(args[i]) == 'number' then beta, i = args[i], i + 1 end
  M, i = args[i], i + 1
  if type(args[i]) == 'number' then alpha, i = args[i], i + 1 end
  S, D = args[i], args[i + 1]
  local opts = args[i + 2]
  if type(opts) == 'table' and not U.is_sparse(opts) then
    -- a misspelt option or a trailing argument silently left beta or alpha at 1
    for k in pairs(opts) do
      if k ~= 'beta' and k ~= 'alpha' then fail('addmm', 'unknown option %s (expected beta, alpha)', tostring(k)) end
    end
    if i + 3 <= n then fail('addmm', 'too many arguments (%d)', n) end
    beta, alpha = opts.beta or beta, opts.alpha or alpha
  elseif i + 2 <= n then
    fail('addmm', 'too many arguments (%d)', n)
  end
  if type(beta) ~= 'number' or type(alpha) ~= 'number' then
    fail('addmm', 'beta and alpha must be numbers, got %s and %s', U.describe(beta), U.describe(alpha))
  end
  if not is_tensor(M) then fail('addmm', 'expected a dense matrix M, got %s', U.describe(M)) end
  check_matrix('addmm', S, 'the sparse operand', i)  -- i: S's position, after M and the numbers
  if not is_tensor(D) then fail('addmm', 'expected a dense matrix D, got %s', U.describe(D)) end
  if D:dim() ~= 2 or D:size(1) ~= S._size[2] then
    fail('addmm', 'sizes do not match: %s times %s', U.describe(S), U.describe(D))
  end
  -- Note [addmm's M]: as PyTorch's addmm, M broadcasts to the n x p product (a same element
  -- count is not enough), and beta = 0 ignores M, NaN and inf included (0 * M would spread them).
  local n, p = S._size[1], D:size(2)
  local ms, fits = M:size():totable(), M:dim() <= 2
  if fits and #ms >= 1 then fits = ms[#ms] == 1 or ms[#ms] == p end
  if fits and #ms == 2 then fits = ms[1] == 1 or ms[1] == n end
  if not fits then fail('addmm', 'M is %s, which does not broadcast to the product\'s %dx%d', U.describe(M), n, p) end
  local out
  if beta == 0 then
    out = U.zeros(D, { n, p })
  else
    out = torch.mul(M, beta)
    if #ms ~= 2 or ms[1] ~= n or ms[2] ~= p then out = torch.add(U.zeros(D, { n, p }), out) end
  end
  return (sparse_dense('addmm', S, D, out, alpha))
end

--- torch.hspmm(S, D): S (sparse n x m) times dense D (m x p) as a hybrid SparseTensor: one sparse
--- dim (the rows of S that hold entries) and the dense product rows as values (PyTorch's hspmm).
--- Example: torch.hspmm(torch.eye(2):toSparse(), torch.ones(2, 3)):values()
function torch.hspmm(S, D)
  check_matrix('hspmm', S, 'the sparse operand')
  if not is_tensor(D) or D:dim() ~= 2 or D:size(1) ~= S._size[2] then
    fail('hspmm', 'expected a dense %d x p matrix as argument 2, got %s', S._size[2], U.describe(D))
  end
  same_place('hspmm', S, D)
  local p = D:size(2)
  if S:nnz() == 0 then return (U.new(S._indices:narrow(1, 1, 1), U.zeros(D, { 0, p }), { S._size[1], p }, true)) end
  local rows, inv = torch.unique(S._indices:select(1, 1), { returnInverse = true })
  local vals = add_product(U.zeros(D, { rows:size(1), p }), inv, S._indices:select(1, 2), S._values, D, 1)
  return (U.new(rows:view(1, -1), vals, { S._size[1], p }, true))
end

--- torch.smm(S, D): S (sparse n x m) times dense D (m x p) as a coalesced 2-D SparseTensor
--- holding every element of the rows of S that hold entries (PyTorch's smm).
--- Example: torch.smm(torch.eye(2):toSparse(), torch.ones(2, 2)):toDense()
function torch.smm(S, D)
  local H = torch.hspmm(S, D)
  local r, p = H._indices:size(2), D:size(2)
  local rows = H._indices:select(1, 1):view(r, 1):expand(r, p):reshape(1, r * p)
  local cols = U.range(D, p):view(1, p):expand(r, p):reshape(1, r * p)
  return (U.new(torch.cat({ rows, cols }, 1), H._values:reshape(r * p), H._size, true))
end

-- softmax or logSoftmax of S along dim; unspecified entries count as -inf (PyTorch), so the
-- result has S's (coalesced) pattern. The group maxima that keep exp in range are constants.
local function softmax(op, S, dim, log)
  U.check_sparse(op, S, 1)
  local n, sd = #S._size, S._indices:size(1)
  local d = U.dim(op, dim, n)
  local A = S:coalesce()
  local v, nnz = A._values, A._indices:size(2)
  if d > sd then
    local f = log and torch.logSoftmax or torch.softmax
    return (U.new(A._indices, f(v, d - sd + 1), A._size, true))
  end
  if nnz == 0 then return (U.new(A._indices, v:clone(), A._size, true)) end
  local others = {}
  for k = 1, sd do if k ~= d then others[#others + 1] = k end end
  local g, G
  if #others == 0 then
    g, G = U.empty(A._indices, { nnz }, types.I64):fill(1), 1
  else
    local key = U.keys(op, A._indices, A._size, others)
    local u
    u, g = torch.unique(key, { returnInverse = true })
    G = u:size(1)
  end
  local rest = U.prod(v:size():totable(), 2)
  local flat = v:detach():reshape(nnz, rest)
  local gmax = torch.scatterReduce(U.empty(v, { G, rest }):fill(-math.huge), 1,
    g:view(nnz, 1):expand(nnz, rest):contiguous(), flat, 'amax')
  local shifted = torch.csub(v, gmax:index(1, g):viewAs(v))
  local e = torch.exp(shifted)
  local sums = torch.indexAdd(U.zeros(v, { G, rest }), 1, g, e:reshape(nnz, rest)):index(1, g):viewAs(v)
  local out = log and torch.csub(shifted, torch.log(sums)) or torch.cdiv(e, sums)
  return (U.new(A._indices, out, A._size, true))
end

--- torch.sparse.softmax(S, dim): softmax of a SparseTensor along dim (1-based) where unspecified
--- entries are -inf (they stay unspecified: the result has S's coalesced pattern). Differentiable.
--- Example: torch.sparse.softmax(torch.eye(2):toSparse(), 2):toDense()
function sparse.softmax(S, dim) return (softmax('softmax', S, dim, false)) end
--- torch.sparse.logSoftmax(S, dim): log of torch.sparse.softmax(S, dim), computed stably.
--- Example: torch.sparse.logSoftmax(torch.eye(2):toSparse(), 2):values()
function sparse.logSoftmax(S, dim) return (softmax('logSoftmax', S, dim, true)) end
--- torch.sparse.sum(S [, dims]): S:sum(dims): all values summed (a number), or PyTorch's sum over
--- dims (removed): sparse while sparse dims remain, dense otherwise.
--- Example: torch.sparse.sum(torch.eye(3):toSparse(), 2):toDense()
function sparse.sum(S, dims) return (U.check_sparse('sum', S, 1):sum(dims)) end

--- S:mm(x): torch.sparse.mm(S, x).
--- Example: torch.eye(2):toSparse():mm(torch.ones(2, 2))
function mt:mm(x) return (sparse.mm(self, x)) end
--- S:softmax(dim): torch.sparse.softmax(S, dim).
--- Example: torch.eye(2):toSparse():softmax(1):values()
function mt:softmax(dim) return (sparse.softmax(self, dim)) end
--- S:logSoftmax(dim): torch.sparse.logSoftmax(S, dim).
--- Example: torch.eye(2):toSparse():logSoftmax(1):values()
function mt:logSoftmax(dim) return (sparse.logSoftmax(self, dim)) end

-- Note [torch.mm and sparse operands]: torch.mm is wrapped once at load time; a call whose
-- arguments are all tensors (cdata) passes three type() tests before the dense torch.mm, so the
-- dense path is unchanged (bench/sparse.lua measures it). res:mm/a:mm methods are untouched.
local dense_mm = torch.mm
sparse._denseMm = dense_mm  -- for bench/sparse.lua's overhead measurement
--- torch.mm([res,] a, b): the matrix product of a (n x m) and b (m x p), a new n x p tensor, or
--- res resized and filled (then returned); when a or b is a SparseTensor, torch.sparse.mm(a, b).
--- res:mm(a, b) fills res; a:mm(b) returns a new tensor.
--- Example: torch.mm(torch.ones(2, 3), torch.ones(3, 4))
function torch.mm(a1, a2, a3)
  if type(a1) == 'table' or type(a2) == 'table' or type(a3) == 'table' then
    if a3 == nil and (U.is_sparse(a1) or U.is_sparse(a2)) then return (sparse.mm(a1, a2)) end
    if is_tensor(a1) and (U.is_sparse(a2) or U.is_sparse(a3)) then
      local r = sparse.mm(a2, a3)
      if not is_tensor(r) then fail('mm', 'a sparse x sparse product cannot fill a dense result tensor') end
      return (a1:resizeAs(r):copy(r))
    end
  end
  return (dense_mm(a1, a2, a3))
end

-- Operators: S * number, S * dense (mm for a matrix, mv for a vector), S * S, S + x, S - x, -S, S / n.
mt.__mul__ = function(a, b)
  if type(a) == 'number' then return (b:mul(a)) end
  if type(b) == 'number' then return (a:mul(b)) end
  if is_tensor(b) and b:dim() == 1 then
    return (sparse.mm(a, b:view(b:size(1), 1)):view(a._size[1]))
  end
  return (sparse.mm(a, b))
end
mt.__add__ = function(a, b)
  if not U.is_sparse(a) then fail('add', 'a dense + sparse sum is written S + x, got %s + %s', U.describe(a), U.describe(b)) end
  return (a:add(b))
end
mt.__sub__ = function(a, b)
  if not U.is_sparse(a) or type(b) == 'number' then
    fail('sub', 'expected a SparseTensor minus a tensor, got %s - %s', U.describe(a), U.describe(b))
  end
  return (a:sub(b))
end
mt.__unm__ = function(a) return (a:neg()) end
mt.__div__ = function(a, b)
  if not U.is_sparse(a) then fail('div', 'expected a SparseTensor on the left, got %s', U.describe(a)) end
  return (a:div(b))
end

return sparse
