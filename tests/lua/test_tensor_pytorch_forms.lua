-- PyTorch's keyword forms and small additions (lua/torch/tensor_pytorch_forms.lua): add/csub
-- {alpha=}, addcmul/addcdiv {value=}, sort {dim=, descending=, stable=}, torch.angle, dimOrder,
-- layout/toDense, resultType, the anomaly switches; older call forms unchanged; errors; CUDA.
-- Expected values are PyTorch 1.13's (indices converted to 1-based) or closed forms.
local tester = torch.Tester()
local tests = torch.TestSuite()
local gc = torch.autograd.gradcheck
local D = torch.DoubleTensor

function tests.scaleKeywords()
  -- PyTorch 1.13: add(ones(2), [1, 2], alpha=2) = [3, 5]; addcdiv(ones(2), [2, 3], [4, 5], value=2) = [2, 2.2]
  tester:assertTensorEq(torch.add(torch.ones(2), torch.Tensor({ 1, 2 }), { alpha = 2 }), torch.Tensor({ 3, 5 }), 0)
  tester:assertTensorEq(torch.addcdiv(D({ 1, 1 }), D({ 2, 3 }), D({ 4, 5 }), { value = 2 }), D({ 2, 2.2 }), 1e-15)
  tester:assertTensorEq(torch.addcmul(D({ 1, 1 }), D({ 2, 3 }), D({ 4, 5 }), { value = 2 }), D({ 17, 31 }), 0)
  tester:assertTensorEq(torch.csub(D({ 1, 1 }), D({ 1, 2 }), { alpha = 3 }), D({ -2, -5 }), 0)
  -- a number operand: PyTorch 1.13's add(tensor([1., 2.]), 5, alpha=2) = [11, 12] (it was an error)
  tester:assertTensorEq(torch.add(D({ 1, 2 }), 5, { alpha = 2 }), D({ 11, 12 }), 0)
  tester:assertTensorEq(torch.csub(D({ 1, 2 }), 5, { alpha = 2 }), D({ -9, -8 }), 0)
  tester:asserteq(torch.subtract, torch.csub)
  -- methods work in place
  local x = D({ 1, 1 })
  tester:asserteq(x:add(D({ 1, 2 }), { alpha = 2 }), x)
  tester:assertTensorEq(x, D({ 3, 5 }), 0)
  x:addcmul(D({ 1, 1 }), D({ 2, 2 }), { value = -1 })
  tester:assertTensorEq(x, D({ 1, 3 }), 0)
  x:add_(D({ 1, 1 }), { alpha = 2 })
  tester:assertTensorEq(x, D({ 3, 5 }), 0)
  -- a result tensor and an empty keyword table
  local res = D()
  torch.add(res, D({ 1 }), D({ 2 }), { alpha = 10 })
  tester:assertTensorEq(res, D({ 21 }), 0)
  tester:assertTensorEq(torch.add(D({ 1 }), D({ 2 }), { alpha = nil }), D({ 3 }), 0)
  -- Torch7's positional forms are unchanged
  tester:assertTensorEq(torch.add(D({ 1 }), 2, D({ 3 })), D({ 7 }), 0)
  tester:assertTensorEq(torch.addcmul(D({ 1 }), 0.5, D({ 2 }), D({ 4 })), D({ 5 }), 0)
  tester:assertErrorPattern(function() torch.add(D({ 1 }), D({ 1 }), { alpah = 2 }) end, "%[add%].*unknown option 'alpah'")
  tester:assertErrorPattern(function() torch.addcmul(D({ 1 }), D({ 1 }), D({ 1 }), { value = 'a' }) end,
    '%[addcmul%].*value must be a number')
  tester:assert(gc(function(a, b) return torch.add(a, b, { alpha = 2.5 }) end,
    { D(3):uniform():requiresGrad(), D(3):uniform():requiresGrad() }))
end

function tests.sortKeywords()
  -- PyTorch 1.13: sort([3,1,2,1], descending=True, stable=True) values [3,2,1,1], indices [0,2,1,3]
  local v, i = torch.sort(torch.Tensor({ 3, 1, 2, 1 }), { descending = true, stable = true })
  tester:assertTensorEq(v, torch.Tensor({ 3, 2, 1, 1 }), 0)
  tester:assertTensorEq(i, torch.LongTensor({ 1, 3, 2, 4 }), 0)
  local m = torch.Tensor({ { 3, 1 }, { 2, 4 } })
  local v1 = torch.sort(m, { dim = 1 })
  tester:assertTensorEq(v1, torch.Tensor({ { 2, 1 }, { 3, 4 } }), 0)
  local v2 = m:sort(1, { descending = true })
  tester:assertTensorEq(v2, torch.Tensor({ { 3, 4 }, { 2, 1 } }), 0)
  local v3 = torch.sort(m, true, { stable = true })
  tester:assertTensorEq(v3, torch.Tensor({ { 3, 1 }, { 4, 2 } }), 0)
  local rv, ri = torch.Tensor(), torch.LongTensor()
  torch.sort(rv, ri, m, { dim = 2 })
  tester:assertTensorEq(rv, torch.Tensor({ { 1, 3 }, { 2, 4 } }), 0)
  tester:assertTensorEq(ri, torch.LongTensor({ { 2, 1 }, { 1, 2 } }), 0)
  tester:assertErrorPattern(function() torch.sort(m, { stable = 1 }) end, '%[sort%].*stable must be a boolean')
  tester:assertErrorPattern(function() torch.sort(m, { dims = 1 }) end, "%[sort%].*unknown option 'dims'")
end

function tests.angle()
  -- PyTorch 1.13: angle([1,-1,0,-0.,nan,inf,-inf]) = [0, pi, 0, 0, nan, 0, pi]; of longs [1,-2,0]: [0, pi, 0]
  local a = torch.angle(D({ 1, -1, 0, -0.0, 0 / 0, math.huge, -math.huge }))
  tester:assert(a[5] ~= a[5])
  a[5] = 0
  tester:assertTensorEq(a, D({ 0, math.pi, 0, 0, 0, 0, math.pi }), 0)
  local l = torch.angle(torch.LongTensor({ 1, -2, 0 }))
  tester:asserteq(torch.type(l), torch.getdefaulttensortype())
  tester:assertTensorEq(l:double(), D({ 0, math.pi, 0 }), 1e-6)
  local x = D({ -1, 2 }):requiresGrad()
  torch.angle(x):sum():backward()
  tester:assertTensorEq(x.grad, D({ 0, 0 }), 0)  -- PyTorch 1.13: zero gradient
  local y = D({ -3, 3 })
  y:angle()
  tester:assertTensorEq(y, D({ math.pi, 0 }), 0)
end

function tests.dimOrderLayoutDense()
  tester:assertTableEq(torch.zeros(2, 3, 4):dimOrder(), { 1, 2, 3 })
  tester:assertTableEq(torch.zeros(2, 3, 4):permute(3, 1, 2):dimOrder(), { 2, 3, 1 })
  tester:assertTableEq(torch.zeros(2, 3):t():dimOrder(), { 2, 1 })
  tester:assertTableEq(torch.zeros(1, 3):dimOrder(), { 1, 2 })  -- equal strides keep the dim order
  tester:assertTableEq(torch.zeros(2):view({ 2 }):dimOrder(), { 1 })
  tester:asserteq(torch.zeros(2).layout, 'strided')
  local x = torch.ones(2)
  tester:asserteq(x:toDense(), x)
end

function tests.resultType()
  -- PyTorch 1.13's result_type; z() is a 0-dim tensor
  local function z(t) return t:view({}) end
  local L, F, Dd, B = torch.LongTensor({ 1 }), torch.FloatTensor({ 1 }), D({ 1 }), torch.BoolTensor(1):fill(1)
  local U, I, H = torch.ByteTensor({ 1 }), torch.IntTensor({ 1 }), torch.HalfTensor(1):fill(1)
  local cases = { { L, 2.5, 'float32' }, { L, 2, 'int64' }, { U, 2, 'uint8' }, { U, z(L), 'uint8' },
    { U, z(F), 'float32' }, { B, 2, 'int64' }, { B, true, 'bool' }, { H, z(Dd), 'float16' }, { H, Dd, 'float64' },
    { I, z(L), 'int32' }, { z(I), z(L), 'int64' }, { z(L), 2.5, 'float32' }, { B, z(U), 'uint8' },
    { I, true, 'int32' }, { Dd, 2, 'float64' } }
  for k, c in ipairs(cases) do
    tester:asserteq(torch.resultType(c[1], c[2]), c[3], 'case ' .. k)
    tester:asserteq(torch.resultType(c[2], c[1]), c[3], 'case ' .. k .. ' swapped')
  end
  tester:assertErrorPattern(function() torch.resultType(L, 'a') end, '%[resultType%].*argument 2')
end

function tests.anomalySwitches()
  tester:asserteq(torch.isAnomalyEnabled(), false)
  torch.setAnomalyEnabled(true)
  tester:asserteq(torch.isAnomalyEnabled(), true)
  torch.setAnomalyEnabled(false)
  tester:asserteq(torch.isAnomalyEnabled(), false)
  tester:assertErrorPattern(function() torch.setAnomalyEnabled(1) end, '%[setAnomalyEnabled%]')
  tester:asserteq(torch.setDefaultTensorType, torch.setdefaulttensortype)
end

function tests.cuda()
  if not torch.cuda.isAvailable() then return end
  local a, b = torch.Tensor({ 1, 2 }):cuda(), torch.Tensor({ 3, 4 }):cuda()
  tester:assertTensorEq(torch.add(a, b, { alpha = 2 }):float(), torch.Tensor({ 7, 10 }), 0)
  local v, i = torch.sort(torch.Tensor({ 3, 1, 2 }):cuda(), { descending = true })
  tester:assertTensorEq(i:long(), torch.LongTensor({ 1, 3, 2 }), 0)
  tester:assertTensorEq(torch.angle(torch.Tensor({ -1, 1 }):cuda()):float(), torch.Tensor({ math.pi, 0 }), 1e-6)
end

function tests.toWithPyTorchDtypeNames()
  tester:asserteq(torch.ones(2):to('float64'):type(), 'torch.DoubleTensor')
  tester:asserteq(torch.ones(2):to('cpu', 'int64'):type(), 'torch.LongTensor')
  tester:asserteq(torch.ones(2):to('torch.float16'):type(), 'torch.HalfTensor')
  local x = torch.ones(2)
  tester:assert(rawequal(x:to('float32'), x), 'same dtype: the tensor itself')
  local ok, err = pcall(function() return torch.ones(2):to('float65') end)
  tester:assert(not ok and err:find('[to]', 1, true), tostring(err))
end

function tests.whereWithOneArgument()
  -- PyTorch 1.13: torch.where(tensor([[0, 1], [1, 0]])) = (tensor([0, 1]), tensor([1, 0])), 0-based
  local r = torch.where(torch.Tensor({ { 0, 1 }, { 1, 0 } }))
  tester:asserteq(#r, 2)
  tester:assertTensorEq(r[1], torch.LongTensor({ 1, 2 }), 0)
  tester:assertTensorEq(r[2], torch.LongTensor({ 2, 1 }), 0)
end

tester:add(tests):run()
