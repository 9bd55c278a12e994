-- The LU family (torch.linalg.luFactor / lu / luUnpack / luSolve, torch.lu...), the matrix
-- builders (kron, blockDiag, diagEmbed, diagflat, inner, vdot, cartesianProd, combinations,
-- trilIndices, triuIndices) against loops and closed forms, and a small fuzz of torch.linalg:
-- random arguments give Lua errors naming the op, never a crash.
local tester = torch.Tester()
local tests = torch.TestSuite()
local L = torch.linalg
local D = torch.DoubleTensor

local function rnd(seed, ...)
  torch.manualSeed(seed)
  return torch.randn(...):double()
end
local function eq(a, b, tol, msg) tester:assertTensorEq(a:double(), b:double(), tol, msg) end
local function mm(a, b) return torch.matmul(a, b) end

-- Doolittle with partial pivoting in plain Lua: the packed LU and 1-based pivots (LAPACK's).
local function lua_lu(m)
  local a, rows, cols = {}, #m, #m[1]
  for i = 1, rows do a[i] = {} for j = 1, cols do a[i][j] = m[i][j] end end
  local piv = {}
  for k = 1, math.min(rows, cols) do
    local p = k
    for i = k + 1, rows do if math.abs(a[i][k]) > math.abs(a[p][k]) then p = i end end
    piv[k] = p
    a[p], a[k] = a[k], a[p]
    if a[k][k] ~= 0 then
      for i = k + 1, rows do
        a[i][k] = a[i][k] / a[k][k]
        for j = k + 1, cols do a[i][j] = a[i][j] - a[i][k] * a[k][j] end
      end
    end
  end
  return a, piv
end

function tests.luFactor()
  for _, shape in ipairs({ { 4, 4 }, { 5, 3 }, { 3, 5 }, { 1, 1 } }) do
    local A = rnd(1, unpack(shape))
    local LU, piv = L.luFactor(A)
    tester:asserteq(piv:type(), 'torch.IntTensor')
    local ref, rp = lua_lu(A:totable())
    eq(LU, D(ref), 1e-12, 'packed LU against a Lua loop ' .. table.concat(shape, 'x'))
    tester:assertTableEq(piv:totable(), rp, 'pivots')
    local P, Lo, U = L.lu(A)
    eq(mm(P, mm(Lo, U)), A, 1e-12, 'A = P L U')
    tester:assertTableEq(Lo:size():totable(), { shape[1], math.min(shape[1], shape[2]) })
    tester:assertTableEq(U:size():totable(), { math.min(shape[1], shape[2]), shape[2] })
  end
  -- closed form (PyTorch's example values)
  local LU, piv = L.luFactor(D({ { 1, 2 }, { 3, 4 } }))
  eq(LU, D({ { 3, 4 }, { 1 / 3, 2 / 3 } }), 1e-15, '2x2 LU')
  tester:assertTableEq(piv:totable(), { 2, 2 })
  -- a singular matrix factors too (a zero on U's diagonal)
  local _, _, U = L.lu(D({ { 1, 2 }, { 2, 4 } }))
  tester:asserteq(U[2][2], 0)
  -- batches against per-matrix calls
  local B = rnd(2, 2, 3, 4, 4)
  local LUb, pb = L.luFactor(B)
  for i = 1, 2 do
    for j = 1, 3 do
      local l1, p1 = L.luFactor(B[i][j])
      eq(LUb[i][j], l1, 0, 'batched LU')
      tester:assertTableEq(pb[i][j]:totable(), p1:totable())
    end
  end
  local P, Lo, U2 = L.lu(B)
  eq(mm(P, mm(Lo, U2)), B, 1e-12, 'batched A = P L U')
  eq(L.lu(B:float()), L.lu(B), 1e-6, 'float')
  -- torch.lu / luUnpack / luSolve
  local A = rnd(3, 4, 4)
  local X = rnd(4, 4, 2)
  local f, p = torch.lu(A)
  eq(torch.luSolve(X, f, p), L.solve(A, X), 1e-10, 'luSolve')
  eq(L.luSolve(LUb, pb, rnd(5, 2, 3, 4, 1))[2][3], L.solve(B[2][3], rnd(5, 2, 3, 4, 1)[2][3]), 1e-10, 'batched luSolve')
  eq(select(1, torch.luUnpack(f, p)), select(1, L.luUnpack(f, p)), 0, 'torch.luUnpack')
  tester:assert(torch.autograd.gradcheck(function(b) return L.luSolve(f, p, b) end, { X:clone():requiresGrad() }),
    'luSolve gradcheck in B')
  tester:assertErrorPattern(function() L.luUnpack(f, torch.IntTensor({ 1, 2 })) end, '%[linalg.luUnpack%] LU is 4x4 so pivots must be 4')
  tester:assertErrorPattern(function() L.luUnpack(f, torch.IntTensor({ 1, 2, 9, 4 })) end, 'pivot 3 of matrix 1 is 9')
  tester:assertErrorPattern(function() L.luFactor(torch.ones(3)) end, '%[linalg.luFactor%] expected a matrix')
end

function tests.kronBlockDiag()
  local a, b = D({ { 1, 2 }, { 3, 4 } }), D({ { 0, 5 }, { 6, 7 } })
  local k = torch.kron(a, b)
  for i = 1, 2 do for j = 1, 2 do for p = 1, 2 do for q = 1, 2 do
    tester:asserteq(k[(i - 1) * 2 + p][(j - 1) * 2 + q], a[i][j] * b[p][q])
  end end end end
  eq(torch.kron(D({ 1, 2 }), D({ 1, 10, 100 })), D({ 1, 10, 100, 2, 20, 200 }), 0, '1D kron')
  tester:assertTableEq(torch.kron(torch.ones(2, 3), torch.ones(4, 1, 2)):size():totable(), { 4, 2, 6 })
  local bd = torch.blockDiag(D({ { 1, 2 } }), D(1):fill(5):view({}), D({ { 3 }, { 4 } }))
  eq(bd, D({ { 1, 2, 0, 0 }, { 0, 0, 5, 0 }, { 0, 0, 0, 3 }, { 0, 0, 0, 4 } }), 0, 'blockDiag')
  tester:assertTableEq(torch.blockDiag(D(1):fill(5):view({}), torch.ones(2):double()):size():totable(), { 2, 3 })
end

function tests.diagInnerVdot()
  local x = D({ { 1, 2 }, { 3, 4 } })
  local e = torch.diagEmbed(x)
  eq(e[2], D({ { 3, 0 }, { 0, 4 } }), 0, 'diagEmbed batch')
  eq(torch.diagEmbed(D({ 1, 2 }), 1), D({ { 0, 1, 0 }, { 0, 0, 2 }, { 0, 0, 0 } }), 0, 'diagEmbed offset 1')
  eq(torch.diagEmbed(D({ 1, 2 }), -1), D({ { 0, 0, 0 }, { 1, 0, 0 }, { 0, 2, 0 } }), 0, 'diagEmbed offset -1')
  eq(torch.diagflat(x), torch.diag(D({ 1, 2, 3, 4 })), 0, 'diagflat')
  eq(torch.diagflat(D({ 1, 2 }), 1), torch.diag(D({ 1, 2 }), 1), 0, 'diagflat offset')
  local a, b = rnd(6, 2, 3), rnd(7, 4, 3)
  local r = torch.inner(a, b)
  tester:assertTableEq(r:size():totable(), { 2, 4 })
  tester:assert(math.abs(r[2][3] - (a[2][1] * b[3][1] + a[2][2] * b[3][2] + a[2][3] * b[3][3])) < 1e-12, 'inner')
  tester:asserteq(torch.inner(D({ 1, 2 }), D({ 3, 4 })):dim(), 0)
  tester:asserteq(torch.vdot(D({ 1, 2 }), D({ 3, 4 })):item(), 11)
  tester:assertErrorPattern(function() torch.vdot(D({ 1 }), D({ 1, 2 })) end, '%[vdot%] expected two 1D tensors')
end

function tests.combinatorics()
  eq(torch.cartesianProd(D({ 1, 2 }), D({ 3, 4, 5 })), D({ { 1, 3 }, { 1, 4 }, { 1, 5 }, { 2, 3 }, { 2, 4 }, { 2, 5 } }), 0, 'cartesianProd')
  tester:assertTableEq(torch.cartesianProd(D({ 1, 2 })):size():totable(), { 2 })
  eq(torch.combinations(D({ 1, 2, 3 })), D({ { 1, 2 }, { 1, 3 }, { 2, 3 } }), 0, 'combinations')
  eq(torch.combinations(D({ 1, 2 }), { withReplacement = true }), D({ { 1, 1 }, { 1, 2 }, { 2, 2 } }), 0, 'with replacement')
  tester:assertTableEq(torch.combinations(D({ 1, 2 }), 3):size():totable(), { 0, 3 })
  tester:asserteq(torch.combinations(D({ 1, 2, 3, 4, 5 }), 3):size(1), 10)
  eq(torch.combinations(D({ 1, 2, 3 }), 3, true)[{ { 4, 6 } }], D({ { 1, 2, 2 }, { 1, 2, 3 }, { 1, 3, 3 } }), 0, 'r 3 with replacement')
  tester:assertTableEq(torch.combinations(D({ 1, 2, 3 }), 0):size():totable(), { 0 }, 'r 0: an empty 1D tensor (PyTorch)')
  tester:assertTableEq(torch.combinations(D({}), 2, true):size():totable(), { 0, 2 }, 'no element')
  tester:asserteq(torch.combinations(torch.range(1, 300):double(), 3):size(1), 4455100, 'C(300, 3)')
  local big = torch.zeros(100000)
  tester:assertErrorPattern(function() torch.cartesianProd(big, big, big, big) end,
    '%[cartesianProd%] 4 tensors of sizes 100000, 100000, 100000, 100000 give 100000000000000000000 tuples: too many')
  -- too many combinations: an error at once (the Lua enumeration ran for hours)
  tester:assertErrorPattern(function() torch.combinations(torch.randn(40), 20) end,
    '%[combinations%] 40 elements taken 20 at a time give 137846528820 combinations: too many')
  -- diagEmbed keeps zeros beside inf and NaN (an identity product made them NaN)
  local de = torch.diagEmbed(D({ math.huge, 0 / 0, 1 }), 1)
  tester:asserteq(de[1][2], math.huge)
  tester:assert(de[2][3] ~= de[2][3], 'NaN on the diagonal')
  tester:asserteq(de:ne(de):sum(), 1, 'one NaN: the diagonal one')
  tester:asserteq(de[1][1] + de[2][1] + de[1][3] + de[3][2], 0, 'zeros beside inf and NaN')
  tester:asserteq(torch.diagflat(D({ { math.huge } })):sum(), math.huge)
  tester:assertTableEq(torch.trilIndices(3, 4, 1):totable(), { { 1, 1, 2, 2, 2, 3, 3, 3, 3 }, { 1, 2, 1, 2, 3, 1, 2, 3, 4 } })
  tester:assertTableEq(torch.triuIndices(4, 3, -1):totable(), { { 1, 1, 1, 2, 2, 2, 3, 3, 4 }, { 1, 2, 3, 1, 2, 3, 2, 3, 3 } })
  tester:assertErrorPattern(function() torch.trilIndices(3, 'a') end, '%[trilIndices%] expected integers')
  -- every small case against the definition (j - i <= offset / >= offset), row by row
  for rows = 0, 5 do for cols = 0, 5 do for offset = -7, 7 do
    for _, op in ipairs({ 'trilIndices', 'triuIndices' }) do
      local r, c = {}, {}
      for i = 1, rows do for j = 1, cols do
        if (op == 'trilIndices' and j - i <= offset) or (op == 'triuIndices' and j - i >= offset) then
          r[#r + 1], c[#c + 1] = i, j
        end
      end end
      local t = torch[op](rows, cols, offset)
      tester:eq(t:size():totable(), { 2, #r }, op)
      if #r > 0 then tester:assertTableEq(t:totable(), { r, c }, op) end
    end
  end end end
  -- huge sizes: empty at once, or an error naming the op (a Lua double loop never returned)
  tester:eq(torch.triuIndices(1e9, 1e9, 2e9):size():totable(), { 2, 0 })
  tester:eq(torch.trilIndices(1e9, 1e9, -2e9):size():totable(), { 2, 0 })
  tester:eq(torch.trilIndices(1e9, 2, -1e9 + 1):totable(), { { 1e9 }, { 1 } })
  tester:assertErrorPattern(function() torch.trilIndices(1e12, 3) end, '%[trilIndices%] .* too many')
end

-- A result too large for combinations (r up to 2^53) fails or is empty at once; the count loop
-- ran r times (the CUDA fuzz seeds 212 and 260 hung in it).
function tests.combinationsOfHugeR()
  local x = torch.LongTensor({ 1, 2, 3 })
  tester:assertTableEq(torch.combinations(x, 2 ^ 50):size():totable(), { 0, 2 ^ 50 }, 'r > n: empty')
  tester:assertErrorPattern(function() torch.combinations(x, 2 ^ 40, true) end, 'too many')
  tester:assertErrorPattern(function() torch.combinations(x, 1e300) end, 'below 2%^53')
  tester:assertErrorPattern(function() torch.combinations(x, math.huge, true) end, 'below 2%^53')
  tester:asserteq(torch.combinations(torch.LongTensor({ 7 }), 5, true):size(1), 1, 'one element with replacement')
end

-- Random arguments to every torch.linalg function: a Lua error naming the op, or a result.
function tests.fuzz()
  torch.manualSeed(99)
  local pool = { 1, -1, 0, 2.5, 'fro', 'x', true, {}, { upper = true }, torch.ones(3, 3), torch.ones(2, 3):double(),
    torch.zeros(0, 3, 3), torch.LongTensor(2, 2):zero(), torch.ones(3), torch.IntTensor({ 1, 2, 3 }), torch.ones(1, 1):view({}) }
  local names = {}
  for name in pairs(L) do names[#names + 1] = name end
  table.sort(names)
  for _, name in ipairs(names) do
    for _ = 1, 40 do
      local args = {}
      for i = 1, math.random(0, 3) do args[i] = pool[math.random(#pool)] end
      local ok, err = pcall(L[name], unpack(args, 1, 3))
      if not ok then
        tester:assert(type(err) == 'string' and err:find('%[') ~= nil, name .. ': unexpected error ' .. tostring(err))
      end
    end
  end
end

function tests.cuda()
  if not torch.cuda.isAvailable() then
    print('SKIPPED: no CUDA device (LU and the builders against the CPU)')
    return
  end
  for _, t in ipairs({ 'torch.FloatTensor', 'torch.DoubleTensor' }) do
    local tl = t == 'torch.FloatTensor' and 1e-4 or 1e-10
    local A = rnd(50, 2, 4, 4):type(t)
    local LU, piv = L.luFactor(A)
    local LUc, pivc = L.luFactor(A:cuda())
    eq(LUc:type(t), LU, tl, 'cuda luFactor ' .. t)
    tester:assertTableEq(pivc:int():totable(), piv:totable(), 'cuda pivots')
    local P, Lo, U = L.lu(A:cuda())
    eq(torch.matmul(P, torch.matmul(Lo, U)):type(t), A, tl, 'cuda A = P L U')
    local B = rnd(51, 2, 4, 2):type(t)
    eq(L.luSolve(LUc, pivc, B:cuda()):type(t), L.solve(A, B), tl * 10, 'cuda luSolve')
    eq(torch.kron(A[1]:cuda(), A[2]:cuda()):type(t), torch.kron(A[1], A[2]), tl, 'cuda kron')
  end
end

tester:add(tests)
tester:run()
