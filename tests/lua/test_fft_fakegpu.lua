-- torch.fft's CUDA path on the fake GPU stack (Note [Fake GPU], tests/fakegpu/fake_cuda.cpp): the
-- fake cuFFT (tests/fakegpu/fake_cufft.cpp) computes each transform with a naive DFT on the fake
-- device memory, so the plan cache, work areas, exec arguments and result layout of
-- kernels/cuda/fft.cpp are checked against the CPU (FFTW). The fake runs no kernels and no copies
-- on the device, so the cases avoid them: contiguous inputs, transforms along their last dims,
-- norms that scale by 1 (for forward transforms 'backward', for inverse ones 'forward'); c2r
-- (irfft) works on a device copy of its input (cuFFT overwrites it), so it is checked for its size
-- and library calls only. Run by ctest as lua.fakegpu_fft
-- with build/fakegpu first on LD_LIBRARY_PATH; elsewhere it skips. tests/lua/test_fft.lua
-- compares a real GPU with the CPU.
local FG = dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/../fakegpu/counters.lua')
if not FG.loaded then
  print('SKIPPED: not running on the fake GPU stack (LD_LIBRARY_PATH=<build>/fakegpu)')
  return
end

local tester = torch.Tester()
local tests = torch.TestSuite()
local F = torch.fft

local function gen(sizes, seed, tname)
  local t = torch.DoubleTensor(torch.LongStorage(sizes))
  local flat = t:view(-1)
  for L = 0, t:nElement() - 1 do flat[L + 1] = math.sin(0.37 * L + seed) + 0.3 * math.cos(1.3 * L) end
  return t:type(tname)
end

-- The CPU result and the fake device's, copied back (copies do run on the fake).
local function both(f, x)
  return f(x), f(x:cuda()):type(x:type())
end

function tests.transformsMatchTheCpu()
  for _, tname in ipairs({ 'torch.DoubleTensor', 'torch.FloatTensor' }) do
    local tol = tname == 'torch.FloatTensor' and 1e-4 or 1e-10
    local cases = {
      { 'fft 7', function(z) return F.fft(z) end, gen({ 3, 7, 2 }, 1, tname) },
      { 'ifft 6', function(z) return F.ifft(z, nil, nil, 'forward') end, gen({ 2, 6, 2 }, 2, tname) },
      { 'rfft 9', function(x) return F.rfft(x) end, gen({ 4, 9 }, 3, tname) },
      { 'fft2', function(z) return F.fft2(z) end, gen({ 2, 3, 5, 2 }, 6, tname) },
      { 'fftn 3 dims', function(z) return F.fftn(z) end, gen({ 3, 4, 2, 2 }, 7, tname) },
      { 'rfftn', function(x) return F.rfftn(x) end, gen({ 3, 4, 6 }, 8, tname) },
    }
    for _, c in ipairs(cases) do
      local cpu, dev = both(c[2], c[3])
      tester:eq(dev, cpu, tol, c[1] .. ' ' .. tname)
    end
  end
end

-- cuFFT reads its input as complex elements: a view starting at an odd real offset is copied
-- on the device first (the fake cuFFT refuses a misaligned input, where the real one faults; the
-- fake does not carry out device copies, so only the calls are checked)
function tests.viewsAtAnOddOffsetAreCopied()
  for _, tname in ipairs({ 'torch.DoubleTensor', 'torch.FloatTensor' }) do
    local x = gen({ 25 }, 1, tname):cuda()
    local cases = {
      { 'rfft', function() return F.rfft(x:narrow(1, 2, 24):view(3, 8)) end, { 3, 5, 2 } },
      { 'fft', function() return F.fft(x:narrow(1, 2, 24):view(3, 4, 2)) end, { 3, 4, 2 } },
    }
    for _, case in ipairs(cases) do
      local ok, y
      local c, trace = FG.count(function() ok, y = pcall(case[2]) end)
      tester:assert(ok, case[1] .. ' of an odd offset ' .. tname .. ': ' .. tostring(y))
      local _, execs = trace:gsub('cufft exec', '')
      tester:eq(execs, 1, case[1] .. ' exec calls')
      tester:eq(c.copies_on_device, 1, case[1] .. ' copies its input on the device')
      if ok then tester:eq(y:size():totable(), case[3], case[1] .. ' size') end
    end
  end
end

function tests.oneLibraryCallPerTransform()
  local x = gen({ 4, 16 }, 1, 'torch.FloatTensor'):cuda()
  F.rfft(x)  -- makes the plan
  -- a cached plan: three transforms are three exec calls and no kernel (contiguous input, no
  -- scale); each takes its work area from the caching allocator, which the first call filled
  local c, trace = FG.count(function() for _ = 1, 3 do F.rfft(x) end end)
  local _, execs = trace:gsub('cufft exec', '')
  tester:eq(execs, 3, 'exec calls')
  tester:eq(c.launches, 0, 'kernel launches')
  tester:eq(c.device_mallocs, 0, 'cudaMalloc calls: the work areas come from the caching allocator')
  tester:eq(c.syncs, 0, 'the host never waits')
  tester:eq(F.rfft(x):float(), F.rfft(x:float()), 1e-4, 'repeated calls give the same values')
  -- irfft: one device copy of the input (cuFFT's C2R overwrites it), one exec, the real size
  local z = F.rfft(x)
  local y
  c, trace = FG.count(function() y = F.irfft(z, 16, nil, 'forward') end)
  _, execs = trace:gsub('cufft exec', '')
  tester:eq(execs, 1, 'irfft exec calls')
  tester:eq(c.copies_on_device, 1, 'irfft copies its input on the device')
  tester:eq(y:size():totable(), { 4, 16 }, 'irfft size')
  tester:eq(F.irfftn(F.rfftn(x), nil, nil, 'forward'):size():totable(), { 4, 16 }, 'irfftn size')
end

tester:add(tests)
tester:run()
