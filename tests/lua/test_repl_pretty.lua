-- How the REPL shows values (lua/tocha/pretty.lua, pretty_tensor.lua): tables with nesting,
-- cycles and truncation, tensors abbreviated past the threshold with Torch7's footer, class
-- objects through __tostring__, several results, colours only when enabled.
local pretty = require 'tocha.pretty'
local pretty_tensor = require 'tocha.pretty_tensor'
local colors = require 'tocha.colors'
local tester = torch.Tester()
local tests = torch.TestSuite()

local function has(s, plain) return s:find(plain, 1, true) ~= nil end

function tests.scalars()
  colors.enable(false)
  tester:asserteq(pretty.result(2), '2')
  tester:asserteq(pretty.result(nil), 'nil')
  tester:asserteq(pretty.result(true), 'true')
  tester:asserteq(pretty.result('text'), 'text', 'strings are shown as they are at the top level')
  tester:asserteq(pretty.results(3, { 1, nil, 's', n = 3 }), '1\tnil\ts')
end

function tests.nestedTable()
  colors.enable(false)
  local s = pretty.result({ b = { c = 'x' }, a = 1, [2.5] = true })
  tester:asserteq(s, '{\n  2.5 : true\n  a : 1\n  b : {\n    c : "x"\n  }\n}')
  tester:asserteq(pretty.result({ 1, 2, 3 }), '{1, 2, 3}', 'short arrays on one line')
  tester:asserteq(pretty.result({}), '{}')
  tester:asserteq(pretty.result({ ['a key'] = 'multi\nline' }), '{\n  "a key" : "multi\\nline"\n}')
end

function tests.cyclesAndDepth()
  colors.enable(false)
  local t = { name = 'root' }
  t.self = t
  local s = pretty.result(t)
  tester:assert(s:find('self : <cycle: table: 0x%x+>'), s)
  local deep = { l1 = { l2 = { l3 = { l4 = { l5 = 1 } } } } }
  s = pretty.result(deep)
  tester:assert(has(s, 'l4 : {... 1 entries}'), 'depth limit:\n' .. s)
  local shared = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17 }
  s = pretty.result({ a = shared, b = shared })
  tester:assert(not has(s, 'cycle'), 'a table seen twice is not a cycle:\n' .. s)
end

function tests.truncation()
  colors.enable(false)
  local t = {}
  for i = 1, 100 do t['k' .. string.format('%03d', i)] = i end
  local s = pretty.result(t)
  tester:assert(has(s, 'k040 : 40'), s)
  tester:assert(not has(s, 'k041'), s)
  tester:assert(has(s, '... (60 more)'), s)
end

function tests.tensorsInTables()
  colors.enable(false)
  local s = pretty.result({ w = torch.FloatTensor(3, 4), i = torch.LongTensor(2) })
  tester:asserteq(s, '{\n  i : LongTensor - size: 2\n  w : FloatTensor - size: 3x4\n}')
end

function tests.smallTensorsKeepTorch7Format()
  local x = torch.range(1, 6):view(2, 3)
  tester:asserteq(pretty.result(x), (tostring(x):gsub('\n$', '')))
end

function tests.largeMatrixAbbreviated()
  local x = torch.range(1, 100 * 200):view(100, 200)
  local s = pretty_tensor.format(x)
  local lines = {}
  for l in s:gmatch('[^\n]+') do lines[#lines + 1] = l end
  tester:asserteq(#lines, 8, s)
  tester:asserteq(lines[1], '     1      2      3 ...    198    199    200')
  tester:asserteq(lines[4]:match('^%s*(%S+)$'), '...')
  tester:asserteq(lines[7], ' 19801  19802  19803 ...  19998  19999  20000')
  tester:asserteq(lines[8], '[torch.FloatTensor of size 100x200]')
end

function tests.largeVectorAbbreviated()
  local s = pretty_tensor.format(torch.range(1, 5000))
  tester:asserteq(s, '    1\n    2\n    3\n  ...\n 4998\n 4999\n 5000\n[torch.FloatTensor of size 5000]\n')
end

function tests.largeCubeAbbreviated()
  local x = torch.range(1, 10 * 20 * 30):view(10, 20, 30)
  local s = pretty_tensor.format(x)
  tester:assert(s:find('^%(1,%.,%.%) = \n'), s)
  tester:assert(has(s, '(3,.,.) = \n') and has(s, '\n...\n\n(8,.,.) = \n'), s)
  tester:assert(not has(s, '(4,.,.)'), s)
  tester:assert(s:find('%[torch%.FloatTensor of size 10x20x30%]\n$'), s)
  tester:assert(has(s, ' 5971  5972  5973 ...  5998  5999  6000'), 'the last row of the last slice:\n' .. s)
end

function tests.threshold()
  local x = torch.ones(10, 100)  -- 1000 elements: still Torch7's full format
  tester:asserteq(pretty_tensor.format(x), tostring(x))
  tester:assert(has(pretty_tensor.format(torch.ones(1001)), '...'))
end

function tests.classObjects()
  colors.enable(false)
  local Point = torch.class('test_repl_pretty.Point', {})
  function Point:__init(x) self.x = x end
  local Named = torch.class('test_repl_pretty.Named', {})
  function Named:__tostring__() return 'Named<' .. 'n' .. '>' end
  local s = pretty.result(setmetatable({ x = 3 }, torch.getmetatable('test_repl_pretty.Point')))
  tester:asserteq(s, 'test_repl_pretty.Point {\n  x : 3\n}')
  tester:asserteq(pretty.result(setmetatable({}, torch.getmetatable('test_repl_pretty.Named'))), 'Named<n>')
end

function tests.colours()
  colors.enable(true)
  tester:asserteq(pretty.result(2), '\27[0;36m2\27[0m', 'numbers in cyan')
  tester:asserteq(pretty.result(true), '\27[0;34mtrue\27[0m', 'booleans in blue')
  colors.enable(false)
  tester:asserteq(pretty.result(2), '2')
end

function tests.printKeepsLuaFormatForNonTables()
  local out = {}
  local write = io.stdout.write
  local fake = setmetatable({ write = function(_, ...) for _, s in ipairs({ ... }) do out[#out + 1] = s end end },
    { __index = io.stdout })
  local real = io.stdout
  io.stdout = fake
  local ok, err = pcall(pretty.print, 1, 'a', nil, { 1, 2 })
  io.stdout = real
  tester:assert(ok, tostring(err))
  tester:asserteq(table.concat(out), '1\ta\tnil\t{1, 2}\n')
  tester:assert(write ~= nil)
end

tester:add(tests)
tester:run()
