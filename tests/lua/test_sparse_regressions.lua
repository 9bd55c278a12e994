-- Regressions found by the review of the sparse COO tensors (lua/torch/sparse*.lua) against
-- PyTorch 1.13: S.grad = nil, torch.sparse.addmm's beta = 0 and broadcast M, the requiresGrad
-- option's effect on the caller's values, non-finite table indices, torch.load of corrupt
-- SparseTensors, empty dims, and indices beyond 2^31. Values marked PyTorch are PyTorch 1.13's
-- (float64). Sparse embedding gradients are in test_sparse_grad*.lua.
local tester = torch.Tester()
local tests = torch.TestSuite()

-- PyTorch: sparse_coo_tensor([[0, 1, 0], [2, 0, 2]], [1, 2, 3], (2, 3)); a duplicate at (1, 3).
local function example()
  return torch.sparseCooTensor({ { 1, 2, 1 }, { 3, 1, 3 } }, torch.DoubleTensor({ 1, 2, 3 }), { 2, 3 })
end
local D = torch.DoubleTensor({ { 1, 2 }, { 3, 4 }, { 5, 6 } })

-- S.grad = nil cleared nothing (it set a raw field), so the next backward added to the old
-- gradient; PyTorch's S.grad = None starts afresh.
function tests.gradAssignment()
  local S = torch.sparseCooTensor({ { 1, 2 }, { 3, 1 } }, torch.DoubleTensor({ 1, 2 }), { 2, 3 }):requiresGrad()
  local ones = torch.ones(3, 2):double()
  torch.sparse.mm(S, ones):sum():backward()
  tester:assertTensorEq(S.grad:values(), torch.DoubleTensor({ 2, 2 }), 0)
  S.grad = nil
  tester:asserteq(S.grad, nil, 'S.grad = nil clears the gradient')
  torch.sparse.mm(S, ones):sum():backward()
  tester:assertTensorEq(S.grad:values(), torch.DoubleTensor({ 2, 2 }), 0, 'not accumulated onto the old one')
  -- a gradient with S's pattern can be set back, scaled
  S.grad = S.grad:mul(3)
  tester:assertTensorEq(S.grad:values(), torch.DoubleTensor({ 6, 6 }), 0)
  tester:assertTensorEq(S:values().grad, torch.DoubleTensor({ 6, 6 }), 0)
  tester:assertErrorPattern(function() S.grad = torch.ones(2, 3):double() end, '%[grad%] expected a SparseTensor')
  tester:assertErrorPattern(function() S.grad = example() end, '%[grad%] .*indices of S')
  -- other fields still set as before
  S.note = 'x'
  tester:asserteq(rawget(S, 'note'), 'x')
end

-- beta = 0 multiplied M by 0, so a NaN or inf in M spread to the result; PyTorch ignores M.
function tests.addmmBetaZeroIgnoresM()
  local M = torch.DoubleTensor(2, 2):fill(0 / 0)
  tester:assertTensorEq(torch.sparse.addmm(M, example(), D, { beta = 0 }), torch.DoubleTensor({ { 20, 24 }, { 2, 4 } }), 0)
  M:fill(math.huge)
  tester:assertTensorEq(torch.sparse.addmm(0, M, example(), D), torch.DoubleTensor({ { 20, 24 }, { 2, 4 } }), 0, 'Torch7 order')
  -- M's size is still checked
  tester:assertErrorPattern(function() torch.sparse.addmm(torch.ones(3, 3):double(), example(), D, { beta = 0 }) end,
    '%[addmm%] M is .* which does not broadcast to the product\'s 2x2')
end

-- M had to be exactly n x p; PyTorch broadcasts it (addmm's input).
function tests.addmmBroadcastsM()
  local cases = {  -- PyTorch, beta = 2, alpha = 0.5
    { torch.DoubleTensor({ { 1 }, { 2 } }), { { 12, 14 }, { 5, 6 } } },
    { torch.DoubleTensor({ 1, 2 }), { { 12, 16 }, { 3, 6 } } },
    { torch.DoubleTensor({ { 1, 2 } }), { { 12, 16 }, { 3, 6 } } },
    { torch.DoubleTensor(1):fill(7):view(torch.LongStorage({})), { { 24, 26 }, { 15, 16 } } },
  }
  for i, c in ipairs(cases) do
    tester:assertTensorEq(torch.sparse.addmm(c[1], example(), D, { beta = 2, alpha = 0.5 }), torch.DoubleTensor(c[2]), 1e-12, 'case ' .. i)
  end
  -- the same element count is not broadcasting (PyTorch: "The expanded size ... must match")
  tester:assertErrorPattern(function() torch.sparse.addmm(torch.ones(4):double(), example(), D) end,
    '%[addmm%] M is torch.DoubleTensor of size 4, which does not broadcast')
  -- the gradient of a broadcast M is summed over the broadcast dims
  local S = example()
  tester:assert(torch.autograd.gradcheck(function(m, d) return torch.sparse.addmm(m, S, d, { beta = 2, alpha = 0.5 }) end,
    { torch.DoubleTensor({ 1, 2 }):requiresGrad(), D:clone():requiresGrad() }), 'gradcheck')
end

-- A misspelt option ({bta = 2}) or an argument after the options was ignored (beta stayed 1);
-- a string beta failed in [mul]; a dense S was reported as argument 1 wherever it stood.
function tests.addmmChecksItsOptions()
  local M = torch.ones(2, 2):double()
  tester:assertErrorPattern(function() torch.sparse.addmm(M, example(), D, { bta = 2 }) end, '%[addmm%] unknown option bta')
  tester:assertErrorPattern(function() torch.sparse.addmm(M, example(), D, {}, 5) end, '%[addmm%] too many arguments %(5%)')
  tester:assertErrorPattern(function() torch.sparse.addmm(M, example(), D, { beta = 'x' }) end,
    '%[addmm%] beta and alpha must be numbers, got string')
  -- a dense S is named at its position (it was always "argument 1")
  tester:assertErrorPattern(function() torch.sparse.addmm(2, M, 0.5, M, D) end, '%[addmm%] expected a SparseTensor as argument 4')
  -- the accepted forms (PyTorch: beta * M + alpha * S D = 2 * 1 + 0.5 * [[20, 24], [2, 4]])
  local want = torch.DoubleTensor({ { 12, 14 }, { 3, 4 } })
  tester:assertTensorEq(torch.sparse.addmm(M, example(), D, { beta = 2, alpha = 0.5 }), want, 1e-12)
  tester:assertTensorEq(torch.sparse.addmm(2, M, 0.5, example(), D), want, 1e-12)
end

-- { requiresGrad = true } marked the caller's values tensor as requiring grad; PyTorch makes
-- the sparse tensor a new leaf and leaves the values alone.
function tests.requiresGradOptionLeavesValuesAlone()
  local v = torch.DoubleTensor({ 1, 2 })
  local S = torch.sparseCooTensor({ { 1, 2 }, { 3, 1 } }, v, { 2, 3 }, { requiresGrad = true })
  tester:assert(S:needsGrad())
  tester:assert(not v:needsGrad(), 'the values passed in do not require grad')
  torch.sparse.mm(S, D):sum():backward()
  tester:assertTensorEq(S.grad:values(), torch.DoubleTensor({ 11, 3 }), 0)
  tester:asserteq(v.grad, nil)
  -- values that already have a history keep it (PyTorch: gradient flows to w)
  local w = torch.DoubleTensor({ 1, 2 }):requiresGrad()
  local T = torch.sparseCooTensor({ { 1, 2 }, { 3, 1 } }, w * 2, { 2, 3 }, { requiresGrad = true })
  torch.sparse.mm(T, torch.ones(3, 2):double()):sum():backward()
  tester:assertTensorEq(w.grad, torch.DoubleTensor({ 4, 4 }), 0)
end

-- Table values went through the default FloatTensor before the dtype option: {0.1} as
-- 'torch.DoubleTensor' became 0.10000000149011612, 16777217 as 'torch.LongTensor' 16777216.
function tests.tableValuesInTheirDtype()
  local S = torch.sparseCooTensor({ { 1, 2 } }, { 0.1, 1 / 3 }, { 2 }, { dtype = 'torch.DoubleTensor' })
  tester:asserteq(S:values()[1], 0.1)
  tester:asserteq(S:values()[2], 1 / 3)
  tester:asserteq(torch.sparseCooTensor({ { 1 } }, { 16777217 }, { 1 }, { dtype = 'torch.LongTensor' }):values()[1], 16777217)
  tester:asserteq(torch.sparseCooTensor({ { 1 } }, { 3 }, { 1 }):values():type(), torch.getdefaulttensortype())
  tester:assertErrorPattern(function() torch.sparseCooTensor({ { 1 } }, { 3 }, { 1 }, { dtype = 'torch.SparseTensor' }) end,
    'unknown tensor type torch.SparseTensor')
end

-- inf passed the integer test (math.floor(inf) == inf) and became INT64_MIN: the error reported
-- "got -9223372036854775808"; 2^63 likewise.
function tests.nonFiniteTableIndices()
  local P = '%[sparseCooTensor%] index at row 1, column 2 is '
  tester:assertErrorPattern(function() torch.sparseCooTensor({ { 1, math.huge } }, { 1, 2 }) end, P .. 'inf, expected an integer')
  tester:assertErrorPattern(function() torch.sparseCooTensor({ { 1, -math.huge } }, { 1, 2 }) end, P .. '%-inf, expected an integer')
  tester:assertErrorPattern(function() torch.sparseCooTensor({ { 1, 2 ^ 63 } }, { 1, 2 }) end, P .. '.*expected an integer')
  tester:assertErrorPattern(function() torch.sparseCooTensor({ { 1, 0 / 0 } }, { 1, 2 }) end, P .. '.*expected an integer')
end

-- A negative size was reported as "index 0 in row 1 is out of range for size -1x3".
function tests.negativeSizeMessage()
  tester:assertErrorPattern(function() torch.sparseCooTensor(torch.LongTensor(2, 0), torch.Tensor(0), { -1, 3 }) end,
    '%[sparseCooTensor%] size %-1x3 has a negative size in dim 1')
end

-- torch.load rebuilt a SparseTensor without any check: an index out of range came back and
-- S:coalesce() folded it into a wrong position; a coalesced flag on duplicate indices skipped
-- the summing.
function tests.loadChecksSavedTensors()
  local f = os.tmpname()
  local S = example()
  S:indices()[2][1] = 7  -- column 7 of a 2 x 3 matrix
  torch.save(f, S)
  tester:assertErrorPattern(function() torch.load(f) end, 'out of range for size 2x3')
  S = example()
  S._coalesced = true  -- wrong: (1, 3) is there twice
  torch.save(f, S)
  local L = torch.load(f)
  tester:assert(not L:isCoalesced(), 'the flag is checked')
  tester:assertTensorEq(L:coalesce():values(), torch.DoubleTensor({ 4, 2 }), 0)
  local C = example():coalesce()
  torch.save(f, C)
  L = torch.load(f)
  tester:assert(L:isCoalesced(), 'a true flag is kept')
  tester:assertTensorEq(L:toDense(), C:toDense(), 0)
  -- an empty one
  torch.save(f, torch.sparseCooTensor(torch.LongTensor(2, 0), torch.DoubleTensor(0), { 2, 3 }))
  L = torch.load(f)
  tester:asserteq(L:nnz(), 0)
  tester:asserteq(table.concat(L:size():totable(), 'x'), '2x3')
  os.remove(f)
end

-- A tensor with a zero-size dim raised "[remainder] integer division by zero" from toSparse
-- (and from coalesce); PyTorch gives an empty sparse tensor.
function tests.zeroSizeDims()
  local S = torch.zeros(0, 3):toSparse()
  tester:asserteq(S:nnz(), 0)
  tester:asserteq(table.concat(S:size():totable(), 'x'), '0x3')
  tester:asserteq(table.concat(torch.zeros(0, 3):toSparse(1):values():size():totable(), 'x'), '0x3')  -- PyTorch: (0, 3)
  local T = torch.sparseCooTensor(torch.LongTensor(2, 0), torch.DoubleTensor(0), { 0, 3 }):t():coalesce()
  tester:asserteq(T:nnz(), 0)
  tester:asserteq(T:toDense():nElement(), 0)
end

-- narrowCopy refused a negative start and indexSelect an IntTensor, both of which the dense
-- narrow and index take (and PyTorch's index_select takes int32 indices).
function tests.narrowAndIndexSelectTakeWhatDenseTakes()
  local S, A = example(), example():toDense()
  tester:assertTensorEq(S:narrowCopy(2, -2, 2):toDense(), A:narrow(2, -2, 2), 0)
  tester:assertTensorEq(S:narrowCopy(1, -1, 1):toDense(), A:narrow(1, -1, 1), 0)
  tester:assertErrorPattern(function() S:narrowCopy(2, -4, 1) end, '%[narrowCopy%] range start .* is out of bounds')
  tester:assertTensorEq(S:indexSelect(2, torch.IntTensor({ 3, 1 })):toDense(), A:index(2, torch.LongTensor({ 3, 1 })), 0)
  tester:assertErrorPattern(function() S:indexSelect(2, torch.DoubleTensor({ 1 })) end,
    '%[indexSelect%] expected a 1%-D LongTensor %(or IntTensor%) of indices')
end

-- Linear keys hold positions beyond 2^31 exactly (checked, not a bug).
function tests.coalesceBeyond2To31()
  local S = torch.sparseCooTensor({ { 3e9, 1, 3e9 }, { 5, 2, 5 } }, torch.DoubleTensor({ 1, 2, 3 }), { 4e9, 6 }):coalesce()
  -- PyTorch: indices [[0, 2999999999], [1, 4]], values [2, 4]
  tester:assertTensorEq(S:indices(), torch.LongTensor({ { 1, 3e9 }, { 2, 5 } }), 0)
  tester:assertTensorEq(S:values(), torch.DoubleTensor({ 2, 4 }), 0)
end

tester:add(tests)
tester:run()
