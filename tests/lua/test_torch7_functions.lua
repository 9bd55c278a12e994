-- Torch7's functions built in Lua (lua/torch/conv_t7.lua, lua/torch/torch7_extra.lua): conv2,
-- xcorr2, conv3 and xcorr3 against loops written from Torch7's definitions (every shape pair and
-- mode, f32 and f64, res and method forms, errors, gradchecks), tpow, bhistc against per-row
-- loops and histc, torch.zero/fill/totable, and torch.PipeFile writing to and reading from `cat`.
local tester = torch.Tester()
local tests = torch.TestSuite()
local R = dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/helpers/ref.lua')
local flat, sizes, coords, linear, numel = R.flat, R.sizes, R.coords, R.linear, R.numel
local near, assert_list, check = R.near, R.list_asserter(tester), R.gradchecker(tester)
local TMP = (os.getenv('TOCHA_TEST_TMP') or '/tmp') .. '/torch7_functions_'
local NAN = 0 / 0

local FLOAT_TYPES = { ['torch.FloatTensor'] = 1e-4, ['torch.DoubleTensor'] = 1e-11 }

-- ---- conv2 / xcorr2 / conv3 / xcorr3 ------------------------------------------------------------

-- One image x (flat values xv, sizes xs) with one kernel: THTensorConv's loops. Valid:
-- out[o] = sum_a x[o + a - 1] * k[a] (k reversed for conv). Full, as its scatter form:
-- out[i + a - 1] += x[i] * k[a] (k reversed for xcorr).
local function ref_one(xv, xs, kv, ks, full, conv)
  local nd = #xs
  local os = {}
  for d = 1, nd do os[d] = full and xs[d] + ks[d] - 1 or xs[d] - ks[d] + 1 end
  local out = {}
  for o = 1, numel(os) do out[o] = 0 end
  local function kat(ca, reversed)
    local c = {}
    for d = 1, nd do c[d] = reversed and ks[d] + 1 - ca[d] or ca[d] end
    return kv[linear(c, ks) + 1]
  end
  if full then
    for i = 0, numel(xs) - 1 do
      local ci = coords(i, xs)
      for a = 0, numel(ks) - 1 do
        local ca, co = coords(a, ks), {}
        for d = 1, nd do co[d] = ci[d] + ca[d] - 1 end
        local o = linear(co, os) + 1
        out[o] = out[o] + xv[i + 1] * kat(ca, not conv)
      end
    end
  else
    for o = 0, numel(os) - 1 do
      local co, s = coords(o, os), 0
      for a = 0, numel(ks) - 1 do
        local ca, ci = coords(a, ks), {}
        for d = 1, nd do ci[d] = co[d] + ca[d] - 1 end
        s = s + xv[linear(ci, xs) + 1] * kat(ca, conv)
      end
      out[o + 1] = s
    end
  end
  return out, os
end

-- Torch7's three shape pairs: 'one', 'planes' (plane i with kernel i), 'layer' (output plane j
-- sums plane i of x with k[j][i]). Returns the flat result and its sizes.
local function ref(x, k, nd, full, conv)
  local xs, ks = sizes(x), sizes(k)
  if #xs == nd then return ref_one(flat(x), xs, flat(k), ks, full, conv) end
  local out, osz = {}, nil
  if #ks == nd + 1 then
    for p = 1, xs[1] do
      local o, s = ref_one(flat(x[p]), sizes(x[p]), flat(k[p]), sizes(k[p]), full, conv)
      for _, v in ipairs(o) do out[#out + 1] = v end
      osz = s
    end
  else
    for j = 1, ks[1] do
      local acc
      for p = 1, xs[1] do
        local o, s = ref_one(flat(x[p]), sizes(x[p]), flat(k[j][p]), sizes(k[j][p]), full, conv)
        if acc then for i = 1, #o do acc[i] = acc[i] + o[i] end else acc = o end
        osz = s
      end
      for _, v in ipairs(acc) do out[#out + 1] = v end
    end
  end
  table.insert(osz, 1, #ks == nd + 1 and xs[1] or ks[1])
  return out, osz
end

local CASES = {
  [2] = { { { 5, 6 }, { 2, 3 } }, { { 3, 5, 6 }, { 3, 2, 3 } }, { { 3, 5, 6 }, { 4, 3, 2, 3 } }, { { 4, 4 }, { 4, 1 } } },
  [3] = { { { 4, 5, 3 }, { 2, 3, 2 } }, { { 2, 4, 5, 3 }, { 2, 2, 3, 2 } }, { { 2, 4, 4, 3 }, { 3, 2, 2, 3, 2 } } },
}
local OPS = { { 'conv2', 2, true }, { 'xcorr2', 2, false }, { 'conv3', 3, true }, { 'xcorr3', 3, false } }

local function check_op(name, nd, conv, tname, tol)
  for _, case in ipairs(CASES[nd]) do
    local x = torch.DoubleTensor(unpack(case[1])):uniform(-1, 1):type(tname)
    local k = torch.DoubleTensor(unpack(case[2])):uniform(-1, 1):type(tname)
    for _, mode in ipairs({ 'default', 'V', 'F' }) do
      local want, wsz = ref(x:double(), k:double(), nd, mode == 'F', conv)
      local got = mode == 'default' and torch[name](x, k) or torch[name](x, k, mode)
      local what = string.format('%s %s %s x %s %s', tname, name, table.concat(case[1], 'x'), table.concat(case[2], 'x'), mode)
      tester:asserteq(got:type(), tname, what .. ' type')
      tester:assertTableEq(sizes(got), wsz, what .. ' size')
      assert_list(flat(got), want, tol, what)
    end
  end
end

function tests.conv2FamilyAgainstLoops()
  torch.manualSeed(1)
  for _, op in ipairs(OPS) do
    for tname, tol in pairs(FLOAT_TYPES) do check_op(op[1], op[2], op[3], tname, tol) end
  end
end

function tests.knownValuesAndFlip()
  local x = torch.DoubleTensor({ { 1, 2, 3 }, { 4, 5, 6 }, { 7, 8, 9 } })
  local k = torch.DoubleTensor({ { 1, 0 }, { 0, 2 } })
  -- xcorr: x[i][j] + 2 x[i+1][j+1]; conv flips k: 2 x[i][j] + x[i+1][j+1]
  tester:assertTableEq(torch.xcorr2(x, k):totable(), { { 11, 14 }, { 20, 23 } })
  tester:assertTableEq(torch.conv2(x, k):totable(), { { 7, 10 }, { 16, 19 } })
  tester:assertTableEq(torch.conv2(torch.ones(3, 3), torch.ones(2, 2), 'F'):size():totable(), { 4, 4 })
  tester:asserteq(torch.conv2(torch.ones(3, 3), torch.ones(2, 2), 'F')[2][2], 4)
  -- full conv of a single 1 is the kernel itself; full xcorr the kernel reversed
  local one = torch.DoubleTensor({ { 1 } })
  tester:assertTableEq(torch.conv2(one, k, 'F'):totable(), k:totable())
  tester:assertTableEq(torch.xcorr2(one, k, 'F'):totable(), { { 2, 0 }, { 0, 1 } })
  -- Torch7's doc example sizes
  tester:assertTableEq(torch.conv3(torch.rand(12, 12, 12), torch.rand(3, 3, 3)):size():totable(), { 10, 10, 10 })
  tester:assertTableEq(torch.xcorr3(torch.rand(12, 12, 12), torch.rand(3, 3, 3), 'F'):size():totable(), { 14, 14, 14 })
end

function tests.resMethodAndLayouts()
  torch.manualSeed(2)
  local x = torch.DoubleTensor(6, 5):uniform()
  local k = torch.DoubleTensor(3, 2):uniform()
  local want = torch.conv2(x, k)
  local res = torch.DoubleTensor(7)
  tester:asserteq(torch.conv2(res, x, k), res, 'res returned')
  tester:assertTensorEq(res, want, 0, 'res filled')
  local res2 = torch.DoubleTensor()
  tester:asserteq(torch.xcorr3(res2, x:view(1, 6, 5), k:view(1, 3, 2), 'F'), res2)
  tester:assertTensorEq(res2, torch.xcorr3(x:view(1, 6, 5), k:view(1, 3, 2), 'F'), 0, 'res xcorr3')
  -- methods: x:conv2(k) is a new tensor (x unchanged); res:conv2(x, k) fills res
  local before = x:clone()
  tester:assertTensorEq(x:conv2(k), want, 0, 'x:conv2(k)')
  tester:assertTensorEq(x, before, 0, 'x unchanged')
  tester:assertTensorEq(x:xcorr2(k, 'F'), torch.xcorr2(x, k, 'F'), 0, 'x:xcorr2(k, F)')
  local r3 = torch.DoubleTensor()
  r3:conv2(x, k, 'F')
  tester:assertTensorEq(r3, torch.conv2(x, k, 'F'), 0, 'res:conv2(x, k, F)')
  -- non-contiguous inputs give the same values
  local xt, kt = x:t(), k:t()
  tester:assertTensorEq(torch.conv2(xt, kt), torch.conv2(xt:contiguous(), kt:contiguous()), 1e-12, 'transposed')
  local planes = torch.DoubleTensor(4, 5, 3):uniform():transpose(1, 3)  -- 3 x 5 x 4
  local pk = torch.DoubleTensor(3, 2, 2):uniform()
  tester:assertTensorEq(torch.xcorr2(planes, pk), torch.xcorr2(planes:contiguous(), pk), 1e-12, 'transposed planes')
  -- half tensors compute in float on the CPU and keep their type
  local h = torch.conv2(torch.ones(4, 4):half(), torch.ones(2, 2):half(), 'F')
  tester:asserteq(h:type(), 'torch.HalfTensor')
  tester:asserteq(h[2][2], 4)
end

function tests.convErrorsNameTheFunction()
  local x2, x3 = torch.ones(4, 4), torch.ones(2, 4, 4)
  tester:assertErrorPattern(function() torch.conv2(torch.ones(4), torch.ones(2)) end, '%[conv2%] expected x and k of 2 and 2')
  tester:assertErrorPattern(function() torch.xcorr2(x2, torch.ones(2, 2, 2)) end, '%[xcorr2%] expected x and k of')
  tester:assertErrorPattern(function() torch.conv3(x3, torch.ones(2, 2)) end, '%[conv3%] expected x and k of 3 and 3')
  tester:assertErrorPattern(function() torch.conv2(x3, torch.ones(3, 2, 2)) end, '%[conv2%] x has 2 planes but k has 3')
  tester:assertErrorPattern(function() torch.xcorr2(x3, torch.ones(5, 3, 2, 2)) end, '%[xcorr2%] x has 2 planes but k expects 3')
  tester:assertErrorPattern(function() torch.conv2(x2, torch.ones(5, 2)) end, "%[conv2%] input is smaller than the kernel in 'V' mode")
  tester:assertNoError(function() torch.conv2(x2, torch.ones(5, 2), 'F') end, 'a larger kernel is fine in full mode')
  tester:assertErrorPattern(function() torch.conv2(x2, x2, 'X') end, "%[conv2%] mode must be 'V' %(valid%) or 'F' %(full%), got 'X'")
  tester:assertErrorPattern(function() torch.conv2(x2, x2, 3) end, "%[conv2%] mode must be .*got number")
  tester:assertErrorPattern(function() torch.conv2(x2, x2:double()) end, '%[conv2%] x is a torch.FloatTensor but k is a torch.DoubleTensor')
  tester:assertErrorPattern(function() torch.conv3(x3:long(), x3:long()) end,
    '%[conv3%] expected floating%-point tensors, got a torch.LongTensor')
  tester:assertErrorPattern(function() torch.xcorr3(torch.ones(2, 0, 2), torch.ones(1, 1, 1)) end, '%[xcorr3%] x has an empty dim')
  tester:assertErrorPattern(function() torch.conv2(torch.DoubleTensor(), x2, x2) end,
    '%[conv2%] res is a torch.DoubleTensor but the result is a torch.FloatTensor')
  tester:assertErrorPattern(function() torch.conv2('a', x2, x2) end, '%[conv2%] res must be a tensor, got string')
  tester:assertErrorPattern(function() torch.conv2(torch.Tensor(), 'a', x2) end, '%[conv2%] expected a tensor x, got string')
  tester:assertErrorPattern(function() torch.xcorr2(x2) end, '%[xcorr2%] expected a tensor k, got nil')
  tester:assertErrorPattern(function() torch.conv3(1, x2) end, '%[conv3%] expected a tensor x, got number')
end

function tests.gradcheckThroughConv()
  torch.manualSeed(3)
  for _, name in ipairs({ 'conv2', 'xcorr2' }) do
    for _, case in ipairs(CASES[2]) do
      local x = torch.DoubleTensor(unpack(case[1])):uniform(-1, 1):requiresGrad()
      local k = torch.DoubleTensor(unpack(case[2])):uniform(-1, 1):requiresGrad()
      for _, mode in ipairs({ 'V', 'F' }) do
        check(name .. ' ' .. #case[1] .. '-D x ' .. #case[2] .. '-D k ' .. mode,
          function(a, b) return torch[name](a, b, mode) end, { x, k })
      end
    end
  end
  local x = torch.DoubleTensor(2, 3, 3, 3):uniform(-1, 1):requiresGrad()
  local k = torch.DoubleTensor(2, 2, 2, 2, 2):uniform(-1, 1):requiresGrad()
  check('conv3 layer F', function(a, b) return torch.conv3(a, b, 'F') end, { x, k })
  check('xcorr3 layer', function(a, b) return torch.xcorr3(a, b) end, { x, k })
  local ok, err = pcall(torch.autograd.gradgradcheck, function(a, b) return torch.conv2(a, b, 'F') end,
    { torch.DoubleTensor(2, 4, 4):uniform():requiresGrad(), torch.DoubleTensor(2, 2, 3):uniform():requiresGrad() })
  tester:assert(ok and err, 'conv2 second order: ' .. tostring(err))
end

function tests.convOnCudaMatchesCpu()
  if R.no_cuda() then return end
  torch.manualSeed(4)
  for _, op in ipairs(OPS) do
    for _, case in ipairs(CASES[op[2]]) do
      local x, k = torch.DoubleTensor(unpack(case[1])):uniform(), torch.DoubleTensor(unpack(case[2])):uniform()
      local got = torch[op[1]](x:cuda(), k:cuda(), 'F')
      tester:assert(got:device() ~= 'cpu', op[1] .. ' stays on the device')
      tester:assertTensorEq(got:double(), torch[op[1]](x, k, 'F'), 1e-4, op[1] .. ' on CUDA')
    end
  end
  local x = torch.DoubleTensor(3, 40):uniform(-2, 2)
  tester:assertTensorEq(torch.bhistc(x:cuda(), 7):double(), torch.bhistc(x, 7):double(), 0, 'bhistc on CUDA')
end

-- ---- tpow --------------------------------------------------------------------------------------

function tests.tpow()
  for tname, tol in pairs(FLOAT_TYPES) do
    local x = torch.DoubleTensor({ -2, -0.5, 0, 0.5, 1, 3 }):type(tname)
    for _, val in ipairs({ 2, 0.5, 3.25 }) do
      local want = {}
      for i, v in ipairs(flat(x)) do want[i] = val ^ v end
      local got = torch.tpow(val, x)
      tester:asserteq(got:type(), tname)
      assert_list(flat(got), want, tol, tname .. ' tpow ' .. val)
      assert_list(flat(got), flat(torch.pow(val, x)), 0, 'same as torch.pow(val, x)')
      local res = torch.Tensor():type(tname)
      tester:asserteq(torch.tpow(res, val, x), res, 'res returned')
      assert_list(flat(res), want, tol, tname .. ' tpow res')
    end
  end
  local x = torch.DoubleTensor(5):uniform(-1, 1):requiresGrad()
  check('tpow', function(a) return torch.tpow(1.7, a) end, { x })
  tester:assertErrorPattern(function() torch.tpow(torch.ones(2), torch.ones(2)) end, '%[tpow%] val must be a number, got torch.FloatTensor')
  tester:assertErrorPattern(function() torch.tpow(torch.ones(2), 2) end, '%[tpow%] expected a tensor as argument 3, got nil')
  tester:assertErrorPattern(function() torch.tpow(2, 3) end, '%[tpow%] expected a tensor as argument 2, got number')
  tester:assertErrorPattern(function() torch.tpow(torch.ones(2), 2, 'a') end, '%[tpow%] expected a tensor as argument 3, got string')
  tester:assertErrorPattern(function() torch.tpow(2, torch.ones(2), 5) end, '%[tpow%] expected %(%[res,%] val, x%)')
end

-- ---- bhistc ------------------------------------------------------------------------------------

-- Torch7's bhistc: one range for every row (the data's when lo == hi), bins as histc's.
local function bhistc_ref(x, nbins, lo, hi)
  local rows = x:totable()
  if lo == hi then
    lo, hi = math.huge, -math.huge
    for _, row in ipairs(rows) do for _, v in ipairs(row) do lo, hi = math.min(lo, v), math.max(hi, v) end end
  end
  if lo == hi then lo, hi = lo - 1, hi + 1 end
  local out = {}
  for r, row in ipairs(rows) do
    for b = 1, nbins do out[(r - 1) * nbins + b] = 0 end
    for _, v in ipairs(row) do
      if v >= lo and v <= hi then
        local b = math.min(math.floor((v - lo) / (hi - lo) * nbins), nbins - 1)
        out[(r - 1) * nbins + b + 1] = out[(r - 1) * nbins + b + 1] + 1
      end
    end
  end
  return out
end

function tests.bhistcAgainstLoops()
  torch.manualSeed(5)
  for tname in pairs(FLOAT_TYPES) do
    local x = torch.DoubleTensor(4, 30):uniform(-3, 5):type(tname)
    x[2]:mul(0.1)  -- rows with different ranges share the global one
    for _, args in ipairs({ { 100, 0, 0 }, { 7, 0, 0 }, { 5, -1, 1 }, { 3, 2, 2 }, { 10, -10, 10 } }) do
      local nbins, lo, hi = unpack(args)
      local got = torch.bhistc(x, nbins, lo, hi)
      tester:asserteq(got:type(), tname)
      tester:assertTableEq(sizes(got), { 4, nbins })
      assert_list(flat(got), bhistc_ref(x:double(), nbins, lo, hi), 0, tname .. ' bhistc ' .. table.concat(args, ','))
      if lo ~= hi then  -- with a given range each row is histc of the row
        for r = 1, 4 do assert_list(flat(got[r]), flat(torch.histc(x[r], nbins, lo, hi)), 0, 'row ' .. r .. ' as histc') end
      end
    end
    -- defaults: 100 bins over the whole tensor's range
    assert_list(flat(torch.bhistc(x)), bhistc_ref(x:double(), 100, 0, 0), 0, 'defaults')
  end
  -- integer-valued data on bin edges, a constant tensor, values outside the range and NaN
  local e = torch.DoubleTensor({ { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 }, { 10, 10, 0, 5, 5, 5, 2.5, 7.5, 1, 9, 4 } })
  assert_list(flat(torch.bhistc(e, 4)), bhistc_ref(e, 4, 0, 0), 0, 'bin edges')
  assert_list(flat(torch.bhistc(e, 3, 2, 8)), bhistc_ref(e, 3, 2, 8), 0, 'outside the range')
  tester:assertTableEq(torch.bhistc(torch.DoubleTensor(2, 3):fill(4), 2):totable(), { { 0, 3 }, { 0, 3 } }, 'constant')
  local n = torch.DoubleTensor({ { 1, NAN, 3 }, { 2, 2, 1 / 0 } })
  tester:assertTableEq(torch.bhistc(n, 2, 1, 3):totable(), { { 1, 1 }, { 0, 2 } }, 'NaN and inf ignored')
  tester:assertTableEq(sizes(torch.bhistc(torch.DoubleTensor(3, 0), 4)), { 3, 4 })
  tester:asserteq(torch.bhistc(torch.LongTensor({ { 1, 2 } }), 2):type(), torch.getdefaulttensortype())
  -- res and method forms
  local res = torch.DoubleTensor(1)
  tester:asserteq(torch.bhistc(res, e, 4), res)
  assert_list(flat(res), bhistc_ref(e, 4, 0, 0), 0, 'res')
  assert_list(flat(e:bhistc(4)), bhistc_ref(e, 4, 0, 0), 0, 'method')
end

function tests.bhistcErrors()
  tester:assertErrorPattern(function() torch.bhistc(torch.ones(5)) end,
    '%[bhistc%] expected a 2%-D tensor, got torch.FloatTensor of size 5')
  tester:assertErrorPattern(function() torch.bhistc(torch.ones(2, 2, 2)) end, '%[bhistc%] expected a 2%-D tensor')
  tester:assertErrorPattern(function() torch.bhistc(torch.ones(2, 2), 0) end, '%[bhistc%] nbins must be a positive integer, got 0')
  tester:assertErrorPattern(function() torch.bhistc(torch.ones(2, 2), 2.5) end, '%[bhistc%] nbins must be a positive integer')
  tester:assertErrorPattern(function() torch.bhistc(torch.ones(2, 2), 'a') end, '%[bhistc%] nbins must be a number, got string')
  tester:assertErrorPattern(function() torch.bhistc(torch.ones(2, 2), 2, 3, 1) end, '%[bhistc%] max 1 must not be smaller than min 3')
  tester:assertErrorPattern(function() torch.bhistc(torch.DoubleTensor({ { 1, 1 / 0 } })) end, '%[bhistc%] range %[1, inf%] is not finite')
  tester:assertErrorPattern(function() torch.bhistc({}) end, '%[bhistc%] expected a tensor as argument 1, got table')
end

-- ---- torch.zero / fill / totable -----------------------------------------------------------------

function tests.functionFormsOfMethods()
  local x = torch.DoubleTensor(2, 3):fill(5)
  tester:asserteq(torch.zero(x), x, 'zero returns x')
  tester:asserteq(x:sum(), 0)
  tester:asserteq(torch.fill(x, 2.5), x, 'fill returns x')
  tester:assertTableEq(torch.totable(x), { { 2.5, 2.5, 2.5 }, { 2.5, 2.5, 2.5 } })
  local v = x:narrow(2, 2, 1)
  torch.fill(v, 7)
  tester:assertTableEq(torch.totable(x), { { 2.5, 7, 2.5 }, { 2.5, 7, 2.5 } }, 'fill of a view')
  tester:asserteq(torch.totable(torch.DoubleTensor({ 3 }):view({})), 3, '0-dim gives a number')
  tester:assertErrorPattern(function() torch.zero(3) end, '%[zero%] expected a tensor as argument 1, got number')
  tester:assertErrorPattern(function() torch.fill('a', 1) end, '%[fill%] expected a tensor')
  tester:assertErrorPattern(function() torch.fill(x, 'a') end, '%[fill%] expected a number, got string')
  tester:assertErrorPattern(function() torch.totable(nil) end, '%[totable%] expected a tensor as argument 1, got nil')
end

-- ---- PipeFile ----------------------------------------------------------------------------------

local function read_file(path)
  local f = assert(io.open(path, 'rb'))
  local s = f:read('*a')
  f:close()
  return s
end
-- A path quoted for the shell (TOCHA_TEST_TMP may hold spaces).
local function q(path) return "'" .. path:gsub("'", "'\\''") .. "'" end

function tests.pipeFileWritesToCat()
  local path = TMP .. 'pipe_ascii.txt'
  local f = torch.PipeFile('cat > ' .. q(path), 'w')
  tester:asserteq(torch.typename(f), 'torch.PipeFile')
  tester:assert(torch.isTypeOf(f, 'torch.DiskFile') and torch.isTypeOf(f, 'torch.File'), 'a DiskFile and a File')
  tester:assert(f:isWritable() and not f:isReadable(), 'mode w writes only')
  tester:asserteq(f:name(), 'cat > ' .. q(path))
  f:writeInt(42)
  f:writeDouble(0.25)
  f:writeString('hello')
  tester:asserteq(f:position(), #'42\n0.25\nhello' + 1)
  f:close()
  tester:asserteq(read_file(path), '42\n0.25\nhello', 'Torch7 ascii through the pipe')
  -- reading the file back through a pipe
  local r = torch.PipeFile('cat ' .. q(path))
  tester:assert(r:isReadable() and not r:isWritable(), 'mode r reads only')
  tester:asserteq(r:readInt(), 42)
  tester:asserteq(r:readDouble(), 0.25)
  tester:asserteq(r:readString('*a'), 'hello')
  r:close()
  os.remove(path)
  tester:asserteq(torch.PipeFile('printf "a\\nb"'):readString('*l'), 'a')
end

function tests.pipeFileBinaryObjectsAndLargeWrites()
  local path = TMP .. 'pipe_binary.bin'
  local big = torch.DoubleTensor(200000):uniform()  -- 1.6 MB: sent before close as well
  local f = torch.PipeFile('cat > ' .. q(path), 'w'):binary()
  f:writeObject({ t = big, s = 'str', n = 3 })
  f:writeDouble(big:storage())
  f:synchronize()
  f:writeInt(7)
  f:close()
  local r = torch.PipeFile('cat ' .. q(path), 'r'):binary()
  local obj = r:readObject()
  tester:assertTensorEq(obj.t, big, 0, 'tensor through the pipe')
  tester:asserteq(obj.s, 'str')
  local st = r:readDouble(200000)
  tester:asserteq(st[200000], big[200000])
  tester:asserteq(r:readInt(), 7)
  r:close()
  -- through `cat` on both ends: what the writer sends is what the reader gets
  local g = torch.PipeFile('cat | cat > ' .. q(path), 'w')
  g:writeLong(torch.LongStorage({ 1, 2, 3 }))
  g:close()
  local s = torch.PipeFile('cat ' .. q(path)):readLong(3)
  tester:assertTableEq(s:totable(), { 1, 2, 3 })
  os.remove(path)
end

function tests.pipeFileFlushesWhenCollected()
  local path = TMP .. 'pipe_gc.txt'
  os.remove(path)
  local function write_unclosed()  -- its frame is gone when the collector runs
    local f = torch.PipeFile('cat > ' .. q(path), 'w')
    f:writeString('unclosed')
  end
  write_unclosed()
  collectgarbage()
  collectgarbage()
  tester:asserteq(read_file(path), 'unclosed', 'an unclosed PipeFile is flushed when collected (Torch7)')
  os.remove(path)
end

-- Note [Writes to a command that has exited]: a Lua error, not SIGPIPE killing the process; and an
-- unclosed PipeFile at exit is flushed without touching an already finalized buffer (it crashed).
function tests.pipeFileCommandGoneAndExit()
  local f = torch.PipeFile('true', 'w')
  f:writeString(string.rep('x', 4 * 1024 * 1024))  -- past the 1 MiB buffer: sent at once, or at close
  tester:assertErrorPattern(function() f:synchronize() end, '%[PipeFile%] true: write to the pipe failed')
  tester:assertErrorPattern(function() f:close() end, 'write to the pipe failed')  -- it still closes
  f:close()
  tester:assertErrorPattern(function() f:writeString('y') end, 'closed file')
  local lo = -1
  while arg[lo - 1] do lo = lo - 1 end
  local exe, script, out = arg[lo], TMP .. 'pipe_exit.lua', TMP .. 'pipe_exit.txt'
  if exe and exe:find('/') then
    local s = assert(io.open(script, 'w'))
    s:write(string.format("local f = torch.PipeFile(%q, 'w') f:writeString('at exit')\n", 'cat > ' .. q(out)))
    s:close()
    os.remove(out)
    local status = os.execute(q(exe) .. ' ' .. q(script))
    tester:assert(status == 0 or status == true, 'a script leaving a PipeFile open exits cleanly, got ' .. tostring(status))
    tester:asserteq(read_file(out), 'at exit')
    os.remove(script)
    os.remove(out)
  end
end

function tests.pipeFileErrorsAndQuiet()
  tester:assertErrorPattern(function() torch.PipeFile('cat', 'rw') end, "%[PipeFile%] mode should be 'r' or 'w', got rw")
  tester:assertErrorPattern(function() torch.PipeFile(3) end, '%[PipeFile%] expected a command %(string%), got number')
  tester:asserteq(torch.PipeFile('cat', 'rw', true), nil, 'quiet: nil instead of an error')
  local r = torch.PipeFile('echo 1')
  tester:assertErrorPattern(function() r:writeInt(1) end, "%[writeInt%] the PipeFile is opened in mode 'r'")
  tester:assertErrorPattern(function() r:seek(1) end, '%[seek%] a PipeFile cannot seek')
  tester:assertErrorPattern(function() r:seekEnd() end, '%[seekEnd%] a PipeFile cannot seek')
  tester:asserteq(r:readInt(), 1)
  tester:assertErrorPattern(function() r:readInt() end, 'read error')
  r:quiet()
  r:readInt()
  tester:assert(r:hasError(), 'quiet reads set hasError')
  r:close()
  tester:assertErrorPattern(function() r:readInt() end, 'closed file')
  local w = torch.PipeFile('cat > /dev/null', 'w')
  tester:assertErrorPattern(function() w:readInt() end, "%[readInt%] the PipeFile is opened in mode 'w'")
  tester:assertErrorPattern(function() w:readObject() end, "the PipeFile is opened in mode 'w'")
  w:close()
  w:close()  -- twice is fine
end

tester:add(tests)
tester:run()
