-- nn.utils.parametersToVector / nn.utils.vectorToParameters (PyTorch's parameters_to_vector and
-- vector_to_parameters): element order checked against explicit index loops, the round trip, the
-- gradient of the vector, in-place copies, and errors.
require 'nn'
local tester = torch.Tester()
local tests = torch.TestSuite()

-- The elements of a tensor in row-major order, read one index at a time (not through a view).
local function elements(t, out)
  out = out or {}
  local sizes = t:size():totable()
  local idx = {}
  for d = 1, #sizes do idx[d] = 1 end
  for _ = 1, t:nElement() do
    out[#out + 1] = t[idx]
    for d = #sizes, 1, -1 do
      if idx[d] < sizes[d] then idx[d] = idx[d] + 1 break end
      idx[d] = 1
    end
  end
  return out
end

local function params()
  return { torch.randn(2, 3), torch.randn(4), torch.randn(1, 2, 2) }
end

function tests.roundTrip()
  local list = params()
  local v = nn.utils.parametersToVector(list)
  local want = {}
  for _, p in ipairs(list) do elements(p, want) end
  tester:asserteq(v:dim(), 1)
  tester:asserteq(v:size(1), #want)
  for i, x in ipairs(want) do tester:asserteq(v[i], x, 'element ' .. i) end
  -- a copy: changing a parameter leaves the vector as it was
  list[1]:fill(7)
  tester:asserteq(v[1], want[1])
  -- back: a new vector lands, in place, in the same tensors
  local w = torch.randn(#want)
  local first = list[1]
  nn.utils.vectorToParameters(w, list)
  tester:assert(list[1] == first, 'the parameter tensors are kept')
  local got = {}
  for _, p in ipairs(list) do elements(p, got) end
  for i = 1, #want do tester:asserteq(got[i], w[i], 'copied element ' .. i) end
  tester:assertTensorEq(nn.utils.parametersToVector(list), w, 0)
  -- and a copy again: the parameters do not share memory with w
  w:zero()
  tester:assertne(list[2][1], 0)
  -- a module's parameters (weight then bias, layer by layer), and a non-contiguous parameter
  local m = nn.Sequential():add(nn.Linear(3, 4)):add(nn.Linear(4, 2)):double()
  local mv = nn.utils.parametersToVector(m)
  tester:asserteq(mv:size(1), 3 * 4 + 4 + 4 * 2 + 2)
  tester:asserteq(mv[13], m.modules[1].bias[1])
  tester:asserteq(mv[17], m.modules[2].weight[1][1])
  nn.utils.vectorToParameters(torch.range(1, 26), m)
  tester:asserteq(m.modules[1].weight[2][1], 4)
  tester:asserteq(m.modules[2].bias[2], 26)
  local t = torch.randn(3, 2):t()
  tester:asserteq(nn.utils.parametersToVector({ t })[2], t[1][2])
end

function tests.gradientFlows()
  local a, b = torch.randn(2, 3):requiresGrad(), torch.randn(4):requiresGrad()
  local w = torch.randn(10)
  local loss = (nn.utils.parametersToVector({ a, b }) * w):sum()
  loss:backward()
  -- d loss / d a[i][j] = w at the flat position of a[i][j]
  for i = 1, 2 do for j = 1, 3 do tester:asserteq(a.grad[i][j], w[(i - 1) * 3 + j]) end end
  for i = 1, 4 do tester:asserteq(b.grad[i], w[6 + i]) end
  -- a second-order use: the gradient of sum(v^2) is 2 v
  a.grad, b.grad = nil, nil
  local v = nn.utils.parametersToVector({ a, b })
  local ga = torch.autograd.grad((v * v):sum(), { a })[1]
  tester:assertTensorEq(ga, a:detach() * 2, 1e-12)
  -- vectorToParameters writes leaves that require grad without recording anything
  nn.utils.vectorToParameters(torch.ones(10), { a, b })
  tester:asserteq(a:sum():item(), 6)
  tester:assert(a.grad == nil, 'no gradient recorded')
  local y = (a * 3):sum()
  y:backward()
  tester:assertTensorEq(a.grad, torch.DoubleTensor(2, 3):fill(3), 0)
end

function tests.errors()
  local list = params()
  tester:assertErrorPattern(function() nn.utils.vectorToParameters(torch.zeros(11), list) end,
                            'nn.utils.vectorToParameters.*vec has 11 elements, the parameters 14')
  tester:assertErrorPattern(function() nn.utils.vectorToParameters(torch.zeros(20), list) end, 'vec has 20 elements')
  tester:assertErrorPattern(function() nn.utils.vectorToParameters(torch.zeros(2, 7), list) end, 'expected vec to be 1%-D')
  tester:assertErrorPattern(function() nn.utils.vectorToParameters({ 1, 2 }, list) end, 'expected vec to be a tensor')
  tester:assertErrorPattern(function() nn.utils.parametersToVector({}) end, 'nn.utils.parametersToVector.*at least one')
  tester:assertErrorPattern(function() nn.utils.parametersToVector({ torch.zeros(2), 3 }) end, 'parameter 2 must be a tensor')
  tester:assertErrorPattern(function() nn.utils.parametersToVector('w') end, 'expected a list of tensors or a module')
  tester:assertErrorPattern(function() nn.utils.parametersToVector(nn.ReLU()) end, 'at least one')
  -- the failed copies changed nothing
  local before = nn.utils.parametersToVector(list)
  pcall(nn.utils.vectorToParameters, torch.zeros(11), list)
  tester:assertTensorEq(nn.utils.parametersToVector(list), before, 0)
end

function tests.devices()
  if not torch.cuda.isAvailable() then return end
  local list = params()
  local mixed = { list[1], list[2]:cuda() }
  tester:assertErrorPattern(function() nn.utils.parametersToVector(mixed) end, 'all parameters must be on one device')
  tester:assertErrorPattern(function() nn.utils.vectorToParameters(torch.zeros(10), mixed) end, 'one device')
  tester:assertErrorPattern(function() nn.utils.vectorToParameters(torch.zeros(14):cuda(), list) end, 'vec is on cuda')
  local gpu = {}
  for k, p in ipairs(list) do gpu[k] = p:cuda() end
  tester:assertTensorEq(nn.utils.parametersToVector(gpu):double(), nn.utils.parametersToVector(list), 0)
  local w = torch.randn(14)
  nn.utils.vectorToParameters(w:cuda(), gpu)
  nn.utils.vectorToParameters(w, list)
  for k = 1, 3 do tester:assertTensorEq(gpu[k]:double(), list[k], 0) end
end

tester:add(tests):run()
