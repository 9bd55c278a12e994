-- The indexing API: index/indexCopy/indexAdd/indexFill, gather/scatter/scatterAdd,
-- maskedSelect/maskedCopy/maskedFill, x[mask] and nonzero, with Torch7's call forms (1-based).
local tester = torch.Tester()
local tests = torch.TestSuite()

local function M() return torch.Tensor({ { 1, 2, 3 }, { 4, 5, 6 } }) end

function tests.index()
  local x = M()
  tester:eq(x:index(1, torch.LongTensor({ 2, 1, 2 })):totable(), { { 4, 5, 6 }, { 1, 2, 3 }, { 4, 5, 6 } })
  tester:eq(x:index(2, torch.LongTensor({ 3, 1 })):totable(), { { 3, 1 }, { 6, 4 } })
  tester:eq(torch.index(x, 2, torch.LongTensor({ 2 })):totable(), { { 2 }, { 5 } })
  tester:eq(x:index(-1, { 3 }):totable(), { { 3 }, { 6 } })  -- a Lua table of indices, a negative dim
  tester:eq(x:index(1, torch.IntTensor({ 2 })):totable(), { { 4, 5, 6 } })
  -- res:index(src, dim, idx) and torch.index(res, src, dim, idx) fill res
  local res = torch.Tensor()
  tester:assert(res:index(x, 1, torch.LongTensor({ 1 })) == res)
  tester:eq(res:totable(), { { 1, 2, 3 } })
  torch.index(res, x, 2, torch.LongTensor({ 1, 1 }))
  tester:eq(res:totable(), { { 1, 1 }, { 4, 4 } })
  tester:eq(x:totable(), M():totable())  -- the source is untouched
  local e = x:index(1, torch.LongTensor())
  tester:eq(e:size():totable(), { 0, 3 })
  -- strided source
  tester:eq(x:t():index(1, torch.LongTensor({ 3 })):totable(), { { 3, 6 } })
  tester:eq(torch.LongTensor({ 10, 20, 30 }):index(1, torch.LongTensor({ 3, 3 })):totable(), { 30, 30 })
end

function tests.indexCopyAddFill()
  local x = torch.zeros(3, 2)
  tester:assert(x:indexCopy(1, torch.LongTensor({ 3, 1 }), torch.Tensor({ { 1, 2 }, { 3, 4 } })) == x)
  tester:eq(x:totable(), { { 3, 4 }, { 0, 0 }, { 1, 2 } })
  x:indexAdd(1, torch.LongTensor({ 2, 2, 1 }), torch.Tensor({ { 1, 1 }, { 2, 2 }, { 10, 10 } }))
  tester:eq(x:totable(), { { 13, 14 }, { 3, 3 }, { 1, 2 } })
  x:indexFill(2, torch.LongTensor({ 1 }), -1)
  tester:eq(x:totable(), { { -1, 14 }, { -1, 3 }, { -1, 2 } })
  -- torch.f(x, ...) returns a changed copy; x:f_() is the in-place alias
  local y = torch.indexFill(x, 1, torch.LongTensor({ 2 }), 0)
  tester:eq(y:totable(), { { -1, 14 }, { 0, 0 }, { -1, 2 } })
  tester:eq(x[2]:totable(), { -1, 3 })
  tester:eq(torch.indexCopy(x, 2, { 2 }, torch.Tensor({ { 7 }, { 8 }, { 9 } })):select(2, 2):totable(), { 7, 8, 9 })
  tester:eq(torch.indexAdd(x, 1, { 1 }, torch.Tensor({ { 1, 1 } }))[1]:totable(), { 0, 15 })
  x:indexFill_(1, { 1, 2, 3 }, 5)
  tester:eq(x:totable(), { { 5, 5 }, { 5, 5 }, { 5, 5 } })
  -- in place through a view
  local base = torch.zeros(2, 3)
  base:t():indexFill(1, torch.LongTensor({ 2 }), 1)
  tester:eq(base:totable(), { { 0, 1, 0 }, { 0, 1, 0 } })
  -- a DoubleTensor source is converted to the FloatTensor
  local f = torch.FloatTensor(2):zero()
  f:indexCopy(1, torch.LongTensor({ 2 }), torch.DoubleTensor({ 1.5 }))
  tester:eq(f:totable(), { 0, 1.5 })
  local b = torch.BoolTensor({ false, false })
  b:indexFill(1, torch.LongTensor({ 2 }), true)
  tester:eq(b:totable(), { false, true })
end

function tests.gather()
  local x = M()
  tester:eq(x:gather(2, torch.LongTensor({ { 3, 1 }, { 2, 2 } })):totable(), { { 3, 1 }, { 5, 5 } })
  tester:eq(torch.gather(x, 1, torch.LongTensor({ { 2, 1, 2 } })):totable(), { { 4, 2, 6 } })
  local res = torch.Tensor()
  res:gather(x, 2, torch.LongTensor({ { 1 }, { 3 } }))
  tester:eq(res:totable(), { { 1 }, { 6 } })
  torch.gather(res, x, 1, torch.LongTensor({ { 1, 1, 1 } }))
  tester:eq(res:totable(), { { 1, 2, 3 } })
  -- Torch7's doc example: gather with a permutation per row
  local y = torch.Tensor({ { 1, 2, 3, 4, 5 }, { 6, 7, 8, 9, 10 } })
  local idx = torch.LongTensor({ { 1, 2, 1, 2, 1 }, { 2, 1, 2, 1, 2 } })
  tester:eq(y:gather(1, idx):totable(), { { 1, 7, 3, 9, 5 }, { 6, 2, 8, 4, 10 } })
end

function tests.scatter()
  local z = torch.zeros(2, 5)
  local src = torch.Tensor({ { 1, 2, 3, 4, 5 }, { 6, 7, 8, 9, 10 } })
  tester:assert(z:scatter(1, torch.LongTensor({ { 1, 2, 1, 2, 1 }, { 2, 1, 2, 1, 2 } }), src) == z)
  tester:eq(z:totable(), { { 1, 7, 3, 9, 5 }, { 6, 2, 8, 4, 10 } })
  local w = torch.zeros(2, 4)
  w:scatter(2, torch.LongTensor({ { 2 }, { 4 } }), 1.25)
  tester:eq(w:totable(), { { 0, 1.25, 0, 0 }, { 0, 0, 0, 1.25 } })
  -- torch.scatter returns a copy
  local c = torch.scatter(w, 2, torch.LongTensor({ { 1 }, { 1 } }), 9)
  tester:eq(c:select(2, 1):totable(), { 9, 9 })
  tester:eq(w:select(2, 1):totable(), { 0, 0 })
  -- scatterAdd accumulates repeated targets
  local acc = torch.zeros(3)
  acc:scatterAdd(1, torch.LongTensor({ 1, 3, 1, 1 }), torch.Tensor({ 1, 2, 3, 4 }))
  tester:eq(acc:totable(), { 8, 0, 2 })
  tester:eq(torch.scatterAdd(acc, 1, { 2 }, torch.Tensor({ 5 })):totable(), { 8, 5, 2 })
  acc:scatter_(1, torch.LongTensor({ 2 }), 1)
  tester:eq(acc:totable(), { 8, 1, 2 })
end

function tests.masked()
  local x = M()
  local mask = x:gt(2)
  tester:eq(x:maskedSelect(mask):totable(), { 3, 4, 5, 6 })
  tester:eq(torch.maskedSelect(x, mask):totable(), { 3, 4, 5, 6 })
  local res = torch.Tensor()
  res:maskedSelect(x, x:lt(3))
  tester:eq(res:totable(), { 1, 2 })
  torch.maskedSelect(res, x, x:eq(5))
  tester:eq(res:totable(), { 5 })
  tester:assert(x:maskedFill(x:eq(2), 0) == x)
  tester:eq(x:totable(), { { 1, 0, 3 }, { 4, 5, 6 } })
  x:maskedCopy(x:ge(5), torch.Tensor({ 50, 60, 70 }))
  tester:eq(x:totable(), { { 1, 0, 3 }, { 4, 50, 60 } })
  tester:eq(torch.maskedFill(x, x:eq(1), 2)[1][1], 2)
  tester:eq(x[1][1], 1)
  -- BoolTensor masks, broadcast masks and Torch7's same-element-count masks
  local b = torch.BoolTensor({ true, false, true })
  tester:eq(M():maskedFill(b, -1):totable(), { { -1, 2, -1 }, { -1, 5, -1 } })
  tester:eq(M():maskedSelect(b):totable(), { 1, 3, 4, 6 })
  tester:eq(M():maskedFill(torch.ByteTensor({ 1, 0, 0, 0, 0, 1 }), 0):totable(), { { 0, 2, 3 }, { 4, 5, 0 } })
  tester:eq(torch.maskedCopy(M(), torch.ByteTensor({ { 0, 1, 0 }, { 0, 0, 0 } }), torch.Tensor({ 9 })):totable(),
    { { 1, 9, 3 }, { 4, 5, 6 } })
  tester:eq(M():maskedSelect(torch.ByteTensor(2, 3):zero()):nElement(), 0)
  -- x[mask] sugar (indexing.lua calls these methods)
  local y = M()
  tester:eq(y[y:gt(4)]:totable(), { 5, 6 })
  y[y:lt(3)] = 0
  tester:eq(y:totable(), { { 0, 0, 3 }, { 4, 5, 6 } })
  y[y:eq(0)] = torch.Tensor({ 7, 8 })
  tester:eq(y:totable(), { { 7, 8, 3 }, { 4, 5, 6 } })
  -- strided tensors
  local t = M():t()
  tester:eq(t:maskedSelect(t:gt(3)):totable(), { 4, 5, 6 })
  t:maskedFill(t:le(2), 0)
  tester:eq(t:totable(), { { 0, 4 }, { 0, 5 }, { 3, 6 } })
end

function tests.nonzero()
  local x = torch.Tensor({ { 0, 1 }, { 2, 0 } })
  tester:eq(x:nonzero():totable(), { { 1, 2 }, { 2, 1 } })
  tester:asserteq(torch.nonzero(x):type(), 'torch.LongTensor')
  tester:eq(torch.nonzero(torch.Tensor({ 0, 3, 0, 4 })):totable(), { { 2 }, { 4 } })
  local res = torch.LongTensor()
  res:nonzero(torch.ByteTensor({ 1, 0, 1 }))
  tester:eq(res:totable(), { { 1 }, { 3 } })
  torch.nonzero(res, torch.IntTensor({ 0, 5 }))
  tester:eq(res:totable(), { { 2 } })
  tester:eq(torch.zeros(2, 3):nonzero():size():totable(), { 0, 2 })
  tester:eq(x:t():nonzero():totable(), { { 1, 2 }, { 2, 1 } })
end

function tests.dtypes()
  for _, name in ipairs({ 'Float', 'Double', 'Half', 'BFloat16', 'Long', 'Int', 'Byte' }) do
    local x = torch[name .. 'Tensor']({ { 1, 2 }, { 3, 4 } })
    tester:eq(x:index(1, { 2 }):totable(), { { 3, 4 } }, name)
    tester:eq(x:gather(2, torch.LongTensor({ { 2 }, { 1 } })):totable(), { { 2 }, { 3 } }, name)
    tester:eq(x:maskedSelect(x:gt(2)):totable(), { 3, 4 }, name)
    tester:eq(x:clone():indexAdd(1, { 1, 1 }, x):totable(), { { 5, 8 }, { 3, 4 } }, name)
    tester:eq(x:nonzero():size(1), 4, name)
  end
end

function tests.errors()
  local x = M()
  tester:assertErrorPattern(function() x:index(1, torch.LongTensor({ 3 })) end,
    'index%] index 3 at position 1 is out of range for dimension 1 of size 2 %(indices are 1%-based%)')
  tester:assertErrorPattern(function() x:index(2, torch.LongTensor({ 1, 0 })) end, 'index 0 at position 2')
  tester:assertErrorPattern(function() x:index(3, torch.LongTensor({ 1 })) end, 'dimension 3 out of range')
  tester:assertErrorPattern(function() x:index(1, torch.Tensor({ 1 })) end, 'indices must be a torch.LongTensor, got a torch.FloatTensor')
  tester:assertErrorPattern(function() x:index(1, 'a') end, 'expected indices')
  tester:assertErrorPattern(function() x:indexCopy(1, torch.LongTensor({ 1 }), torch.zeros(1, 2)) end,
    'indexCopy%] source has size 1x2 but the tensor has size 2x3')
  tester:assertErrorPattern(function() x:indexAdd(1, torch.LongTensor({ 1, 2 }), torch.zeros(1, 3)) end,
    '1 slices along dimension 1 but 2 indices')
  tester:assertErrorPattern(function() x:indexFill(1, torch.LongTensor({ 1 }), 'v') end, 'expected a value')
  tester:assertErrorPattern(function() x:gather(2, torch.LongTensor({ 1, 2 })) end,
    'gather%] index has 1 dimensions %(size 2%) but input has 2')
  tester:assertErrorPattern(function() x:gather(2, torch.LongTensor({ { 4 }, { 1 } })) end,
    'gather%] index 4 at position %(1, 1%) is out of range for dimension 2 of size 3')
  tester:assertErrorPattern(function() x:scatter(1, torch.LongTensor({ { 1, 1, 1, 1 } }), 0) end,
    'scatter%] index has size 1x4 but the tensor has size 2x3')
  tester:assertErrorPattern(function() x:scatterAdd(1, torch.LongTensor({ { 1 } }), 1) end, 'expected a source tensor')
  tester:assertErrorPattern(function() x:maskedFill(torch.Tensor(2, 3):zero(), 1) end,
    'maskedFill%] mask must be a torch.ByteTensor or torch.BoolTensor, got a torch.FloatTensor')
  tester:assertErrorPattern(function() x:maskedSelect(torch.ByteTensor(4):zero()) end, 'mask of size 4 does not broadcast')
  tester:assertErrorPattern(function() x:maskedCopy(x:gt(0), torch.Tensor({ 1 })) end,
    'maskedCopy%] mask has 6 true elements but src has only 1')
  tester:assertErrorPattern(function() torch.nonzero(torch.Tensor(), x) end, 'result must be a torch.LongTensor')
  tester:assertErrorPattern(function() x:expand(2, 2, 3):maskedFill(torch.ByteTensor({ 1 }), 0) end,
    'maskedFill%] cannot write into a tensor whose elements overlap')
  -- the error names the user's line
  local ok, err = pcall(function() x:index(1, torch.LongTensor({ 9 })) end)
  tester:assert(not ok and err:find('test_index.lua:%d+: %[index%]') ~= nil, err)
end

tester:add(tests)
tester:run()
