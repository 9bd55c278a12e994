-- Regressions from a review of Torch7's containers and table modules against Torch7's
-- documentation (doc/containers.md, doc/table.md, doc/module.md): nn.DepthConcat (missing), the
-- table CMath modules fed their own output, nn.Bottle's accUpdateGradParameters, Sequential's
-- remove and empty backward; plus finite-difference checks (double) of the containers, table and
-- shape modules in single and batch modes, with tables of tables, size changes, :double() and
-- save/load round trips.
require 'nn'
local tester = torch.Tester()
local tests = torch.TestSuite()
torch.manualSeed(123)

local function R(...) return torch.randn(...):double() end
local function num(x) if torch.isTensor(x) then return x:item() end return x end
local function flat(x, out)
  out = out or {}
  if torch.isTensor(x) then out[#out + 1] = x else for i = 1, #x do flat(x[i], out) end end
  return out
end
local function dclone(x)
  if torch.isTensor(x) then return x:clone() end
  local t = {}
  for i = 1, #x do t[i] = dclone(x[i]) end
  return t
end
local function randlike(x)
  if torch.isTensor(x) then return torch.randn(x:size()):typeAs(x) end
  local t = {}
  for i = 1, #x do t[i] = randlike(x[i]) end
  return t
end
local function maxdiff(a, b)
  local fa, fb = flat(a), flat(b)
  tester:asserteq(#fa, #fb, 'same structure')
  local d = 0
  for i = 1, #fa do
    tester:assertTableEq(fa[i]:size():totable(), fb[i]:size():totable(), 'same sizes')
    d = math.max(d, num((fa[i]:double() - fb[i]:double()):abs():max()))
  end
  return d
end

-- Max error of m:backward's gradInput against central differences of sum(output .* gradOutput)
-- over every floating input tensor (nested tables included); skip[k] leaves input leaf k out.
local function fdcheck(m, input, skip)
  local out = m:forward(input)
  local go = randlike(out)
  local function f()
    local o, g, s = flat(m:forward(input)), flat(go), 0
    for i = 1, #o do s = s + num(torch.cmul(o[i], g[i]):sum()) end
    return s
  end
  m:forward(input)
  local gi = flat(dclone(m:backward(input, go)))
  local ins, err = flat(input), 0
  for k, t in ipairs(ins) do
    if not (skip and skip[k]) then
      tester:assertTableEq(gi[k]:size():totable(), t:size():totable(), 'gradInput ' .. k .. ' is shaped like the input')
      local tf, gf = t:view(t:nElement()), gi[k]:contiguous():view(-1)
      for i = 1, tf:nElement() do
        local v = tf[i]
        tf[i] = v + 1e-6
        local a = f()
        tf[i] = v - 1e-6
        local b = f()
        tf[i] = v
        err = math.max(err, math.abs((a - b) / 2e-6 - gf[i]))
      end
    end
  end
  return err
end
local tol = 1e-6
-- Torch7's PairwiseDistance adds 1e-6 to the norm in its gradient (no division by zero).
local function tolFor(name) return name:find('PairwiseDistance') and 1e-5 or tol end

function tests.depthConcatPadsSmallerOutputs()
  -- Torch7's DepthConcat centres each output in a zero-padded window of the largest size:
  -- start = floor((max - size) / 2) + 1, so an odd excess puts the extra zero after.
  local m = nn.DepthConcat(2):add(nn.SpatialConvolution(2, 3, 1, 1)):add(nn.SpatialConvolution(2, 2, 3, 3))
    :add(nn.SpatialConvolution(2, 1, 2, 2)):double()
  local x = R(2, 2, 5, 5)
  local y = m:forward(x):detach()
  tester:assertTableEq(y:size():totable(), { 2, 6, 5, 5 })
  local o1, o2, o3 = m.modules[1].output:detach(), m.modules[2].output:detach(), m.modules[3].output:detach()
  tester:assertTensorEq(y[{ {}, { 1, 3 } }], o1, 0)
  tester:assertTensorEq(y[{ {}, { 4, 5 }, { 2, 4 }, { 2, 4 } }], o2, 0, '3x3 centred in 5x5')
  local ring = y[{ {}, { 4, 5 } }]:clone()
  ring[{ {}, {}, { 2, 4 }, { 2, 4 } }]:zero()
  tester:asserteq(num(ring:abs():max()), 0, 'zeros around the 3x3 window')
  tester:assertTensorEq(y[{ {}, { 6 }, { 1, 4 }, { 1, 4 } }], o3, 0, '4x4 in 5x5 starts at 1')
  tester:asserteq(num(y[{ {}, 6, 5, {} }]:abs():max()) + num(y[{ {}, 6, {}, 5 }]:abs():max()), 0, 'the extra zero goes after')
  tester:assertlt(fdcheck(m, x), tol, 'batch gradInput')
  -- one sample with a negative dim, then a size change
  local m1 = nn.DepthConcat(-3):add(nn.SpatialConvolution(2, 3, 1, 1)):add(nn.SpatialConvolution(2, 2, 3, 3)):double()
  tester:assertlt(fdcheck(m1, R(2, 5, 5)), tol, 'single sample')
  tester:assertlt(fdcheck(m1, R(2, 7, 6)), tol, 'after a size change')
  tester:assertTableEq(m1.output:size():totable(), { 5, 7, 6 })
  -- parameters: backward's accumulation equals autograd's through the padded windows
  local w = R(2, 6, 5, 5)
  m:zeroGradParameters()
  m:forward(x)
  m:backward(x, w)
  local _, g = m:parameters()
  local g1 = dclone(g)
  m:zeroGradParameters()
  torch.cmul(m:forward(x), w):sum():backward()
  tester:assertlt(maxdiff(g, g1), 1e-10, 'autograd and backward agree')
  -- accUpdateGradParameters = backward + updateParameters
  local a, b = m:clone(), m:clone()
  a:forward(x) a:updateGradInput(x, w) a:accUpdateGradParameters(x, w, 0.1)
  b:zeroGradParameters() b:forward(x) b:backward(x, w) b:updateParameters(0.1)
  tester:assertlt(maxdiff(a:parameters(), b:parameters()), 1e-10)
  -- printing, serialization, types, errors
  tester:assertTensorEq(torch.deserialize(torch.serialize(m)):forward(x), m:forward(x), 0)
  tester:asserteq(torch.type(m:clone():float():forward(x:float())), 'torch.FloatTensor')
  tester:assert(tostring(m):find('^nn.DepthConcat {') ~= nil, tostring(m))
  tester:assertErrorPattern(function() nn.DepthConcat(0) end, 'nn.DepthConcat')
  tester:assertErrorPattern(function() nn.DepthConcat(1):forward(R(2)) end, '%[nn.DepthConcat%(1%)%] has no modules')
  tester:assertErrorPattern(function() nn.DepthConcat(3):add(nn.Identity()):forward(R(2, 2)) end,
    '%[nn.DepthConcat%(3%)%] dimension 3 is out of range')
  tester:assertErrorPattern(function()
    nn.DepthConcat(1):add(nn.Identity()):add(nn.View(-1)):forward(R(2, 2))
  end, 'same number of dims')
end

function tests.cmathTablesFedTheirOwnOutput()
  -- acc = m:forward({x, acc}): the output buffer was overwritten with input[1] before input[2]
  -- (the same buffer) was read.
  for _, n in ipairs({ 'CAddTable', 'CSubTable', 'CMulTable', 'CDivTable', 'CMaxTable', 'CMinTable' }) do
    local m = nn[n]():double()
    local y = m:forward({ R(3):add(3), R(3):add(3) })
    local yc = y:clone()
    local c = R(3):add(3)
    local want = nn[n]():double():forward({ c, yc }):clone()
    tester:assertTensorEq(m:forward({ c, m.output }), want, 1e-12, n .. ' with its output as input 2')
    local want1 = nn[n]():double():forward({ want:clone(), c }):clone()
    tester:assertTensorEq(m:forward({ m.output, c }), want1, 1e-12, n .. ' with its output as input 1')
  end
  -- pad:forward(pad:forward(x)) filled its input with the pad value before copying it
  for _, pad in ipairs({ 1, -1 }) do
    local m = nn.Padding(1, pad, nil, 7):double()
    local x = R(3, 2)
    local want = nn.Padding(1, pad, nil, 7):double():forward(nn.Padding(1, pad, nil, 7):double():forward(x):clone()):clone()
    tester:assertTensorEq(m:forward(m:forward(x)), want, 0, 'nn.Padding applied to its own output')
  end
end

function tests.paddingValuesFollowTorch7()
  -- Torch7's doc: pad < 0 pads on the left (before index, counted from the left); pad > 0 pads
  -- on the right (index counted from the right); nInputDim marks a batch dim.
  local x = torch.Tensor({ { 1, 2, 3 }, { 4, 5, 6 } })
  tester:assertTensorEq(nn.Padding(1, 2, 1, 9):forward(x), torch.Tensor({ { 1, 2, 3, 9, 9 }, { 4, 5, 6, 9, 9 } }), 0)
  tester:assertTensorEq(nn.Padding(1, -1, 1, 9):forward(x), torch.Tensor({ { 9, 1, 2, 3 }, { 9, 4, 5, 6 } }), 0)
  tester:assertTensorEq(nn.Padding(1, -1, 1, 9, 2):forward(x), torch.Tensor({ { 1, 9, 2, 3 }, { 4, 9, 5, 6 } }), 0)
  tester:assertTensorEq(nn.Padding(1, 1, 1, 9, 2):forward(x), torch.Tensor({ { 1, 2, 9, 3 }, { 4, 5, 9, 6 } }), 0)
  tester:assertTensorEq(nn.Padding(1, -1, 2, 9):forward(x), torch.Tensor({ { 9, 9, 9 }, { 1, 2, 3 }, { 4, 5, 6 } }), 0)
  tester:assertTensorEq(nn.Padding(-1, -1, nil, 9):forward(x), torch.Tensor({ { 9, 1, 2, 3 }, { 9, 4, 5, 6 } }), 0)
end

function tests.bottleAccUpdateGradParameters()
  -- Module's default swapped Bottle's own (absent) weight in: the child's gradients moved, not its weights.
  for _, x in ipairs({ R(2, 4, 3), R(4, 3) }) do
    local a = nn.Bottle(nn.Linear(3, 2)):double()
    local b = a:clone()
    local go = R(a:forward(x):size())
    a:updateGradInput(x, go)
    a:accUpdateGradParameters(x, go, 0.1)
    b:zeroGradParameters() b:forward(x) b:backward(x, go) b:updateParameters(0.1)
    tester:assertlt(maxdiff(a:parameters(), b:parameters()), 1e-12, 'weights stepped')
    local _, g = a:parameters()
    tester:asserteq(num(g[1]:abs():sum()) + num(g[2]:abs():sum()), 0, 'gradients untouched')
  end
end

function tests.sequentialRemoveInsertAndEmpty()
  local s = nn.Sequential():add(nn.Linear(3, 4)):add(nn.Tanh()):double()
  s:forward(R(3))
  local removed = s:remove()
  tester:asserteq(torch.type(removed), 'nn.Tanh')
  tester:assert(s.output == s.modules[1].output, 'output re-pointed at the new last module (Torch7)')
  tester:assert(s.gradInput == s.modules[1].gradInput, 'gradInput re-pointed at the first module')
  s:remove()
  tester:asserteq(#s.modules, 0)
  tester:asserteq(s.output:nElement(), 0, 'an emptied Sequential has empty output')
  -- an empty Sequential is the identity both ways (its backward indexed modules[1])
  local x, g = R(3), R(3)
  tester:assertTensorEq(s:forward(x), x, 0)
  tester:assertTensorEq(s:backward(x, g), g, 0)
  tester:assertTensorEq(s:updateGradInput(x, g), g, 0)
  s:accGradParameters(x, g)
  s:accUpdateGradParameters(x, g, 0.1)
  tester:assertErrorPattern(function() s:insert(3) end, '%[nn.Sequential%] insert expects a module, got number')
  tester:assertErrorPattern(function() s:remove(1) end, '%[nn.Sequential%] index 1 out of range')
  s:insert(nn.Identity())
  tester:assertTensorEq(s:forward(x), x, 0)
end

function tests.gradInputsSingleAndBatch()
  local cases = {
    { 'Parallel', nn.Parallel(1, 1):add(nn.Linear(3, 2)):add(nn.Tanh()), R(2, 3) },
    { 'Parallel batch', nn.Parallel(2, 2):add(nn.Linear(3, 2)):add(nn.Linear(3, 4)), R(5, 2, 3) },
    { 'Concat', nn.Concat(1):add(nn.Linear(3, 2)):add(nn.Tanh()), R(3) },
    { 'Concat batch', nn.Concat(2):add(nn.Linear(3, 2)):add(nn.Tanh()), R(4, 3) },
    { 'ConcatTable', nn.ConcatTable():add(nn.Linear(3, 2)):add(nn.Identity()), R(4, 3) },
    { 'ConcatTable nested', nn.ConcatTable():add(nn.Identity()):add(nn.SelectTable(2)), { R(2), { R(3), R(1) } } },
    { 'ParallelTable nested', nn.ParallelTable():add(nn.Linear(3, 2)):add(nn.Identity()), { R(4, 3), { R(2), R(3) } } },
    { 'MapTable', nn.MapTable(nn.Linear(3, 2)), { R(3), R(4, 3), R(3) } },
    { 'SplitTable batch', nn.SplitTable(1, 1), R(4, 3) },
    { 'SplitTable -1', nn.SplitTable(-1, 2), R(4, 2, 3) },
    { 'JoinTable batch', nn.JoinTable(1, 1), { R(4, 3), R(4, 2) } },
    { 'JoinTable -1', nn.JoinTable(-1, 2), { R(4, 3), R(4, 2) } },
    { 'SelectTable -1', nn.SelectTable(-1), { R(2), R(3), { R(1), R(2) } } },
    { 'SelectTable -2', nn.SelectTable(-2), { R(2), { R(3), R(1) }, R(2) } },
    { 'NarrowTable', nn.NarrowTable(2, 2), { R(2), { R(3), R(1) }, R(2), R(1) } },
    { 'FlattenTable', nn.FlattenTable(), { R(2), { R(3), { R(1) } }, R(2) } },
    { 'Identity', nn.Identity(), { R(2), { R(3) } } },
    { 'CAddTable', nn.CAddTable(), { R(3, 2), R(3, 2), R(3, 2) } },
    { 'CSubTable', nn.CSubTable(), { R(3, 2), R(3, 2) } },
    { 'CMulTable', nn.CMulTable(), { R(3, 2), R(3, 2), R(3, 2) } },
    { 'CDivTable', nn.CDivTable(), { R(3, 2), R(3, 2):add(4) } },
    { 'CMaxTable', nn.CMaxTable(), { R(3, 2), R(3, 2), R(3, 2) } },
    { 'CMinTable', nn.CMinTable(), { R(3, 2), R(3, 2), R(3, 2) } },
    { 'PairwiseDistance', nn.PairwiseDistance(2), { R(4), R(4) } },
    { 'PairwiseDistance p3 batch', nn.PairwiseDistance(3), { R(3, 4), R(3, 4) } },
    { 'DotProduct batch', nn.DotProduct(), { R(3, 4), R(3, 4) } },
    { 'CosineDistance', nn.CosineDistance(), { R(4), R(4) } },
    { 'CosineDistance batch', nn.CosineDistance(), { R(3, 4), R(3, 4) } },
    { 'MixtureTable', nn.MixtureTable(), { nn.SoftMax():double():forward(R(3, 2)):clone(), { R(3, 4), R(3, 4) } } },
    { 'MixtureTable single', nn.MixtureTable(), { nn.SoftMax():double():forward(R(2)):clone(), { R(4), R(4) } } },
    { 'Bottle', nn.Bottle(nn.Linear(3, 2)), R(2, 4, 3) },
    { 'Replicate batch', nn.Replicate(3, 1, 1), R(4, 2) },
    { 'Reshape batch', nn.Reshape(6), R(4, 2, 3) },
    { 'View setNumInputDims', nn.View(3, 2):setNumInputDims(1), R(4, 6) },
    { 'Narrow negative length', nn.Narrow(2, 2, -2), R(5, 4) },
    { 'Padding negative', nn.Padding(1, -2, 1), R(4, 3) },
    { 'Padding index', nn.Padding(1, 2, 1, 1.5, 2), R(4, 3) },
    { 'Transpose pairs', nn.Transpose({ 1, 2 }, { 2, 3 }), R(2, 3, 4) },
    { 'Squeeze batch', nn.Squeeze(1, 2), R(4, 1, 3) },
    { 'Unsqueeze batch', nn.Unsqueeze(1, 1), R(4, 3) },
    { 'Max batch', nn.Max(1, 1), R(5, 3) },
    { 'Min', nn.Min(2), R(3, 4) },
    { 'Mean batch', nn.Mean(1, 1), R(5, 3) },
    { 'Sum no squeeze', nn.Sum(2, nil, false, false), R(5, 3, 4) },
    { 'Clamp', nn.Clamp(-0.5, 0.5), R(3, 4) },
  }
  for _, c in ipairs(cases) do
    tester:assertlt(fdcheck(c[2]:double(), c[3]), tolFor(c[1]), c[1])
  end
end

function tests.modulesReusedAfterSizeChanges()
  local cases = {
    { 'JoinTable', nn.JoinTable(1), { { R(2), R(3), R(1) }, { R(2), R(2) }, { R(4) } } },
    { 'SplitTable', nn.SplitTable(1), { R(3, 2), R(2, 2) } },
    { 'CMulTable', nn.CMulTable(), { { R(2), R(2), R(2) }, { R(3), R(3) } } },
    { 'CMaxTable', nn.CMaxTable(), { { R(2), R(2), R(2) }, { R(3), R(3) } } },
    { 'SelectTable', nn.SelectTable(1), { { R(2), { R(2), R(1) } }, { R(3) }, { { R(1) }, R(2), R(5) } } },
    { 'NarrowTable', nn.NarrowTable(1, 2), { { R(2), { R(2), R(1) }, R(3) }, { R(3), R(1) } } },
    { 'FlattenTable', nn.FlattenTable(), { { R(2), { R(2), R(1) }, R(3) }, { { R(1) }, { R(2), { R(5) } } } } },
    { 'MapTable', nn.MapTable(nn.Linear(2, 3)), { { R(2), R(4, 2), R(2) }, { R(2) }, { R(2), R(2), R(1, 2), R(2) } } },
    { 'ParallelTable', nn.ParallelTable():add(nn.Identity()):add(nn.Reshape(2)), { { R(2), R(2) }, { R(3), R(4, 2) } } },
    { 'PairwiseDistance', nn.PairwiseDistance(2), { { R(4), R(4) }, { R(3, 4), R(3, 4) }, { R(2), R(2) } } },
    { 'CosineDistance', nn.CosineDistance(), { { R(3, 4), R(3, 4) }, { R(2), R(2) } } },
    { 'MixtureTable', nn.MixtureTable(), { { nn.SoftMax():double():forward(R(3, 2)):clone(), { R(3, 4), R(3, 4) } },
      { nn.SoftMax():double():forward(R(3)):clone(), { R(2), R(2), R(2) } } } },
    { 'Padding', nn.Padding(1, -2, 1), { R(4, 3), R(3) } },
    { 'View', nn.View(-1, 2), { R(4, 3), R(6) } },
    { 'Bottle', nn.Bottle(nn.Linear(3, 2)), { R(4, 3), R(2, 4, 3), R(1, 2, 2, 3) } },
    { 'Concat', nn.Concat(1):add(nn.Identity()):add(nn.Identity()), { R(4, 3), R(3) } },
  }
  for _, c in ipairs(cases) do
    local m = c[2]:double()
    for k, x in ipairs(c[3]) do tester:assertlt(fdcheck(m, x), tolFor(c[1]), c[1] .. ' input ' .. k) end
  end
end

function tests.doubleConversionAndSaveLoad()
  local function F(...) return torch.randn(...):float() end
  local function todouble(x)
    if torch.isTensor(x) then return x:double() end
    local t = {}
    for i = 1, #x do t[i] = todouble(x[i]) end
    return t
  end
  local cases = {
    { 'Sequential', nn.Sequential():add(nn.Linear(3, 2)):add(nn.Tanh()), F(4, 3) },
    { 'DepthConcat', nn.DepthConcat(2):add(nn.SpatialConvolution(2, 2, 1, 1)):add(nn.SpatialConvolution(2, 1, 3, 3)), F(2, 2, 5, 5) },
    { 'ConcatTable', nn.ConcatTable():add(nn.Linear(3, 2)):add(nn.Tanh()), F(4, 3) },
    { 'MapTable', nn.MapTable(nn.Linear(3, 2)), { F(4, 3), F(3), F(3) } },
    { 'NarrowTable', nn.NarrowTable(1, 2), { F(4, 3), { F(4, 2) }, F(1) } },
    { 'CMaxTable', nn.CMaxTable(), { F(4, 3), F(4, 3) } },
    { 'MixtureTable', nn.MixtureTable(), { nn.SoftMax():float():forward(F(4, 2)):clone(), { F(4, 3), F(4, 3) } } },
    { 'Max', nn.Max(2), F(4, 3) },
    { 'Replicate', nn.Replicate(2, 1, 1), F(4, 3) },
  }
  for _, c in ipairs(cases) do
    local m, x = c[2]:float(), c[3]
    local o = dclone(m:forward(x))
    local g = randlike(o)
    local gi = dclone(m:backward(x, g))
    local r = torch.deserialize(torch.serialize(m))
    tester:asserteq(maxdiff(r:forward(x), o), 0, c[1] .. ' round trip output')
    tester:asserteq(maxdiff(r:backward(x, g), gi), 0, c[1] .. ' round trip gradInput')
    m:double()
    local od = m:forward(todouble(x))
    for _, t in ipairs(flat(od)) do tester:asserteq(torch.type(t), 'torch.DoubleTensor', c[1] .. ' double output') end
    tester:assertlt(maxdiff(od, o), 1e-5, c[1] .. ' double output')
    tester:assertlt(maxdiff(m:backward(todouble(x), todouble(g)), gi), 1e-5, c[1] .. ' double gradInput')
    tester:assertlt(fdcheck(m, todouble(x)), tol, c[1] .. ' gradInput after :double()')
  end
end

function tests.moduleApiSharing()
  -- getParameters twice keeps clone('weight', ...) sharing and returns the same storage
  local l = nn.Linear(3, 3):double()
  local s = nn.Sequential():add(l):add(nn.Tanh()):add(l:clone('weight', 'bias', 'gradWeight', 'gradBias'))
  local p, g = s:getParameters()
  local p2, g2 = s:getParameters()
  tester:asserteq(p:nElement(), 12, 'shared parameters counted once')
  tester:assert(torch.pointer(p:storage()) == torch.pointer(p2:storage()))
  l.weight:fill(7)
  tester:asserteq(s.modules[3].weight[1][1], 7)
  tester:asserteq(p2[1], 7)
  -- type conversion keeps the sharing
  s:float()
  s.modules[1].bias:fill(5)
  tester:asserteq(s.modules[3].bias[1], 5)
  s:double()
  local x = R(3)
  s:zeroGradParameters()
  s:forward(x)
  s:backward(x, R(3))
  local _, g3 = s:getParameters()
  tester:assert(num(g3:abs():sum()) > 0, 'gradients reach the flat vector after type()')
  -- accUpdateGradParameters = backward + updateParameters through a container
  local a = nn.Sequential():add(nn.Linear(3, 4)):add(nn.Tanh()):add(nn.Linear(4, 2)):double()
  local b = a:clone()
  local go = R(2)
  a:forward(x) a:updateGradInput(x, go) a:accUpdateGradParameters(x, go, 0.1)
  b:zeroGradParameters() b:forward(x) b:backward(x, go) b:updateParameters(0.1)
  tester:assertlt(num((a:getParameters() - b:getParameters()):abs():max()), 1e-12)
  -- MapTable: clones share the module's parameters, across :double(), getParameters and a round trip
  local mt = nn.Sequential():add(nn.MapTable(nn.Linear(2, 3))):add(nn.CAddTable()):float()
  mt:forward({ torch.randn(2):float(), torch.randn(2):float() })
  mt:double()
  local mp, mg = mt:getParameters()
  tester:asserteq(mp:nElement(), 9, 'one set of parameters')
  local xs = { R(2), R(2), R(2) }
  mp:fill(0.5)
  local sum = num((xs[1] + xs[2] + xs[3]):sum())
  tester:assertlt(math.abs(mt:forward(xs)[1] - (0.5 * sum + 1.5)), 1e-12)
  mt:zeroGradParameters()
  mt:backward(xs, torch.ones(3))
  tester:assertlt(math.abs(mg[1] - num(xs[1][1] + xs[2][1] + xs[3][1])), 1e-12, 'gradients of every clone accumulate')
  local r = torch.deserialize(torch.serialize(mt))
  r:get(1).module.weight:fill(2)
  tester:assertlt(math.abs(r:forward(xs)[1] - (2 * sum + 1.5)), 1e-12, 'clones still share after a round trip')
  -- training/evaluate, listModules/findModules, apply, replace, clearState
  local net = nn.Sequential():add(nn.Linear(3, 4)):add(nn.ConcatTable():add(nn.Dropout()):add(nn.Tanh()))
  net:evaluate()
  tester:asserteq(net.modules[2].modules[1].train, false)
  net:training()
  tester:asserteq(net.modules[2].modules[1].train, true)
  tester:asserteq(#net:listModules(), 5)
  local found, holders = net:findModules('nn.Tanh')
  tester:asserteq(#found, 1)
  tester:assert(holders[1] == net.modules[2])
  net:replace(function(m) if torch.typename(m) == 'nn.Tanh' then return nn.ReLU() end return m end)
  tester:asserteq(torch.type(net.modules[2].modules[2]), 'nn.ReLU')
  net:double():forward(R(2, 3))
  net:clearState()
  tester:asserteq(net.modules[1].output:nElement(), 0)
end

function tests.getParametersDropsUnusedStorage()
  -- After a layer is removed, the old flat storage still held its values: a second getParameters
  -- returned them too (25 instead of 9 or 13 values). Torch7 compacts such holes away.
  local s = nn.Sequential():add(nn.Linear(2, 3)):add(nn.Linear(3, 4)):double()
  s:getParameters()
  local w1 = s.modules[1].weight:clone()
  s:remove()
  local p, g = s:getParameters()
  tester:asserteq(p:nElement(), 9)
  tester:asserteq(g:nElement(), 9)
  tester:assertTensorEq(s.modules[1].weight, w1, 0, 'values kept')
  s:add(nn.Linear(3, 1):double())
  local b = s.modules[2].bias:clone()
  p, g = s:getParameters()
  tester:asserteq(p:nElement(), 13)
  tester:asserteq(g:nElement(), 13)
  tester:assertTensorEq(s.modules[2].bias, b, 0)
  p:fill(3)
  tester:asserteq(num(s.modules[1].weight:sum()) + num(s.modules[2].bias:sum()), 3 * 7, 'parameters view the vector')
  local p2 = s:getParameters()
  tester:assert(torch.pointer(p2:storage()) == torch.pointer(p:storage()), 'a third call views the same memory')
  -- parameters viewing part of a bigger tensor: the vectors had 10 and 6 values
  local l = nn.Linear(2, 2):double()
  local big = R(10)
  l.weight = big:narrow(1, 3, 4):view(2, 2)
  l.bias = big:narrow(1, 8, 2)
  local w, bb = l.weight:clone(), l.bias:clone()
  local lp, lg = nn.Sequential():add(l):getParameters()
  tester:asserteq(lp:nElement(), 6)
  tester:asserteq(lg:nElement(), 6)
  tester:assertTensorEq(l.weight, w, 0)
  tester:assertTensorEq(l.bias, bb, 0)
  -- a transposed (dense) parameter keeps its layout
  local l3 = nn.Linear(3, 3):double()
  l3.weight = R(4, 3):narrow(1, 1, 3):t()
  local wt = l3.weight:clone()
  tester:asserteq(nn.Sequential():add(l3):getParameters():nElement(), 12)
  tester:assertTensorEq(l3.weight, wt, 0)
  -- a parameter with gaps inside keeps its span (strides stay valid); storage past it is dropped
  local l4 = nn.Linear(3, 3):double()
  l4.weight = R(3, 5):narrow(2, 1, 3)
  local w4 = l4.weight:clone()
  tester:asserteq(nn.Sequential():add(l4):getParameters():nElement(), 13 + 3)
  tester:assertTensorEq(l4.weight, w4, 0)
end

tester:add(tests)
tester:run()
