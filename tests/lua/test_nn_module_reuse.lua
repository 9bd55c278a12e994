-- One Torch7-style module instance used several times before a backward (Note [A module used
-- again before its backward], lua/nn/module_reuse.lua): the earlier outputs keep their values and
-- every gradient equals that of separate clones sharing the parameters. Before, each forward
-- overwrote the module's buffers: a = act(x1); b = act(x2) left a == b, and the gradients of the
-- activations, pooling and normalization layers were silently wrong.
require 'nn'
local tester = torch.Tester()
local tests = torch.TestSuite()
torch.setdefaulttensortype('torch.DoubleTensor')

local cases = {
  { 'Linear', function() return nn.Linear(4, 3) end, { 5, 4 } },
  { 'ReLU', function() return nn.ReLU() end, { 5, 4 } },
  { 'Sigmoid', function() return nn.Sigmoid() end, { 5, 4 } },
  { 'Tanh', function() return nn.Tanh() end, { 5, 4 } },
  { 'ELU', function() return nn.ELU() end, { 5, 4 } },
  { 'GELU', function() return nn.GELU() end, { 5, 4 } },
  { 'SoftMax', function() return nn.SoftMax() end, { 5, 4 } },
  { 'LogSoftMax', function() return nn.LogSoftMax() end, { 5, 4 } },
  { 'SpatialConvolution', function() return nn.SpatialConvolution(2, 3, 3, 3, 1, 1, 1, 1) end, { 2, 2, 6, 6 } },
  { 'SpatialMaxPooling', function() return nn.SpatialMaxPooling(2, 2, 2, 2) end, { 2, 2, 6, 6 } },
  { 'BatchNormalization', function() return nn.BatchNormalization(4) end, { 5, 4 } },
  { 'LayerNorm', function() return nn.LayerNorm(4) end, { 5, 4 } },
  { 'LookupTable', function() return nn.LookupTable(10, 3) end, 'indices' },
}

local function inputs(shape)
  if shape == 'indices' then return torch.LongTensor({ 1, 2, 3 }), torch.LongTensor({ 4, 2, 9 }) end
  return torch.randn(unpack(shape)):requiresGrad(), torch.randn(unpack(shape)):requiresGrad()
end

-- loss = <m(x1), r> + <m(x2), 2r>, with both outputs kept until the end; the gradients of x1, x2
-- and the parameters against the same loss through two clones sharing the parameters
local function check(name, make, shape)
  torch.manualSeed(3)
  local m = make()
  local x1, x2 = inputs(shape)
  local y1 = m:forward(x1)
  local r = torch.randn(y1:size())
  local y2 = m:forward(x2)
  tester:assert(not rawequal(y1, y2), name .. ': the second output is a new tensor')
  m:zeroGradParameters()
  torch.add(torch.cmul(y1, r):sum(), torch.cmul(y2, r * 2):sum()):backward()
  local _, grads = m:parameters()
  local gp = {}
  for i, g in ipairs(grads or {}) do gp[i] = g:clone() end
  local g1, g2 = x1.grad and x1.grad:clone(), x2.grad and x2.grad:clone()
  if x1.grad then x1.grad:zero(); x2.grad:zero() end
  local a = m:clone('weight', 'bias', 'gradWeight', 'gradBias')
  local b = m:clone('weight', 'bias', 'gradWeight', 'gradBias')
  m:zeroGradParameters()
  local ya, yb = a:forward(x1), b:forward(x2)
  tester:assertTensorEq(y1:detach(), ya:detach(), 1e-12, name .. ': the first output kept its values')
  torch.add(torch.cmul(ya, r):sum(), torch.cmul(yb, r * 2):sum()):backward()
  if g1 then
    tester:assertTensorEq(g1, x1.grad, 1e-10, name .. ': gradient of the first input')
    tester:assertTensorEq(g2, x2.grad, 1e-10, name .. ': gradient of the second input')
  end
  local _, g = m:parameters()
  for i, gi in ipairs(g or {}) do tester:assertTensorEq(gp[i], gi, 1e-10, name .. ': parameter gradient ' .. i) end
end

function tests.usedTwiceInOneGraph()
  for _, c in ipairs(cases) do check(c[1], c[2], c[3]) end
end

-- PyTorch's habit: one activation module applied after two layers
function tests.sharedActivation()
  torch.manualSeed(4)
  local fc1, fc2, act = nn.Linear(4, 4), nn.Linear(4, 4), nn.Tanh()
  local x = torch.randn(3, 4)
  local function loss(a1, a2) return torch.sum(a2:forward(fc2:forward(a1:forward(fc1:forward(x))))) end
  fc1:zeroGradParameters()
  loss(act, act):backward()
  local shared = fc1.gradWeight:clone()
  fc1:zeroGradParameters()
  loss(nn.Tanh(), nn.Tanh()):backward()
  tester:assertTensorEq(shared, fc1.gradWeight, 1e-12, 'a shared Tanh gives the gradient of two Tanh modules')
end

-- a forward under torch.noGrad between a forward and its backward (a validation batch)
function tests.forwardWithoutGradientInBetween()
  torch.manualSeed(5)
  for _, make in ipairs({ function() return nn.Sigmoid() end, function() return nn.SpatialAdaptiveAveragePooling(1, 1) end }) do
    local m = make()
    local x = torch.randn(2, 3, 4, 4):requiresGrad()
    local y = m:forward(x)
    local expected = torch.autograd.grad({ torch.sum(make():forward(x)) }, { x })[1]
    torch.noGrad(function() m:forward(torch.randn(1, 3, 4, 4)) end)
    torch.sum(y):backward()
    tester:assertTensorEq(x.grad, expected, 1e-12, torch.typename(m) .. ': gradient of the recorded forward')
  end
end

-- one cell over time steps (an RNN written in PyTorch's style)
function tests.cellOverTimeSteps()
  torch.manualSeed(6)
  local lin, act = nn.Linear(6, 3), nn.Tanh()
  local xs = torch.randn(4, 2, 3)
  local function run(step_modules)
    local h = torch.zeros(2, 3)
    local total
    for t = 1, 4 do
      local l, a = step_modules(t)
      h = a:forward(l:forward(torch.cat({ xs[t], h }, 2)))
      total = total and torch.add(total, torch.sum(h)) or torch.sum(h)
    end
    return total
  end
  lin:zeroGradParameters()
  run(function() return lin, act end):backward()
  local shared = lin.gradWeight:clone()
  lin:zeroGradParameters()
  local clones = {}
  for t = 1, 4 do clones[t] = lin:clone('weight', 'bias', 'gradWeight', 'gradBias') end
  run(function(t) return clones[t], nn.Tanh() end):backward()
  tester:assertTensorEq(shared, lin.gradWeight, 1e-10, 'shared cell = clones sharing the parameters')
end

-- Torch7's loop (forward, backward, forward...) keeps reusing the module's buffers: no snapshot
function tests.torch7LoopKeepsItsBuffers()
  local m = nn.Sequential(nn.Linear(4, 3), nn.Tanh())
  local crit = nn.MSECriterion()
  local x, t = torch.randn(5, 4), torch.randn(5, 3)
  local out
  for i = 1, 4 do
    local y = m:forward(x)
    crit:forward(y, t)
    m:backward(x, crit:backward(y, t))
    if i == 1 then out = m.modules[2].output end
  end
  tester:assert(rawequal(m.modules[2].output, out), 'the output buffer is the same tensor')
end

-- A container's table output (nn.ConcatTable, nn.ParallelTable) used twice: the first table kept
-- its elements (Note [Table outputs of containers]); before, a = ct(x1); b = ct(x2) left a[1] == b[1]
-- and the gradients were those of the second call twice.
function tests.containerTableOutputUsedTwice()
  torch.manualSeed(7)
  local makers = {
    { function() return nn.ConcatTable():add(nn.Linear(4, 2)):add(nn.Tanh()) end, false },
    { function() return nn.ParallelTable():add(nn.Linear(4, 2)):add(nn.Sigmoid()) end, true },
  }
  for _, mk in ipairs(makers) do
    local m = mk[1]()
    local function input() return mk[2] and { torch.randn(3, 4):requiresGrad(), torch.randn(3, 4):requiresGrad() }
                                        or torch.randn(3, 4):requiresGrad() end
    local function loss(y, s) return torch.add(torch.sum(y[1]) * s, torch.sum(torch.pow(y[2], 2)) * s) end
    local x1, x2 = input(), input()
    local y1 = m:forward(x1)
    local kept = { y1[1]:detach():clone(), y1[2]:detach():clone() }
    torch.noGrad(function() m:forward(input()) end)  -- a validation forward in between
    local y2 = m:forward(x2)
    tester:assertTensorEq(y1[1]:detach(), kept[1], 0, torch.typename(m) .. ': the first table kept its elements')
    tester:assertTensorEq(y1[2]:detach(), kept[2], 0, torch.typename(m) .. ': the first table kept its elements')
    m:zeroGradParameters()
    torch.add(loss(y1, 1), loss(y2, 3)):backward()
    local _, g = m:parameters()
    local gp = {}
    for i, t in ipairs(g) do gp[i] = t:clone() end
    m:zeroGradParameters()
    loss(m:forward(x1), 1):backward()
    loss(m:forward(x2), 3):backward()  -- one forward and backward at a time: the reference
    for i, t in ipairs(g) do tester:assertTensorEq(gp[i], t, 1e-12, torch.typename(m) .. ': parameter gradient ' .. i) end
  end
end

-- A coarse module running children with updateOutput (nn.WeightNorm) used twice: the children's
-- buffers are in the snapshot (Note [Snapshots reach nested modules]); before, the first output
-- (the child's output buffer) took the second call's values and the gradients were wrong.
function tests.nestedChildrenUsedTwice()
  torch.manualSeed(8)
  local m = nn.WeightNorm(nn.Linear(4, 3))
  local x1, x2 = torch.randn(3, 4):requiresGrad(), torch.randn(3, 4):requiresGrad()
  local y1 = m:forward(x1)
  local kept = y1:detach():clone()
  local y2 = m:forward(x2)
  tester:assertTensorEq(y1:detach(), kept, 0, 'the first output kept its values')
  m:zeroGradParameters()
  torch.add(torch.sum(torch.pow(y1, 2)), torch.sum(y2) * 3):backward()
  local _, g = m:parameters()
  local gp, gx1, gx2 = {}, x1.grad:clone(), x2.grad:clone()
  for i, t in ipairs(g) do gp[i] = t:clone() end
  m:zeroGradParameters(); x1.grad:zero(); x2.grad:zero()
  torch.sum(torch.pow(m:forward(x1), 2)):backward()
  torch.mul(torch.sum(m:forward(x2)), 3):backward()
  tester:assertTensorEq(gx1, x1.grad, 1e-12, 'gradient of the first input')
  tester:assertTensorEq(gx2, x2.grad, 1e-12, 'gradient of the second input')
  for i, t in ipairs(g) do tester:assertTensorEq(gp[i], t, 1e-12, 'parameter gradient ' .. i) end
end

-- DataParallelTable on CPU replicas used twice: the input slices, their bounds and the count of
-- replicas used are in the snapshot; before, the first call's weight gradient used the second
-- call's slices, and a second call with a smaller batch (one replica used) made the first call's
-- backward fail.
function tests.dataParallelTableUsedTwice()
  for _, n2 in ipairs({ 4, 1 }) do
    torch.manualSeed(9)
    local d = nn.DataParallelTable(1):add(nn.Sequential():add(nn.Linear(4, 3)):add(nn.Tanh()), { 'cpu', 'cpu' })
    local x1, x2 = torch.randn(4, 4):requiresGrad(), torch.randn(n2, 4):requiresGrad()
    local y1 = d:forward(x1)
    local kept = y1:detach():clone()
    local y2 = d:forward(x2)
    tester:assertTensorEq(y1:detach(), kept, 0, 'the first output kept its values')
    d:zeroGradParameters()
    torch.add(torch.sum(torch.pow(y1, 2)), torch.mul(torch.sum(y2), 3)):backward()
    local _, g = d:parameters()
    local gp, gx1, gx2 = {}, x1.grad:clone(), x2.grad:clone()
    for i, t in ipairs(g) do gp[i] = t:clone() end
    d:zeroGradParameters(); x1.grad:zero(); x2.grad:zero()
    torch.sum(torch.pow(d:forward(x1), 2)):backward()
    torch.mul(torch.sum(d:forward(x2)), 3):backward()
    tester:assertTensorEq(gx1, x1.grad, 1e-12, 'gradient of the first input')
    tester:assertTensorEq(gx2, x2.grad, 1e-12, 'gradient of the second input')
    for i, t in ipairs(g) do tester:assertTensorEq(gp[i], t, 1e-12, 'parameter gradient ' .. i) end
  end
end

-- nn.SpectralNorm used twice in training: each forward moves the power-iteration vectors u, v
-- (state buffers) and writes weight_orig / sigma into its child's weight; the earlier call's
-- backward reads its own (Note [State buffers in a snapshot]). Before, it read the second call's
-- and the gradients of weight_orig and of the first input were wrong.
function tests.spectralNormUsedTwice()
  torch.manualSeed(10)
  local m = nn.SpectralNorm(nn.Linear(4, 3))
  local x1, x2 = torch.randn(3, 4):requiresGrad(), torch.randn(3, 4):requiresGrad()
  local u, v = m.weight_u:clone(), m.weight_v:clone()
  local function loss(y, s) return torch.mul(torch.sum(torch.pow(y, 2)), s) end
  m:zeroGradParameters()
  torch.add(loss(m:forward(x1), 1), loss(m:forward(x2), 3)):backward()
  local _, g = m:parameters()
  local gp, gx1, gx2 = {}, x1.grad:clone(), x2.grad:clone()
  for i, t in ipairs(g) do gp[i] = t:clone() end
  local u2, v2 = m.weight_u:clone(), m.weight_v:clone()
  m.weight_u:copy(u); m.weight_v:copy(v)  -- the reference starts from the same vectors
  m:zeroGradParameters(); x1.grad:zero(); x2.grad:zero()
  loss(m:forward(x1), 1):backward()
  loss(m:forward(x2), 3):backward()
  tester:assertTensorEq(u2, m.weight_u, 1e-12, 'u moved by both forwards')
  tester:assertTensorEq(v2, m.weight_v, 1e-12, 'v moved by both forwards')
  tester:assertTensorEq(gx1, x1.grad, 1e-12, 'gradient of the first input')
  tester:assertTensorEq(gx2, x2.grad, 1e-12, 'gradient of the second input')
  for i, t in ipairs(g) do tester:assertTensorEq(gp[i], t, 1e-12, 'parameter gradient ' .. i) end
end

tester:add(tests):run()
