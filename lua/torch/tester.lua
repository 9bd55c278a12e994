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
  local s = { __tests = {}, __order = {} }
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
--- either order); tester:run([names]) prints one line per test and raises an error if any failed.
--- Example: local t = torch.Tester(); t:add(function() t:asserteq(1 + 1, 2) end, 'adds'); t:run()
function torch.Tester()
  return setmetatable({ tests = {}, names = {}, disabled = {}, earlyAbort = false, rethrow = false,
                        summaryOnly = false, assertions = 0, failures = {}, errors = {} }, Tester)
end

-- Torch7's rule: after the values, a number is a tolerance and a string a message, either order.
local function tol_msg(default_tol, a, b)
  local tol, msg = default_tol, ''
  for _, v in ipairs({ a, b }) do
    if type(v) == 'number' then tol = v elseif type(v) == 'string' then msg = v end
  end
  return tol, msg
end

function Tester:_record(ok, message, level)
  self.assertions = self.assertions + 1
  if not ok then
    -- The assert methods tail-call _record, so fixed levels land in xpcall: take the first
    -- frame outside this file instead.
    local here, lvl, info = debug.getinfo(1, 'S').source, level or 2, nil
    repeat
      info = debug.getinfo(lvl, 'Sl')
      lvl = lvl + 1
    until not info or info.source ~= here
    local where = info and (info.short_src .. ':' .. (info.currentline or '?')) or '?'
    table.insert(self.current_failures, where .. ': ' .. message)
    if self.earlyAbort then error('__tester_early_abort__', 0) end
  end
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
  local tol, msg = tol_msg(1e-16, x, y)
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
  local tol, msg = tol_msg(0, x, y)
  if not is_tensor(a) or not is_tensor(b) then
    return self:_record(false, 'assertTensorEq expects two tensors ' .. msg)
  end
  local d, why = tensor_diff(a, b)
  if not d then return self:_record(false, why .. ' ' .. msg) end
  return self:_record(d <= tol, string.format('tensors differ by %g > %g %s', d, tol, msg))
end
function Tester:assertTensorNe(a, b, x, y)
  local tol, msg = tol_msg(0, x, y)
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
  local tol, msg = tol_msg(0, x, y)
  return self:_record(general_eq(got, expected, tol),
    string.format('%s\n  got:      %s\n  expected: %s', msg, show(got), show(expected)))
end
Tester.eq = Tester.assertGeneralEq
function Tester:assertGeneralNe(got, unexpected, x, y)
  local tol, msg = tol_msg(0, x, y)
  return self:_record(not general_eq(got, unexpected, tol), string.format('%s\n  both are %s', msg, show(got)))
end
Tester.ne = Tester.assertGeneralNe
function Tester:assertTableEq(a, b, x, y)
  local tol, msg = tol_msg(0, x, y)
  return self:_record(type(a) == 'table' and type(b) == 'table' and general_eq(a, b, tol),
    string.format('tables differ %s\n  got:      %s\n  expected: %s', msg, show(a), show(b)))
end
function Tester:assertTableNe(a, b, x, y)
  local tol, msg = tol_msg(0, x, y)
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

--- Adds a function (with a name), a table of functions or a TestSuite.
function Tester:add(f, name)
  if type(f) == 'table' then
    local tests = rawget(f, '__tests')
    if tests then
      for _, k in ipairs(rawget(f, '__order')) do self:add(tests[k], k) end
    else
      local keys = {}
      for k in pairs(f) do keys[#keys + 1] = k end
      table.sort(keys)
      for _, k in ipairs(keys) do self:add(f[k], k) end
    end
    return self
  end
  if type(f) ~= 'function' then error('Tester:add expects a function, a table or a TestSuite', 2) end
  name = name or ('test' .. (#self.names + 1))
  if self.tests[name] then error("test '" .. name .. "' is already added", 2) end
  self.tests[name] = f
  self.names[#self.names + 1] = name
  return self
end

function Tester:disable(names)
  if type(names) == 'string' then names = { names } end
  for _, n in ipairs(names) do self.disabled[n] = true end
  return self
end

local function selected(name, filter)
  if not filter then return true end
  for _, pat in ipairs(filter) do
    if name == pat or name:find(pat) then return true end
  end
  return false
end

--- Runs the tests (all, or those whose names match the given names/patterns).
function Tester:run(filter)
  if type(filter) == 'string' then filter = { filter } end
  local todo = {}
  for _, name in ipairs(self.names) do
    if selected(name, filter) then todo[#todo + 1] = name end
  end
  local n = #todo
  local width = #tostring(n)
  io.write('Running ', n, ' test', n == 1 and '' or 's', '\n')
  local nfail, nerr = 0, 0
  local reports = {}
  for i, name in ipairs(todo) do
    local status
    if self.disabled[name] then
      status = 'SKIP'
    else
      self.current_failures = {}
      if self._setUp then self:_setUp(name) end
      local ok, err = xpcall(self.tests[name], function(e)
        if e == '__tester_early_abort__' then return e end
        return debug.traceback(tostring(e), 2)
      end)
      if self._tearDown then self:_tearDown(name) end
      if not ok and err ~= '__tester_early_abort__' then
        if self.rethrow then error(err, 0) end
        status = 'ERROR'
        nerr = nerr + 1
        reports[#reports + 1] = name .. '\n  Function call failed\n' .. err
      elseif #self.current_failures > 0 then
        status = 'FAIL'
        nfail = nfail + 1
        reports[#reports + 1] = name .. '\n  ' .. table.concat(self.current_failures, '\n  ')
      else
        status = 'PASS'
      end
      collectgarbage()
    end
    if not self.summaryOnly then
      local label = string.format('%' .. width .. 'd/%d %s ', i, n, name)
      io.write(label, string.rep('.', math.max(3, 70 - #label)), ' [', status, ']\n')
    end
    if (status == 'FAIL' or status == 'ERROR') and self.earlyAbort then break end
  end
  io.write(string.format('Completed %d assert%s in %d test%s with %d failure%s and %d error%s\n',
    self.assertions, self.assertions == 1 and '' or 's', n, n == 1 and '' or 's',
    nfail, nfail == 1 and '' or 's', nerr, nerr == 1 and '' or 's'))
  for _, r in ipairs(reports) do io.write(string.rep('-', 80), '\n', r, '\n') end
  if nfail + nerr > 0 then
    error(string.format('%d test%s failed', nfail + nerr, nfail + nerr == 1 and '' or 's'), 0)
  end
  return self
end

return torch
