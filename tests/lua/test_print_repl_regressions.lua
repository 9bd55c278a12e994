-- Regressions found reviewing how values are shown (lua/torch/print.lua, lua/tocha/pretty.lua,
-- pretty_tensor.lua, complete.lua, help.lua): Torch7's tensor format checked byte for byte
-- against a port of Torch7's own Tensor.lua printing, NaN/inf/subnormal edge cases, the REPL
-- printer on broken __tostring, completion of lazy names, help on arrays and tensor types.
local pretty = require 'tocha.pretty'
local pretty_tensor = require 'tocha.pretty_tensor'
local complete = require 'tocha.complete'
local help = require 'tocha.help'
local colors = require 'tocha.colors'
local tester = torch.Tester()
local tests = torch.TestSuite()

local function has(s, plain) return s:find(plain, 1, true) ~= nil end

-- Runs f with print options set, restoring Torch7's defaults even when f fails.
local function with_options(o, f)
  torch.setPrintoptions(o)
  local ok, err = pcall(f)
  torch.setPrintoptions({ profile = 'default' })
  if not ok then error(err, 0) end
end

-- A port of Torch7's printing (torch/torch7 Tensor.lua: Storage__printformat,
-- Tensor__printMatrix, Tensor__printTensor, Tensor.__tostring__) over a flat row-major array.
-- TH's min/max propagate NaN, which gives a NaN width: Torch7 then prints '%f' on one line.
local function t7_printformat(v, n)
  local intMode = true
  for i = 1, n do if v[i] ~= math.ceil(v[i]) then intMode = false break end end
  local mn, mx = math.abs(v[1]), math.abs(v[1])
  for i = 1, n do
    local a = math.abs(v[i])
    if a ~= a or mn ~= mn then mn = 0 / 0 elseif a < mn then mn = a end
    if a ~= a or mx ~= mx then mx = 0 / 0 elseif a > mx then mx = a end
  end
  local expMin = mn ~= 0 and math.floor(math.log10(mn)) + 1 or 1
  local expMax = mx ~= 0 and math.floor(math.log10(mx)) + 1 or 1
  local format, scale, sz
  if intMode then
    if expMax > 9 then format, sz = '%11.4e', 11 else format, sz = '%SZd', expMax + 1 end
  elseif expMax - expMin > 4 then
    format, sz = '%SZ.4e', 11
    if math.abs(expMax) > 99 or math.abs(expMin) > 99 then sz = sz + 1 end
  elseif expMax > 5 or expMax < 0 then
    format, sz, scale = '%SZ.4f', 7, math.pow(10, expMax - 1)
  else
    format, sz = '%SZ.4f', expMax == 0 and 7 or expMax + 6
  end
  format = format:gsub('SZ', sz ~= sz and 'nan' or tostring(sz))
  if format:sub(2, 4) == 'nan' then format = '%f' end
  if scale == 1 then scale = nil end
  return format, scale or 1, sz
end

local function t7_matrix(v, F, base, rows, cols, indent)
  local format, scale, sz = F[1], F[2], F[3]
  local strt = { indent }
  local perLine = math.floor((80 - #indent) / (sz + 1))
  local first = 1
  while first <= cols do
    local last = (first + perLine - 1 <= cols) and first + perLine - 1 or cols
    if perLine < cols then
      if first ~= 1 then strt[#strt + 1] = '\n' end
      strt[#strt + 1] = 'Columns ' .. first .. ' to ' .. last .. '\n' .. indent
    end
    if scale ~= 1 then strt[#strt + 1] = string.format('%g', scale) .. ' *\n ' .. indent end
    for l = 1, rows do
      for c = first, last do
        strt[#strt + 1] = string.format(format, v[base + (l - 1) * cols + c] / scale)
        if c == last then
          strt[#strt + 1] = '\n'
          if l ~= rows then strt[#strt + 1] = scale ~= 1 and (indent .. ' ') or indent end
        else
          strt[#strt + 1] = ' '
        end
      end
    end
    first = last + 1
  end
  return table.concat(strt)
end

local function torch7_tostring(t)
  local name, sizes = torch.typename(t), t:size():totable()
  local d = t:double():contiguous():view(-1)
  local v, n = {}, d:nElement()
  for i = 1, n do v[i] = d[i] end
  local nd = #sizes
  if n == 0 then return '[' .. name .. ' with no dimension]\n' end
  local F = { t7_printformat(v, n) }
  local strt = {}
  if nd == 1 then
    if F[2] ~= 1 then strt[1] = string.format('%g', F[2]) .. ' *\n' end
    for i = 1, n do strt[#strt + 1] = string.format(F[1], v[i] / F[2]) .. '\n' end
  elseif nd == 2 then
    strt[1] = t7_matrix(v, F, 0, sizes[1], sizes[2], '')
  else
    local counter = {}
    for i = 1, nd - 2 do counter[i] = 1 end
    counter[1] = 0
    while true do
      local finished = false
      for i = 1, nd - 2 do
        counter[i] = counter[i] + 1
        if counter[i] <= sizes[i] then break end
        if i == nd - 2 then finished = true break end
        counter[i] = 1
      end
      if finished then break end
      if #strt > 0 then strt[#strt + 1] = '\n' end
      strt[#strt + 1] = '(' .. table.concat(counter, ',') .. ',.,.) = \n'
      local base, stride = 0, sizes[nd - 1] * sizes[nd]
      for i = nd - 2, 1, -1 do
        base = base + (counter[i] - 1) * stride
        stride = stride * sizes[i]
      end
      strt[#strt + 1] = t7_matrix(v, F, base, sizes[nd - 1], sizes[nd], ' ')
    end
  end
  strt[#strt + 1] = '[' .. name .. ' of size ' .. table.concat(sizes, 'x') .. ']\n'
  return table.concat(strt)
end

function tests.matchesTorch7PortOnRandomTensors()
  math.randomseed(3)
  torch.manualSeed(7)
  local pools = {
    function() return torch.randn(1)[1] end,
    function() return torch.randn(1)[1] * 1e-3 end,
    function() return torch.randn(1)[1] * 1e6 end,
    function() return math.floor(torch.randn(1)[1] * 100) end,
    function() return math.floor(torch.randn(1)[1] * 1e12) end,
    function() return ({ 0 / 0, math.huge, -math.huge, -0.0, 0, 1e300, 1e-300 })[math.random(7)] end,
  }
  for trial = 1, 300 do
    local nd = math.random(1, 4)
    local sizes = {}
    for i = 1, nd do sizes[i] = math.random(1, nd <= 2 and 25 or 4) end
    local n = 1
    for i = 1, nd do n = n * sizes[i] end
    local p1, p2 = pools[math.random(#pools)], pools[math.random(#pools)]
    local v = {}
    for i = 1, n do v[i] = (math.random() < 0.8 and p1 or p2)() end
    local t = torch.DoubleTensor(v):view(torch.LongStorage(sizes))
    tester:asserteq(tostring(t), torch7_tostring(t), 'trial ' .. trial)
  end
end

function tests.matchesTorch7PortOnViewsAndTypes()
  local a = torch.range(1, 24):double():view(2, 3, 4):mul(0.0013)
  for _, t in ipairs({ a:transpose(1, 3), a:narrow(3, 2, 2), a:select(2, 2), a[2]:t(),
                       torch.DoubleTensor({ 1, 0 / 0 }):view(1, 2):expand(3, 2),
                       torch.range(1, 60):view(3, 20):float(), torch.range(-30, 29):view(2, 30):long(),
                       torch.range(1, 6):view(2, 3):int(), torch.range(0, 255, 51):byte(),
                       torch.range(1, 16):view(2, 2, 2, 2):mul(1e7):add(0.5) }) do
    tester:asserteq(tostring(t), torch7_tostring(t), torch.typename(t))
  end
end

-- Expected texts derived by hand from Torch7's Tensor.lua (and equal to the port's).
function tests.torch7ExactTexts()
  local D = torch.DoubleTensor
  tester:asserteq(tostring(D({ { 0.001, 0.002 }, { 0.003, 0.0045 } })),
    '0.001 *\n  1.0000  2.0000\n  3.0000  4.5000\n[torch.DoubleTensor of size 2x2]\n')
  tester:asserteq(tostring(D({ 1e300, 1e-300 })), ' 1.0000e+300\n 1.0000e-300\n[torch.DoubleTensor of size 2]\n')
  tester:asserteq(tostring(D({ 1e300, 2e300 })), '1.0000e+300\n2.0000e+300\n[torch.DoubleTensor of size 2]\n',
    'integers: %11.4e, no room for the 3-digit exponent (as in Torch7)')
  tester:asserteq(tostring(D({ -math.huge, 1.5, 2 })), '        -inf\n  1.5000e+00\n  2.0000e+00\n[torch.DoubleTensor of size 3]\n')
  tester:asserteq(tostring(D({ math.huge, 1, 2 })), '        inf\n 1.0000e+00\n 2.0000e+00\n[torch.DoubleTensor of size 3]\n')
  tester:asserteq(tostring(D({ -0.0, 0.5 })), '-0.0000\n 0.5000\n[torch.DoubleTensor of size 2]\n')
  tester:asserteq(tostring(D({ -0.0, 1 })), ' 0\n 1\n[torch.DoubleTensor of size 2]\n')
  tester:asserteq(tostring(D({ { 1, 0 / 0, 2.5 } })), '1.000000 nan 2.500000\n[torch.DoubleTensor of size 1x3]\n')
  tester:asserteq(tostring(D({ 123456.5, 234567.25 })), '100000 *\n 1.2346\n 2.3457\n[torch.DoubleTensor of size 2]\n')
  local s = tostring(D(2, 2, 10):fill(0.00015))
  local head = '(1,.,.) = \n Columns 1 to 9\n 0.0001 *\n   1.5000'
  tester:asserteq(s:sub(1, #head), head)
  tester:assert(has(s, '\n\nColumns 10 to 10\n 0.0001 *\n   1.5000\n   1.5000\n\n(2,.,.) = \n'), s)
  tester:asserteq(tostring(torch.LongStorage({ 2, 3 })), '\n 2\n 3\n[torch.LongStorage of size 2]\n')
  tester:asserteq(tostring(torch.ones(2, 3):size()), '\n 2\n 3\n[torch.LongStorage of size 2]\n')
  tester:asserteq(tostring(torch.DoubleStorage({ 0.001, 0.002 })), '\n0.001 *\n 1.0000\n 2.0000\n[torch.DoubleStorage of size 2]\n')
  tester:asserteq(tostring(torch.DoubleStorage()), '\n[torch.DoubleStorage of size 0]\n')
  tester:asserteq(tostring(torch.DoubleTensor()), '[torch.DoubleTensor with no dimension]\n')
  tester:asserteq(tostring(torch.DoubleTensor(2, 0, 3)), '[torch.DoubleTensor of size 2x0x3]\n')
end

-- A NaN gives the '%f' format and a NaN cell width: summarizing built '%nans' and raised
-- "invalid option '%n' to 'format'".
function tests.summarizedNaNDoesNotRaise()
  local t = torch.DoubleTensor(20):fill(1.5)
  t[3] = 0 / 0
  with_options({ threshold = 10, edgeitems = 2 }, function()
    tester:asserteq(tostring(t), '1.500000\n1.500000\n...\n1.500000\n1.500000\n[torch.DoubleTensor of size 20]\n')
    tester:asserteq(tostring(t:view(4, 5)), ('1.500000 1.500000 ... 1.500000 1.500000\n'):rep(4)
      .. '[torch.DoubleTensor of size 4x5]\n')
  end)
end

-- sciMode = false with an inf: an infinite width gave one column per "Columns k to k" block.
function tests.sciModeFalseWithInfKeepsRows()
  local t = torch.DoubleTensor(2, 12):fill(2.5)
  t[1][1] = math.huge
  t[1][2] = 1e-3
  with_options({ sciMode = false }, function()
    local s = tostring(t)
    tester:assert(not has(s, 'Columns'), s)
    tester:assert(s:find('^inf 0%.001000 2%.500000'), s)
  end)
end

-- Torch7 divides by 10^(expMax-1), which underflows below 1e-307: 5e-324 printed "0 *" and
-- "inf", 1.5e-320 "9.99989e-321 *". PyTorch 1.13: tensor([4.9407e-324, 9.8813e-324]) and
-- tensor([1.5000e-320, 2.0000e-320]).
function tests.subnormalValuesUseExponents()
  tester:asserteq(tostring(torch.DoubleTensor({ 5e-324, 1e-323 })),
    ' 4.9407e-324\n 9.8813e-324\n[torch.DoubleTensor of size 2]\n')
  tester:asserteq(tostring(torch.DoubleTensor({ 1.5e-320, 2e-320 })),
    ' 1.5000e-320\n 2.0000e-320\n[torch.DoubleTensor of size 2]\n')
  tester:asserteq(tostring(torch.DoubleTensor({ 1.5e-300, 2e-300 })),
    '1e-300 *\n 1.5000\n 2.0000\n[torch.DoubleTensor of size 2]\n', 'a normal scale stays Torch7\'s')
  local s = pretty_tensor.format(torch.DoubleTensor(20):fill(5e-324), 10, 1)
  tester:assert(not has(s, 'inf') and has(s, '4.9407e-324'), s)
end

-- Abbreviated slices of a scaled tensor: rows one space further in, as Torch7's slices.
function tests.abbreviatedScaledSlicesIndent()
  local s = pretty_tensor.format(torch.DoubleTensor(2, 2, 8):fill(0.0015), 10, 1)
  tester:asserteq(s, ('(1,.,.) = \n 0.001 *\n   1.5000 ...  1.5000\n   1.5000 ...  1.5000\n\n'
    .. '(2,.,.) = \n 0.001 *\n   1.5000 ...  1.5000\n   1.5000 ...  1.5000\n[torch.DoubleTensor of size 2x2x8]\n'))
  local small = tostring(torch.DoubleTensor(2, 2, 2):fill(0.0015))
  tester:assert(has(small, ' 0.001 *\n   1.5000  1.5000\n   1.5000'), small)
  local t = torch.DoubleTensor(20):fill(1.5)
  t[2] = 0 / 0
  tester:assert(has(pretty_tensor.format(t, 10, 2), '1.500000\nnan\n...\n'))
end

-- A __tostring that raises or returns a non-string hid the whole table behind the error (or
-- failed inside pretty.lua); it is shown as a placeholder.
function tests.brokenTostringDoesNotHideTables()
  colors.enable(false)
  local bad = setmetatable({}, { __tostring = function() error('tostring boom', 0) end })
  local num = setmetatable({}, { __tostring = function() return 42 end })
  tester:asserteq(pretty.result({ x = bad, y = 1 }), '{\n  x : <table: __tostring failed: tostring boom>\n  y : 1\n}')
  tester:asserteq(pretty.result({ x = num }), '{\n  x : <table: __tostring returned a number>\n}')
  tester:asserteq(pretty.result({ [bad] = 1 }), '{\n  [<table: __tostring failed: tostring boom>] : 1\n}')
  local C = torch.class('test_print_repl.Broken', {})
  function C:__tostring__() error('class boom', 0) end
  local obj = setmetatable({}, torch.getmetatable('test_print_repl.Broken'))
  tester:asserteq(pretty.result({ obj }), '{\n  1 : <test_print_repl.Broken: __tostring failed: class boom>\n}')
  tester:asserteq(pretty.result(obj), '<test_print_repl.Broken: __tostring failed: class boom>')
  local ok, s = pcall(help.describe, bad)
  tester:assert(ok and has(s, 'whose __tostring failed'), tostring(s))
end

function tests.cyclesAndLongTables()
  colors.enable(false)
  local a, b = {}, {}
  a.b, b.a = b, a
  tester:assert(pretty.result(a):find('^{\n  b : {\n    a : <cycle: table: 0x%x+>\n  }\n}$'))
  local big = {}
  for i = 1, 1000 do big[i] = i end
  local s = pretty.result(big)
  tester:assert(has(s, '  40 : 40\n  ... (960 more)\n}') and not has(s, '41 :'), s)
  require 'nn'
  tester:asserteq(pretty.result({ l = nn.Linear(3, 4) }), '{\n  l : nn.Linear(3 -> 4)\n}')
end

-- A lazy name completed alone got the stand-in table's '.' (torch.polar., a function).
function tests.lazyFunctionsCompleteWithParen()
  tester:assertTableEq(complete.candidates('torch.pola'), { 'torch.polar(' })
  tester:assertTableEq(complete.candidates('torch.svdLowr'), { 'torch.svdLowrank(' })
  tester:assertTableEq(complete.candidates('torch.utils.tensorb'), { 'torch.utils.tensorboard.' })
  -- A lazy module that fails to load stays lazy: using the name then says why.
  _G.test_lazy_ns = setmetatable({}, { __lazy = { thing = 'test_print_repl_no_such_module' } })
  tester:assertTableEq(complete.candidates('test_lazy_ns.thi'), { 'test_lazy_ns.thing' })
  tester:asserteq(getmetatable(test_lazy_ns).__lazy.thing, 'test_print_repl_no_such_module')
  _G.test_lazy_ns = nil
end

function tests.completionOfOddInput()
  _G.test_nested = { a = { b = { c = 1, cfun = function() end } } }
  tester:assertTableEq(complete.candidates('test_nested.a.b.cf'), { 'test_nested.a.b.cfun(' })
  tester:assertTableEq(complete.candidates('test_nested.a.b:'), { 'test_nested.a.b:cfun(' })
  for _, w in ipairs({ '"test_nested.a', "'", '"', '1e5', '0x1f.', 'test_nested..a', 'test_nested.a.b.c.d', 'a:b:c',
                       '::', '.', ':', 'x[1].', '#', '\0', '\xff', 'test_nested:a.b', ('a.'):rep(50) }) do
    local ok, r = pcall(complete.candidates, w)
    tester:assert(ok and type(r) == 'table', ('%q: %s'):format(w, tostring(r)))
  end
  _G.test_nested = nil
end

function tests.helpOnArraysAndTensorTypes()
  colors.enable(false)
  require 'nn'
  _G.test_help_seq = nn.Sequential():add(nn.Linear(2, 3)):add(nn.Tanh())
  local ok, v = help.lookup('test_help_seq.modules')
  local s = help.describe(v, 'test_help_seq.modules')
  tester:assert(ok and has(s, 'a table of 2 array entries (t[1] to t[2])'), s)
  _G.test_help_seq = nil
  s = help.describe(torch.Tensor, 'torch.Tensor')
  tester:assert(s:find('^torch%.%a+Tensor %(class%)\n  Methods:'), s)
  tester:assert(has(s, 'narrow'), s)
  s = help.describe(torch.LongStorage)
  tester:assert(s:find('^torch%.LongStorage %(class%)') and has(s, 'totable'), s)
  ok, v = help.lookup('torch.polar')
  tester:assert(ok and type(v) == 'function', 'lazy names are looked up')
  s = help.describe(function() end, 'f')
  tester:assert(has(s, 'No documentation yet.'), s)
end

-- `?math.max` showed torch.max's doc (any name ending in a torch function's name shared its
-- doc, meant for tensor methods only); help(string.format) was titled "?(...)".
function tests.helpSharesTorchDocsWithTensorMethodsOnly()
  colors.enable(false)
  local s = help.describe(math.max, 'math.max')
  tester:assert(s:find('^math%.max%(') and has(s, 'written in C') and not has(s, 'torch.max'), s)
  s = help.describe(string.format)
  tester:assert(s:find('^string%.format%('), s)
  _G.test_help_x = torch.ones(2)
  local ok, v = help.lookup('test_help_x:narrow')
  s = help.describe(v, 'test_help_x:narrow')
  tester:assert(ok and s:find('^torch%.narrow%('), 'a tensor method still shares the doc:\n' .. s)
  _G.test_help_x = nil
  require 'nn'
  _G.test_help_m = nn.Linear(2, 2)
  ok, v = help.lookup('test_help_m:float')
  s = help.describe(v, 'test_help_m:float')
  tester:assert(ok and not has(s, 'torch.float'), s)
  _G.test_help_m = nil
end

-- Large CUDA tensors were abbreviated with x:index and a CPU index tensor, which raised
-- "[index] expected all tensors on the same device"; the ends are now joined with cat.
function tests.abbreviatedAnyDeviceAndType()
  local x = torch.range(1, 2000):view(2, 1000)
  local want = pretty_tensor.format(x)
  tester:assert(has(want, '    1     2     3 ...   998   999  1000'), want)
  tester:asserteq(pretty_tensor.format(x:long()), (want:gsub('FloatTensor', 'LongTensor')))
  tester:assert(has(pretty_tensor.format(torch.ones(2000):bool()), '...'))
  tester:asserteq(pretty_tensor.format(x:t()), pretty_tensor.format(x:t():contiguous()), 'a non-contiguous view')
  if not torch.cuda.isAvailable() then return end
  tester:asserteq(pretty_tensor.format(x:cuda()), (want:gsub('torch.FloatTensor', 'torch.CudaTensor')))
end

-- Tensor properties (computed by the tensor's __index) did not complete, and `?x.shape` said
-- "x.shape is nil".
function tests.tensorPropertiesCompleteAndHaveHelp()
  colors.enable(false)
  _G.test_prop_x = torch.ones(2, 3)
  tester:assertTableEq(complete.candidates('test_prop_x.sha'), { 'test_prop_x.shape' })
  tester:assertTableEq(complete.candidates('test_prop_x:sha'), {}, 'a property is no method')
  local c = {}
  for _, k in ipairs(complete.candidates('test_prop_x.gr')) do c[k] = true end
  tester:assert(c['test_prop_x.grad'] and c['test_prop_x.greater'], 'properties and methods together')
  tester:assertTableEq(complete.candidates('test_prop_x:ndimen'), { 'test_prop_x:ndimension(' })
  local ok, v = help.lookup('test_prop_x.shape')
  tester:assert(ok and torch.isStorage(v), 'x.shape is looked up')
  local s = help.describe(v, 'test_prop_x.shape')
  tester:assert(s:find('^test_prop_x%.shape: torch%.LongStorage'), s)
  ok, v = help.lookup('test_prop_x.T')
  tester:assert(ok and torch.isTensor(v) and v:size(1) == 3)
  _G.test_prop_x = nil
end

tester:add(tests)
tester:run()
