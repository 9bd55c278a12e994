-- Regressions from the review of Torch7's utility API against Torch7's own code (init.lua and
-- luaT.c's class system): torch.class, isTypeOf, the class metatables and their __index__ /
-- __newindex__ hooks, torch.factory, torch.pointer, torch.version, the utils' arguments and the
-- default tensor type. The Tester, CmdLine and Timer cases are in test_torch7_utils_regressions.lua.
require 'torch'
require 'nn'

local tester = torch.Tester()
local tests = torch.TestSuite()

-- ---- torch.class ---------------------------------------------------------------------------

local M = {}
local Base = torch.class('t7u.Base', M)
function Base:__init(x) self.x = x end
function Base:__tostring__() return 'Base(' .. tostring(self.x) .. ')' end
function Base:get() return self.x end
function Base:__add__(o) return M.Base(self.x + o.x) end
local Derived, parent = torch.class('t7u.Derived', 't7u.Base', M)
function Derived:__init(x, y) parent.__init(self, x); self.y = y end
function Derived:get() return self.x + self.y end
local Other = torch.class('t7u.Other', 't7u.Base', M)

function tests.class_inheritance_and_metamethods()
  local d = M.Derived(1, 2)
  tester:eq(d:get(), 3)
  tester:eq(parent.get(d), 1)
  tester:eq(tostring(d), 'Base(1)', 'inherited __tostring__')
  tester:eq((d + d).x, 2, 'inherited __add__')
  tester:eq(torch.typename(d), 't7u.Derived')
  tester:eq(torch.type(M.Derived), 'table')
  tester:assert(not torch.isTypeOf(M.Derived, 't7u.Base') and not torch.isTypeOf(M.Derived, M.Derived), 'a class is no instance')
  tester:assertErrorPattern(function() torch.class('t7u.Derived', M) end, 'already exists')
  tester:assertErrorPattern(function() torch.class('t7u.X', 't7u.Nope', M) end, 'parent class t7u.Nope')
  -- the factory makes an instance without running __init; deserialization uses it
  local e = torch.factory('t7u.Derived')()
  tester:eq(torch.typename(e), 't7u.Derived')
  tester:eq(rawget(e, 'x'), nil)
  local back = torch.deserialize(torch.serialize({ d, M.Other(5) }))
  tester:eq(torch.typename(back[1]), 't7u.Derived')
  tester:eq(back[1]:get(), 3)
  tester:eq(tostring(back[2]), 'Base(5)')
end

-- torch.factory of a tensor or storage type gave a table carrying the type's methods (no
-- typename, unusable); Torch7's factory makes an empty tensor. torch.Tester is registered.
function tests.factory_of_tensor_types_and_tester()
  for _, name in ipairs({ 'torch.FloatTensor', 'torch.LongTensor', 'torch.DoubleStorage' }) do
    local o = torch.factory(name)()
    tester:eq(torch.typename(o), name)
  end
  tester:eq(torch.factory('torch.DoubleTensor')():nElement(), 0)
  tester:eq(torch.factory('t7u.NoSuchClass'), nil)
  tester:assert(rawequal(torch.getmetatable('torch.Tester'), getmetatable(torch.Tester())), 'torch.Tester')
  tester:eq(torch.typename(torch.factory('torch.Tester')()), 'torch.Tester')
end

-- luaT: getmetatable(Class) is the class's metatable and getmetatable(metatable) the parent's.
function tests.class_metatables_like_luaT()
  tester:assert(rawequal(getmetatable(M.Derived), Derived), 'getmetatable(Class)')
  tester:assert(rawequal(getmetatable(Derived), Base), 'getmetatable(metatable) is the parent')
  tester:eq(getmetatable(Base), nil)
  tester:assert(rawequal(getmetatable(M.Derived(1, 1)), Derived), 'an instance')
  -- two sibling classes' metatables compare without running the parent's __eq forwarder
  tester:assert(Derived ~= Other, 'metatables compare')
  tester:assert(torch.isTypeOf(M.Derived(1, 1), M.Base) and not torch.isTypeOf(M.Base(1), M.Derived), 'isTypeOf(ctor)')
end

-- Torch7 (init.lua): a plain name must be the whole class name; a substring matched, so
-- 'nn.Transformer' took an nn.TransformerEncoder and 'torch.distributions.Transform' a
-- TransformedDistribution (which then crashed with an unnamed error).
function tests.class_isTypeOf_whole_names()
  local d = M.Derived(1, 1)
  tester:assert(torch.isTypeOf(d, 't7u.Base') and torch.isTypeOf(d, 't7u.Derived'), 'names and parents')
  tester:assert(not torch.isTypeOf(d, 'Deriv') and not torch.isTypeOf(d, '7u'), 'no substring')
  tester:assert(torch.isTypeOf(d, 't7u%..*') and torch.isTypeOf(d, 'Der.*'), 'patterns')
  tester:assert(torch.isTypeOf(d, 'Derived') and torch.isTypeOf(d, 'Base'), 'the name without its package')
  tester:assert(not torch.isTypeOf(nn.TransformerEncoder(nn.TransformerEncoderLayer(4, 2), 1), 'nn.Transformer'))
  tester:assert(not torch.isTypeOf(nn.CriterionTable(nn.MSECriterion()), 'nn.Criterion'), 'a Module')
  tester:assert(torch.isTypeOf(nn.ReLU(), 'nn.Threshold') and torch.isTypeOf(nn.ReLU(), 'nn.Module'))
  local x = torch.FloatTensor(2)
  tester:assert(torch.isTypeOf(x, 'torch.FloatTensor') and torch.isTypeOf(x, 'torch.*Tensor'))
  tester:assert(not torch.isTypeOf(x, 'Tensor') and not torch.isTypeOf(x, 'torch.DoubleTensor'))
  tester:assertErrorPattern(function() torch.isTypeOf(d, 5) end, 'isTypeOf')
  local D = torch.distributions
  local td = D.TransformedDistribution(D.Normal(0, 1), { D.ExpTransform() })
  tester:assert(not torch.isTypeOf(td, 'torch.distributions.Transform'))
  tester:assertErrorPattern(function() D.TransformedDistribution(D.Normal(0, 1), td) end, 'TransformedDistribution%]')
end

-- luaT's __index__/__newindex__ hooks (value, true when handled), inherited by subclasses and
-- kept by deserialized objects; they were ignored.
function tests.class_index_hooks()
  local N = {}
  local V = torch.class('t7u.Vec', N)
  function V:__init(n) self.data = {} for i = 1, n do self.data[i] = 10 * i end end
  function V:__index__(k) if type(k) == 'number' then return self.data[k], true end return nil, false end
  function V:__newindex__(k, v) if type(k) == 'number' then self.data[k] = v return true end return false end
  function V:size() return #self.data end
  torch.class('t7u.Vec2', 't7u.Vec', N)
  local v = N.Vec(3)
  tester:eq(v[2], 20)
  tester:eq(v:size(), 3)
  v[2] = 7
  tester:eq(v.data[2], 7)
  tester:eq(rawget(v, 2), nil)
  v.name = 'x'
  tester:eq(rawget(v, 'name'), 'x')
  local w = N.Vec2(2)
  tester:eq(w[1], 10)
  local back = torch.deserialize(torch.serialize(w))
  tester:eq(back[2], 20)
  tester:eq(torch.setmetatable({ data = { 5 } }, 't7u.Vec')[1], 5)
  tester:assert(torch.isTypeOf(w, N.Vec), 'isTypeOf with a hooked class')
  -- a class without hooks keeps its table __index
  tester:assert(type(rawget(Base, '__index')) == 'table', 'plain classes are untouched')
end

-- torch.pointer parsed tostring(obj): every class instance (whose __tostring is the class's)
-- gave nil, builtin functions gave nil, a cdata array raised "has no member named 'p'" and a
-- struct gave its field p; numbers gave nil (Torch7: an error).
function tests.pointer_of_any_object()
  local ffi = require 'ffi'
  local d = M.Derived(1, 1)
  tester:assert(type(torch.pointer(d)) == 'number', 'an instance')
  tester:eq(torch.pointer(d), torch.pointer(d))
  tester:assert(torch.pointer(d) ~= torch.pointer(M.Derived(1, 1)), 'distinct instances')
  local m = nn.Linear(2, 2)
  tester:assert(torch.pointer(m) ~= nil and torch.pointer(m) ~= torch.pointer(m:clone()), 'modules')
  tester:assert(type(torch.pointer(print)) == 'number' and type(torch.pointer(function() end)) == 'number')
  tester:assert(type(torch.pointer(coroutine.create(function() end))) == 'number', 'threads')
  tester:eq(torch.pointer('abc'), torch.pointer('ab' .. 'c'))
  local arr = ffi.new('int[2]')
  tester:eq(torch.pointer(arr), tonumber(ffi.cast('intptr_t', arr)))
  local st = ffi.new('struct { int p; }')
  tester:assert(torch.pointer(st) ~= 0, 'a struct is not its field p')
  tester:assertErrorPattern(function() torch.pointer(5) end, '%[pointer%]')
  local t = torch.ones(3)
  tester:eq(torch.pointer(t:storage()), torch.pointer(t:view(3):storage()))
end

-- Torch7's torch.version(obj) is the version of obj's class (its __version, default 1), which
-- classes use to read old files; the argument was ignored.
function tests.version_of_an_object()
  tester:assert(type(torch.version()) == 'string', "Tocha's version")
  tester:eq(torch.version(M.Derived(1, 1)), 1)
  tester:eq(torch.version(torch.ones(1)), 1)
  tester:eq(torch.version({}), nil)
  local N = {}
  local C = torch.class('t7u.Versioned', N)
  C.__version = 3
  tester:eq(torch.version(N.Versioned()), 3)
end

-- torch.packageLuaPath() concatenated nil; include() found only Tocha's own packages (Torch7
-- searches package.path); bad arguments of the small helpers were taken silently.
function tests.utils_package_paths_and_arguments()
  local lib = require 'torch.lib'
  tester:eq(torch.packageLuaPath(), lib.lua_root)
  tester:eq(torch.packageLuaPath('nn'), lib.lua_root .. '/nn')
  local dir = os.tmpname()
  os.remove(dir)
  os.execute('mkdir -p ' .. dir .. '/t7upkg')
  local f = io.open(dir .. '/t7upkg/init.lua', 'w'); f:write('return {}\n'); f:close()
  f = io.open(dir .. '/t7upkg/extra.lua', 'w'); f:write('T7U_INCLUDED = (T7U_INCLUDED or 0) + 1\n'); f:close()
  local path0 = package.path
  package.path = dir .. '/?/init.lua;' .. package.path
  local ok, err = pcall(function()
    tester:eq(torch.packageLuaPath('t7upkg'), dir .. '/t7upkg')
    torch.include('t7upkg', 'extra.lua')
    tester:eq(rawget(_G, 'T7U_INCLUDED'), 1)
  end)
  package.path = path0
  os.execute('rm -rf ' .. dir)
  _G.T7U_INCLUDED = nil
  tester:assert(ok, tostring(err))
  tester:assertErrorPattern(function() torch.include('torch') end, '%[include%]')
  tester:assertErrorPattern(function() torch.memoryStats('gpu') end, "%[memoryStats%] expected 'cpu' or 'cuda'")
  tester:assertErrorPattern(function() torch.setGCThreshold(-1) end, '%[setGCThreshold%]')
  tester:assertErrorPattern(function() torch.setGCThreshold('1') end, '%[setGCThreshold%]')
  tester:assertErrorPattern(function() torch.getenv(1) end, '%[getenv%] expected a function')
  tester:assertErrorPattern(function() torch.setenv(print, 5) end, '%[setenv%]')
  tester:assertErrorPattern(function() torch.setnumthreads(2.5) end, '%[setnumthreads%] expected a positive number %(an integer%)')
  tester:assert(torch.getenv(function() end) == _G, 'a function')
end

function tests.default_tensor_type_switch()
  local old = torch.getdefaulttensortype()
  local ok, err = pcall(function()
    torch.setdefaulttensortype('torch.DoubleTensor')
    tester:eq(torch.getdefaulttensortype(), 'torch.DoubleTensor')
    tester:eq(torch.typename(torch.Tensor()), 'torch.DoubleTensor')
    tester:eq(torch.typename(torch.Tensor(2):storage()), 'torch.DoubleStorage')
    tester:eq(torch.typename(torch.ones(2)), 'torch.DoubleTensor')
    tester:eq(torch.typename(torch.rand(2)), 'torch.DoubleTensor')
    -- Bug in lua/torch/tensor.lua (not this review's file), see report: Torch7's
    -- setdefaulttensortype also sets torch.Storage (Tocha's left it at FloatStorage)
    tester:eq(torch.typename(torch.Storage(2)), 'torch.DoubleStorage')
    torch.setdefaulttensortype('torch.FloatTensor')
    tester:eq(torch.typename(torch.Tensor()), 'torch.FloatTensor')
    tester:assertErrorPattern(function() torch.setdefaulttensortype('torch.Foo') end, 'setdefaulttensortype')
  end)
  torch.setdefaulttensortype(old)
  tester:assert(ok, tostring(err))
end

tester:add(tests)
tester:run()
