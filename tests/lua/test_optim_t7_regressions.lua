-- Regressions from a review of the functional optimizers against Torch7's optim (a5ceed7):
-- lbfgs, cg, lswolfe and polyinterp against values computed by Torch7's own code (ported
-- verbatim to Tocha's tensors, run once; pasted at %.17g), the state keys Torch7 users read
-- after a step, adadelta ignoring a learningRate as Torch7's did, errors that name the optimizer (integer x or df/dx, per-element tensors of the
-- wrong size, lswolfe options, cmaes popsize) and leave no state behind, checkgrad on a
-- non-contiguous x, asgd given x itself as df/dx, and a Logger row refused without writing a
-- header.
require 'optim'
local tester = torch.Tester()
local tests = torch.TestSuite()
local D = torch.DoubleTensor

-- Rosenbrock, minimum 0 at (1, 1).
local function rosen(x)
  local a, b = x[1], x[2]
  local g = x.new(2)
  g[1] = -2 * (1 - a) - 400 * a * (b - a * a)
  g[2] = 200 * (b - a * a)
  return (1 - a) ^ 2 + 100 * (b - a * a) ^ 2, g
end

function tests.lbfgsMatchesTorch7()
  -- Torch7's optim.lbfgs from (-1.2, 1), called twice with one config table (state = config).
  local cfgs = { { maxIter = 5 }, { maxIter = 30, learningRate = 0.5 },
                 { maxIter = 8, nCorrection = 2, lineSearch = optim.lswolfe } }
  local want = {
    { cfg = 1, x = { -0.96791981109612701, 1.0040193895843792 }, nf = 5, flast = 6.4124425469834634, evals = 5, funcEval = 5, nIter = 5, t = 1 },
    { cfg = 1, x = { -0.93329035330997967, 0.90435452529410243 }, nf = 5, flast = 3.9343714652331654, evals = 5, funcEval = 10, nIter = 10, t = 1 },
    { cfg = 2, x = { 0.3833825037880747, 0.04843734306643175 }, nf = 30, flast = 0.7291456775456453, evals = 30, funcEval = 30, nIter = 30, t = 0.5 },
    { cfg = 2, x = { 0.99994583715279306, 0.99988856894679079 }, nf = 30, flast = 1.5534746125059731e-08, evals = 30, funcEval = 60, nIter = 60, t = 0.5 },
    { cfg = 3, x = { -0.78443017540704507, 0.57238511628699562 }, nf = 9, flast = 3.3686233677138109, evals = 10, funcEval = 10, nIter = 8, t = 1 },
    { cfg = 3, x = { -0.1359458547764196, -0.018305441212345331 }, nf = 7, flast = 1.4256992371227095, evals = 10, funcEval = 20, nIter = 14, t = 0.54694515182742953 },
  }
  local xs, k = {}, 0
  for _, w in ipairs(want) do
    local c = cfgs[w.cfg]
    xs[w.cfg] = xs[w.cfg] or D({ -1.2, 1 })
    local x = xs[w.cfg]
    local xr, fh, n = optim.lbfgs(rosen, x, c)
    k = k + 1
    local tag = 'lbfgs case ' .. k
    tester:assert(xr == x, tag .. ': x is updated in place')
    tester:eq(x, D(w.x), 1e-12, tag)
    tester:asserteq(#fh, w.nf, tag .. ': #f')
    tester:assertalmosteq(fh[#fh], w.flast, 1e-12 * math.max(1, w.flast), tag)
    tester:asserteq(n, w.evals, tag .. ': evaluations')
    tester:asserteq(c.funcEval, w.funcEval, tag .. ': state.funcEval')
    tester:asserteq(c.nIter, w.nIter, tag .. ': state.nIter')
    tester:assertalmosteq(c.t, w.t, 1e-12, tag .. ': state.t')
  end
  -- float x: the same iterates to float rounding (Torch7 kept ro/al in doubles, as Lua numbers do)
  local xf = torch.FloatTensor({ -1.2, 1 })
  optim.lbfgs(rosen, xf, { maxIter = 5 })
  tester:eq(xf:double(), D(want[1].x), 1e-4, 'lbfgs on a FloatTensor')
end

function tests.cgMatchesTorch7()
  -- Torch7's optim.cg from (-1.2, 1); no line search fails on these runs, so Tocha's retry
  -- after a failure (optim.cg's doc) does not come in.
  local want = {
    { maxEval = 10, x = { -1.0307358091837231, 1.0699329868111003 }, f = { 24.199999999999996, 6.6315397359235568, 4.2245610758999197, 4.129537972234445 }, evals = 10 },
    { maxEval = 25, x = { -0.28150242701830624, 0.051498040753088253 }, f = { 24.199999999999996, 6.6315397359235568, 4.2245610758999197, 4.129537972234445, 2.9505595338534292, 2.6969474059120109, 2.2434600946579204, 1.7192301673470867 }, evals = 25 },
    { maxEval = 60, x = { 0.63343200144980294, 0.38233435281121392 }, f = { 24.199999999999996, 6.6315397359235568, 4.2245610758999197, 4.129537972234445, 2.9505595338534292, 2.6969474059120109, 2.2434600946579204, 1.7192301673470867, 1.64970049450526, 1.0436065573240125, 1.042628711886908, 0.97817310265695789, 0.67486345638760703, 0.63519917905892109, 0.31866045464272669, 0.31208217407810002, 0.19761335895131094, 0.17009970398159435 }, evals = 60 },
  }
  for _, w in ipairs(want) do
    local x = D({ -1.2, 1 })
    local xr, fh, n = optim.cg(rosen, x, { maxEval = w.maxEval })
    local tag = 'cg maxEval ' .. w.maxEval
    tester:assert(xr == x, tag .. ': x is updated in place')
    tester:eq(x, D(w.x), 1e-11, tag)
    tester:eq(D(fh), D(w.f), 1e-11, tag .. ': f history')
    tester:asserteq(n, w.evals, tag .. ': evaluations')
  end
end

function tests.polyinterpAndLswolfeMatchTorch7()
  -- Torch7's polyinterp (gels + companion-matrix eigenvalues) on random points, with and
  -- without bounds; Tocha finds the real critical points by bisection instead.
  local cases = {
    { pts = { { 0.15958819571341304, 0.34063927735749855, 1.4673164347442362 }, { 0.18045201097607849, -0.63951887484765935, 0.15048456670449084 } }, lo = -1.5, hi = 2.5, t = -1.5, f = -1022613.3162994261 },
    { pts = { { -0.35817743611684966, -2.2553827883125814, -0.41341520033039653 }, { 0.22658869688288397, -0.71228304624844008, 0.065402527142108424 } }, t = -0.34390983626503813 },
    { pts = { { 2.1222914591460951, 0.17079622475128953, -1.8648054651887562 }, { 0.14827718262680459, 0.41219837819626171, -0.15781230095090423 }, { 1.2427153994459021, -1.6926044013065003, -0.19859341879599307 } }, lo = -1.5, hi = 2.5, t = 2.5, f = -4.489804388607646 },
    { pts = { { -1.5692111020942294, 0.93684548771169929, 0.76257581196114599 }, { 1.3787967770064788, -1.0847917734548096, 0.83000531867814886 }, { -1.0406409566216253, 0.83100832926512558, 1.4069052974269778 } }, t = 1.3651530587472909, f = -1.0904125458428355 },
    { pts = { { -1.0067590719036297, -1.1040983502585711, 2.6272131361575459 }, { 0.34000784361700248, 2.2216770827679975, 2.0021921367800468 }, { -0.70280602017588312, 1.58655268806534, 0.12342696566534717 } }, lo = -1.5, hi = 2.5, t = 2.5, f = -19624.985863427173 },
    { pts = { { 0.18896460054347458, 0.12714377830894369, -2.2511149094900342 }, { 0.42791491979857499, -0.93554752725061618, -0.36331190196917429 }, { 0.53731983008600526, -0.28300374852389087, 0.61338783011343923 } }, t = 0.42970803250352813, f = -0.93587344122346039 },
  }
  for i, c in ipairs(cases) do
    local t, f = optim.polyinterp(D(c.pts), c.lo, c.hi)
    tester:assertalmosteq(t, c.t, 1e-9, 'polyinterp case ' .. i)
    if c.f then tester:assertalmosteq(f, c.f, 1e-9 * math.max(1, math.abs(c.f)), 'polyinterp value, case ' .. i) end
  end
  -- Torch7's lswolfe from (-1.2, 1) along -g: a long first step zoomed in, a step accepted at
  -- once, and an extrapolation then a zoom.
  local ls = {
    { t0 = 1, t = 0.00078920738397861507, f = 4.1281383407891576, g = { -0.40759429066892405, 1.7731274075127867 }, evals = 8, x = { -1.0298468880142106, 1.0694502497901182 } },
    { t0 = 0.001, t = 0.001, f = 5.3529115800089642, g = { 42.871566566400062, 23.791328000000036 }, evals = 1, x = { -0.98439999999999994, 1.0880000000000001 } },
    { t0 = 0.05, t = 0.00079482089960558415, f = 4.1294110262600627, g = { 0.81885743088270946, 2.3701910822509831 }, evals = 5, x = { -1.028636614045036, 1.0699442391652914 } },
  }
  for _, w in ipairs(ls) do
    local x = D({ -1.2, 1 })
    local f, g = rosen(x)
    local d = -g
    local fn, gn, xr, t, n = optim.lswolfe(rosen, x, w.t0, d, f, g, g:dot(d))
    local tag = 'lswolfe t0 = ' .. w.t0
    tester:assert(xr == x, tag .. ': x is moved in place')
    tester:assertalmosteq(t, w.t, 1e-12, tag)
    tester:assertalmosteq(fn, w.f, 1e-11, tag)
    tester:eq(gn, D(w.g), 1e-9, tag)
    tester:asserteq(n, w.evals, tag .. ': evaluations')
    tester:eq(x, D(w.x), 1e-12, tag)
  end
end

-- f(x) = sum(x^2)/2 - sum(b x): gradient x - b.
local B = { 0.5, -2 }
local function quad(x)
  local b = x.new(B)
  return x:dot(x) / 2 - b:dot(x), x - b
end

function tests.stateKeysAsTorch7()
  -- After one step from x0 = (1, 1), g0 = (0.5, 3): the buffers Torch7 scripts read.
  local g0 = D({ 0.5, 3 })
  local function step(name, config)
    local x = D({ 1, 1 })
    local xr, fs = optim[name](quad, x, config)
    tester:assert(xr == x, name .. ': x is updated in place')
    tester:asserteq(type(fs), 'table', name .. ': returns a table of f values')
    tester:assertalmosteq(fs[1], quad(D({ 1, 1 })), 1e-15, name .. ': f before the step')
    return x, config
  end
  local _, s = step('sgd', { learningRate = 0.1, momentum = 0.9 })
  tester:asserteq(s.evalCounter, 1) tester:eq(s.dfdx, g0, 0, 'sgd: state.dfdx is the first gradient')
  _, s = step('adam', {})
  tester:asserteq(s.t, 1) tester:eq(s.m, g0 * 0.1, 1e-15) tester:eq(s.v, torch.cmul(g0, g0) * 0.001, 1e-15)
  _, s = step('adamax', {})
  tester:asserteq(s.t, 1) tester:eq(s.m, g0 * 0.1, 1e-15) tester:eq(s.u, g0 + 1e-38, 1e-15)
  _, s = step('adagrad', {})
  tester:asserteq(s.evalCounter, 1) tester:eq(s.paramVariance, torch.cmul(g0, g0), 1e-15)
  _, s = step('adadelta', { rho = 0.5, eps = 1e-2 })
  local pv = torch.cmul(g0, g0) * 0.5
  local delta = torch.cdiv(g0 * math.sqrt(1e-2), torch.sqrt(pv + 1e-2))
  tester:asserteq(s.evalCounter, 1) tester:eq(s.paramVariance, pv, 1e-15)
  tester:eq(s.accDelta, torch.cmul(delta, delta) * 0.5, 1e-15)
  _, s = step('rmsprop', { alpha = 0.5 })
  tester:eq(s.m, torch.cmul(g0, g0) * 0.5, 1e-15)
  _, s = step('nag', { learningRate = 0.1 })
  tester:asserteq(s.evalCounter, 1) tester:eq(s.dfdx, g0 * -0.1, 1e-15) tester:eq(s.x_copy, D({ 1, 1 }) - g0 * 0.1, 1e-15)
  local x, ax
  s = { eta0 = 0.1 }
  x = D({ 1, 1 })
  _, _, ax = optim.asgd(quad, x, s)
  tester:asserteq(s.t, 1) tester:eq(s.ax, x, 0) tester:assert(ax == s.ax, 'asgd returns state.ax')
  tester:asserteq(s.mu_t, 1) tester:assertalmosteq(s.eta_t, 0.1 / (1 + 1e-4 * 0.1) ^ 0.75, 1e-15)
  -- rprop: state.stepsize becomes a tensor (in the config table, as in Torch7); a sign flip
  -- shrinks the step and zeroes state.delta there
  s = { stepsize = 0.6 }
  x = D({ 1, 1 })
  optim.rprop(quad, x, s)
  tester:eq(s.delta, g0, 0) tester:eq(s.stepsize, D({ 0.6, 0.6 }), 0) tester:eq(x, D({ 0.4, 0.4 }), 1e-15)
  optim.rprop(quad, x, s)  -- g = (-0.1, 2.4): the first element flipped
  tester:eq(s.delta, D({ 0, 2.4 }), 1e-15) tester:eq(s.stepsize, D({ 0.3, 0.72 }), 1e-15)
  tester:eq(x, D({ 0.4, 0.4 - 0.72 }), 1e-15)
end

function tests.adadeltaIgnoresLearningRate()
  -- Torch7's adadelta has no learning rate and ignored config.learningRate, which scripts that
  -- switch optimizers on one config table carry ({learningRate = 1e-2} for sgd, then adadelta);
  -- Tocha read it and scaled every update by it
  local xa, xb = D({ 1, 1 }), D({ 1, 1 })
  local ca, cb = { learningRate = 1e-2, weightDecay = 0.1 }, { weightDecay = 0.1 }
  for _ = 1, 3 do optim.adadelta(quad, xa, ca) optim.adadelta(quad, xb, cb) end
  tester:eq(xa, xb, 0)
  tester:eq(ca.accDelta, cb.accDelta, 0)
end

function tests.errorsNameTheOptimizer()
  local names = { 'sgd', 'nag', 'adam', 'adamw', 'adamax', 'adagrad', 'adadelta', 'rmsprop', 'rprop', 'asgd', 'lbfgs',
                  'cg', 'nadam', 'radam' }
  for _, name in ipairs(names) do
    -- an integer x failed inside a kernel or a tensor op ("[sgdStep] param must be...", "[add] ...")
    local state = {}
    tester:assertErrorPattern(function() optim[name](quad, torch.LongTensor({ 1, 2 }), {}, state) end,
      '%[optim%.' .. name .. '%] x must be a floating%-point tensor, got a torch%.LongTensor', name .. ': integer x')
    for k, v in pairs(state) do tester:assert(not torch.isTensor(v), name .. ': buffer state.' .. k .. ' left behind') end
    tester:assertErrorPattern(function() optim[name](function(x) return 0, torch.LongTensor({ 1, 2 }) end, D({ 1, 2 }), {}) end,
      '%[optim%.' .. name .. '%] df/dx must be a floating%-point tensor', name .. ': integer df/dx')
  end
  -- nag kept its look-ahead copy of an integer x before failing in x:add
  local state = {}
  pcall(optim.nag, quad, torch.LongTensor({ 1, 2 }), {}, state)
  tester:asserteq(state.x_copy, nil, 'nag: no x_copy after a refused x')
  -- per-element tensors: the kernel's "[sgdStep] learning rates has 3 elements" and nag's "[copy]"
  tester:assertErrorPattern(function() optim.sgd(quad, D({ 1, 2 }), { learningRates = D({ 1, 2, 3 }) }) end,
    '%[optim%.sgd%] learningRates has 3 elements but x has 2')
  tester:assertErrorPattern(function() optim.sgd(quad, D({ 1, 2 }), { weightDecays = D({ 1 }) }) end,
    '%[optim%.sgd%] weightDecays has 1 elements but x has 2')
  tester:assertErrorPattern(function() optim.sgd(quad, D({ 1, 2 }), { learningRates = torch.LongTensor({ 1, 1 }) }) end,
    '%[optim%.sgd%] learningRates must be a floating%-point tensor')
  state = {}
  tester:assertErrorPattern(function() optim.nag(quad, D({ 1, 2 }), { learningRates = D({ 1 }) }, state) end,
    '%[optim%.nag%] learningRates has 1 elements but x has 2')
  tester:asserteq(state.x_copy, nil, 'nag: no x_copy after refused learningRates')
  -- per-element tensors of x's size in another type or shape still go (Torch7 copied them)
  local x = D({ 1, 1 })
  optim.sgd(quad, x, { learningRate = 0.1, learningRates = torch.FloatTensor({ { 1, 0 } }) })
  tester:eq(x, D({ 1 - 0.05, 1 }), 1e-15)
  -- lswolfe: arithmetic on a string option, indexing a number x
  local x0 = D({ -1.2, 1 })
  local f, g = rosen(x0)
  tester:assertErrorPattern(function() optim.lswolfe(rosen, x0, 1, -g, f, g, -g:dot(g), { c1 = 'a' }) end,
    '%[optim%.lswolfe%] options%.c1 must be a number in %[0, 1%), got a')
  tester:assertErrorPattern(function() optim.lswolfe(rosen, x0, 1, -g, f, g, -g:dot(g), { maxIter = 0 }) end,
    '%[optim%.lswolfe%] options%.maxIter must be a positive integer')
  tester:assertErrorPattern(function() optim.lswolfe(rosen, 3, 1, -g, f, g, -g:dot(g)) end,
    '%[optim%.lswolfe%] x must be a tensor, got number')
  tester:assertErrorPattern(function() optim.lswolfe(rosen, x0, 1, nil, f, g, -g:dot(g)) end,
    '%[optim%.lswolfe%] d must be a tensor, got nil')
  tester:assertErrorPattern(function() optim.lswolfe(rosen, x0, 'a', -g, f, g, -g:dot(g)) end,
    '%[optim%.lswolfe%] t must be a finite number')
  -- a one-element tensor f (a loss under autograd) is taken as its value
  local fn = optim.lswolfe(rosen, D({ -1.2, 1 }), 1e-3, -g, D({ f }), g, D({ -g:dot(g) }))
  tester:assertalmosteq(fn, 5.3529115800089642, 1e-12, 'lswolfe with tensor f and gtd')
  -- cmaes with one candidate per generation: "[select] index 1 out of range"
  tester:assertErrorPattern(function() optim.cmaes(quad, D({ 1, 2 }), { sigma = 0.5, popsize = 1 }) end,
    '%[optim%.cmaes%] popsize must be at least 2, got 1')
end

function tests.asgdGradientThatIsX()
  -- an opfunc returning x itself as df/dx (f = |x|^2/2): x was shrunk by (1 - lambda*eta)
  -- before the gradient step read it, so the step used a decayed gradient
  local function aliased(x) return x:dot(x) / 2, x end
  local function copied(x) return x:dot(x) / 2, x:clone() end
  local xa, xb = D({ 1, -2, 3 }), D({ 1, -2, 3 })
  local ca, cb = { eta0 = 0.1, lambda = 0.5 }, { eta0 = 0.1, lambda = 0.5 }
  for _ = 1, 3 do optim.asgd(aliased, xa, ca) optim.asgd(copied, xb, cb) end
  tester:eq(xa, xb, 0)
  tester:eq(ca.ax, cb.ax, 0)
  -- the fused optimizers read each gradient element before writing x
  for _, name in ipairs({ 'sgd', 'nag', 'adam', 'adagrad', 'adadelta', 'rmsprop', 'adamax', 'rprop' }) do
    xa, xb = D({ 1, -2, 3 }), D({ 1, -2, 3 })
    ca, cb = { learningRate = 0.1, weightDecay = 0.1 }, { learningRate = 0.1, weightDecay = 0.1 }
    if name == 'rprop' then ca, cb = {}, {} end
    for _ = 1, 3 do optim[name](aliased, xa, ca) optim[name](copied, xb, cb) end
    tester:eq(xa, xb, 0, name .. ' with df/dx = x')
  end
end

function tests.checkgradOnViews()
  -- x:view(-1) refused a transposed x ("[view] cannot view a non-contiguous tensor")
  local W = D({ { 1, -2, 0.5 }, { 3, 0.25, -1 } })
  local function f(w) return torch.pow(w, 3):sum(), torch.pow(w, 2):mul(3) end
  local xt = W:t()
  tester:assert(not xt:isContiguous())
  local before = xt:clone()
  local diff, dC, dC_est = optim.checkgrad(f, xt)
  tester:assertlt(diff, 1e-7, 'checkgrad on a transposed x')
  tester:eq(dC, torch.pow(before, 2):mul(3), 1e-15)
  tester:eq(dC_est, dC, 1e-5)
  tester:eq(xt, before, 0, 'x restored bit for bit')
  local d2 = optim.checkgrad(f, xt:contiguous())
  tester:assertalmosteq(diff, d2, 1e-12, 'the same as on a contiguous copy')
  -- a one-element and a 3-d strided x
  tester:assertlt((optim.checkgrad(f, D({ 2 }))), 1e-7)
  local x3 = D(2, 3, 2):uniform(-1, 1):transpose(1, 3)
  tester:assertlt((optim.checkgrad(f, x3)), 1e-7, 'checkgrad on a 3-d strided x')
end

function tests.loggerRefusedRowWritesNothing()
  -- the first add wrote the header, then refused a value: the file kept a header for a row
  -- that never came, and the columns were fixed by the refused row
  local path = (os.getenv('TOCHA_TEST_TMP') or '/tmp') .. '/optim_t7_logger.log'
  local logger = optim.Logger(path)
  tester:assertErrorPattern(function() logger:add({ a = 1, b = {} }) end, 'can only log numbers and strings')
  logger:add({ c = 2 })
  logger.file:close()
  local fh = assert(io.open(path))
  local s = fh:read('*a')
  fh:close()
  tester:asserteq(s, 'c\t\n 2.0000e+00\t\n')
  os.remove(path)
end

tester:add(tests)
tester:run()
