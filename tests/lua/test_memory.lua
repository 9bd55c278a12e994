-- Memory behaviour: tensor memory is accounted, the GC-pressure flag keeps peak memory bounded when
-- a loop drops gigabytes of temporaries (DESIGN.md decision 9), t:free() releases at once, and a
-- long forward+backward loop keeps memory flat (issue 3).
local tester = torch.Tester()
local tests = torch.TestSuite()

local function rss_kb(field)
  local f = io.open('/proc/self/status')
  if not f then return nil end
  local text = f:read('*a')
  f:close()
  return tonumber(text:match(field .. ':%s*(%d+)'))
end

function tests.accountingFollowsTensors()
  collectgarbage()
  local before = torch.memoryStats().liveBytes
  local t = torch.DoubleTensor(1000)
  tester:asserteq(torch.memoryStats().liveBytes - before, 8000)
  t:free()
  tester:asserteq(torch.memoryStats().liveBytes, before)
end

function tests.resetPeakStartsFromLiveBytes()
  collectgarbage()
  local big = torch.DoubleTensor(100000)
  big:free()
  tester:assertge(torch.memoryStats().peakBytes, torch.memoryStats().liveBytes + 800000)
  torch.resetPeakMemoryStats()
  local s = torch.memoryStats()
  tester:asserteq(s.peakBytes, s.liveBytes)
  local t = torch.DoubleTensor(1000)
  tester:asserteq(torch.memoryStats().peakBytes, s.liveBytes + 8000, 'the peak counts from the reset')
  t:free()
  torch.resetPeakMemoryStats('cuda')  -- the device counters exist without a device
  tester:assertErrorPattern(function() torch.resetPeakMemoryStats('gpu') end, "%[resetPeakMemoryStats%] expected 'cpu' or 'cuda'")
end

-- 50 GiB of 4 MiB temporaries: without the pressure flag Lua's GC would see only tiny handles and
-- keep every tensor alive.
function tests.temporariesDoNotPileUp()
  collectgarbage()
  local start = torch.memoryStats()
  local total, chunk = 50 * 2 ^ 30, 2 ^ 20  -- floats per temporary (4 MiB)
  local x = torch.FloatTensor(chunk):fill(1)
  for _ = 1, total / (4 * chunk) do
    local y = x + 1  -- a new 4 MiB tensor, dropped at once
    y = nil
  end
  local stats = torch.memoryStats()
  local peak = stats.peakBytes
  -- (Lua's incremental steps, one per MiB of CPU tensors, may free them before the flag is raised:
  -- Note [CPU-tensor GC steps], Note [Pressure is growth].)
  -- The threshold is max(256 MiB, live): peak stays within a small multiple of it.
  tester:assertlt(peak, 1.5 * 2 ^ 30, 'peak tensor bytes ' .. peak)
  local hwm = rss_kb('VmHWM')
  if hwm then tester:assertlt(hwm * 1024, 2 * 2 ^ 30, 'peak RSS ' .. hwm .. ' kB') end
end

-- Note [Pressure is growth]: the flag follows the growth of live bytes since the last collection,
-- so tensors held by Lua raise it and memory freed at once does not, however much is allocated.
function tests.theFlagFollowsGrowthNotAllocation()
  local threshold = torch.getGCThreshold()
  torch.setGCThreshold(8 * 2 ^ 20)
  collectgarbage()
  local start = torch.memoryStats().gcRequests
  local x = torch.randn(2048, 2048)
  for _ = 1, 20 do  -- each call: a 16 MiB temporary freed inside the op, a 0.5 MiB result
    local d = torch.cdist(x:narrow(1, 1, 64), x)
  end
  local freed = torch.memoryStats().gcRequests - start
  local keep = {}
  for i = 1, 4 do keep[i] = torch.FloatTensor(2 ^ 22) end  -- 64 MiB held
  local held = torch.memoryStats().gcRequests - start - freed
  torch.setGCThreshold(threshold)
  -- (20 x 0.5 MiB of dead results may raise it once; counting the temporaries would raise it 20 times)
  tester:assertle(freed, 2, '20 x 16 MiB of temporaries freed at once raised the flag ' .. freed .. ' times')
  tester:assertge(held, 1, '64 MiB held past an 8 MiB threshold did not raise the flag')
  keep = nil
  collectgarbage()
end

-- Frees of memory from before the last collection (here by a plain collectgarbage(), as by Lua's
-- incremental steps) do not postpone the next one: the growth counts from the lowest point.
function tests.freesBeforeTheLastCollectionDoNotPostponeTheNext()
  local threshold = torch.getGCThreshold()
  torch.setGCThreshold(8 * 2 ^ 20)
  torch._lib.collect()  -- the pressure flag's own collection: the baseline is what lives now
  local keep = {}
  for i = 1, 16 do keep[i] = torch.FloatTensor(2 ^ 20) end  -- 64 MiB held: collections run
  keep = nil
  collectgarbage()  -- frees them without the pressure flag's collection
  local start = torch.memoryStats().gcRequests
  local again = {}
  for i = 1, 20 do again[i] = torch.FloatTensor(2 ^ 20) end  -- 80 MiB: past max(8 MiB, ~64 MiB)
  local raised = torch.memoryStats().gcRequests - start
  torch.setGCThreshold(threshold)
  again = nil
  collectgarbage()
  tester:assertge(raised, 1, '80 MiB of growth after 64 MiB were freed did not raise the flag')
end

-- A small MLP trained by autograd for many steps: saved tensors are freed by backward and the graph
-- is released, so memory stays flat.
function tests.trainingLoopKeepsMemoryFlat()
  torch.manualSeed(1)
  local w1 = torch.randn(8, 16):requiresGrad()
  local w2 = torch.randn(16, 1):requiresGrad()
  local x = torch.randn(4, 8)
  local steps = tonumber(os.getenv('TOCHA_MEMORY_STEPS') or '100000')
  local function step()
    local h = torch.mm(x, w1):relu()
    local loss = torch.mm(h, w2):pow(2):mean()
    loss:backward()
    w1:add(-1e-4, w1.grad)
    w2:add(-1e-4, w2.grad)
    w1.grad:zero()
    w2.grad:zero()
  end
  for _ = 1, 1000 do step() end
  collectgarbage()
  local live0, rss0 = torch.memoryStats().liveBytes, rss_kb('VmRSS')
  for _ = 1, steps do step() end
  collectgarbage()
  local live1, rss1 = torch.memoryStats().liveBytes, rss_kb('VmRSS')
  tester:assertle(live1, live0 + 4096, 'live tensor bytes grew from ' .. live0 .. ' to ' .. live1)
  if rss0 then tester:assertlt(rss1 - rss0, 64 * 1024, 'RSS grew by ' .. (rss1 - rss0) .. ' kB') end
end

-- Note [Coarse nodes hold no outputs] (lua/nn/Module.lua): a Torch7 module run in autograd style
-- records a node whose outputs carry it as history; forward-only steps that replace m.output
-- (clearState, a table output rebuilt each call) must not keep the old outputs alive.
function tests.moduleNodesDoNotKeepReplacedOutputs()
  require 'nn'
  local lin = nn.Linear(64, 64)
  local cat = nn.ConcatTable():add(nn.Linear(64, 8)):add(nn.Linear(64, 8))
  for _, m in ipairs({ lin, cat }) do
    for _, p in ipairs(m:parameters()) do p:requiresGrad() end
  end
  local x = torch.randn(32, 64)
  local function step()
    lin:forward(x)
    lin:clearState()
    cat:forward(x)
    cat:clearState()
  end
  for _ = 1, 20 do step() end
  for _ = 1, 3 do collectgarbage() end
  local live0 = torch.memoryStats().liveBytes
  for _ = 1, 200 do step() end
  -- three collections: the dead outputs' nodes free their entries (Note [Draining at each
  -- collection]), which a later collection frees with the output values a snapshot keeps (Note
  -- [A module used again before its backward]: forward-only steps give each call a new output)
  for _ = 1, 3 do collectgarbage() end
  local live1 = torch.memoryStats().liveBytes
  tester:assertle(live1, live0 + 4096, 'live tensor bytes grew from ' .. live0 .. ' to ' .. live1)
end

-- Sanitizer builds (`make test-asan`, TOCHA_SANITIZE set by tests/sanitize/env.cmake): ASan keeps
-- freed blocks in a 256 MiB quarantine and adds shadow memory, so RSS bounds mean nothing there,
-- and 50 GiB of temporaries or 100k training steps run past the test timeout (they took over
-- 15 minutes). The accounting test still runs; the RSS-bound ones are skipped, saying why.
if os.getenv('TOCHA_SANITIZE') then
  print('sanitizer build: skipping temporariesDoNotPileUp and trainingLoopKeepsMemoryFlat '
    .. '(RSS bounds do not hold under ASan\'s quarantine and the loops are too slow under it)')
  tester:disable({ 'temporariesDoNotPileUp', 'trainingLoopKeepsMemoryFlat' })
end

tester:add(tests)
tester:run()
