-- torch factories: zeros/ones/full/empty, eye, range (Torch7, inclusive), arange (PyTorch,
-- exclusive), linspace, logspace, rand/randn and the *Like family; types, [res,] forms, errors.
local tester = torch.Tester()
local tests = torch.TestSuite()

local function all_equal(t, v)
  local ok = true
  t:apply(function(x) if x ~= v then ok = false end end)
  return ok
end

function tests.zerosOnesFullEmpty()
  local z = torch.zeros(2, 3)
  tester:asserteq(z:type(), torch.getdefaulttensortype())
  tester:eq(z:size():totable(), { 2, 3 })
  tester:assert(all_equal(z, 0))
  tester:eq(torch.ones({ 2, 2 }):totable(), { { 1, 1 }, { 1, 1 } })
  tester:eq(torch.ones(torch.LongStorage({ 3 })):totable(), { 1, 1, 1 })
  local f = torch.full(2, 3, 7)
  tester:eq(f:size():totable(), { 2, 3 })
  tester:assert(all_equal(f, 7))
  tester:eq(torch.full({ 2 }, -1.5):totable(), { -1.5, -1.5 })
  tester:eq(torch.full(torch.LongStorage({ 1, 2 }), 4):totable(), { { 4, 4 } })
  tester:eq(torch.empty(4, 5):size():totable(), { 4, 5 })
  tester:asserteq(torch.empty():nElement(), 0)
  tester:asserteq(torch.zeros(0, 3):nElement(), 0)
  -- res forms keep res's type and resize it
  local res = torch.LongTensor(7)
  tester:asserteq(torch.zeros(res, 2, 2), res)
  tester:asserteq(res:type(), 'torch.LongTensor')
  tester:eq(res:totable(), { { 0, 0 }, { 0, 0 } })
  tester:eq(torch.ones(res, 3):totable(), { 1, 1, 1 })
  tester:eq(torch.full(torch.IntTensor(), 2, 9):totable(), { 9, 9 })
  tester:eq(torch.DoubleTensor():zeros(1, 2):totable(), { { 0, 0 } })  -- method form
  tester:eq(torch.ByteTensor():ones(2):totable(), { 1, 1 })
  tester:eq(torch.empty(res, 5):size():totable(), { 5 })
  -- the default type follows torch.setdefaulttensortype
  torch.setdefaulttensortype('torch.DoubleTensor')
  tester:asserteq(torch.ones(2):type(), 'torch.DoubleTensor')
  tester:asserteq(torch.range(1, 3):type(), 'torch.DoubleTensor')
  tester:asserteq(torch.rand(2):type(), 'torch.DoubleTensor')
  torch.setdefaulttensortype('torch.FloatTensor')
  tester:asserteq(torch.ones(2):type(), 'torch.FloatTensor')
end

function tests.eye()
  tester:eq(torch.eye(3):totable(), { { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 } })
  tester:eq(torch.eye(2, 3):totable(), { { 1, 0, 0 }, { 0, 1, 0 } })
  tester:eq(torch.eye(3, 1):totable(), { { 1 }, { 0 }, { 0 } })
  local res = torch.IntTensor(5, 5):fill(9)
  tester:asserteq(torch.eye(res, 2), res)
  tester:eq(res:totable(), { { 1, 0 }, { 0, 1 } })
  tester:asserteq(torch.eye(0):nElement(), 0)
  tester:eq(torch.LongTensor():eye(2):totable(), { { 1, 0 }, { 0, 1 } })
end

function tests.range()
  tester:eq(torch.range(2, 5):totable(), { 2, 3, 4, 5 })  -- Torch7: both ends included
  tester:eq(torch.range(5, 2, -1):totable(), { 5, 4, 3, 2 })
  tester:eq(torch.range(0, 1, 0.25):totable(), { 0, 0.25, 0.5, 0.75, 1 })
  tester:eq(torch.range(1, 1):totable(), { 1 })
  tester:eq(torch.range(0, 2, 0.75):totable(), { 0, 0.75, 1.5 })
  tester:asserteq(torch.range(0, 0.3, 0.1):nElement(), 4)  -- the end survives rounding
  tester:asserteq(torch.range(1, 3):type(), torch.getdefaulttensortype())
  local res = torch.LongTensor()
  tester:asserteq(torch.range(res, 1, 4), res)
  tester:eq(res:totable(), { 1, 2, 3, 4 })
  tester:eq(torch.IntTensor():range(3, 1, -1):totable(), { 3, 2, 1 })
end

function tests.arange()
  tester:eq(torch.arange(4):totable(), { 0, 1, 2, 3 })  -- PyTorch: the end is excluded
  tester:eq(torch.arange(1, 4):totable(), { 1, 2, 3 })
  tester:eq(torch.arange(1, 2, 0.5):totable(), { 1, 1.5 })
  tester:eq(torch.arange(3, 0, -1):totable(), { 3, 2, 1 })
  tester:asserteq(torch.arange(2, 2):nElement(), 0)
  tester:asserteq(torch.arange(4):type(), torch.getdefaulttensortype())
  tester:eq(torch.arange(torch.LongTensor(), 0, 6, 2):totable(), { 0, 2, 4 })
end

function tests.linspaceLogspace()
  local l = torch.linspace(0, 1)
  tester:asserteq(l:nElement(), 100)  -- Torch7's default n
  tester:asserteq(l[1], 0)
  tester:asserteq(l[100], 1)
  tester:eq(torch.linspace(-1, 1, 5):totable(), { -1, -0.5, 0, 0.5, 1 })
  tester:eq(torch.linspace(3, 9, 1):totable(), { 3 })
  tester:asserteq(torch.linspace(0, 1, 0):nElement(), 0)
  local d = torch.DoubleTensor()
  tester:asserteq(torch.linspace(d, 0, 1, 3), d)
  tester:eq(d:totable(), { 0, 0.5, 1 })
  tester:eq(torch.logspace(0, 2, 3):totable(), { 1, 10, 100 })
  tester:asserteq(torch.logspace(0, 1):nElement(), 100)
  tester:eq(torch.logspace(torch.LongTensor(), 1, 3, 3, 2):totable(), { 2, 4, 8 })  -- base 2
  tester:eq(torch.DoubleTensor():linspace(0, 4, 3):totable(), { 0, 2, 4 })
end

function tests.randRandn()
  local r = torch.rand(3, 4)
  tester:asserteq(r:type(), torch.getdefaulttensortype())
  tester:eq(r:size():totable(), { 3, 4 })
  local ok = true
  r:apply(function(v) if v < 0 or v >= 1 then ok = false end end)
  tester:assert(ok, 'rand in [0, 1)')
  tester:eq(torch.randn({ 2, 5 }):size():totable(), { 2, 5 })
  tester:eq(torch.rand(torch.LongStorage({ 4 })):size():totable(), { 4 })
  local g = torch.Generator()
  torch.manualSeed(g, 10)
  local a = torch.randn(g, 6)
  torch.manualSeed(g, 10)
  tester:assertTensorEq(torch.randn(g, 6), a)
  local res = torch.DoubleTensor()
  tester:asserteq(torch.rand(res, 2, 2), res)
  tester:asserteq(res:type(), 'torch.DoubleTensor')
  tester:eq(res:size():totable(), { 2, 2 })
  tester:asserteq(torch.randn(res, g, 3), res)
  tester:eq(res:size():totable(), { 3 })
  tester:eq(torch.DoubleTensor():rand(2):size():totable(), { 2 })
  tester:asserteq(torch.Tensor(3):randn():nElement(), 3)
  tester:assertErrorPattern(function() torch.rand(torch.LongTensor(), 3) end, '%[uniform%] expects a floating%-point tensor')
end

function tests.likeFamily()
  local x = torch.IntTensor(2, 3):fill(5)
  local z = torch.zerosLike(x)
  tester:asserteq(z:type(), 'torch.IntTensor')
  tester:eq(z:size():totable(), { 2, 3 })
  tester:assert(all_equal(z, 0))
  tester:assert(all_equal(torch.onesLike(x), 1))
  local f = torch.fullLike(x, 3)
  tester:asserteq(f:type(), 'torch.IntTensor')
  tester:assert(all_equal(f, 3))
  tester:eq(torch.emptyLike(x):size():totable(), { 2, 3 })
  local d = torch.DoubleTensor(4, 1)
  local r = torch.randLike(d)
  tester:asserteq(r:type(), 'torch.DoubleTensor')
  tester:eq(r:size():totable(), { 4, 1 })
  tester:asserteq(torch.randnLike(d):type(), 'torch.DoubleTensor')
  local g = torch.Generator()
  torch.manualSeed(g, 4)
  local a = torch.randnLike(g, d)
  torch.manualSeed(g, 4)
  tester:assertTensorEq(torch.randnLike(g, d), a)
  tester:assert(not x:isSetTo(z), 'a new tensor')
  tester:assertErrorPattern(function() torch.zerosLike(3) end, '%[zerosLike%] expected a tensor, got number')
  tester:assertErrorPattern(function() torch.fullLike(x) end, '%[fullLike%] expected a fill value')
  tester:assertErrorPattern(function() torch.randLike(x) end, '%[uniform%] expects a floating%-point tensor, got a torch.IntTensor')
end

-- Note [Bool bytes]: an uninitialized bool tensor, and the part a resize adds, hold false, never
-- the garbage byte a freed buffer left (a "true" that converted to 217).
function tests.boolTensorsHoldOnlyZeroOrOne()
  for _ = 1, 3 do
    local junk = torch.ByteTensor(65536):fill(217)
    junk = nil
    collectgarbage()
    local b = torch.BoolTensor(65536)
    tester:asserteq(b:long():max(), 0, 'a new bool tensor is all false')
    local grown = torch.BoolTensor({ true, false, true })
    torch.ByteTensor(65536):fill(217)
    collectgarbage()
    grown:resize(65536)
    tester:asserteq(grown:long():max(), 1, 'a resized bool tensor holds only 0 and 1')
    tester:asserteq(grown:long():sum(), 2, 'its old elements are kept, the new ones are false')
    tester:asserteq(torch.emptyLike(b):long():max(), 0)
  end
end

function tests.errors()
  tester:assertErrorPattern(function() torch.zeros(-1) end, '%[zeros%] size 1 must be a non%-negative integer, got %-1')
  tester:assertErrorPattern(function() torch.ones(2, 2.5) end, '%[ones%] size 2 must be a non%-negative integer')
  tester:assertErrorPattern(function() torch.zeros({ 2, -3 }) end, '%[zeros%] size 2')
  tester:assertErrorPattern(function() torch.zeros('a') end, '%[zeros%] expected sizes')
  tester:assertErrorPattern(function() torch.full(2, 'x') end, '%[full%] expected sizes followed by a fill value')
  tester:assertErrorPattern(function() torch.full(3) end, '%[full%]')
  tester:assertErrorPattern(function() torch.rand(-2) end, '%[rand%] size 1')
  tester:assertErrorPattern(function() torch.range(1, 2, 0) end, '%[range%] step must be non%-zero')
  tester:assertErrorPattern(function() torch.range(1, 5, -1) end, '%[range%] upper bound 5 and lower bound 1 are inconsistent')
  tester:assertErrorPattern(function() torch.range(1) end, '%[range%] expected y')
  tester:assertErrorPattern(function() torch.range(torch.ByteTensor(), 0, 300) end, 'do not fit a torch.ByteTensor')
  tester:assertErrorPattern(function() torch.arange(0, 1, 0) end, '%[arange%] step must be non%-zero')
  tester:assertErrorPattern(function() torch.arange(0, -1) end, '%[arange%] upper bound')
  tester:assertErrorPattern(function() torch.linspace(0, 1, -1) end, '%[linspace%] number of points must be non%-negative')
  tester:assertErrorPattern(function() torch.linspace(0, 1, 2.5) end, '%[linspace%] n must be an integer')
  tester:assertErrorPattern(function() torch.linspace(0, 1 / 0) end, '%[linspace%] arguments must be finite')
  tester:assertErrorPattern(function() torch.logspace('a', 1) end, '%[logspace%] expected a')
  tester:assertErrorPattern(function() torch.eye(-1) end, '%[eye%] sizes must be non%-negative')
  tester:assertErrorPattern(function() torch.eye(2, 1.5) end, '%[eye%] m must be an integer')
end

tester:add(tests)
tester:run()
