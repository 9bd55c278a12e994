-- PyTorch's shape helpers (lua/torch/tensor_pytorch_shape.lua): flatten with dims, ravel,
-- reshapeAs, splitWithSizes and split/squeeze/nonzero's PyTorch forms, sumToSize, narrowCopy,
-- argwhere, adjoint, indexSelect, x:where, the *Copy variants; gradchecks, errors, CUDA.
-- Expected values are PyTorch 1.13's (converted to 1-based positions) or closed forms.
local tester = torch.Tester()
local tests = torch.TestSuite()
local gc = torch.autograd.gradcheck

local function leaf(...) return torch.DoubleTensor(...):uniform(-1, 1):requiresGrad() end

function tests.flatten()
  -- PyTorch 1.13: flatten(zeros(2,3,4,5), 2, 3) (0-based 1..2 here 2..3) is 2x3x20; of a 0-dim, size 1
  tester:assertTableEq(torch.flatten(torch.zeros(2, 3, 4, 5), 3, 4):size():totable(), { 2, 3, 20 })
  tester:assertTableEq(torch.flatten(torch.zeros(2, 3, 4), 2):size():totable(), { 2, 12 })
  tester:assertTableEq(torch.zeros(2, 3, 4):flatten(2):size():totable(), { 2, 12 }, "the method takes the dims too")
  tester:assertTableEq(torch.zeros(2, 3, 4):flatten():size():totable(), { 24 })
  tester:assertTableEq(torch.flatten(torch.zeros(2, 3, 4), 1, 2):size():totable(), { 6, 4 })
  tester:assertTableEq(torch.flatten(torch.zeros(2, 3, 4), -2):size():totable(), { 2, 12 })
  tester:assertTableEq(torch.flatten(torch.zeros(2, 3, 4)):size():totable(), { 24 })
  tester:assertTableEq(torch.flatten(torch.Tensor(1):fill(3):view({})):size():totable(), { 1 })
  local x = torch.range(1, 24):view(2, 3, 4)
  tester:assertTensorEq(torch.flatten(x, 2), x:contiguous():view(2, 12), 0)
  -- a view of a contiguous x
  torch.flatten(x, 2)[1][1] = 100
  tester:asserteq(x[1][1][1], 100)
  tester:assertErrorPattern(function() torch.flatten(x, 3, 1) end, '%[flatten%].*comes after')
  tester:assertErrorPattern(function() torch.flatten(x, 4) end, '%[flatten%].*out of range')
  tester:assert(gc(function(a) return torch.flatten(a, 2) end, { leaf(2, 3, 2) }))
  tester:assertTensorEq(torch.ravel(x:transpose(1, 3)), x:transpose(1, 3):contiguous():view(-1), 0)
  tester:assertTensorEq(x:ravel(), x:view(-1), 0)
  tester:assertTensorEq(torch.range(1, 6):reshapeAs(torch.zeros(3, 2)), torch.range(1, 6):view(3, 2), 0)
  tester:assertErrorPattern(function() torch.range(1, 6):reshapeAs(4) end, '%[reshapeAs%]')
end

function tests.splitWithSizes()
  local x = torch.range(1, 10):view(2, 5)
  local parts = torch.splitWithSizes(x, { 2, 0, 3 }, 2)
  tester:asserteq(#parts, 3)
  tester:assertTensorEq(parts[1], x:narrow(2, 1, 2), 0)
  tester:asserteq(parts[2]:nElement(), 0)
  tester:assertTensorEq(parts[3], x:narrow(2, 3, 3), 0)
  parts[1][1][1] = 50  -- views
  tester:asserteq(x[1][1], 50)
  local s = torch.split(torch.range(1, 5), { 1, 4 })
  tester:assertTensorEq(s[2], torch.range(2, 5), 0)
  tester:assertTensorEq(x:split({ 1, 1 })[2], x:narrow(1, 2, 1), 0)
  tester:asserteq(#torch.split(torch.range(1, 5), 2), 3)  -- the number form is unchanged
  tester:asserteq(torch.unsafeSplit, torch.split)
  tester:asserteq(#torch.unsafeChunk(torch.range(1, 5), 2), 2)
  tester:asserteq(#x:unsafeSplitWithSizes({ 3, 2 }, -1), 2)
  tester:assertErrorPattern(function() torch.splitWithSizes(x, { 2, 2 }, 2) end, '%[splitWithSizes%].*sum to 4')
  tester:assertErrorPattern(function() torch.splitWithSizes(x, { 2, -1, 4 }, 2) end, '%[splitWithSizes%].*non%-negative')
  tester:assertErrorPattern(function() torch.splitWithSizes(x, 2) end, '%[splitWithSizes%].*table')
  tester:assert(gc(function(a) local p = a:splitWithSizes({ 1, 2 }, 2) return torch.cat(p[2], p[1], 2) end,
    { leaf(2, 3) }))
  tester:assertTensorEq(torch.concat({ x, x }, 1), torch.cat({ x, x }, 1), 0)
  tester:asserteq(torch.concatenate, torch.cat)
end

function tests.squeezeDims()
  local x = torch.zeros(1, 2, 1, 3, 1)
  tester:assertTableEq(torch.squeeze(x, { 1, 3 }):size():totable(), { 2, 3, 1 })
  tester:assertTableEq(x:squeeze({ -1, 2 }):size():totable(), { 1, 2, 1, 3 })  -- size-2 dim stays
  tester:assertTableEq(x:squeeze({}):size():totable(), { 1, 2, 1, 3, 1 })
  tester:assertTableEq(x:squeeze(3):size():totable(), { 1, 2, 3, 1 })  -- old forms unchanged
  tester:assertTableEq(x:squeeze():size():totable(), { 2, 3 })
  tester:assertErrorPattern(function() x:squeeze({ 1, -5 }) end, '%[squeeze%].*twice')
  tester:assertErrorPattern(function() x:squeeze({ 6 }) end, '%[squeeze%].*out of range')
  tester:assert(gc(function(a) return torch.squeeze(a, { 1, 3 }) end, { leaf(1, 2, 1) }))
end

function tests.nonzeroAsTupleAndArgwhere()
  -- PyTorch 1.13: nonzero([[0,1],[2,0]], as_tuple=True) is ([0, 1], [1, 0]); argwhere [[0,1],[1,0]]
  local m = torch.Tensor({ { 0, 1 }, { 2, 0 } })
  local t = torch.nonzero(m, { asTuple = true })
  tester:asserteq(#t, 2)
  tester:assertTensorEq(t[1], torch.LongTensor({ 1, 2 }), 0)
  tester:assertTensorEq(t[2], torch.LongTensor({ 2, 1 }), 0)
  tester:assertTensorEq(m:nonzero({ asTuple = true })[2], torch.LongTensor({ 2, 1 }), 0)
  tester:assertTensorEq(torch.nonzero(m, { asTuple = false }), torch.LongTensor({ { 1, 2 }, { 2, 1 } }), 0)
  tester:assertTensorEq(torch.argwhere(m), torch.LongTensor({ { 1, 2 }, { 2, 1 } }), 0)
  tester:assertTensorEq(torch.where(m:gt(0), m, -1), torch.Tensor({ { -1, 1 }, { 2, -1 } }), 0)
  tester:assertTensorEq(m:argwhere(), torch.nonzero(m), 0)
  -- m[t[1][k]][t[2][k]] are the non-zeros, in order
  for k = 1, 2 do tester:assertne(m[t[1][k]][t[2][k]], 0) end
  -- PyTorch 1.13: a 0-dim tensor as_tuple gives (tensor([0]),)
  local z = torch.nonzero(torch.Tensor({ 3 }):view({}), { asTuple = true })
  tester:asserteq(#z, 1)
  tester:assertTensorEq(z[1], torch.LongTensor({ 1 }), 0)
  local res = torch.LongTensor()
  torch.nonzero(res, m)  -- Torch7's result form is unchanged
  tester:assertTensorEq(res, torch.LongTensor({ { 1, 2 }, { 2, 1 } }), 0)
  tester:assertErrorPattern(function() torch.argwhere({}) end, '%[argwhere%]')
end

function tests.sumToSize()
  -- PyTorch 1.13, x = arange(1, 7).reshape(2, 3): sum_to_size(1,3) [[5,7,9]], (3) [5,7,9],
  -- (2,1) [[6],[15]], (1,1) [[21]]
  local x = torch.range(1, 6):view(2, 3)
  tester:assertTensorEq(x:sumToSize(1, 3), torch.Tensor({ { 5, 7, 9 } }), 0)
  tester:assertTensorEq(x:sumToSize(3), torch.Tensor({ 5, 7, 9 }), 0)
  tester:assertTensorEq(x:sumToSize({ 2, 1 }), torch.Tensor({ { 6 }, { 15 } }), 0)
  tester:assertTensorEq(x:sumToSize(torch.LongStorage({ 1, 1 })), torch.Tensor({ { 21 } }), 0)
  tester:assertTensorEq(x:sumToSize(2, 3), x, 0)
  tester:assertErrorPattern(function() x:sumToSize(2) end, '%[sumToSize%].*not expandable')
  tester:assertErrorPattern(function() x:sumToSize(1, 2, 3) end, '%[sumToSize%].*not expandable')
  -- the reverse of expand: <expand(y), x> == <y, sumToSize(x)>
  local y = torch.DoubleTensor(1, 3):uniform()
  local big = torch.DoubleTensor(4, 2, 3):uniform()
  tester:assertalmosteq(torch.cmul(y:expand(4, 2, 3), big):sum(), torch.cmul(y, big:sumToSize(1, 3)):sum(), 1e-12)
  tester:assert(gc(function(a) return a:sumToSize(1, 3) end, { leaf(2, 2, 3) }))
end

function tests.copiesAndAliases()
  local x = torch.range(1, 6):view(2, 3)
  local n = torch.narrowCopy(x, 2, 2, 2)
  tester:assertTensorEq(n, torch.Tensor({ { 2, 3 }, { 5, 6 } }), 0)
  n[1][1] = 0
  tester:asserteq(x[1][2], 2)  -- a copy
  tester:assertTensorEq(x:narrowCopy(1, 2, 1), torch.Tensor({ { 4, 5, 6 } }), 0)
  local checks = {
    { torch.viewCopy(x, 3, 2), x:view(3, 2) }, { torch.permuteCopy(x, 2, 1), x:permute(2, 1) },
    { torch.transposeCopy(x, 1, 2), x:t() }, { torch.tCopy(x), x:t() },
    { torch.expandCopy(torch.Tensor({ 1, 2 }), 3, 2), torch.Tensor({ { 1, 2 }, { 1, 2 }, { 1, 2 } }) },
    { torch.unsqueezeCopy(x, 1), x:view(1, 2, 3) }, { torch.squeezeCopy(x:view(1, 2, 3)), x },
    { torch.selectCopy(x, 2, 3), torch.Tensor({ 3, 6 }) }, { torch.diagonalCopy(torch.eye(2)), torch.ones(2) },
    { torch.unfoldCopy(torch.range(1, 4), 1, 2, 2), torch.Tensor({ { 1, 2 }, { 3, 4 } }) },
    { torch.asStridedCopy(x, { 2 }, { 4 }), torch.Tensor({ 1, 5 }) }, { torch.aliasCopy(x), x },
    { torch.detachCopy(x), x }, { torch.unbindCopy(x)[2], x[2] }, { torch.splitCopy(x, 1)[2], x:narrow(1, 2, 1) },
    { torch.splitWithSizesCopy(x, { 1, 2 }, 2)[2], x:narrow(2, 2, 2) },
  }
  for i, c in ipairs(checks) do
    tester:assertTensorEq(c[1], c[2]:contiguous(), 0, 'copy ' .. i)
    tester:assert(c[1]:storage() == nil or c[1]:dataPtr() ~= x:dataPtr(), 'copy ' .. i .. ' shares storage')
  end
  local v = torch.viewCopy(x, 6)
  v[1] = 42
  tester:asserteq(x[1][1], 1)
  tester:assertErrorPattern(function() torch.viewCopy(3, 2) end, '%[viewCopy%]')
  tester:assert(gc(function(a) return torch.permuteCopy(a, 2, 1) end, { leaf(2, 3) }))
end

function tests.sliceCopyAndConjPhysical()
  -- PyTorch 1.13: slice_copy(arange(1, 7), 0, 1, 6, 2) = [2, 4, 6];
  -- slice_copy(arange(12).reshape(3, 4), 1, -3, 4, 2) = [[1, 3], [5, 7], [9, 11]]
  tester:assertTensorEq(torch.sliceCopy(torch.range(1, 6), 1, 2, 6, 2), torch.Tensor({ 2, 4, 6 }), 0)
  local m = torch.range(0, 11):view(3, 4)
  tester:assertTensorEq(torch.sliceCopy(m, 2, -3, 4, 2), torch.Tensor({ { 1, 3 }, { 5, 7 }, { 9, 11 } }), 0)
  tester:assertTensorEq(torch.sliceCopy(m, { dim = 2, start = 2, step = 2 }), torch.sliceCopy(m, 2, 2, 4, 2), 0)
  tester:assertTensorEq(torch.sliceCopy(m), m, 0)
  tester:asserteq(torch.sliceCopy(m, 1, 3, 2):size(1), 0)
  -- sliceCopy reads exactly what sliceScatter writes
  if torch.sliceScatter then
    local w = torch.sliceScatter(torch.zeros(3, 4), torch.ones(3, 2), 2, -3, 4, 2)
    tester:assertTensorEq(torch.sliceCopy(w, 2, -3, 4, 2), torch.ones(3, 2), 0)
  end
  local c = torch.sliceCopy(m, 2, 1, 2)
  c[1][1] = 99
  tester:asserteq(m[1][1], 0)
  tester:assertErrorPattern(function() torch.sliceCopy(m, 2, 1, 4, 0) end, '%[sliceCopy%].*step must be positive')
  tester:assertErrorPattern(function() torch.sliceCopy(m, 2, 1.5) end, '%[sliceCopy%].*start must be an integer')
  tester:assert(gc(function(a) return torch.sliceCopy(a, 2, 1, 5, 2) end, { leaf(2, 5) }))
  local x = torch.Tensor({ 1, -2 })
  local y = torch.conjPhysical(x)
  tester:assertTensorEq(y, x, 0)
  y[1] = 5
  tester:asserteq(x[1], 1)
  tester:asserteq(x:conjPhysical(), x)
end

function tests.adjointIndexSelectWhere()
  local x = torch.range(1, 24):view(2, 3, 4)
  tester:assertTensorEq(torch.adjoint(x), x:transpose(2, 3), 0)
  tester:assertTensorEq(x:adjoint(), x.mT, 0)
  tester:assertErrorPattern(function() torch.adjoint(torch.zeros(3)) end, '%[adjoint%].*at least 2 dims')
  local v = torch.range(1, 5)
  tester:assertTensorEq(torch.indexSelect(v, 1, torch.LongTensor({ 5, 1 })), torch.Tensor({ 5, 1 }), 0)
  tester:assertTensorEq(x:indexSelect(3, torch.LongTensor({ 2 })), x:narrow(3, 2, 1), 0)
  tester:assertErrorPattern(function() v:indexSelect(1, { 1 }) end, '%[indexSelect%].*LongTensor')
  tester:assert(gc(function(a) return a:indexSelect(2, torch.LongTensor({ 3, 1, 3 })) end, { leaf(2, 3) }))
  local a = torch.Tensor({ 1, 2, 3 })
  tester:assertTensorEq(a:where(torch.ByteTensor({ 1, 0, 1 }), torch.Tensor({ 7, 8, 9 })), torch.Tensor({ 1, 8, 3 }), 0)
  tester:assertTensorEq(a:where(a:gt(1), 0), torch.Tensor({ 0, 2, 3 }), 0)
  tester:assertTensorEq(torch.detach(a), a, 0)
end

function tests.cuda()
  if not torch.cuda.isAvailable() then return end
  local x = torch.range(1, 24):view(2, 3, 4)
  local g = x:cuda()
  tester:assertTensorEq(torch.flatten(g, 2):float(), torch.flatten(x, 2), 0)
  tester:assertTensorEq(g:sumToSize(1, 3, 1):float(), x:sumToSize(1, 3, 1), 0)
  tester:assertTensorEq(g:splitWithSizes({ 1, 3 }, 3)[2]:float(), x:splitWithSizes({ 1, 3 }, 3)[2], 0)
  tester:assertTensorEq(torch.nonzero(g:gt(12), { asTuple = true })[3]:long(),
    torch.nonzero(x:gt(12), { asTuple = true })[3], 0)
  tester:assertTensorEq(torch.squeeze(g:view(1, 2, 1, 12), { 1, 3 }):float(), x:view(2, 12), 0)
  tester:assertTensorEq(torch.permuteCopy(g, 3, 1, 2):float(), x:permute(3, 1, 2):contiguous(), 0)
end

tester:add(tests):run()
