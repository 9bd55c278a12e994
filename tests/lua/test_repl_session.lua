-- The REPL without a terminal (a script piped on stdin): results, `;`, `=expr`, several and nil
-- results, the REPL commands (?, %time, %timeit, timer, $), errors with the library's frames
-- hidden, abbreviated tensors; and the interrupt machinery run in-process (tocha.sigint).
local ffi = require 'ffi'
local tester = torch.Tester()
local tests = torch.TestSuite()

local I = dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/helpers/interpreter.lua')
local quote, TOCHA = I.quote, I.TOCHA

local function read_file(path)
  local f = io.open(path)
  local s = f:read('*a')
  f:close()
  return s
end

-- Runs the REPL with `stdin` piped in; returns stdout, stderr, exit status.
local function repl(stdin, env)
  local errfile, infile = os.tmpname(), os.tmpname()
  local f = io.open(infile, 'w')
  f:write(stdin)
  f:close()
  local p = io.popen((env or '') .. ' ' .. TOCHA .. ' <' .. infile .. ' 2>' .. errfile .. '; echo "__rc=$?"')
  local out = p:read('*a')
  p:close()
  local err = read_file(errfile)
  os.remove(errfile)
  os.remove(infile)
  local rc = tonumber(out:match('__rc=(%d+)\n$'))
  return (out:gsub('__rc=%d+\n$', '')), err, rc
end

local function has(s, plain) return s:find(plain, 1, true) ~= nil end

function tests.onlyResultsWhenPiped()
  local out, err, rc = repl('1 + 1\nx = 3\nx * 2\n')
  tester:asserteq(out, '2\n6\n', 'no banner, no prompt')
  tester:asserteq(err, '')
  tester:asserteq(rc, 0)
end

function tests.resultForms()
  local out = repl('1, nil, "s"\nreturn nil\n2 + 2;\n= 5\nlocal a = 1; return a\n{1, 2}\n')
  tester:asserteq(out, '1\tnil\ts\nnil\n5\n1\n{1, 2}\n')
end

function tests.unfinishedInputAtTheEnd()
  local out, err, rc = repl('1\nfor i = 1, 2 do\n')
  tester:asserteq(out, '1\n')
  tester:assert(has(err, "stdin:1: 'end' expected"), err)
  tester:asserteq(rc, 1, 'a piped session that failed exits 1 (Note [Piped REPL status])')
end

function tests.lastValue()
  local out = repl('40 + 2\n_LAST + 1\n')
  tester:asserteq(out, '42\n43\n')
end

function tests.errorsKeepState()
  local out, err, rc = repl('v = 1\nerror("boom")\nfunction f() local t = nil; return t.x end\nf()\nv + 1\n')
  tester:asserteq(out, '2\n')
  tester:assert(has(err, 'stdin:1: boom\n'), err)
  tester:assert(not err:find('boom\nstack traceback'), 'no traceback when only the typed line is left:\n' .. err)
  tester:assert(has(err, "stdin:1: attempt to index local 't'"), err)
  tester:assert(has(err, "stdin:1: in function 'f'"), err)
  tester:assert(not has(err, torch._lib.lua_root), 'no Tocha frames:\n' .. err)
  tester:asserteq(rc, 1, 'the session went on, and its status says a line failed')
end

function tests.libraryErrorsNameTheLine()
  local _, err = repl('torch.mm(torch.ones(2, 3), torch.ones(4, 5))\n')
  tester:assert(err:find('^stdin:1: %[mm%]'), err)
  tester:assert(not has(err, torch._lib.lua_root), err)
end

function tests.helpCommand()
  local out = repl('?torch.exp\ntorch.exp?\nhelp(torch.exp)\n?\n')
  local _, count = out:gsub('torch%.exp%(%[res,%] x%)', '')
  tester:asserteq(count, 3, out)
  tester:assert(has(out, 'Ctrl-D exits'), out)
end

function tests.timingCommands()
  local out = repl('%time torch.zeros(3):sum()\n%timeit local a = 1 + 1\ntimer on\n1\ntimer off\n2\n')
  tester:assert(out:find('^0\nWall time: [%d.]+ [mun]?s\n'), out)
  tester:assert(out:find('\n[%d.]+ [mun]?s per run %(best of 3 batches of %d+ runs%)\n'), out)
  tester:assert(out:find('\n1\n%s+%[%d+%.%d+s%]\n2\n$'), out)
end

function tests.shellCommand()
  local out = repl('$ echo from-the-shell\n$ exit 3\n1\n')
  tester:assert(out:find('^from%-the%-shell\n%[exit status 3%]\n1\n$'), out)
end

function tests.abbreviatedTensors()
  local out = repl('torch.range(1, 5000)\nprint(torch.range(1, 1002):size(1))\n')
  tester:assert(has(out, '  ...\n 4998\n'), out)
  tester:assert(has(out, '[torch.FloatTensor of size 5000]\n'), out)
  tester:assert(has(out, '1002\n'), out)
end

function tests.printPrettyPrintsTables()
  local out = repl('print({a = 1}, "x")\n')
  tester:asserteq(out, '{\n  a : 1\n}\tx\n')
end

function tests.noColoursWhenPiped()
  local out = repl('1\n', 'NO_COLOR=')
  tester:asserteq(out, '1\n')
end

-- ---- interrupts, in this process -----------------------------------------------------------
local ok_sig, sig = pcall(require, 'tocha.sigint')

function tests.interruptStopsTheNextTensorOp()
  if not ok_sig then return end
  local x = torch.zeros(3)
  sig.interrupt(false)  -- the flag only, as a host would raise it
  local ok, err = pcall(function() return x:add(1) end)
  tester:assert(not ok and has(err, '[interrupt] interrupted'), tostring(err))
  tester:assert((pcall(function() return x:add(1) end)), 'one request stops one op')
  tester:asserteq(x[1], 1)
end

function tests.interruptStopsAnInterpretedLoop()
  if not ok_sig then return end
  local ok, err = pcall(function()
    sig.interrupt()
    local n = 0
    while true do n = n + 1 end
  end)
  tester:assert(not ok and has(err, '[interrupt] interrupted'), tostring(err))
  sig.reset()
  tester:assert((pcall(function() return torch.zeros(2):add(1) end)), 'reset leaves nothing pending')
end

function tests.resetDropsARequest()
  if not ok_sig then return end
  sig.interrupt(false)
  sig.reset()
  tester:assert((pcall(function() return torch.zeros(2):add(1) end)))
end

tester:add(tests)
tester:run()
