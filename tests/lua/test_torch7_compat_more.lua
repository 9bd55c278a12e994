-- Torch7 compatibility of the Tensor/Storage/math API, continued from
-- test_torch7_compat_regressions.lua: reductions that keep the dim, std/var's flag,
-- sort/topk/kthvalue/median/mode, scans and norms, creation functions, type conversions, the
-- Storage API, printing, the class system, Timer/CmdLine and the LAPACK methods. Expected values are
-- Torch7's documented results, worked out by hand.
local tester = torch.Tester()
local tests = torch.TestSuite()
local T = torch.DoubleTensor

local function sizes(t) return t:dim() == 0 and {} or t:size():totable() end
local function values(t) return t:contiguous():view(t:nElement()):double():totable() end

-- ---- reductions -----------------------------------------------------------------------------

function tests.reductions_keep_the_dim()
  local x = T({{3, 1, 2}, {9, 7, 8}})
  local v, i = x:max(2)
  tester:assertTableEq(sizes(v), { 2, 1 }); tester:assertTableEq(sizes(i), { 2, 1 })
  tester:asserteq(torch.type(i), 'torch.LongTensor')
  tester:assertTableEq(values(v), { 3, 9 }); tester:assertTableEq(values(i), { 1, 1 })
  local vm, im = torch.min(x, 1)
  tester:assertTableEq(sizes(vm), { 1, 3 }); tester:assertTableEq(values(im), { 1, 1, 1 })
  local vr, ir = T(), torch.LongTensor(); torch.max(vr, ir, x, 2)
  tester:assertTableEq(values(vr), { 3, 9 })
  tester:asserteq(x:max(), 9); tester:asserteq(x:min(), 1); tester:asserteq(x:sum(), 30)
  tester:asserteq(type(x:mean()), 'number')
  tester:assertTableEq(sizes(x:sum(2)), { 2, 1 }); tester:assertTableEq(sizes(x:mean(1)), { 1, 3 })
  tester:assertTableEq(sizes(x:prod(2)), { 2, 1 })
  tester:assertTableEq(sizes(torch.norm(x, 1, 2)), { 2, 1 })
  -- doc/maths.md's example: torch.prod(a, 2) on a 2x2x2 gives 2x1x2
  local a = T({{{1, 2}, {3, 4}}, {{5, 6}, {7, 8}}})
  tester:assertTableEq(sizes(torch.prod(a, 2)), { 2, 1, 2 })
  tester:assertTableEq(values(torch.prod(a, 2)), { 3, 8, 35, 48 })
  local rs = T(); torch.sum(rs, x, 2); tester:assertTableEq(values(rs), { 6, 24 })
  tester:asserteq(torch.ByteTensor({200, 100}):sum(), 300, 'a byte sum does not wrap')
end

function tests.std_var_flag_is_torch7s()
  -- Torch7: the flag true normalizes by n (biased); the default (false) by n - 1.
  local u = T({1, 2, 3, 4})
  tester:assertalmosteq(u:var(), 5 / 3, 1e-12)
  tester:assertalmosteq(torch.var(u, true), 1.25, 1e-12)
  tester:assertalmosteq(torch.std(u, 1)[1], math.sqrt(5 / 3), 1e-12)
  tester:assertalmosteq(torch.std(u, 1, true)[1], math.sqrt(1.25), 1e-12)
  tester:assertalmosteq(torch.std(u, 1, false)[1], math.sqrt(5 / 3), 1e-12)
  local x = T({{1, 2}, {3, 5}})
  tester:assertTableEq(values(x:std(2, true)), { 0.5, 1 })
  local r = T(); torch.var(r, x, 1); tester:assertTableEq(values(r), { 2, 4.5 })
end

function tests.sort_topk_kthvalue_median_mode()
  local x = T({{3, 1, 2}, {9, 7, 8}})
  local s, si = x:sort(2)
  tester:assertTableEq(values(s), { 1, 2, 3, 7, 8, 9 }); tester:assertTableEq(values(si), { 2, 3, 1, 2, 3, 1 })
  local sd, sdi = x:sort(2, true)
  tester:assertTableEq(values(sd[1]), { 3, 2, 1 }); tester:assertTableEq(values(sdi[1]), { 1, 3, 2 })
  tester:assertTableEq(values(T({3, 1, 2}):sort(true)), { 3, 2, 1 })
  local tk, tki = torch.topk(T({5, 1, 4, 2}), 2)     -- Torch7's default: the smallest
  tester:assertTableEq(values(tk), { 1, 2 }); tester:assertTableEq(values(tki), { 2, 4 })
  tester:assertTableEq(values(torch.topk(T({5, 1, 4, 2}), 2, 1, true)), { 5, 4 })
  local kv, ki = torch.kthvalue(T({5, 1, 4, 2}), 2)
  tester:assertTableEq(sizes(kv), { 1 }); tester:asserteq(kv[1], 2); tester:asserteq(ki[1], 4)
  local kv2 = x:kthvalue(1, 2)
  tester:assertTableEq(sizes(kv2), { 2, 1 })
  tester:asserteq(T({5, 1, 4, 2}):median(), 2, 'the lower median of an even count')
  local md, mi = x:median(2)
  tester:assertTableEq(values(md), { 2, 8 }); tester:assertTableEq(values(mi), { 3, 3 })
  local mo, moi = torch.mode(T({{1, 1, 2}}), 2)
  tester:assertTableEq(sizes(mo), { 1, 1 }); tester:asserteq(mo[1][1], 1); tester:asserteq(moi[1][1], 2)
  tester:assertTableEq(select(2, T({2, 1, 2, 1}):sort()):totable(), { 2, 4, 1, 3 }, 'ties keep their order')
end

function tests.scans_and_norms()
  local x = T({{1, 2}, {3, 5}})
  tester:assertTableEq(values(torch.cumsum(x)), { 1, 2, 4, 7 }, 'cumsum defaults to dim 1')
  tester:assertTableEq(values(torch.cumsum(x, 2)), { 1, 3, 3, 8 })
  tester:assertTableEq(values(torch.cumprod(x, 2)), { 1, 2, 3, 15 })
  local u = T({1, 2, 3, 4})
  tester:assertalmosteq(u:norm(), math.sqrt(30), 1e-12)
  tester:asserteq(u:norm(1), 10)
  tester:assertalmosteq(torch.dist(T({1, 2}), T({3, 4}), 3), 16 ^ (1 / 3), 1e-12)
  local rn = torch.renorm(T({{3, 4}, {6, 8}}), 2, 1, 5)
  tester:assertTableEq(values(rn[1]), { 3, 4 })
  tester:assertalmosteq(rn[2][1], 3, 1e-6)
  tester:asserteq(T({{1, 2, 3}, {4, 5, 6}}):trace(), 6, 'trace of a non-square matrix sums min(m, n)')
  local c = torch.cross(T({{1, 0, 0}, {0, 1, 0}}), T({{0, 1, 0}, {0, 0, 1}}))  -- first dim of size 3
  tester:assertTableEq(values(c), { 0, 0, 1, 1, 0, 0 })
end

-- ---- creation -------------------------------------------------------------------------------

function tests.creation_functions()
  tester:assertTableEq(values(torch.range(1, 3)), { 1, 2, 3 }, 'range is inclusive')
  tester:assertTableEq(sizes(torch.range(0, 1, 0.3)), { 4 })
  tester:assertTableEq(values(torch.range(3, 1, -1)), { 3, 2, 1 })
  tester:assertTableEq(sizes(torch.linspace(0, 1)), { 100 })
  tester:assertTableEq(values(torch.linspace(0, 1, 5)), { 0, 0.25, 0.5, 0.75, 1 })
  tester:assertalmosteq(torch.logspace(0, 2, 3)[2], 10, 1e-5)
  tester:assertTableEq(values(torch.eye(2, 3)), { 1, 0, 0, 0, 1, 0 })
  local ei = torch.IntTensor(); torch.eye(ei, 2); tester:asserteq(torch.type(ei), 'torch.IntTensor')
  tester:assertTableEq(values(torch.diag(T({1, 2}), 1)), { 0, 1, 0, 0, 0, 2, 0, 0, 0 })
  tester:assertTableEq(values(torch.diag(T({{1, 2}, {3, 4}}), 1)), { 2 })
  tester:assertTableEq(values(torch.tril(T({{1, 2}, {3, 4}}))), { 1, 0, 3, 4 })
  tester:assertTableEq(values(torch.triu(T({{1, 2}, {3, 4}}), 1)), { 0, 2, 0, 0 })
  tester:assertTableEq(values(torch.histc(T({1, 2, 1, 3, 4}), 4)), { 2, 1, 1, 1 })
  tester:assertTableEq(values(torch.histc(T({1, 2, 1}), 3, 0, 3)), { 0, 2, 1 })
  torch.manualSeed(1)
  local rp = torch.randperm(5)
  tester:assertTableEq(values(rp:clone():sort()), { 1, 2, 3, 4, 5 })
  local mn = torch.multinomial(T({{0, 1}, {1, 0}}), 1)
  tester:assertTableEq(sizes(mn), { 2, 1 }); tester:assertTableEq(values(mn), { 2, 1 })
  local o = torch.IntTensor(); torch.ones(o, 2, 2); tester:assertTableEq(values(o), { 1, 1, 1, 1 })
end

-- ---- types ----------------------------------------------------------------------------------

function tests.type_conversions_and_cross_type_copy()
  local d = T({1.7, -2.3, 300})
  tester:asserteq(d:type(), 'torch.DoubleTensor')
  tester:assertTableEq(values(d:type('torch.IntTensor')), { 1, -2, 300 }, 'truncation toward zero')
  tester:asserteq(torch.type(d:long()), 'torch.LongTensor')
  tester:assert(d:double() == d and d:type('torch.DoubleTensor') == d, 'the same type returns the tensor itself')
  tester:asserteq(torch.type(d:typeAs(torch.IntTensor())), 'torch.IntTensor')
  local l = torch.LongTensor(3); l:copy(d); tester:assertTableEq(values(l), { 1, -2, 300 })
  local f = torch.FloatTensor(2, 2); f:copy(T({1, 2, 3, 4})); tester:asserteq(f[2][1], 3)
  local i2 = torch.IntTensor(2); i2:fill(3.9); tester:assertTableEq(values(i2), { 3, 3 })
end

-- ---- Storage --------------------------------------------------------------------------------

function tests.storage_api()
  local s = torch.FloatStorage(3)
  tester:asserteq(s:size(), 3); tester:asserteq(#s, 3)
  s:fill(2); tester:asserteq(s[3], 2)
  s[2] = 5; tester:asserteq(s[2], 5)
  s:resize(5); tester:asserteq(#s, 5); tester:asserteq(s[2], 5)
  s:resize(3); s:copy(torch.DoubleStorage({1, 2, 3})); tester:assertTableEq(s:totable(), { 1, 2, 3 })
  local d = torch.DoubleStorage({1, 2, 3})
  local v = torch.DoubleStorage(d, 2, 2); v[1] = 20
  tester:asserteq(d[2], 20, 'a storage view shares its parent')
  tester:asserteq(d:elementSize(), 8)
  tester:asserteq(torch.ByteStorage({104, 105}):string(), 'hi')
  tester:assertErrorPattern(function() return d[4] end, 'Storage')
  tester:assertErrorPattern(function() return d[0] end, 'Storage')
  -- Storage.__tostring__ starts with a newline (strt = {'\n'}), a Tensor's does not
  tester:asserteq(tostring(torch.LongStorage({1, 2})), '\n 1\n 2\n[torch.LongStorage of size 2]\n')
end

-- ---- printing (Tensor.lua's Storage__printformat) -------------------------------------------

function tests.printing_format()
  tester:asserteq(tostring(T()), '[torch.DoubleTensor with no dimension]\n')
  tester:asserteq(tostring(T(2, 0)), '[torch.DoubleTensor of size 2x0]\n')
  -- expMax - expMin > 4: %11.4e
  tester:asserteq(tostring(T({1e10, 1})), ' 1.0000e+10\n 1.0000e+00\n[torch.DoubleTensor of size 2]\n')
  tester:asserteq(tostring(T({1e-10, 1})), ' 1.0000e-10\n 1.0000e+00\n[torch.DoubleTensor of size 2]\n')
  -- expMax < 0: %7.4f with a scale line 10^(expMax - 1)
  tester:asserteq(tostring(T({0.001, 0.002})), '0.001 *\n 1.0000\n 2.0000\n[torch.DoubleTensor of size 2]\n')
  -- integers: %(expMax + 1)d; an integer above 10^9: %11.4e
  tester:asserteq(tostring(T({1, 2, 30})), '  1\n  2\n 30\n[torch.DoubleTensor of size 3]\n')
  tester:asserteq(tostring(T({12345678901})), ' 1.2346e+10\n[torch.DoubleTensor of size 1]\n')
  tester:asserteq(tostring(T({100.25, 3})), ' 100.2500\n   3.0000\n[torch.DoubleTensor of size 2]\n')
  -- doc/maths.md's torch.prod(a, 2), with the space the code writes after '='
  local a = T({{{1, 2}, {3, 4}}, {{5, 6}, {7, 8}}})
  tester:asserteq(tostring(torch.prod(a, 2)),
    '(1,.,.) = \n   3   8\n\n(2,.,.) = \n  35  48\n[torch.DoubleTensor of size 2x1x2]\n')
  local wide = tostring(torch.range(1, 30):double():view(1, 30))
  tester:assert(wide:find('^Columns 1 to 20\n') ~= nil and wide:find('\n\nColumns 21 to 30\n') ~= nil, wide)
end

-- ---- utilities ------------------------------------------------------------------------------

function tests.class_system_and_isTypeOf()
  local name = 't7compat' .. tostring(os.time()) .. tostring(math.random(1e6))
  local A = torch.class(name .. '.A')
  function A:__init(x) self.x = x end
  function A:get() return self.x end
  local B = torch.class(name .. '.B', name .. '.A')
  function B:__init(x) _G[name].A.__init(self, 2 * x) end
  local b = _G[name].B(3)
  tester:asserteq(b:get(), 6)
  tester:asserteq(torch.typename(b), name .. '.B')
  tester:assert(torch.isTypeOf(b, name .. '.A'))
  tester:assert(torch.isTypeOf(b, _G[name].A))
  tester:assert(not torch.isTypeOf(_G[name].A(1), name .. '.B'))
  tester:asserteq(tostring(b), name .. '.B')
  -- regression: a tensor with a constructor spec raised "bad argument #1 to 'rawget' (table
  -- expected, got string)" (getmetatable of an FFI handle is the string 'ffi')
  tester:assert(torch.isTypeOf(T(2), torch.DoubleTensor))
  tester:assert(not torch.isTypeOf(T(2), torch.FloatTensor))
  tester:assert(torch.isTypeOf(torch.DoubleStorage(2), torch.DoubleStorage))
  tester:assert(torch.isTypeOf(T(2), 'torch.*Tensor'))
  tester:assert(torch.isTypeOf(torch.Timer(), torch.Timer))
  tester:asserteq(torch.typename(1), nil)
  tester:asserteq(torch.type(1), 'number')
  _G[name] = nil
end

function tests.timer_and_cmdline()
  local t = torch.Timer()
  local tm = t:time()
  tester:asserteq(type(tm.real), 'number'); tester:asserteq(type(tm.user), 'number'); tester:asserteq(type(tm.sys), 'number')
  t:stop(); t:resume(); t:reset()
  tester:assert(t:time().real < 1)
  local cmd = torch.CmdLine()
  cmd:option('-lr', 0.1, 'learning rate'); cmd:option('-name', 'x', 'name'); cmd:option('-flag', false, 'flag')
  cmd:argument('-file', 'input')
  local o = cmd:parse({ '-lr', '0.5', '-flag', 'in.txt' })
  tester:asserteq(o.lr, 0.5); tester:asserteq(o.name, 'x'); tester:asserteq(o.flag, true); tester:asserteq(o.file, 'in.txt')
  tester:asserteq(cmd:string('exp', o, { file = true }), 'exp,flag=t,lr=0.5')
end

function tests.lapack_methods_potri_trtrs()
  -- Torch7 wraps every LAPACK name as a method; potri and trtrs had only the torch.f form.
  local A = T({{2, 1}, {0, 4}})
  local x = T(2, 1):fill(1):trtrs(A)
  tester:assertTableEq(values(x), { 0.375, 0.25 })
  local r = T()
  r:potri(T({{2, 0}, {0, 2}}))
  tester:assertTableEq(values(r), { 0.25, 0, 0, 0.25 })
end

tester:add(tests)
tester:run()
