-- Sparse COO tensors (lua/torch/sparse*.lua), construction and layout: checks, coalesce against
-- PyTorch 1.13's values, toDense/toSparse round trips, hybrid tensors, pointwise arithmetic,
-- sum, transpose, narrowCopy, indexSelect (against the dense equivalents), conversions,
-- printing and errors. Products, softmax and gradients are in test_sparse_mm.lua.
local tester = torch.Tester()
local tests = torch.TestSuite()

-- The example tensor of both files: 1-based indices with a duplicate at (1, 3).
local function example(tname)
  local S = torch.sparseCooTensor({ { 1, 2, 2, 1, 3 }, { 3, 1, 3, 3, 2 } }, { 3, 4, 5, 6, -1.5 }, { 3, 3 })
  return tname and S:type(tname) or S
end
local function dense_example() return torch.Tensor({ { 0, 0, 9 }, { 4, 0, 5 }, { 0, -1.5, 0 } }) end

function tests.construction()
  local S = example()
  tester:asserteq(torch.typename(S), 'torch.SparseTensor')
  tester:assert(torch.isSparse(S) and S:isSparse())
  tester:assert(not torch.isSparse(torch.ones(2)) and not torch.ones(2):isSparse())
  tester:asserteq(S:dim(), 2)
  tester:asserteq(S:sparseDim(), 2)
  tester:asserteq(S:denseDim(), 0)
  tester:asserteq(S:nnz(), 5)
  tester:asserteq(S:size(2), 3)
  tester:assertTableEq(S:size():totable(), { 3, 3 })
  tester:asserteq(S:nElement(), 9)
  tester:assert(not S:isCoalesced(), 'PyTorch: a constructed tensor with nnz > 1 is not coalesced')
  tester:asserteq(S:type(), 'torch.sparse.FloatTensor')
  -- size inferred from the largest index; one entry counts as coalesced (PyTorch)
  local one = torch.sparseCooTensor(torch.LongTensor({ { 2 }, { 5 } }), torch.Tensor({ 7 }))
  tester:assertTableEq(one:size():totable(), { 2, 5 })
  tester:assert(one:isCoalesced())
  -- options: dtype and requiresGrad; IntTensor indices become LongTensor
  local d = torch.sparseCooTensor(torch.IntTensor({ { 1, 2 } }), torch.Tensor({ 1, 2 }), { 4 },
    { dtype = 'torch.DoubleTensor', requiresGrad = true })
  tester:asserteq(torch.typename(d:values()), 'torch.DoubleTensor')
  tester:asserteq(torch.typename(d:indices()), 'torch.LongTensor')
  tester:assert(d:needsGrad())
  local e = torch.sparseCooTensor(torch.LongTensor(1, 0), torch.Tensor(0), { 4 })
  tester:asserteq(e:nnz(), 0)
  tester:assertTensorEq(e:toDense(), torch.zeros(4), 0)
end

function tests.coalesceMatchesPyTorch()
  local C = example():coalesce()
  tester:assert(C:isCoalesced())
  tester:asserteq(C:coalesce(), C, 'coalescing a coalesced tensor returns it')
  -- PyTorch 1.13: sparse_coo_tensor([[0,1,1,0,2],[2,0,2,2,1]], [3,4,5,6,-1.5], (3,3)).coalesce(), indices + 1
  tester:assertTensorEq(C:indices(), torch.LongTensor({ { 1, 2, 2, 3 }, { 3, 1, 3, 2 } }), 0)
  tester:assertTensorEq(C:values(), torch.Tensor({ 9, 4, 5, -1.5 }), 0)
  tester:assertTensorEq(example():toDense(), dense_example(), 0)
  tester:assertTensorEq(C:toDense(), dense_example(), 0)
end

function tests.roundTrips()
  torch.manualSeed(3)
  local x = torch.randn(4, 5, 3):double()
  x:maskedFill(torch.rand(4, 5, 3):lt(0.6), 0)
  for k = 1, 3 do
    local S = x:toSparse(k)
    tester:assert(S:isCoalesced())
    tester:asserteq(S:sparseDim(), k)
    tester:asserteq(S:denseDim(), 3 - k)
    tester:assertTensorEq(S:toDense(), x, 0, 'sparseDims ' .. k)
  end
  tester:asserteq(x:toSparse():nnz(), torch.ne(x, 0):sum())
  -- a shuffled, duplicated construction gives the same dense tensor after coalesce
  local S = x:toSparse()
  local perm = torch.randperm(S:nnz()):long()
  local idx = torch.cat({ S:indices():index(2, perm), S:indices() }, 2)
  local vals = torch.cat({ S:values():index(1, perm), S:values() }, 1)
  local U = torch.sparseCooTensor(idx, vals, { 4, 5, 3 })
  tester:assertTensorEq(U:toDense(), x * 2, 1e-15)
  tester:assertTensorEq(U:coalesce():indices(), S:indices(), 0)
  tester:assertTensorEq(U:coalesce():values(), S:values() * 2, 1e-15)
  tester:asserteq(torch.zeros(3, 2):toSparse():nnz(), 0)
end

function tests.hybridMatchesPyTorch()
  -- PyTorch 1.13: sparse_coo_tensor([[0,2,0]], [[1,2],[3,4],[5,6]], (3,2)).coalesce()
  local H = torch.sparseCooTensor({ { 1, 3, 1 } }, { { 1, 2 }, { 3, 4 }, { 5, 6 } }, { 3, 2 })
  tester:asserteq(H:denseDim(), 1)
  local C = H:coalesce()
  tester:assertTensorEq(C:indices(), torch.LongTensor({ { 1, 3 } }), 0)
  tester:assertTensorEq(C:values(), torch.Tensor({ { 6, 8 }, { 3, 4 } }), 0)
  tester:assertTensorEq(H:toDense(), torch.Tensor({ { 6, 8 }, { 0, 0 }, { 3, 4 } }), 0)
  -- PyTorch 1.13: x.to_sparse(1) for x = [[0,1,0],[0,0,0],[2,0,3]]
  local T = torch.Tensor({ { 0, 1, 0 }, { 0, 0, 0 }, { 2, 0, 3 } }):toSparse(1)
  tester:assertTensorEq(T:indices(), torch.LongTensor({ { 1, 3 } }), 0)
  tester:assertTensorEq(T:values(), torch.Tensor({ { 0, 1, 0 }, { 2, 0, 3 } }), 0)
end

function tests.arithmetic()
  local S, x = example('torch.DoubleTensor'), dense_example():double()
  local y = torch.DoubleTensor({ { 1, 2, 3 }, { 4, 5, 6 }, { 7, 8, 9 } })
  tester:assertTensorEq(S:mul(2.5):toDense(), x * 2.5, 0)
  tester:assertTensorEq((S * 2):toDense(), x * 2, 0)
  tester:assertTensorEq((2 * S):toDense(), x * 2, 0)
  tester:assertTensorEq((S / 4):toDense(), x / 4, 0)
  tester:assertTensorEq((-S):toDense(), -x, 0)
  tester:assertTensorEq(S:mul(y):toDense(), torch.cmul(x, y), 0)
  tester:assertTensorEq(S:mul(S):toDense(), torch.cmul(x, x), 0)
  -- PyTorch 1.13: (S * S).coalesce().values()
  tester:assertTensorEq(S:mul(S):values(), torch.DoubleTensor({ 81, 16, 25, 2.25 }), 0)
  local St = S:t()
  tester:assertTensorEq(S:mul(St):toDense(), torch.cmul(x, x:t()), 0)
  tester:assertTensorEq(S:mul(St):indices(), torch.LongTensor({ { 2, 3 }, { 3, 2 } }), 0)
  tester:assertTensorEq((S + St):toDense(), x + x:t(), 0)
  tester:assert((S:coalesce() + St:coalesce()):isCoalesced())
  tester:assertTensorEq((S - St):toDense(), x - x:t(), 0)
  tester:assertTensorEq(S:add(3, St):toDense(), x + x:t() * 3, 0)
  tester:assertTensorEq(S:add(y), x + y, 0)
  tester:assertTensorEq(S + y, x + y, 0)
  tester:assertTensorEq(S:add(y, 2), x + y * 2, 0)
  tester:assert(not S:mul(2):isCoalesced() and S:coalesce():mul(2):isCoalesced())
end

function tests.sumMatchesPyTorch()
  local S, x = example('torch.DoubleTensor'), dense_example():double()
  tester:asserteq(S:sum(), 16.5)  -- PyTorch 1.13: torch.sparse.sum(S) = 16.5
  local s1 = torch.sparse.sum(S, 1)
  -- PyTorch 1.13: torch.sparse.sum(S, 0): indices [[0, 1, 2]], values [4, -1.5, 14]
  tester:assertTensorEq(s1:indices(), torch.LongTensor({ { 1, 2, 3 } }), 0)
  tester:assertTensorEq(s1:values(), torch.DoubleTensor({ 4, -1.5, 14 }), 0)
  tester:assertTensorEq(S:sum(-1):toDense(), x:sum(2):view(3), 0)
  tester:assertTensorEq(S:sum({ 1, 2 }), torch.DoubleTensor({ 16.5 }):view(torch.LongStorage({})), 0)
  local H = x:toSparse(1)
  tester:assertTensorEq(H:sum(2):toDense(), x:sum(2):view(3), 0)
  tester:assertTensorEq(H:sum(1), x:sum(1):view(3), 0)
end

function tests.transposeNarrowIndexSelect()
  local S, x = example(), dense_example()
  tester:assertTensorEq(S:t():toDense(), x:t(), 0)
  tester:assertTensorEq(S:transpose(2, 1):toDense(), x:t(), 0)
  tester:assert(not S:coalesce():t():isCoalesced(), 'PyTorch: a transpose is not coalesced')
  local T = torch.randn(3, 4, 5)
  T:maskedFill(torch.rand(3, 4, 5):lt(0.5), 0)
  tester:assertTensorEq(T:toSparse():transpose(1, 3):toDense(), T:transpose(1, 3), 0)
  for d = 1, 3 do
    tester:assertTensorEq(T:toSparse():narrowCopy(d, 2, 2):toDense(), T:narrow(d, 2, 2), 0)
    tester:assertTensorEq(T:toSparse(2):narrowCopy(d, 2, 2):toDense(), T:narrow(d, 2, 2), 0)
    local idx = torch.LongTensor({ 3, 1, 3 })
    tester:assertTensorEq(T:toSparse():indexSelect(d, idx):toDense(), T:index(d, idx), 0)
    tester:assertTensorEq(T:toSparse(1):index(d, idx):toDense(), T:index(d, idx), 0)
  end
  -- PyTorch 1.13: torch.index_select(S.coalesce(), 1, [2, 2, 0]).to_dense()
  tester:assertTensorEq(S:indexSelect(2, { 3, 3, 1 }):toDense(), torch.Tensor({ { 9, 9, 0 }, { 5, 5, 4 }, { 0, 0, 0 } }), 0)
end

function tests.copiesAndConversions()
  local S = example()
  local c = S:clone()
  c:values():fill(0)
  tester:assertTensorEq(S:toDense(), dense_example(), 0, 'clone has its own values')
  local d = S:double()
  tester:asserteq(d:type(), 'torch.sparse.DoubleTensor')
  tester:asserteq(torch.typename(d:values()), 'torch.DoubleTensor')
  tester:assertTensorEq(d:float():toDense(), dense_example(), 0)
  tester:assertTensorEq(S:to('cpu', 'torch.DoubleTensor'):toDense(), dense_example():double(), 0)
  local g = S:double():requiresGrad()
  tester:assert(g:needsGrad() and not g:detach():needsGrad())
  local s = tostring(example())
  tester:assert(s:find('[torch.SparseTensor of size 3x3 with 5 entries (not coalesced), torch.FloatTensor values]', 1, true), s)
  tester:assert(s:find('indices:\n 1  2  2  1  3\n 3  1  3  3  2', 1, true), s)
  tester:assert(tostring(torch.zeros(2):toSparse()):find('with 0 entries (coalesced)', 1, true))
end

function tests.saveAndLoad()
  local f = os.tmpname()
  for _, format in ipairs({ 'tocha', 'binary' }) do
    local S = example():coalesce()
    torch.save(f, { a = S, b = S }, format ~= 'tocha' and format or nil)
    local T = torch.load(f, format ~= 'tocha' and format or nil)
    tester:asserteq(torch.typename(T.a), 'torch.SparseTensor', format)
    tester:asserteq(T.a, T.b, format .. ': one object stays one object')
    tester:assert(T.a:isCoalesced(), format)
    tester:assertTensorEq(T.a:toDense(), dense_example(), 0, format)
  end
  os.remove(f)
end

function tests.errors()
  local P = '%[sparseCooTensor%] '
  tester:assertErrorPattern(function() torch.sparseCooTensor({ { 1, 4 } }, { 1, 2 }, { 3 }) end,
    P .. 'index 4 in row 1 is out of range for size 3')
  tester:assertErrorPattern(function() torch.sparseCooTensor({ { 0, 2 } }, { 1, 2 }) end, P .. 'indices must be >= 1')
  tester:assertErrorPattern(function() torch.sparseCooTensor(torch.Tensor({ { 1, 2 } }), { 1, 2 }) end,
    P .. 'indices must be integers %(a LongTensor or IntTensor%), got torch.FloatTensor')
  tester:assertErrorPattern(function() torch.sparseCooTensor({ { 1, 1.5 } }, { 1, 2 }) end,
    P .. 'index at row 1, column 2 is 1.5')
  tester:assertErrorPattern(function() torch.sparseCooTensor(torch.LongTensor({ 1, 2 }), { 1, 2 }) end,
    P .. 'indices must be 2%-D')
  tester:assertErrorPattern(function() torch.sparseCooTensor({ { 1, 2 } }, { 1, 2, 3 }) end,
    P .. 'values must have one row per index column %(2%)')
  tester:assertErrorPattern(function() torch.sparseCooTensor({ { 1, 2 } }, { 1, 2 }, { 3, 3 }) end,
    P .. 'size 3x3 has 2 dims, but indices give 1 sparse dims and values 0 dense dims')
  tester:assertErrorPattern(function() torch.sparseCooTensor({ { 1, 2 } }, { { 1, 2 }, { 3, 4 } }, { 3, 5 }) end,
    P .. 'dense size 5')
  tester:assertErrorPattern(function() torch.sparseCooTensor({ { 1 } }, { 1 }, { 2 }, { dtyp = 'x' }) end,
    P .. 'unknown option dtyp')
  tester:assertErrorPattern(function() torch.sparseCooTensor({ { 1 } }, 'x') end, P .. 'expected values')
  local S = example()
  tester:assertErrorPattern(function() S:toDense():toSparse(3) end, '%[toSparse%] sparseDims must lie in %[1, 2%], got 3')
  tester:assertErrorPattern(function() torch.ones(2, 2):toSparse(1):transpose(1, 2) end, '%[transpose%] can only swap sparse dims')
  tester:assertErrorPattern(function() S:add(torch.ones(2, 2)) end, '%[add%] sizes differ')
  tester:assertErrorPattern(function() S:narrowCopy(1, 3, 2) end, '%[narrowCopy%] range start 3, length 2 is out of bounds')
  tester:assertErrorPattern(function() S:indexSelect(1, { 4 }) end, '%[indexSelect%] indices span %[4, 4%]')
  tester:assertErrorPattern(function() return S + 1 end, '%[add%] adding a number to a SparseTensor would specify every entry')
  tester:assertErrorPattern(function() return S - 1 end, '%[sub%] expected a SparseTensor minus a tensor')
  tester:assertErrorPattern(function() S:div(S) end, '%[div%] a SparseTensor divides by a number only')
  tester:assertErrorPattern(function() S:size(3) end, '%[size%] dimension 3 out of range')
end

function tests.cuda()
  if not torch.cuda.isAvailable() then return end
  local S = example():cuda()
  tester:assert(S:isCuda() and S:indices():isCuda())
  tester:asserteq(S:type(), 'torch.cuda.sparse.FloatTensor')
  tester:assertTensorEq(S:coalesce():toDense():float(), dense_example(), 0)
  tester:assertTensorEq(S:coalesce():indices():long(), example():coalesce():indices(), 0)
  tester:assertTensorEq(dense_example():cuda():toSparse():indices():long(), dense_example():toSparse():indices(), 0)
  tester:assertTensorEq(S:sum(1):toDense():float(), example():sum(1):toDense(), 0)
  tester:assertTensorEq(S:indexSelect(2, { 3, 1 }):toDense():float(), example():indexSelect(2, { 3, 1 }):toDense(), 0)
  tester:assertTensorEq(S:mul(S):toDense():float(), example():mul(example()):toDense(), 0)
  tester:assertTensorEq(S:narrowCopy(1, 2, 2):toDense():float(), example():narrowCopy(1, 2, 2):toDense(), 0)
end

tester:add(tests)
tester:run()
