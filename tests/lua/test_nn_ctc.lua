-- nn.functional.ctcLoss and nn.CTCCriterion (nn/functional_ctc.lua, nn/CTCCriterion.lua): values
-- and gradients against PyTorch 1.13, against a brute-force sum over every alignment, and finite
-- differences in f64; padded and concatenated targets, repeated labels, an impossible alignment
-- with and without zeroInfinity, every reduction, the criterion, errors.
require 'nn'
dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/device/nn_device.lua')  -- TOCHA_TEST_DEVICE
local tester = torch.Tester()
local tests = torch.TestSuite()
local F = nn.functional
local D = torch.DoubleTensor

-- The scores the PyTorch constants were computed from, z = 2 sin(1.3 t + 0.7 n + 2.1 c) (t, n, c
-- counting from 0; logProbs = logSoftmax(z)), and the weights ((5 i) mod 7 - 3) / 2 of
-- sum(w * loss) whose gradient 'none' checks. Gradients are compared in z: PyTorch's ctc_loss
-- backward returns the gradient in the logits behind a log_softmax rather than in log_probs
-- (PyTorch issues 52241, 82545), which agrees with the true gradient only through the
-- log_softmax; Tocha's is the true gradient in logProbs (Note [CTC by recorded ops]).
local function logits(T, N, C)
  local z = D(T, N, C)
  for t = 1, T do for n = 1, N do for c = 1, C do
    z[t][n][c] = math.sin(1.3 * (t - 1) + 0.7 * (n - 1) + 2.1 * (c - 1)) * 2
  end end end
  return z
end
local function weights(n)
  local w = D(n)
  for i = 0, n - 1 do w[i + 1] = ((i * 5) % 7 - 3) / 2 end
  return w
end

-- PyTorch 1.13's ctc_loss (float64; its 0-based classes + 1; grad in z). A: T, N, C = 6, 3, 5,
-- targets {{3, 4, 4}, {5, 3}, {2}} (a repeat), inputLengths {6, 5, 3}. B: 5, 3, 4 with blank = 4,
-- targets {{1, 2, 1}, {}, {2, 2}}, inputLengths {5, 4, 5}. C: 5, 2, 3, targets {{2, 3}, {2, 2, 2}}
-- with inputLengths {5, 4}: the second needs 5 steps (Czero: zeroInfinity, Cinf3: without).
local PT = {
  A = {
    none = { value = {13.0029953257, 6.34257268951, 4.41024049204}, grad = {0.344371539782, -0.631317746104,
        1.02365094488, -0.116165786304, -0.620538952257, 0.182220677232, 0.172396273508, 0.0123655479804,
        0.32825562184, -0.69523812056, -0, 0, 0, 0, 0, 0.0368154586837, -0.0591021888751, 0.0724325675665,
        0.00706989555325, -0.0572157329284, -0.38005712762, 0.0144487931826, -0.0296680634328, 0.451018691827,
        -0.0557422939565, -0, -0, 0, 0, 0, 0.00585080177022, -0.0239289458504, -0.0847035053552,
        0.126707391463, -0.0239257420276, -0.0323196366433, 0.0254006299006, -0.0467254761868,
        0.0840699664118, -0.0304254834824, -0, -0, 0, 0, 0, 0.626987883506, -0.0995244216209, -1.21077227108,
        0.786107279347, -0.102798470154, -0.00652872035605, 0.278831636979, -0.526900947873, 0.0169460674852,
        0.237651963765, 0, 0, 0, 0, 0, 0.894160837647, -0.660131362978, -0.126610628512, 0.564333163045,
        -0.671752009201, -0.568654484918, 0.461377194874, -0.38287662286, 0.0311570598768, 0.458996853027, 0,
        0, 0, 0, 0, 0.160191548075, -0.549262181708, -0.0186624159941, 0.944489467231, -0.536756417604, 0, 0,
        0, 0, 0, 0, 0, 0, 0, 0} },
    sum = {23.7558085072},
    mean = { value = {3.97195287067}, grad = {-0.0255090029468, 0.0467642774892, -0.0758259959173,
        0.00860487305959, 0.0459658483154, 0.0303701128719, 0.0287327122513, 0.00206092466341,
        0.0547092703066, -0.115873020093, -0.172285518772, 0.0023527081334, 0.00602532621866, 0.153675212501,
        0.0102322719195, -0.00272707101361, 0.00437793991667, -0.0053653753753, -0.000523695966908,
        0.00423820243914, -0.0633428546034, 0.0024081321971, -0.00494467723881, 0.0751697819712,
        -0.00929038232609, -0.211732982541, -0.0190461711203, 0.131120721079, 0.0940170243063,
        0.00564140827574, -0.00043339272372, 0.00177251450744, 0.00627433373001, -0.00938573270096,
        0.00177227718723, -0.00538660610722, 0.00423343831677, -0.00778757936446, 0.0140116610686,
        -0.00507091391374, -0.00382476643193, -0.29325651941, 0.260090122806, 0.00853517162349,
        0.0284559914128, -0.0464435469264, 0.00737217937933, 0.0896868348947, -0.0582301688405,
        0.00761470149289, -0.00108812005934, 0.0464719394964, -0.0878168246455, 0.00282434458087,
        0.0396086606276, 0, 0, 0, 0, 0, -0.066234136122, 0.0488986194799, 0.00937856507499, -0.0418024565218,
        0.049759408089, -0.0947757474863, 0.0768961991457, -0.0638127704766, 0.0051928433128, 0.0764994755045,
        0, 0, 0, 0, 0, -0.0118660405981, 0.0406860875339, 0.00138240118475, -0.0699621827579, 0.0397597346373,
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0} },
  },
  B = {
    none = { value = {8.35347426694, 7.90175123864, 5.60470668777}, grad = {0.582980520657, -1.07676925725,
        -0.0335202632885, 0.527308999878, 0.384129960949, 0.206959239063, 0.014844661944, -0.605933861957, 0,
        0, 0, -0, 0.257714418798, -0.0074572156047, -0.0249821071845, -0.225275096009, 0.464070676119,
        0.0146565565888, 0.0637687463092, -0.542495979017, 0, -0, 0, -0, 0.220688722806, 0.0552840269633,
        -0.482625572058, 0.206652822289, 0.0892202985422, 0.0260774508553, 0.798392169865, -0.913689919262, 0,
        -0, 0, -0, 0.0181124412113, 1.29606190091, -1.2998542929, -0.0143200492204, 0.023867305292,
        0.391345730878, 0.561002822125, -0.976215858296, -0, -0, 0, 0, 1.42111045381, -1.19553208154,
        -0.229298404437, 0.00372003215912, 0, 0, 0, 0, -0, 0, 0, 0} },
    sum = {21.8599321933},
    mean = { value = {4.49619866828}, grad = {-0.0431837422709, 0.079760685722, 0.00248298246582,
        -0.0390599259169, 0.128043320316, 0.0689864130211, 0.00494822064801, -0.201977953986, 0.0788411453453,
        0.00412445958364, 0.00310807099193, -0.0860736759208, -0.019089956948, 0.000552386341089,
        0.00185052645811, 0.0166870441488, 0.154690225373, 0.00488551886295, 0.0212562487697, -0.180831993006,
        0.0489751148921, -0.00542403497031, 0.0666890205165, -0.110240100438, -0.0163473128005,
        -0.00409511310839, 0.0357500423747, -0.0153076164658, 0.0297400995141, 0.00869248361844,
        0.266130723288, -0.304563306421, 0.00406929021691, -0.115638273179, 0.142182930118, -0.0306139471567,
        -0.00134166231195, -0.0960045852525, 0.0962855031778, 0.0010607443867, 0.00795576843068,
        0.130448576959, 0.187000940708, -0.325405286099, -0.00402320802514, -0.0158228998771, 0.0197079703412,
        0.000138137561051, -0.105267441023, 0.0885579319656, 0.0169850669954, -0.000275557937712, 0, 0, 0, 0,
        -0.121719443271, 0.0815511490699, 0.00304475214064, 0.0371235420605} },
  },
  Czero = {
    none = { value = {2.00007356082, 0}, grad = {-0.1850124844, 0.22363419131, -0.0386217069091, 0, 0, 0,
        0.00158567127383, 0.0230429860859, -0.0246286573597, 0, 0, 0, 0.0152966940878, -0.0261825603891,
        0.0108858663013, 0, 0, 0, -0.0217781465606, -0.101253232459, 0.123031379019, 0, 0, 0, 0.17031103844,
        -1.22651006413, 1.05619902569, 0, 0, 0} },
    sum = {2.00007356082},
    mean = { value = {0.500018390205}, grad = {0.0308354140667, -0.0372723652183, 0.00643695115151, 0, 0, 0,
        -0.000264278545638, -0.00384049768098, 0.00410477622662, 0, 0, 0, -0.00254944901463, 0.00436376006485,
        -0.00181431105022, 0, 0, 0, 0.00362969109343, 0.0168755387431, -0.0205052298366, 0, 0, 0,
        -0.0283851730733, 0.204418344022, -0.176033170949, 0, 0, 0} },
  },
  Cinf3 = {
    none = {2.00007356082, math.huge},
    sum = {math.huge},
    mean = {math.huge},
  },
}
local CASES = {
  A = { T = 6, N = 3, C = 5, targets = { { 3, 4, 4 }, { 5, 3, 1 }, { 2, 1, 1 } }, il = { 6, 5, 3 }, tl = { 3, 2, 1 } },
  B = { T = 5, N = 3, C = 4, targets = { { 1, 2, 1 }, { 3, 3, 3 }, { 2, 1, 2 } }, il = { 5, 4, 5 }, tl = { 3, 0, 2 },
        blank = 4 },
  Czero = { T = 5, N = 2, C = 3, targets = { { 2, 3, 1 }, { 2, 2, 2 } }, il = { 5, 4 }, tl = { 2, 3 }, zeroInfinity = true },
  Cinf3 = { T = 5, N = 2, C = 3, targets = { { 2, 3, 1 }, { 2, 2, 2 } }, il = { 5, 4 }, tl = { 2, 3 } },
}

local function near(a, expected, tol, what)
  if type(a) == 'number' then a = D{ a } end
  tester:assertTensorEq(a:detach():contiguous():view(-1), D(expected), tol or 1e-10, what)
end
local function gradcheck(f, inputs, what)
  local ok, err = pcall(torch.autograd.gradcheck, f, inputs)
  tester:assert(ok and err == true, (what or '') .. ': ' .. tostring(err))
end
local function opts(c, r) return { blank = c.blank, zeroInfinity = c.zeroInfinity, reduction = r } end
local function run(c, lp, r) return F.ctcLoss(lp, torch.LongTensor(c.targets), c.il, c.tl, opts(c, r)) end

function tests.againstPyTorch()
  for _, name in ipairs({ 'A', 'B', 'Czero' }) do
    local c, ref = CASES[name], PT[name]
    local z = logits(c.T, c.N, c.C):requiresGrad()
    local none = run(c, z:logSoftmax(3), 'none')
    near(none, ref.none.value, 1e-10, name .. ' none')
    near(torch.autograd.grad({ torch.cmul(none, weights(c.N)):sum() }, { z })[1], ref.none.grad, 1e-10, name .. ' none gradient')
    near(run(c, z:logSoftmax(3), 'sum'), ref.sum, 1e-10, name .. ' sum')
    local mean = run(c, z:logSoftmax(3), 'mean')
    near(mean, ref.mean.value, 1e-10, name .. ' mean')
    near(torch.autograd.grad({ mean }, { z })[1], ref.mean.grad, 1e-10, name .. ' mean gradient')
    local lp = z:detach():logSoftmax(3)
    -- without autograd the reductions are Lua numbers (Note [Functional losses])
    tester:asserteq(type(run(c, lp, 'sum')), 'number')
    near(run(c, lp, 'mean'), ref.mean.value, 1e-10)
    -- float32 and the default 'mean'
    near(F.ctcLoss(lp:float(), torch.LongTensor(c.targets), c.il, c.tl, { blank = c.blank,
      zeroInfinity = c.zeroInfinity }), ref.mean.value, 1e-5, name .. ' float32')
  end
end

-- The same losses from the 1-D concatenation of the targets and from lengths as LongTensors.
function tests.concatenatedTargets()
  local c = CASES.A
  local lp = logits(c.T, c.N, c.C):logSoftmax(3)
  local flat = torch.LongTensor{ 3, 4, 4, 5, 3, 2 }
  near(F.ctcLoss(lp, flat, torch.LongTensor(c.il), torch.IntTensor(c.tl), 'none'), PT.A.none.value, 1e-10)
  near(F.ctcLoss(lp, flat:int(), c.il, c.tl, { reduction = 'sum' }), PT.A.sum, 1e-10)
end

-- An impossible alignment costs +inf and, like PyTorch, gives its sample a NaN gradient; the
-- other samples are unaffected. With zeroInfinity (PT.Czero above) both are 0.
function tests.impossibleAlignment()
  local c = CASES.Cinf3
  local z = logits(c.T, c.N, c.C):requiresGrad()
  local lp = z:logSoftmax(3)
  near(run(c, lp, 'none'):narrow(1, 1, 1), { PT.Cinf3.none[1] }, 1e-10)
  tester:asserteq(run(c, lp, 'none')[2], math.huge)
  tester:asserteq(PT.Cinf3.sum[1], math.huge)
  tester:asserteq(run(c, lp, 'sum'):item(), math.huge)
  tester:asserteq(run(c, lp, 'mean'):item(), math.huge)
  local g = torch.autograd.grad({ run(c, lp, 'none'):sum() }, { z })[1]
  -- sample 1's gradient is PyTorch's (Czero's rows for sample 1 are the same loss's); sample 2's
  -- is not finite (NaN, or +-inf next to the end) through its input length (4 steps) and 0 after,
  -- as PyTorch's (NaN)
  local ref = D(PT.Czero.none.grad):view(c.T, c.N, c.C)
  tester:assertTensorEq(g:select(2, 1), ref:select(2, 1):div(weights(2)[1]), 1e-10, 'the possible sample')
  local g2 = g:select(2, 2)
  tester:asserteq(torch.isfinite(g2:narrow(1, 1, 4)):sum(), 0, 'no finite gradient for the impossible sample')
  tester:assertTensorEq(g2:narrow(1, 5, 1), torch.zeros(1, c.C):double(), 0)
  tester:asserteq(g:select(2, 1):ne(g:select(2, 1)):sum(), 0)
  -- inputs shorter than the targets, and an input of length 0
  tester:asserteq(F.ctcLoss(logits(3, 1, 3), torch.LongTensor{ { 2, 3, 2, 3 } }, { 3 }, { 4 }, 'sum'), math.huge)
  tester:asserteq(F.ctcLoss(logits(3, 1, 3), torch.LongTensor{ { 2 } }, { 0 }, { 1 },
    { reduction = 'sum', zeroInfinity = true }), 0)
  tester:asserteq(F.ctcLoss(logits(3, 1, 3), torch.LongTensor{ { 2 } }, { 0 }, { 0 }, 'sum'), 0)
end

-- -log of the sum, over every path of T labels whose collapse (repeats merged, blanks dropped) is
-- the target, of the path's probability.
local function brute_force(lp, target, blank)
  local T, C = lp:size(1), lp:size(2)
  local total = 0
  local path = {}
  local function rec(t, logp)
    if t > T then
      local out, prev = {}, nil
      for i = 1, T do
        if path[i] ~= prev and path[i] ~= blank then out[#out + 1] = path[i] end
        prev = path[i]
      end
      if #out == #target then
        for i = 1, #out do if out[i] ~= target[i] then return end end
        total = total + math.exp(logp)
      end
      return
    end
    for c = 1, C do path[t] = c rec(t + 1, logp + lp[t][c]) end
  end
  rec(1, 0)
  return -math.log(total)
end

function tests.againstBruteForce()
  local lp = logits(6, 3, 3)
  local cases = { { { 2, 2 }, 1 }, { { 3, 2, 3 }, 1 }, { {}, 1 }, { { 1, 1 }, 3 }, { { 3 }, 2 } }
  for i, case in ipairs(cases) do
    local target, blank = case[1], case[2]
    for n = 1, 3 do
      local T = 7 - n  -- 6, 5, 4 steps
      local x = lp:select(2, n):narrow(1, 1, T)
      local padded = torch.LongTensor{ { target[1] or 2, target[2] or 2, target[3] or 2 } }
      local l = F.ctcLoss(lp:narrow(2, n, 1), padded, { T }, { #target }, { blank = blank, reduction = 'sum' })
      tester:assertalmosteq(l, brute_force(x, target, blank), 1e-10, 'case ' .. i .. ' sample ' .. n)
    end
  end
  -- one sample without a batch dim (T x C, 1-D target, number lengths): a 0-dim loss under 'none'
  local one = F.ctcLoss(lp:select(2, 1), torch.LongTensor{ 3, 2, 3 }, 6, 3, 'none')
  tester:asserteq(one:dim(), 0)
  tester:assertalmosteq(one:item(), brute_force(lp:select(2, 1), { 3, 2, 3 }, 1), 1e-10)
end

function tests.gradcheck()
  torch.manualSeed(11)
  local targets = torch.LongTensor{ { 2, 2, 3 }, { 4, 1, 1 }, { 3, 4, 2 } }
  for _, r in ipairs({ 'none', 'sum', 'mean' }) do
    -- differentiate through logSoftmax so that the log-probabilities stay normalized
    gradcheck(function(z) return F.ctcLoss(z:logSoftmax(3), targets, { 7, 6, 5 }, { 3, 1, 2 }, r) end,
      { torch.randn(7, 3, 4):double():requiresGrad() }, r)
  end
  gradcheck(function(z) return F.ctcLoss(z, targets, { 7, 3, 5 }, { 3, 1, 3 }, { reduction = 'sum', zeroInfinity = true }) end,
    { torch.randn(7, 3, 4):double():requiresGrad() }, 'raw scores, an impossible sample zeroed')
end

-- The criterion's gradInput is the gradient in logProbs; carried back through the logSoftmax (by
-- autograd, with gradInput as the incoming gradient) it is PyTorch's gradient in z.
local function through_log_softmax(z, gi)
  local zz = z:clone():requiresGrad()
  return torch.autograd.grad({ zz:logSoftmax(3) }, { zz }, { gi })[1]
end

function tests.criterion()
  local c = CASES.A
  local z = logits(c.T, c.N, c.C)
  local lp = z:logSoftmax(3)
  local target = { torch.LongTensor(c.targets), torch.LongTensor(c.il), torch.LongTensor(c.tl) }
  local crit = nn.CTCCriterion()
  tester:assertalmosteq(crit:forward(lp, target), PT.A.mean.value[1], 1e-10)
  near(through_log_softmax(z, crit:backward(lp, target)), PT.A.mean.grad, 1e-10, 'gradInput')
  local sum = nn.CTCCriterion(1, 'sum')
  tester:assertalmosteq(sum:forward(lp, target), PT.A.sum[1], 1e-10)
  local b = CASES.B
  local zb = logits(b.T, b.N, b.C)
  local tb = { torch.LongTensor(b.targets), b.il, b.tl }
  local crit_b = nn.CTCCriterion(4)
  tester:assertalmosteq(crit_b:forward(zb:logSoftmax(3), tb), PT.B.mean.value[1], 1e-10)
  near(through_log_softmax(zb, crit_b:backward(zb:logSoftmax(3), tb)), PT.B.mean.grad, 1e-10, 'blank 4 gradInput')
  local zc = CASES.Czero
  local crit_z = nn.CTCCriterion(1, 'mean', true)
  tester:assertalmosteq(crit_z:forward(logits(zc.T, zc.N, zc.C):logSoftmax(3), { torch.LongTensor(zc.targets), zc.il, zc.tl }),
    PT.Czero.mean.value[1], 1e-10)
  -- through autograd: the loss of crit(x, t) backpropagates to the scores
  local x = z:clone():requiresGrad()
  crit(x:logSoftmax(3), target):backward()
  near(x.grad, PT.A.mean.grad, 1e-10, 'crit(x, t):backward()')
  tester:assertErrorPattern(function() nn.CTCCriterion(1, 'avg') end, "nn.CTCCriterion.*'mean', 'sum' or 'none'")
  tester:assertErrorPattern(function() nn.CTCCriterion(0) end, 'nn.CTCCriterion.*blank')
  tester:assertErrorPattern(function() crit:forward(lp, torch.LongTensor(c.targets)) end,
    'nn.CTCCriterion.*{targets, inputLengths, targetLengths}')
  tester:assert(tostring(crit):match('nn.CTCCriterion'))
end

function tests.errors()
  local lp = logits(5, 2, 4)
  local tg = torch.LongTensor{ { 2, 3 }, { 4, 2 } }
  local function err(pattern, ...)
    local a = { ... }
    tester:assertErrorPattern(function() F.ctcLoss(unpack(a)) end, 'ctcLoss.*' .. pattern)
  end
  err('target 2 of sample 1 is the blank %(1%)', lp, torch.LongTensor{ { 2, 1 }, { 4, 2 } }, { 5, 5 }, { 2, 2 })
  err('target 1 of sample 2 is 5, outside the classes 1..4', lp, torch.LongTensor{ { 2, 3 }, { 5, 2 } }, { 5, 5 }, { 2, 2 })
  err('inputLengths%[2%] = 6 exceeds the 5 time steps', lp, tg, { 5, 6 }, { 2, 2 })
  err('targetLengths%[1%] = 3 is longer than the targets %(2%)', lp, tg, { 5, 5 }, { 3, 2 })
  err('targetLengths sum to more than the 3 targets', lp, torch.LongTensor{ 2, 3, 4 }, { 5, 5 }, { 2, 2 })
  err('inputLengths must hold 2 lengths', lp, tg, { 5 }, { 2, 2 })
  err('targetLengths%[2%] must be an integer >= 0', lp, tg, { 5, 5 }, { 2, -1 })
  err('logProbs of size T x N x C', lp:view(5, 2, 2, 2), tg, { 5, 5 }, { 2, 2 })
  err('targets of size 3x2 must have 2 rows', lp, torch.LongTensor(3, 2):fill(2), { 5, 5 }, { 2, 2 })
  err('targets must be an integer tensor', lp, tg:double(), { 5, 5 }, { 2, 2 })
  err('blank must be a class in 1..4', lp, tg, { 5, 5 }, { 2, 2 }, { blank = 0 })
  err("reduction must be 'mean', 'sum' or 'none'", lp, tg, { 5, 5 }, { 2, 2 }, 'batchmean')
  err('logProbs.*floating', lp:long(), tg, { 5, 5 }, { 2, 2 })
  err('logProbs must be float or double', lp:half(), tg, { 5, 5 }, { 2, 2 })
end

-- Case A in float32 on a device (`to` moves a tensor there): values and gradients against PyTorch,
-- targets and lengths on either device, padded and concatenated targets. The case runs on the CPU
-- too (tests.float32Case), so that its own expectations are checked where there is no GPU.
-- Note [CTC device case]: PyTorch's constants are the losses of logSoftmax(z) and its gradients in
-- z (see logits above), so the case feeds z:logSoftmax(3) and differentiates in z; an earlier
-- version fed the raw scores z as logProbs and compared their gradient with PyTorch's gradient in
-- z, which only ever ran on a GPU and failed there by exactly what the CPU gives for it (14.6 in
-- the losses, 0.26 in the gradient): the test, not the CUDA path, was wrong.
local function float32_case(to, where)
  local c = CASES.A
  local z = to(logits(c.T, c.N, c.C):float()):requiresGrad()
  local function cpu(t) return t:detach():cpu():double() end
  local l = F.ctcLoss(z:logSoftmax(3), to(torch.LongTensor(c.targets)), to(torch.LongTensor(c.il)), c.tl, 'none')
  tester:assert(l:isCuda() == z:isCuda(), where .. ' none: the loss is on the input\'s device')
  near(cpu(l), PT.A.none.value, 1e-4, where .. ' none')
  local w = to(weights(c.N):float())
  near(cpu(torch.autograd.grad({ torch.cmul(l, w):sum() }, { z })[1]), PT.A.none.grad, 1e-4, where .. ' none gradient')
  local mean = F.ctcLoss(z:logSoftmax(3), torch.LongTensor(c.targets), c.il, c.tl)
  near(cpu(mean), PT.A.mean.value, 1e-4, where .. ' mean')
  near(cpu(torch.autograd.grad({ mean }, { z })[1]), PT.A.mean.grad, 1e-4, where .. ' mean gradient')
  local flat = to(torch.LongTensor{ 3, 4, 4, 5, 3, 2 })
  near(cpu(F.ctcLoss(z:logSoftmax(3), flat, c.il, to(torch.IntTensor(c.tl)), { reduction = 'sum' })), PT.A.sum,
    1e-4, where .. ' concatenated sum')
  -- the gradient in logProbs themselves (Tocha's, not PyTorch's) equals the f64 CPU one
  local lp64 = logits(c.T, c.N, c.C):logSoftmax(3):requiresGrad()
  local g64 = torch.autograd.grad({ F.ctcLoss(lp64, torch.LongTensor(c.targets), c.il, c.tl) }, { lp64 })[1]
  local lp = to(logits(c.T, c.N, c.C):float():logSoftmax(3)):requiresGrad()
  local g = torch.autograd.grad({ F.ctcLoss(lp, torch.LongTensor(c.targets), c.il, c.tl) }, { lp })[1]
  tester:assertTensorEq(cpu(g), g64, 1e-4, where .. ' mean gradient in logProbs')
end

function tests.float32Case() float32_case(function(t) return t end, 'CPU') end

-- CUDA matches the CPU and PyTorch (values and gradients).
function tests.cuda()
  if not torch.cuda.isAvailable() then return end
  float32_case(function(t) return t:cuda() end, 'CUDA')
end

tester:add(tests):run()
