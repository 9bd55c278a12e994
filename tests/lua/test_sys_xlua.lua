-- The sys and xlua packages (Torch7's): sys's clock, sleeping, shell output and helpers checked
-- against the shell and torch.Timer; xlua's progress bar text (Torch7's format, rebuilt here from
-- its formula), table printing, logging, argument unpacking, OptionParser and Profiler.
local ffi = require 'ffi'
local sys_ret = require 'sys'
local xlua_ret = require 'xlua'
local tester = torch.Tester()
local tests = torch.TestSuite()

pcall(ffi.cdef, 'int setenv(const char *name, const char *value, int overwrite);')
pcall(ffi.cdef, 'int unsetenv(const char *name);')

local function sh(cmd)
  local f = assert(io.popen(cmd))
  local s = f:read('*a')
  f:close()
  return (s:gsub('%s+$', ''))
end

-- Runs f with io.write (and print, which xlua.print ends with) collecting the text; returns it.
local function captured(f, ...)
  local write0, print0 = io.write, print
  local out = {}
  io.write = function(...)
    for i = 1, select('#', ...) do out[#out + 1] = tostring((select(i, ...))) end
    return io.stdout
  end
  print = function(...)
    local t = {}
    for i = 1, select('#', ...) do t[i] = tostring((select(i, ...))) end
    out[#out + 1] = table.concat(t, '\t') .. '\n'
  end
  local ok, err = pcall(f, ...)
  io.write, print = write0, print0
  if not ok then error(err, 0) end
  return table.concat(out)
end

local TMP = os.getenv('TOCHA_TEST_TMP') or '/tmp'

function tests.requireSetsTheGlobals()
  tester:assert(sys_ret == sys and xlua_ret == xlua, 'require returns the globals')
  tester:assert(paths ~= nil, 'sys loads paths')
  tester:assert(xprint == xlua.print and xerror == xlua.error and xrequire == xlua.require, 'x* globals')
end

---------------------------------------------------------------------------------------------- sys

function tests.clock()
  local t = sys.clock()
  tester:assert(math.abs(t - os.time()) <= 2, 'seconds since the epoch, like os.time()')
  local prev, smallest, backs = sys.clock(), math.huge, 0
  for _ = 1, 2000 do
    local c = sys.clock()
    if c < prev then backs = backs + 1 end
    if c > prev then smallest = math.min(smallest, c - prev) end
    prev = c
  end
  tester:asserteq(backs, 0, 'never goes back over a short loop')
  tester:assert(smallest < 1e-6, 'sub-microsecond steps, got ' .. smallest)
end

function tests.sleepAndTicToc()
  local timer = torch.Timer()
  sys.sleep(0.02)
  local dt = timer:time().real
  tester:assert(dt >= 0.0195 and dt < 1, 'sys.sleep(0.02) took ' .. dt)
  timer:reset()
  sys.usleep(5000)
  dt = timer:time().real
  tester:assert(dt >= 0.0049 and dt < 1, 'sys.usleep(5000) took ' .. dt)
  sys.tic()
  sys.sleep(0.01)
  local toc = sys.toc()
  tester:assert(toc >= 0.0095 and toc < 1, 'sys.toc() after 10 ms: ' .. toc)
  local printed = captured(function() sys.toc(true) end)
  tester:assert(tonumber(printed) ~= nil, 'toc(true) prints the time')
  tester:assertErrorPattern(function() sys.sleep('x') end, 'sys%.sleep: expected a number')
  tester:assertErrorPattern(function() sys.usleep(-1) end, 'sys%.usleep')
end

function tests.execute()
  tester:asserteq(sys.execute('echo hi'), 'hi', 'Torch7 strips the white space around')
  tester:asserteq(sys.execute('(echo err 1>&2)'), 'err', 'stderr too')
  tester:asserteq(sys.execute("printf '  a\\n b  \\n\\n'"), 'a\n b')
  tester:asserteq(sys.fexecute('echo hi'), 'hi')
  tester:asserteq(sys.fexecute('(echo err 1>&2)'), 'err')
  tester:assertErrorPattern(function() sys.execute() end, 'sys%.execute: expected a command string, got nil')
  tester:asserteq(sys.ls(TMP) ~= nil, true)
end

function tests.unameAndPaths()
  local expect = ({ Linux = 'linux', Darwin = 'macos' })[sh('uname -s')] or '?'
  tester:asserteq(sys.uname(), expect)
  tester:asserteq(sys.OS, expect)
  tester:asserteq(sys.dirname, paths.dirname)
  tester:asserteq(sys.concat, paths.concat)
  tester:asserteq(sys.pwd(), sh('pwd -P'))
  local dir, name = sys.fpath()
  local me = arg[0]:sub(1, 1) == '/' and arg[0] or (sh('pwd -P') .. '/' .. arg[0]:gsub('^%./', ''))
  tester:asserteq(dir, me:match('^(.*)/[^/]*$'))
  tester:asserteq(name, 'test_sys_xlua.lua')
  tester:asserteq(sys.prefix, paths.install_prefix)
end

function tests.splitIsNaNColors()
  -- Torch7's rule: a leading empty piece is dropped, inner empty pieces are kept.
  local cases = {
    { 'a,b,c', ',', { 'a', 'b', 'c' } },
    { ',a,,b,', ',', { 'a', '', 'b' } },
    { 'a  b', ' +', { 'a', 'b' } },
    { 'abc', ',', { 'abc' } },
    { '', ',', {} },
  }
  for _, c in ipairs(cases) do tester:assertTableEq(sys.split(c[1], c[2]), c[3], c[1]) end
  tester:assertTableEq(('x y'):split(' '), { 'x', 'y' }, 'string.split (xlua)')
  tester:assert(sys.isNaN(0 / 0) and not sys.isNaN(1), 'isNaN')
  tester:asserteq(sys.COLORS.red, '\27[0;31m')
  tester:asserteq(sys.COLORS.Red, '\27[1;31m')
  tester:asserteq(sys.COLORS.none, '\27[0m')
end

--------------------------------------------------------------------------------------------- xlua

function tests.formatTime()
  local cases = { { 0, '0ms' }, { 0.0005, '0ms' }, { 0.25, '250ms' }, { 5.25, '5s250ms' }, { 75.5, '1m15s' },
                  { 3600, '1h' }, { 3661, '1h1m' }, { 90061.5, '1D1h' }, { 86400 * 3 + 59, '3D59s' } }
  for _, c in ipairs(cases) do tester:asserteq(xlua.formatTime(c[1]), c[2], tostring(c[1])) end
end

-- Torch7's xlua.progress text for one drawn state, at terminal width 80 (bar of 46).
local function expected_bar(current, goal, tm, first)
  local width, barLength = 80, 46
  local percent = math.floor(current * barLength / goal)
  local bar = ''
  for i = 1, barLength do bar = bar .. (i < percent and '=' or (i == percent and '>' or '.')) end
  local pad = width - barLength - 4
  return (first and '' or '\r') .. ' [' .. bar .. '] ' .. string.rep(' ', pad) .. string.rep('\b', pad) .. tm
    .. string.rep('\b', math.floor(5 + #tm + barLength / 2)) .. ' ' .. current .. '/' .. goal .. ' '
    .. (percent == barLength and '\n' or '') .. '\r'
end

local function with_columns(n, f)
  ffi.C.setenv('COLUMNS', tostring(n), 1)
  local ok, err = pcall(f)
  ffi.C.unsetenv('COLUMNS')
  if not ok then error(err, 0) end
end

function tests.progressFormat()
  with_columns(80, function()
    -- The first state: no time has passed, so ETA and Step are 0ms.
    tester:asserteq(captured(xlua.progress, 1, 10), expected_bar(1, 10, ' ETA: 0ms | Step: 0ms', true))
    for i = 2, 9 do
      local s = captured(xlua.progress, i, 10)
      -- Drawn or not (at most 10 redraws a second), never anything else.
      tester:assert(s == '' or s:find('^\r %[') ~= nil, 'step ' .. i)
    end
    local last = captured(xlua.progress, 10, 10)
    local tm = last:match('( Tot: [%w]+ | Step: [%w]+)')
    tester:assert(tm ~= nil, 'the last state shows the total time: ' .. last)
    tester:asserteq(last, expected_bar(10, 10, tm or ''))
    tester:asserteq(last:sub(-2), '\n\r', 'the finished bar ends its line')
    -- a finished bar: the same position again only returns the carriage
    tester:asserteq(captured(xlua.progress, 10, 10), '\r')
    -- a smaller position starts a new bar (no leading carriage return)
    tester:asserteq(captured(xlua.progress, 2, 4), expected_bar(2, 4, ' ETA: 0ms | Step: 0ms', true))
    captured(xlua.progress, 4, 4)
  end)
end

-- The seconds a formatTime text stands for ('1s250ms' -> 1.25).
local function seconds_of(text)
  local units = { D = 86400, h = 3600, m = 60, s = 1, ms = 0.001 }
  local total = 0
  for n, unit in text:gmatch('(%d+)(%a+)') do total = total + tonumber(n) * units[unit] end
  return total
end

function tests.progressEta()
  with_columns(80, function()
    captured(xlua.progress, 1, 5)
    sys.sleep(0.15)  -- past the 0.1 s between redraws
    local s = captured(xlua.progress, 2, 5)
    local eta, step = s:match('ETA: (%w+) | Step: (%w+)')
    tester:assert(eta ~= nil, 'a second state is drawn after 0.15 s: ' .. s)
    eta, step = seconds_of(eta or ''), seconds_of(step or '')
    tester:assert(step >= 0.15 and step < 5, 'step ~ 0.15 s, got ' .. step)
    -- three steps remain at that rate (each shown rounded down to the millisecond)
    tester:assert(math.abs(eta - 3 * step) <= 0.0045, 'ETA = 3 steps: ' .. eta .. ' vs ' .. step)
    captured(xlua.progress, 5, 5)
  end)
  tester:assertErrorPattern(function() xlua.progress(1, 0) end, 'xlua%.progress: expected numbers')
  tester:assertErrorPattern(function() xlua.progress('a', 3) end, 'xlua%.progress')
end

function tests.print()
  tester:asserteq(captured(xlua.print, { 1, 2 }), '{[1] = 1,\n [2] = 2}\n')
  tester:asserteq(captured(xlua.print, { a = 'x' }), '{[a] = x}\n')
  tester:asserteq(captured(xlua.print, {}), '{}\n')
  local long = string.rep('z', 50)
  tester:asserteq(captured(xlua.print, { long }), '{[1] = ' .. string.rep('z', 40) .. '\27[0m ... }\n')
  tester:asserteq(captured(xlua.print, { 'a\nb' }), '{[1] = a\\nb}\n', 'newlines escaped')
  local obj = setmetatable({}, { __tostring__ = function() return 'OBJ' end })
  tester:asserteq(captured(xlua.print, obj), 'OBJ\n')
  local named = setmetatable({ k = 1 }, { __tostring = function() return 'Named' end })
  tester:asserteq(captured(xlua.print, named), 'Named:\n{[k] = 1}\n')
  tester:asserteq(captured(xlua.print, 3), '3\n')
  tester:asserteq(captured(xlua.print, 'a', 'b'), 'a    b\n', 'more arguments after four spaces')
end

function tests.log()
  local file = sh("mktemp -d '" .. TMP .. "/xlua_log_XXXXXX'") .. '/sub/session.txt'
  local write0, print0 = io.write, print
  local screen = {}
  io.write = function(...) for i = 1, select('#', ...) do screen[#screen + 1] = tostring((select(i, ...))) end end
  local ok, err = pcall(function()
    xlua.log(file)
    io.write('abc ', 1)
    print({ 'x' })  -- print is xlua.print now
  end)
  io.write, print = write0, print0
  if not ok then error(err, 0) end
  local f = assert(io.open(file))
  local text = f:read('*a')
  f:close()
  tester:asserteq(text, 'abc 1{[1] = x}\n', 'the file gets what is written')
  tester:asserteq(table.concat(screen), text, 'and the screen still does')
  os.execute("rm -rf '" .. paths.dirname(paths.dirname(file)) .. "'")
end

function tests.requireAndInstalled()
  tester:asserteq(xlua.require('nn'), nn)
  local out = captured(function() tester:asserteq(xlua.require('no_such_package_xyz'), false) end)
  tester:assert(out:find('warning: <no_such_package_xyz> could not be loaded', 1, true), 'a warning')
  local found, file = xlua.installed('paths')
  tester:assert(found and file:find('paths', 1, true), 'paths is installed')
  tester:asserteq(xlua.installed('no_such_package_xyz'), false)
end

function tests.errorAndTrycatch()
  local ok, msg = pcall(function() xlua.error('bad size', 'mymodule') end)
  tester:assert(not ok and msg:find('test_sys_xlua%.lua:%d+: \27%[1;31m<mymodule> bad size\27%[0m$'), msg)
  local caught
  xlua.trycatch(function() error('boom', 0) end, function(e) caught = e end)
  tester:asserteq(caught, 'boom')
end

local DEFS = {
  { arg = 'x', type = 'number', help = 'the x', req = true },
  { arg = 'y', type = 'number', help = 'the y', default = 2 },
  { arg = 'z', type = 'number', help = 'the z', defaulta = 'x' },
}

function tests.unpack()
  local t, x, y, z = xlua.unpack({ { x = 1 } }, 'f', 'desc', unpack(DEFS))
  tester:assert(x == 1 and y == 2 and z == 1, 'named, default, defaulta')
  tester:assert(t.x == 1 and t[1] == 1 and t.y == 2 and t[3] == 1, 'by name and position')
  t, x, y, z = xlua.unpack({ 5, 6 }, 'f', 'desc', unpack(DEFS))
  tester:assert(x == 5 and y == 6 and z == 5, 'positional')
  local tensor = torch.ones(2)
  t, x = xlua.unpack({ tensor }, 'g', nil, { arg = 't', type = 'torch.Tensor' })
  tester:assert(x == tensor, 'a tensor alone is positional')
  local ok, msg = pcall(function() xlua.unpack({ { y = 1 } }, 'f', 'desc', unpack(DEFS)) end)
  tester:assert(not ok and msg:find('test_sys_xlua%.lua:%d+:') and msg:find('<f> missing argument: x', 1, true)
    and msg:find('-- the x', 1, true), 'the error names the function and the argument, with the usage')
  local usage = tostring(t.usage)
  tester:assert(usage:find('g{', 1, true) and usage:find('[t = torch.Tensor]', 1, true), usage)
  local obj = {}
  xlua.unpack_class(obj, { { x = 3 } }, 'C', nil, unpack(DEFS))
  tester:assert(obj.x == 3 and obj.y == 2 and obj[1] == nil, 'unpack_class stores the named values')
  local s = xlua.usage_module({}, 'pkg', 'does things')
  tester:assert(s:find('PACKAGE:\npkg', 1, true) and s:find('DESC:\ndoes things', 1, true), s)
end

function tests.table2string()
  tester:asserteq(xlua.table2string({ 1, 2, x = 'a' }), '{1,2,x="a"}')
  tester:asserteq(xlua.table2string({ 1, x = { 2 } }), '{1,x={2}}')
  tester:asserteq(xlua.table2string({ 'say "hi"' }), [[{'say "hi"'}]])
  tester:asserteq(xlua.table2string({ ['a b'] = true }), '{["a b"]=true}')
  tester:asserteq(xlua.table2string({ 1, y = 2 }, true), '{\n   1\n   y : 2\n}')
end

function tests.envparams()
  ffi.C.setenv('TOCHA_XLUA_LR', '0.5', 1)
  ffi.C.setenv('TOCHA_XLUA_NESTEROV', 'false', 1)
  local p = xlua.envparams{ TOCHA_XLUA_LR = 0.1, TOCHA_XLUA_NESTEROV = true, TOCHA_XLUA_UNSET = 'k' }
  ffi.C.unsetenv('TOCHA_XLUA_LR')
  ffi.C.unsetenv('TOCHA_XLUA_NESTEROV')
  tester:assert(p.TOCHA_XLUA_LR == 0.5 and p.TOCHA_XLUA_NESTEROV == false and p.TOCHA_XLUA_UNSET == 'k', 'overrides')
end

function tests.optionParser()
  local arg0 = arg
  arg = { [0] = 'train.lua', '-n', '5', '--name=abc', '--learning-rate=0.3', '-v', 'rest' }
  local ok, err = pcall(function()
    local op = xlua.OptionParser('%prog [options]')
    op:option{ '-n', '--num', action = 'store', dest = 'num', default = 10, help = 'count' }
    op:option{ '--name', action = 'store', dest = 'name', help = 'a name' }
    op:option{ '--learning-rate', action = 'store', dest = 'lr', default = 0.1, help = 'the rate' }
    op:option{ '-v', action = 'store_true', dest = 'verbose', help = 'talk' }
    op:option{ '-q', action = 'store_false', dest = 'quiet', default = true, help = 'silence' }
    local opt, args = op:parse()
    tester:assert(opt.num == '5' and opt.name == 'abc' and opt.lr == '0.3', 'stored values are strings')
    tester:assert(opt.verbose == true and opt.quiet == true and opt.__main__ == true, 'flags and defaults')
    tester:assertTableEq(args, { 'rest' })
    tester:asserteq(op:flags(op.option_descriptions[2]), '-n NUM, --num=NUM')
    tester:asserteq(op:tostring(true, { '-n' }), '-n=5')
    local help = captured(function()
      local w = io.stdout
      io.stdout = { write = function(_, s) io.write(s) end }
      local ok2, e2 = pcall(op.help, op)
      io.stdout = w
      if not ok2 then error(e2, 0) end
    end)
    tester:assert(help:find('Usage: train.lua [options]', 1, true), help)
    tester:assert(help:find('-n NUM, --num=NUM', 1, true) and help:find('count [default = 10]', 1, true), help)
  end)
  arg = arg0
  if not ok then error(err, 0) end
end

function tests.profiler()
  local p = xlua.Profiler()
  p:start('a')
  sys.sleep(0.01)
  local r, c = p:lap('a')
  tester:assert(r >= 0.0095 and r < 1 and c >= 0, 'real and CPU seconds')
  tester:assert(p:formatAll():find('^%$ profiler report:\n%$ real [%d.]+ | cpu [%d.]+ <a>$'), p:formatAll())
  tester:assert(p:format('a'):find('<a>$'), p:format('a'))
  tester:assertErrorPattern(function() p:lap('nope') end, 'no event nope')
  tester:assertErrorPattern(function() p:displayAll{} end, 'Tocha has no Qt')
end

function tests.tableAndStringHelpers()
  local kept, removed = table.splice({ 1, 2, 3, 4 }, 2, 2)
  tester:assertTableEq(kept, { 1, 4 })
  tester:assertTableEq(removed, { 2, 3 })
  local pr = table.prune({ 1, 2, 2, 3, 3, 3 })
  table.sort(pr)
  tester:assertTableEq(pr, { 1, 2, 3 })
  tester:asserteq(string.tosymbol('math.pi'), math.pi)
  tester:assertError(function() string.tosymbol('no_such_global_xyz') end)
end

function tests.clearAndWho()
  rawset(_G, 'tocha_xlua_test_global', 1)
  local out = captured(xlua.who)
  tester:assert(out:find('Global Vars:', 1, true) and out:find('tocha_xlua_test_global', 1, true), 'who lists it')
  xlua.clear('tocha_xlua_test_global')
  tester:asserteq(rawget(_G, 'tocha_xlua_test_global'), nil)
end

tester:add(tests)
tester:run()
