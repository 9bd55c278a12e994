-- torch.profiler (lua/torch/profiler.lua, profiler_report.lua): exact call counts of known
-- scripts, nesting and self/total times, nn module events, recorded shapes, keyAverages and the
-- formatted table, the Chrome trace, restoring every wrapped function (after errors too), start/
-- stop and option errors, and syncCuda on a GPU when there is one.
require 'torch.profiler'
require 'nn'
local J = require 'torch.safetensors_json'
local profiler = torch.profiler
local tester = torch.Tester()
local tests = torch.TestSuite()

local EPS = 1e-6  -- microseconds: sums of doubles of a few thousand us

local function rows_by_name(prof, opts)
  local r = {}
  for _, row in ipairs(prof:keyAverages(opts)) do r[row.name] = row end
  return r
end
local function count(prof, name)
  local row = rows_by_name(prof)[name]
  return row and row.count or 0
end

-- Every function reachable where the profiler installs wrappers, by location.
local function snapshot()
  local s = {}
  local function grab(prefix, t)
    for k, v in pairs(t) do if type(v) == 'function' then s[prefix .. tostring(k)] = v end end
  end
  grab('torch.', torch)
  grab('torch.linalg.', torch.linalg)
  grab('Tensor.', torch._tensor_methods)
  grab('mt.', torch._tensor_mt)
  grab('F.', nn.functional)
  for name, mt in pairs(torch._metatables) do grab(name .. ':', mt) end
  return s
end
local function assert_same(before, what)
  local after, changed, n = snapshot(), {}, 0
  for k, v in pairs(before) do
    n = n + 1
    if after[k] ~= v then changed[#changed + 1] = k end
  end
  for k in pairs(after) do if before[k] == nil then changed[#changed + 1] = k .. ' (new)' end end
  tester:assertgt(n, 1000, 'the snapshot covers the wrapped tables')
  tester:asserteq(#changed, 0, what .. ': changed ' .. table.concat(changed, ', ', 1, math.min(#changed, 10)))
end

function tests.countsOfAKnownScript()
  local a, b = torch.randn(3, 4), torch.randn(4, 2)
  local function script()
    local c = torch.add(a, 1)
    c = torch.add(c, a)
    c = torch.add(c, 2, a)
    local d = torch.mm(a, b)
    local e = torch.mm(c, b)
    return torch.sum(d) + torch.sum(e)
  end
  local expected = script()
  local prof, res = profiler.profile(script)
  tester:asserteq(res, expected, 'fn results come back unchanged')
  tester:asserteq(count(prof, 'torch.add'), 3)
  tester:asserteq(count(prof, 'torch.mm'), 2)
  tester:asserteq(count(prof, 'torch.sum'), 2)
  tester:asserteq(#prof:events(), 7, 'nothing else was recorded')
  -- A loop compiled by the JIT before profiling still reaches the wrappers (Note [Profiler and
  -- the JIT]): operators included.
  local x = torch.ones(2)
  local function loop(n) for _ = 1, n do local y = x + x; y = x:mul(2) end end
  loop(2000)
  prof = profiler.profile(loop, 500)
  tester:asserteq(count(prof, 'Tensor.__add'), 500)
  tester:asserteq(count(prof, 'torch.add'), 500, 'the + operator calls torch.add')
  tester:asserteq(count(prof, 'Tensor.mul'), 500)
  tester:asserteq(#prof:events(), 1500)
end

function tests.nestingSelfAndTotal()
  local a = torch.randn(50, 50)
  local prof = profiler.profile(function() return a * a + a end)
  local ev = prof:events()
  local names = {}
  for i, e in ipairs(ev) do names[i] = e.name end
  tester:asserteq(table.concat(names, ' '), 'Tensor.__mul torch.mm Tensor.__add torch.add')
  tester:asserteq(ev[2].parent, 1)
  tester:asserteq(ev[4].parent, 3)
  tester:asserteq(ev[1].parent, nil)
  tester:asserteq(ev[1].depth, 0)
  tester:asserteq(ev[2].depth, 1)
  for _, p in ipairs({ 1, 3 }) do
    local parent, child = ev[p], ev[p + 1]
    tester:assertlt(parent.selfTime, parent.totalTime, parent.name .. ': self < total')
    tester:assertge(parent.totalTime, child.totalTime)
    tester:assertalmosteq(parent.totalTime - parent.selfTime, child.totalTime, EPS, 'self = total - children')
    tester:assertge(child.start, parent.start)
    tester:assertle(child.start + child.totalTime, parent.start + parent.totalTime + EPS)
    tester:asserteq(child.selfTime, child.totalTime, 'a leaf has self = total')
  end
end

function tests.moduleEvents()
  torch.manualSeed(3)
  local m = nn.Sequential():add(nn.Linear(3, 2)):add(nn.Tanh())
  local x, g = torch.randn(4, 3), torch.randn(4, 2)
  local y0 = m:forward(x):clone()
  m:zeroGradParameters()
  local gi0 = m:backward(x, g):clone()
  m:zeroGradParameters()
  local prof = profiler.profile(function()
    m:forward(x)
    m:backward(x, g)
  end)
  tester:assertTensorEq(m.output, y0, 0, 'profiling does not change the forward')
  tester:assertTensorEq(m.gradInput, gi0, 0, 'nor the backward')
  local rows = rows_by_name(prof)
  for _, name in ipairs({ 'nn.Sequential.forward', 'nn.Sequential.updateOutput', 'nn.Sequential.backward',
                          'nn.Linear.forward', 'nn.Linear.updateOutput', 'nn.Linear.backward',
                          'nn.Linear.updateGradInput', 'nn.Linear.accGradParameters',
                          'nn.Tanh.forward', 'nn.Tanh.updateOutput', 'nn.Tanh.backward', 'nn.Tanh.updateGradInput' }) do
    tester:asserteq(rows[name] and rows[name].count, 1, name)
    tester:asserteq(rows[name] and rows[name].kind, 'module', name)
  end
  tester:asserteq(rows['nn.Module.forward'], nil, 'events carry the class of the instance')
  tester:asserteq(rows['torch.tanh'].kind, 'op')
  -- the Linear's forward happens inside the Sequential's, its addmm inside the Linear's
  local ev = prof:events()
  local function ancestor_names(i)
    local s = {}
    local p = ev[i].parent
    while p do s[ev[p].name] = true; p = ev[p].parent end
    return s
  end
  for i, e in ipairs(ev) do
    if e.name == 'torch.addmm' then
      local anc = ancestor_names(i)
      tester:assert(anc['nn.Linear.updateOutput'] and anc['nn.Sequential.forward'], 'addmm nests in Linear and Sequential')
    end
  end
  -- Note [Profiler wrapper identity]: inherited methods stay the same function while wrapped
  local orig_forward = nn.Module.forward
  local _, s2, w2, o2 = profiler.profile(function()
    return nn.Linear.forward == nn.Tanh.forward, nn.Module.forward ~= orig_forward,
           nn.Linear.updateOutput ~= nn.Module.updateOutput
  end)
  tester:assert(s2 and w2 and o2, 'one wrapper per original function')
  local prof2 = profiler.profile({ modules = false }, function() m:forward(x) end)
  for _, e in ipairs(prof2:events()) do tester:asserteq(e.kind, 'op', 'modules = false records no module') end
  tester:asserteq(count(prof2, 'torch.tanh'), 1)
end

function tests.timesAreConsistent()
  local a = torch.randn(64, 64)
  local m = nn.Linear(64, 8)
  local t0 = torch.tic()
  local prof = profiler.profile(function()
    for _ = 1, 5 do m:forward(torch.mm(a, a):add(1)) end
  end)
  local wall = torch.toc(t0) * 1e6
  local self_sum, top_sum = 0, 0
  local ev = prof:events()
  local children = {}
  for i, e in ipairs(ev) do
    tester:assertge(e.selfTime, 0, e.name)
    tester:assertge(e.start, 0, e.name)
    tester:assertle(e.selfTime, e.totalTime + EPS, e.name)
    self_sum = self_sum + e.selfTime
    if e.parent then children[e.parent] = (children[e.parent] or 0) + e.totalTime
    else top_sum = top_sum + e.totalTime end
    if i > 1 then tester:assertge(e.start, ev[i - 1].start, 'events are in start order') end
  end
  for i, e in ipairs(ev) do
    tester:assertalmosteq(e.totalTime - e.selfTime, children[i] or 0, EPS, e.name .. ': self = total - children')
  end
  tester:assertalmosteq(self_sum, top_sum, EPS, 'self times add up to the top-level totals')
  tester:assertle(self_sum, prof:totalTime())
  tester:assertle(prof:totalTime(), wall, 'the profiled region lies inside the measured one')
  local avg = prof:keyAverages()
  local s = 0
  for _, r in ipairs(avg) do
    s = s + r.selfTime
    tester:assertalmosteq(r.mean, r.totalTime / r.count, EPS)
  end
  tester:assertalmosteq(s, self_sum, EPS)
end

function tests.recordShapes()
  local a, b, c = torch.randn(4, 5), torch.randn(5, 3), torch.randn(2, 5)
  local function fn() torch.mm(a, b); torch.mm(c, b); torch.mm(a, b); a:add(c:sum()) end
  local plain = profiler.profile(fn)
  tester:asserteq(plain:events()[1].shapes, nil, 'no shapes unless asked')
  local prof = profiler.profile({ recordShapes = true }, fn)
  local ev = prof:events()
  tester:assertTableEq(ev[1].shapes, { { 4, 5 }, { 5, 3 } })
  tester:assertTableEq(ev[2].shapes, { { 2, 5 }, { 5, 3 } })
  tester:assertTableEq(ev[4].shapes, { { 2, 5 } }, 'a method records self')
  tester:asserteq(ev[5].name, 'Tensor.add')
  tester:assertTableEq(ev[5].shapes, { { 4, 5 }, {} }, 'a number argument is {}')
  local grouped = prof:keyAverages({ groupByShape = true, sortBy = 'count' })
  tester:asserteq(grouped[1].name, 'torch.mm')
  tester:asserteq(grouped[1].shapes, '[[4, 5], [5, 3]]')
  tester:asserteq(grouped[1].count, 2)
  local found = false
  for _, r in ipairs(grouped) do
    if r.name == 'torch.mm' and r.shapes == '[[2, 5], [5, 3]]' then found = r.count == 1 end
  end
  tester:assert(found, 'the other shape is its own row')
  -- module inputs: a table input gives the sizes of its elements
  local m = nn.CAddTable()
  prof = profiler.profile({ recordShapes = true }, function() m:forward({ a, a }) end)
  tester:assertTableEq(prof:events()[1].shapes, { { { 4, 5 }, { 4, 5 } } })
  tester:assertErrorPattern(function() plain:keyAverages({ groupByShape = true }) end, 'recordShapes')
end

-- Splits the table's body rows into cells (columns are separated by two or more spaces).
local function parse_table(s)
  local lines = {}
  for line in s:gmatch('[^\n]+') do lines[#lines + 1] = line end
  local rows = {}
  for i = 4, #lines - 2 do
    local cells = {}
    for cell in (lines[i] .. '  '):gmatch('(%S.-)%s%s+') do cells[#cells + 1] = cell end
    rows[#rows + 1] = cells
  end
  return rows, lines
end
local function to_us(s)
  local v, unit = s:match('^([%d.]+)(%a+)$')
  return tonumber(v) * ({ us = 1, ms = 1e3, s = 1e6 })[unit]
end

function tests.tableAndKeyAverages()
  local a = torch.randn(30, 30)
  local prof = profiler.profile(function()
    for _ = 1, 4 do torch.add(a, 1) end
    for _ = 1, 3 do torch.mm(a, a) end
    torch.exp(a)
    torch.sum(a)
  end)
  for _, key in ipairs({ 'selfTime', 'totalTime', 'count', 'name' }) do
    local avg = prof:keyAverages({ sortBy = key })
    local rows, lines = parse_table(prof:table({ sortBy = key }))
    tester:asserteq(lines[2]:match('^(%S+)'), 'Name')
    tester:asserteq(#rows, 4)
    tester:asserteq(#avg, 4)
    local pct = 0
    for i, cells in ipairs(rows) do
      tester:asserteq(cells[1], avg[i].name, key .. ': row order')
      tester:asserteq(tonumber(cells[6]), avg[i].count)
      tester:assertalmosteq(to_us(cells[3]), avg[i].selfTime, 0.0005 * math.max(1, avg[i].selfTime), 'self total')
      tester:assertalmosteq(to_us(cells[5]), avg[i].mean, 0.0005 * math.max(1, avg[i].mean), 'mean')
      pct = pct + tonumber(cells[2]:match('^([%d.]+)%%$'))
      if i > 1 and key ~= 'name' then tester:assertge(avg[i - 1][key], avg[i][key], key .. ' sorted') end
      if i > 1 and key == 'name' then tester:assertlt(avg[i - 1].name, avg[i].name) end
    end
    tester:assertalmosteq(pct, 100, 0.05, 'self % adds up to 100')
    tester:assert(lines[#lines]:find('^Self time total: '), lines[#lines])
  end
  local counts = {}
  for _, r in ipairs(prof:keyAverages({ sortBy = 'count' })) do counts[#counts + 1] = r.name .. '=' .. r.count end
  tester:asserteq(table.concat(counts, ' '), 'torch.add=4 torch.mm=3 torch.exp=1 torch.sum=1')
  local rows = parse_table(prof:table({ sortBy = 'count', rowLimit = 2 }))
  tester:asserteq(#rows, 2, 'rowLimit')
  tester:asserteq(rows[2][1], 'torch.mm')
  tester:asserteq(tostring(prof), prof:table())
  tester:assertErrorPattern(function() prof:table({ sortBy = 'cpu' }) end, "%[profiler%.table%] sortBy must be")
  tester:assertErrorPattern(function() prof:table({ rowLimit = 0 }) end, '%[profiler%.table%] rowLimit')
  tester:assertErrorPattern(function() prof:table({ rows = 3 }) end, "%[profiler%.table%] unknown option 'rows'")
  tester:assertErrorPattern(function() prof:keyAverages({ sortBy = 1 }) end, '%[profiler%.keyAverages%] option sortBy must be a string')
end

function tests.chromeTrace()
  local a = torch.randn(8, 8)
  local prof = profiler.profile({ recordShapes = true }, function() return a * a + 1 end)
  local path = os.tmpname()
  tester:asserteq(prof:exportChromeTrace(path), path)
  local f = io.open(path)
  local text = f:read('*a')
  f:close()
  os.remove(path)
  local doc = J.decode(text)
  local ev = prof:events()
  tester:assert(J.is_array(doc.traceEvents))
  tester:asserteq(#doc.traceEvents, #ev)
  tester:asserteq(#ev, 4)
  for i, t in ipairs(doc.traceEvents) do
    tester:asserteq(t.ph, 'X')
    tester:asserteq(t.name, ev[i].name)
    tester:asserteq(t.cat, ev[i].kind)
    tester:assertalmosteq(t.ts, ev[i].start, 1e-3)
    tester:assertalmosteq(t.dur, ev[i].totalTime, 1e-3)
    tester:asserteq(type(t.pid), 'number')
    tester:asserteq(t.tid, 1)
    tester:asserteq(t.args.depth, ev[i].depth)
  end
  tester:asserteq(#doc.traceEvents[2].args['Input Dims'], 2, 'torch.mm has two inputs')
  tester:asserteq(doc.traceEvents[2].args['Input Dims'][1][2], 8)
  tester:assertErrorPattern(function() prof:exportChromeTrace('/nonexistent/dir/x.json') end,
    '%[profiler%.exportChromeTrace%] cannot open')
end

function tests.restoresOriginals()
  local before = snapshot()
  local a = torch.ones(2, 2)
  profiler.profile(function() return nn.Linear(2, 2):forward(a * a) end)
  assert_same(before, 'after profile')
  profiler.start({ recordShapes = true })
  local captured = torch.add
  tester:assert(captured ~= before['torch.add'], 'wrapped while running')
  local prof = profiler.stop()
  assert_same(before, 'after start/stop')
  tester:asserteq(captured(a, a):sum(), 8, 'a wrapper kept past stop still works')
  tester:asserteq(#prof:events(), 0, 'and records nothing')
  -- an error in fn: re-raised unchanged, wrappers gone
  local ok, err = pcall(profiler.profile, function() torch.add(a, a); error('boom') end)
  tester:assert(not ok and err:find('boom$'), tostring(err))
  assert_same(before, 'after an error in fn')
  ok, err = pcall(profiler.profile, function() error({ code = 7 }) end)
  tester:asserteq(type(err) == 'table' and err.code, 7, 'error objects pass through')
  assert_same(before, 'after an error object')
  tester:assert(not profiler.isRunning())
end

function tests.errorsInsideProfiledOps()
  local x, y = torch.ones(2, 3), torch.ones(2, 3)
  local function bad()
    local r = torch.mm(x, y)  -- not a tail call: the error names this line
    return r
  end
  local _, plain_err = pcall(bad)
  local ok, prof_err = pcall(profiler.profile, bad)
  tester:assert(not ok)
  tester:asserteq(prof_err, plain_err, 'the same message at the same user line')
  local line = debug.getinfo(bad, 'S').linedefined + 1
  tester:assert(plain_err:find('test_profiler%.lua:' .. line .. ': %[mm%]'), plain_err)
  -- an error caught inside fn leaves the nesting intact
  local prof = profiler.profile(function()
    pcall(bad)
    return x:add(1)
  end)
  local ev = prof:events()
  tester:asserteq(#ev, 2)
  tester:asserteq(ev[1].name, 'torch.mm')
  tester:asserteq(ev[1].error, true)
  tester:asserteq(ev[2].name, 'Tensor.add')
  tester:asserteq(ev[2].depth, 0, 'the next op is not nested in the failed one')
  tester:asserteq(ev[2].error, nil)
end

function tests.startStopAndOptionErrors()
  tester:assertErrorPattern(function() profiler.stop() end, '%[profiler%.stop%] the profiler is not running')
  profiler.start()
  tester:assert(profiler.isRunning())
  tester:assertErrorPattern(function() profiler.start() end, '%[profiler%.start%] the profiler is already running')
  tester:assertErrorPattern(function() profiler.profile(function() end) end, '%[profiler%.profile%] the profiler is already running')
  torch.zeros(3)
  local prof = profiler.stop()
  tester:asserteq(count(prof, 'torch.zeros'), 1, 'the session survived the refused starts')
  tester:assertErrorPattern(function() profiler.profile({ recordshapes = true }, function() end) end,
    "%[profiler%.profile%] unknown option 'recordshapes'")
  tester:assertErrorPattern(function() profiler.profile({ syncCuda = 1 }, function() end) end,
    '%[profiler%.profile%] option syncCuda must be a boolean, got number')
  tester:assertErrorPattern(function() profiler.start('fast') end, '%[profiler%.start%] options must be a table')
  tester:assertErrorPattern(function() profiler.profile(42) end, '%[profiler%.profile%] expected a function to profile, got number')
  tester:assertErrorPattern(function() profiler.profile({}) end, '%[profiler%.profile%] expected a function')
  tester:assertErrorPattern(function() profiler.profile(function() profiler.stop() end) end,
    '%[profiler%.profile%] fn stopped the profiler')
  tester:assert(not profiler.isRunning(), 'no failed call left it running')
end

-- stop() inside a profiled call: the open event ends at stop time; the call still completes.
function tests.stopInsideAProfiledCall()
  local before = snapshot()
  local x = torch.zeros(3)
  local prof
  profiler.start()
  torch.ones(2)
  x:apply(function(v)
    if not prof then prof = profiler.stop() end
    return v + 1
  end)
  tester:assertTensorEq(x, torch.ones(3), 0, 'apply finished')
  local ev = prof:events()
  tester:asserteq(#ev, 2)
  tester:asserteq(ev[2].name, 'Tensor.apply')
  tester:assertge(ev[2].totalTime, 0)
  tester:asserteq(ev[2].selfTime, ev[2].totalTime)
  tester:assertle(ev[2].start + ev[2].totalTime, prof:totalTime() + EPS)
  assert_same(before, 'after stop inside a call')
end

function tests.argumentsAndResults()
  local prof, a, b, c = profiler.profile(function(x, y) return x + 1, nil, y end, 1, 'k')
  tester:asserteq(a, 2)
  tester:asserteq(b, nil)
  tester:asserteq(c, 'k')
  tester:asserteq(#prof:events(), 0)
  local callable = setmetatable({}, { __call = function(_, v) return torch.ones(v) end })
  local p2, t = profiler.profile({ modules = true }, callable, 3)
  tester:asserteq(t:nElement(), 3)
  tester:asserteq(count(p2, 'torch.ones'), 1)
end

function tests.functionalAndLinalg()
  local x = torch.randn(3, 3)
  local prof = profiler.profile(function()
    nn.functional.relu(x)
    torch.linalg.det(x:mm(x:t()):add(torch.eye(3)))
  end)
  tester:asserteq(count(prof, 'nn.functional.relu'), 1)
  tester:asserteq(count(prof, 'torch.relu'), 1, 'nested in nn.functional.relu')
  tester:asserteq(count(prof, 'torch.linalg.det'), 1)
end

-- syncCuda's mechanism on any machine: a counting stand-in for synchronize sees one call at
-- start and one per event (children included), and none without the option.
function tests.syncCudaCallsSynchronizePerEvent()
  local cuda = torch.cuda
  local avail, sync = cuda.isAvailable, cuda.synchronize
  local calls = 0
  cuda.isAvailable = function() return true end
  cuda.synchronize = function() calls = calls + 1 end
  local x = torch.ones(3)
  local ok, err = pcall(function()
    local p1 = profiler.profile({ syncCuda = true }, function() return x + x, x:exp() end)
    tester:asserteq(#p1:events(), 3)
    tester:asserteq(calls, 1 + 3)
    calls = 0
    profiler.profile(function() return x + x end)
    tester:asserteq(calls, 0, 'no synchronize without syncCuda')
  end)
  cuda.isAvailable, cuda.synchronize = avail, sync
  tester:assert(ok, tostring(err))
end

function tests.cudaSync()
  if not torch.cuda.isAvailable() then return end
  local a = torch.randn(64, 64)
  local ga = a:cuda()
  local cpu_prof, cpu_res = profiler.profile(function() return torch.mm(a, a):add(1) end)
  for _, sync in ipairs({ false, true }) do
    local prof, res = profiler.profile({ syncCuda = sync }, function() return torch.mm(ga, ga):add(1) end)
    tester:assertTensorEq(res:float(), cpu_res, 1e-3, 'same result as on the CPU')
    tester:asserteq(count(prof, 'torch.mm'), count(cpu_prof, 'torch.mm'))
    tester:asserteq(count(prof, 'Tensor.add'), 1)
    local self_sum = 0
    for _, e in ipairs(prof:events()) do
      tester:assertge(e.selfTime, 0)
      self_sum = self_sum + e.selfTime
    end
    tester:assertle(self_sum, prof:totalTime())
  end
end

tester:add(tests):run()
