-- Regressions from a review of nn.functional's geometric and embedding functions against PyTorch 1.13
-- (nn/functional_grid.lua, functional_more2_grid.lua, functional_fold.lua, functional_more2_embed.lua):
-- gridSample on empty batches and empty inputs, its grid gradient at non-finite points under
-- 'reflection', bicubic values and gradients, errors that leave an embedding weight as it was, and
-- embeddingBag's options table left alone. Reference values are PyTorch 1.13's (float64) unless
-- said otherwise.
require 'nn'
local tester = torch.Tester()
local tests = torch.TestSuite()
local F = nn.functional
local D = torch.DoubleTensor

-- ((a i) mod m - off) / div for i = 0, 1, ... (the inputs the PyTorch values were computed from)
local function pattern(n, a, m, off, div)
  local t = D(n)
  for i = 0, n - 1 do t[i + 1] = ((i * a) % m - off) / div end
  return t
end

local function near(t, expected, tol, what)
  local e = D(expected)
  tester:asserteq(t:nElement(), e:nElement(), what .. ': size')
  local diff = e:nElement() == 0 and 0 or (t:double():contiguous():view(-1) - e):abs():max()
  if type(diff) ~= 'number' then diff = diff:item() end
  tester:assert(diff <= tol, string.format('%s: max diff %g > %g', what, diff, tol))
end

local function gradcheck(f, inputs, what)
  local ok, err = pcall(torch.autograd.gradcheck, f, inputs)
  tester:assert(ok and err ~= false, what .. ': ' .. tostring(err))
end

-- gridSample with an empty batch divided 0 by 0 for the point count (P = grid:nElement() / (N k))
-- and failed in view with "size must be an integer, got nan" (bilinear, nearest; 4-D and 5-D).
-- PyTorch 1.13 returns N x C x Ho x Wo = 0 x 2 x 2 x 2. The empty result is recorded, so that a
-- sum of it backpropagates (zero gradients), as PyTorch's.
function tests.gridSampleEmptyBatch()
  for _, mode in ipairs({ 'bilinear', 'nearest', 'bicubic' }) do
    local x = torch.randn(0, 2, 3, 3):double():requiresGrad()
    local g = torch.randn(0, 2, 2, 2):double():requiresGrad()
    local y = F.gridSample(x, g, { mode = mode })
    tester:assertTableEq(y:size():totable(), { 0, 2, 2, 2 }, mode .. ': size')
    y:sum():backward()
    tester:assertTableEq(x.grad:size():totable(), { 0, 2, 3, 3 }, mode .. ': input gradient')
  end
  local y5 = F.gridSample(torch.randn(0, 2, 3, 3, 3):double(), torch.randn(0, 2, 2, 2, 3):double())
  tester:assertTableEq(y5:size():totable(), { 0, 2, 2, 2, 2 }, '5-D')
  -- no grid points / no channels: empty, recorded from both arguments
  local x = torch.randn(2, 3, 4, 4):double():requiresGrad()
  local g = torch.randn(2, 0, 5, 2):double():requiresGrad()
  local y = F.gridSample(x, g)
  tester:assertTableEq(y:size():totable(), { 2, 3, 0, 5 }, 'no points')
  y:sum():backward()
  tester:asserteq(x.grad:abs():sum(), 0, 'zero input gradient')
  local c0 = F.gridSample(torch.randn(1, 0, 3, 3):double(), torch.randn(1, 2, 2, 2):double(), { mode = 'bicubic' })
  tester:assertTableEq(c0:size():totable(), { 1, 0, 2, 2 }, 'no channels')
end

-- An input with an empty spatial dim has no value to read (not even 'border's); PyTorch 1.13
-- raises "expected input to have non-empty spatial dimensions". It gave zeros.
function tests.gridSampleEmptyInputRefused()
  local g = torch.zeros(1, 2, 2, 2):double()
  for _, mode in ipairs({ 'bilinear', 'nearest', 'bicubic' }) do
    tester:assertErrorPattern(function() F.gridSample(torch.randn(1, 1, 0, 3):double(), g, { mode = mode }) end,
      'gridSample.*non%-empty spatial dims.*1x1x0x3', mode)
  end
  tester:assertErrorPattern(function()
    F.gridSample(torch.randn(1, 1, 2, 0, 3):double(), torch.zeros(1, 1, 1, 1, 3):double(), { paddingMode = 'border' })
  end, 'gridSample.*non%-empty spatial dims', '5-D')
end

-- Points at NaN or inf read as outside (Note [gridSample from tensor ops]); under 'reflection' the
-- reflection's constants were NaN there, and 0 * NaN in their backward gave the grid a NaN gradient
-- ('border' and 'zeros' give 0; PyTorch 1.13's bilinear border/reflection kernels crash on such
-- grids, so there is no reference). Values as before; the finite points' gradients are unchanged.
function tests.gridSampleReflectionNonFiniteGridGradient()
  local x = torch.range(0, 17):double():view(1, 2, 3, 3)
  local g0 = D{ { 0 / 0, 0.2 }, { math.huge, 0 }, { -math.huge, 1e30 }, { 0.1, 0.2 }, { 1e10, 0.1 } }:view(1, 1, 5, 2)
  for _, align in ipairs({ false, true }) do
    local g = g0:clone():requiresGrad()
    local y = F.gridSample(x, g, { paddingMode = 'reflection', alignCorners = align })
    local grad = torch.autograd.grad({ y:sum() }, { g })[1]
    tester:asserteq(torch.isfinite(grad):sum(), 10, 'finite grid gradients, alignCorners=' .. tostring(align))
    tester:asserteq(grad[1][1][1][1], 0, 'NaN point')
    tester:asserteq(grad[1][1][2][1], 0, 'inf point')
  end
  local g = g0:clone():requiresGrad()
  local y = F.gridSample(x, g, { paddingMode = 'reflection' })
  near(y, { 3.9, 3, 0, 5.05, 4.45, 12.9, 12, 9, 14.05, 13.45 }, 1e-12, 'values')
  near(torch.autograd.grad({ y:sum() }, { g })[1], { 0, 9, 0, 9, 0, 0, 3, 9, 3, 9 }, 1e-12, 'gradients')
  -- 5-D
  local x5 = torch.range(0, 26):double():view(1, 1, 3, 3, 3)
  local g5 = D{ { 0 / 0, 0.2, 0.1 }, { 0.3, -math.huge, 0.5 }, { 0.1, 0.2, -0.4 } }:view(1, 1, 1, 3, 3):requiresGrad()
  local grad5 = torch.autograd.grad({ F.gridSample(x5, g5, { paddingMode = 'reflection' }):sum() }, { g5 })[1]
  tester:asserteq(torch.isfinite(grad5):sum(), 9, '5-D finite grid gradients')
end

-- bicubic against PyTorch 1.13: input pattern(12, 7, 11, 5, 4) as 1x1x3x4, grad output pattern(6, 5, 7,
-- 3, 2), grid points on the corners, on the border and outside.
local BICUBIC = {
  { 'zeros', true,
    out = { -1.25, -0.859375, -0.278630562499999, -0.489104000000001, 0.0, -1.250277033570313 },
    gin = { -1.5, 0.0, 0.0, -0.09375, 0.04416, -0.006912, 0.0, 0.59375, -0.4232, 0.066239157515626,
      0.000564185390625, 1.093747470859375 },
    ggrid = { -0.84375, -0.28125, -0.5537109375, -1.40625, 0.0, 0.0, 2.18592, -0.344940000000001, 0.0, 0.0,
      0.13640973046875, -0.00042361294043 } },
  { 'reflection', false,
    out = { -1.9560546875, -1.21636962890625, -0.590237499999998, -0.5068375, -0.159982080078125, -1.671872 },
    gin = { -1.977140343750001, 0.396471445312499, -0.0024580546875, -0.041748046875, 1.451816015625001,
      0.45308056640625, -0.104750378906251, 0.199463171875, -0.895425671875, -0.405177011718749,
      -0.197665066406249, 1.623533375 },
    ggrid = { 0.0, 0.0, 0.0, -1.3128662109375, 0.0, 0.0, 5.088749999999999, -0.2381484375, 3.991882324218755,
      0.998307861328124, -0.002999999999999, 0.0 } },
  { 'border', false,
    out = { -1.578857421875, -1.113555908203125, -0.555639999999999, -1.029999999999999, 0.261210937499998,
      -1.461310993999999 },
    gin = { -1.79443359375, 0.15380859375, 0.0032958984375, 0.153079101562498, 0.17780859375, -0.01318359375,
      -0.02012409403125, 1.665358469031249, -1.023999999999999, 0.0, -0.12398355140625, 1.322374176406251 },
    ggrid = { 1.12939453125, 0.7415771484375, 0.4112548828125, -1.40350341796875, 0.0, 0.0, 2e-15, -0.39375, 1e-15,
      -3.6333984375, 0.185991000000002, 0.17578125 } },
}
function tests.gridSampleBicubicAgainstPyTorch()
  local g0 = D{ { -1, -1 }, { 1, 0.5 }, { 0.3, -0.8 }, { -1.4, 1.2 }, { 2.6, -0.1 }, { 0.999, 1.0 } }:view(1, 1, 6, 2)
  for _, c in ipairs(BICUBIC) do
    local what = c[1] .. ' alignCorners=' .. tostring(c[2])
    local x = pattern(12, 7, 11, 5, 4):view(1, 1, 3, 4):requiresGrad()
    local g = g0:clone():requiresGrad()
    local y = F.gridSample(x, g, { mode = 'bicubic', paddingMode = c[1], alignCorners = c[2] })
    near(y, c.out, 1e-12, what)
    local gx, gg = unpack(torch.autograd.grad({ y }, { x, g }, { pattern(6, 5, 7, 3, 2):view(1, 1, 1, 6) }))
    near(gx, c.gin, 1e-12, what .. ' input gradient')
    near(gg, c.ggrid, 1e-11, what .. ' grid gradient')
  end
end

function tests.gridSampleBicubicGradcheck()
  torch.manualSeed(5)
  for _, pad in ipairs({ 'zeros', 'reflection' }) do
    for _, align in ipairs({ false, true }) do
      local x = torch.randn(1, 2, 3, 4):double():requiresGrad()
      -- points away from the integer taps (where the gradient jumps), some outside
      local g = D{ { -0.93, -0.61 }, { 0.27, 0.41 }, { 1.13, -0.37 }, { -1.21, 0.83 } }:view(1, 2, 2, 2):requiresGrad()
      gradcheck(function(a, b) return F.gridSample(a, b, { mode = 'bicubic', paddingMode = pad, alignCorners = align }) end,
        { x, g }, 'bicubic ' .. pad .. ' ' .. tostring(align))
    end
  end
end

-- Non-finite points in bicubic mode give NaN, as PyTorch 1.13 (its bicubic kernel has no
-- safe_downgrade_to_int_range): input 0..17 (1x2x3x3), 'zeros', alignCorners false.
function tests.gridSampleBicubicNonFinite()
  local x = torch.range(0, 17):double():view(1, 2, 3, 3)
  local g = D{ { 0 / 0, 0.2 }, { math.huge, 0 }, { -math.huge, 1e30 }, { 0.1, 0.2 }, { 1e10, 0.1 } }:view(1, 1, 5, 2)
  local y = F.gridSample(x, g, { mode = 'bicubic' }):view(-1)
  local expected = { 0 / 0, 0 / 0, 0 / 0, 5.811233125000001, 0, 0 / 0, 0 / 0, 0 / 0, 15.371676554687506, 0 }
  for i, e in ipairs(expected) do
    if e ~= e then tester:assert(y[i] ~= y[i], 'NaN at ' .. i)
    else tester:assert(math.abs(y[i] - e) < 1e-12, 'value at ' .. i) end
  end
end

-- maxNorm renormalizes the referenced rows in place before the lookup; a bad paddingIdx was only
-- found by the lookup, after the weight had been changed.
function tests.embeddingMaxNormErrorLeavesWeight()
  local w0 = D{ { 3, 4 }, { 1, 0 }, { 0, 2 } }
  local w = w0:clone()
  tester:assertErrorPattern(function() F.embedding(torch.LongTensor{ 1, 2 }, w, { maxNorm = 1, paddingIdx = 7 }) end,
    'embedding.*paddingIdx 7 out of range')
  tester:assertTensorEq(w, w0, 0, 'weight unchanged after the error')
  tester:assertErrorPattern(function() F.embedding(torch.LongTensor{ 1, 4 }, w, { maxNorm = 1 }) end, 'out of range')
  tester:assertTensorEq(w, w0, 0, 'weight unchanged after an index error')
  -- a NaN maxNorm turned the rows into NaN (PyTorch 1.13 leaves them: norm > NaN is false); refused
  tester:assertErrorPattern(function() F.embedding(torch.LongTensor{ 1 }, w, { maxNorm = 0 / 0 }) end,
    'embedding.*maxNorm must be non%-negative, got')
  tester:assertErrorPattern(function() F.embeddingBag(torch.LongTensor{ { 1 } }, w, { maxNorm = 0 / 0 }) end,
    'embeddingBag.*maxNorm must be non%-negative, got')
  tester:assertTensorEq(w, w0, 0, 'weight unchanged after a NaN maxNorm')
  -- still renormalizes when the call is good (PyTorch 1.13, normType inf, maxNorm 0.9)
  local W = pattern(10, 3, 7, 3, 2):view(5, 2)
  F.embedding(torch.LongTensor{ { 1, 3 }, { 5, 1 } }, W, { maxNorm = 0.9, normType = math.huge })
  near(W, { -0.899999940000004, 0.0, 1.5, -0.5, 0.899999910000009, -0.899999910000009, 0.5, -1.5, 0.0,
    0.899999940000004 }, 1e-12, 'renormalized rows (inf-norm)')
end

-- embeddingBag renormalized the weight before the bag's own checks (mode, offsets,
-- perSampleWeights, paddingIdx) ran, so each of these errors left it changed.
function tests.embeddingBagMaxNormErrorLeavesWeight()
  local w0 = D{ { 3, 4 }, { 1, 0 }, { 0, 2 } }
  local cases = {
    { function(w) F.embeddingBag(torch.LongTensor{ { 1, 2 } }, w, { maxNorm = 1, mode = 'bogus' }) end, 'mode' },
    { function(w) F.embeddingBag(torch.LongTensor{ 1, 2, 3 }, w, torch.LongTensor{ 2, 3 }, { maxNorm = 1 }) end,
      'offsets must start at 1' },
    { function(w) F.embeddingBag(torch.LongTensor{ { 1, 2 } }, w, { maxNorm = 1, mode = 'mean',
        perSampleWeights = torch.ones(1, 2):double() }) end, 'perSampleWeights only go' },
    { function(w) F.embeddingBag(torch.LongTensor{ { 1, 2 } }, w, { maxNorm = 1, paddingIdx = 9 }) end,
      'paddingIdx 9 out of range' },
    { function(w) F.embeddingBag(torch.LongTensor{ { 1, 2 } }, w, { maxNorm = 1, sparse = true, paddingIdx = 0 }) end,
      'paddingIdx 0 out of range' },
  }
  for i, c in ipairs(cases) do
    local w = w0:clone()
    tester:assertErrorPattern(function() c[1](w) end, 'embeddingBag.*' .. c[2], 'case ' .. i)
    tester:assertTensorEq(w, w0, 0, 'weight unchanged, case ' .. i)
  end
  local w = w0:clone()
  F.embeddingBag(torch.LongTensor{ { 1, 2 } }, w, { maxNorm = 1, mode = 'sum' })
  tester:assert(math.abs(w[1]:norm() - 1) < 1e-6, 'a good call still renormalizes')
end

-- includeLastOffset narrowed perSampleWeights by assigning into the caller's options table, so the
-- table then held a view, not the caller's tensor (nil .grad for the caller looking it up there).
-- Values: PyTorch 1.13 (weight pattern(10, 3, 7, 3, 2) as 5x2, perSampleWeights pattern(6, 4, 5, 2, 2),
-- grad output pattern(6, 2, 5, 1, 1)).
function tests.embeddingBagOptionsLeftAlone()
  local psw = pattern(6, 4, 5, 2, 2):requiresGrad()
  local w = pattern(10, 3, 7, 3, 2):view(5, 2):requiresGrad()
  local o = { mode = 'sum', perSampleWeights = psw, includeLastOffset = true }
  local y = F.embeddingBag(torch.LongTensor{ 2, 1, 5, 5, 3, 4 }, w, torch.LongTensor{ 1, 3, 3, 7 }, o)
  tester:assert(rawequal(o.perSampleWeights, psw), 'options table unchanged')
  near(y, { -3.0, 0.5, 0.0, 0.0, -1.0, 2.75 }, 1e-12, 'bags')
  y:backward(pattern(6, 2, 5, 1, 1):view(3, 2))
  near(w.grad, { -1.0, 1.0, 1.0, -1.0, -1.0, 0.5, -2.0, 1.0, 1.0, -0.5 }, 1e-12, 'weight gradient')
  near(o.perSampleWeights.grad, { -2.0, 1.5, -1.5, -1.5, 3.0, 2.5 }, 1e-12, 'perSampleWeights gradient')
  gradcheck(function(a, p) return F.embeddingBag(torch.LongTensor{ 2, 1, 5, 5, 3, 4 }, a, torch.LongTensor{ 1, 3, 3, 7 },
    { mode = 'sum', perSampleWeights = p, includeLastOffset = true }) end,
    { pattern(10, 3, 7, 3, 2):view(5, 2):requiresGrad(), pattern(6, 4, 5, 2, 2):requiresGrad() }, 'embeddingBag psw')
end

-- scaleGradByFreq divides each row's gradient by its count in all the indices. Hand-computed, not
-- PyTorch 1.13's: its CPU embedding_bag backward reads the counts at the wrong slot
-- (pytorch/pytorch#190063) and gives rows 6 and 7 (once each) 500 and 50 here.
function tests.embeddingBagScaleGradByFreq()
  local idx = torch.LongTensor{ 3, 1, 4, 4, 7, 2, 3, 6 }
  local offsets = torch.LongTensor{ 1, 3, 3, 6 }
  local go = D{ { 1 }, { 10 }, { 100 }, { 1000 } }
  local expected = { sum = { 1, 1000, 500.5, 100, 0, 1000, 100 },
                     mean = { 0.5, 1000 / 3, 0.5 / 2 + 1000 / 3 / 2, 100 / 3, 0, 1000 / 3, 100 / 3 } }
  for _, sparse in ipairs({ false, true }) do
    for mode, e in pairs(expected) do
      local w = torch.ones(7, 1):double():requiresGrad()
      F.embeddingBag(idx, w, offsets, { mode = mode, scaleGradByFreq = true, sparse = sparse }):backward(go)
      local g = w.grad.toDense and w.grad:toDense() or w.grad
      near(g, e, 1e-12, mode .. (sparse and ' sparse' or ''))
    end
  end
end

-- fold and unfold on empty batches and non-contiguous inputs (PyTorch 1.13 allows an empty batch)
function tests.foldUnfoldEmptyAndViews()
  local o = { dilation = { 2, 1 }, padding = { 1, 2 }, stride = { 2, 3 } }
  tester:assertTableEq(F.unfold(torch.randn(0, 2, 7, 5):double(), { 3, 2 }, o):size():totable(), { 0, 12, 9 })
  tester:assertTableEq(F.fold(torch.randn(0, 12, 9):double(), { 7, 5 }, { 3, 2 }, o):size():totable(), { 0, 2, 7, 5 })
  local x = torch.randn(1, 2, 5, 7):double():transpose(3, 4)
  tester:assertTensorEq(F.unfold(x, { 3, 2 }, o), F.unfold(x:contiguous(), { 3, 2 }, o), 0, 'unfold of a view')
  local c = torch.randn(1, 9, 12):double():transpose(2, 3)  -- 1 x 12 x 9, not contiguous
  tester:assertTensorEq(F.fold(c, { 7, 5 }, { 3, 2 }, o), F.fold(c:contiguous(), { 7, 5 }, { 3, 2 }, o), 0,
    'fold of a view')
  gradcheck(function(a) return F.fold(a, { 7, 5 }, { 3, 2 }, o) end, { torch.randn(1, 12, 9):double():requiresGrad() },
    'fold dilated, padded, strided')
  gradcheck(function(a) return F.unfold(a, { 3, 2 }, o) end, { torch.randn(1, 2, 7, 5):double():requiresGrad() },
    'unfold dilated, padded, strided')
end

-- Bags with no entries are zeros in the weight's graph (a fresh tensor made y:sum():backward()
-- fail); PyTorch 1.13 gives size 2 x 3, requires_grad and zero gradients in every mode. oneHot of
-- no indices needs numClasses, as PyTorch ("Can not infer total number of classes").
function tests.emptyBagsAndOneHotOfNothing()
  local w = torch.randn(5, 3):double():requiresGrad()
  for _, mode in ipairs({ 'sum', 'mean', 'max' }) do
    local o = F.embeddingBag(torch.LongTensor(0), w, torch.LongTensor({ 1, 1 }), { mode = mode })
    tester:assertTableEq(o:size():totable(), { 2, 3 }, mode)
    tester:assert(o:needsGrad(), mode .. ' in the graph')
    torch.sum(o):backward()
    tester:asserteq(w.grad:abs():sum(), 0, mode .. ' zero gradient')
    w.grad = nil
  end
  tester:assertErrorPattern(function() F.oneHot(torch.LongTensor(0)) end, '%[oneHot%] cannot infer the number of classes')
  tester:assertErrorPattern(function() F.oneHot(torch.LongTensor({ 1 }), -2) end, '%[oneHot%] numClasses must be %-1')
  tester:assertTableEq(F.oneHot(torch.LongTensor(0), 3):size():totable(), { 0, 3 })
end

tester:add(tests)
tester:run()
