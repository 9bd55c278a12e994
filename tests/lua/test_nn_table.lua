-- nn table layers: JoinTable, SplitTable, SelectTable, NarrowTable, FlattenTable and the
-- elementwise CAdd/CSub/CMul/CDiv/CMax/CMinTable: outputs against hand-computed values,
-- gradients (Jacobians of table inputs and outputs, autograd), save/load, clearState, types,
-- unused outputs under autograd, in-place CAddTable and bad-input errors.
require 'nn'
local dir = debug.getinfo(1, 'S').source:sub(2):match('^(.*)/[^/]*$') or '.'
local checks = dofile(dir .. '/fixtures/nn_checks.lua')
dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/device/nn_device.lua')  -- TOCHA_TEST_DEVICE
local tester = torch.Tester()
local tests = torch.TestSuite()
torch.setdefaulttensortype('torch.DoubleTensor')
torch.manualSeed(1234)

local T = torch.Tensor

function tests.joinTable()
  local a, b = torch.randn(2, 3), torch.randn(2, 4)
  local y = nn.JoinTable(2):forward({ a, b })
  tester:assertTensorEq(y:narrow(2, 1, 3), a, 0)
  tester:assertTensorEq(y:narrow(2, 4, 4), b, 0)
  tester:assertTensorEq(nn.JoinTable(-1):forward({ a, b }), y, 0)
  -- nInputDims: batch inputs join along the next dim.
  local j = nn.JoinTable(1, 1)
  tester:assertTensorEq(j:forward({ a, b }), y, 0)
  tester:assertTensorEq(j:forward({ a[1], b[1] }), torch.cat(a[1], b[1], 1), 0)
  local gi = nn.JoinTable(2):backward({ a, b }, torch.range(1, 14):view(2, 7))
  tester:assertTensorEq(gi[1], T({ { 1, 2, 3 }, { 8, 9, 10 } }), 0)
  tester:assertTensorEq(gi[2], T({ { 4, 5, 6, 7 }, { 11, 12, 13, 14 } }), 0)
  checks.standard(tester, nn.JoinTable(1), { T(2, 3), T(1, 3), T(3, 3) })
  tester:assertErrorPattern(function() nn.JoinTable(1):forward({ a, b }) end,
    'nn.JoinTable%(1%)%] input 2 has size 2x4 but input 1 has size 2x3')
  tester:assertErrorPattern(function() nn.JoinTable(3):forward({ a, a }) end, 'dimension 3 is out of range')
  tester:assertErrorPattern(function() nn.JoinTable(1):forward(a) end, 'expected a table of at least 1 tensors')
end

function tests.splitTable()
  local x = torch.randn(3, 4)
  local out = nn.SplitTable(2):forward(x)
  tester:asserteq(#out, 4)
  for i = 1, 4 do tester:assertTensorEq(out[i], x:select(2, i), 0) end
  tester:asserteq(#nn.SplitTable(-1):forward(x), 4)
  -- nInputDims: a batch splits the dim after the batch dim.
  tester:asserteq(#nn.SplitTable(1, 1):forward(x), 4)
  tester:asserteq(#nn.SplitTable(1, 1):forward(x[1]), 4)
  checks.standard(tester, nn.SplitTable(1), T(3, 2))
  -- An unused output gets no gradient: its slice of gradInput is zero.
  local s = nn.SplitTable(1)
  local xa = torch.randn(3, 2):requiresGrad()
  local parts = s:forward(xa)
  parts[2]:sum():backward()
  tester:assertTensorEq(xa.grad, T({ { 0, 0 }, { 1, 1 }, { 0, 0 } }), 0)
  tester:assertErrorPattern(function() s:backward(x, { torch.ones(4), torch.ones(3) }) end, 'gradOutput%[2%] is torch.DoubleTensor of size 3, expected size 4')
end

function tests.selectTable()
  local a, b, c = torch.randn(2), torch.randn(3), torch.randn(4)
  tester:asserteq(nn.SelectTable(2):forward({ a, b, c }), b)
  tester:asserteq(nn.SelectTable(-1):forward({ a, b, c }), c)
  -- Nested tables pass through; gradInput is zeros except at index.
  local m = nn.SelectTable(1)
  local y = m:forward({ { a, b }, c })
  tester:asserteq(y[2], b)
  local gi = m:backward({ { a, b }, c }, { torch.ones(2), torch.ones(3) })
  tester:assertTensorEq(gi[1][2], torch.ones(3), 0)
  tester:assertTensorEq(gi[2], torch.zeros(4), 0)
  tester:asserteq(tostring(nn.SelectTable(-2)), 'nn.SelectTable(-2)')
  checks.standard(tester, nn.SelectTable(2), { T(2, 3), T(3), T(1) })
  checks.jacobian(tester, nn.SelectTable(1), { { T(2), T(3) }, T(2) })
  tester:assertErrorPattern(function() nn.SelectTable(4):forward({ a, b }) end,
    'nn.SelectTable%(4%)%] index 4 does not exist in an input table of 2 elements')
  tester:assertErrorPattern(function() nn.SelectTable(1):forward(a) end, 'expected a table input')
end

function tests.narrowTable()
  local x = { torch.randn(2), torch.randn(3), torch.randn(4), torch.randn(5) }
  local m = nn.NarrowTable(2, 2)
  local y = m:forward(x)
  tester:asserteq(#y, 2)
  tester:asserteq(y[1], x[2])
  tester:asserteq(y[2], x[3])
  local gi = m:backward(x, { torch.ones(3), torch.ones(4) })
  tester:assertTensorEq(gi[1], torch.zeros(2), 0)
  tester:assertTensorEq(gi[3], torch.ones(4), 0)
  tester:assertTensorEq(gi[4], torch.zeros(5), 0)
  tester:asserteq(#nn.NarrowTable(3):forward(x), 1)
  checks.standard(tester, nn.NarrowTable(2, 2), { T(2), T(3), T(2, 2), T(1) })
  tester:assertErrorPattern(function() nn.NarrowTable(3, 3):forward(x) end,
    'nn.NarrowTable%(3, 3%)%] expected a table of at least 5 elements')
  tester:assertErrorPattern(function() nn.NarrowTable() end, 'usage')
end

function tests.flattenTable()
  local a, b, c, d = torch.randn(2), torch.randn(3), torch.randn(4), torch.randn(1)
  local m = nn.FlattenTable()
  local y = m:forward({ a, { b, { c } }, d })
  tester:asserteq(#y, 4)
  tester:asserteq(y[1], a)
  tester:asserteq(y[3], c)
  tester:asserteq(y[4], d)
  local gi = m:backward({ a, { b, { c } }, d }, { torch.ones(2), torch.ones(3) * 2, torch.ones(4) * 3, torch.ones(1) })
  tester:assertTensorEq(gi[2][2][1], torch.ones(4) * 3, 0)
  tester:assertTensorEq(gi[2][1], torch.ones(3) * 2, 0)
  checks.standard(tester, nn.FlattenTable(), { T(2), { T(3), { T(2, 2) } }, T(1) })
  tester:assertErrorPattern(function() m:forward({ a, 3 }) end, 'nn.FlattenTable%] expected nested tables of tensors, found number')
end

function tests.caddCsubTables()
  local a, b, c = torch.randn(2, 3), torch.randn(2, 3), torch.randn(2, 3)
  tester:assertTensorEq(nn.CAddTable():forward({ a, b, c }), a + b + c, 1e-12)
  tester:assertTensorEq(nn.CSubTable():forward({ a, b }), a - b, 1e-12)
  local g = torch.randn(2, 3)
  local gi = nn.CSubTable():backward({ a, b }, g)
  tester:assertTensorEq(gi[1], g, 0)
  tester:assertTensorEq(gi[2], -g, 0)
  checks.standard(tester, nn.CAddTable(), { T(2, 3), T(2, 3), T(2, 3) })
  checks.standard(tester, nn.CSubTable(), { T(3), T(3) })
  -- In place: the sum lands in input[1]; gradInput reuses gradOutput.
  local ip = nn.CAddTable(true)
  local x1 = a:clone()
  local y = ip:forward({ x1, b })
  tester:assertTensorEq(x1, a + b, 1e-12)
  tester:assertTensorEq(y, a + b, 1e-12)
  local gip = ip:backward({ x1, b }, g)
  tester:asserteq(gip[1], g)
  tester:assertErrorPattern(function() nn.CAddTable():forward({ a, torch.randn(3, 2) }) end,
    'nn.CAddTable%] input 2 has size 3x2 but input 1 has size 2x3')
  tester:assertErrorPattern(function() nn.CSubTable():forward({ a }) end, 'expected a table of 2 tensors')
  tester:assertErrorPattern(function() nn.CAddTable('yes') end, 'inplace must be true or false')
end

function tests.cmulCdivTables()
  local a, b, c = torch.randn(2, 3), torch.randn(2, 3), torch.randn(2, 3)
  tester:assertTensorEq(nn.CMulTable():forward({ a, b, c }), torch.cmul(torch.cmul(a, b), c), 1e-12)
  -- A zero in one input: the others' gradients stay exact (products, not divisions).
  local z = a:clone()
  z[1][1] = 0
  local gi = nn.CMulTable():backward({ z, b, c }, torch.ones(2, 3))
  tester:assertTensorEq(gi[1], torch.cmul(b, c), 1e-12)
  tester:asserteq(gi[2][1][1], 0)
  local q = nn.CDivTable():forward({ a, b })
  tester:assertTensorEq(q, torch.cdiv(a, b), 1e-12)
  local gd = nn.CDivTable():backward({ a, b }, torch.ones(2, 3))
  tester:assertTensorEq(gd[2], -torch.cdiv(a, torch.cmul(b, b)), 1e-12)
  checks.standard(tester, nn.CMulTable(), { T(2, 3), T(2, 3), T(2, 3) })
  local cd = nn.CDivTable()
  checks.jacobian(tester, cd, { T(4), T(4):fill(3) })
  local x = { torch.randn(4), torch.rand(4):add(1) }
  checks.io(tester, cd, x)
  checks.autograd(tester, cd, x)
  checks.clearState(tester, cd, x)
  checks.types(tester, cd, x)
end

function tests.cmaxCminTables()
  local a = T({ 1, 5, 3, 2 })
  local b = T({ 4, 5, 1, 2 })
  local c = T({ 0, 6, 2, 2 })
  tester:assertTensorEq(nn.CMaxTable():forward({ a, b, c }), T({ 4, 6, 3, 2 }), 0)
  tester:assertTensorEq(nn.CMinTable():forward({ a, b, c }), T({ 0, 5, 1, 2 }), 0)
  -- The gradient goes to the (first) holder of the extremum.
  local m = nn.CMaxTable()
  m:forward({ a, b, c })
  local gi = m:backward({ a, b, c }, T({ 1, 2, 3, 4 }))
  tester:assertTensorEq(gi[1], T({ 0, 0, 3, 4 }), 0)
  tester:assertTensorEq(gi[2], T({ 1, 0, 0, 0 }), 0)
  tester:assertTensorEq(gi[3], T({ 0, 2, 0, 0 }), 0)
  local n = nn.CMinTable()
  n:forward({ a, b, c })
  local gn = n:backward({ a, b, c }, T({ 1, 2, 3, 4 }))
  tester:assertTensorEq(gn[1], T({ 0, 2, 0, 4 }), 0)
  tester:assertTensorEq(gn[3], T({ 1, 0, 0, 0 }), 0)
  checks.standard(tester, nn.CMaxTable(), { T(2, 3), T(2, 3) })
  checks.standard(tester, nn.CMinTable(), { T(5), T(5), T(5) })
end

function tests.badGradOutputsAreErrors()
  local x = { torch.randn(4, 3), torch.randn(2, 3) }
  local s = nn.SelectTable(2)
  s:forward(x)
  tester:assertErrorPattern(function() s:backward(x, torch.randn(7)) end,
    'nn.SelectTable%(2%)%] gradOutput is torch.DoubleTensor of size 7, expected the shape torch.DoubleTensor of size 2x3')
  local n = nn.NarrowTable(1, 2)
  n:forward(x)
  tester:assertErrorPattern(function() n:backward(x, { torch.randn(7) }) end, 'nn.NarrowTable%(1, 2%)%] gradOutput is')
  -- A missing entry is an unused output: zeros.
  tester:assertTensorEq(n:backward(x, { torch.ones(4, 3) })[2], torch.zeros(2, 3), 0)
  local f = nn.FlattenTable()
  f:forward({ x[1], { x[2] } })
  tester:assertErrorPattern(function() f:backward({ x[1], { x[2] } }, { torch.randn(4, 3), torch.randn(3) }) end,
    'nn.FlattenTable%] gradOutput is')
  tester:assertTensorEq(f:backward({ x[1], { x[2] } }, { torch.ones(4, 3) })[2][1], torch.zeros(2, 3), 0)
  local j = nn.JoinTable(1)
  tester:assertErrorPattern(function() j:backward(x, torch.randn(6, 2)) end, 'nn.JoinTable%(1%)%] gradOutput is .* but the output is of size 6x3')
end

function tests.unusedOutputsUnderAutograd()
  -- Only some outputs of a table-valued layer reach the loss.
  local x = torch.randn(2, 4):requiresGrad()
  local parts = nn.NarrowTable(1, 2):forward(nn.SplitTable(2):forward(x))
  local y = nn.JoinTable(1):forward({ parts[2] })
  y:sum():backward()
  tester:assertTensorEq(x.grad, T({ { 0, 1, 0, 0 }, { 0, 1, 0, 0 } }), 0)
end

tester:add(tests)
tester:run()
