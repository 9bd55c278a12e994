-- Thousands of random calls with bad (and some good) arguments through the whole torch API: each
-- must return or raise a Lua error with a message; the process must never crash (DESIGN.md
-- decision 8). The seed is fixed so a failure reproduces; TOCHA_FUZZ_SEED and TOCHA_FUZZ_CALLS
-- explore further.
local ffi = require 'ffi'
local tester = torch.Tester()

-- Some functions write files named by their string arguments: run in a scratch directory.
pcall(ffi.cdef, 'int chdir(const char *path);')
local scratch = os.getenv('TOCHA_TEST_TMP') or '/tmp'
assert(ffi.C.chdir(scratch) == 0, 'cannot enter ' .. scratch)
local tests = torch.TestSuite()

-- Under the sanitizers the fake GPU stack cannot run this suite: its kernels never run, so a CUDA
-- bool tensor read back holds whatever bytes its memory had, which UBSan's bool check stops on.
if os.getenv('TOCHA_FUZZ_CUDA') == '1' and os.getenv('TOCHA_SANITIZE') == '1' and
    (os.getenv('LD_LIBRARY_PATH') or ''):find('fakegpu') then
  print('SKIPPED: the CUDA fuzz on the fake GPU stack reads meaningless device bools, which UBSan rejects')
  return
end

local seed = tonumber(os.getenv('TOCHA_FUZZ_SEED') or '1234')
local ncalls = tonumber(os.getenv('TOCHA_FUZZ_CALLS') or '6000')

-- Functions with process-wide side effects or unbounded cost are left out.
local skip = {
  setnumthreads = true, setdefaulttensortype = true, setGCThreshold = true, setGradEnabled = true,
  include = true, setenv = true, getenv = true, class = true, factory = true, setmetatable = true,
  save = true, load = true, Tester = true, TestSuite = true, CmdLine = true, setheaptracking = true,
  updateerrorhandlers = true, manualSeed = false, randperm = false, serialize = true, deserialize = true,
  packageLuaPath = true, DiskFile = true, MemoryFile = true, PipeFile = true, loadSafetensors = true,
  saveSafetensors = true, detectAnomaly = true, setDetectAnomaly = true, noGrad = false, enableGrad = false,
  setNumThreads = true, setDefaultDtype = true, setPrintoptions = true, frombuffer = true, emptyStrided = true,
}

local rng = torch.Generator()
torch.manualSeed(rng, seed)
local function pick(list) return list[torch.random(rng, 1, #list)] end

local function values()
  local freed = torch.FloatTensor(2)
  freed:free()
  local x = torch.DoubleTensor({ { 1, 2, 3 }, { 4, 5, 6 } })
  local pool = {
    torch.FloatTensor({ 1, 2, 3 }), x, x:t(), x:narrow(2, 2, 2), torch.LongTensor({ 1, 2, 0 }),
    torch.LongTensor({ 3, -1, 99 }), torch.ByteTensor({ 1, 0, 1 }), torch.BoolTensor({ true, false }),
    torch.IntTensor(2, 2):fill(7), torch.HalfTensor({ 1.5 }), torch.BFloat16Tensor(2, 1), torch.Tensor(),
    torch.DoubleTensor(0, 3), torch.FloatTensor(2, 3, 4), torch.FloatTensor(1):expand(5),
    torch.DoubleTensor({ 1 }):view(1, 1, 1), freed, torch.FloatTensor({ 0 / 0, 1 / 0 }),
    torch.DoubleTensor({ { 1, 0 }, { 0, 0 } }), torch.DoubleTensor({ 1 }):requiresGrad(),
    torch.DoubleTensor({ 2, 3 }):requiresGrad() * 2, torch.FloatStorage(3), torch.LongStorage({ 2, 2 }),
    0, 1, 2, 3, -1, -2, 0.5, -0.5, 1e300, -1e300, 0 / 0, 1 / 0, -1 / 0, 2 ^ 62, -2 ^ 62, 1e-300, 4096,
    'abc', '', 'torch.FloatTensor', true, false, {}, { 1, 2 }, { { 1 }, { 2, 3 } }, { 'x' }, { {} },
    function() return 1 end, function() error('boom') end, torch.Generator(), setmetatable({}, {}),
  }
  -- TOCHA_FUZZ_CUDA=1 (ctest lua.fuzz_cuda, on the fake GPU stack where there is no GPU): CUDA
  -- tensors join the pool, so calls mix devices and reach the CUDA ops' host paths.
  if os.getenv('TOCHA_FUZZ_CUDA') == '1' and torch.cuda.isAvailable() then
    for _, t in ipairs({ torch.FloatTensor({ 1, 2, 3 }), x, torch.LongTensor({ 1, 2, 0 }), torch.ByteTensor({ 1, 0, 1 }),
                         torch.FloatTensor(2, 3, 4), torch.DoubleTensor(0, 3), torch.HalfTensor({ 1.5 }) }) do
      pool[#pool + 1] = t:cuda()
    end
    pool[#pool + 1] = x:cuda():t()
    pool[#pool + 1] = torch.FloatTensor({ 1 }):cuda():expand(4)
    pool[#pool + 1] = torch.FloatTensor({ 2, 3 }):cuda():requiresGrad()
  end
  return pool
end

local function callables()
  local list = {}
  for name, f in pairs(torch) do
    if type(f) == 'function' and not skip[name] and not name:match('^_') then list[#list + 1] = { 'torch.' .. name, f } end
  end
  for name, f in pairs(torch._tensor_methods) do
    if type(f) == 'function' and not skip[name] and not name:match('^_') then
      list[#list + 1] = { 't:' .. name, f, true }
    end
  end
  for name, f in pairs(torch.autograd) do
    if type(f) == 'function' and not skip[name] then list[#list + 1] = { 'torch.autograd.' .. name, f } end
  end
  table.sort(list, function(a, b) return a[1] < b[1] end)
  return list
end

function tests.randomBadCallsNeverCrash()
  local list = callables()
  local pool = values()
  local tensors = {}
  for _, v in ipairs(pool) do if torch.isTensor(v) then tensors[#tensors + 1] = v end end
  local errors, returns = 0, 0
  for i = 1, ncalls do
    local entry = pick(list)
    local args = {}
    local n = torch.random(rng, 0, 4)
    if entry[3] then args[1] = pick(tensors) end  -- a method gets a tensor as self
    for k = #args + 1, #args + n do args[k] = pick(pool) end
    if os.getenv('TOCHA_FUZZ_TRACE') then
      local desc = {}
      for k = 1, table.maxn(args) do
        local a = args[k]
        desc[k] = torch.type(a) .. (torch.isTensor(a) and ('[' .. table.concat(a:size():totable(), 'x') .. ']') or '')
      end
      io.stderr:write(i, ' ', entry[1], '(', table.concat(desc, ', '), ')\n')
      io.stderr:flush()
    end
    local ok, err = pcall(entry[2], unpack(args, 1, table.maxn(args)))
    if ok then
      returns = returns + 1
    else
      errors = errors + 1
      if type(err) ~= 'string' or #err == 0 then
        tester:assert(false, string.format('call %d %s raised a non-string error (%s)', i, entry[1], tostring(err)))
      end
    end
    if i % 500 == 0 then pool = values() collectgarbage() end  -- fresh inputs (some were modified)
  end
  tester:assert(errors > ncalls / 10, 'most calls should fail: ' .. errors .. ' errors')
  tester:assert(returns > 0, 'some calls succeed')
  print(string.format('\n  %d calls over %d functions: %d errors, %d returns', ncalls, #list, errors, returns))
end

-- Values at the ends of int64 that the fuzzer met (the sanitizer build reported each as signed
-- overflow): each is an error naming the op, or a correct result.
function tests.extremeSizesAndIndicesAreHandled()
  tester:assertErrorPattern(function() return torch.diag(torch.Tensor(3), -2 ^ 63) end, '%[diag%] diagonal')
  tester:asserteq(torch.diag(torch.Tensor(3, 3), -2 ^ 63):nElement(), 0, 'a diagonal past the matrix is empty')
  tester:assertErrorPattern(function() return torch.nllLoss(torch.randn(2, 3), torch.LongTensor({ 1, -2 ^ 63 })) end,
    '%[nllLoss%] target %-9223372036854775808 %(sample 2%) is out of range')
  tester:assertErrorPattern(function() return torch.Tensor(4):view(2 ^ 62, 2 ^ 62, -1) end, '%[view%] cannot view')
  tester:asserteq(torch.randn(0, 3, 2 ^ 62):nElement(), 0, 'an empty tensor with a huge dim')
  tester:assertErrorPattern(function() return torch.Tensor(1):expand(2 ^ 40, 2 ^ 40) end, 'too many elements')
end

function tests.errorMessagesNameTheOpAndTheUserLine()
  local ok, err = pcall(function() return torch.mm(torch.Tensor(2, 3), torch.Tensor(4, 5)) end)
  tester:assert(not ok)
  tester:assertErrorPattern(function() error(err, 0) end, '^[^:]*test_fuzz%.lua:%d+: %[mm%] a is 2x3 but b is 4x5')
  tester:assertErrorPattern(function() return torch.Tensor(2):narrow(1, 2, 5) end, '^[^:]*test_fuzz%.lua:%d+: %[narrow%]')
  tester:assertErrorPattern(function() return torch.add(torch.Tensor(2), 'x') end, '^[^:]*test_fuzz%.lua:%d+: %[add%]')
end

tester:add(tests)
tester:run()
