-- Regressions found reviewing the `tocha` command line, the REPL's help, completion and error
-- reports (lua/tocha/*.lua, lua/torch/doc.lua) and the embedding API's Lua side
-- (lua/tocha/embed.lua). The executable is run through io.popen, as in test_cli.lua; the
-- embedding API is driven through the FFI from a child `tocha` (its interpreters then live in a
-- process of their own).
local ffi = require 'ffi'
local complete = require 'tocha.complete'
local help = require 'tocha.help'
local traceback = require 'tocha.traceback'
local tester = torch.Tester()
local tests = torch.TestSuite()

local I = dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/helpers/interpreter.lua')

local quote, TOCHA = I.quote, I.TOCHA
local LUA_ROOT = torch._lib.lua_root

local function read_file(path)
  local f = io.open(path)
  local s = f:read('*a')
  f:close()
  return s
end

local function write_file(path, text)
  local f = io.open(path, 'w')
  f:write(text)
  f:close()
end

-- Runs `[env] tocha <args>` with `stdin`; returns stdout, stderr and the exit status.
local function run(args, stdin, env)
  local errfile, infile = os.tmpname(), os.tmpname()
  write_file(infile, stdin or '')
  local p = io.popen((env or '') .. ' ' .. TOCHA .. ' ' .. args .. ' <' .. infile .. ' 2>' .. errfile .. '; echo "__rc=$?"')
  local out = p:read('*a')
  p:close()
  local err = read_file(errfile)
  os.remove(errfile)
  os.remove(infile)
  local rc = tonumber(out:match('__rc=(%d+)\n$'))
  return out:gsub('__rc=%d+\n$', ''), err, rc
end

-- A script in a temporary file; returns its path (removed by the caller).
local function script(text)
  local path = os.tmpname() .. '.lua'
  write_file(path, text)
  return path
end

local function has(s, plain) return s:find(plain, 1, true) ~= nil end

-- ---- the command line ---------------------------------------------------------------------------
function tests.argTableAsLuaC()
  local path = script('io.write(tostring(arg[-3]), "|", tostring(arg[-2]), "|", tostring(arg[-1]), "|", arg[0], "|",'
    .. ' #arg, "|", select("#", ...), "|", table.concat(arg, ","), "\\n")')
  local out, err, rc = run('-e "x=1" ' .. quote(path) .. ' a "b c"')
  tester:asserteq(out, TOCHA:sub(2, -2) .. '|-e|x=1|' .. path .. '|2|2|a,b c\n', err)
  tester:asserteq(rc, 0)
  os.remove(path)
end

function tests.exitCodesPassThrough()
  for code, want in pairs({ ['7'] = 7, ['true'] = 0, ['false'] = 1, ['0'] = 0 }) do
    local path = script('io.write("before ") os.exit(' .. code .. ')')
    local out, _, rc = run(quote(path))
    tester:asserteq(rc, want, 'os.exit(' .. code .. ')')
    tester:asserteq(out, 'before ', 'output is flushed by os.exit(' .. code .. ')')
    os.remove(path)
  end
end

-- Note [Error objects]: a __tostring that raises made the handler raise: "error in error handling".
function tests.errorObjectsThatAreNotStrings()
  local cases = {
    { 'error(nil)', '(error object is a nil value)' },
    { 'error(setmetatable({}, {__tostring = function() error("ts") end}))',
      '(error object is a table value whose __tostring failed: ' },
    { 'error(setmetatable({}, {__tostring = function() return {} end}))',
      '(error object is a table value whose __tostring returned a table)' },
    { 'error(setmetatable({}, {__tostring = function() return "custom" end}))', 'custom' },
    { 'error({code = 3})', 'table: 0x' },
  }
  for _, c in ipairs(cases) do
    local path = script('local x = 1\n' .. c[1] .. '\n')
    local out, err, rc = run(quote(path))
    tester:asserteq(out, '')
    tester:assert(has(err, c[2]), c[1] .. ' -> ' .. err)
    tester:assert(not has(err, 'error in error handling'), err)
    tester:assert(has(err, path .. ':2: in main chunk'), 'the traceback names the line: ' .. err)
    tester:asserteq(rc, 1, c[1])
    os.remove(path)
    -- the REPL reports it and goes on
    out, err, rc = run('-q', c[1] .. '\nprint("alive")\n')
    tester:assert(has(err, c[2]) and not has(err, 'error in error handling'), 'REPL: ' .. err)
    tester:asserteq(out, 'alive\n')
    tester:asserteq(rc, 1, 'and exits 1 (Note [Piped REPL status])')
  end
  -- the handler itself, as the embedding API's host handler calls it
  local bad = setmetatable({}, { __tostring = function() error('nope', 0) end })
  local ok, text = pcall(traceback.traceback, bad)
  tester:assert(ok and has(text, 'whose __tostring failed: nope'), tostring(text))
end

-- Note [Long library paths]: with the library installed under a long prefix, tracebacks show its
-- files as ".../torch/...", and its frames (and cli.lua's) leaked into every report.
function tests.libraryFramesHiddenUnderALongPrefix()
  local base = os.tmpname()
  os.remove(base)
  local root = base .. '_a_rather_long_installation_prefix/share/tocha'
  os.execute('mkdir -p ' .. quote(root) .. ' && ln -s ' .. quote(LUA_ROOT) .. ' ' .. quote(root .. '/lua'))
  local path = script('local d = torch.distributions.Normal(0, 1)\nprint(d:logProb("x"))\n')
  local out, err, rc = run(quote(path), nil, 'TOCHA_LUA_PATH=' .. quote(root .. '/lua'))
  os.execute('rm -rf ' .. quote(base .. '_a_rather_long_installation_prefix'))
  os.remove(path)
  tester:asserteq(out, '')
  tester:assert(has(err, path .. ':2: [distributions.Normal] value must be a number or a tensor'), err)
  tester:assert(has(err, path .. ':2: in main chunk'), err)
  tester:assert(not has(err, '...') and not has(err, 'cli.lua') and not has(err, 'lib.lua'),
    'no library frames:\n' .. err)
  tester:asserteq(rc, 1)
end

function tests.stackOverflowReportIsQuick()
  -- A version of the filter that read every level of the stack (O(depth^2)) took 5 s to report
  -- a stack overflow (run as a script: in-process the handler's room depends on the caller).
  local path = script('local function f() return 1 + f() end\nf()\n')
  local timer = torch.Timer()
  local out, err, rc = run(quote(path))
  local seconds = timer:time().real
  os.remove(path)
  -- LuaJIT leaves the handler so little stack that about 1 run in 4 reports "error in error
  -- handling" instead (as before this review; reported): either is accepted here.
  tester:assert(has(err, 'error in error handling') or
    (has(err, path .. ':1: stack overflow') and has(err, "in function 'f'")), err)
  tester:asserteq(rc, 1)
  tester:assert(seconds < 2.5, string.format('%.2f s', seconds))
end

function tests.shebangLines()
  local body = '#!/usr/bin/env tocha\nprint("ran", ...)\n'
  local path = script(body)
  local out, err, rc = run(quote(path) .. ' 1')
  tester:asserteq(out, 'ran\t1\n', err)
  tester:asserteq(rc, 0)
  os.remove(path)
  out, err = run('- 2', body)
  tester:asserteq(out, 'ran\t2\n', err)
  -- `tocha < script.lua` reads it line by line: the #! line is skipped there too, and a line
  -- starting with the length operator still shows its value
  out, err, rc = run('', body)
  tester:asserteq(out, 'ran\n')
  tester:asserteq(err, '')
  tester:asserteq(rc, 0)
  out = run('-q', 't = {1, 2}\n#t\n')
  tester:asserteq(out, '2\n')
end

function tests.interactiveAfterAFailingScriptExits()
  -- lua.c and th: a failing script ends tocha even with -i (its status is the error's).
  local path = script('error("stop")\n')
  local out, err, rc = run('-i ' .. quote(path), 'print("repl ran")\n')
  os.remove(path)
  tester:assert(not has(out, 'repl ran'), out)
  tester:assert(has(err, 'stop'), err)
  tester:asserteq(rc, 1)
end

-- ---- help and doc ------------------------------------------------------------------------------
function tests.helpOnValuesWithoutIdentity()
  -- help(true) was named after the first `true` field of torch ("torch._loaded: boolean true")
  tester:asserteq(help.describe(true), 'boolean true')
  tester:asserteq(help.describe(0), 'number 0')
  tester:asserteq(help.describe('float'), 'string float')
  -- help(nil) said "nil is nil"
  tester:assert(help.describe(nil):find('^help: got nil'), help.describe(nil))
  tester:asserteq(help.describe(nil, 'torch.nosuch'), 'torch.nosuch is nil')
end

function tests.helpSaysWhichPartIsMissing()
  tester:asserteq(help.missing('torch.nosuch'), 'torch.nosuch is nil')
  tester:asserteq(help.missing('torch.nosuch.deeper'), 'torch.nosuch.deeper is nil: torch.nosuch is nil')
  tester:asserteq(help.missing('no_such_global_xyz.f'), 'no_such_global_xyz.f is nil: no_such_global_xyz is nil')
  tester:asserteq(help.missing('no_such_global_xyz:f'), 'no_such_global_xyz:f is nil: no_such_global_xyz is nil')
  -- a Tocha module that is not loaded yet says how to load it (optim is not loaded by torch)
  if rawget(_G, 'optim') == nil then
    tester:asserteq(help.missing('optim.sgd'), "optim.sgd is nil: optim is not loaded (require 'optim' loads it)")
  end
  local out = run('-q', '?nn.Linear\n?torch.nosuch\n')
  tester:assert(has(out, "nn.Linear is nil: nn is not loaded (require 'nn' loads it)"), out)
  tester:assert(has(out, 'torch.nosuch is nil\n'), out)
end

function tests.helpOnFunctionsTypedAsExpressions()
  -- `?(f)` for an undocumented Lua function raised in doc.lua ("concatenate local 'short'")
  local function undocumented_rv(a, b) return a, b end
  local ok, s = pcall(help.describe, undocumented_rv, '(undocumented_rv)')
  tester:assert(ok and has(s, 'No documentation yet.'), tostring(s))
  local out, err = run('-q', 'function g_rv(a) end\n?(g_rv)\n')
  tester:assert(has(out, 'No documentation yet.'), out .. err)
  tester:asserteq(err, '')
end

function tests.docRegisterChecksItsArguments()
  for _, args in ipairs({ { 'torch.rvX', 5 }, { 'torch.rvX', 'torch.rvX()', {} }, { 'torch.rvX', 'torch.rvX()', 't', 1 } }) do
    local ok, err = pcall(torch.doc.register, unpack(args))
    tester:assert(not ok and has(err, 'torch.doc.register: ') and has(err, 'must be a string or nil'), tostring(err))
  end
  -- a class whose constructor has a signature-only doc: its help raised (wrap(nil))
  local Cls = torch.class('rvHelpClass')
  function Cls:__init() end
  torch.doc.register(Cls.__init, 'rvHelpClass()')
  local ok, s = pcall(help.describe, rawget(_G, 'rvHelpClass'))
  tester:assert(ok and has(s, 'rvHelpClass (class)'), tostring(s))
end

-- ---- completion never raises -----------------------------------------------------------------------
function tests.completionOnHostileObjects()
  pcall(ffi.cdef, 'typedef struct { int a; } rv_cli_point;')
  pcall(ffi.metatype, 'rv_cli_point', { __index = function() error('cdata __index ran') end })
  local ud = newproxy(true)
  getmetatable(ud).__index = function() error('userdata __index ran') end
  local globals = {
    rv_bad = setmetatable({}, { __index = function() error('__index ran') end }),
    rv_bad2 = setmetatable({}, { __index = setmetatable({ deep = 1 }, { __index = function() error('deep ran') end }) }),
    rv_locked = setmetatable({}, { __metatable = 'locked', __index = { abc = 1 } }),
    rv_cyc = setmetatable({}, {}), rv_ud = ud, rv_cd = ffi.new('rv_cli_point'), rv_arr = ffi.new('int[3]'),
    rv_lazy_bad = setmetatable({}, { __lazy = { foo = 'no.such.module.rv' } }), rv_lazy_odd = setmetatable({}, { __lazy = 5 }),
    rv_file = io.stdout, rv_thread = coroutine.create(print), rv_num = 5,
  }
  getmetatable(globals.rv_cyc).__index = globals.rv_cyc
  for k, v in pairs(globals) do _G[k] = v end
  for name in pairs(globals) do
    for _, suffix in ipairs({ '.', ':', '.x', '.x.', ':x', '.deep.' }) do
      local ok, r = pcall(complete.candidates, name .. suffix)
      tester:assert(ok and type(r) == 'table', name .. suffix .. ': ' .. tostring(r))
    end
  end
  tester:assertTableEq(complete.candidates('rv_locked.a'), { 'rv_locked.abc' })
  tester:assertTableEq(complete.candidates('rv_bad2.d'), { 'rv_bad2.deep' })
  tester:assertTableEq(complete.candidates('rv_lazy_bad.f'), { 'rv_lazy_bad.foo' })
  for k in pairs(globals) do _G[k] = nil end
end

-- ---- the embedding API ------------------------------------------------------------------------------
local EMBED_CHILD = [==[
local ffi = require 'ffi'
ffi.cdef[[
typedef struct tocha_interp tocha_interp;
typedef struct tocha_value { int type; int boolean; double number; const char *string; tocha_tensor *tensor; } tocha_value;
tocha_value tocha_value_number(double x);
tocha_value tocha_value_string(const char *s);
void tocha_value_clear(tocha_value *v);
tocha_interp *tocha_interp_new(const char *lua_dir);
void tocha_interp_free(tocha_interp *interp);
int tocha_interp_run_string(tocha_interp *interp, const char *code, const char *chunkname);
int tocha_interp_call(tocha_interp *interp, const char *name, const tocha_value *args, int nargs, tocha_value *results, int nresults);
int tocha_interp_set_global(tocha_interp *interp, const char *name, const tocha_value *value);
int tocha_interp_get_global(tocha_interp *interp, const char *name, tocha_value *value);
const char *tocha_interp_error(const tocha_interp *interp);
]]
local C = torch._lib.C
local I = C.tocha_interp_new(nil)
local function err() return ffi.string(C.tocha_interp_error(I)) end
local function say(...) io.write(table.concat({ ... }, '|'), '\n') end
assert(C.tocha_interp_run_string(I, 't = {a = {b = 5}} s = "abc" function f(x) return x * 2, "two" end m = {g = f}', nil) == 0)
local v = ffi.new('tocha_value[1]')
for _, name in ipairs({ 't.a.b', '', 'x.', 't..a.b', '.t' }) do
  local rc = C.tocha_interp_get_global(I, name, v)
  say('get', name, rc, rc == 0 and v[0].number or err())
end
local seven = ffi.new('tocha_value[1]', { C.tocha_value_number(7) })
for _, name in ipairs({ 'y', 'y.', '', 't..a.c', 'nosuch.c', 's.c' }) do
  local rc = C.tocha_interp_set_global(I, name, seven)
  say('set', name, rc, rc == 0 and 'ok' or err())
end
C.tocha_interp_run_string(I, 'io.write("globals|", tostring(rawget(_G, "y.")), "|", tostring(rawget(_G, "")), "|", tostring(y), "\\n")', nil)
local res = ffi.new('tocha_value[2]')
for _, name in ipairs({ 'f', 'm.g', '', 'm.', 'm..g', 's', 'm' }) do
  local rc = C.tocha_interp_call(I, name, seven, 1, res, 2)
  -- a Lua error's message is the interpreter's; a refused call's (TOCHA_EINVAL) is tocha_last_error's
  local why = rc == 4 and err() or ffi.string(C.tocha_last_error())
  say('call', name, rc, rc == 0 and (res[0].number .. ',' .. ffi.string(res[1].string)) or why)
end
local rc = C.tocha_interp_run_string(I, 'error(setmetatable({}, {__tostring = function() error("ts", 0) end}))', 'hostile')
say('tostring', rc, err():match('^[^\n]*'))
rc = C.tocha_interp_run_string(I, 'error(nil)', 'hostile')
say('nil', rc, err():match('^[^\n]*'))
C.tocha_interp_free(I)
]==]

function tests.embedNamesAndErrors()
  local path = script(EMBED_CHILD)
  local out, err, rc = run(quote(path))
  os.remove(path)
  tester:asserteq(rc, 0, err)
  local lines = {}
  for line in out:gmatch('[^\n]+') do lines[#lines + 1] = line end
  local function line(prefix)
    for _, l in ipairs(lines) do if l:sub(1, #prefix) == prefix then return l end end
    return 'missing: ' .. prefix .. '\n' .. out .. err
  end
  tester:asserteq(line('get|t.a.b|'), 'get|t.a.b|0|5')
  -- Note [Dotted names]: names with an empty part were read as other names, or set odd globals
  for _, op in ipairs({ 'get|', 'set|', 'call|' }) do
    for _, name in ipairs({ '', 'x.', 'y.', 't..a.b', 't..a.c', '.t', 'm.', 'm..g' }) do
      local l = line(op .. name .. '|')
      if not l:find('^missing') then
        tester:assert(has(l, '|4|[embed] bad global name "' .. name .. '"'), l)
      end
    end
  end
  tester:asserteq(line('globals|'), 'globals|nil|nil|7', 'no global named "y." or ""')
  tester:asserteq(line('set|nosuch.c|'), 'set|nosuch.c|4|[embed] cannot set nosuch.c: nosuch is nil')
  tester:asserteq(line('set|s.c|'), 'set|s.c|4|[embed] cannot set s.c: s is a string, not a table')
  tester:asserteq(line('call|f|'), 'call|f|0|14,two')
  tester:asserteq(line('call|m.g|'), 'call|m.g|0|14,two')
  tester:asserteq(line('tostring|'), 'tostring|4|(error object is a table value whose __tostring failed: ts)')
  tester:asserteq(line('nil|'), 'nil|4|(error object is a nil value)')
  -- Calling a global that is not a function ("s", a string; "m", a table) said only "attempt to
  -- call a string value", not which name (bindings/capi_embed.cpp's tocha_interp_call).
  tester:assert(has(line('call|s|'), 's is a string'), line('call|s|'))
  tester:assert(has(line('call|m|'), 'm is a table'), line('call|m|'))
end

tester:add(tests)
tester:run()
