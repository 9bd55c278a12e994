-- torch.distributions' reparameterized gamma draws (gamma_grad.lua; rsample in gamma.lua): the
-- implicit gradient dx/dalpha of standardGammaGrad against mpmath, PyTorch 1.13 and finite
-- differences of torch.special.gammainc; Monte-Carlo checks of the pathwise gradients of Gamma,
-- Chi2, Beta and Dirichlet draws in float and double; argument errors; CUDA against CPU.
local H = dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/distributions_check.lua')
local D = torch.distributions
local tester = torch.Tester()
local tests = torch.TestSuite()
local T = torch.DoubleTensor

-- The grid: alpha x the quantiles of Gamma(alpha, 1) at probabilities 1e-6, 0.01, 0.1, 0.5, 0.9,
-- 0.99 and 1 - 1e-6 (floored at 1e-300, where tiny alphas put most of their mass; repeated points
-- dropped), computed with /usr/bin/python3. MPMATH: -(dP/dalpha) / f with mpmath 1.2.1 at 40
-- digits (mp.diff of the regularized gammainc). PYTORCH: PyTorch 1.13's
-- torch._standard_gamma_grad(alpha, x) in float64. FD: PyTorch 1.13's torch.special.gammainc
-- (float64) differentiated in alpha by Richardson-extrapolated central differences (h = alpha/1e3
-- and alpha/2e3), divided by the density computed with mpmath.
local ALPHA = {
  0.001, 0.001, 0.001, 0.001, 0.01, 0.01, 0.01, 0.01, 0.01, 0.01, 0.01, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1,
  0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 2.5, 2.5, 2.5, 2.5, 2.5, 2.5, 2.5,
  5.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0, 9.9, 9.9, 9.9, 9.9, 9.9, 9.9, 9.9, 10.5, 10.5, 10.5, 10.5, 10.5, 10.5,
  10.5, 20.0, 20.0, 20.0, 20.0, 20.0, 20.0, 20.0, 50.0, 50.0, 50.0, 50.0, 50.0, 50.0, 50.0, 200.0, 200.0,
  200.0, 200.0, 200.0, 200.0, 200.0, 1000.0, 1000.0, 1000.0, 1000.0, 1000.0, 1000.0, 1000.0, 10000.0,
  10000.0, 10000.0, 10000.0, 10000.0, 10000.0, 10000.0
}
local X = {
  1e-300, 9.821659644066881e-47, 2.4259428385578437e-05, 5.120025083764955, 1e-300, 5.660738147061947e-201,
  5.6607381470619397e-101, 4.465535018910355e-31, 1.5035936230702948e-05, 0.26505255025158186,
  7.151253478084882, 6.0730483624079264e-61, 6.073048362407899e-21, 6.073048362743184e-11,
  0.0005933911044602261, 0.26615455373883784, 1.5884778179295045, 9.45702706045744, 7.853981633978594e-13,
  7.854392895485099e-05, 0.007895387046715613, 0.2274682115597864, 1.3527717270477075, 3.317448300510607,
  11.964063488439734, 1.0000005000003334e-06, 0.010050335853501442, 0.10536051565782631,
  0.6931471805599453, 2.302585092994046, 4.605170185988091, 13.815510557935518, 0.006448080103248548,
  0.27714903836413857, 0.8051539934811616, 2.1757300955477636, 4.61817844989056, 7.543136234694494,
  17.94409343980521, 0.16906300162147725, 1.279106080093603, 2.4325910259626644, 4.670908882795984,
  7.9935895860526305, 11.604625579477178, 23.43152342335784, 1.2463926613901974, 4.06705619819935,
  6.141916541469937, 9.568736046249812, 14.085367956287088, 18.645969539947135, 32.536710756967054,
  1.4330576988246986, 4.4485989710386065, 6.619798987697652, 10.168613781773963, 14.807544718091366,
  19.466086341758032, 33.573254366197, 5.36398658618165, 11.08213062648758, 14.525261465272754,
  19.667672423305667, 25.90252860665876, 31.84536987578223, 48.826478707485336, 23.25066535794659,
  35.0324474626999, 41.179067906178574, 49.66706461799423, 59.24900190553105, 67.90336158551338,
  91.06338855971308, 139.8184115377329, 168.57765670053308, 182.1037126176844, 199.66676561246567,
  218.3244925272887, 234.36224918701825, 274.55761900238383, 856.8146512793919, 927.9081597966425,
  959.6939327288333, 999.6666864269652, 1040.73430801369, 1075.032832086435, 1157.577911008724,
  9531.835117189807, 9768.836856696591, 9872.060875049736, 9999.666668642047, 10128.367373674177,
  10234.104379158054, 10482.561164638257
}
local MPMATH = {
  6.901999559664034e-295, 1.0348231948429884e-41, 0.2438412449287604, 856.9061462198943,
  6.90214642440345e-296, 2.6069123631719103e-196, 1.3034792358951509e-96, 3.095636740913871e-27,
  0.015854423025492455, 34.842399829111045, 91.29303120987623, 8.394779309290412e-58,
  2.8012950579654435e-18, 1.4029239952888143e-08, 0.04159774236484447, 3.7663252117377675,
  7.9356013008565665, 11.735816137920638, 4.383947338206783e-11, 0.0014905869250994661,
  0.07748928120663169, 0.8583674447437152, 2.144764025860977, 3.014830927649921, 4.351301833618935,
  1.4238308881371554e-05, 0.05076209641633032, 0.29996020805967083, 0.9680448304420445, 1.7351460060823989,
  2.2873696406719857, 3.270780014941891, 0.0158854859241791, 0.2896597699711515, 0.5727532091934064,
  0.9959193767730197, 1.4299107264993554, 1.7630125911371615, 2.4335331443239028, 0.12135661862078007,
  0.48337492304791596, 0.7052212240019369, 0.9990930349426108, 1.2952610747929894, 1.5287703192257869,
  2.0261305771563367, 0.3028623221822789, 0.6305082049416173, 0.7933466342314902, 0.9997834443006904,
  1.2067584946677106, 1.3724302325461994, 1.7380939595186509, 0.3191805959906599, 0.6411467989696026,
  0.7995019212846023, 0.9998082537746483, 1.2005907053952813, 1.3614567909508557, 1.717350449107321,
  0.4861175286913835, 0.7397442875125603, 0.8556646993510344, 0.9999488037663099, 1.1443591343393937,
  1.260954442433086, 1.5241469051963514, 0.6677196575300017, 0.8354183355597575, 0.9091127702015047,
  0.9999919830850547, 1.0908908780630497, 1.164691425477237, 1.333932199781984, 0.8323599421452602,
  0.9177366318485736, 0.954656707002115, 0.9999995043687703, 1.0453435161213436, 1.0822701641790138,
  1.1677433815398806, 0.92487644472504, 0.9632157268341668, 0.9797338794100457, 0.9999999802324887,
  1.0202661294638726, 1.0367845443223993, 1.0751276881337226, 0.9762339288834874, 0.988368210683417,
  0.9935921468545164, 0.9999999998024547, 1.0064078532341088, 1.0116317920266078, 1.023766112444313
}
local PYTORCH = {
  6.901999559664036e-295, 1.0348231948429887e-41, 0.24384124492875864, 873.1653043356857,
  6.90214642440349e-296, 2.6069123631719203e-196, 1.3034792358951536e-96, 3.0956367409138734e-27,
  0.01585442302549246, 34.84240248512945, 92.34168527197454, 8.394779309290381e-58, 2.8012950579654392e-18,
  1.4029239952888135e-08, 0.04159774236484446, 3.766325454941981, 7.936473826679848, 11.749964433959203,
  4.383947338206783e-11, 0.0014905869250994666, 0.07748928120663169, 0.8583674474428676,
  2.1448309042514047, 3.0153312342340906, 4.350749993833658, 1.4238308881371552e-05, 0.05076209641633031,
  0.2999602080027128, 0.9680466923945096, 1.7351481446609414, 2.2873038825990553, 3.2688856240848465,
  0.015885485924179106, 0.28965971494570714, 0.5727593528015821, 0.9958980330280316, 1.42983859364262,
  1.7630409489715233, 2.4339716920778294, 0.12135661667212227, 0.4834416786685821, 0.7052411346051644,
  0.9991249317898722, 1.2953539080827607, 1.528969490584975, 2.0264228039182437, 0.30328180348338896,
  0.630638499614242, 0.7933489537398711, 0.9997314406949186, 1.206805189587248, 1.3726911515648135,
  1.7392735981009881, 0.31956534868005754, 0.6412583939641991, 0.7995001993181491, 0.9997610922346882,
  1.2006349856845626, 1.3616943743686496, 1.7184135585620266, 0.4862403021256906, 0.7397592791028234,
  0.8556524414821289, 0.9999338071388607, 1.1443808633216226, 1.2610384306448852, 1.5244841052197253,
  0.6677347556801632, 0.8354156369879557, 0.9091076685806339, 0.9999893743159524, 1.0908972456854351,
  1.1647102043338031, 1.3339976023065967, 0.8323594582154816, 0.9177356607420414, 0.9547191041665369,
  0.9999993348381783, 1.0452835342697948, 1.0822721469846297, 1.167749115468704, 0.9248762726412504,
  0.9632482594754842, 0.9797393995651298, 0.9999999733824014, 1.0202607059455375, 1.0367510013198387,
  1.0751280725485257, 0.97624272021619, 0.9883692504767667, 0.9935923203643392, 0.9999999997337992,
  1.006407680690707, 1.0116307421325401, 1.0237570205418849
}
local FD = {
  6.9019995596675435e-295, 1.0348231948506428e-41, 0.2438412449562086, 856.9061531537873,
  6.902146424370458e-296, 2.606912363168616e-196, 1.3034792358947916e-96, 3.0956367409146923e-27,
  0.015854423025591625, 34.842399829343975, 91.29303109488829, 8.3947793086498e-58, 2.8012950579622464e-18,
  1.402923995289183e-08, 0.04159774236484874, 3.7663252117340336, 7.935601300833501, 11.735816200428719,
  4.3839473378645363e-11, 0.0014905869250977483, 0.07748928120660516, 0.858367444743956, 2.144764025859896,
  3.014830927637747, 4.351301664867017, 1.423830888019137e-05, 0.05076209641626614, 0.2999602080596213,
  0.9680448304419756, 1.7351460060838213, 2.2873696406762907, 3.270779961593435, 0.015885485922501393,
  0.2896597699708542, 0.5727532091936213, 0.9959193767746938, 1.4299107265002404, 1.7630125911357692,
  2.4335331058051923, 0.12135661860096685, 0.48337492304722124, 0.705221224002375, 0.9990930349436905,
  1.2952610747929947, 1.528770319222926, 2.026130562605119, 0.30286232208278796, 0.630508204939276,
  0.7933466342324236, 0.9997834442997053, 1.2067584946688623, 1.3724302325472333, 1.7380939570779528,
  0.31918059587829134, 0.6411467989674948, 0.7995019212863052, 0.9998082537751641, 1.200590705396035,
  1.3614567909521378, 1.717350451904737, 0.486117528282938, 0.7397442875081839, 0.8556649118675046,
  0.9999490720401014, 1.1443594643646458, 1.2609544424368273, 1.5241469025289045, 0.6677196551351555,
  0.8354183458681589, 0.9091127694280857, 0.9999919830156601, 1.0908908789492273, 1.1646914254892,
  1.3339321978221088, 0.8323599270644065, 0.9177366310387531, 0.9546567069766996, 0.9999995041066414,
  1.0453435168566936, 1.0822701651142284, 1.1677433541053948, 0.924875617533205, 0.9632157255994865,
  0.9797338883222474, 0.9999999739879022, 1.0202661378713573, 1.0367845462270535, 1.075126940628199,
  0.9761535977245444, 0.9883682125976962, 0.9935930252991858, 0.9999993758038098, 1.0064087039666842,
  1.0116318715266241, 1.0236883489254338
}

-- |got[i] - expected[i]| <= tol(i) |expected[i]| for the elements of a tensor.
local function rel(got, expected, tol, msg)
  local flat = got:double():contiguous():view(got:nElement())
  tester:asserteq(flat:nElement(), #expected, msg .. ': element count')
  for i = 1, #expected do
    local t = type(tol) == 'function' and tol(i) or tol
    tester:assertle(math.abs(flat[i] - expected[i]), t * math.abs(expected[i]),
      string.format('%s[%d] alpha %g x %g: got %.17g, expected %.17g', msg, i, ALPHA[i], X[i], flat[i], expected[i]))
  end
end

function tests.gradAgainstMpmath()
  -- Observed worst relative error 1e-8 (alpha just above 10, where the asymptotic branch starts).
  rel(D.standardGammaGrad(T(ALPHA), T(X)), MPMATH, 1e-7, 'mpmath')
end

function tests.gradAgainstPytorch()
  -- PyTorch's own approximation error bounds the agreement: its small-x series (x < 0.8) is
  -- within 2e-6 of mpmath on this grid; its fitted rational function and large-alpha
  -- asymptotics elsewhere are off by up to 1.9e-2 (alpha = 1e-3, x = 5.1, a 1e-6 upper tail).
  rel(D.standardGammaGrad(T(ALPHA), T(X)), PYTORCH, function(i) return X[i] < 0.8 and 5e-6 or 2.5e-2 end, 'PyTorch')
end

function tests.gradAgainstFiniteDifferences()
  -- The differences lose digits as alpha grows (P(alpha +- h) cancel): 9e-7 up to alpha = 1e3,
  -- 8e-5 at 1e4.
  rel(D.standardGammaGrad(T(ALPHA), T(X)), FD, function(i) return ALPHA[i] <= 1e3 and 2e-6 or 2e-4 end, 'finite differences')
end

function tests.gradFloat()
  -- Float inputs are computed in double and cast back: against the double result at the
  -- float-rounded inputs, within float rounding (where x and the result are normal floats).
  local af, xf = torch.FloatTensor(ALPHA), torch.FloatTensor(X)
  local gf = D.standardGammaGrad(af, xf)
  tester:asserteq(gf:type(), 'torch.FloatTensor')
  local gd = D.standardGammaGrad(af:double(), xf:double())
  for i = 1, #ALPHA do
    if X[i] > 1e-37 and math.abs(gd[i]) > 1e-37 then
      tester:assertle(math.abs(gf[i] - gd[i]), 2e-7 * math.abs(gd[i]), string.format('float %d: %g vs %g', i, gf[i], gd[i]))
    end
  end
  -- Against mpmath where rounding alpha and x to float changes little (alpha, x exact in float).
  local g = D.standardGammaGrad(torch.FloatTensor({ 0.5, 2, 64, 1024 }), torch.FloatTensor({ 0.25, 3, 60, 1000 }))
  H.close(tester, g, { 0.9080144917641113, 1.321798518177963, 0.9706022769553568, 0.9883494595397677 }, 3e-7, 'float vs mpmath')
end

function tests.gradEdgeCases()
  -- Numbers broadcast against tensors; the result has the parameters' floating type.
  local g = D.standardGammaGrad(T({ 1, 4 }), 2)
  H.close(tester, g, { 1.6316914623497007, 0.7218866452748549 }, 1e-9, 'broadcast (mpmath)')
  -- x = 0 (an underflowed draw) has derivative 0; alpha <= 0 or x < 0 give NaN.
  local e = D.standardGammaGrad(T({ 0.5, 20, -1, 0, 2 }), T({ 0, 0, 1, 1, -1 }))
  tester:asserteq(e[1], 0, 'x = 0, small alpha')
  tester:asserteq(e[2], 0, 'x = 0, large alpha')
  for i = 3, 5 do tester:assert(e[i] ~= e[i], 'NaN for invalid element ' .. i) end
  -- A 2D shape goes through unchanged.
  H.size_is(tester, D.standardGammaGrad(T(2, 3):fill(3), T(2, 3):fill(2.5)), { 2, 3 }, '2D')
end

-- n draws per column: a leaf of size n x #vals whose column j holds vals[j], so that backward
-- gives each draw's own pathwise derivative (one Monte-Carlo sample per element).
local N = 20000
local function leaf(vals, tname)
  return T(vals):type(tname):view(1, #vals):expand(N, #vals):clone():requiresGrad()
end
local TYPES = { 'torch.DoubleTensor', 'torch.FloatTensor' }

function tests.gammaRsampleMean()
  -- E[x] = alpha / rate: d/dalpha = 1 / rate, d/drate = -alpha / rate^2.
  torch.manualSeed(11)
  local alphas, rates = { 0.3, 1, 4, 50 }, { 1, 2, 0.5, 3 }
  for _, tname in ipairs(TYPES) do
    local a, r = leaf(alphas, tname), leaf(rates, tname)
    local x = D.Gamma(a, r):rsample()
    tester:asserteq(x:type(), tname)
    torch.sum(x):backward()
    for j = 1, #alphas do
      H.mc(tester, a.grad:select(2, j), 1 / rates[j], 5, tname .. ' Gamma d mean / d concentration ' .. j)
      H.mc(tester, r.grad:select(2, j), -alphas[j] / rates[j] ^ 2, 5, tname .. ' Gamma d mean / d rate ' .. j)
    end
  end
end

function tests.gammaLogExpectation()
  -- E[log x] = digamma(alpha) for Gamma(alpha, 1), so the pathwise d log x / d alpha averages
  -- to trigamma(alpha) (PyTorch 1.13's torch.polygamma(1, alpha)).
  torch.manualSeed(12)
  local alphas = { 0.3, 1, 4, 50 }
  local trigamma = { 12.245364544940365, 1.6449340676383375, 0.2838229557697153, 0.02020133322669713 }
  for _, tname in ipairs(TYPES) do
    local a = leaf(alphas, tname)
    torch.sum(torch.log(D.Gamma(a, 1):rsample())):backward()
    for j = 1, #alphas do H.mc(tester, a.grad:select(2, j), trigamma[j], 5, tname .. ' d E[log x] / d alpha ' .. j) end
  end
end

function tests.chi2Rsample()
  -- E[x] = df: d/ddf = 1; E[log x] = digamma(df / 2) + log 2: d/ddf = trigamma(df / 2) / 2
  -- (PyTorch 1.13's polygamma).
  torch.manualSeed(13)
  local dfs = { 1, 7 }
  local half_trigamma = { 2.467401101036839, 0.16517887807591952 }
  for _, tname in ipairs(TYPES) do
    local df = leaf(dfs, tname)
    torch.sum(D.Chi2(df):rsample()):backward()
    for j = 1, #dfs do H.mc(tester, df.grad:select(2, j), 1, 5, tname .. ' Chi2 d mean / d df ' .. j) end
    local df2 = leaf(dfs, tname)
    torch.sum(torch.log(D.Chi2(df2):rsample())):backward()
    for j = 1, #dfs do H.mc(tester, df2.grad:select(2, j), half_trigamma[j], 5, tname .. ' Chi2 d E[log x] / d df ' .. j) end
  end
end

function tests.betaRsample()
  -- E[x] = a / (a + b): d/da = b / (a + b)^2, d/db = -a / (a + b)^2. E[log x] = digamma(a) -
  -- digamma(a + b): d/da = trigamma(a) - trigamma(a + b), d/db = -trigamma(a + b) (PyTorch
  -- 1.13's polygamma).
  torch.manualSeed(14)
  local as, bs = { 0.5, 2, 8 }, { 0.5, 3, 1 }
  local dlog_a = { 3.2898681344353404, 0.4236111113371964, 0.015625000000736522 }
  local dlog_b = { -1.6449340676383375, -0.22132295575099345, -0.11751201469488987 }
  for _, tname in ipairs(TYPES) do
    local a, b = leaf(as, tname), leaf(bs, tname)
    torch.sum(D.Beta(a, b):rsample()):backward()
    for j = 1, #as do
      local s = as[j] + bs[j]
      H.mc(tester, a.grad:select(2, j), bs[j] / s ^ 2, 5, tname .. ' Beta d mean / d concentration1 ' .. j)
      H.mc(tester, b.grad:select(2, j), -as[j] / s ^ 2, 5, tname .. ' Beta d mean / d concentration0 ' .. j)
    end
    local a2, b2 = leaf(as, tname), leaf(bs, tname)
    torch.sum(torch.log(D.Beta(a2, b2):rsample())):backward()
    for j = 1, #as do
      H.mc(tester, a2.grad:select(2, j), dlog_a[j], 5, tname .. ' Beta d E[log x] / d concentration1 ' .. j)
      H.mc(tester, b2.grad:select(2, j), dlog_b[j], 5, tname .. ' Beta d E[log x] / d concentration0 ' .. j)
    end
  end
end

function tests.dirichletRsample()
  -- L = sum_j w_j x_j, E[x_j] = c_j / c0: dE[L]/dc_k = (w_k c0 - sum_j w_j c_j) / c0^2.
  torch.manualSeed(15)
  local w = { 1, -2, 3 }
  for _, c in ipairs({ { 0.5, 1, 2 }, { 4, 4, 0.2 } }) do
    for _, tname in ipairs(TYPES) do
      local conc = leaf(c, tname)
      local x = D.Dirichlet(conc):rsample()
      H.size_is(tester, x, { N, 3 }, 'Dirichlet rsample')
      torch.sum(torch.mv(x, T(w):type(tname))):backward()
      local c0, wc = c[1] + c[2] + c[3], w[1] * c[1] + w[2] * c[2] + w[3] * c[3]
      for k = 1, 3 do
        H.mc(tester, conc.grad:select(2, k), (w[k] * c0 - wc) / c0 ^ 2, 5,
          string.format('%s Dirichlet(%g, %g, %g) d E[L] / d c%d', tname, c[1], c[2], c[3], k))
      end
    end
  end
end

function tests.rsampleGradientWiring()
  -- rsample's backward is exactly standardGammaGrad at the drawn standard gamma g = x * rate,
  -- summed over the sample dims (the concentration is expanded), divided by the rate; and
  -- d x / d rate = -x / rate.
  torch.manualSeed(17)
  local a, r = T({ 0.7, 12 }):requiresGrad(), T({ 2, 0.5 }):requiresGrad()
  local x = D.Gamma(a, r):rsample({ 50 })
  torch.sum(x):backward()
  local xd, rd = x:detach(), r:detach():view(1, 2):expand(50, 2)
  local g = torch.cmul(xd, rd)
  local dg = D.standardGammaGrad(a:detach():view(1, 2):expand(50, 2), g)
  tester:assertTensorEq(a.grad, torch.sum(dg / rd, 1):view(2), 1e-10, 'd x / d concentration')
  tester:assertTensorEq(r.grad, torch.sum(-xd / rd, 1):view(2), 1e-10, 'd x / d rate')
end

function tests.sampleIsRsampleWithoutGradient()
  local a = T({ 0.4, 3 }):requiresGrad()
  for _, make in ipairs({ function() return D.Gamma(a, 2) end, function() return D.Chi2(a) end,
                          function() return D.Beta(a, 1.5) end, function() return D.Dirichlet(a) end }) do
    local d = make()
    tester:asserteq(d.hasRsample, true, torch.typename(d) .. ' hasRsample')
    torch.manualSeed(3)
    local s = d:sample({ 5 })
    torch.manualSeed(3)
    local r = d:rsample({ 5 })
    tester:assert(not s:needsGrad(), torch.typename(d) .. ': sample carries no gradient')
    tester:assert(r:needsGrad(), torch.typename(d) .. ': rsample does')
    tester:assertTensorEq(s, r:detach(), 0, torch.typename(d) .. ': same draws for the same seed')
  end
end

function tests.errors()
  H.fails(tester, function() D.standardGammaGrad('a', 1) end, { 'distributions.standardGammaGrad', 'alpha', 'string' }, 'alpha type')
  H.fails(tester, function() D.standardGammaGrad(T({ 1, 2 }), T({ 1, 2, 3 })) end,
    { 'distributions.standardGammaGrad', 'do not broadcast' }, 'shapes')
  H.fails(tester, function() D.standardGamma(2) end, { 'distributions.standardGamma', 'floating tensor', 'number' }, 'number')
  H.fails(tester, function() D.standardGamma(torch.LongTensor({ 2 })) end, { 'distributions.standardGamma', 'floating tensor' }, 'integer')
  -- No second derivatives (PyTorch has none either): an error, not a silently missing term.
  local a = T({ 2 }):requiresGrad()
  H.fails(tester, function() torch.autograd.grad(torch.sum(D.Gamma(a, 1):rsample()), { a }, { createGraph = true }) end,
    { 'distributions.standardGamma', 'second derivatives' }, 'createGraph')
end

function tests.cuda()
  if not torch.cuda.isAvailable() then return end
  for _, tname in ipairs(TYPES) do
    local a, x = T(ALPHA):type(tname), T(X):type(tname)
    local cpu = D.standardGammaGrad(a, x):double()
    local gpu = D.standardGammaGrad(a:cuda(), x:cuda())
    tester:assert(gpu:isCuda(), 'result stays on the GPU')
    local gd = gpu:double():cpu()
    for i = 1, #ALPHA do
      tester:assertle(math.abs(gd[i] - cpu[i]), 1e-9 * math.abs(cpu[i]) + 1e-300, string.format('%s CUDA %d: %g vs %g', tname, i, gd[i], cpu[i]))
    end
    torch.manualSeed(16)
    local c = leaf({ 0.5, 5 }, tname):cuda()
    c:retainGrad()
    torch.sum(D.Gamma(c, 2):rsample()):backward()
    local grad = c.grad:double():cpu()
    for j = 1, 2 do H.mc(tester, grad:select(2, j), 0.5, 5, tname .. ' CUDA Gamma d mean / d concentration ' .. j) end
    local dx = D.Dirichlet(leaf({ 1, 2, 3 }, tname):cuda()):rsample()
    tester:assert(dx:isCuda() and dx:needsGrad(), 'CUDA Dirichlet rsample')
  end
end

tester:add(tests):run()
