-- torch.Tester and torch.TestSuite with Torch7's API: suites of named test functions, assertions
-- with an optional tolerance and message in either order, and a run() that prints one line per
-- test and raises an error when anything failed (so a script exits non-zero).
local torch = require 'torch.env'
local types = require 'torch.types'
local is_tensor = types.is_tensor

-- ---- TestSuite: a table of test functions that refuses duplicates and non-functions --------
local TestSuite = {}
TestSuite.__index = TestSuite
TestSuite.__newindex = function(t, k, v)
  if type(v) ~= 'function' then error("only functions can be added to a TestSuite (got '" .. k .. "')", 2) end
  if rawget(t, '__tests')[k] ~= nil then error("test '" .. k .. "' is already defined", 2) end
  rawget(t, '__tests')[k] = v
  table.insert(rawget(t, '__order'), k)
end
--- torch.TestSuite(): a new empty suite, a table where test functions are stored by name
--- (tests.name = function() ... end); assigning a non-function or a name already defined is an
--- error. Hand it to Tester:add, which runs the tests in the order they were defined.
--- Example: local tests = torch.TestSuite(); function tests.adds() assert(1 + 1 == 2) end; return tests
function torch.TestSuite()
  local s = { __tests = {}, __order = {}, __isTestSuite = true }  -- Torch7's marker field
  return setmetatable(s, {
    __newindex = TestSuite.__newindex,
    __index = function(t, k) return rawget(t, '__tests')[k] end,
    __typename = 'torch.TestSuite',
  })
end

-- ---- Tester ----------------------------------------------------------------------------------
local Tester = {}
Tester.__index = Tester
Tester.__typename = 'torch.Tester'

--- torch.Tester(): a new test runner (Torch7's API). Add tests with tester:add(fn [, name]),
--- a table or a TestSuite; check with tester:assert(cond [, msg]), asserteq, assertlt,
--- assertError... and assertalmosteq, assertTensorEq... (these take a tolerance and a message in
--- either order; two of one kind or a negative tolerance is an error); tester:run([names]) runs
--- all tests or those matching the names (string.match; a name matching none is an error), prints
--- one line per test and Torch7's summary, and raises an error if any failed. A test named
--- '_setUp' or '_tearDown' runs before/after each test instead. setEarlyAbort(true) stops after the
--- first failing test, setRethrowErrors(true) lets failures and errors through, setSummaryOnly(true)
--- leaves out the failure messages.
--- Example: local t = torch.Tester(); t:add(function() t:asserteq(1 + 1, 2) end, 'adds'); t:run()
function torch.Tester()
  return setmetatable({ tests = {}, names = {}, disabled = {}, earlyAbort = false, rethrow = false,
                        summaryOnly = false, assertions = 0, failures = {}, errors = {} }, Tester)
end

-- Registered like a torch.class class (torch.getmetatable('torch.Tester'), torch.factory).
torch._register_metatable('torch.Tester', Tester)

-- Torch7's rule (getToleranceAndMessage): after the values, a number is a tolerance and a
-- string a message, in either order. Like Torch7, two of one kind, a negative tolerance or a value
-- of another type is an error (a boolean or a second number was silently dropped, comparing at
-- tolerance 0 or at the wrong one).
local function tol_msg(default_tol, a, b, op)
  local tol, msg
  for _, v in pairs({ a, b }) do
    if type(v) == 'number' then
      if tol then error(string.format('[Tester:%s] two tolerances given (%s and %s)', op, tostring(tol), tostring(v)), 3) end
      if not (v >= 0) then error(string.format('[Tester:%s] tolerance must be >= 0, got %s', op, tostring(v)), 3) end
      tol = v
    elseif type(v) == 'string' then
      if msg then error(string.format("[Tester:%s] two messages given ('%s' and '%s')", op, msg, v), 3) end
      msg = v
    elseif v ~= nil then
      error(string.format('[Tester:%s] expected a tolerance (number) or a message (string), got %s', op, type(v)), 3)
    end
  end
  return tol or default_tol, msg or ''
end

function Tester:_record(ok, message, level)
  if not ok then
    -- The assert methods tail-call _record, so fixed levels land in xpcall: take the first
    -- frame outside this file instead.
    local here, lvl, info = debug.getinfo(1, 'S').source, level or 2, nil
    repeat
      info = debug.getinfo(lvl, 'Sl')
      lvl = lvl + 1
    until not info or info.source ~= here
    local where = info and (info.short_src .. ':' .. (info.currentline or '?')) or '?'
    -- Outside run() there is no test to charge the failure to (it crashed on a nil list), and
    -- setRethrowErrors raises failures at once, as Torch7's _failure does.
    if not self.current_failures or self.rethrow then error(where .. ': ' .. message, 0) end
    table.insert(self.current_failures, where .. ': ' .. message)
  end
  if self.current_failures then self.assertions = self.assertions + 1 end
  return ok
end

function Tester:setEarlyAbort(v) self.earlyAbort = v ~= false end
function Tester:setRethrowErrors(v) self.rethrow = v ~= false end
function Tester:setSummaryOnly(v) self.summaryOnly = v ~= false end

function Tester:assert(cond, msg)
  return self:_record(cond and true or false, 'assertion failed' .. (msg and (': ' .. msg) or ''))
end
function Tester:assertlt(a, b, msg) return self:_record(a < b, string.format('%s < %s failed %s', tostring(a), tostring(b), msg or '')) end
function Tester:assertgt(a, b, msg) return self:_record(a > b, string.format('%s > %s failed %s', tostring(a), tostring(b), msg or '')) end
function Tester:assertle(a, b, msg) return self:_record(a <= b, string.format('%s <= %s failed %s', tostring(a), tostring(b), msg or '')) end
function Tester:assertge(a, b, msg) return self:_record(a >= b, string.format('%s >= %s failed %s', tostring(a), tostring(b), msg or '')) end
function Tester:asserteq(a, b, msg) return self:_record(a == b, string.format('%s == %s failed %s', tostring(a), tostring(b), msg or '')) end
function Tester:assertne(a, b, msg) return self:_record(a ~= b, string.format('%s ~= %s failed %s', tostring(a), tostring(b), msg or '')) end
function Tester:assertalmosteq(a, b, x, y)
  local tol, msg = tol_msg(1e-16, x, y, 'assertalmosteq')
  local d = math.abs(a - b)
  return self:_record(d <= tol, string.format('|%s - %s| = %g > %g %s', tostring(a), tostring(b), d, tol, msg))
end

-- Max absolute difference between two tensors of the same size (nil and a reason otherwise).
local function tensor_diff(a, b)
  if not a:isSameSizeAs(b) then
    return nil, 'sizes differ: ' .. types.shape_str(a.p) .. ' vs ' .. types.shape_str(b.p)
  end
  if a:nElement() == 0 then return 0 end
  local x, y = a:double(), b:double()
  local d = torch.add(x, -1, y):abs()
  local m = 0
  local nan_mismatch = false
  d:apply(function(v) if v ~= v then nan_mismatch = true elseif v > m then m = v end end)
  if nan_mismatch then
    -- NaN in the same places compares equal (like PyTorch's equal_nan).
    local ok = true
    x:map(y, function(u, v) if (u ~= u) ~= (v ~= v) then ok = false end end)
    if not ok then return math.huge end
  end
  return m
end
torch._tensor_max_diff = tensor_diff

function Tester:assertTensorEq(a, b, x, y)
  local tol, msg = tol_msg(0, x, y, 'assertTensorEq')
  if not is_tensor(a) or not is_tensor(b) then
    return self:_record(false, 'assertTensorEq expects two tensors ' .. msg)
  end
  local d, why = tensor_diff(a, b)
  if not d then return self:_record(false, why .. ' ' .. msg) end
  return self:_record(d <= tol, string.format('tensors differ by %g > %g %s', d, tol, msg))
end
function Tester:assertTensorNe(a, b, x, y)
  local tol, msg = tol_msg(0, x, y, 'assertTensorNe')
  local d = tensor_diff(a, b)
  return self:_record(d == nil or d > tol, 'tensors are equal ' .. msg)
end

-- Deep comparison used by eq/ne and the table assertions.
local function general_eq(a, b, tol, seen)
  if is_tensor(a) and is_tensor(b) then
    local d = tensor_diff(a, b)
    return d ~= nil and d <= tol
  end
  if type(a) == 'number' and type(b) == 'number' then
    if a ~= a and b ~= b then return true end
    return a == b or math.abs(a - b) <= tol
  end
  if type(a) == 'table' and type(b) == 'table' then
    seen = seen or {}
    if seen[a] == b then return true end
    seen[a] = b
    for k, v in pairs(a) do if not general_eq(v, b[k], tol, seen) then return false end end
    for k in pairs(b) do if a[k] == nil then return false end end
    return true
  end
  if torch.isStorage(a) and torch.isStorage(b) then
    return general_eq(a:totable(), b:totable(), tol, seen)
  end
  return a == b
end
torch._general_eq = general_eq

local function show(v)
  if is_tensor(v) then return tostring(v) end
  if type(v) == 'table' then
    local parts = {}
    for k, x in pairs(v) do parts[#parts + 1] = tostring(k) .. '=' .. tostring(x) end
    return '{' .. table.concat(parts, ', ') .. '}'
  end
  return tostring(v)
end

function Tester:assertGeneralEq(got, expected, x, y)
  local tol, msg = tol_msg(0, x, y, 'assertGeneralEq')
  return self:_record(general_eq(got, expected, tol),
    string.format('%s\n  got:      %s\n  expected: %s', msg, show(got), show(expected)))
end
Tester.eq = Tester.assertGeneralEq
function Tester:assertGeneralNe(got, unexpected, x, y)
  local tol, msg = tol_msg(0, x, y, 'assertGeneralNe')
  return self:_record(not general_eq(got, unexpected, tol), string.format('%s\n  both are %s', msg, show(got)))
end
Tester.ne = Tester.assertGeneralNe
function Tester:assertTableEq(a, b, x, y)
  local tol, msg = tol_msg(0, x, y, 'assertTableEq')
  return self:_record(type(a) == 'table' and type(b) == 'table' and general_eq(a, b, tol),
    string.format('tables differ %s\n  got:      %s\n  expected: %s', msg, show(a), show(b)))
end
function Tester:assertTableNe(a, b, x, y)
  local tol, msg = tol_msg(0, x, y, 'assertTableNe')
  return self:_record(not general_eq(a, b, tol), 'tables are equal ' .. msg)
end

function Tester:assertError(f, msg)
  local ok = pcall(f)
  return self:_record(not ok, 'expected an error ' .. (msg or ''))
end
function Tester:assertNoError(f, msg)
  local ok, err = pcall(f)
  return self:_record(ok, 'unexpected error: ' .. tostring(err) .. ' ' .. (msg or ''))
end
function Tester:assertErrorMsg(f, errmsg, msg)
  local ok, err = pcall(f)
  return self:_record(not ok and tostring(err) == errmsg,
    string.format('expected error "%s", got %s %s', errmsg, ok and 'no error' or ('"' .. tostring(err) .. '"'), msg or ''))
end
function Tester:assertErrorPattern(f, pattern, msg)
  local ok, err = pcall(f)
  return self:_record(not ok and tostring(err):find(pattern) ~= nil,
    string.format('expected an error matching "%s", got %s %s', pattern, ok and 'no error' or ('"' .. tostring(err) .. '"'), msg or ''))
end
function Tester:assertErrorObj(f, errcomp, msg)
  local ok, err = pcall(f)
  return self:_record(not ok and errcomp(err), 'error object did not match ' .. (msg or ''))
end

--- Adds a function (with a name), a table of functions or a TestSuite. The names '_setUp' and
--- '_tearDown' are not tests: those functions run before and after every test, with its name.
function Tester:add(f, name)
  if type(f) == 'table' then
    if name ~= nil then error('[Tester:add] a table of tests takes no name (its keys name the tests)', 2) end
    local tests = rawget(f, '__tests')
    local keys = tests and rawget(f, '__order') or {}
    if not tests then
      tests = f
      for k in pairs(f) do keys[#keys + 1] = k end
      -- list indices in order, then names (mixed keys made table.sort raise)
      table.sort(keys, function(x, y)
        if type(x) == 'number' and type(y) == 'number' then return x < y end
        if type(x) == 'number' or type(y) == 'number' then return type(x) == 'number' end
        return tostring(x) < tostring(y)
      end)
    end
    for _, k in ipairs(keys) do
      if type(tests[k]) == 'table' then error("[Tester:add] nested tables of tests are not supported (at '" .. tostring(k) .. "')", 2) end
      self:add(tests[k], tostring(k))
    end
    return self
  end
  if type(f) ~= 'function' then error('[Tester:add] expects a function, a table or a TestSuite, got ' .. type(f), 2) end
  if name == '_setUp' or name == '_tearDown' then
    if self[name] then error('[Tester:add] only one ' .. name .. ' function is allowed', 2) end
    self[name] = f
    return self
  end
  name = name or ('test' .. (#self.names + 1))
  if self.tests[name] then error("[Tester:add] test '" .. name .. "' is already added", 2) end
  self.tests[name] = f
  self.names[#self.names + 1] = name
  return self
end

--- Marks tests (a name or a list of names) to be skipped by run(); a name that is no test by then
--- is an error of run() (so disable may come before add, and a misspelt name is still caught).
function Tester:disable(names)
  if type(names) == 'string' then names = { names } end
  if type(names) ~= 'table' then error('[Tester:disable] expects a test name or a list of names, got ' .. type(names), 2) end
  for _, n in ipairs(names) do self.disabled[n] = true end
  return self
end

-- The tests run(filter) runs, in the order they were added: all, or those whose names equal or
-- match (string.match) one of the filter's names; a name that matches nothing is an error, as in
-- Torch7 (a misspelt name ran no test and passed).
local function select_tests(self, filter)
  for n in pairs(self.disabled) do
    if not self.tests[n] then error("[Tester:disable] unknown test '" .. tostring(n) .. "'", 3) end
  end
  if filter == nil then return self.names end
  if type(filter) == 'string' then filter = { filter } end
  if type(filter) ~= 'table' then error('[Tester:run] expects a test name or a list of names, got ' .. type(filter), 3) end
  local chosen = {}
  for _, pat in ipairs(filter) do
    local found = false
    for _, name in ipairs(self.names) do
      if name == pat or name:match(pat) then chosen[name], found = true, true end
    end
    if not found then error("[Tester:run] couldn't find test '" .. tostring(pat) .. "'", 3) end
  end
  local todo = {}
  for _, name in ipairs(self.names) do if chosen[name] then todo[#todo + 1] = name end end
  return todo
end

-- Note [Tester runs as Torch7's]: the run follows Tester.lua: setSummaryOnly(true) keeps the
-- per-test lines and drops the messages (it dropped the lines), setEarlyAbort lets the failing test
-- finish and then stops (it raised inside the test at its first failed assertion, which a pcall in
-- the test could swallow), setRethrowErrors raises failed assertions too and lets a test's error
-- object through untouched, and asserts are counted per run.
local function plural(n, word) return n .. ' ' .. word .. (n == 1 and '' or 's') end

--- Runs the tests (all, or those whose names match the given names/patterns) and prints Torch7's
--- report: one line per test, then 'Completed N asserts in M tests with F failures and E errors'
--- (and 'and D disabled'), then the messages unless setSummaryOnly(true). Raises an error when a
--- test failed or raised one.
function Tester:run(filter)
  local todo = select_tests(self, filter)
  local n = #todo
  local width = #tostring(n)
  self.assertions = 0   -- this run's count (it grew over runs)
  io.write('Running ', plural(n, 'test'), '\n')
  local nfail, nerr, nskip, nbad = 0, 0, 0, 0
  local reports = {}
  for i, name in ipairs(todo) do
    local status
    if self.disabled[name] then
      status = 'SKIP'
      nskip = nskip + 1
    else
      self.current_failures = {}
      if self._setUp then self._setUp(name) end
      local ok, err
      if self.rethrow then
        -- Torch7 calls the test unprotected: its error (any object) reaches the caller as it is.
        ok = true
        self.tests[name]()
      else
        ok, err = xpcall(self.tests[name], function(e) return debug.traceback(tostring(e), 2) end)
      end
      if self._tearDown then self._tearDown(name) end
      local failed = self.current_failures
      self.current_failures = nil
      if #failed > 0 then nfail = nfail + 1 end
      if not ok then
        status = 'ERROR'
        nerr = nerr + 1
        -- failures recorded before the error are reported too (they were dropped)
        failed[#failed + 1] = 'Function call failed\n' .. err
      elseif #failed > 0 then
        status = 'FAIL'
      else
        status = 'PASS'
      end
      if status ~= 'PASS' then nbad = nbad + 1 end
      if #failed > 0 then reports[#reports + 1] = name .. '\n  ' .. table.concat(failed, '\n  ') end
      collectgarbage()
    end
    -- Torch7's line: 'i/n name ' and dots to column 74, then the status
    local label = string.format('%' .. width .. 'd/%d %s ', i, n, name)
    io.write(label, string.rep('.', math.max(3, 73 - #label)), ' [', status, ']\n')
    if (status == 'FAIL' or status == 'ERROR') and self.earlyAbort and i < n then
      io.write('Aborting on first error, not all tests have been executed\n')
      break
    end
  end
  io.write('Completed ', plural(self.assertions, 'assert'), ' in ', plural(n, 'test'), ' with ',
    plural(nfail, 'failure'), ' and ', plural(nerr, 'error'), nskip > 0 and (' and ' .. nskip .. ' disabled') or '', '\n')
  -- setSummaryOnly(true) leaves out the messages (Torch7); the per-test lines are always printed
  if not self.summaryOnly then
    for _, r in ipairs(reports) do io.write(string.rep('-', 80), '\n', r, '\n') end
  end
  if nbad > 0 then
    error(string.format('%d test%s failed', nbad, nbad == 1 and '' or 's'), 0)
  end
  return self
end

return torch
