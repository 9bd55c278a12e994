-- Reductions and scans from Lua: hand-computed values, Torch7's call forms (torch.f([res,] x,
-- dim) and methods), result types, and errors that name the op; argmax/argmin against max/min.
local tester = torch.Tester()
local tests = torch.TestSuite()

local function mat() return torch.Tensor({ { 1, 2, 3 }, { 4, 5, 6 } }) end

function tests.sumProdMean()
  local t = mat()
  tester:asserteq(t:sum(), 21)
  tester:asserteq(torch.sum(t), 21)
  tester:eq(torch.sum(t, 1):totable(), { { 5, 7, 9 } })
  tester:eq(t:sum(2):totable(), { { 6 }, { 15 } })
  tester:eq(t:sum(-1):totable(), { { 6 }, { 15 } })
  local res = torch.Tensor()
  tester:assert(torch.sum(res, t, 2) == res)
  tester:eq(res:totable(), { { 6 }, { 15 } })
  res:sum(t, 1)
  tester:eq(res:totable(), { { 5, 7, 9 } })
  tester:asserteq(t:prod(), 720)
  tester:eq(t:prod(1):totable(), { { 4, 10, 18 } })
  tester:asserteq(t:mean(), 3.5)
  tester:eq(torch.mean(t, 2):totable(), { { 2 }, { 5 } })
  -- Torch7's documented example: prod over dim 2 of a 2x2x2 tensor is 2x1x2
  local a = torch.Tensor({ { { 1, 2 }, { 3, 4 } }, { { 5, 6 }, { 7, 8 } } })
  tester:eq(torch.prod(a, 2):totable(), { { { 3, 8 } }, { { 35, 48 } } })
  tester:eq(a:transpose(1, 3):sum(3):totable(), a:sum(1):transpose(1, 3):totable())
  tester:asserteq(torch.Tensor():sum(), 0)
  tester:asserteq(torch.Tensor():prod(), 1)
end

function tests.resultTypes()
  tester:asserteq(torch.ByteTensor({ 200, 100 }):sum(), 300)
  tester:asserteq(torch.ByteTensor({ 200, 100 }):sum(1):type(), 'torch.LongTensor')
  tester:asserteq(torch.IntTensor({ 1, 2 }):mean(1):type(), 'torch.FloatTensor')
  tester:asserteq(torch.IntTensor({ 1, 2 }):mean(), 1.5)
  tester:asserteq(torch.DoubleTensor({ 1, 2 }):sum(1):type(), 'torch.DoubleTensor')
  tester:asserteq(torch.LongTensor({ 3, -1 }):max(), 3)
  tester:asserteq(torch.HalfTensor({ 1, 2, 3 }):sum(), 6)
  tester:asserteq(torch.BoolTensor({ true, true, false }):sum(), 2)
  -- a float tensor sums in double, so the number is exact for its elements
  local f = torch.FloatTensor({ 0.1, 0.2 })
  tester:asserteq(f:sum(), f[1] + f[2])
  local into = torch.DoubleTensor()
  torch.sum(into, torch.FloatTensor({ { 1, 2 } }), 2)
  tester:asserteq(into:type(), 'torch.DoubleTensor')
  tester:eq(into:totable(), { { 3 } })
end

function tests.varStd()
  local t = torch.Tensor({ 1, 2, 3, 4 })
  tester:assertalmosteq(t:var(), 5 / 3, 1e-6)
  tester:assertalmosteq(t:var(true), 1.25, 1e-6)
  tester:assertalmosteq(torch.std(t), math.sqrt(5 / 3), 1e-6)
  local m = mat()
  tester:eq(torch.var(m, 2):totable(), { { 1 }, { 1 } }, 1e-6)
  tester:eq(torch.var(m, 2, true):totable(), { { 2 / 3 }, { 2 / 3 } }, 1e-6)
  tester:eq(m:std(1):totable(), { { math.sqrt(4.5), math.sqrt(4.5), math.sqrt(4.5) } }, 1e-6)
  local res = torch.Tensor()
  torch.std(res, m, 1, true)
  tester:eq(res:totable(), { { 1.5, 1.5, 1.5 } }, 1e-6)
end

function tests.normAndDist()
  local t = torch.Tensor({ 3, -4, 0 })
  tester:asserteq(t:norm(), 5)
  tester:asserteq(t:norm(1), 7)
  tester:asserteq(t:norm(0), 2)
  tester:asserteq(t:norm(math.huge), 4)
  tester:assertalmosteq(torch.norm(t, 3), (27 + 64) ^ (1 / 3), 1e-6)
  local m = torch.Tensor({ { 3, 4 }, { 6, 8 } })
  tester:eq(torch.norm(m, 2, 2):totable(), { { 5 }, { 10 } })
  tester:eq(m:norm(1, 1):totable(), { { 9, 12 } })
  local a, b = torch.Tensor({ 1, 1 }), torch.Tensor({ 4, 5 })
  tester:asserteq(torch.dist(a, b), 5)
  tester:asserteq(torch.dist(a, b, 1), 7)
  tester:asserteq(a:dist(b, math.huge), 4)
end

function tests.maxMin()
  local t = torch.Tensor({ { 1, 5, 5 }, { 7, 2, 0 } })
  tester:asserteq(t:max(), 7)
  tester:asserteq(torch.min(t), 0)
  local v, i = torch.max(t, 2)
  tester:eq(v:totable(), { { 5 }, { 7 } })
  tester:eq(i:totable(), { { 2 }, { 1 } })  -- the first maximum, 1-based
  tester:asserteq(i:type(), 'torch.LongTensor')
  v, i = t:min(1)
  tester:eq(v:totable(), { { 1, 2, 0 } })
  tester:eq(i:totable(), { { 1, 2, 2 } })
  local rv, ri = torch.Tensor(), torch.LongTensor()
  local a, b = torch.max(rv, ri, t, 1)
  tester:assert(a == rv and b == ri)
  tester:eq(rv:totable(), { { 7, 5, 5 } })
  tester:eq(ri:totable(), { { 2, 1, 1 } })
  rv:min(ri, t, 2)
  tester:eq(ri:totable(), { { 1 }, { 3 } })
  tester:eq(torch.max(torch.Tensor({ 1, 4 }), torch.Tensor({ 3, 2 })):totable(), { 3, 4 })
  local n = torch.Tensor({ 1, 0 / 0, 3 })
  tester:assert(n:max() ~= n:max())
  v, i = n:max(1)
  tester:asserteq(i[1], 2)
end

-- argmax/argmin are max/min's indices (Note [argmax and keepdim] in lua/torch/reduce.lua).
function tests.argmaxArgmin()
  local t = torch.Tensor({ { 1, 5, 5 }, { 7, 2, 0 } })
  tester:asserteq(t:argmax(), 4)  -- the 7: row-major position among all elements
  tester:asserteq(torch.argmin(t), 6)
  local i = torch.argmax(t, 2)
  tester:asserteq(i:type(), 'torch.LongTensor')
  tester:eq(i:totable(), { 2, 1 })  -- the dim is dropped, as PyTorch's argmax drops it; the first 5 wins
  tester:eq(i:size():totable(), { 2 })
  tester:eq(t:argmax(1):totable(), { 2, 1, 1 })
  tester:eq(t:argmin(2):totable(), { 1, 3 })
  tester:eq(t:argmin(-2):totable(), { 1, 2, 2 })
  tester:eq(torch.argmin(t, 1, false):totable(), { 1, 2, 2 })
  local kept = t:argmax(2, true)  -- as max(2) keeps it
  tester:eq(kept:totable(), { { 2 }, { 1 } })
  tester:eq(torch.argmin(t, 1, true):totable(), { { 1, 2, 2 } })
  -- the PyTorch idiom counts matches between two vectors, not an NxN broadcast
  tester:asserteq(t:argmax(2):eq(torch.LongTensor({ 2, 2 })):sum(), 1)
  -- ties: the first occurrence, in every form
  local ties = torch.Tensor({ 3, 1, 3, 1 })
  tester:asserteq(ties:argmax(), 1)
  tester:asserteq(ties:argmin(), 2)
  tester:asserteq(ties:argmax(1):dim(), 0)
  tester:asserteq(ties:argmax(1):item(), 1)
  -- NaN counts as the largest and the smallest, as in max and min
  local n = torch.Tensor({ 1, 0 / 0, 3, 0 / 0 })
  tester:asserteq(n:argmax(), 2)
  tester:asserteq(n:argmin(), 2)
  tester:asserteq(n:argmax(1):item(), select(2, n:max(1))[1])
  tester:asserteq(n:argmin(1):item(), select(2, n:min(1))[1])
  -- a 0-dim tensor: position 1; along its one dim a 0-dim LongTensor
  local z = torch.Tensor({ 7 }):view({})
  tester:asserteq(z:argmax(), 1)
  tester:asserteq(z:argmin(1):dim(), 0)
  tester:asserteq(z:argmin(1):item(), 1)
  -- not differentiable: an input that requires grad gives plain indices
  local g = torch.Tensor({ 1, 3, 2 }):requiresGrad()
  tester:asserteq(g:argmax(), 2)
  tester:assert(not g:argmax(1):needsGrad())
end

function tests.argmaxDtypes()
  local values = { 2, 9, 4, 9, 0 }
  for _, name in ipairs({ 'FloatTensor', 'DoubleTensor', 'HalfTensor', 'BFloat16Tensor', 'LongTensor', 'IntTensor',
                          'ByteTensor' }) do
    local x = torch[name](values)
    tester:asserteq(x:argmax(), 2, name)
    tester:asserteq(x:argmin(), 5, name)
    local m = torch[name]({ { 2, 9 }, { 4, 0 } })
    tester:eq(m:argmax(2, true):totable(), { { 2 }, { 1 } }, name)
    tester:eq(m:argmin(1):totable(), { 1, 2 }, name)
  end
  local b = torch.BoolTensor({ false, true, true })
  tester:asserteq(b:argmax(), 2)
  tester:asserteq(b:argmin(), 1)
end

-- argmax(d) is exactly max(d)'s indices, for 1-D to 4-D inputs with many ties, contiguous or not;
-- without a dim it is the first largest element in row-major order.
function tests.argmaxMatchesMax()
  torch.manualSeed(12)
  local function narrowed(x)  -- x inside a larger buffer filled with -99
    local s = x:size():totable()
    for k = 1, #s do s[k] = s[k] + 2 end
    local y = torch.Tensor(torch.LongStorage(s)):fill(-99)
    for d = 1, x:dim() do y = y:narrow(d, 2, x:size(d)) end
    return y:copy(x)
  end
  local function layouts(x)
    local list = { x, narrowed(x) }
    if x:dim() >= 2 then list[#list + 1] = x:transpose(1, x:dim()):clone():transpose(1, x:dim()) end
    return list
  end
  for _, sz in ipairs({ { 7 }, { 4, 5 }, { 3, 1, 4 }, { 2, 3, 2, 3 } }) do
    local x = torch.rand(unpack(sz)):mul(3):floor()  -- values 0..2: ties everywhere
    for li, v in ipairs(layouts(x)) do
      local what = table.concat(sz, 'x') .. ' layout ' .. li
      for d = 1, #sz do
        local _, imax = v:max(d)
        local _, imin = v:min(d)
        tester:eq(v:argmax(d, true), imax, 0, what .. ' argmax keepdim ' .. d)
        tester:eq(v:argmin(d, true), imin, 0, what .. ' argmin keepdim ' .. d)
        tester:eq(v:argmax(d), imax:squeeze(d), 0, what .. ' argmax ' .. d)
      end
      local flat = v:contiguous():view(-1)
      local k = v:argmax()
      tester:asserteq(flat[k], v:max(), what)
      for j = 1, k - 1 do tester:assert(flat[j] < flat[k], what .. ': an earlier maximum at ' .. j) end
      k = v:argmin()
      tester:asserteq(flat[k], v:min(), what)
      for j = 1, k - 1 do tester:assert(flat[j] > flat[k], what .. ': an earlier minimum at ' .. j) end
    end
  end
end

function tests.logsumexp()
  tester:assertalmosteq(torch.Tensor({ 0, 0 }):logsumexp(), math.log(2), 1e-6)
  tester:assertalmosteq(torch.Tensor({ 1000, 1000 }):logsumexp(), 1000 + math.log(2), 1e-3)
  tester:asserteq(torch.Tensor({ -math.huge, -math.huge }):logsumexp(), -math.huge)
  tester:eq(torch.logsumexp(torch.Tensor({ { 0, 0 }, { 1, 1 } }), 2):totable(), { { math.log(2) }, { 1 + math.log(2) } }, 1e-5)
end

function tests.allAny()
  local m = torch.ByteTensor({ 1, 1, 0 })
  tester:asserteq(m:all(), false)
  tester:asserteq(m:any(), true)
  tester:asserteq(torch.all(torch.ByteTensor({ 1, 1 })), true)
  tester:asserteq(torch.BoolTensor({ false, false }):any(), false)
  tester:asserteq(torch.Tensor({ 1, 2 }):gt(0):all(), true)
  local d = torch.ByteTensor({ { 1, 0 }, { 1, 1 } }):all(2)
  tester:asserteq(d:type(), 'torch.ByteTensor')
  tester:eq(d:totable(), { { 0 }, { 1 } })
  tester:asserteq(torch.Tensor({ 0, 2 }):any(1):type(), 'torch.BoolTensor')
  tester:asserteq(torch.ByteTensor():all(), true)
end

function tests.cumsumCumprod()
  local t = mat()
  tester:eq(t:cumsum():totable(), { { 1, 2, 3 }, { 5, 7, 9 } })  -- Torch7's default dim is 1
  tester:eq(torch.cumsum(t, 2):totable(), { { 1, 3, 6 }, { 4, 9, 15 } })
  tester:eq(t:cumprod(2):totable(), { { 1, 2, 6 }, { 4, 20, 120 } })
  local res = torch.Tensor()
  torch.cumprod(res, torch.Tensor({ 1, 2, 3, 4 }))
  tester:eq(res:totable(), { 1, 2, 6, 24 })
  tester:asserteq(torch.IntTensor({ 1, 2 }):cumsum():type(), 'torch.LongTensor')
end

function tests.traceAndCross()
  tester:asserteq(mat():trace(), 6)
  tester:asserteq(torch.trace(torch.Tensor({ { 1, 2 }, { 3, 4 } })), 5)
  tester:eq(torch.cross(torch.Tensor({ 1, 0, 0 }), torch.Tensor({ 0, 1, 0 })):totable(), { 0, 0, 1 })
  local a = mat()
  local b = torch.Tensor({ { 0, 0, 1 }, { 1, 0, 0 } })
  local want = { { 2, -1, 0 }, { 0, 6, -5 } }
  tester:eq(a:cross(b, 2):totable(), want)
  tester:eq(torch.cross(a, b):totable(), want)  -- the first dim of size 3
  local res = torch.Tensor()
  torch.cross(res, a, b)
  tester:eq(res:totable(), want)
end

function tests.renormAndHistc()
  local t = torch.Tensor({ { 3, 4 }, { 0.3, 0.4 } })
  tester:eq(torch.renorm(t, 2, 1, 1):totable(), { { 0.6, 0.8 }, { 0.3, 0.4 } }, 1e-5)
  tester:asserteq(t[1][1], 3)
  tester:assert(t:renorm(2, 1, 1) == t)  -- the method works in place (Torch7)
  tester:eq(t:totable(), { { 0.6, 0.8 }, { 0.3, 0.4 } }, 1e-5)
  tester:eq(torch.histc(torch.Tensor({ 1, 2, 2, 3, 5 }), 4):totable(), { 1, 2, 1, 1 })
  tester:asserteq(torch.Tensor({ 1, 2 }):histc():nElement(), 100)
  tester:eq(torch.histc(torch.Tensor({ 0.5, 1.5, 7 }), 2, 0, 2):totable(), { 1, 1 })
  local res = torch.Tensor()
  torch.histc(res, torch.Tensor({ 1, 1, 2 }), 2)
  tester:eq(res:totable(), { 2, 1 })
end

function tests.errors()
  local t = mat()
  tester:assertErrorPattern(function() t:sum(3) end, '%[sum%] dimension 3 out of range for a 2D tensor')
  tester:assertErrorPattern(function() t:sum('a') end, '%[sum%] expected a dimension')
  tester:assertErrorPattern(function() torch.sum(5) end, '%[sum%] expected a tensor as argument 1, got number')
  tester:assertErrorPattern(function() torch.sum(torch.Tensor(), t) end, '%[sum%] a result tensor needs a dimension')
  tester:assertErrorPattern(function() torch.Tensor():max() end, '%[max%] cannot reduce a tensor with no elements')
  tester:assertErrorPattern(function() torch.Tensor(2, 0):min(2) end, '%[min%] cannot reduce over dimension 2 of size 0')
  tester:assertErrorPattern(function() t:var(1, 'x') end, '%[var%] flag must be a boolean')
  tester:assertErrorPattern(function() t:norm('x') end, '%[norm%] p must be a number')
  tester:assertErrorPattern(function() torch.cross(torch.Tensor(2, 2), torch.Tensor(2, 2)) end,
    '%[cross%] no dimension of size 3')
  tester:assertErrorPattern(function() torch.Tensor(3):trace() end, '%[trace%] expected a matrix')
  tester:assertErrorPattern(function() torch.histc(t, 0) end, '%[histc%] number of bins must be positive')
  tester:assertErrorPattern(function() t:renorm(2, 1) end, '%[renorm%] maxnorm must be a number')
  tester:assertErrorPattern(function() torch.IntTensor(2, 2):renorm(2, 1, 1) end, '%[renorm%] expected a floating')
  local freed = mat()
  freed:free()
  tester:assertErrorPattern(function() freed:sum() end, 'freed')
  tester:assertErrorPattern(function() freed:argmax() end, 'freed')
end

function tests.argmaxErrors()
  local t = mat()
  tester:assertErrorPattern(function() t:argmax(3) end, '%[argmax%] dimension 3 out of range for a 2D tensor')
  tester:assertErrorPattern(function() t:argmin(0) end, '%[argmin%] dimension 0 out of range')
  tester:assertErrorPattern(function() t:argmax('a') end, '%[argmax%] expected a dimension')
  tester:assertErrorPattern(function() torch.argmax('x') end, '%[argmax%] expected a tensor as argument 1, got string')
  tester:assertErrorPattern(function() torch.argmin() end, '%[argmin%] expected a tensor as argument 1, got nil')
  tester:assertErrorPattern(function() torch.Tensor():argmax() end,
    '%[argmax%] cannot take the argmax of a tensor with no elements %(size 0%)')
  tester:assertErrorPattern(function() torch.Tensor(2, 0):argmin(2) end,
    '%[argmin%] cannot take the argmin over dimension 2 of size 0 %(input size 2x0%)')
  tester:assertErrorPattern(function() torch.Tensor(0):argmax(1) end, '%[argmax%] cannot take the argmax over dimension 1')
  tester:assertErrorPattern(function() t:argmax(1, 'yes') end, '%[argmax%] keepdim must be a boolean, got string')
  tester:assertErrorPattern(function() t:argmax(nil, true) end, '%[argmax%] keepdim needs a dimension')
  -- a dim of size 0 elsewhere is fine: an empty result, as max gives
  tester:eq(torch.Tensor(0, 3):argmax(2):size():totable(), { 0 })
  tester:eq(torch.Tensor(0, 3):argmax(2, true):size():totable(), { 0, 1 })
end

tester:add(tests)
tester:run()
