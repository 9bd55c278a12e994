-- torch.cuda (issue 9). Without a GPU (or without the CUDA backend) the runtime API must answer
-- without crashing and every move to a device must fail with a clear error; those checks run
-- everywhere. With a GPU, every pointwise op of the op table, the reductions and the matmul family
-- run on CUDA for each dtype and are compared with the CPU result (tolerances per dtype), plus
-- device copies, device-mixing errors and allocator counters. The GPU part prints SKIPPED when no
-- device is present (CI and the build machine have none).
local tester = torch.Tester()
local tests = torch.TestSuite()
local ffi = require 'ffi'
local C = torch._lib.C

local available = torch.cuda.isAvailable()

-- What the process has mapped before any test runs: torch, nn and optim are loaded, no CUDA op ran.
local function mapped_libraries()
  local seen = {}
  local maps = io.open('/proc/self/maps')
  if not maps then return nil end
  for line in maps:lines() do
    local name = line:match('/(lib[%w_]+)%.so[^/]*$')
    if name then seen[name] = true end
  end
  maps:close()
  return seen
end
require 'nn'
require 'optim'
local mapped_at_start = mapped_libraries()

-- Note [Lazy CUDA libraries]: cuBLAS (with cuBLASLt) and cuSOLVER (with cuSPARSE) cost every
-- process 0.4-0.5 s and ~180 MB when linked; they open on the first CUDA matmul or solver call.
function tests.blasLibrariesOpenOnFirstUse()
  if not mapped_at_start then return end  -- no /proc
  for _, lib in ipairs({ 'libcublas', 'libcublasLt', 'libcusolver', 'libcusparse' }) do
    tester:assert(not mapped_at_start[lib], lib .. ' is not loaded at start-up')
  end
  if torch.cuda.isBuilt() then
    tester:assert(mapped_at_start.libcudart or mapped_at_start.libtocha_fakegpu, 'the CUDA runtime stays linked')
  end
  if not available then return end
  local a = torch.CudaTensor(8, 8):fill(1)
  tester:asserteq(torch.mm(a, a):float()[1][1], 8)
  local now = mapped_libraries()
  tester:assert(now.libcublas or now.libtocha_fakegpu, 'the first CUDA matmul opened cuBLAS')
end

function tests.runtimeAnswersWithoutCrashing()
  tester:asserteq(type(available), 'boolean')
  tester:asserteq(type(torch.cuda.deviceCount()), 'number')
  tester:asserteq(type(torch.cuda.isBuilt()), 'boolean')
  local s = torch.cuda.memoryStats()
  for _, k in ipairs({ 'allocatedBytes', 'reservedBytes', 'cachedBytes', 'peakAllocatedBytes', 'ooms', 'liveBytes' }) do
    tester:asserteq(type(s[k]), 'number', k)
  end
  torch.cuda.emptyCache()
  local was = torch.backends.cuda.allowTF32
  tester:asserteq(was, false, 'TF32 is off by default')
  torch.backends.cuda.allowTF32 = true
  tester:asserteq(torch.backends.cuda.allowTF32, true)
  torch.backends.cuda.allowTF32 = false
  tester:assertErrorPattern(function() torch.backends.cuda.bogus = 1 end, 'unknown setting')
  tester:asserteq(torch.backends.cudnn.benchmark, false, 'cuDNN benchmarking is off by default')
  torch.backends.cudnn.benchmark = true
  tester:asserteq(torch.backends.cudnn.benchmark, true)
  torch.backends.cudnn.benchmark = false
  local graph = torch.backends.cudnn.graphAPI
  tester:asserteq(graph, os.getenv('TOCHA_CUDNN_GRAPH') == '1', 'the graph API is off unless TOCHA_CUDNN_GRAPH=1')
  torch.backends.cudnn.graphAPI = not graph
  tester:asserteq(torch.backends.cudnn.graphAPI, not graph)
  torch.backends.cudnn.graphAPI = graph
  tester:assertErrorPattern(function() torch.backends.cudnn.fastest = true end, 'unknown setting')
end

function tests.noDeviceGivesClearErrors()
  if available then return end
  local reason = torch.cuda.unavailableReason()
  tester:assert(#reason > 0, 'a reason is given')
  tester:assert(reason:find('without CUDA') or reason:find('no CUDA device'), reason)
  tester:assertErrorPattern(function() torch.ones(2):cuda() end, '%[cuda%]')
  tester:assertErrorPattern(function() torch.ones(2):to('cuda:0') end, '%[to%]')
  tester:assertErrorPattern(function() torch.CudaTensor(2, 3) end, 'torch.CudaTensor')
  tester:assertErrorPattern(function() torch.ones(2):type('torch.CudaDoubleTensor') end, 'cuda')
  tester:assertErrorPattern(function() torch.cuda.setDevice(0) end, '%[setDevice%]')
  tester:assertErrorPattern(function() torch.cuda.synchronize() end, '%[synchronize%]')
  tester:assertErrorPattern(function() torch.cuda.getDeviceProperties(0) end, 'getDeviceProperties')
end

function tests.cpuSideOfTheDeviceApi()
  local t = torch.ones(3)
  tester:asserteq(t:device(), 'cpu')
  tester:asserteq(t:isCuda(), false)
  tester:asserteq(t:getDevice(), -1)
  tester:assert(t:to('cpu') == t, 'no copy when nothing changes')
  tester:assert(t:cpu() == t)
  tester:asserteq(t:to('cpu', 'torch.DoubleTensor'):type(), 'torch.DoubleTensor')
  tester:asserteq(t:to('torch.LongTensor'):type(), 'torch.LongTensor')
  tester:assertErrorPattern(function() t:to('tpu') end, "expected a device")
  tester:assertErrorPattern(function() t:to('cpu', 'torch.NoTensor') end, 'unknown tensor type')
  -- cutorch type names exist as classes.
  for _, name in ipairs({ 'CudaTensor', 'CudaDoubleTensor', 'CudaHalfTensor', 'CudaBFloat16Tensor',
                          'CudaLongTensor', 'CudaIntTensor', 'CudaByteTensor', 'CudaBoolTensor' }) do
    tester:assert(torch[name] ~= nil, name)
    tester:asserteq(tostring(torch[name]), 'torch.' .. name)
  end
end

-- ---- with a GPU: CUDA against CPU ----------------------------------------------------------

local dtypes = { 'torch.FloatTensor', 'torch.DoubleTensor', 'torch.HalfTensor', 'torch.BFloat16Tensor',
                 'torch.LongTensor', 'torch.IntTensor', 'torch.ByteTensor' }
local tol = { ['torch.FloatTensor'] = 1e-5, ['torch.DoubleTensor'] = 1e-12, ['torch.HalfTensor'] = 2e-3,
              ['torch.BFloat16Tensor'] = 1.6e-2 }

-- Largest difference relative to max(1, |cpu|), NaN matching NaN; math.huge for a size mismatch.
local function max_err(cpu, gpu)
  if gpu:device() == 'cpu' and available then return math.huge end
  local a, b = cpu:double():contiguous(), gpu:double():contiguous()
  if a:nElement() ~= b:nElement() then return math.huge end
  local pa, pb = a:data(), b:data()
  local worst = 0
  for i = 0, a:nElement() - 1 do
    local x, y = pa[i], pb[i]
    if not (x ~= x and y ~= y) and x ~= y then
      local e = math.abs(x - y) / math.max(1, math.abs(x))
      if e ~= e then e = math.huge end
      worst = math.max(worst, e)
    end
  end
  return worst
end

local function input(tname, n, lo, hi)
  return torch.DoubleTensor(n):uniform(lo, hi):type(tname)
end

function tests.pointwiseOpsMatchCpu()
  if not available then
    print('SKIPPED: no CUDA device (' .. torch.cuda.unavailableReason() .. ')')
    return
  end
  local failures, checked = {}, 0
  for op = 0, C.tocha_op_count() - 1 do
    local kind = C.tocha_op_kind(op)
    local name = ffi.string(C.tocha_op_name(op))
    local f = torch[name]
    if (kind <= 4 or kind == 7 or kind == 8) and type(f) == 'function' then
      for _, tname in ipairs(dtypes) do
        local x = input(tname, 97, 0.1, 2)
        local y = input(tname, 97, 0.5, 3)
        local unary = kind <= 1 or kind == 7
        local ok, cpu = pcall(function() return unary and f(x) or f(x, y) end)
        if ok then
          checked = checked + 1
          local gok, gpu = pcall(function() return unary and f(x:cuda()) or f(x:cuda(), y:cuda()) end)
          local e = gok and max_err(cpu, gpu) or math.huge
          local t = tol[cpu:type()] or 0
          if name == 'pow' or name:find('exp') or name:find('log') then t = t * 10 end
          if e > t then failures[#failures + 1] = string.format('%s %s: %s', name, tname, gok and ('error ' .. e) or gpu) end
        end
      end
    end
  end
  print(string.format('checked %d (op, dtype) pairs on CUDA', checked))
  tester:asserteq(#failures, 0, table.concat(failures, '\n'))
end

function tests.stridedAndBroadcastPointwise()
  if not available then return end
  local a = torch.randn(5, 7):t()
  local b = torch.randn(7, 1)
  tester:assertlt(max_err(a + b, a:cuda() + b:cuda()), 1e-6)
  tester:assertlt(max_err(a * 3 - 1, (a:cuda() * 3) - 1), 1e-6)
  local c = a:cuda():clone()
  c:narrow(1, 2, 3):fill(7)
  local d = a:clone()
  d:narrow(1, 2, 3):fill(7)
  tester:asserteq(max_err(d, c), 0)
  tester:assertlt(max_err(torch.cmax(a, 0.5), torch.cmax(a:cuda(), 0.5)), 1e-7)
end

function tests.reductionsMatchCpu()
  if not available then return end
  local failures = {}
  for _, tname in ipairs({ 'torch.FloatTensor', 'torch.DoubleTensor', 'torch.HalfTensor', 'torch.LongTensor' }) do
    for _, shape in ipairs({ { 1000 }, { 37, 129 }, { 3, 200000 }, { 4096, 3 } }) do
      local x = torch.DoubleTensor((table.unpack or unpack)(shape)):uniform(-2, 2):type(tname)
      local g = x:cuda()
      local t = (tol[tname] or 0) * 10
      local function cmp(what, a, b, tt)
        local e = max_err(a, b)
        if e > (tt or t) then failures[#failures + 1] = string.format('%s %s %s: %g', what, tname, table.concat(shape, 'x'), e) end
      end
      cmp('sum(dim)', x:sum(x:dim()), g:sum(g:dim()))
      cmp('sum(1)', x:sum(1), g:sum(1))
      cmp('max(dim)', x:max(x:dim()), g:max(g:dim()), 0)
      local _, i1 = x:max(1)
      local _, i2 = g:max(1)
      cmp('argmax(1)', i1, i2, 0)
      cmp('min(dim)', x:min(x:dim()), g:min(g:dim()), 0)
      local s1, s2 = x:sum(), g:sum()
      if math.abs(s1 - s2) > t * math.max(1, math.abs(s1)) * 100 then
        failures[#failures + 1] = string.format('sum() %s: %g vs %g', tname, s1, s2)
      end
      if tname ~= 'torch.LongTensor' then
        cmp('mean(dim)', x:mean(x:dim()), g:mean(g:dim()))
        cmp('var(1)', x:var(1), g:var(1), t * 10)
        cmp('std(dim)', x:std(x:dim()), g:std(g:dim()), t * 10)
        cmp('norm(dim)', x:norm(2, x:dim()), g:norm(2, g:dim()), t * 10)
        cmp('logsumexp(dim)', x:logsumexp(x:dim()), g:logsumexp(g:dim()), t * 10)
      end
    end
  end
  tester:asserteq(#failures, 0, table.concat(failures, '\n'))
end

-- flip and argmax/argmin are composites (index_select, max/min): on CUDA they give the CPU's
-- results for each dtype, on non-contiguous inputs too, and flip's gradient comes back flipped.
function tests.flipAndArgmaxMatchCpu()
  if not available then return end
  for _, tname in ipairs({ 'torch.FloatTensor', 'torch.DoubleTensor', 'torch.HalfTensor', 'torch.BFloat16Tensor',
                          'torch.LongTensor', 'torch.IntTensor', 'torch.ByteTensor' }) do
    local x = torch.DoubleTensor(6, 5, 4):uniform(0, 4):floor():type(tname)  -- values 0..3: ties
    local g = x:cuda()
    for _, dims in ipairs({ { 1 }, { 3 }, { 3, 1 }, { 1, 2, 3 } }) do
      tester:asserteq(max_err(x:flip(dims), g:flip(dims)), 0, 'flip ' .. table.concat(dims, ',') .. ' ' .. tname)
    end
    tester:asserteq(max_err(x:transpose(1, 3):flip(2), g:transpose(1, 3):flip(2)), 0, 'flip transposed ' .. tname)
    for d = 1, 3 do
      tester:asserteq(max_err(x:argmax(d), g:argmax(d)), 0, 'argmax ' .. d .. ' ' .. tname)
      tester:asserteq(max_err(x:argmin(d, true), g:argmin(d, true)), 0, 'argmin ' .. d .. ' ' .. tname)
    end
    tester:asserteq(g:argmax(), x:argmax(), 'argmax() ' .. tname)
    tester:asserteq(g:narrow(2, 2, 3):argmin(), x:narrow(2, 2, 3):argmin(), 'argmin() narrowed ' .. tname)
  end
  local w = torch.randn(3, 4)
  local gx = torch.randn(3, 4):cuda():requiresGrad()
  torch.cmul(gx:flip(1, 2), w:cuda()):sum():backward()
  tester:asserteq(max_err(w:flip(1, 2), gx.grad), 0, 'flip gradient on CUDA')
end

function tests.matmulMatchesCpu()
  if not available then return end
  for _, tname in ipairs({ 'torch.FloatTensor', 'torch.DoubleTensor', 'torch.HalfTensor', 'torch.BFloat16Tensor' }) do
    local t = (tol[tname] or 1e-5) * 64
    local a, b = input(tname, 64 * 48, -1, 1):view(64, 48), input(tname, 48 * 32, -1, 1):view(48, 32)
    tester:assertlt(max_err(torch.mm(a, b), torch.mm(a:cuda(), b:cuda())), t, 'mm ' .. tname)
    tester:assertlt(max_err(torch.mm(a:t():contiguous():t(), b), torch.mm(a:t():contiguous():t():cuda(), b:cuda())), t, 'mm transposed a ' .. tname)
    tester:assertlt(max_err(torch.mm(b:t(), a:t()), torch.mm(b:cuda():t(), a:cuda():t())), t, 'mm transposed ' .. tname)
    local ba, bb = input(tname, 3 * 8 * 5, -1, 1):view(3, 8, 5), input(tname, 3 * 5 * 6, -1, 1):view(3, 5, 6)
    tester:assertlt(max_err(torch.bmm(ba, bb), torch.bmm(ba:cuda(), bb:cuda())), t, 'bmm ' .. tname)
    local v = input(tname, 48, -1, 1)
    tester:assertlt(max_err(torch.mv(a, v), torch.mv(a:cuda(), v:cuda())), t, 'mv ' .. tname)
    local m = input(tname, 64 * 32, -1, 1):view(64, 32)
    tester:assertlt(max_err(torch.addmm(m, a, b), torch.addmm(m:cuda(), a:cuda(), b:cuda())), t, 'addmm ' .. tname)
  end
end

function tests.copiesBetweenDevices()
  if not available then return end
  for _, tname in ipairs(dtypes) do
    local x = input(tname, 50, -5, 5)
    local g = x:cuda()
    tester:asserteq(g:device(), 'cuda:0')
    tester:assert(g:isCuda())
    tester:asserteq(g:type(), (tname:gsub('torch%.(%w-)Tensor', function(s) return s == 'Float' and 'torch.CudaTensor' or 'torch.Cuda' .. s .. 'Tensor' end)))
    local back = g:type(tname)
    tester:asserteq(back:device(), 'cpu')
    tester:assert(back:double():equal(x:double()), tname .. ' round trip')
    tester:assert(g:float():equal(x:float()), tname .. ' float()')
  end
  local c = torch.CudaTensor(2, 3):fill(4)
  tester:asserteq(c:sum(), 24)
  tester:asserteq(torch.CudaTensor({ 1, 2, 3 }):float()[3], 3)
  tester:asserteq(c.new():type(), 'torch.CudaTensor')
  tester:asserteq(torch.ones(2):to('cuda'):device(), 'cuda:0')
end

function tests.mixingDevicesIsAClearError()
  if not available then return end
  local a, b = torch.ones(3), torch.ones(3):cuda()
  tester:assertErrorPattern(function() return a + b end, '%[add%].*cpu.*cuda:0')
  tester:assertErrorPattern(function() return torch.mm(torch.ones(2, 2), torch.ones(2, 2):cuda()) end, '%[mm%].*cuda')
end

function tests.allocatorCountsAndCaches()
  if not available then return end
  collectgarbage()
  torch.cuda.emptyCache()
  local s0 = torch.cuda.memoryStats()
  local t = torch.CudaTensor(1024, 1024)
  local s1 = torch.cuda.memoryStats()
  tester:asserteq(s1.allocatedBytes - s0.allocatedBytes, 4 * 2 ^ 20)
  t:free()
  local s2 = torch.cuda.memoryStats()
  tester:asserteq(s2.allocatedBytes, s0.allocatedBytes)
  tester:assertge(s2.cachedBytes, 4 * 2 ^ 20)
  local u = torch.CudaTensor(1024, 1024)
  tester:assertgt(torch.cuda.memoryStats().cacheHits, s2.cacheHits)
  u:free()
  torch.cuda.emptyCache()
  tester:asserteq(torch.cuda.memoryStats().cachedBytes, 0)
end

function tests.outOfMemoryIsAClearError()
  if not available then return end
  local total = torch.cuda.getDeviceProperties(0).totalMemory
  local ok, err = pcall(function() return torch.CudaTensor(math.floor(total / 2)) end)  -- 2x the device
  tester:assert(not ok)
  tester:assert(tostring(err):find('out of memory') and tostring(err):find('tried to allocate'), tostring(err))
  -- The process goes on: a normal allocation still works.
  tester:asserteq(torch.CudaTensor(10):fill(1):sum(), 10)
end

function tests.philoxFillsRepeatPerSeed()
  torch.cuda.manualSeed(123)  -- works without a device too
  tester:asserteq(torch.cuda.initialSeed(), 123)
  if not available then return end
  for _, tname in ipairs({ 'torch.CudaTensor', 'torch.CudaDoubleTensor', 'torch.CudaHalfTensor' }) do
    torch.cuda.manualSeed(5)
    local a = torch[tname:sub(7)](100000):uniform(-1, 3)
    local n = torch[tname:sub(7)](100000):normal(2, 0.5)
    torch.cuda.manualSeed(5)
    local b = torch[tname:sub(7)](100000):uniform(-1, 3)
    tester:asserteq(max_err(a, b), 0, tname .. ' same seed, same values')
    tester:assertne(max_err(a, n), 0)
    local ad, nd = a:double(), n:double()
    tester:assertge(ad:min(), -1)
    -- [-1, 3) in f32/f64; a half rounds values just under 3 to 3 itself.
    if tname == 'torch.CudaHalfTensor' then tester:assertle(ad:max(), 3) else tester:assertlt(ad:max(), 3) end
    tester:assertlt(math.abs(ad:mean() - 1), 0.02, tname .. ' uniform mean')
    tester:assertlt(math.abs(nd:mean() - 2), 0.01, tname .. ' normal mean')
    tester:assertlt(math.abs(nd:std() - 0.5), 0.01, tname .. ' normal std')
  end
  -- Strided targets get the same values as contiguous ones of the same seed and size.
  torch.cuda.manualSeed(9)
  local c = torch.CudaTensor(30, 40):uniform()
  torch.cuda.manualSeed(9)
  local d = torch.CudaTensor(40, 30):t():uniform()
  tester:asserteq(max_err(c, d), 0)
end

-- Note [CUDA generator state] (lua/torch/cuda.lua): 16 bytes, seed then offset, little-endian.
function tests.generatorStateRoundTrips()
  torch.cuda.manualSeed(77)  -- the state exists without a device too
  local s = torch.cuda.getRNGState()
  tester:asserteq(torch.typename(s), 'torch.ByteTensor')
  tester:asserteq(s:nElement(), 16)
  local seed, offset = 0, 0
  for i = 8, 1, -1 do seed = seed * 256 + s[i]; offset = offset * 256 + s[i + 8] end
  tester:asserteq(seed, 77)
  tester:asserteq(offset, 0, 'a fresh seed starts at counter 0')
  local other = s:clone()
  other[1], other[9] = 5, 3  -- seed 5 (the high bytes of 77 are 0), offset 3
  torch.cuda.setRNGState(other)
  tester:asserteq(torch.cuda.initialSeed(), 5)
  tester:assertTensorEq(torch.cuda.getRNGState(), other, 0)
  torch.cuda.setRNGState(s)
  tester:assertTensorEq(torch.cuda.getRNGState(), s, 0)
  tester:asserteq(#torch.cuda.getRNGStateAll(), torch.cuda.deviceCount())
  torch.cuda.setRNGStateAll(torch.cuda.getRNGStateAll())
  tester:assertErrorPattern(function() torch.cuda.setRNGState(torch.ByteTensor(3)) end,
    '%[cuda.setRNGState%] expected the 16%-byte torch.ByteTensor')
  tester:assertErrorPattern(function() torch.cuda.setRNGState(torch.FloatTensor(16)) end, 'cuda.setRNGState')
  tester:assertErrorPattern(function() torch.cuda.getRNGState('cpu') end, '%[cuda.getRNGState%] expected a CUDA device')
  tester:assertErrorPattern(function() torch.cuda.setRNGStateAll({ s, s, s, s, s, s, s, s, s }) end,
    'cuda.setRNGStateAll')
  if not available then return end
  tester:assertErrorPattern(function() torch.cuda.getRNGState(torch.cuda.deviceCount()) end, 'does not exist')
  -- Restoring a state repeats the fills drawn after it; the stream then goes on.
  local at = torch.cuda.getRNGState()
  local a = torch.CudaTensor(1000):uniform()
  local b = torch.CudaTensor(1000):normal()
  torch.cuda.setRNGState(at)
  tester:asserteq(max_err(torch.CudaTensor(1000):uniform(), a), 0, 'uniform repeats')
  tester:asserteq(max_err(torch.CudaTensor(1000):normal(), b), 0, 'normal repeats')
  tester:assertne(max_err(torch.CudaTensor(1000):uniform(), a), 0, 'then new numbers')
end

tester:add(tests)
tester:run()
