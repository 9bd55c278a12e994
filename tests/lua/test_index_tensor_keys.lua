-- x[idx] and x[idx] = v with an integer tensor of 1-based indices (Note [Indexing with an index
-- tensor] in lua/torch/indexing.lua): PyTorch's advanced indexing of the first dim. Expected
-- values are PyTorch 1.13's for the same (0-based) indices.
local tester = torch.Tester()
local tests = torch.TestSuite()

local function x43() return torch.range(1, 12):view(4, 3) end

function tests.readsRowsAsACopy()
  local x = x43()
  -- torch.arange(1, 13.).view(4, 3)[torch.tensor([3, 0])] -> [[10, 11, 12], [1, 2, 3]]
  local r = x[torch.LongTensor({ 4, 1 })]
  tester:eq(r:totable(), { { 10, 11, 12 }, { 1, 2, 3 } })
  r[1][1] = 99
  tester:asserteq(x[4][1], 10, 'a copy, not a view')
  tester:eq(x[torch.IntTensor({ 2 })]:totable(), { { 4, 5, 6 } })
  tester:eq(x[torch.LongTensor({ 2, 2 })]:totable(), { { 4, 5, 6 }, { 4, 5, 6 } }, 'repeats')
end

function tests.negativeIndicesCountFromTheEnd()
  -- x[torch.tensor([-1, 0])] -> [[10, 11, 12], [1, 2, 3]]
  tester:eq(x43()[torch.LongTensor({ -1, 1 })]:totable(), { { 10, 11, 12 }, { 1, 2, 3 } })
  tester:eq(torch.range(1, 5)[torch.LongTensor({ -5, -2 })]:totable(), { 1, 4 })
end

function tests.resultShapeIsTheIndexShapeThenTheRest()
  local x = x43()
  -- x[torch.tensor([[0, 1], [2, 3]])].shape -> (2, 2, 3); x[torch.tensor([], dtype=long)].shape -> (0, 3)
  local r = x[torch.LongTensor({ { 1, 2 }, { 3, 4 } })]
  tester:eq(r:size():totable(), { 2, 2, 3 })
  tester:eq(r[2][1]:totable(), { 7, 8, 9 })
  tester:eq(x[torch.LongTensor(0)]:size():totable(), { 0, 3 })
  -- a 0-dim index: torch.arange(1, 6.)[torch.tensor(1)] -> tensor(2.) (0-dim)
  local v = torch.range(1, 5)[torch.LongTensor({ 2 }):view({})]
  tester:asserteq(v:dim(), 0)
  tester:asserteq(v:item(), 2)
end

function tests.assignmentFillsOrCopiesRows()
  local x = x43()
  x[torch.LongTensor({ 1, 3 })] = 0
  tester:eq(x:totable(), { { 0, 0, 0 }, { 4, 5, 6 }, { 0, 0, 0 }, { 10, 11, 12 } })
  x[torch.LongTensor({ 2, 4 })] = torch.Tensor({ -1, -2, -3 })  -- broadcast over the rows
  tester:eq(x:totable(), { { 0, 0, 0 }, { -1, -2, -3 }, { 0, 0, 0 }, { -1, -2, -3 } })
  x[torch.LongTensor({ -1 })] = torch.Tensor({ { 7, 8, 9 } })
  tester:eq(x[4]:totable(), { 7, 8, 9 })
  local b = torch.ByteTensor(3):zero()
  b[torch.LongTensor({ 1, 3 })] = 5
  tester:eq(b:totable(), { 5, 0, 5 })
end

function tests.gradientsFlowThroughBothForms()
  local w = torch.randn(3, 2):double():requiresGrad()
  local s = (w[torch.LongTensor({ 1, 1, 3 })] * 2):sum()
  s:backward()
  tester:eq(w.grad:totable(), { { 4, 4 }, { 0, 0 }, { 2, 2 } })
  local a = torch.zeros(3, 2):double():requiresGrad()
  local src = torch.ones(2):double():requiresGrad()
  local b = a * 1
  b[torch.LongTensor({ 2 })] = src * 3
  b:sum():backward()
  tester:eq(a.grad:totable(), { { 1, 1 }, { 0, 0 }, { 1, 1 } }, 'the overwritten row gets no gradient')
  tester:eq(src.grad:totable(), { 3, 3 })
end

function tests.badKeysNameTheOperation()
  local x = x43()
  tester:assertErrorPattern(function() return x[torch.LongTensor({ 5 })] end, '%[index%] index 5 .* out of range')
  tester:assertErrorPattern(function() return x[torch.FloatTensor({ 1 })] end,
    '%[index%] cannot index with a torch.FloatTensor; use a LongTensor')
  tester:assertErrorPattern(function() x[torch.DoubleTensor({ 1 })] = 0 end, '%[newindex%] cannot index with a torch.DoubleTensor')
  tester:assertErrorPattern(function() x[torch.LongTensor({ 1 })] = 'a' end, '%[newindex%] expected a number or a tensor')
  tester:assertErrorPattern(function() return torch.Tensor(1):fill(1):view({})[torch.LongTensor({ 1 })] end,
    '%[index%] cannot index a 0%-dim tensor')
  tester:assertErrorPattern(function() x[torch.LongTensor({ 1 })] = torch.ones(2) end, 'expand')
end

tester:add(tests):run()
