-- Tab completion (lua/tocha/complete.lua): globals, keywords, fields, metatable methods, tensor
-- methods, class names, and no side effects while walking tables.
local complete = require 'tocha.complete'
local tester = torch.Tester()
local tests = torch.TestSuite()

local function set(list)
  local s = {}
  for _, v in ipairs(list) do s[v] = true end
  return s
end

function tests.tensorMethods()
  _G.test_x = torch.ones(2, 3)
  tester:assertTableEq(complete.candidates('test_x:narrow'), { 'test_x:narrow', 'test_x:narrowCopy' })
  tester:assertTableEq(complete.candidates('test_x:narrowC'), { 'test_x:narrowCopy(' })
  tester:assertTableEq(complete.candidates('test_x:nan'), { 'test_x:nanToNum', 'test_x:nanToNum_', 'test_x:nanmean',
    'test_x:nanmedian', 'test_x:nanquantile', 'test_x:nansum' })
  local all = set(complete.candidates('test_x:s'))
  tester:assert(all['test_x:size'] and all['test_x:select'] and all['test_x:sum'])
  _G.test_x = nil
end

function tests.globalsAndKeywords()
  _G.test_complete_value = 1
  tester:assertTableEq(complete.candidates('test_complete_v'), { 'test_complete_value' })
  tester:assertTableEq(complete.candidates('loca'), { 'local ' }, 'keywords, with a space')
  local c = set(complete.candidates('re'))
  tester:assert(c['repeat'] and c['return'] and c['require'], 'keywords and globals together')
  _G.test_complete_value = nil
end

function tests.fieldsAndSuffixes()
  tester:assertTableEq(complete.candidates('torch.Tens'), { 'torch.Tensor(' }, 'callable classes get "("')
  tester:assertTableEq(complete.candidates('string.for'), { 'string.format(' })
  tester:assertTableEq(complete.candidates('tor'), { 'torch.' }, 'plain tables get "."')
  tester:assertTableEq(complete.candidates('x = torch.lins'), { 'x = torch.linspace(' }, 'text before the name is kept')
  tester:assertTableEq(complete.candidates('torch.nosuchthing.a'), {})
end

function tests.privateNamesOnlyWhenAsked()
  for _, c in ipairs(complete.candidates('torch.')) do
    tester:assert(not c:find('^torch%._'), c)
  end
  local c = set(complete.candidates('torch._tensor_me'))
  tester:assert(c['torch._tensor_methods.'], 'an underscore asks for private names')
end

function tests.classMethodsThroughMetatables()
  _G.test_timer = torch.Timer()
  local c = set(complete.candidates('test_timer:re'))
  tester:assert(c['test_timer:reset'] and c['test_timer:resume'], 'methods of a torch.class object')
  tester:assertTableEq(complete.candidates('torch.Timer.sto'), { 'torch.Timer.stop(' })
  _G.test_timer = nil
  -- Module classes complete by their names (nn.Spa<Tab> once nn exists).
  _G.test_mod = {}
  torch.class('test_mod.SpatialThing', test_mod)
  tester:assertTableEq(complete.candidates('test_mod.Spa'), { 'test_mod.SpatialThing(' })
  _G.test_mod = nil
end

function tests.stringMethods()
  _G.test_s = 'abc'
  tester:assertTableEq(complete.candidates('test_s:up'), { 'test_s:upper(' })
  _G.test_s = nil
end

function tests.noSideEffects()
  local calls = 0
  _G.test_proxy = setmetatable({}, { __index = function() calls = calls + 1 return 1 end })
  complete.candidates('test_proxy.')
  complete.candidates('test_proxy.a.b')
  tester:asserteq(calls, 0, '__index functions are never run')
  _G.test_proxy = nil
end

function tests.nothingAfterNumbers()
  tester:assertTableEq(complete.candidates('1.5'), {})
  tester:assertTableEq(complete.candidates('x.'), {})
end

tester:add(tests)
tester:run()
