-- The losses and functions added by lua/nn/pytorch_names_more_loss.lua, functional_more.lua,
-- functional_more_attention.lua and CTCCriterion.lua's reduction 'none', and Torch7's stnbhwd
-- modules (nn.AffineGridGeneratorBHWD, nn.BilinearSamplerBHWD): values and gradients against
-- PyTorch 1.13's (pasted; computed in float64 by PyTorch 1.13 on inputs sins(...)/coss(...) =
-- sin/cos(0, 1, ...) reshaped), the stnbhwd modules against a direct transcription of stnbhwd's
-- loops, finite-difference Jacobians, errors.
require 'nn'
local D = dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/device/nn_device.lua')  -- TOCHA_TEST_DEVICE
local tester = torch.Tester()
local tests = torch.TestSuite()

local function sins(...) return torch.arange(0, torch.DoubleTensor(...):nElement()):double():sin():view(...) end
local function coss(...) return torch.arange(0, torch.DoubleTensor(...):nElement()):double():cos():view(...) end
local function close(got, want, tol, msg)
  if type(want) == 'number' then want = { want } end
  tester:assertTensorEq(got:contiguous():view(-1):double(), torch.DoubleTensor(want), tol or 1e-8, msg)
end

-- PyTorch 1.13's values
local R = {
  tmd_default = { l = {2.35787774}, ga = {-0.07224626825, 0.2571725394, 0.434583034, 0.2968748251,
    -0.04079762116, -0.3041867038, -0.1432785012, 0.2939887271, 0.4609295663, 0.3959916959, 0.0687252788,
    -0.2199824503}, gp = {0.1640835604, -0.04941704262, -0.2174839954, -0.1855973167, 0.01952794952,
    0.2352234017, 0.2346553691, 0.01834609828, -0.1860345031, -0.2169168579, -0.04836700455, 0.164651099},
    gn = {-0.09183729215, -0.2077554967, -0.2170990386, -0.1112775085, 0.02126967164, 0.06896330206,
    -0.09137686789, -0.3123348254, -0.2748950631, -0.179074838, -0.02035827425, 0.05533135134} },
  tmd_l1swap = { l = {2.914918646}, ga = {0, 0.6666666667, 0.6666666667, 0.6666666667, -0.6666666667,
    -0.6666666667, 0, 0, 0.6666666667, 0.6666666667, 0.6666666667, -0.6666666667}, gp = {0.3333333333,
    -0.3333333333, -0.3333333333, -0.3333333333, 0.3333333333, 0.3333333333, 0.3333333333, 0.3333333333,
    -0.3333333333, -0.3333333333, -0.3333333333, 0.3333333333}, gn = {-0.3333333333, -0.3333333333,
    -0.3333333333, -0.3333333333, 0.3333333333, 0.3333333333, -0.3333333333, -0.3333333333, -0.3333333333,
    -0.3333333333, -0.3333333333, 0.3333333333} },
  tmd_cos = { l = {2.523501445, 2.253101407, 2.515451212}, ga = {-0.4302750539, -0.2966917466, 0.1856035338,
    0.5731907308, 0.2832178886, -0.2194522815, -0.4433453761, -0.1826151164, 0.1265105679, 0.5252157947,
    0.4983079787, 0.07052604188}, gp = {-0.01331050211, -0.4387546647, -0.460809812, -0.05919854327,
    0.304844641, 0.5113838687, 0.2477591259, -0.2436542147, -0.5041418086, -0.1911005326, 0.2976376917,
    0.5127291949}, gn = {-0.05255087465, 0.007513872034, 0.01235536762, -0.04247763661, -0.04776915809,
    -0.0421824562, -0.06096426674, -0.08684667972, -0.03753507961, -0.04277591339, -0.05145682735,
    -0.05559662922} },
  pdist2 = { d = {2.462650056, 0.3442633356, 2.462650056, 2.443655969, 0, 2.443655969}, g = {0.405070009,
    0.6684619885, 0.3172730986, -0.113066418, -0.07624052665, 0.03068055328, -0.3169728695, -0.6981889133,
    -0.43749329, 0.02496927852, 0.1059674514, 0.08953963818} },
  pdist1 = { d = {3.60761519, 0.5439607041, 3.60761519, 3.782607122, 0, 3.782607122}, g = {-0.04355085758,
    1.124155469, 0.04355085758, 0.0100075034, -0.0100075034, -0.0100075034, 0.1660280053, -1.246632617,
    -0.1660280053, -0.1324846511, 0.1324846511, 0.1324846511} },
  pdist3 = { d = {2.197112614, 0.3058368573, 2.197112614, 2.175453937, 0, 2.175453937}, g = {0.4485722464,
    0.505556024, 0.3851141557, -0.03286906361, -0.111052432, 0.07100518212, -0.4245864127, -0.4949133098,
    -0.5294904862, 0.008883229889, 0.1004097178, 0.07337114832} },
  ctc = { l = {3.931386044, 8.100067039}, g = {-0.002294788661, -0.1596865344, 0.1332999707, 0.02868135241,
    -0.3758428307, -0.2690208781, 0.08590718739, 0.5589565214, 0.009187436757, -0.02064050782, 0.007387161908,
    0.004065909157, -0.03950424512, -0.5234506376, 0.3737352237, 0.1892196591, -0.1236566662, -0.003325124546,
    -0.05053572713, 0.1775175179, -0.05906631953, -0.005206777747, 0.05413122178, 0.0101418755,
    -0.001456475443, 0.01439957355, -0.1781296068, 0.1651865087, -0.1525942078, -0.006645298607, 0.03777461465,
    0.1214648918, -0.0816423137, 0.1613181395, -0.08897162431, 0.009295798491, -0.02343361318, -0.6447310367,
    0.1392172187, 0.5289474312, -0.05266122481, 0.03960474258, 0.002751322388, 0.01030515984, 0, 0, 0, 0} },
  mha = { o = {0.9268079207, -0.6527443917, 0.4335759777, 0.06479442197, 0.09741435285, -0.1250553725,
    0.3165504072, -0.2530072668, -0.6207828929, 0.581585012, -0.2326237714, 0.0253054821, 1.148284048,
    -0.8422402502, 0.551963862, 0.04195961714, -1.263953739, 0.9861799639, -0.315100782, -0.2313655629,
    0.4127020337, 0.0561651711, -0.323759369, 0.7141785515}, w = {0.04933362991, 0.317873697, 0.558061903, 0,
    0.07473077003, 0.4335987463, 0.0761043014, 0.2967400621, 0, 0.1935568902, 0.4565933116, 0.1217101233,
    0.05268256337, 0, 0.3690140017, 0.09658179999, 0, 0.619783867, 0.167799467, 0.115834866, 0.1316938853, 0,
    0.2128573258, 0.6043720595, 0.05107672942, 0.3782993865, 0, 0.0510720612, 0.1634887898, 0.4071397625} },
}

local function triplet_inputs() return sins(3, 4), coss(3, 4), sins(3, 4):mul(1.3):add(0.2) end
local function l1(u, v) return torch.abs(u - v):sum(2):view(-1) end
local function cosd(u, v) return torch.add(torch.neg(nn.functional.cosineSimilarity(u, v)), 1) end

function tests.tripletWithDistanceMatchesPyTorch()
  local cases = {
    { {}, R.tmd_default, 'default' },
    { { distanceFunction = l1, swap = true, margin = 0.5 }, R.tmd_l1swap, 'l1 swap' },
    { { distanceFunction = cosd, margin = 1.5, reduction = 'none' }, R.tmd_cos, 'cosine none' },
  }
  for _, c in ipairs(cases) do
    local a, p, n = triplet_inputs()
    -- the functional, by autograd
    local ar, pr, nr = a:clone():requiresGrad(), p:clone():requiresGrad(), n:clone():requiresGrad()
    local l = nn.functional.tripletMarginWithDistanceLoss(ar, pr, nr, c[1])
    close(l, c[2].l, 1e-8, c[3] .. ' functional loss')
    l:sum():backward()
    close(ar.grad, c[2].ga, 1e-8, c[3] .. ' anchor gradient')
    close(pr.grad, c[2].gp, 1e-8, c[3] .. ' positive gradient')
    close(nr.grad, c[2].gn, 1e-8, c[3] .. ' negative gradient')
    -- the criterion: Torch7's forward/backward (the gradient of the sum for 'none')
    local crit = nn.TripletMarginWithDistanceLoss(c[1])
    local v = crit:forward({ a, p, n })
    close(torch.isTensor(v) and v or torch.DoubleTensor({ v }), c[2].l, 1e-8, c[3] .. ' criterion loss')
    local g = crit:backward({ a, p, n })
    close(g[1], c[2].ga, 1e-8, c[3] .. ' criterion anchor gradient')
    close(g[3], c[2].gn, 1e-8, c[3] .. ' criterion negative gradient')
  end
  -- positional arguments in PyTorch's order
  local a, p, n = triplet_inputs()
  tester:assertalmosteq(nn.TripletMarginWithDistanceLoss(l1, 0.5, true):forward({ a, p, n }),
    R.tmd_l1swap.l[1], 1e-8)
  -- c(input) is the recorded loss: autograd reaches the inputs
  local ar = a:clone():requiresGrad()
  nn.TripletMarginWithDistanceLoss({ reduction = 'none', distanceFunction = cosd, margin = 1.5 })({ ar, p, n }):sum():backward()
  close(ar.grad, R.tmd_cos.ga, 1e-8, 'criterion call under autograd')
end

function tests.tripletWithDistanceErrors()
  local a, p, n = triplet_inputs()
  tester:assertErrorPattern(function() nn.TripletMarginWithDistanceLoss({ distanceFunction = nn.PairwiseDistance() }) end,
    'TripletMarginWithDistanceLoss.*a module is not accepted')
  tester:assertErrorPattern(function() nn.TripletMarginWithDistanceLoss({ margin = 0 }) end, 'margin must be > 0')
  tester:assertErrorPattern(function() nn.TripletMarginWithDistanceLoss({ reduction = 'avg' }) end, 'reduction must be')
  tester:assertErrorPattern(function() nn.TripletMarginWithDistanceLoss():forward({ a, p }) end, '{anchor, positive, negative}')
  tester:assertErrorPattern(function() nn.functional.tripletMarginWithDistanceLoss(a, p, n:view(-1)) end,
    'tripletMarginWithDistanceLoss.*same number of dims')
end

function tests.pdistMatchesPyTorch()
  local x = sins(4, 3)
  x[4]:copy(x[2])  -- a zero distance: PyTorch's gradient there is 0
  for _, c in ipairs({ { 2, R.pdist2 }, { 1, R.pdist1 }, { 3, R.pdist3 } }) do
    local xr = x:clone():requiresGrad()
    local d = nn.functional.pdist(xr, c[1])
    close(d, c[2].d, 1e-8, 'p = ' .. c[1])
    torch.cmul(d, coss(6)):sum():backward()
    close(xr.grad, c[2].g, 1e-8, 'gradient p = ' .. c[1])
  end
  tester:asserteq(nn.functional.pdist(torch.randn(1, 3)):nElement(), 0)
  tester:assertErrorPattern(function() nn.functional.pdist(torch.randn(3)) end, 'pdist.*2%-D')
end

function tests.ctcCriterionNone()
  local lp = torch.logSoftmax(sins(6, 2, 4):mul(2), 3)
  local target = { torch.LongTensor({ { 2, 3 }, { 2, 2 } }), { 6, 5 }, { 2, 2 } }  -- PyTorch's 1, 2 / 1, 1; blank 1
  local c = nn.CTCCriterion(1, 'none')
  close(c:forward(lp, target), R.ctc.l, 1e-8, 'per-sample losses')
  -- PyTorch's backward gives the gradient in the logits behind a log_softmax (Note [CTC by
  -- recorded ops]): w_n exp(lp) more than the gradient in lp where t <= inputLength_n
  local xr = lp:clone():requiresGrad()
  local w = torch.DoubleTensor({ 0.3, 0.7 })
  torch.cmul(c(xr, target), w):sum():backward()
  local want = torch.DoubleTensor(R.ctc.g):view(6, 2, 4)
  for n = 1, 2 do
    for t = 1, target[2][n] do want[t][n]:add(-w[n], torch.exp(lp[t][n])) end
  end
  tester:assertTensorEq(xr.grad, want, 1e-7, 'autograd gradient')
  local sum = nn.CTCCriterion(1, 'sum')
  sum:forward(lp, target)
  tester:assertTensorEq(c:backward(lp, target), sum:backward(lp, target), 1e-12, 'Torch7 backward: the sum\'s gradient')
  tester:assertalmosteq(sum:forward(lp, target), R.ctc.l[1] + R.ctc.l[2], 1e-8)
  tester:assertErrorPattern(function() nn.CTCCriterion(1, 'avg') end, "reduction must be 'mean', 'sum' or 'none'")
end

function tests.multiHeadAttentionForwardMatchesPyTorch()
  local E, h = 4, 2
  local q, k, v = sins(3, 2, E), coss(5, 2, E), sins(5, 2, E):mul(0.5)
  local ipw = torch.arange(0, 3 * E * E):double():mul(0.3):sin():view(3 * E, E)
  local ipb = torch.arange(0, 3 * E):double():mul(0.5):cos():mul(0.1)
  local ow = torch.arange(0, E * E):double():mul(0.9):cos():view(E, E)
  local ob = torch.DoubleTensor(E):fill(0.05)
  local kpm = torch.ByteTensor({ { 0, 0, 0, 1, 0 }, { 0, 1, 0, 0, 0 } })
  local o, w = nn.functional.multiHeadAttentionForward(q, k, v, E, h, ipw, ipb, nil, nil, false, 0, ow, ob,
    { keyPaddingMask = kpm })
  close(o, R.mha.o, 1e-8, 'output')
  close(w, R.mha.w, 1e-8, 'averaged weights')
  -- the module with the same weights computes the same
  local m = nn.MultiheadAttention(E, h):double()
  m.in_proj_weight:copy(ipw) m.in_proj_bias:copy(ipb) m.outProj.weight:copy(ow) m.outProj.bias:copy(ob)
  close(m:forward({ q, k, v, keyPaddingMask = kpm }), R.mha.o, 1e-8, 'nn.MultiheadAttention')
  -- differentiable in the weights
  local ipwr = ipw:clone():requiresGrad()
  local o2 = nn.functional.multiHeadAttentionForward(q, k, v, E, h, ipwr, ipb, nil, nil, false, 0, ow, ob,
    { keyPaddingMask = kpm, needWeights = false })
  o2:sum():backward()
  tester:assert(ipwr.grad ~= nil and ipwr.grad:norm() > 0, 'a gradient for inProjWeight')
  tester:assertErrorPattern(function()
    nn.functional.multiHeadAttentionForward(q, k, v, E, h, ipw, ipb, torch.zeros(1, 1, E), nil, false, 0, ow, ob)
  end, 'multiHeadAttentionForward.*give both biasK and biasV, or neither')
  tester:assertErrorPattern(function()
    nn.functional.multiHeadAttentionForward(q, k, v, 3, h, ipw, ipb, nil, nil, false, 0, ow, ob)
  end, 'multiHeadAttentionForward.*embedding size 3')
end

-- stnbhwd's sampler, transcribed: (y, x) in [-1, 1] -> ((y + 1)(H - 1)/2, (x + 1)(W - 1)/2), the
-- four corners weighted bilinearly, corners outside the image count as 0
local function stn_sample(img, grid)
  local B, H, W, C = img:size(1), img:size(2), img:size(3), img:size(4)
  local Ho, Wo = grid:size(2), grid:size(3)
  local out = torch.DoubleTensor(B, Ho, Wo, C):zero()
  for b = 1, B do
    for i = 1, Ho do
      for j = 1, Wo do
        local yf = (grid[b][i][j][1] + 1) * (H - 1) / 2
        local xf = (grid[b][i][j][2] + 1) * (W - 1) / 2
        local y0, x0 = math.floor(yf), math.floor(xf)
        local wy, wx = 1 - (yf - y0), 1 - (xf - x0)
        for _, c in ipairs({ { y0, x0, wy * wx }, { y0, x0 + 1, wy * (1 - wx) }, { y0 + 1, x0, (1 - wy) * wx },
                             { y0 + 1, x0 + 1, (1 - wy) * (1 - wx) } }) do
          if c[1] >= 0 and c[1] <= H - 1 and c[2] >= 0 and c[2] <= W - 1 then
            out[b][i][j]:add(c[3], img[b][c[1] + 1][c[2] + 1])
          end
        end
      end
    end
  end
  return out
end

function tests.affineGridGeneratorBHWD()
  local g = nn.AffineGridGeneratorBHWD(3, 4):double()
  local T = torch.DoubleTensor({ { { 0.8, 0.3, 0.1 }, { -0.2, 0.9, -0.3 } }, { { 1.1, 0, 0.5 }, { 0.1, 0.7, 0 } } })
  local grid = g:forward(T)
  tester:assertTableEq(grid:size():totable(), { 2, 3, 4, 2 })
  -- stnbhwd: grid[b][i][j] = T[b] * (y_i, x_j, 1), y_i = -1 + 2(i-1)/(H-1), x_j = -1 + 2(j-1)/(W-1)
  for b = 1, 2 do
    for i = 1, 3 do
      for j = 1, 4 do
        local y, x = -1 + 2 * (i - 1) / 2, -1 + 2 * (j - 1) / 3
        local want = torch.mv(T[b], torch.DoubleTensor({ y, x, 1 }))
        tester:assertTensorEq(grid[b][i][j], want, 1e-12, 'grid point')
      end
    end
  end
  tester:assertTensorEq(g:forward(T[2]), grid[2], 1e-15, 'one matrix')
  tester:assert(nn.Jacobian.testJacobian(g, T) < 1e-6, 'Jacobian')
  tester:assertErrorPattern(function() nn.AffineGridGeneratorBHWD(1, 4) end, 'height to be an integer > 1')
  tester:assertErrorPattern(function() g:forward(torch.randn(2, 3, 3)) end, 'AffineGridGeneratorBHWD.*2 x 3')
end

function tests.bilinearSamplerBHWD()
  local s = nn.BilinearSamplerBHWD():double()
  local img = sins(2, 4, 5, 3)
  local grid = coss(2, 3, 4, 2):mul(1.2)  -- some points fall outside the image
  tester:assertTensorEq(s:forward({ img, grid }), stn_sample(img, grid), 1e-12, 'stnbhwd values')
  -- the identity transform reproduces the image
  local id = nn.AffineGridGeneratorBHWD(4, 5):double():forward(torch.DoubleTensor({ { 1, 0, 0 }, { 0, 1, 0 } }):view(1, 2, 3)
    :expand(2, 2, 3):contiguous())
  tester:assertTensorEq(s:forward({ img, id }), img, 1e-12, 'identity')
  tester:assertTensorEq(s:forward({ img[2], grid[2] }), stn_sample(img, grid)[2], 1e-12, 'one sample')
  -- gradients to images and grids, by Torch7's backward and against finite differences (grid
  -- points away from pixel edges, where the map is smooth)
  local im, sm = sins(1, 3, 4, 2), coss(1, 2, 3, 2):mul(0.7)
  tester:assert(torch.autograd.gradcheck(function(a, b) return nn.BilinearSamplerBHWD():forward({ a, b }) end,
    { im:clone():requiresGrad(), sm:clone():requiresGrad() }), 'gradcheck')
  local go = coss(1, 2, 3, 2)
  s:forward({ im, sm })
  local gi = s:backward({ im, sm }, go)
  local ar, br = im:clone():requiresGrad(), sm:clone():requiresGrad()
  torch.cmul(s({ ar, br }), go):sum():backward()
  tester:assertTensorEq(gi[1], ar.grad, 1e-12, 'Torch7 image gradient')
  tester:assertTensorEq(gi[2], br.grad, 1e-12, 'Torch7 grid gradient')
  tester:assertErrorPattern(function() s:forward({ img, grid:narrow(4, 1, 1) }) end, 'BilinearSamplerBHWD.*x 2')
  tester:assertErrorPattern(function() s:forward(img) end, 'BilinearSamplerBHWD.*{images, grids}')
end

tester:add(tests)
tester:run()
