-- CUDA ops on the fake GPU stack (Note [Fake GPU], tests/fakegpu/fake_cuda.cpp): ops that must run
-- as kernels of their own on the device, checked by their launches, library calls and copies
-- (kernels do not run there; tests/lua/test_cuda_random.lua and test_cuda_int_matmul.lua compare
-- their values on a GPU). Run by ctest as lua.fakegpu_ops with build/fakegpu first on
-- LD_LIBRARY_PATH; elsewhere it skips. tests/lua/test_fakegpu_steps.lua has the training steps.
local F = dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/../fakegpu/counters.lua')
if not F.loaded then
  print('SKIPPED: not running on the fake GPU stack (LD_LIBRARY_PATH=<build>/fakegpu)')
  return
end

local tester = torch.Tester()
local tests = {}
local count = F.count

-- Note [Device random fills], Note [Device sequences]: random fills from the default generator
-- and sequences into a CUDA tensor are one kernel on the device, nothing copied from the host
-- (they used to be computed on the CPU and copied over); a non-contiguous target adds one copy
-- kernel from a device temporary; bad arguments are still Lua errors that name the op.
function tests.randomFillsAndSequencesRunOnTheDevice()
  local floating = { 'CudaTensor', 'CudaDoubleTensor', 'CudaHalfTensor', 'CudaBFloat16Tensor' }
  local numeric = { 'CudaTensor', 'CudaDoubleTensor', 'CudaHalfTensor', 'CudaBFloat16Tensor', 'CudaLongTensor',
                    'CudaIntTensor', 'CudaByteTensor' }
  local every = { 'CudaTensor', 'CudaDoubleTensor', 'CudaHalfTensor', 'CudaBFloat16Tensor', 'CudaLongTensor',
                  'CudaIntTensor', 'CudaByteTensor', 'CudaBoolTensor' }
  local cases = {
    { 'logNormal', floating, 'dist_kernel', function(x) x:logNormal(1, 0.5) end },
    { 'exponential', floating, 'dist_kernel', function(x) x:exponential(2) end },
    { 'cauchy', floating, 'dist_kernel', function(x) x:cauchy(0, 1) end },
    { 'geometric', numeric, 'dist_kernel', function(x) x:geometric(0.3) end },
    { 'random()', every, 'random_kernel', function(x) x:random() end },
    { 'random(0, 1)', every, 'random_kernel', function(x) x:random(0, 1) end },
    { 'random(b)', numeric, 'random_kernel', function(x) x:random(100) end },
    { 'range', numeric, 'range_kernel', function(x) torch.range(x, 1, 7) end },
    { 'range (fractional step)', floating, 'range_kernel', function(x) torch.range(x, 0, 3, 0.5) end },
    { 'arange', numeric, 'range_kernel', function(x) torch.arange(x, 0, 7) end },
    { 'linspace', numeric, 'linspace_kernel', function(x) torch.linspace(x, 0, 100, 7) end },
    { 'linspace (one point)', numeric, 'linspace_kernel', function(x) torch.linspace(x, 2, 3, 1) end },
    { 'logspace', numeric, 'linspace_kernel', function(x) torch.logspace(x, 0, 2, 7) end },
  }
  for _, case in ipairs(cases) do
    local name, types, kernel, fill = case[1], case[2], case[3], case[4]
    for _, tname in ipairs(types) do
      local what = name .. ' on a ' .. tname
      local x = torch[tname](64)
      local c, trace = count(function() fill(x) end)
      tester:asserteq(c.launches, 1, what .. ':\n' .. trace)
      tester:assert(trace:find(kernel, 1, true) ~= nil, what .. ' runs ' .. kernel .. ':\n' .. trace)
      tester:asserteq(c.copies_to_device, 0, what .. ': nothing computed on the host')
      tester:asserteq(c.copies_to_host + c.syncs, 0, what .. ': no wait')
      tester:asserteq(x:type(), 'torch.' .. tname)
    end
    -- A non-contiguous target: the kernel fills a device temporary that one copy kernel scatters.
    -- (Sequences keep the target's strides when they have its size: 7 elements but for one point.)
    local sequence = kernel ~= 'dist_kernel' and kernel ~= 'random_kernel'
    local t = sequence and torch.CudaTensor(7, 2):select(2, 1) or torch.CudaTensor(8, 5):t()
    local c, trace = count(function() fill(t) end)
    local strided = not sequence or t:nElement() == 7
    tester:asserteq(c.launches, strided and 2 or 1, name .. ' into a strided tensor:\n' .. trace)
    tester:asserteq(c.copies_to_device, 0, name .. ' into a strided tensor: nothing from the host')
  end
  -- random over more than 2^32 values: two words per element, still one kernel.
  local c = count(function() torch.CudaLongTensor(10):random(-2 ^ 40, 2 ^ 40) end)
  tester:asserteq(c.launches, 1)
  tester:asserteq(c.copies_to_device, 0)
  -- Empty sequences and fills launch nothing.
  local x = torch.CudaTensor(5)
  c = count(function()
    torch.linspace(x, 0, 1, 0)
    torch.arange(x, 3, 3)
    torch.CudaTensor(0):exponential(1)
    torch.CudaLongTensor(0):random(1, 3)
  end)
  tester:asserteq(c.launches + c.copies_to_device, 0)
  tester:asserteq(x:nElement(), 0)
  -- An explicit torch.Generator keeps its CPU stream: filled on the host and copied over.
  c = count(function() torch.CudaTensor(16):exponential(torch.Generator(), 2) end)
  tester:asserteq(c.copies_to_device, 1)
  tester:asserteq(c.launches, 0)
  c = count(function() torch.CudaLongTensor(16):random(torch.Generator(), 1, 6) end)
  tester:asserteq(c.copies_to_device, 1)
  -- Bad arguments are checked before any kernel runs, with messages naming the op.
  local y = torch.CudaTensor(4)
  tester:assertErrorPattern(function() y:exponential(-1) end, '%[exponential%] lambda must be positive')
  tester:assertErrorPattern(function() y:logNormal(-1, 1) end, '%[logNormal%] mean must be positive')
  tester:assertErrorPattern(function() y:cauchy(0, -1) end, '%[cauchy%] sigma must be positive')
  tester:assertErrorPattern(function() y:geometric(1) end, '%[geometric%] probability must be in')
  tester:assertErrorPattern(function() torch.CudaBoolTensor(2):geometric(0.5) end, '%[geometric%]')
  tester:assertErrorPattern(function() torch.CudaLongTensor(2):exponential(1) end, '%[exponential%]')
  tester:assertErrorPattern(function() y:random(5, 1) end, '%[random%] expects a <= b')
  tester:assertErrorPattern(function() torch.CudaByteTensor(2):random(0, 256) end, '%[random%].*does not fit')
  tester:assertErrorPattern(function() torch.linspace(y, 0, 1, -1) end, '%[linspace%] number of points')
  tester:assertErrorPattern(function() torch.logspace(y, 0, 1, -2) end, '%[logspace%] number of points')
  tester:assertErrorPattern(function() torch.range(y, 1, 5, 0) end, '%[range%] step must be non%-zero')
  tester:assertErrorPattern(function() torch.arange(y, 5, 1) end, '%[arange%]')
  tester:assertErrorPattern(function() torch.range(torch.CudaByteTensor(), 0, 300) end, '%[range%].*do not fit')
  tester:assertErrorPattern(function() torch.range(torch.CudaBoolTensor(), 0, 1) end, '%[range%].*BoolTensor')
  c = count(function() pcall(function() y:exponential(-1) end) end)
  tester:asserteq(c.launches, 0, 'a rejected fill launches nothing')
end

-- Note [Integer matmul on CUDA] (kernels/cuda/int_matmul.cu): the matmul family on i64, i32 and u8
-- runs Tocha's own kernels (cuBLAS has no integer GEMM): every op launches them, calls no cuBLAS
-- and copies nothing to the host; a shape mismatch is still a Lua error naming the op.
function tests.integerMatmulRunsOwnKernels()
  local lib = torch._lib
  for _, name in ipairs({ 'CudaLongTensor', 'CudaIntTensor', 'CudaByteTensor' }) do
    local T = torch[name]
    local a, b = T(5, 4):zero(), T(4, 3):zero()
    local b1, b2, M3 = T(2, 5, 4):zero(), T(2, 4, 3):zero(), T(2, 5, 3):zero()
    local M, v4, v5, long = T(5, 3):zero(), T(4):zero(), T(5):zero(), T(100000):zero()
    local cases = {
      { 'mm', 'int_gemm_kernel', function() torch.mm(a, b) end },
      { 'mm (transposed operands, into a transposed result)', 'int_gemm_kernel',
        function() torch.mm(M:t(), b:t(), a:t()) end },
      { 'addmm', 'int_gemm_kernel', function() torch.addmm(2, M, 3, a, b) end },
      { 'addmm (beta 0)', 'int_gemm_kernel', function() torch.addmm(0, M, 1, a, b) end },
      { 'bmm', 'int_gemm_kernel', function() torch.bmm(b1, b2) end },
      { 'baddbmm', 'int_gemm_kernel', function() torch.baddbmm(1, M3, 2, b1, b2) end },
      { 'addbmm', 'int_gemm_kernel', function() M:addbmm(2, 3, b1, b2) end },
      { 'ger', 'int_gemm_kernel', function() torch.ger(v5, v4) end },
      { 'addr', 'int_gemm_kernel', function() torch.addr(1, a, 2, v5, v4) end },
      { 'mv', 'int_gemv_kernel', function() torch.mv(a, v4) end },
      { 'addmv', 'int_gemv_kernel', function() torch.addmv(2, v5, 3, a, v4) end },
      { 'mv (transposed matrix)', 'int_gemv_kernel', function() torch.mv(a:t(), v5) end },
      { 'dot', 'int_gemv_kernel', function() lib.wrap(lib.C.tocha_dot(v4.p, v4.p)) end },
      { 'dot (split over blocks)', 'int_gemv_finish_kernel', function() lib.wrap(lib.C.tocha_dot(long.p, long.p)) end },
    }
    for _, case in ipairs(cases) do
      local what = name .. ' ' .. case[1]
      local ok, err = pcall(case[3])
      tester:assert(ok, what .. ': ' .. tostring(err))
      local c, trace = count(case[3])
      tester:assert(c.launches >= 1, what .. ' launches kernels:\n' .. trace)
      tester:assert(trace:find('kernel tocha::cuda::' .. case[2], 1, true) ~= nil, what .. ':\n' .. trace)
      tester:asserteq(c.cublas_calls, 0, what .. ' calls no cuBLAS:\n' .. trace)
      tester:asserteq(c.copies_to_host, 0, what .. ' copies nothing to the host:\n' .. trace)
      tester:asserteq(c.syncs, 0, what .. ' does not wait for the device:\n' .. trace)
    end
    -- torch.dot returns a number (Torch7): reading it is the one copy to the host.
    local c = count(function() tester:asserteq(type(torch.dot(v4, v4)), 'number') end)
    tester:asserteq(c.copies_to_host, 1, name .. ' torch.dot reads its number once')
    tester:asserteq(c.cublas_calls, 0)
    local errors = {
      { 'mm', function() torch.mm(T(2, 3), T(4, 5)) end },
      { 'addmm', function() torch.addmm(T(3, 3), T(2, 4), T(4, 5)) end },
      { 'addmm', function() torch.addmm(0.5, M, 1, a, b) end },  -- integer tensors take integer multipliers
      { 'bmm', function() torch.bmm(T(2, 3, 4), T(3, 4, 5)) end },
      { 'baddbmm', function() torch.baddbmm(T(2, 3, 3), T(2, 3, 4), T(2, 4, 5)) end },
      { 'addbmm', function() torch.addbmm(T(3, 3), T(2, 3, 4), T(2, 5, 5)) end },
      { 'mv', function() torch.mv(T(2, 3), T(4)) end },
      { 'addmv', function() torch.addmv(T(3), T(2, 4), T(4)) end },
      { 'ger', function() torch.ger(T(2, 2), T(3)) end },
      { 'addr', function() torch.addr(T(2, 2), T(2), T(3)) end },
      { 'dot', function() torch.dot(T(3), T(4)) end },
    }
    for _, e in ipairs(errors) do
      local c2 = count(function()
        tester:assertErrorPattern(e[2], '%[' .. e[1] .. '%]', name .. ' ' .. e[1] .. ' with bad shapes')
      end)
      tester:asserteq(c2.copies_to_host, 0)
    end
  end
end

-- Note [Device randperm], Note [Device multinomial]: randperm and multinomial on CUDA tensors with
-- the default generator are device work only (they used to draw on the host and copy over):
-- randperm its key kernel, CUB's radix sort and the write kernel; multinomial one kernel whose
-- weight checks are deferred device errors, so neither copies from the host or waits. Bad
-- arguments are still Lua errors that name the op, found without a copy to the host.
function tests.randpermAndMultinomialRunOnTheDevice()
  local index_types = { 'CudaTensor', 'CudaDoubleTensor', 'CudaHalfTensor', 'CudaBFloat16Tensor', 'CudaLongTensor',
                        'CudaIntTensor', 'CudaByteTensor' }
  for _, tname in ipairs(index_types) do
    local what = 'randperm into a ' .. tname
    local x = torch[tname]()
    local c, trace = count(function() torch.randperm(x, 200) end)
    tester:assert(c.launches >= 3, what .. ': keys, sort and write kernels:\n' .. trace)
    tester:assert(trace:find('perm_keys_kernel', 1, true) ~= nil, what .. ' draws its keys on the device:\n' .. trace)
    tester:assert(trace:find('RadixSort', 1, true) ~= nil, what .. ' sorts with CUB:\n' .. trace)
    tester:assert(trace:find('perm_write_kernel', 1, true) ~= nil, what .. ' writes on the device:\n' .. trace)
    tester:asserteq(c.copies_to_device, 0, what .. ': nothing computed on the host')
    tester:asserteq(c.copies_to_host + c.syncs, 0, what .. ': no wait')
    tester:asserteq(x:type(), 'torch.' .. tname)
    tester:asserteq(x:nElement(), 200)
  end
  local c = count(function() torch.randperm(torch.CudaLongTensor(), 0) end)
  tester:asserteq(c.launches, 0, 'randperm(0) launches nothing')
  local floating = { 'CudaTensor', 'CudaDoubleTensor', 'CudaHalfTensor', 'CudaBFloat16Tensor' }
  for _, tname in ipairs(floating) do
    local p = torch[tname](4, 7):fill(1)
    for _, replacement in ipairs({ true, false }) do
      local what = 'multinomial from a ' .. tname .. (replacement and ' with' or ' without') .. ' replacement'
      local s
      local c2, trace = count(function() s = torch.multinomial(p, 5, replacement) end)
      tester:asserteq(c2.launches, 1, what .. ': one kernel:\n' .. trace)
      tester:assert(trace:find('multinomial_kernel', 1, true) ~= nil, what .. ' runs multinomial_kernel:\n' .. trace)
      tester:asserteq(c2.copies_to_device, 0, what .. ': nothing computed on the host')
      tester:asserteq(c2.copies_to_host + c2.syncs, 0, what .. ': no wait (weights checked by the kernel)')
      tester:asserteq(s:type(), 'torch.CudaLongTensor', what .. ': on the device')
      tester:assert(s:dim() == 2 and s:size(1) == 4 and s:size(2) == 5, what .. ': rows x n')
    end
  end
  c = count(function() torch.multinomial(torch.CudaTensor(0, 3), 2, true) end)
  tester:asserteq(c.launches, 0, 'multinomial from 0 rows launches nothing')
  -- Note [Device multinomial]: wide rows with replacement stay one kernel (the scan runs in
  -- chunks); without replacement past 2048 classes (the shared-memory sort's limit) the kernel
  -- declines and the host draws from a copy of the weights, into the device result.
  local wide = torch.Tensor(2, 3000):fill(1):cuda()  -- copied over: the fake runs no fill kernel
  local s
  local c3, trace3 = count(function() s = torch.multinomial(wide, 5000, true) end)
  tester:asserteq(c3.launches, 1, 'multinomial over 3000 classes with replacement: one kernel:\n' .. trace3)
  tester:asserteq(c3.copies_to_host + c3.syncs, 0, 'multinomial over 3000 classes with replacement: no wait')
  c3, trace3 = count(function() s = torch.multinomial(wide, 3) end)
  tester:assert(trace3:find('multinomial_kernel', 1, true) == nil, 'without replacement over 3000 classes: host path')
  tester:asserteq(c3.copies_to_host, 1, 'without replacement over 3000 classes: the weights copied once:\n' .. trace3)
  tester:asserteq(s:type(), 'torch.CudaLongTensor', 'without replacement over 3000 classes: a device result')
  tester:assert(s:dim() == 2 and s:size(1) == 2 and s:size(2) == 3, 'without replacement over 3000 classes: 2 x 3')
  -- An explicit torch.Generator keeps its CPU stream: drawn on the host, copied over.
  local gen = torch.Generator()
  local x = torch.CudaLongTensor()
  local c2, trace = count(function() torch.randperm(x, gen, 100) end)
  tester:asserteq(c2.copies_to_device, 1, 'randperm with a generator: drawn on the host:\n' .. trace)
  tester:assert(trace:find('perm_keys_kernel', 1, true) == nil, 'randperm with a generator: no device keys')
  local P0 = torch.Tensor(2, 3):fill(1):cuda()  -- weights copied over: the fake runs no fill kernel
  c2, trace = count(function() torch.multinomial(gen, P0, 2, true) end)
  tester:assert(trace:find('multinomial_kernel', 1, true) == nil, 'multinomial with a generator: on the host')
  local P = torch.CudaTensor(2, 3):fill(1)
  local errors = {
    { 'multinomial', function() torch.multinomial(P, 0) end },
    { 'multinomial', function() torch.multinomial(P, 4, false) end },
    { 'multinomial', function() torch.multinomial(torch.CudaTensor(2, 2, 2):fill(1), 1) end },
    { 'multinomial', function() torch.multinomial(torch.CudaLongTensor(3):fill(1), 1) end },
    { 'multinomial', function() torch.multinomial(torch.CudaTensor(2, 0), 1) end },
    { 'randperm', function() torch.randperm(torch.CudaLongTensor(), -1) end },
    { 'randperm', function() torch.randperm(torch.CudaByteTensor(), 300) end },
    { 'randperm', function() torch.randperm(torch.CudaBoolTensor(), 2) end },
  }
  for i, e in ipairs(errors) do
    local c2 = count(function()
      tester:assertErrorPattern(e[2], '%[' .. e[1] .. '%]', e[1] .. ' error case ' .. i)
    end)
    tester:asserteq(c2.copies_to_host, 0, e[1] .. ' error case ' .. i .. ': found on the host side')
  end
end

-- Note [CUDA generator state]: a fill reserves counter blocks of the device generator (the
-- offset, bytes 9-16 of the state, moves on); restoring a state moves it back, so the next fill
-- draws the same numbers (compared on a GPU by test_cuda.lua).
function tests.generatorStateFollowsFills()
  local function offset(s)
    local v = 0
    for i = 16, 9, -1 do v = v * 256 + s[i] end
    return v
  end
  torch.cuda.manualSeed(11)
  local s0 = torch.cuda.getRNGState()
  torch.CudaTensor(1000):uniform()
  local s1 = torch.cuda.getRNGState()
  tester:assertgt(offset(s1), offset(s0), 'a fill moves the counter on')
  torch.cuda.setRNGState(s0)
  tester:asserteq(offset(torch.cuda.getRNGState()), offset(s0))
  torch.CudaTensor(1000):uniform()
  tester:assertTensorEq(torch.cuda.getRNGState(), s1, 0, 'the same fill after a restore reserves the same blocks')
end

-- Note [Autocast]: CUDA's wider f32 list (PyTorch 1.13's): under autocast('cuda', 'f16') an f16
-- CUDA input of exp, log, pow, sum, prod, cumsum, logsumexp, norm, renorm, softplus, cdist,
-- cosineSimilarity and nn.functional's losses gives an f32 result, and its gradient comes back in
-- f16; ops off the list, in-place forms and CPU tensors keep their dtype. Dtypes only here (the
-- kernels do not run); test_cuda_amp.lua compares the values on a GPU.
function tests.autocastF32ListOnCuda()
  require 'nn'
  local F = nn.functional
  local x = torch.CudaHalfTensor(4, 3):fill(1)
  local y = torch.CudaHalfTensor(4, 3):fill(1)
  local f32 = {
    exp = function() return torch.exp(x) end, log1p = function() return torch.log1p(x) end,
    rsqrt = function() return torch.rsqrt(x) end, cinv = function() return torch.cinv(x) end,
    pow = function() return torch.pow(x, 2) end, powTensor = function() return torch.pow(x, y) end,
    sum = function() return torch.sum(x, 1) end, prod = function() return torch.prod(x, 2) end,
    cumsum = function() return torch.cumsum(x, 1) end, cumprod = function() return torch.cumprod(x, 2) end,
    logsumexp = function() return torch.logsumexp(x, 2) end, norm = function() return torch.norm(x, 2, 2) end,
    renorm = function() return torch.renorm(x, 2, 1, 1) end, softplus = function() return torch.softplus(x) end,
    cdist = function() return torch.cdist(x, y) end, cosine = function() return torch.cosineSimilarity(x, y) end,
    mse = function() return F.mseLoss(x, y, 'none') end, smoothL1 = function() return F.smoothL1Loss(x, y, 'none') end,
    softMargin = function() return F.softMarginLoss(x, y, 'none') end,
    marginRanking = function() return F.marginRankingLoss(x, y, y, 'none') end,
  }
  local same = {
    sin = function() return torch.sin(x) end, mean = function() return torch.mean(x, 1) end,
    add = function() return torch.add(x, y) end, relu = function() return torch.relu(x) end,
    inPlaceExp = function() return x:clone():exp() end,
  }
  torch.autocast('cuda', 'f16', function()
    for name, f in pairs(f32) do tester:asserteq(f():type(), 'torch.CudaTensor', name .. ' computes in f32') end
    for name, f in pairs(same) do tester:asserteq(f():type(), 'torch.CudaHalfTensor', name .. ' keeps f16') end
    tester:asserteq(torch.exp(torch.HalfTensor(2):fill(1)):type(), 'torch.HalfTensor', 'CPU tensors are untouched')
    tester:assertErrorPattern(function() F.binaryCrossEntropy(x, y) end, 'binaryCrossEntropy%] is unsafe to autocast')
    local xg = torch.CudaHalfTensor(4, 3):fill(1):requiresGrad()
    local l = torch.sum(torch.exp(xg), 1)
    tester:asserteq(l:type(), 'torch.CudaTensor')
    torch.sum(l):backward()
    tester:asserteq(xg.grad:type(), 'torch.CudaHalfTensor', 'the gradient comes back in the input dtype')
  end)
  tester:asserteq(torch.exp(x):type(), 'torch.CudaHalfTensor', 'outside the region exp keeps f16')
  tester:asserteq(F.binaryCrossEntropy(torch.CudaTensor(2):fill(0.5), torch.CudaTensor(2):fill(1), 'none'):type(),
    'torch.CudaTensor', 'binaryCrossEntropy outside autocast')
end

tester:add(tests)
tester:run()
