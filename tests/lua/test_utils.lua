-- torch.Timer, torch.tic/toc and torch.CmdLine: timing sanity, and Torch7's parsing rules, help
-- format, errors, run-name strings and logging.
local tester = torch.Tester()
local tests = torch.TestSuite()

-- Busy-waits `sec` seconds of wall-clock time (spinning, so CPU time is spent too).
local function spin(sec)
  local t0 = torch.tic()
  local x = 0
  while torch.toc(t0) < sec do x = x + 1 end
  return x
end

-- A stand-in for a file (io.stdout, io.stderr) that keeps what is written.
local function capture()
  local c = { text = '' }
  function c:write(...) for i = 1, select('#', ...) do self.text = self.text .. tostring((select(i, ...))) end return self end
  function c:flush() end
  return c
end

-- Runs f with io.stderr replaced (CmdLine:error prints the usage there); returns the error
-- message and what was written.
local function error_of(f)
  local saved, err = io.stderr, capture()
  io.stderr = err
  local ok, msg = pcall(f)
  io.stderr = saved
  return (not ok) and tostring(msg) or nil, err.text
end

-- ---- Timer -----------------------------------------------------------------------------------
function tests.timerBasics()
  local t = torch.Timer()
  tester:asserteq(torch.type(t), 'torch.Timer')
  tester:asserteq(tostring(t), 'torch.Timer [status: running]')
  local v = t:time()
  for _, k in ipairs({ 'real', 'user', 'sys' }) do
    tester:asserteq(type(v[k]), 'number', k)
    tester:assertge(v[k], 0, k)
  end
  tester:assertlt(v.real, 1)
end

function tests.timerMonotonicAndMeasures()
  local t = torch.Timer()
  local last = t:time().real
  for _ = 1, 1000 do
    local now = t:time().real
    tester:assertge(now, last)
    last = now
  end
  spin(0.05)
  local v = t:time()
  tester:assertge(v.real, 0.05)
  tester:assertlt(v.real, 5)
  tester:assertgt(v.user + v.sys, 0, 'spinning spends CPU time')
end

function tests.timerStopResume()
  local t = torch.Timer()
  spin(0.02)
  tester:asserteq(t:stop(), t, 'stop returns the timer')
  tester:asserteq(tostring(t), 'torch.Timer [status: stopped]')
  local stopped = t:time()
  tester:assertge(stopped.real, 0.02)
  spin(0.02)
  tester:eq(t:time(), stopped, 'a stopped timer does not advance')
  t:stop()  -- idempotent, as in Torch7
  tester:eq(t:time(), stopped)
  tester:asserteq(t:resume(), t, 'resume returns the timer')
  t:resume()  -- idempotent
  spin(0.02)
  local resumed = t:time()
  tester:assertge(resumed.real, stopped.real + 0.02, 'resume accumulates')
  tester:assertlt(resumed.real, stopped.real + 5)
  tester:assertge(resumed.user, stopped.user)
end

function tests.timerReset()
  local t = torch.Timer()
  spin(0.1)
  tester:asserteq(t:reset(), t)
  tester:assertlt(t:time().real, 0.1, 'reset zeroes (generous bound: the machine may be loaded)')
  tester:asserteq(tostring(t), 'torch.Timer [status: running]')
  spin(0.01)
  t:stop()
  t:reset()
  tester:eq(t:time(), { real = 0, user = 0, sys = 0 }, 'reset of a stopped timer: zero, still stopped')
  tester:asserteq(tostring(t), 'torch.Timer [status: stopped]')
  t:resume()
  spin(0.01)
  tester:assertge(t:time().real, 0.01)
end

function tests.ticToc()
  local t0 = torch.tic()
  tester:asserteq(type(t0), 'number')
  spin(0.02)
  local d = torch.toc(t0)
  tester:assertge(d, 0.02)
  tester:assertlt(d, 5)
  tester:assertge(torch.toc(), 0, 'toc() measures from the last tic')
  tester:assertErrorPattern(function() torch.toc('x') end, '%[toc%] expected a time stamp')
end

function tests.timerRequireTwice()
  -- The FFI declarations are guarded, so loading the file again must not fail.
  local path = package.searchpath('torch.timer', package.path)
  tester:assertNoError(function() dofile(path) end)
end

-- ---- CmdLine ---------------------------------------------------------------------------------
local function training_cmd()
  local cmd = torch.CmdLine()
  cmd:text('Train a model.')
  cmd:text()
  cmd:text('Options:')
  cmd:option('-lr', 0.1, 'learning rate')
  cmd:option('--name', 'run', 'run name')
  cmd:option('-cuda', false, 'use CUDA')
  cmd:option('-shuffle', true, 'shuffle the data')
  cmd:argument('-data', 'training data')
  cmd:argument('epochs', 'number of epochs', 'number')
  return cmd
end

function tests.cmdlineDefaults()
  local cmd = training_cmd()
  tester:asserteq(torch.type(cmd), 'torch.CmdLine')
  local p = cmd:parse({ 'train.t7', '3' })
  tester:eq(p, { lr = 0.1, name = 'run', cuda = false, shuffle = true, data = 'train.t7', epochs = 3 })
  tester:eq(cmd:default(), { lr = 0.1, name = 'run', cuda = false, shuffle = true })
end

function tests.cmdlineOptionForms()
  local cmd = training_cmd()
  -- -key value, --key value (whatever the declared dashes), --key=value.
  local p = cmd:parse({ '--lr', '0.5', '-name', 'a b', 'd', '10' })
  tester:asserteq(p.lr, 0.5)
  tester:asserteq(p.name, 'a b')
  tester:asserteq(p.epochs, 10)
  p = cmd:parse({ '-lr=1e-3', '--name=x=y', 'd', '1' })
  tester:asserteq(p.lr, 1e-3)
  tester:asserteq(p.name, 'x=y')
  -- Options and arguments may interleave; a value may start with '-'.
  p = cmd:parse({ 'd', '-name', '-odd', '2', '-lr', '-0.25' })
  tester:eq({ p.data, p.name, p.epochs, p.lr }, { 'd', '-odd', 2, -0.25 })
end

function tests.cmdlineBooleans()
  local cmd = training_cmd()
  -- A flag takes no value and flips its default (Torch7).
  local p = cmd:parse({ '-cuda', 'd', '1' })
  tester:asserteq(p.cuda, true)
  tester:asserteq(p.data, 'd')
  p = cmd:parse({ '--shuffle', 'd', '1' })
  tester:asserteq(p.shuffle, false)
  p = cmd:parse({ '--cuda=true', '-shuffle=yes', 'd', '1' })
  tester:eq({ p.cuda, p.shuffle }, { true, true })
  p = cmd:parse({ '--cuda=0', '-shuffle=f', 'd', '1' })
  tester:eq({ p.cuda, p.shuffle }, { false, false })
  local msg = error_of(function() cmd:parse({ '--cuda=maybe', 'd', '1' }) end)
  tester:assert(msg and msg:find("invalid type for option %-%-cuda %(should be boolean, got 'maybe'%)"), msg)
end

function tests.cmdlineArguments()
  local cmd = training_cmd()
  local p = cmd:parse({ 'd', '-7' })
  tester:asserteq(p.epochs, -7, 'a negative number is an argument, not an option')
  p = cmd:parse({ '--', '-d', '8' })
  tester:eq({ p.data, p.epochs }, { '-d', 8 }, '-- ends the options')
  local msg = error_of(function() cmd:parse({ 'd', 'many' }) end)
  tester:assert(msg and msg:find("invalid type for argument <epochs> %(should be number, got 'many'%)"), msg)
end

function tests.cmdlineExplicitType()
  local cmd = torch.CmdLine()
  cmd:option('-n', 5, 'a number', 'number')
  cmd:option('-s', '5', 'a string', 'string')
  local p = cmd:parse({ '-n', '6', '-s', '7' })
  tester:asserteq(p.n, 6)
  tester:asserteq(p.s, '7')
  tester:assertErrorPattern(function() cmd:option('-x', 1, 'h', 'string') end, '%[CmdLine%] option %-x has wrong default type')
  tester:assertErrorPattern(function() cmd:option('-y', nil, 'h') end, '%[CmdLine%] option %-y has no default value')
  tester:assertErrorPattern(function() cmd:option('--n', 1, 'h') end, 'option %-%-n is already defined')
  tester:assertErrorPattern(function() cmd:text(3) end, '%[CmdLine%] text expects a string')
end

function tests.cmdlineErrors()
  local cmd = training_cmd()
  local msg, usage = error_of(function() cmd:parse({ '--bogus', 'd', '1' }) end)
  tester:assert(msg and msg:find('^[^\n]*test_utils%.lua:%d+: %[CmdLine%] unknown option %-%-bogus$'), msg)
  tester:assert(usage:find('^Usage: %[options%] <data><epochs>\n'), 'the usage goes to stderr: ' .. usage)
  msg = error_of(function() cmd:parse({ 'd', '1', '-lr' }) end)
  tester:assert(msg and msg:find('missing argument for option %-lr$'), msg)
  msg = error_of(function() cmd:parse({ '-lr', 'fast', 'd', '1' }) end)
  tester:assert(msg and msg:find("invalid type for option %-lr %(should be number, got 'fast'%)"), msg)
  msg = error_of(function() cmd:parse({ 'd' }) end)
  tester:assert(msg and msg:find('not enough arguments: missing <epochs>'), msg)
  msg = error_of(function() cmd:parse({ 'd', '1', 'extra' }) end)
  tester:assert(msg and msg:find('invalid argument: extra %(expected 2 arguments%)'), msg)
  msg, usage = error_of(function() cmd:error('lr must be positive') end)
  tester:assert(msg and msg:find('%[CmdLine%] lr must be positive$'), msg)
  tester:assert(usage:find('Usage:'), 'error() prints the usage')
end

function tests.cmdlineHelp()
  local cmd = training_cmd()
  local out = capture()
  cmd:help({ [0] = 'train.lua' }, out)
  -- Torch7's layout: keys padded to the longest one, the default in brackets, text lines as is.
  tester:asserteq(out.text, table.concat({
    'Usage: train.lua [options] <data><epochs>',
    'Train a model.',
    '',
    'Options:',
    '  -lr      learning rate [0.1]',
    '  --name   run name [run]',
    '  -cuda    use CUDA [false]',
    '  -shuffle shuffle the data [true]',
    '  <data>   training data',
    '  <epochs> number of epochs',
    '' }, '\n'))
  -- Without arg and a destination: no program name, written to io.stdout.
  local saved = io.stdout
  local o = capture()
  io.stdout = o
  torch.CmdLine():option('-k', 1):help()
  io.stdout = saved
  tester:asserteq(o.text, 'Usage: [options] \n  -k [1]\n')
end

function tests.cmdlineString()
  local cmd = training_cmd()
  local p = cmd:parse({ '-shuffle', '-lr', '0.5', '--name', 'z', 'd', '3' })
  -- Arguments in order, then changed options sorted; booleans as t/f.
  tester:asserteq(cmd:string('exp', p, {}), 'exp,data=d,epochs=3,lr=0.5,name=z,shuffle=f')
  tester:asserteq(cmd:string('exp', p, { name = true, data = true }), 'exp,epochs=3,lr=0.5,shuffle=f')
  local defaults = cmd:parse({ 'd', '3' })
  tester:asserteq(cmd:string('exp', defaults, { data = true, epochs = true }), 'exp')
  tester:asserteq(cmd:string('exp', defaults, { data = true, epochs = true, cuda = false }), 'exp,cuda=f',
    'ignore[k] = false keeps a default value')
  tester:asserteq(cmd:string(nil, p, { data = true, epochs = true, name = true }), 'lr=0.5,shuffle=f')
  local custom = torch.CmdLine('_', '-')
  custom:option('-a', 1)
  custom:option('-b', 'x')
  tester:asserteq(custom:string('run', { a = 2, b = 'y' }), 'run_a-2_b-y')
end

function tests.cmdlineLog()
  local cmd = torch.CmdLine()
  cmd:option('-lr', 0.1)
  local file = os.tmpname()
  local shown = {}
  local saved = _G.print
  _G.print = function(...) shown[#shown + 1] = table.concat({ ... }, '\t') end
  local ok, err = pcall(function()
    cmd:log(file, { lr = 0.5, name = 'x' })
    print('hello', 1, nil)
    cmd:silent()
    print('quiet')
    cmd:addTime('run', '%Y')
    print('dated')
  end)
  _G.print = saved
  tester:assert(ok, tostring(err))
  local f = io.open(file)
  local text = f:read('*a')
  f:close()
  os.remove(file)
  local lines = {}
  for l in text:gmatch('([^\n]*)\n') do lines[#lines + 1] = l end
  tester:assert(lines[1]:find('^%[program started on .+%] $'), lines[1])
  tester:asserteq(lines[2], '[command line arguments] ')
  tester:asserteq(lines[3], 'lr 0.5 ')
  tester:asserteq(lines[4], 'name x ')
  tester:asserteq(lines[5], '[----------------------] ')
  -- Torch7's format: fields joined by one space, then ' \n'.
  tester:asserteq(lines[6], 'hello 1 nil ')
  tester:asserteq(lines[7], 'quiet ')
  tester:asserteq(lines[8], os.date('%Y') .. '[run]:  dated ')
  tester:asserteq(#shown, 6, 'silent() stops the copy to stdout')
  tester:asserteq(shown[6], 'hello\t1')
  tester:assertErrorPattern(function() cmd:log('/nonexistent/dir/log.txt') end, '%[CmdLine%] cannot open log file')
  tester:assertErrorPattern(function() cmd:addTime('x', 5) end, 'format has to be a string')
end

tester:add(tests)
tester:run()
