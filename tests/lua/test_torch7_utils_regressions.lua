-- Regressions from the review of Torch7's utility API against Torch7's own code (Tester.lua,
-- TestSuite.lua, CmdLine.lua, Timer.c, init.lua and luaT.c's class system): torch.Tester and
-- torch.TestSuite, torch.CmdLine, torch.Timer, torch.class / isTypeOf / factory / pointer /
-- version and the default tensor type.
require 'torch'
require 'nn'

local tester = torch.Tester()
local tests = torch.TestSuite()

-- Runs an inner tester with io.write captured; returns ok, err, output.
local function run_inner(t, filter)
  local out, write = {}, io.write
  io.write = function(...) for i = 1, select('#', ...) do out[#out + 1] = tostring((select(i, ...))) end end
  local ok, err = pcall(t.run, t, filter)
  io.write = write
  return ok, err, table.concat(out)
end

local function count(s, pat)
  local n = 0
  for _ in s:gmatch(pat) do n = n + 1 end
  return n
end

-- ---- Tester ------------------------------------------------------------------------------

-- Torch7 runs a suite's _setUp/_tearDown around every test, with the test's name; they were run
-- as two extra tests (and never around the others).
function tests.tester_setUp_tearDown_from_a_suite()
  local t, s, log = torch.Tester(), torch.TestSuite(), {}
  function s._setUp(name) log[#log + 1] = 'up:' .. name end
  function s._tearDown(name) log[#log + 1] = 'down:' .. name end
  function s.alpha() log[#log + 1] = 'alpha'; t:assert(true) end
  function s.beta() log[#log + 1] = 'beta'; t:assert(true) end
  t:add(s)
  local ok, _, out = run_inner(t)
  tester:assert(ok, 'the run passes')
  tester:assert(out:find('Running 2 tests', 1, true) ~= nil, out)
  tester:assert(not out:find('_setUp', 1, true) and not out:find('_tearDown', 1, true), 'no set-up test line')
  tester:eq(log, { 'up:alpha', 'alpha', 'down:alpha', 'up:beta', 'beta', 'down:beta' })
  -- tester:add(f, '_setUp') does the same; a second one is refused
  local t2, seen = torch.Tester(), {}
  t2:add(function(name) seen[#seen + 1] = name end, '_setUp')
  t2:add(function() end, 'only')
  tester:assert((run_inner(t2)), 'runs')
  tester:eq(seen, { 'only' })
  tester:assertErrorPattern(function() t2:add(function() end, '_setUp') end, 'only one _setUp')
end

-- A name that matches no test was silently a run of 0 tests that passed (Torch7: an error).
function tests.tester_run_unknown_name_is_an_error()
  local t = torch.Tester()
  t:add(function() t:assert(true) end, 'alpha')
  local ok, err = run_inner(t, 'alhpa')
  tester:assert(not ok, 'a misspelt name fails')
  tester:assert(tostring(err):find("couldn't find test 'alhpa'", 1, true) ~= nil, tostring(err))
  ok, err = run_inner(t, { 'alpha', 'nosuch' })
  tester:assert(not ok and tostring(err):find('nosuch', 1, true) ~= nil, 'every name must match')
  tester:assertErrorPattern(function() t:run(42) end, 'Tester:run')
end

-- Names are string.match patterns (Torch7); the selected tests keep the order they were added.
function tests.tester_run_selects_by_pattern()
  local t, ran = torch.Tester(), {}
  for _, n in ipairs({ 'testB', 'testA', 'other' }) do t:add(function() ran[#ran + 1] = n end, n) end
  local ok, _, out = run_inner(t, '^test')
  tester:assert(ok, 'runs')
  tester:eq(ran, { 'testB', 'testA' })
  tester:assert(out:find('Running 2 tests', 1, true) ~= nil, out)
  ran = {}
  run_inner(t, { 'other', 'testA' })
  tester:eq(ran, { 'testA', 'other' })
end

-- The assertion count was never reset: a second run reported both runs' asserts.
function tests.tester_counts_are_per_run()
  local t = torch.Tester()
  t:add(function() t:assert(true); t:asserteq(1, 1) end, 'two')
  local _, _, out1 = run_inner(t)
  local _, _, out2 = run_inner(t)
  tester:assert(out1:find('Completed 2 asserts in 1 test with 0 failures and 0 errors\n', 1, true) ~= nil, out1)
  tester:assert(out2:find('Completed 2 asserts in 1 test with 0 failures and 0 errors\n', 1, true) ~= nil, out2)
end

-- Torch7's summary ends with 'and N disabled'; disabling an unknown test is an error (it was
-- silently accepted).
function tests.tester_summary_counts_disabled_tests()
  local t = torch.Tester()
  t:add(function() t:assert(true) end, 'kept')
  t:add(function() t:assert(false) end, 'broken')
  t:disable('broken')
  local ok, _, out = run_inner(t)
  tester:assert(ok, 'a disabled test does not fail the run')
  tester:assert(out:find('Completed 1 assert in 2 tests with 0 failures and 0 errors and 1 disabled\n', 1, true) ~= nil, out)
  tester:assert(out:find('[SKIP]', 1, true) ~= nil, out)
  -- disable may come before add (test_memory.lua does); a name that is no test fails the run
  local t2 = torch.Tester()
  t2:disable('later')
  t2:add(function() t2:assert(true) end, 'later')
  tester:assert((run_inner(t2)), 'disabled before it was added')
  t2:disable('latr')
  local ok2, err2 = run_inner(t2)
  tester:assert(not ok2 and tostring(err2):find("unknown test 'latr'", 1, true) ~= nil, tostring(err2))
end

-- Torch7's setSummaryOnly keeps the per-test lines and leaves out the messages; it was the
-- other way round.
function tests.tester_summaryOnly_drops_the_messages()
  local t = torch.Tester()
  t:add(function() t:asserteq(1, 2, 'the message') end, 'fails')
  t:setSummaryOnly(true)
  local ok, _, out = run_inner(t)
  tester:assert(not ok, 'still fails')
  tester:assert(out:find('1/1 fails ', 1, true) ~= nil and out:find('[FAIL]', 1, true) ~= nil, out)
  tester:assert(out:find('the message', 1, true) == nil, out)
  t:setSummaryOnly(false)
  ok, _, out = run_inner(t)
  tester:assert(out:find('the message', 1, true) ~= nil, out)
end

-- Torch7's line: 'i/n name ', dots to column 74, then the status in brackets (80 columns).
function tests.tester_line_format()
  local t = torch.Tester()
  t:add(function() t:assert(true) end, 'testB')
  local _, _, out = run_inner(t)
  local line = out:match('(1/1 testB [^\n]*)\n')
  tester:eq(line, '1/1 testB ' .. string.rep('.', 63) .. ' [PASS]')
  tester:eq(#line, 80)
end

-- Failures recorded before a test raised an error were dropped from the report; Torch7 counts
-- the test as both a failure and an error. The final error counts failed tests once.
function tests.tester_error_after_failures_keeps_them()
  local t = torch.Tester()
  t:add(function() t:asserteq(1, 2, 'first failure'); error('then boom') end, 'both')
  local ok, err, out = run_inner(t)
  tester:assert(not ok, 'fails')
  tester:eq(err, '1 test failed')
  tester:assert(out:find('with 1 failure and 1 error\n', 1, true) ~= nil, out)
  tester:assert(out:find('first failure', 1, true) ~= nil, 'the failure is reported: ' .. out)
  tester:assert(out:find('then boom', 1, true) ~= nil, out)
  tester:assert(out:find('[ERROR]', 1, true) ~= nil, out)
end

-- getToleranceAndMessage refuses two tolerances, two messages, a negative tolerance and other
-- types; Tocha kept the last number, ignored a boolean (tolerance 0) and failed every comparison
-- at a negative one.
function tests.tester_tolerance_and_message_are_checked()
  local t = torch.Tester()
  local a, b = torch.ones(2), torch.ones(2) + 0.5
  local s = torch.TestSuite()
  function s.two() t:assertTensorEq(a, a, 1e-3, 1e-2) end
  function s.bool() t:assertTensorEq(a, b, true) end
  function s.neg() t:assertalmosteq(1, 1, -1) end
  function s.msgs() t:eq(1, 1, 'one', 'two') end
  t:add(s)
  for name, pat in pairs({ two = 'Tester:assertTensorEq%] two tolerances', bool = 'got boolean',
                           neg = 'Tester:assertalmosteq%] tolerance must be >= 0', msgs = 'two messages' }) do
    local ok, _, out = run_inner(t, '^' .. name .. '$')
    tester:assert(not ok, name .. ' is an error')
    tester:assert(out:find('[ERROR]', 1, true) ~= nil and out:find(pat) ~= nil, name .. ': ' .. out)
  end
  -- the documented forms still work, in either order
  local t2 = torch.Tester()
  t2:add(function()
    t2:assertTensorEq(a, b, 0.5, 'within 0.5')
    t2:assertTensorEq(a, b, 'within 0.5', 0.5)
    t2:eq({ 1, { 2, a } }, { 1, { 2.001, a + 1e-4 } }, 0.01)
    t2:assertTableEq({ x = { 1, 2 } }, { x = { 1, 2 } }, 'nested')
    t2:assertTableNe({ x = { 1, 2 } }, { x = { 1, 3 } })
    t2:assertTensorNe(a, b, 0.4)
    t2:assertalmosteq(1, 1 + 1e-9, 1e-8)
  end, 'forms')
  local ok, _, out = run_inner(t2)
  tester:assert(ok, out)
end

-- setRethrowErrors: Torch7 raises a failed assertion at once and lets a test's error (any
-- object) through unchanged; only the errors were rethrown, as traceback strings.
function tests.tester_rethrow_errors()
  local t = torch.Tester()
  local obj = { code = 7 }
  t:add(function() error(obj) end, 'raises')
  t:add(function() t:asserteq(1, 2, 'no') end, 'fails')
  t:setRethrowErrors(true)
  local ok, err = run_inner(t, '^raises$')
  tester:assert(not ok and rawequal(err, obj), 'the error object itself')
  ok, err = run_inner(t, '^fails$')
  tester:assert(not ok and tostring(err):find('1 == 2 failed no', 1, true) ~= nil, tostring(err))
end

-- setEarlyAbort: Torch7 finishes the failing test, then stops with a line saying so.
function tests.tester_early_abort()
  local t, after = torch.Tester(), false
  t:add(function() t:assert(false, 'x'); after = true end, 'a')
  t:add(function() t:assert(true) end, 'b')
  t:setEarlyAbort(true)
  local ok, _, out = run_inner(t)
  tester:assert(not ok, 'fails')
  tester:assert(after, 'the failing test ran to its end')
  tester:assert(out:find('Aborting on first error, not all tests have been executed', 1, true) ~= nil, out)
  tester:assert(out:find('2/2 b', 1, true) == nil, 'b did not run')
end

-- An assertion outside run() crashed on a nil failure list ("bad argument #1 to 'insert'").
function tests.tester_assert_outside_run()
  local t = torch.Tester()
  tester:assert(t:asserteq(1, 1), 'a passing assertion returns true')
  tester:assertErrorPattern(function() t:asserteq(1, 2, 'outside') end, '1 == 2 failed outside')
end

-- TestSuite carries Torch7's __isTestSuite marker; add refuses a name for a table of tests and
-- nested tables.
function tests.testsuite_marker_and_add_checks()
  local s = torch.TestSuite()
  tester:eq(s.__isTestSuite, true)
  tester:assertErrorPattern(function() s.t = 5 end, 'only functions')
  local t = torch.Tester()
  tester:assertErrorPattern(function() t:add({ a = function() end }, 'name') end, 'takes no name')
  tester:assertErrorPattern(function() t:add({ a = { b = function() end } }) end, 'nested')
  -- a list of functions gets its indices as names
  t:add({ function() t:assert(true) end, function() t:assert(true) end })
  local ok, _, out = run_inner(t)
  tester:assert(ok and out:find('Running 2 tests', 1, true) ~= nil, out)
end

-- ---- CmdLine -------------------------------------------------------------------------------

function tests.cmdline_parse_types_flags_and_errors()
  local cmd = torch.CmdLine()
  cmd:text('Title')
  cmd:option('-lr', 0.1, 'learning rate')
  cmd:option('-cuda', false, 'use cuda')
  cmd:option('-verbose', true, 'talk')
  cmd:option('-name', 'exp', 'name')
  cmd:argument('-data', 'data dir')
  local p = cmd:parse({ '-lr', '0.5', '-cuda', '-verbose', 'dir1', '-name', '-x' })
  tester:eq(p, { lr = 0.5, cuda = true, verbose = false, name = '-x', data = 'dir1' })
  tester:eq(cmd:parse({ '--lr=1e-3', '--cuda=false', 'd' }).lr, 1e-3)
  tester:eq(cmd:parse({ 'd', '-lr', '-2' }).lr, -2)
  tester:assertErrorPattern(function() cmd:parse({ 'd', '-lr' }) end, 'missing argument for option %-lr')
  tester:assertErrorPattern(function() cmd:parse({ 'd', '-lr', 'abc' }) end, 'invalid type for option %-lr')
  tester:assertErrorPattern(function() cmd:parse({ 'd', '-foo' }) end, 'unknown option %-foo')
  tester:assertErrorPattern(function() cmd:parse({}) end, 'not enough arguments')
  tester:assertErrorPattern(function() cmd:parse({ 'a', 'b' }) end, 'invalid argument: b')
  tester:assertErrorPattern(function() cmd:option('-t') end, 'has no default')
  tester:assertErrorPattern(function() cmd:option('-t', 5, 'h', 'string') end, 'wrong default type')
  -- Torch7's string(): prefix, arguments, then the changed options sorted; booleans as t/f
  p = cmd:parse({ '-lr', '0.5', '-cuda', 'dir1' })
  tester:eq(cmd:string('exp', p, {}), 'exp,data=dir1,cuda=t,lr=0.5')
  tester:eq(cmd:string('exp', p, { data = true }), 'exp,cuda=t,lr=0.5')
  tester:eq(cmd:string('exp', p, { data = true, name = false }), 'exp,cuda=t,lr=0.5,name=exp')
  tester:eq(cmd:string('exp', cmd:default(), {}), 'exp')
end

function tests.cmdline_help_format()
  local cmd = torch.CmdLine()
  cmd:text()
  cmd:text('Title')
  cmd:option('-lr', 0.1, 'learning rate')
  cmd:option('-cuda', false)
  cmd:argument('-data', 'data dir')
  local path = os.tmpname()
  local f = io.open(path, 'w')
  cmd:help({ [0] = 'prog.lua' }, f)
  f:close()
  f = io.open(path)
  local text = f:read('*a')
  f:close()
  os.remove(path)
  tester:eq(text, 'Usage: prog.lua [options] <data>\n\nTitle\n  -lr    learning rate [0.1]\n'
    .. '  -cuda  [false]\n  <data> data dir\n')
end

function tests.cmdline_log_and_addTime()
  local cmd = torch.CmdLine()
  cmd:option('-lr', 0.1, 'lr')
  cmd:addTime('proj', '%Y')
  local path = os.tmpname()
  local print0 = _G.print
  local ok, err = pcall(function()
    cmd:silent()
    cmd:log(path, cmd:parse({}))
    print('hello', 1, nil)
  end)
  _G.print = print0
  tester:assert(ok, tostring(err))
  local f = io.open(path)
  local text = f:read('*a')
  f:close()
  os.remove(path)
  local year = os.date('%Y')
  tester:assert(text:find(year .. '[proj]:  [command line arguments] \n', 1, true) ~= nil, text)
  tester:assert(text:find(year .. '[proj]:  lr 0.1 \n', 1, true) ~= nil, text)
  tester:assert(text:find(year .. '[proj]:  hello 1 nil \n', 1, true) ~= nil, text)
end

-- ---- Timer ---------------------------------------------------------------------------------

function tests.timer_stop_resume_reset()
  local function busy(sec)
    local t0 = torch.tic()
    while torch.toc(t0) < sec do end
  end
  local t = torch.Timer()
  busy(0.02)
  t:stop()
  local a = t:time()
  busy(0.02)
  local b = t:time()
  tester:eq(a, b, 'a stopped timer does not move')
  tester:assert(a.real >= 0.02 and a.user >= 0 and a.sys >= 0, 'real/user/sys')
  t:resume()
  busy(0.02)
  tester:assert(t:time().real >= a.real + 0.02, 'resume adds to the accumulated time')
  tester:eq(tostring(t), 'torch.Timer [status: running]')
  t:stop():reset()
  tester:eq(t:time(), { real = 0, user = 0, sys = 0 }, 'reset keeps a stopped timer stopped, at 0')
  tester:eq(tostring(t), 'torch.Timer [status: stopped]')
  tester:assert(rawequal(t:resume(), t) and rawequal(t:stop(), t) and rawequal(t:reset(), t), 'methods return self')
end

tester:add(tests)
tester:run()
