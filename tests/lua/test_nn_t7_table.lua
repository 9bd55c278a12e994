-- Torch7's table modules: Index, MaskedSelect, ZipTable, ZipTableOneToMany, MixtureTable,
-- CriterionTable and ModuleCriterion: values against plain loops, nn.Jacobian checks in f64,
-- Torch7's backward against autograd's loss:backward(), batch vs one sample, types, printing,
-- errors and serialization. (The glue modules and decorators: test_nn_t7_glue.lua.)
require 'nn'
dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/device/nn_device.lua')  -- TOCHA_TEST_DEVICE
local here = debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.'
local tc = dofile(here .. '/fixtures/nn_table_checks.lua')
local tester = torch.Tester()
local tests = torch.TestSuite()
torch.manualSeed(11)  -- the cases draw random inputs: a failure reproduces
local precision = 1e-7

local function rnd(...) return torch.randn(...):double() end

-- Torch7's backward against autograd's loss:backward() of sum(output .* gradOutput)
-- (fixtures/nn_table_checks.lua).
local function check_autograd(m, input, gradOutput, what) return tc.autograd(tester, m, input, gradOutput, what) end

local function round_trip(m) return torch.deserialize(torch.serialize(m)) end

function tests.index()
  local x = rnd(5, 4)
  local idx = torch.LongTensor({ 2, 5, 2, 1 })
  for _, dim in ipairs({ 1, 2, -1 }) do
    local m = nn.Index(dim):double()
    local d = dim < 0 and 2 + dim + 1 or dim
    local i2 = d == 1 and idx or torch.LongTensor({ 4, 1, 4 })
    local y = m:forward({ x, i2 })
    for a = 1, y:size(1) do for b = 1, y:size(2) do
      local want = d == 1 and x[i2[a]][b] or x[a][i2[b]]
      tester:asserteq(y[a][b], want, 'nn.Index value')
    end end
    -- the gradient adds up at repeated indices
    local go = rnd(y:size())
    local gi = m:backward({ x, i2 }, go)
    local want = x:clone():zero()
    for a = 1, y:size(1) do for b = 1, y:size(2) do
      if d == 1 then want[i2[a]][b] = want[i2[a]][b] + go[a][b] else want[a][i2[b]] = want[a][i2[b]] + go[a][b] end
    end end
    tester:assertTensorEq(gi[1], want, 1e-12, 'nn.Index gradient')
    tester:assertTableEq(gi[2]:size():totable(), { i2:size(1) }, 'the indices get a zero gradient of their size')
    check_autograd(m, { x, i2 }, go, 'nn.Index(' .. dim .. ')')
    tester:assertlt(nn.Jacobian.testJacobianTable(m, { rnd(5, 4), i2 }), precision)
  end
  -- any dims, one index
  local x3 = rnd(2, 3, 4)
  tester:assertTensorEq(nn.Index(3):double():forward({ x3, torch.LongTensor({ 3 }) }), x3[{ {}, {}, { 3 } }], 0)
  tester:asserteq(torch.type(nn.Index(1):float():forward({ torch.randn(3, 2), torch.LongTensor({ 1 }) })), 'torch.FloatTensor')
  -- a LongTensor indexed: zero gradients of the inputs' shapes
  local li = torch.LongTensor({ { 1, 2 }, { 3, 4 } })
  local lg = nn.Index(1):backward({ li, torch.LongTensor({ 2 }) }, torch.LongTensor({ { 1, 1 } }))
  tester:assertTableEq(lg[1]:size():totable(), { 2, 2 })
  tester:asserteq(tostring(nn.Index(2)), 'nn.Index')
  tester:asserteq(round_trip(nn.Index(2)).dimension, 2)
  tester:assertErrorPattern(function() nn.Index(0) end, 'dimension must be nonzero')
  tester:assertErrorPattern(function() nn.Index('x') end, 'dimension must be an integer')
  tester:assertErrorPattern(function() nn.Index(1):forward(x) end, '%[nn.Index%(1%)%] expected a table of 2 tensors')
  tester:assertErrorPattern(function() nn.Index(1):forward({ x, torch.Tensor({ 1 }) }) end, '1%-D LongTensor')
  tester:assertErrorPattern(function() nn.Index(3):forward({ x, idx }) end, '%[nn.Index%(3%)%] dimension 3 is out of range')
  tester:assertErrorPattern(function() nn.Index(1):forward({ x, torch.LongTensor({ 6 }) }) end, '%[nn.Index%(1%)%].*out of range')
  tester:assertErrorPattern(function() nn.Index(1):forward({ x, torch.LongTensor({ 0 }) }) end, '%[nn.Index%(1%)%]')
end

function tests.maskedSelect()
  local x = rnd(3, 4)
  local mask = torch.ByteTensor(3, 4):bernoulli(0.5)
  mask[1][1] = 1
  local m = nn.MaskedSelect():double()
  local y = m:forward({ x, mask })
  local vals, k = {}, 0
  for i = 1, 3 do for j = 1, 4 do if mask[i][j] == 1 then vals[#vals + 1] = x[i][j] end end end
  tester:asserteq(y:nElement(), #vals)
  for i = 1, #vals do tester:asserteq(y[i], vals[i], 'row-major order') end
  local go = rnd(#vals)
  local gi = m:backward({ x, mask }, go)
  for i = 1, 3 do for j = 1, 4 do
    if mask[i][j] == 1 then k = k + 1 tester:asserteq(gi[1][i][j], go[k]) else tester:asserteq(gi[1][i][j], 0) end
  end end
  tester:asserteq(gi[2]:abs():sum(), 0, 'the mask gets a zero gradient')
  check_autograd(m, { x, mask }, go, 'nn.MaskedSelect')
  tester:assertlt(nn.Jacobian.testJacobianTable(m, { rnd(3, 4), mask }), precision)
  -- a BoolTensor mask, and Torch7's same-count masks of another shape
  tester:assertTensorEq(m:forward({ x, mask:bool() }), y, 0)
  tester:assertTensorEq(m:forward({ x, mask:view(12) }), y, 0)
  tester:asserteq(torch.type(nn.MaskedSelect():float():forward({ torch.randn(3, 4), mask })), 'torch.FloatTensor')
  tester:asserteq(tostring(m), 'nn.MaskedSelect')
  tester:assertErrorPattern(function() nn.MaskedSelect(mask) end, 'takes no arguments')
  tester:assertErrorPattern(function() m:forward({ x, torch.LongTensor(3, 4):fill(1) }) end, 'ByteTensor or BoolTensor')
  tester:assertErrorPattern(function() m:forward({ x, torch.ByteTensor(5):fill(1) }) end, '%[nn.MaskedSelect%].*mask')
  tester:assertErrorPattern(function() m:forward(x) end, 'expected a table of 2 tensors')
end

function tests.zipTable()
  local a1, a2, b1, b2, c1, c2 = rnd(2), rnd(3), rnd(2), rnd(3), rnd(2), rnd(3)
  local z = nn.ZipTable()
  local out = z:forward({ { a1, a2 }, { b1, b2 }, { c1, c2 } })
  tester:asserteq(#out, 2)
  tester:assert(out[1][1] == a1 and out[1][2] == b1 and out[1][3] == c1 and out[2][1] == a2 and out[2][3] == c2)
  local g = { { rnd(2), rnd(2), rnd(2) }, { rnd(3), rnd(3), rnd(3) } }
  local gi = z:backward({ { a1, a2 }, { b1, b2 }, { c1, c2 } }, g)
  tester:assert(gi[1][1] == g[1][1] and gi[1][2] == g[2][1] and gi[3][2] == g[2][3], 'gradOutput zipped back')
  check_autograd(z, { { a1, a2 }, { b1, b2 }, { c1, c2 } }, g, 'nn.ZipTable')
  -- in a network: autograd and Torch7's backward reach the linear layers
  local net = nn.Sequential():add(nn.ZipTable()):add(nn.MapTable(nn.JoinTable(1))):add(nn.JoinTable(1)):double()
  tester:assertlt(nn.Jacobian.testJacobianTable(net, { { rnd(2), rnd(3) }, { rnd(2), rnd(3) } }), precision)
  tester:asserteq(tostring(z), 'nn.ZipTable')
  tester:assertErrorPattern(function() z:forward(a1) end, '%[nn.ZipTable%] expected the input as a table of tables')
  tester:assertErrorPattern(function() z:forward({ a1 }) end, 'element 1 is torch.DoubleTensor')
  tester:assertErrorPattern(function() z:forward({ { a1, a2 }, { b1 } }) end, 'table 2 has 1 elements but table 1 has 2')
  tester:assertErrorPattern(function() z:backward({ { a1, a2 }, { b1, b2 } }, { { a1, b1 } }) end, 'gradOutput is 1 tables')
end

function tests.zipTableOneToMany()
  local v, a, b, c = rnd(2, 3), rnd(4), rnd(4), rnd(1)
  local z = nn.ZipTableOneToMany()
  local out = z:forward({ v, { a, b, c } })
  tester:asserteq(#out, 3)
  tester:assert(out[1][1] == v and out[2][1] == v and out[1][2] == a and out[3][2] == c)
  local g = { { rnd(2, 3), rnd(4) }, { rnd(2, 3), rnd(4) }, { rnd(2, 3), rnd(1) } }
  local gi = z:backward({ v, { a, b, c } }, g)
  tester:assertTensorEq(gi[1], g[1][1] + g[2][1] + g[3][1], 1e-12, "the element's gradients add up")
  tester:assert(gi[2][2] == g[2][2] and gi[2][3] == g[3][2])
  check_autograd(z, { v, { a, b, c } }, g, 'nn.ZipTableOneToMany')
  local net = nn.Sequential():add(nn.ZipTableOneToMany()):add(nn.MapTable(nn.CMulTable())):add(nn.CAddTable()):double()
  tester:assertlt(nn.Jacobian.testJacobianTable(net, { rnd(3), { rnd(3), rnd(3) } }), precision)
  tester:asserteq(#z:forward({ v, {} }), 0)
  tester:asserteq(z:backward({ v, {} }, {})[1]:abs():sum(), 0)
  tester:asserteq(tostring(z), 'nn.ZipTableOneToMany')
  tester:assertErrorPattern(function() z:forward({ v }) end, 'expected {element, table}')
  tester:assertErrorPattern(function() z:backward({ v, { a } }, { { rnd(3), a } }) end, 'gradOutput%[1%]%[1%]')
  tester:assertErrorPattern(function() z:backward({ v, { a } }, {}) end, 'expected 1 pairs')
end

-- sum_i g[i] * E_i for one sample (g a vector, experts(i) the i-th expert's tensor).
local function mix(g, expert, n)
  local out = expert(1):clone():mul(g[1])
  for i = 2, n do out:add(g[i], expert(i)) end
  return out
end

function tests.mixtureTableOfExperts()
  local B, n = 3, 4
  local m = nn.MixtureTable():double()
  local g = torch.rand(B, n):double()
  local experts = {}
  for i = 1, n do experts[i] = rnd(B, 5, 2) end
  local y = m:forward({ g, experts })
  tester:assertTableEq(y:size():totable(), { B, 5, 2 })
  for b = 1, B do
    tester:assertTensorEq(y[b], mix(g[b], function(i) return experts[i][b] end, n), 1e-12, 'mixture of a table')
  end
  local go = rnd(B, 5, 2)
  local gi = m:backward({ g, experts }, go)
  tester:asserteq(#gi[2], n)
  for i = 1, n do
    for b = 1, B do
      tester:assertalmosteq(gi[1][b][i], torch.cmul(experts[i][b], go[b]):sum(), 1e-12, 'gater gradient')
      tester:assertTensorEq(gi[2][i][b], go[b] * g[b][i], 1e-12, 'expert gradient')
    end
  end
  check_autograd(m, { g, experts }, go, 'nn.MixtureTable (table)')
  tester:assertlt(nn.Jacobian.testJacobianTable(m, { rnd(2, 3), { rnd(2, 4), rnd(2, 4), rnd(2, 4) } }), precision)
  -- one sample: a vector gater and unbatched experts
  local y1 = m:forward({ g[2], { experts[1][2], experts[2][2], experts[3][2], experts[4][2] } })
  tester:assertTensorEq(y1, y[2], 1e-12, 'one sample = its row of the batch')
  tester:assertlt(nn.Jacobian.testJacobianTable(m, { rnd(3), { rnd(4), rnd(4), rnd(4) } }), precision)
  -- the gater of Torch7's doc: a SoftMax over Linear
  local moe = nn.Sequential()
    :add(nn.ConcatTable():add(nn.Sequential():add(nn.Linear(3, n)):add(nn.SoftMax()))
      :add(nn.ConcatTable():add(nn.Linear(3, 2)):add(nn.Linear(3, 2)):add(nn.Linear(3, 2)):add(nn.Linear(3, 2))))
    :add(nn.MixtureTable()):double()
  check_autograd(moe, rnd(4, 3), rnd(4, 2), 'a mixture of Linear experts')
  local w, gw = moe:get(1):get(1):get(1).weight, moe:get(1):get(1):get(1).gradWeight
  tester:assertlt(nn.Jacobian.testJacobianParameters(moe, rnd(4, 3), w, gw), precision)
  tester:asserteq(torch.type(nn.MixtureTable():float():forward({ torch.rand(2, 2), { torch.randn(2, 3), torch.randn(2, 3) } })),
    'torch.FloatTensor')
  tester:assertErrorPattern(function() m:forward({ g, { experts[1] } }) end, '4 weights per sample but there are 1 experts')
  tester:assertErrorPattern(function() m:forward({ g, { rnd(3, 2), rnd(3, 2), rnd(3, 2), rnd(3, 5) } }) end,
    'input 4 has size 3x5 but input 1 has size 3x2')
  tester:assertErrorPattern(function() m:forward({ g, { rnd(2), rnd(2), rnd(2), rnd(2) } }) end, 'batch of 3')
  tester:assertErrorPattern(function() m:forward({ torch.LongTensor(3, 4), experts }) end, 'floating%-point vector')
  tester:assertErrorPattern(function() m:forward(g) end, '%[nn.MixtureTable%] expected {gater, experts}')
  tester:assertErrorPattern(function() m:forward({ g, { torch.randn(3, 2), torch.randn(3, 2), torch.randn(3, 2), torch.randn(3, 2) } }) end,
    'expert 1 is torch.FloatTensor')
end

function tests.mixtureTableOfTensor()
  local B, n = 2, 3
  local g = torch.rand(B, n):double()
  -- experts along dim 2 (the default for a batch), then along dim 3 (B x D x n)
  local E = rnd(B, n, 4)
  local m = nn.MixtureTable():double()
  local y = m:forward({ g, E })
  for b = 1, B do tester:assertTensorEq(y[b], mix(g[b], function(i) return E[b][i] end, n), 1e-12) end
  check_autograd(m, { g, E }, rnd(B, 4), 'nn.MixtureTable (tensor, dim 2)')
  tester:assertlt(nn.Jacobian.testJacobianTable(m, { rnd(B, n), rnd(B, n, 4) }), precision)
  local E3 = rnd(B, 4, n)
  local m3 = nn.MixtureTable(3):double()
  local y3 = m3:forward({ g, E3 })
  tester:assertTableEq(y3:size():totable(), { B, 4 })
  for b = 1, B do tester:assertTensorEq(y3[b], mix(g[b], function(i) return E3[b]:select(2, i) end, n), 1e-12) end
  check_autograd(m3, { g, E3 }, rnd(B, 4), 'nn.MixtureTable(3)')
  tester:assertlt(nn.Jacobian.testJacobianTable(m3, { rnd(B, n), rnd(B, 2, n) }), precision)
  -- Torch7's doc example: experts of size B x 4 x 2 x 5 x n mixed along dim 5
  local m5 = nn.MixtureTable(5):double()
  tester:assertTableEq(m5:forward({ torch.rand(2, n):double(), rnd(2, 4, 2, 5, n) }):size():totable(), { 2, 4, 2, 5 })
  -- one sample: a vector gater mixes along dim 1 by default
  local y1 = nn.MixtureTable():double():forward({ g[1], E[1] })
  tester:assertTensorEq(y1, y[1], 1e-12)
  tester:assertlt(nn.Jacobian.testJacobianTable(nn.MixtureTable():double(), { rnd(n), rnd(n, 3) }), precision)
  tester:asserteq(tostring(m3), 'nn.MixtureTable')
  tester:asserteq(round_trip(m3).dim, 3)
  tester:assertErrorPattern(function() m:forward({ g, rnd(B, n + 1, 4) }) end, '3 experts along dim 2')
  tester:assertErrorPattern(function() m:forward({ g, rnd(B + 1, n, 4) }) end, 'with 2 samples along dim 1')
  tester:assertErrorPattern(function() nn.MixtureTable(1):forward({ g, E }) end, 'dim 1 is the batch dim')
  tester:assertErrorPattern(function() nn.MixtureTable(0) end, 'dim must be an integer >= 1')
  tester:assertErrorPattern(function() m:forward({ g, 'x' }) end, 'a tensor or a table of tensors')
end

function tests.criterionTable()
  local crit = nn.MSECriterion()
  local ct = nn.CriterionTable(crit):double()
  local x, t = rnd(3, 4), rnd(3, 4)
  local want = 0
  for i = 1, 3 do for j = 1, 4 do want = want + (x[i][j] - t[i][j]) ^ 2 end end
  tester:assertalmosteq(ct:forward({ x, t }), want / 12, 1e-12, 'the loss, a number')
  local gi = ct:backward({ x, t })
  tester:assertTensorEq(gi[1], (x - t) * (2 / 12), 1e-12)
  tester:assertTensorEq(gi[2], t:clone():zero(), 0, 'a zero gradient for the target')
  -- autograd: calling it gives the loss tensor, forward the number (as criterions do)
  local xr = x:clone():requiresGrad()
  tester:asserteq(type(ct:forward({ xr, t })), 'number')
  local loss = ct({ xr, t })
  tester:assert(torch.isTensor(loss))
  tester:assertalmosteq(loss:item(), want / 12, 1e-12)
  loss:backward()
  tester:assertTensorEq(xr.grad, gi[1], 1e-12)
  tester:asserteq(ct({ x, t }), ct.output, 'a number without autograd')
  -- after a network, and with a table input for the criterion
  local net = nn.Sequential():add(nn.ParallelTable():add(nn.Linear(4, 2)):add(nn.Identity()))
    :add(nn.CriterionTable(nn.MSECriterion())):double()
  local input = { rnd(3, 4), rnd(3, 2) }
  net:zeroGradParameters()
  local l1 = net:forward(input)
  net:backward(input, 1)
  local lin = net:get(1):get(1)
  local gw = lin.gradWeight:clone()
  net:zeroGradParameters()
  net:forward({ input[1], input[2] })
  tester:asserteq(type(l1), 'number')
  local w = lin.weight
  local lt = nn.CriterionTable(nn.MSECriterion()):double()({ lin:forward(input[1]), input[2] })
  tester:assertalmosteq(l1, lt:item(), 1e-12)
  lt:backward()
  tester:assertTensorEq(w.grad, gw, 1e-12, 'autograd reaches the Linear as Torch7 backward does')
  local cos = nn.CriterionTable(nn.CosineEmbeddingCriterion()):double()
  local pair = { rnd(2, 3), rnd(2, 3) }
  local y = torch.DoubleTensor({ 1, -1 })
  tester:assertalmosteq(cos:forward({ pair, y }), nn.CosineEmbeddingCriterion():double():forward(pair, y), 1e-12)
  tester:asserteq(tostring(ct), 'nn.CriterionTable')
  tester:asserteq(torch.typename(round_trip(ct).criterion), 'nn.MSECriterion')
  tester:assertErrorPattern(function() nn.CriterionTable(nn.Linear(2, 2)) end, 'expects a criterion')
  tester:assertErrorPattern(function() ct:forward(x) end, '%[nn.CriterionTable%] expected {input, target} for nn.MSECriterion')
end

function tests.moduleCriterion()
  local x, t = rnd(4, 5), torch.LongTensor({ 1, 5, 2, 2 })
  local mc = nn.ModuleCriterion(nn.ClassNLLCriterion(), nn.LogSoftMax()):double()
  local lsm = torch.exp(x):sum(2):log()
  local want = 0
  for i = 1, 4 do want = want - (x[i][t[i]] - lsm[i][1]) end
  tester:assertalmosteq(mc:forward(x, t), want / 4, 1e-10)
  local gi = mc:backward(x, t)
  local p = torch.exp(x - lsm:expandAs(x))
  local wantg = p:clone()
  for i = 1, 4 do wantg[i][t[i]] = wantg[i][t[i]] - 1 end
  tester:assertTensorEq(gi, wantg / 4, 1e-10, 'the gradient through LogSoftMax')
  local xr = x:clone():requiresGrad()
  mc(xr, t):backward()
  tester:assertTensorEq(xr.grad, gi, 1e-10, 'autograd form')
  -- a target module: the target goes through it (here a one-hot of the classes for MSE)
  local mt = nn.ModuleCriterion(nn.MSECriterion(), nil, nn.OneHot(5)):double()
  local oh = torch.zeros(4, 5):double()
  for i = 1, 4 do oh[i][t[i]] = 1 end
  tester:assertalmosteq(mt:forward(x, t), nn.MSECriterion():double():forward(x, oh), 1e-12)
  tester:assertTensorEq(mt:backward(x, t), nn.MSECriterion():double():backward(x, oh), 1e-12)
  -- castTarget = false keeps the target module's type
  local keep = nn.ModuleCriterion(nn.MSECriterion(), nn.Identity(), nn.Convert(), false):float()
  tester:asserteq(keep.targetModule:type(), 'torch.FloatTensor', 'default type before')
  keep:double()
  tester:asserteq(keep.targetModule:type(), 'torch.FloatTensor', 'castTarget false: not converted')
  local cast = nn.ModuleCriterion(nn.MSECriterion(), nn.Identity(), nn.Convert()):double()
  tester:asserteq(cast.targetModule:type(), 'torch.DoubleTensor')
  tester:asserteq(cast.castTarget, true)
  tester:asserteq(tostring(mc), 'nn.ModuleCriterion')
  local back = round_trip(mt)
  tester:assertalmosteq(back:forward(x, t), mt:forward(x, t), 1e-12, 'serialized')
  tester:assertErrorPattern(function() nn.ModuleCriterion(nn.Linear(2, 2)) end, 'criterion must be a criterion')
  tester:assertErrorPattern(function() nn.ModuleCriterion(nn.MSECriterion(), 3) end, 'inputModule must be a module')
  tester:assertErrorPattern(function() nn.ModuleCriterion(nn.MSECriterion(), nil, nil, 1) end, 'castTarget must be true or false')
  tester:assertErrorPattern(function() mc:forward(torch.LongTensor(2), t) end, 'in the inputModule of nn.ModuleCriterion')
end

tester:add(tests)
tester:run()
